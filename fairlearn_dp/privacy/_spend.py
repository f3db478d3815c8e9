"""The value object that records what a mechanism spent."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

__all__ = ["PrivacySpend"]


@dataclass(frozen=True)
class PrivacySpend:
    """Privacy loss charged by one fit: ``(epsilon, delta)``, and ``rho`` when the analysis is in zCDP.

    Parameters
    ----------
    epsilon : float
        Non-negative; ``math.inf`` records a non-private computation.
    delta : float, default=0.0
        In ``[0, 1]``; 0 for pure differential privacy.
    rho : float or None, default=None
        Zero-concentrated DP parameter, when the mechanism was analysed in zCDP (then ``epsilon, delta`` is its
        conversion).

    Examples
    --------
    >>> from fairlearn_dp.privacy import PrivacySpend
    >>> spend = PrivacySpend(epsilon=1.0, delta=1e-5)
    >>> spend, spend.is_private, spend.as_tuple()
    (PrivacySpend(epsilon=1.0, delta=1e-05, rho=None), True, (1.0, 1e-05))
    """

    epsilon: float
    delta: float = 0.0
    rho: float | None = None

    def __post_init__(self):
        for name in ("epsilon", "delta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, Real):
                raise TypeError(f"{name} must be a real number, got {type(value).__name__}.")
            if math.isnan(value):
                raise ValueError(f"{name} must not be NaN.")
        if self.epsilon < 0:
            raise ValueError(f"epsilon must be non-negative, got {self.epsilon}.")
        if not 0 <= self.delta <= 1:
            raise ValueError(f"delta must be in [0, 1], got {self.delta}.")
        if self.rho is not None and (not isinstance(self.rho, Real) or math.isnan(self.rho) or self.rho < 0):
            raise ValueError(f"rho must be a non-negative number or None, got {self.rho}.")
        object.__setattr__(self, "epsilon", float(self.epsilon))
        object.__setattr__(self, "delta", float(self.delta))

    @property
    def is_private(self) -> bool:
        """True when epsilon is finite (a non-private run records ``epsilon = inf``)."""
        return math.isfinite(self.epsilon)

    def as_tuple(self) -> tuple[float, float]:
        """``(epsilon, delta)``, the form diffprivlib's ``BudgetAccountant.spend`` takes."""
        return (self.epsilon, self.delta)
