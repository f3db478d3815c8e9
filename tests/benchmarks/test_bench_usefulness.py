"""The usefulness benchmark (bench_usefulness.py) runs: its smallest quick configuration, and its helpers."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the scripts import _common from their folder

bench = pytest.importorskip("bench_usefulness")


def test_synthetic_layout_bound_and_one_factor_names():
    X, y, a, groups, l2, l1 = bench.load(bench.synthetic_name(n=1_000))
    assert X.shape == (1_000, bench.CENTRE["d"]) and groups == [0, 1]
    assert X.min() >= 0 and X.max() <= 1                     # every feature in its declared range [0, 1]
    assert l2 == pytest.approx(math.sqrt(bench.CENTRE["d"])) and l1 == bench.CENTRE["d"]
    assert np.linalg.norm(X, axis=1).max() <= l2
    assert len(set(bench.setting_names())) == 5 + sum(len(v) for v in bench.SWEEP.values())


def test_quick_run_on_the_smallest_setting_reports_every_section(capsys):
    status = bench.main(["--quick", "--settings", "synthetic n=1000"])
    report = capsys.readouterr().out
    assert status == 0
    for section in ("## Acceptance", "## Defaults of the record unit", "### synthetic n=1000"):
        assert section in report
    for method in bench.PRIVATE:
        assert f"| {method} |" in report
