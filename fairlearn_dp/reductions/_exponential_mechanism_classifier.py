"""Approximately fair private learner: the exponential mechanism over a finite hypothesis class (Cummings et al.
2019, Algorithm 1 and Theorem 2).

The loss of a hypothesis is its in-sample equal-opportunity gap plus its in-sample error. The loss's sensitivity
depends on the smallest group's number of positive examples, so Algorithm 1 first releases a Laplace-noised,
downward-biased estimate ``M`` of that count and calibrates the exponential mechanism to the loss's exact worst-case
change ``max(min(2 / L, 1), 1 / L + 1/n)``, ``L = max(M, 2) - 1`` (the paper's ``2 / (M - 1) + 1/n`` is an upper
bound that no single substitution reaches).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_array, check_is_fitted

from .._compat import num_samples as _num_samples
from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit, warn_if_constant_chosen
from .._utils._validation import (
    as_group_vector,
    check_binary_labels,
    check_declared_groups,
    check_epsilon,
    check_hypotheses,
    check_real,
    check_seed,
    encode_groups,
    resolve_groups,
    value_errors,
)
from ..exceptions import UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._accountant import charge
from ..privacy._exponential import (
    exponential_mechanism,
    exponential_mechanism_excess_cost,
    exponential_mechanism_probabilities,
)
from ..privacy._random import release_random_state
from ..privacy._release import release_laplace
from ..privacy._selection import choose_against_constants, no_choice, selection_split
from ._hypotheses import LinearThresholdClassifier, hypothesis_predictions

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant
    from numpy.typing import ArrayLike

__all__ = ["ExponentialMechanismFairClassifier"]

# Share of epsilon spent on the noisy minimum group size (Alg. 1, lines 2-3); the rest is the exponential
# mechanism's (line 5). Algorithm 1 runs both steps with the same epsilon, so they get equal shares here (see
# docs/privacy_analysis/exponential_mechanism.md for why the total is split rather than spent twice).
_MIN_GROUP_SIZE_SHARE = 0.5
# The most by which any hypothesis's loss can undercut the better constant classifier's: a constant has no
# equal-opportunity gap and errs on min(p, 1 - p) <= 1/2 of the rows (p the share of positive labels), and no loss
# is below 0. A selection guaranteed only to within 1/2 of the best hypothesis may be no better than a constant.
_CONSTANT_ADVANTAGE = 0.5
# Diagnostic release (``diagnostic_share > 0``): three counts of the selected hypothesis on the fitting rows.
# Substituting one record changes each of them by at most 1 (positive predictions, correct predictions, positive
# labels), so the vector has L1 sensitivity 3.
_DIAGNOSTIC_SENSITIVITY = 3.0
# Public threshold: a hypothesis predicting one class on all but this share of the rows is near-constant.
_NEAR_CONSTANT_RATE = 0.01
# Public margin, in noise scales ``b = 3 / epsilon_diag`` (counts): with k = 8 a degenerate fit goes unwarned with
# probability at most e^-k / 2 (~1.7e-4, near-constant) or (2 + k) e^-k / 4 (~8.4e-4, no better than the
# majority class); see ``_diagnostic_flags``.
_DIAGNOSTIC_MARGIN = 8.0


def _check_required_hypotheses(hypotheses, name="hypotheses"):
    """The finite class ``H``: required (None only lets the class be constructed without arguments)."""
    if hypotheses is None:
        raise TypeError("hypotheses is required: a list of classifiers (with predict) or callables.")
    return check_hypotheses(hypotheses, name)


class ExponentialMechanismFairClassifier(SharedAccountantCloneMixin, PrivateFitMixin, ClassifierMixin, BaseEstimator):
    r"""Approximately fair, differentially private selection of a hypothesis by the exponential mechanism.

    Algorithm 1 ("Approximately Fair Private Learner") of [Cummings2019]_. Every hypothesis ``h`` of a finite,
    public class gets the utility loss (line 1)

    .. math:: u(Z, h) = w \, \Gamma^Z(h) + \mathrm{err}^Z(h),

    the in-sample equal-opportunity gap ``Gamma^Z(h) = max_{a, b} |gamma_{1a}^Z(h) - gamma_{1b}^Z(h)|`` (true
    positive rates ``gamma_{1a}^Z(h)`` over the positive examples of group ``a``; for two groups this is the
    paper's ``|gamma_10 - gamma_11|``) plus the in-sample misclassification rate; ``w = fairness_weight`` is 1 in
    the paper. A noisy lower bound ``M`` on the smallest group's number of positive examples (lines 2-3) fixes
    the sensitivity ``Delta`` (line 4, made tight: ``sensitivity_``), and one hypothesis is drawn with probability
    proportional to ``exp(-epsilon_em u(Z, h) / (2 Delta))`` (line 5).
    Theorem 2: with enough data the chosen hypothesis has ``Gamma(h) + err(h) <= OPT + alpha`` on the population
    with probability ``1 - beta`` (its sample size holds here with the paper's ``epsilon`` read as ``epsilon / 2``).

    The model is the chosen hypothesis: ``predict`` is deterministic and needs no sensitive feature.

    Parameters
    ----------
    hypotheses : list of classifiers or callables, default=None
        Required (None only lets the class be constructed without arguments, as scikit-learn tools do). The finite
        hypothesis class ``H`` (e.g. :func:`~fairlearn_dp.reductions.linear_threshold_hypotheses`). Each element
        has ``predict(X)`` returning 0/1, or is a callable doing so. It must be fixed from public information
        before the data are seen: a class built or fitted on the private records is not covered by the guarantee.
        Sampling costs ``O(n |H|)`` time.
    epsilon : float, default=1.0
        Total privacy budget (> 0): ``0.1 epsilon`` for the final choice against the constant classifiers, then
        ``diagnostic_share`` of the rest for the diagnostic release, the remainder split equally between the noisy
        group size and the exponential mechanism. ``numpy.inf`` gives the non-private baseline: the exact group
        size, the utility minimiser (first one on ties), exact diagnostic rates and no final choice.
    delta : float or None, default=None
        In (0, 1). None uses the paper's ``exp(-sqrt(n))``. It sets the margin ``ln(1/delta) / epsilon_size``
        subtracted from the noisy group size, and it is charged to the accountant.
    fairness_weight : float, default=1.0
        Weight ``w > 0`` of the fairness gap in ``u``. 1 is exactly Algorithm 1; the paper notes (footnote 4 and
        after Thm. 2) that any weighting works, changing Theorem 2's sample size by a constant. The sensitivity
        scales accordingly.
    diagnostic_share : float, default=0.1
        Share of ``epsilon``, in ``[0, 1)``, spent after the selection on a Laplace release of the selected
        hypothesis's positive-prediction rate, accuracy and positive-label rate on the fitting rows
        (``diagnostic_``), from which a degenerate selection is warned. It is taken out of
        ``epsilon``, so the total charged stays ``epsilon``. 0 turns it off and is exactly the previous algorithm
        (Algorithm 1 with the equal split, the same random stream), whose warning then rests on the mechanism's
        guarantee only.
    groups : list or None, default=None
        Public list of group labels. None reads them from the data (sorted) with a
        :class:`~fairlearn_dp.exceptions.PrivacyWarning`. At least two groups.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read and charged ``(epsilon, delta)`` once per successful ``fit``; None uses
        diffprivlib's default accountant.
    random_state : None, int or numpy.random.RandomState, default=None
        One stream feeds both diffprivlib mechanisms. None uses a cryptographically secure generator; a seed
        makes ``fit`` reproducible (experiments only: a seeded release is not secure).

    Attributes
    ----------
    hypothesis_ : object
        The selected hypothesis (an element of ``hypotheses``).
    hypothesis_index_ : int
        Its position in ``hypotheses``.
    min_group_size_estimate_ : float
        ``M`` of Algorithm 1: the noisy smallest number of positive examples in a group minus the margin. A DP
        release (post-processing of the Laplace mechanism), safe to publish.
    rate_floor_ : float
        ``L = max(M, 2) - 1``: each group's true positive rate is its positives' summed predictions divided by
        ``max(m_a, L)`` (a function of the release ``M``).
    sensitivity_ : float
        ``Delta = max(w min(2 / L, 1), w / L + 1/n)``, the largest change of ``u`` between neighbours at the floor
        ``L`` (attained; the paper's ``2 w / (M - 1) + 1/n`` bounds it), a function of ``M``, ``n`` and ``w``.
    delta_ : float
        The delta used: ``exp(-sqrt(n))`` when ``delta=None``.
    min_group_size_epsilon_, exponential_mechanism_epsilon_ : float
        The two halves of ``(1 - diagnostic_share) 0.9 epsilon``.
    diagnostic_epsilon_ : float
        ``diagnostic_share 0.9 epsilon`` (0 when off).
    constant_choice_ : ConstantChoice
        The private choice between the drawn hypothesis and the constants 0 and 1 (both meet equal opportunity
        exactly) by their training errors; when a constant wins, ``predict`` returns it for every row (with a
        ``UtilityWarning``) and ``hypothesis_`` stays for inspection.
    diagnostic_ : dict or None
        The diagnostic release (None when ``diagnostic_share=0``): noisy rates over the ``n`` fitting rows,
        ``positive_prediction_rate``, ``accuracy``, ``positive_label_rate``, their ``majority_rate =
        max(p, 1 - p)`` of the noisy label rate ``p``, and ``noise_scale = 3 / (diagnostic_epsilon_ n)``, the
        Laplace scale of each rate. A DP release, safe to publish.
    privacy_spent_ : PrivacySpend
        ``(epsilon, delta_)``, what the accountant was charged (the diagnostic release included).
    groups_ : list
    classes_ : ndarray of shape (2,)
        ``[0, 1]``.
    n_features_in_ : int

    Notes
    -----
    The exponential-mechanism distribution over ``H`` depends on the private data, so it is not stored: only the
    drawn hypothesis is released. ``_selection_probabilities(X, y, sensitive_features=...)`` recomputes it on
    request for tests and diagnostics; its output is not differentially private and must not be published.

    Privacy
    -------
    - Neighbouring relation: substitution of one record ``(x, a, y)`` (Definition 1 of the paper).
    - Released statistics: ``M``, the noisy smallest number of positive examples in a group minus a margin (lines
      2-3); the drawn hypothesis (line 5); with ``diagnostic_share > 0``, three noisy counts of the selection;
      the final choice against the constants (``constant_choice_``, sensitivity 1 on the error counts).
    - Mechanisms: diffprivlib's ``Laplace`` for ``M`` (``epsilon_size``) and the diagnostic (``epsilon_diag``), its
      ``Exponential`` for the draw (``epsilon_em``) and the final choice (``0.1 epsilon``); ``epsilon`` is their
      total (Algorithm 1 spends it in each
      step), so the fit is ``(epsilon, 0)``-DP; the accountant is charged ``(epsilon, delta)`` as Theorem 2 states.
    - Sensitivities: 1 for ``M``; ``Delta`` (``sensitivity_``) for ``u`` on every pair of neighbours (Lemma 2
      re-derived with the rates' denominators ``max(m_a, L)``, made tight); 3 (L1) for the diagnostic counts.
    - Public inputs: ``n``, the group list, the hypothesis class and the parameters. Errors and the degenerate-fit
      warnings depend on public and released values only.
    - Derivations: docs/privacy_analysis/exponential_mechanism.md.

    References
    ----------
    .. [Cummings2019] R. Cummings, V. Gupta, D. Kimpara, J. Morgenstern. "On the Compatibility of Privacy and
       Fairness." FairUMAP (UMAP Adjunct) 2019.
    .. [McSherry2007] F. McSherry, K. Talwar. "Mechanism Design via Differential Privacy." FOCS 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.reductions import ExponentialMechanismFairClassifier, linear_threshold_hypotheses
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 4000)
    >>> X = rng.uniform(-1, 1, (4000, 2))
    >>> y = (X[:, 0] + 0.3 * (sex == "male") + 0.3 * rng.standard_normal(4000) > 0).astype(int)
    >>> hypotheses = linear_threshold_hypotheses(2, n_directions=16, n_thresholds=8, random_state=0)
    >>> model = ExponentialMechanismFairClassifier(hypotheses, epsilon=1.0, delta=1e-5, groups=["female", "male"],
    ...                                            accountant=BudgetAccountant(), random_state=0)
    >>> model = model.fit(X, y, sensitive_features=sex)
    >>> model.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=1e-05, rho=None)
    >>> pred = model.predict(X)
    >>> rates = [pred[sex == group].mean() for group in ["female", "male"]]   # selection rates, about 0.75 and 0.77
    >>> bool((pred == y).mean() > 0.7), bool(abs(rates[0] - rates[1]) < 0.1)
    (True, True)
    """

    def __init__(self, hypotheses: Sequence[Any] | None = None, *, epsilon: float = 1.0, delta: float | None = None,
                 fairness_weight: float = 1.0, diagnostic_share: float = 0.1,
                 groups: Sequence[Hashable] | None = None, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.hypotheses = hypotheses
        self.epsilon = epsilon
        self.delta = delta
        self.fairness_weight = fairness_weight
        self.diagnostic_share = diagnostic_share
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state

    #: Every public parameter's check, in this order, before the budget check.
    _public_parameter_checks = {
        "epsilon": check_epsilon,
        "delta": functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True, allow_none=True),
        "fairness_weight": value_errors(functools.partial(check_real, low=0.0, low_open=True)),   # as before
        "hypotheses": _check_required_hypotheses,
        "groups": check_declared_groups,
        "random_state": check_seed,
        "diagnostic_share": functools.partial(check_real, low=0.0, high=1.0, high_open=True),
    }

    def _check_params_together(self, checked):
        """No rule relates the parameters; returns ``(epsilon, fairness_weight, hypotheses, diagnostic_share)``."""
        return checked["epsilon"], checked["fairness_weight"], checked["hypotheses"], checked["diagnostic_share"]

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """The public data size ``n`` (a shape, not a value) and the ``delta`` it resolves: the resolved inputs
        become ``(epsilon, fairness_weight, hypotheses, diagnostic_share, n, delta)``.
        """
        n = _num_samples(X)
        if n == 0:
            raise ValueError(f"X has no rows: {type(self).__name__} selects a hypothesis by its loss on the fitting "
                             "data, and its delta (default exp(-sqrt(n))) and noisy group size need at least one "
                             "row. Nothing was spent.")
        return (*resolved, n, self._resolve_delta(n))

    def _planned_spend(self, resolved):
        """The fit's spend ``(epsilon, delta)``: ``delta=None`` is the paper's ``exp(-sqrt(n))`` on the ``n`` rows
        (public). Before the data's size is known (``check_public_inputs()`` without ``X``), a ``delta=None``
        counts as 0, the least the fit can spend: what fails then fails at ``fit`` too, which checks the whole
        spend once ``n`` is known.
        """
        if len(resolved) == 6:
            return PrivacySpend(resolved[0], resolved[5])
        return PrivacySpend(resolved[0], 0.0 if self.delta is None else float(self.delta))

    # ------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *,
            sensitive_features: ArrayLike) -> ExponentialMechanismFairClassifier:
        """Select one hypothesis with (epsilon, delta)-differential privacy (Algorithm 1).

        Order: the public parameters are validated and the budget is checked before the data are read; every
        dataset inside the domain then fits. A fit that raises leaves the estimator as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Passed unchanged to the hypotheses (after a NaN/inf check).
        y : array-like of shape (n_samples,)
            Binary labels 0/1.
        sensitive_features : array-like
            Group membership (several columns are combined into one label per row).
        """
        resolved = self.check_public_inputs(X, y, sensitive_features=sensitive_features)   # 1-2. public, budget
        epsilon, weight, hypotheses, share, n, delta = resolved
        spend = self._planned_spend(resolved)
        _, labels, group_vector = self._check_data(X, y, sensitive_features)
        groups = resolve_groups(self.groups, group_vector, estimator_name=type(self).__name__)
        group_index = encode_groups(group_vector, groups)
        n_groups = len(groups)
        eps_fit, eps_choice = selection_split(epsilon)     # the last step's share: the choice against the constants
        eps_size, eps_em, eps_diag = _split_epsilon(eps_fit, share)
        margin = _margin(delta, eps_size)
        # Public pre-check (n, |A|, epsilon, delta only): the smallest group has at most n // |A| positive examples,
        # and M <= 1 is then the likely outcome (its median would be <= 1), so refuse before spending anything.
        if n // n_groups <= margin + 1:
            raise ValueError(
                f"n={n} samples in {n_groups} groups are too few for epsilon={epsilon:g}, delta={delta:.3g}: the noisy "
                f"group size is reduced by ln(1/delta)/epsilon_size = {margin:.3g}, so even {n // n_groups} positive "
                "examples per group would leave no usable sensitivity. Nothing was spent.")
        # Release noise only: None reaches diffprivlib as None (its secure generator); a seed gives one stream.
        rng = release_random_state(self.random_state)

        # (n, |H|): total on the private rows (a row a hypothesis fails on predicts 0), its layout errors before noise
        predictions = hypothesis_predictions(hypotheses, X, private=True)
        positive_counts = np.bincount(group_index[labels == 1], minlength=n_groups)
        estimate = self._release_min_group_size(positive_counts, epsilon=eps_size, delta=delta, random_state=rng)
        floor = _rate_floor(estimate)               # L = max(M, 2) - 1 >= 1, a function of the release
        losses = _utility_loss(predictions, labels, group_index, n_groups, weight, floor)
        sensitivity = _sensitivity(estimate, n, weight)
        index = self._release_hypothesis(losses, epsilon=eps_em, sensitivity=sensitivity, random_state=rng)
        diagnostic = None if share == 0 else _release_diagnostic(predictions[:, int(index)], labels,
                                                                 epsilon=eps_diag, random_state=rng)
        # Record unit: y is private, so the drawn hypothesis's training error is too (exponential mechanism).
        choice = no_choice() if math.isinf(epsilon) else choose_against_constants(
            predictions[:, int(index)], labels, epsilon=eps_choice, random_state=rng)
        charge(self.accountant, spend)

        # The diagnostics describe the drawn hypothesis (kept in hypothesis_ even when a constant is returned).
        _warn_if_degenerate(hypotheses, int(index), epsilon=eps_em, sensitivity=sensitivity, diagnostic=diagnostic)
        warn_if_constant_chosen(type(self).__name__, choice, "More data, a larger epsilon or a better hypothesis class")
        self.constant_choice_ = choice
        self.diagnostic_ = diagnostic
        self.diagnostic_epsilon_ = eps_diag
        self.hypothesis_index_ = int(index)
        self.hypothesis_ = hypotheses[self.hypothesis_index_]
        self.min_group_size_estimate_ = float(estimate)
        self.rate_floor_ = float(floor)
        self.sensitivity_ = float(sensitivity)
        self.delta_ = delta
        self.min_group_size_epsilon_ = eps_size
        self.exponential_mechanism_epsilon_ = eps_em
        self.privacy_spent_ = spend
        self.groups_ = groups
        self.classes_ = np.array([0, 1])
        set_fit_features(self, X)               # n_features_in_ (and feature_names_in_), as scikit-learn's
        return self

    def _check_data(self, X, y, sensitive_features):
        """Input checks on the curator's side; their messages carry no data values."""
        n_features = _check_X(X).shape[1]
        labels = _binary_labels(y)
        if labels.size != len(X):
            raise ValueError(f"y has {labels.size} rows but X has {len(X)} (length mismatch).")
        return n_features, labels, as_group_vector(sensitive_features, labels.size, groups=self.groups)

    def _resolve_delta(self, n):
        """The paper's ``delta = exp(-sqrt(n))`` (Alg. 1, line 1) unless ``delta`` was given."""
        return math.exp(-math.sqrt(n)) if self.delta is None else float(self.delta)

    @staticmethod
    def _utility_losses(hypotheses, X, labels, group_index, n_groups, weight, floor=1.0):
        """Alg. 1, line 1: ``u(Z, h)`` for every hypothesis (reads the private data; not released).

        ``floor`` is the released ``L`` of the rates' denominators ``max(m_a, L)`` (see :func:`_utility_loss`).
        """
        predictions = hypothesis_predictions(hypotheses, X, private=True)     # as fit computes them
        return _utility_loss(predictions, labels, group_index, n_groups, weight, floor)

    @staticmethod
    def _release_min_group_size(positive_counts, *, epsilon, delta, random_state):
        """Alg. 1, lines 2-3: ``M = min_a |Z_{1a}| + Lap(1/epsilon) - ln(1/delta)/epsilon`` (an epsilon-DP release)."""
        return _noisy_min_group_size(positive_counts, epsilon=epsilon, delta=delta, random_state=random_state)

    @staticmethod
    def _release_hypothesis(losses, *, epsilon, sensitivity, random_state):
        """Alg. 1, line 5: draw ``h`` with probability proportional to ``exp(-epsilon u / (2 Delta))``."""
        return exponential_mechanism(losses, epsilon=epsilon, sensitivity=sensitivity, random_state=random_state)

    def _selection_probabilities(self, X, y, *, sensitive_features):
        """The exponential mechanism's distribution over ``hypotheses`` at the fitted ``sensitivity_``.

        For tests and diagnostics only: it is computed from the private data and is NOT differentially private;
        never publish it. Pass the data ``fit`` saw to get the distribution the fitted hypothesis was drawn from.
        """
        check_is_fitted(self, "hypothesis_")
        _, weight, hypotheses, _ = self._check_public_parameters()
        _check_X(X)
        labels = _binary_labels(y)
        group_index = encode_groups(as_group_vector(sensitive_features, labels.size, groups=self.groups_),
                                    self.groups_)
        losses = self._utility_losses(hypotheses, X, labels, group_index, len(self.groups_), weight, self.rate_floor_)
        return exponential_mechanism_probabilities(losses, epsilon=self.exponential_mechanism_epsilon_,
                                                   sensitivity=self.sensitivity_)

    # -------------------------------------------------------------- predict
    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predictions (0/1) of the selected hypothesis; deterministic, no sensitive feature needed."""
        check_is_fitted(self, "hypothesis_")
        check_predict_features(self, X)         # scikit-learn's checks: the same columns, in the same order
        _check_X(X)
        if self.constant_choice_.is_constant:
            return np.full(_num_samples(X), int(self.constant_choice_.constant))
        return hypothesis_predictions([self.hypothesis_], X)[:, 0].astype(int)


def _utility_loss(predictions, labels, group_index, n_groups, weight=1.0, floor=1.0):
    """``u(Z, h) = w Gamma^Z(h) + err^Z(h)`` for each column ``h`` of the ``(n, |H|)`` 0/1 ``predictions``.

    ``err^Z(h) = (1/n) sum_i 1[h(x_i) != y_i]``; ``gamma_{1a}^Z(h)`` is the sum of the predictions over the
    positive examples of group ``a`` divided by ``max(m_a, floor)`` (``m_a`` their number): the mean prediction
    when ``m_a >= floor``, shrunk toward 0 below it, and 0 for a group without positive examples (``floor=1``
    gives exactly the mean, and 0 for an empty group). ``Gamma^Z(h) = max_a gamma_{1a} - min_a gamma_{1a}``
    (``|gamma_10 - gamma_11|`` for two groups, Definition 5 restricted to y = 1 as in Section 4).
    """
    predictions = np.asarray(predictions, dtype=float)
    error = np.mean(predictions != labels[:, None], axis=0)
    tpr = np.zeros((n_groups, predictions.shape[1]))
    for a in range(n_groups):
        rows = (labels == 1) & (group_index == a)
        count = int(rows.sum())
        if count >= floor and count > 0:
            tpr[a] = predictions[rows].mean(axis=0)
        elif count > 0:
            tpr[a] = predictions[rows].sum(axis=0) / floor
    gap = tpr.max(axis=0) - tpr.min(axis=0)
    return weight * gap + error


def _split_epsilon(epsilon, share):
    """``(epsilon_size, epsilon_em, epsilon_diag)``: ``epsilon_diag = share * epsilon`` and the rest halved (Alg. 1's
    equal shares). ``share = 0`` gives exactly the previous split ``(epsilon / 2, epsilon - epsilon / 2, 0)``.
    """
    if math.isinf(epsilon):
        return math.inf, math.inf, (math.inf if share > 0 else 0.0)
    diagnostic = share * epsilon
    rest = epsilon - diagnostic
    size = _MIN_GROUP_SIZE_SHARE * rest
    return size, rest - size, diagnostic


def _release_diagnostic(predicted, labels, *, epsilon, random_state):
    """Noisy rates of the selected hypothesis on the fitting rows (an ``epsilon``-DP release given the selection).

    The counts ``(sum_i h(x_i), sum_i 1[h(x_i) = y_i], sum_i y_i)`` each change by at most 1 when one record is
    substituted (``h`` fixed: it is the released selection), so their L1 sensitivity is 3 and Laplace noise of scale
    ``b = 3 / epsilon`` on each (``release_laplace``, diffprivlib's ``Laplace``) is epsilon-DP. Divided by the public
    ``n``; ``noise_scale`` is ``b / n`` (0 for ``epsilon = inf``, the exact rates).
    """
    n = labels.size
    counts = [np.sum(predicted), np.sum(predicted == labels), np.sum(labels)]
    noisy = release_laplace(counts, epsilon=epsilon, l1_sensitivity=_DIAGNOSTIC_SENSITIVITY,
                            random_state=random_state) / n
    label_rate = float(noisy[2])
    return {"positive_prediction_rate": float(noisy[0]), "accuracy": float(noisy[1]),
            "positive_label_rate": label_rate, "majority_rate": max(label_rate, 1.0 - label_rate),
            "noise_scale": 0.0 if math.isinf(epsilon) else _DIAGNOSTIC_SENSITIVITY / epsilon / n}


def _diagnostic_flags(diagnostic):
    """Reasons (possibly none) the released diagnostic flags the selection as degenerate.

    With ``s = noise_scale`` and ``k = _DIAGNOSTIC_MARGIN``: (1) near-constant if the noisy positive-prediction rate
    is below ``theta + k s`` or above ``1 - theta - k s`` (``theta = _NEAR_CONSTANT_RATE``); (2) no better than the
    majority class if the noisy accuracy is at most the noisy majority rate plus ``k s``.

    Miss probabilities (``Z_1, Z_2, Z_3`` the i.i.d. Laplace(b) noises, ``b = s n``): a selection predicting 1 on at
    most ``theta n`` rows escapes (1) only if ``Z_1 >= k b``: probability ``e^-k / 2`` (the other side alike). One
    whose accuracy ``C / n`` is at most the majority rate has, if the label majority is 1, ``noisy C - max(noisy Y,
    n - noisy Y) <= C + Z_2 - Y - Z_3 <= Z_2 - Z_3`` (``Y`` the positive labels), and ``<= Z_2 + Z_3`` if it is 0;
    ``Z_2 +- Z_3`` has the density ``(1 + |x| / b) e^(-|x| / b) / (4 b)``, whose tail beyond ``k b`` is ``(2 + k)
    e^-k / 4``. A good selection (positive-prediction rate in ``[theta + 2 k s, 1 - theta - 2 k s]`` and accuracy
    at least ``2 k s`` above the majority rate) is flagged with probability at most ``e^-k`` (``|Z_1| >= k b``)
    plus ``(1 + k) e^-k`` (``|Z_2| + |Z_3| >= k b``), i.e. ``(2 + k) e^-k`` (~3.4e-3 at k = 8).
    """
    margin = _DIAGNOSTIC_MARGIN * diagnostic["noise_scale"]
    low = _NEAR_CONSTANT_RATE + margin
    rate, accuracy, majority = (diagnostic[key] for key in ("positive_prediction_rate", "accuracy", "majority_rate"))
    flags = []
    if low > 0.5:
        flags.append(f"the noise margin {margin:.3g} per rate is too wide to tell any selection from a constant one")
    elif not low <= rate <= 1.0 - low:
        flags.append(f"noisy positive-prediction rate {rate:.3g} outside [{low:.3g}, {1.0 - low:.3g}]")
    if accuracy <= majority + margin:
        flags.append(f"noisy accuracy {accuracy:.3g} not above the noisy majority rate {majority:.3g} by the noise "
                     f"margin {margin:.3g}")
    return flags


def _warn_if_degenerate(hypotheses, index, *, epsilon, sensitivity, diagnostic=None):
    """Warn when the selection may be degenerate, judged from released values only (the draw, the sensitivity, which
    is a function of the released ``M`` and the public ``n`` and ``w``) and public ones (``epsilon``, ``|H|``).

    - The mechanism's guarantee (McSherry and Talwar): with probability 1/2 the selected hypothesis's loss is within
      ``t = 2 Delta ln(2 (|H| - 1)) / epsilon_em`` of the best one's. If ``t >= 1/2``, the most by which any
      hypothesis can undercut the better constant classifier (``_CONSTANT_ADVANTAGE``), the guarantee cannot tell
      the selection from one no better than a constant: the draw is about as good as a pick from ``H`` at random.
    - The selected hypothesis is a constant classifier (a :class:`LinearThresholdClassifier` with zero weights).

    With a ``diagnostic`` release (``diagnostic_share > 0``) the first rule is replaced by the release's verdict on
    the selection itself (:func:`_diagnostic_flags`).
    """
    if diagnostic is not None:
        flags = _diagnostic_flags(diagnostic)
        if flags:
            warn("The selection looks degenerate on the fitting data (diagnostic release, noise scale "
                 f"{diagnostic['noise_scale']:.3g} per rate): " + "; ".join(flags) + ". Use more data, a "
                 "larger epsilon or a better hypothesis class.", UtilityWarning)
    else:
        _warn_if_guarantee_is_weak(hypotheses, epsilon=epsilon, sensitivity=sensitivity)
    selected = hypotheses[index]
    if isinstance(selected, LinearThresholdClassifier) and not np.any(selected.coef):
        warn(f"The selected hypothesis (index {index}) is a constant classifier: it predicts "
             f"{int(selected.threshold <= 0.0)} for every input.", UtilityWarning)


def _warn_if_guarantee_is_weak(hypotheses, *, epsilon, sensitivity):
    """McSherry and Talwar's excess at probability 1/2 is at least ``_CONSTANT_ADVANTAGE`` (the rule without a
    diagnostic release).
    """
    excess = exponential_mechanism_excess_cost(len(hypotheses), epsilon=epsilon, sensitivity=sensitivity,
                                               probability=0.5)
    if excess >= _CONSTANT_ADVANTAGE:
        warn(
            f"The exponential mechanism cannot be relied on to beat a constant classifier: with sensitivity "
            f"{sensitivity:.3g} and epsilon {epsilon:g} over {len(hypotheses)} hypotheses, it only guarantees (with "
            f"probability 1/2) a loss within {excess:.3g} of the best hypothesis, and no hypothesis beats the better "
            "constant classifier by more than 1/2. The selection may be degenerate (e.g. one class for everyone). "
            "Use more data, a larger epsilon or fewer hypotheses.", UtilityWarning)


def _rate_floor(estimate):
    """``L = max(M, 2) - 1``: the released floor of the rates' denominators (at least 1)."""
    return max(float(estimate), 2.0) - 1.0


def _margin(delta, epsilon):
    """``ln(1/delta) / epsilon`` subtracted in Alg. 1, line 3 (0 for the non-private ``epsilon = inf``)."""
    return 0.0 if math.isinf(epsilon) else math.log(1.0 / delta) / epsilon


def _noisy_min_group_size(positive_counts, *, epsilon, delta, random_state=None):
    """``M = min_a |Z_{1a}| + Y - ln(1/delta)/epsilon`` with ``Y ~ Lap(1/epsilon)`` from diffprivlib's ``Laplace``.

    The minimum of the counts has sensitivity 1 under substitution, so this is epsilon-DP; ``P(M > min_a |Z_{1a}|)
    = delta / 2``.
    """
    smallest = float(np.min(positive_counts))
    noisy = release_laplace([smallest], epsilon=epsilon, l1_sensitivity=1.0, random_state=random_state)[0]
    return float(noisy) - _margin(delta, epsilon)


def _sensitivity(estimate, n, weight=1.0):
    """Alg. 1, line 4, made tight: ``Delta = max(w min(2 / L, 1), w / L + 1/n)`` with ``L = max(M, 2) - 1``.

    Derivation (docs/privacy_analysis/exponential_mechanism.md): with the rates' denominators ``max(m_a, L)``,
    substituting one record moves each group's rate by at most ``1 / L``. A substitution that keeps the record's
    error indicator moves at most two rates, so the gap ``Gamma`` (in ``[0, 1]``) by at most ``min(2 / L, 1)``; one
    that changes it (``1/n``) moves the changed rates in one direction, so ``Gamma`` by at most ``1 / L``. Both are
    attained for every ``L >= 1``; the paper's ``2 w / (M - 1) + 1/n`` adds the two worst cases, which no single
    substitution reaches.
    """
    floor = _rate_floor(estimate)
    # Error unchanged: one rate down, one up (2 / L), capped by Gamma's range; error changed: one rate's worth.
    return max(weight * min(2.0 / floor, 1.0), weight / floor + 1.0 / n)


def _check_X(X):
    """2-D, non-empty, no NaN/inf (object columns: no missing values). Returns the checked array."""
    checked = check_array(X, dtype=None, ensure_all_finite=True, input_name="X")
    if checked.dtype == object and pd.isna(checked).any():
        raise ValueError("Input X contains missing values (NaN/None).")
    return checked


def _binary_labels(y):
    """``y`` as a 1-D int array of 0/1 (a one-column 2-D input is accepted): the one binary-label check."""
    return check_binary_labels(y, "y").astype(np.intp)
