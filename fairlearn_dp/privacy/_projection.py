"""Projections of noisy releases onto public constraints (post-processing only).

A projection onto a sum is post-processing only when the sum is public (an invariant, or computed from public data):
a sum of private values would be published exactly by it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["project_onto_sum", "project_onto_nonnegative_sum", "nonnegative_sum_rows"]


def project_onto_sum(released: ArrayLike, totals: ArrayLike, *, axis: int = -1) -> np.ndarray:
    """``released`` moved onto the public sums ``released.sum(axis) == totals`` by the Euclidean projection.

    Closed form: add ``(total - sum) / k`` to each of the ``k`` entries along ``axis`` (Zhu et al.'s ``pi_S``). It
    is post-processing only when ``totals`` are public (an invariant, or values computed from public data): a sum of
    private values would leak. With independent equal-variance noise each projected entry keeps ``1 - 1/k`` of the
    noise variance, and the errors along ``axis`` sum to zero.
    """
    released = np.asarray(released, dtype=float)
    k = released.shape[axis]
    return released + np.expand_dims(np.asarray(totals, dtype=float) - released.sum(axis=axis), axis) / k


def project_onto_nonnegative_sum(released: ArrayLike, totals: ArrayLike) -> np.ndarray:
    """Each row of ``released`` moved onto ``{v >= 0 : sum(v) = total}`` by the Euclidean projection.

    ``released`` is 2-D (one vector per row) and ``totals`` one public total per row (or one for all rows), each
    ``> 0``. The projection is ``(x - theta)_+`` with ``sum (x - theta)_+ = total`` (Zhu et al.'s ``pi_S+``), found
    exactly by Michelot's active-set iteration (:func:`nonnegative_sum_rows`). Post-processing only when ``totals``
    are public.
    """
    rows = np.atleast_2d(np.asarray(released, dtype=float))
    totals = np.broadcast_to(np.asarray(totals, dtype=float), rows.shape[:1]).copy()
    if not np.all(totals > 0):
        raise ValueError("totals must be > 0 for the non-negative projection.")
    return nonnegative_sum_rows(rows, totals)


def nonnegative_sum_rows(rows: np.ndarray, total: float | np.ndarray) -> np.ndarray:
    """Michelot's iteration of :func:`project_onto_nonnegative_sum` on a 2-D array of finite rows (no validation);
    ``total`` is one total for all rows or one per row.

    Per round and row: ``above = x > theta``, ``theta = (sum(x where above, else 0) - total) / #above``; a row
    stops when ``#above`` stops changing. The arithmetic is fixed (the same sums over full rows, in the same
    order), so the result does not depend on how many rows are passed together. A row's sets only shrink or only
    grow from one round to the next (one threshold moves), so an unchanged count is an unchanged set, whose sum
    is the previous round's: the last round only counts. Every round runs on all rows, in place in preallocated
    buffers (no copies of the active rows): a row that has stopped keeps the ``theta`` of its last round, so its
    set is recomputed to the same set.
    """
    return _nonnegative_sum_rows_summed(rows, total, rows.sum(axis=1))


def _nonnegative_sum_rows_summed(rows, total, sums):
    """:func:`nonnegative_sum_rows` given ``sums = rows.sum(axis=1)`` (callers that have it pass it on).

    While every row is still iterating (the usual case: rows of similar data stop in the same round), the
    bookkeeping runs on whole vectors, without the masks of active rows; the numbers are the same either way.
    """
    n_rows, n = rows.shape
    total = np.broadcast_to(np.asarray(total, dtype=float), (n_rows,))      # one total per row (or one for all)
    theta = (sums - total) / n                       # sums: of the first set, all entries (x * 1.0 is x)
    kept = np.full(n_rows, n)
    kept_sum = None
    active = None                                    # None: every row is active
    mask = np.empty(rows.shape, dtype=bool)
    weights = mask.view(np.uint8)                    # the mask as 0 / 1: x * 1 is x, x * 0 is x * 0.0
    work = np.empty(rows.shape)
    while True:
        np.greater(rows, theta[:, None], out=mask)
        count = _row_counts(mask)
        if not count.all():             # rounding put theta at the largest entries: keep those
            lost = count == 0
            mask[lost] = rows[lost] == rows[lost].max(axis=1, keepdims=True)
            count = _row_counts(mask)
        if active is None:
            same = count == kept
            if same.all():                           # every row stops in this round
                kept_sum = sums
                break
            if same.any():                           # some rows stop: track the active ones from here on
                active = np.ones(n_rows, dtype=bool)
                kept_sum = np.zeros(n_rows)
        if active is not None:
            done = active & (count == kept)
            kept_sum[done] = sums[done]              # the same set as the round before: the same sum
            active &= ~done
            if not active.any():
                break
        # The sum of x where above, else 0, over the full row. x * 0.0 is -0.0 for x < 0 where np.where gives
        # +0.0; zeros of either sign leave every non-zero partial sum unchanged, so the sums are the same numbers.
        sums = np.multiply(rows, weights, out=work).sum(axis=1)
        if active is None:
            theta = (sums - total) / count
            kept = count
        else:
            theta[active] = (sums[active] - total[active]) / count[active]
            kept[active] = count[active]
    return _positive_part_on(rows, weights, kept_sum, kept, total, work)


def _positive_part_on(rows, weights, kept_sum, kept, total, out):
    """``(x - theta)_+`` on the kept set (``weights`` 1, else 0: floats, or the mask's bytes), written as ``(x -
    mean of the kept) + total / #kept``: the same number, without the cancellation of ``x - theta`` when the entries
    dwarf the total (e.g. ``[1e30, 0]`` onto 1 gave ``[0, 0]``). Computed in ``out``. The positive part is not -0.0
    (a sum with the positive ``total / #kept`` is -0.0 only if both terms are), so times 0 it is +0.0, as
    ``np.where`` writes (only if ``total / #kept`` underflows to 0 can an entry -0.0 outside the kept set stay -0.0).
    """
    np.subtract(rows, (kept_sum / kept)[:, None], out=out)
    out += (total / kept)[:, None]
    np.maximum(out, np.zeros(out.shape[1]), out=out)     # an array operand: numpy's fast loop (a scalar's is slower)
    out *= weights
    return out


_bitwise_count = getattr(np, "bitwise_count", None)          # numpy >= 2.0


def _row_counts(mask):
    """``count_nonzero(mask, axis=1)`` of a 2-D boolean array; with numpy >= 2 by popcount of the packed bits
    (about twice as fast).
    """
    if _bitwise_count is None:
        return np.count_nonzero(mask, axis=1)
    return _bitwise_count(np.packbits(mask, axis=1)).sum(axis=1, dtype=np.intp)
