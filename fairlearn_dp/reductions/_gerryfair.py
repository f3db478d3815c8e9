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

import math
import numbers
import os
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.utils.validation import check_is_fitted

from ..privacy import (
    PrivacySpend,
    PrivacyWarning,
    VectorReleaser,
    charge,
    check_spend,
    composed_spend,
    noise_sd,
    per_release_budget,
    per_release_rho,
    validate_epsilon_delta,
)
from ..utils._progress import progress_rounds
from ..utils._random import check_random_state
from ..utils._row_bounds import published_row_norm_bound
from ..utils._validation import (
    SharedAccountantCloneMixin,
    atomic_fit,
    call_withheld,
    check_bool,
    check_positive_int,
    check_seed,
    clip_rows,
    encode_groups,
    resolve_groups,
    validate_params,
    warn_if_worse_than_constant,
)

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


def _check_path(value, name):
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (a string or os.PathLike), got {type(value).__name__}.")
    return value


# Public parameters with a generic check (checked in every mode, with the others, before the budget check).
_PARAMETER_CHECKS = {"printflag": check_bool, "heatmapflag": check_bool, "heatmap_iter": check_positive_int,
                     "heatmap_path": _check_path, "early_termination": check_bool, "random_state": check_seed}


class DPGerryFairClassifier(SharedAccountantCloneMixin, ClassifierMixin, BaseEstimator):
    r"""Differentially private rich-subgroup fair classifier: private Fair No-Regret dynamics (Private-FairNR).

    A private version of Kearns et al.'s fair learning game, as AIF360's ``GerryFairClassifier`` plays it, following
    the construction of Cummings et al. (2019), Section 5: both players' best responses are computed from
    differentially private statistics, the Learner's with fresh noise in every round (follow the perturbed
    leader), and the privacy of the whole run follows from composition over the rounds and post-processing.

    In round ``t`` the Learner solves the cost-sensitive classification (CSC) problem whose costs are the
    classification costs plus the average of the Auditor's Lagrange multipliers so far, with AIF360's oracle: two
    least-squares regressions of the costs of labelling 1 and 0 on the features, ``h_t(x) = 1[x~ . beta_t < 0]``
    with ``beta_t = G_X^{-1} X~^T (c^1 - c^0)`` (``x~`` is ``x`` with an intercept column). The regression
    depends on the data only through the Gram matrix ``G_X = X~^T X~`` and the vector ``b_t = X~^T (c^1 - c^0)``,
    which are released with noise. The Auditor takes the Learner's average play ``p_i = (1/t) sum_s h_s(x_i)``,
    restricted to the audited rows (``y = 0`` for ``fairness_def='FP'``; ``y = 1`` with ``q_i = 1 - p_i`` for
    'FN') and regresses ``q_i - m`` (``m`` the base rate) on the protected attributes: the subgroup is ``g_t(a) =
    1[a~ . theta_t < 0]``, ``theta_t = G_A^{-1} S_t``, which again needs only a Gram matrix ``G_A`` and ``S_t =
    sum_audited a~_i (q_i - m)``. Its weighted disparity ``|U_t| / n`` with ``U_t = sum_audited g_t(a_i) (q_i -
    m)`` is Kearns et al.'s ``alpha_FP(g) * |FP(h) - FP(h, g)|``; when it is at least ``gamma`` the Auditor puts
    the whole dual mass ``C`` on that subgroup's violated constraint, which adds ``(C/n) sigma_t (w_t -
    g_t(a_i))`` to the cost of a false positive (negative) of every audited row (``w_t`` the subgroup's share of
    the audited rows, ``sigma_t = -sign(U_t)``). The output is the uniform mixture of ``h_1, ..., h_T``.

    Parameters
    ----------
    C : float, default=10
        Bound on the L1 norm of the dual variables (the Auditor's multiplier), as in AIF360.
    printflag : bool, default=False
        Print the released error and fairness violation of every round.
    heatmapflag : bool, default=False
        As AIF360: save a heatmap (AIF360's ``heat_map`` over the first two protected attributes, on the latest
        play's predictions) every ``heatmap_iter`` rounds. Only with ``epsilon = inf``: the heatmap plots the raw
        training data, which is not differentially private, so ``True`` with a finite ``epsilon`` raises
        ``ValueError`` (before any data are read).
    heatmap_iter : int, default=10
        Rounds between two heatmaps (``heatmapflag=True`` only).
    heatmap_path : str, default='.'
        Folder of the heatmaps (``heatmap_iteration_<t>.png``), as AIF360.
    max_iters : int, default=10
        Time horizon of the dynamics; as in AIF360, ``max_iters - 1`` rounds are played (``2 <= max_iters <=
        MAX_ITERS``, 2,000: a round costs ``O(n d)``; measured on a 2-core machine under load, 1,013 rows and 100
        features, max_iters=2,000 fits in about 2 s). A bar on standard error shows the progress of a fit that
        runs longer than 2 s (when it is a terminal).
    gamma : float, default=0.01
        Fairness approximation parameter: the Auditor penalises a subgroup only when its released weighted
        disparity is at least ``gamma``.
    fairness_def : {'FP', 'FN'}, default='FP'
        Rich-subgroup false-positive or false-negative rate fairness.
    predictor : scikit-learn regressor, default=None
        The Learner's regression oracle; None means ``LinearRegression()``. With a finite ``epsilon`` it must be a
        ``LinearRegression`` or a ``Ridge``: only linear least squares can be computed from the released
        sufficient statistics (there is no differentially private best response for other regressors here, and
        any other predictor raises a ``ValueError`` naming ``predictor`` before any data are read); its
        ``fit_intercept`` (and ``alpha`` for ``Ridge``, which does not penalise the intercept) are used and the
        object itself is never fitted. With ``epsilon = inf`` (non-private) any scikit-learn regressor works, as in
        AIF360 (e.g. ``LinearSVR``, ``DecisionTreeRegressor``, ``KernelRidge``): for the linear two the
        closed-form path above is used; any other is cloned and fitted each round on AIF360's costs of labelling
        0 and 1 (:class:`RegressionCSCHypothesis`), on the features as given (no norm clipping: the norm bound only
        calibrates noise).
    early_termination : bool, default=True
        AIF360's rule, on the released values: after at least 5 rounds, stop when the last released violation is
        below ``gamma`` and the last two released errors or violations are equal. With finite ``epsilon`` the
        released values are continuous, so the rule practically never fires; the budget is charged for all
        ``max_iters - 1`` rounds in any case.
    feature_norm_bound : float or None, default=None
        Public bound on the norm of each row of ``X``: the L1 norm when ``delta == 0`` (Laplace), the L2 norm when
        ``delta > 0`` (Gaussian). None: the bound published with ``X``, a DataFrame's ``X.attrs["row_norm_bound_l1"]``
        (L1) or ``X.attrs["row_norm_bound"]`` (L2), as the :mod:`fairlearn_dp.datasets` loaders set them (e.g. 11
        and ``sqrt(11)`` for ``adult_features``); else every feature lies in ``[-1, 1]``: ``d`` (L1) or ``sqrt(d)``
        (L2).
        Rows with a larger norm, if any, are scaled onto the ball (here and in ``predict``). No warning is emitted:
        whether some row was scaled depends on the private data. Choose a bound that holds by construction.
        With ``epsilon = inf`` and None, no bound applies (not even a published one): rows are used as given, as
        in AIF360.
    sensitive_norm_bound : float or None, default=None
        The same for the rows of ``sensitive_features`` (``k`` columns: ``k`` or ``sqrt(k)`` when None; no bound
        with ``epsilon = inf`` and None).
    composition : {'auto', 'basic', 'advanced', 'zcdp'}, default='auto'
        How the per-release budgets compose to ``(epsilon, delta)``. With ``delta == 0`` only 'basic' (and 'auto',
        which then means 'basic') is possible. With ``delta > 0``: 'basic' gives each of the ``K`` releases
        ``(epsilon/K, delta/K)``; 'advanced' gives each ``(epsilon_0, delta/(2K))`` with ``epsilon_0`` the largest
        value whose advanced composition with slack ``delta/2`` is at most ``epsilon``; 'zcdp' gives each the zCDP
        budget ``rho/K``, with ``rho`` the largest whose conversion ``rho + 2 sqrt(rho ln(1/delta))`` is at most
        ``epsilon`` (Gaussian noise ``sigma = Delta_2 / sqrt(2 rho/K)``; zCDP composes by addition); 'auto' takes
        whichever of the three gives the smallest Gaussian noise (zCDP for every ``K`` of interest: at ``epsilon =
        1, delta = 1e-5`` and ``K = 38`` its sigma is about a sixth of the advanced-composition one).
    sensitive_values : None, list, list of lists or dict, default=None
        Public list of the values of each categorical (non-numeric, e.g. ``"F"``/``"M"``) column of
        ``sensitive_features``: a list for a single column, a list with one entry per column (a list of values, or
        None for a numeric column), or a dict from column name (or position) to list. A categorical column with
        values ``[v_1, ..., v_m]`` becomes the ``m - 1`` indicators ``1[a = v_j]``, ``j >= 2`` (one indicator
        when ``m == 1``): the Auditor's halfspaces over them with an intercept are all subgroups defined by the
        column's values, and a row's indicators have L1 and L2 norm at most 1, as a numeric column in
        ``[-1, 1]``. A value outside the declared list is a ``ValueError`` (outside the domain). A column with
        declared values is encoded even if numeric; numeric columns without are used as they are. When a
        non-numeric column has no declared list, its sorted values are read from the data and treated as public,
        with a :class:`~fairlearn_dp.privacy.PrivacyWarning` when ``epsilon`` is finite.
    cost_update : {'lagrangian', 'aif360'}, default='lagrangian'
        How the Auditor's subgroups enter the Learner's costs. 'lagrangian': every audited row gets its own
        subgroup cost, as in Kearns et al.'s Lagrangian (the private algorithm). 'aif360' (``epsilon = numpy.inf``
        only; a ``ValueError`` otherwise): AIF360 0.6.1's ``Auditor.update_costs``, which gives every audited row
        the cost of the *first* audited row, so that the dynamics are AIF360's round for round (see Notes). The
        AIF360 face uses 'aif360' at ``epsilon = numpy.inf`` by default.
    epsilon : float, default=1.0
        Total privacy budget (> 0); ``numpy.inf`` runs the non-private dynamics (no noise).
    delta : float, default=0.0
        Total delta in ``[0, 1)``: 0 for pure DP (Laplace noise), > 0 for the analytic Gaussian mechanism.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read and charged ``(epsilon, delta)`` once at the end of ``fit``;
        diffprivlib's default accountant when None.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the privacy noise. None uses diffprivlib's cryptographically secure generator (never numpy's global
        one); a seed makes the run reproducible (experiments only: a seeded release is not secure).

    Attributes
    ----------
    predictors_ : list of LinearCSCHypothesis or RegressionCSCHypothesis
        The Learner's plays ``h_1, ..., h_T`` (public: post-processing of releases); ``RegressionCSCHypothesis``
        for a generic regressor (``epsilon = inf`` only).
    weights_ : numpy.ndarray
        Uniform weights of the mixture.
    classes_ : numpy.ndarray
        ``[0, 1]``.
    errors_ : list of float
        Released training error ``E~_t / n`` of the average classifier, per round (AIF360's ``errors``).
    fairness_violations_ : list of float
        Released weighted disparity ``|U~_t| / n`` of the Auditor's subgroup, per round (AIF360's
        ``fairness_violations``).
    history_ : list of dict
        Per round, everything released and its noise: ``learner_statistic`` (b~_t), ``learner_sensitivity``,
        ``learner_noise_scale``, ``learner_coef`` (beta_t), ``dual_mass`` (Lambda_t, see Privacy),
        ``auditor_statistic`` (S~_t), ``auditor_sensitivity``, ``auditor_noise_scale``, ``group_coef``
        (theta_t), ``violation_statistic`` (U~_t), ``violation_sensitivity``, ``violation_noise_scale``,
        ``fairness_violation``, ``direction`` (sigma_t, 0 when the subgroup is not penalised), ``error_statistic``
        (E~_t), ``error_sensitivity``, ``error_noise_scale``, ``error``. With a generic regressor (``epsilon =
        inf``) the Learner's entries are None (nothing is released).
    gram_releases_ : dict
        The two one-time releases: ``learner_gram``, ``auditor_gram`` (noisy, symmetric) with their
        ``*_sensitivity`` and ``*_noise_scale``.
    n_releases_ : int
        ``K = 2 + 4 (max_iters - 1)``, the number of releases the budget is split over.
    per_release_spend_ : PrivacySpend
        ``(epsilon_0, delta_0)`` of every release.
    composition_ : str
        'basic', 'advanced' or 'none' (``epsilon = inf``).
    composed_spend_ : PrivacySpend
        The composition theorem's total for ``K`` releases of ``per_release_spend_``; at most ``(epsilon,
        delta)``.
    privacy_spent_ : PrivacySpend
        What was charged: the declared ``(epsilon, delta)``.
    feature_norm_bound_, sensitive_norm_bound_ : float
        The bounds used (in the norm of the mechanism); ``inf`` when none applies.
    n_features_in_ : int
    feature_names_in_ : numpy.ndarray
        Column names of ``X`` when it is a DataFrame.
    sensitive_values_ : list
        Per column of ``sensitive_features``: the list of values it was encoded with, or None (numeric column).
    n_iter_ : int
        Rounds played (fewer than ``max_iters - 1`` only after early termination).

    Privacy
    -------
    **Neighbouring relation**: substitution of one record ``(x_i, a_i, y_i)`` (Cummings et al. 2019, Def. 1; the
    sample size ``n`` is public). Write ``R_x`` for ``feature_norm_bound`` and ``Rx~`` for the bound on ``||x~||``
    including the intercept (``1 + R_x`` in L1, ``sqrt(1 + R_x^2)`` in L2, ``R_x`` without intercept); ``Ra~``
    likewise for ``a~ = (1, a)`` (the Auditor's regression always has an intercept).

    **Releases**. ``K = 2 + 4T`` statistics, ``T = max_iters - 1``:

    1. once, ``G_X = sum_i x~_i x~_i^T`` (its upper triangle; the intercept entry ``n`` is then set to the public
       ``n``). Substitution removes one rank-one term and adds another: ``||x~ x~^T||_1 = ||x~||_1^2`` and
       ``||x~ x~^T||_F = ||x~||_2^2``, so the L1 / L2 sensitivity is ``2 Rx~^2``.
    2. once, ``G_A = sum_audited a~_i a~_i^T``: sensitivity ``2 Ra~^2`` in the same way.
    3. each round, the Learner's ``b_t = sum_i x~_i d_i`` with ``d_i = (1 - 2 y_i) + s [i audited] kappa_i``,
       ``s = +1`` (FP) / ``-1`` (FN), ``kappa_i = (C / (t-1)) sum_{s<t} sigma_s (w_s - g_s(a_i))``: this is ``n``
       times ``X~^T (c^1 - c^0)`` for AIF360's costs. The groups ``g_s`` and signs ``sigma_s`` are functions of
       earlier releases, hence fixed; ``w_s`` (the share of the audited rows in ``g_s``) is computed exactly.
       With ``Lambda_t = (C / (t-1)) sum_{s<t} |sigma_s|`` (public), ``|kappa_i| <= Lambda_t`` since ``|w - g|
       <= 1``. Substituting record ``k``: its own term changes by at most ``2 Rx~ (1 + Lambda_t)``; each of the
       ``O`` other audited rows changes through ``w_s`` only, and a mean of values in ``[0, 1]`` over ``O`` or
       ``O + 1`` rows moves by at most ``1 / (O + 1)``, so together they move by at most ``O Rx~ Lambda_t / (O +
       1) < Rx~ Lambda_t``. Sensitivity ``Rx~ (2 + 3 Lambda_t)`` (``2 Rx~`` in round 1).
    4. each round, the Auditor's ``S_t = sum_audited a~_i (q_i - m)``, with ``q_i in [0, 1]`` a function of the
       record's own ``x_i`` and the public ``h_s``, and ``m`` their mean over the audited rows (computed exactly).
       Own term at most ``Ra~`` before and after, the others through ``m`` by at most ``O Ra~ / (O + 1)``:
       sensitivity ``3 Ra~``.
    5. each round, ``U_t = sum_audited g_t(a_i) (q_i - m)`` for the released subgroup ``g_t``: own terms at most
       1 each, the others through ``m`` at most ``O / (O + 1)``: sensitivity 3.
    6. each round, ``E_t = sum_i |p_i - y_i|``, terms in ``[0, 1]``: sensitivity 1.

    No group size enters a sensitivity (nor needs a private estimate): the statistics are unnormalised sums,
    normalised afterwards by the public ``n`` or used only through ratios, and the data-dependent ``w_s`` and ``m``
    are computed inside the statistic that uses them and covered by its sensitivity. Everything else -- ``beta_t``
    (the Learner's best response to the perturbed statistic: follow the perturbed leader with fresh noise),
    ``theta_t`` and ``g_t``, ``sigma_t``, ``Lambda_t``, the early-termination rule and the final mixture -- is a
    function of released values (post-processing).

    **Mechanism and budget**. Every release gets the same ``(epsilon_0, delta_0)``. ``delta == 0``: the Laplace
    mechanism (diffprivlib ``Laplace``, scale ``Delta_1 / epsilon_0`` per coordinate), ``epsilon_0 = epsilon /
    K``, basic composition (Dwork & Roth 2014, Thm. 3.16, which holds for adaptively chosen mechanisms), total
    ``(epsilon, 0)``. ``delta > 0``: the analytic Gaussian mechanism (diffprivlib ``GaussianAnalytic``, Balle &
    Wang 2018) calibrated to the L2 sensitivity with ``(epsilon_0, delta_0)`` from basic composition (``(epsilon /
    K, delta / K)``) or advanced composition (Dwork & Roth 2014, Thm. 3.20: ``K`` mechanisms that are each
    ``(epsilon_0, delta_0)``-DP are ``(sqrt(2 K ln(2/delta)) epsilon_0 + K epsilon_0 (e^epsilon_0 - 1), K delta_0
    + delta/2)``-DP; ``delta_0 = delta / (2K)``), or, with ``composition='zcdp'`` (what 'auto' picks in practice),
    the Gaussian mechanism with ``sigma = Delta_2 / sqrt(2 rho_0)`` (``rho_0``-zCDP, Bun & Steinke 2016, Prop.
    1.6; drawn by diffprivlib's analytic Gaussian set to that sigma), ``rho_0 = rho / K`` and ``rho`` the largest
    zCDP budget that converts to at most ``(epsilon, delta)`` (Prop. 1.3; adaptive composition by addition, Lemma
    2.3), see ``composition``. Both theorems allow each mechanism to be
    chosen from the earlier outputs, as ``Lambda_t`` (hence the noise of ``b_t``) is. The run is charged
    ``(epsilon, delta)`` for all ``T`` rounds even if it stops early (stopping is a function of released values).
    The vectors are released with one mechanism applied coordinate by coordinate, which is the vector Laplace /
    Gaussian mechanism for the vector's L1 / L2 sensitivity.

    **Public inputs and failure paths**: public are ``n``, the numbers of columns of ``X`` and of
    ``sensitive_features``, the norm bounds and every parameter. ``fit`` validates the parameters, checks the
    budget, then reads the data; the errors after that are domain checks (numeric and finite ``X`` and ``y``,
    finite numeric or declared categorical ``sensitive_features`` -- a value outside ``sensitive_values`` is
    outside the domain --, labels in {0, 1}, matching lengths) whose messages carry no counts or values. A
    predictor other than ``LinearRegression``/``Ridge`` and ``heatmapflag=True`` are refused with a finite
    ``epsilon`` among the parameter checks, before the budget and the data. The list of values of a categorical
    column is public: declared in ``sensitive_values``, or read from the data with a ``PrivacyWarning`` (whether
    a column is categorical is its type, part of the public schema). Every
    dataset inside the domain fits: rows beyond a norm bound are scaled onto the ball without a warning (only the
    public bound is known to the caller), and protected attributes that take one value only (no subgroup to
    find) are not an error (the Auditor's released statistics are then noise around zero). A failed fit leaves
    the estimator as it was.

    Notes
    -----
    Choices where Cummings et al. (2019) is a sketch (Section 5 defers Algorithm 3 and FTPL* to the full
    version): the players' oracles are made private by releasing their regression sufficient statistics (noisy
    ``b_t`` is a fresh linear perturbation of the Learner's regression objective in every round, the paper's
    "exponential rather than uniform" noise being the Laplace distribution); the Auditor's subgroup, its weighted
    disparity and the error are released statistics, so that the Auditor is private too (the error only serves
    AIF360's ``errors`` and its early-termination rule); the budget is split equally over the ``K`` releases; the
    sensitivities avoid group sizes altogether instead of estimating them privately (Cummings et al.'s Algorithm 1
    route), by releasing unnormalised sums; the noisy Gram matrices are made positive definite by raising their
    eigenvalues to ``s sqrt(p)``, ``s`` the noise's standard deviation per entry (post-processing; with
    ``epsilon = inf`` a pseudo-inverse gives scikit-learn's least-squares fit). Utility needs ``n`` large against
    ``K`` times the sensitivities over ``epsilon``: scale the features so that ``feature_norm_bound`` is small, and
    keep ``max_iters`` modest.

    AIF360 0.6.1 at ``epsilon = inf``: its ``Auditor.update_costs`` resets its row index inside the loop, so every
    audited row receives the subgroup cost of the *first* audited row. That is the only place where the
    trajectories differ: learner, auditor, the averaging of the plays, intercepts, the stopping rule and the
    reported errors and violations are AIF360's. With ``cost_update='lagrangian'`` (the default) every row receives
    its own cost, as in Kearns et al.'s Lagrangian, and only the first round (before any multiplier) is AIF360's.
    With ``cost_update='aif360'`` every round is AIF360's, up to round-off (measured on AIF360's demo data, 1,000
    Adult rows, 499 rounds: errors and violations within 4e-16, soft predictions within 3e-16). That update cannot
    be private (it reads one record), so a finite epsilon always plays the Lagrangian, whose limit as epsilon grows
    is ``cost_update='lagrangian'`` at ``epsilon = inf``, not AIF360's trajectory. AIF360 computes the subgroup for
    both signs and keeps the larger disparity; the two are complementary halfspaces with the same disparity and
    the same cost update, so one is computed: ``sigma_t`` is the sign of the violated constraint ('lagrangian')
    or AIF360's +1 for the subgroup ``1[a~ . theta_t < 0]`` ('aif360').

    References
    ----------
    Cummings, Gupta, Kimpara & Morgenstern (2019), "On the Compatibility of Privacy and Fairness", FairUMAP.
    Kearns, Neel, Roth & Wu (2018), "Preventing Fairness Gerrymandering", ICML.
    Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy".
    Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy", ICML.
    """

    def __init__(self, C=10, printflag=False, heatmapflag=False, heatmap_iter=10, heatmap_path=".", max_iters=10,
                 gamma=0.01, fairness_def="FP", predictor=None, *, early_termination=True, feature_norm_bound=None,
                 sensitive_norm_bound=None, composition="auto", sensitive_values=None, cost_update="lagrangian",
                 epsilon=1.0, delta=0.0, accountant=None, random_state=None):
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
    def _check_params(self):
        validate_params(self, _PARAMETER_CHECKS)
        if not (_is_real(self.C) and math.isfinite(self.C) and self.C >= 0):
            raise ValueError(f"C must be a finite number >= 0, got {self.C!r}.")
        if not _is_real(self.gamma) or not (math.isfinite(self.gamma) and self.gamma >= 0):
            raise ValueError(f"gamma must be a finite number >= 0, got {self.gamma!r}.")
        _check_max_iters(self.max_iters)
        if self.fairness_def not in ("FP", "FN"):
            raise ValueError(f"fairness_def must be 'FP' or 'FN', got {self.fairness_def!r}.")
        if self.composition not in ("auto", "basic", "advanced", "zcdp"):
            raise ValueError(f"composition must be 'auto', 'basic', 'advanced' or 'zcdp', got {self.composition!r}.")
        if not (isinstance(self.cost_update, str) and self.cost_update in _COST_UPDATES):
            raise ValueError(f"cost_update must be 'lagrangian' or 'aif360', got {self.cost_update!r}.")
        for name in ("feature_norm_bound", "sensitive_norm_bound"):
            value = getattr(self, name)
            if value is not None and not (_is_real(value) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be None or a finite number > 0, got {value!r}.")
        _check_sensitive_values(self.sensitive_values)

    def _check_predictor(self, epsilon):
        """``(linear, fit_intercept, ridge_alpha)``: the closed-form linear oracle, or (``epsilon = inf`` only) a
        generic scikit-learn regressor."""
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

    def _check_public(self, X=None):
        """Validate the public parameters (and the bound ``X`` publishes in ``X.attrs``, if ``X`` is given), then
        check the budget: the first two steps of ``fit``, before any data.

        The AIF360 face calls it before it reads its dataset. Returns the public quantities ``fit`` needs.
        """
        self._check_params()
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        linear, fit_intercept, ridge_alpha = self._check_predictor(epsilon)
        if self.heatmapflag and not math.isinf(epsilon):
            raise ValueError("heatmapflag=True needs epsilon=numpy.inf: AIF360's heatmap plots the raw training data, "
                             "which is not differentially private.")
        self._check_cost_update(epsilon)
        # X.attrs: public metadata, read (and a malformed value refused) before the budget and before X is converted
        published = None if X is None else published_row_norm_bound(X, 1 if delta == 0 else 2)
        rounds = int(self.max_iters) - 1
        n_releases = _ONE_TIME_RELEASES + _RELEASES_PER_ROUND * rounds
        eps0, delta0, rule = per_release_budget(epsilon, delta, n_releases, self.composition)
        spend = PrivacySpend(epsilon, delta)
        check_spend(self.accountant, spend)
        return {"linear": linear, "fit_intercept": fit_intercept, "ridge_alpha": ridge_alpha, "epsilon": epsilon,
                "delta": delta,
                "rounds": rounds, "n_releases": n_releases, "eps0": eps0, "delta0": delta0, "rule": rule,
                "spend": spend, "published": published}

    # ------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X, y, *, sensitive_features):
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
        public = self._check_public(X)                   # parameters, then the budget: before any data is read
        linear, fit_intercept, ridge_alpha = public["linear"], public["fit_intercept"], public["ridge_alpha"]
        epsilon, delta, spend = public["epsilon"], public["delta"], public["spend"]
        eps0, delta0, rule = public["eps0"], public["delta0"], public["rule"]
        rounds, n_releases = public["rounds"], public["n_releases"]
        norm_ord = 1 if delta == 0 else 2

        X, names = _check_matrix(X, "X")
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
        A_design = _with_intercept(A)
        x_radius = _radius(feature_bound, norm_ord, fit_intercept)
        a_radius = _radius(sensitive_bound, norm_ord, True)

        n = X.shape[0]
        audited = (y == 0) if self.fairness_def == "FP" else (y == 1)
        release = VectorReleaser(eps0, delta0, norm_ord, random_state=self.random_state,
                            rho0=per_release_rho(epsilon, delta, n_releases) if rule == "zcdp" else None)

        # One-time releases: the two oracles' Gram matrices (Privacy, items 1-2).
        if linear:
            learner_gram, learner_gram_info = self._release_gram(release, X_design, x_radius)
            if fit_intercept:
                learner_gram[-1, -1] = n                               # the intercept entry is the public n
            learner_inverse = _SolvedGram(learner_gram, learner_gram_info["noise_std"], ridge_alpha, fit_intercept)
        else:                       # epsilon = inf only: no statistic to release, the regressor sees the costs
            learner_gram, learner_gram_info = None, {"sensitivity": None, "noise_scale": 0.0}
        auditor_gram, auditor_gram_info = self._release_gram(release, A_design[audited], a_radius)
        auditor_inverse = _SolvedGram(auditor_gram, auditor_gram_info["noise_std"], 0.0, True)

        predictors, history, errors, violations = [], [], [], []
        groups = _AuditorPlays(int(audited.sum()), first_row=self.cost_update == "aif360")     # never released
        average = np.zeros(n)       # p_i, the Learner's average play on the training rows; never released
        heat_range = (None, None)
        for t in progress_rounds(1, rounds + 1, desc=type(self).__name__):
            # Learner: best response to the perturbed cumulative costs (follow the perturbed leader).
            if linear:
                b_noisy, b_info = self._release_learner_statistic(release, X_design, y, audited, groups, t,
                                                                  x_radius)
                hypothesis = self._solve_learner(learner_inverse, b_noisy, fit_intercept, feature_bound, norm_ord)
            else:
                d, dual_mass = self._learner_costs(y, audited, groups, t)
                b_noisy, b_info = None, {"dual_mass": dual_mass, "sensitivity": None, "noise_scale": 0.0}
                hypothesis = RegressionCSCHypothesis.best_response(self.predictor, X, d / n, self.fairness_def)
            predictors.append(hypothesis)
            played = hypothesis.predict_design(X_design)
            average += (played - average) / t

            # Auditor: best response to the Learner's average play, from released statistics only.
            q = average[audited] if self.fairness_def == "FP" else 1.0 - average[audited]
            s_noisy, s_info = self._release_auditor_statistic(release, A_design[audited], q, a_radius)
            theta = self._solve_auditor(auditor_inverse, s_noisy)
            members = (A_design[audited] @ theta < 0).astype(float)
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
            if self.heatmapflag and t % int(self.heatmap_iter) == 0:        # epsilon = inf only (_check_public)
                heat_range = _save_heatmap(X, A[:, :2], sensitive_names[:2], y, played,
                                           f"{self.heatmap_path}/heatmap_iteration_{t}", heat_range, t == 1)
            if self.early_termination and _aif360_stops(errors, violations, self.gamma):
                break

        self.predictors_ = predictors
        self.weights_ = np.full(len(predictors), 1.0 / len(predictors))
        self.classes_ = np.array([0, 1])
        self.errors_ = errors
        self.fairness_violations_ = violations
        self.history_ = history
        self.gram_releases_ = {
            "learner_gram": learner_gram, "learner_gram_sensitivity": learner_gram_info["sensitivity"],
            "learner_gram_noise_scale": learner_gram_info["noise_scale"],
            "auditor_gram": auditor_gram, "auditor_gram_sensitivity": auditor_gram_info["sensitivity"],
            "auditor_gram_noise_scale": auditor_gram_info["noise_scale"],
        }
        self.n_iter_ = len(predictors)
        self.n_releases_ = n_releases
        self.per_release_spend_ = PrivacySpend(eps0, delta0, rho=per_release_rho(epsilon, delta, n_releases)
                                               if rule == "zcdp" else None)
        self.composition_ = rule
        self.composed_spend_ = composed_spend(eps0, delta0, n_releases, rule, delta, epsilon)
        self.feature_norm_bound_ = feature_bound
        self.sensitive_norm_bound_ = sensitive_bound
        self.n_features_in_ = X.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        self.sensitive_values_ = sensitive_values
        self.privacy_spent_ = charge(self.accountant, spend)    # before the warning (it may be an error)
        if linear and fit_intercept and not math.isinf(epsilon):
            self._warn_if_worse_than_constant(history, n, release.delta0)
        return self

    def _auditor_direction(self, u_value, violation):
        """``sigma_t``: 0 below ``gamma``; else the sign of the violated constraint, ``-sign(U_t)`` (the subgroup's
        rate is below the base rate when ``U_t < 0``), or with ``cost_update='aif360'`` AIF360's +1 for the subgroup
        ``1[a~ . theta_t < 0]`` (AIF360 keeps it or its complement with -1, the same update)."""
        if violation < self.gamma:
            return 0.0
        return 1.0 if self.cost_update == "aif360" else -float(np.sign(u_value))

    def _warn_if_worse_than_constant(self, history, n, delta0):
        """Warn when the released error of the mixture is not clearly below the best constant classifier's.

        Both sides are post-processing of releases (y is private under this relation): the last released error
        ``E~_T / n`` of the average classifier, and the positive rate from round 1's Learner statistic, whose
        intercept coordinate is ``sum_i (1 - 2 y_i) = n - 2 n_+`` plus noise (no Auditor play yet, so no dual
        costs), hence ``p~ = (n - b~_1[-1]) / (2 n)``. Warns when ``E~_T / n + 2 sd >= min(p~, 1 - p~)``, ``sd``
        the standard deviation of the difference.
        """
        first, last = history[0], history[-1]
        positive_rate = float(np.clip((n - first["learner_statistic"][-1]) / (2.0 * n), 0.0, 1.0))
        noise = math.hypot(noise_sd(first["learner_noise_scale"], delta0) / (2.0 * n),
                           noise_sd(last["error_noise_scale"], delta0) / n)
        warn_if_worse_than_constant(type(self).__name__, last["error"], positive_rate, noise,
                                    "more data, a larger epsilon or fewer rounds (max_iters: fewer releases share "
                                    "the budget)", stacklevel=4)

    # ------------------------------------------------------------------ releases (the only data access)
    @staticmethod
    def _release_gram(release, design, radius):
        """Privacy items 1-2: the upper triangle of ``design^T design`` with noise (sensitivity ``2 radius^2``)."""
        p = design.shape[1]
        upper = np.triu_indices(p)
        exact = (design.T @ design)[upper]
        sensitivity = 2.0 * radius ** 2
        noisy, info = release(exact, l1=sensitivity, l2=sensitivity)
        gram = np.zeros((p, p))
        gram[upper] = noisy
        gram = gram + np.triu(gram, 1).T
        return gram, info

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
        """``(d, Lambda_t)``: ``d_i = n (c^1_i - c^0_i)``, AIF360's costs in round ``t`` (see Privacy, item 3)."""
        C = float(self.C)
        dual_mass = C / (t - 1) * groups.mass if t > 1 else 0.0
        d = 1.0 - 2.0 * y
        if groups.count and audited.any():
            d[audited] += (1.0 if self.fairness_def == "FP" else -1.0) * C / (t - 1) * groups.kappa
        return d, dual_mass

    @staticmethod
    def _release_auditor_statistic(release, A_audited, q, radius):
        """Privacy item 4: ``S_t = sum_audited a~_i (q_i - m)`` (sensitivity ``3 radius``)."""
        deviation = q - q.mean() if q.size else q
        sensitivity = 3.0 * radius
        return release(A_audited.T @ deviation, l1=sensitivity, l2=sensitivity)

    @staticmethod
    def _release_violation(release, members, q):
        """Privacy item 5: ``U_t = sum_audited g_t(a_i) (q_i - m)`` (sensitivity 3)."""
        deviation = q - q.mean() if q.size else q
        noisy, info = release(np.array([members @ deviation]), l1=3.0, l2=3.0)
        return float(noisy[0]), info

    @staticmethod
    def _release_error(release, average, y):
        """Privacy item 6: ``E_t = sum_i |p_i - y_i|`` (sensitivity 1)."""
        noisy, info = release(np.array([np.abs(average - y).sum()]), l1=1.0, l2=1.0)
        return float(noisy[0]), info

    # ------------------------------------------------------------------ solves (released statistics only)
    @staticmethod
    def _solve_learner(gram_inverse, b_noisy, fit_intercept, norm_bound, norm_ord):
        """The Learner's CSC oracle on released statistics: ``h_t(x) = 1[x~ . G_X^{-1} b~_t < 0]``."""
        return LinearCSCHypothesis(gram_inverse.solve(b_noisy), fit_intercept=fit_intercept, norm_bound=norm_bound,
                                   norm_ord=norm_ord)

    @staticmethod
    def _solve_auditor(gram_inverse, s_noisy):
        """The Auditor's CSC oracle on released statistics: ``theta_t = G_A^{-1} S~_t``, ``g_t = 1[a~ . theta_t < 0]``.

        AIF360 regresses the cost of including a row, ``(q_i - m) / n``, and of excluding it, 0, on ``a~``; the
        second regression is identically 0, so the subgroup is where the first is negative.
        """
        return gram_inverse.solve(s_noisy)

    # ------------------------------------------------------------------ predict
    def _decision_matrix(self, X):
        check_is_fitted(self, "predictors_")
        X, _ = _check_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was fitted with "
                             f"{self.n_features_in_}.")
        return np.column_stack([h.predict(X) for h in self.predictors_])

    def predict_proba(self, X):
        """``[P(y=0), P(y=1)]`` under the randomized classifier (the average of the Learner's plays)."""
        positive = self._decision_matrix(X) @ self.weights_
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X, *, random_state=None):
        """0/1 predictions of the randomized classifier: ``h_t`` with ``t`` uniform, i.e. Bernoulli(proba).

        ``random_state`` seeds these draws (not a privacy mechanism); sensitive features are not needed.
        """
        positive = self.predict_proba(X)[:, 1]
        # None: a generator seeded from OS entropy, never numpy's global one (which any caller may have seeded).
        draws = check_random_state(random_state).random_sample(positive.size)
        return (draws < positive).astype(int)


