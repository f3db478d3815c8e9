"""Noisy releases: the only place fairdp draws noise on a release path, one release function per mechanism family.

- :func:`release_laplace`: the Laplace family (pure DP, L1 sensitivity);
- :func:`release_gaussian`: the Gaussian family, calibrated to ``(epsilon, delta)`` (analytic Gaussian) or to
  ``rho``-zCDP;
- (the exponential mechanism, the third family, is :mod:`._exponential`.)

Callers with an ``(epsilon, delta)`` budget use the Laplace when ``delta == 0`` and the Gaussian otherwise;
:func:`release_joint_counts` is the histogram release of the post-processors (normalise, release, charge once).
All noise comes from diffprivlib mechanisms. diffprivlib's mechanisms are scalar, so a
vector is released by one mechanism instance applied to every coordinate in one call of
:func:`~fairlearn_dp.privacy._vector.randomise_vector` (the mechanism's own formula and sampler, vectorised); the
guarantee for the whole vector comes from the vector's L1 (Laplace) or L2 (Gaussian) sensitivity, not from
composing coordinates.
"""

from __future__ import annotations

import math

import numpy as np
from diffprivlib.accountant import BudgetAccountant
from diffprivlib.mechanisms import GaussianAnalytic, Laplace
from numpy.typing import ArrayLike

from ._accountant import charge, check_spend, validate_epsilon_delta
from ._spend import PrivacySpend
from ._vector import analytic_gaussian, randomise_vector
from ._zcdp import zcdp_gaussian_mechanism

__all__ = ["release_laplace", "release_gaussian", "gaussian_mechanism", "noise_scale", "noise_sd",
           "joint_histogram_sensitivity", "release_joint_counts"]


def noise_scale(epsilon: float, delta: float, l1_sensitivity: float | None, l2_sensitivity: float | None) -> float:
    """The release noise's scale (Laplace ``b``, or the analytic Gaussian's ``sigma``); refuse one that is unusable.

    A subnormal ``epsilon`` makes ``l1 / epsilon`` overflow (infinite noise); diffprivlib's analytic Gaussian
    returns a standard deviation of 0 -- no noise at all, the exact values released -- for epsilon below about
    1e-27 (measured with diffprivlib 0.6.6, delta = 1e-6). Both depend on public parameters only, so refusing them
    is a public failure path.
    """
    if delta == 0:
        with np.errstate(all="ignore"):
            scale = float(l1_sensitivity) / epsilon
    else:
        with np.errstate(all="ignore"):
            scale = math.sqrt(analytic_gaussian(epsilon=epsilon, delta=delta,
                                                sensitivity=float(l2_sensitivity)).variance(0.0))
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"epsilon={epsilon!r} (delta={delta!r}) gives no usable noise scale (got {scale!r}): "
                         "epsilon is too small for a numerically sound mechanism.")
    return scale


def noise_sd(scale: float, delta: float) -> float:
    """Standard deviation of one coordinate's release noise, from its :func:`noise_scale`: ``sqrt(2) b`` for
    Laplace (``delta == 0``), the analytic Gaussian's ``sigma`` itself otherwise.
    """
    return math.sqrt(2.0) * scale if delta == 0 else scale


def release_laplace(values: ArrayLike, *, epsilon: float, l1_sensitivity: float,
                    random_state: int | np.random.RandomState | None = None) -> np.ndarray:
    """The Laplace mechanism on every coordinate of ``values``: the release of the Laplace family (no charge).

    Noise of scale ``l1_sensitivity / epsilon`` on each coordinate, from diffprivlib's ``Laplace`` applied to the
    whole array in one :func:`~fairlearn_dp.privacy._vector.randomise_vector` call: epsilon-DP for a vector whose
    L1 distance between neighbouring datasets is at most ``l1_sensitivity`` (Dwork & Roth 2014, Thm. 3.6).
    ``epsilon == inf`` returns the values unchanged (the non-private baseline).

    Parameters
    ----------
    values : array-like of float
        The exact statistics (any shape).
    epsilon : float
        Privacy parameter of the release.
    l1_sensitivity : float
        L1 sensitivity of the whole vector.
    random_state : None, int or numpy.random.RandomState
        Passed to the diffprivlib mechanism. ``None`` uses a cryptographically secure generator; a seed makes the
        draw reproducible (experiments only: a seeded release is not secure); a ``RandomState`` shared by several
        releases gives them one stream.

    Returns
    -------
    numpy.ndarray of float, same shape as ``values``.
    """
    epsilon, _ = validate_epsilon_delta(epsilon, 0.0)
    values = np.asarray(values, dtype=float)
    if math.isinf(epsilon):
        return values.copy()
    if l1_sensitivity is None:
        raise ValueError("l1_sensitivity is required for the Laplace mechanism (delta == 0).")
    noise_scale(epsilon, 0.0, l1_sensitivity, None)
    mechanism = Laplace(epsilon=epsilon, sensitivity=float(l1_sensitivity), random_state=random_state)
    return randomise_vector(mechanism, values)


