"""The exponentiated-gradient games' public parameters: their checks, run before the budget check, their resolution.

:class:`_GameParams` holds what :class:`~fairlearn_dp.reductions.DPExponentiatedGradient` and
:class:`~fairlearn_dp.reductions.JagielskiExponentiatedGradient` share (the constraint's checks, the domain checks of
the data, the budget split); :class:`_ExponentiatedGradientParams` validates every public parameter of
``DPExponentiatedGradient`` in one step (:class:`~fairlearn_dp._utils._fit_order.PrivateFitMixin`: the table
``_public_parameter_checks``, then ``_check_params_together``) and resolves its Learner; :class:`StatisticsGameOptions`
holds the statistics game's expert settings. Everything here reads public inputs only (parameters, X's shape, the
declared groups), except ``_load``, the domain checks of the data, whose messages carry no counts. Derivations:
docs/privacy_analysis/exponentiated_gradient.md.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import numpy as np
from fairlearn.reductions import (
    DemographicParity,
    EqualizedOdds,
    ErrorRateParity,
    FalsePositiveRateParity,
    TruePositiveRateParity,
)

from .._utils._dask import is_dask_input
from .._utils._features import warn_sensitive_columns_in_X
from .._utils._fit_order import PrivateFitMixin
from .._utils._row_bounds import feature_reach, resolve_row_norm_bound, warn_loose_row_norm_bound
from .._utils._rows import n_rows
from .._utils._validation import (
    as_group_vector,
    as_numeric_values,
    check_binary_labels,
    check_choice,
    check_declared_groups,
    check_delta,
    check_epsilon,
    check_estimator,
    check_feature_bound,
    check_int,
    check_real,
    check_rows_alike,
    check_seed,
    encode_groups,
    resolve_groups,
    value_errors,
)
from .._utils._withheld import call_withheld
from ..postprocessing._counting import check_layout, require_declared_groups
from ..privacy import PrivacySpend
from ..privacy._selection import selection_split
from ._objective import objective_costs
from ._pipeline import pipeline_parts
from ._pipeline_bounds import preprocessing_row_norm_bound

SUPPORTED_MOMENTS = (DemographicParity, EqualizedOdds, TruePositiveRateParity, FalsePositiveRateParity, ErrorRateParity)
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_STATISTICS_ORACLES = ("weighted_estimator", "least_squares")
# Most rounds a private fit plays (max_iter, or Algorithm 3's formula for T, which grows like epsilon without bound).
# Measured per round on Communities & Crime (1,994 rows, 98 features) on a 2-core machine: Algorithm 3 with the
# regression oracle 0.4 ms, the statistics game about 3 ms, Algorithm 3 with the exponential oracle over 514
# hypotheses 6 ms; so at most about 6 s (rounds cost O(n d), or O(|H|) for the exponential oracle).
MAX_ROUNDS = 1_000
_POSITIVE_OR_NONE = functools.partial(check_real, low=0.0, low_open=True, allow_none=True)
_FRACTION = functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True)
_RIDGE = functools.partial(check_real, low=0.0, allow_none=True)
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


def check_game_inputs(estimator, epsilon, delta, oracle, *, pure_dp_hint=""):
    """The public checks every estimator that plays the statistics game shares (one place for both): zCDP's
    ``delta``, the weight's name, a Pipeline's weight routing and (under ``"record"``) its preprocessing's
    publicity (``_pipeline.py``), and a weighted Learner's ``fit``. ``estimator`` is the DP estimator (its
    ``estimator``, ``sample_weight_name`` and ``privacy_unit`` are read).
    """
    if not math.isinf(epsilon) and not 0 < delta < 1:
        raise ValueError(f"delta={delta!r}: {type(estimator).__name__} releases with the Gaussian mechanism (zCDP) "
                         f"and needs 0 < delta < 1{pure_dp_hint}.")
    if not isinstance(estimator.sample_weight_name, str):
        raise ValueError(f"sample_weight_name must be a string, got {estimator.sample_weight_name!r}.")
    pipeline_parts(estimator.estimator, estimator.sample_weight_name, record=estimator.privacy_unit == "record")
    if oracle == "weighted_estimator" and not hasattr(estimator.estimator, "fit"):
        raise TypeError(f"estimator must have fit(X, y, {estimator.sample_weight_name}=...), got "
                        f"{type(estimator.estimator).__name__}.")


_FAIRLEARN_MAX_ITER = 50            # Fairlearn's default rounds, used by the Fairlearn path when max_iter is None
_FAIRLEARN_EPS, _FAIRLEARN_ETA0 = 0.01, 2.0


@dataclasses.dataclass(frozen=True)
class StatisticsGameOptions:
    """Expert settings of :class:`~fairlearn_dp.reductions.DPExponentiatedGradient`'s statistics game.

    Pass one as ``DPExponentiatedGradient(..., options=StatisticsGameOptions(...))``; the defaults (``options=None``)
    suit most fits. Every field is public: it may not depend on the private data.

    Parameters
    ----------
    oracle : {"auto", "estimator", "least_squares"}, default="auto"
        The Learner. ``"auto"``: the ``estimator`` under ``privacy_unit="sensitive_attribute"`` (without an
        estimator, or under ``"record"``, the least-squares cost oracle on the released statistics); at
        ``epsilon=inf`` with an estimator, Fairlearn's own algorithm. ``"estimator"``: as ``"auto"``, but at
        ``epsilon=inf`` the statistics game without noise. ``"least_squares"``: the least-squares cost oracle
        always (at ``epsilon=inf`` too).
    feature_bound : float or (lower, upper), default=1.0
        Public bound on the features (``|x_j| <= R``, or a box); under ``privacy_unit="record"`` its L2 norm is the
        row bound when neither ``row_norm_bound`` nor the data's layout gives one.
    ridge : float or None, default=None
        Ridge of the least-squares solves (None: from the noise scales).
    statistics_fraction : float, default=0.5
        Share of the zCDP budget for the one release of statistics (the rest for the per-round releases).

    Examples
    --------
    >>> from fairlearn_dp.reductions import StatisticsGameOptions
    >>> options = StatisticsGameOptions(oracle="least_squares", feature_bound=2.0)   # DPExponentiatedGradient(options=)
    >>> options
    StatisticsGameOptions(oracle='least_squares', feature_bound=2.0, ridge=None, statistics_fraction=0.5)
    """

    oracle: str = "auto"
    feature_bound: Any = 1.0
    ridge: float | None = None
    statistics_fraction: float = 0.5


_STATISTICS_GAME_ORACLES = ("auto", "estimator", "least_squares")


def check_statistics_game_options(value, name="options"):
    """``value`` (None: the defaults) as a checked :class:`StatisticsGameOptions`; errors name ``name.<field>``."""
    if value is None:
        return StatisticsGameOptions()
    if not isinstance(value, StatisticsGameOptions):
        raise TypeError(f"{name} must be a StatisticsGameOptions or None, got {type(value).__name__}.")
    check_choice(value.oracle, f"{name}.oracle", options=_STATISTICS_GAME_ORACLES)
    check_feature_bound(value.feature_bound, f"{name}.feature_bound")
    _RIDGE(value.ridge, f"{name}.ridge")
    _FRACTION(value.statistics_fraction, f"{name}.statistics_fraction")
    return value


def checked_rows(X, y, *, allow_empty=False):
    """``(X, y)`` as a float matrix and 0/1 integer labels, after the domain checks of the data (types, NaN, lengths,
    binary labels; messages carry no value). ``allow_empty``: a Dask partition may hold no row.
    """
    # The conversion's message could quote a value of the private data: withheld (no chained exception).
    values = as_numeric_values(X)                     # pandas' missing values (pd.NA) read as NaN, refused below
    values = values.to_numpy() if hasattr(values, "to_numpy") else values
    X_arr = call_withheld(np.asarray, values, dtype=float, replace=(
        ((TypeError, ValueError, OverflowError), TypeError("X must be numeric (finite floats).")),))
    if X_arr.ndim != 2 or (X_arr.shape[0] == 0 and not allow_empty):
        raise ValueError("X must be a non-empty 2-D array.")
    if not np.all(np.isfinite(X_arr)):
        raise ValueError("X contains NaN or infinite values.")
    n = X_arr.shape[0]
    y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
    if y_arr.size != n:
        raise ValueError(f"y has {y_arr.size} rows but X has {n} (length mismatch).")
    return X_arr, check_binary_labels(y_arr, "y").astype(int)


class _GameParams(PrivateFitMixin):
    """What the two exponentiated-gradient estimators share before and while they read the data (a mixin: it reads
    the estimator's ``constraints``, ``privacy_unit`` and ``groups``): the constraint's checks, the domain checks of
    the data and the budget split with the choice against the constants.
    """

    def _planned_spend(self, resolved):
        """The fit's whole spend: ``(epsilon, delta)``, or ``(inf, 0)`` without noise."""
        epsilon, delta, _ = resolved
        return PrivacySpend(epsilon, delta if not math.isinf(epsilon) else 0.0)

    def _check_moment(self):
        """``constraints``: a fresh supported Fairlearn moment with a difference bound."""
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

    def _load(self, X, y, sensitive_features, *, private=True):
        """Domain checks only (types, NaN, lengths, binary labels, declared groups); messages carry no counts."""
        check_rows_alike([("X", X), ("y", y)], required=("y",))
        X_arr, y_arr = checked_rows(X, y)
        n = X_arr.shape[0]
        group_vector = as_group_vector(sensitive_features, n, groups=self.groups)
        groups = resolve_groups(self.groups, group_vector, estimator_name=type(self).__name__, private=private)
        group_index = encode_groups(group_vector, groups)
        # A declared group without rows, or a (group, event) cell below min_count, is inside the domain: it fits
        # (its moments are shrunk: floored moments), so that success never depends on the private counts.
        return X_arr, y_arr, group_index, groups

    def _game_epsilon(self, epsilon):
        """The epsilon of the game (statistics game or Algorithm 3): all of it under ``"sensitive_attribute"``
        (the choice against the constants is exact and free there: Q does not read the attribute, X and y are
        public), else the fit's part of :func:`~fairlearn_dp.privacy._selection.selection_split` (the rest pays
        for the choice). Public.
        """
        if self.privacy_unit != "record" or math.isinf(epsilon):
            return epsilon
        return selection_split(epsilon)[0]


class _ExponentiatedGradientParams(_GameParams):
    """The public-parameter checks and resolutions of :class:`DPExponentiatedGradient` (a mixin: they read the
    estimator's parameters). Run before the budget check; nothing here reads the rows except ``_load``.
    """

    #: Every parameter checked on every path (Fairlearn's too), in this order, before the budget check. Fairlearn's
    #: own arguments (eps, max_iter, nu, eta0, run_linprog_step, sample_weight_name, constraints, objective,
    #: estimator) are checked by the private paths only (``_check_params_together``): on Fairlearn's path
    #: (``epsilon=inf`` with an estimator) Fairlearn's ``fit`` checks them, with its own errors and messages.
    #: Whether Dask inputs are read on the workers (:mod:`._game_rows`); otherwise they are read in memory.
    _fits_dask = False

    _public_parameter_checks = {
        "epsilon": check_epsilon,
        "delta": check_delta,
        "privacy_unit": functools.partial(check_choice, options=_PRIVACY_UNITS),
        "row_norm_bound": _POSITIVE_OR_NONE,
        "options": check_statistics_game_options,
        "random_state": check_seed,
        "groups": check_declared_groups,
    }

    def _options(self):
        """The statistics game's expert settings: ``options``, or the defaults when it is None."""
        return self.options if self.options is not None else StatisticsGameOptions()

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
        check_estimator(self.estimator)
        self._check_statistics_params(epsilon, delta, oracle)
        return epsilon, delta, oracle

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """Public checks of ``fit``'s arguments on the private paths (Fairlearn's path, ``oracle == "estimator"``,
        keeps Fairlearn's own): ``y`` and ``sensitive_features`` given, with ``X``'s number of rows; no
        Fairlearn-only keyword arguments, and the row bounds from ``X``'s shape and published metadata.
        """
        epsilon, delta, oracle = resolved
        if self._fits_dask and is_dask_input(X, y, sensitive_features):
            self._check_dask_inputs(oracle, X, y, sensitive_features)
        if oracle == "estimator":
            return resolved
        check_rows_alike([("X", X), ("y", y), ("sensitive_features", sensitive_features)],
                         required=("y", "sensitive_features"))
        if fit_kwargs:
            raise TypeError(f"Unexpected fit arguments: {sorted(fit_kwargs)} (control_features and other Fairlearn "
                            "fit arguments are not supported by the private algorithm).")
        if self.privacy_unit == "sensitive_attribute" and not math.isinf(epsilon):     # X is public there
            warn_sensitive_columns_in_X(X, sensitive_features, remedy="To protect them, drop them from X (the "
                                        "Learner is fitted on X), or pass privacy_unit='record' to protect whole "
                                        "records.")
        self._check_row_bound_before_the_budget(X)
        return resolved

    def _check_dask_inputs(self, oracle, X, y, sensitive_features):
        """Dask inputs, before the budget (types and layout only): the statistics game with the least-squares Learner
        reads the rows only through sums, computed on the workers (:mod:`._game_rows`); a Learner or a preprocessing
        fitted on the rows needs them in memory and is refused, saying what to pass instead.
        """
        in_memory = " Or compute the inputs (X.compute(), ...) and fit in memory."
        if oracle == "estimator":
            raise ValueError("Dask inputs: epsilon=inf with an estimator runs Fairlearn's own ExponentiatedGradient, "
                             "which fits the estimator on the rows in memory. Pass options=StatisticsGameOptions("
                             "oracle='least_squares') to play the game without noise on the Dask workers." + in_memory)
        if oracle == "weighted_estimator":
            raise ValueError("Dask inputs: under privacy_unit='sensitive_attribute' the estimator is the Learner and "
                             "is fitted on the rows every round, which needs them in memory. Pass estimator=None (or "
                             "options=StatisticsGameOptions(oracle='least_squares')): the least-squares Learner reads "
                             "the rows only through sums computed on the workers." + in_memory)
        if pipeline_parts(self.estimator, self.sample_weight_name, record=self.privacy_unit == "record") is not None:
            raise ValueError("Dask inputs: a Pipeline's preprocessing is applied to the rows in memory. Apply it to the "
                             "Dask collection first (e.g. X.map_partitions(preprocessing.transform)) and pass "
                             "estimator=None." + in_memory)
        require_declared_groups(self.groups)
        if y is None:
            raise ValueError("y is required: binary labels 0/1.")
        if getattr(X, "ndim", 2) != 2:
            raise ValueError("X must be a non-empty 2-D array.")
        check_layout(X, y, sensitive_features)      # all Dask, partitioned alike, known chunk sizes
        if isinstance(n_rows(X), int) and n_rows(X) == 0:
            raise ValueError("X must be a non-empty 2-D array.")

    def _resolve_oracle(self, epsilon):
        """The algorithm and its Learner, from ``options.oracle``, ``estimator``, ``privacy_unit`` and ``epsilon`` (all
        public): ``"estimator"``, Fairlearn's own ``fit`` (``epsilon=inf`` with an estimator and
        ``options.oracle="auto"``); else the statistics game (:mod:`._statistics_game`) with the estimator as Learner
        (``"weighted_estimator"``) or the least-squares cost oracle (``"least_squares"``).
        """
        choice = self._options().oracle
        if choice == "least_squares" or self.estimator is None:
            return "least_squares"
        if math.isinf(epsilon) and choice == "auto":
            return "estimator"
        if self.privacy_unit == "record":
            return "least_squares"              # the estimator cannot read private records; warned in fit
        return "weighted_estimator"

    def _check_statistics_params(self, epsilon, delta, oracle):
        """The constraints and Fairlearn's arguments for the statistics game (rules: the analysis page)."""
        self._check_moment()
        objective_costs(self.objective, allow_costs=True)   # public costs: they weigh released values only
        check_game_inputs(self, epsilon, delta, oracle, pure_dp_hint="; for pure DP use "
                          "JagielskiExponentiatedGradient with a public min_count")
        _POSITIVE_VALUE(self.eps, "eps")
        _check_rounds(self.max_iter)
        if self.nu is not None:
            raise ValueError(f"nu={self.nu!r}: Fairlearn's early stop compares a duality gap measured on the raw "
                             "data; the private game stops on released values only. Leave nu=None.")
        _POSITIVE_VALUE(self.eta0, "eta0")
        self._check_linprog_step()

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

    def _check_row_bound_before_the_budget(self, X):
        """The row bounds' errors from public inputs only, before the budget check: an ``options.feature_bound`` box
        whose length is not ``X``'s number of columns, and (under ``"record"``) a bound published in ``X.attrs``
        that is not a number > 0. Not for a Pipeline estimator, whose features are its preprocessing's output
        (checked when they are known).
        """
        record = self.privacy_unit == "record"
        if pipeline_parts(self.estimator, self.sample_weight_name, record=record) is not None:
            return
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) != 2 or shape[1] == 0:
            return                                  # _load's domain error
        feature_bound = self._options().feature_bound
        feature_reach(feature_bound, int(shape[1]), "options.feature_bound")
        if record:
            resolve_row_norm_bound(self.row_norm_bound, feature_bound, X, int(shape[1]))

    def _record_row_norm(self, X, n_features, private, preprocessing=None):
        """The statistics game's public row-norm bound ``C`` under ``"record"`` (:mod:`..utils._row_bounds`):
        ``row_norm_bound``; else the bound ``X`` publishes (``X.attrs["row_norm_bound"]``); else the bound a
        Pipeline's declared ``preprocessing`` gives (:mod:`._pipeline_bounds`); else the L2 bound of the
        ``options.feature_bound`` box, with a warning when that is the loose ``feature_bound * sqrt(d)``. Public inputs
        only (parameters, the layout): the warning is emitted before any release.
        """
        derived = None
        if self.row_norm_bound is None and preprocessing is not None:
            derived = preprocessing_row_norm_bound(preprocessing, n_features)
        bound, source, note = resolve_row_norm_bound(self.row_norm_bound, self._options().feature_bound, X,
                                                     n_features, derived=derived)
        if private and source == "feature_bound":
            warn_loose_row_norm_bound(type(self).__name__, bound, n_features, note)
        return bound


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