# ---------------------------------------------------------------------------------------------------------------
class LinearCSCHypothesis:
    """One play of the Learner: ``h(x) = 1[x~ . coef < 0]`` (AIF360's ``RegOracle``: ``1[reg_1(x) < reg_0(x)]``).

    ``coef`` is ``beta_1 - beta_0``, the difference of the two cost regressions, with the intercept last when
    ``fit_intercept``. Rows of ``X`` whose norm exceeds the bound used in training are scaled onto the ball first,
    as in training.
    """

    def __init__(self, coef, *, fit_intercept=True, norm_bound=np.inf, norm_ord=2):
        self.coef = np.asarray(coef, dtype=float).ravel()
        self.fit_intercept = bool(fit_intercept)
        self.norm_bound = float(norm_bound)
        self.norm_ord = norm_ord

    def predict_design(self, design):
        return (design @ self.coef < 0).astype(int)

    def predict(self, X):
        X, _ = _check_matrix(X, "X")
        X = clip_rows(X, self.norm_bound, self.norm_ord)
        return self.predict_design(_with_intercept(X) if self.fit_intercept else X)

    def __repr__(self):
        return f"LinearCSCHypothesis(coef={np.round(self.coef, 4).tolist()}, fit_intercept={self.fit_intercept})"


class RegressionCSCHypothesis:
    """One play of the Learner with a generic regressor (``epsilon = inf`` only): AIF360's ``RegOracle``.

    ``reg0`` and ``reg1`` are clones of the predictor fitted on the costs of labelling 0 and 1; ``h(x) =
    1[reg1(x) < reg0(x)]``.
    """

    def __init__(self, reg0, reg1):
        self.reg0, self.reg1 = reg0, reg1

    @classmethod
    def best_response(cls, predictor, X, difference, fairness_def):
        """AIF360's ``Learner.best_response``: ``c^1 - c^0 = difference``, with ``c^0 = 0`` ('FP') or ``c^1 = 0``
        ('FN'), as AIF360 initialises and updates them."""
        zeros = np.zeros_like(difference)
        costs_0, costs_1 = (zeros, difference) if fairness_def == "FP" else (-difference, zeros)
        reg0 = clone(predictor).fit(X, costs_0)
        reg1 = clone(predictor).fit(X, costs_1)
        return cls(reg0, reg1)

    def predict_design(self, X):
        return (np.asarray(self.reg1.predict(X)) < np.asarray(self.reg0.predict(X))).astype(int)

    def predict(self, X):
        X, _ = _check_matrix(X, "X")
        return self.predict_design(X)

    def __repr__(self):
        return f"RegressionCSCHypothesis(reg0={self.reg0!r}, reg1={self.reg1!r})"


