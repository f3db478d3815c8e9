"""Every warning fairdp issues outside post-processing (issue 35): in its fairdp category, through
``fairlearn_dp.exceptions.warn``, and pointing at the user's line, for a direct call, through a scikit-learn
``Pipeline`` and through an AIF360 ``Transformer.fit``. The docs' table of warnings (docs/user_guide/warnings.rst)
lists the same sites."""

import ast
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import selection_rate
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from fairlearn_dp.audit import FitFailed, audit
from fairlearn_dp.exceptions import FairdpWarning, FairnessWarning, PrivacyWarning, UtilityWarning
from fairlearn_dp.metrics import DPMetricFrame, MetricFrameOptions, dp_demographic_parity_difference
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    DPGerryFairClassifier,
    DPGroupBudgetClassifier,
    DPGroupBudgetRegressor,
    ExponentialMechanismFairClassifier,
    JagielskiExponentiatedGradient,
)
from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

ROOT = Path(__file__).resolve().parents[1]


def _synthetic(seed, n=800):
    rng = np.random.default_rng(seed)
    a = rng.choice(["a", "b"], size=n, p=[0.6, 0.4])
    X = rng.uniform(-1, 1, (n, 3)) + 0.5 * (a == "a")[:, None]
    logits = 2 * X[:, 0] - X[:, 1] + 0.8 * (a == "a")
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logits))).astype(int)
    return X, y, a


def _eg(**kwargs):
    params = {"epsilon": 1.0, "delta": 1e-5, "groups": ["a", "b"], "random_state": 0, "accountant": BudgetAccountant()}
    params.update(kwargs)
    estimator = params.pop("estimator", LogisticRegression())
    return DPExponentiatedGradient(estimator, DemographicParity(difference_bound=0.01), **params)


def _algorithm3(**kwargs):
    params = {"epsilon": 1.0, "delta": 1e-5, "groups": ["a", "b"], "random_state": 0, "accountant": BudgetAccountant(),
                  "oracle": "regression", "max_iter": 3}
    params.update(kwargs)
    return JagielskiExponentiatedGradient(DemographicParity(difference_bound=0.01), **params)


def _em_data():
    """Group 1 has no positive example: the released group size is floored, the guarantee is vacuous."""
    rng = np.random.default_rng(0)
    a = np.repeat([0, 1], 200)
    y = np.where(a == 0, rng.integers(0, 2, 400), 0)
    return rng.uniform(-1, 1, (400, 1)), y, a


def _em(**kwargs):
    hypotheses = [LinearThresholdClassifier([0.0], 1.0), LinearThresholdClassifier([1.0], 1.5),
                  LinearThresholdClassifier([1.0], 0.5), LinearThresholdClassifier([0.0], 0.0)]
    params = {"epsilon": 2.0, "diagnostic_share": 0.0, "groups": [0, 1], "accountant": BudgetAccountant(), "random_state": 0}
    return ExponentialMechanismFairClassifier(hypotheses, **{**params, **kwargs})


def _gerryfair_data(n=300, seed=1):
    """``_synthetic``'s rows with two numeric sensitive columns (the group and a coin) in front: GerryFair's input."""
    X, y, a = _synthetic(seed, n)
    coin = np.random.default_rng(seed + 100).integers(0, 2, n).astype(float)
    sensitive = np.column_stack([(a == "a").astype(float), coin])
    return np.column_stack([sensitive, X]), y.astype(float), sensitive


def _gerryfair(**kwargs):
    params = {"max_iters": 2, "epsilon": 1.0, "accountant": BudgetAccountant(), "random_state": 0, "feature_norm_bound": 4.0,
                  "sensitive_norm_bound": 2.0}
    return DPGerryFairClassifier(**{**params, **kwargs})


def _frame(**kwargs):
    return DPMetricFrame(metrics=selection_rate, y_true=[0, 1, 1, 0], y_pred=[1, 1, 0, 0],
                         sensitive_features=["a", "a", "b", "b"], epsilon=1.0, accountant=BudgetAccountant(),
                         random_state=0, **kwargs)


def _fallback_fit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2)) * 10 + 50.0          # far outside data_bound=1: clipped to one corner
    return DPGroupBudgetRegressor(rho=1.0, groups=[0, 1, 2], accountant=BudgetAccountant(), random_state=0).fit(
        X, rng.normal(size=300) * 0.1, sensitive_features=np.repeat([0, 1, 2], 100))


