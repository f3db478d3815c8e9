"""The input checks of the post-processors' fit, with Fairlearn's messages (without counts or values of the data).

Shared by the in-memory fit and the Dask map step (:mod:`._distributed`), so that both raise the same errors.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils.validation import _num_samples

from .._fairlearn_compat import (
    LABELS_NOT_0_1_ERROR_MESSAGE,
    MESSAGE_SENSITIVE_FEATURES_NONE,
    MESSAGE_X_SENSITIVE_ROWS,
    MESSAGE_X_Y_ROWS,
    MESSAGE_Y_NONE,
)

__all__ = ["n_columns", "n_rows", "check_lengths", "binary_labels"]


def n_columns(X):
    """Number of columns of ``X`` (1 for a vector), or None when it has no 1-D/2-D shape."""
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except (TypeError, ValueError):
            return None
    return 1 if len(shape) == 1 else (shape[1] if len(shape) == 2 else None)


def n_rows(data):
    """Number of rows of ``data`` (scikit-learn's count), or None when it has none."""
    try:
        return _num_samples(data)
    except TypeError:
        return None


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
    """Labels as 0/1 ints; errors are Fairlearn's (``_validate_and_reformat_input``) without the data's values."""
    if y is None:
        raise ValueError(MESSAGE_Y_NONE + ".")
    values = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if values.size == 0:
        raise ValueError(MESSAGE_Y_NONE + ".")
    if values.ndim == 2 and values.shape[1] == 1:
        values = values.ravel()
    if values.ndim != 1:
        raise ValueError("`y` must be of shape (n,) or (n,1).")
    found = pd.unique(pd.Series(values, dtype=object))
    if not all(isinstance(v, (numbers.Number, np.bool_)) and not pd.isna(v) and v in (0, 1) for v in found):
        raise ValueError(LABELS_NOT_0_1_ERROR_MESSAGE)
    return values.astype(float).astype(np.intp)