def private_fn_fp_audit(A, y, labels, fairness_def, *, epsilon, delta, sensitive_norm_bound=None,
                        random_state=None):
    """The Auditor's search, once, on a fixed classifier's 0/1 (or soft) predictions: ``|U~| / n``.

    Used by the AIF360 face's ``pareto`` to audit the fitted model for the other fairness notion. With a finite
    ``epsilon`` this is a DP release of its own, charged by the caller: three statistics of the engine's Privacy
    section, items 2, 4 and 5 (the Gram matrix of the audited rows, ``S`` and ``U``, with ``q_i`` a function of
    the record's own features through the public classifier), each with ``(epsilon / 3, delta / 3)`` (basic
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
    release = VectorReleaser(eps0, delta0, norm_ord, random_state=random_state)
    gram, gram_info = DPGerryFairClassifier._release_gram(release, A_design[audited], radius)
    inverse = _SolvedGram(gram, gram_info["noise_std"], 0.0, True)
    s_noisy, _ = DPGerryFairClassifier._release_auditor_statistic(release, A_design[audited], q, radius)
    members = (A_design[audited] @ inverse.solve(s_noisy) < 0).astype(float)
    u_value, _ = DPGerryFairClassifier._release_violation(release, members, q)
    return abs(u_value) / y.size


def _save_heatmap(X, A2, names, y, predictions, path, heat_range, first):
    """AIF360's in-fit heatmap (``GerryFairClassifier.save_heatmap``), ``epsilon = inf`` only."""
    from aif360.algorithms.inprocessing.gerryfair import heatmap

    minmax = heatmap.heat_map(pd.DataFrame(X), pd.DataFrame(A2, columns=names), tuple(y), predictions, 0.1, path,
                              *heat_range)
    return (minmax[0], minmax[1]) if first else heat_range


