"""Exact binomial confidence bounds and the empirical lower bound on epsilon they give."""

from __future__ import annotations

import functools
import math
from types import SimpleNamespace

from scipy.stats import beta

from .._utils._validation import check_choice, check_int, check_real, validate_params, value_errors

__all__ = ["clopper_pearson", "epsilon_lower_bound"]

_ALTERNATIVES = ("two-sided", "greater", "less")


#: The documented error for a bad count or level, of whatever type, is a ``ValueError``.
_TRIALS = value_errors(functools.partial(check_int, low=1))
_LEVEL = value_errors(functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True))
_BOUND_PARAMETERS = {"confidence": _LEVEL,
                     "delta": value_errors(functools.partial(check_real, low=0.0, high=1.0, high_open=True))}


def _check_counts(k, n, name="k", n_name="n"):
    """``(k, n)``: ``n >= 1`` trials, then ``0 <= k <= n`` successes (each error a ``ValueError`` naming it)."""
    n = _TRIALS(n, n_name)
    return value_errors(functools.partial(check_int, low=0, high=n))(k, name), n


def clopper_pearson(k: int, n: int, alpha: float = 0.05, *, alternative: str = "two-sided") -> tuple[float, float]:
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
    alpha = _LEVEL(alpha, "alpha")
    check_choice(alternative, "alternative", _ALTERNATIVES)
    tail = alpha / 2 if alternative == "two-sided" else alpha
    low, high = 0.0, 1.0
    if alternative in ("two-sided", "greater") and k > 0:
        low = float(beta.ppf(tail, k, n - k + 1))
    if alternative in ("two-sided", "less") and k < n:
        high = float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


def epsilon_lower_bound(hits_d: int, hits_d_prime: int, n_runs: int, *, confidence: float = 0.95,
                        delta: float = 0.0) -> float:
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
    _check_counts(hits_d, n_runs, "hits_d", "n_runs")
    _check_counts(hits_d_prime, n_runs, "hits_d_prime", "n_runs")
    checked = validate_params(SimpleNamespace(confidence=confidence, delta=delta), _BOUND_PARAMETERS)
    confidence, delta = checked["confidence"], checked["delta"]
    alpha = (1 - confidence) / 2
    p_low, p_high = clopper_pearson(int(hits_d), int(n_runs), alpha)
    q_low, q_high = clopper_pearson(int(hits_d_prime), int(n_runs), alpha)
    bound = 0.0
    for low, high in ((p_low, q_high), (q_low, p_high)):
        if low - delta > 0 and high > 0:
            bound = max(bound, math.log((low - delta) / high))
    return bound
