"""DPMetricFrame: MetricFrame's surface from one release; the privacy contract; bad input."""

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.metrics import (
    MetricFrame,
    count,
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_negative_rate,
    false_positive_rate,
    mean_prediction,
    selection_rate,
    true_negative_rate,
    true_positive_rate,
)
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    f1_score,
    mean_absolute_error,
    mean_squared_error,
    precision_score,
    recall_score,
    zero_one_loss,
)

from fairlearn_dp.exceptions import FairdpWarning, PrivacyWarning, UtilityWarning
from fairlearn_dp.metrics import (
    DPMetricFrame,
    MetricFrameOptions,
    count_metric,
    dp_demographic_parity_difference,
    dp_demographic_parity_ratio,
    dp_equal_opportunity_difference,
    dp_equalized_odds_difference,
    dp_equalized_odds_ratio,
)

CLASSIFICATION = {"accuracy": accuracy_score, "balanced": balanced_accuracy_score, "precision": precision_score,
                  "recall": recall_score, "f1": f1_score, "zero_one": zero_one_loss, "selection": selection_rate,
                  "tpr": true_positive_rate, "fpr": false_positive_rate, "tnr": true_negative_rate,
                  "fnr": false_negative_rate, "count": count, "mean_prediction": mean_prediction}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 3000
    race = rng.choice(["a", "b", "c"], n, p=[0.6, 0.3, 0.1])
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    site = rng.choice(["north", "south"], n)
    return y, pred, pd.Series(race, name="race"), site


def _exact(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MetricFrame(**kwargs)


def _frame(**kwargs):
    kwargs.setdefault("accountant", BudgetAccountant())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return DPMetricFrame(**kwargs)


# ---------------------------------------------------------------------------------------------- MetricFrame's surface
@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_at_epsilon_inf_every_table_is_metricframes(data, unit):
    y, pred, race, site = data
    exact = _exact(metrics=CLASSIFICATION, y_true=y, y_pred=pred, sensitive_features=race,
                   control_features={"site": site})
    frame = _frame(metrics=CLASSIFICATION, y_true=y, y_pred=pred, sensitive_features=race,
                   control_features={"site": site}, epsilon=math.inf, privacy_unit=unit, random_state=0)
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group.astype(float), check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(frame.overall, exact.overall.astype(float), check_exact=False, rtol=1e-12)
    for method in ("between_groups", "to_overall"):
        pd.testing.assert_frame_equal(frame.difference(method), exact.difference(method).astype(float),
                                      check_exact=False, rtol=1e-9)
        pd.testing.assert_frame_equal(frame.ratio(method), exact.ratio(method).astype(float),
                                      check_exact=False, rtol=1e-9)
    pd.testing.assert_frame_equal(frame.group_min(), exact.group_min().astype(float), check_exact=False)
    pd.testing.assert_frame_equal(frame.group_max(), exact.group_max().astype(float), check_exact=False)
    assert frame.sensitive_levels == exact.sensitive_levels and frame.control_levels == exact.control_levels
    assert frame.privacy_spent_.epsilon == math.inf


def test_a_single_callable_gives_metricframes_scalar_and_series(data):
    y, pred, race, _ = data
    exact = _exact(metrics=accuracy_score, y_true=y, y_pred=pred, sensitive_features=race)
    frame = _frame(metrics=accuracy_score, y_true=y, y_pred=pred, sensitive_features=race, epsilon=math.inf)
    assert isinstance(frame.overall, float) and frame.overall == pytest.approx(exact.overall)
    pd.testing.assert_series_equal(frame.by_group, exact.by_group, check_exact=False)
    assert frame.difference() == pytest.approx(exact.difference())
    assert len(frame.by_group_ci) == 2 and isinstance(frame.by_group_ci[0], pd.Series)


def test_several_sensitive_features_give_the_product_of_their_declared_levels(data):
    y, pred, race, site = data
    sf = {"race": race, "site": site}
    exact = _exact(metrics={"sr": selection_rate}, y_true=y, y_pred=pred, sensitive_features=sf)
    frame = _frame(metrics={"sr": selection_rate}, y_true=y, y_pred=pred, sensitive_features=sf,
                   epsilon=math.inf, groups={"race": ["a", "b", "c"], "site": ["north", "south"]})
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group, check_exact=False)
    # A declared level without rows is a cell like any other; at epsilon=inf (exact, public counts) its values
    # are MetricFrame's for a cell without rows: NaN (issue 38 item 5); released, a value like any other cell's.
    wider = _frame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=math.inf,
                   groups=["a", "b", "c", "d"])
    assert np.isnan(wider.by_group.loc["d", "n"]) and list(wider.by_group.index) == ["a", "b", "c", "d"]
    released = _frame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=1.0,
                      groups=["a", "b", "c", "d"], random_state=0)
    assert np.isfinite(released.by_group.to_numpy()).all()


