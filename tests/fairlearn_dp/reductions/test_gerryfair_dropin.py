"""DPGerryFairClassifier (engine / Fairlearn face): string sensitive values with a public declared list, generic
regressors at epsilon=inf, refusal of non-linear predictors at finite epsilon."""

import logging
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from sklearn import svm, tree
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import PrivacyWarning
from fairlearn_dp.reductions import DPGerryFairClassifier
from fairlearn_dp.reductions._gerryfair import RegressionCSCHypothesis

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the drop-in's
    # interface, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
]

logging.getLogger().setLevel(logging.ERROR)


def make_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, (n, 2)).astype(float)
    x = rng.uniform(0, 1, (n, 2))
    logit = 3 * (x[:, 0] - 0.5) + 1.5 * a[:, 0] * (x[:, 1] - 0.3) - 0.8 * a[:, 1] + 0.5 * a[:, 0]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    return np.column_stack([a, x]), y, a


def make(**kwargs):
    params = {"max_iters": 4, "epsilon": 1.0, "accountant": BudgetAccountant(), "random_state": 0, "feature_norm_bound": 4.0,
                  "sensitive_norm_bound": 2.0}
    params.update(kwargs)
    return DPGerryFairClassifier(**params)


def same_run(first, second):
    assert len(first.history_) == len(second.history_)
    for h1, h2 in zip(first.history_, second.history_, strict=False):
        np.testing.assert_allclose(h1["auditor_statistic"], h2["auditor_statistic"])
        np.testing.assert_allclose(h1["learner_statistic"], h2["learner_statistic"])
        assert h1["fairness_violation"] == pytest.approx(h2["fairness_violation"])


def test_string_sensitive_values_are_the_declared_indicator_coding():
    X, y, a = make_data()
    sex = np.where(a[:, 1] > 0, "F", "M")
    with warnings.catch_warnings():
        warnings.simplefilter("error")                            # declared: no PrivacyWarning
        warnings.filterwarnings("ignore", message=".*constant classifier")   # released values only
        strings = make(sensitive_values=["M", "F"]).fit(X, y, sensitive_features=sex)
    numeric = make().fit(X, y, sensitive_features=a[:, 1])         # the indicator 1[sex == "F"], as 0/1 codes
    same_run(strings, numeric)
    assert strings.sensitive_values_ == [["M", "F"]]
    np.testing.assert_array_equal(strings.predict_proba(X), numeric.predict_proba(X))
    # Several columns, mixed: a dict by column name; numeric columns stay as they are.
    frame = pd.DataFrame({"race": a[:, 0], "sex": sex})
    mixed = make(sensitive_values={"sex": ["M", "F"]}).fit(X, y, sensitive_features=frame)
    same_run(mixed, make().fit(X, y, sensitive_features=a))
    assert mixed.sensitive_values_ == [None, ["M", "F"]]
    # An object array: its first column is categorical too, and its values (None given) are read from the data.
    with pytest.warns(PrivacyWarning, match="`sensitive_values` was not given for a categorical column"):
        as_lists = make(sensitive_values=[None, ["M", "F"]]).fit(X, y, sensitive_features=frame.to_numpy(dtype=object))
    same_run(as_lists, mixed)


def test_other_hashable_values_and_more_than_two_values():
    X, y, a = make_data()
    values = [("north", 1), ("south", 2), ("east", 3)]
    series = pd.Series([values[int(k)] for k in a[:, 0] + a[:, 1]], dtype=object)
    model = make(sensitive_values=values).fit(X, y, sensitive_features=series)
    assert model.history_[0]["auditor_statistic"].shape == (3,)          # two indicators + intercept
    assert set(np.unique(model.predict(X, random_state=0))) <= {0, 1}


def test_undeclared_string_values_warn_only_at_finite_epsilon():
    X, y, a = make_data(n=120)
    sex = np.where(a[:, 1] > 0, "F", "M")
    with pytest.warns(PrivacyWarning, match="sensitive_values"):
        model = make().fit(X, y, sensitive_features=sex)
    assert model.sensitive_values_ == [["F", "M"]]                       # sorted values of the data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make(epsilon=np.inf).fit(X, y, sensitive_features=sex)


