"""Differentially private in-processing algorithms.

Estimators here train a model under a fairness objective while the training is differentially private, and the
model needs no sensitive attribute at prediction time: the DP exponentiated-gradient reduction on Fairlearn's
moments (by default Fairlearn's game played on statistics released once, ``_statistics_game``; Jagielski et al.
2019, Alg. 3 as ``mode="paper"``), the exponential-mechanism learner and private Fair No-Regret dynamics of
Cummings et al. (2019), and the group-aware privacy budget allocation of the budget-tailoring paper (DP gradient
descent in which each group's share of the budget follows its privately estimated prediction standard error,
optionally with a bounded-group-loss penalty).
"""

from ..privacy._exponential import exponential_mechanism, exponential_mechanism_probabilities
from ._exponential_mechanism_classifier import ExponentialMechanismFairClassifier
from ._dp_logistic_regression import DPLogisticRegression
from ._exponentiated_gradient import DPExponentiatedGradient
from ._gerryfair import DPGerryFairClassifier
from ._group_budget import DPGroupBudgetClassifier, DPGroupBudgetRegressor, ZCDPLedger
from ._hypotheses import LinearThresholdClassifier, hypothesis_predictions, linear_threshold_hypotheses
from .._utils._row_bounds import layout_row_norm_bound

__all__ = [
    "DPExponentiatedGradient",
    "ExponentialMechanismFairClassifier",
    "DPGerryFairClassifier",
    "DPGroupBudgetRegressor",
    "DPGroupBudgetClassifier",
    "ZCDPLedger",
    "LinearThresholdClassifier",
    "DPLogisticRegression",
    "linear_threshold_hypotheses",
    "hypothesis_predictions",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "layout_row_norm_bound",
]
