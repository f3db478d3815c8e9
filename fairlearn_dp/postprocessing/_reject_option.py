"""The engine of ``aif360_dp``'s ``DPRejectOptionClassification``: Kamiran et al.'s reject option classification
with every (threshold, margin) setting evaluated from one released histogram.

AIF360's ``RejectOptionClassification.fit`` predicts, for every classification threshold ``t`` and ROC margin
``m`` of its public grid, "favorable" for a privileged row when its score exceeds ``t + m`` and for an
unprivileged row when it exceeds ``t - m`` (the critical region ``(t - m, t + m]`` goes to the unprivileged group),
and scores each setting by balanced accuracy and a fairness metric on validation data. Every one of those confusion
tables is a function of one histogram of the rows over (group, score interval between consecutive cut points
``t +- m``, true label), as for ``DPThresholdOptimizer`` and ``aif360_dp.metrics.DPThresholdReport``: it is
released once (the count table's one release, :func:`fairlearn_dp.metrics._frame_release.release_table`), every
setting is evaluated on the release, and the best is chosen from released values only. Derivation:
docs/privacy_analysis/score_postprocessing.md.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from diffprivlib import BudgetAccountant
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.isotonic import isotonic_regression
from sklearn.utils.validation import check_is_fitted

from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit
from .._utils._validation import check_choice, check_int, check_real, check_seed
from ..exceptions import FairnessWarning, warn
from ..metrics._frame_release import release_table
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, validate_epsilon_delta
from ..privacy._random import release_seeds
from ..privacy._release import noise_scale
from ..privacy._selection import selection_split
from ._score_release import PRIVACY_UNITS, choose_constant, project_onto_public_totals, read_rows

__all__ = ["DPRejectOptionClassifier", "METRIC_NAMES", "REJECT_OPTION_SENSITIVITY"]

METRIC_NAMES = ("Statistical parity difference", "Average odds difference", "Equal opportunity difference")

#: (L1, L2) sensitivity of the (group, interval, label) histogram: one changed row (its group, or the whole row)
#: leaves one bin and joins another, whatever the number of settings (Lemma 2 of the privacy-analysis page).
REJECT_OPTION_SENSITIVITY = (2.0, math.sqrt(2.0))

#: The largest grid (num_class_thresh x num_ROC_margin) evaluated: the histogram has up to twice as many intervals.
MAX_SETTINGS = 1_000_000

_PRIV, _UNPRIV = 0, 1


def _check_grid(model):
    """AIF360's rules on the grid (its message), checked before the budget."""
    low, high = model.low_class_thresh, model.high_class_thresh         # each in [0, 1]: the parameter table
    if low >= high:
        raise ValueError("Input parameter values out of bounds: low_class_thresh and high_class_thresh must satisfy "
                         f"0 <= low_class_thresh < high_class_thresh <= 1, got {low!r} and {high!r}.")
    if model.num_class_thresh * model.num_ROC_margin > MAX_SETTINGS:
        raise ValueError(f"num_class_thresh x num_ROC_margin must be at most {MAX_SETTINGS}.")
    if model.metric_lb > model.metric_ub:
        raise ValueError(f"metric_lb must be <= metric_ub, got {model.metric_lb!r} > {model.metric_ub!r}.")


