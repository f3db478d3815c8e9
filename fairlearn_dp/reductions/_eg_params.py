"""DPExponentiatedGradient's public parameters: their checks, run before the budget check, and what they resolve to.

The mixin below validates every public parameter of :class:`~fairlearn_dp.reductions.DPExponentiatedGradient` in
one step (:class:`~fairlearn_dp._utils._fit_order.PrivateFitMixin`: the table ``_public_parameter_checks``, then
``_check_params_together``), resolves ``mode``/``oracle`` to the algorithm that runs, and computes the public
quantities the algorithms share: the bound ``B`` on the multipliers, Algorithm 3's number of rounds ``T`` (capped
at ``MAX_ROUNDS``) and the constraint's public structure (its events and (event, group) cells). Everything here
reads public inputs only (parameters, X's shape, the declared groups), except ``_load``, the domain checks of the
data, whose messages carry no counts. Derivations: docs/privacy_analysis/exponentiated_gradient.md.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from fairlearn.reductions import (
    DemographicParity,
    EqualizedOdds,
    ErrorRateParity,
    FalsePositiveRateParity,
    TruePositiveRateParity,
)

from ..privacy import PrivacySpend
from ..privacy._selection import selection_split
from .._utils._features import warn_sensitive_columns_in_X
from .._utils._fit_order import PrivateFitMixin
from .._utils._row_bounds import feature_reach, resolve_row_norm_bound, warn_loose_row_norm_bound
from .._utils._withheld import call_withheld
from .._utils._validation import (
    check_binary_labels,
    as_group_vector,
    check_choice,
    check_declared_groups,
    check_delta,
    check_epsilon,
    check_estimator,
    check_feature_bound,
    check_int,
    check_optional_hypotheses,
    check_real,
    check_seed,
    encode_groups,
    resolve_groups,
    value_errors,
)
from ._objective import objective_costs
from ._pipeline import pipeline_parts
from ._pipeline_bounds import preprocessing_row_norm_bound

SUPPORTED_MOMENTS = (DemographicParity, EqualizedOdds, TruePositiveRateParity, FalsePositiveRateParity, ErrorRateParity)
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_ORACLES = ("auto", "exponential", "regression", "estimator", "diffprivlib", "least_squares")
_MODES = ("auto", "statistics", "paper")
_STATISTICS_ORACLES = ("weighted_estimator", "least_squares")
_PAPER_B = 10.0                     # Algorithm 3's default bound on the multipliers (bound_B=None)
# Most rounds a private fit plays (max_iter, or Algorithm 3's formula for T, which grows like epsilon without bound).
# Measured per round on Communities & Crime (1,994 rows, 98 features) on a 2-core machine: Algorithm 3 with the
# regression oracle 0.4 ms, the statistics game about 3 ms, Algorithm 3 with the exponential oracle over 514
# hypotheses 6 ms; so at most about 6 s (rounds cost O(n d), or O(|H|) for the exponential oracle).
MAX_ROUNDS = 1_000
_POSITIVE_OR_NONE = functools.partial(check_real, low=0.0, low_open=True, allow_none=True)
_FRACTION = functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True)
# Fairlearn's eps and eta0 on the private paths: a ValueError for every bad value, of whatever type (as before).
_POSITIVE_VALUE = value_errors(functools.partial(check_real, low=0.0, low_open=True))
_ROUNDS_VALUE = value_errors(functools.partial(check_int, low=1, allow_none=True))


def _check_rounds(value, name="max_iter"):
    """``max_iter``: None or an integer in ``[1, MAX_ROUNDS]`` (the private algorithms only)."""
    _ROUNDS_VALUE(value, name)                  # a ValueError for every bad value, as before
    if value is not None and value > MAX_ROUNDS:
        raise ValueError(f"max_iter must be at most MAX_ROUNDS={MAX_ROUNDS:,} for the private algorithms (a fit "
                         f"of that many rounds takes seconds), got {value!r}.")
    return value


_FAIRLEARN_MAX_ITER = 50            # Fairlearn's default rounds, used by the Fairlearn path when max_iter is None
_FAIRLEARN_EPS, _FAIRLEARN_ETA0 = 0.01, 2.0


class _ExponentiatedGradientParams(PrivateFitMixin):
    """The public-parameter checks and resolutions of :class:`DPExponentiatedGradient` (a mixin: they read the
    estimator's parameters). Run before the budget check; nothing here reads the rows except ``_load``.
    """

    #: Every parameter checked on every path (Fairlearn's too), in this order, before the budget check. Fairlearn's
    #: own arguments (eps, max_iter, nu, eta0, run_linprog_step, sample_weight_name, constraints, objective,
    #: estimator) are checked by the private paths only (``_check_params_together``): on Fairlearn's path
    #: (``epsilon=inf`` with an estimator) Fairlearn's ``fit`` checks them, with its own errors and messages.
    _public_parameter_checks = {
        "epsilon": check_epsilon,
        "delta": check_delta,
        "mode": functools.partial(check_choice, options=_MODES),
        "oracle": functools.partial(check_choice, options=_ORACLES),
        "privacy_unit": functools.partial(check_choice, options=_PRIVACY_UNITS),
        "bound_B": _POSITIVE_OR_NONE,
        "eta": _POSITIVE_OR_NONE,
        "feature_bound": check_feature_bound,
        "ridge": functools.partial(check_real, low=0.0, allow_none=True),
        "row_norm_bound": _POSITIVE_OR_NONE,
        "statistics_fraction": _FRACTION,
        "min_count_fraction": _FRACTION,
        "beta": _FRACTION,
        "random_state": check_seed,
        "min_count": value_errors(functools.partial(check_int, low=2, allow_none=True)),
        "hypotheses": check_optional_hypotheses,
        "groups": check_declared_groups,
    }

    # ------------------------------------------------------------------------------------------ validation
    def _check_params_together(self, checked):
        """The rules that relate several parameters, after the table; returns ``(epsilon, delta, oracle)`` with
        ``oracle`` resolved.

        ``oracle == "estimator"`` (only at ``epsilon=inf``) means Fairlearn's path: Fairlearn's own arguments and
        the constraints are then left to Fairlearn's ``fit`` (its errors and messages).
        """
        epsilon, delta = checked["epsilon"], checked["delta"]
        oracle = self._resolve_oracle(epsilon)
        if oracle == "estimator":
            return epsilon, delta, oracle              # Fairlearn's path: Fairlearn validates the rest
        check_estimator(self.estimator)                # unused by Algorithm 3's oracles, but never a bad value
        if oracle in _STATISTICS_ORACLES:
            self._check_statistics_params(epsilon, delta, oracle)
        else:
            self._check_algorithm3_params(epsilon, delta, oracle)
        return epsilon, delta, oracle

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """Public checks of ``fit``'s arguments on the private paths (Fairlearn's path, ``oracle == "estimator"``,
        keeps Fairlearn's own): no Fairlearn-only keyword arguments, Algorithm 3's round cap and the row bounds from
        ``X``'s shape and published metadata.
        """
        epsilon, delta, oracle = resolved
        if oracle == "estimator":
            return resolved
        if fit_kwargs:
            raise TypeError(f"Unexpected fit arguments: {sorted(fit_kwargs)} (control_features and other Fairlearn "
                            "fit arguments are not supported by the private algorithm).")
        if self.privacy_unit == "sensitive_attribute" and not math.isinf(epsilon):     # X is public there
            warn_sensitive_columns_in_X(X, sensitive_features, remedy="To protect them, drop them from X (the "
                                        "Learner is fitted on X), or pass privacy_unit='record' to protect whole "
                                        "records.")
        self._check_rounds_before_the_budget(X, epsilon, delta, oracle, not math.isinf(epsilon))
        self._check_row_bound_before_the_budget(X, oracle)
        return resolved

    def _planned_spend(self, resolved):
        """The fit's whole spend: ``(epsilon, delta)``, or ``(inf, 0)`` without noise."""
        epsilon, delta, _ = resolved
        return PrivacySpend(epsilon, delta if not math.isinf(epsilon) else 0.0)

    def _resolve_oracle(self, epsilon):
        """The algorithm and its Learner, from ``mode``, ``oracle``, ``estimator`` and ``epsilon`` (all public).

        ``"estimator"``: Fairlearn's own ``fit`` (``epsilon=inf`` only). ``"exponential"``/``"regression"``:
        Algorithm 3 (``mode="paper"``). ``"weighted_estimator"``/``"least_squares"``: the statistics game
        (``mode="statistics"``, :mod:`._statistics_game`).
        """
        oracle, mode = self.oracle, self.mode
        if mode == "auto":
            paper_oracle = oracle in ("exponential", "regression", "diffprivlib") or self.hypotheses is not None
            fairlearn = math.isinf(epsilon) and self.estimator is not None and oracle in ("auto", "estimator")
            mode = "paper" if paper_oracle else ("fairlearn" if fairlearn else "statistics")
        if mode == "fairlearn" or (mode == "paper" and oracle == "estimator"):
            if not math.isinf(epsilon):
                raise ValueError("oracle='estimator' with mode='paper' is Fairlearn's non-private algorithm: it "
                                 "needs epsilon=inf. Use mode='statistics' to fit the estimator privately.")
            return "estimator"
        if mode == "paper":
            if oracle == "auto":
                return "exponential" if self.hypotheses is not None else "regression"
            return oracle
        # mode == "statistics"
        if oracle in ("exponential", "regression", "diffprivlib"):
            raise ValueError(f"oracle={oracle!r} is an oracle of the paper's Algorithm 3: use mode='paper' (or "
                             "mode='auto'), or oracle='auto'/'estimator'/'least_squares' with mode='statistics'.")
        if oracle == "least_squares" or self.estimator is None:
            return "least_squares"
        if self.privacy_unit == "record":
            return "least_squares"              # the estimator cannot read private records; warned in fit
        return "weighted_estimator"

    def _check_statistics_params(self, epsilon, delta, oracle):
        """The constraints and Fairlearn's arguments for the statistics game (rules: the analysis page)."""
        self._check_moment()
        if not math.isinf(epsilon) and not 0 < delta < 1:
            raise ValueError(f"delta={delta!r}: mode='statistics' releases with the Gaussian mechanism (zCDP) and "
                             "needs 0 < delta < 1; for pure DP use mode='paper' with a public min_count.")
        _POSITIVE_VALUE(self.eps, "eps")
        if self.bound_B is not None and self.eps != _FAIRLEARN_EPS and not math.isclose(self.eps * self.bound_B, 1):
            raise ValueError(f"eps={self.eps!r} and bound_B={self.bound_B!r} disagree (Fairlearn's B = 1/eps): "
                             "set one of them.")
        _check_rounds(self.max_iter)
        if self.nu is not None:
            raise ValueError(f"nu={self.nu!r}: Fairlearn's early stop compares a duality gap measured on the raw "
                             "data; the private game stops on released values only. Leave nu=None.")
        _POSITIVE_VALUE(self.eta0, "eta0")
        self._check_linprog_step()
        if not isinstance(self.sample_weight_name, str):
            raise ValueError(f"sample_weight_name must be a string, got {self.sample_weight_name!r}.")
        # A Pipeline: its weight routing, and under "record" its preprocessing's publicity (_pipeline.py).
        pipeline_parts(self.estimator, self.sample_weight_name, record=self.privacy_unit == "record")
        if oracle == "weighted_estimator" and not hasattr(self.estimator, "fit"):
            raise TypeError(f"estimator must have fit(X, y, {self.sample_weight_name}=...), got "
                            f"{type(self.estimator).__name__}.")

    def _check_linprog_step(self):
        step = self.run_linprog_step
        if not (isinstance(step, (bool, np.bool_)) or (isinstance(step, str) and step == "auto")):
            raise ValueError(f"run_linprog_step must be True, False or 'auto', got {step!r}.")

    def _linprog_step(self, private, oracle=None):
        """``run_linprog_step`` resolved: ``"auto"`` is Fairlearn's LP without noise and where each play's violation
        is a calibrated estimate (the estimator Learner under ``privacy_unit="sensitive_attribute"``), the uniform
        average where each play's violation is its own noisy release (see the parameter).
        """
        if isinstance(self.run_linprog_step, str):
            calibrated = self.privacy_unit == "sensitive_attribute" and oracle == "weighted_estimator"
            # Measured (bench_adult_groups, epsilon = 1, 5 seeds): the LP helps where every event is all rows
            # (demographic parity by race: DP difference 0.086 -> 0.073) and hurts equalized odds by sex (0.034 ->
            # 0.058), whose small label-1 cells' calibrated estimates it selects on; so not for label events.
            return not private or (calibrated and isinstance(self.constraints, (DemographicParity, ErrorRateParity)))
        return bool(self.run_linprog_step)

    def _check_moment(self, *, paper=False):
        if not isinstance(self.constraints, SUPPORTED_MOMENTS):
            hint = (" BoundedGroupLoss (and other loss moments) run only through Fairlearn's algorithm: "
                    "epsilon=inf with an estimator." if self.constraints is not None else "")
            raise ValueError("constraints must be one of Fairlearn's DemographicParity, EqualizedOdds, "
                             "TruePositiveRateParity, FalsePositiveRateParity, ErrorRateParity; got "
                             f"{type(self.constraints).__name__} (unsupported moment).{hint}")
        if getattr(self.constraints, "ratio", 1.0) != 1.0:
            raise ValueError("constraints: ratio bounds are not supported (use difference_bound).")
        check_real(getattr(self.constraints, "eps", None), "constraints' difference_bound", low=0.0)
        if getattr(self.constraints, "data_loaded", False):
            raise ValueError("constraints already holds data; pass a fresh Moment object.")
        # ErrorRate's public costs: the statistics game weighs released values with them (_objective.py); Algorithm 3
        # takes unit costs only.
        return objective_costs(self.objective, allow_costs=not paper)

    def _paper_mode(self):
        return getattr(self, "mode_", None) == "paper"

    def _B(self, *, paper):
        """The bound on the multipliers: ``bound_B``; None: Algorithm 3's 10 (``paper``), else Fairlearn's ``1/eps``."""
        if self.bound_B is not None:
            return float(self.bound_B)
        return _PAPER_B if paper else 1.0 / float(self.eps)

    def _check_algorithm3_params(self, epsilon, delta, oracle):
        """The constraints and Fairlearn's arguments, for Algorithm 3 (rules: the analysis page)."""
        self._check_moment(paper=True)
        _POSITIVE_VALUE(self.eps, "eps")
        if not (self.eps == _FAIRLEARN_EPS or math.isclose(self.eps * self._B(paper=True), 1.0)):
            raise ValueError(f"eps={self.eps!r}: the private algorithm bounds the multipliers by bound_B (Fairlearn's "
                             "B = 1/eps); set bound_B=1/eps instead and leave eps at its default 0.01.")
        _check_rounds(self.max_iter)
        if self.nu is not None:
            raise ValueError(f"nu={self.nu!r}: Fairlearn's early stop on the duality gap measured on the raw data "
                             "is a data-dependent stopping time; the private algorithm plays max_iter rounds. "
                             "Leave nu=None.")
        _POSITIVE_VALUE(self.eta0, "eta0")
        if self.eta0 != _FAIRLEARN_ETA0:
            raise ValueError(f"eta0={self.eta0!r}: Fairlearn's learning rate eta0/B is shrunk when the raw-data "
                             "regret stalls (data-dependent); the private algorithm's fixed learning rate is `eta`. "
                             "Set eta instead and leave eta0 at its default 2.0.")
        self._check_linprog_step()
        if self.sample_weight_name != "sample_weight":
            raise ValueError(f"sample_weight_name={self.sample_weight_name!r} is used only by Fairlearn's "
                             "estimator oracle (epsilon=inf with an estimator); the private oracles fit no "
                             "estimator. Leave it at 'sample_weight'.")
        if oracle == "diffprivlib":
            raise ValueError("oracle='diffprivlib' is not available: diffprivlib's models (0.6) ignore "
                             "sample_weight, so the cost-sensitive best response would silently be an unweighted "
                             "fit. Use oracle='exponential' or 'regression'.")
        if oracle == "exponential" and self.hypotheses is None:
            raise ValueError("oracle='exponential' needs a non-empty finite hypothesis class `hypotheses`.")
        if delta == 0 and self.min_count is None and not math.isinf(epsilon):
            raise ValueError("delta=0 needs a public min_count: the private lower bound on the cell counts fails "
                             "with a small probability that must be counted in delta.")

    def _load(self, X, y, sensitive_features, *, private=True):
        """Domain checks only (types, NaN, lengths, binary labels, declared groups); messages carry no counts."""
        # The conversion's message could quote a value of the private data: withheld (no chained exception).
        X_arr = call_withheld(np.asarray, X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float, replace=(
            ((TypeError, ValueError, OverflowError), TypeError("X must be numeric (finite floats).")),))
        if X_arr.ndim != 2 or X_arr.shape[0] == 0:
            raise ValueError("X must be a non-empty 2-D array.")
        if not np.all(np.isfinite(X_arr)):
            raise ValueError("X contains NaN or infinite values.")
        n = X_arr.shape[0]
        y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
        if y_arr.size != n:
            raise ValueError(f"y has {y_arr.size} rows but X has {n} (length mismatch).")
        y_arr = check_binary_labels(y_arr, "y").astype(int)
        group_vector = as_group_vector(sensitive_features, n, groups=self.groups)
        groups = resolve_groups(self.groups, group_vector, estimator_name=type(self).__name__, private=private)
        group_index = encode_groups(group_vector, groups)
        # A declared group without rows, or a (group, event) cell below min_count, is inside the domain: it fits
        # (its moments are shrunk: floored moments), so that success never depends on the private counts.
        return X_arr, y_arr, group_index, groups

    # ------------------------------------------------------------------------------------------ before the budget
    def _check_rounds_before_the_budget(self, X, epsilon, delta, oracle, private):
        """Algorithm 3's round cap from public inputs only (``X``'s shape, the declared groups, the parameters), so
        that a T above ``MAX_ROUNDS`` is refused before the budget check; ``fit`` computes T again after loading.
        Algorithm 3 only, and only with declared groups (read from the data, their number is known after loading).
        """
        if oracle in _STATISTICS_ORACLES or self.groups is None:
            return
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) == 2 and shape[0] > 0 and shape[1] > 0:
            self._n_rounds(self._game_epsilon(epsilon), delta, int(shape[0]), int(shape[1]), len(self.groups),
                           oracle, private)

    def _game_epsilon(self, epsilon):
        """The epsilon of the game (statistics game or Algorithm 3): all of it under ``"sensitive_attribute"``
        (the choice against the constants is exact and free there: Q does not read the attribute, X and y are
        public), else the fit's part of :func:`~fairlearn_dp.privacy._selection.selection_split` (the rest pays
        for the choice). Public.
        """
        if self.privacy_unit != "record" or math.isinf(epsilon):
            return epsilon
        return selection_split(epsilon)[0]

    def _check_row_bound_before_the_budget(self, X, oracle):
        """The row bounds' errors from public inputs only, before the budget check: a ``feature_bound`` box whose
        length is not ``X``'s number of columns, and (statistics game under ``"record"``) a bound published in
        ``X.attrs`` that is not a number > 0. Not for a Pipeline estimator, whose features are its preprocessing's
        output (checked when they are known).
        """
        record, statistics = self.privacy_unit == "record", oracle in _STATISTICS_ORACLES
        if statistics and pipeline_parts(self.estimator, self.sample_weight_name, record=record) is not None:
            return
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) != 2 or shape[1] == 0:
            return                                  # _load's domain error
        feature_reach(self.feature_bound, int(shape[1]))
        if statistics and record:
            resolve_row_norm_bound(self.row_norm_bound, self.feature_bound, X, int(shape[1]))

    def _record_row_norm(self, X, n_features, private, preprocessing=None):
        """The statistics game's public row-norm bound ``C`` under ``"record"`` (:mod:`..utils._row_bounds`):
        ``row_norm_bound``; else the bound ``X`` publishes (``X.attrs["row_norm_bound"]``); else the bound a
        Pipeline's declared ``preprocessing`` gives (:mod:`._pipeline_bounds`); else the L2 bound of the
        ``feature_bound`` box, with a warning when that is the loose ``feature_bound * sqrt(d)``. Public inputs
        only (parameters, the layout): the warning is emitted before any release.
        """
        derived = None
        if self.row_norm_bound is None and preprocessing is not None:
            derived = preprocessing_row_norm_bound(preprocessing, n_features)
        bound, source, note = resolve_row_norm_bound(self.row_norm_bound, self.feature_bound, X, n_features,
                                                     derived=derived)
        if private and source == "feature_bound":
            warn_loose_row_norm_bound(type(self).__name__, bound, n_features, note)
        return bound

    def _n_rounds(self, epsilon, delta, m, d, n_groups, oracle, private):
        """Algorithm 3's T (Thm. 4.5's ``ln |H|`` for a finite class), with ``|A|`` the number of groups."""
        if self.max_iter is not None:
            return int(self.max_iter)
        if not private:
            return 200
        B = self._B(paper=True)
        log_class = (math.log(len(self.hypotheses)) if oracle == "exponential" else (d + 1) * math.log(m))
        numerator = B * math.sqrt(math.log(4 * n_groups - 3)) * m * epsilon
        log_delta = math.log(1 / delta) if delta > 0 else 1.0
        denominator = (2 * (2 * n_groups * B + 1) * math.sqrt(log_delta)
                       * (log_class + math.log(2 / self.beta)))
        rounds = numerator / denominator
        if rounds > MAX_ROUNDS:                     # public: m, d, |A|, epsilon, delta, B, beta
            raise ValueError(f"Algorithm 3's formula asks for T = {rounds:,.0f} rounds at epsilon={epsilon:g} "
                             f"(max_iter=None; T grows like epsilon), above MAX_ROUNDS={MAX_ROUNDS:,}: set max_iter "
                             f"(at most {MAX_ROUNDS:,}), which spends the budget on fewer, less noisy rounds. Nothing "
                             "was spent.")
        return max(1, int(rounds))


