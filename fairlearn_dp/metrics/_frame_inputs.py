"""Inputs of a private metric frame: feature columns, their public levels, and per-row cell codes.

Feature names and levels are public (declared, or read from public data); the per-row codes are computed from the
data after the budget check. Every error names the argument and never quotes a value of the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._utils._dask import is_dask_collection
from .._utils._rows import n_rows
from .._utils._validation import as_1d_float, check_binary_labels
from ..exceptions import PrivacyWarning, warn

__all__ = ["FeatureSpec", "feature_columns", "resolve_levels", "check_declared_levels", "check_labels", "cell_codes",
           "binary_labels", "class_codes", "bounded_values", "unread_y_true"]


@dataclass(frozen=True)
class FeatureSpec:
    """The public description of one group of feature columns: names and each column's levels."""

    names: tuple
    levels: tuple

    @property
    def n_cells(self) -> int:
        return int(np.prod([len(levels) for levels in self.levels])) if self.levels else 1

    def index(self) -> pd.Index:
        """The cells in Fairlearn's order: the product of the levels, a MultiIndex for several columns."""
        if len(self.names) == 1:
            return pd.Index(list(self.levels[0]), name=self.names[0])
        return pd.MultiIndex.from_product([list(levels) for levels in self.levels], names=list(self.names))


def feature_columns(features, prefix):
    """``[(name, column)]`` of ``features`` as Fairlearn names them: dict keys, DataFrame columns, a Series' name,
    else ``prefix + str(i)``. Columns stay as given (numpy, pandas or Dask); only their names are read here.
    """
    if features is None:
        raise ValueError(f"{prefix.rstrip('_')}s is required.")
    if isinstance(features, dict):
        if not features:
            raise ValueError(f"{prefix.rstrip('_')}s is an empty dict.")
        return [(str(key), value) for key, value in features.items()]
    if hasattr(features, "name") and hasattr(features, "index") and getattr(features, "ndim", 0) == 1:   # pandas/Dask Series
        return [(str(features.name) if features.name is not None else f"{prefix}0", features)]
    if hasattr(features, "columns") and hasattr(features, "dtypes"):            # pandas or Dask DataFrame
        return [(str(column), features[column]) for column in features.columns]
    if is_dask_collection(features):
        if features.ndim == 2:
            return [(f"{prefix}{i}", features[:, i]) for i in range(features.shape[1])]
        return [(f"{prefix}0", features)]
    array = np.asarray(features, dtype=object)
    if array.ndim == 2:
        return [(f"{prefix}{i}", array[:, i]) for i in range(array.shape[1])]
    if array.ndim != 1:
        raise ValueError(f"{prefix.rstrip('_')}s must be 1-D or 2-D, got {array.ndim} dimensions.")
    return [(f"{prefix}0", array)]


def check_declared_levels(declared, name, *, minimum=1):
    """A public ``groups``-like parameter: None, a list (one feature) or a dict ``{feature name: list}``; each list
    holds distinct, hashable, non-missing labels, and the product of their lengths (the cells) is at least
    ``minimum``. Checked before the budget.
    """
    if declared is None:
        return None
    if isinstance(declared, dict) and not declared:
        raise ValueError(f"{name} is an empty dict.")
    items = declared.items() if isinstance(declared, dict) else [(None, declared)]
    out = {}
    for key, levels in items:
        where = name if key is None else f"{name}[{key!r}]"
        if isinstance(levels, (str, bytes)) or not hasattr(levels, "__iter__"):
            raise TypeError(f"{where} must be a list of labels.")
        levels = list(levels)
        if not levels:
            raise ValueError(f"{where} is empty.")
        if pd.isna(pd.Series(levels, dtype=object)).any():
            raise ValueError(f"{where} contains a missing label (NaN/None).")
        try:
            distinct = len(set(levels)) == len(levels)
        except TypeError as exc:
            raise TypeError(f"{where} must hold hashable labels.") from exc
        if not distinct:
            raise ValueError(f"{where} contains duplicates.")
        out[key] = levels
    cells = int(np.prod([len(levels) for levels in out.values()]))
    if cells < minimum:
        raise ValueError(f"{name} must declare at least {minimum} groups (a comparison needs two), got {cells}.")
    return out


def check_labels(labels, name="labels"):
    """The public classes of a classification frame: None (0/1 labels), or a list of at least two distinct,
    hashable, non-missing labels (a tuple). Checked before the budget; the classes are never read from the data.
    """
    if labels is None:
        return None
    if isinstance(labels, dict):
        raise TypeError(f"{name} must be a list of classes, got a dict.")
    return tuple(check_declared_levels(labels, name, minimum=2)[None])


