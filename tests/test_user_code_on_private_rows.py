"""User code on private rows (issue 34, section 2): a failure on one record must not answer a question about it.

Under a record-level unit the rows are private, and a fit that fails on a dataset and not on its neighbour
(differing in one record) answers a predicate of that record, charged or not. Every call of user or third-party code
on private rows is therefore total row by row (``fairlearn_dp._utils._withheld.call_total_on_private_rows``): a row
on which it raises, or gives a non-finite or out-of-domain output, gets a documented public default. Each test builds
the neighbouring pair (one row differs: a value above a transformer's threshold, an undeclared category, a row the
prefit model raises on, a NaN-producing row) and checks that both fits succeed with the same charge, and that the
row was treated as the default (the fit equals the fit with the user code replaced by its total version, same seed;
released values compared with a tolerance). Under ``privacy_unit="sensitive_attribute"`` X is public: the same
failure is raised on both neighbours (differing in one person's sensitive attribute), with equal charges.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

from fairlearn_dp._utils._withheld import call_total_on_private_rows
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    ExponentialMechanismFairClassifier,
    JagielskiExponentiatedGradient,
)
from fairlearn_dp.reductions._hypotheses import hypothesis_predictions

LIMIT = 7000.0
N = 200
ROW = 5                                 # the row that differs between the neighbours
WEIGHTS = "logisticregression__sample_weight"
SOLVER_ATOL = 1e-9                      # same released values, same seed: only floating-point order differs


def _quiet(fit):
    """Run ``fit()`` with warnings ignored (the diagnostics' warnings depend on released values only)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit()


def _raising_scale(X):
    """Scale to [0, 1]; raise (quoting the value) on a value above LIMIT, like a user's range check."""
    X = np.asarray(X, dtype=float)
    if np.any(X > LIMIT):
        raise ValueError(f"value {X.max()} above {LIMIT}")
    return X / LIMIT


def _total_scale(X):
    """``_raising_scale`` with the documented default for the rows it raises on: the zero feature row."""
    X = np.asarray(X, dtype=float)
    return np.where(np.any(X > LIMIT, axis=1, keepdims=True), 0.0, X / LIMIT)


def _raw_data(seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x0": rng.uniform(0, LIMIT, N), "x1": rng.uniform(0, LIMIT, N)})
    a = np.where(np.arange(N) % 2 == 0, "a", "b")
    y = ((X["x0"] + rng.normal(0, 1000, N)) > LIMIT / 2).astype(int).to_numpy()
    return X, y, a


def _with(X, column, value):
    X = X.copy()
    X.loc[ROW, column] = value
    return X


def _eg(estimator, accountant, **params):
    defaults = {"sample_weight_name": WEIGHTS, "privacy_unit": "record", "row_norm_bound": 1.5, "groups": ["a", "b"],
                    "epsilon": 1.0, "delta": 1e-6, "random_state": 0, "accountant": accountant}
    return DPExponentiatedGradient(estimator, DemographicParity(), **{**defaults, **params})


def _assert_same_fit(model, reference, X):
    np.testing.assert_allclose(model.lambda_, reference.lambda_, rtol=0, atol=SOLVER_ATOL)
    np.testing.assert_allclose(model._pmf_predict(X), reference._pmf_predict(X), rtol=0, atol=SOLVER_ATOL)


# ------------------------------------------------------------------------------------------ the helper itself
def test_the_helper_substitutes_exactly_the_failing_and_non_finite_rows():
    values = np.arange(40.0)

    def square(rows):
        rows = np.asarray(rows, dtype=float)
        if np.any(rows == 7) or np.any(rows == 31):
            raise ValueError("a row the code refuses")
        return np.where(rows == 12, np.nan, rows ** 2)

    out = call_total_on_private_rows(square, values, "square", default=-1.0)
    expected = values ** 2
    expected[[7, 12, 31]] = -1.0
    np.testing.assert_array_equal(out, expected)
    # Every row failing gives every row the default, when the output's shape is public.
    out = call_total_on_private_rows(lambda rows: 1 / 0, values, "f", default=2.0, row_shape=lambda: ())
    np.testing.assert_array_equal(out, np.full(40, 2.0))


# ------------------------------------------------------------------------------------------ DPExponentiatedGradient
def test_record_pipeline_function_transformer_raising_on_one_row():
    """The issue's example: a FunctionTransformer that raises above 7000 in a Pipeline, under "record"."""
    X, y, a = _raw_data()
    spends, models = [], []
    for value in (LIMIT - 1, LIMIT + 2000):
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: _eg(make_pipeline(FunctionTransformer(_raising_scale), LogisticRegression()),
                                         accountant).fit(_with(X, "x0", value), y, sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] == [(1.0, 1e-6)]
    reference = _quiet(lambda: _eg(make_pipeline(FunctionTransformer(_total_scale), LogisticRegression()),
                                   BudgetAccountant()).fit(_with(X, "x0", LIMIT + 2000), y, sensitive_features=a))
    _assert_same_fit(models[1], reference, X.iloc[:50])


def test_record_pipeline_declared_encoder_meets_an_undeclared_category():
    """A declared OneHotEncoder (handle_unknown="error") meets an undeclared category in one private row: its row
    gets the zero feature row, which is what handle_unknown="ignore" gives it."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"c": rng.choice(["u", "v", "w"], N)})
    a = np.where(np.arange(N) % 2 == 0, "a", "b")
    y = ((X["c"] == "u").to_numpy() ^ (rng.random(N) < 0.2)).astype(int)
    spends, models = [], []
    for value in ("v", "undeclared-secret"):
        accountant = BudgetAccountant()
        encoder = OneHotEncoder(categories=[["u", "v", "w"]])
        models.append(_quiet(lambda: _eg(make_pipeline(encoder, LogisticRegression()), accountant).fit(
            _with(X, "c", value), y, sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] == [(1.0, 1e-6)]
    ignoring = OneHotEncoder(categories=[["u", "v", "w"]], handle_unknown="ignore")
    reference = _quiet(lambda: _eg(make_pipeline(ignoring, LogisticRegression()), BudgetAccountant()).fit(
        _with(X, "c", "undeclared-secret"), y, sensitive_features=a))
    _assert_same_fit(models[1], reference, X.iloc[:50])


def _assert_attribute_neighbours_fail_alike(make_model, X, y, a):
    """Fit ``make_model(accountant)`` on the two neighbours that differ in one person's sensitive attribute (row
    ``ROW`` in group "a", then "b"): both raise the same ValueError, and both charge the same (nothing)."""
    errors, spends = [], []
    for group in ("a", "b"):
        neighbour = a.copy()
        neighbour[ROW] = group
        accountant = BudgetAccountant()
        model = make_model(accountant)
        with pytest.raises(ValueError) as error:
            _quiet(lambda: model.fit(X, y, sensitive_features=neighbour))
        errors.append((type(error.value), str(error.value)))
        spends.append(accountant.spent_budget)
    assert errors[0] == errors[1]
    assert spends[0] == spends[1]


def test_sensitive_attribute_unit_fails_publicly_and_identically():
    """X is public under "sensitive_attribute": the transformer's failure is the same on both neighbours (which
    differ in one person's sensitive attribute), raised as scikit-learn raises it, nothing charged on either."""
    X, y, a = _raw_data()
    X = _with(X, "x0", LIMIT + 2000)
    _assert_attribute_neighbours_fail_alike(
        lambda accountant: _eg(make_pipeline(FunctionTransformer(_raising_scale), LogisticRegression()), accountant,
                               privacy_unit="sensitive_attribute", row_norm_bound=None), X, y, a)


def _first_feature_positive(X):
    return (np.asarray(X, dtype=float)[:, 0] > 0).astype(int)


def _picky(X):
    """A user hypothesis that raises on a row beyond 2 and predicts 0.5 (not a label) on a row below -2."""
    X = np.asarray(X, dtype=float)
    if np.any(X[:, 0] > 2):
        raise ValueError(f"cannot classify {X[:, 0].max()}")
    return np.where(X[:, 0] < -2, 0.5, (X[:, 1] > 0).astype(float))


def _picky_total(X):
    """``_picky`` with the documented default 0 on the rows it raises on or gives no label for."""
    X = np.asarray(X, dtype=float)
    return np.where(np.abs(X[:, 0]) > 2, 0, (X[:, 1] > 0).astype(int))


def _synthetic(seed=21, n=600):
    rng = np.random.default_rng(seed)
    a = rng.choice(["a", "b"], size=n, p=[0.6, 0.4])
    X = rng.uniform(-1, 1, (n, 3))
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(2 * X[:, 0] - X[:, 1] + 0.8 * (a == "a"))))).astype(int)
    return X, y, a


