"""Every split of one privacy budget into the budgets of its releases, and what the parts compose to.

Each function here takes a whole budget and returns its parts; the estimators call them and release with the
parts (the arithmetic is the estimators' own, moved here unchanged, so a seeded fit draws the same numbers).

Composition rules used below: basic composition (epsilons add, deltas add; Dwork & Roth 2014, Thm. 3.16),
advanced composition (Dwork, Rothblum & Vadhan 2010, :mod:`._composition`), and zCDP composition (Bun & Steinke
2016, Lemma 2.3: the rhos of the releases add; a zCDP budget ``rho`` is reported and charged as its conversion
``(rho + 2 sqrt(rho ln(1/delta)), delta)``, :func:`~fairlearn_dp.privacy.zcdp_to_approx_dp`).

The delta policy, the same for every split: a split never creates delta; the parts' deltas add up (basic
composition) to at most the whole's. A pure-DP part (Laplace, the exponential mechanism) takes delta 0. A zCDP part
takes no delta of its own: the whole ``rho`` is the largest whose conversion at the user's delta is at most the
user's epsilon (:func:`~fairlearn_dp.privacy._zcdp.approx_dp_to_zcdp`), so the user's delta is spent once, by the
conversion of the sum. A release with a failure probability (Algorithm 3's lower bound on the cell counts) is
reserved half of delta, and the rest goes to the parts after it (there: the slack of advanced composition, spent
only when that rule is used).

Private FairNR's splits over ``K`` releases of one mechanism (Cummings et al. 2019, Sec. 5): basic composition
(``epsilon / K``, ``delta / K``), advanced composition (the largest ``epsilon_0`` whose ``K``-fold composition with
slack ``delta / 2`` stays within ``epsilon``, each release ``delta / (2 K)``), and zCDP (``rho / K`` each, ``rho``
the zCDP budget of ``(epsilon, delta)``). ``"auto"`` takes the rule with the smallest Gaussian noise.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ._composition import advanced_composition_epsilon
from ._spend import PrivacySpend
from ._vector import analytic_gaussian, mechanism_scale
from ._zcdp import approx_dp_to_zcdp, zcdp_gaussian_sigma, zcdp_to_approx_dp

__all__ = ["per_release_budget", "per_release_rho", "composed_spend", "statistics_game_split",
           "statistics_release_split", "min_count_split", "group_budget_split", "group_budget_stage1_split",
           "group_budget_stage2_split"]


def per_release_budget(epsilon: float, delta: float, n_releases: int, composition: str) -> tuple[float, float, str]:
    """``(epsilon_0, delta_0, rule)`` for ``n_releases`` releases composing to at most ``(epsilon, delta)``."""
    if math.isinf(epsilon):
        return math.inf, 0.0, "none"
    if delta == 0:
        if composition in ("advanced", "zcdp"):
            raise ValueError(f"composition={composition!r} needs delta > 0; use delta > 0 or "
                             "composition='basic'.")
        return exact_share(epsilon, n_releases), 0.0, "basic"
    basic = (exact_share(epsilon, n_releases), exact_share(delta, n_releases))
    slack = delta / 2
    low, high = 0.0, epsilon                    # bisection keeping advanced_composition_epsilon(low) <= epsilon
    for _ in range(200):
        middle = (low + high) / 2
        if advanced_composition_epsilon(middle, n_releases, slack) <= epsilon:
            low = middle
        else:
            high = middle
    advanced = (low, exact_share(slack, n_releases))
    rho0 = per_release_rho(epsilon, delta, n_releases)
    zcdp = (zcdp_to_approx_dp(rho0, delta), delta)        # one release's (epsilon, delta); its noise is set by rho0
    if composition == "basic":
        return (*basic, "basic")
    if composition == "advanced":
        return (*advanced, "advanced")
    if composition == "zcdp":
        return (*zcdp, "zcdp")

    def unit_sigma(budget):
        return mechanism_scale(analytic_gaussian(epsilon=budget[0], delta=budget[1], sensitivity=1.0))

    sigmas = {"basic": unit_sigma(basic), "advanced": unit_sigma(advanced), "zcdp": zcdp_gaussian_sigma(1.0, rho0)}
    best = min(sigmas, key=sigmas.get)
    return (*{"basic": basic, "advanced": advanced, "zcdp": zcdp}[best], best)


def per_release_rho(epsilon: float, delta: float, n_releases: int) -> float:
    """Each release's zCDP budget: ``rho(epsilon, delta) / K`` (zCDP composes by addition, Bun & Steinke 2016), as
    ``exact_share`` rounds it, so that the ``K`` releases compose to at most ``rho``.
    """
    return exact_share(approx_dp_to_zcdp(epsilon, delta), n_releases)


def exact_share(total: float, n_parts: int) -> float:
    """``total / n_parts`` rounded down if needed: the largest float ``s`` at most ``total / n_parts`` with
    ``n_parts * s <= total`` in exact arithmetic.

    Floating-point division rounds to nearest, so ``n * (total / n)`` can exceed ``total`` by an ulp (``0.01 / 75``
    times 75 is ``0.010000000000000002``): the parts of a split would then compose to more than the declared budget.
    With the share rounded down, the exact product is at most ``total``, and so is its floating-point value
    (rounding is monotone and ``total`` is a float), so a reported composition never reads above the declared
    total. ``inf`` and 0 are returned divided as they are.
    """
    share = total / n_parts
    if not math.isfinite(share) or share == 0:
        return share
    while Fraction(share) * n_parts > Fraction(total):        # at most a step or two: the quotient is within an ulp
        share = math.nextafter(share, 0.0)
    return share


def composed_spend(eps0: float, delta0: float, n_releases: int, rule: str, delta: float,
                   epsilon: float) -> PrivacySpend:
    """What ``n_releases`` releases of :func:`per_release_budget`'s ``(eps0, delta0)`` under ``rule`` compose to."""
    if rule == "none":
        return PrivacySpend(math.inf, 0.0)
    if rule == "basic":
        return PrivacySpend(min(n_releases * eps0, math.inf), min(n_releases * delta0, 1.0))
    if rule == "zcdp":
        rho = n_releases * per_release_rho(epsilon, delta, n_releases)
        return PrivacySpend(zcdp_to_approx_dp(rho, delta), delta, rho=rho)
    return PrivacySpend(advanced_composition_epsilon(eps0, n_releases, delta / 2), n_releases * delta0 + delta / 2)


