"""DPMetricFrame keeps the user's metrics: any function of the confusion counts, binary or multiclass (issue 38.1).

A metric that is not one of the vectorised count metrics is evaluated on the confusion cells weighted by the
released counts, after public synthetic probes checked that it is a function of the counts; at epsilon = inf every
value is MetricFrame's on the same rows.
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
    confusion_matrix,
    f1_score,
    fbeta_score,
    matthews_corrcoef,
    precision_score,
    recall_score,
    roc_auc_score,
)

from fairlearn_dp.metrics import DPMetricFrame, MetricFrameOptions, count_metric
from fairlearn_dp.privacy._release import noise_scale

GROUPS = ["a", "b", "c"]
CLASSES = ["cat", "dog", "fish"]


def false_discovery_rate(y_true, y_pred, sample_weight=None):
    """A user's own metric of the counts, not written with count_metric."""
    weight = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    predicted = np.asarray(y_pred) == 1
    return float(weight[predicted & (np.asarray(y_true) == 0)].sum() / weight[predicted].sum())


#: The first bullet of issue 38: scikit-learn's metrics with their keyword arguments, confusion_matrix, Fairlearn's
#: base metrics and a user function.
BINARY = {
    "fbeta_0.6": functools.partial(fbeta_score, beta=0.6),
    "recall_macro": functools.partial(recall_score, average="macro"),
    "precision_pos_label_0": functools.partial(precision_score, pos_label=0),
    "recall_labels": functools.partial(recall_score, labels=[0], average="micro"),
    "f1_zero_division": functools.partial(f1_score, zero_division=1.0, average="weighted"),
    "confusion_matrix": functools.partial(confusion_matrix, labels=[0, 1]),
    "selection_rate": selection_rate, "false_negative_rate": false_negative_rate,
    "true_positive_rate": true_positive_rate, "false_positive_rate": false_positive_rate,
    "true_negative_rate": true_negative_rate, "count": count, "mean_prediction": mean_prediction,
    "false_discovery_rate": false_discovery_rate, "mcc": matthews_corrcoef,
}

MULTICLASS = {
    "accuracy": accuracy_score, "balanced_accuracy": balanced_accuracy_score,
    "recall_macro": functools.partial(recall_score, average="macro"),
    "f1_weighted": functools.partial(f1_score, average="weighted"),
    "precision_fish": functools.partial(precision_score, labels=["fish"], average="micro", zero_division=0.0),
    "confusion_matrix": functools.partial(confusion_matrix, labels=CLASSES), "count": count,
}


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(7)
    n = 1500
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    return y, pred, rng.choice(GROUPS, n, p=[0.5, 0.3, 0.2])


@pytest.fixture(scope="module")
def multiclass():
    rng = np.random.default_rng(8)
    n = 1500
    y = rng.choice(CLASSES, n, p=[0.5, 0.3, 0.2])
    pred = np.where(rng.random(n) < 0.7, y, rng.choice(CLASSES, n))
    return y, pred, rng.choice(GROUPS, n, p=[0.5, 0.3, 0.2])


def _exact(metrics, y, pred, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return MetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups)


def _private(metrics, y, pred, groups, **kwargs):
    kwargs.setdefault("accountant", BudgetAccountant())
    kwargs.setdefault("n_boot", 40)                   # the cell metrics are one Python call per group and draw
    return DPMetricFrame(metrics=metrics, y_true=y, y_pred=pred, sensitive_features=groups, groups=GROUPS,
                         random_state=0, **kwargs)


