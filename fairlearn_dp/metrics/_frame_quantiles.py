"""Quantiles of Monte-Carlo draws along their first axis, the numbers of :func:`numpy.nanquantile`, fast.

``numpy.nanquantile(draws, q, axis=0)`` takes a Python-level path per column (``apply_along_axis``): 2-3 ms per
group of a frame's draws, most of the time of a frame with thousands of groups. A column without NaN has the
same quantile from :func:`numpy.quantile` (the same order statistics and the same linear interpolation between
them), which is one vectorised call over all columns; only the columns holding a NaN take ``nanquantile``'s path.
Post-processing of draws only.
"""

from __future__ import annotations

import numpy as np

__all__ = ["nanquantile_draws"]


def nanquantile_draws(draws: np.ndarray, q: float | list[float]) -> np.ndarray:
    """``numpy.nanquantile(draws, q, axis=0)``, value for value (NaN for an all-NaN column, with its warning);
    several quantiles share one partition of the draws, each the number of its own call.

    Parameters
    ----------
    draws : numpy.ndarray of shape (B, ...)
        The draws, along the first axis.
    q : float or list of float
        The quantile(s), in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray of shape draws.shape[1:], or (len(q),) + draws.shape[1:]
        The quantile(s) of each column, NaN ignored.
    """
    draws = np.asarray(draws, dtype=float)
    if draws.ndim == 1:
        return np.nanquantile(draws, q)
    holes = np.isnan(draws).any(axis=0)
    if not holes.any():
        return np.quantile(draws, q, axis=0)
    out = np.quantile(np.where(holes, 0.0, draws), q, axis=0)         # the columns without NaN
    if np.ndim(q):
        out[:, holes] = np.nanquantile(draws[:, holes], q, axis=0)
    else:
        out[holes] = np.nanquantile(draws[:, holes], q, axis=0)
    return out
