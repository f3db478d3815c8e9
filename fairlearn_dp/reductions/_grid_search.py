"""DP grid-search reduction for fair classification: a drop-in for Fairlearn's ``GridSearch``.

Fairlearn's ``GridSearch`` (Agarwal et al. 2018, Sec. 3.4) fits one best response per Lagrange multiplier vector of a
fixed grid and keeps the one with the smallest ``(1 - constraint_weight) error + constraint_weight max violation``.
:class:`DPGridSearch` runs the same search on the statistics game's releases (:mod:`._statistics_game`, whose
functions it calls): one release of sufficient statistics, from which the best response to every grid point is
post-processing; one release per grid point of the cell sums of that play's predictions (the game's per-round
release), from which its error and violations are read; the selection over the grid is then post-processing of
released values; last, the private choice against the fair constants. At ``epsilon=inf`` with an estimator it runs
Fairlearn's own ``fit``. Derivations: docs/privacy_analysis/grid_search.md.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import math
import pickle
import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from fairlearn.reductions import ErrorRateParity
from fairlearn.reductions import GridSearch as _FairlearnGridSearch
from sklearn.utils.validation import check_is_fitted

from .._fairlearn_compat import GridGenerator
from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_support import atomic_fit
from .._utils._validation import (
    check_choice,
    check_declared_groups,
    check_delta,
    check_epsilon,
    check_estimator,
    check_int,
    check_real,
    check_seed,
)
from ..exceptions import FairnessWarning, UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._accountant import charge
from ..privacy._random import release_random_state
from ..privacy._selection import no_choice
from ._eg_params import (
    _EVENT_LABELS,
    _POSITIVE_OR_NONE,
    _PRIVACY_UNITS,
    MAX_ROUNDS,
    StatisticsGameOptions,
    _event_index,
    _ExponentiatedGradientParams,
    _moment_events,
    check_game_inputs,
)
from ._exponentiated_gradient import DPExponentiatedGradient, _GameClassifier
from ._game_mixture import released_positive_rate
from ._statistics_game import StatisticsGame

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import Moment
    from numpy.typing import ArrayLike

__all__ = ["DPGridSearch"]

TRADEOFF_OPTIMIZATION = "tradeoff_optimization"      # Fairlearn's only selection rule


#: The public structures of the last parameter sets (a constraint loaded on synthetic rows, Fairlearn's grid), keyed by
#: a digest of the public inputs they are computed from: refits with the same constraint, groups and grid (a sweep,
#: an audit's thousands of fits) copy them instead of recomputing them (Fairlearn's ``load_data`` on the synthetic
#: rows and its grid generator take 10-15 ms per fit, about a third of a small private fit).
_PUBLIC_STRUCTURES: OrderedDict = OrderedDict()
_PUBLIC_STRUCTURES_LOCK = threading.Lock()
_MAX_PUBLIC_STRUCTURES = 32


def _memoised(public_inputs, compute):
    """``compute()``, or a deep copy of its value for the same public inputs (compared by their pickled bytes; inputs
    that cannot be pickled, e.g. a user's Moment, are computed each time). Only public inputs go into the key.
    """
    try:
        key = hashlib.sha256(pickle.dumps(public_inputs, protocol=pickle.HIGHEST_PROTOCOL)).digest()
    except Exception:                                   # noqa: BLE001  (any pickling failure: no memo)
        return compute()
    with _PUBLIC_STRUCTURES_LOCK:
        value = _PUBLIC_STRUCTURES.get(key)
        if value is not None:
            _PUBLIC_STRUCTURES.move_to_end(key)
    if value is None:
        value = compute()
        with _PUBLIC_STRUCTURES_LOCK:
            _PUBLIC_STRUCTURES[key] = value
            while len(_PUBLIC_STRUCTURES) > _MAX_PUBLIC_STRUCTURES:
                _PUBLIC_STRUCTURES.popitem(last=False)
    return copy.deepcopy(value)


def constraint_structure(constraints, groups):
    """The constraint loaded with one row per (label, declared group): its ``pos_basis``, ``neg_basis`` and index are
    those of any dataset with these groups (they depend on the moment type and the group list only), so the grid
    built from them is public. The rows are synthetic: no value of the data is read.
    """
    return _memoised(("constraint_structure", constraints, list(groups)),
                     functools.partial(_load_structure, constraints, groups))


def _load_structure(constraints, groups):
    moment = copy.deepcopy(constraints)
    labels = np.tile([0, 1], len(groups))
    sensitive = np.empty(labels.size, dtype=object)
    sensitive[:] = [group for group in groups for _ in (0, 1)]
    moment.load_data(np.zeros((labels.size, 1)), labels, sensitive_features=sensitive)
    return moment


def _generate_grid(constraints, groups, grid_size, grid_limit, offset):
    """Fairlearn's ``GridGenerator`` grid on the constraint's public structure."""
    moment = constraint_structure(constraints, groups)
    return GridGenerator(grid_size, grid_limit, moment.pos_basis, moment.neg_basis, moment.neg_basis_present,
                         moment.default_objective_lambda_vec is not None, offset).grid


def _group_key(keys, group):
    """The group's label in Fairlearn's index (Fairlearn may keep the value or its text): the key equal to the
    declared ``group``, else the one key whose text is the group's text; none, or several keys with that text
    (e.g. ``1`` and ``"1"``), is a ``KeyError``: never another group's multipliers.
    """
    keys = list(keys)
    equal = [key for key in keys if bool(key == group)]
    if len(equal) == 1:
        return equal[0]
    texts = [key for key in keys if str(key) == str(group)]
    if len(texts) == 1:
        return texts[0]
    raise KeyError(group)


def grid_multipliers(grid, events, groups, name="grid"):
    """``(K, E, G)``: each grid column's signed multipliers ``lambda+ - lambda-`` per (event, declared group), the
    argument of the game's best response. A column missing a (sign, event, group) row, or a multiplier that is not a
    finite number, is a ``ValueError`` naming ``name`` (``grid``, or ``grid_offset`` that shifted Fairlearn's grid).
    """
    out = np.zeros((grid.shape[1], len(events), len(groups)))
    try:
        keys = grid.index.get_level_values(-1).unique()
        for e, event in enumerate(events):
            for g, group in enumerate(groups):
                key = _group_key(keys, group)
                out[:, e, g] = (grid.loc[("+", event, key)].to_numpy(dtype=float)
                                - grid.loc[("-", event, key)].to_numpy(dtype=float))
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, pd.errors.IndexingError) as error:
        raise ValueError(f"{name}: its rows must be indexed by the constraint's (sign, event, group_id) for every "
                         f"declared group, as Fairlearn's grid (events {list(events)}).") from error
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name}: the multipliers must be finite numbers, indexed by the constraint's (sign, event, "
                         "group_id).")
    return out


def _check_frame(value, name, kinds):
    if value is not None and not isinstance(value, kinds):
        raise TypeError(f"{name} must be None or a pandas {' or '.join(k.__name__ for k in kinds)}, got "
                        f"{type(value).__name__}.")
    return value


class _GridSearchParams(_ExponentiatedGradientParams):
    """The public-parameter checks of :class:`DPGridSearch` (the exponentiated gradient's, with the grid's own
    arguments instead of the rounds'); run before the budget check, from public inputs only.
    """

    _public_parameter_checks = {
        "epsilon": check_epsilon,
        "delta": check_delta,
        "privacy_unit": functools.partial(check_choice, options=_PRIVACY_UNITS),
        "row_norm_bound": _POSITIVE_OR_NONE,
        "random_state": check_seed,
        "groups": check_declared_groups,
    }

    def _options(self):
        """The statistics game's default settings (DPGridSearch has no expert options)."""
        return StatisticsGameOptions()

    def _check_params_together(self, checked):
        """``(epsilon, delta, oracle)``; Fairlearn's path (``oracle == "estimator"``) leaves Fairlearn's arguments to
        Fairlearn's own checks (its errors and messages).
        """
        epsilon, delta = checked["epsilon"], checked["delta"]
        oracle = self._resolve_oracle(epsilon)
        if oracle == "estimator":
            return epsilon, delta, oracle, None
        check_estimator(self.estimator)
        return epsilon, delta, oracle, self._check_grid_params(epsilon, delta, oracle)

    def _planned_spend(self, resolved):
        """The fit's whole spend: ``(epsilon, delta)``, or ``(inf, 0)`` without noise."""
        return super()._planned_spend(resolved[:3])

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """The exponentiated gradient's checks of ``fit``'s arguments (keyword arguments, row bounds)."""
        return super()._check_public_layout(resolved[:3], X, y, sensitive_features, fit_kwargs) + resolved[3:]

    def _check_grid_params(self, epsilon, delta, oracle):
        """The constraint and Fairlearn's arguments on the statistics path (all public); returns the grid and its
        multipliers when the groups are declared (else None: the grid is built once the groups are known).
        """
        self._check_moment()
        check_game_inputs(self, epsilon, delta, oracle)
        if self.selection_rule != TRADEOFF_OPTIMIZATION:
            raise ValueError(f"selection_rule must be {TRADEOFF_OPTIMIZATION!r} (Fairlearn's only rule), got "
                             f"{self.selection_rule!r}.")
        check_real(self.constraint_weight, "constraint_weight", low=0.0, high=1.0)
        check_int(self.grid_size, "grid_size", low=1)
        if not math.isinf(epsilon) and self.grid_size > MAX_ROUNDS:
            raise ValueError(f"grid_size must be at most MAX_ROUNDS={MAX_ROUNDS:,} for the private search (each grid "
                             "point is one release, on its share of the budget), got "
                             f"{self.grid_size!r}.")
        check_real(self.grid_limit, "grid_limit", low=0.0)
        _check_frame(self.grid_offset, "grid_offset", (pd.Series, pd.DataFrame))
        _check_frame(self.grid, "grid", (pd.DataFrame,))
        if self.grid is not None and self.grid.shape[1] == 0:
            raise ValueError("grid must have at least one column (one multiplier vector).")
        if self.grid is not None and not math.isinf(epsilon) and self.grid.shape[1] > MAX_ROUNDS:
            raise ValueError(f"grid must have at most MAX_ROUNDS={MAX_ROUNDS:,} columns for the private search (each "
                             f"is one release, on its share of the budget), got {self.grid.shape[1]:,}.")
        if self.groups is not None:                 # declared groups: the grid is checked before the budget
            return self._lagrange_grid(list(self.groups))
        return None

    def _lagrange_grid(self, groups):
        """``(grid, multipliers)``: Fairlearn's grid (``grid``, or ``GridGenerator`` on the constraint's public
        structure) and its ``(K, E, G)`` signed multipliers. Public: parameters and the declared groups.
        """
        if self.grid is None:
            offset = self.grid_offset
            if isinstance(offset, pd.DataFrame):      # Fairlearn's documented type; one column
                offset = offset.iloc[:, 0]
            try:
                grid = _memoised(("grid", self.constraints, list(groups), int(self.grid_size),
                                  float(self.grid_limit), offset),
                                 functools.partial(_generate_grid, self.constraints, groups, int(self.grid_size),
                                                   float(self.grid_limit), offset))
            except (ValueError, TypeError, KeyError) as error:     # an offset pandas cannot align with the grid
                raise ValueError("grid_offset must be indexed by the constraint's (sign, event, group_id), as "
                                 "Fairlearn's grid.") from error
        else:
            grid = self.grid
        name = "grid" if self.grid is not None else "grid_offset"
        return grid, grid_multipliers(grid, _moment_events(self.constraints), groups, name)


class DPGridSearch(_GameClassifier, _GridSearchParams, _FairlearnGridSearch):
    """Differentially private grid-search reduction for fair classification.

    A drop-in for :class:`fairlearn.reductions.GridSearch` (a subclass of it): Fairlearn's constructor arguments and
    defaults, ``Moment`` constraints, ``predict(X)`` and ``predict_proba(X)`` of the selected model, plus the privacy
    parameters. At a finite ``epsilon`` the grid search runs on the statistics game's releases (see
    :class:`DPExponentiatedGradient`): the best response to each multiplier vector of Fairlearn's grid is computed from
    one release of sufficient statistics (the ``estimator`` as the Learner under
    ``privacy_unit="sensitive_attribute"``, else the least-squares cost oracle); each best response's error and
    violations are read from one Gaussian release of its per-cell prediction sums; the best grid point by Fairlearn's
    rule is chosen on those released values, then privately against the fair constants. At ``epsilon=inf`` with an
    estimator it is Fairlearn's ``fit``, unchanged. The model does not use the sensitive feature at prediction time.

    Parameters
    ----------
    estimator : estimator or None
        With ``fit(X, y, sample_weight=...)`` (or a ``Pipeline``): the best response (None: least-squares oracle).
    constraints : fairlearn.reductions.Moment
        Private fits: ``DemographicParity``, ``EqualizedOdds``, ``TruePositiveRateParity``,
        ``FalsePositiveRateParity`` or ``ErrorRateParity`` (difference bound). Fairlearn's fit: any.
    selection_rule : str, default="tradeoff_optimization"
        Fairlearn's only rule: the smallest ``(1 - constraint_weight) error + constraint_weight max violation``.
    constraint_weight : float, default=0.5
        The weight of the violation in the selection, in [0, 1].
    grid_size, grid_limit, grid_offset, grid : int, float, pandas.Series or None, pandas.DataFrame or None
        Fairlearn's grid: ``grid_size`` multiplier vectors of L1 norm at most ``grid_limit``, shifted by
        ``grid_offset``; or the given ``grid`` (rows indexed by (sign, event, group_id)). Public. At a finite
        ``epsilon`` at most 1,000 grid points (``MAX_ROUNDS``, as the exponentiated gradient's rounds): each is a
        release on its share of the budget.
    sample_weight_name : str, default="sample_weight"
        The ``estimator.fit`` argument for the weights.
    epsilon : float, default=1.0
        Total privacy budget of the fit (``inf``: no noise).
    delta : float, default=1e-7
        Of the zCDP conversion, in (0, 1).
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        Neighbouring relation protected (see Privacy).
    groups : list or None, default=None
        Public list of groups (None: read from the data, with a ``PrivacyWarning`` when private).
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read and charged once per successful ``fit``.
    random_state : None, int or RandomState, default=None
        Seeds the release noise (experiments only). None: diffprivlib's secure generator.
    row_norm_bound : float or None, default=None
        ``"record"``: the public L2 bound on a row (None: ``X.attrs``, else the feature box's); rows beyond it are
        scaled onto it.

    Attributes
    ----------
    predictors_ : list
        The best response to each grid point (post-processing of the first release and public data).
    lambda_vecs_ : pandas.DataFrame
        The grid (public).
    objectives_, gammas_ : list of float and pandas.DataFrame
        Each grid point's error and violations (index (sign, event, group_id)): released values (exact at inf).
    best_idx_, n_oracle_calls_ : int, int
        The selected grid point (post-processing of released values) and the number of best responses.
    constant_choice_, privacy_spent_ : ConstantChoice, PrivacySpend
        The private choice against the fair constants (``predict`` returns a chosen constant); the charge.
    history_, rho_, noise_scale_, sensitivity_ : dict, dict, dict, dict
        Statistics path: the releases (``"statistics"``, ``"grid_sums"``), zCDP budgets, sigmas and sensitivities.
    oracle_, mode_, groups_, row_norm_bound_, n_features_in_ : str, str, list, float, int
        The Learner, ``"statistics"`` or ``"fairlearn"``, the groups, the row bound, X's columns.

    Privacy
    -------
    - Neighbouring relation: ``"sensitive_attribute"`` (one person's attribute changes; X, y public) or
      ``"record"`` (a record substituted; n public).
    - Released: the statistics game's sufficient statistics once; per grid point, the cell sums of its best
      response's 0/1 predictions (the game's per-round release, one per grid point).
    - Mechanism: Gaussian under zCDP; the grid's releases share ``(1 - 0.5)`` of the game's rho equally.
    - Sensitivity: the game's (e.g. ``sqrt(2) C`` for the feature sums); ``sqrt 2`` (L2) per grid point.
    - Public inputs: the grid (parameters and declared groups), ``n``, every parameter and bound.
    - Last step: the selected play or a fair constant, chosen exactly (attribute unit) or on 10% of epsilon.
    - Derivations: docs/privacy_analysis/grid_search.md.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn.reductions import DemographicParity
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairlearn_dp.reductions import DPGridSearch
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 3000)
    >>> X = rng.uniform(-1, 1, (3000, 3))
    >>> y = (X[:, 0] + 0.5 * (sex == "male") + 0.3 * rng.standard_normal(3000) > 0.2).astype(int)
    >>> search = DPGridSearch(LogisticRegression(), DemographicParity(difference_bound=0.05), epsilon=1.0,
    ...                       delta=1e-5, groups=["female", "male"], random_state=0, accountant=BudgetAccountant())
    >>> search = search.fit(X, y, sensitive_features=sex)
    >>> search.n_oracle_calls_, search.privacy_spent_
    (10, PrivacySpend(epsilon=1.0, delta=1e-05, rho=None))
    >>> y_pred = search.predict(X)
    >>> bool((y_pred == y).mean() > 0.8)   # accuracy, about 0.86
    True
    >>> rates = [y_pred[sex == group].mean() for group in ["female", "male"]]   # about 0.54 and 0.52
    >>> bool(abs(rates[0] - rates[1]) < 0.05)
    True
    """

    def __init__(self, estimator: Any = None, constraints: Moment | None = None,
                 selection_rule: str = TRADEOFF_OPTIMIZATION, constraint_weight: float = 0.5, grid_size: int = 10,
                 grid_limit: float = 2.0, grid_offset: pd.Series | pd.DataFrame | None = None,
                 grid: pd.DataFrame | None = None, sample_weight_name: str = "sample_weight", *,
                 epsilon: float = 1.0, delta: float = 1e-7, privacy_unit: str = "sensitive_attribute",
                 groups: Sequence[Hashable] | None = None, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None,
                 row_norm_bound: float | None = None) -> None:
        # Fairlearn's arguments (its __init__ is not called: it validates there, scikit-learn's rule is to store).
        self.estimator = estimator
        self.constraints = constraints
        self.selection_rule = selection_rule
        self.constraint_weight = constraint_weight
        self.grid_size = grid_size
        self.grid_limit = grid_limit
        self.grid_offset = grid_offset
        self.grid = grid
        self.sample_weight_name = sample_weight_name
        # Ours.
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state
        self.row_norm_bound = row_norm_bound

    # The game's rows (Pipeline preprocessing, labels, groups, row bound): DPExponentiatedGradient's, reused.
    _game_rows = DPExponentiatedGradient._game_rows
    _public_feature_map = DPExponentiatedGradient._public_feature_map
    _predict_rows = DPExponentiatedGradient._predict_rows

    # ------------------------------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike | None = None,
            **kwargs: Any) -> DPGridSearch:
        """Run the grid search on ``(X, y)`` with ``sensitive_features``: Fairlearn's at ``epsilon=inf`` with an
        estimator, else on the statistics game's releases. Public parameters and the budget are checked before the
        data are read; a fit that raises leaves the estimator as it was.
        """
        # No attribute of an earlier fit survives a refit: Fairlearn's path keeps its Moment, loaded with the raw
        # rows, in constraints_ (and oracle_execution_times_), which the private path does not set.
        for name in [name for name in vars(self) if name.endswith("_") and not name.startswith("_")]:
            del self.__dict__[name]
        epsilon, delta, oracle, grid = self.check_public_inputs(X, y, sensitive_features=sensitive_features,
                                                                **kwargs)
        if oracle == "estimator":
            self._fit_fairlearn(X, y, sensitive_features, kwargs)
        else:
            self._fit_statistics(X, y, sensitive_features, epsilon, delta, oracle, grid)
        set_fit_features(self, X)
        return self

    def _fit_statistics(self, X, y, sensitive_features, epsilon, delta, oracle, checked_grid):
        """The statistics game's first release, one best response and one release per grid point, the selection
        on released values and the choice against the constants; one charge, right after the first release.
        """
        private = not math.isinf(epsilon)
        record = self.privacy_unit == "record"
        if record and self.estimator is not None and private:
            warn("privacy_unit='record': the estimator is never fitted on the private records; the best responses "
                 "are the least-squares cost oracle's on released statistics (oracle_='least_squares').",
                 UtilityWarning)
        game_input, rows, groups, row_norm, feature_map = self._game_rows(X, y, sensitive_features, private, record)
        grid, multipliers = checked_grid if checked_grid is not None else self._lagrange_grid(groups)
        events = _moment_events(self.constraints)
        rng = release_random_state(self.random_state)
        game = StatisticsGame(
            rows=rows, event_of_label=_event_index(self.constraints, np.array([0, 1])),
            n_events=len(events), n_groups=len(groups), error_parity=isinstance(self.constraints, ErrorRateParity),
            record=record, row_norm=row_norm, epsilon=self._game_epsilon(epsilon), delta=delta,
            statistics_fraction=float(self._options().statistics_fraction), n_rounds=len(multipliers),
            bound=float(self.constraints.eps), B=float(self.grid_limit), eta=0.0, ridge=None,
            estimator=game_input.learner if oracle == "weighted_estimator" else None,
            sample_weight_name=game_input.weight_name, rng=rng, feature_map=feature_map)
        row_norm = game.row_norm
        game.start(_EVENT_LABELS[events])          # the first release
        # The whole spend is charged once the first release is drawn: the best responses (the user's estimator under
        # "sensitive_attribute") are fitted on weights derived from it, so a failure or a warning of theirs is a
        # release too, and costs what the fit costs (a fit that raises from here on stays charged).
        spent = charge(self.accountant, PrivacySpend(epsilon, delta) if private else PrivacySpend(math.inf, 0.0))
        plays, sums, predictions = self._search(game, multipliers)
        losses = ((1.0 - float(self.constraint_weight)) * game.errors_
                  + float(self.constraint_weight) * game.gammas_.max(axis=1))
        self.best_idx_ = int(np.argmin(losses))     # Fairlearn's rule on released values: post-processing
        self._set_search_attributes(game, grid, events, groups, sums, oracle, row_norm, record, private)
        self.preprocessor_, self.predictors_, self.n_features_in_ = game_input.fitted_attributes(
            plays, rows.d, clip_bound=row_norm if record else None)
        self.constant_choice_ = no_choice()
        if private:                                  # the last release, from the same stream
            self.constant_choice_ = self._choose_against_constants(predictions[self.best_idx_], rows.y, epsilon, rng)
        self.privacy_spent_ = spent
        if private:
            self._warn_after_search(game, groups, record, predictions[self.best_idx_], sums[self.best_idx_])
        return self

    def _search(self, game, multipliers):
        """After the game's first release: per grid point its best response and the release of its cell sums (the
        game's own functions); the game keeps each point's released error and violations.
        """
        plays, sums, predictions, errors, gammas = [], [], [], [], []
        for lam_prime in multipliers:
            h, predicted = game.best_response(lam_prime)
            if predicted is None:                   # the least-squares Learner's play, on the rows in memory
                predicted = h.predict(game.X).astype(float)
            round_sums = game.round_sums(h, predicted)
            released = game.release_round(round_sums.cells)
            gamma, error = game.violations(released, round_sums)
            plays.append(h)
            sums.append(released)
            predictions.append(predicted)
            errors.append(error)
            gammas.append(gamma)
        game.errors_, game.gammas_ = np.array(errors), np.array(gammas)
        return plays, np.array(sums), predictions

    def _set_search_attributes(self, game, grid, events, groups, sums, oracle, row_norm, record, private):
        """Fairlearn's fitted attributes (from released values and the public grid) and the releases' record."""
        index = pd.MultiIndex.from_tuples(
            [(sign, events[e], groups[g]) for sign in ("+", "-") for e in range(len(events))
             for g in range(len(groups))], names=["sign", "event", "group_id"])
        self.lambda_vecs_ = pd.DataFrame(grid, dtype=np.float64)
        self.objectives_ = [float(error) for error in game.errors_]
        self.gammas_ = pd.DataFrame(game.gammas_.T, index=index, columns=grid.columns, dtype=np.float64)
        self.n_oracle_calls_ = len(game.errors_)
        self.history_ = {"statistics": game.S_, "grid_sums": list(sums)}      # a list: history_.grid_sums.0
        if record:
            self.history_["gram"] = game.gram_
        K = self.n_oracle_calls_
        self.rho_ = ({"statistics": game.rho_stats, "counts": game.rho_counts, "gram": game.rho_gram,
                      "per_grid_point": game.rho_round, "total": game.rho_stats + K * game.rho_round}
                     if private else {})
        self.noise_scale_ = {"statistics": game.sigma_stats, "counts": game.sigma_counts, "gram": game.sigma_gram,
                             "per_grid_point": game.sigma_round}
        self.sensitivity_ = dict(game.sensitivity)
        self.oracle_, self.mode_, self.groups_ = oracle, "statistics", groups
        self.row_norm_bound_, self.rows_clipped_ = row_norm, record
        self.proxy_reliability_ = getattr(game, "kappa_", None)

    def _warn_after_search(self, game, groups, record, positive, released_sums):
        """After the charge: groups the best responses cannot tell apart or correct fully, a chosen constant, a constant
        output.
        """
        for message in game.reliability_warnings(type(self).__name__, groups, search=True):
            warn(message, FairnessWarning)
        self._warn_if_constant_chosen()
        if record:
            rate, sd = released_positive_rate(released_sums[None], np.ones(1), game.n, game.sigma_round)
            self._warn_if_constant_output(rate, noise_sd=sd, source="released cell sums of the selected play")
        else:
            self._warn_if_constant_output(float(np.mean(positive)), source="its predictions on the public X")

    def _fit_fairlearn(self, X, y, sensitive_features, kwargs):
        """Fairlearn's ``GridSearch.fit``, unchanged, with this one's arguments; its fitted attributes become this
        one's. The budget of ``(inf, 0)`` was checked by ``check_public_inputs``.
        """
        if sensitive_features is not None:
            kwargs = {"sensitive_features": sensitive_features, **kwargs}
        fairlearn = _FairlearnGridSearch(
            self.estimator, self.constraints, selection_rule=self.selection_rule,
            constraint_weight=self.constraint_weight, grid_size=self.grid_size, grid_limit=self.grid_limit,
            grid_offset=self.grid_offset, grid=self.grid, sample_weight_name=self.sample_weight_name)
        fairlearn.fit(X, y, **kwargs)
        parameters = fairlearn.get_params(deep=False)
        self.__dict__.update({name: value for name, value in vars(fairlearn).items() if name not in parameters})
        self.n_oracle_calls_ = len(self.predictors_)
        self.oracle_, self.mode_ = "estimator", "fairlearn"
        self.constant_choice_ = no_choice()
        self.privacy_spent_ = charge(self.accountant, PrivacySpend(math.inf, 0.0))
        return self

    # ------------------------------------------------------------------------------------------ predict
    def _selected_output(self, X, method):
        """``method`` (``"predict"`` or ``"predict_proba"``) of the selected model, or of the chosen constant."""
        check_is_fitted(self, "predictors_")
        check_predict_features(self, X)
        choice = getattr(self, "constant_choice_", None)
        rows = X.shape[0] if hasattr(X, "shape") else len(X)
        if choice is not None and choice.is_constant:
            constant = int(choice.constant)
            return (np.full(rows, constant) if method == "predict"
                    else np.tile([1.0 - constant, float(constant)], (rows, 1)))
        model = self.predictors_[self.best_idx_]
        if self.oracle_ != "estimator" and getattr(self, "preprocessor_", None) is None:
            X = self._predict_rows(np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float))
        if method == "predict_proba" and not hasattr(model, "predict_proba"):
            positive = np.asarray(model.predict(X), dtype=float).ravel()   # a 0/1 play: its probabilities
            return np.column_stack([1.0 - positive, positive])
        return getattr(model, method)(X)

    def predict(self, X: ArrayLike) -> Any:
        """The selected model's ``predict(X)`` (Fairlearn's), or the fair constant chosen at fit."""
        return self._selected_output(X, "predict")

    def predict_proba(self, X: ArrayLike) -> Any:
        """The selected model's ``predict_proba(X)`` (0/1 columns for a threshold play), or the chosen constant's."""
        return self._selected_output(X, "predict_proba")

    def _pmf_predict(self, X):
        """``(n, 2)`` probabilities of predicting 0 and 1: grid search returns one deterministic model (the selected
        one, or the chosen constant), not the exponentiated gradient's mixture that the base class's method reads.
        """
        positive = np.asarray(self.predict(X), dtype=float).ravel()
        return np.column_stack([1.0 - positive, positive])
