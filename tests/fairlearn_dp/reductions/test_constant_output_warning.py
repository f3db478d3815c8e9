"""Issue 36, item 5: a kept model that predicts one label on (almost) every row warns (``warn_if_constant_output``).

The private choice against the fair constants may keep a fitted model that is itself (nearly) constant: a tie
between it and the constant it equals is drawn at random (exponential mechanism), and under error-rate parity the
only fair constant is the coin, which a model predicting the majority label beats. Each case below is seeded so that
the fitted model is kept and predicts 0 on every training row (labels Bernoulli(0.05) independent of the features);
the warning must come from released or public values only: the public predictions under the attribute unit, the
released per-round sums (statistics game, record unit) or the released plays over the public feature domain.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from fairlearn.reductions import DemographicParity, ErrorRateParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp._utils._fit_support import (
    CONSTANT_OUTPUT_RATE,
    CONSTANT_OUTPUT_Z,
    linear_span,
    warn_if_constant_output,
)
from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.privacy._selection import ConstantChoice, no_choice
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    DPGerryFairClassifier,
    DPGroupBudgetClassifier,
    JagielskiExponentiatedGradient,
)
from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

CONSTANT_OUTPUT = "predicts 0 on (almost) every row"
CHOSEN = "no more accurate than a constant classifier"
# Hypothesis classes of constants: 1[x . 0 >= 1] = 0 and 1[x . 0 >= 0] = 1 everywhere.
CONSTANTS = [LinearThresholdClassifier(np.zeros(3), 1.0), LinearThresholdClassifier(np.zeros(3), 0.0)]
ZEROS = [LinearThresholdClassifier(np.zeros(3), 1.0), LinearThresholdClassifier(np.zeros(3), 2.0)]


def _data(seed=0, n=400, base=0.05, signal=False):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (X[:, 0] > 0).astype(int) if signal else (rng.random(n) < base).astype(int)
    return X, y, rng.choice(["a", "b"], size=n)


def _messages(model, X, y, sensitive):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=sensitive)
    return [str(w.message) for w in caught if issubclass(w.category, UtilityWarning)]


def _eg(seed=0, **params):
    kwargs = {"max_iter": 10, "constraints": DemographicParity(difference_bound=0.05), "epsilon": 1.0,
              "groups": ["a", "b"], "random_state": seed, **params}
    if kwargs.pop("algorithm3", False):          # Algorithm 3 (it has no estimator)
        kwargs.pop("estimator")
        return JagielskiExponentiatedGradient(**kwargs)
    return DPExponentiatedGradient(**kwargs)


ERP = ErrorRateParity(difference_bound=0.05)
# (name, model, fit-data transform): every case keeps a fitted model that predicts 0 on every training row.
CASES = {
    # Attribute unit: the exact choice keeps a model that beats the fair coin; its predictions on the public X say 0.
    "eg, estimator, attribute": lambda: _eg(estimator=LogisticRegression(), constraints=ERP),
    "eg, least squares, attribute": lambda: _eg(estimator=None, constraints=ERP),
    "eg, paper, attribute": lambda: _eg(estimator=None, algorithm3=True, oracle="exponential", hypotheses=ZEROS,
                                        max_iter=3, constraints=ERP),
    # Record unit: the released per-round sums (statistics game); the released plays over the domain (paper).
    "eg, statistics, record": lambda: _eg(seed=4, estimator=None, privacy_unit="record", row_norm_bound=2.0),
    "eg, paper, record": lambda: _eg(seed=2, estimator=None, algorithm3=True,
                                     oracle="exponential", hypotheses=CONSTANTS,
                                     privacy_unit="record", min_count=10, max_iter=3),
    "group budget": lambda: DPGroupBudgetClassifier(epsilon=1.0, groups=["a", "b"], budget_allocation="uniform",
                                                    random_state=0),
    # A feature ball far smaller than the intercepts the noisy Learner plays: every play is 0 on the whole ball.
    "gerryfair": lambda: DPGerryFairClassifier(epsilon=5.0, max_iters=10, feature_norm_bound=1e-3, random_state=4),
}


def _fit_case(name, model, signal=False):
    X, y, a = _data(1 if signal else 0, signal=signal)
    if isinstance(model, DPGerryFairClassifier):
        return _messages(model, X * (1e-3 / 2 if not signal else 1.0), y, (a == "a").astype(float)[:, None])
    return _messages(model, X, y, a)


@pytest.mark.parametrize("name", list(CASES))
def test_a_kept_constant_model_warns_once(name):
    model = CASES[name]()
    messages = _fit_case(name, model)
    assert model.constant_choice_.chosen == "fitted"
    constant_output = [m for m in messages if CONSTANT_OUTPUT in m]
    assert len(constant_output) == 1, messages
    assert not any(CHOSEN in m for m in messages)
    X, _, _ = _data(0)
    if isinstance(model, DPGerryFairClassifier):
        X = X * 1e-3 / 2
    if isinstance(model, DPGroupBudgetClassifier):
        positive = model.predict(X)
    elif isinstance(model, DPGerryFairClassifier):
        positive = model.predict_proba(X)[:, 1]
    else:
        positive = model._pmf_predict(X)[:, 1]
    # The warning is true on the training rows: exactly 0, or (the record-unit statistics game, whose released rate
    # is noisy) 8 of 400 rows, within the 2 noise sd the released rate is allowed (bound: 10 of 400).
    assert np.mean(positive) <= (0.025 if name == "eg, statistics, record" else 0.0)


STRONG = {
    "eg, estimator, attribute": lambda: _eg(estimator=LogisticRegression()),
    "eg, least squares, attribute": lambda: _eg(estimator=None),
    "eg, statistics, record": lambda: _eg(estimator=None, privacy_unit="record", row_norm_bound=2.0),
    "eg, paper, record": lambda: _eg(estimator=None, algorithm3=True, oracle="regression", privacy_unit="record",
                                     max_iter=3, min_count=40),
    "group budget": lambda: DPGroupBudgetClassifier(epsilon=1.0, groups=["a", "b"], budget_allocation="uniform",
                                                    random_state=0),
    "gerryfair": lambda: DPGerryFairClassifier(epsilon=5.0, max_iters=10, random_state=0),
}


@pytest.mark.parametrize("name", list(STRONG))
def test_a_strong_signal_fit_does_not_warn(name):
    model = STRONG[name]()
    messages = _fit_case(name, model, signal=True)
    assert not any("on (almost) every row" in m for m in messages), messages


def test_no_second_warning_when_a_constant_was_chosen():
    model = _eg(seed=1, estimator=None, privacy_unit="record", row_norm_bound=2.0)
    messages = _fit_case("record", model)
    assert model.constant_choice_.is_constant
    assert sum(CHOSEN in m for m in messages) == 1
    assert not any("on (almost) every row" in m for m in messages)


def _warned(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_if_constant_output("Owner", *args, source="test", hint="More data", **kwargs)
    return [str(w.message) for w in caught]


def test_the_helper_thresholds_are_public_and_stated():
    assert _warned(0.0) and "predicts 0" in _warned(0.0)[0]
    assert "predicts 1" in _warned(1.0)[0]
    assert _warned(CONSTANT_OUTPUT_RATE) and not _warned(2 * CONSTANT_OUTPUT_RATE)
    sd = 0.01                                                         # a released rate: z sd more margin
    assert _warned(CONSTANT_OUTPUT_RATE + CONSTANT_OUTPUT_Z * sd * 0.99, noise_sd=sd)
    assert not _warned(CONSTANT_OUTPUT_RATE + CONSTANT_OUTPUT_Z * sd * 1.01, noise_sd=sd)
    assert not _warned(0.0, noise_sd=0.3)                             # the noise cannot tell: no claim
    assert not _warned(0.0, 0.5)                                      # domain bounds that allow both labels
    assert "predicts no" in _warned(0.0, labels=("no", "yes"))[0]
    chosen = ConstantChoice("constant", 0.0, 0.1, 0.1, 0.05, ("fitted", "constant 0", "constant 1"))
    assert not _warned(0.0, choice=chosen) and _warned(0.0, choice=no_choice())


def test_linear_span_is_the_dual_norm_times_the_radius():
    coef = np.array([3.0, -4.0])
    assert linear_span(coef, 2.0, 2) == pytest.approx(10.0)           # L2 ball: 2 * 5
    assert linear_span(coef, 2.0, 1) == pytest.approx(14.0)           # box: 2 * (3 + 4)
    assert linear_span(coef, 2.0, np.inf) == pytest.approx(8.0)       # L1 ball: 2 * 4
    assert linear_span(np.zeros(2), np.inf, 2) == 0.0                 # zero weights: constant on any domain


def test_the_aif360_face_warns_once(three_feature_dataset):
    from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction

    X, y, a = _data(0)
    data = three_feature_dataset(X, y, a)
    model = DPExponentiatedGradientReduction(LogisticRegression(), "ErrorRateParity", difference_bound=0.05,
                                             max_iter=10, seed=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(data)
    assert model.constant_choice_.chosen == "fitted"
    assert sum(CONSTANT_OUTPUT in str(w.message) for w in caught) == 1
