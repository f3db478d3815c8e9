"""DP counterpart of Fairlearn's ThresholdOptimizer: Hardt et al.'s post-processing on Laplace-noised statistics
(Jagielski et al. 2019, Alg. 1), extended to scores through private ROC curves.
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np
from fairlearn.postprocessing import ThresholdOptimizer
from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .._fairlearn_compat import (
    BASE_ESTIMATOR_NONE_ERROR_MESSAGE,
    KW_CONTROL_FEATURES,
    MESSAGE_X_Y_ROWS,
    MESSAGE_Y_NONE,
    NO_CONTROL_FEATURES,
)
from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit
from .._utils._guarantee_repr import GuaranteeBound, GuaranteeReprMixin
from .._utils._private_models import fits_privately
from .._utils._rows import n_rows
from .._utils._validation import as_1d_float, as_group_vector, check_estimator, encode_groups, resolve_groups
from .._utils._withheld import call_on_private_rows, call_total_on_private_rows
from ..exceptions import PrivacyWarning, UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, validate_epsilon_delta
from ..privacy._random import check_random_state
from ._counting import (
    check_layout,
    counting_backend,
    is_dask_input,
    release_counts,
    require_declared_groups,
    require_prefit_or_none,
)
from ._dask_predict import pmf_predict_dask, predict_dask
from ._inputs import binary_labels as _binary_labels
from ._inputs import check_lengths as _check_lengths
from ._inputs import encode_group_index, light_copy
from ._inputs import n_columns as _n_columns
from ._introspection import INTROSPECTION_ATTRIBUTES, representable_mixing, set_fairlearn_introspection
from ._mixing_lp import (
    _AIF360_OBJECTIVE,
    _CONSTRAINT_RATES,
    _private_rates,
    _solve_mixing_lp,
    constraint_slack,
    disparity_bounds,
    lp_constant_choice,
    rate_errors,
    warn_if_constant,
    warn_if_unenforced,
)
from ._threshold_params import (
    MAX_N_SCORE_BINS,
    PUBLIC_PARAMETER_CHECKS,
    ThresholdOptimizerOptions,
    check_decision_function_range,
    check_fairlearn_path_params,
    check_public_X,
)
from ._threshold_params import check_constraints_and_objective as _check_constraints_and_objective
from ._threshold_params import check_score_range as _check_score_range

__all__ = ["DPThresholdOptimizer", "MAX_N_SCORE_BINS", "ThresholdOptimizerOptions"]

# Attributes set by our DP fit (Fairlearn's below are then built from its released values on first access);
# Fairlearn's fit sets ``interpolated_thresholder_`` and the private ones below.
_DP_FITTED = ("estimator_", "groups_", "mode_", "bin_edges_", "noisy_table_", "table_", "group_label_mass_",
              "slack_", "rate_error_", "disparity_bound_", "mixing_rates_", "objective_value_", "privacy_spent_", "_predict_method")
_FAIRLEARN_FITTED = ("estimator_", "interpolated_thresholder_", "x_metric_", "y_metric_", "privacy_spent_",
                     "_predict_method", "_tradeoff_curve", "_x_grid", "_y_min", "_x_best", "_y_best",
                     "_x_best_per_group", "_overall_tradeoff_curve", "_between_groups")


class _Public(NamedTuple):
    """The resolved public inputs of a DP-path fit (``check_public_inputs``)."""

    epsilon: float
    delta: float
    gamma: float
    groups: list | None


class DPThresholdOptimizer(GuaranteeReprMixin, SharedAccountantCloneMixin, PrivateFitMixin, ThresholdOptimizer):
    r"""Differentially private post-processing of a classifier for group fairness (a DP ``ThresholdOptimizer``).

    Fits group-specific randomised thresholds on a classifier's predictions or scores so that a fairness
    constraint holds with the best objective value, as Fairlearn's
    :class:`~fairlearn.postprocessing.ThresholdOptimizer` does [Hardt2016]_, but from one noisy table, so that the
    fitted post-processor is differentially private [Jagielski2019]_: bin the outputs on a public grid
    (``_discretize``), count the (bin, a, y) cells in memory or on Dask workers (``_counting.py``, the only step
    that reads the data), release the joint table ``q(bin, a, y)`` with noise, compute private ROC statistics (``_estimate_rates``), solve the mixing LP
    (``_solve_mixing_lp``) and predict by randomised thresholding. With binary predictions, ``flip=True`` and
    ``options=ThresholdOptimizerOptions(privacy_slack=True)`` this is Algorithm 1 of Jagielski et al.; scores are an
    extension (private ROC curves).
    At ``epsilon=inf`` with an estimator it *is* Fairlearn's class; at finite ``epsilon`` Fairlearn's
    introspection (what ``plot_threshold_optimizer`` reads) is built from the released values.

    Parameters
    ----------
    estimator : object, default=None
        A classifier; None post-processes ``X``, the one-column array of base predictions or scores.
    constraints : str, default="demographic_parity"
        "equalized_odds", "demographic_parity", "selection_rate_parity", "true_positive_rate_parity",
        "false_negative_rate_parity", "false_positive_rate_parity" or "true_negative_rate_parity" (Fairlearn's).
    objective : str, default="accuracy_score"
        Maximised: "accuracy_score", "balanced_accuracy_score"; "selection_rate", "true_positive_rate",
        "true_negative_rate" (not with "equalized_odds", as in Fairlearn); "sum_of_group_tpr_minus_fpr" (AIF360's).
    grid_size : int, default=1000
        Fairlearn's grid (an integer >= 1), used at ``epsilon=inf``; at finite ``epsilon`` the number of points
        minus one of the released trade-off curves.
    flip : bool, default=False
        Also allow flipped decisions (predict 1 below a threshold), as Fairlearn's ``flip``.
    prefit : bool, default=False
        If True, ``estimator`` is already fitted.
    predict_method : str, default="auto"
        "auto" (``predict_proba``, else ``decision_function``, else ``predict``), "predict_proba",
        "decision_function" or "predict" (binary predictions: the paper's setting).
    tol : float or None, default=None
        The tolerance ``gamma`` in [0, 1]: as in Fairlearn, the range of each constrained rate over the groups is at
        most ``tol`` on the released rates (plus the privacy slack); None means 0.
    epsilon : float, default=1.0
        Privacy budget (> 0); ``numpy.inf`` is Fairlearn's non-private ``ThresholdOptimizer``.
    delta : float, default=0.0
        0 for pure DP (Laplace); > 0 uses the analytic Gaussian mechanism.
    score_range : tuple (low, high) or None, default=None
        Public range of the scores; None means (0, 1). Required for ``decision_function``. Scores outside are
        clipped: silently in ``fit``, with a warning in ``predict``.
    groups : list or None, default=None
        Public list of group labels, the first the anchor group; None reads them from the data (sorted) with a
        :class:`~fairlearn_dp.exceptions.PrivacyWarning`.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        The neighbouring relation protected, see Privacy.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``(epsilon, delta)`` once per ``fit``; None uses diffprivlib's default accountant.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise of ``fit`` (None: a cryptographically secure generator; a seed is for experiments only).
    options : ThresholdOptimizerOptions or None, default=None
        Expert settings (:class:`ThresholdOptimizerOptions`): the confidence ``beta`` of the error bounds, the
        paper's ``privacy_slack``, the number of score bins ``n_score_bins`` and the LP ``solver``; None uses their
        defaults (0.05, False, 10, "linprog").

    Attributes
    ----------
    estimator_ : object or None
        The base classifier (None when ``estimator`` is None).
    groups_ : list
        Group labels; row ``a`` of every per-group attribute refers to ``groups_[a]``.
    mode_ : {"binary", "scores"}
        Binary predictions or binned scores.
    bin_edges_ : ndarray
        Score-bin edges (binary mode: the two "bins" are the predictions 0 and 1).
    noisy_table_ : ndarray of shape (n_groups, n_bins, 2)
        The released statistic ``q~(bin, a, y)``; everything below is computed from it alone.
    table_ : ndarray of shape (n_groups, n_bins, 2)
        ``noisy_table_`` with negative cells clipped to 0 and renormalised to sum 1.
    group_label_mass_ : ndarray of shape (n_groups, 2)
        ``q~_{ay}`` (clipped, before renormalisation), used by the slack.
    slack_ : dict
        For each constrained rate, each group's privacy slack added to ``gamma`` (``inf``: constraint dropped).
    rate_error_ : dict
        For each constrained rate, each group's bound ``s_a`` on the error of its private rate (all hold together
        with probability >= 1 - beta, ``beta`` of ``options``; ``inf`` for a slice without noisy mass).
    disparity_bound_ : dict
        For each constrained rate, a ``GuaranteeBound(bound, groups, beta)``: with probability >= 1 - beta, no two
        groups' rates of the fitted post-processor on the fitting data differ by more than ``bound`` (their released
        gap plus both ``rate_error_``, at most 1), ``groups`` the pair attaining it. From released values only;
        shown in the repr of the fitted estimator (how wide the guarantee is, not a warning). Not set by
        Fairlearn's fit (``epsilon=inf`` with an estimator).
    mixing_rates_ : ndarray of shape (n_groups, n_bins)
        ``P(Y_tilde = 1 | bin, group)``; in binary mode ``mixing_rates_[a] = (p_{0a}, p_{1a})`` of the paper.
    objective_value_, constant_choice_, privacy_spent_ : float, ConstantChoice, PrivacySpend
        The LP's objective on the private statistics; its choice against the constant classifiers (made on the
        released table, no extra budget: docs/privacy_analysis/threshold_optimizer.md); what ``fit`` charged.
    interpolated_thresholder_ : fairlearn.postprocessing InterpolatedThresholder
        Fairlearn's thresholder whose ``interpolation_dict`` holds each group's rule in Fairlearn's format.
    x_metric_, y_metric_ : str
        As in Fairlearn: the constraint metric and the objective.
    _tradeoff_curve, _x_grid, _y_min, _x_best, _y_best, _x_best_per_group, _overall_tradeoff_curve, _between_groups
        What ``plot_threshold_optimizer`` reads, in Fairlearn's format, from the released values.

    Privacy
    -------
    - Neighbouring relation (``privacy_unit``): one person's sensitive attribute changed ("sensitive_attribute",
      as in Jagielski et al.), or one whole record (x, a, y) of a dataset of the same size ``m`` ("record").
    - Released statistic: the joint PMF of (output bin, group, label) over all cells of the public grid.
    - Mechanism: diffprivlib's Laplace (Alg. 1) or analytic Gaussian (``delta > 0``), charged once per ``fit``.
    - Sensitivity: ``2/m`` in L1 (Jagielski et al., Claim B.1) and ``sqrt(2)/m`` in L2.
    - Public inputs: ``score_range``, ``groups``, ``options`` (``n_score_bins``, ``beta``), ``tol``, ``m``; under
      "record" the base classifier must not depend on the fitting data, else not on their attribute (an X column
      named like it: refused).
    - Derivations: docs/privacy_analysis/threshold_optimizer.md.

    References
    ----------
    .. [Hardt2016] M. Hardt, E. Price, N. Srebro. "Equality of Opportunity in Supervised Learning." NeurIPS 2016.
    .. [Jagielski2019] M. Jagielski, M. Kearns, J. Mao, A. Oprea, A. Roth, S. Sharifi-Malvajerdi, J. Ullman.
       "Differentially Private Fair Learning." ICML 2019.

    Examples
    --------
    Post-process scores (``estimator=None``: ``X`` is the column of scores) under demographic parity at epsilon 1:

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.postprocessing import DPThresholdOptimizer
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 4000)
    >>> y = (rng.random(4000) < np.where(sex == "male", 0.5, 0.3)).astype(int)
    >>> scores = (0.6 * y + 0.4 * rng.random(4000)).reshape(-1, 1)
    >>> post = DPThresholdOptimizer(epsilon=1.0, groups=["female", "male"], random_state=0,
    ...                             accountant=BudgetAccountant())
    >>> post = post.fit(scores, y, sensitive_features=sex)
    >>> post.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> y_pred = post.predict(scores, sensitive_features=sex, random_state=0)
    >>> rates = [y_pred[sex == group].mean() for group in post.groups_]   # selection rates, about 0.5 each
    >>> bool(abs(rates[0] - rates[1]) < 0.05)
    True
    """

    _public_parameter_checks = PUBLIC_PARAMETER_CHECKS

    def __init__(self, *, estimator: Any = None, constraints: str = "demographic_parity",
                 objective: str = "accuracy_score", grid_size: int = 1000, flip: bool = False, prefit: bool = False,
                 predict_method: str = "auto", tol: float | None = None, epsilon: float = 1.0, delta: float = 0.0,
                 score_range: tuple[float, float] | None = None, groups: list | None = None,
                 privacy_unit: str = "sensitive_attribute", accountant: Any = None, random_state: Any = None,
                 options: ThresholdOptimizerOptions | None = None) -> None:
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
        self.score_range = score_range
        self.groups = groups
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.random_state = random_state
        self.options = options

    def _options(self):
        """The expert settings: ``options``, or the defaults when it is None."""
        return self.options if self.options is not None else ThresholdOptimizerOptions()

    # ------------------------------------------------------------------ fit
    def _check_public_parameters(self):
        """Step 1 on the path ``fit`` takes: on Fairlearn's (``epsilon=inf`` with an estimator) the checks that keep
        Fairlearn's reading of its own parameters (``check_fairlearn_path_params``; Fairlearn's ``fit`` checks the
        rest), else the table and the joint rules.
        """
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        if self._delegates_to_fairlearn(epsilon):
            check_fairlearn_path_params(self)
            return _Public(epsilon, delta, None, self._check_groups_param())
        return super()._check_public_parameters()

    def _check_params_together(self, checked):
        """The joint rules of the DP path, after the table: ``epsilon`` and ``delta``, the constraints and objective
        (Fairlearn's errors), the estimator (cloned unless prefit), decision-function scores without
        ``score_range``, and the declared groups. Returns the resolved public inputs.
        """
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        _check_constraints_and_objective(self.constraints, self.objective)
        check_estimator(self.estimator, prefit=checked["prefit"])
        check_decision_function_range(self.predict_method, self.score_range)
        return _Public(epsilon, delta, checked["tol"], self._check_groups_param())

    def _planned_spend(self, resolved):
        """One release, charged ``(epsilon, delta)``."""
        return PrivacySpend(resolved.epsilon, resolved.delta)

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """Public checks of ``fit``'s arguments: on Fairlearn's path only that they are in memory; else
        :meth:`_check_fit_arguments`, and for Dask inputs :meth:`_check_dask_inputs`, for inputs in memory ``y``
        given and the rows of ``X``, ``y`` and ``sensitive_features`` alike (Fairlearn's count-free messages).
        """
        dask_input = is_dask_input(X, y, sensitive_features)
        if self._delegates_to_fairlearn(resolved.epsilon):
            if dask_input:
                raise ValueError("Dask inputs are not supported at epsilon=inf with an estimator: there "
                                 "DPThresholdOptimizer is Fairlearn's ThresholdOptimizer, whose fit needs in-memory "
                                 "data. Compute the inputs, or pass the base model's scores as X with "
                                 "estimator=None.")
            return resolved
        self._check_fit_arguments(X, sensitive_features, fit_kwargs)
        if dask_input:
            self._check_dask_inputs(X, y, sensitive_features, resolved.groups)
        else:                                   # the rows' counts are public: refused before the budget check
            if y is None or n_rows(y) == 0:             # Fairlearn's order: no labels, then the rows
                raise ValueError(MESSAGE_Y_NONE + ".")
            _check_lengths(X, sensitive_features, n_rows(y))
        return resolved

    def _check_fit_arguments(self, X, sensitive_features, kwargs):
        """Public checks of ``fit``'s arguments (in memory and on Dask): no control features, no sensitive column in
        a public X (``check_public_X``), and with ``estimator=None`` one column of scores (Fairlearn's error).
        """
        if kwargs.get(KW_CONTROL_FEATURES) is not None:
            raise ValueError(NO_CONTROL_FEATURES)
        check_public_X(self, X, sensitive_features)
        if self.estimator is None and _n_columns(X) not in (None, 1):
            raise ValueError(BASE_ESTIMATOR_NONE_ERROR_MESSAGE + " With estimator=None, X must be the single column "
                             "of the base classifier's predictions or scores.")

    def _check_dask_inputs(self, X, y, sensitive_features, groups):
        """Public checks of Dask inputs, before any data: labels given, groups declared, the base estimator prefit
        or None, and the layout of the partitions (``_counting.py``).
        """
        if y is None:
            raise ValueError(MESSAGE_Y_NONE + ".")
        require_declared_groups(groups)
        require_prefit_or_none(self.estimator, self.prefit)
        check_layout(X, y, sensitive_features)

    def _check_groups_param(self):
        return None if self.groups is None else resolve_groups(self.groups, None, estimator_name=type(self).__name__)

    def _delegates_to_fairlearn(self, epsilon):
        """True when ``fit`` is Fairlearn's: ``epsilon=inf``, an estimator, and an objective Fairlearn has (a public
        decision). ``estimator=None`` (the values in ``X`` post-processed, which Fairlearn has no mode for) and the
        AIF360 objective keep the noise-free LP.
        """
        return (math.isinf(epsilon) and self.estimator is not None
                and not (isinstance(self.objective, str) and self.objective == _AIF360_OBJECTIVE))

    def _forget_fit(self):
        """Drop the fitted attributes of a previous fit, so that ``predict`` dispatches on this fit's kind only
        (``atomic_fit`` restores them if this fit raises).
        """
        for name in set(_DP_FITTED + _FAIRLEARN_FITTED):
            self.__dict__.pop(name, None)

    def _fit_fairlearn(self, X, y, *, sensitive_features, public, **kwargs):
        """``epsilon=inf``: our privacy parameters and the accountant (``public``), then Fairlearn's ``fit``."""
        self._forget_fit()
        super().fit(X, y, sensitive_features=sensitive_features, **kwargs)
        self.constant_choice_ = lp_constant_choice(None)       # epsilon = inf: no choice, Fairlearn's output
        self.privacy_spent_ = charge(self.accountant, self._planned_spend(public))
        return self

    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike, **kwargs: Any) -> DPThresholdOptimizer:
        """Fit the private post-processor.

        At ``epsilon=inf`` (with an estimator and an objective Fairlearn supports) this is Fairlearn's
        ``ThresholdOptimizer.fit`` after the privacy parameters are validated; the accountant is charged
        ``(inf, delta)``. Otherwise the one order of every private fit (``_utils/_fit_order.py``): the public
        parameters and the budget, the domain (base estimator, groups, grid), the counts of the (group, bin, label)
        cells (in memory or on Dask workers, ``_counting.py``), one release, the mixing LP on the release.

        Parameters
        ----------
        X : array-like
            Features for ``estimator``; with ``estimator=None``, the one-column array of base predictions/scores.
            Dask arrays / DataFrames (``X``, ``y`` and ``sensitive_features`` alike, same partitions; ``groups``
            declared; estimator prefit or None) fit out of core: counts on the workers, one release here
            (``fairlearn_dp/postprocessing/_counting.py``).
        y : array-like of shape (n_samples,)
            Binary labels (0 and 1).
        sensitive_features : array-like
            Group membership (several columns are combined into one label per row).
        **kwargs
            Passed to ``estimator.fit``.

        Returns
        -------
        self
        """
        # 1-2. public parameters, the public layout of the arguments (_check_public_layout), budget
        public = self.check_public_inputs(X, y, sensitive_features=sensitive_features, **kwargs)
        epsilon, delta = public.epsilon, public.delta
        if self._delegates_to_fairlearn(epsilon):
            self._fit_fairlearn(X, y, sensitive_features=sensitive_features, public=public, **kwargs)
            set_fit_features(self, X)               # n_features_in_ (and feature_names_in_), as scikit-learn's
            return self
        self._forget_fit()
        private = not math.isinf(epsilon)
        labels = self._read_estimator(X, y, sensitive_features, public.groups, private, kwargs)   # 3. domain
        groups = public.groups
        if groups is None:                                         # in memory only (Dask: declared)
            groups = resolve_groups(None, as_group_vector(sensitive_features, labels.size), private=private,
                                    estimator_name=type(self).__name__)
        # A declared group without rows, or without one label, is not an error: its cells are released with noise
        # like any other, and a constraint whose noisy mass is not positive is dropped (see _private_rates).
        self.groups_ = groups
        self._set_grid()
        n_bins, n_groups = self.bin_edges_.size - 1, len(groups)
        counts, n = counting_backend(X, y, sensitive_features)(    # 4. count
            self._cell_index(private), n_groups * 2 * n_bins, X, y, sensitive_features)
        noisy, self.privacy_spent_ = release_counts(               # 5. release (Alg. 1, lines 2-4)
            counts.reshape(n_groups, 2 * n_bins), n, epsilon=epsilon, delta=delta, accountant=self.accountant,
            random_state=self.random_state)
        self.noisy_table_ = noisy.reshape(n_groups, n_bins, 2)
        self._solve_from_release(public.gamma, n_rows=n, n_bins=n_bins, epsilon=epsilon, delta=delta)  # 6
        set_fit_features(self, X)
        return self

    def _read_estimator(self, X, y, sensitive_features, groups, private, kwargs):
        """The base estimator (fitted here in memory, else prefit or None) and the predict method. Returns the
        labels when they were read (in memory, to fit the estimator or to read the groups), else None.
        """
        labels = None
        if groups is None or (self.estimator is not None and not self.prefit):
            labels = _binary_labels(y)
            _check_lengths(X, sensitive_features, labels.size)
        self.estimator_ = self._fit_estimator(X, labels, private=private, **kwargs)
        self._predict_method = self._resolve_predict_method()
        return labels

    def _cell_index(self, private):
        """``cell_index(x, y, sensitive_features)`` for the counting backends: a light copy of this estimator with
        what the workers need (shipped once per Dask worker) bound to :func:`_threshold_cells`.
        """
        keep = set(self.get_params(deep=False)) | {"estimator_", "_predict_method", "groups_", "mode_", "bin_edges_"}
        return functools.partial(_threshold_cells, light_copy(self, keep), list(self.groups_),
                                 self.bin_edges_.size - 1, private)

    def _solve_from_release(self, gamma, *, n_rows, n_bins, epsilon, delta):
        """Rates, slack and the mixing LP on ``noisy_table_`` alone."""
        rates = self._estimate_rates(self.noisy_table_)
        beta = self._options().beta
        self.table_ = rates.table
        self.group_label_mass_ = rates.mass
        self.rate_error_ = rate_errors(rates.mass, n_rows=n_rows, epsilon=epsilon, delta=delta, beta=beta,
                                       n_bins=n_bins, rates=_CONSTRAINT_RATES[self.constraints])
        self.slack_ = constraint_slack(self.rate_error_, enabled=bool(self._options().privacy_slack),
                                       paper=delta == 0 and n_bins == 2)
        self.mixing_rates_, self.objective_value_ = self._solve_mixing_lp(rates, gamma)
        # Each group's rule in the form of Fairlearn's interpolation_dict (a group mixing more than two thresholds
        # gets the rule with the same released rates); Fairlearn's introspection is built from it on first access.
        self.mixing_rates_ = representable_mixing(self.mixing_rates_, self.table_, flip=bool(self.flip))
        bounds = disparity_bounds(self.table_, self.mixing_rates_, self.rate_error_)      # a rate gap is <= 1
        self.disparity_bound_ = {rate: GuaranteeBound(float(min(bound, 1.0)), (self.groups_[a], self.groups_[b]),
                                                      beta) for rate, (bound, (a, b)) in bounds.items()}
        warn_if_unenforced(table=self.table_, mixing_rates=self.mixing_rates_, slack=self.slack_, gamma=gamma,
                           groups=self.groups_)
        warn_if_constant(self.mixing_rates_, self.groups_)
        self.constant_choice_ = lp_constant_choice(self.mixing_rates_, n_rows=n_rows, epsilon=epsilon, delta=delta,
                                                   beta=beta, objective=self.objective)
        return self

    def _fit_estimator(self, X, labels, *, private=True, **kwargs):
        if self.estimator is None:
            if kwargs:
                raise ValueError("fit keyword arguments are only passed to an estimator; estimator is None.")
            return None
        if self.prefit:
            check_is_fitted(self.estimator)
            return self.estimator
        if private and self.privacy_unit == "record" and not fits_privately(self.estimator):
            warn("privacy_unit='record' but the estimator is fitted non-privately on the same data: the "
                 "post-processed model as a whole is then NOT differentially private for whole records. Use a prefit "
                 "estimator trained on other data or a DP estimator (diffprivlib's, or DPLogisticRegression).",
                 PrivacyWarning)
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
        what = f"estimator.{self._predict_method}(X)"
        if private and self.privacy_unit == "record":
            # X is private: a row on which the estimator raises, or gives a non-finite or (predict) non-binary
            # output, gets the public default (0, or the low end of score_range), so whether the fit succeeds
            # depends on no record; the default is a function of the row alone, the sensitivity is unchanged.
            classes = getattr(self.estimator_, "classes_", None)
            if self.mode_ == "binary" and classes is not None and not set(np.asarray(classes).tolist()) <= {0, 1}:
                raise ValueError(f"predict_method='predict' needs a classifier of the labels 0/1; the estimator's "
                                 f"classes_ are {list(classes)!r}.")     # public: the prefit model's own classes
            default = 0.0 if self.mode_ == "binary" else float(self.bin_edges_[0])
            raw = call_total_on_private_rows(method, X, what, default=default, row_shape=self._output_row_shape,
                                             valid=lambda out: self._valid_outputs(self._scores(out, what)))
        else:
            raw = call_on_private_rows(method, X, what) if private else method(X)
        return as_1d_float(self._scores(raw, what), what)

    def _scores(self, raw, what):
        """The positive class's probability (``predict_proba``) or the outputs (a single column as a vector)."""
        raw = np.asarray(raw)
        if self._predict_method == "predict_proba":
            if raw.ndim != 2 or raw.shape[1] < 2:
                raise ValueError(f"{what} must return one column per class, got shape {raw.shape}.")
            return raw[:, 1]
        return raw[:, 0] if raw.ndim == 2 and raw.shape[1] == 1 else raw

    def _output_row_shape(self):
        """The public shape of one output row: one column per class of ``predict_proba``, else one value."""
        return (len(getattr(self.estimator_, "classes_", (0, 1))),) if self._predict_method == "predict_proba" else ()

    def _valid_outputs(self, outputs):
        """Rows whose output is in the domain: finite, and in {0, 1} for binary predictions."""
        outputs = np.asarray(outputs, dtype=float)
        return np.isfinite(outputs) & (np.isin(outputs, (0.0, 1.0)) if self.mode_ == "binary" else True)

    def _set_grid(self):
        """The public grid: binary predictions (two "bins") or ``n_score_bins`` bins of ``score_range``."""
        if self._predict_method == "predict":
            self.mode_ = "binary"
            self.bin_edges_ = np.array([-0.5, 0.5, 1.5])
            return
        check_decision_function_range(self._predict_method, self.score_range)
        low, high = (0.0, 1.0) if self.score_range is None else _check_score_range(self.score_range)
        self.mode_ = "scores"
        self.bin_edges_ = np.linspace(low, high, int(self._options().n_score_bins) + 1)

    def _check_fit_outputs(self, outputs):
        """Fit's domain check of the base outputs: binary predictions in {0, 1} with ``predict_method='predict'``."""
        if self.mode_ == "binary" and not np.all(np.isin(outputs, (0.0, 1.0))):
            raise ValueError("predict_method='predict' needs binary base predictions in {0, 1}; use scores "
                             "(predict_proba / decision_function) otherwise.")

    def _discretize(self, outputs, *, warn_clipped=True):
        """Bin index of each output; ``fit`` clips scores to ``score_range`` silently (a warning would depend on the
        private data), ``predict`` warns.
        """
        if self.mode_ == "binary":
            if not np.all(np.isin(outputs, (0.0, 1.0))):
                raise ValueError("The base predictions must be binary (0 or 1), as at fit time.")
            return outputs.astype(np.intp)
        low, high = self.bin_edges_[0], self.bin_edges_[-1]
        if warn_clipped and np.any((outputs < low) | (outputs > high)):
            warn(f"Some scores lie outside score_range=({low}, {high}) and were clipped to it.", UtilityWarning)
        n_bins = self.bin_edges_.size - 1
        position = np.round((np.clip(outputs, low, high) - low) * n_bins / (high - low), 9)
        return np.clip(np.floor(position).astype(np.intp), 0, n_bins - 1)

    @staticmethod
    def _estimate_rates(noisy_table):
        """Private ROC statistics from the released table only (clip negative cells, renormalise)."""
        return _private_rates(noisy_table)

    def _solve_mixing_lp(self, rates, gamma):
        """LP~ (1) of Jagielski et al. on the private statistics: the best mixture of thresholds per group."""
        return _solve_mixing_lp(rates, gamma=gamma, slack=self.slack_, constraints=self.constraints,
                                objective=self.objective, flip=bool(self.flip), solver=self._options().solver)

    # -------------------------------------------------------------- predict
    def _dp_fitted(self):
        return "mixing_rates_" in self.__dict__

    def __getattr__(self, name):
        """Fairlearn's fitted attributes after a finite-epsilon fit (``interpolated_thresholder_``, ``x_metric_``,
        ``y_metric_``, what ``plot_threshold_optimizer`` reads), built from released values on first access.

        An ``AttributeError`` while building them is a defect, not a missing attribute: it is raised as a
        ``RuntimeError`` (with the cause), so that ``hasattr`` does not quietly answer False.
        """
        if name in INTROSPECTION_ATTRIBUTES and "mixing_rates_" in self.__dict__:
            try:
                set_fairlearn_introspection(self, predict_method=self._predict_method,
                                            discretize=lambda scores: self._discretize(scores, warn_clipped=False))
            except AttributeError as exc:
                raise RuntimeError(f"Building Fairlearn's introspection attribute {name!r} from the released values "
                                   f"failed: {exc}") from exc
            if name in self.__dict__:           # some (e.g. _y_min) exist for some constraints only
                return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def predict(self, X: ArrayLike, *, sensitive_features: ArrayLike, random_state: Any = None) -> Any:
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
        check_is_fitted(self)
        check_predict_features(self, X)             # scikit-learn's checks of the columns (no value read)
        if is_dask_input(X, sensitive_features):
            return predict_dask(light_copy(self)._randomised_predict, X, sensitive_features, random_state, dtype=int)
        return self._randomised_predict(X, sensitive_features, check_random_state(random_state))

    def _randomised_predict(self, X, sensitive_features, generator):
        """``predict`` with the ``RandomState`` ``generator``: one draw per row, in row order (a Dask partition
        passes the generator advanced by the rows before it).
        """
        if not self._dp_fitted():
            return super().predict(X, sensitive_features=sensitive_features, random_state=generator)
        probability = self._pmf_in_memory(X, sensitive_features=sensitive_features)[:, 1]
        return (generator.random_sample(probability.size) < probability).astype(int)

    def _pmf_predict(self, X, *, sensitive_features):
        """``[P(Y_tilde = 0), P(Y_tilde = 1)]`` for each row, shape (n_samples, 2) (Fairlearn's after a fit at
        ``epsilon=inf``); on Dask inputs a lazy Dask array of shape (n_samples, 2), as ``predict``.
        """
        check_is_fitted(self)
        check_predict_features(self, X)
        if is_dask_input(X, sensitive_features):
            return pmf_predict_dask(light_copy(self)._pmf_in_memory, X, sensitive_features, n_columns=2)
        return self._pmf_in_memory(X, sensitive_features=sensitive_features)

    def _pmf_in_memory(self, X, *, sensitive_features):
        """:meth:`_pmf_predict` on in-memory inputs whose columns were checked (a Dask partition, or ``X``)."""
        if not self._dp_fitted():
            return super()._pmf_predict(X, sensitive_features=sensitive_features)
        check_is_fitted(self, "mixing_rates_")
        outputs = self._outputs(X)
        group_index = encode_groups(as_group_vector(sensitive_features, outputs.size, groups=self.groups_),
                                    self.groups_)
        positive = self.mixing_rates_[group_index, self._discretize(outputs)]
        return np.column_stack([1.0 - positive, positive])


def _threshold_cells(template, groups, n_bins, private, x, y, sensitive_features):
    """``cell_index`` of :meth:`DPThresholdOptimizer.fit`: cell ``a (2 B) + 2 b + l`` of each row (the layout of
    ``noisy_table_``), with fit's domain checks and messages; ``template`` is the estimator's light copy.
    """
    labels = _binary_labels(y)
    _check_lengths(x, sensitive_features, labels.size)
    outputs = template._outputs(x, private=private)
    if outputs.size != labels.size:
        raise ValueError(MESSAGE_X_Y_ROWS)
    group_index = encode_group_index(sensitive_features, labels.size, groups)
    template._check_fit_outputs(outputs)
    bin_index = template._discretize(outputs, warn_clipped=False)
    return group_index * (2 * n_bins) + 2 * bin_index + labels
