"""Zero-concentrated DP (Bun & Steinke 2016): budgets, composition, conversion, and the zCDP Gaussian release.

A few documented lines serve here instead of Google's ``dp-accounting``: the algorithms that use zCDP compose
Gaussian mechanisms only (zCDP composition is a sum) and report their spend with Bun & Steinke's conversion, the
one the budget-tailoring paper states; no extra dependency is needed for that.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import numpy as np

from ._spend import PrivacySpend

if TYPE_CHECKING:
    from diffprivlib.mechanisms import GaussianAnalytic

__all__ = ["check_rho", "compose_zcdp", "zcdp_to_approx_dp", "approx_dp_to_zcdp", "pure_dp_to_zcdp",
           "zcdp_gaussian_sigma", "zcdp_spend", "zcdp_gaussian_mechanism"]

# (epsilon, delta) used only to parametrise diffprivlib's analytic Gaussian; sigma is set through its sensitivity.
_PARAMETRISING_DELTA = 1e-9


def check_rho(rho: float, name: str = "rho") -> float:
    """``rho`` must be a finite number > 0."""
    if isinstance(rho, bool) or not isinstance(rho, numbers.Real) or not math.isfinite(rho) or rho <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {rho!r}.")
    return float(rho)


def compose_zcdp(*rhos: float) -> float:
    """Sequential composition: a sequence of ``rho_i``-zCDP mechanisms is ``sum_i rho_i``-zCDP (Lemma 2.3)."""
    return float(sum(check_rho(r) for r in rhos))


def zcdp_to_approx_dp(rho: float, delta: float) -> float:
    """``rho``-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every ``delta > 0`` (Prop. 1.3)."""
    rho = check_rho(rho)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1) for the zCDP conversion, got {delta}.")
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def approx_dp_to_zcdp(epsilon: float, delta: float) -> float:
    """The largest ``rho`` whose conversion :func:`zcdp_to_approx_dp` (``rho + 2 sqrt(rho ln(1/delta))``) is at most
    ``epsilon``: the zCDP budget to spend when a user asks for ``(epsilon, delta)``.

    The exact solution is ``rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2``. Computed in floating
    point it can convert back to a few ulps *more* than ``epsilon`` (e.g. ``1.0000000000000016`` for ``epsilon = 1,
    delta = 1e-6``), and an accountant with ceiling ``epsilon`` would then refuse the spend. When that formula
    converts back to at most ``epsilon`` (and agrees with the cancellation-free form below to 1e-9) it is returned
    unchanged, so budgets derived before this check keep their exact value; otherwise the cancellation-free form
    ``(epsilon / (sqrt(ln(1/delta) + epsilon) + sqrt(ln(1/delta))))^2`` is nudged down (by a relative ``2^-52``,
    doubled until it fits: a few ulps in practice) until ``zcdp_to_approx_dp(rho, delta) <= epsilon`` holds in
    floating point.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real) or not (math.isfinite(epsilon)
                                                                                and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}.")
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1) for the zCDP conversion, got {delta!r}.")
    epsilon, delta = float(epsilon), float(delta)
    log_term = math.log(1 / delta)
    plain = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
    stable = (epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))) ** 2
    if plain > 0 and abs(plain - stable) <= 1e-9 * stable and zcdp_to_approx_dp(plain, delta) <= epsilon:
        return plain
    rho, step = stable, 2.0 ** -52
    while rho > 0 and zcdp_to_approx_dp(rho, delta) > epsilon:
        rho = stable * (1.0 - step)
        step *= 2.0
    if not rho > 0:
        raise ValueError(f"epsilon={epsilon!r} is too small to convert to a zCDP budget at delta={delta!r}.")
    return rho


def pure_dp_to_zcdp(epsilon: float) -> float:
    """``epsilon``-DP implies ``epsilon^2 / 2``-zCDP (Prop. 1.4)."""
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    return epsilon ** 2 / 2


def zcdp_gaussian_sigma(l2_sensitivity: float, rho: float) -> float:
    """The Gaussian mechanism with ``sigma = Delta_2 / sqrt(2 rho)`` is ``rho``-zCDP (Prop. 1.6)."""
    return float(l2_sensitivity) / math.sqrt(2 * check_rho(rho))


def zcdp_spend(rho: float, delta: float) -> PrivacySpend:
    """A :class:`PrivacySpend` for ``rho``-zCDP, with its (epsilon, delta) conversion for a diffprivlib accountant."""
    return PrivacySpend(zcdp_to_approx_dp(rho, delta), delta, rho=check_rho(rho))


def _unit_sigma() -> float:
    """``c(1, 1e-9)``: the sigma of diffprivlib's analytic calibration at sensitivity 1, a constant (its binary search
    runs once per process: :func:`~._vector.analytic_gaussian` memoises it).
    """
    from ._vector import analytic_gaussian

    return math.sqrt(analytic_gaussian(epsilon=1.0, delta=_PARAMETRISING_DELTA, sensitivity=1.0).variance(0.0))


def zcdp_gaussian_mechanism(l2_sensitivity: float, rho: float, *,
                            random_state: int | np.random.RandomState | None = None) -> GaussianAnalytic:
    """A diffprivlib ``GaussianAnalytic`` mechanism whose noise has ``sigma = Delta_2 / sqrt(2 rho)``.

    diffprivlib parametrises Gaussian noise by (epsilon, delta, sensitivity), and its sigma is proportional to the
    sensitivity argument: ``sigma = c(epsilon, delta) * sensitivity``. The noise distribution is what carries the
    guarantee (a Gaussian of standard deviation sigma on a query of L2 sensitivity Delta_2 is ``Delta_2^2 / (2
    sigma^2)``-zCDP), so we fix (epsilon, delta) = (1, 1e-9), read ``c`` off diffprivlib's analytic calibration
    (Balle & Wang 2018), and pass ``sensitivity = sigma / c``: diffprivlib then draws noise of exactly our sigma.
    """
    from ._vector import analytic_gaussian

    if not l2_sensitivity > 0:
        raise ValueError("l2_sensitivity must be > 0.")
    sigma = zcdp_gaussian_sigma(l2_sensitivity, rho)
    return analytic_gaussian(epsilon=1.0, delta=_PARAMETRISING_DELTA, sensitivity=sigma / _unit_sigma(),
                             random_state=random_state)