class _SolvedGram:
    """Post-processing of a released Gram matrix into a linear solve (the oracle's normal equations).

    With noise: eigenvalues raised to ``s sqrt(p)`` (``s`` the noise's standard deviation per entry; about half the
    spectral norm of a symmetric ``p x p`` noise matrix), so the solve is positive definite; a heuristic, and
    post-processing whatever its value. Without noise: a pseudo-inverse after scaling the matrix to unit diagonal
    (eigenvalues below ``1e-10`` of the largest dropped), which gives scikit-learn's minimum-norm least-squares
    fit. ``ridge_alpha`` is added to the diagonal except the intercept entry (last), as scikit-learn's ``Ridge``.
    """

    def __init__(self, gram, noise_std, ridge_alpha, has_intercept):
        p = gram.shape[0]
        gram = (gram + gram.T) / 2
        if ridge_alpha:
            penalty = np.full(p, ridge_alpha)
            if has_intercept:
                penalty[-1] = 0.0
            gram = gram + np.diag(penalty)
        if noise_std > 0:
            scale = np.ones(p)
            values, vectors = np.linalg.eigh(gram)
            inverse_values = 1.0 / np.maximum(values, noise_std * math.sqrt(p))
        else:
            diagonal = np.diag(gram)
            scale = np.where(diagonal > 0, np.sqrt(np.where(diagonal > 0, diagonal, 1.0)), 1.0)
            values, vectors = np.linalg.eigh(gram / np.outer(scale, scale))
            top = float(np.abs(values).max()) if values.size else 0.0
            keep = values > 1e-10 * top
            inverse_values = np.where(keep, 1.0 / np.where(keep, values, 1.0), 0.0)
        self.scale, self.vectors, self.inverse_values = scale, vectors, inverse_values

    def solve(self, rhs):
        rhs = np.asarray(rhs, dtype=float) / self.scale
        return (self.vectors @ (self.inverse_values * (self.vectors.T @ rhs))) / self.scale


