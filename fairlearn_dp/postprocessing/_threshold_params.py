"""The public-parameter checks of :class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`.

Its declarative table (``PUBLIC_PARAMETER_CHECKS``, the class's ``_public_parameter_checks``) and the checks its joint
rules use. All run before the budget check and before any data are read, on both paths (the DP fit and Fairlearn's
at ``epsilon=inf``, ``check_fairlearn_path_params``); the constraints and objective keep Fairlearn's errors and
messages.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from .._fairlearn_compat import (
    NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE,
    OBJECTIVES_FOR_EQUALIZED_ODDS,
    OBJECTIVES_FOR_SIMPLE_CONSTRAINTS,
    SIMPLE_CONSTRAINTS,
)
from .._utils._features import warn_sensitive_columns_in_X
from .._utils._validation import (
    check_bool,
    check_choice,
    check_estimator,
    check_n_bins,
    check_positive_int,
    check_real,
    check_seed,
    check_solver,
    validate_params,
    value_errors,
)
from ._mixing_lp import _AIF360_OBJECTIVE, _CONSTRAINT_RATES

__all__ = ["MAX_N_SCORE_BINS", "PUBLIC_PARAMETER_CHECKS", "ThresholdOptimizerOptions", "check_beta",
           "check_constraints_and_objective",
           "check_decision_function_range", "check_fairlearn_path_params", "check_privacy_unit", "check_score_range",
           "check_tol", "check_public_X"]

# The mixing LP has 2 |A| (B + 1) variables and its constraint rows are built densely (|A|^2 B entries per rate):
# B = 10^4 solves in about a second for 10 groups; far larger B only adds noisy, empty bins. Checked before any work.
MAX_N_SCORE_BINS = 10_000

_AIF360_OBJECTIVE_NOTE = f" (fairdp also accepts {_AIF360_OBJECTIVE!r}.)"
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_PREDICT_METHODS = ("auto", "predict_proba", "decision_function", "predict")      # Fairlearn's choices


#: ``beta`` in (0, 1): a ``ValueError`` for anything else, a non-number too.
check_beta = value_errors(functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True))
_UNIT_INTERVAL = value_errors(functools.partial(check_real, low=0.0, high=1.0))


def check_privacy_unit(privacy_unit, name="privacy_unit"):
    """One of ``_PRIVACY_UNITS``."""
    if privacy_unit not in _PRIVACY_UNITS:
        raise ValueError(f"{name} must be one of {_PRIVACY_UNITS}, got {privacy_unit!r}.")
    return privacy_unit


def check_tol(tol, name="tol"):
    """``gamma``: ``tol`` as a float in [0, 1] (None means 0)."""
    return 0.0 if tol is None else _UNIT_INTERVAL(tol, name)


def _check_optional_score_range(score_range, name="score_range"):
    return None if score_range is None else check_score_range(score_range)


@dataclasses.dataclass(frozen=True)
class ThresholdOptimizerOptions:
    """Expert settings of :class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`.

    Pass one as ``DPThresholdOptimizer(..., options=ThresholdOptimizerOptions(...))``; the defaults
    (``options=None``) suit most fits. Every field is public: it may not depend on the private data.

    Parameters
    ----------
    beta : float, default=0.05
        In (0, 1): the error bounds ``rate_error_`` (and the slack) hold together with probability >= 1 - beta.
    privacy_slack : bool, default=False
        True adds Jagielski et al.'s confidence slack to every constraint (LP~ (1): the non-private optimum stays
        feasible, but each group's rate may drift by its slack); False constrains the released rates to ``tol``.
        With binary predictions, ``flip=True`` and ``privacy_slack=True`` the fit is the paper's Algorithm 1.
    n_score_bins : int, default=10
        Public number of score bins in ``[1, MAX_N_SCORE_BINS]`` (10,000); ignored for binary predictions.
    solver : str, default="linprog"
        The mixing LP's solver: "linprog" (SciPy's HiGHS) or the name of an installed cvxpy solver (e.g. "HIGHS",
        "CLARABEL").

    Examples
    --------
    >>> from fairlearn_dp.postprocessing import ThresholdOptimizerOptions
    >>> options = ThresholdOptimizerOptions(n_score_bins=20)   # pass as DPThresholdOptimizer(..., options=options)
    >>> options
    ThresholdOptimizerOptions(beta=0.05, privacy_slack=False, n_score_bins=20, solver='linprog')
    """

    beta: float = 0.05
    privacy_slack: bool = False
    n_score_bins: int = 10
    solver: str = "linprog"


_check_n_score_bins = functools.partial(check_n_bins, maximum=MAX_N_SCORE_BINS,
                                        reason=" (the mixing LP grows with it)")


def check_threshold_optimizer_options(value, name="options"):
    """``value`` (None: the defaults) as a checked :class:`ThresholdOptimizerOptions`; errors name ``name.<field>``
    (in the order the fields were checked as parameters: privacy_slack, solver, beta, n_score_bins).
    """
    if value is None:
        return ThresholdOptimizerOptions()
    if not isinstance(value, ThresholdOptimizerOptions):
        raise TypeError(f"{name} must be a ThresholdOptimizerOptions or None, got {type(value).__name__}.")
    check_bool(value.privacy_slack, f"{name}.privacy_slack")
    check_solver(value.solver, f"{name}.solver", own="linprog")
    check_beta(value.beta, f"{name}.beta")
    _check_n_score_bins(value.n_score_bins, f"{name}.n_score_bins")
    return value


#: ``DPThresholdOptimizer._public_parameter_checks``: its public parameters with a check of their own, in the order
#: they are checked (the joint rules follow: ``DPThresholdOptimizer._check_params_together``).
PUBLIC_PARAMETER_CHECKS = {
    "flip": check_bool,
    "prefit": check_bool,
    "options": check_threshold_optimizer_options,
    "random_state": check_seed,
    "predict_method": functools.partial(check_choice, options=_PREDICT_METHODS),
    "grid_size": check_positive_int,
    "privacy_unit": check_privacy_unit,
    "score_range": _check_optional_score_range,
    "tol": check_tol,
}
# Checked before the estimator on Fairlearn's path (as before the table existed), without flip and prefit (Fairlearn
# reads their truth value) and without tol (Fairlearn's own).
_BEFORE_ESTIMATOR = ("options", "random_state")
_AFTER_ESTIMATOR = ("predict_method", "grid_size", "privacy_unit", "score_range")


def check_fairlearn_path_params(model):
    """The public parameters checked on Fairlearn's path (``epsilon=inf`` with an estimator), before the budget:
    those Fairlearn does not have, and those it accepts silently (``grid_size=0``) or refuses late with an error
    that does not name them (``estimator``, ``predict_method``). ``flip`` and ``prefit`` keep Fairlearn's reading
    (their truth value), so a drop-in call that passes ``prefit=1`` behaves as with Fairlearn.
    """
    validate_params(model, {name: PUBLIC_PARAMETER_CHECKS[name] for name in _BEFORE_ESTIMATOR})
    check_estimator(model.estimator, prefit=bool(model.prefit))
    validate_params(model, {name: PUBLIC_PARAMETER_CHECKS[name] for name in _AFTER_ESTIMATOR})


def check_public_X(model, X, sensitive_features):
    """Under ``privacy_unit="sensitive_attribute"`` a base estimator fitted in ``fit`` (not prefit) is fitted on ``X``
    as public data: warn for an ``X`` holding a column of ``sensitive_features`` (public names, before the budget). A
    prefit estimator, or none, may read the attribute: one person's change then moves their one row, as the
    sensitivity assumes.
    """
    if (model.privacy_unit == "sensitive_attribute" and model.estimator is not None and not model.prefit
            and not math.isinf(float(model.epsilon))):
        warn_sensitive_columns_in_X(X, sensitive_features, remedy="To protect them, drop them from X, pass an "
                                    "estimator fitted on other data (prefit=True), or use privacy_unit='record'.")


def check_decision_function_range(predict_method, score_range):
    """Decision-function scores need the public ``score_range`` (they have no natural range)."""
    if predict_method == "decision_function" and score_range is None:
        raise ValueError("score_range=(low, high) is required with decision_function scores; it must be public, "
                         "not computed from the data.")


def check_score_range(score_range):
    """``score_range`` as a finite pair ``low < high``, with errors naming it."""
    try:
        low, high = (float(v) for v in score_range)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"score_range must be a pair of numbers (low, high), got {score_range!r}.") from exc
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"score_range must be finite with low < high, got {score_range!r}.")
    return low, high


def check_constraints_and_objective(constraints, objective):
    """Fairlearn's checks and messages (``ThresholdOptimizer.fit``), plus our AIF360 objective."""
    if isinstance(objective, str) and objective == _AIF360_OBJECTIVE and constraints in _CONSTRAINT_RATES:
        return
    if isinstance(constraints, str) and constraints in SIMPLE_CONSTRAINTS:
        if not (isinstance(objective, str) and objective in OBJECTIVES_FOR_SIMPLE_CONSTRAINTS):
            raise ValueError(NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE.format(constraints)
                             + _AIF360_OBJECTIVE_NOTE)
    elif isinstance(constraints, str) and constraints == "equalized_odds":
        if not (isinstance(objective, str) and objective in OBJECTIVES_FOR_EQUALIZED_ODDS):
            raise ValueError(NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE + _AIF360_OBJECTIVE_NOTE)
    else:
        raise ValueError(NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE)