# ---------------------------------------------------------------------------------------------------------------
# The moments' public structure: events and (group, event) cells, fixed by the constraint type and the declared
# groups (never by the data), with Fairlearn's labels and order.
_EVENTS = ((DemographicParity, ("all",)), (ErrorRateParity, ("all",)), (EqualizedOdds, ("label=0", "label=1")),
           (TruePositiveRateParity, ("label=1",)), (FalsePositiveRateParity, ("label=0",)))


# The labels each event of a moment is made of (events are unions of label cells), keyed by the event labels.
_EVENT_LABELS = {("all",): ((0, 1),), ("label=0", "label=1"): ((0,), (1,)), ("label=1",): ((1,),),
                 ("label=0",): ((0,),)}


def _moment_events(moment):
    """Fairlearn's event labels of ``moment`` (sorted, as its ``index``)."""
    for cls, events in _EVENTS:
        if isinstance(moment, cls):
            return events
    raise ValueError(f"unsupported moment {type(moment).__name__}.")


def _event_index(moment, y):
    """Each row's event (position in :func:`_moment_events`), -1 for rows outside every event."""
    if isinstance(moment, (DemographicParity, ErrorRateParity)):
        return np.zeros(y.size, dtype=np.intp)
    if isinstance(moment, EqualizedOdds):
        return y.astype(np.intp)
    label = 1 if isinstance(moment, TruePositiveRateParity) else 0
    return np.where(y == label, 0, -1).astype(np.intp)

