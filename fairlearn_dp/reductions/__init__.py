"""Differentially private in-processing algorithms.

Estimators here train a model under a fairness objective while the training is differentially private, and the
model needs no sensitive attribute at prediction time. This subpackage holds the group-aware privacy budget
allocation of the budget-tailoring paper: DP gradient descent in which each group's share of the budget follows
its privately estimated prediction standard error, optionally with a bounded-group-loss penalty.
"""

from ._group_budget import DPGroupBudgetClassifier, DPGroupBudgetRegressor, ZCDPLedger

__all__ = ["DPGroupBudgetRegressor", "DPGroupBudgetClassifier", "ZCDPLedger"]
