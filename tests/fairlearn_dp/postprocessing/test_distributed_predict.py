"""Lazy predict / _pmf_predict of the post-processors on Dask inputs: a Dask array partitioned like X, computed
partition by partition, and exactly the in-memory predictions with the same random_state for any partitioning.
Needs the [dask] extra (skipped without it; .ci/run's dask leg runs it with -m dask).

Exact equality is asserted only where no BLAS, solver or fitted model's arithmetic differs between the two paths:
both predict with the same fitted object, the base outputs are given (estimator=None) or come from a prefit
decision tree (leaf values: comparisons, no arithmetic), and the random draws are seeded.
"""

import copy

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy._random import copy_random_state, skip_draws

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

pytestmark = [pytest.mark.dask, pytest.mark.usefixtures("dask_threads")]

N = 3000
GROUPS = [0, 1, 2]
# Row partitionings of N rows, for Dask arrays (known chunks) and, by their boundaries, for DataFrames.
CHUNKINGS = [(N,), (1000, 1000, 1000), (1, 998, 1, 2000), (700, 700, 700, 700, 200)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, N)
    X = rng.normal(size=(N, 3)) + 0.5 * a[:, None]
    scores = 1.0 / (1.0 + np.exp(-(X @ np.array([0.8, -0.4, 0.3]))))
    labels = (rng.random(N) < scores).astype(int)
    outputs = X @ np.array([0.3, 0.2, -0.1]) + rng.normal(0, 0.2, N)
    return X, scores, labels, outputs, a


@pytest.fixture(scope="module")
def threshold(data):
    """Fitted at epsilon=1 on the scores (estimator=None); without the privacy slack equalised odds binds, so
    some bins mix two thresholds (predictions randomised: checked in test_the_randomisation_is_exercised)."""
    _, scores, labels, _, a = data
    return DPThresholdOptimizer(constraints="equalized_odds", groups=GROUPS, options=ThresholdOptimizerOptions(n_score_bins=12, privacy_slack=False), epsilon=1.0, accountant=BudgetAccountant(), random_state=11).fit(
        scores, labels, sensitive_features=a)


@pytest.fixture(scope="module")
def regression(data):
    _, _, _, outputs, a = data
    return DPFairRegressionPostprocessor(bounds=(-2.0, 3.0), n_bins=24, alpha=0.05, groups=GROUPS, epsilon=1.0,
                                         accountant=BudgetAccountant(), random_state=7).fit(outputs[:, None],
                                                                                            sensitive_features=a)


@pytest.fixture(scope="module")
def tree_threshold(data):
    """A prefit decision tree as the base model (its predict_proba is leaf lookups: the same on any rows)."""
    X, _, labels, _, a = data
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:500], labels[:500])
    return DPThresholdOptimizer(estimator=tree, prefit=True, predict_method="predict_proba", groups=GROUPS,
                                options=ThresholdOptimizerOptions(n_score_bins=8), epsilon=1.0, accountant=BudgetAccountant(),
                                random_state=3).fit(X, labels, sensitive_features=a)


def _frame(values, chunks):
    """A Dask DataFrame (2-D values) or Series (1-D) whose partitions hold the rows of ``chunks``."""
    frame = pd.DataFrame(values) if np.ndim(values) == 2 else pd.Series(values)
    bounds = np.concatenate([[0], np.cumsum(chunks)])
    # from_map, not from_delayed: with dask 2026.8, a from_delayed frame turned into an array (even by its own
    # to_dask_array()) fails to compute ("Missing dependency").
    return dd.from_map(lambda rows: frame.iloc[rows[0]:rows[1]], list(zip(bounds[:-1], bounds[1:], strict=False)),
                       meta=frame.iloc[:0], enforce_metadata=False)


def _as_dask(kind, values, chunks):
    if kind == "array":
        return da.from_array(values, chunks=(chunks,) + ((values.shape[1],) if np.ndim(values) == 2 else ()))
    return _frame(values, chunks)


