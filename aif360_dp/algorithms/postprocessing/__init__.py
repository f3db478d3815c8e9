"""DP counterparts of AIF360 post-processors.

Each class subclasses AIF360's ``Transformer`` (``fit`` / ``predict`` on AIF360 datasets, metadata recorded on the
returned dataset) and delegates the computation to the matching :mod:`fairlearn_dp` estimator through
the faces' dataset glue (``aif360_dp._glue``).
"""

from ._dp_eq_odds import DPEqOddsPostprocessing
from ._dp_fair_regression import DPFairRegressionPostprocessing
from ._dp_score_postprocessing import DPCalibratedEqOddsPostprocessing, DPRejectOptionClassification

__all__ = ["DPEqOddsPostprocessing", "DPFairRegressionPostprocessing", "DPCalibratedEqOddsPostprocessing",
           "DPRejectOptionClassification"]
