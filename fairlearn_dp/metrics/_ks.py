"""Kolmogorov-Smirnov statistical parity for regression outputs (Xian et al. 2024, Def. 2.2)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._utils._validation import as_1d_float, as_group_vector

__all__ = ["ks_statistical_parity"]


def _sample(values, name):
    """``as_1d_float``, with Python integers beyond float range a ``ValueError`` (numpy raises OverflowError)."""
    try:
        return as_1d_float(values, name)
    except OverflowError as exc:
        raise ValueError(f"{name} contains numbers too large to represent as floats.") from exc


def ks_distance(sample_a: ArrayLike, sample_b: ArrayLike) -> float:
    """Two-sample KS distance ``sup_t |F_a(t) - F_b(t)|`` between the empirical distributions of two samples.

    Each sample is a non-empty 1-D array (or single column) of finite numbers; NaN/inf are a ``ValueError``.
    """
    a = np.sort(_sample(sample_a, "sample_a"))
    b = np.sort(_sample(sample_b, "sample_b"))
    points = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, points, side="right") / a.size
    cdf_b = np.searchsorted(b, points, side="right") / b.size
    return float(np.max(np.abs(cdf_a - cdf_b)))


def ks_statistical_parity(y_true: ArrayLike | None, y_pred: ArrayLike, *,
                          sensitive_features: ArrayLike) -> float:
    """Largest pairwise KS distance between groups' outputs ``y_pred`` (``y_true`` is ignored).

    ``SP(f) = max_{a, a'} D_KS(r_a, r_a')`` of Xian et al. (2024), Definition 2.2: 0 means identical output
    distributions. Signature as Fairlearn's aggregate metrics (``demographic_parity_difference``); several
    sensitive-feature columns are combined into one group label per row, as ``MetricFrame`` does.
    """
    y_pred = _sample(y_pred, "y_pred")
    codes, uniques = pd.factorize(pd.Series(as_group_vector(sensitive_features, y_pred.size), dtype=object))
    if len(uniques) < 2:
        raise ValueError("sensitive_features must define at least 2 groups.")
    samples = [y_pred[codes == g] for g in range(len(uniques))]
    return max(ks_distance(s, t) for s, t in combinations(samples, 2))
