"""Dask inputs: detection without importing Dask, and a collection cut into partitions on the client.

Dask is an optional dependency (``pip install "fairdp[dask]"``); nothing here imports it unless Dask inputs are
passed. The checks look at types and layout only (number of partitions, known chunk sizes), never at values.
"""

from __future__ import annotations

import math
import sys

__all__ = ["is_dask_input", "is_dask_collection", "partitions", "aligned_partitions", "tree_reduce", "FAN_IN"]

#: Partition tables combined per reduce task (the tree of sums has depth log_FAN_IN(number of partitions)).
FAN_IN = 16


def is_dask_input(*values):
    """True when any of ``values`` is a Dask collection (without importing Dask when it is not loaded)."""
    dask = sys.modules.get("dask")
    return dask is not None and any(dask.is_dask_collection(value) for value in values if value is not None)


def is_dask_collection(value):
    """True when ``value`` is a Dask collection (without importing Dask when it is not loaded)."""
    return is_dask_input(value)


def partitions(value, name):
    """``(delayed partitions, their lengths or None)`` of one Dask argument; public checks only (type, layout).

    Arrays must have known chunk sizes along the rows; their lengths are then known on the client. DataFrame and
    Series partitions have unknown lengths: they are checked row for row on the workers.
    """
    import dask
    import dask.array as da

    if not dask.is_dask_collection(value):
        raise ValueError(f"{name} is a {type(value).__name__}, not a Dask collection, but other arguments are: pass "
                         "X, y and sensitive_features all as Dask arrays, DataFrames or Series with the same "
                         "partitions (e.g. dask.array.from_array(..., chunks=X.chunks[0])).")
    if isinstance(value, da.Array):
        if value.ndim not in (1, 2):
            raise ValueError(f"{name} must be a 1-D or 2-D Dask array, got {value.ndim} dimensions.")
        lengths = value.chunks[0]
        if any(math.isnan(length) for length in lengths):
            raise ValueError(f"{name} has unknown chunk sizes (NaN in {name}.chunks): call "
                             f"{name}.compute_chunk_sizes() (or build it with known chunks) before fit.")
        if value.ndim == 2 and value.numblocks[1] != 1:
            value = value.rechunk({1: -1})           # every partition must hold whole rows
        # optimize_graph=False keeps the keys of shared inputs (X, y and groups cut from one array) shared, so
        # each input block is computed once; optimising each argument separately would fuse and duplicate them.
        return value.to_delayed(optimize_graph=False).ravel().tolist(), [int(length) for length in lengths]
    if hasattr(value, "npartitions") and hasattr(value, "to_delayed"):       # Dask DataFrame / Series
        return list(value.to_delayed(optimize_graph=False)), None
    raise ValueError(f"{name} must be a Dask array, DataFrame or Series, got {type(value).__name__}.")


def aligned_partitions(named):
    """Partition ``i`` of every argument, side by side: ``[(part_0 or None, part_1 or None, ...), ...]`` for
    ``named = [(name, Dask collection or None), ...]``, the first the reference (public checks only: types, layout).

    Raises ``ValueError`` naming the argument when the partitions cannot align: not a Dask collection, unknown chunk
    sizes, another number of partitions, or known partition lengths that differ from the reference's.
    """
    parts = [None if value is None else partitions(value, name) for name, value in named]
    reference, (blocks0, lengths0) = named[0][0], parts[0]
    for (name, _), part in zip(named, parts, strict=False):
        if part is None:
            continue
        blocks, lengths = part
        if len(blocks) != len(blocks0):
            raise ValueError(f"{name} has {len(blocks)} partitions but {reference} has {len(blocks0)}: the arguments "
                             "must be partitioned alike, row for row (rechunk/repartition them the same way).")
        if lengths is not None and lengths0 is not None and lengths != lengths0:
            if sum(lengths) != sum(lengths0):
                raise ValueError(f"{name} and {reference} have different lengths (length mismatch).")
            raise ValueError(f"{name} is partitioned differently from {reference} along the rows: rechunk it to "
                             f"{reference}'s row chunks so that partition i of every argument holds the same rows.")
    return [tuple(None if part is None else part[0][i] for part in parts) for i in range(len(blocks0))]


def tree_reduce(tables, combine, fan_in=FAN_IN):
    """``combine`` the delayed per-partition ``tables`` in a tree of tasks on the workers (``fan_in`` per task, in
    partition order); only the result reaches the client.
    """
    import dask

    level = list(tables)
    while len(level) > 1:
        level = [dask.delayed(combine, pure=True)(*level[i:i + fan_in]) for i in range(0, len(level), fan_in)]
    (result,) = dask.compute(level[0])
    return result