@pytest.mark.parametrize("value", [5.0, -5.0])
def test_record_paper_mode_user_hypothesis_failing_on_one_row(value):
    X, y, a = _synthetic()
    spends, models = [], []
    for row_value in (0.5, value):
        X_pair = X.copy()
        X_pair[ROW, 0] = row_value
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: JagielskiExponentiatedGradient(
            DemographicParity(), privacy_unit="record", hypotheses=[_picky, _first_feature_positive],
            min_count=20, max_iter=5, epsilon=5.0, groups=["a", "b"], accountant=accountant,
            random_state=0).fit(X_pair, y, sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] and len(spends[0]) == 1
    reference = _quiet(lambda: JagielskiExponentiatedGradient(
        DemographicParity(), privacy_unit="record", hypotheses=[_picky_total, _first_feature_positive],
        min_count=20, max_iter=5, epsilon=5.0, groups=["a", "b"], accountant=BudgetAccountant(),
        random_state=0).fit(X_pair, y, sensitive_features=a))
    np.testing.assert_allclose(models[1].weights_, reference.weights_, rtol=0, atol=SOLVER_ATOL)
    np.testing.assert_allclose(models[1].lambda_, reference.lambda_, rtol=0, atol=SOLVER_ATOL)


def test_hypothesis_predictions_private_rows_get_the_default_zero():
    X = np.array([[0.0, 1.0], [5.0, 1.0], [-5.0, 1.0], [0.0, -1.0]])
    np.testing.assert_array_equal(hypothesis_predictions([_picky], X, private=True)[:, 0], [True, False, False, False])
    with pytest.raises(ValueError):
        hypothesis_predictions([_picky], X)                     # public X: the failure is raised


