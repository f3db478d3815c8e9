"""Privacy budgets, the bridge to diffprivlib's ``BudgetAccountant``, and noisy releases built on diffprivlib.

Estimators in fairdp never draw noise themselves: they call a release function from here, which checks the
accountant before the data are read, draws noise from a diffprivlib mechanism and charges the accountant once.
"""

from ._accountant import PrivacyWarning, charge, check_spend, resolve_accountant, validate_epsilon_delta
from ._release import joint_histogram_sensitivity, noisy_vector, private_joint_histogram
from ._spend import PrivacySpend

__all__ = [
    "PrivacySpend",
    "PrivacyWarning",
    "charge",
    "check_spend",
    "resolve_accountant",
    "validate_epsilon_delta",
    "noisy_vector",
    "private_joint_histogram",
    "joint_histogram_sensitivity",
]
