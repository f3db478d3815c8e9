"""MetricFrame-based reports: regression before/after table and allocation bias report."""

import numpy as np
import pytest
from fairdp_adapters.reporting import _plot_allocation_biases as plot_allocation_biases
from fairdp_adapters.reporting import _size_deciles as size_deciles
from fairdp_adapters.reporting import allocation_bias_report, before_after_report, plot_group_cdfs


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


def test_allocation_share_axis_labels_zero_apart_from_the_decades():
    """With zero shares the x axis is symlog with ticks at 0 and whole decades from the linear threshold up: no
    decade tick inside the linear part next to 0 (the "0" / "10^-8" overlap of the Figure 4 analogue)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from fairdp_adapters.reporting import _share_axis

    fig, (with_zero, positive) = plt.subplots(1, 2)
    share = np.array([0.0, 8.7e-8, 1e-5, 0.03])
    _share_axis(with_zero, share)
    assert with_zero.get_xscale() == "symlog"
    ticks = [t for t in with_zero.xaxis.get_major_locator()() if t >= 0]
    assert ticks[0] == 0.0
    linthresh = with_zero.xaxis.get_transform().linthresh
    assert linthresh == pytest.approx(1e-8)
    assert all(t >= linthresh for t in ticks[1:])
    # 0 and the first decade tick are at least one decade's width apart on screen.
    to_screen = with_zero.transData.transform
    first, second = (to_screen((t, 0))[0] for t in ticks[:2])
    decade = to_screen((1e-6, 0))[0] - to_screen((1e-7, 0))[0]
    assert second - first >= decade * 0.99
    labels = [with_zero.xaxis.get_major_formatter()(t) for t in ticks]
    assert labels[0] == "0" and all("10^" in label for label in labels[1:])
    _share_axis(positive, np.array([1e-6, 1e-3]))
    assert positive.get_xscale() == "log"
    plt.close(fig)


def test_private_report_is_one_release_per_prediction_vector():
    import math

    from diffprivlib import BudgetAccountant
    from fairdp_adapters.reporting import private_report
    from fairlearn.metrics import MetricFrame, selection_rate
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 600)
    groups = rng.choice(["F", "M"], 600)
    predictions = {"before": rng.integers(0, 2, 600), "after": y}
    metrics = {"accuracy": accuracy_score, "selection rate": selection_rate}
    accountant = BudgetAccountant()
    table, frames = private_report(y, predictions, sensitive_features=groups, metrics=metrics, epsilon=0.5,
                                   groups=["F", "M"], accountant=accountant, random_state=0)
    assert accountant.spent_budget == [(0.5, 0.0), (0.5, 0.0)]
    assert list(table.index) == ["overall", "F", "M"] and set(frames) == {"before", "after"}
    assert (table[("before", "accuracy low")] <= table[("before", "accuracy high")]).all()
    exact, _ = private_report(y, predictions, sensitive_features=groups, metrics=metrics, epsilon=math.inf,
                              groups=["F", "M"], accountant=BudgetAccountant())
    reference = MetricFrame(metrics=metrics, y_true=y, y_pred=predictions["before"], sensitive_features=groups)
    np.testing.assert_allclose(exact[("before", "accuracy")].to_numpy(),
                               [reference.overall["accuracy"], *reference.by_group["accuracy"]])
