"""Fairness metrics of allocations (Zhu, Fioretto & Van Hentenryck 2022, Def. 2, Def. 5, Prop. 3).

Signature ``metric(y_true, y_pred)`` with ``y_true`` the allocation on the true data ``P(x)`` and ``y_pred`` the
expected allocation of a mechanism ``E[pi(x~)]`` (e.g. a Monte-Carlo mean), so they work per group inside a
``MetricFrame`` (e.g. grouped by state or by district-size decile). Both must be non-empty vectors of finite real
numbers of the same length (booleans and strings are refused); ``budget`` a finite number > 0.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._utils._validation import as_real_array, check_real

__all__ = ["alpha_fairness", "cost_of_privacy", "mean_bias", "misallocated_funds"]


def _vector(values, name):
    arr = as_real_array(values, name)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (or a single column), got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr


def _bias(y_true, y_pred):
    true = _vector(y_true, "y_true")
    pred = _vector(y_pred, "y_pred")
    if true.shape != pred.shape or true.size == 0:
        raise ValueError("y_true and y_pred must be non-empty and of the same length.")
    return pred - true


def _budget(budget):
    return check_real(budget, "budget", low=0.0, low_open=True)


def alpha_fairness(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """``max_i B_i - min_i B_i`` with ``B = y_pred - y_true`` (Def. 2: the smallest alpha the mechanism meets)."""
    b = _bias(y_true, y_pred)
    return float(b.max() - b.min())


_COST_FORMS = ("shortfall", "l1")


def cost_of_privacy(y_true: ArrayLike, y_pred: ArrayLike, *, budget: float = 1.0, form: str = "shortfall") -> float:
    """The cost of privacy: ``B+ = budget * sum_{j : B_j < 0} |B_j|`` (Def. 5), or its l1 form.

    ``form="shortfall"`` (default) is Def. 5, the extra budget that would make every entity whole;
    ``form="l1"`` is ``(budget / 2) ||B||_1`` (Prop. 3), equal to it when both allocations sum to the same.
    ``budget`` (the amount allocated, e.g. dollars) must be a finite number > 0.
    """
    if not isinstance(form, str) or form not in _COST_FORMS:
        raise ValueError(f"form must be one of {_COST_FORMS}, got {form!r}.")
    budget = _budget(budget)
    b = _bias(y_true, y_pred)
    if form == "l1":
        return float(budget / 2 * np.abs(b).sum())
    return float(budget * -b[b < 0].sum())


def mean_bias(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Mean of ``B`` over the entities."""
    return float(_bias(y_true, y_pred).mean())


def misallocated_funds(y_true: ArrayLike, y_pred: ArrayLike, *, budget: float = 1.0) -> float:
    """``budget * sum_i B_i``: net money a group of entities gains (> 0) or loses (< 0) in expectation."""
    budget = _budget(budget)
    return float(budget * _bias(y_true, y_pred).sum())
