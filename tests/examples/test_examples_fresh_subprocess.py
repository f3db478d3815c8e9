"""Every example's quick mode and every ``fairdp reproduce NAME --quick`` in a fresh interpreter, as a user runs them.

The other example tests load the scripts in-process (``fairdp_adapters._checkout.load_example``) after the test session
has imported fairdp, so a script that works only after that (one that imports diffprivlib first, on scikit-learn
1.9) passes there and fails for a user. Here each runs as ``python examples/X.py --quick --out DIR`` and through the
installed ``fairdp`` console script next to ``sys.executable``, from the repository root, and the test checks the exit
code, the files the run must write and the columns of the script's committed results (``tests/committed_results.py``:
this is each script's only quick run). A run measured above ``SLOW_SECONDS`` is marked slow (``-m slow``), except
the ``fairdp reproduce`` runs of ``DEFAULT_REPRODUCTIONS``, which the default suite always runs.
``fairdp reproduce NAME --quick`` runs the same script with the same arguments as its example's run (through
``load_example``), so the ``fairdp reproduce`` path runs once, for ``DEFAULT_REPRODUCTIONS`` (in the default suite),
and the other names are not run again (their example runs are here; ``tests/adapters/test_cli.py`` checks what
``fairdp reproduce`` passes to each script). The example run of a script that a default reproduction runs is in the
slow leg: the default suite runs that script once in a fresh interpreter, through ``fairdp reproduce``, and checks
the same files.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from committed_results import COMMITTED, check_committed_columns
from fairdp_adapters.cli import _REPRODUCTIONS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: Runs measured above this (seconds, on the 2-core machine) are marked slow.
SLOW_SECONDS = 11
#: The ``fairdp reproduce`` runs in the default suite: the command the issue found broken (fresh-interpreter import
#: order); the others run with ``-m slow``.
DEFAULT_REPRODUCTIONS = {"blind-fair-regression"}
#: Generous: a stuck run fails instead of hanging the suite.
TIMEOUT_SECONDS = 1800


@dataclass(frozen=True)
class QuickRun:
    args: tuple[str, ...]     # besides --out DIR
    outputs: tuple[str, ...]  # files the run writes to --out
    seconds: float            # measured CPU time (user + system) of one fresh run, on the 2-core machine (2026-11-30)


QUICK_RUNS = {
    "quickstart.py": QuickRun((), ("quickstart.png",), 5),
    "adult_inprocessing.py": QuickRun(("--quick",), ("adult_inprocessing_sex_dp.csv",
                                                     "adult_inprocessing_sex_dp_summary.csv",
                                                     "adult_inprocessing_sex_dp.png"), 85),
    "blind_fair_regression.py": QuickRun(("--quick",), ("per_seed.csv", "summary.csv", "fronts.png"), 12),
    "budget2023_group_budget.py": QuickRun(("--quick",), (
        "synthetic_per_seed.csv", "synthetic_summary.csv", "law_school_per_seed.csv", "law_school_summary.csv",
        "tables.csv", "readings.csv", "verdict.csv", "mspe_vs_rho.png", "readings_vs_rho.png"), 15),
    "jagielski2019_inprocessing.py": QuickRun(("--quick",), ("per_seed.csv", "summary.csv", "pareto_fronts.csv",
                                                             "fig1_left_inprocessing.png"), 15),
    "jagielski2019_postprocessing.py": QuickRun(("--quick",), ("per_seed.csv", "summary.csv", "pareto_fronts.csv",
                                                               "fig1_right_postprocessing.png"), 6),
    "xian2024_reproduce.py": QuickRun(("--quick",), (
        "main_table_per_seed.csv", "main_table_summary.csv", "main_table.md", "sweep_per_seed.csv",
        "fig2_tradeoffs.csv", "fig2_tradeoffs.png", "fig3_law_school_eps0.1.csv", "fig3_law_school_eps0.1.png",
        "fig4_envelopes.csv", "fig4_law_school_envelopes.png"), 30),
    "zhu2022_allocation.py": QuickRun(("--quick",), (
        "table1_data_release.csv", "table1_entities.csv", "table2_allocation.csv", "table2_district_biases.csv.gz",
        "report_eps0.01_by_state.csv", "report_eps0.01_by_size_decile.csv", "figure4_biases.png",
        "figure4_biases_control_variate.png", "summary.md"), 12),
}
#: Examples without a --quick flag, and why.
NO_QUICK_FLAG = {"quickstart.py": "the README's main job; it runs in seconds as it is"}


def _param(values, filename, default=True):
    """A ``pytest.param``, marked slow where the example's quick run is (or where ``default`` is False)."""
    slow = QUICK_RUNS[filename].seconds > SLOW_SECONDS or not default
    return pytest.param(*values, id=values[0], marks=[pytest.mark.slow] if slow else [])


