"""The statistics game's reads of its rows, in memory or on Dask workers: sums over fixed blocks of rows.

With the least-squares Learner (always under ``privacy_unit="record"``; ``estimator=None`` or
``options.oracle="least_squares"`` under ``"sensitive_attribute"``) :class:`~._statistics_game.StatisticsGame` reads
its rows (the features as the game sees them, the 0/1 labels, the group indices) only through sums over them:

1. before the release (:func:`exact_statistics`): per release cell the sums of ``phi = [x, 1]`` (of ``[z, 1]`` under
   ``"sensitive_attribute"``, :mod:`._public_features`, whose centre and scale :func:`public_feature_map` reads off
   the public ``X`` in two passes), the label counts and the Gram matrix of ``phi``;
2. every round (:func:`play_counts`): the rows of each (label, group) cell, by the play's 0/1 prediction;
3. at the end (:func:`mixture_sums`): the mixture's training cost and, for the exact choice against the fair
   constants, the moments of its per-row cost differences.

The rows are an :class:`InMemoryRows` (numpy arrays) or a :class:`DaskRows` (Dask arrays, DataFrames or Series,
converted partition by partition on the workers with the in-memory domain checks and clipping). Every pass is one
``reduce`` over the rows; nothing but the reduced values reaches the client (the in-memory ``fit``'s own arrays
otherwise).

**The same values in memory and on Dask, bit for bit.** A count is an integer: the round's counts are summed by the
post-processors' counting backends (:mod:`fairlearn_dp.postprocessing._counting`) and are exact whatever the split.
A float sum depends on the order of its terms, so every float read off the rows is computed in one fixed order,
whatever the partitioning: the rows are cut into *blocks* of ``BLOCK_ROWS`` consecutive rows (row ``r`` in block
``r // BLOCK_ROWS``); each block's partial is computed from the block's rows alone by the same numpy code (cell sums
with :func:`numpy.bincount`, sequential in row order; the Gram matrix as pairwise sums of products, no BLAS, whose
summation order can depend on the call's shape and threads; a play's scores column by column), and the blocks'
partials are combined along one fixed binary tree over the block index (a node adds its two halves; a missing
right half adds nothing), the same tree in memory and on Dask. On Dask every partition is first rechunked to hold
whole blocks, and each partition combines the complete subtrees it holds; the tree of tasks (:func:`~.._utils.
_dask.tree_reduce`) merges the partitions' subtrees in order. A fit of at most ``BLOCK_ROWS`` rows sums as before
(one block: the previous in-memory code's sums, unchanged).

Privacy: this module computes exact values of the data and releases nothing; the game releases them
(:mod:`fairlearn_dp.privacy._release`). The Dask inputs must give the same rows at every pass (persisted or generated
from a seed): each pass reads them again.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from .._utils._dask import aligned_partitions, partitions, tree_reduce
from .._utils._rows import clip_rows
from .._utils._validation import as_group_vector, encode_groups
from ..postprocessing._counting import count_cells_dask, count_cells_in_memory
from ._eg_params import checked_rows

__all__ = ["BLOCK_ROWS", "InMemoryRows", "DaskRows", "ExactStatistics", "exact_statistics", "symmetric_gram",
           "public_feature_map", "play_counts", "play_predictions", "mixture_sums"]

#: Rows per block: every float sum over the rows is a fixed tree of per-block partials (module docstring). Dask
#: partitions are rechunked to multiples of it (a chunking in multiples of 10,000 rows needs no rechunk).
BLOCK_ROWS = 10_000


# ------------------------------------------------------------------------------------------- the fixed tree
def _push(stack, node, merge):
    """Push ``node = (level, index, value)`` (a subtree of ``2**level`` blocks) onto ``stack``, merging it with its
    left sibling as long as that is the node below it: the stack is the binary counter of the blocks seen so far.
    """
    stack.append(node)
    while len(stack) > 1:
        (level, index, left), (right_level, right_index, right) = stack[-2], stack[-1]
        if level != right_level or index % 2 or right_index != index + 1:
            break
        stack[-2:] = [(level + 1, index // 2, merge(left, right))]
    return stack


def _block_stack(function, merge, block_rows, first_block, X, y, groups):
    """The subtrees of the blocks of ``block_rows`` rows of ``(X, y, groups)``, whose first row starts block
    ``first_block``: each block's partial is ``function(x, y, g)`` of its rows.
    """
    stack = []
    for index, start in enumerate(range(0, len(y), block_rows)):
        block = slice(start, start + block_rows)
        partial = function(np.ascontiguousarray(X[block]), y[block], groups[block])
        _push(stack, (0, first_block + index, partial), merge)
    return stack


def _concatenate_stacks(merge, *stacks):
    """The stacks of consecutive row ranges, in order, as one (the reduce step on the workers)."""
    combined = []
    for stack in stacks:
        for node in stack:
            _push(combined, node, merge)
    return combined


def _root(stack, merge):
    """The tree's value: the remaining subtrees (decreasing sizes) added from the right, as missing right halves
    add nothing.
    """
    value = stack[-1][2]
    for _, _, left in reversed(stack[:-1]):
        value = merge(left, value)
    return value


def _add(left, right):
    return left + right


def _add_and_max(left, right):
    """Partials ``(sums, maxima)``: the sums add, the maxima (exact in any order) take the larger."""
    return left[0] + right[0], np.maximum(left[1], right[1])


# ------------------------------------------------------------------------------------------- the rows
class InMemoryRows:
    """The game's rows in memory: ``X`` (C-ordered floats, clipped under ``"record"``), ``y`` (0/1) and ``g``
    (group indices), read block by block.
    """

    in_memory = True

    def __init__(self, X, y, g):
        self.X, self.y, self.g = np.ascontiguousarray(X, dtype=float), y, g
        self.n, self.d = self.X.shape

    def reduce(self, function, merge=_add):
        """The fixed tree of ``function``'s block partials, combined by ``merge``."""
        return _root(_block_stack(function, merge, BLOCK_ROWS, 0, self.X, self.y, self.g), merge)

    def counts(self, cell_index, n_cells):
        """The integer count of each of the ``n_cells`` cells of ``cell_index(X, y, g)``."""
        return count_cells_in_memory(cell_index, n_cells, self.X, self.y, self.g)[0]


