"""A releaser for estimators that release many vectors with one per-release budget (private FairNR).

The releases are those of :mod:`._release` (Laplace, analytic Gaussian, or the zCDP Gaussian), so that estimators
never construct a mechanism themselves.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._random import release_random_state
from ._release import gaussian_mechanism, noise_sd, release_gaussian, release_laplace
from ._vector import mechanism_scale
from ._zcdp import zcdp_gaussian_sigma

__all__ = ["VectorReleaser"]


class VectorReleaser:
    """Every release of one fit (private FairNR's), all with ``(epsilon_0, delta_0)`` or ``rho_0``, through the
    release functions of :mod:`._release`.

    Laplace calibrated to the L1 sensitivity when ``delta_0 == 0`` (:func:`release_laplace`), the Gaussian
    calibrated to the L2 sensitivity otherwise or with ``rho_0`` (:func:`release_gaussian`, its calibrated
    mechanisms cached per sensitivity), no noise for ``epsilon_0 = inf``. Every release draws from one
    ``RandomState`` built from ``random_state``, so that every draw is fresh (None: each mechanism uses
    diffprivlib's cryptographically secure generator). Nothing is charged here.
    """

    def __init__(self, epsilon0: float, delta0: float, norm_ord: int, *,
                 random_state: int | np.random.RandomState | None, rho0: float | None = None) -> None:
        self.epsilon0, self.delta0, self.norm_ord, self.rho0 = epsilon0, delta0, norm_ord, rho0
        # None stays None (diffprivlib's secure generator); a seed gives one shared, reproducible stream.
        self.rng = release_random_state(random_state)
        self._mechanisms = {}

    def _laplace(self) -> bool:
        return self.rho0 is None and self.delta0 == 0

    def _gaussian(self, sensitivity: float) -> dict:
        """The keyword arguments of :func:`release_gaussian` and :func:`gaussian_mechanism` for ``sensitivity``."""
        budget = {"rho": self.rho0} if self.rho0 is not None else {"epsilon": self.epsilon0, "delta": self.delta0}
        return {"l2_sensitivity": sensitivity, "random_state": self.rng, "mechanisms": self._mechanisms, **budget}

    def noise_scale(self, sensitivity: float) -> float:
        """Laplace scale ``b = Delta_1 / epsilon_0`` or the Gaussian ``sigma``; 0 without noise."""
        if math.isinf(self.epsilon0):
            return 0.0
        if self.rho0 is not None:
            return zcdp_gaussian_sigma(sensitivity, self.rho0)
        if self.delta0 == 0:
            return sensitivity / self.epsilon0
        return float(mechanism_scale(gaussian_mechanism(**self._gaussian(sensitivity))))

    def __call__(self, values: ArrayLike, *, l1: float, l2: float) -> tuple[np.ndarray, dict[str, float]]:
        """``(noisy values, {"sensitivity", "noise_scale", "noise_std"})``; the sensitivity is the mechanism's norm."""
        values = np.asarray(values, dtype=float)
        sensitivity = float(l1 if self.norm_ord == 1 else l2)
        scale = self.noise_scale(sensitivity)
        if math.isinf(self.epsilon0):
            noisy = values.copy()
        elif self._laplace():
            noisy = release_laplace(values, epsilon=self.epsilon0, l1_sensitivity=sensitivity, random_state=self.rng)
        else:
            noisy = release_gaussian(values, **self._gaussian(sensitivity))
        std = noise_sd(scale, self.delta0)
        return noisy, {"sensitivity": sensitivity, "noise_scale": scale, "noise_std": std}
