"""The usefulness benchmark (bench_usefulness.py) runs: its smallest quick configuration, and its helpers."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the scripts import _common from their folder

bench = pytest.importorskip("bench_usefulness")


def test_synthetic_layout_bound_and_one_factor_names():
    X, y, a, groups, l2, l1, numeric = bench.load(bench.synthetic_name(n=1_000))
    assert X.shape == (1_000, bench.CENTRE["d"]) and groups == [0, 1]
    assert X.min() >= 0 and X.max() <= 1 and numeric == X.shape[1]   # every feature numeric, in [0, 1]
    assert l2 == pytest.approx(math.sqrt(bench.CENTRE["d"])) and l1 == bench.CENTRE["d"]
    assert np.linalg.norm(X, axis=1).max() <= l2
    assert len(set(bench.setting_names())) == 5 + sum(len(v) for v in bench.SWEEP.values())


def test_quick_run_on_the_smallest_setting_reports_every_section(capsys):
    status = bench.main(["--quick", "--settings", "synthetic n=1000"])
    report = capsys.readouterr().out
    assert status == 0
    for section in ("## Acceptance", "## The most accurate private", "## Defaults of the record unit",
                    "### synthetic n=1000"):
        assert section in report
    for method in bench.PRIVATE:
        assert f"| {method} |" in report


def test_centred_layout_bound_is_a_quarter_per_numeric_column_and_one_per_block():
    data = {"X_train": np.ones((2, 3)), "X_test": np.zeros((1, 3)), "l2": math.sqrt(2 + 1), "numeric": 2}  # 2 numeric, 1 block
    out = bench.centred(data)
    assert out["l2"] == pytest.approx(math.sqrt(2 / 4 + 1))
    np.testing.assert_array_equal(out["X_train"][0], [0.5, 0.5, 1.0])
    np.testing.assert_array_equal(out["X_test"][0], [-0.5, -0.5, 0.0])
    assert np.linalg.norm(out["X_train"], axis=1).max() <= out["l2"]


def test_selection_reads_constant_choice_when_the_estimator_has_it_else_states_the_fallback():
    from types import SimpleNamespace

    from fairlearn_dp.privacy._selection import ConstantChoice, selection_error_bound

    choice = ConstantChoice("constant", 0.0, 0.1, 0.02, 0.05, ("fitted", "constant 0", "constant 1"))
    assert bench._selection(SimpleNamespace(constant_choice_=choice), "EMFC", 1_000, 1.0) == (True, 0.02, False)
    assert bench._selection(SimpleNamespace(), "EMFC", 1_000, 1.0) == (None, selection_error_bound(1_000, 0.1), True)
    assert bench._selection(SimpleNamespace(), "DPEG attribute", 1_000, 1.0) == (None, 0.0, True)


def test_goals_option_runs_only_item_4s_fits_and_writes_no_file():
    args = bench.parse(["--goals"])
    assert args.settings == ["adult race"] and args.output is None
    with pytest.raises(SystemExit):
        bench.parse(["--goals", "--quick"])