# ------------------------------------------------------------------------------------------ ExponentialMechanismFairClassifier
@pytest.mark.parametrize("value", [5.0, -5.0])
def test_exponential_mechanism_user_hypothesis_failing_on_one_row(value):
    X, y, a = _synthetic(n=2000)
    fits = []
    for hypotheses, row_value in (([_picky, _first_feature_positive], 0.5), ([_picky, _first_feature_positive], value),
                                  ([_picky_total, _first_feature_positive], value)):
        X_pair = X.copy()
        X_pair[ROW, 0] = row_value
        accountant = BudgetAccountant()
        model = _quiet(lambda: ExponentialMechanismFairClassifier(
            hypotheses, epsilon=2.0, groups=["a", "b"], accountant=accountant, random_state=0).fit(
            X_pair, y, sensitive_features=a))
        fits.append((accountant.spent_budget, model))
    assert fits[0][0] == fits[1][0] == fits[2][0]
    model, reference = fits[1][1], fits[2][1]
    assert model.hypothesis_index_ == reference.hypothesis_index_
    assert model.diagnostic_.keys() == reference.diagnostic_.keys()
    for key, released in model.diagnostic_.items():
        np.testing.assert_allclose(released, reference.diagnostic_[key], rtol=0, atol=1e-12)


# ------------------------------------------------------------------------------------------ post-processors
class _PrefitProbability(ClassifierMixin, BaseEstimator):
    """A prefit binary classifier: P(class 1) = x[column] / LIMIT. It raises above LIMIT and gives NaN on a negative
    value; with ``total`` set, it gives ``total`` there instead (the documented default of a failing row).
    """

    def __init__(self, column=0, total=None):
        self.column = column
        self.total = total

    def fit(self, X, y=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        x = np.asarray(X, dtype=float)[:, self.column]
        outside = (x < 0) | (x > LIMIT)
        if self.total is not None:
            p = np.where(outside, self.total, x / LIMIT)
        elif np.any(x > LIMIT):
            raise ValueError(f"probability at {x.max()} undefined")
        else:
            p = np.where(x < 0, np.nan, x / LIMIT)
        return np.column_stack([1 - p, p])


def _scorer():
    """The prefit scorer of the threshold optimizer's tests (column 0)."""
    return _PrefitProbability(0)


def _total_scorer():
    """``_scorer`` with the documented default (probability 0, the low end of the score range) where it fails."""
    return _PrefitProbability(0, total=0.0)


def _threshold(estimator, accountant, **params):
    defaults = {"constraints": "demographic_parity", "predict_method": "predict_proba", "prefit": True, "epsilon": 1.0,
                    "groups": ["a", "b"], "privacy_unit": "record",
                "options": ThresholdOptimizerOptions(n_score_bins=5), "random_state": 0, "accountant": accountant}
    return DPThresholdOptimizer(estimator=estimator, **{**defaults, **params})


@pytest.mark.parametrize("value", [LIMIT + 2000, -1.0])
def test_record_threshold_optimizer_prefit_model_failing_on_one_row(value):
    X, y, a = _raw_data()
    spends, models = [], []
    for row_value in (LIMIT - 1, value):
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: _threshold(_scorer().fit(None), accountant).fit(
            _with(X, "x0", row_value), y, sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] == [(1.0, 0.0)]
    reference = _quiet(lambda: _threshold(_total_scorer().fit(None), BudgetAccountant()).fit(
        _with(X, "x0", value), y, sensitive_features=a))
    np.testing.assert_allclose(models[1].noisy_table_, reference.noisy_table_, rtol=0, atol=1e-12)


def test_sensitive_attribute_threshold_optimizer_fails_identically_on_both_neighbours():
    X, y, a = _raw_data()
    X = _with(X, "x0", LIMIT + 2000)
    _assert_attribute_neighbours_fail_alike(
        lambda accountant: _threshold(_scorer().fit(None), accountant, privacy_unit="sensitive_attribute"), X, y, a)


class _Regressor(RegressorMixin, BaseEstimator):
    """A prefit regressor: x0 / LIMIT; raises above LIMIT, NaN on a negative value."""

    def fit(self, X, y=None):
        self.n_features_in_ = 2
        return self

    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        if np.any(x > LIMIT):
            raise ValueError(f"prediction of {x.max()} undefined")
        return np.where(x < 0, np.nan, x / LIMIT)


class _TotalRegressor(_Regressor):
    """``_Regressor`` with the documented default (the lower end of ``bounds``, 0) where it fails."""

    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        return np.where((x < 0) | (x > LIMIT), 0.0, x / LIMIT)


def _regression(estimator, accountant, **params):
    defaults = {"epsilon": 1.0, "bounds": (0, 1), "n_bins": 8, "alpha": 0.1, "groups": ["a", "b"], "prefit": True,
                    "random_state": 0, "accountant": accountant}
    return DPFairRegressionPostprocessor(estimator=estimator, **{**defaults, **params})


@pytest.mark.parametrize("declared_groups", [True, False])
@pytest.mark.parametrize("value", [LIMIT + 2000, -1.0])
def test_fair_regression_prefit_regressor_failing_on_one_row(value, declared_groups):
    X, y, a = _raw_data()
    groups = ["a", "b"] if declared_groups else None
    spends, models = [], []
    for row_value in (LIMIT - 1, value):
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: _regression(_Regressor().fit(None), accountant, groups=groups).fit(
            _with(X, "x0", row_value), sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] and len(spends[0]) == 1
    reference = _quiet(lambda: _regression(_TotalRegressor().fit(None), BudgetAccountant(), groups=groups).fit(
        _with(X, "x0", value), sensitive_features=a))
    np.testing.assert_allclose(models[1].noisy_joint_pmf_, reference.noisy_joint_pmf_, rtol=0, atol=1e-12)


def _group_guesser():
    """A prefit group estimator: P(group 1) = x1 / LIMIT (raises above LIMIT, NaN on a negative value)."""
    return _PrefitProbability(1)


def _total_group_guesser():
    """``_group_guesser`` with the documented default (the uniform posterior) where it fails."""
    return _PrefitProbability(1, total=0.5)


@pytest.mark.parametrize("value", [LIMIT + 2000, -1.0])
def test_fair_regression_attribute_blind_group_estimator_failing_on_one_row(value):
    X, _, a = _raw_data()
    X = X.assign(x0=X["x0"] / LIMIT)                  # estimator=None: column 0 holds the outputs, in bounds
    groups = (a == "b").astype(int)
    spends, models = [], []
    for row_value in (LIMIT - 1, value):
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: _regression(None, accountant, groups=[0, 1], n_bins=4, posterior_buckets=2,
                                                 group_estimator=_group_guesser().fit(None)).fit(
            _with(X, "x1", row_value), sensitive_features=groups)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] and len(spends[0]) == 1
    reference = _quiet(lambda: _regression(None, BudgetAccountant(), groups=[0, 1], n_bins=4, posterior_buckets=2,
                                           group_estimator=_total_group_guesser().fit(None)).fit(
        _with(X, "x1", value), sensitive_features=groups))
    np.testing.assert_allclose(models[1].noisy_joint_pmf_, reference.noisy_joint_pmf_, rtol=0, atol=1e-12)