def _assert_same_values(private, exact):
    """Cell by cell: floats to 1e-12 (the weighted cells sum the same integers in another order), arrays too."""
    assert list(private.index) == list(exact.index) and list(private.columns) == list(exact.columns)
    for column in exact.columns:
        for label in exact.index:
            np.testing.assert_allclose(np.asarray(private.loc[label, column], dtype=float),
                                       np.asarray(exact.loc[label, column], dtype=float), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", list(BINARY))
def test_each_issue_example_equals_metricframe_at_epsilon_inf_and_runs_at_epsilon_1(binary, name):
    y, pred, groups = binary
    metrics = {name: BINARY[name]}
    exact = _exact(metrics, y, pred, groups)
    frame = _private(metrics, y, pred, groups, epsilon=math.inf)
    _assert_same_values(frame.by_group, exact.by_group)
    np.testing.assert_allclose(np.asarray(frame.overall[name], dtype=float),
                               np.asarray(exact.overall[name], dtype=float), rtol=1e-12)
    noisy = _private(metrics, y, pred, groups, epsilon=1.0)
    values = np.asarray(list(noisy.by_group[name]), dtype=float)
    assert np.isfinite(values).all()                  # MetricFrame's values are finite here (groups of 300+ rows)
    if name != "confusion_matrix":                    # an array-valued metric has no interval (NaN)
        low, high = noisy.by_group_ci[0][name].to_numpy(), noisy.by_group_ci[1][name].to_numpy()
        assert np.isfinite(low).all() and (low <= high).all()


def test_multiclass_with_declared_labels_equals_metricframe_at_epsilon_inf(multiclass):
    y, pred, groups = multiclass
    exact = _exact(MULTICLASS, y, pred, groups)
    frame = _private(MULTICLASS, y, pred, groups, epsilon=math.inf, options=MetricFrameOptions(labels=CLASSES))
    _assert_same_values(frame.by_group, exact.by_group)
    for name in MULTICLASS:
        np.testing.assert_allclose(np.asarray(frame.overall[name], dtype=float),
                                   np.asarray(exact.overall[name], dtype=float), rtol=1e-12)
    scalars = [name for name in MULTICLASS if name != "confusion_matrix"]
    exact_scalars = _exact({name: MULTICLASS[name] for name in scalars}, y, pred, groups)   # Fairlearn's own
    for method in ("between_groups", "to_overall"):                  # to_overall fails on an array-valued column
        np.testing.assert_allclose(frame.difference(method)[scalars].astype(float),
                                   exact_scalars.difference(method).astype(float), rtol=1e-9)
    assert math.isnan(frame.difference()["confusion_matrix"])       # MetricFrame's errors="coerce"
    with pytest.raises(ValueError, match="non-scalar cells"):
        frame.group_max()
    # The release is the K x K table per group, in the declared order.
    assert list(frame.released_counts_.columns) == [(t, p) for t in CLASSES for p in CLASSES]
    np.testing.assert_array_equal(frame.released_counts_.loc["b"].to_numpy().reshape(3, 3),
                                  confusion_matrix(y[groups == "b"], pred[groups == "b"], labels=CLASSES))


def test_multiclass_at_epsilon_1_runs_with_intervals(multiclass):
    y, pred, groups = multiclass
    accountant = BudgetAccountant()
    frame = _private(MULTICLASS, y, pred, groups, epsilon=1.0, options=MetricFrameOptions(labels=CLASSES), accountant=accountant)
    assert accountant.spent_budget == [(1.0, 0.0)]
    scalars = [name for name in MULTICLASS if name != "confusion_matrix"]
    assert np.isfinite(frame.by_group[scalars].to_numpy(dtype=float)).all()
    low, high = (frame.by_group_ci[i][scalars].to_numpy(dtype=float) for i in (0, 1))
    assert np.isfinite(low).all() and (low <= high).all()
    assert np.isfinite(frame.noise_error_[scalars].to_numpy(dtype=float)).all()


def test_multiclass_labels_are_public_and_never_read_from_the_rows(multiclass):
    y, pred, groups = multiclass
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="y_true contains a missing label or a label that is not one of the 2"):
        _private({"accuracy": accuracy_score}, y, pred, groups, epsilon=1.0, options=MetricFrameOptions(labels=["cat", "dog"]),
                 accountant=accountant)
    with pytest.raises(ValueError, match="For several classes, declare them: labels="):
        _private({"accuracy": accuracy_score}, y, pred, groups, epsilon=1.0, accountant=accountant)
    assert accountant.spent_budget == []
    with pytest.raises(ValueError, match="labels contains duplicates"):
        _private({"accuracy": accuracy_score}, y, pred, groups, options=MetricFrameOptions(labels=["cat", "cat"]),
                 accountant=BudgetAccountant(epsilon=0.0))                     # before the budget check


