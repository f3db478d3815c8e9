"""The final private choice against the fair constants (issue 36, item 1) in ExponentialMechanismFairClassifier,
DPGerryFairClassifier and DPGroupBudgetClassifier (``fairlearn_dp/privacy/_selection.py``).

On labels independent of the features (400 rows, base rate 0.3) no model beats predicting 0 for everyone on the
training rows, whose error is the share of positive labels; the private fits are noisier still. The choice is the
exponential mechanism on the training errors (sensitivity 1 count), so a fitted model whose error exceeds the
constant's by ``k`` rows is kept with probability below ``exp(-epsilon_c k / 2)``: at the seeds below the
constant 0 is returned. With strong signal and a large epsilon, the fitted model is kept. The draws are seeded
(bit-identical replays), the models' predictions are compared as 0/1 labels only.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.privacy._selection import SELECTION_SHARE, no_choice
from fairlearn_dp.reductions import (
    DPGerryFairClassifier,
    DPGroupBudgetClassifier,
    ExponentialMechanismFairClassifier,
    linear_threshold_hypotheses,
)

HYPOTHESES = linear_threshold_hypotheses(3, n_directions=16, n_thresholds=8, random_state=0)
CONSTANT_WARNING = "no more accurate than a constant classifier"


def no_signal(n=400, seed=0):
    """Features in [-1, 1]^3, two groups, labels Bernoulli(0.3) independent of both."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (n, 3)), (rng.random(n) < 0.3).astype(int), rng.integers(0, 2, n)


def strong_signal(n=2000, seed=0):
    """Labels a noisy threshold of the first feature (base rate ~0.5): every estimator beats the constants."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    return X, (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int), rng.integers(0, 2, n)


def make(name, epsilon, seed, accountant=None):
    accountant = BudgetAccountant() if accountant is None else accountant
    if name == "exponential_mechanism":
        return ExponentialMechanismFairClassifier(HYPOTHESES, epsilon=epsilon, groups=[0, 1], accountant=accountant,
                                                  random_state=seed)
    if name == "gerryfair":
        return DPGerryFairClassifier(epsilon=epsilon, max_iters=10, accountant=accountant, random_state=seed)
    # Uniform shares: stage 1's fallback (which leaves part of the budget unspent) is not what is tested here.
    return DPGroupBudgetClassifier(epsilon=epsilon, groups=[0, 1], budget_allocation="uniform", accountant=accountant,
                                   random_state=seed)


def fit(model, X, y, a):
    sensitive = a[:, None].astype(float) if isinstance(model, DPGerryFairClassifier) else a
    return model.fit(X, y, sensitive_features=sensitive)


# (estimator, epsilon, a seed at which the no-signal fit returns the constant 0)
NO_SIGNAL = [("exponential_mechanism", 1.0, 0), ("gerryfair", 1.0, 0), ("group_budget", 1.0, 1)]
NAMES = [name for name, _, _ in NO_SIGNAL]


@pytest.mark.parametrize("name, epsilon, seed", NO_SIGNAL)
def test_no_signal_returns_the_constant_and_warns_with_the_same_charge(name, epsilon, seed):
    X, y, a = no_signal()
    accountant = BudgetAccountant()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit(make(name, epsilon, seed, accountant), X, y, a)
    # Other UtilityWarnings describe the fitted model, kept for inspection; this one says the constant is returned.
    assert any(issubclass(w.category, UtilityWarning) and CONSTANT_WARNING in str(w.message) for w in caught)
    choice = model.constant_choice_
    assert choice.is_constant and choice.constant == 0.0
    assert choice.candidates == ("fitted", "constant 0", "constant 1")
    np.testing.assert_array_equal(model.predict(X), np.zeros(len(y), dtype=int))
    if hasattr(model, "predict_proba"):
        np.testing.assert_array_equal(model.predict_proba(X), np.tile([1.0, 0.0], (len(y), 1)))
    # One charge of the user's whole budget, as before the choice existed.
    assert len(accountant.spent_budget) == 1
    assert accountant.spent_budget[0] == model.privacy_spent_.as_tuple()
    assert model.privacy_spent_.epsilon == pytest.approx(epsilon, rel=1e-12)
    # The choice's share: 0.1 epsilon (pure DP), or 0.1 rho (epsilon_c^2 / 2 zCDP) for the zCDP estimator.
    if name == "group_budget":
        assert choice.epsilon == pytest.approx(math.sqrt(2 * SELECTION_SHARE * model.rho_spent_), rel=1e-12)
    else:
        assert choice.epsilon == pytest.approx(SELECTION_SHARE * epsilon, rel=1e-12)


@pytest.mark.parametrize("name, epsilon, seed", NO_SIGNAL)
def test_a_seeded_fit_and_its_choice_are_reproducible(name, epsilon, seed):
    X, y, a = no_signal()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        first, second = (fit(make(name, epsilon, seed), X, y, a) for _ in range(2))
    assert first.constant_choice_ == second.constant_choice_
    np.testing.assert_array_equal(first.predict(X), second.predict(X))


@pytest.mark.parametrize("name", NAMES)
def test_infinite_epsilon_makes_no_choice(name):
    X, y, a = no_signal()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        model = fit(make(name, math.inf, 0), X, y, a)
    assert model.constant_choice_ == no_choice()


@pytest.mark.parametrize("name, epsilon", [("exponential_mechanism", 8.0), ("gerryfair", 16.0),
                                           ("group_budget", 8.0)])
def test_with_strong_signal_the_fitted_model_is_kept(name, epsilon):
    X, y, a = strong_signal()
    for seed in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            model = fit(make(name, epsilon, seed), X, y, a)
        assert model.constant_choice_.chosen == "fitted"
        assert 0.0 < model.predict(X).mean() < 1.0


def test_gerryfair_reports_errors_and_violations_in_their_feasible_ranges():
    """A small epsilon on few rows: the raw released error and violation leave [0, 1] and [0, 1/4] in some rounds;
    the reported ones are clipped to them (post-processing), history_ keeps the raw values."""
    X, y, a = no_signal(n=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        model = fit(make("gerryfair", 0.05, 0), X, y, a)
    raw_errors = [record["error"] for record in model.history_]
    raw_violations = [record["fairness_violation"] for record in model.history_]
    assert min(raw_errors) < 0 or max(raw_errors) > 1 or max(raw_violations) > 0.25     # the test has power
    assert all(0.0 <= e <= 1.0 for e in model.errors_)
    assert all(0.0 <= v <= 0.25 for v in model.fairness_violations_)
    np.testing.assert_array_equal(model.errors_, np.clip(raw_errors, 0, 1))
    np.testing.assert_array_equal(model.fairness_violations_, np.clip(raw_violations, 0, 0.25))
