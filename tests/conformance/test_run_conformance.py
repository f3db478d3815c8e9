"""The conformance runner itself (``run_conformance.py``), on a tiny fake Fairlearn checkout: its tests import the
installed Fairlearn release, not the checkout's ``fairlearn/`` package, and outcomes are counted against the
baseline; the ``relaxed`` configuration runs only where ``pandas.errors`` has ``Pandas4Warning``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas.errors
import pytest
import run_conformance

CHECKOUT_VERSION = "0.0.checkout"
_PYPROJECT = '[tool.pytest.ini_options]\nfilterwarnings = ["error"]\n'
_ORIGIN_TEST = ("import fairlearn\n\n\ndef test_installed_fairlearn():\n"
                f"    assert fairlearn.__version__ != {CHECKOUT_VERSION!r}\n")
_WARNING_TEST = "import warnings\n\n\ndef test_warns():\n    warnings.warn('environment', FutureWarning)\n"


def _fake_checkout(root: Path) -> Path:
    """A checkout with a ``fairlearn/`` package of another version and Fairlearn's test layout (packages)."""
    (root / "fairlearn").mkdir(parents=True)
    (root / "fairlearn" / "__init__.py").write_text(f"__version__ = {CHECKOUT_VERSION!r}\n")
    (root / "pyproject.toml").write_text(_PYPROJECT)
    for package in ("test", "test/unit", "test/unit/postprocessing", "test/unit/reductions",
                    "test/unit/reductions/exponentiated_gradient", "test/unit/preprocessing",
                    "test/unit/preprocessing/linear_dep_remover"):
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "__init__.py").write_text("")
    (root / "test/unit/postprocessing/test_origin.py").write_text(_ORIGIN_TEST)
    (root / "test/unit/reductions/exponentiated_gradient/test_warning.py").write_text(_WARNING_TEST)
    (root / "test/unit/reductions/test_smoke.py").write_text(_ORIGIN_TEST)
    return root


def test_a_run_from_the_checkout_would_import_the_checkouts_fairlearn(tmp_path):
    """The hazard is real (the check below is not vacuous): pytest run from the checkout imports its package."""
    checkout = _fake_checkout(tmp_path / "checkout")
    origin = tmp_path / "origin.json"
    env = {**os.environ, "PYTHONPATH": str(run_conformance.HERE), "FAIRDP_CONFORMANCE_ORIGIN": str(origin)}
    subprocess.run([sys.executable, "-m", "pytest", "test/unit/postprocessing", "-q", "-p", "no:cacheprovider",
                    "-p", "fairlearn_origin"], cwd=checkout, env=env, capture_output=True, check=False)
    assert json.loads(origin.read_text())["version"] == CHECKOUT_VERSION


def test_the_runner_tests_the_installed_release_and_counts_baseline_failures_apart(tmp_path):
    checkout = _fake_checkout(tmp_path / "checkout")
    comparison = run_conformance.compare(checkout, tmp_path / "junit", "upstream")
    origin_test = "test.unit.postprocessing.test_origin::test_installed_fairlearn"
    warning_test = "test.unit.reductions.exponentiated_gradient.test_warning::test_warns"
    assert comparison.baseline[origin_test] == comparison.substituted[origin_test] == "passed"
    assert comparison.failing() == [warning_test]                       # filterwarnings = error, at baseline
    assert comparison.lost() == [] and comparison.gained() == []
    assert comparison.line().startswith("baseline: 2 passed, 1 failed, 0 skipped; substituted: same outcome on 2 of "
                                        "2 baseline-passing; 0 lost; 0 gained")


def test_the_runner_refuses_a_run_that_imported_another_fairlearn(tmp_path, monkeypatch):
    checkout = _fake_checkout(tmp_path / "checkout")

    def copy_everything(source, destination):          # the checkout's fairlearn/ lands next to its tests
        for item in Path(source).iterdir():
            target = Path(destination) / item.name
            (run_conformance.shutil.copytree if item.is_dir() else run_conformance.shutil.copy2)(item, target)
        return Path(destination)

    monkeypatch.setattr(run_conformance, "copy_test_tree", copy_everything)
    with pytest.raises(RuntimeError, match=r"imported fairlearn from \S+, not the installed release"):
        run_conformance.compare(checkout, tmp_path / "junit", "upstream")


def test_the_relaxed_configuration_passes_its_option_where_pandas_has_the_warning():
    if not hasattr(pandas.errors, "Pandas4Warning"):
        pytest.skip("pandas.errors has no Pandas4Warning (pandas < 3)")
    assert run_conformance.configuration_args("relaxed") == ("-W", "default::pandas.errors.Pandas4Warning")
    assert run_conformance.configuration_args("upstream") == ()


def test_without_pandas4warning_the_relaxed_configuration_is_not_applicable_and_not_run(monkeypatch, tmp_path,
                                                                                       capsys):
    monkeypatch.delattr(pandas.errors, "Pandas4Warning", raising=False)
    assert run_conformance.configuration_args("relaxed") is None
    assert run_conformance.configuration_args("upstream") == ()
    with pytest.raises(ValueError, match="does not apply"):
        run_conformance.compare(tmp_path, tmp_path / "junit", "relaxed")
    ran = []
    monkeypatch.setattr(run_conformance, "compare", lambda source, junit_dir, configuration: ran.append(configuration))
    monkeypatch.setattr(run_conformance, "report", lambda comparison, show: ["reported"])
    (tmp_path / "fairlearn").mkdir()
    (tmp_path / "fairlearn" / "__init__.py").write_text('__version__ = "0.0"\n')
    assert run_conformance.main(["--source", str(tmp_path), "--junit-dir", str(tmp_path / "junit")]) == 0
    assert ran == ["upstream"]
    assert "[relaxed] not applicable" in capsys.readouterr().out
