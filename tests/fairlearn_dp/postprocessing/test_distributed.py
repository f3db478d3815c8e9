"""Out-of-core fits on Dask inputs: the same release as in memory, partition-wise predict, bad input refused with
nothing released or charged. Needs the [dask] extra (skipped without it)."""

import re

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LinearRegression, LogisticRegression

from fairlearn_dp._fairlearn_compat import LABELS_NOT_0_1_ERROR_MESSAGE, MESSAGE_Y_NONE
from fairlearn_dp._utils._validation import as_group_vector, encode_groups
from fairlearn_dp.postprocessing import (
    DPFairRegressionPostprocessor,
    DPThresholdOptimizer,
    ThresholdOptimizerOptions,
    _distributed,
)
from fairlearn_dp.postprocessing._inputs import _encode_numeric, binary_labels, fit_template

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

pytestmark = [pytest.mark.dask, pytest.mark.usefixtures("dask_threads")]

N = 4000
GROUPS = [0, 1, 2]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, N)
    X = rng.normal(size=(N, 3)) + 0.4 * a[:, None]
    target = X @ np.array([0.3, 0.2, -0.1]) + rng.normal(0, 0.2, N)
    labels = (target + rng.normal(0, 0.3, N) > 0.3).astype(int)
    return X, target, labels, a


@pytest.fixture(scope="module")
def regressor(data):
    X, target, _, _ = data
    return LinearRegression().fit(X[:300], target[:300])


@pytest.fixture(scope="module")
def classifier(data):
    X, _, labels, _ = data
    return LogisticRegression().fit(X[:300], labels[:300])


def regression(accountant, **kwargs):
    params = {"epsilon": 1.0, "bounds": (-2.0, 3.0), "n_bins": 24, "alpha": 0.05, "groups": GROUPS, "accountant": accountant,
                  "random_state": 7}
    params.update(kwargs)
    return DPFairRegressionPostprocessor(**params)


def threshold(accountant, **kwargs):
    params = {"constraints": "equalized_odds", "groups": GROUPS, "accountant": accountant, "random_state": 11,
                  "options": ThresholdOptimizerOptions(n_score_bins=12)}
    params.update(kwargs)
    return DPThresholdOptimizer(**params)


REGRESSION_FITTED = ("noisy_joint_pmf_", "group_weights_", "group_pmfs_", "barycenter_", "target_pmfs_",
                     "objective_", "bin_edges_", "bin_centers_", "groups_", "privacy_spent_")
THRESHOLD_FITTED = ("noisy_table_", "table_", "group_label_mass_", "mixing_rates_", "objective_value_", "bin_edges_",
                    "mode_", "groups_", "privacy_spent_")


def assert_same_fit(in_memory, out_of_core, names, X, a):
    for name in names:
        expected, got = getattr(in_memory, name), getattr(out_of_core, name)
        if isinstance(expected, np.ndarray):
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            assert got == expected, name
    np.testing.assert_array_equal(out_of_core.predict(X, sensitive_features=a, random_state=1),
                                  in_memory.predict(X, sensitive_features=a, random_state=1))


# --------------------------------------------------------------------------------------- same release as in memory
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_regression_outputs_as_dask_array_release_what_the_in_memory_fit_releases(data, delta):
    X, target, _, a = data
    outputs = np.clip(target, -2.5, 3.5)         # some outside bounds: clipped alike
    in_memory = regression(BudgetAccountant(), delta=delta).fit(outputs[:, None], sensitive_features=a)
    accountant = BudgetAccountant()
    out_of_core = regression(accountant, delta=delta).fit(da.from_array(outputs, chunks=700),
                                                          sensitive_features=da.from_array(a, chunks=700))
    assert_same_fit(in_memory, out_of_core, REGRESSION_FITTED, outputs[:, None], a)
    assert accountant.spent_budget == [(1.0, delta)]
    for plan_in_memory, plan_out_of_core in zip(in_memory.transport_plans_, out_of_core.transport_plans_, strict=True):
        np.testing.assert_array_equal(_dense(plan_out_of_core), _dense(plan_in_memory))


def _dense(plan):
    return plan.toarray() if hasattr(plan, "toarray") else np.asarray(plan)


