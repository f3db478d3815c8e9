"""MetricFrame-based reports: regression before/after table and allocation bias report."""

import numpy as np
import pytest

from fairdp_adapters.reporting import (
    allocation_bias_report,
    before_after_report,
    plot_allocation_biases,
    plot_group_cdfs,
    size_deciles,
)


def test_allocation_report_groups_biases_and_money(tmp_path):
    true = np.array([0.1, 0.2, 0.3, 0.4])
    expected = np.array([0.12, 0.21, 0.29, 0.38])
    frames = allocation_bias_report(true, expected, budget=1000.0,
                                    groupings={"state": ["A", "A", "B", "B"], "size_decile": size_deciles(true)})
    state = frames["state"].by_group
    assert state.loc["A", "misallocated_funds"] == pytest.approx(30.0)
    assert state.loc["B", "misallocated_funds"] == pytest.approx(-30.0)
    assert state.loc["B", "cost_of_privacy"] == pytest.approx(30.0)
    assert state.loc["A", "alpha_fairness"] == pytest.approx(0.01)
    assert frames["state"].overall["entities"] == 4
    assert list(size_deciles(np.arange(20))[:3]) == ["D1", "D1", "D2"]
    path = plot_allocation_biases(true, {("eps=1", "BL"): expected - true, ("eps=1", "PoS"): expected - true},
                                  path=tmp_path / "fig.png", budget=1000.0)
    assert path.stat().st_size > 0


def test_regression_report_and_plot(tmp_path):
    rng = np.random.default_rng(0)
    y, a = rng.uniform(size=200), rng.integers(0, 2, 200)
    table, frames = before_after_report(y, {"before": y, "after": np.full(200, 0.5)}, sensitive_features=a)
    assert table.loc["KS parity (max pairwise)", ("after", "ks_to_all")] == 0.0
    assert set(frames) == {"before", "after"}
    assert plot_group_cdfs({"before": y}, sensitive_features=a, path=tmp_path / "c.png").stat().st_size > 0
