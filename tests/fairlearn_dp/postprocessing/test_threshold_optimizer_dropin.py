"""DPThresholdOptimizer as a drop-in for Fairlearn's ThresholdOptimizer: at epsilon=inf it *is* Fairlearn's class
(same fit, predictions, PMF, errors, plots); at finite epsilon inputs Fairlearn rejects get Fairlearn's messages."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.postprocessing import ThresholdOptimizer
from fairlearn.postprocessing._constants import BASE_ESTIMATOR_NONE_ERROR_MESSAGE
from fairlearn.postprocessing._threshold_optimizer import (
    NO_CONTROL_FEATURES,
    NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE,
)
from fairlearn.utils._input_validation import (
    _LABELS_NOT_0_1_ERROR_MESSAGE,
    _MESSAGE_SENSITIVE_FEATURES_NONE,
    _MESSAGE_X_SENSITIVE_ROWS,
    _MESSAGE_X_Y_ROWS,
    _MESSAGE_Y_NONE,
)
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import FairdpWarning, PrivacyWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy import PrivacySpend


class _RealValuedPredict(RegressorMixin, BaseEstimator):
    """Only ``predict``, returning real-valued scores (Fairlearn thresholds whatever ``predict`` returns)."""

    def fit(self, X, y=None):
        self.coef_ = np.array([0.7, -0.4, 0.2])
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.coef_


class _OneColumnScores(ClassifierMixin, BaseEstimator):
    def fit(self, X, y=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        s = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1 - s, s])


def _problem(m=400, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(["p", "q", "r"], m)
    X = rng.normal(size=(m, 3)) + (a == "q")[:, None] * 0.4
    y = (X[:, 0] + rng.normal(size=m) > 0.3).astype(int)
    return X, y, a


PARAMS = [
    {"constraints": "demographic_parity", "objective": "accuracy_score"},
    {"constraints": "equalized_odds", "objective": "balanced_accuracy_score", "flip": True},
    {"constraints": "true_positive_rate_parity", "objective": "selection_rate", "grid_size": 200},
    {"constraints": "false_positive_rate_parity", "objective": "accuracy_score", "tol": 0.05},
]


@pytest.mark.parametrize("params", PARAMS)
def test_infinite_epsilon_is_fairlearns_threshold_optimizer(params):
    X, y, a = _problem()
    X_new, _, a_new = _problem(m=150, seed=1)
    fairlearn = ThresholdOptimizer(estimator=_RealValuedPredict(), predict_method="predict", **params)
    acc = BudgetAccountant()
    ours = DPThresholdOptimizer(estimator=_RealValuedPredict(), predict_method="predict", epsilon=math.inf,
                                accountant=acc, **params)
    fairlearn.fit(X, y, sensitive_features=a)
    ours.fit(X, y, sensitive_features=a)
    np.testing.assert_array_equal(ours._pmf_predict(X_new, sensitive_features=a_new),
                                  fairlearn._pmf_predict(X_new, sensitive_features=a_new))
    np.testing.assert_array_equal(ours.predict(X_new, sensitive_features=a_new, random_state=5),
                                  fairlearn.predict(X_new, sensitive_features=a_new, random_state=5))
    assert ours.x_metric_ == fairlearn.x_metric_ and ours.y_metric_ == fairlearn.y_metric_
    assert ours._y_best == fairlearn._y_best
    assert ours.privacy_spent_ == PrivacySpend(math.inf) and acc.spent_budget == [(math.inf, 0.0)]
    assert not hasattr(ours, "mixing_rates_")


def test_isinstance_clone_and_refit_switches_paths():
    X, y, a = _problem()
    model = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf, accountant=BudgetAccountant(),
                                 groups=["p", "q", "r"], random_state=0)
    assert isinstance(model, ThresholdOptimizer)
    assert isinstance(clone(model), DPThresholdOptimizer) and clone(model).epsilon == math.inf
    model.fit(X, y, sensitive_features=a)
    fairlearns = model.interpolated_thresholder_
    model.set_params(epsilon=1.0, options=ThresholdOptimizerOptions(privacy_slack=False)).fit(
        X, y, sensitive_features=a)          # DP fit: Fairlearn's attributes go
    assert "interpolated_thresholder_" not in vars(model) and "_tradeoff_curve" not in vars(model)
    # ... and the DP fit's own introspection (from its release, built on first access) replaces them.
    assert hasattr(model, "mixing_rates_") and model.interpolated_thresholder_ is not fairlearns
    assert set(np.unique(model.predict(X, sensitive_features=a, random_state=0))) <= {0, 1}
    model.set_params(epsilon=math.inf).fit(X, y, sensitive_features=a)
    assert hasattr(model, "interpolated_thresholder_") and not hasattr(model, "mixing_rates_")


def test_fairlearn_signature_parameters_are_all_accepted():
    import inspect

    ours = inspect.signature(DPThresholdOptimizer.__init__).parameters
    for name, parameter in inspect.signature(ThresholdOptimizer.__init__).parameters.items():
        if name != "self":
            assert name in ours and ours[name].default == parameter.default, name


def test_plot_threshold_optimizer_on_an_infinite_epsilon_model():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from fairlearn.postprocessing import plot_threshold_optimizer

    X, y, a = _problem()
    for constraints in ("demographic_parity", "equalized_odds"):
        model = DPThresholdOptimizer(estimator=LogisticRegression(), constraints=constraints, epsilon=math.inf,
                                     accountant=BudgetAccountant()).fit(X, y, sensitive_features=a)
        plot_threshold_optimizer(model, show_plot=False)
        plt.close("all")


def test_no_privacy_warning_at_infinite_epsilon():
    X, y, a = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)         # ours; other libraries' deprecations may vary
        warnings.simplefilter("error", FairdpWarning)
        # No `groups`, privacy_unit="record" with a non-private estimator: both warn at finite epsilon only.
        model = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf, privacy_unit="record",
                                     accountant=BudgetAccountant()).fit(X, y, sensitive_features=a)
        model.predict(X, sensitive_features=a, random_state=0)
        DPThresholdOptimizer(epsilon=math.inf, predict_method="predict_proba", privacy_unit="record",
                             accountant=BudgetAccountant()).fit(
            LogisticRegression().fit(X, y).predict_proba(X)[:, 1:], y, sensitive_features=a)


def test_infinite_epsilon_still_validates_the_privacy_parameters():
    X, y, a = _problem()
    acc = BudgetAccountant()
    for bad in ({"options": ThresholdOptimizerOptions(beta=2.0)}, {"privacy_unit": "row"},
                {"options": ThresholdOptimizerOptions(n_score_bins=0)}, {"delta": 1.5}):
        with pytest.raises(ValueError):
            DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf, accountant=acc,
                                 **bad).fit(X, y, sensitive_features=a)
    assert acc.spent_budget == []


def _finite(**kwargs):
    params = {"estimator": _OneColumnScores().fit(None), "prefit": True, "predict_method": "predict_proba", "epsilon": 1.0,
                  "groups": ["p", "q", "r"], "random_state": 0}
    params.update(kwargs)
    return DPThresholdOptimizer(**params)


@pytest.mark.parametrize("case", ["y_none", "y_empty", "labels", "x_y_rows", "sf_none", "sf_rows", "control",
                                  "constraints", "objective_simple", "objective_eo", "estimator_none"])
def test_finite_epsilon_bad_inputs_give_fairlearns_messages(case):
    rng = np.random.default_rng(0)
    X = rng.random((200, 1))
    y = rng.integers(0, 2, 200)
    a = rng.choice(["p", "q", "r"], 200)
    kwargs, fit_kwargs, data = {}, {}, {"X": X, "y": y, "sensitive_features": a}
    if case == "y_none":
        data["y"], match = None, re.escape(_MESSAGE_Y_NONE)
    elif case == "y_empty":
        data["y"], match = [], re.escape(_MESSAGE_Y_NONE)
    elif case == "labels":
        data["y"], match = np.r_[2, y[1:]], _LABELS_NOT_0_1_ERROR_MESSAGE
    elif case == "x_y_rows":
        data["y"], match = y[:-1], _MESSAGE_X_Y_ROWS
    elif case == "sf_none":
        data["sensitive_features"], match = None, re.escape(_MESSAGE_SENSITIVE_FEATURES_NONE)
    elif case == "sf_rows":
        data["sensitive_features"], match = a[:-1], _MESSAGE_X_SENSITIVE_ROWS
    elif case == "control":
        fit_kwargs["control_features"], match = a, NO_CONTROL_FEATURES
    elif case == "constraints":
        kwargs["constraints"], match = "nope", NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE
    elif case == "objective_simple":
        kwargs["objective"] = "f1"
        match = re.escape(NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE.format("demographic_parity"))
    elif case == "objective_eo":
        kwargs.update(constraints="equalized_odds", objective="selection_rate")
        match = re.escape(NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE)
    else:                                       # a feature matrix and no estimator
        kwargs["estimator"], data["X"] = None, rng.random((200, 3))
        match = re.escape(BASE_ESTIMATOR_NONE_ERROR_MESSAGE)
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match=match) as info:
        _finite(accountant=acc, **kwargs).fit(data["X"], data["y"], sensitive_features=data["sensitive_features"],
                                              **fit_kwargs)
    assert not re.search(r"\d{2,}", str(info.value))           # no counts in the DP path's messages
    assert acc.spent_budget == []
    # Fairlearn's class rejects the same input with the same message.
    fl_kwargs = dict(kwargs.items())
    fl_estimator = fl_kwargs.pop("estimator", _OneColumnScores().fit(None))
    with pytest.raises(ValueError, match=match if case != "sf_rows" else "inconsistent numbers of samples"):
        ThresholdOptimizer(estimator=fl_estimator, prefit=True, predict_method="predict_proba", **fl_kwargs).fit(
            data["X"], data["y"], sensitive_features=data["sensitive_features"], **fit_kwargs)


def test_infinite_epsilon_is_fairlearn_on_the_same_bad_inputs():
    X, y, a = _problem()
    with pytest.raises(ValueError, match=re.escape(_MESSAGE_Y_NONE)):
        DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf).fit(X, None, sensitive_features=a)
    with pytest.raises(ValueError, match="Relaxed constraints are not supported for equalized odds"):
        DPThresholdOptimizer(estimator=LogisticRegression(), constraints="equalized_odds", tol=0.1,
                             epsilon=math.inf).fit(X, y, sensitive_features=a)


def test_predict_on_the_dp_path_never_uses_numpys_global_generator():
    X, y, a = _problem()
    scores = LogisticRegression().fit(X, y).predict_proba(X)[:, 1:]
    model = _finite(epsilon=2.0, options=ThresholdOptimizerOptions(privacy_slack=False), accountant=BudgetAccountant()).fit(
        scores, y, sensitive_features=pd.Series(a))
    p = model._pmf_predict(scores, sensitive_features=a)[:, 1]
    assert np.sum((p > 0.05) & (p < 0.95)) >= 20                  # enough randomised rows to tell draws apart
    draws = []
    for _ in range(2):
        np.random.seed(7)
        draws.append(model.predict(scores, sensitive_features=a))
    assert not np.array_equal(draws[0], draws[1])
