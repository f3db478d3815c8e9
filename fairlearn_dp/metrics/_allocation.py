"""Fairness metrics of allocations (Zhu, Fioretto & Van Hentenryck 2022, Def. 2, Def. 5, Prop. 3).

Signature ``metric(y_true, y_pred)`` with ``y_true`` the allocation on the true data ``P(x)`` and ``y_pred`` the
expected allocation of a mechanism ``E[pi(x~)]`` (e.g. a Monte-Carlo mean), so they work per group inside a
``MetricFrame`` (e.g. grouped by state or by district-size decile).
"""

from __future__ import annotations

import numpy as np

__all__ = ["alpha_fairness", "cost_of_privacy", "cost_of_privacy_l1", "mean_bias", "misallocated_funds"]


def _bias(y_true, y_pred):
    true = np.asarray(y_true, dtype=float).ravel()
    pred = np.asarray(y_pred, dtype=float).ravel()
    if true.shape != pred.shape or true.size == 0:
        raise ValueError("y_true and y_pred must be non-empty and of the same length.")
    return pred - true


def alpha_fairness(y_true, y_pred):
    """``max_i B_i - min_i B_i`` with ``B = y_pred - y_true`` (Def. 2: the smallest alpha the mechanism meets)."""
    b = _bias(y_true, y_pred)
    return float(b.max() - b.min())


def cost_of_privacy(y_true, y_pred, *, budget=1.0):
    """``B+ = budget * sum_{j : B_j < 0} |B_j|`` (Def. 5): the extra budget that would make every entity whole."""
    b = _bias(y_true, y_pred)
    return float(budget * -b[b < 0].sum())


def cost_of_privacy_l1(y_true, y_pred, *, budget=1.0):
    """``(budget / 2) ||B||_1`` (Prop. 3): equals :func:`cost_of_privacy` when both allocations sum to the same."""
    return float(budget / 2 * np.abs(_bias(y_true, y_pred)).sum())


def mean_bias(y_true, y_pred):
    """Mean of ``B`` over the entities."""
    return float(_bias(y_true, y_pred).mean())


def misallocated_funds(y_true, y_pred, *, budget=1.0):
    """``budget * sum_i B_i``: net money a group of entities gains (> 0) or loses (< 0) in expectation."""
    return float(budget * _bias(y_true, y_pred).sum())
