"""KS statistical parity: equals scipy's two-sample KS and works inside MetricFrame."""

import numpy as np
import pytest
from fairdp_adapters.reporting import _ks_distance_to
from fairlearn.metrics import MetricFrame
from scipy.stats import ks_2samp

from fairlearn_dp.metrics import ks_statistical_parity
from fairlearn_dp.metrics._ks import ks_distance


def test_matches_scipy_max_pairwise():
    rng = np.random.default_rng(0)
    y = rng.normal(size=600)
    a = rng.choice(["x", "y", "z"], 600)
    y[a == "y"] += 0.4
    y = np.round(y, 1)                                     # ties, as binned outputs have
    expected = max(ks_2samp(y[a == g], y[a == h]).statistic for g in "xyz" for h in "xyz" if g < h)
    assert ks_statistical_parity(y, y, sensitive_features=a) == pytest.approx(expected, abs=1e-12)


def test_identical_distributions_give_zero_and_disjoint_give_one():
    assert ks_distance([1, 2, 3], [3, 2, 1]) == 0.0
    assert ks_distance([0, 0.1], [5, 6]) == 1.0
    y = np.array([0.1, 0.2, 0.1, 0.2])
    assert ks_statistical_parity(y, y, sensitive_features=[0, 0, 1, 1]) == 0.0


def test_per_group_metric_inside_metricframe():
    rng = np.random.default_rng(1)
    y = rng.uniform(size=300)
    a = rng.integers(0, 2, 300)
    frame = MetricFrame(metrics={"ks_to_all": _ks_distance_to(y)}, y_true=y, y_pred=y, sensitive_features=a)
    for g in (0, 1):
        assert frame.by_group.loc[g, "ks_to_all"] == pytest.approx(ks_2samp(y[a == g], y).statistic)


def test_needs_two_groups_and_nonempty_samples():
    with pytest.raises(ValueError, match="2 groups"):
        ks_statistical_parity([1.0, 2.0], [1.0, 2.0], sensitive_features=[0, 0])
    with pytest.raises(ValueError):
        ks_distance([], [1.0])
