"""The Dask counting backend of the post-processors: per-partition counts on the workers, summed in a tree.

Both post-processors read their data only through one table of counts: the (group, bin) histogram of
:class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` and the (group, score bin, label) table of
:class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`. Counts add up over any split of the rows, so with Dask
inputs the counting step of ``fit`` (:mod:`._counting`; docs/design.md, "Scale") is a map-reduce:

1. on the client, before any data are read: the layout of the Dask inputs (:func:`check_layout`: number of
   partitions, known chunk sizes), checked by ``fit`` with its other public checks;
2. map, on the workers, partition by partition: the estimator's ``cell_index`` (its own per-row code, with its
   domain checks and messages), reduced to an integer count per cell with :func:`numpy.bincount`;
3. reduce: the count tables are summed in a tree of tasks (``FAN_IN`` tables per task) on the workers, and only
   the summed table reaches the client, where ``fit`` releases it once.

This module neither reads nor sets anything of the estimators: it receives the ``cell_index`` callable (a partial
over a light copy of the estimator, which Dask ships once per worker) and returns counts. The same data,
parameters and ``random_state`` therefore give the same released statistic (and the same fitted object) as the
in-memory ``fit``, whatever the partitioning and the scheduler (tested).

Privacy and failure paths. The number of rows ``n`` is public in memory, and so is the layout here (how many
partitions, their lengths): it is a property of how the data are stored, not of their values, and no error
message carries a count or a value. A row that fails a domain check (non-numeric output, a group not in
``groups``, a non-binary label, partitions of different lengths) raises on its worker before anything is
released: the error reaches the client, the accountant is not charged and the estimator stays as it was
(``atomic_fit``). Dask is an optional dependency (``pip install "fairdp[dask]"``); nothing here imports it unless
Dask inputs are passed. ``predict`` and ``_pmf_predict`` on Dask inputs are in ``_dask_predict.py``.
"""

from __future__ import annotations

import numpy as np

from .._utils._dask import FAN_IN, aligned_partitions, is_dask_input, tree_reduce

__all__ = ["is_dask_input", "check_layout", "count_cells_dask", "FAN_IN"]

_ARGUMENTS = ("X", "y", "sensitive_features")


# ------------------------------------------------------------------------------------------------ public checks
def _aligned_partitions(X, y, sensitive_features):
    """Partition ``i`` of every argument, side by side: ``[(x_i, y_i or None, sf_i), ...]``
    (:func:`~fairlearn_dp._utils._dask.aligned_partitions`, ``X`` the reference).
    """
    if sensitive_features is None:
        raise ValueError("sensitive_features is required.")
    return aligned_partitions(list(zip(_ARGUMENTS, (X, y, sensitive_features), strict=False)))


def check_layout(X, y, sensitive_features):
    """The public checks of Dask inputs (types and layout only, no data): a ``ValueError`` naming the argument."""
    _aligned_partitions(X, y, sensitive_features)


# ---------------------------------------------------------------------------------------------- map and reduce
def _rows(part):
    return 0 if part is None else len(part)


def _check_partition_lengths(index, x, y, sensitive_features):
    n = _rows(x)
    for name, part in (("y", y), ("sensitive_features", sensitive_features)):
        if part is not None and _rows(part) != n:
            raise ValueError(f"{name} and X differ in length in partition {index} (length mismatch): partition i "
                             "of every argument must hold the same rows.")
    return n


def _partition_counts(cell_index, n_cells, index, x, y, sensitive_features):
    """Map step: the integer count of every cell on one partition (zeros for an empty partition)."""
    if _check_partition_lengths(index, x, y, sensitive_features) == 0:
        return np.zeros(n_cells, dtype=np.int64)
    return np.bincount(cell_index(x, y, sensitive_features), minlength=n_cells).astype(np.int64, copy=False)


def _sum_tables(*tables):
    return sum(tables[1:], tables[0])


def count_cells_dask(cell_index, n_cells, X, y, sensitive_features):
    """The Dask backend of :mod:`._counting`: ``(counts, n)``, the integer count of each of the ``n_cells`` cells
    (``cell_index(x, y, sf)`` run on every aligned partition on the workers) and the number of rows.
    """
    import dask

    partitions = _aligned_partitions(X, y, sensitive_features)
    shared = dask.delayed(cell_index, pure=False)      # shipped once per worker, not once per task
    tables = [dask.delayed(_partition_counts, pure=True)(shared, n_cells, index, *parts)
              for index, parts in enumerate(partitions)]
    counts = np.asarray(tree_reduce(tables, _sum_tables))
    return counts, int(counts.sum())
