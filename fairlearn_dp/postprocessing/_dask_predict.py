"""Lazy ``predict`` and ``_pmf_predict`` of the post-processors on Dask inputs, partition by partition.

Given Dask arrays, DataFrames or Series, ``predict`` and ``_pmf_predict`` of
:class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer` and
:class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` return a lazy Dask array: the call computes
nothing. It has one block per partition of ``X``, holding that partition's rows in order: for a Dask array ``X``
its row chunks; for a Dask DataFrame or Series one block per partition, whose lengths are unknown until computed
(as with ``to_dask_array()``). Each block is the estimator's own in-memory method on that partition -- the prefit
base model's predict method, the binning, the group encoding, with their checks and messages -- run on the workers:
the estimator's ``predict`` passes the bound method of a light copy of itself (without its accountant), which Dask
ships once per worker. This module reads and sets nothing of the estimators: it receives callables.

Randomised predictions. The in-memory ``predict`` draws one uniform per row, in row order: ``random_sample(n)`` of
:func:`fairlearn_dp.privacy._random.check_random_state` of ``random_state``. On Dask inputs partition ``i`` draws from
that same generator advanced by the number of rows before it (:func:`~fairlearn_dp.privacy._random.skip_draws`). Row
``r`` therefore gets draw ``r`` of one stream whatever the partitioning, and the computed predictions are exactly
the in-memory ``predict`` of the computed inputs with the same ``random_state`` (tested for several partitionings).
Advancing costs one extra draw per row, sequentially (about 3 ms per million rows). For a Dask array the lengths
are known: one task computes every partition's start before any data are needed. For a DataFrame or Series they
are not: each start is advanced from the previous partition's start by that partition's length, on the workers, so
partition ``i`` is predicted once the lengths of the partitions before it are known. ``random_state=None`` makes one
generator seeded by the operating system for the whole call (never numpy's global one); a ``RandomState`` passed in
is read at the call and, unlike in memory, not advanced. After an in-memory fit at ``epsilon=inf`` with an estimator
(Fairlearn's ``ThresholdOptimizer``), each partition runs Fairlearn's ``predict`` with its advanced generator: the
draws of Fairlearn's ``predict`` on the whole input.

Checks. At the call, on the client: that the estimator is fitted, that ``sensitive_features`` is given or not as the
fitted mode requires, and the layout of the Dask arguments (all Dask collections, the same number of partitions,
known and equal chunk sizes for arrays), with the messages of the Dask ``fit``. Checks of the rows themselves -- a
group that is not one of ``groups_``, partitions of different lengths, outputs the base model cannot produce --
cannot run without reading the data: they raise the in-memory ``ValueError`` on the worker when the result is
computed. Warnings of ``predict`` (scores clipped to ``score_range`` or ``bounds``) are raised per partition, on the
worker. An empty partition gives an empty block.

``predict`` is not a privacy mechanism and spends no budget. Dask is imported only when Dask inputs are passed.

:class:`~fairlearn_dp.reductions.DPExponentiatedGradient` uses the same two functions for its lazy ``predict`` and
``_pmf_predict`` (without sensitive features: its randomized classifier reads ``X`` only).
"""

from __future__ import annotations

import copy

import numpy as np

from .._utils._dask import partitions as _partitions
from ..privacy._random import copy_random_state, skip_draws
from ._distributed import _aligned_partitions, _check_partition_lengths, _rows

__all__ = ["predict_dask", "pmf_predict_dask"]


def predict_dask(randomised_predict, X, sensitive_features, random_state, *, dtype):
    """Lazy ``predict``: block ``i`` is ``randomised_predict(x_i, sensitive_features_i, generator_i)``, with the
    generator of ``random_state`` advanced by the rows before partition ``i``.
    """
    import dask

    parts, lengths = _row_partitions(X, sensitive_features)
    shared = dask.delayed(randomised_predict, pure=False)     # shipped once per worker, not once per task
    states = _partition_states(copy_random_state(random_state), parts, lengths)
    blocks = [dask.delayed(_predict_partition, pure=False)(shared, index, x, part_groups, *state, np.dtype(dtype))
              for index, ((x, part_groups), state) in enumerate(zip(parts, states, strict=False))]
    return _as_array(blocks, lengths, np.dtype(dtype), ())


