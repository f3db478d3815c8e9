"""The statistics game's output step: violation calibration and Fairlearn's mixture linear program.

Both are post-processing of released values (:mod:`._statistics_game`); derivations in
docs/privacy_analysis/statistics_game.md.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from .._utils._fit_support import linear_span
from ._hypotheses import LinearThresholdClassifier

__all__ = []


def _calibrate_violations(proxy_gammas, released_gammas, sd):
    """Each play's violation estimated from its free proxy violation, calibrated on the released ones.

    ``proxy_gammas`` and ``released_gammas`` are (rounds, 2 K): the ``+`` block then the ``-`` block; ``sd`` (K,) is
    the noise sd of one round's released violation per cell. Per cell, the released violations are regressed on the
    proxy violations, ``released_j = a + c proxy_j + noise_j`` (each round's noise is fresh and independent of its
    play, so the fit is unbiased): ``a`` corrects the proxy's average bias, ``c`` its attenuation. The slope is a
    ridge estimate toward 1 with a unit prior scale, ``c = 1 + sum x~ (r~ - x~) / (sum x~^2 + sd^2)`` (``~``:
    centred over rounds), so that a few rounds with little spread in the proxy keep the offset estimate. The
    estimate is ``a + c proxy_i``; averaged over the rounds its noise variance is ``2 sd^2 / rounds``.
    """
    K = proxy_gammas.shape[1] // 2
    x, r = proxy_gammas[:, :K], released_gammas[:, :K]
    xc, rc = x - x.mean(axis=0), r - r.mean(axis=0)
    spread = np.sum(xc * xc, axis=0) + sd ** 2
    slope = 1.0 + np.divide(np.sum(xc * (rc - xc), axis=0), spread, out=np.zeros_like(spread),
                            where=spread > 0)                  # no spread and no noise: the offset
    estimate = r.mean(axis=0) + slope * xc
    return np.concatenate([estimate, -estimate], axis=1)


def _mixture_lp(errors, gammas, bound, B):
    """Fairlearn's final step: ``min_q errors . q + B s`` s.t. ``gammas q - bound <= s``, ``sum q = 1``, ``q, s >= 0``.

    ``gammas`` is (K, H). Solved with HiGHS; returns ``(q, value)``.
    """
    H = errors.size
    K = gammas.shape[0]
    cost = np.concatenate([errors, [B]])
    A_ub = np.hstack([gammas, -np.ones((K, 1))]) if K else None
    b_ub = np.broadcast_to(np.asarray(bound, dtype=float), (K,)) if K else None
    A_eq = np.concatenate([np.ones(H), [0.0]])[None, :]
    result = linprog(cost, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=[1.0], bounds=[(0, None)] * (H + 1),
                     method="highs")
    if result.status != 0:                          # cannot happen (q uniform, s large is feasible); be safe
        q = np.full(H, 1.0 / H)
        return q, float(errors @ q)
    q = np.clip(result.x[:H], 0.0, None)
    return q / q.sum(), float(result.fun)


def released_positive_rate(round_sums, q, n, sigma_round):
    """``(rate, sd)``: the mixture's positive rate on the training rows from the rounds' released cell sums of its
    plays' predictions (``round_sums``, rounds x cells; under ``"record"`` the label cells cover every row once), and
    its noise sd from public values (``sigma_round`` per released sum, ``n`` public). Post-processing of releases.
    """
    totals = np.asarray(round_sums, dtype=float).reshape(len(q), -1)
    rate = float(np.clip(totals.sum(axis=1) @ q / n, 0.0, 1.0))
    return rate, float(sigma_round) * float(np.sqrt(totals.shape[1] * np.sum(np.square(q)))) / n


def threshold_rate_bounds(plays, weights, radius, dual_ord):
    """``(low, high)``: bounds on the mixture's probability of predicting 1 at every point of the public domain
    ``||x|| <= radius`` (:func:`~fairlearn_dp._utils._fit_support.linear_span`'s ``dual_ord``), from the released
    plays only: a :class:`LinearThresholdClassifier` ``1[x . coef >= threshold]`` is 1 everywhere when
    ``-span >= threshold``, 0 everywhere when ``span < threshold``; any other play counts as either.
    """
    ones = zeros = 0.0
    for h, w in zip(plays, weights, strict=False):
        if isinstance(h, LinearThresholdClassifier):
            span = linear_span(h.coef, radius, dual_ord)
            ones += w if -span >= h.threshold else 0.0
            zeros += w if span < h.threshold else 0.0
    return float(ones), float(1.0 - zeros)