def resolve_levels(columns, declared, name, *, private, owner="DPMetricFrame"):
    """The public :class:`FeatureSpec` of ``columns``: the declared levels, or (with a :class:`PrivacyWarning` when
    the columns are ``private``) the sorted distinct values of the data.
    """
    names = tuple(column_name for column_name, _ in columns)
    if declared is not None:
        if None in declared:
            if len(columns) != 1:
                raise ValueError(f"{name} must be a dict {{column name: levels}} for {len(columns)} columns "
                                 f"{list(names)}.")
            return FeatureSpec(names, (tuple(declared[None]),))
        if set(declared) != set(names):
            raise ValueError(f"{name} must have one entry per column of the features {list(names)}, got "
                             f"{list(declared)}.")
        return FeatureSpec(names, tuple(tuple(declared[column]) for column in names))
    if private:
        warn(f"{owner}: `{name}` was not given, so the levels are read from the private data and treated as "
             f"public. Pass {name}=[...] to make this explicit.", PrivacyWarning)
    levels = []
    for _, column in columns:
        found = pd.unique(_as_pandas(column).dropna())
        try:
            found = sorted(found)
        except TypeError:
            found = list(found)
        levels.append(tuple(found))
    return FeatureSpec(names, tuple(levels))


def _as_pandas(column):
    if is_dask_collection(column):
        column = column.compute()
    return column if isinstance(column, pd.Series) else pd.Series(np.asarray(column, dtype=object))


def column_codes(column, levels, name):
    """Index of each row's value in ``levels`` (numpy or pandas input); a missing or undeclared value is a
    ``ValueError`` naming ``name``.
    """
    index = pd.Index(list(levels))
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        mapping = index.get_indexer(column.cat.categories)
        codes = np.asarray(column.cat.codes)
        codes = np.where(codes >= 0, mapping[np.maximum(codes, 0)], -1)
    else:
        values = column.to_numpy() if isinstance(column, pd.Series) else np.asarray(column)
        codes = index.get_indexer(values)
    if codes.size and codes.min() < 0:
        raise ValueError(f"{name} contains a missing value or a value that is not one of its {len(levels)} declared "
                         "levels (unseen group); declare every level.")
    return codes.astype(np.int64)


def cell_codes(columns, spec, name):
    """The combined cell index of each row (row-major over the product of the levels), numpy input."""
    codes = None
    for (column_name, column), levels in zip(columns, spec.levels, strict=False):
        where = name if len(columns) == 1 else f"{name}[{column_name!r}]"
        part = column_codes(column, levels, where)
        codes = part if codes is None else codes * len(levels) + part
    return codes


# n_rows (the row count of any input, Dask collections included) is fairlearn_dp._utils._rows's, imported above.


def unread_y_true(y_true, classes):
    """The ``y_true`` a frame counts when none of its metrics reads it (public probes) and ``y_true`` is public
    (``"sensitive_attribute"``): ``y_true`` itself when it holds labels of the frame's classes (0/1 without
    declared ``classes``), else -- a placeholder such as Fairlearn's user guide passes for ``selection_rate``,
    ``range(n)`` -- every row in the first class, so the release is the (group, prediction) table and only the
    length of ``y_true`` is read. Dask inputs keep their labels.
    """
    if is_dask_collection(y_true):
        return y_true
    try:
        if classes is None:
            check_binary_labels(y_true, "y_true")
        else:
            class_codes(y_true, classes, "y_true")
        return y_true
    except (TypeError, ValueError):
        n = n_rows(y_true)
        return np.zeros(n, dtype=np.int8) if classes is None else np.full(n, classes[0], dtype=object)


def binary_labels(values, name):
    """``values`` as an int8 array of 0/1 labels (bool accepted): :func:`~fairlearn_dp._utils._validation.
    check_binary_labels`, whose one message names ``name``.
    """
    try:
        return check_binary_labels(values, name).astype(np.int8)
    except ValueError as exc:
        if "binary" not in str(exc):
            raise
        raise ValueError(f"{exc} For several classes, declare them: labels=[...] (DPMetricFrame: "
                         "options=MetricFrameOptions(labels=[...])).") from None


def class_codes(values, classes, name):
    """Index of each row's label in the public ``classes``; a missing or undeclared label is a ``ValueError``
    naming ``name`` (without quoting a value of the data).
    """
    values = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if values.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got {values.ndim} dimensions.")
    codes = pd.Index(list(classes)).get_indexer(values)
    if codes.size and codes.min() < 0:
        raise ValueError(f"{name} contains a missing label or a label that is not one of the {len(classes)} "
                         "declared labels; declare every class in labels=[...].")
    return codes.astype(np.int64)


def bounded_values(values, name, bounds):
    """``values`` as floats clipped to the public ``bounds`` (NaN or infinity is a ``ValueError`` naming ``name``)."""
    return np.clip(as_1d_float(values, name), bounds[0], bounds[1])
