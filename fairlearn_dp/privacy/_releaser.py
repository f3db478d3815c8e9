"""A releaser for estimators that release many vectors with one per-release budget (private FairNR).

The mechanisms are diffprivlib's (Laplace, analytic Gaussian, or the zCDP Gaussian of :mod:`._zcdp`), built here so
that estimators never construct a mechanism themselves.
"""

from __future__ import annotations

import math

import numpy as np
from diffprivlib.mechanisms import GaussianAnalytic, Laplace
from numpy.typing import ArrayLike

from ._random import release_random_state
from ._release import noise_sd
from ._vector import mechanism_scale, randomise_vector
from ._zcdp import zcdp_gaussian_mechanism, zcdp_gaussian_sigma

__all__ = ["VectorReleaser"]


class VectorReleaser:
    """Every release of one fit (private FairNR's), all with ``(epsilon_0, delta_0)`` or ``rho_0``: diffprivlib
    mechanisms, one call per vector.

    Laplace calibrated to the L1 sensitivity when ``delta_0 == 0``, analytic Gaussian calibrated to the L2
    sensitivity otherwise, no noise for ``epsilon_0 = inf``. A vector is released by one mechanism applied to
    every coordinate in one :func:`randomise_vector` call (the vector Laplace / Gaussian mechanism for that
    sensitivity); mechanisms are cached per sensitivity, and they share one ``RandomState`` built from
    ``random_state`` so that every draw is fresh (None: each mechanism uses diffprivlib's cryptographically secure
    generator). Nothing is charged here.
    """

    def __init__(self, epsilon0: float, delta0: float, norm_ord: int, *,
                 random_state: int | np.random.RandomState | None, rho0: float | None = None) -> None:
        self.epsilon0, self.delta0, self.norm_ord, self.rho0 = epsilon0, delta0, norm_ord, rho0
        # None stays None (diffprivlib's secure generator); a seed gives one shared, reproducible stream.
        self.rng = release_random_state(random_state)
        self._mechanisms = {}

    def mechanism(self, sensitivity: float) -> Laplace | GaussianAnalytic:
        """The diffprivlib mechanism of this releaser's budget for ``sensitivity`` (built once, then cached)."""
        if sensitivity not in self._mechanisms:
            if self.rho0 is not None:               # zCDP: Gaussian with sigma = Delta_2 / sqrt(2 rho_0)
                mechanism = zcdp_gaussian_mechanism(sensitivity, self.rho0, random_state=self.rng)
            elif self.delta0 == 0:
                mechanism = Laplace(epsilon=self.epsilon0, sensitivity=sensitivity, random_state=self.rng)
            else:
                mechanism = GaussianAnalytic(epsilon=self.epsilon0, delta=self.delta0, sensitivity=sensitivity,
                                             random_state=self.rng)
            self._mechanisms[sensitivity] = mechanism
        return self._mechanisms[sensitivity]

    def noise_scale(self, sensitivity: float) -> float:
        """Laplace scale ``b = Delta_1 / epsilon_0`` or the Gaussian ``sigma``; 0 without noise."""
        if math.isinf(self.epsilon0):
            return 0.0
        if self.rho0 is not None:
            return zcdp_gaussian_sigma(sensitivity, self.rho0)
        if self.delta0 == 0:
            return sensitivity / self.epsilon0
        return float(mechanism_scale(self.mechanism(sensitivity)))

    def __call__(self, values: ArrayLike, *, l1: float, l2: float) -> tuple[np.ndarray, dict[str, float]]:
        """``(noisy values, {"sensitivity", "noise_scale", "noise_std"})``; the sensitivity is the mechanism's norm."""
        values = np.asarray(values, dtype=float)
        sensitivity = float(l1 if self.norm_ord == 1 else l2)
        scale = self.noise_scale(sensitivity)
        if math.isinf(self.epsilon0):
            noisy = values.copy()
        else:
            mechanism = self.mechanism(sensitivity)
            noisy = randomise_vector(mechanism, values)
        std = noise_sd(scale, self.delta0)
        return noisy, {"sensitivity": sensitivity, "noise_scale": scale, "noise_std": std}