# ------------------------------------------------------------------------------------------- lazy, like the input
@pytest.mark.parametrize("kind", ["array", "frame"])
def test_predict_returns_a_lazy_dask_array_partitioned_like_x(threshold, regression, data, kind):
    _, scores, _, outputs, a = data
    chunks = CHUNKINGS[3]
    cases = [(threshold, scores, np.int64, ()), (regression, outputs[:, None], np.float64, ())]
    for model, x, dtype, columns in cases:
        X, groups = _as_dask(kind, x, chunks), _as_dask(kind, a, chunks)
        result = model.predict(X, sensitive_features=groups, random_state=0)
        assert isinstance(result, da.Array) and result.dtype == dtype and result.ndim == 1
        assert result.numblocks == (len(chunks),)
        if kind == "array":
            assert result.chunks == (chunks,)
        else:                                               # DataFrame partitions: lengths known once computed
            assert np.isnan(result.shape[0])
            assert [block.shape[0] for block in dask.compute(*result.to_delayed().ravel())] == list(chunks)
    pmf = regression._pmf_predict(_as_dask(kind, outputs[:, None], chunks),
                                  sensitive_features=_as_dask(kind, a, chunks))
    assert isinstance(pmf, da.Array) and pmf.numblocks == (len(chunks), 1)
    assert pmf.shape[1] == regression.bin_centers_.size
    assert threshold._pmf_predict(_as_dask(kind, scores, chunks),
                                  sensitive_features=_as_dask(kind, a, chunks)).shape[1] == 2


def test_the_call_reads_no_data_and_each_block_is_read_once(threshold, data):
    """Nothing is computed by predict; computing the result reads every source block once (X and the groups cut
    from one lazily generated array), and the draws do not depend on the data."""
    _, scores, _, _, a = data
    calls = []

    def generate(block_id=None):
        calls.append(block_id[0])
        rows = slice(500 * block_id[0], 500 * (block_id[0] + 1))
        return np.column_stack([scores[rows], a[rows]])

    source = da.map_blocks(generate, chunks=((500,) * 6, (2,)), dtype=float)
    result = threshold.predict(source[:, 0], sensitive_features=source[:, 1], random_state=4)
    pmf = threshold._pmf_predict(source[:, 0], sensitive_features=source[:, 1])
    assert calls == []
    computed = result.compute()
    assert sorted(calls) == list(range(6))
    np.testing.assert_array_equal(computed, threshold.predict(scores, sensitive_features=a, random_state=4))
    np.testing.assert_array_equal(pmf.compute(), threshold._pmf_predict(scores, sensitive_features=a))


# ---------------------------------------------------------------------------- exactly the in-memory predictions
@pytest.mark.parametrize("kind", ["array", "frame"])
@pytest.mark.parametrize("chunks", CHUNKINGS, ids=lambda c: f"{len(c)}parts")
def test_threshold_optimizer_dask_predict_is_the_in_memory_predict(threshold, data, kind, chunks):
    _, scores, _, _, a = data
    X, groups = _as_dask(kind, scores, chunks), _as_dask(kind, a, chunks)
    for seed in (0, 12345):
        np.testing.assert_array_equal(threshold.predict(X, sensitive_features=groups, random_state=seed).compute(),
                                      threshold.predict(scores, sensitive_features=a, random_state=seed))
    np.testing.assert_array_equal(threshold._pmf_predict(X, sensitive_features=groups).compute(),
                                  threshold._pmf_predict(scores, sensitive_features=a))


@pytest.mark.parametrize("kind", ["array", "frame"])
@pytest.mark.parametrize("chunks", CHUNKINGS, ids=lambda c: f"{len(c)}parts")
def test_fair_regression_dask_predict_is_the_in_memory_predict(regression, data, kind, chunks):
    _, _, _, outputs, a = data
    X, groups = _as_dask(kind, outputs[:, None], chunks), _as_dask(kind, a, chunks)
    for seed in (0, 12345):
        np.testing.assert_array_equal(regression.predict(X, sensitive_features=groups, random_state=seed).compute(),
                                      regression.predict(outputs[:, None], sensitive_features=a,
                                                         random_state=seed))
    np.testing.assert_array_equal(regression._pmf_predict(X, sensitive_features=groups).compute(),
                                  regression._pmf_predict(outputs[:, None], sensitive_features=a))


def test_the_randomisation_is_exercised(threshold, regression, data):
    """The equality tests above would pass for deterministic predictions too: check that the draws matter (rows
    whose predicted distribution is not a point mass, and two seeds that give other predictions)."""
    _, scores, _, outputs, a = data
    assert np.sum((threshold._pmf_predict(scores, sensitive_features=a)[:, 1] % 1.0) > 0) > 100
    assert np.sum(regression._pmf_predict(outputs[:, None], sensitive_features=a).max(axis=1) < 1) > 100
    assert not np.array_equal(threshold.predict(scores, sensitive_features=a, random_state=0),
                              threshold.predict(scores, sensitive_features=a, random_state=1))


