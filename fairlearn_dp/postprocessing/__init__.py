"""Differentially private post-processing algorithms.

Post-processors take a trained model's outputs and remap them per group so that the result satisfies a fairness
criterion; here the remapping is fitted from differentially private statistics only. This subpackage holds the DP
fair-regression post-processor of Xian et al. (2024), which remaps regression outputs by optimal transport to a
Wasserstein barycenter for statistical parity.
"""

from ._fair_regression import DPFairRegressionPostprocessor

__all__ = ["DPFairRegressionPostprocessor"]
