"""Composition of k pure-DP mechanisms: basic (k eps0) and advanced (Dwork, Rothblum & Vadhan 2010).

Advanced composition (Dwork & Roth 2014, Thm. 3.20): k adaptively chosen eps0-DP mechanisms are together
``(sqrt(2 k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1), delta')``-DP for any ``delta' > 0``.
"""

from __future__ import annotations

import math
import numbers

from scipy.optimize import brentq

__all__ = ["advanced_composition_epsilon", "per_mechanism_epsilon"]


def _check_k(k):
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k (the number of mechanisms) must be an integer >= 1, got {k!r}.")
    return int(k)


def advanced_composition_epsilon(epsilon0: float, k: int, delta: float) -> float:
    """Total epsilon of ``k`` epsilon0-DP mechanisms under advanced composition with slack ``delta`` (> 0)."""
    k = _check_k(k)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1) for advanced composition, got {delta!r}.")
    if not epsilon0 >= 0:
        raise ValueError(f"epsilon0 must be >= 0, got {epsilon0!r}.")
    if epsilon0 > 700:                       # e^epsilon0 overflows a float; the bound is then useless anyway
        return math.inf
    return math.sqrt(2 * k * math.log(1 / delta)) * epsilon0 + k * epsilon0 * math.expm1(epsilon0)


def per_mechanism_epsilon(epsilon: float, k: int, delta: float = 0.0) -> tuple[float, str]:
    """The largest per-mechanism epsilon0 such that ``k`` epsilon0-DP mechanisms compose to at most ``epsilon``.

    Basic composition gives ``epsilon / k``; with ``delta > 0`` advanced composition (slack ``delta``) is solved
    for epsilon0 and the larger of the two is returned together with the rule used.

    Returns
    -------
    (epsilon0, rule) : (float, {"basic", "advanced"})
    """
    k = _check_k(k)
    if not (isinstance(epsilon, numbers.Real) and epsilon > 0):
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    if math.isinf(epsilon):
        return math.inf, "none"
    basic = epsilon / k
    if delta <= 0:
        return basic, "basic"
    # advanced_composition_epsilon is increasing in epsilon0 and 0 at 0; epsilon0 <= epsilon bounds the root.
    upper = min(epsilon, 50.0)        # beyond 50 advanced composition never beats basic (k eps0 e^eps0 term)
    if advanced_composition_epsilon(upper, k, delta) <= epsilon:
        return (upper, "advanced") if upper > basic else (basic, "basic")
    advanced = brentq(lambda e0: advanced_composition_epsilon(e0, k, delta) - epsilon, 0.0, upper,
                      xtol=1e-15, rtol=1e-12)
    # brentq's root can sit a hair above the target; step down until the composed total is within budget.
    while advanced_composition_epsilon(advanced, k, delta) > epsilon:
        advanced = math.nextafter(advanced, 0.0)
    return (advanced, "advanced") if advanced > basic else (basic, "basic")