def test_at_epsilon_inf_a_control_level_and_group_without_rows_is_nan_as_in_metricframe(data):
    """Issue 38 item 5 (Fairlearn's plot_new_metrics, cond_both.by_group): before, such cells showed 0."""
    y, pred, race, site = data
    keep = ~((race.to_numpy() == "c") & (site == "south"))          # no row in (south, c)
    metrics = {"sr": selection_rate, "n": count, "recall": recall_score}
    kwargs = {"metrics": metrics, "y_true": y[keep], "y_pred": pred[keep], "sensitive_features": race[keep],
                  "control_features": {"site": site[keep]}}
    exact = _exact(**kwargs)
    frame = _frame(**kwargs, epsilon=math.inf, random_state=0)
    assert exact.by_group.loc[("south", "c")].isna().all()
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group.astype(float), check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(frame.overall, exact.overall.astype(float), check_exact=False, rtol=1e-12)
    assert np.isfinite(_frame(**kwargs, epsilon=1.0, random_state=0, groups=["a", "b", "c"]).by_group.loc[
        ("south", "c")].to_numpy()).all()                        # released: the finite-epsilon choice is kept


def test_regression_metrics_from_bounded_sums():
    rng = np.random.default_rng(0)
    n = 2000
    y = rng.normal(size=n)
    pred = y + 0.5 * rng.normal(size=n)
    groups = rng.choice([0, 1], n)
    metrics = {"mse": mean_squared_error, "mae": mean_absolute_error, "mean": mean_prediction, "n": count}
    bounds = (-2.0, 2.0)
    exact = _exact(metrics=metrics, y_true=np.clip(y, *bounds), y_pred=np.clip(pred, *bounds),
                   sensitive_features=groups)
    frame = _frame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, epsilon=math.inf,
                   bounds=bounds, groups=[0, 1])
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group.astype(float), check_exact=False, rtol=1e-9)
    noisy = _frame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, epsilon=1.0,
                   bounds=bounds, groups=[0, 1], random_state=0)
    # Released once: four columns (count and three value sums) with L1 sensitivity 2 x 4.
    assert noisy.noise_scale_ == pytest.approx(8.0)
    assert noisy.released_counts_.shape == (2, 4)


def test_count_metric_declares_a_metric_of_the_counts(data):
    y, pred, race, _ = data
    fdr = count_metric(lambda c: c.fp / (c.fp + c.tp), name="fdr")
    exact = _exact(metrics={"fdr": fdr}, y_true=y, y_pred=pred, sensitive_features=race)
    frame = _frame(metrics={"fdr": fdr}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=math.inf)
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group, check_exact=False)
    assert fdr([0, 1, 0, 1], [1, 1, 0, 0]) == 0.5


