"""Smoke test of examples/budget2023_group_budget.py (the budget-tailoring reproduction) in --quick mode.

Marked slow (deselected by default; run with ``pytest -m slow``).
"""


import numpy as np
import pytest
from fairdp_adapters._checkout import load_example


@pytest.fixture(scope="module")
def script():
    return load_example("budget2023_group_budget.py")


@pytest.mark.slow
def test_quick_reproduction(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])

    expected = ["synthetic_per_seed.csv", "synthetic_summary.csv", "law_school_per_seed.csv",
                "law_school_summary.csv", "mspe_vs_rho.png"]
    for name in expected:
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name

    per_seed, summary = result["per_seed"], result["summary"]
    assert np.all(np.isfinite(per_seed["mspe"]))
    for column in ("nonprivate_mspe", "dpnose_mspe", "dpse_mspe", "diff_mean"):
        assert np.all(np.isfinite(summary[column])), column
    assert set(summary["rho"]) == set(script.QUICK_RHOS)
    assert (summary["n_seeds"] == script.QUICK_SEEDS).all()
    assert set(per_seed["method"]) == {"non-private", "DPNoSE", "DPSE"}

    synthetic = summary[summary["dataset"] == "synthetic"].set_index("group")
    assert list(synthetic.index) == list(script.SYN_GROUPS)
    # Group 1 is fitted (the minorities' slopes are symmetric around beta_1): MSPE ~ sigma_e^2 = 1.
    assert abs(synthetic.loc[1, "nonprivate_mspe"] - script.SIGMA_E ** 2) < 0.2
    # Budget shares s_k^2 sum to 1.
    assert synthetic["dpse_share"].sum() == pytest.approx(1.0)

    law = summary[summary["dataset"] == "law_school"]
    assert set(law["group"]) == set(script.LAW_GROUPS)
    assert result["law_info"]["group_counts"] == {"white": 18_716, "black": 1_343}