class DPRejectOptionClassifier(SharedAccountantCloneMixin, PrivateFitMixin, BaseEstimator):
    """Differentially private reject option classification (Kamiran et al. 2012) for two groups.

    The engine of :class:`aif360_dp.algorithms.postprocessing.DPRejectOptionClassification`: ``fit(X, y,
    sensitive_features)`` takes the validation scores (one column, any real values), the true labels 0/1 and the
    group indices (0 privileged, 1 unprivileged), evaluates AIF360's grid of (threshold, margin) settings on one
    released histogram and keeps the best by AIF360's rule. At ``epsilon=inf`` the chosen setting is AIF360's.

    Parameters
    ----------
    low_class_thresh, high_class_thresh : float, default=0.01, 0.99
        The range of classification thresholds (AIF360's).
    num_class_thresh, num_ROC_margin : int, default=100, 50
        The grid's sizes (AIF360's).
    metric_name : str, default="Statistical parity difference"
        One of AIF360's three metrics.
    metric_ub, metric_lb : float, default=0.05, -0.05
        The bounds of the fairness constraint.
    epsilon, delta, privacy_unit, accountant, random_state
        As in ``DPCalibratedEqualizedOdds`` (``fairlearn_dp/postprocessing/_calibrated_eq_odds.py``).

    Attributes
    ----------
    classification_threshold_, ROC_margin_ : float
        The chosen setting.
    settings_ : numpy.ndarray of shape (n_settings, 2)
        Every (threshold, margin) of the grid, in AIF360's order.
    noisy_histogram_ : numpy.ndarray of shape (2, n_cuts + 1, 2)
        The release: per group, score interval, true label.
    balanced_accuracy_, fairness_metric_ : numpy.ndarray of shape (n_settings,)
        Every setting's values on the release.
    constant_choice_ : ConstantChoice
        The private choice against the constant classifiers.
    privacy_spent_ : PrivacySpend
        The one charge.

    Privacy
    -------
    Relation: ``privacy_unit``. Released: the (group, interval, label) histogram on the public cut points, once,
    Laplace with L1 sensitivity 2 (or the analytic Gaussian, L2 ``sqrt(2)``), at ``epsilon_fit``; every setting's
    metrics and the choice of setting are post-processing; then the choice against the constants (exponential
    mechanism, sensitivity 1) at ``epsilon_choice`` (``selection_split``). Public: n, the grid, the metric and its
    bounds, the two groups; under ``"sensitive_attribute"`` also scores and labels (per-(interval, label) totals
    used exactly). Derivation: docs/privacy_analysis/score_postprocessing.md.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups, y = rng.randint(0, 2, 400), rng.randint(0, 2, 400)
    >>> scores = np.clip(0.3 + 0.4 * y + 0.1 * groups + 0.1 * rng.randn(400), 0, 1)
    >>> model = DPRejectOptionClassifier(num_class_thresh=20, num_ROC_margin=10, epsilon=np.inf)
    >>> model = model.fit(scores, y, sensitive_features=groups)
    >>> bool(0.01 <= model.classification_threshold_ <= 0.99)
    True
    """

    _public_parameter_checks = {
        "low_class_thresh": functools.partial(check_real, low=0.0, high=1.0),
        "high_class_thresh": functools.partial(check_real, low=0.0, high=1.0),
        "num_class_thresh": functools.partial(check_int, low=1),
        "num_ROC_margin": functools.partial(check_int, low=1),
        "metric_name": functools.partial(check_choice, options=METRIC_NAMES),
        "metric_ub": check_real,
        "metric_lb": check_real,
        "privacy_unit": functools.partial(check_choice, options=PRIVACY_UNITS),
        "random_state": check_seed,
    }

    def __init__(self, low_class_thresh: float = 0.01, high_class_thresh: float = 0.99, num_class_thresh: int = 100,
                 num_ROC_margin: int = 50, metric_name: str = "Statistical parity difference",
                 metric_ub: float = 0.05, metric_lb: float = -0.05, *, epsilon: float = 1.0, delta: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.low_class_thresh = low_class_thresh
        self.high_class_thresh = high_class_thresh
        self.num_class_thresh = num_class_thresh
        self.num_ROC_margin = num_ROC_margin
        self.metric_name = metric_name
        self.metric_ub = metric_ub
        self.metric_lb = metric_lb
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.random_state = random_state

    def _check_params_together(self, checked: dict[str, Any]) -> dict[str, Any]:
        _check_grid(self)
        checked["epsilon"], checked["delta"] = validate_epsilon_delta(self.epsilon, self.delta)
        fit, _ = selection_split(checked["epsilon"])
        if not math.isinf(fit):
            noise_scale(fit, checked["delta"], *REJECT_OPTION_SENSITIVITY)
        return checked

    def _planned_spend(self, resolved: dict[str, Any]) -> PrivacySpend:
        epsilon, delta = resolved["epsilon"], resolved["delta"]
        return PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)

    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike) -> DPRejectOptionClassifier:
        """Choose the (threshold, margin) setting from one release of the (group, interval, label) histogram.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            The scores (of the favorable label).
        y : array-like of shape (n_samples,)
            True labels 0/1 (1 favorable).
        sensitive_features : array-like of shape (n_samples,)
            0 for the privileged group, 1 for the unprivileged one.

        Returns
        -------
        self
        """
        public = self.check_public_inputs()                                      # 1-2. parameters, budget
        epsilon, delta = public["epsilon"], public["delta"]
        self.settings_ = _grid(self.low_class_thresh, self.high_class_thresh, self.num_class_thresh,
                               self.num_ROC_margin)
        cuts, index = _cut_points(self.settings_)                               # public
        scores, labels, groups = read_rows(X, y, sensitive_features)            # 3. domain
        exact = np.zeros((2, cuts.size + 1, 2))                                 # 4. count
        np.add.at(exact, (groups, np.searchsorted(cuts, scores, side="left"), labels), 1.0)
        epsilon_fit, epsilon_choice = selection_split(epsilon)
        release_state, choice_state = release_seeds(self.random_state, 2)
        self.noisy_histogram_, _, _ = release_table(exact, l1=REJECT_OPTION_SENSITIVITY[0],   # 5. release
                                                    l2=REJECT_OPTION_SENSITIVITY[1], epsilon=epsilon_fit,
                                                    delta=delta, random_state=release_state)
        self.privacy_spent_ = charge(self.accountant, self._planned_spend(public))   # before _choose may warn
        favorable, totals = _favorable_counts(self.noisy_histogram_, exact, self.privacy_unit, epsilon)  # 6. solve
        self.balanced_accuracy_, self.fairness_metric_ = _evaluate(favorable, totals, index, self.metric_name)
        best = self._choose()
        self.classification_threshold_, self.ROC_margin_ = (float(v) for v in self.settings_[best])
        positive = None if math.isinf(epsilon) else self._rule(scores, groups).astype(float)
        self.constant_choice_ = choose_constant(positive, labels, epsilon=epsilon_choice, random_state=choice_state,
                                               owner=type(self).__name__)
        return self

    def _choose(self):
        """AIF360's rule on the released values: the best balanced accuracy among the settings whose metric lies
        in ``[metric_lb, metric_ub]``; when none does, a warning and the smallest metric.
        """
        metric = self.fairness_metric_
        feasible = (metric >= self.metric_lb) & (metric <= self.metric_ub)
        if feasible.any():
            candidates = np.flatnonzero(feasible)
            accuracy = self.balanced_accuracy_[candidates]
            return int(candidates[np.flatnonzero(accuracy == np.max(accuracy))[0]])
        warn("Unable to satisfy the fairness constraints on the released values: the setting with the smallest "
             "metric is used.", FairnessWarning)
        return int(np.flatnonzero(metric == np.min(metric))[0])

    def _rule(self, scores, groups):
        """The chosen setting's labels: favorable above ``t + m`` (privileged) or ``t - m`` (unprivileged)."""
        t, m = self.classification_threshold_, self.ROC_margin_
        return np.where(groups == _PRIV, scores > t + m, scores > t - m)

    def predict(self, X: ArrayLike, *, sensitive_features: ArrayLike) -> np.ndarray:
        """Labels 0/1 of the chosen setting (or of the chosen constant)."""
        check_is_fitted(self, "constant_choice_")
        scores, _, groups = read_rows(X, np.zeros(np.shape(X)[0]), sensitive_features)
        if self.constant_choice_.is_constant:
            return np.full(scores.size, int(self.constant_choice_.constant >= 0.5))
        return self._rule(scores, groups).astype(int)


