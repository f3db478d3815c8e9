"""Differentially private in-processing algorithms.

Estimators here train a model under a fairness objective while the training is differentially private, and the
model needs no sensitive attribute at prediction time: the DP exponentiated-gradient reduction on Fairlearn's
moments (Fairlearn's game played on statistics released once, ``_statistics_game``, its expert settings in
``StatisticsGameOptions``) and the grid search on the same releases (``DPGridSearch``), Jagielski et al.'s (2019)
Algorithm 3 (``JagielskiExponentiatedGradient``), the
exponential-mechanism learner and private Fair No-Regret dynamics of Cummings et al. (2019), and the group-aware
privacy budget allocation of the budget-tailoring paper (DP gradient
descent in which each group's share of the budget follows its privately estimated prediction standard error,
optionally with a bounded-group-loss penalty).
"""

from .._utils._row_bounds import layout_row_norm_bound
from ._dp_logistic_regression import DPLogisticRegression
from ._eg_params import StatisticsGameOptions
from ._exponential_mechanism_classifier import ExponentialMechanismFairClassifier
from ._exponentiated_gradient import DPExponentiatedGradient
from ._gerryfair import DPGerryFairClassifier
from ._grid_search import DPGridSearch
from ._group_budget import DPGroupBudgetClassifier, DPGroupBudgetRegressor
from ._hypotheses import linear_threshold_hypotheses
from ._jagielski import JagielskiExponentiatedGradient

__all__ = [
    "DPExponentiatedGradient",
    "DPGridSearch",
    "StatisticsGameOptions",
    "JagielskiExponentiatedGradient",
    "ExponentialMechanismFairClassifier",
    "DPGerryFairClassifier",
    "DPGroupBudgetRegressor",
    "DPGroupBudgetClassifier",
    "DPLogisticRegression",
    "linear_threshold_hypotheses",
    "layout_row_norm_bound",
]
