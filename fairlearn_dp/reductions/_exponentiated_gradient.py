"""DP exponentiated-gradient reduction for fair classification: a drop-in for Fairlearn's ``ExponentiatedGradient``.

:class:`DPExponentiatedGradient` validates its public parameters (:mod:`._eg_params`), checks the budget, reads the
data and runs the statistics game (the private fit, :mod:`._statistics_game`) or, at ``epsilon=inf`` with an
estimator, Fairlearn's own ``fit`` unchanged. :class:`_GameClassifier` is the prediction side it shares with
:class:`~fairlearn_dp.reductions.JagielskiExponentiatedGradient` (Algorithm 3, :mod:`._jagielski`): the randomized
mixture of plays, the choice against the fair constants and the warnings about them. Derivations:
docs/privacy_analysis/statistics_game.md.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from fairlearn.reductions import ErrorRateParity
from fairlearn.reductions import ExponentiatedGradient as _FairlearnExponentiatedGradient
from sklearn.utils.validation import check_is_fitted

from .._utils._dask import is_dask_input
from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_support import (
    SharedAccountantCloneMixin,
    atomic_fit,
    warn_if_constant_chosen,
    warn_if_constant_output,
)
from .._utils._rows import clip_rows
from .._utils._validation import resolve_groups
from ..exceptions import FairnessWarning, UtilityWarning, warn
from ..postprocessing._dask_predict import pmf_predict_dask, predict_dask
from ..postprocessing._inputs import light_copy
from ..privacy import PrivacySpend
from ..privacy._accountant import charge
from ..privacy._random import check_random_state, release_random_state
from ..privacy._selection import choose_against_constants, choose_on_sums, fair_constants, no_choice
from ._eg_params import (
    _EVENT_LABELS,
    _FAIRLEARN_EPS,
    _FAIRLEARN_ETA0,
    _FAIRLEARN_MAX_ITER,
    MAX_ROUNDS,
    StatisticsGameOptions,
    _event_index,
    _ExponentiatedGradientParams,
    _moment_events,
)
from ._game_mixture import released_positive_rate
from ._game_rows import DaskRows, InMemoryRows, mixture_sums, public_feature_map
from ._objective import objective_costs
from ._pipeline import game_estimator, pipeline_pmf
from ._public_features import PublicFeatureMap
from ._statistics_game import StatisticsGame

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import Moment
    from numpy.typing import ArrayLike

__all__ = ["DPExponentiatedGradient", "MAX_ROUNDS"]


class _GameClassifier(SharedAccountantCloneMixin):
    """The prediction side of the exponentiated-gradient estimators: ``predict`` and ``_pmf_predict`` of the fitted
    randomized mixture ``Q`` of plays (or of the fair constant chosen against it), and the choice and warnings about
    the constants. Subclasses fit ``predictors_``, ``weights_``, ``oracle_`` and ``constant_choice_``; Fairlearn's
    fit (``oracle_ == "estimator"``) predicts through Fairlearn's methods, next in the subclass's method order.
    """

    #: The remedy the constant-choice warning names (besides more data or a larger epsilon).
    _constant_choice_hint = ""

    def _predict_rows(self, X_arr):
        """The rows as the plays read them at fit (hook: the subclass's public clipping); here unchanged."""
        return X_arr

    def _objective_costs(self):
        """The public costs ``(c_FP, c_FN)`` of the errors (hook); here the error rate."""
        return 1.0, 1.0

    def _choose_against_constants(self, positive, y, epsilon, rng):
        """The private choice between Q (``positive``: its probabilities of 1 on the training rows) and the fair
        constants (``choose_against_constants``), drawn from the fit's release stream.

        ``epsilon=inf``: no choice (the toolkit's output). ``"sensitive_attribute"``: exact and free (Q does not read
        the attribute and X, y are public, so its training cost is post-processing of a release). ``"record"``: the
        exponential mechanism on what :meth:`_game_epsilon` left of ``epsilon``.
        """
        if math.isinf(epsilon):
            return no_choice()
        record = self.privacy_unit == "record"
        return choose_against_constants(
            positive, y, epsilon=epsilon - self._game_epsilon(epsilon) if record else 0.0, public=not record,
            error_parity=isinstance(self.constraints, ErrorRateParity), random_state=rng,
            costs=self._objective_costs())

    def _warn_if_constant_chosen(self):
        """The choice's warning (after the charge): it replaces the released-error and Learner-noise warnings."""
        record = self.privacy_unit == "record"
        hint = ("More data or a larger epsilon" + self._constant_choice_hint
                if not record else
                "More data, a larger epsilon or privacy_unit='sensitive_attribute' (only the sensitive feature "
                "private)")
        warn_if_constant_chosen(type(self).__name__, self.constant_choice_, hint)

    def _warn_if_constant_output(self, low, high=None, *, source, noise_sd=0.0):
        """The kept mixture predicts one label on (almost) every row (after the charge; not after a chosen
        constant): ``low``/``high`` public or released (``warn_if_constant_output``).
        """
        hint = ("More data, a larger epsilon, a looser constraint or privacy_unit='sensitive_attribute'"
                if self.privacy_unit == "record" else "More data, a larger epsilon or a looser constraint")
        warn_if_constant_output(type(self).__name__, low, high, source=source, hint=hint, noise_sd=noise_sd,
                                choice=self.constant_choice_)

    # ------------------------------------------------------------------------------------------ predict
    def _pmf_predict(self, X):
        """``(n, 2)`` probabilities of predicting 0 and 1 under the randomized classifier Q (Fairlearn's form), or of
        the fair constant ``constant_choice_`` chose; on a Dask array or DataFrame a lazy Dask array partitioned like
        ``X``, computed on the workers.
        """
        check_is_fitted(self, "predictors_")
        check_predict_features(self, X)             # scikit-learn's checks of the columns (no value read)
        if is_dask_input(X):
            return pmf_predict_dask(light_copy(self)._pmf_in_memory, X, None, n_columns=2)
        return self._pmf_in_memory(X)

    def _pmf_in_memory(self, X, sensitive_features=None):
        """:meth:`_pmf_predict` of in-memory ``X`` whose columns were checked (``X``, or a Dask partition, whose
        helper passes ``sensitive_features=None``: Q does not use them).
        """
        if getattr(self, "oracle_", None) == "estimator":
            return super()._pmf_predict(X)
        choice = getattr(self, "constant_choice_", None)
        if choice is not None and choice.is_constant:        # the fair constant chosen at fit: the same for every row
            rows = X.shape[0] if hasattr(X, "shape") else len(X)
            return np.tile([1.0 - choice.constant, choice.constant], (rows, 1))
        return self._mixture_pmf(X)

    def _mixture_pmf(self, X):
        """``(n, 2)`` probabilities of Q, the fitted mixture of plays (before the choice against the constants)."""
        if getattr(self, "preprocessor_", None) is not None:      # a Pipeline estimator (statistics game)
            return pipeline_pmf(self.preprocessor_, self.predictors_, self.weights_, X)
        X_arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X_arr.ndim != 2 or X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have {self.n_features_in_} columns, got shape {X_arr.shape}.")
        X_arr = self._predict_rows(X_arr)
        positive = np.zeros(X_arr.shape[0])
        for h, w in zip(self.predictors_, self.weights_, strict=False):
            if w > 0:                               # a play of `hypotheses` may be a plain callable
                predict = h.predict if hasattr(h, "predict") else h
                positive += w * np.asarray(predict(X_arr), dtype=float).ravel()
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X: ArrayLike, random_state: int | np.random.RandomState | None = None) -> Any:
        """Randomized 0/1 predictions: 1 with probability ``_pmf_predict(X)[:, 1]`` (Fairlearn's semantics).

        On a Dask array or DataFrame: a lazy Dask array partitioned like ``X`` (the post-processors' helper,
        ``fairlearn_dp/postprocessing/_dask_predict.py``), whose computed values are the in-memory predictions of
        the computed ``X`` with the same ``random_state``: row ``r`` gets draw ``r`` of one stream.
        """
        check_is_fitted(self, "predictors_")
        if is_dask_input(X):
            check_predict_features(self, X)
            return predict_dask(light_copy(self)._randomised_predict, X, None, random_state, dtype=int)
        if getattr(self, "oracle_", None) == "estimator":      # Fairlearn's predict; None: OS entropy here too
            return super().predict(X, random_state=check_random_state(random_state))
        positive = self._pmf_predict(X)[:, 1]
        rng = check_random_state(random_state)          # None: OS entropy, never numpy's global generator
        return (positive >= rng.rand(len(positive))).astype(int)

    def _randomised_predict(self, X, sensitive_features, generator):
        """``predict`` of in-memory ``X`` with the ``RandomState`` ``generator`` (a Dask partition's, advanced by
        the rows before it): one draw per row, in row order, as in memory.
        """
        if self.oracle_ == "estimator":             # Fairlearn's predict and draws (its _pmf_predict is ours)
            return super().predict(X, random_state=generator)
        positive = self._pmf_in_memory(X)[:, 1]
        return (positive >= generator.rand(len(positive))).astype(int)