def _clipped_predict():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (600, 2))
    y = X @ [0.5, -0.3] + 0.05 * rng.normal(size=600)
    model = DPGroupBudgetRegressor(rho=5.0, groups=[0, 1], accountant=BudgetAccountant(), random_state=0).fit(
        X, y, sensitive_features=np.repeat([0, 1], 300))
    return model.predict(5 * X)


def _failing_audit():
    def factory(seed):
        return DPGroupBudgetRegressor(rho=1.0, groups=[0, 1], random_state=seed, accountant=BudgetAccountant())

    broken = {"X": np.zeros((4, 2)), "y": np.zeros(3), "sensitive_features": np.array([0, 0, 1, 1])}   # length mismatch
    return audit(factory, broken, broken, event=FitFailed(), n_runs=3, declared_epsilon=1.0, random_state=0,
                 fit_failures="output")


def _no_signal(n=400, seed=0):
    """Labels Bernoulli(0.3) independent of the features and of the two groups."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, 3)), (rng.random(n) < 0.3).astype(int), rng.integers(0, 2, n)


def _rare_labels(n=400, seed=0):
    """Labels Bernoulli(0.05) independent of the features: a kept fit predicts 0 for everyone."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (rng.random(n) < 0.05).astype(int)
    return X, y, rng.choice(["a", "b"], size=n)


def _blind_features():
    rng = np.random.default_rng(13)
    a = rng.choice(["a", "b"], size=2000)
    return np.column_stack([np.ones(2000), np.zeros(2000)]), rng.integers(0, 2, 2000), a