def test_regression_prefit_estimator_on_dask_array_and_dataframe(data, regressor):
    X, target, _, a = data
    in_memory = regression(BudgetAccountant(), estimator=regressor, prefit=True).fit(X, target, sensitive_features=a)
    # X chunked along both axes (rechunked to whole rows), y and groups chunked alike
    out_of_core = regression(BudgetAccountant(), estimator=regressor, prefit=True).fit(
        da.from_array(X, chunks=(1000, 2)), da.from_array(target, chunks=1000),
        sensitive_features=da.from_array(a, chunks=1000))
    assert_same_fit(in_memory, out_of_core, REGRESSION_FITTED, X, a)

    frame = pd.DataFrame(X, columns=["f0", "f1", "f2"]).assign(group=a, target=target)
    named = LinearRegression().fit(frame[["f0", "f1", "f2"]][:300], target[:300])
    in_memory = regression(BudgetAccountant(), estimator=named, prefit=True).fit(
        frame[["f0", "f1", "f2"]], target, sensitive_features=frame["group"])
    ddf = dd.from_pandas(frame, npartitions=5)
    out_of_core = regression(BudgetAccountant(), estimator=named, prefit=True).fit(
        ddf[["f0", "f1", "f2"]], ddf["target"], sensitive_features=ddf["group"])
    assert_same_fit(in_memory, out_of_core, REGRESSION_FITTED, frame[["f0", "f1", "f2"]], a)


def test_regression_several_sensitive_columns_from_a_dask_dataframe(data):
    X, target, _, a = data
    sex = (X[:, 0] > 0).astype(int)
    frame = pd.DataFrame({"a": a, "sex": sex})
    groups = [f"{g},{s}" for g in range(3) for s in range(2)]
    in_memory = regression(BudgetAccountant(), groups=groups).fit(target[:, None], sensitive_features=frame)
    out_of_core = regression(BudgetAccountant(), groups=groups).fit(
        dd.from_pandas(pd.Series(target), npartitions=3), sensitive_features=dd.from_pandas(frame, npartitions=3))
    assert_same_fit(in_memory, out_of_core, REGRESSION_FITTED, target[:, None], frame)


@pytest.mark.parametrize("predict_method", ["predict_proba", "predict"])
def test_threshold_optimizer_prefit_classifier_on_dask(data, classifier, predict_method):
    X, _, labels, a = data
    params = {"estimator": classifier, "prefit": True, "predict_method": predict_method}
    in_memory = threshold(BudgetAccountant(), **params).fit(X, labels, sensitive_features=a)
    accountant = BudgetAccountant()
    out_of_core = threshold(accountant, **params).fit(
        da.from_array(X, chunks=(900, 3)), da.from_array(labels, chunks=900),
        sensitive_features=da.from_array(a, chunks=900))
    assert_same_fit(in_memory, out_of_core, THRESHOLD_FITTED, X, a)
    assert out_of_core.slack_.keys() == in_memory.slack_.keys()
    for rate in in_memory.slack_:
        np.testing.assert_array_equal(out_of_core.slack_[rate], in_memory.slack_[rate])
    assert accountant.spent_budget == [(1.0, 0.0)]


def test_fairlearns_introspection_after_a_dask_fit(data, classifier):
    """A Dask fit sets every attribute the lazy introspection reads (the estimator, the predict method, the grid):
    interpolated_thresholder_ exists, covers the groups and is the rule predict uses. Same bound as the in-memory
    introspection tests: B - 1 decomposition steps of _JUMP_TOL plus the rounding of Fairlearn's formula."""
    from fairlearn.postprocessing._interpolated_thresholder import InterpolatedThresholder

    from fairlearn_dp.postprocessing import _introspection

    X, _, labels, a = data
    model = threshold(BudgetAccountant(), estimator=classifier, prefit=True, predict_method="predict_proba").fit(
        da.from_array(X, chunks=(900, 3)), da.from_array(labels, chunks=900),
        sensitive_features=da.from_array(a, chunks=900))
    assert "interpolated_thresholder_" not in vars(model) and hasattr(model, "interpolated_thresholder_")
    interpolation = model.interpolated_thresholder_.interpolation_dict
    assert set(interpolation) == set(GROUPS) and set(model._tradeoff_curve) == set(GROUPS)
    fairlearns = InterpolatedThresholder(classifier, interpolation, prefit=True,
                                         predict_method="predict_proba").fit(None, None)
    tolerance = (model.bin_edges_.size - 2) * _introspection._JUMP_TOL + 8 * np.finfo(float).eps
    np.testing.assert_allclose(fairlearns._pmf_predict(X, sensitive_features=a),
                               model._pmf_predict(X, sensitive_features=a), rtol=0, atol=tolerance)