def game_partition(X, y, sensitive_features, *, groups, clip_bound):
    """One Dask partition as the game's rows: the in-memory domain checks (:func:`._eg_params.checked_rows`, the
    declared ``groups``), C-ordered floats, rows clipped onto the public ``clip_bound`` under ``"record"``.
    """
    X_arr, y_arr = checked_rows(X, y, allow_empty=True)
    group_index = encode_groups(as_group_vector(sensitive_features, X_arr.shape[0], groups=groups), groups)
    X_arr = np.ascontiguousarray(X_arr)
    return (X_arr if clip_bound is None else clip_rows(X_arr, clip_bound)), y_arr, group_index


def _block_grid(lengths, block_rows):
    """Row chunks whose boundaries are the partitions' boundaries rounded down to whole blocks."""
    starts = np.cumsum([0, *lengths])
    bounds = sorted({int(s) // block_rows * block_rows for s in starts[:-1]} | {int(starts[-1])})
    return tuple(int(b) for b in np.diff(bounds))


class DaskRows:
    """The game's rows on Dask: ``X``, ``y`` and ``sensitive_features`` (Dask collections, partitioned alike; their
    layout was checked before the budget) converted partition by partition on the workers (:func:`game_partition`),
    rechunked into whole blocks. A DataFrame's partition lengths are read in one pass first.
    """

    in_memory = False

    def __init__(self, X, y, sensitive_features, *, groups, clip_bound, n_features):
        import dask
        import dask.array as da

        parts = aligned_partitions([("X", X), ("y", y), ("sensitive_features", sensitive_features)])
        lengths = partitions(X, "X")[1]
        if lengths is None:                         # DataFrame / Series partitions: their lengths, one pass
            lengths = list(dask.compute(*[dask.delayed(len)(x) for x, _, _ in parts]))
        self.n, self.d = int(sum(lengths)), int(n_features)
        convert = dask.delayed(functools.partial(game_partition, groups=list(groups), clip_bound=clip_bound),
                               pure=False)          # shipped once per worker, not once per task
        pieces = [convert(*part) for part in parts]
        columns = [da.concatenate([da.from_delayed(piece[k], shape=(m, self.d)[:ndim], dtype=dtype)
                                   for piece, m in zip(pieces, lengths, strict=True)])
                   for k, ndim, dtype in ((0, 2, float), (1, 1, int), (2, 1, np.intp))]
        self.block_rows = BLOCK_ROWS                # read once, on the client: the workers receive it
        chunks = _block_grid(lengths, self.block_rows)
        self.X, self.y, self.g = (column.rechunk({0: chunks}) for column in columns)
        self._first_blocks = [int(s) // self.block_rows for s in np.cumsum([0, *chunks[:-1]])]

    def reduce(self, function, merge=_add):
        """The fixed tree of ``function``'s block partials: each partition's subtrees on its worker, merged in a
        tree of tasks (``tree_reduce``); only the merged subtrees (at most one per level) reach the client.
        """
        import dask

        shared = dask.delayed(function, pure=False)
        stacks = [dask.delayed(_block_stack, pure=True)(shared, merge, self.block_rows, first, *part)
                  for first, part in zip(self._first_blocks, aligned_partitions(
                      [("X", self.X), ("y", self.y), ("groups", self.g)]), strict=True)]
        return _root(tree_reduce(stacks, functools.partial(_concatenate_stacks, merge)), merge)

    def counts(self, cell_index, n_cells):
        """The integer count of each cell, counted on the workers (the post-processors' Dask counting backend)."""
        return count_cells_dask(cell_index, n_cells, self.X, self.y, self.g)[0]


# ------------------------------------------------------------------------------------------- the passes
class ExactStatistics(NamedTuple):
    """The exact statistics of the one release (before noise) and what the Learner reads of the public rows."""

    cell_sums: np.ndarray           # (cells / G, G, d + 1): sums of phi per release cell
    label_counts: np.ndarray        # (2, G): rows per (label, group) cell (integer-valued floats)
    gram_upper: np.ndarray | None   # the upper triangle (diagonal included, row by row) of Phi^T Phi
    total: np.ndarray | None        # Phi^T 1 ("sensitive_attribute", least-squares Learner)
    positive: np.ndarray | None     # Phi^T y (idem)
    max_norm: float | None          # the largest ||z|| ("sensitive_attribute")


def symmetric_gram(upper):
    """The symmetric ``(k, k)`` matrix of its upper triangle ``upper`` (diagonal included, row by row)."""
    k = int(round((math.sqrt(8 * upper.size + 1) - 1) / 2))
    gram = np.zeros((k, k))
    gram[np.triu_indices(k)] = upper
    return gram + np.triu(gram, 1).T


def _gram_upper(phi):
    """``phi^T phi``'s upper triangle, row by row, each entry a pairwise sum of the products (numpy, no BLAS)."""
    columns = np.ascontiguousarray(phi.T)
    products = np.empty_like(columns)               # one buffer: row j - i holds column i times column j
    upper = []
    for i in range(len(columns)):
        np.multiply(columns[i:], columns[i], out=products[:len(columns) - i])
        upper.append(products[:len(columns) - i].sum(axis=1))
    return np.concatenate(upper)


def _statistics_block(X, y, g, *, n_groups, event_of_label, n_events, feature_map, gram, totals, norms):
    """One block's partial of :func:`exact_statistics`: ``(sums, [largest ||z||])``."""
    z = X if feature_map is None else feature_map.transform(X)
    phi = np.column_stack([z, np.ones(len(y))])
    if event_of_label is None:                  # (label, group) cells
        cells, values, n_cells = y * n_groups + g, phi, 2 * n_groups
    else:                                       # (event, group) cells; rows outside every event are left out
        event = event_of_label[y]
        inside = event >= 0
        cells, values, n_cells = (event * n_groups + g)[inside], phi[inside], n_events * n_groups
    columns = np.ascontiguousarray(values.T)
    parts = [np.stack([np.bincount(cells, weights=column, minlength=n_cells) for column in columns], axis=1).ravel(),
             np.bincount(y * n_groups + g, minlength=2 * n_groups).astype(float)]
    if gram:
        parts.append(_gram_upper(phi))
    if totals:
        parts += [phi.sum(axis=0), phi[y == 1].sum(axis=0)]
    largest = np.linalg.norm(z, axis=1).max(initial=0.0) if norms else 0.0
    return np.concatenate(parts), np.array([largest])


def exact_statistics(rows, *, n_groups, event_of_label, n_events, feature_map, gram, totals, norms):
    """One pass: the game's :class:`ExactStatistics`. ``event_of_label``: each label's event (-1: none) for (event,
    group) release cells, None for (label, group) cells; ``feature_map``: the public map of ``"sensitive_attribute"``
    (None: ``phi = [x, 1]``); ``gram`` and ``totals``: what the least-squares Learner reads; ``norms``: the largest
    ``||z||`` too (public ``X`` only).
    """
    sums, maxima = rows.reduce(functools.partial(
        _statistics_block, n_groups=n_groups, event_of_label=event_of_label, n_events=n_events,
        feature_map=feature_map, gram=gram, totals=totals, norms=norms), _add_and_max)
    k, n_cells = rows.d + 1, (2 if event_of_label is None else n_events) * n_groups
    sizes = [n_cells * k, 2 * n_groups, k * (k + 1) // 2 if gram else 0, k if totals else 0, k if totals else 0]
    cell_sums, labels, upper, total, positive = np.split(sums, np.cumsum(sizes)[:-1])
    return ExactStatistics(cell_sums.reshape(n_cells // n_groups, n_groups, k), labels.reshape(2, n_groups),
                           upper if gram else None, total if totals else None, positive if totals else None,
                           float(maxima[0]) if norms else None)


def _column_sums_block(X, y, g):
    return X.sum(axis=0), np.array([np.linalg.norm(X, axis=1).max(initial=0.0)])


def _deviation_block(X, y, g, *, center):
    return np.abs(X - center).max(axis=0, initial=0.0)


def public_feature_map(rows):
    """Two passes over the public ``X`` (``"sensitive_attribute"``): ``(largest ||x||, centre, largest |x - centre|
    per column)``; the centre is the column means (summed in the fixed order of the blocks).
    """
    sums, observed = rows.reduce(_column_sums_block, _add_and_max)
    center = sums / rows.n
    deviation = rows.reduce(functools.partial(_deviation_block, center=center), np.maximum)
    return float(observed[0]), center, deviation


def _scores(X, coef):
    """``X @ coef`` as each row's products summed by numpy (pairwise over the columns, a function of the row alone):
    a row's score is the same float wherever the row sits (BLAS may sum a row's products in another order for
    another shape or thread count). By slices of ``BLOCK_ROWS`` rows, so that the products stay small.
    """
    X = np.ascontiguousarray(X, dtype=float)
    scores = np.empty(X.shape[0])
    for start in range(0, X.shape[0], BLOCK_ROWS):
        scores[start:start + BLOCK_ROWS] = (X[start:start + BLOCK_ROWS] * coef).sum(axis=1)
    return scores


def play_predictions(X, play):
    """A :class:`~._hypotheses.LinearThresholdClassifier` play's 0/1 predictions on the game's rows."""
    return (_scores(X, play.coef) >= play.threshold).astype(np.intp)


def _play_cells(X, y, g, *, play, n_groups):
    return (y * n_groups + g) * 2 + play_predictions(X, play)


def play_counts(rows, play, n_groups):
    """One pass: ``(2, G, 2)`` integer counts of the rows by (label, group, the play's prediction)."""
    counts = rows.counts(functools.partial(_play_cells, play=play, n_groups=n_groups), 4 * n_groups)
    return np.asarray(counts, dtype=np.int64).reshape(2, n_groups, 2)


def _mixture_block(X, y, g, *, plays, weights, costs, constants):
    """One block's partial of :func:`mixture_sums`: ``(sums, moments)``."""
    positive = np.zeros(len(y))
    for play, w in zip(plays, weights, strict=True):
        positive = positive + w * play_predictions(X, play).astype(float)
    y = y.astype(float)
    c_fp, c_fn = costs
    row_model = c_fp * positive * (1.0 - y) + c_fn * (1.0 - positive) * y
    moments = []
    for c in constants:
        difference = c_fp * c * (1.0 - y) + c_fn * (1.0 - c) * y - row_model
        mean = difference.mean()
        moments.append([len(y), mean, np.square(difference - mean).sum()])
    return (np.array([(positive * (1.0 - y)).sum(), ((1.0 - positive) * y).sum(), positive.sum()]),
            np.array(moments))


def _merge_moments(left, right):
    """``(sums, moments)``: the sums add; the moments ``(count, mean, M2)`` per constant merge (Chan et al.)."""
    (n_a, mean_a, m2_a), (n_b, mean_b, m2_b) = left[1].T, right[1].T
    n = n_a + n_b
    delta = mean_b - mean_a
    moments = np.column_stack([n, mean_a + delta * n_b / n, m2_a + m2_b + delta * delta * n_a * n_b / n])
    return left[0] + right[0], moments


class MixtureSums(NamedTuple):
    """The mixture's sums over the training rows (:func:`mixture_sums`)."""

    false_positive: float           # sum of p (1 - y): the mixture's expected false positives
    false_negative: float           # sum of (1 - p) y
    positive: float                 # sum of p
    differences: dict               # {constant: (count, mean, sd)} of its per-row cost minus the mixture's


def mixture_sums(rows, plays, weights, *, costs, constants):
    """One pass: the sums of the mixture ``p = sum_h w_h h(x)`` of the plays of positive weight over the rows."""
    kept = [(play, float(w)) for play, w in zip(plays, weights, strict=True) if w > 0]
    sums, moments = rows.reduce(functools.partial(
        _mixture_block, plays=[p for p, _ in kept], weights=[w for _, w in kept], costs=tuple(costs),
        constants=tuple(constants)), _merge_moments)
    differences = {c: (int(count), float(mean), math.sqrt(m2 / (count - 1)) if count > 1 else 0.0)
                   for c, (count, mean, m2) in zip(constants, moments, strict=True)}
    return MixtureSums(float(sums[0]), float(sums[1]), float(sums[2]), differences)
