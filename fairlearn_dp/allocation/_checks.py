"""Strict numeric checks for counts, shares and scalars of the allocation helpers and their metrics.

Stricter than :func:`fairlearn_dp._utils._validation.as_1d_float` on purpose: counts and allocation shares are
numbers, so booleans (``True`` would silently count as 1), strings (even numeric ones such as ``"3"``), complex
numbers, ``None`` and other objects are a ``TypeError`` naming the argument, and NaN/inf a ``ValueError``.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._utils._validation import check_real

__all__ = ["as_real_array", "check_finite_real", "check_positive_real"]


def _is_real_scalar(value):
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def as_real_array(values, name):
    """``values`` as a float ndarray (any shape); non-real entries are a ``TypeError`` naming ``name``.

    Integer, unsigned and float dtypes are accepted; an object array is accepted when every entry is a real number
    (not a bool). Booleans, strings, bytes, complex numbers, dates and ``None`` are refused. NaN/inf are NOT
    checked here (callers decide).
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {type(values).__name__}.")
    if hasattr(values, "to_numpy") and callable(values.to_numpy):       # pandas Series / DataFrame
        values = values.to_numpy()
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:                              # ragged nested lists, odd objects
        raise ValueError(f"{name} must be a rectangular array of numbers.") from exc
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(f"{name} must contain numbers, not booleans.")
    if kind == "O":
        if not all(_is_real_scalar(v) for v in arr.ravel()):
            raise TypeError(f"{name} must contain only real numbers (no booleans, strings or None).")
    elif kind not in "iuf":
        raise TypeError(f"{name} must contain real numbers, got dtype {arr.dtype}.")
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            return arr.astype(float)
    except (OverflowError, TypeError, ValueError) as exc:               # e.g. Python ints beyond float range
        raise ValueError(f"{name} contains numbers too large to represent as floats.") from exc


def check_finite_real(value, name):
    """A real, finite scalar (not a bool) as float; ``TypeError``/``ValueError`` naming ``name``.

    :func:`fairlearn_dp._utils._validation.check_real` without bounds (the table check of the allocation helpers).
    """
    return check_real(value, name)


def check_positive_real(value, name):
    """A real, finite scalar > 0 as float; ``TypeError``/``ValueError`` naming ``name``.

    :func:`fairlearn_dp._utils._validation.check_real` on ``(0, inf)``.
    """
    return check_real(value, name, low=0.0, low_open=True)