def pmf_predict_dask(pmf_predict, X, sensitive_features, *, n_columns):
    """Lazy ``_pmf_predict``: block ``i`` is ``pmf_predict(x_i, sensitive_features=sensitive_features_i)``,
    ``n_columns`` wide.
    """
    import dask

    parts, lengths = _row_partitions(X, sensitive_features)
    shared = dask.delayed(pmf_predict, pure=False)
    blocks = [dask.delayed(_pmf_partition, pure=False)(shared, index, x, part_groups, n_columns)
              for index, (x, part_groups) in enumerate(parts)]
    return _as_array(blocks, lengths, np.dtype(float), (n_columns,))


# ------------------------------------------------------------------------------------------------- on the client
def _row_partitions(X, sensitive_features):
    """``([(x_i, sensitive_features_i or None), ...], row lengths of X's partitions or None)``; raises the Dask
    ``fit``'s ``ValueError`` (naming the argument) when the partitions cannot align.
    """
    x_blocks, lengths = _partitions(X, "X")
    if sensitive_features is None:
        return [(x, None) for x in x_blocks], lengths
    return [(x, part_groups) for x, _, part_groups in _aligned_partitions(X, None, sensitive_features)], lengths


def _partition_states(generator, parts, lengths):
    """For each partition, ``(states, position)``: it starts from ``states[position]``, ``generator`` advanced by the
    rows of the partitions before it.

    Known lengths (Dask arrays): one task computes every partition's start (no data needed; it can run first), so
    no partition waits on another. Unknown lengths (DataFrames, Series): a chain, each start advanced from the
    previous one by ``len`` of the previous partition on its worker. Not one task fed by every partition's ``len``
    (``map_partitions(len)``): every partition's block would then wait on all the lengths, so Dask would hold every
    partition in memory until the last one is read (measured, threaded scheduler, 24 partitions of 16 MB: peak 440
    MiB against 127 MiB for the chain, the same time); advancing the generator is sequential either way (about 3 ms
    per million rows), so the chain costs no parallelism the single task would give.
    """
    import dask

    if lengths is not None:
        starts = dask.delayed(_partition_starts, pure=False)(generator, lengths)
        return [(starts, index) for index in range(len(parts))]
    states = [generator]
    for index in range(len(parts) - 1):
        rows = dask.delayed(_rows, pure=False)(parts[index][0])
        states.append(dask.delayed(skip_draws, pure=False)(states[-1], rows))
    return [([state], 0) for state in states]


def _partition_starts(generator, lengths):
    """``generator`` advanced by ``0, lengths[0], lengths[0] + lengths[1], ...`` draws: each partition's start."""
    starts = [copy.deepcopy(generator)]
    for length in lengths[:-1]:
        starts.append(skip_draws(starts[-1], length))
    return starts


def _as_array(blocks, lengths, dtype, columns):
    """One Dask array of the blocks, stacked along the rows (lengths NaN where unknown)."""
    import dask.array as da

    lengths = [np.nan] * len(blocks) if lengths is None else lengths
    return da.concatenate([da.from_delayed(block, shape=(length, *columns), dtype=dtype)
                           for block, length in zip(blocks, lengths, strict=False)], axis=0)


# ------------------------------------------------------------------------------------------------ on the workers
def _predict_partition(randomised_predict, index, x, sensitive_features, states, position, dtype):
    if _check_partition_lengths(index, x, None, sensitive_features) == 0:
        return np.zeros(0, dtype=dtype)
    # A copy: the state is shared with other tasks (the next start of a chain; threads of one worker).
    predictions = randomised_predict(x, sensitive_features, copy.deepcopy(states[position]))
    return np.asarray(predictions).astype(dtype, copy=False)


def _pmf_partition(pmf_predict, index, x, sensitive_features, n_columns):
    if _check_partition_lengths(index, x, None, sensitive_features) == 0:
        return np.zeros((0, n_columns))
    return np.asarray(pmf_predict(x, sensitive_features=sensitive_features), dtype=float)