# ---------------------------------------------------------------------------------------------------------------
def _check_max_iters(max_iters):
    """``max_iters`` in ``[2, MAX_ITERS]`` (``max_iters - 1`` rounds are played)."""
    if isinstance(max_iters, bool) or not isinstance(max_iters, numbers.Integral) or max_iters < 2:
        raise ValueError(f"max_iters must be an integer >= 2 (max_iters - 1 rounds are played), got {max_iters!r}.")
    if max_iters > MAX_ITERS:
        raise ValueError(f"max_iters must be at most MAX_ITERS={MAX_ITERS:,} (a round costs O(n d); that many take "
                         f"seconds on a thousand rows), got {max_iters!r}.")


class _AuditorPlays:
    """The Auditor's past plays ``(g_s on the audited rows, sigma_s)`` as the two running sums the Learner's costs
    read: ``kappa = sum_s sigma_s (w_s - g_s)`` (``w_s`` the mean of ``g_s``) and ``mass = sum_s |sigma_s|``.
    Each is updated once per play, with the same additions in the same order as summing over the list of plays in
    every round (identical floats), so a round costs ``O(n)`` instead of ``O(t n)`` and no play is stored.
    ``first_row`` (``cost_update='aif360'``, ``epsilon = inf`` only): AIF360 0.6.1's ``update_costs``, every row
    gets the first audited row's term ``sigma_s (w_s - g_s(a_first))``."""

    def __init__(self, n_audited, *, first_row=False):
        self.kappa = np.zeros(n_audited)
        self.mass = 0
        self.count = 0
        self.first_row = first_row

    def add(self, members, sigma):
        self.mass += abs(sigma)
        if sigma != 0 and members.size:
            self.kappa += sigma * (members.mean() - (members[0] if self.first_row else members))
        self.count += 1