def _run(command):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    seconds = time.perf_counter() - start
    assert result.returncode == 0, (f"{' '.join(command)} exited with {result.returncode} after {seconds:.0f} s:\n"
                                    f"{result.stderr[-3000:]}")
    return result


def _assert_outputs(filename, out):
    """The run wrote every file it must, none empty, and the columns of its committed results (if any)."""
    missing = [name for name in QUICK_RUNS[filename].outputs
               if not (out / name).is_file() or (out / name).stat().st_size == 0]
    assert not missing, f"{filename} did not write {missing} to {out}"
    check_committed_columns(out, filename)


def _fairdp_command():
    """The console script installed next to the interpreter, as a user runs it."""
    path = shutil.which("fairdp", path=str(Path(sys.executable).parent))
    assert path is not None, f"no fairdp console script next to {sys.executable}: install fairdp (pip install -e .)"
    return path


# ------------------------------------------------------------------------------------------ the tables
def test_every_example_has_a_fresh_quick_run():
    """A new example needs an entry in QUICK_RUNS (and a --quick mode, unless it is as quick as the quickstart)."""
    assert sorted(p.name for p in EXAMPLES.glob("*.py")) == sorted(QUICK_RUNS)
    for filename, run in QUICK_RUNS.items():
        assert ("--quick" in run.args) != (filename in NO_QUICK_FLAG), filename
        assert run.outputs, filename


def test_every_script_with_committed_results_has_a_quick_run():
    """The committed-columns check keys on the script's file name: a name that no quick run has would skip it."""
    assert set(COMMITTED) <= set(QUICK_RUNS)


def test_every_reproduction_has_a_fresh_quick_run():
    assert _REPRODUCTIONS and {filename for filename, _ in _REPRODUCTIONS.values()} <= set(QUICK_RUNS)


def test_the_quickstart_and_a_reproduction_run_in_the_default_suite():
    assert QUICK_RUNS["quickstart.py"].seconds <= SLOW_SECONDS
    assert set(_REPRODUCTIONS) >= DEFAULT_REPRODUCTIONS


# ------------------------------------------------------------------------------------------ the runs
#: The scripts that the default suite runs through ``fairdp reproduce`` (their example runs are in the slow leg).
_REPRODUCED_BY_DEFAULT = {_REPRODUCTIONS[name][0] for name in DEFAULT_REPRODUCTIONS}


@pytest.mark.parametrize("filename", [_param([filename], filename, filename not in _REPRODUCED_BY_DEFAULT)
                                      for filename in sorted(QUICK_RUNS)])
def test_example_quick_run_in_a_fresh_interpreter(filename, tmp_path):
    result = _run([sys.executable, str(EXAMPLES / filename), *QUICK_RUNS[filename].args, "--out", str(tmp_path)])
    _assert_outputs(filename, tmp_path)
    if filename == "quickstart.py":
        assert "Privacy spent by the post-processor: epsilon=1.0" in result.stdout


@pytest.mark.parametrize("name, filename", [pytest.param(name, _REPRODUCTIONS[name][0], id=name)
                                            for name in sorted(DEFAULT_REPRODUCTIONS)])
def test_fairdp_reproduce_quick_in_a_fresh_interpreter(name, filename, tmp_path):
    _run([_fairdp_command(), "reproduce", name, "--quick", "--out", str(tmp_path)])
    _assert_outputs(filename, tmp_path)