def test_partial_and_sample_params_that_do_not_change_the_counts(data):
    y, pred, race, _ = data
    frame = _frame(metrics={"p": functools.partial(precision_score, zero_division=1.0), "sr": selection_rate},
                   sample_params={"sr": {"pos_label": 1}}, y_true=y, y_pred=pred, sensitive_features=race,
                   epsilon=math.inf)
    assert frame.by_group.shape == (3, 2)
    empty = _frame(metrics={"p": functools.partial(precision_score, zero_division=1.0)}, y_true=np.zeros(4),
                   y_pred=np.zeros(4), sensitive_features=[0, 1, 0, 1], epsilon=math.inf)
    assert (empty.by_group["p"] == 1.0).all()                      # no predicted positive: zero_division


def test_by_group_plot_works(data):
    import matplotlib

    matplotlib.use("Agg")
    y, pred, race, _ = data
    frame = _frame(metrics={"accuracy": accuracy_score, "sr": selection_rate}, y_true=y, y_pred=pred,
                   sensitive_features=race, epsilon=1.0, groups=["a", "b", "c"], random_state=0)
    axes = frame.by_group.plot.bar(subplots=True, legend=False)
    assert len(axes) == 2


# ------------------------------------------------------------------------------------------------ the release
def test_one_release_one_charge_and_the_spend_is_exposed(data):
    y, pred, race, site = data
    accountant = BudgetAccountant()
    frame = _frame(metrics=CLASSIFICATION, y_true=y, y_pred=pred, sensitive_features=race,
                   control_features={"site": site}, epsilon=0.7, delta=1e-6,
                   groups={"race": ["a", "b", "c"], "site": ["north", "south"]}, accountant=accountant,
                   random_state=1)
    frame.by_group, frame.difference(), frame.ratio(), frame.by_group_ci, frame.difference_ci()
    assert accountant.spent_budget == [(0.7, 1e-6)]
    assert (frame.privacy_spent_.epsilon, frame.privacy_spent_.delta) == (0.7, 1e-6)


def test_same_seed_same_report_and_another_seed_another(data):
    y, pred, race, _ = data
    kwargs = {"metrics": {"accuracy": accuracy_score}, "y_true": y, "y_pred": pred, "sensitive_features": race,
                  "epsilon": 1.0, "groups": ["a", "b", "c"]}
    first, again, other = (_frame(random_state=seed, **kwargs) for seed in (5, 5, 6))
    np.testing.assert_array_equal(first.noisy_counts_, again.noisy_counts_)
    pd.testing.assert_frame_equal(first.by_group_ci[0], again.by_group_ci[0])
    assert not np.array_equal(first.noisy_counts_, other.noisy_counts_)


def test_post_processing_keeps_public_totals_and_non_negative_counts(data):
    y, pred, race, _ = data
    frame = _frame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=0.05,
                   groups=["a", "b", "c"], random_state=2)
    table = frame.released_counts_
    assert (table.to_numpy() >= 0).all()
    # Under "sensitive_attribute" the per-true-label totals are public and kept exactly; with public predictions
    # each confusion bin's total over groups too.
    np.testing.assert_allclose(table[["tn", "fp"]].to_numpy().sum(), (y == 0).sum(), rtol=1e-9)
    np.testing.assert_allclose(table[["fn", "tp"]].to_numpy().sum(), (y == 1).sum(), rtol=1e-9)
    public = _frame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=0.05,
                    groups=["a", "b", "c"], random_state=2, options=MetricFrameOptions(public_predictions=True)).released_counts_
    exact = pd.crosstab(2 * y + pred, np.zeros(len(y))).to_numpy().ravel()
    np.testing.assert_allclose(public.sum(axis=0).to_numpy(), exact, rtol=1e-9)
    record = _frame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=race, epsilon=0.05,
                    groups=["a", "b", "c"], random_state=2, privacy_unit="record")
    assert record.released_counts_.to_numpy().sum() == pytest.approx(len(y))
    assert (record.released_counts_.to_numpy() >= 0).all()


