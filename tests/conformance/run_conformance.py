"""Run Fairlearn's own unit tests twice -- with Fairlearn's classes and with fairdp's at ``epsilon=inf`` -- against
the INSTALLED Fairlearn release, and report how the outcomes compare, baseline failures counted apart.

Usage (a Fairlearn source checkout of the installed version, for its ``test/`` tree only; the tests are
MIT-licensed and stay there; Fairlearn's test extras ``lightgbm`` and ``pytest-mock`` installed)::

    FAIRDP_FAIRLEARN_SRC=/path/to/fairlearn python tests/conformance/run_conformance.py [--junit-dir DIR]

The checkout's ``test/`` tree and its ``pyproject.toml`` (Fairlearn's pytest configuration, ``filterwarnings =
error`` included) are copied to a scratch folder, and pytest runs there under ``python -P``: neither the working
directory nor the rootdir that pytest's ``prepend`` import mode puts on ``sys.path`` holds a ``fairlearn/``
package, so the tests import the installed release. Each run records the ``fairlearn`` it imported (plugin
``fairlearn_origin``) and :func:`compare` raises if that is not the installed release's.

Two configurations (:data:`CONFIGURATIONS`): ``upstream``, Fairlearn's configuration as it is, and ``relaxed``, the
same with pandas' ``Pandas4Warning`` shown instead of raised (with pandas 3, Fairlearn's own code emits it, and under
``filterwarnings = error`` most exponentiated-gradient tests then fail with Fairlearn's classes as well, so they
exercise neither class). ``relaxed`` applies only where ``pandas.errors`` has ``Pandas4Warning`` (pandas 3; with an
older pandas, ``-W`` naming it would stop pytest at startup): elsewhere it is reported as not applicable and not
run (:func:`configuration_args`). For each, the report reads "baseline: P passed, F failed (...); substituted:
same outcome on N of P baseline-passing; K lost; L gained", with the commonest baseline failure messages.

Also run by ``tests/conformance/test_conformance.py`` when ``FAIRDP_FAIRLEARN_SRC`` is set (skipped otherwise).
"""

from __future__ import annotations

import argparse
import collections
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from fairlearn_origin import ORIGIN_ENV

HERE = Path(__file__).resolve().parent
# The upstream suites that exercise the replaced classes.
FAIRLEARN_TESTS = ("test/unit/postprocessing", "test/unit/reductions/exponentiated_gradient",
                   "test/unit/reductions/grid_search", "test/unit/reductions/test_smoke.py",
                   "test/unit/preprocessing/linear_dep_remover")
#: Extra pytest arguments per configuration (command-line -W filters take precedence over the ini's).
CONFIGURATIONS = {"upstream": (), "relaxed": ("-W", "default::pandas.errors.Pandas4Warning")}


def configuration_args(configuration):
    """The extra pytest arguments of ``configuration``, or None when it does not apply to the installed pandas
    (``relaxed`` without ``pandas.errors.Pandas4Warning``)."""
    import pandas.errors

    if configuration == "relaxed" and not hasattr(pandas.errors, "Pandas4Warning"):
        return None
    return CONFIGURATIONS[configuration]


#: Test-id prefixes of the suites, for the per-suite counts.
SUITES = {"post-processing": "test.unit.postprocessing.",
          "exponentiated gradient": "test.unit.reductions.exponentiated_gradient.",
          "grid search": "test.unit.reductions.grid_search.",
          "reductions smoke": "test.unit.reductions.test_smoke",
          "correlation remover": "test.unit.preprocessing.linear_dep_remover."}


def _outcomes(junit_file):
    outcomes = {}
    for case in ElementTree.parse(junit_file).getroot().iter("testcase"):
        test_id = f"{case.get('classname')}::{case.get('name')}"
        children = {child.tag for child in case}
        if "skipped" in children:
            outcomes[test_id] = "skipped"
        elif "error" in children:
            outcomes[test_id] = "error"
        elif "failure" in children:
            outcomes[test_id] = "failed"
        else:
            outcomes[test_id] = "passed"
    return outcomes


