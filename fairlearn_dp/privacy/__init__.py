"""Privacy budgets, the bridge to diffprivlib's ``BudgetAccountant``, and noisy releases built on diffprivlib.

Estimators in fairdp never draw noise themselves: they call a release function from here, which checks the
accountant before the data are read, draws noise from a diffprivlib mechanism and charges the accountant once.
zCDP (Bun & Steinke 2016) budgets compose by summation and are charged as their (epsilon, delta) conversion.

Public here is what a user passes or reads: the accountant (diffprivlib's :class:`BudgetAccountant`), the spend an
estimator reports (:class:`PrivacySpend`), the conversions between (epsilon, delta) and zCDP and the composition
helpers that split a total budget over several fits. The release functions, budget splits, seeds and projections
the estimators share are internal (their private modules here) and may change with them.

The rule every estimator follows for its failure paths (stated once here and in
docs/user_guide/failure_paths.rst): whether a fit succeeds, what an error or warning says, and every fitted attribute depend only on
public inputs (each estimator's are listed in ``fairdp_adapters.registry``, column ``public_inputs``) and on
released values. Order in ``fit``: validate public parameters, check the budget (``_accountant.check_spend``), read the
data (domain checks only: type, NaN, lengths, undeclared groups or labels; messages without counts), release,
solve. Inside the domain every dataset fits: empty declared groups are released like any cell, values outside a
public bound are clipped. User code (an estimator, a hypothesis, a metric) run on values derived from a release
runs after the whole spend is charged, so a failure of it stays charged. A failed fit leaves the estimator as it was.
``random_state=None`` is a secure source.
"""

from diffprivlib.accountant import BudgetAccountant

from ._spend import PrivacySpend
from ._zcdp import approx_dp_to_zcdp, zcdp_to_approx_dp

__all__ = [
    "BudgetAccountant",
    "PrivacySpend",
    "approx_dp_to_zcdp",
    "zcdp_to_approx_dp",
]
