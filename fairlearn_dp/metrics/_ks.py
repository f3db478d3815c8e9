"""Kolmogorov-Smirnov statistical parity for regression outputs (Xian et al. 2024, Def. 2.2)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
from fairlearn.metrics import MetricFrame

__all__ = ["ks_distance", "ks_distance_to", "ks_statistical_parity"]


def ks_distance(sample_a, sample_b):
    """Two-sample KS distance ``sup_t |F_a(t) - F_b(t)|`` between the empirical distributions of two samples."""
    a = np.sort(np.asarray(sample_a, dtype=float).ravel())
    b = np.sort(np.asarray(sample_b, dtype=float).ravel())
    if a.size == 0 or b.size == 0:
        raise ValueError("ks_distance needs two non-empty samples.")
    points = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, points, side="right") / a.size
    cdf_b = np.searchsorted(b, points, side="right") / b.size
    return float(np.max(np.abs(cdf_a - cdf_b)))


def _outputs(y_true, y_pred):
    """Per-group 'metric' that keeps a group's outputs (MetricFrame allows non-scalar metric values)."""
    return np.asarray(y_pred, dtype=float)


def ks_statistical_parity(y_true, y_pred, *, sensitive_features):
    """Largest pairwise KS distance between groups' outputs ``y_pred`` (``y_true`` is ignored).

    ``SP(f) = max_{a, a'} D_KS(r_a, r_a')`` of Xian et al. (2024), Definition 2.2: 0 means identical output
    distributions. Signature as Fairlearn's ``demographic_parity_difference``.
    """
    frame = MetricFrame(metrics=_outputs, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features)
    samples = [s for s in frame.by_group.to_numpy() if np.size(s) > 0]
    if len(samples) < 2:
        raise ValueError("sensitive_features must define at least 2 groups.")
    return max(ks_distance(s, t) for s, t in combinations(samples, 2))


def ks_distance_to(reference):
    """A per-group metric for ``MetricFrame``: KS distance between a group's ``y_pred`` and ``reference``.

    Example: ``MetricFrame(metrics={"ks_to_all": ks_distance_to(y_pred)}, y_true=y, y_pred=y_pred,
    sensitive_features=a)`` shows how far each group's outputs are from everyone's.
    """
    reference = np.asarray(reference, dtype=float).ravel()

    def ks_to_reference(y_true, y_pred):
        return ks_distance(y_pred, reference)

    return ks_to_reference
