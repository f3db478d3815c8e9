"""DPMetricFrame and the dp_* aggregates with sample weights and their declared public bound (issue 38.2).

Each row adds its weight (in ``[0, weight_bound]``) to its confusion cell instead of 1; the release's sensitivity
scales by the bound (L1 ``2 B``, L2 ``sqrt(2) B``). At epsilon = inf every value is MetricFrame's with the same
``sample_weight``.
"""

import functools
import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import (
    MetricFrame,
    count,
    demographic_parity_ratio,
    equalized_odds_difference,
    mean_prediction,
    selection_rate,
)
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    confusion_matrix,
    fbeta_score,
    mean_absolute_error,
    mean_squared_error,
    recall_score,
)

from fairlearn_dp.metrics import (
    DPMetricFrame,
    MetricFrameOptions,
    dp_demographic_parity_ratio,
    dp_equalized_odds_difference,
)

GROUPS = ["a", "b", "c"]
BOUND = 3.0
# Equal up to rounding: the weighted counts are summed in another order than scikit-learn's weighted sums.
RTOL = 1e-12


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(38)
    n = 600
    return {"y": rng.integers(0, 2, n), "pred": rng.integers(0, 2, n), "groups": rng.choice(GROUPS, n),
                "weights": rng.uniform(0, BOUND, n), "y3": rng.integers(0, 3, n), "pred3": rng.integers(0, 3, n),
                "yr": rng.uniform(0, 1, n), "predr": rng.uniform(0, 1, n)}


def _weighted(metrics, weights):
    return {name: {"sample_weight": weights} for name in metrics}


def _dp(metrics, y, pred, groups, weights, **kwargs):
    kwargs = {"epsilon": math.inf, "groups": GROUPS, "options": MetricFrameOptions(weight_bound=BOUND),
              "accountant": BudgetAccountant(),
              "n_boot": None, "ci_quantiles": None,
              "sample_params": _weighted(metrics, weights) if isinstance(metrics, dict) else {"sample_weight": weights},
              **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPMetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, **kwargs)


def _assert_same(exact, private):
    np.testing.assert_allclose(private.by_group.to_numpy(dtype=float), exact.by_group.to_numpy(dtype=float),
                               rtol=RTOL, atol=1e-15)
    np.testing.assert_allclose(np.asarray(private.overall, dtype=float), np.asarray(exact.overall, dtype=float),
                               rtol=RTOL, atol=1e-15)


BINARY = {"accuracy": accuracy_score, "selection": selection_rate, "balanced": balanced_accuracy_score,
          "fbeta": functools.partial(fbeta_score, beta=0.6), "recall": recall_score,
          "macro": functools.partial(recall_score, average="macro")}


def test_binary_weighted_frame_equals_metricframe_at_infinite_epsilon(rows):
    """Fast-path metrics and metrics evaluated on weighted cells, by group and overall, and confusion_matrix."""
    args = (rows["y"], rows["pred"], rows["groups"])
    exact = MetricFrame(metrics=BINARY, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                        sample_params=_weighted(BINARY, rows["weights"]))
    _assert_same(exact, _dp(BINARY, *args, rows["weights"]))
    exact = MetricFrame(metrics=confusion_matrix, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                        sample_params={"sample_weight": rows["weights"]})
    private = _dp(confusion_matrix, *args, rows["weights"])
    for group in GROUPS:
        np.testing.assert_allclose(private.by_group[group], exact.by_group[group], rtol=RTOL)


def test_multiclass_weighted_frame_equals_metricframe_at_infinite_epsilon(rows):
    metrics = {"accuracy": accuracy_score, "macro": functools.partial(recall_score, average="macro")}
    args = (rows["y3"], rows["pred3"], rows["groups"])
    exact = MetricFrame(metrics=metrics, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                        sample_params=_weighted(metrics, rows["weights"]))
    _assert_same(exact, _dp(metrics, *args, rows["weights"], options=MetricFrameOptions(labels=[0, 1, 2],
                                                                                          weight_bound=BOUND)))


