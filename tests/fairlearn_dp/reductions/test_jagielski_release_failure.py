"""JagielskiExponentiatedGradient charges its whole spend before any code runs on values derived from a release.

The Learner's plays are drawn from releases (the exponential mechanism over the user's hypotheses), and the
Auditor's multipliers are functions of the released violations, so a failure after the first release is
post-processing of releases: it costs what the fit costs, and a fit that raises from there on stays charged (before,
the charge came after the rounds and the choice against the constants, so such a fit could be repeated for free).
The user's hypotheses are evaluated on the rows once, before the first release: a failure there depends on the
public X only (``"sensitive_attribute"``; under ``"record"`` they are total) and costs nothing.
"""

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity

from fairlearn_dp.reductions import JagielskiExponentiatedGradient, linear_threshold_hypotheses

pytestmark = [
    # A few hundred synthetic rows at epsilon=1: the fit may be no better than a constant (a UtilityWarning, asserted
    # in tests/test_warning_sites.py). These tests check the charge, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
]


class _FailsWhenEvaluatedAgain:
    """A hypothesis that raises, naming itself, when it is evaluated a second time: the fit evaluates every
    hypothesis once, then only the plays the exponential mechanism drew (for the choice against the constants), so
    which one raises is a function of the releases."""

    def __init__(self, hypothesis, index):
        self.hypothesis, self.index, self.calls = hypothesis, index, 0

    def predict(self, X):
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError(f"hypothesis {self.index} was drawn")
        return self.hypothesis.predict(X)


def _data():
    rng = np.random.default_rng(0)
    groups = rng.choice(["a", "b"], 600)
    X = rng.uniform(-1, 1, (600, 2))
    y = (X[:, 0] + 0.3 * (groups == "b") + 0.3 * rng.standard_normal(600) > 0).astype(int)
    return X, y, groups


def _make(hypotheses, accountant, **params):
    return JagielskiExponentiatedGradient(DemographicParity(difference_bound=0.05), hypotheses=hypotheses,
                                          epsilon=1.0, delta=1e-5, max_iter=5, groups=["a", "b"],
                                          accountant=accountant, random_state=0, **params)


@pytest.mark.parametrize("min_count", [None, 20])           # N released (the first release), or public
def test_a_drawn_hypothesis_failing_after_the_releases_costs_the_fit(min_count):
    X, y, groups = _data()
    hypotheses = linear_threshold_hypotheses(2, n_directions=4, n_thresholds=4, random_state=0)
    reference = _make(hypotheses, BudgetAccountant(), min_count=min_count).fit(X, y, sensitive_features=groups)
    accountant = BudgetAccountant()
    model = _make([_FailsWhenEvaluatedAgain(h, i) for i, h in enumerate(hypotheses)], accountant,
                  min_count=min_count)
    with pytest.raises(RuntimeError, match="was drawn"):
        model.fit(X, y, sensitive_features=groups)
    spent = reference.privacy_spent_
    assert accountant.spent_budget == [(spent.epsilon, spent.delta)]
    assert not hasattr(model, "predictors_") and not hasattr(model, "privacy_spent_")


def test_a_hypothesis_failing_on_the_public_X_costs_nothing():
    """Evaluated before any release, on X (public under "sensitive_attribute"): the error is the hypothesis' own,
    the same on both neighbours, and nothing is charged."""
    X, y, groups = _data()
    hypotheses = linear_threshold_hypotheses(2, n_directions=2, n_thresholds=2, random_state=0)
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="0/1"):
        _make([*hypotheses, lambda rows: np.full(len(rows), 2)], accountant).fit(X, y, sensitive_features=groups)
    assert accountant.spent_budget == []


@pytest.mark.parametrize("oracle", ["exponential", "regression"])
@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_a_successful_fit_is_charged_once(oracle, unit):
    X, y, groups = _data()
    hypotheses = linear_threshold_hypotheses(2, n_directions=2, n_thresholds=2, random_state=0)
    accountant = BudgetAccountant()
    model = _make(hypotheses if oracle == "exponential" else None, accountant, oracle=oracle, privacy_unit=unit)
    model.fit(X, y, sensitive_features=groups)
    assert len(accountant.spent_budget) == 1
    assert accountant.spent_budget[0] == (model.privacy_spent_.epsilon, model.privacy_spent_.delta)
    assert model.privacy_spent_.epsilon == 1.0


def test_the_auditor_update_fits_when_every_multiplier_underflows():
    """At a small epsilon the Auditor's noisy violations can push every exponent below -709: the multipliers are then
    0 (their limit) instead of an OverflowError of ``math.exp`` (a failure that depended on the releases)."""
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 2, 400)
    X = rng.uniform(-1, 1, (400, 2))
    y = (X[:, 0] > 0).astype(int)
    accountant = BudgetAccountant()
    model = JagielskiExponentiatedGradient(DemographicParity(difference_bound=0.05), oracle="regression",
                                           epsilon=0.01, delta=1e-5, min_count=2, max_iter=1000, groups=[0, 1],
                                           accountant=accountant, random_state=1)
    model.fit(X, y, sensitive_features=groups)
    assert accountant.spent_budget == [(0.01, 1e-5)]
    assert np.any(np.all(model.history_["lambda"] == 0.0, axis=1))       # the rounds that overflowed before
