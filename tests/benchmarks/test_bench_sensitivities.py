"""The sensitivities benchmark (bench_sensitivities.py) runs: its quick mode, the before/after round trip through its
CSVs, the comparison's arithmetic and the layouts of its small-C and small-n settings."""

import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))   # the scripts import _common from their folder

import bench_sensitivities as bench  # noqa: E402


@pytest.mark.parametrize("name", list(bench.SCALED))
def test_scaled_regime_rows_lie_in_the_public_box_of_row_bound_c(name):
    X, y, a, groups, l2, l1, bound = bench.load(name)
    c, d = bench.SCALED[name], X.shape[1]
    assert l2 == c and bound == pytest.approx(c / math.sqrt(d)) and l1 == pytest.approx(c * math.sqrt(d))
    assert X.min() >= 0 and X.max() <= bound
    assert np.linalg.norm(X, axis=1).max() <= c and np.abs(X).sum(axis=1).max() <= l1


def test_small_setting_fits_on_120_rows_of_2_features():
    data = bench.split(bench.SMALL, seed=3)
    assert data["X_train"].shape == (120, 2) and data["bound"] == 1.0
    assert pytest.approx(1 + 2 * math.sqrt(math.log(1e6))) == bench.RHO_EPSILON


def test_quick_run_writes_the_tag_files_and_compares_equal_runs_as_no_change(tmp_path, capsys):
    status = bench.main(["--quick", "--tag", "before", "--settings", bench.SMALL, "--results", str(tmp_path)])
    report = capsys.readouterr().out
    assert status == 0
    for method in (*bench.REFERENCE, *bench.PRIVATE, bench.RHO_METHOD):
        assert f"| {method} |" in report
    frame = pd.read_csv(tmp_path / "bench_sensitivities_before.csv")
    assert len(frame) == len(bench.REFERENCE) + len(bench.PRIVATE) + 1 and (frame.error.isna()).all()
    assert frame.loc[frame.method == "GroupBudget", "fell_back"].notna().all()   # stage1_fallback_ was read
    shutil.copy(tmp_path / "bench_sensitivities_before.csv", tmp_path / "bench_sensitivities_after.csv")
    assert bench.main(["--compare", "--results", str(tmp_path)]) == 0
    text = (tmp_path / "bench_sensitivities.md").read_text()
    assert "| EMFC | 1 | +0.0000 | 0 | 0 | 0 |" in text
    assert f"| ρ = 1 (ε 8.43) | {bench.RHO_METHOD} |" in text            # its epsilon read back from the CSV


def _rows(method, accuracies, epsilon=1.0, fell_back=None):
    return [{"setting": "law_school", "method": method, "seed": s, "epsilon": epsilon, "seconds": 0.1, "n_train": 10, "error": "",
                 "n_fit": 10, "accuracy": acc, "difference": 0.05, "warned": False, "constant_output": False, "chose_constant": False,
                 "fell_back": fell_back} for s, acc in enumerate(accuracies)]


def test_compare_counts_cells_beyond_two_standard_errors(tmp_path):
    before = (_rows("constant", [0.6] * 4, math.inf) + _rows("EMFC", [0.60, 0.62, 0.60, 0.62])
              + _rows("EMFC", [0.60, 0.62, 0.60, 0.62], 2.0) + _rows("GroupBudget", [0.6] * 4, fell_back=True))
    after = (_rows("constant", [0.6] * 4, math.inf) + _rows("EMFC", [0.70, 0.72, 0.70, 0.72])   # +0.1 on every seed
             + _rows("EMFC", [0.61, 0.61, 0.62, 0.62], 2.0) + _rows("GroupBudget", [0.6] * 4, fell_back=False))
    pd.DataFrame(before).to_csv(tmp_path / "bench_sensitivities_before.csv", index=False)
    pd.DataFrame(after).to_csv(tmp_path / "bench_sensitivities_after.csv", index=False)
    merged = bench.compare(pd.DataFrame(before), pd.DataFrame(after))
    emfc = merged[(merged.method == "EMFC") & (merged.epsilon == 1.0)].iloc[0]
    assert emfc.change == pytest.approx(0.1) and emfc.se == pytest.approx(math.sqrt(2 * (0.0004 / 3) / 4))
    assert emfc.se_paired == pytest.approx(0.0, abs=1e-12)             # the same change on every seed
    assert bench.main(["--compare", "--results", str(tmp_path)]) == 0
    text = (tmp_path / "bench_sensitivities.md").read_text()
    # ε = 2: changes +0.01, -0.01, +0.02, 0 (mean 0.005, paired SE sqrt(0.0005 / 3) / 2 = 0.0065): within 2 SE
    assert "| EMFC | 2 | +0.0525 | 1 | 0 | 1 | +0.0100 → +0.0625 | +0.0000 |" in text   # constant 0.6
    assert "| constant | 1 | +0.0000 | 0 | 0 | 0 | +0.0000 → +0.0000 | +0.0000 |" in text
    assert "4 of 4 / 0 of 4" in text                                   # stage 1's fallbacks, before / after
