"""The intervals of DPMetricFrame's aggregates over groups: ``group_max_ci``, ``group_min_ci`` and ``ratio_ci``.

Each is one table per quantile in ``ci_quantiles``: a lower bound for a quantile below 1/2, an upper bound above.
The checks are exact where the math fixes the value (no sampling or release noise at all) and orderings otherwise.
"""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import MetricFrame, selection_rate
from sklearn.metrics import accuracy_score

from fairlearn_dp._fairlearn_compat import BOOTSTRAP_NOT_INITIALIZED
from fairlearn_dp.metrics import DPMetricFrame

METRICS = {"accuracy": accuracy_score, "selection_rate": selection_rate}
GROUPS = ["a", "b", "c"]
QUANTILES = [0.025, 0.975]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 3000
    race = pd.Series(rng.choice(GROUPS, n, p=[0.5, 0.3, 0.2]), name="race")
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    return y, pred, race


def _frame(y, pred, race, epsilon, seed=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return DPMetricFrame(metrics=METRICS, y_true=y, y_pred=pred, sensitive_features=race, epsilon=epsilon,
                             groups=GROUPS, n_boot=200, ci_quantiles=QUANTILES, accountant=BudgetAccountant(),
                             random_state=seed)


AGGREGATES = [("group_max", "group_max_ci", {}), ("group_min", "group_min_ci", {}),
              ("ratio", "ratio_ci", {"method": "between_groups"}), ("ratio", "ratio_ci", {"method": "to_overall"})]


@pytest.mark.parametrize("point, interval, kwargs", AGGREGATES)
def test_at_epsilon_inf_without_sampling_variance_the_intervals_are_the_exact_values(point, interval, kwargs):
    """Every prediction right and every label 1: each group's accuracy and selection rate is 1 in every bootstrap
    draw and there is no release noise (epsilon = inf), so every bound is MetricFrame's exact value, 1."""
    race = pd.Series(np.repeat(GROUPS, [40, 30, 30]), name="race")
    y = np.ones(race.size, dtype=int)
    frame = _frame(y, y, race, math.inf)
    exact = getattr(MetricFrame(metrics=METRICS, y_true=y, y_pred=y, sensitive_features=race), point)(**kwargs)
    bounds = getattr(frame, interval)(**kwargs)
    assert len(bounds) == len(QUANTILES)
    for bound in bounds:
        pd.testing.assert_series_equal(bound, exact, check_exact=True)


@pytest.mark.parametrize("point, interval, kwargs", AGGREGATES)
def test_at_epsilon_inf_the_intervals_contain_metricframes_values(data, point, interval, kwargs):
    """epsilon = inf: no release noise, the point estimate is MetricFrame's, and the bootstrap interval around it
    contains it (row resampling only)."""
    y, pred, race = data
    frame = _frame(y, pred, race, math.inf)
    exact = getattr(MetricFrame(metrics=METRICS, y_true=y, y_pred=pred, sensitive_features=race), point)(**kwargs)
    pd.testing.assert_series_equal(getattr(frame, point)(**kwargs), exact, check_exact=False, rtol=1e-12)
    low, high = getattr(frame, interval)(**kwargs)
    assert (low <= exact).all() and (exact <= high).all()


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
@pytest.mark.parametrize("point, interval, kwargs", AGGREGATES)
def test_at_finite_epsilon_the_intervals_contain_the_point_estimate_and_are_ordered(data, point, interval, kwargs,
                                                                                     epsilon):
    """The released point estimate lies in its interval, the bounds are ordered, and a ratio's stay in [0, 1]."""
    y, pred, race = data
    frame = _frame(y, pred, race, epsilon, seed=3)
    released = getattr(frame, point)(**kwargs)
    low, high = getattr(frame, interval)(**kwargs)
    assert list(low.index) == list(high.index) == list(METRICS)
    assert (low <= released).all() and (released <= high).all()
    assert (low <= high).all()
    if point == "ratio":
        assert ((low >= 0.0) & (high <= 1.0)).all()


def test_the_aggregate_intervals_need_intervals_like_metricframes():
    """Built without intervals (n_boot=None, ci_quantiles=None), each raises MetricFrame's bootstrap error."""
    race = pd.Series(np.repeat(GROUPS, 20), name="race")
    y = np.tile([0, 1], 30)
    frame = DPMetricFrame(metrics=METRICS, y_true=y, y_pred=y, sensitive_features=race, epsilon=1.0, groups=GROUPS,
                          n_boot=None, ci_quantiles=None, accountant=BudgetAccountant(), random_state=0)
    for method in (frame.group_max_ci, frame.group_min_ci, frame.ratio_ci):
        with pytest.raises(ValueError, match=re.escape(BOOTSTRAP_NOT_INITIALIZED)):
            method()
