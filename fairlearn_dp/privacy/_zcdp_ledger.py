"""A ledger of Gaussian releases analysed in zCDP: each release is recorded with its cost, and the total is their sum.

zCDP composes by addition (Bun & Steinke 2016, Lemma 2.3): a fit whose releases cost ``rho_1, ..., rho_m`` is
``sum_i rho_i``-zCDP, whatever the order or the adaptivity of the releases. The ledger recomputes each cost from the
noise it drew (``Delta^2 / (2 sigma^2)``, Prop. 1.6) instead of trusting the budget asked for, so the total is
measured, not asserted. Its user (the group-budget estimators) charges that total once, as its conversion (the delta
policy of :mod:`._budget_split`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._release import release_gaussian
from ._zcdp import zcdp_gaussian_sigma

__all__ = ["ZCDPLedger"]


class ZCDPLedger:
    """Every Gaussian release of a fit with its stage, sensitivity, sigma and zCDP cost ``Delta^2 / (2 sigma^2)``.

    The total spend is computed from the recorded releases (sequential composition: the sum), not asserted.
    """

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self._mechanisms = {}

    def release(self, values: ArrayLike, *, stage: str, l2_sensitivity: float, rho: float,
                random_state: None | int | np.random.RandomState) -> np.ndarray:
        """Release ``values`` with Gaussian noise calibrated to ``rho``-zCDP and record what it cost.

        Through :func:`~fairlearn_dp.privacy._release.release_gaussian` at ``rho``, its calibrated mechanisms cached
        per (sensitivity, rho) for the fit, all drawing from the same ``random_state`` stream.
        """
        if math.isinf(rho):                         # epsilon = inf: the non-private baseline, no noise
            self.entries.append({"stage": stage, "l2_sensitivity": float(l2_sensitivity), "sigma": 0.0,
                                 "rho": math.inf})
            return np.asarray(values, dtype=float).copy()
        noisy = release_gaussian(values, l2_sensitivity=l2_sensitivity, rho=float(rho), random_state=random_state,
                                 mechanisms=self._mechanisms)
        sigma = zcdp_gaussian_sigma(l2_sensitivity, rho)
        self.entries.append({"stage": stage, "l2_sensitivity": float(l2_sensitivity), "sigma": sigma,
                             "rho": l2_sensitivity ** 2 / (2 * sigma ** 2)})
        return noisy

    def total(self, stage: str | None = None) -> float:
        """The zCDP spent: the sum of the recorded releases' costs (of one ``stage``, or of all when None)."""
        return float(sum(e["rho"] for e in self.entries if stage is None or e["stage"] == stage))
