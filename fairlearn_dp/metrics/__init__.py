"""Fairness metrics that plug into :class:`fairlearn.metrics.MetricFrame`.

``ks_statistical_parity`` is the fairness violation of Xian et al. (2024), Definition 2.2: the largest two-sample
Kolmogorov-Smirnov distance between any two groups' output distributions. It has the signature of Fairlearn's
aggregate metrics (``demographic_parity_difference``); ``ks_distance_to`` builds a per-group metric for
``MetricFrame`` reports.
"""

from ._ks import ks_distance, ks_distance_to, ks_statistical_parity

__all__ = ["ks_distance", "ks_distance_to", "ks_statistical_parity"]
