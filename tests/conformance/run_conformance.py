"""Run Fairlearn's own unit tests twice -- with Fairlearn's classes and with fairdp's at ``epsilon=inf`` -- and
report which upstream tests pass with Fairlearn's classes but not with ours.

Usage (a Fairlearn source checkout of the installed version; its tests are MIT-licensed and stay in that checkout)::

    FAIRDP_FAIRLEARN_SRC=/path/to/fairlearn python tests/conformance/run_conformance.py [--junit-dir DIR]

Also run by ``tests/conformance/test_conformance.py`` when ``FAIRDP_FAIRLEARN_SRC`` is set (skipped otherwise).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The upstream suites that exercise the replaced classes.
FAIRLEARN_TESTS = ("test/unit/postprocessing", "test/unit/reductions/exponentiated_gradient",
                   "test/unit/reductions/test_smoke.py")


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


def run_suite(source, junit_file, *, substitute, extra_args=()):
    """Run the upstream tests in ``source``; returns {test id: outcome}."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    args = [sys.executable, "-m", "pytest", *FAIRLEARN_TESTS, "-q", "-p", "no:cacheprovider", "--continue-on-collection-errors",
            f"--junitxml={junit_file}", "-o", "addopts=", "--rootdir", str(source)]
    if substitute:
        args += ["-p", "fairdp_substitution"]
    args = [a for a in args if a] + list(extra_args)
    subprocess.run(args, cwd=source, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return _outcomes(junit_file)


def compare(source, junit_dir):
    junit_dir = Path(junit_dir)
    junit_dir.mkdir(parents=True, exist_ok=True)
    upstream = run_suite(source, junit_dir / "fairlearn.xml", substitute=False)
    ours = run_suite(source, junit_dir / "fairdp.xml", substitute=True)
    baseline = [t for t, outcome in upstream.items() if outcome == "passed"]
    still = [t for t in baseline if ours.get(t) == "passed"]
    lost = sorted(set(baseline) - set(still))
    return baseline, still, lost, _failure_messages(junit_dir / "fairdp.xml")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=os.environ.get("FAIRDP_FAIRLEARN_SRC"),
                        help="Fairlearn source checkout (default: $FAIRDP_FAIRLEARN_SRC)")
    parser.add_argument("--junit-dir", default="conformance-results")
    parser.add_argument("--show", type=int, default=40, help="how many lost tests to list")
    args = parser.parse_args(argv)
    if not args.source:
        parser.error("--source or FAIRDP_FAIRLEARN_SRC is required")
    baseline, still, lost, messages = compare(Path(args.source), args.junit_dir)
    share = len(still) / max(len(baseline), 1)
    print(f"upstream tests passing with Fairlearn's classes: {len(baseline)}")
    print(f"of those, passing with fairdp at epsilon=inf:   {len(still)} ({100 * share:.1f}%)")
    for test_id in lost[:args.show]:
        print(f"  LOST {test_id}: {messages.get(test_id, '')[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
