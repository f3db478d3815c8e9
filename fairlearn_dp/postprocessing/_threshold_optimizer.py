"""DP counterpart of Fairlearn's ThresholdOptimizer: Hardt et al.'s post-processing on Laplace-noised statistics
(Jagielski et al. 2019, Alg. 1), extended to scores through private ROC curves."""

from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy as np
from fairlearn.postprocessing import ThresholdOptimizer
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from ..privacy import (
    PrivacySpend,
    PrivacyWarning,
    charge,
    check_spend,
    private_joint_histogram,
    validate_epsilon_delta,
)
from .._fairlearn_compat import (
    BASE_ESTIMATOR_NONE_ERROR_MESSAGE,
    KW_CONTROL_FEATURES,
    MESSAGE_X_Y_ROWS,
    NO_CONTROL_FEATURES,
    NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE,
    OBJECTIVES_FOR_EQUALIZED_ODDS,
    OBJECTIVES_FOR_SIMPLE_CONSTRAINTS,
    SIMPLE_CONSTRAINTS,
)
from ..utils._random import check_random_state
from ..utils._validation import (
    SharedAccountantCloneMixin,
    as_1d_float,
    as_group_vector,
    atomic_fit,
    call_on_private_rows,
    check_bool,
    check_choice,
    check_estimator,
    check_n_bins,
    check_positive_int,
    check_seed,
    check_solver,
    encode_groups,
    resolve_groups,
    validate_params,
)
from ._dask_predict import pmf_predict_dask, predict_dask
from ._inputs import binary_labels as _binary_labels
from ._inputs import check_lengths as _check_lengths
from ._inputs import n_columns as _n_columns
from ._distributed import is_dask_input
from ._mixing_lp import constraint_slack, rate_errors, warn_if_unenforced
from ._introspection import INTROSPECTION_ATTRIBUTES, representable_mixing, set_fairlearn_introspection

__all__ = ["DPThresholdOptimizer", "MAX_N_SCORE_BINS"]

# The mixing LP has 2 |A| (B + 1) variables and its constraint rows are built densely (|A|^2 B entries per rate):
# B = 10^4 solves in about a second for 10 groups; far larger B only adds noisy, empty bins. Checked before any work.
MAX_N_SCORE_BINS = 10_000

# Fairlearn's constraint names -> the group rates they equalise.
_CONSTRAINT_RATES = {
    "equalized_odds": ("fpr", "tpr"),
    "true_positive_rate_parity": ("tpr",),
    "false_negative_rate_parity": ("tpr",),
    "false_positive_rate_parity": ("fpr",),
    "true_negative_rate_parity": ("fpr",),
    "demographic_parity": ("selection",),
    "selection_rate_parity": ("selection",),
}
# AIF360's EqOddsPostprocessing minimises sum_g (FPR_g - TPR_g) over its two groups; kept for the AIF360 face.
_AIF360_OBJECTIVE = "sum_of_group_tpr_minus_fpr"
_AIF360_OBJECTIVE_NOTE = f" (fairdp also accepts {_AIF360_OBJECTIVE!r}.)"
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_PREDICT_METHODS = ("auto", "predict_proba", "decision_function", "predict")      # Fairlearn's choices
# Public parameters checked by the generic checks (with the others, before the budget, on both paths).
_PARAMETER_CHECKS = {"flip": check_bool, "prefit": check_bool, "privacy_slack": check_bool,
                     "random_state": check_seed, "solver": functools.partial(check_solver, own="linprog")}
# Attributes set by our DP fit (Fairlearn's below are then built from its released values on first access);
# Fairlearn's fit sets ``interpolated_thresholder_`` and the private ones below.
_DP_FITTED = ("estimator_", "groups_", "mode_", "bin_edges_", "noisy_table_", "table_", "group_label_mass_",
              "slack_", "rate_error_", "mixing_rates_", "objective_value_", "privacy_spent_", "_predict_method")
_FAIRLEARN_FITTED = ("estimator_", "interpolated_thresholder_", "x_metric_", "y_metric_", "privacy_spent_",
                     "_predict_method", "_tradeoff_curve", "_x_grid", "_y_min", "_x_best", "_y_best",
                     "_x_best_per_group", "_overall_tradeoff_curve", "_between_groups")


