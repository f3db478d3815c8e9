"""The public-parameter checks of :class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`.

All run before the budget check and before any data are read, on both paths (the DP fit and Fairlearn's at
``epsilon=inf``); the constraints and objective keep Fairlearn's errors and messages.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from .._fairlearn_compat import (
    NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE,
    OBJECTIVES_FOR_EQUALIZED_ODDS,
    OBJECTIVES_FOR_SIMPLE_CONSTRAINTS,
    SIMPLE_CONSTRAINTS,
)
from ..utils._validation import (
    check_bool,
    check_choice,
    check_estimator,
    check_n_bins,
    check_positive_int,
    check_seed,
    check_solver,
    validate_params,
)
from ._mixing_lp import _AIF360_OBJECTIVE, _CONSTRAINT_RATES

__all__ = ["MAX_N_SCORE_BINS", "check_constraints_and_objective", "check_dp_params", "check_score_range",
           "check_tol"]

# The mixing LP has 2 |A| (B + 1) variables and its constraint rows are built densely (|A|^2 B entries per rate):
# B = 10^4 solves in about a second for 10 groups; far larger B only adds noisy, empty bins. Checked before any work.
MAX_N_SCORE_BINS = 10_000

_AIF360_OBJECTIVE_NOTE = f" (fairdp also accepts {_AIF360_OBJECTIVE!r}.)"
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_PREDICT_METHODS = ("auto", "predict_proba", "decision_function", "predict")      # Fairlearn's choices
# Public parameters checked by the generic checks (with the others, before the budget, on both paths).
_PARAMETER_CHECKS = {"flip": check_bool, "prefit": check_bool, "privacy_slack": check_bool,
                     "random_state": check_seed, "solver": functools.partial(check_solver, own="linprog")}


def check_dp_params(model, *, fairlearn_path=False):
    """``DPThresholdOptimizer._check_dp_params``: the parameters Fairlearn does not have, and those Fairlearn
    accepts silently (``grid_size=0``) or refuses late with an error that does not name them (``estimator``,
    ``predict_method``). On Fairlearn's path ``flip`` and ``prefit`` are not checked here (Fairlearn reads their
    truth value).
    """
    checks = _PARAMETER_CHECKS
    if fairlearn_path:
        checks = {name: check for name, check in checks.items() if name not in ("flip", "prefit")}
    validate_params(model, checks)
    check_estimator(model.estimator, prefit=bool(model.prefit))
    check_choice(model.predict_method, "predict_method", _PREDICT_METHODS)
    check_positive_int(model.grid_size, "grid_size")
    if isinstance(model.beta, bool) or not isinstance(model.beta, numbers.Real) or not 0 < model.beta < 1:
        raise ValueError(f"beta must be in (0, 1), got {model.beta!r}.")
    if model.privacy_unit not in _PRIVACY_UNITS:
        raise ValueError(f"privacy_unit must be one of {_PRIVACY_UNITS}, got {model.privacy_unit!r}.")
    check_n_bins(model.n_score_bins, "n_score_bins", maximum=MAX_N_SCORE_BINS,
                 reason=" (the mixing LP grows with it)")
    if model.score_range is not None:
        check_score_range(model.score_range)


def check_tol(tol):
    """``gamma``: ``tol`` as a float in [0, 1] (None means 0)."""
    gamma = 0.0 if tol is None else tol
    if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not 0 <= gamma <= 1:
        raise ValueError(f"tol must be None or in [0, 1], got {tol!r}.")
    return float(gamma)


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
