"""DPThresholdOptimizer's final choice against the fair constants (issue 36, item 1): made by the mixing LP itself.

The LP's feasible set holds the constant rules (all 0, all 1: released rates exactly 0 or 1 in every group) and its
objective is evaluated on the released table, so the choice is post-processing (no extra budget); ``constant_choice_``
records it with the bound ``2 ||e||_1`` (``1 - beta`` quantile; Laplace: Gamma(K, 2 / (n epsilon)) over the K cells)
on how much the fitted rule's training error can exceed the better constant's.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from scipy import stats
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy._selection import no_choice


def base_predictions(n=400, signal=False, seed=0):
    """Binary base predictions (a one-column X), labels with base rate ~0.3 and two groups. No signal: the
    predictions are independent of the labels; signal: the labels with 10% of them flipped."""
    rng = np.random.default_rng(seed)
    a, y = rng.integers(0, 2, n), (rng.random(n) < 0.3).astype(int)
    predictions = np.where(rng.random(n) < 0.1, 1 - y, y) if signal else rng.integers(0, 2, n)
    return predictions[:, None].astype(float), y, a


def make(epsilon, seed=0, accountant=None, **kwargs):
    return DPThresholdOptimizer(estimator=None, epsilon=epsilon, groups=[0, 1], random_state=seed,
                                accountant=BudgetAccountant() if accountant is None else accountant, **kwargs)


def laplace_bound(n, epsilon, cells, beta=0.05):
    return 2 * stats.gamma.ppf(1 - beta, cells, scale=2 / (n * epsilon))


def test_no_signal_the_lp_returns_the_constant_zero_and_warns_without_extra_budget():
    X, y, a = base_predictions()
    accountant = BudgetAccountant()
    with pytest.warns(UtilityWarning, match="ignores the base classifier's output"):
        model = make(1.0, accountant=accountant).fit(X, y, sensitive_features=a)
    choice = model.constant_choice_
    assert choice.is_constant and choice.constant == 0.0 and choice.epsilon == 0.0
    assert accountant.spent_budget == [(1.0, 0.0)]                 # the one release, nothing for the choice
    np.testing.assert_array_equal(model.predict(X, sensitive_features=a, random_state=0), np.zeros(len(y)))
    cells = model.noisy_table_.size
    assert choice.error_bound == pytest.approx(laplace_bound(len(y), 1.0, cells), rel=1e-12)
    assert choice.beta == (model.options or ThresholdOptimizerOptions()).beta


def test_with_signal_the_fitted_rule_is_kept_within_the_stated_bound_of_the_constants():
    """The fitted rule's true training accuracy (its expected one, from _pmf_predict) is at least the better
    constant's minus error_bound, at every seed (the bound holds with probability >= 0.95 each)."""
    X, y, a = base_predictions(n=2000, signal=True)
    for seed in range(5):
        model = make(2.0, seed=seed).fit(X, y, sensitive_features=a)
        choice = model.constant_choice_
        assert choice.chosen == "fitted" and choice.constant is None
        positive = model._pmf_predict(X, sensitive_features=a)[:, 1]
        accuracy = np.mean(positive * y + (1 - positive) * (1 - y))
        assert accuracy >= max(y.mean(), 1 - y.mean()) - choice.error_bound
        assert accuracy > max(y.mean(), 1 - y.mean())              # here it beats them by far


def test_the_bound_is_gaussian_with_delta_and_undefined_for_another_objective():
    X, y, a = base_predictions(n=2000, signal=True)
    gaussian = make(2.0, delta=1e-6).fit(X, y, sensitive_features=a).constant_choice_
    assert 0 < gaussian.error_bound < 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        other = make(2.0, objective="balanced_accuracy_score").fit(X, y, sensitive_features=a).constant_choice_
    assert math.isnan(other.error_bound)


def test_infinite_epsilon_makes_no_choice():
    X, y, a = base_predictions(signal=True)
    assert make(math.inf).fit(X, y, sensitive_features=a).constant_choice_ == no_choice()
    fairlearn = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf, groups=[0, 1],
                                     accountant=BudgetAccountant(), predict_method="predict_proba")
    assert fairlearn.fit(X, y, sensitive_features=a).constant_choice_ == no_choice()
