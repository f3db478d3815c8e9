"""DP counterparts of AIF360 in-processors.

Each class subclasses AIF360's ``Transformer`` (``fit(dataset)`` trains a model on an AIF360 dataset,
``predict(dataset)`` returns a new dataset with predicted labels, metadata recorded) and, as AIF360's
``ExponentiatedGradientReduction`` wraps Fairlearn, delegates the training to the matching :mod:`fairlearn_dp`
estimator through the faces' dataset glue (``aif360_dp._glue``): the DP exponentiated-gradient reduction (Jagielski et al. 2019,
Alg. 3) and the grid search on the same releases (``DPGridSearchReduction``), private Fair No-Regret dynamics for rich subgroups (Cummings et al. 2019, Sec. 5, AIF360's
``GerryFairClassifier`` surface) and the group-aware privacy budget allocation of the budget-tailoring paper (zCDP
gradient descent whose per-group budget follows privately estimated standard errors, optionally with a
bounded-group-loss penalty), for regression and for binary classification.
"""

from ._dp_exponentiated_gradient import DPExponentiatedGradientReduction
from ._dp_gerryfair import DPGerryFairClassifier
from ._dp_grid_search import DPGridSearchReduction
from ._dp_group_budget import DPGroupBudgetClassification, DPGroupBudgetRegression

__all__ = ["DPExponentiatedGradientReduction", "DPGridSearchReduction", "DPGerryFairClassifier", "DPGroupBudgetRegression",
           "DPGroupBudgetClassification"]