def test_overall_is_exact_under_the_attribute_unit_and_released_under_record(data):
    y, pred, race, _ = data
    kwargs = {"metrics": {"accuracy": accuracy_score}, "y_true": y, "y_pred": pred, "sensitive_features": race,
                  "epsilon": 0.5, "groups": ["a", "b", "c"], "random_state": 3}
    public = _frame(options=MetricFrameOptions(public_predictions=True), **kwargs)
    assert public.overall["accuracy"] == pytest.approx(accuracy_score(y, pred), rel=1e-12)
    assert _frame(privacy_unit="record", **kwargs).overall["accuracy"] != accuracy_score(y, pred)
    # Predictions that may depend on the attribute (the default): only the per-label totals are kept exactly.
    private = _frame(**kwargs)
    positives = private.released_counts_[["fn", "tp"]].to_numpy().sum()
    assert positives == pytest.approx(y.sum(), rel=1e-12)
    assert private.overall["accuracy"] != accuracy_score(y, pred)


def first_prediction(y_true, y_pred, sample_weight=None):
    return float(np.asarray(y_pred)[0])


def test_budget_is_checked_before_the_data_are_read(data):
    y, pred, race, _ = data
    exhausted = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetError):                      # invalid data, but the budget is checked first
        DPMetricFrame(metrics=accuracy_score, y_true=np.asarray(y) * 2, y_pred=pred, sensitive_features=race,
                      epsilon=1.0, groups=["a", "b", "c"], accountant=exhausted)
    with pytest.raises(ValueError, match="length mismatch"):  # a short y_true is public layout: refused before
        DPMetricFrame(metrics=accuracy_score, y_true=y[:-1], y_pred=pred, sensitive_features=race, epsilon=1.0,
                      groups=["a", "b", "c"], accountant=exhausted)
    with pytest.raises(ValueError, match="epsilon"):      # a bad public parameter comes before the budget
        DPMetricFrame(metrics=accuracy_score, y_true=y, y_pred=pred, sensitive_features=race, epsilon=0.0,
                      groups=["a", "b", "c"], accountant=exhausted)
    with pytest.raises(ValueError, match="metrics: metric 'first_prediction' is not a function of the confusion"):
        DPMetricFrame(metrics=first_prediction, y_true=y, y_pred=pred, sensitive_features=race, epsilon=1.0,
                      groups=["a", "b", "c"], accountant=exhausted)
    assert exhausted.spent_budget == []


def test_a_failed_report_charges_nothing(data):
    y, pred, race, _ = data
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="unseen group"):
        DPMetricFrame(metrics=accuracy_score, y_true=y, y_pred=pred, sensitive_features=race, epsilon=1.0,
                      groups=["a", "b"], accountant=accountant)
    assert accountant.spent_budget == []


def test_undeclared_groups_warn_that_they_were_read_from_the_data(data):
    y, pred, race, _ = data
    with pytest.warns(PrivacyWarning, match="groups"):
        DPMetricFrame(metrics=accuracy_score, y_true=y, y_pred=pred, sensitive_features=race, epsilon=1.0,
                      accountant=BudgetAccountant(), random_state=0)


def test_small_groups_are_reported_unreadable_and_warned_only_at_a_precision_asked_for():
    """The noise error is the guarantee's width: reported (``unreadable_``, the repr) at the default threshold, a
    UtilityWarning only when the user asked for that precision (``max_noise_error``) and a group misses it."""
    rng = np.random.default_rng(1)
    n = 20000
    groups = np.where(np.arange(n) < 60, "tiny", "large")
    y, pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    arguments = {"metrics": {"accuracy": accuracy_score}, "y_true": y, "y_pred": pred, "sensitive_features": groups,
                     "epsilon": 1.0, "groups": ["large", "tiny"], "random_state": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairdpWarning)
        frame = DPMetricFrame(**arguments, accountant=BudgetAccountant())
    assert frame.unreadable_.loc["tiny", "accuracy"] and not frame.unreadable_.loc["large", "accuracy"]
    assert frame.noise_error_.loc["tiny", "accuracy"] > 0.02 > frame.noise_error_.loc["large", "accuracy"]
    assert "unreadable at max_noise_error=0.02: ['tiny']" in repr(frame)
    missed = r"max_noise_error=0.02 \(half-width of the interval\) for: tiny\."
    with pytest.warns(UtilityWarning, match=missed) as record:
        asked = DPMetricFrame(**arguments, accountant=BudgetAccountant(), options=MetricFrameOptions(max_noise_error=0.02))
    assert len(record) == 1 and record[0].filename == __file__
    assert asked.unreadable_.equals(frame.unreadable_)


