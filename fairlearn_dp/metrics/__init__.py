"""Fairness metrics that plug into :class:`fairlearn.metrics.MetricFrame`.

``ks_statistical_parity`` is the fairness violation of Xian et al. (2024), Definition 2.2: the largest two-sample
Kolmogorov-Smirnov distance between any two groups' output distributions. It has the signature of Fairlearn's
aggregate metrics (``demographic_parity_difference``); ``ks_distance_to`` builds a per-group metric for
``MetricFrame`` reports.

Allocation metrics (Zhu et al. 2022) take the true allocation as ``y_true`` and a mechanism's expected allocation
as ``y_pred``: ``alpha_fairness``, ``cost_of_privacy`` (and its l1 form), ``mean_bias``, ``misallocated_funds``.
"""

from ._allocation import alpha_fairness, cost_of_privacy, cost_of_privacy_l1, mean_bias, misallocated_funds
from ._ks import ks_distance, ks_distance_to, ks_statistical_parity

__all__ = ["ks_distance", "ks_distance_to", "ks_statistical_parity", "alpha_fairness", "cost_of_privacy",
           "cost_of_privacy_l1", "mean_bias", "misallocated_funds"]