# ---------------------------------------------------------------------------------------------------------------
# The statistics game of DPExponentiatedGradient: zCDP throughout.
def statistics_game_split(epsilon: float, delta: float, statistics_fraction: float,
                          n_rounds: int) -> tuple[float, float]:
    """``(rho_stats, rho_round)``: the statistics game's zCDP budget for its one release of sufficient statistics
    and for each of its ``n_rounds`` per-round releases.

    ``rho = approx_dp_to_zcdp(epsilon, delta)`` (the largest rho whose conversion at ``delta`` is at most
    ``epsilon``), ``rho_stats = statistics_fraction * rho`` and ``rho_round = (rho - rho_stats) / n_rounds``. zCDP
    composes by addition: ``rho_stats + n_rounds * rho_round = rho`` (in real arithmetic; the game may stop early and
    spend less), so the fit is ``(epsilon, delta)``-DP, the charge for the user's ``(epsilon, delta)``.
    """
    rho = approx_dp_to_zcdp(epsilon, delta)
    rho_stats = statistics_fraction * rho
    rho_round = (rho - rho_stats) / n_rounds
    return rho_stats, rho_round


def statistics_release_split(rho_stats: float, *, record: bool,
                             count_share: float) -> tuple[float, float, float]:
    """``(rho_statistics, rho_counts, rho_gram)``: :func:`statistics_game_split`'s ``rho_stats`` over the Gaussian
    releases of the statistics game's first step.

    - ``record=True``: the cell sums of ``phi = [x, 1]`` (features and counts together) and the upper triangle of
      ``Phi^T Phi`` get ``rho_stats * 0.5`` each; no separate count release (``rho_counts = 0``).
    - ``record=False`` (``"sensitive_attribute"``): the cell counts get ``count_share * rho_stats`` and the feature
      sums the rest, ``rho_stats - rho_counts``; no Gram release (``rho_gram = 0``).

    The releases compose by addition to ``rho_stats`` (Bun & Steinke 2016, Lemma 2.3).
    """
    if record:
        return rho_stats * 0.5, 0.0, rho_stats * 0.5
    rho_counts = count_share * rho_stats
    return rho_stats - rho_counts, rho_counts, 0.0


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 3 of Jagielski et al. (2019) (JagielskiExponentiatedGradient): pure DP and basic composition.
def min_count_split(epsilon: float, delta: float, min_count_fraction: float) -> tuple[float, float, float, float]:
    """``(eps0, delta0, eps_rounds, delta_rounds)``: the budget of Algorithm 3's released lower bound ``N`` on the
    cell counts, and what is left for its rounds.

    ``eps0 = min_count_fraction * epsilon`` for the Laplace release of the counts (pure DP); ``delta0 = delta / 2``
    is reserved, conservatively, for the probability that the released bound exceeds the smallest count (the
    floored moments keep their sensitivities for any bound, so that event costs accuracy, not privacy); the rounds
    get ``(epsilon - eps0, delta - delta0)``. Basic composition: the parts add up to ``(epsilon, delta)``; the
    rounds spend their delta only as the slack of advanced composition
    (:func:`~fairlearn_dp.privacy.per_mechanism_epsilon`), so the fit's delta is ``delta0`` or ``delta``.
    """
    eps0 = min_count_fraction * epsilon
    delta0 = delta / 2
    return eps0, delta0, epsilon - eps0, delta - delta0