# ---------------------------------------------------------------------------------------------- aggregates
def test_aggregates_equal_fairlearns_at_epsilon_inf(data):
    y, pred, race, _ = data
    inf = {"sensitive_features": race, "epsilon": math.inf, "accountant": BudgetAccountant()}
    assert dp_demographic_parity_difference(y, pred, **inf) == pytest.approx(
        demographic_parity_difference(y, pred, sensitive_features=race))
    assert dp_demographic_parity_ratio(y, pred, **inf) == pytest.approx(
        demographic_parity_ratio(y, pred, sensitive_features=race))
    assert dp_equalized_odds_difference(y, pred, **inf) == pytest.approx(
        equalized_odds_difference(y, pred, sensitive_features=race))
    assert dp_equalized_odds_difference(y, pred, agg="mean", **inf) == pytest.approx(
        equalized_odds_difference(y, pred, sensitive_features=race, agg="mean"))
    assert dp_equalized_odds_ratio(y, pred, **inf) == pytest.approx(
        equalized_odds_ratio(y, pred, sensitive_features=race))
    assert dp_equal_opportunity_difference(y, pred, **inf) == pytest.approx(
        equal_opportunity_difference(y, pred, sensitive_features=race))


def test_each_aggregate_is_one_release(data):
    y, pred, race, _ = data
    accountant = BudgetAccountant()
    dp_equalized_odds_difference(y, pred, sensitive_features=race, epsilon=0.3, groups=["a", "b", "c"],
                                 accountant=accountant, random_state=0)
    assert accountant.spent_budget == [(0.3, 0.0)]


# ------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("change, error, match", [
    # (a frame whose metrics read y_true: with selection_rate only, y_true is read for its length: see below)
    ({"y_true": [0, 1, 2, 1], "metrics": {"tpr": true_positive_rate}}, ValueError, "y_true must be binary labels"),
    ({"y_pred": [0, 1, np.nan, 1]}, ValueError, r"y_pred contains missing labels \(NaN/None\)"),
    ({"y_true": [0, 1, None, 1], "metrics": {"tpr": true_positive_rate}}, ValueError,
     r"y_true contains missing labels \(NaN/None\)"),
    ({"y_pred": [0, 1, 1]}, ValueError, "length mismatch"),
    ({"sensitive_features": ["a", "b", "z", "a"]}, ValueError, "unseen group"),
    ({"sensitive_features": ["a", "b", None, "a"]}, ValueError, "missing value"),
    ({"groups": ["a"]}, ValueError, "groups must declare at least 2"),
    ({"groups": "ab"}, TypeError, "groups must be a list"),
    ({"metrics": {"mse": mean_squared_error}}, ValueError, "bounds"),
    ({"metrics": {"sr": selection_rate, "mse": mean_squared_error}, "bounds": (0, 1)}, ValueError, "mixes"),
    ({"epsilon": -1}, ValueError, "epsilon"),
    ({"privacy_unit": "person"}, ValueError, "privacy_unit"),
    ({"y_true": [], "y_pred": [], "sensitive_features": []}, ValueError, "empty"),
])
def test_bad_input_names_the_argument(change, error, match):
    kwargs = {"metrics": {"sr": selection_rate}, "y_true": [0, 1, 1, 0], "y_pred": [0, 1, 0, 1],
                  "sensitive_features": ["a", "b", "b", "a"], "epsilon": 1.0, "groups": ["a", "b"],
                  "accountant": BudgetAccountant(), "random_state": 0}
    accountant = kwargs["accountant"]
    with pytest.raises(error, match=match):
        DPMetricFrame(**{**kwargs, **change})
    assert accountant.spent_budget == []