def test_threshold_optimizer_scores_as_dask_series(data, classifier):
    X, _, labels, a = data
    scores = classifier.predict_proba(X)[:, 1]
    in_memory = threshold(BudgetAccountant(), epsilon=np.inf).fit(scores, labels, sensitive_features=a)
    frame = dd.from_pandas(pd.DataFrame({"score": scores, "y": labels, "a": a}), npartitions=4)
    out_of_core = threshold(BudgetAccountant(), epsilon=np.inf).fit(frame["score"], frame["y"],
                                                                    sensitive_features=frame["a"])
    assert_same_fit(in_memory, out_of_core, THRESHOLD_FITTED, scores, a)


def test_prefit_predict_runs_per_partition(data, regressor):
    X, target, _, a = data

    class Recording(RegressorMixin, BaseEstimator):
        def __init__(self, inner=None):
            self.inner = inner

        def fit(self, X, y):
            return self

        def __sklearn_is_fitted__(self):
            return True

        def predict(self, X):
            self.sizes_.append(len(X))
            return self.inner.predict(X)

    recording = Recording(regressor)
    recording.sizes_ = []
    regression(BudgetAccountant(), estimator=recording, prefit=True).fit(
        da.from_array(X, chunks=(500, 3)), sensitive_features=da.from_array(a, chunks=500))
    assert sorted(recording.sizes_) == [500] * 8


def test_same_release_on_a_distributed_local_cluster(data):
    distributed = pytest.importorskip("distributed")
    _, target, _, a = data
    in_memory = regression(BudgetAccountant()).fit(target[:, None], sensitive_features=a)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        out_of_core = regression(BudgetAccountant()).fit(da.from_array(target, chunks=500),
                                                         sensitive_features=da.from_array(a, chunks=500))
    assert_same_fit(in_memory, out_of_core, REGRESSION_FITTED, target[:, None], a)


def test_lazily_generated_inputs_are_computed_once(data):
    """X, y and the groups cut from one lazily generated array: each source block is generated once."""
    calls = []

    def generate(block_id=None):
        calls.append(block_id[0])
        rng = np.random.default_rng(block_id[0])
        return np.column_stack([rng.normal(size=250), rng.integers(0, 3, 250)])

    source = da.map_blocks(generate, chunks=((250,) * 6, (2,)), dtype=float)
    regression(BudgetAccountant()).fit(source[:, 0], sensitive_features=source[:, 1])
    assert sorted(calls) == list(range(6))


# ------------------------------------------------------------------------------------------------------- bad input
def _refused(make, X, y, sensitive_features, match):
    accountant = BudgetAccountant()
    estimator = make(accountant)
    with pytest.raises(ValueError, match=match):
        estimator.fit(X, y, sensitive_features=sensitive_features)
    assert accountant.spent_budget == []
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(estimator))


def test_unknown_chunk_sizes_are_refused(data):
    _, target, _, a = data
    outputs = da.from_array(target, chunks=1000)
    groups = da.from_array(a, chunks=1000)
    filtered = outputs[outputs > -np.inf]                      # boolean indexing: chunk sizes unknown
    _refused(regression, filtered, None, groups, r"X has unknown chunk sizes")
    _refused(regression, outputs, None, groups[groups >= 0], r"sensitive_features has unknown chunk sizes")


def test_mismatched_partitions_and_lengths_are_refused(data):
    _, target, labels, a = data
    outputs = da.from_array(target, chunks=1000)
    _refused(regression, outputs, None, da.from_array(a, chunks=800), "sensitive_features has 5 partitions but X has 4")
    _refused(regression, outputs, None, da.from_array(a, chunks=(500, 1500, 1000, 1000)),
             "sensitive_features is partitioned differently from X")
    _refused(regression, outputs, None, da.from_array(a[:-1], chunks=1000), "sensitive_features and X have different "
             r"lengths \(length mismatch\)")
    _refused(regression, outputs, da.from_array(target[:-1], chunks=1000), da.from_array(a, chunks=1000),
             r"y and X have different lengths")
    _refused(threshold, da.from_array(target, chunks=1000), da.from_array(labels, chunks=500),
             da.from_array(a, chunks=1000), "y has 8 partitions but X has 4")


def test_dataframe_partitions_of_other_lengths_are_refused_on_the_workers(data):
    _, target, _, a = data
    scores = dd.from_pandas(pd.Series(target), npartitions=4)
    groups = dd.from_pandas(pd.Series(a), npartitions=4)
    scores_lengths = scores.map_partitions(len).compute().tolist()
    # same number of partitions, other boundaries
    groups = groups.repartition(divisions=[0, 100, 2000, 3000, N - 1])
    assert groups.map_partitions(len).compute().tolist() != scores_lengths
    _refused(regression, scores, None, groups, r"sensitive_features and X differ in length in partition \d")


