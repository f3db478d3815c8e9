"""This session's benchmark scripts run as a user runs them: ``--quick``, in a fresh subprocess, from the root.

The quick modes write no results file (checked: the committed results stay untouched). All of them are in the slow
leg (``-m slow``): they check that the benchmark scripts still run, which no user's install depends on, and together
they took about 30 s of the default run's CPU (``bench_aif360_demo`` alone fits the notebook's data several times,
about a minute).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "tests" / "benchmarks" / "results"


@pytest.mark.parametrize("script", [
    "bench_aif360_metrics.py",
    "bench_small_groups.py",
    "bench_sequential_audit.py",                                            # the design of three rows, no fits
    "bench_audit_fits.py",                                                  # 5 fits of two rows, twice (~6 s)
    "bench_aif360_postprocessing.py",                                       # fits Adult's model twice (~20 s)
    "bench_aif360_demo.py",
    "bench_preprocessing.py",                                               # two Adult loads and 20 fits: ~11 s
])
def test_quick_mode_runs_in_a_fresh_process(script):
    before = {path: path.stat().st_mtime_ns for path in RESULTS.iterdir()}
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "benchmarks" / script), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip(), "the quick run printed nothing"
    assert {path: path.stat().st_mtime_ns for path in RESULTS.iterdir()} == before