def _grid(low, high, num_thresh, num_margin):
    """AIF360's settings, in its order and with its floating-point values."""
    settings = []
    for thresh in np.linspace(low, high, num_thresh):
        high_margin = thresh if thresh <= 0.5 else 1.0 - thresh
        settings += [(thresh, margin) for margin in np.linspace(0.0, high_margin, num_margin)]
    return np.array(settings)


def _cut_points(settings):
    """The sorted unique cut points ``t + m`` and ``t - m`` (as AIF360 computes them) and each setting's index of
    its privileged and unprivileged cut: ``index[:, 0]`` and ``index[:, 1]``.
    """
    t, m = settings[:, 0], settings[:, 1]
    cuts = np.unique(np.concatenate([t + m, t - m]))
    return cuts, np.stack([np.searchsorted(cuts, t + m), np.searchsorted(cuts, t - m)], axis=1)


def _favorable_counts(noisy, exact, privacy_unit, epsilon):
    """Per group, cut and label, the rows scoring above the cut, and the per-(group, label) totals, from the
    release (projected onto the public totals under ``"sensitive_attribute"``). At finite epsilon the cumulative
    counts are made monotone in the cut (isotonic regression) and kept within ``[0, total]``.
    """
    table = project_onto_public_totals(noisy, exact, privacy_unit)
    below = np.cumsum(table, axis=1)[:, :-1, :]                 # rows with score <= cut k
    totals = table.sum(axis=1)
    if not math.isinf(epsilon):
        totals = np.maximum(totals, 1.0)
        for g in range(2):
            for y in range(2):
                below[g, :, y] = np.clip(isotonic_regression(below[g, :, y]), 0.0, totals[g, y])
    return totals[:, None, :] - below, totals


def _evaluate(favorable, totals, index, metric_name):
    """Balanced accuracy and the fairness metric of every setting, as AIF360's metric classes compute them."""
    fav_p, fav_u = favorable[_PRIV][index[:, 0]], favorable[_UNPRIV][index[:, 1]]     # (n_settings, label)
    n_p, n_u = totals[_PRIV], totals[_UNPRIV]
    positives, negatives = n_p[1] + n_u[1], n_p[0] + n_u[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        tpr = (fav_p[:, 1] + fav_u[:, 1]) / positives
        tnr = ((n_p[0] - fav_p[:, 0]) + (n_u[0] - fav_u[:, 0])) / negatives
        balanced = 0.5 * (tpr + tnr)
        tpr_p, tpr_u = fav_p[:, 1] / n_p[1], fav_u[:, 1] / n_u[1]
        if metric_name == METRIC_NAMES[0]:
            metric = (fav_u[:, 0] + fav_u[:, 1]) / (n_u[0] + n_u[1]) - (fav_p[:, 0] + fav_p[:, 1]) / (n_p[0] + n_p[1])
        elif metric_name == METRIC_NAMES[1]:
            metric = 0.5 * ((fav_u[:, 0] / n_u[0] - fav_p[:, 0] / n_p[0]) + (tpr_u - tpr_p))
        else:
            metric = tpr_u - tpr_p
    return balanced, metric