def test_regression_weighted_frame_equals_metricframe_at_infinite_epsilon(rows):
    metrics = {"mse": mean_squared_error, "mae": mean_absolute_error, "mean": mean_prediction}
    args = (rows["yr"], rows["predr"], rows["groups"])
    exact = MetricFrame(metrics=metrics, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                        sample_params=_weighted(metrics, rows["weights"]))
    _assert_same(exact, _dp(metrics, *args, rows["weights"], bounds=(0.0, 1.0)))


def test_weighted_aggregates_equal_fairlearn_at_infinite_epsilon(rows):
    args = (rows["y"], rows["pred"])
    options = {"sensitive_features": rows["groups"], "sample_weight": rows["weights"]}
    private = dict(options, options=MetricFrameOptions(weight_bound=BOUND), epsilon=math.inf, groups=GROUPS, accountant=BudgetAccountant())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert dp_equalized_odds_difference(*args, **private) == pytest.approx(
            equalized_odds_difference(*args, **options), rel=RTOL)
        assert dp_demographic_parity_ratio(*args, **private) == pytest.approx(
            demographic_parity_ratio(*args, **options), rel=RTOL)


def test_weighted_frame_at_epsilon_one_runs_with_intervals(rows):
    frame = _dp(BINARY, rows["y"], rows["pred"], rows["groups"], rows["weights"], epsilon=1.0, random_state=0,
                n_boot=200, ci_quantiles=(0.025, 0.975))
    assert frame.noise_scale_ == pytest.approx(2 * BOUND / 1.0)
    low, high = frame.by_group_ci
    assert np.all(np.isfinite(frame.by_group["accuracy"])) and np.all(low["accuracy"] <= high["accuracy"])
    assert np.all(frame.released_counts_.to_numpy() >= 0)


def test_unit_weights_without_a_bound_are_the_unweighted_release(rows):
    """All-1 weights need no bound: the release is the unweighted one, draw for draw (same seed)."""
    args = (rows["y"], rows["pred"], rows["groups"])
    kwargs = {"epsilon": 1.0, "groups": GROUPS, "random_state": 3, "n_boot": 50}
    plain = DPMetricFrame(metrics=BINARY, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                          accountant=BudgetAccountant(), **kwargs)
    ones = DPMetricFrame(metrics=BINARY, y_true=args[0], y_pred=args[1], sensitive_features=args[2],
                         sample_params=_weighted(BINARY, np.ones(len(args[0]))), accountant=BudgetAccountant(),
                         **kwargs)
    np.testing.assert_array_equal(plain.noisy_counts_, ones.noisy_counts_)


@pytest.mark.parametrize("privacy_unit", ["sensitive_attribute", "record"])
def test_neighbouring_weighted_tables_differ_by_at_most_the_sensitivity_and_attain_it(rows, privacy_unit):
    """One row changed -- its group (attribute unit: its weight may change with it, as Reweighing's would), or the
    whole record with its weight -- moves the weighted table by at most L1 2B, L2 sqrt(2) B; attained by a row of
    weight B moved to another group with weight B. The noise is calibrated to it."""
    y, pred, groups, weights = rows["y"], rows["pred"], rows["groups"], rows["weights"]
    rng = np.random.default_rng(1)

    def table(g, w, yy=y):
        return _dp({"accuracy": accuracy_score}, yy, pred, g, w, privacy_unit=privacy_unit).noisy_counts_

    base = table(groups, weights)
    for _ in range(20):
        row = rng.integers(len(groups))
        g2, w2, y2 = groups.copy(), weights.copy(), y.copy()
        g2[row] = rng.choice(GROUPS)
        w2[row] = rng.uniform(0, BOUND)
        if privacy_unit == "record":
            y2[row] = rng.integers(2)
        difference = table(g2, w2, y2) - base
        assert np.abs(difference).sum() <= 2 * BOUND * (1 + 1e-12)
        assert np.sqrt((difference ** 2).sum()) <= math.sqrt(2) * BOUND * (1 + 1e-12)
    heavy = weights.copy()
    heavy[0] = BOUND
    moved = groups.copy()
    moved[0] = next(g for g in GROUPS if g != groups[0])
    difference = table(moved, heavy) - table(groups, heavy)
    assert np.abs(difference).sum() == pytest.approx(2 * BOUND, rel=1e-12)
    assert np.sqrt((difference ** 2).sum()) == pytest.approx(math.sqrt(2) * BOUND, rel=1e-12)
    frame = _dp({"accuracy": accuracy_score}, y, pred, groups, weights, epsilon=0.5, random_state=0, n_boot=None,
                privacy_unit=privacy_unit)
    assert frame.noise_scale_ == pytest.approx(2 * BOUND / 0.5)