class DPThresholdOptimizer(SharedAccountantCloneMixin, ThresholdOptimizer):
    r"""Differentially private post-processing of a classifier for group fairness (a DP ``ThresholdOptimizer``).

    Fits group-specific randomised thresholds on a classifier's predictions or scores so that a fairness
    constraint holds (equalised odds, demographic parity, ...) with the best objective value, as Fairlearn's
    :class:`~fairlearn.postprocessing.ThresholdOptimizer` does [Hardt2016]_; but the data enter only through one
    noisy table, so the fitted post-processor is differentially private [Jagielski2019]_. The steps: bin the
    classifier's outputs on a public grid (``_discretize``); release the joint table ``q(bin, a, y)`` with noise
    (``_release_joint_table``, the only step that reads the data); turn it into private ROC statistics
    (``_estimate_rates``); solve the mixing LP (``_solve_mixing_lp``; error bounds and slack: ``_mixing_lp.py``);
    predict by randomised thresholding.

    With binary base predictions (``predict_method="predict"``, outputs in {0, 1}), ``flip=True`` and
    ``privacy_slack=True`` this is exactly Algorithm 1 of Jagielski et al. (the LP of Hardt et al. over the mixing
    probabilities ``p_{yhat a}``).
    With scores (``predict_proba`` / ``decision_function``) the table has ``n_score_bins`` score bins on the public
    ``score_range``; each group's achievable (FPR, TPR) points are the convex hull of its private ROC curve (random
    mixtures of thresholds at the bin edges, plus flipped thresholds when ``flip=True``) and the same LP picks the
    mixture. That extension goes beyond the paper; its privacy accounting is identical (one table, one release).

    The class is a subclass of Fairlearn's ``ThresholdOptimizer`` and, at ``epsilon=inf``, *is* it: ``fit``,
    ``predict`` and ``_pmf_predict`` are Fairlearn's own (see Notes), so it can replace Fairlearn's class anywhere,
    including :func:`fairlearn.postprocessing.plot_threshold_optimizer`. At finite ``epsilon`` it has Fairlearn's
    introspection too (``interpolated_thresholder_``, what ``plot_threshold_optimizer`` reads), built from the
    released values only.

    Parameters
    ----------
    estimator : object, default=None
        A classifier. ``None`` (a mode Fairlearn's class does not have) post-processes the values passed in: ``X``
        is then the one-column array of the base classifier's predictions (``predict_method="predict"``) or
        scores, and the fit is the LP below at every ``epsilon`` (noise-free at ``inf``). ``None`` with a feature
        matrix of several columns raises Fairlearn's "The base estimator cannot be `None`." error.
    constraints : str, default="demographic_parity"
        One of "equalized_odds", "demographic_parity", "selection_rate_parity", "true_positive_rate_parity",
        "false_negative_rate_parity", "false_positive_rate_parity", "true_negative_rate_parity" (Fairlearn's
        names; pairs such as TPR / FNR parity are the same constraint).
    objective : str, default="accuracy_score"
        Maximised: "accuracy_score" or "balanced_accuracy_score" (any constraint); "selection_rate",
        "true_positive_rate", "true_negative_rate" (not with "equalized_odds", as in Fairlearn); or
        "sum_of_group_tpr_minus_fpr" (the objective of AIF360's ``EqOddsPostprocessing``).
    grid_size : int, default=1000
        Fairlearn's grid over the constraint metric (an integer >= 1, checked on both paths), used at
        ``epsilon=inf``. At finite ``epsilon`` the LP is solved exactly, no grid search; ``grid_size`` only sets the
        number of points (``grid_size + 1``) of the released trade-off curves ``plot_threshold_optimizer`` draws.
    flip : bool, default=False
        Also allow flipped decisions (predict 1 below a threshold), as Fairlearn's ``flip``. Jagielski et al.'s
        LP over ``p_{yhat a}`` in [0, 1] corresponds to ``flip=True``.
    prefit : bool, default=False
        If True, ``estimator`` is already fitted.
    predict_method : str, default="auto"
        "auto" (``predict_proba``, else ``decision_function``, else ``predict``), "predict_proba",
        "decision_function" or "predict" (binary outputs: the paper's setting).
    tol : float or None, default=None
        The fairness tolerance ``gamma`` of the paper: constrained rates of every group may differ from group 0's
        by ``gamma`` plus the privacy slack. None means 0. Only the gaps to group 0 are constrained, so two other
        groups may differ by up to ``2 gamma`` on the released rates (Fairlearn's ``tol`` bounds the range over all
        groups; the two agree for ``tol=0``). At ``epsilon=inf`` Fairlearn's ``tol`` (not supported with
        "equalized_odds", as in Fairlearn).
    epsilon : float, default=1.0
        Privacy budget (> 0). ``numpy.inf`` is Fairlearn's non-private ``ThresholdOptimizer`` exactly (see Notes).
    delta : float, default=0.0
        0 for pure DP (Laplace); > 0 uses the analytic Gaussian mechanism, and the error bounds ``rate_error_`` (and
        the slack) are then computed from Gaussian tails of that mechanism's standard deviation.
    beta : float, default=0.05
        Confidence of the error bounds ``rate_error_`` (and of the slack): with probability at least 1 - beta over
        the noise, every private rate is within its bound, so the fairness guarantee below holds (and, with
        ``privacy_slack=True``, the non-private optimum is feasible, Thm. 3.1). In (0, 1).
    privacy_slack : bool, default=False
        False: every constraint is ``tol`` on the released statistics, so each group's true rate on the fitting data
        is within ``tol`` of the anchor's up to the noise (``rate_error_``). True: the paper's LP~ (1), which adds
        the confidence slack to every constraint (see Privacy): the non-private optimum stays feasible, but each
        group's rate may drift by its slack, which grows as 1 / (its share of the rows); for demographic parity the
        released accuracy it buys is at most ``sum_a share_a slack_a``, of the order of the objective's own noise
        (module ``_mixing_lp``).
    n_score_bins : int, default=10
        Public number of score bins for score-based post-processing (ignored for binary predictions), in ``[1,
        MAX_N_SCORE_BINS]`` (10,000). Fewer bins mean less noise per rate and a tighter slack; more bins a finer
        ROC curve.
    score_range : tuple (low, high) or None, default=None
        Public range of the scores; None means (0, 1), valid for ``predict_proba``. Required for
        ``decision_function``. Scores outside are clipped: silently in ``fit`` (the guarantee is for the clipped
        scores), with a warning in ``predict``.
    groups : list or None, default=None
        Public list of group labels; the first is the anchor group ``0`` of the paper. None reads them from the
        data (sorted) with a :class:`~fairlearn_dp.privacy.PrivacyWarning`.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        The neighbouring relation protected, see Privacy.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``(epsilon, delta)`` once per ``fit``; None uses diffprivlib's default accountant.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise of ``fit`` (None: a cryptographically secure generator; a seed is for experiments only).
    solver : str, default="linprog"
        "linprog": SciPy's HiGHS on the LP's matrices (fast: no modelling layer); or the name of an installed cvxpy
        solver (e.g. "HIGHS", "CLARABEL") for the same LP through cvxpy. Tests check that both agree.

    Attributes
    ----------
    estimator_ : object or None
    groups_ : list
    mode_ : {"binary", "scores"}
    bin_edges_ : ndarray
        Score-bin edges (binary mode: the two "bins" are the predictions 0 and 1).
    noisy_table_ : ndarray of shape (n_groups, n_bins, 2)
        The released statistic ``q~(bin, a, y)``; everything below is computed from it alone.
    table_ : ndarray of shape (n_groups, n_bins, 2)
        ``noisy_table_`` with negative cells clipped to 0 and renormalised to sum 1.
    group_label_mass_ : ndarray of shape (n_groups, 2)
        ``q~_{ay}`` (clipped, before renormalisation), used by the slack.
    slack_ : dict
        For each constrained rate ("fpr", "tpr", "selection"), the per-group privacy slack added to ``gamma``
        (0 for the anchor group and with ``privacy_slack=False``; ``inf`` when a group's noisy mass for a label is 0
        and its constraint is dropped).
    rate_error_ : dict
        For each constrained rate, each group's bound ``s_a`` on the error of its private rate (every threshold and
        mixture at once; all bounds hold together with probability >= 1 - beta; ``inf`` for a slice without noisy
        mass). The fitted post-processor's gap between groups ``a`` and ``b`` on the fitting data is then at most
        their released gap plus ``s_a + s_b``: ``tol + slack_[rate][a] + s_a + s_0`` to the anchor, up to ``2 tol
        + slack_[rate][a] + slack_[rate][b] + s_a + s_b`` between two other groups. A function of the released table
        and public inputs.
    mixing_rates_ : ndarray of shape (n_groups, n_bins)
        ``P(Y_tilde = 1 | bin, group)``; in binary mode ``mixing_rates_[a] = (p_{0a}, p_{1a})`` of the paper.
    objective_value_ : float
        The LP's objective on the private statistics.
    privacy_spent_ : PrivacySpend
    interpolated_thresholder_ : fairlearn.postprocessing InterpolatedThresholder
        Fairlearn's thresholder on ``estimator_`` (with ``estimator=None``, a pass-through of ``X``) whose
        ``interpolation_dict`` maps each group to the randomised thresholding ``predict`` uses, in Fairlearn's
        format: ``p0``, ``operation0``, ``p1``, ``operation1`` (two ``ThresholdOperation``\ s at the exact bin
        boundaries of the public grid), plus ``p_ignore`` and ``prediction_constant`` for "equalized_odds" or when
        the rule needs a constant (Fairlearn's equalized-odds fields). Its ``predict(random_state=None)`` draws from
        an OS-seeded generator. A group whose LP solution mixes more than two thresholds (equalized odds, or an
        interior-point ``solver``) gets, in ``mixing_rates_`` too, the rule of that form with the same released FPR
        and TPR (Fairlearn's construction: a point of its released ROC hull mixed with a constant), so the LP's
        constraints and objective on the released table are unchanged.
    x_metric_, y_metric_ : str
        As in Fairlearn: the constraint metric and the objective ("false_positive_rate", "true_positive_rate" for
        "equalized_odds"). The objective "sum_of_group_tpr_minus_fpr" has no Fairlearn metric: its curves plot
        each group's TPR - FPR.
    _tradeoff_curve, _x_grid, _y_min, _x_best, _y_best, _x_best_per_group, _overall_tradeoff_curve, _between_groups
        What ``plot_threshold_optimizer`` reads, in Fairlearn's format: each group's released trade-off curve (the
        upper hull of its released ROC points, or of constraint metric against objective, on ``grid_size + 1``
        grid points; none for a group with no released mass of a label) and the fitted rule: the pooled released
        rates (``_x_best``, and ``_y_best`` for "equalized_odds"), each group's constraint metric
        (``_x_best_per_group``; groups differ by up to ``tol`` plus the privacy slack) and the objective weighted
        by the groups' released shares (``_y_best``). These and the two above are computed from ``table_``,
        ``mixing_rates_`` and the public parameters on first access.

    Privacy
    -------
    - Neighbouring relation (``privacy_unit``): "sensitive_attribute" — datasets differing in one person's
      sensitive attribute, as in Jagielski et al. (features and labels are treated as public; the base classifier
      may be trained on them as long as it does not use the sensitive attribute); "record" — datasets of the same
      size differing in one whole record (x, a, y); then the base classifier must not depend on the fitting data
      (prefit on other data, or DP with its own accounted budget; a PrivacyWarning is issued otherwise).
    - Released statistic: ``q_hat(bin, a, y)``, the joint PMF of (output bin, group, label) over all
      ``n_groups x n_bins x 2`` cells of the public grid. Either change moves one record between two cells, so its
      L1 sensitivity is ``2/m`` (Jagielski et al., Claim B.1; L2: ``sqrt(2)/m``).
    - Mechanism: diffprivlib's Laplace with scale ``2/(m epsilon)`` per cell (Alg. 1), or analytic Gaussian when
      ``delta > 0``. The LP reads only the released table, so the post-processor is (epsilon, delta)-DP. The
      whole budget is charged once per ``fit``. ``predict`` randomness is not a privacy mechanism.
    - Error bounds (``rate_error_``): with probability >= 1 - beta, ``s_a = E / q~_a`` bounds the error of every
      private rate of group ``a`` (``q~_a`` its clipped noisy mass for the rate's label(s)). For binary predictions
      and Laplace noise ``E = t = 2 ln(4|A|/beta) / (m epsilon)`` for an FPR or TPR, the per-cell bound of Lemma
      B.2, and ``2t`` for a selection rate (its one erring threshold sums two cells on each side). With ``B`` score
      bins (or Gaussian noise) a rate sums up to ``B`` cells (``2B`` for selection rates) and ``E`` bounds, over all
      thresholds at once, the larger of the slice's summed positive noise (what clipping can add) and its partial
      noise sums (Levy's maximal inequality; exact Laplace tails), derivation in ``_mixing_lp.py``.
    - Slack (``privacy_slack=True``, LP~ (1) of the paper): each constrained gap gets ``gamma`` plus, for binary
      predictions and Laplace noise, the paper's ``2 E / min(q~_{ay}, q~_{0y}) = 4 ln(4|A|/beta) / (min(q~_{ay},
      q~_{0y}) m epsilon)`` exactly, otherwise ``s_a + s_0``. It keeps the non-private optimum feasible (accuracy,
      Thm. 3.1) at the price of fairness: a small group's rate may drift by its slack. Without it (the default) the
      constraints are ``gamma`` on the released rates; for demographic parity its released objective is within
      ``sum_a share_a slack_a`` of the slack-LP's (``_mixing_lp.py``).
    - Warnings that fairness is not enforced, from released values only: a slack >= 1 (the constraint cannot
      bind); a constraint that does not bind although the group's released gap exceeds ``tol`` (its slack is larger
      than its disparity); a guaranteed disparity bound ``max_{a<b} |r~_a - r~_b| + s_a + s_b`` (released gap plus
      error bounds, the largest over pairs of groups; in the message) above ``tol + 0.05``
      (``_mixing_lp.DISPARITY_WARNING_MARGIN``): the constraint is not guaranteed to a useful precision at this
      epsilon.
    - Public inputs: ``score_range``, ``n_score_bins``, ``groups``, ``beta``, ``tol``; ``m`` (the number of rows)
      is public under both relations.
    - Failure paths (README, "Failure paths and what is public"): parameters are validated and the accountant is
      checked for the whole spend before the data are read; the data checks are domain checks (binary labels,
      binary base predictions with ``predict_method="predict"``, matching lengths, declared groups) whose messages
      carry no counts or values. Inside the domain every dataset fits: a declared group with no rows, or without
      one of the labels, is released with noise like any other cell; if its noisy mass is not positive its
      constraint is dropped with a warning (a function of the released table only). A fit that raises leaves the
      estimator as it was.

    Notes
    -----
    **epsilon = inf.** With ``epsilon=numpy.inf``, an ``estimator`` and any objective Fairlearn supports, ``fit``
    validates the privacy parameters (``epsilon``, ``delta``, ``beta``, ``privacy_unit``, ``n_score_bins``,
    ``score_range``, ``groups``, ``solver``) and three of Fairlearn's whose errors there are unclear or missing
    (``estimator``, ``predict_method``, ``grid_size >= 1``), checks the accountant, calls
    :meth:`fairlearn.postprocessing.ThresholdOptimizer.fit` and then charges ``(inf, delta)`` (``privacy_spent_``).
    Behaviour, other errors and their messages, warnings, fitted attributes, ``predict`` (including its use of
    ``random_state``) and ``_pmf_predict`` are then exactly Fairlearn's ThresholdOptimizer's: whatever the chosen
    ``predict`` method returns is thresholded as a score, control features are refused, several sensitive columns
    are combined, ``prefit``/``flip``/``predict_method="auto"``/``tol``/``grid_size`` mean what they mean there.
    The DP-only parameters (``beta``, ``privacy_slack``, ``n_score_bins``, ``score_range``, ``groups``,
    ``privacy_unit``, ``random_state``, ``solver``) are then not used, and no PrivacyWarning is issued (nothing is
    private). The fitted attributes are Fairlearn's (``estimator_``, ``interpolated_thresholder_``, ``x_metric_``,
    ``y_metric_`` and the private ones ``plot_threshold_optimizer`` reads) plus ``privacy_spent_``; the Attributes
    listed above are those of a fit at finite ``epsilon``. The objective "sum_of_group_tpr_minus_fpr" (not in
    Fairlearn) and ``estimator=None`` (``X`` holds the base outputs, a mode Fairlearn does not have) keep the
    exact, noise-free LP at ``epsilon=inf`` (nothing is released with noise, no PrivacyWarning).

    **Finite epsilon.** Differences from Fairlearn's class, all for privacy: the thresholds come from the LP on the
    released noisy table (exact optimum, no grid search: ``grid_size`` only sets the resolution of the released
    trade-off curves), with the confidence slack if ``privacy_slack=True``; scores are binned on the
    public grid ``score_range`` x ``n_score_bins`` (clipped outside it), and ``predict_method="predict"`` requires
    binary base predictions; the groups should be declared (``groups``); ``tol`` also applies to
    "equalized_odds" (the paper's ``gamma``); ``estimator=None`` post-processes the values in ``X``; ``fit``
    reads the data only after the parameters and budget are checked, and errors that depend on the data carry no
    counts or values (inputs Fairlearn also rejects -- unsupported constraints/objective, missing or non-binary
    labels, length mismatches, missing sensitive features, control features -- raise Fairlearn's error type with
    Fairlearn's message); ``predict(random_state=None)`` draws from a generator seeded by the operating system,
    never numpy's global one.

    References
    ----------
    .. [Hardt2016] M. Hardt, E. Price, N. Srebro. "Equality of Opportunity in Supervised Learning." NeurIPS 2016.
    .. [Jagielski2019] M. Jagielski, M. Kearns, J. Mao, A. Oprea, A. Roth, S. Sharifi-Malvajerdi, J. Ullman.
       "Differentially Private Fair Learning." ICML 2019.
    """

    def __init__(self, *, estimator=None, constraints="demographic_parity", objective="accuracy_score",
                 grid_size=1000, flip=False, prefit=False, predict_method="auto", tol=None, epsilon=1.0, delta=0.0,
                 beta=0.05, privacy_slack=False, n_score_bins=10, score_range=None, groups=None,
                 privacy_unit="sensitive_attribute", accountant=None, random_state=None, solver="linprog"):
        self.estimator = estimator
        self.constraints = constraints
        self.objective = objective
        self.grid_size = grid_size
        self.flip = flip
        self.prefit = prefit
        self.predict_method = predict_method
        self.tol = tol
        self.epsilon = epsilon
        self.delta = delta
        self.beta = beta
        self.privacy_slack = privacy_slack
        self.n_score_bins = n_score_bins
        self.score_range = score_range
        self.groups = groups
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.random_state = random_state
        self.solver = solver

    # ------------------------------------------------------------------ fit
    def _check_fit_arguments(self, X, kwargs):
        """Public checks of ``fit``'s arguments (in memory and on Dask): no control features, and with
        ``estimator=None`` a single column of predictions or scores (Fairlearn's error; the shape is public)."""
        if kwargs.get(KW_CONTROL_FEATURES) is not None:
            raise ValueError(NO_CONTROL_FEATURES)
        if self.estimator is None and _n_columns(X) not in (None, 1):
            raise ValueError(BASE_ESTIMATOR_NONE_ERROR_MESSAGE + " With estimator=None, X must be the single column "
                             "of the base classifier's predictions or scores.")

    def _check_public_inputs(self):
        """Validate the public parameters and check the budget, before anything reads the data.

        Returns ``(epsilon, delta, gamma, groups)`` (``groups`` None when they are to be read from the data).
        Raises diffprivlib's ``BudgetError`` if the accountant cannot pay ``(epsilon, delta)``, whatever the data.
        """
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        gamma = self._check_params()
        groups = self._check_groups_param()
        check_spend(self.accountant, PrivacySpend(epsilon, delta))
        return epsilon, delta, gamma, groups

    def _check_groups_param(self):
        return None if self.groups is None else resolve_groups(self.groups, None, estimator_name=type(self).__name__)

    def _delegates_to_fairlearn(self, epsilon):
        """True when ``fit`` is Fairlearn's: ``epsilon=inf``, an estimator, and an objective Fairlearn has (a public
        decision). ``estimator=None`` (the values in ``X`` post-processed, which Fairlearn has no mode for) and the
        AIF360 objective keep the noise-free LP."""
        return (math.isinf(epsilon) and self.estimator is not None
                and not (isinstance(self.objective, str) and self.objective == _AIF360_OBJECTIVE))

    def _forget_fit(self):
        """Drop the fitted attributes of a previous fit, so that ``predict`` dispatches on this fit's kind only
        (``atomic_fit`` restores them if this fit raises)."""
        for name in set(_DP_FITTED + _FAIRLEARN_FITTED):
            self.__dict__.pop(name, None)

    def _fit_fairlearn(self, X, y, *, sensitive_features, epsilon, delta, **kwargs):
        """``epsilon=inf``: our privacy parameters and the accountant, then Fairlearn's ``fit`` unchanged."""
        self._check_dp_params(fairlearn_path=True)
        self._check_groups_param()
        spend = PrivacySpend(epsilon, delta)
        check_spend(self.accountant, spend)
        self._forget_fit()
        super().fit(X, y, sensitive_features=sensitive_features, **kwargs)
        self.privacy_spent_ = charge(self.accountant, spend)
        return self

    @atomic_fit
    def fit(self, X, y, *, sensitive_features, **kwargs):
        """Fit the private post-processor.

        At ``epsilon=inf`` (with an estimator and an objective Fairlearn supports) this is Fairlearn's
        ``ThresholdOptimizer.fit`` after the privacy parameters are validated; the accountant is charged
        ``(inf, delta)``.

        Parameters
        ----------
        X : array-like
            Features for ``estimator``; with ``estimator=None``, the one-column array of base predictions/scores.
            Dask arrays / DataFrames (``X``, ``y`` and ``sensitive_features`` alike, same partitions; ``groups``
            declared; estimator prefit or None) fit out of core: counts on the workers, one release here
            (``fairlearn_dp/postprocessing/_distributed.py``).
        y : array-like of shape (n_samples,)
            Binary labels (0 and 1).
        sensitive_features : array-like
            Group membership (several columns are combined into one label per row).
        **kwargs
            Passed to ``estimator.fit``.
        """
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        if is_dask_input(X, y, sensitive_features):  # out-of-core: the table is summed on Dask workers
            from ._distributed import fit_threshold_optimizer_dask
            return fit_threshold_optimizer_dask(self, X, y, sensitive_features, kwargs, epsilon=epsilon, delta=delta)
        if self._delegates_to_fairlearn(epsilon):
            return self._fit_fairlearn(X, y, sensitive_features=sensitive_features, epsilon=epsilon, delta=delta,
                                       **kwargs)
        epsilon, delta, gamma, groups = self._check_public_inputs()
        self._check_fit_arguments(X, kwargs)
        self._forget_fit()
        labels = _binary_labels(y)
        _check_lengths(X, sensitive_features, labels.size)
        self.estimator_ = self._fit_estimator(X, labels, private=not math.isinf(epsilon), **kwargs)
        self._predict_method = self._resolve_predict_method()
        outputs = self._outputs(X, private=not math.isinf(epsilon))
        if outputs.size != labels.size:
            raise ValueError(MESSAGE_X_Y_ROWS)
        group_vector = as_group_vector(sensitive_features, labels.size, groups=groups)
        if groups is None:
            groups = resolve_groups(None, group_vector, estimator_name=type(self).__name__,
                                    private=not math.isinf(epsilon))
        group_index = encode_groups(group_vector, groups)
        # A declared group without rows, or without one label, is not an error: its cells are released with noise
        # like any other, and a constraint whose noisy mass is not positive is dropped (see _private_rates).
        self.groups_ = groups
        self._set_grid(outputs)
        bin_index = self._discretize(outputs, warn_clipped=False)
        n_bins = self.bin_edges_.size - 1

        self.noisy_table_, self.privacy_spent_ = self._release_joint_table(
            bin_index, group_index, labels, n_groups=len(groups), n_bins=n_bins, epsilon=epsilon, delta=delta)
        return self._solve_from_release(gamma, n_rows=labels.size, n_bins=n_bins, epsilon=epsilon, delta=delta)

    def _solve_from_release(self, gamma, *, n_rows, n_bins, epsilon, delta):
        """Rates, slack and the mixing LP on ``noisy_table_`` alone (shared by the in-memory and the Dask fit)."""
        rates = self._estimate_rates(self.noisy_table_)
        self.table_ = rates.table
        self.group_label_mass_ = rates.mass
        self.rate_error_ = rate_errors(rates.mass, n_rows=n_rows, epsilon=epsilon, delta=delta, beta=self.beta,
                                       n_bins=n_bins, rates=_CONSTRAINT_RATES[self.constraints])
        self.slack_ = constraint_slack(self.rate_error_, enabled=bool(self.privacy_slack),
                                       paper=delta == 0 and n_bins == 2)
        self.mixing_rates_, self.objective_value_ = self._solve_mixing_lp(rates, gamma)
        # Each group's rule in the form of Fairlearn's interpolation_dict (a group mixing more than two thresholds
        # gets the rule with the same released rates); Fairlearn's introspection is built from it on first access.
        self.mixing_rates_ = representable_mixing(self.mixing_rates_, self.table_, flip=bool(self.flip))
        warn_if_unenforced(table=self.table_, mixing_rates=self.mixing_rates_, errors=self.rate_error_,
                           slack=self.slack_, gamma=gamma, groups=self.groups_, stacklevel=4)
        return self

    def _check_params(self):
        """All public parameters of the DP path; constraints/objective errors are Fairlearn's."""
        _check_constraints_and_objective(self.constraints, self.objective)
        self._check_dp_params()
        gamma = 0.0 if self.tol is None else self.tol
        if isinstance(gamma, bool) or not isinstance(gamma, numbers.Real) or not 0 <= gamma <= 1:
            raise ValueError(f"tol must be None or in [0, 1], got {self.tol!r}.")
        return float(gamma)

    def _check_dp_params(self, fairlearn_path=False):
        """Checked on both paths, before the budget: the parameters Fairlearn does not have, and those Fairlearn
        accepts silently (``grid_size=0``) or refuses late with an error that does not name them (``estimator``,
        ``predict_method``). On Fairlearn's path ``flip`` and ``prefit`` keep Fairlearn's reading (their truth
        value), so a drop-in call that passes ``prefit=1`` behaves as before."""
        checks = _PARAMETER_CHECKS
        if fairlearn_path:
            checks = {name: check for name, check in checks.items() if name not in ("flip", "prefit")}
        validate_params(self, checks)
        check_estimator(self.estimator, prefit=bool(self.prefit))
        check_choice(self.predict_method, "predict_method", _PREDICT_METHODS)
        check_positive_int(self.grid_size, "grid_size")
        if isinstance(self.beta, bool) or not isinstance(self.beta, numbers.Real) or not 0 < self.beta < 1:
            raise ValueError(f"beta must be in (0, 1), got {self.beta!r}.")
        if self.privacy_unit not in _PRIVACY_UNITS:
            raise ValueError(f"privacy_unit must be one of {_PRIVACY_UNITS}, got {self.privacy_unit!r}.")
        check_n_bins(self.n_score_bins, "n_score_bins", maximum=MAX_N_SCORE_BINS,
                     reason=" (the mixing LP grows with it)")
        if self.score_range is not None:
            _check_score_range(self.score_range)

    def _fit_estimator(self, X, labels, *, private=True, **kwargs):
        if self.estimator is None:
            if kwargs:
                raise ValueError("fit keyword arguments are only passed to an estimator; estimator is None.")
            return None
        if self.prefit:
            check_is_fitted(self.estimator)
            return self.estimator
        if private and self.privacy_unit == "record" and not type(self.estimator).__module__.startswith("diffprivlib"):
            warnings.warn(
                "privacy_unit='record' but the estimator is fitted non-privately on the same data: the "
                "post-processed model as a whole is then NOT differentially private for whole records. Use a prefit "
                "estimator trained on other data or a DP estimator (e.g. from diffprivlib).", PrivacyWarning,
                stacklevel=4)
        return clone(self.estimator).fit(X, labels, **kwargs)

    def _resolve_predict_method(self):
        if self.predict_method != "auto":
            return self.predict_method
        if self.estimator_ is None:
            return "predict_proba" if self.score_range is None else "decision_function"
        for method in ("predict_proba", "decision_function", "predict"):
            if hasattr(self.estimator_, method):
                return method
        raise ValueError("estimator has none of predict_proba, decision_function, predict.")

    def _outputs(self, X, *, private=False):
        """Scores of the base estimator; ``private``: X holds the fitting rows (see ``call_on_private_rows``)."""
        if self.estimator_ is None:
            return as_1d_float(X, "X")
        method = getattr(self.estimator_, self._predict_method)
        raw = (call_on_private_rows(method, X, f"estimator.{self._predict_method}(X)") if private else method(X))
        if self._predict_method == "predict_proba":
            raw = np.asarray(raw)[:, 1]
        return as_1d_float(raw, f"estimator.{self._predict_method}(X)")

    def _set_grid(self, outputs):
        if self._predict_method == "predict":
            if not np.all(np.isin(outputs, (0.0, 1.0))):
                raise ValueError("predict_method='predict' needs binary base predictions in {0, 1}; use scores "
                                 "(predict_proba / decision_function) otherwise.")
            self.mode_ = "binary"
            self.bin_edges_ = np.array([-0.5, 0.5, 1.5])
            return
        if self._predict_method == "decision_function" and self.score_range is None:
            raise ValueError("score_range=(low, high) is required with decision_function scores; it must be public, "
                             "not computed from the data.")
        low, high = (0.0, 1.0) if self.score_range is None else _check_score_range(self.score_range)
        self.mode_ = "scores"
        self.bin_edges_ = np.linspace(low, high, int(self.n_score_bins) + 1)

    def _discretize(self, outputs, *, warn_clipped=True):
        """Bin index of each output; ``fit`` clips scores to ``score_range`` silently (a warning would depend on the
        private data), ``predict`` warns."""
        if self.mode_ == "binary":
            if not np.all(np.isin(outputs, (0.0, 1.0))):
                raise ValueError("The base predictions must be binary (0 or 1), as at fit time.")
            return outputs.astype(np.intp)
        low, high = self.bin_edges_[0], self.bin_edges_[-1]
        if warn_clipped and np.any((outputs < low) | (outputs > high)):
            warnings.warn(f"Some scores lie outside score_range=({low}, {high}) and were clipped to it.",
                          UserWarning, stacklevel=3)
        n_bins = self.bin_edges_.size - 1
        position = np.round((np.clip(outputs, low, high) - low) * n_bins / (high - low), 9)
        return np.clip(np.floor(position).astype(np.intp), 0, n_bins - 1)

    def _release_joint_table(self, bin_index, group_index, labels, *, n_groups, n_bins, epsilon, delta):
        """Alg. 1, lines 2-4: the noisy joint PMF ``q~(bin, a, y)``, charged once to the accountant."""
        noisy, spend = private_joint_histogram(2 * bin_index + labels, group_index, n_bins=2 * n_bins,
                                               n_groups=n_groups, epsilon=epsilon, delta=delta,
                                               accountant=self.accountant, random_state=self.random_state)
        return noisy.reshape(n_groups, n_bins, 2), spend

    @staticmethod
    def _estimate_rates(noisy_table):
        """Private ROC statistics from the released table only (clip negative cells, renormalise)."""
        return _private_rates(noisy_table)

    def _solve_mixing_lp(self, rates, gamma):
        """LP~ (1) of Jagielski et al. on the private statistics: the best mixture of thresholds per group."""
        return _solve_mixing_lp(rates, gamma=gamma, slack=self.slack_, constraints=self.constraints,
                                objective=self.objective, flip=bool(self.flip), solver=self.solver)

    # -------------------------------------------------------------- predict
    def _dp_fitted(self):
        return "mixing_rates_" in self.__dict__

    def __getattr__(self, name):
        """Fairlearn's fitted attributes after a finite-epsilon fit (``interpolated_thresholder_``, ``x_metric_``,
        ``y_metric_``, what ``plot_threshold_optimizer`` reads), built from released values on first access.

        An ``AttributeError`` while building them is a defect, not a missing attribute: it is raised as a
        ``RuntimeError`` (with the cause), so that ``hasattr`` does not quietly answer False."""
        if name in INTROSPECTION_ATTRIBUTES and "mixing_rates_" in self.__dict__:
            try:
                set_fairlearn_introspection(self)
            except AttributeError as exc:
                raise RuntimeError(f"Building Fairlearn's introspection attribute {name!r} from the released values "
                                   f"failed: {exc}") from exc
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def predict(self, X, *, sensitive_features, random_state=None):
        """Randomised fair predictions (0/1) for each row; ``random_state`` makes them reproducible.

        After a fit at finite ``epsilon``: randomised thresholding with the private mixing rates; ``None`` draws
        from a generator seeded by the operating system, never numpy's global one. After a fit at
        ``epsilon=inf``: Fairlearn's ``ThresholdOptimizer.predict``, with ``None`` likewise turned into an
        OS-seeded generator (Fairlearn's would use numpy's global state).

        On Dask inputs (``X`` and ``sensitive_features`` Dask arrays, DataFrames or Series, partitioned alike) the
        result is a lazy Dask array with one block per partition of ``X``, computed on the workers, and exactly
        the in-memory predictions of the computed inputs with the same ``random_state``
        (``fairlearn_dp/postprocessing/_dask_predict.py``). A group not in ``groups_`` raises its ``ValueError``
        when the result is computed.
        """
        if is_dask_input(X, sensitive_features):
            check_is_fitted(self)
            return predict_dask(self, X, sensitive_features, random_state, dtype=int)
        return self._randomised_predict(X, sensitive_features, check_random_state(random_state))

    def _randomised_predict(self, X, sensitive_features, generator):
        """``predict`` with the ``RandomState`` ``generator``: one draw per row, in row order (a Dask partition
        passes the generator advanced by the rows before it)."""
        if not self._dp_fitted():
            return super().predict(X, sensitive_features=sensitive_features, random_state=generator)
        probability = self._pmf_predict(X, sensitive_features=sensitive_features)[:, 1]
        return (generator.random_sample(probability.size) < probability).astype(int)

    def _pmf_predict(self, X, *, sensitive_features):
        """``[P(Y_tilde = 0), P(Y_tilde = 1)]`` for each row, shape (n_samples, 2) (Fairlearn's after a fit at
        ``epsilon=inf``); on Dask inputs a lazy Dask array of shape (n_samples, 2), as ``predict``."""
        if is_dask_input(X, sensitive_features):
            check_is_fitted(self)
            return pmf_predict_dask(self, X, sensitive_features, n_columns=2)
        if not self._dp_fitted():
            return super()._pmf_predict(X, sensitive_features=sensitive_features)
        check_is_fitted(self, "mixing_rates_")
        outputs = self._outputs(X)
        group_index = encode_groups(as_group_vector(sensitive_features, outputs.size, groups=self.groups_),
                                    self.groups_)
        positive = self.mixing_rates_[group_index, self._discretize(outputs)]
        return np.column_stack([1.0 - positive, positive])


