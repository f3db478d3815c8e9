"""Intervals for a private frame's aggregates over groups (``group_max``, ``group_min``, ``difference``, ``ratio``).

A maximum, a minimum or a difference of noisy group values is not a smooth function of them where groups are
close, and a bootstrap of it is not calibrated there (its draws are biased like the estimate, by a different
amount). The aggregate's interval is therefore derived from simultaneous intervals of its inputs: each group's value
(and the overall value, for ``method="to_overall"``) gets the percentile interval of its Monte-Carlo draws at the
Bonferroni level ``1 - alpha / k`` (``k`` intervals), and the aggregate's bounds are its smallest and largest value
over that box. When every input lies in its interval -- probability at least ``1 - alpha`` -- the aggregate lies in
its interval, so the coverage is at least the nominal level (conservative). Post-processing of the draws only.
"""

from __future__ import annotations

import warnings

import numpy as np

from ._frame_quantiles import nanquantile_draws

__all__ = ["aggregate_bound", "aggregate_bounds"]


def aggregate_bound(what, method, group_draws, overall_draws, q, *, presorted=False):
    """The bound at quantile ``q`` of the aggregate ``what`` (``"max"``, ``"min"``, ``"difference"``, ``"ratio"``)
    from draws of the group values ``(B, ..., G)`` and of the overall value ``(B, ...)``: the lower bound of the
    ``1 - 2q`` interval for ``q < 1/2``, else the upper bound of the ``2q - 1`` interval. ``presorted``: the draws
    come from :func:`~._frame_quantiles.sort_draws` (only each column's quantiles are read).
    """
    return aggregate_bounds(what, method, group_draws, overall_draws, [q], presorted=presorted)[0]


def aggregate_bounds(what, method, group_draws, overall_draws, quantiles, *, presorted=False):
    """``[aggregate_bound(what, method, group_draws, overall_draws, q) for q in quantiles]``, the same numbers,
    with the draws' quantiles taken in one pass (one sort of the draws for all of them, none if ``presorted``).
    """
    k = group_draws.shape[-1] + (1 if method == "to_overall" else 0)
    tails = [q if q < 0.5 else 1.0 - q for q in quantiles]
    levels = sorted({p for tail in tails for p in (tail / k, 1.0 - tail / k)})
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)                 # all-NaN cells stay NaN
        group = dict(zip(levels, nanquantile_draws(group_draws, levels, presorted=presorted), strict=True))
        overall = dict(zip(levels, nanquantile_draws(overall_draws, levels, presorted=presorted), strict=True))
        out = []
        for q, tail in zip(quantiles, tails, strict=True):
            low_p, high_p = tail / k, 1.0 - tail / k
            low, high = _RANGES[what, method](group[low_p], group[high_p], overall[low_p][..., None],
                                              overall[high_p][..., None])
            out.append(low if q < 0.5 else high)
    return out


def _max(low_g, high_g, low_o, high_o):
    return np.nanmax(low_g, axis=-1), np.nanmax(high_g, axis=-1)


def _min(low_g, high_g, low_o, high_o):
    return np.nanmin(low_g, axis=-1), np.nanmin(high_g, axis=-1)


def _difference_between(low_g, high_g, low_o, high_o):
    return (np.maximum(np.nanmax(low_g, axis=-1) - np.nanmin(high_g, axis=-1), 0.0),
            np.nanmax(high_g, axis=-1) - np.nanmin(low_g, axis=-1))


def _difference_to_overall(low_g, high_g, low_o, high_o):
    gap_low = np.maximum(np.maximum(low_g - high_o, low_o - high_g), 0.0)
    gap_high = np.maximum(high_g - low_o, high_o - low_g)
    return np.nanmax(gap_low, axis=-1), np.nanmax(gap_high, axis=-1)


def _ratio_between(low_g, high_g, low_o, high_o):
    smallest_low, largest_high = np.nanmin(low_g, axis=-1), np.nanmax(high_g, axis=-1)
    smallest_high, largest_low = np.nanmin(high_g, axis=-1), np.nanmax(low_g, axis=-1)
    low = np.where(largest_high > 0, smallest_low / largest_high, np.nan)
    high = np.where(largest_low > 0, np.minimum(smallest_high / largest_low, 1.0), 1.0)
    return np.clip(low, 0.0, 1.0), high


def _ratio_to_overall(low_g, high_g, low_o, high_o):
    """Per group, ``min(a, b) / max(a, b)`` over ``a`` in its interval and ``b`` in the overall one (values >= 0):
    smallest at the far corners, largest (1) where the intervals meet, else at the near ends.
    """
    corner = np.minimum(np.where(high_o > 0, low_g / high_o, 0.0), np.where(high_g > 0, low_o / high_g, 0.0))
    near = np.where(high_g < low_o, high_g / low_o, np.where(low_g > high_o, high_o / low_g, 1.0))
    return np.nanmin(np.clip(corner, 0.0, 1.0), axis=-1), np.nanmin(np.clip(near, 0.0, 1.0), axis=-1)


_RANGES = {("max", None): _max, ("min", None): _min,
           ("difference", "between_groups"): _difference_between, ("difference", "to_overall"): _difference_to_overall,
           ("ratio", "between_groups"): _ratio_between, ("ratio", "to_overall"): _ratio_to_overall}