def test_prefit_base_model_runs_per_partition_and_gives_the_in_memory_predictions(tree_threshold, data):
    X, _, _, _, a = data

    class Recording(ClassifierMixin, BaseEstimator):
        """The prefit tree, recording the number of rows of every predict_proba call."""

        def __init__(self, inner=None):
            self.inner = inner

        def __sklearn_is_fitted__(self):
            return True

        def predict_proba(self, X):
            self.sizes_.append(len(X))
            return self.inner.predict_proba(X)

    model = copy.copy(tree_threshold)
    model.estimator_ = Recording(tree_threshold.estimator_)
    model.estimator_.sizes_ = []
    chunks = (1200, 1000, 800)
    X_dask = da.from_array(X, chunks=(chunks, (1, 2)))     # chunked along columns too: whole rows per block
    frame = _frame(X, chunks)
    for X_lazy, groups in ((X_dask, da.from_array(a, chunks=chunks)), (frame, _frame(a, chunks))):
        result = model.predict(X_lazy, sensitive_features=groups, random_state=5)
        assert model.estimator_.sizes_ == []                # lazy: the base model has not run
        np.testing.assert_array_equal(result.compute(), tree_threshold.predict(X, sensitive_features=a,
                                                                               random_state=5))
        assert sorted(model.estimator_.sizes_) == sorted(chunks)
        model.estimator_.sizes_.clear()


def test_fair_regression_with_a_prefit_tree_on_a_dask_dataframe(data):
    X, _, _, outputs, a = data
    tree = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X[:500], outputs[:500])
    columns = ["f0", "f1", "f2"]
    frame = pd.DataFrame(X, columns=columns)
    named = DecisionTreeRegressor(max_depth=5, random_state=0).fit(frame[:500], outputs[:500])
    cases = ((X, tree, da.from_array(X, chunks=(750, 3)), da.from_array(a, chunks=750)),
             (frame, named, dd.from_pandas(frame, npartitions=4), dd.from_pandas(pd.Series(a), npartitions=4)))
    for model_input, estimator, lazy, lazy_groups in cases:
        model = DPFairRegressionPostprocessor(estimator=estimator, prefit=True, bounds=(-2.0, 3.0), n_bins=16,
                                              groups=GROUPS, accountant=BudgetAccountant(), random_state=2).fit(
            model_input, sensitive_features=a)
        np.testing.assert_array_equal(model.predict(lazy, sensitive_features=lazy_groups, random_state=9).compute(),
                                      model.predict(model_input, sensitive_features=a, random_state=9))


def test_an_empty_dataframe_partition_gives_an_empty_block(threshold, regression, data):
    _, scores, _, outputs, a = data
    chunks = (1000, 0, 2000)
    for model, x in ((threshold, scores), (regression, outputs[:, None])):
        result = model.predict(_frame(x, chunks), sensitive_features=_frame(a, chunks), random_state=8)
        blocks = dask.compute(*result.to_delayed().ravel())
        assert [block.shape[0] for block in blocks] == [1000, 0, 2000]
        np.testing.assert_array_equal(np.concatenate(blocks), model.predict(x, sensitive_features=a,
                                                                            random_state=8))


def test_fairlearn_fit_at_epsilon_inf_predicts_on_dask_as_fairlearn_does(data):
    """At epsilon=inf with an estimator the fitted model is Fairlearn's ThresholdOptimizer; its predict on Dask
    partitions draws the same stream as Fairlearn's predict on the whole input."""
    X, _, labels, _, a = data
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[:500], labels[:500])
    model = DPThresholdOptimizer(estimator=tree, prefit=True, predict_method="predict_proba", epsilon=np.inf,
                                 accountant=BudgetAccountant()).fit(X, labels, sensitive_features=a)
    assert hasattr(model, "interpolated_thresholder_")
    chunks = (900, 900, 1200)
    X_dask, groups = da.from_array(X, chunks=(chunks, 3)), da.from_array(a, chunks=chunks)
    expected = model.predict(X, sensitive_features=a, random_state=6)
    assert 0 < expected.mean() < 1
    np.testing.assert_array_equal(model.predict(X_dask, sensitive_features=groups, random_state=6).compute(),
                                  expected)
    np.testing.assert_array_equal(model._pmf_predict(X_dask, sensitive_features=groups).compute(),
                                  model._pmf_predict(X, sensitive_features=a))