def release_gaussian(values: ArrayLike, *, l2_sensitivity: float, epsilon: float | None = None,
                     delta: float | None = None, rho: float | None = None,
                     random_state: int | np.random.RandomState | None = None,
                     mechanisms: dict | None = None) -> np.ndarray:
    """The Gaussian mechanism on every coordinate of ``values``: the release of the Gaussian family (no charge).

    Calibrated either to ``(epsilon, delta)`` with ``delta > 0`` (diffprivlib's analytic Gaussian, Balle & Wang
    2018: (epsilon, delta)-DP for L2 sensitivity ``l2_sensitivity``; ``epsilon == inf`` returns the values
    unchanged) or, when ``rho`` is given, to ``rho``-zCDP (``sigma = Delta_2 / sqrt(2 rho)``, Bun & Steinke 2016,
    Prop. 1.6). All coordinates are drawn in one :func:`~fairlearn_dp.privacy._vector.randomise_vector` call.

    Parameters
    ----------
    values : array-like of float
        The exact statistics (any shape).
    l2_sensitivity : float
        L2 sensitivity of the whole vector.
    epsilon, delta : float, optional
        The ``(epsilon, delta)`` budget (without ``rho``).
    rho : float, optional
        The zCDP budget (then ``epsilon`` and ``delta`` are not used).
    random_state : None, int or numpy.random.RandomState
        As in :func:`release_laplace`.
    mechanisms : dict, optional
        A fit's cache of calibrated mechanisms (the analytic calibration costs about a millisecond): a mechanism
        is built once per budget and sensitivity and then reused, so pass it only with the same ``random_state``
        object (or None) on every call.

    Returns
    -------
    numpy.ndarray of float, same shape as ``values``.
    """
    values = np.asarray(values, dtype=float)
    if rho is None:
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        if delta == 0:
            raise ValueError("the Gaussian mechanism needs delta > 0 (or rho); delta == 0 is the Laplace's.")
        if math.isinf(epsilon):
            return values.copy()
    mechanism = gaussian_mechanism(l2_sensitivity, epsilon=epsilon, delta=delta, rho=rho,
                                   random_state=random_state, mechanisms=mechanisms)
    return randomise_vector(mechanism, values)


def gaussian_mechanism(l2_sensitivity: float, *, epsilon: float | None = None, delta: float | None = None,
                       rho: float | None = None, random_state: int | np.random.RandomState | None = None,
                       mechanisms: dict | None = None) -> GaussianAnalytic:
    """The diffprivlib mechanism :func:`release_gaussian` draws with (its ``sigma`` is the noise's scale); cached
    in ``mechanisms`` (when given) by budget and sensitivity.
    """
    key = (float(l2_sensitivity), epsilon, delta, rho)
    if mechanisms is not None and key in mechanisms:
        return mechanisms[key]
    if rho is not None:
        mechanism = zcdp_gaussian_mechanism(l2_sensitivity, rho, random_state=random_state)
    else:
        if l2_sensitivity is None:
            raise ValueError("l2_sensitivity is required for the Gaussian mechanism (delta > 0).")
        noise_scale(epsilon, delta, None, l2_sensitivity)
        mechanism = analytic_gaussian(epsilon=epsilon, delta=delta, sensitivity=float(l2_sensitivity),
                                      random_state=random_state)
    if mechanisms is not None:
        mechanisms[key] = mechanism
    return mechanism


def joint_histogram_sensitivity(n: int) -> tuple[float, float]:
    """L1 and L2 sensitivity of the empirical joint PMF under substitution of one of ``n`` records.

    Derivation: ``p_hat(a, j) = #{i : a_i = a, h_i = j} / n``. Replacing one record ``(x, a)`` by ``(x', a')``
    removes it from one cell and adds it to one cell (the same cell when nothing changes): one coordinate falls by
    ``1/n`` and another rises by ``1/n``. Hence ``||p_hat - p_hat'||_1 <= 2/n`` and ``||p_hat - p_hat'||_2 <=
    sqrt(2)/n`` (Xian et al. 2024, Remark B.1). ``n`` is the same for both neighbours, so it is public.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}.")
    return 2.0 / n, math.sqrt(2.0) / n


def release_joint_counts(counts: np.ndarray, n: int, *, epsilon: float, delta: float = 0.0,
                         accountant: BudgetAccountant | None = None,
                         random_state: int | np.random.RandomState | None = None) -> tuple[np.ndarray, PrivacySpend]:
    """The joint PMF of (group, bin) released from its cell counts (Xian et al. Alg. 1, l. 3-4), charged once.

    ``counts`` holds ``#{i : a_i = a, h(f(x_i, a_i)) = v_j}`` for every cell of the public ``n_groups x n_bins``
    grid (empty ones included, so the release shape reveals nothing), counted in memory or summed on Dask workers;
    ``n`` is the public number of records. Releases ``counts / n`` at the sensitivity of
    :func:`joint_histogram_sensitivity`: Laplace of scale ``2 / (n epsilon)`` per cell when ``delta == 0``
    (:func:`release_laplace`), analytic Gaussian for L2 sensitivity ``sqrt(2)/n`` otherwise
    (:func:`release_gaussian`). Neighbouring relation: substitution of one record. Privacy: (epsilon, delta)-DP;
    the accountant is checked before the release and charged ``(epsilon, delta)`` once after it (``(inf, 0)`` for
    ``epsilon=inf``, which adds no noise). Returns ``(noisy_pmf, spend)`` with the shape of ``counts``.
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta)
    spend = PrivacySpend(epsilon, delta)
    check_spend(accountant, spend)
    l1, l2 = joint_histogram_sensitivity(n)
    pmf = np.asarray(counts, dtype=float) / n
    if delta == 0:
        noisy = release_laplace(pmf, epsilon=epsilon, l1_sensitivity=l1, random_state=random_state)
    else:
        noisy = release_gaussian(pmf, l2_sensitivity=l2, epsilon=epsilon, delta=delta, random_state=random_state)
    charge(accountant, spend)
    return noisy, spend
