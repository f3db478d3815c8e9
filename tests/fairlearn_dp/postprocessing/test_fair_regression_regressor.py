"""DPFairRegressionPostprocessor as a scikit-learn regressor (issue 34): ``bounds`` optional at epsilon=inf only,
``n_features_in_`` / ``feature_names_in_``, the regressor tags, ``score``, sparse input."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from sklearn.base import is_regressor
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.utils import get_tags

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

pytestmark = [
    # The `regressor` fixture is a Ridge prefit on an array; the tests below pass DataFrames to check the
    # post-processor's own feature names, and scikit-learn's Ridge says it saw none at its fit (its warning, not ours).
    pytest.mark.filterwarnings("ignore:X has feature names, but Ridge was fitted without feature names:UserWarning"),
]

N = 600
COLUMNS = ["x0", "x1", "x2"]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, N)
    X = rng.normal(size=(N, 3)) + 0.5 * a[:, None]
    y = X @ np.array([1.0, -0.5, 0.25]) + rng.normal(0, 0.3, N)
    return X, y, a


@pytest.fixture(scope="module")
def regressor(data):
    X, y, _ = data
    return Ridge().fit(X[:200], y[:200])


def exhausted():
    return BudgetAccountant(epsilon=1e-3, delta=0.0)


class _CountingRegressor(Ridge):
    """A fitted Ridge that counts how often its outputs are read."""

    calls = 0

    def predict(self, X):
        type(self).calls += 1
        return super().predict(X)


class _SparseRidge(Ridge):
    """Ridge, tagged as taking sparse input whatever the scikit-learn version (1.6.0 does not tag it)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ------------------------------------------------------------------------------------------------ bounds
def test_infinite_epsilon_without_bounds_bins_the_range_of_the_fitting_outputs(data, regressor):
    X, y, a = data
    outputs = regressor.predict(X)
    common = {"estimator": regressor, "prefit": True, "epsilon": np.inf, "n_bins": 20, "alpha": 0.1, "groups": [0, 1]}
    no_bounds = DPFairRegressionPostprocessor(**common).fit(X, sensitive_features=a)
    given = DPFairRegressionPostprocessor(**common, bounds=(outputs.min(), outputs.max())).fit(X, sensitive_features=a)
    np.testing.assert_allclose(no_bounds.bin_edges_[[0, -1]], [outputs.min(), outputs.max()], rtol=1e-12)
    # Same grid and counts: the two fits solve the same LP (solver tolerances only).
    np.testing.assert_allclose(no_bounds.bin_centers_, given.bin_centers_, rtol=1e-12)
    np.testing.assert_allclose(no_bounds.group_pmfs_, given.group_pmfs_, atol=1e-12)
    np.testing.assert_allclose(no_bounds.barycenter_, given.barycenter_, atol=1e-9)
    np.testing.assert_allclose(no_bounds._pmf_predict(X, sensitive_features=a),
                               given._pmf_predict(X, sensitive_features=a), atol=1e-9)


def test_infinite_epsilon_without_bounds_in_attribute_blind_mode(data, regressor):
    X, y, a = data
    group_estimator = LogisticRegression().fit(X[:200], a[:200])
    model = DPFairRegressionPostprocessor(estimator=regressor, prefit=True, epsilon=np.inf, n_bins=12, groups=[0, 1],
                                          group_estimator=group_estimator, alpha=0.2).fit(X, sensitive_features=a)
    outputs = regressor.predict(X)
    np.testing.assert_allclose(model.bin_edges_[[0, -1]], [outputs.min(), outputs.max()], rtol=1e-12)


def test_constant_outputs_get_the_unit_interval_around_them():
    model = DPFairRegressionPostprocessor(epsilon=np.inf, n_bins=4).fit(np.full((10, 1), 0.3),
                                                                       sensitive_features=np.arange(10) % 2)
    np.testing.assert_allclose(model.bin_edges_[[0, -1]], [-0.2, 0.8])


@pytest.mark.parametrize("blind", [False, True])
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_a_finite_epsilon_requires_bounds_before_the_budget_and_the_data(data, blind, delta):
    X, y, a = data
    estimator = _CountingRegressor().fit(X[:200], y[:200])
    _CountingRegressor.calls = 0
    extra = {"group_estimator": LogisticRegression().fit(X[:200], a[:200])} if blind else {}
    model = DPFairRegressionPostprocessor(estimator=estimator, prefit=True, epsilon=1.0, delta=delta, groups=[0, 1],
                                          accountant=exhausted(), **extra)
    with pytest.raises(ValueError, match="bounds=\\(s, t\\) is required at a finite epsilon.*public input needed "
                                         "for privacy"):
        model.fit(X, sensitive_features=a)
    assert _CountingRegressor.calls == 0 and not hasattr(model, "bin_edges_")