#: (category, message start, the call): one case per warning site in scope.
SITES = {
    "groups read from the data": (
        PrivacyWarning, "JagielskiExponentiatedGradient: `groups` was not given",
        lambda: _algorithm3(groups=None, min_count=5).fit(
            *_synthetic(1)[:2], sensitive_features=_synthetic(1)[2])),
    "levels read from the data": (PrivacyWarning, "DPMetricFrame: `groups` was not given", lambda: _frame()),
    "sensitive values read from the data": (
        PrivacyWarning, "DPGerryFairClassifier: `sensitive_values` was not given",
        lambda: _gerryfair().fit(_gerryfair_data(120)[0], _gerryfair_data(120)[1],
                                 sensitive_features=np.where(_gerryfair_data(120)[2][:, 1] > 0, "F", "M"))),
    "a precision asked for and missed": (
        UtilityWarning, "DPMetricFrame: at this epsilon the release noise alone",
        lambda: _frame(groups=["a", "b"], options=MetricFrameOptions(max_noise_error=0.02))),
    "an aggregate over unreadable groups": (
        UtilityWarning, "dp_demographic_parity_difference: at this epsilon the release noise alone",
        lambda: dp_demographic_parity_difference([0, 1, 1, 0], [1, 1, 0, 0], sensitive_features=["a", "a", "b", "b"],
                                                 epsilon=1.0, groups=["a", "b"], accountant=BudgetAccountant(),
                                                 random_state=0, options=MetricFrameOptions(max_noise_error=0.02))),
    "an aggregate over too few readable groups": (
        UtilityWarning, "dp_demographic_parity_difference: fewer than 2 groups are readable",
        lambda: dp_demographic_parity_difference([0, 1, 1, 0], [1, 1, 0, 0], sensitive_features=["a", "a", "b", "b"],
                                                 epsilon=1.0, groups=["a", "b"], accountant=BudgetAccountant(),
                                                 random_state=0, exclude_unreadable=True)),
    "every audited fit failed": (UtilityWarning, "Every fit failed on both datasets", _failing_audit),
    "the estimator not used": (
        UtilityWarning, "privacy_unit='record': the estimator is never fitted",
        lambda: _eg(privacy_unit="record", max_iter=5).fit(*_synthetic(8)[:2], sensitive_features=_synthetic(8)[2])),
    "a group's constraint not enforced": (
        FairnessWarning, "DPExponentiatedGradient: at this epsilon the features cannot tell",
        lambda: _eg(max_iter=5).fit(*_blind_features()[:2], sensitive_features=_blind_features()[2])),
    "a group's constraint loosened": (
        FairnessWarning, "DPExponentiatedGradient: at this epsilon the released statistics of group(s)",
        lambda: _eg(max_iter=12, run_linprog_step=True, privacy_unit="record", row_norm_bound=3.0, epsilon=1.2).fit(
            *_synthetic(3)[:2], sensitive_features=_synthetic(3)[2])),
    "a constant chosen (statistics game)": (
        UtilityWarning, "DPExponentiatedGradient: the fitted model was no more accurate than a constant",
        lambda: _eg(epsilon=0.05, privacy_unit="record", estimator=None, max_iter=5).fit(
            *_synthetic(7, 120)[:2], sensitive_features=_synthetic(7, 120)[2])),
    "a constant chosen (Algorithm 3)": (
        UtilityWarning, "JagielskiExponentiatedGradient: the fitted model was no more accurate than a constant",
        lambda: _algorithm3(epsilon=0.05).fit(
            *_synthetic(14, 400)[:2], sensitive_features=_synthetic(14, 400)[2])),
    "a constant chosen (Algorithm 3, record)": (
        UtilityWarning, "JagielskiExponentiatedGradient: the fitted model was no more accurate than a constant",
        lambda: _algorithm3(privacy_unit="record", min_count=50, feature_bound=1.5).fit(
            *_synthetic(21, 400)[:2], sensitive_features=_synthetic(21, 400)[2])),
    "a loose row-norm bound": (
        UtilityWarning, "DPExponentiatedGradient: privacy_unit='record' needs a public bound",
        lambda: _eg(privacy_unit="record", estimator=None, max_iter=2).fit(
            *_synthetic(5)[:2], sensitive_features=_synthetic(5)[2])),
    "a vacuous exponential mechanism": (
        UtilityWarning, "The exponential mechanism cannot be relied on",
        lambda: _em().fit(*_em_data()[:2], sensitive_features=_em_data()[2])),
    "a constant selection": (
        UtilityWarning, "The selected hypothesis (index 0) is a constant classifier",
        lambda: _em(random_state=1).fit(*_em_data()[:2], sensitive_features=_em_data()[2])),
    "a degenerate selection (diagnostic)": (
        UtilityWarning, "The selection looks degenerate on the fitting data",
        lambda: _em(diagnostic_share=0.5).fit(*_em_data()[:2], sensitive_features=_em_data()[2])),
    "no better than a constant (GerryFair)": (
        UtilityWarning, "DPGerryFairClassifier: the private fit is no better than a constant",
        lambda: _gerryfair(epsilon=0.05, max_iters=5).fit(_gerryfair_data()[0], _gerryfair_data()[1],
                                                          sensitive_features=_gerryfair_data()[2])),
    "the constant returned (exponential mechanism)": (
        UtilityWarning, "ExponentialMechanismFairClassifier: the fitted model was no more accurate than a constant",
        lambda: _em().fit(*_em_data()[:2], sensitive_features=_em_data()[2])),
    "the constant returned (GerryFair)": (
        UtilityWarning, "DPGerryFairClassifier: the fitted model was no more accurate than a constant",
        lambda: _gerryfair(epsilon=0.05, max_iters=5).fit(_gerryfair_data()[0], _gerryfair_data()[1],
                                                          sensitive_features=_gerryfair_data()[2])),
    "the constant returned (group budget)": (
        UtilityWarning, "DPGroupBudgetClassifier: the fitted model was no more accurate than a constant",
        lambda: DPGroupBudgetClassifier(epsilon=1.0, groups=[0, 1], budget_allocation="uniform",
                                        accountant=BudgetAccountant(), random_state=1).fit(
            *_no_signal()[:2], sensitive_features=_no_signal()[2])),
    "a kept model that is constant (group budget)": (
        UtilityWarning, "DPGroupBudgetClassifier: the fitted model predicts 0 on (almost) every row",
        lambda: DPGroupBudgetClassifier(epsilon=1.0, groups=["a", "b"], budget_allocation="uniform",
                                        accountant=BudgetAccountant(), random_state=0).fit(
            *_rare_labels()[:2], sensitive_features=_rare_labels()[2])),
    "a kept model that is constant (statistics game, record)": (
        UtilityWarning, "DPExponentiatedGradient: the fitted model predicts 0 on (almost) every row",
        lambda: _eg(privacy_unit="record", estimator=None, row_norm_bound=2.0, max_iter=10, random_state=4).fit(
            *_rare_labels()[:2], sensitive_features=_rare_labels()[2])),
    "stage 1 fell back": (UtilityWarning, "DPGroupBudgetRegressor: stage 1 fell back", _fallback_fit),
    "predict clipped to data_bound": (UtilityWarning, "Some feature values exceed data_bound", _clipped_predict),
}