def _aif360_stops(errors, violations, gamma):
    """AIF360's early-termination rule, applied to the released errors and violations."""
    return (len(errors) >= 5 and (errors[-1] == errors[-2] or violations[-1] == violations[-2])
            and violations[-1] < gamma)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_matrix(X, name):
    names = None
    if isinstance(X, pd.DataFrame):
        names = np.asarray(X.columns, dtype=object)
        X = X.to_numpy()
    X = call_withheld(np.asarray, X, dtype=float,            # its message could quote a private value: withheld
                      replace=(((TypeError, ValueError), ValueError(f"{name} must be numeric.")),))
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return X, names


def _check_labels(y, n):
    if isinstance(y, (pd.Series, pd.DataFrame)):
        y = y.to_numpy()
    y = call_withheld(np.asarray, y, dtype=float,            # its message could quote a private value: withheld
                      replace=(((TypeError, ValueError), ValueError("y must be numeric binary labels in {0, 1}.")),))
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1 or y.size != n:
        raise ValueError(f"y must be 1-D with one label per row of X ({n}), got shape {y.shape}.")
    if not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite values.")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y must be binary with labels in {0, 1} (non-binary labels found).")
    return y


def _one_entry_per_column(entries):
    """Whether a declared ``sensitive_values`` list is a list of lists (or None), one per column."""
    return len(entries) > 0 and all(
        entry is None or (hasattr(entry, "__iter__") and not isinstance(entry, (str, bytes))) for entry in entries)


