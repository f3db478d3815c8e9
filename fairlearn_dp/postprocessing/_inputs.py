"""The input checks of the post-processors' fit, with Fairlearn's messages (without counts or values of the data).

Shared by every counting backend (:mod:`._counting`: in memory and on Dask workers), so that both raise the same
errors: the per-row functions each estimator's cell index uses (labels through the one binary-label check, group
encoding with a fast path that gives the same values and errors), and the light copy of an estimator that is
shipped to the workers.
"""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np

from .._fairlearn_compat import (
    MESSAGE_SENSITIVE_FEATURES_NONE,
    MESSAGE_X_SENSITIVE_ROWS,
    MESSAGE_X_Y_ROWS,
)
from .._utils._rows import n_rows
from .._utils._validation import as_group_vector, check_binary_labels, encode_groups

__all__ = ["n_columns", "check_lengths", "check_target_rows", "binary_labels", "encode_group_index",
           "light_copy", "fit_template"]


def n_columns(X):
    """Number of columns of ``X`` (1 for a vector), or None when it has no 1-D/2-D shape."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except (TypeError, ValueError):
            return None
    return 1 if len(shape) == 1 else (shape[1] if len(shape) == 2 else None)


def check_lengths(X, sensitive_features, n_labels):
    """Fairlearn's length checks with count-free messages (the DP path's errors carry no counts)."""
    n_x = n_rows(X)
    if n_x is not None and n_x != n_labels:
        raise ValueError(MESSAGE_X_Y_ROWS)
    if sensitive_features is None:
        raise ValueError(MESSAGE_SENSITIVE_FEATURES_NONE)
    n_sf = n_rows(sensitive_features)
    if n_sf is not None and n_sf != n_labels:
        raise ValueError(MESSAGE_X_SENSITIVE_ROWS)


def binary_labels(y):
    """Labels as 0/1 ints: the one binary-label check, with Fairlearn's messages (without the data's values)."""
    return check_binary_labels(y, "y", fairlearn_messages=True).astype(float).astype(np.intp)


def encode_group_index(sensitive_features, n_samples, groups):
    """Group index of each row: :func:`encode_groups` of :func:`as_group_vector`, with a fast path for a numeric
    column (same indices; anything unusual, including an unknown group, goes the general way and its error).
    """
    codes = _encode_numeric(sensitive_features, groups)
    if codes is not None and codes.size == n_samples:       # else the general path names the length mismatch
        return codes
    return encode_groups(as_group_vector(sensitive_features, n_samples, groups=groups), groups)


def _encode_numeric(sensitive_features, groups):
    """Indices into ``groups`` for a 1-D int/float column whose values are all among numeric ``groups``; else None.

    ``encode_groups`` matches labels by Python equality (``1 == 1.0``); for integer columns that is integer
    equality and for float columns float equality, which this reproduces for groups that convert exactly.
    """
    values = _numeric_column(sensitive_features)
    if values is None:
        return None
    matched = _numeric_keys(groups, values.dtype.kind)
    if matched is None:
        return None
    codes = np.full(values.size, -1, dtype=np.intp)
    for key, position in zip(*matched, strict=False):                 # one comparison pass per group: few groups
        codes[values == key] = position
    if np.any(codes < 0):                    # NaN, or a label not in groups: the general path decides (and raises)
        return None
    return codes


def _numeric_column(sensitive_features):
    """The 1-D int/float array of ``sensitive_features`` (a 1-D pandas object unwrapped), or None: not numeric,
    not one column, or uint64 (beyond the keys' range).
    """
    values = sensitive_features
    if hasattr(values, "to_numpy") and getattr(values, "ndim", 2) == 1:
        values = values.to_numpy()
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind not in "iuf":
        return None
    if values.dtype.kind == "u" and values.dtype.itemsize == 8:
        return None
    return values


def _numeric_keys(groups, kind):
    """``(keys, positions)``: each numeric group's key for a column of dtype kind ``kind`` and its index in
    ``groups``; None when the fast path cannot decide (a non-numeric group, one that does not convert exactly, no
    key, or more than ``_MAX_FAST_GROUPS`` keys).
    """
    keys, positions = [], []
    for position, group in enumerate(groups):
        key = _numeric_key(group, kind)
        if key is None:
            return None
        if key is _NO_MATCH:
            continue                             # a fractional group cannot equal an integer label
        keys.append(key)
        positions.append(position)
    if not keys or len(keys) > _MAX_FAST_GROUPS:
        return None
    return keys, positions


def _numeric_key(group, kind):
    """The key that ``group`` equals in a column of dtype kind ``kind`` (float, or int within +-2^62); None when
    the general path must decide; ``_NO_MATCH`` for a fractional group and an integer column.
    """
    if isinstance(group, (bool, np.bool_)) or not isinstance(group, numbers.Real):
        return None
    if kind == "f":
        key = float(group)
        if key != group:
            return None                          # an int beyond float precision: leave it to the general path
        return key
    if isinstance(group, numbers.Integral) or float(group).is_integer():
        key = int(group)
    else:
        return _NO_MATCH
    if not -2 ** 62 < key < 2 ** 62:
        return None
    return key


_NO_MATCH = object()


#: Up to this many numeric groups, group labels are matched by one comparison pass per group.
_MAX_FAST_GROUPS = 64


def light_copy(estimator, keep=None):
    """A shallow copy of ``estimator`` without its accountant, for the workers (the estimator's own choice of what
    to ship): with ``keep``, only the attributes named there; else all of them. Workers only run per-row methods, so
    attributes of an earlier fit (e.g. large transport plans) need not travel; a later refit of ``estimator``
    assigns new attributes, so the copy keeps this fit's.
    """
    template = copy.copy(estimator)
    if keep is not None:
        template.__dict__ = {name: value for name, value in estimator.__dict__.items() if name in keep}
    template.accountant = None
    return template


def fit_template(estimator, before, set_here):
    """:func:`light_copy` of ``estimator`` with its parameters and what this fit set so far.

    ``set_here`` names the attributes this fit assigned; any other attribute that appeared or changed since the
    snapshot ``before`` (e.g. set by the estimator's own ``_set_grid``) is kept too.
    """
    names = set(estimator.get_params(deep=False)) | set(set_here) | {
        name for name, value in estimator.__dict__.items() if before.get(name, _MISSING) is not value}
    return light_copy(estimator, names)


_MISSING = object()


def check_target_rows(y: Any, n_outputs: int) -> None:
    """``y`` (when given) has one row per output: a ``ValueError`` naming the length mismatch."""
    if y is not None and n_rows(y) != n_outputs:          # n_rows: scikit-learn's count (any array-like)
        raise ValueError(f"y has {n_rows(y)} rows but X has {n_outputs} (length mismatch).")