@pytest.mark.parametrize("site", list(SITES))
def test_every_warning_is_in_its_category_and_points_at_the_users_line(site):
    category, start, call = SITES[site]
    with pytest.warns(FairdpWarning) as record:
        call()                                             # the user's line
    matching = [w for w in record if str(w.message).startswith(start)]
    assert matching, [str(w.message)[:80] for w in record]
    assert all(w.category is category for w in matching)
    assert all(w.filename == __file__ for w in record), [(w.filename, str(w.message)[:60]) for w in record]


def test_warnings_through_a_pipeline_point_at_the_users_line():
    """scikit-learn's ``Pipeline.fit`` frames are skipped: one warning before the release (groups read from the data)
    and one after it (issued when the fit completes)."""
    X, y, a = _blind_features()
    pipeline = Pipeline([("scale", StandardScaler()), ("fair", _eg(groups=None, max_iter=5))])
    with pytest.warns(FairdpWarning) as record:
        pipeline.fit(X, y, fair__sensitive_features=a)
    categories = {w.category for w in record}
    assert {PrivacyWarning, FairnessWarning} <= categories
    assert all(w.filename == __file__ for w in record), [(w.filename, str(w.message)[:60]) for w in record]


def test_warnings_through_an_aif360_fit_point_at_the_users_line():
    """AIF360's ``Transformer`` wrappers (and the face's own frames) are skipped."""
    from aif360.datasets import BinaryLabelDataset

    from aif360_dp.algorithms.inprocessing import DPGerryFairClassifier as FaceGerryFair

    X, y, a = _gerryfair_data()
    frame = pd.DataFrame({"race": a[:, 0], "sex": a[:, 1], "x1": X[:, 2], "x2": X[:, 3], "label": y})
    data = BinaryLabelDataset(df=frame, label_names=["label"], protected_attribute_names=["race", "sex"],
                              favorable_label=1.0, unfavorable_label=0.0)
    face = FaceGerryFair(max_iters=5, epsilon=0.05, accountant=BudgetAccountant(), random_state=0)
    with pytest.warns(UtilityWarning) as record:
        face.fit(data)
    assert any("no better than a constant classifier by its released" in str(w.message) for w in record)
    assert all(w.filename == __file__ for w in record), [(w.filename, str(w.message)[:60]) for w in record]


def _calls_warnings_warn(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Attribute) and node.attr == "warn" and isinstance(node.value, ast.Name)
               and node.value.id == "warnings" for node in ast.walk(tree)) or any(
        isinstance(node, ast.ImportFrom) and node.module == "warnings" and any(n.name == "warn" for n in node.names)
        for node in ast.walk(tree))


def test_only_the_exceptions_module_calls_warnings_warn():
    """Every warning goes through ``fairlearn_dp.exceptions.warn`` (its category, the user's line); only it and the
    re-issue of the deferred warnings (``privacy/_post_release.py``) call ``warnings.warn``."""
    allowed = {"fairlearn_dp/exceptions.py", "fairlearn_dp/privacy/_post_release.py"}
    offenders = [str(path.relative_to(ROOT)) for package in ("fairlearn_dp", "aif360_dp", "adapters")
                 for path in sorted((ROOT / package).rglob("*.py"))
                 if str(path.relative_to(ROOT)) not in allowed and _calls_warnings_warn(path)]
    assert offenders == []


def test_an_error_estimate_below_the_constant_does_not_warn_however_wide_its_noise():
    """The width of an estimate is an attribute (``estimated_error_sd_``), not a warning: this fit's released error
    estimate is well below the constant classifier's while its two-sd interval reaches over it (it warned before)."""
    X, y, a = _synthetic(3)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "DPExponentiatedGradient: at this epsilon", FairnessWarning)  # not tested
        warnings.simplefilter("error", UtilityWarning)
        model = _eg(estimator=None, max_iter=12, run_linprog_step=True, privacy_unit="record",
                    row_norm_bound=3.0).fit(X, y, sensitive_features=a)
    constant = min(y.mean(), 1 - y.mean())               # the released positive rate is within 0.01 of it here
    assert model.estimated_error_ < constant - 0.05 < constant + 0.05 < model.estimated_error_ + 2 * \
        model.estimated_error_sd_