@pytest.mark.dask
def test_dask_inputs_need_bounds_at_infinite_epsilon_too(data, regressor):
    da = pytest.importorskip("dask.array")
    X, y, a = data
    model = DPFairRegressionPostprocessor(estimator=regressor, prefit=True, epsilon=np.inf, groups=[0, 1])
    with pytest.raises(ValueError, match="bounds=\\(s, t\\) is required with Dask inputs"):
        model.fit(da.from_array(X, chunks=(200, 3)), sensitive_features=da.from_array(a, chunks=200))


# ---------------------------------------------------------------------------------------------- features
def fitted_on_frame(data, regressor, **kwargs):
    X, y, a = data
    params = {"estimator": regressor, "prefit": True, "epsilon": np.inf, "bounds": (-4.0, 5.0), "groups": [0, 1]}
    params.update(kwargs)
    return DPFairRegressionPostprocessor(**params).fit(pd.DataFrame(X, columns=COLUMNS), sensitive_features=a)


def test_fit_records_the_features_and_predict_checks_them(data, regressor):
    X, y, a = data
    model = fitted_on_frame(data, regressor)
    assert model.n_features_in_ == 3
    assert list(model.feature_names_in_) == COLUMNS
    np.testing.assert_array_equal(model.feature_names_in_, COLUMNS)
    frame = pd.DataFrame(X, columns=COLUMNS)
    model.predict(frame, sensitive_features=a, random_state=0)
    with pytest.raises(ValueError, match="The feature names should match those that were passed during fit"):
        model.predict(frame[["x2", "x0", "x1"]], sensitive_features=a, random_state=0)
    unnamed = pytest.warns(UserWarning, match="X does not have valid feature names")     # scikit-learn's, first
    with pytest.raises(ValueError, match="X has 2 features, but DPFairRegressionPostprocessor is expecting 3"), unnamed:
        model.predict(X[:, :2], sensitive_features=a)
    with pytest.raises(ValueError, match="Reshape your data"):
        model.predict(X[:, 0], sensitive_features=a)
    model.fit(X, sensitive_features=a)                   # a refit on an array forgets the names
    assert model.n_features_in_ == 3 and not hasattr(model, "feature_names_in_")


def test_a_failed_fit_or_a_check_alone_leaves_the_features_as_they_were(data, regressor):
    X, y, a = data
    model = fitted_on_frame(data, regressor)
    with pytest.raises(BudgetError):
        model.set_params(epsilon=1.0, accountant=exhausted()).fit(np.hstack([X, X]), sensitive_features=a)
    assert model.n_features_in_ == 3 and list(model.feature_names_in_) == COLUMNS
    fresh = DPFairRegressionPostprocessor(estimator=regressor, prefit=True, epsilon=np.inf, bounds=(-4.0, 5.0),
                                          groups=[0, 1])
    fresh.check_public_inputs(pd.DataFrame(X, columns=COLUMNS), sensitive_features=a)
    with pytest.raises(ValueError, match="sensitive_features"):
        fresh.fit(pd.DataFrame(X, columns=COLUMNS), sensitive_features=a[:10])      # fails when reading the data
    assert not hasattr(fresh, "n_features_in_") and not hasattr(fresh, "feature_names_in_")


def test_column_names_of_mixed_types_and_a_missing_y_are_refused_before_the_budget(data, regressor):
    X, y, a = data
    mixed = pd.DataFrame(X, columns=["x0", 1, "x2"])
    model = DPFairRegressionPostprocessor(estimator=regressor, prefit=True, epsilon=1.0, bounds=(-4.0, 5.0),
                                          groups=[0, 1], accountant=exhausted())
    with pytest.raises(TypeError, match="Feature names are only supported if all input features have string names"):
        model.fit(mixed, sensitive_features=a)
    model.set_params(estimator=Ridge(), prefit=False)
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        model.fit(X, sensitive_features=a)


def test_outputs_as_a_vector_at_predict_after_a_fit_on_their_column(data):
    _, y, a = data
    model = DPFairRegressionPostprocessor(epsilon=np.inf, groups=[0, 1]).fit(y[:, None], sensitive_features=a)
    assert model.n_features_in_ == 1
    np.testing.assert_array_equal(model.predict(y, sensitive_features=a, random_state=0),
                                  model.predict(y[:, None], sensitive_features=a, random_state=0))