def test_a_group_missing_from_the_declared_list_is_refused(data):
    _, target, labels, a = data
    outputs, groups = da.from_array(target, chunks=1000), da.from_array(a + (a == 2), chunks=1000)   # a group 3
    _refused(regression, outputs, None, groups, r"sensitive_features contains a group that is not one of the 3")
    _refused(lambda acc: threshold(acc, epsilon=1.0), da.from_array(np.clip(target, 0, 1), chunks=1000),
             da.from_array(labels, chunks=1000), groups, r"sensitive_features contains a group")
    strings = dd.from_pandas(pd.Series(np.where(a == 0, "x", "y")), npartitions=4)
    _refused(lambda acc: regression(acc, groups=["x", "z"]), dd.from_pandas(pd.Series(target), npartitions=4),
             None, strings, r"sensitive_features contains a group")


def test_groups_must_be_declared_and_the_estimator_prefit(data, regressor, classifier):
    X, target, labels, a = data
    outputs, groups = da.from_array(target, chunks=1000), da.from_array(a, chunks=1000)
    _refused(lambda acc: regression(acc, groups=None), outputs, None, groups, r"groups=\[...\] is required")
    _refused(lambda acc: threshold(acc, groups=None), outputs, da.from_array(labels, chunks=1000), groups,
             r"groups=\[...\] is required")
    _refused(lambda acc: regression(acc, estimator=regressor), da.from_array(X, chunks=(1000, 3)), outputs, groups,
             r"prefit=True")
    _refused(lambda acc: threshold(acc, estimator=classifier, epsilon=np.inf, prefit=True),
             da.from_array(X, chunks=(1000, 3)), da.from_array(labels, chunks=1000), groups, r"epsilon=inf")


def test_mixing_dask_and_in_memory_inputs_is_refused(data):
    _, target, labels, a = data
    _refused(regression, da.from_array(target, chunks=1000), None, a,
             r"sensitive_features is a ndarray, not a Dask collection")
    _refused(threshold, da.from_array(np.clip(target, 0, 1), chunks=1000), labels, da.from_array(a, chunks=1000),
             r"y is a ndarray, not a Dask collection")


def test_domain_errors_on_workers_are_the_in_memory_ones(data):
    _, target, labels, a = data
    outputs, groups = da.from_array(np.clip(target, 0, 1), chunks=1000), da.from_array(a, chunks=1000)
    bad_labels = da.from_array(np.where(np.arange(N) == 3500, 2, labels), chunks=1000)
    _refused(threshold, outputs, bad_labels, groups, "labels are not 0 or 1")
    nan_outputs = da.from_array(np.where(np.arange(N) == 10, np.nan, target), chunks=1000)
    _refused(regression, nan_outputs, None, groups, "X contains NaN or infinite values")
    _refused(lambda acc: threshold(acc, predict_method="predict"), outputs, da.from_array(labels, chunks=1000),
             groups, "binary base predictions")


def test_a_failed_dask_refit_leaves_the_fitted_estimator_as_it_was(data):
    _, target, _, a = data
    accountant = BudgetAccountant()
    estimator = regression(accountant).fit(da.from_array(target, chunks=1000),
                                           sensitive_features=da.from_array(a, chunks=1000))
    before = dict(vars(estimator))
    with pytest.raises(ValueError, match="unseen group"):
        estimator.fit(da.from_array(target, chunks=1000), sensitive_features=da.from_array(a + 5, chunks=1000))
    assert vars(estimator).keys() == before.keys()
    assert all(vars(estimator)[name] is value for name, value in before.items())
    assert accountant.spent_budget == [(1.0, 0.0)]


def test_the_worker_template_leaves_out_earlier_fits_and_the_accountant(data):
    _, target, _, a = data
    estimator = regression(BudgetAccountant()).fit(target[:, None], sensitive_features=a)
    before = dict(vars(estimator))
    estimator.bin_edges_ = np.linspace(0, 1, 3)
    template = fit_template(estimator, before, ("estimator_", "bin_edges_"))
    assert "transport_plans_" not in vars(template) and "noisy_joint_pmf_" not in vars(template)
    assert template.accountant is None and template.bin_edges_ is estimator.bin_edges_
    assert estimator.accountant is not None