def test_metrics_that_do_not_read_y_true_accept_a_placeholder_y_true_as_fairlearns_user_guide_shows(data):
    """Issue 38 item 4: y_true=range(n) with selection_rate and mean_prediction (advanced_metricframe.rst); before,
    "y_true must be binary labels". The probes that find no metric reading y_true are public (before the budget)."""
    y, pred, race, _ = data
    dummy = list(range(len(pred)))
    metrics = {"sr": selection_rate, "mean": mean_prediction, "n": count}
    exact = _exact(metrics=metrics, y_true=dummy, y_pred=pred, sensitive_features=race)
    frame = _frame(metrics=metrics, y_true=dummy, y_pred=pred, sensitive_features=race, epsilon=math.inf)
    pd.testing.assert_frame_equal(frame.by_group, exact.by_group.astype(float), check_exact=False, rtol=1e-12)
    released = _frame(metrics=metrics, y_true=dummy, y_pred=pred, sensitive_features=race, epsilon=1.0,
                      groups=["a", "b", "c"], random_state=0)
    assert released.released_counts_[["fn", "tp"]].to_numpy().sum() == 0      # the (group, prediction) table
    # a metric that reads y_true, or y_true private ("record"), keeps the label check
    for kwargs in ({"metrics": {"sr": selection_rate, "tpr": true_positive_rate}},
                   {"metrics": metrics, "privacy_unit": "record"}):
        with pytest.raises(ValueError, match="y_true must be binary labels"):
            _frame(**{**{"y_true": dummy, "y_pred": pred, "sensitive_features": race, "epsilon": 1.0,
                             "groups": ["a", "b", "c"]}, **kwargs})


def test_dask_inputs_are_counted_on_the_workers_and_equal_the_in_memory_report(data):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    y, pred, race, site = data
    kwargs = {"metrics": {"accuracy": accuracy_score, "tpr": true_positive_rate}, "epsilon": 1.0,
                  "groups": ["a", "b", "c"], "random_state": 4}
    memory = _frame(y_true=y, y_pred=pred, sensitive_features=race, **kwargs)
    with dask.config.set(scheduler="synchronous"):
        lazy = _frame(y_true=da.from_array(y, chunks=600), y_pred=da.from_array(pred, chunks=600),
                      sensitive_features=dd.from_pandas(race, npartitions=5), **kwargs)
        array = _frame(y_true=da.from_array(y, chunks=700), y_pred=da.from_array(pred, chunks=700),
                       sensitive_features=da.from_array(race.to_numpy(dtype=object), chunks=700), **kwargs)
    np.testing.assert_array_equal(array.noisy_counts_, memory.noisy_counts_)
    np.testing.assert_array_equal(lazy.noisy_counts_, memory.noisy_counts_)
    pd.testing.assert_frame_equal(lazy.by_group, memory.by_group)
    with pytest.raises(ValueError, match="groups=.* is required with Dask inputs"):
        DPMetricFrame(metrics=accuracy_score, y_true=da.from_array(y, chunks=600), y_pred=da.from_array(pred, chunks=600),
                      sensitive_features=dd.from_pandas(race, npartitions=5), epsilon=1.0,
                      accountant=BudgetAccountant(epsilon=0.0))                         # before the budget check
    with pytest.raises(ValueError, match="partitioned differently"):
        _frame(y_true=da.from_array(y, chunks=700), y_pred=da.from_array(pred, chunks=600),
               sensitive_features=da.from_array(race.to_numpy(dtype=object), chunks=700), **kwargs)
