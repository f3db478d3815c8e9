"""Exact binomial confidence bounds and the empirical lower bound on epsilon they give."""

from __future__ import annotations

import math
import numbers

from scipy.stats import beta

__all__ = ["clopper_pearson", "epsilon_lower_bound"]

_ALTERNATIVES = ("two-sided", "greater", "less")


def _check_counts(k, n, name="k"):
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 0 <= k <= n:
        raise ValueError(f"{name} must be an integer in [0, n={n}], got {k!r}.")
    return int(k), int(n)


def _check_level(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}.")
    return float(value)


def clopper_pearson(k, n, alpha=0.05, *, alternative="two-sided"):
    """Exact (Clopper-Pearson) confidence bounds for a binomial proportion from ``k`` successes in ``n`` trials.

    The bounds invert the binomial test through the beta distribution (Clopper & Pearson 1934): the lower bound
    is the ``a``-quantile of ``Beta(k, n - k + 1)`` (0 when ``k = 0``) and the upper bound the ``(1 - a)``-quantile
    of ``Beta(k + 1, n - k)`` (1 when ``k = n``), with ``a = alpha / 2`` for a two-sided interval and ``a = alpha``
    for a one-sided bound. Coverage is at least ``1 - alpha`` for every true proportion.

    Parameters
    ----------
    k : int
        Number of successes, ``0 <= k <= n``.
    n : int
        Number of trials, ``>= 1``.
    alpha : float, default=0.05
        Error probability in (0, 1); the confidence level is ``1 - alpha``.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As in :func:`scipy.stats.binomtest`: "two-sided" gives ``(low, high)`` with ``alpha / 2`` in each tail;
        "greater" gives the one-sided ``(low, 1.0)`` (the proportion is at least ``low``); "less" gives
        ``(0.0, high)``.

    Returns
    -------
    (low, high) : tuple of float
    """
    k, n = _check_counts(k, n)
    alpha = _check_level(alpha, "alpha")
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}.")
    tail = alpha / 2 if alternative == "two-sided" else alpha
    low, high = 0.0, 1.0
    if alternative in ("two-sided", "greater") and k > 0:
        low = float(beta.ppf(tail, k, n - k + 1))
    if alternative in ("two-sided", "less") and k < n:
        high = float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def epsilon_lower_bound(hits_d, hits_d_prime, n_runs, *, confidence=0.95, delta=0.0):
    r"""Lower confidence bound on the epsilon of a mechanism from how often one event occurred on two neighbours.

    With ``p = P[M(D) in E]`` and ``p' = P[M(D') in E]``, every (epsilon, delta)-DP mechanism satisfies ``p <=
    e^epsilon p' + delta`` and, the relation being symmetric, ``p' <= e^epsilon p + delta``. Hence

    .. math:: \epsilon \ge \ln\frac{p_{low} - \delta}{p'_{high}}

    whenever ``p_low <= p`` and ``p'_high >= p'`` (and the same with the roles swapped). ``p_low``, ``p_high`` and
    ``p'_low``, ``p'_high`` are two-sided Clopper-Pearson intervals, each at confidence ``1 - (1 - confidence) /
    2`` (Bonferroni over the two proportions), so all four bounds hold simultaneously with probability at least
    ``confidence``, and the returned maximum over both directions is a valid lower bound at that confidence.

    Parameters
    ----------
    hits_d, hits_d_prime : int
        How many of the ``n_runs`` runs on ``D`` (respectively ``D'``) produced an output in the event ``E``.
    n_runs : int
        Independent runs on each dataset.
    confidence : float, default=0.95
        In (0, 1).
    delta : float, default=0.0
        The delta of the guarantee being audited, in [0, 1).

    Returns
    -------
    float
        The lower bound on epsilon; 0.0 when the data support no positive bound.
    """
    _check_counts(hits_d, n_runs, "hits_d")
    _check_counts(hits_d_prime, n_runs, "hits_d_prime")
    confidence = _check_level(confidence, "confidence")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}.")
    alpha = (1 - confidence) / 2
    p_low, p_high = clopper_pearson(int(hits_d), int(n_runs), alpha)
    q_low, q_high = clopper_pearson(int(hits_d_prime), int(n_runs), alpha)
    bound = 0.0
    for low, high in ((p_low, q_high), (q_low, p_high)):
        if low - delta > 0 and high > 0:
            bound = max(bound, math.log((low - delta) / high))
    return bound