# ------------------------------------------------------------------------------------------- group encoding fast path
@pytest.mark.parametrize("values, groups", [
    (np.array([0, 1, 2, 1, 0]), [0, 1, 2]),
    (np.array([0, 1, 2, 1, 0], dtype=np.int8), [2.0, 0, 1]),
    (np.array([0.0, 1.0, -0.0, 2.0]), [1, 0, 2]),
    (np.array([3, 7, 3], dtype=np.uint32), [7, 3.0, 0.5]),
    (pd.Series([5, 6, 5]), [6, 5]),
    (np.array([-1, 2**40, -1]), [2**40, -1]),
])
def test_numeric_group_encoding_matches_the_general_one(values, groups):
    fast = _encode_numeric(values, groups)
    assert fast is not None
    np.testing.assert_array_equal(fast, encode_groups(as_group_vector(values, len(values)), groups))


@pytest.mark.parametrize("values, groups", [
    (np.array([0, 1, 3]), [0, 1]),                        # unknown group: the general path raises
    (np.array([0.0, np.nan]), [0, 1]),                    # missing value
    (np.array([True, False]), [0, 1]),                    # booleans
    (np.array([0.5, 1.0]), [0, 1]),                       # fractional label
    (np.array(["a", "b"]), ["a", "b"]),                   # strings
    (np.array([0, 1]), [0, "1"]),                         # a non-numeric group
    (np.array([2**53 + 1]), [float(2**53)]),              # int label beyond float precision: no false match
    (np.array([1.0, 2.0]), [2**60 + 1, 1]),               # an int group a float cannot hold
    (np.zeros((3, 2)), [0, 1]),                           # several columns
])
def test_numeric_group_encoding_declines_everything_else(values, groups):
    assert _encode_numeric(values, groups) is None


def test_is_dask_input():
    assert _distributed.is_dask_input(None, np.zeros(3), da.zeros(3))
    assert not _distributed.is_dask_input(np.zeros(3), pd.Series([1.0]), None)


@pytest.mark.parametrize("y, expected", [
    (np.array([0, 1, 1, 0]), [0, 1, 1, 0]), (np.array([0.0, 1.0]), [0, 1]), (np.array([True, False]), [1, 0]),
    (np.array([[1], [0]]), [1, 0]), (pd.Series([1, 0, 1], dtype="int8"), [1, 0, 1]),
    (np.array([0, 1], dtype=object), [0, 1]),
    (np.array([0, 2]), LABELS_NOT_0_1_ERROR_MESSAGE), (np.array(["0", "1"]), LABELS_NOT_0_1_ERROR_MESSAGE),
    (np.array([0.5, 1.0]), LABELS_NOT_0_1_ERROR_MESSAGE), (np.array([1 + 0j, 0j]), LABELS_NOT_0_1_ERROR_MESSAGE),
    (np.array([0.0, np.nan]), "`y` contains missing labels (NaN/None): labels must be 0 or 1."),
    (pd.Series([0, None], dtype=object), "`y` contains missing labels (NaN/None): labels must be 0 or 1."),
    (None, MESSAGE_Y_NONE + "."), (np.array([]), MESSAGE_Y_NONE + "."),
    (np.zeros((2, 2)), "`y` must be of shape (n,) or (n,1)."),
])
def test_the_workers_labels_are_the_one_binary_label_check_with_fairlearns_messages(y, expected):
    """Every counting backend reads labels through the one check (Fairlearn's messages): 0/1 intp, or the error."""
    if isinstance(expected, str):
        with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
            binary_labels(y)
    else:
        got = binary_labels(y)
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == np.intp


def test_dask_refit_after_a_blind_fit_is_an_aware_model():
    """A blind fit, then group_estimator=None and a Dask fit: the fitted model is aware again (the blind attributes
    are dropped by the shared solve step), so predict takes sensitive_features."""
    from diffprivlib import BudgetAccountant
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

    rng = np.random.default_rng(0)
    outputs, groups = rng.uniform(0, 1, 400), rng.integers(0, 2, 400)
    group_estimator = LogisticRegression().fit(rng.uniform(0, 1, (50, 1)), np.arange(50) % 2)
    model = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=8, groups=[0, 1], prefit=True,
                                          group_estimator=group_estimator, accountant=BudgetAccountant(),
                                          random_state=0).fit(outputs[:, None], sensitive_features=groups)
    assert model.group_estimator_ is not None
    model.set_params(group_estimator=None).fit(da.from_array(outputs[:, None], chunks=(100, 1)),
                                                sensitive_features=da.from_array(groups, chunks=100))
    assert model.group_estimator_ is None and not hasattr(model, "remap_")
    assert model.predict(outputs[:5, None], sensitive_features=groups[:5], random_state=0).shape == (5,)
