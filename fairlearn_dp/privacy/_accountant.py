"""Bridge to diffprivlib's :class:`~diffprivlib.BudgetAccountant`.

Every fairdp estimator takes ``accountant=None`` (diffprivlib's default accountant) or a ``BudgetAccountant``. The
rule is: check the whole spend *before* any private data is touched, then charge it exactly once after the release
succeeded. :func:`check_spend` and :func:`charge` implement those two steps; release functions in this package call
them so that the place noise is drawn is also the place the budget is charged.
"""

from __future__ import annotations

import math
from numbers import Real

from diffprivlib.accountant import BudgetAccountant

from ._spend import PrivacySpend

__all__ = ["resolve_accountant", "check_spend", "charge", "validate_epsilon_delta", "PrivacyWarning"]


class PrivacyWarning(UserWarning):
    """Issued when a choice that should be public is taken from the data, or a guarantee is weaker than it looks."""


def validate_epsilon_delta(epsilon, delta=0.0, *, allow_inf=True):
    """Check ``epsilon`` and ``delta`` with errors naming the argument; return them as floats.

    ``epsilon`` must be > 0 (``inf`` allowed when ``allow_inf``: the non-private baseline) and ``delta`` in
    ``[0, 1)``.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"epsilon must be a real number, got {type(epsilon).__name__}.")
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"delta must be a real number, got {type(delta).__name__}.")
    try:
        epsilon, delta = float(epsilon), float(delta)
    except OverflowError as exc:                # a Python int beyond float range
        raise ValueError("epsilon and delta must be within float range.") from exc
    if math.isnan(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    if math.isinf(epsilon) and not allow_inf:
        raise ValueError("epsilon must be finite here.")
    if math.isnan(delta) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}.")
    return epsilon, delta


def resolve_accountant(accountant):
    """Return ``accountant`` or diffprivlib's default one; raise ``TypeError`` naming ``accountant`` otherwise."""
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(f"accountant must be a diffprivlib BudgetAccountant or None, got {type(accountant).__name__}.")
    return BudgetAccountant.load_default(accountant)


def check_spend(accountant, spend: PrivacySpend):
    """Raise diffprivlib's ``BudgetError`` now if ``spend`` would exceed ``accountant``'s ceiling."""
    resolve_accountant(accountant).check(*spend.as_tuple())


def charge(accountant, spend: PrivacySpend):
    """Charge ``spend`` to ``accountant`` (diffprivlib's default when None), once. Returns ``spend``."""
    resolve_accountant(accountant).spend(*spend.as_tuple())
    return spend