@pytest.mark.dask
def test_dask_inputs_get_their_layout_checked_without_being_computed(data, regressor):
    """A Dask frame's column names and count are read from its metadata (_utils/_features.py), never computed."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    X, y, a = data
    frame = dd.from_pandas(pd.DataFrame(X, columns=COLUMNS), npartitions=3)
    groups = dd.from_pandas(pd.Series(a), npartitions=3)
    with dask.config.set(scheduler="threads"):
        model = fitted_on_frame(data, regressor).fit(frame, sensitive_features=groups)
    assert model.n_features_in_ == 3

    def no_compute(*args, **kwargs):
        raise AssertionError("a Dask collection was computed")

    with dask.config.set(scheduler=no_compute):
        with pytest.raises(ValueError, match="feature names should match"):
            model.predict(frame[["x1", "x0"]], sensitive_features=groups, random_state=0)
        with pytest.raises(ValueError, match="feature names should match"):
            model.predict(frame[list(reversed(COLUMNS))], sensitive_features=groups, random_state=0)
        model.predict(frame, sensitive_features=groups, random_state=0)                 # lazy
        with pytest.raises(BudgetError):
            model.set_params(epsilon=1.0, accountant=exhausted()).fit(frame, sensitive_features=groups)


# ----------------------------------------------------------------------------------- regressor, score, sparse
def test_it_is_a_regressor_whose_score_is_the_r2_of_its_predictions(data, regressor):
    X, y, a = data
    model = fitted_on_frame(data, regressor)
    assert is_regressor(model) and get_tags(model).estimator_type == "regressor"
    frame = pd.DataFrame(X, columns=COLUMNS)
    expected = r2_score(y, model.predict(frame, sensitive_features=a, random_state=3))
    assert model.score(frame, y, sensitive_features=a, random_state=3) == pytest.approx(expected, rel=1e-12)
    weights = np.linspace(0.5, 1.5, N)
    expected = r2_score(y, model.predict(frame, sensitive_features=a, random_state=3), sample_weight=weights)
    assert model.score(frame, y, sensitive_features=a, sample_weight=weights, random_state=3) == pytest.approx(
        expected, rel=1e-12)


def test_tags_follow_what_fit_accepts(regressor):
    def tags(**kwargs):
        return get_tags(DPFairRegressionPostprocessor(**kwargs))

    assert tags(estimator=_SparseRidge()).input_tags.sparse and tags(estimator=Ridge()).target_tags.required
    assert tags(estimator=Ridge()).input_tags.sparse == get_tags(Ridge()).input_tags.sparse   # True from sklearn 1.6.1
    assert not tags(estimator=regressor, prefit=True).target_tags.required
    assert not tags().input_tags.sparse                                      # X holds the outputs: dense
    assert not tags(estimator=HistGradientBoostingRegressor()).input_tags.sparse
    assert tags(estimator=HistGradientBoostingRegressor()).input_tags.allow_nan
    assert not tags(estimator=_SparseRidge(), group_estimator=HistGradientBoostingRegressor()).input_tags.sparse
    assert tags().non_deterministic                                          # predict draws at random


@pytest.mark.parametrize("container", [scipy.sparse.csr_matrix, scipy.sparse.csr_array])
def test_sparse_input_goes_to_a_regressor_that_takes_it(data, regressor, container):
    X, y, a = data
    common = {"estimator": regressor, "prefit": True, "epsilon": 1.0, "bounds": (-4.0, 5.0), "n_bins": 16, "groups": [0, 1],
                  "random_state": 0}
    dense = DPFairRegressionPostprocessor(**common, accountant=BudgetAccountant()).fit(X, sensitive_features=a)
    sparse = DPFairRegressionPostprocessor(**common, accountant=BudgetAccountant()).fit(container(X),
                                                                                        sensitive_features=a)
    assert sparse.n_features_in_ == 3
    # The same seeded noise on the same counts, unless a row's output sits within round-off of a bin edge (it then
    # moves one count, 1/N, between two cells).
    np.testing.assert_allclose(sparse.noisy_joint_pmf_, dense.noisy_joint_pmf_, atol=1.0 / N + 1e-12)
    predicted = sparse.predict(container(X), sensitive_features=a, random_state=1)
    assert predicted.shape == (N,) and np.all(np.isin(predicted, sparse.bin_centers_))