def _refused(match, weights=None, **kwargs):
    accountant = BudgetAccountant()
    y = np.array([0, 1, 1, 0, 1, 0])
    groups = np.array(["a", "b", "c", "a", "b", "c"])
    weights = np.array([1.0, 0.5, 2.0, 1.0, 3.0, 0.0]) if weights is None else weights
    kwargs = {"metrics": {"accuracy": accuracy_score}, "sample_params": {"accuracy": {"sample_weight": weights}},
              **kwargs}
    with pytest.raises((ValueError, TypeError), match=match):
        DPMetricFrame(y_true=y, y_pred=y, sensitive_features=groups, groups=GROUPS, epsilon=1.0,
                      accountant=accountant, **kwargs)
    assert accountant.total() == (0, 0)


def test_weights_other_than_one_need_a_declared_bound():
    _refused(r"declare their public bound, options=MetricFrameOptions\(weight_bound=B\)")


@pytest.mark.parametrize("weights, match", [
    (np.array([1.0, -0.5, 2.0, 1.0, 1.0, 0.0]), "negative weights"),
    (np.array([1.0, np.nan, 2.0, 1.0, 1.0, 0.0]), "NaN"),
    (np.ones(5), "different lengths"),
])
def test_weights_outside_the_bound_are_refused_before_the_release(weights, match):
    _refused(match, weights, options=MetricFrameOptions(weight_bound=3))


@pytest.mark.parametrize("kwargs, match", [
    ({"options": MetricFrameOptions(weight_bound=0)}, "options.weight_bound must be"),
    ({"options": MetricFrameOptions(weight_bound=-1.0)}, "options.weight_bound must be"),
    ({"options": MetricFrameOptions(weight_bound=np.inf)}, "options.weight_bound must be"),
    ({"options": MetricFrameOptions(weight_bound="3")}, "options.weight_bound must be"),
    ({"options": MetricFrameOptions(weight_bound=3), "sample_params": None}, "no sample_weight was given"),
    ({"options": MetricFrameOptions(weight_bound=3, public_predictions=True)}, "options.public_predictions"),
    # (some metrics weighted, others not: several tables of one release, test_metrics_weighed_differently_...)
    ({"options": MetricFrameOptions(weight_bound=3), "metrics": {"accuracy": accuracy_score, "n": count},
      "sample_params": {"accuracy": {"sample_weight": np.ones(6)}, "n": {"sample_weight": np.ones(6)}}},
     "count takes no"),
    ({"options": MetricFrameOptions(weight_bound=3), "metrics": {"mse": mean_squared_error,
                                                                  "mae": mean_absolute_error}, "bounds": (0, 1),
      "sample_params": {"mse": {"sample_weight": np.ones(6)}}}, "for classification metrics only"),
    ({"options": MetricFrameOptions(weight_bound=3), "metrics": count, "sample_params": {"sample_weight": np.ones(6)}},
     "count takes no"),
])
def test_weight_parameters_are_refused_before_the_budget(kwargs, match):
    _refused(match, **kwargs)


