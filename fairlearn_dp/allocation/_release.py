"""Count release mechanisms: the DP release path (diffprivlib) and their simulation counterparts (numpy).

Neighbouring relation: one person added to or removed from the population. Each person is counted in exactly one
entity (district, county), so the count vector changes by 1 in one coordinate: L1 and L2 sensitivity 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..privacy import PrivacySpend, charge, check_spend, noisy_vector, validate_epsilon_delta

__all__ = ["release_counts", "COUNT_SENSITIVITY", "LaplaceNoise", "GaussianNoise"]

#: L1 and L2 sensitivity of a vector of counts under adding or removing one person.
COUNT_SENSITIVITY = 1.0


def _check_counts(counts):
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("counts must be a non-empty 1-D array.")
    try:
        values = arr.astype(float)
    except (TypeError, ValueError) as exc:
        raise TypeError("counts must be numeric.") from exc
    if not np.all(np.isfinite(values)):
        raise ValueError("counts contains NaN or infinite values.")
    if np.any(values < 0) or np.any(values != np.round(values)):
        raise ValueError("counts must be non-negative integers.")
    return values


def release_counts(counts, *, epsilon, delta=0.0, accountant=None, random_state=None):
    """Release a vector of counts with noise from a diffprivlib mechanism; charge the accountant once.

    Laplace noise of scale ``1 / epsilon`` per entity when ``delta == 0`` (epsilon-DP), analytic Gaussian noise
    for L2 sensitivity 1 when ``delta > 0`` ((epsilon, delta)-DP), for the add/remove-one-person relation (each
    person is in one entity: sensitivity 1). The output is the raw noisy vector (not post-processed): apply the
    projections or allocation mechanisms of this package to it; they cost no further privacy.

    Returns
    -------
    noisy : ndarray of shape (n,)
    spend : PrivacySpend
    """
    values = _check_counts(counts)
    epsilon, delta = validate_epsilon_delta(epsilon, delta, allow_inf=False)
    spend = PrivacySpend(epsilon, delta)
    check_spend(accountant, spend)
    noisy = noisy_vector(values, epsilon=epsilon, delta=delta, l1_sensitivity=COUNT_SENSITIVITY,
                         l2_sensitivity=COUNT_SENSITIVITY, random_state=random_state)
    charge(accountant, spend)
    return noisy, spend


@dataclass(frozen=True)
class LaplaceNoise:
    """SIMULATION of the Laplace count mechanism with scale ``lam`` (the paper's parameter lambda).

    For Monte-Carlo evaluation only (numpy ``Generator`` draws): never used to release anything.
    """

    lam: float

    def __post_init__(self):
        if not (isinstance(self.lam, (int, float)) and math.isfinite(self.lam) and self.lam > 0):
            raise ValueError(f"lam must be a finite number > 0, got {self.lam!r}.")

    @classmethod
    def from_epsilon(cls, epsilon):
        """The scale diffprivlib's Laplace uses for count sensitivity 1: ``1 / epsilon``."""
        epsilon, _ = validate_epsilon_delta(epsilon, 0.0, allow_inf=False)
        return cls(COUNT_SENSITIVITY / epsilon)

    def sample(self, rng, shape):
        return rng.laplace(0.0, self.lam, size=shape)

    def describe(self):
        return f"Laplace(lambda={self.lam:g})"


@dataclass(frozen=True)
class GaussianNoise:
    """SIMULATION of the Gaussian count mechanism with standard deviation ``sigma``.

    For Monte-Carlo evaluation only (numpy ``Generator`` draws): never used to release anything.
    """

    sigma: float

    def __post_init__(self):
        if not (isinstance(self.sigma, (int, float)) and math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be a finite number > 0, got {self.sigma!r}.")

    @classmethod
    def from_epsilon(cls, epsilon, delta):
        """The sigma of diffprivlib's analytic Gaussian mechanism for L2 sensitivity 1 (what the release uses)."""
        from diffprivlib.mechanisms import GaussianAnalytic

        epsilon, delta = validate_epsilon_delta(epsilon, delta, allow_inf=False)
        if delta <= 0:
            raise ValueError("delta must be > 0 for the Gaussian mechanism.")
        variance = GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=COUNT_SENSITIVITY).variance(0.0)
        return cls(math.sqrt(variance))

    def sample(self, rng, shape):
        return rng.normal(0.0, self.sigma, size=shape)

    def describe(self):
        return f"Gaussian(sigma={self.sigma:g})"
