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

from ..exceptions import PrivacyWarning
from ._post_release import mark_released
from ._spend import PrivacySpend

__all__ = ["resolve_accountant", "check_spend", "charge", "validate_epsilon_delta", "PrivacyWarning", "MAX_EPSILON"]

#: The largest finite epsilon accepted anywhere (``inf`` stays allowed: the non-private baseline). diffprivlib's
#: ``BudgetAccountant.total()`` (0.6.6) squares every recorded epsilon (``epsilon ** 2`` on a Python float raises
#: ``OverflowError`` above ``sqrt(DBL_MAX)``, about 1.34e154) and sums the squares over all spends; one spend beyond
#: that would make every later ``total()``, ``remaining()`` and ``check()`` of the accountant raise. At most 1e100,
#: a square is at most 1e200 and the sum stays finite for up to 1e108 spends. Far below the cap the guarantee is
#: already void (``exp(epsilon)`` overflows a float above 709): such a run is non-private in all but name, and
#: ``epsilon=numpy.inf`` says so.
MAX_EPSILON = 1e100


def validate_epsilon_delta(epsilon: float, delta: float = 0.0, *, allow_inf: bool = True) -> tuple[float, float]:
    """Check ``epsilon`` and ``delta`` with errors naming the argument; return them as floats.

    ``epsilon`` must be > 0, and at most ``MAX_EPSILON`` (1e100) when finite, so that
    the accountant's composition stays finite; ``inf`` is allowed when ``allow_inf`` (the non-private baseline).
    ``delta`` must be in ``[0, 1)``.
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, Real):
        raise TypeError(f"epsilon must be a real number, got {type(epsilon).__name__}.")
    if isinstance(delta, bool) or not isinstance(delta, Real):
        raise TypeError(f"delta must be a real number, got {type(delta).__name__}.")
    try:
        epsilon, delta = float(epsilon), float(delta)
    except OverflowError as exc:                # a Python int beyond float range
        raise ValueError("epsilon and delta must be within float range.") from exc
    _check_epsilon_range(epsilon, allow_inf)
    if math.isnan(delta) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}.")
    return epsilon, delta


def _check_epsilon_range(epsilon, allow_inf):
    """``epsilon`` (a float) in ``(0, MAX_EPSILON]``, or ``inf`` when ``allow_inf``."""
    if math.isnan(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    if math.isinf(epsilon):
        if not allow_inf:
            raise ValueError("epsilon must be finite here.")
    elif epsilon > MAX_EPSILON:
        raise ValueError(f"epsilon must be at most {MAX_EPSILON:g} when finite, got {epsilon!r}: the accountant's "
                         "composition would overflow (and no guarantee is left at such a value); use "
                         "epsilon=numpy.inf for a non-private run.")


def resolve_accountant(accountant: BudgetAccountant | None) -> BudgetAccountant:
    """Return ``accountant`` or diffprivlib's default one; raise ``TypeError`` naming ``accountant`` otherwise."""
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(f"accountant must be a diffprivlib BudgetAccountant or None, got {type(accountant).__name__}.")
    return BudgetAccountant.load_default(accountant)


def _check_composable(spend: PrivacySpend):
    """Refuse a finite epsilon above :data:`MAX_EPSILON` (e.g. a zCDP budget's conversion), which would make the
    accountant's composition overflow for good.
    """
    if spend.is_private and spend.epsilon > MAX_EPSILON:
        raise ValueError(f"epsilon must be at most {MAX_EPSILON:g} when finite, got {spend.epsilon!r}: the "
                         "accountant's composition would overflow; use epsilon=numpy.inf for a non-private run.")


def check_spend(accountant: BudgetAccountant | None, spend: PrivacySpend) -> None:
    """Raise diffprivlib's ``BudgetError`` now if ``spend`` would exceed ``accountant``'s ceiling (and a
    ``ValueError`` for a finite epsilon above :data:`MAX_EPSILON`).
    """
    _check_composable(spend)
    resolve_accountant(accountant).check(*spend.as_tuple())


def charge(accountant: BudgetAccountant | None, spend: PrivacySpend) -> PrivacySpend:
    """Charge ``spend`` to ``accountant`` (diffprivlib's default when None), once. Returns ``spend``.

    From here on, the releasing call in progress records its warnings and issues them once its result is complete
    (``_post_release.py``): a warning turned into an error must not lose what was paid for.
    """
    _check_composable(spend)
    resolve_accountant(accountant).spend(*spend.as_tuple())
    mark_released()
    return spend
