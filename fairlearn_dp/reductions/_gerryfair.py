"""Private Fair No-Regret dynamics for rich-subgroup fairness (Cummings et al. 2019, Sec. 5).

The non-private algorithm is Kearns et al.'s (2018) fair learning game as AIF360's ``GerryFairClassifier``
implements it (FairFictPlay): a Learner best-responds, through a linear-regression cost-sensitive classification
(CSC) oracle, to the running average of the Auditor's plays; the Auditor best-responds, through a regression CSC
oracle over the protected attributes, with the rich subgroup (a halfspace of the protected attributes) whose
false-positive (or false-negative) rate deviates most from the base rate. Privately, every quantity either player
reads from the data is a *released statistic*: a noisy sufficient statistic of the regression oracle, drawn by a
diffprivlib mechanism with fresh noise each round. The Learner's oracle then follows the perturbed leader, and
everything else is post-processing.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, is_classifier
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.utils.validation import check_is_fitted

from .._utils._encoding import (
    _check_labels,
    _check_sensitive_values,
    _default_bound,
    _encode_sensitive,
    _fit_bound,
    _radius,
    _with_intercept,
)
from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import (
    SharedAccountantCloneMixin,
    atomic_fit,
    warn_if_constant_chosen,
    warn_if_worse_than_constant,
)
from .._utils._progress import progress_rounds
from .._utils._row_bounds import published_row_norm_bound
from .._utils._rows import clip_rows
from .._utils._validation import (
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_positive_int,
    check_real,
    check_seed,
    check_X,
    value_errors,
)
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, validate_epsilon_delta
from ..privacy._budget_split import composed_spend, per_release_budget, per_release_rho
from ..privacy._random import check_random_state
from ..privacy._release import noise_sd
from ..privacy._releaser import VectorReleaser
from ..privacy._selection import choose_against_constants, no_choice, selection_split
from . import _gerryfair_oracles as _oracles
from ._gerryfair_oracles import LinearCSCHypothesis, RegressionCSCHypothesis, _aif360_stops, _AuditorPlays, _SolvedGram

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant
    from numpy.typing import ArrayLike

__all__ = ["DPGerryFairClassifier", "LinearCSCHypothesis", "RegressionCSCHypothesis", "MAX_ITERS"]

#: Releases per round: the Learner's oracle statistic b_t, the Auditor's oracle statistic S_t, the Auditor's
#: violation statistic U_t and the error statistic E_t. Two more releases happen once: the two Gram matrices.
_RELEASES_PER_ROUND = 4
# Largest max_iters (max_iters - 1 rounds). A round costs O(n d) (the Auditor's past plays are kept as running
# sums): measured on a 2-core machine under load, 1,013 rows, 1,999 rounds take 0.9 s with 20 features and 1.7 s
# with 100 (4,999 rounds: 2.0 s with 20).
MAX_ITERS = 2_000
_ONE_TIME_RELEASES = 2
#: How the Auditor's plays enter the Learner's costs (see the ``cost_update`` parameter).
_COST_UPDATES = ("lagrangian", "aif360")
#: The releaser of a fit (looked up here at every fit, so that a test can substitute a broken one).
_Releaser = VectorReleaser


def _check_path(value, name):
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a string or os.PathLike), got {type(value).__name__}.")
    return value


# A ValueError for every bad value, of whatever type (as before the table).
_AT_LEAST_TWO = value_errors(functools.partial(check_int, low=2))
_NON_NEGATIVE = value_errors(functools.partial(check_real, low=0.0))
_POSITIVE_OR_NONE = value_errors(functools.partial(check_real, low=0.0, low_open=True, allow_none=True))


def _check_max_iters(max_iters, name="max_iters"):
    """``max_iters`` in ``[2, MAX_ITERS]`` (``max_iters - 1`` rounds are played)."""
    _AT_LEAST_TWO(max_iters, name)
    if max_iters > MAX_ITERS:
        raise ValueError(f"max_iters must be at most MAX_ITERS={MAX_ITERS:,} (a round costs O(n d); that many take "
                         f"seconds on a thousand rows), got {max_iters!r}.")
    return int(max_iters)


class DPGerryFairClassifier(SharedAccountantCloneMixin, PrivateFitMixin, ClassifierMixin, BaseEstimator):
    r"""Differentially private rich-subgroup fair classifier: private Fair No-Regret dynamics (Private-FairNR).

    Kearns et al.'s (2018) fair learning game, as AIF360's ``GerryFairClassifier`` plays it, made private as in
    Cummings et al. (2019, Sec. 5): each round, a Learner (a linear-regression cost-sensitive oracle) best-responds
    to the Auditor's average play, and the Auditor to the Learner's with the halfspace of the protected attributes
    whose false-positive (negative) rate deviates most from the base rate. Both read the data only through noisy
    regression statistics, fresh each round; the output is the uniform mixture of the Learner's plays.

    Parameters
    ----------
    C : float, default=10
        Bound on the L1 norm of the dual variables (the Auditor's multiplier), as in AIF360.
    printflag : bool, default=False
        Print the released error and fairness violation of every round.
    heatmapflag : bool, default=False
        Save AIF360's heatmap every ``heatmap_iter`` rounds. It plots the raw data: ``epsilon = inf`` only (else
        a ``ValueError`` before any data).
    heatmap_iter : int, default=10
        Rounds between two heatmaps.
    heatmap_path : str, default='.'
        Folder of the heatmaps (``heatmap_iteration_<t>.png``), as AIF360.
    max_iters : int, default=10
        Time horizon: ``max_iters - 1`` rounds, as in AIF360; ``2 <= max_iters <= MAX_ITERS`` (2,000).
    gamma : float, default=0.01
        Fairness approximation parameter: the smallest released weighted disparity the Auditor penalises.
    fairness_def : {'FP', 'FN'}, default='FP'
        Rich-subgroup false-positive or false-negative rate fairness.
    predictor : scikit-learn regressor, default=None
        The Learner's oracle (None: ``LinearRegression()``). A finite ``epsilon`` needs a ``LinearRegression`` or
        ``Ridge`` (its ``fit_intercept`` and ``alpha`` are used; others are a ``ValueError`` before any data). With
        ``epsilon = inf``, any regressor, fitted each round on AIF360's costs (``RegressionCSCHypothesis``).
    early_termination : bool, default=True
        AIF360's stop on released values, "equal" within the 99% quantile of their noise (``==`` at ``epsilon=inf``).
    feature_norm_bound : float or None, default=None
        Public bound on the rows' norm in ``X`` (L1 if ``delta == 0``, else L2); larger rows are scaled onto it.
        None: the bound ``X.attrs`` publishes, else ``d`` (L1) or ``sqrt(d)`` (L2); none with ``epsilon = inf``.
    sensitive_norm_bound : float or None, default=None
        The same for the rows of ``sensitive_features`` (``k`` or ``sqrt(k)`` for ``k`` columns when None).
    composition : {'auto', 'basic', 'advanced', 'zcdp'}, default='auto'
        How the per-release budgets compose to ``(epsilon, delta)`` ('basic' only when ``delta == 0``); 'auto'
        takes the rule with the smallest Gaussian noise (zCDP in practice).
    sensitive_values : None, list, list of lists or dict, default=None
        Public values of the categorical columns of ``sensitive_features``: a list (one column), a list per column
        (None: numeric), or a dict from column to list. ``m`` values become ``m - 1`` indicators; another value is
        a ``ValueError``. Undeclared values are read from the data (a ``PrivacyWarning`` if ``epsilon`` is finite).
    cost_update : {'lagrangian', 'aif360'}, default='lagrangian'
        'lagrangian': each audited row its own subgroup cost (Kearns et al.'s Lagrangian; the private algorithm).
        'aif360' (``epsilon = inf`` only): AIF360 0.6.1's update, every row the first audited row's cost.
    epsilon : float, default=1.0
        Total privacy budget (> 0); ``numpy.inf`` runs the non-private dynamics.
    delta : float, default=0.0
        Total delta in ``[0, 1)``: 0 for Laplace noise, > 0 for Gaussian noise.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read, charged ``(epsilon, delta)`` at the end of ``fit``; None: the default.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise (experiments only: a seeded release is not secure). None: diffprivlib's secure generator.

    Attributes
    ----------
    predictors_ : list of LinearCSCHypothesis or RegressionCSCHypothesis
        The Learner's plays ``h_1, ..., h_T`` (post-processing of releases).
    weights_ : numpy.ndarray
        Uniform weights of the mixture.
    classes_ : numpy.ndarray
        ``[0, 1]``.
    errors_, fairness_violations_ : list of float
        Per round, the released error of the average classifier and weighted disparity of the Auditor's subgroup
        (AIF360's ``errors`` and ``fairness_violations``), clipped to ``[0, 1]`` and ``[0, 1/4]`` (post-processing).
    constant_choice_ : ConstantChoice
        The final private choice against the constants 0 and 1 (``predict_proba`` returns the winner for every row).
    history_ : list of dict
        Per round, each release with its sensitivity and noise scale (``learner_*``, ``auditor_*``, ``violation_*``,
        ``error_*``), ``learner_coef``, ``group_coef``, ``dual_mass``, ``direction``, ``fairness_violation``, ``error``.
    gram_releases_ : dict
        The one-time releases ``learner_gram`` and ``auditor_gram``, their ``*_sensitivity`` and ``*_noise_scale``.
    n_releases_ : int
        ``K = 2 + 4 (max_iters - 1)``, the number of releases sharing the budget.
    per_release_spend_ : PrivacySpend
        ``(epsilon_0, delta_0)`` (and ``rho_0`` under zCDP) of every release.
    composition_ : str
        The rule used: 'basic', 'advanced', 'zcdp', or 'none' (``epsilon = inf``).
    composed_spend_ : PrivacySpend
        The composition theorem's total for the ``K`` releases; at most ``(0.9 epsilon, delta)``.
    privacy_spent_ : PrivacySpend
        What was charged: the declared ``(epsilon, delta)``.
    feature_norm_bound_, sensitive_norm_bound_ : float
        The bounds used (in the mechanism's norm); ``inf`` when none applies.
    n_features_in_, feature_names_in_ : int, numpy.ndarray
        Number of columns of ``X``; their names when ``X`` is a DataFrame.
    sensitive_values_ : list
        Per column of ``sensitive_features``: the values it was encoded with, or None (numeric).
    n_iter_ : int
        Rounds played (fewer than ``max_iters - 1`` only after early termination).

    Privacy
    -------
    - **Neighbouring relation**: substitution of one record ``(x_i, a_i, y_i)``; ``n`` is public.
    - **Released statistics**: ``K = 2 + 4 (max_iters - 1)`` unnormalised sums: once the Gram matrices of both
      regressions; per round the Learner's ``b_t``, the Auditor's ``S_t``, the violation ``U_t`` and the error
      ``E_t``. Plays, subgroups, stopping and the mixture are post-processing.
    - **Mechanism**: Laplace (``delta == 0``) or Gaussian (``delta > 0``), an equal share of ``(0.9 epsilon,
      delta)`` per release under basic, advanced or zCDP composition; charged for all rounds even after an early
      stop. The final choice against the constants: the exponential mechanism with ``0.1 epsilon``.
    - **Sensitivity**: ``2 R^2`` per Gram matrix, ``R (2 + 3 Lambda_t)`` for ``b_t``, ``3 R`` for ``S_t``, 3 for
      ``U_t``, 1 for ``E_t`` (``R`` the public row-norm bound with the intercept, ``Lambda_t`` the dual mass).
    - **Public inputs**: ``n``, the numbers of columns, the norm bounds, ``sensitive_values`` and the parameters,
      checked with the budget before any data; later errors are domain errors without counts.

    Derivations: docs/privacy_analysis/gerryfair.md.

    Notes
    -----
    With ``cost_update='aif360'`` at ``epsilon = inf`` the dynamics are AIF360's round for round; a finite
    ``epsilon`` plays the Lagrangian, whose limit is ``cost_update='lagrangian'`` at ``epsilon = inf``.

    References
    ----------
    Cummings, Gupta, Kimpara & Morgenstern (2019), "On the Compatibility of Privacy and Fairness", FairUMAP.
    Kearns, Neel, Roth & Wu (2018), "Preventing Fairness Gerrymandering", ICML.

    Examples
    --------
    As AIF360's ``GerryFairClassifier``, with the privacy parameters and public norm bounds added:

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.reductions import DPGerryFairClassifier
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, (5000, 2)).astype(float)             # two binary protected attributes
    >>> x = rng.uniform(0, 1, (5000, 2))
    >>> y = (rng.random(5000) < 1 / (1 + np.exp(-10 * (x[:, 0] - 0.5) - a[:, 0]))).astype(float)
    >>> X = np.column_stack([a, x])                                  # the Learner sees the attributes too
    >>> model = DPGerryFairClassifier(max_iters=3, fairness_def="FP", feature_norm_bound=2.0, sensitive_norm_bound=1.5,
    ...                               epsilon=1.0, accountant=BudgetAccountant(), random_state=0)
    >>> model = model.fit(X, y, sensitive_features=a)
    >>> model.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> pred = np.asarray(model.predict(X))
    >>> pred.shape, bool(((pred > 0.5) == y).mean() > 0.6)            # accuracy, about 0.67
    ((5000,), True)
    """

    def __init__(self, C: float = 10, printflag: bool = False, heatmapflag: bool = False, heatmap_iter: int = 10,
                 heatmap_path: str | os.PathLike = ".", max_iters: int = 10, gamma: float = 0.01,
                 fairness_def: str = "FP", predictor: Any = None, *, early_termination: bool = True,
                 feature_norm_bound: float | None = None, sensitive_norm_bound: float | None = None,
                 composition: str = "auto", sensitive_values: Sequence[Any] | dict[Any, Any] | None = None,
                 cost_update: str = "lagrangian", epsilon: float = 1.0, delta: float = 0.0,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.C = C
        self.printflag = printflag
        self.heatmapflag = heatmapflag
        self.heatmap_iter = heatmap_iter
        self.heatmap_path = heatmap_path
        self.max_iters = max_iters
        self.gamma = gamma
        self.fairness_def = fairness_def
        self.predictor = predictor
        self.early_termination = early_termination
        self.feature_norm_bound = feature_norm_bound
        self.sensitive_norm_bound = sensitive_norm_bound
        self.composition = composition
        self.sensitive_values = sensitive_values
        self.cost_update = cost_update
        self.epsilon = epsilon
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------ parameters
    #: Every public parameter's own check, in this order, before the budget check (the rules that relate several
    #: of them are ``_check_params_together``).
    _public_parameter_checks = {
        "printflag": check_bool, "heatmapflag": check_bool, "heatmap_iter": check_positive_int,
        "heatmap_path": _check_path, "early_termination": check_bool, "random_state": check_seed,
        "C": _NON_NEGATIVE, "gamma": _NON_NEGATIVE, "max_iters": _check_max_iters,
        "fairness_def": functools.partial(check_choice, options=("FP", "FN")),
        "composition": functools.partial(check_choice, options=("auto", "basic", "advanced", "zcdp")),
        "cost_update": functools.partial(check_choice, options=_COST_UPDATES),
        "feature_norm_bound": _POSITIVE_OR_NONE, "sensitive_norm_bound": _POSITIVE_OR_NONE,
        "sensitive_values": _check_sensitive_values, "epsilon": check_epsilon, "delta": check_delta,
    }

    def _check_params_together(self, checked):
        """The rules that relate several parameters (the predictor, ``heatmapflag`` and ``cost_update`` against
        ``epsilon``; the composition against ``delta``); returns the public quantities ``fit`` needs.
        """
        epsilon, delta = checked["epsilon"], checked["delta"]
        linear, fit_intercept, ridge_alpha = self._check_predictor(epsilon)
        if self.heatmapflag and not math.isinf(epsilon):
            raise ValueError("heatmapflag=True needs epsilon=numpy.inf: AIF360's heatmap plots the raw training data, "
                             "which is not differentially private.")
        self._check_cost_update(epsilon)
        rounds = int(self.max_iters) - 1
        n_releases = _ONE_TIME_RELEASES + _RELEASES_PER_ROUND * rounds
        # The final choice against the constants is pure DP: it takes SELECTION_SHARE of epsilon and no delta.
        eps_fit, eps_choice = selection_split(epsilon)
        eps0, delta0, rule = per_release_budget(eps_fit, delta, n_releases, self.composition)
        return {"linear": linear, "fit_intercept": fit_intercept, "ridge_alpha": ridge_alpha, "epsilon": epsilon,
                "delta": delta, "rounds": rounds, "n_releases": n_releases, "eps0": eps0, "delta0": delta0,
                "rule": rule, "spend": PrivacySpend(epsilon, delta), "eps_fit": eps_fit, "eps_choice": eps_choice}

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """The row-norm bound ``X`` publishes (``X.attrs``: public metadata, a malformed value refused here, before
        ``X`` is converted) joins the resolved inputs as ``"published"``.
        """
        return {**resolved, "published": published_row_norm_bound(X, 1 if resolved["delta"] == 0 else 2)}

    def _planned_spend(self, resolved):
        """The fit's whole spend: the declared ``(epsilon, delta)``, charged once whatever the rounds played."""
        return resolved["spend"]

    def _check_predictor(self, epsilon):
        """``(linear, fit_intercept, ridge_alpha)``: the closed-form linear oracle, or (``epsilon = inf`` only) a
        generic scikit-learn regressor.
        """
        predictor = LinearRegression() if self.predictor is None else self.predictor
        if isinstance(predictor, (LinearRegression, Ridge)):
            alpha = float(predictor.alpha) if isinstance(predictor, Ridge) else 0.0
            if not (math.isfinite(alpha) and alpha >= 0):
                raise ValueError(f"predictor: Ridge alpha must be a finite number >= 0, got {predictor.alpha!r}.")
            return True, bool(predictor.fit_intercept), alpha
        if not math.isinf(epsilon):
            raise ValueError(
                f"predictor={type(predictor).__name__} has no differentially private best response: with a finite "
                "epsilon the predictor must be a scikit-learn LinearRegression or Ridge (only linear least squares "
                "can be computed from the released sufficient statistics). Other regressors run only with "
                "epsilon=numpy.inf (non-private).")
        if not (hasattr(predictor, "fit") and hasattr(predictor, "predict")) or is_classifier(predictor):
            raise ValueError("predictor must be a scikit-learn regressor (with fit and predict; the Learner's oracle "
                             f"regresses real-valued costs), got {type(predictor).__name__}.")
        return False, False, 0.0

    def _check_cost_update(self, epsilon):
        """``cost_update='aif360'`` only with ``epsilon = inf`` (a ``ValueError`` naming it otherwise)."""
        if self.cost_update == "aif360" and not math.isinf(epsilon):
            raise ValueError("cost_update='aif360' needs epsilon=numpy.inf: AIF360's update gives every audited row "
                             "the subgroup cost of the first audited row, a value of one record that no private "
                             "release can carry; use cost_update='lagrangian' (each row its own cost).")

    # ------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike) -> DPGerryFairClassifier:
        """Run the private fair learning dynamics and store the Learner's plays.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric features (the Learner's inputs; AIF360 includes the protected attributes in them).
        y : array-like of shape (n_samples,)
            Binary labels in {0, 1}.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, k)
            Protected attributes; the Auditor's subgroups are halfspaces over them. Numeric columns are used as
            they are; categorical ones (strings or other hashable values) are encoded with the public
            ``sensitive_values``.

        Returns
        -------
        self
        """
        public = self.check_public_inputs(X, y, sensitive_features=sensitive_features)   # 1-2. public, budget
        epsilon, delta, rule = public["epsilon"], public["delta"], public["rule"]
        data = self._read_data(X, y, sensitive_features, public)                          # 3. read, clip
        release = _Releaser(public["eps0"], public["delta0"], data["norm_ord"], random_state=self.random_state,
                            rho0=per_release_rho(public["eps_fit"], delta, public["n_releases"])
                            if rule == "zcdp" else None)
        grams = self._release_grams(release, data, public)                               # 4. releases
        play = self._play_rounds(release, data, grams, public["rounds"])

        # Record unit: y is private, so the mixture's training error is too (exponential mechanism, same stream).
        choice = no_choice() if math.isinf(epsilon) else choose_against_constants(
            play["average"], data["y"], epsilon=public["eps_choice"], random_state=release.rng)
        self._set_fitted(X, public, data, grams, play, choice)                           # 5. post-processing
        self.privacy_spent_ = charge(self.accountant, public["spend"])    # before the warning (it may be an error)
        linear, fit_intercept, feature_bound = public["linear"], public["fit_intercept"], data["feature_bound"]
        if linear and fit_intercept and not math.isinf(epsilon):
            self._warn_if_worse_than_constant(play["history"], data["n"], release.delta0)
        warn_if_constant_chosen(type(self).__name__, choice, "More data, a larger epsilon or fewer rounds")
        if linear and not math.isinf(epsilon):
            _oracles._warn_if_constant_output(type(self).__name__, play["predictors"], choice,
                                              feature_bound=feature_bound, norm_ord=data["norm_ord"],
                                              fit_intercept=fit_intercept)
        return self

    def _read_data(self, X, y, sensitive_features, public):
        """Step 3: read the data (domain checks only), clip the rows to the public norm bounds and build the two
        oracles' design matrices; a dict of them, the bounds and radii, and the audited rows.
        """
        epsilon, linear, fit_intercept = public["epsilon"], public["linear"], public["fit_intercept"]
        norm_ord = 1 if public["delta"] == 0 else 2
        X, _ = check_X(X, "X")
        y = _check_labels(y, X.shape[0])
        A, sensitive_values, sensitive_names = _encode_sensitive(
            sensitive_features, X.shape[0], self.sensitive_values, private=not math.isinf(epsilon),
            estimator_name=type(self).__name__)
        feature_bound = _fit_bound(public["published"] if self.feature_norm_bound is None
                                   else self.feature_norm_bound, self.feature_norm_bound, X.shape[1], norm_ord, epsilon)
        # An encoded categorical column has norm <= 1, as a numeric column in [-1, 1]: the default bound counts the
        # columns of ``sensitive_features`` as given.
        sensitive_bound = _fit_bound(self.sensitive_norm_bound, self.sensitive_norm_bound, len(sensitive_values),
                                     norm_ord, epsilon)
        A = clip_rows(A, sensitive_bound, norm_ord)
        if linear:
            X = clip_rows(X, feature_bound, norm_ord)
            X_design = _with_intercept(X) if fit_intercept else X
        else:                       # epsilon = inf, a generic regressor: the features as given (AIF360)
            feature_bound = math.inf
            X_design = X
        if self.heatmapflag and A.shape[1] < 2:
            raise ValueError("heatmapflag=True needs at least two protected attributes (AIF360's heatmap plots the "
                             "first two).")
        return {"linear": linear, "fit_intercept": fit_intercept, "X": X, "y": y, "A": A, "X_design": X_design,
                "A_design": _with_intercept(A), "n": X.shape[0],
                "audited": (y == 0) if self.fairness_def == "FP" else (y == 1), "norm_ord": norm_ord,
                "sensitive_values": sensitive_values, "sensitive_names": sensitive_names,
                "feature_bound": feature_bound, "sensitive_bound": sensitive_bound,
                "x_radius": _radius(feature_bound, norm_ord, fit_intercept),
                "a_radius": _radius(sensitive_bound, norm_ord, True)}

    def _release_grams(self, release, data, public):
        """The one-time releases: the two oracles' Gram matrices (Privacy, items 1-2), and their solvers."""
        learner_gram, learner_gram_info, learner_inverse = _oracles._release_learner_gram(
            release, data["X_design"], data["x_radius"], linear=public["linear"],
            fit_intercept=public["fit_intercept"], ridge_alpha=public["ridge_alpha"])
        auditor_gram, auditor_gram_info = self._release_gram(release, data["A_design"][data["audited"]],
                                                             data["a_radius"])
        auditor_inverse = _SolvedGram(auditor_gram, auditor_gram_info["noise_std"], 0.0, True)
        return {"learner_gram": learner_gram, "learner_gram_info": learner_gram_info,
                "learner_inverse": learner_inverse, "auditor_gram": auditor_gram,
                "auditor_gram_info": auditor_gram_info, "auditor_inverse": auditor_inverse}

    def _learner_play(self, release, data, grams, groups, t):
        """The Learner's best response to the perturbed cumulative costs (follow the perturbed leader):
        ``(hypothesis, released statistic, its information)``.
        """
        if data["linear"]:
            b_noisy, b_info = self._release_learner_statistic(release, data["X_design"], data["y"], data["audited"],
                                                              groups, t, data["x_radius"])
            hypothesis = self._solve_learner(grams["learner_inverse"], b_noisy, data["fit_intercept"],
                                             data["feature_bound"], data["norm_ord"])
            return hypothesis, b_noisy, b_info
        d, dual_mass = self._learner_costs(data["y"], data["audited"], groups, t)
        b_info = {"dual_mass": dual_mass, "sensitivity": None, "noise_scale": 0.0}
        return RegressionCSCHypothesis.best_response(self.predictor, data["X"], d / data["n"], self.fairness_def), \
            None, b_info

    def _play_rounds(self, release, data, grams, rounds):
        """The game's rounds: the Learner's and the Auditor's plays, each from released statistics only."""
        X, y, A, X_design, n, audited = (data[key] for key in ("X", "y", "A", "X_design", "n", "audited"))
        A_audited = data["A_design"][audited]
        predictors, history, errors, violations = [], [], [], []
        groups = _AuditorPlays(int(audited.sum()), first_row=self.cost_update == "aif360")     # never released
        average = np.zeros(n)       # p_i, the Learner's average play on the training rows; never released
        heat_range = (None, None)
        for t in progress_rounds(1, rounds + 1, desc=type(self).__name__):
            hypothesis, b_noisy, b_info = self._learner_play(release, data, grams, groups, t)
            predictors.append(hypothesis)
            played = hypothesis.predict_design(X_design)
            average += (played - average) / t

            # Auditor: best response to the Learner's average play, from released statistics only.
            q = average[audited] if self.fairness_def == "FP" else 1.0 - average[audited]
            s_noisy, s_info = self._release_auditor_statistic(release, A_audited, q, data["a_radius"])
            theta = self._solve_auditor(grams["auditor_inverse"], s_noisy)
            members = (A_audited @ theta < 0).astype(float)
            u_value, u_info = self._release_violation(release, members, q)
            e_value, e_info = self._release_error(release, average, y)
            violation = abs(u_value) / n
            sigma = self._auditor_direction(u_value, violation)
            groups.add(members, sigma)
            errors.append(e_value / n)
            violations.append(violation)
            history.append({
                "round": t, "dual_mass": b_info["dual_mass"],
                "learner_statistic": b_noisy, "learner_sensitivity": b_info["sensitivity"],
                "learner_noise_scale": b_info["noise_scale"], "learner_coef": getattr(hypothesis, "coef", None),
                "auditor_statistic": s_noisy, "auditor_sensitivity": s_info["sensitivity"],
                "auditor_noise_scale": s_info["noise_scale"], "group_coef": theta,
                "violation_statistic": u_value, "violation_sensitivity": u_info["sensitivity"],
                "violation_noise_scale": u_info["noise_scale"], "fairness_violation": violation, "direction": sigma,
                "error_statistic": e_value, "error_sensitivity": e_info["sensitivity"],
                "error_noise_scale": e_info["noise_scale"], "error": e_value / n,
            })
            if self.printflag:
                print(f"iteration: {t}, error: {errors[-1]}, fairness violation: {violation}")
            if self.heatmapflag and t % int(self.heatmap_iter) == 0:        # epsilon = inf only (_check_params_together)
                heat_range = _oracles._save_heatmap(X, A[:, :2], data["sensitive_names"][:2], y, played,
                                                    f"{self.heatmap_path}/heatmap_iteration_{t}", heat_range, t == 1)
            if self.early_termination and _aif360_stops(
                    errors, violations, self.gamma,
                    _oracles._stop_tolerance(e_info["noise_scale"], release.delta0 == 0, n),
                    _oracles._stop_tolerance(u_info["noise_scale"], release.delta0 == 0, n)):
                break
        return {"predictors": predictors, "history": history, "errors": errors, "violations": violations,
                "average": average}

    def _set_fitted(self, fit_X, public, data, grams, play, choice):
        """The fitted attributes: post-processing of the releases and public values only."""
        eps0, delta0, rule, n_releases = public["eps0"], public["delta0"], public["rule"], public["n_releases"]
        eps_fit, delta = public["eps_fit"], public["delta"]
        predictors = play["predictors"]
        self.predictors_ = predictors
        self.weights_ = np.full(len(predictors), 1.0 / len(predictors))
        self.classes_ = np.array([0, 1])
        self.constant_choice_ = choice
        self.errors_, self.fairness_violations_ = _oracles._feasible_reports(play["errors"], play["violations"])
        self.history_ = play["history"]
        learner_gram_info, auditor_gram_info = grams["learner_gram_info"], grams["auditor_gram_info"]
        self.gram_releases_ = {
            "learner_gram": grams["learner_gram"], "learner_gram_sensitivity": learner_gram_info["sensitivity"],
            "learner_gram_noise_scale": learner_gram_info["noise_scale"],
            "auditor_gram": grams["auditor_gram"], "auditor_gram_sensitivity": auditor_gram_info["sensitivity"],
            "auditor_gram_noise_scale": auditor_gram_info["noise_scale"],
        }
        self.n_iter_ = len(predictors)
        self.n_releases_ = n_releases
        self.per_release_spend_ = PrivacySpend(eps0, delta0, rho=per_release_rho(eps_fit, delta, n_releases)
                                               if rule == "zcdp" else None)
        self.composition_ = rule
        self.composed_spend_ = composed_spend(eps0, delta0, n_releases, rule, delta, eps_fit)
        self.feature_norm_bound_ = data["feature_bound"]
        self.sensitive_norm_bound_ = data["sensitive_bound"]
        set_fit_features(self, fit_X)
        self.sensitive_values_ = data["sensitive_values"]

    def _auditor_direction(self, u_value, violation):
        """``sigma_t``: 0 below ``gamma``; else the sign of the violated constraint, ``-sign(U_t)`` (the subgroup's
        rate is below the base rate when ``U_t < 0``), or with ``cost_update='aif360'`` AIF360's +1 for the subgroup
        ``1[a~ . theta_t < 0]`` (AIF360 keeps it or its complement with -1, the same update).
        """
        if violation < self.gamma:
            return 0.0
        return 1.0 if self.cost_update == "aif360" else -float(np.sign(u_value))

    def _warn_if_worse_than_constant(self, history, n, delta0):
        """Warn when the released error of the mixture is not below the best constant classifier's.

        Both sides are post-processing of releases (y is private under this relation): the last released error
        ``E~_T / n`` of the average classifier, and the positive rate from round 1's Learner statistic, whose
        intercept coordinate is ``sum_i (1 - 2 y_i) = n - 2 n_+`` plus noise (no Auditor play yet, so no dual
        costs), hence ``p~ = (n - b~_1[-1]) / (2 n)``. Warns when ``E~_T / n >= min(p~, 1 - p~)``; ``sd``, the
        standard deviation of the difference, is quoted in the message.
        """
        first, last = history[0], history[-1]
        positive_rate = float(np.clip((n - first["learner_statistic"][-1]) / (2.0 * n), 0.0, 1.0))
        noise = math.hypot(noise_sd(first["learner_noise_scale"], delta0) / (2.0 * n),
                           noise_sd(last["error_noise_scale"], delta0) / n)
        warn_if_worse_than_constant(type(self).__name__, last["error"], positive_rate, noise,
                                    "more data, a larger epsilon or fewer rounds (max_iters: fewer releases share "
                                    "the budget)")

    # ------------------------------------------------------------------ releases (the only data access)
    # Privacy items 1, 2, 4, 5 and 6 (docs/privacy_analysis/gerryfair.md): the statistics of the Gram matrices, the
    # Auditor and the error, computed in _gerryfair_oracles; the Learner's (item 3) reads the parameters below.
    _release_gram = staticmethod(_oracles._release_gram)
    _release_auditor_statistic = staticmethod(_oracles._release_auditor_statistic)
    _release_violation = staticmethod(_oracles._release_violation)
    _release_error = staticmethod(_oracles._release_error)

    def _release_learner_statistic(self, release, X_design, y, audited, groups, t, radius):
        """Privacy item 3: ``b_t = sum_i x~_i d_i``, ``n`` times AIF360's ``X~^T (c^1 - c^0)`` in round ``t``.

        ``d_i = 1 - 2 y_i`` (the error costs) plus, on audited rows, ``s kappa_i`` with ``kappa_i`` the average over
        the ``t - 1`` earlier Auditor plays of ``C sigma_s (w_s - g_s(a_i))`` (AIF360's ``update_costs``, with each
        row's own membership; ``s = +1`` for FP, ``-1`` for FN). ``groups`` holds the plays ``(g_s on the audited
        rows, sigma_s)`` as running sums (:class:`_AuditorPlays`). Sensitivity ``radius (2 + 3 Lambda_t)``,
        ``Lambda_t = (C / (t-1)) sum_s |sigma_s|``.
        """
        d, dual_mass = self._learner_costs(y, audited, groups, t)
        sensitivity = radius * (2.0 + 3.0 * dual_mass)
        noisy, info = release(X_design.T @ d, l1=sensitivity, l2=sensitivity)
        info["dual_mass"] = dual_mass
        return noisy, info

    def _learner_costs(self, y, audited, groups, t):
        """``(d, Lambda_t)``: ``d_i = n (c^1_i - c^0_i)``, AIF360's costs in round ``t`` (analysis page, item 3)."""
        C = float(self.C)
        dual_mass = C / (t - 1) * groups.mass if t > 1 else 0.0
        d = 1.0 - 2.0 * y
        if groups.count and audited.any():
            d[audited] += (1.0 if self.fairness_def == "FP" else -1.0) * C / (t - 1) * groups.kappa
        return d, dual_mass

    # ------------------------------------------------------------------ solves (released statistics only)
    _solve_learner = staticmethod(_oracles._solve_learner)
    _solve_auditor = staticmethod(_oracles._solve_auditor)

    # ------------------------------------------------------------------ predict
    def _decision_matrix(self, X):
        check_is_fitted(self, "predictors_")
        check_predict_features(self, X)             # scikit-learn's checks: the same columns, in the same order
        X, _ = check_X(X, "X")
        return np.column_stack([h.predict(X) for h in self.predictors_])

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[P(y=0), P(y=1)]`` under the randomized classifier (the average of the Learner's plays)."""
        positive = self._decision_matrix(X) @ self.weights_
        if self.constant_choice_.is_constant:
            positive = np.full(positive.shape, self.constant_choice_.constant)
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X: ArrayLike, *, random_state: int | np.random.RandomState | None = None) -> np.ndarray:
        """0/1 predictions of the randomized classifier: ``h_t`` with ``t`` uniform, i.e. Bernoulli(proba).

        ``random_state`` seeds these draws (not a privacy mechanism); sensitive features are not needed.
        """
        positive = self.predict_proba(X)[:, 1]
        # None: a generator seeded from OS entropy, never numpy's global one (which any caller may have seeded).
        draws = check_random_state(random_state).random_sample(positive.size)
        return (draws < positive).astype(int)


def private_fn_fp_audit(A, y, labels, fairness_def, *, epsilon, delta, sensitive_norm_bound=None,
                        random_state=None):
    """The Auditor's search, once, on a fixed classifier's 0/1 (or soft) predictions: ``|U~| / n``.

    Used by the AIF360 face's ``pareto`` to audit the fitted model for the other fairness notion. With a finite
    ``epsilon`` this is a DP release of its own, charged by the caller: the releases 2, 4 and 5 of
    docs/privacy_analysis/gerryfair.md (the Gram matrix of the audited rows, ``S`` and ``U``, with ``q_i`` a function
    of the record's own features through the public classifier), each with ``(epsilon / 3, delta / 3)`` (basic
    composition). ``epsilon = inf``: the exact (non-private) audit. ``A`` is numeric (already encoded).
    """
    epsilon, delta = validate_epsilon_delta(epsilon, delta)
    norm_ord = 1 if delta == 0 else 2
    eps0, delta0, _ = per_release_budget(epsilon, delta, 3, "basic")
    A = np.asarray(A, dtype=float)
    bound = _default_bound(sensitive_norm_bound, A.shape[1], norm_ord)
    A_design = _with_intercept(clip_rows(A, bound, norm_ord))
    radius = _radius(bound, norm_ord, True)
    labels = np.clip(np.asarray(labels, dtype=float).ravel(), 0.0, 1.0)
    audited = (y == 0) if fairness_def == "FP" else (y == 1)
    q = labels[audited] if fairness_def == "FP" else 1.0 - labels[audited]
    release = _Releaser(eps0, delta0, norm_ord, random_state=random_state)
    gram, gram_info = DPGerryFairClassifier._release_gram(release, A_design[audited], radius)
    inverse = _SolvedGram(gram, gram_info["noise_std"], 0.0, True)
    s_noisy, _ = DPGerryFairClassifier._release_auditor_statistic(release, A_design[audited], q, radius)
    members = (A_design[audited] @ inverse.solve(s_noisy) < 0).astype(float)
    u_value, _ = DPGerryFairClassifier._release_violation(release, members, q)
    return abs(u_value) / y.size
