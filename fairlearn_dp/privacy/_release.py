"""Noisy releases: the only place fairdp draws noise on a release path.

All noise comes from diffprivlib mechanisms (:class:`~diffprivlib.mechanisms.Laplace` for pure DP,
:class:`~diffprivlib.mechanisms.GaussianAnalytic` when ``delta > 0``). diffprivlib's mechanisms are scalar, so a
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
from ._vector import randomise_vector

__all__ = ["noisy_vector", "noise_scale", "noise_sd", "private_joint_histogram", "joint_histogram_sensitivity",
           "release_joint_counts"]


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
            scale = math.sqrt(GaussianAnalytic(epsilon=epsilon, delta=delta,
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


def noisy_vector(values: ArrayLike, *, epsilon: float, delta: float = 0.0, l1_sensitivity: float | None = None,
                 l2_sensitivity: float | None = None,
                 random_state: int | np.random.RandomState | None = None) -> np.ndarray:
    """Add independent noise to every coordinate of ``values`` (does not charge an accountant).

    - ``delta == 0``: Laplace noise of scale ``l1_sensitivity / epsilon`` on each coordinate. If the L1 distance
      between the vector on neighbouring datasets is at most ``l1_sensitivity`` this is epsilon-DP (the Laplace
      mechanism, Dwork & Roth 2014, Thm. 3.6).
    - ``delta > 0``: analytic Gaussian noise calibrated to ``l2_sensitivity`` (Balle & Wang 2018), (epsilon,
      delta)-DP for a vector whose L2 distance between neighbours is at most ``l2_sensitivity``.
    - ``epsilon == inf``: the values are returned unchanged (the non-private baseline).

    Parameters
    ----------
    values : array-like of float
        The exact statistics (any shape).
    epsilon, delta : float
        Privacy parameters of the release.
    l1_sensitivity, l2_sensitivity : float
        Sensitivities of the whole vector; the one the mechanism needs is required.
    random_state : None, int or numpy.random.RandomState
        Passed to the diffprivlib mechanism. ``None`` uses a cryptographically secure generator; a seed makes the
        draw reproducible (experiments only: a seeded release is not secure).

    Returns
    -------
    numpy.ndarray of float, same shape as ``values``.
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta)
    values = np.asarray(values, dtype=float)
    if math.isinf(epsilon):
        return values.copy()
    if delta == 0:
        if l1_sensitivity is None:
            raise ValueError("l1_sensitivity is required for the Laplace mechanism (delta == 0).")
        noise_scale(epsilon, delta, l1_sensitivity, None)
        mechanism = Laplace(epsilon=epsilon, sensitivity=float(l1_sensitivity), random_state=random_state)
    else:
        if l2_sensitivity is None:
            raise ValueError("l2_sensitivity is required for the Gaussian mechanism (delta > 0).")
        noise_scale(epsilon, delta, None, l2_sensitivity)
        mechanism = GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=float(l2_sensitivity),
                                     random_state=random_state)
    return randomise_vector(mechanism, values)


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


def private_joint_histogram(bin_index: ArrayLike, group_index: ArrayLike, *, n_bins: int, n_groups: int,
                            epsilon: float, delta: float = 0.0, accountant: BudgetAccountant | None = None,
                            random_state: int | np.random.RandomState | None = None
                            ) -> tuple[np.ndarray, PrivacySpend]:
    """Release the joint PMF of (group, bin) with noise and charge the accountant once (Xian et al. Alg. 1, l. 3-4).

    Computes ``p_hat(a, v_j) = (1/n) sum_i 1[a_i = a, h(f(x_i, a_i)) = v_j]`` for all ``n_groups x n_bins`` cells
    (every cell of the public grid, empty ones included, so the release shape reveals nothing) and adds noise with
    :func:`noisy_vector` at the sensitivity of :func:`joint_histogram_sensitivity`: Laplace of scale ``2 / (n
    epsilon)`` per cell when ``delta == 0``, analytic Gaussian for L2 sensitivity ``sqrt(2)/n`` otherwise.

    Neighbouring relation: substitution of one record. Privacy: (epsilon, delta)-DP; the accountant is checked
    before the data are read and charged ``(epsilon, delta)`` once after the release (``(inf, 0)`` for
    ``epsilon=inf``, which adds no noise).

    Returns
    -------
    noisy_pmf : numpy.ndarray of shape (n_groups, n_bins)
    spend : PrivacySpend
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta)
    spend = PrivacySpend(epsilon, delta)
    check_spend(accountant, spend)
    bin_index = np.asarray(bin_index, dtype=np.intp)
    group_index = np.asarray(group_index, dtype=np.intp)
    if bin_index.shape != group_index.shape or bin_index.ndim != 1:
        raise ValueError("bin_index and group_index must be 1-D arrays of the same length.")
    n = bin_index.size
    if n == 0:
        raise ValueError("Cannot release a histogram of an empty dataset.")
    if bin_index.min() < 0 or bin_index.max() >= n_bins or group_index.min() < 0 or group_index.max() >= n_groups:
        raise ValueError("bin_index or group_index outside the declared grid.")
    counts = np.zeros((n_groups, n_bins))
    np.add.at(counts, (group_index, bin_index), 1.0)
    return release_joint_counts(counts, n, epsilon=epsilon, delta=delta, accountant=accountant,
                                random_state=random_state)


def release_joint_counts(counts: np.ndarray, n: int, *, epsilon: float, delta: float = 0.0,
                         accountant: BudgetAccountant | None = None,
                         random_state: int | np.random.RandomState | None = None) -> tuple[np.ndarray, PrivacySpend]:
    """The release step of :func:`private_joint_histogram`, from cell counts already computed (e.g. summed on
    Dask workers): ``counts / n`` with noise at :func:`joint_histogram_sensitivity` ``(n)``, one charge of
    ``(epsilon, delta)``. Returns ``(noisy_pmf, spend)`` with the shape of ``counts``.
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta)
    spend = PrivacySpend(epsilon, delta)
    check_spend(accountant, spend)
    l1, l2 = joint_histogram_sensitivity(n)
    noisy = noisy_vector(np.asarray(counts, dtype=float) / n, epsilon=epsilon, delta=delta, l1_sensitivity=l1,
                         l2_sensitivity=l2, random_state=random_state)
    charge(accountant, spend)
    return noisy, spend
