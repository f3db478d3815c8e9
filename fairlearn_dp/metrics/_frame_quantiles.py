"""Quantiles of Monte-Carlo draws along their first axis, the numbers of :func:`numpy.nanquantile`, fast.

``numpy.nanquantile(draws, q, axis=0)`` takes a Python-level path per column (``apply_along_axis``), and
``numpy.quantile`` partitions the whole array again for every call: most of the time of a frame with thousands of
groups, whose intervals read the same draws several times (``by_group_ci``, then the Bonferroni levels of
``difference_ci``, ...). Here each column is sorted once (:func:`sort_draws`, NaN last, as :func:`numpy.sort`
orders them) and every quantile is read from the sorted columns with numpy's own arithmetic for its default
``method="linear"``: on a column of ``m`` non-NaN values, virtual index ``v = (m - 1) q``, the order statistics at
``floor(v)`` and ``floor(v) + 1`` (both the largest when ``v >= m - 1``), ``gamma = v - floor(v)`` (``v + 1`` in that
case, numpy's), and ``a + (b - a) gamma``, or ``b - (b - a) (1 - gamma)`` when ``gamma >= 0.5`` (numpy's
``_lerp``). The same operations on the same order statistics: the same numbers (tested against
:func:`numpy.nanquantile`). Post-processing of draws only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nanquantile_draws", "sort_draws"]


def sort_draws(chunks: list[np.ndarray]) -> np.ndarray:
    """The draws of ``chunks`` -- arrays ``(b_i, ...)`` of consecutive draws -- as one ``(B, ...)`` array whose
    every column is in ascending order, NaN last: a view of a ``(..., B)`` array sorted in place along its last
    (contiguous) axis.

    Parameters
    ----------
    chunks : list of numpy.ndarray of shape (b_i, ...)
        The draws, along the first axis, in chunks.

    Returns
    -------
    numpy.ndarray of shape (B, ...)
        The sorted draws: every column keeps its values (its quantiles), not its joint order with other columns.
    """
    chunks = [np.asarray(chunk, dtype=float) for chunk in chunks]
    columns = np.empty(chunks[0].shape[1:] + (sum(len(chunk) for chunk in chunks),))
    start = 0
    for chunk in chunks:                                      # each chunk's draws into their columns' places
        columns[..., start:start + len(chunk)] = np.moveaxis(chunk, 0, -1)
        start += len(chunk)
    columns.sort(axis=-1)
    return np.moveaxis(columns, -1, 0)


def nanquantile_draws(draws: np.ndarray, q: float | list[float], *, presorted: bool = False) -> np.ndarray:
    """``numpy.nanquantile(draws, q, axis=0)``, value for value (NaN for an all-NaN column, without numpy's
    warning); several quantiles share one sort of the draws, each the number of its own call.

    Parameters
    ----------
    draws : numpy.ndarray of shape (B, ...)
        The draws, along the first axis.
    q : float or list of float
        The quantile(s), in ``[0, 1]``.
    presorted : bool, default=False
        True when ``draws`` come from :func:`sort_draws` (each column ascending, NaN last): read without sorting.

    Returns
    -------
    numpy.ndarray of shape draws.shape[1:], or (len(q),) + draws.shape[1:]
        The quantile(s) of each column, NaN ignored.
    """
    ordered = np.asarray(draws, dtype=float)
    if not presorted:
        ordered = sort_draws([ordered])
    if ordered.shape[0] == 0:                                 # no draws: numpy's NaN for every column
        ordered = np.full((1,) + ordered.shape[1:], np.nan)
    counts = np.full(ordered.shape[1:], ordered.shape[0])     # m: the non-NaN values, the first m once sorted
    holes = np.isnan(ordered[-1])
    if holes.any():
        counts[holes] = ordered.shape[0] - np.count_nonzero(np.isnan(ordered[:, holes]), axis=0)
    out = np.stack([_quantile_of_sorted(ordered, counts, float(level)) for level in np.atleast_1d(q)])
    return out if np.ndim(q) else out[0]


def _quantile_of_sorted(ordered, counts, level):
    """The linear quantile (numpy's) at ``level`` of each sorted column's first ``counts`` values (NaN if none)."""
    virtual = (counts - 1) * level                           # numpy's (n - 1) * q, n the non-NaN count
    above = virtual >= counts - 1                            # numpy takes the largest value: index -1
    previous = np.where(above, -1.0, np.floor(virtual))
    last = np.maximum(counts - 1, 0)
    low = np.where(above, last, previous).astype(np.intp)
    high = np.where(above, last, previous + 1).astype(np.intp)
    gamma = virtual - previous
    a = np.take_along_axis(ordered, low[None], axis=0)[0]
    b = np.take_along_axis(ordered, high[None], axis=0)[0]
    diff = b - a
    out = np.asarray(a + diff * gamma)
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return np.where(counts == 0, np.nan, out)