class _Rates:
    """Private statistics the LP needs, from the clipped table (Alg. 1's q~ with negative cells set to 0)."""

    def __init__(self, table, mass):
        self.table = table                          # (A, B, 2), renormalised
        self.mass = mass                            # (A, 2) clipped q~_{ay}, not renormalised (for the slack)
        slice_mass = table.sum(axis=1)              # (A, 2)
        defined = slice_mass > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            tail = np.cumsum(table[:, ::-1, :], axis=1)[:, ::-1, :]        # sum_{b >= j}, j = 0..B-1
            tail = np.concatenate([tail, np.zeros_like(tail[:, :1, :])], axis=1)   # j = B: never positive
            roc = np.where(defined[:, None, :], tail / np.where(defined, slice_mass, 1.0)[:, None, :], 0.5)
        self.fpr_at = roc[:, :, 0]                  # (A, B + 1): FPR of "predict 1 iff bin >= j"
        self.tpr_at = roc[:, :, 1]
        self.weight = slice_mass                    # q~_{ay}, renormalised


def _private_rates(noisy_table):
    noisy = np.asarray(noisy_table, dtype=float)
    clipped = np.maximum(noisy, 0.0)
    mass = clipped.sum(axis=1)
    total = clipped.sum()
    if total <= 0:
        raise ValueError("Every noisy cell is <= 0: the privacy budget is too small for this dataset.")
    empty = np.argwhere(mass <= 0)
    for a, label in empty:
        warnings.warn(f"The noisy mass of group index {a} with label {label} is 0 after clipping; its rate for "
                      "that label is undefined and its constraint on it is dropped.", RuntimeWarning, stacklevel=3)
    return _Rates(clipped / total, mass)