# ---------------------------------------------------------------------------------------------------------------
# The group-aware budget allocation (DPGroupBudgetRegressor / DPGroupBudgetClassifier): zCDP throughout.
def group_budget_split(rho: float, stage1_fraction: float) -> tuple[float, float]:
    """``(tau, mu)``: the zCDP budget ``rho`` over stage 1 (the per-group standard errors, Alg. 1) and stage 2 (the
    gradient descent, Alg. 2 / 3): ``tau = stage1_fraction * rho``, ``mu = rho - tau`` (``rho`` when ``rho`` is
    infinite, the non-private baseline). zCDP composes by addition: ``tau + mu = rho``.
    """
    tau = stage1_fraction * rho
    mu = rho if math.isinf(rho) else rho - tau
    return tau, mu


def group_budget_stage1_split(tau: float, n_estimable: int) -> tuple[float, float]:
    """``(rho_moments, rho_residual)``: stage 1's ``tau`` over its releases, with ``tau_k = tau / (n_estimable + 1)``.

    ``X^T X`` and ``X^T y`` get ``tau_k / 2`` each (together one ``tau_k``), and each of the ``n_estimable`` groups'
    clipped residual sums gets ``tau_k``; zCDP adds: ``tau_k + n_estimable * tau_k = tau``.
    """
    tau_k = tau / (n_estimable + 1)
    return tau_k / 2, tau_k


def group_budget_stage2_split(mu: float, share: float, n_iter: int, *,
                              bounded_group_loss: bool) -> tuple[float, float]:
    """``(rho_gradient, rho_loss)``: one group's zCDP budget at one iteration of stage 2.

    The group gets ``mu * share / n_iter`` (``share`` its budget share ``s_k^2``; the shares sum to 1, so the
    groups' budgets over the ``n_iter`` iterations add up to ``mu``); with a bounded-group-loss penalty its
    gradient mean and its loss mean get half each, otherwise the gradient gets it all (``rho_loss`` is then unused).
    Infinite ``mu`` (the non-private baseline) gives infinite budgets.
    """
    budget = math.inf if math.isinf(mu) else mu * share / n_iter
    gradient = budget / 2 if bounded_group_loss else budget
    return gradient, budget / 2
