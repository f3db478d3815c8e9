"""Privacy budgets, the bridge to diffprivlib's ``BudgetAccountant``, and noisy releases built on diffprivlib.

Estimators in fairdp never draw noise themselves: they call a release function from here, which checks the
accountant before the data are read, draws noise from a diffprivlib mechanism and charges the accountant once.
zCDP (Bun & Steinke 2016) budgets compose by summation and are charged as their (epsilon, delta) conversion.

The rule every estimator follows for its failure paths (stated once here and in
docs/user_guide/failure_paths.rst): whether a fit succeeds, what an error or warning says, and every fitted attribute depend only on
public inputs (each estimator's are listed in ``fairdp_adapters.registry``, column ``public_inputs``) and on
released values. Order in ``fit``: validate public parameters, check the budget (:func:`check_spend`), read the
data (domain checks only: type, NaN, lengths, undeclared groups or labels; messages without counts), release,
solve. Inside the domain every dataset fits: empty declared groups are released like any cell, values outside a
public bound are clipped. A failed fit leaves the estimator as it was. ``random_state=None`` is a secure source.
"""

from diffprivlib.accountant import BudgetAccountant

from ._budget_split import (
    composed_spend,
    group_budget_split,
    group_budget_stage1_split,
    group_budget_stage2_split,
    min_count_split,
    per_release_budget,
    per_release_rho,
    statistics_game_split,
    statistics_release_split,
)
from ._composition import advanced_composition_epsilon, per_mechanism_epsilon
from ._exponential import exponential_mechanism, exponential_mechanism_excess_cost, exponential_mechanism_probabilities
from ._accountant import MAX_EPSILON, PrivacyWarning, charge, check_spend, resolve_accountant, validate_epsilon_delta
from ._post_release import issue_warnings_after_release, warnings_after_release
from ._projection import nonnegative_sum_rows, project_onto_nonnegative_sum, project_onto_sum
from ._random import check_random_state, copy_random_state, release_random_state, release_seeds, skip_draws
from ._release import (
    joint_histogram_sensitivity,
    noise_scale,
    noise_sd,
    noisy_vector,
    private_joint_histogram,
    release_joint_counts,
)
from ._releaser import VectorReleaser
# The estimators' last step; the split, the bound and the helpers are importable for them, not in __all__.
from ._selection import (
    SELECTION_SHARE,
    ConstantChoice,
    choose_against_constants,
    no_choice as no_choice,
    selection_error_bound as selection_error_bound,
    selection_split as selection_split,
)
from ._spend import PrivacySpend
from ._vector import randomise_vector
from ._zcdp_ledger import ZCDPLedger as ZCDPLedger   # public as fairlearn_dp.reductions.ZCDPLedger
from ._zcdp import (
    approx_dp_to_zcdp,
    check_rho,
    compose_zcdp,
    noisy_vector_zcdp,
    pure_dp_to_zcdp,
    zcdp_gaussian_mechanism,
    zcdp_gaussian_sigma,
    zcdp_spend,
    zcdp_to_approx_dp,
)

__all__ = [
    "BudgetAccountant",
    "PrivacySpend",
    "PrivacyWarning",
    "charge",
    "warnings_after_release",
    "issue_warnings_after_release",
    "check_spend",
    "resolve_accountant",
    "validate_epsilon_delta",
    "MAX_EPSILON",
    "noisy_vector",
    "project_onto_sum",
    "project_onto_nonnegative_sum",
    "randomise_vector",
    "private_joint_histogram",
    "joint_histogram_sensitivity",
    "check_rho",
    "compose_zcdp",
    "zcdp_to_approx_dp",
    "pure_dp_to_zcdp",
    "zcdp_gaussian_sigma",
    "zcdp_spend",
    "zcdp_gaussian_mechanism",
    "noisy_vector_zcdp",
    "advanced_composition_epsilon",
    "per_mechanism_epsilon",
    "per_release_budget",
    "per_release_rho",
    "composed_spend",
    "statistics_game_split",
    "statistics_release_split",
    "min_count_split",
    "group_budget_split",
    "group_budget_stage1_split",
    "group_budget_stage2_split",
    "VectorReleaser",
    "release_joint_counts",
    "nonnegative_sum_rows",
    "approx_dp_to_zcdp",
    "check_random_state",
    "copy_random_state",
    "release_random_state",
    "release_seeds",
    "skip_draws",
    "noise_scale",
    "noise_sd",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "exponential_mechanism_excess_cost",
    "SELECTION_SHARE",
    "ConstantChoice",
    "choose_against_constants",
]
