"""A user's Learner that fails after the statistics game's release costs what the fit costs.

Under ``privacy_unit="sensitive_attribute"`` the estimator is fitted on weights derived from the released statistics
(docs/privacy_analysis/statistics_game.md), so whether it raises, and its message, are post-processing of a release:
the whole (epsilon, delta) is charged before the first Learner call, and a fit that raises from there on stays charged
(before, the charge came after the rounds and a failing fit was free to repeat).
"""

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.reductions import DPExponentiatedGradient


class _FailsOnReleasedWeights(LogisticRegression):
    """Raises, quoting its sample weights, once they are not uniform (then they are a function of the release)."""

    def fit(self, X, y, sample_weight=None):
        if sample_weight is not None and not np.allclose(sample_weight, sample_weight[0]):
            raise RuntimeError(f"weights {sample_weight[:3]}")
        return super().fit(X, y, sample_weight=sample_weight)


def _data():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 2, 2000)
    X = np.column_stack([rng.uniform(-1, 1, 2000), groups + 0.1 * rng.standard_normal(2000)])
    y = (X[:, 0] + 0.5 * groups + 0.3 * rng.standard_normal(2000) > 0.2).astype(int)
    return X, y, groups


def test_a_learner_failing_after_the_release_costs_the_fit():
    X, y, groups = _data()
    accountant = BudgetAccountant()
    mitigator = DPExponentiatedGradient(_FailsOnReleasedWeights(), DemographicParity(), epsilon=1.0, delta=1e-5,
                                        groups=[0, 1], random_state=0, accountant=accountant)
    with pytest.raises(RuntimeError, match="weights"):
        mitigator.fit(X, y, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 1e-5)]
    assert not hasattr(mitigator, "predictors_") and not hasattr(mitigator, "privacy_spent_")


def test_a_successful_fit_is_charged_once():
    X, y, groups = _data()
    accountant = BudgetAccountant()
    mitigator = DPExponentiatedGradient(LogisticRegression(), DemographicParity(), epsilon=1.0, delta=1e-5,
                                        groups=[0, 1], random_state=0, accountant=accountant, max_iter=5)
    mitigator.fit(X, y, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 1e-5)]
    assert (mitigator.privacy_spent_.epsilon, mitigator.privacy_spent_.delta) == (1.0, 1e-5)