def _solve_mixing_lp(rates, *, gamma, slack, constraints, objective, flip, solver):
    """Hardt et al.'s LP over mixtures of (flipped) thresholds, on private rates. Returns (mixing rates, value).

    Variables ``z = [lambda (n_groups x (B + 1)), mu (same, only with flip)]``: ``lambda_{a,j}`` is the weight of
    "predict 1 iff bin >= j" and ``mu_{a,j}`` of "predict 1 iff bin < j"; each group's weights sum to 1. Every
    group rate is linear in ``z``, so the LP is ``max c.z`` s.t. ``A_eq z = 1``, ``A_ub z <= b_ub``, ``z >= 0``.
    """
    fpr_at, tpr_at, weight = rates.fpr_at, rates.tpr_at, rates.weight
    n_groups, n_points = fpr_at.shape
    blocks = 2 if flip else 1
    n_var = blocks * n_groups * n_points

    def rate_rows(at):                      # (n_groups, n_var): rate of group a as a linear function of z
        rows = np.zeros((n_groups, blocks, n_groups, n_points))
        for a in range(n_groups):
            rows[a, 0, a] = at[a]
            if flip:
                rows[a, 1, a] = 1.0 - at[a]
        return rows.reshape(n_groups, n_var)

    fpr, tpr = rate_rows(fpr_at), rate_rows(tpr_at)
    group_mass = weight.sum(axis=1)
    selection = (weight[:, :1] * fpr + weight[:, 1:] * tpr) / np.where(group_mass > 0, group_mass, 1.0)[:, None]
    group_rate = {"fpr": fpr, "tpr": tpr, "selection": selection}
    a_eq = np.zeros((n_groups, blocks, n_groups, n_points))
    for a in range(n_groups):
        a_eq[a, :, a, :] = 1.0
    a_eq = a_eq.reshape(n_groups, n_var)
    a_ub, b_ub = [], []
    for rate in _CONSTRAINT_RATES[constraints]:
        for a in range(1, n_groups):
            if np.isfinite(slack[rate][a]):
                gap = group_rate[rate][a] - group_rate[rate][0]
                a_ub += [gap, -gap]
                b_ub += [gamma + slack[rate][a]] * 2

    positives, negatives = weight[:, 1], weight[:, 0]
    if objective == "accuracy_score":
        c, constant = positives @ tpr - negatives @ fpr, negatives.sum()
    elif objective == "balanced_accuracy_score":
        c, constant = 0.5 * (positives @ tpr / positives.sum() - negatives @ fpr / negatives.sum()), 0.5
    elif objective == "selection_rate":
        c, constant = positives @ tpr + negatives @ fpr, 0.0
    elif objective == "true_positive_rate":
        c, constant = positives @ tpr / positives.sum(), 0.0
    elif objective == "true_negative_rate":
        c, constant = -negatives @ fpr / negatives.sum(), 1.0
    else:  # _AIF360_OBJECTIVE: sum_g (TPR_g - FPR_g)
        c, constant = (tpr - fpr).sum(axis=0), 0.0
    a_ub = np.array(a_ub).reshape(-1, n_var)
    b_ub = np.array(b_ub)
    if solver == "linprog":
        from scipy.optimize import linprog

        result = linprog(-c, A_ub=a_ub if a_ub.size else None, b_ub=b_ub if b_ub.size else None, A_eq=a_eq,
                         b_eq=np.ones(n_groups), bounds=(0, None), method="highs")
        ok, z, value = result.status == 0, result.x, (-result.fun if result.status == 0 else None)
        status = result.message
    else:
        import cvxpy as cp

        if solver not in cp.installed_solvers():
            raise ValueError(f"solver must be 'linprog' or an installed cvxpy solver {cp.installed_solvers()}, "
                             f"got {solver!r}.")
        variable = cp.Variable(n_var, nonneg=True)
        cons = [a_eq @ variable == 1] + ([a_ub @ variable <= b_ub] if a_ub.size else [])
        problem = cp.Problem(cp.Maximize(c @ variable), cons)
        problem.solve(solver=solver)
        ok, z, value, status = problem.status == cp.OPTIMAL, variable.value, problem.value, problem.status
    if not ok:
        raise RuntimeError(f"The mixing LP has no optimal solution ({status}); a constant predictor is always "
                           "feasible, so this points to a numerical problem.")
    # P(1 | bin b) = sum_{j <= b} lambda_j + sum_{j > b} mu_j; clip solver round-off into [0, 1].
    z = np.clip(np.asarray(z, dtype=float), 0.0, None).reshape(blocks, n_groups, n_points)
    positive = np.cumsum(z[0], axis=1)[:, :-1]
    if flip:
        positive = positive + np.cumsum(z[1][:, ::-1], axis=1)[:, ::-1][:, 1:]
    return np.clip(positive, 0.0, 1.0), float(value + constant)



def _check_score_range(score_range):
    """``score_range`` as a finite pair ``low < high``, with errors naming it."""
    try:
        low, high = (float(v) for v in score_range)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"score_range must be a pair of numbers (low, high), got {score_range!r}.") from exc
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"score_range must be finite with low < high, got {score_range!r}.")
    return low, high


def _check_constraints_and_objective(constraints, objective):
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
