"""Counting a private metric frame's cells, in memory or on Dask workers (the same per-row code for both).

The table of per-cell counts (or sums) adds up over any split of the rows, so with Dask inputs each partition is
counted on its worker by the in-memory function and only the summed ``(C, G, K)`` table reaches the client.
"""

from __future__ import annotations

import numpy as np

from .._utils._dask import aligned_partitions, is_dask_input, tree_reduce
from .._utils._rows import n_rows
from .._utils._validation import as_1d_float
from ._frame_inputs import binary_labels, bounded_values, cell_codes, class_codes
from ._frame_release import count_cells

__all__ = ["count_frame", "row_weights"]


def count_frame(*, y_true, y_pred, sf_columns, sf, cf_columns, cf, kind, bounds, values, classes=None,
                weights=None):
    """``(table, n)``: the exact ``(C, G, K)`` table of the frame's cells and the number of rows (``classes``: the
    declared labels, ``K = len(classes)^2``; None: 0/1 labels, ``K = 4``). ``weights = (sample_weight, bound)``:
    each row adds its weight instead of 1 (:func:`row_weights` checks them; Dask inputs are refused before).
    """
    columns = [column for _, column in sf_columns] + [column for _, column in (cf_columns or [])]
    if is_dask_input(y_true, y_pred, *columns):
        return _count_dask(y_true, y_pred, sf_columns, sf, cf_columns, cf, kind, bounds, values, classes)
    return _count_memory(y_true, y_pred, sf_columns, sf, cf_columns, cf, kind, bounds, values, classes, weights)


def row_weights(weights, bound, n):
    """The rows' weights as floats, clipped to ``[0, bound]`` (None: all must be 1). The domain is a finite,
    non-negative weight per row, checked after the budget check and before the release (nothing is charged when it
    fails; the messages quote no weight); inside it every dataset fits: a weight above the public ``bound`` is
    clipped to it without a warning, as any value beyond a public bound (the guarantee is for the clipped weights).
    """
    if n_rows(weights) != n:
        raise ValueError("sample_weight and y_true have different lengths (length mismatch).")
    w = as_1d_float(weights, "sample_weight")
    if bound is None:
        if not np.all(w == 1):
            raise ValueError("sample_weight holds weights other than 1: declare their public bound, "
                             "options=MetricFrameOptions(weight_bound=B) (every weight in [0, B]; the noise scales with "
                             "B), or drop the weights.")
        return None                                     # all 1: the unweighted release
    if np.any(w < 0):
        raise ValueError("sample_weight holds negative weights: a private frame needs weights in [0, "
                         "options.weight_bound].")
    return np.minimum(w, bound)


def _count_memory(y_true, y_pred, sf_columns, sf, cf_columns, cf, kind, bounds, values, classes=None, weights=None):
    n = n_rows(y_true)
    if n == 0:
        raise ValueError("y_true is empty.")
    _check_lengths(n, y_pred, sf_columns, cf_columns)
    w = None if weights is None else row_weights(weights[0], weights[1], n)
    cells = cell_codes(sf_columns, sf, "sensitive_features")
    if cf is not None:
        cells = cell_codes(cf_columns, cf, "control_features") * sf.n_cells + cells
    n_cells = sf.n_cells * (1 if cf is None else cf.n_cells)
    if kind == "classification" and classes is not None:
        table = count_cells(cells, n_cells, labels=(class_codes(y_true, classes, "y_true"),
                                                    class_codes(y_pred, classes, "y_pred")), n_classes=len(classes),
                            weights=w)
    elif kind == "classification":
        table = count_cells(cells, n_cells, labels=(binary_labels(y_true, "y_true"), binary_labels(y_pred, "y_pred")),
                            weights=w)
    else:
        table = count_cells(cells, n_cells, values=_scaled_values(y_true, y_pred, bounds, values), weights=w)
    return table.reshape(1 if cf is None else cf.n_cells, sf.n_cells, -1), n


def _check_lengths(n, y_pred, sf_columns, cf_columns):
    for name, value in [("y_pred", y_pred)] + [(f"sensitive_features[{c!r}]", v) for c, v in sf_columns] + [
            (f"control_features[{c!r}]", v) for c, v in (cf_columns or [])]:
        if n_rows(value) != n:
            raise ValueError(f"{name} and y_true have different lengths (length mismatch).")


def _scaled_values(y_true, y_pred, bounds, names):
    """The regression rows' values scaled into [0, 1] by the public ``bounds`` (module docstring of
    :mod:`._frame_release`).
    """
    low, high = bounds
    width = high - low
    truth = bounded_values(y_true, "y_true", bounds)
    prediction = bounded_values(y_pred, "y_pred", bounds)
    error = (truth - prediction) / width
    scaled = {"prediction": (prediction - low) / width, "squared_error": error ** 2, "absolute_error": np.abs(error)}
    if not names:
        return np.zeros((truth.size, 0))
    return np.stack([scaled[name] for name in names], axis=1)


# ------------------------------------------------------------------------------------------------------ Dask
def _count_dask(y_true, y_pred, sf_columns, sf, cf_columns, cf, kind, bounds, values, classes):
    """Map: each aligned partition counted by :func:`_count_memory` on its worker; reduce: the tables summed."""
    import dask

    named = [("y_true", y_true), ("y_pred", y_pred)] + [(f"sensitive_features[{c!r}]", v) for c, v in sf_columns]
    named += [(f"control_features[{c!r}]", v) for c, v in (cf_columns or [])]
    n_sf = len(sf_columns)
    tables = [dask.delayed(_count_partition)(row[0], row[1], list(row[2:2 + n_sf]), list(row[2 + n_sf:]),
                                             [c for c, _ in sf_columns], [c for c, _ in (cf_columns or [])],
                                             sf, cf, kind, bounds, values, classes)
              for row in aligned_partitions(named)]
    table, n = tree_reduce(tables, _add)                       # a tree of sums on the workers
    if n == 0:
        raise ValueError("y_true is empty.")
    return table, n


def _count_partition(y_true, y_pred, sf_parts, cf_parts, sf_names, cf_names, sf, cf, kind, bounds, values, classes):
    n = len(y_true)
    if n == 0:
        k = 2 if classes is None else len(classes)
        shape = (1 if cf is None else cf.n_cells, sf.n_cells, k * k if kind == "classification" else 1 + len(values))
        return np.zeros(shape), 0
    sf_columns = list(zip(sf_names, [_column(p) for p in sf_parts], strict=False))
    cf_columns = list(zip(cf_names, [_column(p) for p in cf_parts], strict=False)) if cf is not None else None
    return _count_memory(_column(y_true), _column(y_pred), sf_columns, sf, cf_columns, cf, kind, bounds, values,
                         classes)


def _column(part):
    """A partition as a 1-D column (a one-column frame's column)."""
    if hasattr(part, "columns") and len(part.columns) == 1:
        return part.iloc[:, 0]
    return part


def _add(*tables):
    return sum(t for t, _ in tables), sum(n for _, n in tables)