def test_attribute_blind_regression_predicts_on_dask_without_sensitive_features():
    rng = np.random.default_rng(0)
    outputs, groups = rng.uniform(0, 1, 600), rng.integers(0, 2, 600)
    # A tree as the group estimator: its posteriors are leaf values, the same for a row in any partition.
    group_estimator = DecisionTreeClassifier(max_depth=3, random_state=0).fit(
        outputs[:200, None], (outputs[:200] + 0.3 * rng.random(200) > 0.6).astype(int))
    model = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=8, groups=[0, 1], prefit=True,
                                          group_estimator=group_estimator, accountant=BudgetAccountant(),
                                          random_state=0).fit(outputs[:, None], sensitive_features=groups)
    lazy = da.from_array(outputs[:, None], chunks=(150, 1))
    np.testing.assert_array_equal(model.predict(lazy, random_state=1).compute(),
                                  model.predict(outputs[:, None], random_state=1))
    with pytest.raises(ValueError, match="must not be passed to predict in attribute-blind mode"):
        model.predict(lazy, sensitive_features=da.from_array(groups, chunks=150))


# ------------------------------------------------------------------------------------------------ random_state
def test_a_random_state_instance_gives_the_in_memory_draws_and_is_not_advanced(threshold, data):
    _, scores, _, _, a = data
    generator = np.random.RandomState(21)
    state = generator.get_state()[1].copy()
    lazy = threshold.predict(da.from_array(scores, chunks=700), sensitive_features=da.from_array(a, chunks=700),
                             random_state=generator)
    np.testing.assert_array_equal(generator.get_state()[1], state)          # read at the call, not advanced
    generator.random_sample(10)                                              # later use does not change the result
    np.testing.assert_array_equal(lazy.compute(), threshold.predict(scores, sensitive_features=a,
                                                                    random_state=np.random.RandomState(21)))


def test_random_state_none_is_unpredictable_and_fixed_once_the_call_returns(regression, data):
    """None: one OS-seeded generator per call (numpy's global state is ignored); the lazy result is fixed."""
    _, _, _, outputs, a = data
    X, groups = da.from_array(outputs[:, None], chunks=(1000, 1)), da.from_array(a, chunks=1000)
    results = []
    for _ in range(2):
        np.random.seed(0)
        lazy = regression.predict(X, sensitive_features=groups)
        first = lazy.compute()
        np.testing.assert_array_equal(lazy.compute(), first)
        results.append(first)
    # Two independent calls agree only if every row draws the same bin: probability at most the product over rows
    # of each row's largest bin probability (bounded here before comparing).
    largest = regression._pmf_predict(outputs[:, None], sensitive_features=a).max(axis=1)
    assert np.sum(np.log(largest)) < np.log(1e-12)
    assert not np.array_equal(results[0], results[1])


def test_skip_draws_continues_the_stream_for_every_bit_generator():
    for bit_generator in (None, np.random.PCG64(3), np.random.Philox(4), np.random.SFC64(5)):
        generator = np.random.RandomState(17) if bit_generator is None else np.random.RandomState(bit_generator)
        reference = copy.deepcopy(generator).random_sample(5000)
        before = copy.deepcopy(generator).random_sample(3)
        for count in (0, 1, 7, 4096):
            np.testing.assert_array_equal(skip_draws(generator, count).random_sample(50),
                                          reference[count:count + 50])
        np.testing.assert_array_equal(copy.deepcopy(generator).random_sample(3), before)   # not advanced
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="count must be a non-negative integer"):
            skip_draws(np.random.RandomState(0), bad)


def test_skip_draws_in_chunks_matches_one_long_draw(monkeypatch):
    from fairlearn_dp.privacy import _random  # where the random sources live

    monkeypatch.setattr(_random, "_SKIP_CHUNK", 64)
    reference = np.random.RandomState(2).random_sample(1000)
    np.testing.assert_array_equal(skip_draws(np.random.RandomState(2), 700).random_sample(300), reference[700:])


def test_copy_random_state_leaves_the_callers_generator_alone():
    generator = np.random.RandomState(1)
    copied = copy_random_state(generator)
    assert copied is not generator
    copied.random_sample(5)
    np.testing.assert_array_equal(generator.random_sample(5), np.random.RandomState(1).random_sample(5))
    np.testing.assert_array_equal(copy_random_state(4).random_sample(3), np.random.RandomState(4).random_sample(3))


