"""Splitting one ``(epsilon, delta)`` budget over many releases of the same mechanism, and what they compose to.

Three rules (private FairNR, Cummings et al. 2019, Sec. 5): basic composition (``epsilon / K``, ``delta / K``),
advanced composition (Dwork, Rothblum & Vadhan 2010; the largest ``epsilon_0`` whose ``K``-fold composition with
slack ``delta / 2`` stays within ``epsilon``, each release ``delta / (2 K)``), and zCDP (Bun & Steinke 2016: ``rho /
K`` each, ``rho`` the zCDP budget of ``(epsilon, delta)``). ``"auto"`` takes the rule with the smallest Gaussian noise.
"""

from __future__ import annotations

import math

from diffprivlib.mechanisms import GaussianAnalytic

from ._composition import advanced_composition_epsilon
from ._spend import PrivacySpend
from ._zcdp import approx_dp_to_zcdp, zcdp_gaussian_sigma, zcdp_to_approx_dp

__all__ = ["per_release_budget", "per_release_rho", "composed_spend"]


def per_release_budget(epsilon, delta, n_releases, composition):
    """``(epsilon_0, delta_0, rule)`` for ``n_releases`` releases composing to at most ``(epsilon, delta)``."""
    if math.isinf(epsilon):
        return math.inf, 0.0, "none"
    if delta == 0:
        if composition in ("advanced", "zcdp"):
            raise ValueError(f"composition={composition!r} needs delta > 0; use delta > 0 or "
                             "composition='basic'.")
        return epsilon / n_releases, 0.0, "basic"
    basic = (epsilon / n_releases, delta / n_releases)
    slack = delta / 2
    low, high = 0.0, epsilon                    # bisection keeping advanced_composition_epsilon(low) <= epsilon
    for _ in range(200):
        middle = (low + high) / 2
        if advanced_composition_epsilon(middle, n_releases, slack) <= epsilon:
            low = middle
        else:
            high = middle
    advanced = (low, delta / (2 * n_releases))
    rho0 = per_release_rho(epsilon, delta, n_releases)
    zcdp = (zcdp_to_approx_dp(rho0, delta), delta)        # one release's (epsilon, delta); its noise is set by rho0
    if composition == "basic":
        return (*basic, "basic")
    if composition == "advanced":
        return (*advanced, "advanced")
    if composition == "zcdp":
        return (*zcdp, "zcdp")

    def unit_sigma(budget):
        return GaussianAnalytic(epsilon=budget[0], delta=budget[1], sensitivity=1.0)._scale   # diffprivlib's sigma

    sigmas = {"basic": unit_sigma(basic), "advanced": unit_sigma(advanced), "zcdp": zcdp_gaussian_sigma(1.0, rho0)}
    best = min(sigmas, key=sigmas.get)
    return (*{"basic": basic, "advanced": advanced, "zcdp": zcdp}[best], best)


def per_release_rho(epsilon, delta, n_releases):
    """Each release's zCDP budget: ``rho(epsilon, delta) / K`` (zCDP composes by addition, Bun & Steinke 2016)."""
    return approx_dp_to_zcdp(epsilon, delta) / n_releases


def composed_spend(eps0, delta0, n_releases, rule, delta, epsilon):
    """What ``n_releases`` releases of :func:`per_release_budget`'s ``(eps0, delta0)`` under ``rule`` compose to."""
    if rule == "none":
        return PrivacySpend(math.inf, 0.0)
    if rule == "basic":
        return PrivacySpend(min(n_releases * eps0, math.inf), min(n_releases * delta0, 1.0))
    if rule == "zcdp":
        rho = n_releases * per_release_rho(epsilon, delta, n_releases)
        return PrivacySpend(zcdp_to_approx_dp(rho, delta), delta, rho=rho)
    return PrivacySpend(advanced_composition_epsilon(eps0, n_releases, delta / 2), n_releases * delta0 + delta / 2)