def _check_sensitive_values(declared):
    """Check of the public ``sensitive_values`` (before the budget check and any data): None, a list, a list of
    lists or a dict; every declared list non-empty, hashable and without duplicates."""
    if declared is None:
        return
    if not isinstance(declared, dict) and (isinstance(declared, (str, bytes)) or not hasattr(declared, "__iter__")):
        raise ValueError("sensitive_values must be None, a list of values, a list of lists (one per column) or a "
                         "dict from column to list of values.")
    if isinstance(declared, dict):
        lists = list(declared.values())
    else:
        entries = list(declared)
        lists = entries if _one_entry_per_column(entries) else [entries]
    for values in lists:
        if values is None:
            continue
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise ValueError(f"sensitive_values: each column's entry must be a list of values or None, got "
                             f"{values!r}.")
        values = list(values)
        if not values:
            raise ValueError("sensitive_values: a declared list of values is empty.")
        try:
            distinct = len(set(values)) == len(values)
        except TypeError:
            raise ValueError("sensitive_values: declared values must be hashable.") from None
        if not distinct:
            raise ValueError(f"sensitive_values: a declared list has duplicates: {values!r}.")


def _declared_per_column(declared, frame):
    """The declared list of values of each column of ``frame`` (None: not declared)."""
    k = frame.shape[1]
    if declared is None:
        return [None] * k
    if isinstance(declared, dict):
        known = set()
        lists = []
        for position, column in enumerate(frame.columns):
            key = column if column in declared else position if position in declared else None
            lists.append(None if key is None else declared[key])
            if key is not None:
                known.add(key)
        if set(declared) - known:
            raise ValueError("sensitive_values names a column that sensitive_features does not have.")
        return lists
    entries = list(declared)
    if _one_entry_per_column(entries) and len(entries) == k:
        return entries
    if k == 1:
        return [entries]
    raise ValueError("sensitive_values must hold one entry per column of sensitive_features (a list of values, or "
                     "None for a numeric column), or be a dict from column to list of values.")