# -------------------------------------------------------------------------------------------------- bad input
def test_an_unseen_group_raises_the_in_memory_error_when_computed(threshold, regression, data):
    _, scores, _, outputs, a = data
    unseen = np.where(np.arange(N) == 2500, 7, a)
    for model, x in ((threshold, scores), (regression, outputs[:, None])):
        with pytest.raises(ValueError) as in_memory:
            model.predict(x, sensitive_features=unseen, random_state=0)
        assert "unseen group" in str(in_memory.value)
        for lazy in (model.predict(_as_dask("array", x, (1000,) * 3), random_state=0,
                                   sensitive_features=da.from_array(unseen, chunks=1000)),
                     model._pmf_predict(_frame(x, (1000,) * 3), sensitive_features=_frame(unseen, (1000,) * 3))):
            with pytest.raises(ValueError, match=str(in_memory.value).replace("(", r"\(").replace(")", r"\)")):
                lazy.compute()


def test_layout_errors_are_raised_at_the_call(threshold, regression, data):
    _, scores, _, outputs, a = data
    X = da.from_array(scores, chunks=1000)
    with pytest.raises(ValueError, match="sensitive_features has 5 partitions but X has 3"):
        threshold.predict(X, sensitive_features=da.from_array(a, chunks=600))
    with pytest.raises(ValueError, match="sensitive_features is partitioned differently from X"):
        threshold.predict(X, sensitive_features=da.from_array(a, chunks=(500, 1500, 1000)))
    with pytest.raises(ValueError, match="sensitive_features is a ndarray, not a Dask collection"):
        threshold.predict(X, sensitive_features=a)
    with pytest.raises(ValueError, match="X is a ndarray, not a Dask collection"):
        regression._pmf_predict(outputs[:, None], sensitive_features=da.from_array(a, chunks=1000))
    with pytest.raises(ValueError, match="X has unknown chunk sizes"):
        threshold.predict(X[X > -1], sensitive_features=da.from_array(a, chunks=1000))
    with pytest.raises(ValueError, match="sensitive_features is required"):
        regression.predict(da.from_array(outputs[:, None], chunks=(1000, 1)))


def test_dataframe_partitions_of_other_lengths_raise_when_computed(threshold, data):
    _, scores, _, _, a = data
    lazy = threshold.predict(_frame(scores, (1000, 1000, 1000)), sensitive_features=_frame(a, (1000, 1500, 500)),
                             random_state=0)
    with pytest.raises(ValueError, match=r"sensitive_features and X differ in length in partition [12]"):
        lazy.compute()


def test_an_unfitted_estimator_raises_at_the_call(data):
    _, scores, _, _, a = data
    X, groups = da.from_array(scores, chunks=1000), da.from_array(a, chunks=1000)
    for model in (DPThresholdOptimizer(groups=GROUPS), DPFairRegressionPostprocessor(bounds=(0, 1), groups=GROUPS)):
        with pytest.raises(NotFittedError):
            model.predict(X, sensitive_features=groups)
        with pytest.raises(NotFittedError):
            model._pmf_predict(X, sensitive_features=groups)


# The refit on flipped labels ignores the scores (a UtilityWarning): only that the earlier lazy result is unchanged
# is checked here.
@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")
def test_a_refit_does_not_change_an_earlier_lazy_result(data):
    _, scores, labels, _, a = data
    model = DPThresholdOptimizer(groups=GROUPS, options=ThresholdOptimizerOptions(n_score_bins=6), accountant=BudgetAccountant(), random_state=0)
    model.fit(scores, labels, sensitive_features=a)
    expected = model.predict(scores, sensitive_features=a, random_state=3)
    lazy = model.predict(da.from_array(scores, chunks=1000), sensitive_features=da.from_array(a, chunks=1000),
                         random_state=3)
    model.set_params(constraints="equalized_odds", random_state=1).fit(scores, 1 - labels, sensitive_features=a)
    np.testing.assert_array_equal(lazy.compute(), expected)


# ---------------------------------------------------------------------------------------------- on a cluster
def test_predict_on_a_distributed_local_cluster(threshold, regression, data):
    distributed = pytest.importorskip("distributed")
    _, scores, _, outputs, a = data
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        groups = da.from_array(a, chunks=400)
        got = dask.compute(
            threshold.predict(da.from_array(scores, chunks=400), sensitive_features=groups, random_state=2),
            regression.predict(da.from_array(outputs[:, None], chunks=(400, 1)), sensitive_features=groups,
                               random_state=2))
    np.testing.assert_array_equal(got[0], threshold.predict(scores, sensitive_features=a, random_state=2))
    np.testing.assert_array_equal(got[1], regression.predict(outputs[:, None], sensitive_features=a,
                                                             random_state=2))