def _failure_messages(junit_file):
    messages = {}
    for case in ElementTree.parse(junit_file).getroot().iter("testcase"):
        for child in case:
            if child.tag in ("failure", "error"):
                messages[f"{case.get('classname')}::{case.get('name')}"] = (child.get("message") or "")[:300]
    return messages


def copy_test_tree(source, destination):
    """Copy the checkout's ``test/`` tree and ``pyproject.toml`` (its pytest configuration) into ``destination``."""
    destination = Path(destination)
    shutil.copytree(Path(source) / "test", destination / "test")
    shutil.copy2(Path(source) / "pyproject.toml", destination / "pyproject.toml")
    return destination


def installed_fairlearn():
    """``(path of fairlearn/__init__.py, version)`` of the installed Fairlearn distribution."""
    distribution = importlib.metadata.distribution("fairlearn")
    return Path(distribution.locate_file("fairlearn/__init__.py")).resolve(), distribution.version


def run_suite(tree, junit_file, *, substitute, extra_args=()):
    """Run the upstream tests copied to ``tree``; returns ``({test id: outcome}, {"file", "version"} of the
    fairlearn the tests imported)``."""
    tree = Path(tree)
    origin_file = Path(junit_file).with_suffix(".origin.json")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(part for part in (str(HERE), env.get("PYTHONPATH", "")) if part)
    env[ORIGIN_ENV] = str(origin_file)
    # The suites the checkout has (pytest stops on a path that does not exist, e.g. in a trimmed checkout).
    suites = [suite for suite in FAIRLEARN_TESTS if (tree / suite).exists()]
    args = [sys.executable, "-P", "-m", "pytest", *suites, "-q", "-p", "no:cacheprovider",
            "--continue-on-collection-errors", f"--junitxml={junit_file}", "-c", str(tree / "pyproject.toml"),
            "--rootdir", str(tree), "-o", "addopts=", "-p", "fairlearn_origin"]
    if substitute:
        args += ["-p", "fairdp_substitution"]
    args += list(extra_args)
    subprocess.run(args, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return _outcomes(junit_file), json.loads(origin_file.read_text())


@dataclass
class Comparison:
    """The outcomes of one configuration with Fairlearn's classes (``baseline``) and with fairdp's."""

    configuration: str
    baseline: dict
    substituted: dict
    baseline_messages: dict
    substituted_messages: dict

    def _ids(self, outcomes, wanted, prefix=""):
        return sorted(t for t, outcome in outcomes.items() if outcome in wanted and t.startswith(prefix))

    def passing(self, prefix=""):
        """Tests that pass with Fairlearn's classes."""
        return self._ids(self.baseline, {"passed"}, prefix)

    def failing(self, prefix=""):
        """Tests that fail or error with Fairlearn's classes (the environment's or upstream's failures)."""
        return self._ids(self.baseline, {"failed", "error"}, prefix)

    def still(self, prefix=""):
        return [t for t in self.passing(prefix) if self.substituted.get(t) == "passed"]

    def lost(self, prefix=""):
        """Baseline-passing tests that do not pass with fairdp's classes."""
        return sorted(set(self.passing(prefix)) - set(self.still(prefix)))

    def gained(self, prefix=""):
        """Baseline-failing tests that pass with fairdp's classes."""
        return [t for t in self.failing(prefix) if self.substituted.get(t) == "passed"]

    def line(self, prefix=""):
        counts = collections.Counter(o for t, o in self.baseline.items() if t.startswith(prefix))
        passing = len(self.passing(prefix))
        return (f"baseline: {passing} passed, {counts['failed'] + counts['error']} failed, {counts['skipped']} "
                f"skipped; substituted: same outcome on {len(self.still(prefix))} of {passing} baseline-passing; "
                f"{len(self.lost(prefix))} lost; {len(self.gained(prefix))} gained")

    def baseline_failure_reasons(self, top=3):
        """The commonest first lines of the baseline's failure messages, with their counts."""
        reasons = collections.Counter(self.baseline_messages.get(t, "").split("\n")[0][:150] for t in self.failing())
        return reasons.most_common(top)


def compare(source, junit_dir, configuration="upstream"):
    """Run the upstream suites of ``source`` with Fairlearn's and with fairdp's classes, in ``configuration``.

    Raises RuntimeError if a run imported another ``fairlearn`` than the installed release, ValueError if
    ``configuration`` does not apply to the installed pandas (:func:`configuration_args`).
    """
    extra = configuration_args(configuration)
    if extra is None:
        raise ValueError(f"configuration {configuration!r} does not apply: pandas.errors has no Pandas4Warning.")
    junit_dir = Path(junit_dir).resolve()          # pytest runs in the scratch tree: no path relative to here
    junit_dir.mkdir(parents=True, exist_ok=True)
    expected_file, _ = installed_fairlearn()
    with tempfile.TemporaryDirectory(prefix="fairlearn-tests-") as scratch:
        tree = copy_test_tree(source, scratch)
        results = {}
        for label, substitute in (("fairlearn", False), ("fairdp", True)):
            junit = junit_dir / f"{configuration}-{label}.xml"
            outcomes, origin = run_suite(tree, junit, substitute=substitute, extra_args=extra)
            if origin["file"] is None or Path(origin["file"]).resolve() != expected_file:
                raise RuntimeError(f"the {label} run imported fairlearn from {origin['file']}, not the installed "
                                   f"release ({expected_file})")
            results[label] = (outcomes, _failure_messages(junit))
    return Comparison(configuration, results["fairlearn"][0], results["fairdp"][0], results["fairlearn"][1],
                      results["fairdp"][1])


def _checkout_version(source):
    text = (Path(source) / "fairlearn" / "__init__.py").read_text(encoding="utf-8")
    return next((line.split("=", 1)[1].strip().strip("\"'") for line in text.splitlines()
                 if line.startswith("__version__")), "unknown")


def report(comparison, show=40):
    """The summary lines of ``comparison`` (the configuration, per suite, the baseline's reasons, lost tests)."""
    lines = [f"[{comparison.configuration}] {comparison.line()}"]
    lines += [f"  {suite}: {comparison.line(prefix)}" for suite, prefix in SUITES.items()]
    lines += [f"  baseline failure x{count}: {reason}" for reason, count in comparison.baseline_failure_reasons()]
    lines += [f"  LOST {t}: {comparison.substituted_messages.get(t, '')[:160]}" for t in comparison.lost()[:show]]
    lines += [f"  GAINED {t}" for t in comparison.gained()[:show]]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=os.environ.get("FAIRDP_FAIRLEARN_SRC"),
                        help="Fairlearn source checkout (default: $FAIRDP_FAIRLEARN_SRC)")
    parser.add_argument("--junit-dir", default="conformance-results")
    parser.add_argument("--configuration", action="append", choices=sorted(CONFIGURATIONS),
                        help="default: both")
    parser.add_argument("--show", type=int, default=40, help="how many lost or gained tests to list")
    args = parser.parse_args(argv)
    if not args.source:
        parser.error("--source or FAIRDP_FAIRLEARN_SRC is required")
    installed, version = installed_fairlearn()
    print(f"installed fairlearn {version} ({installed.parent}); tests from {args.source} "
          f"(version {_checkout_version(args.source)})")
    for configuration in args.configuration or list(CONFIGURATIONS):
        if configuration_args(configuration) is None:
            print(f"[{configuration}] not applicable: pandas.errors has no Pandas4Warning (pandas < 3)")
            continue
        print("\n".join(report(compare(Path(args.source), args.junit_dir, configuration), args.show)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