def _encode_sensitive(sensitive_features, n, declared, *, private, estimator_name):
    """``(A, values per column, column names)``: numeric columns as they are, categorical ones as indicators.

    A categorical column with public values ``[v_1, ..., v_m]`` becomes ``1[a = v_j]`` for ``j >= 2`` (for
    ``j = 1`` when ``m == 1``); a value outside the list is a ``ValueError``. Values read from the data (no
    declared list) come with a ``PrivacyWarning`` when ``private``.
    """
    if sensitive_features is None:
        raise ValueError("sensitive_features is required.")
    if isinstance(sensitive_features, pd.DataFrame):
        frame = sensitive_features.reset_index(drop=True)
    elif isinstance(sensitive_features, pd.Series):
        frame = sensitive_features.reset_index(drop=True).to_frame()
    else:
        arr = np.asarray(sensitive_features)
        if arr.dtype.kind not in "biuf":            # numeric only by the input's type, never by its values
            arr = np.asarray(sensitive_features, dtype=object)
        if arr.ndim == 0 or arr.ndim > 2:
            raise ValueError(f"sensitive_features must be 1-D or 2-D, got shape {arr.shape}.")
        frame = pd.DataFrame(arr if arr.ndim == 2 else arr[:, None])
    if frame.shape[1] == 0:
        raise ValueError(f"sensitive_features must be 1-D or 2-D with at least one column, got shape {frame.shape}.")
    if frame.shape[0] != n:
        raise ValueError(f"sensitive_features has {frame.shape[0]} rows but X has {n} (length mismatch).")
    if frame.isna().to_numpy().any():
        raise ValueError("sensitive_features contains NaN or infinite values (or missing values).")
    names = [str(column) for column in frame.columns]
    blocks, values_used = [], []
    for column, values in zip(range(frame.shape[1]), _declared_per_column(declared, frame)):
        raw = frame.iloc[:, column]
        if values is None:
            # Whether a column is numeric is decided by its dtype (public schema), not by whether every value parses
            # as a number: one record's value must not switch the encoding, the release's shape or the warning.
            numeric = (np.asarray(raw.to_numpy(), dtype=float) if pd.api.types.is_numeric_dtype(raw.dtype)
                       else None)
            if numeric is not None:
                if not np.all(np.isfinite(numeric)):
                    raise ValueError("sensitive_features contains NaN or infinite values.")
                blocks.append(numeric[:, None])
                values_used.append(None)
                continue
            if private:
                warnings.warn(
                    f"{estimator_name}: `sensitive_values` was not given for a categorical column of "
                    "sensitive_features, so its values are read from the private data and treated as public. Pass "
                    "sensitive_values=[...] to make this explicit.", PrivacyWarning, stacklevel=4)
            found = list(pd.unique(pd.Series(raw.to_numpy(), dtype=object)))
            try:
                values = sorted(found)
            except TypeError:
                values = found
        else:
            values = resolve_groups(values, None, estimator_name=estimator_name) if len(list(values)) != 1 \
                else list(values)
        values = list(values)
        codes = encode_groups(raw.to_numpy(dtype=object), values, name="sensitive_features")
        levels = range(1, len(values)) if len(values) > 1 else range(1)
        blocks.append(np.column_stack([(codes == level).astype(float) for level in levels]))
        values_used.append(values)
    return np.column_stack(blocks), values_used, names


def _default_bound(bound, n_columns, norm_ord):
    """The public row-norm bound: given, or that of a row with every entry in ``[-1, 1]``."""
    if bound is not None:
        return float(bound)
    return float(n_columns) if norm_ord == 1 else math.sqrt(n_columns)


def _fit_bound(bound, given, n_columns, norm_ord, epsilon):
    """The row-norm bound ``fit`` clips to: ``epsilon = inf`` without a bound ``given`` as a parameter is ``inf``
    (nothing is private, no noise to calibrate: the rows as given, as AIF360; a bound published in ``X.attrs`` is
    not applied); else :func:`_default_bound` of ``bound``."""
    if given is None and math.isinf(epsilon):
        return math.inf
    return _default_bound(bound, n_columns, norm_ord)


def _radius(bound, norm_ord, intercept):
    """Bound on ``||(x, 1)||`` (or ``||x||``) in the mechanism's norm."""
    if not intercept:
        return bound
    return 1.0 + bound if norm_ord == 1 else math.sqrt(1.0 + bound ** 2)


def _with_intercept(M):
    """Append the intercept column (last, as ``_SolvedGram`` expects)."""
    return np.column_stack([M, np.ones(M.shape[0])])