def test_values_outside_the_declared_list_and_bad_declarations():
    X, y, a = make_data(n=120)
    sex = np.where(a[:, 1] > 0, "F", "M")
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match="not one of the 2 groups"):
        make(accountant=acc, sensitive_values=["F", "X"]).fit(X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="duplicates"):
        make(accountant=acc, sensitive_values=["F", "F"]).fit(X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="sensitive_values"):
        make(accountant=acc, sensitive_values="FM").fit(X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="sensitive_values names a column"):
        make(accountant=acc, sensitive_values={"gender": ["F", "M"]}).fit(
            X, y, sensitive_features=pd.DataFrame({"sex": sex}))
    with pytest.raises(ValueError, match="missing"):
        make(accountant=acc, sensitive_values=["F", "M"]).fit(X, y, sensitive_features=pd.Series([None] + list(
            sex[1:])))
    assert acc.spent_budget == []
    # Declarations are public: refused before the budget check (an exhausted accountant does not answer first) and
    # named as sensitive_values.
    exhausted = BudgetAccountant(epsilon=0.5)
    for declared in (["F", "F"], [], [["F", "M"], []], {"sex": []}, [[["F"]], None]):
        with pytest.raises(ValueError, match="sensitive_values"):
            make(accountant=exhausted, sensitive_values=declared).fit(X, y, sensitive_features=sex)
    # A declared value absent from the data is inside the domain: no error, no warning.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*constant classifier")   # released values only
        make(sensitive_values=["F", "M", "X"]).fit(X, y, sensitive_features=sex)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("predictor", [svm.LinearSVR(random_state=0), tree.DecisionTreeRegressor(max_depth=3),
                                       KernelRidge(alpha=1.0, gamma=1.0, kernel="rbf")])
def test_generic_regressors_run_at_infinite_epsilon(predictor):
    X, y, a = make_data(n=150)
    model = make(epsilon=np.inf, predictor=predictor, sensitive_values=["M", "F"])
    model.fit(X * 10, y, sensitive_features=np.where(a[:, 1] > 0, "F", "M"))      # unscaled features are fine
    assert model.n_iter_ == 3 and all(isinstance(h, RegressionCSCHypothesis) for h in model.predictors_)
    assert np.isinf(model.feature_norm_bound_) and np.all(np.isfinite(model.errors_))
    proba = model.predict_proba(X * 10)
    assert proba.shape == (150, 2) and np.all((proba >= 0) & (proba <= 1))
    assert model.predictor.__dict__.get("n_features_in_") is None                  # the predictor is cloned


@pytest.mark.parametrize("predictor", [svm.LinearSVR(), tree.DecisionTreeRegressor(max_depth=3),
                                       KernelRidge(kernel="rbf")])
def test_non_linear_predictor_at_finite_epsilon_is_refused_before_the_data(predictor):
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match="predictor=.*no differentially private best response"):
        make(predictor=predictor, accountant=acc).fit(None, None, sensitive_features=None)   # data never read
    assert acc.spent_budget == []


def test_classifier_as_predictor_is_refused_at_infinite_epsilon():
    X, y, a = make_data(n=50)
    with pytest.raises(ValueError, match="predictor must be a scikit-learn regressor"):
        make(epsilon=np.inf, predictor=LogisticRegression()).fit(X, y, sensitive_features=a)


def test_one_records_value_does_not_switch_the_sensitive_encoding():
    """Neighbours ["1", "0", ...] and ["x", "0", ...]: the column's type (strings), not its values, makes it
    categorical on both neighbours, so both emit the same PrivacyWarning (before, only the neighbour holding "x" did,
    and only it was encoded with indicators). The value list itself is read from the data, which is what the warning
    says; with sensitive_values= declared nothing depends on the data."""
    import warnings as _warnings

    from fairlearn_dp.exceptions import PrivacyWarning
    from fairlearn_dp.reductions._gerryfair import _encode_sensitive

    a = np.array(["1", "0"] * 20, dtype=object)
    a_prime = a.copy()
    a_prime[0] = "x"
    for column in (a, a_prime):
        with _warnings.catch_warnings(record=True) as caught:
            _warnings.simplefilter("always")
            _encode_sensitive(column, column.size, None, estimator_name="E", private=True)
        assert any(issubclass(w.category, PrivacyWarning) for w in caught)