# ------------------------------------------------------------------------------------------------ refusals
def first_prediction(y_true, y_pred, sample_weight=None):
    """Reads the row order."""
    return float(np.asarray(y_pred)[0])


def rows_predicted_positive(y_true, y_pred, sample_weight=None):
    """Ignores sample_weight: a count of rows, not of the weighted cells."""
    return float(np.sum(np.asarray(y_pred) == 1))


def accuracy_without_weights(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def first_prediction_without_weights(y_true, y_pred):
    """Reads the row order, and takes no sample_weight."""
    return float(np.asarray(y_pred)[0])


def member_counts(y_true, y_pred):
    """Fairlearn's plot_new_metrics: a count of rows, without sample_weight."""
    assert len(y_true) == len(y_pred)
    return len(y_true)


def accuracy_bounds(y_true, y_pred):
    """Like plot_plotting_metrics_with_error's Wilson bounds: an array of two values, without sample_weight."""
    score = accuracy_score(y_true, y_pred)
    half = 1.96 * math.sqrt(score * (1 - score) / len(y_true))
    return np.array([score - half, score + half])


def test_a_metric_of_the_counts_without_sample_weight_runs_on_rows_replicated_from_the_counts(binary):
    """Issue 38 item 3: before, these were refused ("takes no sample_weight argument")."""
    y, pred, groups = binary
    metrics = {"accuracy": accuracy_without_weights, "members": member_counts, "bounds": accuracy_bounds}
    exact = _exact(metrics, y, pred, groups)
    frame = _private(metrics, y, pred, groups, epsilon=math.inf)
    _assert_same_values(frame.by_group, exact.by_group)            # the exact counts are integers: exact rows
    assert frame.overall["members"] == len(y)
    noisy = _private(metrics, y, pred, groups, epsilon=1.0)
    members = noisy.by_group["members"].to_numpy(dtype=float)
    assert np.array_equal(members, np.round(members))             # whole rows, from the rounded released counts
    # each group's count is within the noise of the release: Laplace b = 2 / epsilon per count, four counts per
    # group, each rounded by at most 1/2; 4 b * ln(4 * 3 / 1e-9) bounds their sum's error but with probability 1e-9
    error = np.abs(members - exact.by_group["members"].to_numpy(dtype=float))
    assert (error <= 4 * (2.0 * math.log(12 / 1e-9) + 0.5)).all()


def test_a_weighted_frame_refuses_a_metric_without_sample_weight_before_the_budget(binary):
    """MetricFrame would pass the weights to it and fail; rows cannot be replicated from weighted counts."""
    y, pred, groups = binary
    exhausted = BudgetAccountant(epsilon=0.5)
    with pytest.raises(ValueError, match=r"sample_params: .*'members'.* take no sample_weight"):
        _private({"members": member_counts}, y, pred, groups, sample_params={"members": {"sample_weight": np.ones(
            len(y))}}, options=MetricFrameOptions(weight_bound=1.0), epsilon=1.0, accountant=exhausted)
    assert exhausted.spent_budget == []


@pytest.mark.parametrize("metric, reason", [
    (first_prediction, "its value on the rows in reverse order differs"),
    (rows_predicted_positive, "its value on the rows' confusion cells weighted by their counts differs"),
    (first_prediction_without_weights, "its value on the rows in reverse order differs"),
    (functools.partial(recall_score, average="sample"), "it raised InvalidParameterError: The 'average' parameter"),
])
def test_a_metric_that_is_not_a_function_of_the_counts_is_refused_before_the_budget(binary, metric, reason):
    y, pred, groups = binary
    exhausted = BudgetAccountant(epsilon=0.5)
    name = getattr(metric, "__name__", "recall_score")
    with pytest.raises(ValueError, match=f"metric '{name}' .*({reason})"):
        _private({name: metric}, y, pred, groups, epsilon=1.0, accountant=exhausted)
    assert exhausted.spent_budget == []


def test_roc_auc_of_hard_predictions_is_a_function_of_the_counts(binary):
    """With 0/1 scores the ROC curve has one inner point (FPR, TPR): AUC = (1 + TPR - FPR) / 2, a function of the
    counts, so it is accepted (and equals MetricFrame at epsilon = inf)."""
    y, pred, groups = binary
    exact = _exact({"auc": roc_auc_score}, y, pred, groups)
    frame = _private({"auc": roc_auc_score}, y, pred, groups, epsilon=math.inf)
    _assert_same_values(frame.by_group, exact.by_group)


def test_per_row_sample_params_are_refused_before_the_budget(binary):
    """Per-row values other than sample_weight (which the release counts, with weight_bound: issue 38.2)."""
    y, pred, groups = binary
    exhausted = BudgetAccountant(epsilon=0.5)
    with pytest.raises(ValueError, match=r"sample_params \['scores'\] hold per-row values"):
        _private({"sr": selection_rate}, y, pred, groups, sample_params={"sr": {"scores": np.ones(len(y))}},
                 epsilon=1.0, accountant=exhausted)
    assert exhausted.spent_budget == []


@pytest.mark.parametrize("change, error, match", [
    ({"metrics": {"fdr": count_metric(lambda c: c.fp / (c.fp + c.tp))}}, ValueError,
     "a count_metric reads the binary counts"),
    ({"bounds": (0, 1)}, ValueError, "options.labels declares the classes of a classification frame"),
    ({"options": MetricFrameOptions(labels={"y": CLASSES})}, TypeError, "options.labels must be a list of classes"),
    ({"options": MetricFrameOptions(labels=["cat"])}, ValueError, "options.labels must declare at least 2"),
])
def test_bad_multiclass_parameters_are_refused_before_the_budget(multiclass, change, error, match):
    y, pred, groups = multiclass
    kwargs = {"metrics": {"accuracy": accuracy_score}, "options": MetricFrameOptions(labels=CLASSES), "epsilon": 1.0,
              "accountant": BudgetAccountant(epsilon=0.0)}
    with pytest.raises(error, match=match):
        _private(y=y, pred=pred, groups=groups, **{**kwargs, **change})


def test_multiclass_dask_inputs_give_the_in_memory_release(multiclass):
    da = pytest.importorskip("dask.array")
    import dask

    y, pred, groups = multiclass
    kwargs = {"metrics": {"accuracy": accuracy_score}, "options": MetricFrameOptions(labels=CLASSES), "epsilon": 1.0}
    memory = _private(y=y, pred=pred, groups=groups, **kwargs)
    with dask.config.set(scheduler="synchronous"):
        lazy = _private(y=da.from_array(y, chunks=400), pred=da.from_array(pred, chunks=400),
                        groups=da.from_array(groups, chunks=400), **kwargs)
    np.testing.assert_array_equal(lazy.noisy_counts_, memory.noisy_counts_)


# ------------------------------------------------------------------------------------------------ privacy
def test_multiclass_release_neighbouring_tables_and_noise_scale(multiclass):
    """One person's group changed moves one row between two of the G x K^2 cells: L1 2, L2 sqrt(2), whatever K;
    the release's noise is calibrated to that (Laplace 2/epsilon; analytic Gaussian at L2 sqrt 2)."""
    y, pred, groups = multiclass
    tables = []
    rng = np.random.default_rng(0)
    for _ in range(3):
        neighbour = groups.copy()
        row = rng.integers(len(groups))
        neighbour[row] = next(g for g in GROUPS if g != groups[row])
        pair = [_private({"n": count}, y, pred, g, epsilon=math.inf, options=MetricFrameOptions(labels=CLASSES)).released_counts_.to_numpy()
                for g in (groups, neighbour)]
        tables.append(pair[1] - pair[0])
    for difference in tables:
        assert np.abs(difference).sum() == 2 and np.sqrt((difference ** 2).sum()) == pytest.approx(math.sqrt(2))
    laplace = _private({"n": count}, y, pred, groups, epsilon=0.5, options=MetricFrameOptions(labels=CLASSES))
    assert laplace.noisy_counts_.shape == (1, 3, 9) and laplace.noise_scale_ == pytest.approx(2 / 0.5)
    gaussian = _private({"n": count}, y, pred, groups, epsilon=0.5, delta=1e-6, options=MetricFrameOptions(labels=CLASSES))
    assert gaussian.noise_scale_ == pytest.approx(noise_scale(0.5, 1e-6, 2.0, math.sqrt(2.0)))
    # The noise itself: 20 seeds x 27 cells of Laplace(b = 4): the mean absolute deviation is b, standard error
    # b / sqrt(540) = 0.17; 5 standard errors of tolerance.
    exact = _private({"n": count}, y, pred, groups, epsilon=math.inf, options=MetricFrameOptions(labels=CLASSES)).noisy_counts_
    residuals = np.concatenate([
        (DPMetricFrame(metrics={"n": count}, y_true=y, y_pred=pred, sensitive_features=groups, groups=GROUPS,
                       options=MetricFrameOptions(labels=CLASSES), epsilon=0.5, random_state=seed, accountant=BudgetAccountant(),
                       n_boot=10).noisy_counts_ - exact).ravel() for seed in range(20)])
    assert np.mean(np.abs(residuals)) == pytest.approx(4.0, abs=5 * 4.0 / math.sqrt(residuals.size))


def test_what_metricframe_users_read_keeps_its_types_and_names_at_epsilon_inf(binary):
    """Found by Fairlearn's user guide swapped (tests/conformance/test_fairlearn_metric_examples.py): one metric's
    ``overall`` and aggregates are numpy scalars (``frame.overall.item()``), a ``functools.partial`` without a
    ``__name__`` is named ``"metric"`` (with one, that name), and ``confusion_matrix`` of integer counts is an
    integer matrix, as MetricFrame's."""
    y, pred, groups = binary
    fbeta = functools.partial(fbeta_score, beta=0.6)
    named = functools.partial(fbeta_score, beta=0.3)
    named.__name__ = "fbeta_03"
    for metric in (fbeta, named, recall_score):
        exact, frame = _exact(metric, y, pred, groups), _private(metric, y, pred, groups, epsilon=math.inf)
        assert frame.by_group.name == exact.by_group.name
        for ours, theirs in ((frame.overall, exact.overall), (frame.group_min(), exact.group_min()),
                             (frame.difference(), exact.difference()), (frame.ratio(), exact.ratio())):
            assert type(ours) is type(theirs) is np.float64 and ours.item() == pytest.approx(theirs.item(), abs=1e-12)
    exact = _exact({"cm": confusion_matrix}, y, pred, groups)
    frame = _private({"cm": confusion_matrix}, y, pred, groups, epsilon=math.inf)
    for ours, theirs in [(frame.overall["cm"], exact.overall["cm"])] + list(zip(frame.by_group["cm"],
                                                                                 exact.by_group["cm"], strict=False)):
        assert ours.dtype == theirs.dtype and ours.dtype.kind == "i"
        np.testing.assert_array_equal(ours, theirs)


def test_a_frame_pickles_and_loads_with_its_values_as_a_metricframe_does(binary):
    """Fairlearn's user guide saves a MetricFrame with pickle (saving_loading_metricframe.rst): a DPMetricFrame of
    the recognised (vectorised) metrics, the general path and regression sums loads with the same values."""
    import pickle

    from sklearn.metrics import mean_squared_error

    y, pred, groups = binary
    metrics = {"accuracy": accuracy_score, "count": count, "selection_rate": selection_rate,
               "mean_prediction": mean_prediction, "fbeta": functools.partial(fbeta_score, beta=0.6)}
    for frame in (_private(metrics, y, pred, groups, epsilon=1.0),
                  _private({"mse": mean_squared_error, "mean": mean_prediction}, y, pred, groups, epsilon=1.0,
                           bounds=(0, 1))):
        loaded = pickle.loads(pickle.dumps(frame))
        assert loaded.by_group.equals(frame.by_group) and loaded.overall.equals(frame.overall)
        assert all(a.equals(b) for a, b in zip(loaded.by_group_ci, frame.by_group_ci, strict=False))
        assert loaded.difference().equals(frame.difference())