class DPExponentiatedGradient(_GameClassifier, _ExponentiatedGradientParams, _FairlearnExponentiatedGradient):
    """Differentially private exponentiated-gradient reduction for fair classification.

    A drop-in for :class:`fairlearn.reductions.ExponentiatedGradient` (a subclass of it): Fairlearn's constructor
    arguments and defaults, ``Moment`` constraints, ``predict(X, random_state=None)`` and ``_pmf_predict(X)``, plus
    the privacy parameters. It runs one of two algorithms:

    - **The statistics game** (finite ``epsilon``): Fairlearn's reduction played on statistics released once and
      one small release per round, so the privacy cost does not grow with the rounds. The ``estimator`` is the
      Learner under ``privacy_unit="sensitive_attribute"``, else a least-squares cost oracle on the released
      statistics; a ``Pipeline``'s preprocessing defines the game's features. Expert settings: ``options``.
    - **Fairlearn's own fit** (``epsilon=inf`` with an estimator): unchanged, no noise, no ``PrivacyWarning``.

    Jagielski et al.'s (2019) Algorithm 3 is :class:`JagielskiExponentiatedGradient`. Fairlearn arguments a private
    algorithm cannot honour are refused before the budget check. The classifier does not use the sensitive feature
    at prediction time.

    Parameters
    ----------
    estimator : estimator or None, default=None
        With ``fit(X, y, sample_weight=...)``, or a ``Pipeline``: Fairlearn's best response and the statistics
        game's Learner (None: the least-squares cost oracle).
    constraints : fairlearn.reductions.Moment
        Private fits: ``DemographicParity``, ``EqualizedOdds``, ``TruePositiveRateParity``,
        ``FalsePositiveRateParity`` or ``ErrorRateParity``, with a difference bound. Fairlearn's fit: any.
    objective : fairlearn.reductions.Moment or None, default=None
        None or ``ErrorRate`` (its public costs weigh the released values in the statistics game).
    eps : float, default=0.01
        Fairlearn's bound ``B = 1/eps`` on the multipliers.
    max_iter : int or None, default=None
        Rounds ``T``, at most ``MAX_ROUNDS`` (1,000) when private. None: Fairlearn's 50 (the value used is
        ``max_iter_``).
    nu : float or None, default=None
        Fairlearn's duality-gap threshold (the one used, given or computed, is ``nu_``). Private fits: must be None.
    eta0 : float, default=2.0
        Fairlearn's initial learning rate ``eta0 / B`` (the statistics game's fixed rate).
    run_linprog_step : bool or "auto", default="auto"
        Fairlearn's final LP re-weighting of the plays, else their uniform average. ``"auto"``: the LP for
        Fairlearn's fit and for the statistics game's estimator Learner with demographic or error-rate parity.
    sample_weight_name : str, default="sample_weight"
        The ``estimator.fit`` argument for the weights (``"step__sample_weight"`` for a ``Pipeline``).
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
        The bound ``"record"`` needs: public L2 bound on a row (None: ``X.attrs``, a declared Pipeline's, else
        ``options.feature_bound``'s); rows beyond it are scaled onto it.
    options : StatisticsGameOptions or None, default=None
        The statistics game's expert settings (Learner, feature box, ridge, budget share); None: the defaults.

    Attributes
    ----------
    predictors_, weights_ : list and numpy.ndarray (pandas Series on Fairlearn's fit)
        The Learner's distinct plays and their weights in the mixture ``Q``.
    lambda_, constraint_index_ : numpy.ndarray and pandas.MultiIndex
        The Auditor's average multipliers and their (sign, event, group) index.
    history_ : dict of numpy.ndarray
        The releases and their post-processing (multipliers, violations, plays), noise scale, LP bound; "gram": Gram.
    n_iter_, max_iter_, eta_, bound_B_ : int, int, float, float
        Rounds played and planned (``max_iter``, or 50), learning rate and ``B`` (statistics game).
    mode_, oracle_, composition_ : str, str, str
        The algorithm that ran (``"statistics"`` or ``"fairlearn"``), its Learner and composition rule.
    rho_, noise_scale_, estimated_error_, estimated_error_sd_, estimated_violation_ : dict, dict, float, float, float
        Statistics game: zCDP budgets, Gaussian sigmas, released error estimate and its noise sd, largest violation.
    proxy_reliability_, row_norm_bound_, ridge_ : numpy.ndarray or None, float, float
        Statistics game: per cell, the share of the Learner's signal that is not noise; the row bound; the ridge.
    sensitivity_, privacy_spent_, constant_choice_ : dict, PrivacySpend, ConstantChoice
        The releases' sensitivities; what the fit charged; the choice against the fair constants (see Privacy).
    nu_, preprocessor_, groups_, n_features_in_ : float, Pipeline or None, list, int
        Fairlearn's threshold (given or computed); a ``Pipeline``'s fitted preprocessing; the groups; X's columns.

    Privacy
    -------
    - Neighbouring relation: ``"sensitive_attribute"`` (one person's attribute changes; X, y public and without the
      attribute: an X column named like ``sensitive_features``' is refused) or ``"record"`` (a record substituted).
    - Released: per-cell feature sums and counts once (and the Gram matrix under ``"record"``), then per round the
      cell sums of the play.
    - Mechanism: Gaussian under zCDP.
    - Sensitivity: e.g. ``sqrt(2) C`` (L2) for the feature sums, ``C`` the row-norm bound.
    - Public inputs: ``m``, the declared groups, the constraint, every parameter and bound.
    - Last step: Q or a fair constant, chosen exactly (attribute unit) or on 10% of epsilon (constant_fallback.md).
    - Derivations: docs/privacy_analysis/statistics_game.md.

    Examples
    --------
    The drop-in for Fairlearn's ``ExponentiatedGradient``, with the privacy parameters added:

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn.reductions import DemographicParity
    >>> from sklearn.linear_model import LogisticRegression
    >>> from fairlearn_dp.reductions import DPExponentiatedGradient
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 3000)
    >>> X = rng.uniform(-1, 1, (3000, 3))
    >>> y = (X[:, 0] + 0.5 * (sex == "male") + 0.3 * rng.standard_normal(3000) > 0.2).astype(int)
    >>> mitigator = DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05),
    ...                                     epsilon=1.0, delta=1e-5, groups=["female", "male"], random_state=0,
    ...                                     accountant=BudgetAccountant())
    >>> mitigator = mitigator.fit(X, y, sensitive_features=sex)
    >>> mitigator.mode_, mitigator.privacy_spent_
    ('statistics', PrivacySpend(epsilon=1.0, delta=1e-05, rho=None))
    >>> y_pred = mitigator.predict(X, random_state=0)
    >>> bool((y_pred == y).mean() > 0.8)   # accuracy, about 0.86
    True
    >>> rates = [y_pred[sex == group].mean() for group in ["female", "male"]]   # selection rates, about 0.53 each
    >>> bool(abs(rates[0] - rates[1]) < 0.05)
    True
    """

    _fits_dask = True

    def __init__(self, estimator: Any = None, constraints: Moment | None = None, *, objective: Moment | None = None,
                 eps: float = _FAIRLEARN_EPS, max_iter: int | None = None, nu: float | None = None,
                 eta0: float = _FAIRLEARN_ETA0, run_linprog_step: bool | str = "auto",
                 sample_weight_name: str = "sample_weight", epsilon: float = 1.0, delta: float = 1e-7,
                 privacy_unit: str = "sensitive_attribute", groups: Sequence[Hashable] | None = None,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None, row_norm_bound: float | None = None,
                 options: StatisticsGameOptions | None = None) -> None:
        # Fairlearn's arguments (its __init__ is not called: it would type max_iter=None as Fairlearn's 50).
        self.estimator = estimator
        self.constraints = constraints
        self.objective = objective
        self.eps = eps
        self.max_iter = max_iter
        self.nu = nu
        self.eta0 = eta0
        self.run_linprog_step = run_linprog_step
        self.sample_weight_name = sample_weight_name
        # Ours.
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state
        self.row_norm_bound = row_norm_bound
        self.options = options

    def _objective_costs(self):
        """The public costs of ``objective`` (``ErrorRate(costs=...)``; None: the error rate)."""
        return objective_costs(self.objective, allow_costs=True)

    def _predict_rows(self, X_arr):
        """Under ``"record"`` the game's rows were scaled onto ``row_norm_bound_``: predict scales them as fit did."""
        if getattr(self, "rows_clipped_", False):
            return clip_rows(X_arr, self.row_norm_bound_)
        return X_arr

    # ------------------------------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike | None = None,
            **kwargs: Any) -> DPExponentiatedGradient:
        """Fit on ``(X, y)`` with ``sensitive_features``: Fairlearn's algorithm at ``epsilon=inf`` with an
        estimator, else T rounds of the (private) Learner/Auditor game.

        Order: public parameters are validated and the budget is checked before the data are read; every fit of
        data inside the domain then succeeds (see Privacy). A fit that raises leaves the estimator as it was.

        ``X``, ``y`` and ``sensitive_features`` may be Dask arrays, DataFrames or Series (partitioned alike, with
        ``groups`` declared) where the releases are sums over rows: ``privacy_unit="record"``, or the least-squares
        Learner under ``"sensitive_attribute"``. The sums are computed on the workers, one pass per round, and the
        releases equal the in-memory fit's bit for bit (integer counts, and float sums in one fixed order of blocks
        of rows: ``_game_rows.py``). A Learner or a ``Pipeline`` that needs the rows in memory is refused before
        the budget check.
        """
        for name in ("nu_", "max_iter_", "preprocessor_", "constant_choice_", "rows_clipped_"):
            self.__dict__.pop(name, None)
        # 1-2. the public parameters, the public layout of the arguments (_check_public_layout), the budget
        epsilon, delta, oracle = self.check_public_inputs(X, y, sensitive_features=sensitive_features, **kwargs)
        if oracle == "estimator":
            self._fit_fairlearn(X, y, sensitive_features, kwargs)
        else:
            self._fit_statistics(X, y, sensitive_features, epsilon, delta, oracle)
        set_fit_features(self, X)                   # n_features_in_ (and feature_names_in_), as scikit-learn's
        return self

    def _fit_statistics(self, X, y, sensitive_features, epsilon, delta, oracle):
        """The statistics game: one release of sufficient statistics, one small release
        per round, everything else post-processing (:mod:`fairlearn_dp.reductions._statistics_game`).
        """
        private = not math.isinf(epsilon)
        record = self.privacy_unit == "record"
        if record and self.estimator is not None and private:
            warn("privacy_unit='record': the estimator is never fitted on the private records (of a "
                 "Pipeline, only the public preprocessing is applied to them); the Learner is the "
                 "least-squares cost oracle on released statistics (oracle_='least_squares'). With "
                 "privacy_unit='sensitive_attribute' (X and y public) the estimator itself is the Learner.",
                 UtilityWarning)
        game_input, rows, groups, row_norm, feature_map = self._game_rows(X, y, sensitive_features, private, record)
        events = _moment_events(self.constraints)
        rng = release_random_state(self.random_state)
        options = self._options()
        B = 1.0 / float(self.eps)
        T = int(self.max_iter) if self.max_iter is not None else _FAIRLEARN_MAX_ITER
        eta = float(self.eta0) / B
        # Built on the rows: one pass reads the exact statistics (under "sensitive_attribute" also the bound on
        # ||z||, read off the public z: row_norm None).
        game = StatisticsGame(
            rows=rows, event_of_label=_event_index(self.constraints, np.array([0, 1])), n_events=len(events),
            n_groups=len(groups), error_parity=isinstance(self.constraints, ErrorRateParity), record=record,
            row_norm=row_norm, epsilon=self._game_epsilon(epsilon), delta=delta,
            statistics_fraction=float(options.statistics_fraction),
            n_rounds=T, bound=float(self.constraints.eps), B=B, eta=eta, ridge=options.ridge,
            estimator=game_input.learner if oracle == "weighted_estimator" else None,
            sample_weight_name=game_input.weight_name, rng=rng, feature_map=feature_map,
            costs=objective_costs(self.objective, allow_costs=True))
        spent = PrivacySpend(epsilon, delta) if private else PrivacySpend(math.inf, 0.0)
        charged = []
        # The whole spend is charged once the statistics are released: the Learner (the user's estimator under
        # "sensitive_attribute") is fitted on weights derived from them, so its failure or warning is a release too
        # and costs what the fit costs (a fit that raises from there on stays charged).
        game.play(_EVENT_LABELS[events], linprog_step=self._linprog_step(private, oracle),
                  after_release=lambda: charged.append(charge(self.accountant, spent)))

        row_norm = game.row_norm
        self._set_game_attributes(game, events, groups, record, private, T, eta, B, oracle, row_norm)
        # A Pipeline: predictors_ are pipelines on the raw X (as Fairlearn's) and preprocessor_ its preprocessing.
        self.preprocessor_, self.predictors_, self.n_features_in_ = game_input.fitted_attributes(
            game.plays_, rows.d, clip_bound=row_norm if record else None)
        self.constant_choice_, rate = self._final_choice(game, epsilon, rng) if private else (no_choice(), None)
        self.privacy_spent_ = charged[0]                # charged before any warning (one may be an error)
        self._warn_after_game(game, groups, private, record, rows.n, rate)
        return self

    def _final_choice(self, game, epsilon, rng):
        """The last release: Q on the game's rows (the preprocessed, and under ``"record"`` clipped, training rows)
        against the fair constants, after the game's releases and from the same random stream; and Q's positive
        rate on the rows (public under ``"sensitive_attribute"``, for its warning). The least-squares Learner's
        plays are summed over the rows in one pass (:func:`~._game_rows.mixture_sums`), the estimator's predict on
        the rows in memory.
        """
        rows = game.rows
        if not game.least_squares:
            # Each play's predictions on the rows, as the game computed them in its round (predict is not run again).
            positive = sum((w * np.asarray(p, dtype=float).ravel()
                            for p, w in zip(game.play_predictions_, game.q_, strict=False) if w > 0), np.zeros(rows.n))
            return self._choose_against_constants(positive, rows.y, epsilon, rng), float(np.mean(positive))
        costs = self._objective_costs()
        sums = mixture_sums(rows, game.plays_, game.q_, costs=costs,
                            constants=fair_constants(isinstance(self.constraints, ErrorRateParity)))
        record = self.privacy_unit == "record"
        choice = choose_on_sums(
            costs[0] * sums.false_positive + costs[1] * sums.false_negative, float(game.exact.label_counts[1].sum()),
            rows.n, sums.differences.__getitem__, epsilon=epsilon - self._game_epsilon(epsilon) if record else 0.0,
            public=not record, error_parity=isinstance(self.constraints, ErrorRateParity), random_state=rng,
            costs=costs)
        return choice, sums.positive / rows.n

    def _warn_after_game(self, game, groups, private, record, n, rate):
        """The fit's warnings on released values, after the charge: groups the game could not enforce or enforced
        loosely, a constant chosen, a constant output (from the released round sums under ``"record"``, else from
        the predictions on the public X, ``rate``).
        """
        if private:
            for message in game.reliability_warnings(type(self).__name__, groups):
                warn(message, FairnessWarning)
        self._warn_if_constant_chosen()
        if private and record:
            rate, sd = released_positive_rate(game.round_sums_, game.q_, n, game.sigma_round)
            self._warn_if_constant_output(rate, noise_sd=sd, source="released per-round sums of its plays")
        elif private:
            self._warn_if_constant_output(rate, source="its predictions on the public X")

    def _game_rows(self, X, y, sensitive_features, private, record):
        """The game's rows (:mod:`._game_rows`: in memory, or on Dask, converted partition by partition on the
        workers), the Pipeline's public preprocessing applied, the labels and group indices read; under ``"record"``
        the public row-norm bound (rows are clipped onto it), under ``"sensitive_attribute"`` the public feature map
        of ``X`` (the bound on ``||z||`` is read with the statistics).
        """
        # A Pipeline: its preprocessing, fitted once (public under "record"), gives the game's features.
        game_input = game_estimator(self.estimator, self.sample_weight_name, X, y, record=record)
        row_norm = None
        if self._fits_dask and is_dask_input(X, y, sensitive_features):   # layout, groups, Learner: checked already
            d = int(X.shape[1])
            if record:
                row_norm = self._record_row_norm(X, d, private)
            rows = DaskRows(X, y, sensitive_features, groups=self.groups, clip_bound=row_norm, n_features=d)
            groups = resolve_groups(self.groups, None, estimator_name=type(self).__name__, private=private)
        else:
            X_arr, y_arr, group_index, groups = self._load(game_input.features, y, sensitive_features, private=private)
            if record:
                # The public row-norm bound: rows beyond it are scaled back onto it, silently (a warning would say
                # whether some private row exceeds it).
                row_norm = self._record_row_norm(game_input.features, X_arr.shape[1], private, game_input.preprocessing)
                X_arr = clip_rows(np.ascontiguousarray(X_arr), row_norm)
            rows = InMemoryRows(X_arr, y_arr, group_index)
        return game_input, rows, groups, row_norm, None if record else self._public_feature_map(rows)

    def _public_feature_map(self, rows):
        """Under ``"sensitive_attribute"`` (X public): the public rescaling ``z`` of X whose statistics are released
        (:mod:`._public_features`), read off X in two passes; ``row_norm_bound``, if given, must hold on X.
        """
        observed, center, deviation = public_feature_map(rows)
        if self.row_norm_bound is not None and observed > self.row_norm_bound * (1 + 1e-12):
            raise ValueError("row_norm_bound: a row of X (public under privacy_unit='sensitive_attribute') "
                             "has a larger L2 norm.")
        return PublicFeatureMap.from_column_statistics(center, deviation)

    def _set_game_attributes(self, game, events, groups, record, private, T, eta, B, oracle, row_norm):
        """Fairlearn's fitted attributes and the game's released values and noise, from the played game."""
        cells = [(e, g) for e in range(len(events)) for g in range(len(groups))]
        tuples = ([("+", events[e], groups[g]) for e, g in cells] + [("-", events[e], groups[g]) for e, g in cells])
        self.constraint_index_ = pd.MultiIndex.from_tuples(tuples, names=["sign", "event", "group_id"])
        self.predictors_ = list(game.plays_)
        self.weights_ = np.asarray(game.q_, dtype=float)
        self.lambda_ = game.lambdas_.mean(axis=0)
        self.history_ = {"statistics": game.S_, "round_sums": game.round_sums_, "lambda": game.lambdas_,
                         "released_gamma": game.released_gammas_,
                         "gamma": game.gammas_, "error": game.errors_, "lp_value": game.lp_values_,
                         "noise_scale": game.sigma_round, "lp_bound": game.lp_bound_}
        if record:                                  # the released (noisy) Phi^T Phi, symmetric
            self.history_["gram"] = game.gram_
        self.n_iter_ = game.rounds_played_
        self.max_iter_ = T
        self.eta_ = eta
        self.bound_B_ = B
        self.oracle_ = oracle
        self.mode_ = "statistics"
        self.composition_ = "zcdp" if private else "none"
        self.rho_ = ({"statistics": game.rho_stats, "counts": game.rho_counts, "gram": game.rho_gram,
                      "per_round": game.rho_round,
                      "rounds_planned": T,
                      "total": game.rho_stats + T * game.rho_round} if private else {})
        self.noise_scale_ = {"statistics": game.sigma_stats, "counts": game.sigma_counts, "gram": game.sigma_gram,
                             "per_round": game.sigma_round}
        self.sensitivity_ = game.sensitivity
        self.row_norm_bound_ = row_norm
        self.rows_clipped_ = record                 # predict scales rows onto row_norm_bound_ as fit did
        self.ridge_ = game.ridge
        self.proxy_reliability_ = getattr(game, "kappa_", None)
        self.estimated_error_ = game.estimated_error_
        self.estimated_error_sd_ = game.error_sd_
        self.estimated_violation_ = game.estimated_violation_
        self.groups_ = groups

    def _fit_fairlearn(self, X, y, sensitive_features, kwargs):
        """Fairlearn's ``fit``, unchanged, on a Fairlearn ``ExponentiatedGradient`` with this one's arguments (their
        resolved values: ``max_iter=None`` is Fairlearn's 50, ``run_linprog_step="auto"`` its True); its fitted
        attributes become this one's, and the parameters stay as set. The budget of ``(inf, 0)`` was checked by
        ``check_public_inputs``.
        """
        if sensitive_features is not None:
            kwargs = {"sensitive_features": sensitive_features, **kwargs}
        max_iter = _FAIRLEARN_MAX_ITER if self.max_iter is None else self.max_iter
        step = True if isinstance(self.run_linprog_step, str) else self.run_linprog_step   # "auto": Fairlearn's
        fairlearn = _FairlearnExponentiatedGradient(
            self.estimator, self.constraints, objective=self.objective, eps=self.eps, max_iter=max_iter, nu=self.nu,
            eta0=self.eta0, run_linprog_step=step, sample_weight_name=self.sample_weight_name)
        fairlearn.fit(X, y, **kwargs)
        parameters = fairlearn.get_params(deep=False)
        # Its fitted state (predictors_, weights_, _hs, ...), which Fairlearn's predict and _pmf_predict read here.
        self.__dict__.update({name: value for name, value in vars(fairlearn).items() if name not in parameters})
        self.nu_ = fairlearn.nu                     # Fairlearn writes the threshold it computes into its nu
        self.max_iter_ = max_iter
        self.oracle_ = "estimator"
        self.mode_ = "fairlearn"
        self.constant_choice_ = no_choice()
        self.privacy_spent_ = charge(self.accountant, PrivacySpend(math.inf, 0.0))
        return self