def test_sensitive_attribute_paper_mode_user_hypothesis_fails_identically():
    """Algorithm 3 under "sensitive_attribute": X is public, the hypothesis's own error is raised on both
    neighbours (one person's sensitive attribute differs), with equal charges."""
    X, y, a = _synthetic()
    X[ROW, 0] = 5.0
    _assert_attribute_neighbours_fail_alike(
        lambda accountant: JagielskiExponentiatedGradient(DemographicParity(), hypotheses=[_picky, _never],
                                                   min_count=20, max_iter=5, epsilon=5.0, groups=["a", "b"],
                                                   accountant=accountant, random_state=0), X, y, a)


def _never(X):
    return np.zeros(len(X), dtype=int)


class _Labeller(ClassifierMixin, BaseEstimator):
    """A prefit 0/1 classifier: 1 above LIMIT / 2; predicts 0.5 (not a label) on a negative value."""

    def fit(self, X, y=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        return np.where(x < 0, 0.5, (x > LIMIT / 2).astype(float))


class _TotalLabeller(_Labeller):
    def predict(self, X):
        x = np.asarray(X, dtype=float)[:, 0]
        return np.where(x < 0, 0.0, (x > LIMIT / 2).astype(float))


def test_record_threshold_optimizer_binary_predictions_outside_the_labels_get_label_0():
    X, y, a = _raw_data()
    spends, models = [], []
    for estimator, row_value in ((_Labeller(), LIMIT - 1), (_Labeller(), -1.0), (_TotalLabeller(), -1.0)):
        accountant = BudgetAccountant()
        models.append(_quiet(lambda: _threshold(estimator.fit(None), accountant, predict_method="predict").fit(
            _with(X, "x0", row_value), y, sensitive_features=a)))
        spends.append(accountant.spent_budget)
    assert spends[0] == spends[1] == spends[2] == [(1.0, 0.0)]
    np.testing.assert_allclose(models[1].noisy_table_, models[2].noisy_table_, rtol=0, atol=1e-12)
