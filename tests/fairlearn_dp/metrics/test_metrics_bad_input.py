"""Bad input for the metrics (issue 11): a clear ValueError/TypeError naming the argument, never a silent NaN or
negative cost."""

import functools

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import MetricFrame

from fairlearn_dp.metrics import (
    MetricFrameOptions,
    alpha_fairness,
    cost_of_privacy,
    ks_statistical_parity,
    mean_bias,
    misallocated_funds,
)
from fairlearn_dp.metrics._ks import ks_distance

cost_of_privacy_l1 = functools.partial(cost_of_privacy, form="l1")

TRUE = [0.5, 0.3, 0.2]
PRED = [0.45, 0.35, 0.2]


@pytest.mark.parametrize("metric", [cost_of_privacy, cost_of_privacy_l1, misallocated_funds])
@pytest.mark.parametrize("budget, error", [(-1, ValueError), (0, ValueError), (np.nan, ValueError),
                                           (np.inf, ValueError), (True, TypeError), ("6.5e9", TypeError),
                                           (None, TypeError)])
def test_budget_must_be_a_finite_positive_number(metric, budget, error):
    with pytest.raises(error, match="budget"):
        metric(TRUE, PRED, budget=budget)


@pytest.mark.parametrize("form", ["L1", "l2", None, 1])
def test_cost_of_privacy_form_is_shortfall_or_l1(form):
    with pytest.raises(ValueError, match="form"):
        cost_of_privacy(TRUE, PRED, form=form)
    # The l1 form is half the l1 norm of the bias; with equal sums it equals the shortfall (Zhu et al., Prop. 3).
    assert cost_of_privacy(TRUE, PRED, form="l1") == pytest.approx(cost_of_privacy(TRUE, PRED), abs=1e-12)


@pytest.mark.parametrize("metric", [alpha_fairness, mean_bias, cost_of_privacy, cost_of_privacy_l1,
                                    misallocated_funds])
@pytest.mark.parametrize("y_true, y_pred, error, match", [
    ([0.5, np.nan, 0.2], PRED, ValueError, "y_true"),
    (TRUE, [0.45, np.inf, 0.2], ValueError, "y_pred"),
    (["0.5", "0.3", "0.2"], PRED, TypeError, "y_true"),
    (TRUE, [True, False, True], TypeError, "y_pred"),
    (TRUE, [[0.45, 0.35, 0.2], [0.1, 0.1, 0.1]], ValueError, "y_pred"),
    (TRUE, [0.45, 0.55], ValueError, "same length"),
    ([], [], ValueError, "non-empty"),
])
def test_allocations_must_be_finite_numeric_vectors_of_equal_length(metric, y_true, y_pred, error, match):
    with pytest.raises(error, match=match):
        metric(y_true, y_pred)


def test_valid_values_and_metricframe_still_work():
    assert cost_of_privacy(TRUE, PRED, budget=100) == pytest.approx(5.0)
    assert cost_of_privacy(np.array(TRUE), pd.Series(PRED), budget=np.float32(100)) == pytest.approx(5.0)
    assert alpha_fairness(np.array([[0.5], [0.5]]), [0.4, 0.6]) == pytest.approx(0.2)
    frame = MetricFrame(metrics={"cost": cost_of_privacy, "alpha": alpha_fairness}, y_true=TRUE, y_pred=PRED,
                        sensitive_features=["a", "a", "b"])
    assert frame.by_group.loc["a", "cost"] == pytest.approx(0.05)


@pytest.mark.parametrize("call, error, match", [
    (lambda: ks_distance([np.nan, 1.0], [1.0, 2.0]), ValueError, "sample_a"),
    (lambda: ks_distance([1.0, 2.0], [np.inf]), ValueError, "sample_b"),
    (lambda: ks_distance(["a"], [1.0]), TypeError, "sample_a"),
    (lambda: ks_distance([], [1.0]), ValueError, "sample_a"),
    (lambda: ks_statistical_parity(None, [1.0, np.nan], sensitive_features=[0, 1]), ValueError, "y_pred"),
    (lambda: ks_statistical_parity(None, [1.0, 2.0], sensitive_features=[0, 1, 1]), ValueError, "length"),
])
def test_ks_metrics_refuse_nan_and_non_numbers(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("change, error, match", [
    ({"n_boot": "100"}, ValueError, "n_boot"), ({"n_boot": 9}, ValueError, "n_boot"),
    ({"ci_quantiles": []}, ValueError, "ci_quantiles"),
    ({"options": MetricFrameOptions(max_noise_error=0)}, ValueError, "options.max_noise_error"),
    ({"options": MetricFrameOptions(public_predictions="no")}, TypeError, "options.public_predictions"),
    ({"options": MetricFrameOptions(labels=[0, 0])}, ValueError, "options.labels"),
    ({"options": {"max_noise_error": 0.1}}, TypeError, "options must be a MetricFrameOptions"),
    ({"bounds": (1, 0)}, ValueError, "bounds"), ({"random_state": -1}, ValueError, "random_state"),
])
def test_dp_metric_frame_parameter_tables_refuse_before_the_budget(change, error, match):
    from diffprivlib import BudgetAccountant
    from fairlearn.metrics import selection_rate

    from fairlearn_dp.metrics import DPMetricFrame

    accountant = BudgetAccountant(epsilon=1.0)
    accountant.spend(1.0, 0.0)                                       # exhausted: a parameter error must come first
    with pytest.raises(error, match=match):
        DPMetricFrame(**{"metrics": selection_rate, "y_true": [0, 1], "y_pred": [1, 0], "sensitive_features": ["a", "b"],
                         "groups": ["a", "b"], "accountant": accountant, **change})