def test_metrics_weighed_differently_are_read_from_several_tables_of_one_release(rows):
    """Issue 38 item 2 (Fairlearn's plot_new_metrics and advanced_metricframe): some metrics weighted, others not,
    or with other weights; before, refused ("the same sample_weight object")."""
    other = np.round(rows["weights"])                           # another weights object, in [0, BOUND] too
    metrics = {"recall": recall_score, "recall_w": recall_score, "sr_w2": selection_rate, "n": count}
    sample_params = {"recall_w": {"sample_weight": rows["weights"]}, "sr_w2": {"sample_weight": other}}
    kwargs = {"metrics": metrics, "y_true": rows["y"], "y_pred": rows["pred"], "sensitive_features": rows["groups"],
                  "sample_params": sample_params}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = MetricFrame(**kwargs)
    frame = DPMetricFrame(**kwargs, epsilon=math.inf, options=MetricFrameOptions(weight_bound=BOUND), groups=GROUPS, n_boot=None,
                          ci_quantiles=None)
    np.testing.assert_allclose(frame.by_group.to_numpy(float), exact.by_group.to_numpy(float), rtol=RTOL)
    np.testing.assert_allclose(frame.overall.to_numpy(float), exact.overall.to_numpy(float), rtol=RTOL)
    accountant = BudgetAccountant()
    released = DPMetricFrame(**kwargs, epsilon=1.0, options=MetricFrameOptions(weight_bound=BOUND), groups=GROUPS, accountant=accountant,
                             random_state=0, n_boot=20)
    assert accountant.spent_budget == [(1.0, 0.0)]             # one charge for the three tables
    # one Laplace scale for the stack: the sensitivities add, L1 = 2 (unweighted) + 2 B + 2 B
    assert released.noise_scale_ == pytest.approx(2 + 4 * BOUND)
    assert released.noisy_counts_.shape == (1, len(GROUPS), 12) and list(released.by_group.columns) == list(metrics)
    assert list(released.released_counts_.columns.get_level_values(0).unique()) == [
        "unweighted", "weighted 1", "weighted 2"]
    assert len(released.by_group_ci) == 2 and np.isfinite(released.by_group_ci[0].to_numpy(float)).all()



def test_weights_above_the_bound_are_clipped_to_it_without_a_warning(rows):
    """Inside the domain every dataset fits (docs/adding_an_estimator.md, section 3): a weight above the public
    weight_bound is clipped to it, as the frame clips a regression value to its bounds; the frame and the aggregate
    equal MetricFrame's with the clipped weights (the fit used to refuse: a refusal on a bounded data value)."""
    y, pred, groups = rows["y"], rows["pred"], rows["groups"]
    heavy = rows["weights"].copy()
    heavy[:5] = [3.5, 7.0, 100.0, 3.0 + 1e-9, 4.0]
    clipped = np.minimum(heavy, BOUND)
    metrics = {"accuracy": accuracy_score, "selection_rate": selection_rate}
    exact = MetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups,
                        sample_params=_weighted(metrics, clipped))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = DPMetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, groups=GROUPS,
                              epsilon=math.inf, options=MetricFrameOptions(weight_bound=BOUND),
                              accountant=BudgetAccountant(), sample_params=_weighted(metrics, heavy))
        gap = dp_demographic_parity_ratio(y, pred, sensitive_features=groups, groups=GROUPS, epsilon=math.inf,
                                          sample_weight=heavy, options=MetricFrameOptions(weight_bound=BOUND),
                                          accountant=BudgetAccountant())
    assert np.allclose(frame.by_group.to_numpy(dtype=float), exact.by_group.to_numpy(dtype=float), rtol=RTOL)
    assert gap == pytest.approx(demographic_parity_ratio(y, pred, sensitive_features=groups,
                                                         sample_weight=clipped), rel=RTOL)
