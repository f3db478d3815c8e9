"""Differentially private post-processing algorithms.

Post-processors take a trained model's outputs and remap them per group so that the result satisfies a fairness
criterion; here the remapping is fitted from differentially private statistics only. This subpackage holds the DP
fair-regression post-processor of Xian et al. (2024), which remaps regression outputs by optimal transport to a
Wasserstein barycenter for statistical parity, and the DP ``ThresholdOptimizer`` of Jagielski et al. (2019), which
fits Hardt et al.'s group-specific randomised thresholds on Laplace-noised statistics (its expert settings in one
:class:`ThresholdOptimizerOptions`).
"""

from ._fair_regression import DPFairRegressionPostprocessor
from ._threshold_optimizer import DPThresholdOptimizer, ThresholdOptimizerOptions

__all__ = ["DPFairRegressionPostprocessor", "DPThresholdOptimizer", "ThresholdOptimizerOptions"]
