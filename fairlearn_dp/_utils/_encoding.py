"""Input encoding shared by the GerryFair engine and its oracles (internal): checks of the feature matrix and
the labels, the encoding of ``sensitive_features`` (numeric columns as they are, categorical ones as indicators of
their public values), and the design matrices and row-norm bounds the releases are calibrated to.

Only public inputs decide an encoding (a column's dtype, the declared ``sensitive_values``, the numbers of
columns); the errors raised on the data are domain errors whose messages carry no value or count.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..exceptions import PrivacyWarning, warn
from ._validation import check_binary_labels, encode_groups, resolve_groups


def _check_labels(y, n):
    """``y`` as a 1-D float array of ``n`` labels in {0, 1}: the one binary-label check, then the length."""
    y = check_binary_labels(y, "y").astype(float)
    if y.size != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {y.shape}.")
    return y


def _one_entry_per_column(entries):
    """Whether a declared ``sensitive_values`` list is a list of lists (or None), one per column."""
    return len(entries) > 0 and all(
        entry is None or (hasattr(entry, "__iter__") and not isinstance(entry, (str, bytes))) for entry in entries)


def _check_sensitive_values(declared, name="sensitive_values"):
    """Check of the public ``sensitive_values`` (before the budget check and any data): None, a list, a list of
    lists or a dict; every declared list non-empty, hashable and without duplicates. Returns ``declared`` (a
    parameter-table check: errors name ``sensitive_values``).
    """
    if declared is None:
        return None
    if not isinstance(declared, dict) and (isinstance(declared, (str, bytes)) or not hasattr(declared, "__iter__")):
        raise ValueError("sensitive_values must be None, a list of values, a list of lists (one per column) or a "
                         "dict from column to list of values.")
    if isinstance(declared, dict):
        lists = list(declared.values())
    else:
        entries = list(declared)
        lists = entries if _one_entry_per_column(entries) else [entries]
    for values in lists:
        if values is None:
            continue
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"sensitive_values: each column's entry must be a list of values or None, got "
                             f"{values!r}.")
        values = list(values)
        if not values:
            raise ValueError("sensitive_values: a declared list of values is empty.")
        try:
            distinct = len(set(values)) == len(values)
        except TypeError:
            raise ValueError("sensitive_values: declared values must be hashable.") from None
        if not distinct:
            raise ValueError(f"sensitive_values: a declared list has duplicates: {values!r}.")
    return declared


def _declared_per_column(declared, frame):
    """The declared list of values of each column of ``frame`` (None: not declared)."""
    k = frame.shape[1]
    if declared is None:
        return [None] * k
    if isinstance(declared, dict):
        known = set()
        lists = []
        for position, column in enumerate(frame.columns):
            key = column if column in declared else position if position in declared else None
            lists.append(None if key is None else declared[key])
            if key is not None:
                known.add(key)
        if set(declared) - known:
            raise ValueError("sensitive_values names a column that sensitive_features does not have.")
        return lists
    entries = list(declared)
    if _one_entry_per_column(entries) and len(entries) == k:
        return entries
    if k == 1:
        return [entries]
    raise ValueError("sensitive_values must hold one entry per column of sensitive_features (a list of values, or "
                     "None for a numeric column), or be a dict from column to list of values.")


def _sensitive_frame(sensitive_features, n):
    """``sensitive_features`` as a DataFrame of ``n`` rows (a Series as one column, an array's columns numbered),
    after the shape and missing-value checks.
    """
    if sensitive_features is None:
        raise ValueError("sensitive_features is required.")
    if isinstance(sensitive_features, pd.DataFrame):
        frame = sensitive_features.reset_index(drop=True)
    elif isinstance(sensitive_features, pd.Series):
        frame = sensitive_features.reset_index(drop=True).to_frame()
    else:
        arr = np.asarray(sensitive_features)
        if arr.dtype.kind not in "biuf":            # numeric only by the input's type, never by its values
            arr = np.asarray(sensitive_features, dtype=object)
        if arr.ndim == 0 or arr.ndim > 2:
            raise ValueError(f"sensitive_features must be 1-D or 2-D, got shape {arr.shape}.")
        frame = pd.DataFrame(arr if arr.ndim == 2 else arr[:, None])
    if frame.shape[1] == 0:
        raise ValueError(f"sensitive_features must be 1-D or 2-D with at least one column, got shape {frame.shape}.")
    if frame.shape[0] != n:
        raise ValueError(f"sensitive_features has {frame.shape[0]} rows but X has {n} (length mismatch).")
    if frame.isna().to_numpy().any():
        raise ValueError("sensitive_features contains NaN or infinite values (or missing values).")
    return frame


def _numeric_column(raw):
    """A column without declared values as floats when its dtype is numeric (finite values only), else None.

    Whether a column is numeric is decided by its dtype (public schema), not by whether every value parses as a
    number: one record's value must not switch the encoding, the release's shape or the warning.
    """
    numeric = (np.asarray(raw.to_numpy(), dtype=float) if pd.api.types.is_numeric_dtype(raw.dtype)
               else None)
    if numeric is not None and not np.all(np.isfinite(numeric)):
        raise ValueError("sensitive_features contains NaN or infinite values.")
    return numeric


def _observed_values(raw, *, private, estimator_name):
    """The values of a categorical column without a declared list, read from the data (sorted when they can be)
    and treated as public, with a ``PrivacyWarning`` when ``private``.
    """
    if private:
        warn(f"{estimator_name}: `sensitive_values` was not given for a categorical column of "
             "sensitive_features, so its values are read from the private data and treated as public. Pass "
             "sensitive_values=[...] to make this explicit.", PrivacyWarning)
    found = list(pd.unique(pd.Series(raw.to_numpy(), dtype=object)))
    try:
        return sorted(found)
    except TypeError:
        return found


def _encode_column(raw, values, *, private, estimator_name):
    """``(block, values used)`` for one column: a numeric column without declared values as it is (values used:
    None); else the indicators ``1[a = v_j]``, ``j >= 2``, of its public values (``j = 1`` when there is one).
    """
    if values is None:
        numeric = _numeric_column(raw)
        if numeric is not None:
            return numeric[:, None], None
        values = _observed_values(raw, private=private, estimator_name=estimator_name)
    else:
        values = resolve_groups(values, None, estimator_name=estimator_name) if len(list(values)) != 1 \
            else list(values)
    values = list(values)
    codes = encode_groups(raw.to_numpy(dtype=object), values, name="sensitive_features")
    levels = range(1, len(values)) if len(values) > 1 else range(1)
    return np.column_stack([(codes == level).astype(float) for level in levels]), values


def _encode_sensitive(sensitive_features, n, declared, *, private, estimator_name):
    """``(A, values per column, column names)``: numeric columns as they are, categorical ones as indicators.

    A categorical column with public values ``[v_1, ..., v_m]`` becomes ``1[a = v_j]`` for ``j >= 2`` (for
    ``j = 1`` when ``m == 1``); a value outside the list is a ``ValueError``. Values read from the data (no
    declared list) come with a ``PrivacyWarning`` when ``private``.
    """
    frame = _sensitive_frame(sensitive_features, n)
    names = [str(column) for column in frame.columns]
    blocks, values_used = [], []
    for column, values in zip(range(frame.shape[1]), _declared_per_column(declared, frame), strict=False):
        block, used = _encode_column(frame.iloc[:, column], values, private=private, estimator_name=estimator_name)
        blocks.append(block)
        values_used.append(used)
    return np.column_stack(blocks), values_used, names


def _default_bound(bound, n_columns, norm_ord):
    """The public row-norm bound: given, or that of a row with every entry in ``[-1, 1]``."""
    if bound is not None:
        return float(bound)
    return float(n_columns) if norm_ord == 1 else math.sqrt(n_columns)


def _fit_bound(bound, given, n_columns, norm_ord, epsilon):
    """The row-norm bound ``fit`` clips to: ``epsilon = inf`` without a bound ``given`` as a parameter is ``inf``
    (nothing is private, no noise to calibrate: the rows as given, as AIF360; a bound published in ``X.attrs`` is
    not applied); else :func:`_default_bound` of ``bound``.
    """
    if given is None and math.isinf(epsilon):
        return math.inf
    return _default_bound(bound, n_columns, norm_ord)


def _radius(bound, norm_ord, intercept):
    """Bound on ``||(x, 1)||`` (or ``||x||``) in the mechanism's norm."""
    if not intercept:
        return bound
    return 1.0 + bound if norm_ord == 1 else math.sqrt(1.0 + bound ** 2)


def _with_intercept(M):
    """Append the intercept column (last, as ``_SolvedGram`` expects)."""
    return np.column_stack([M, np.ones(M.shape[0])])
