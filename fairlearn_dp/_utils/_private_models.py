"""Which base estimators fit with differential privacy by themselves (their ``fit`` is a DP release)."""

from __future__ import annotations

__all__ = ["fits_privately"]

# diffprivlib's models, and fairdp's DPLogisticRegression, whose fit is diffprivlib's (only its constructor differs).
_PRIVATE_FIT_MODULES = ("diffprivlib.", "fairlearn_dp.reductions._dp_logistic_regression")


def fits_privately(estimator) -> bool:
    """Whether ``estimator``'s class is one whose ``fit`` is differentially private (its own budget and accountant):
    a diffprivlib model or :class:`~fairlearn_dp.reductions.DPLogisticRegression`. Read from the class alone.
    """
    return type(estimator).__module__.startswith(_PRIVATE_FIT_MODULES)
