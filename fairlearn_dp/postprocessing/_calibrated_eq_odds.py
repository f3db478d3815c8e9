"""The engine of ``aif360_dp``'s ``DPCalibratedEqOddsPostprocessing``: Pleiss et al.'s calibrated equalized odds
on one release of bounded sums.

AIF360's ``CalibratedEqOddsPostprocessing.fit`` reads, per group, the base rate and the generalized false positive
and false negative rates of the scores. Each is a ratio of sums over the rows of one (group, true label) cell: the
number of rows and the sum of their scores. The eight sums (2 groups x 2 labels x {count, score sum}) are released
once; the base rates, the generalized rates, the costs and the mixing rates are computed from the release as
AIF360 computes them from the data. Sensitivity and guarantee: docs/privacy_analysis/score_postprocessing.md.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from diffprivlib import BudgetAccountant
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator

from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit
from .._utils._validation import check_choice, check_seed
from ..metrics._frame_release import release_table
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, validate_epsilon_delta
from ..privacy._random import release_seeds
from ..privacy._release import noise_scale
from ..privacy._selection import selection_split
from ._score_release import GROUPS, PRIVACY_UNITS, choose_constant, project_onto_public_totals, read_rows

__all__ = ["DPCalibratedEqualizedOdds", "CALIBRATED_EQ_ODDS_SENSITIVITY"]

#: (L1, L2) sensitivity of the released (group, label, {count, score sum}) table, scores clipped to [0, 1]:
#: a changed row leaves one cell (count -1, score sum -s) and joins another (+1, +s'), so L1 <= 1 + s + 1 + s' <= 4
#: and L2 <= sqrt(1 + s^2 + 1 + s'^2) <= 2, under either unit (Lemma 1 of the privacy-analysis page).
CALIBRATED_EQ_ODDS_SENSITIVITY = (4.0, 2.0)

_COSTS = {"fpr": (1.0, 0.0), "fnr": (0.0, 1.0), "weighted": (1.0, 1.0)}       # AIF360's (fp_rate, fn_rate)


class DPCalibratedEqualizedOdds(SharedAccountantCloneMixin, PrivateFitMixin, BaseEstimator):
    """Differentially private calibrated equalized odds (Pleiss et al. 2017) for two groups.

    The engine of :class:`aif360_dp.algorithms.postprocessing.DPCalibratedEqOddsPostprocessing`: ``fit(X, y,
    sensitive_features)`` takes the scores (one column, clipped to the public range [0, 1]), the true labels 0/1
    and the group indices (0 privileged, 1 unprivileged) and fits the two mixing rates (the probability of
    replacing a row's score by its group's base rate) from one release. At ``epsilon=inf`` the rates are AIF360's.

    Parameters
    ----------
    cost_constraint : {"weighted", "fpr", "fnr"}, default="weighted"
        The generalized rate equalized (AIF360's parameter).
    epsilon : float, default=1.0
        Budget of the fit (``numpy.inf``: exact).
    delta : float, default=0.0
        0: Laplace (pure DP); > 0: analytic Gaussian.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        One person's group changed (scores and labels public: the scores must not read the attribute), or one
        whole row substituted.
    accountant : diffprivlib.BudgetAccountant, optional
        Charged once per fit (default: diffprivlib's).
    random_state : None, int or numpy.random.RandomState
        Seeds the release and the final choice (experiments only); None: a secure source.

    Attributes
    ----------
    noisy_statistics_ : numpy.ndarray of shape (2, 2, 2)
        The release: per group, true label, (row count, score sum).
    statistics_ : numpy.ndarray of shape (2, 2, 2)
        The release after post-processing (projected onto the public per-label totals under
        ``"sensitive_attribute"``; counts at least 1 and score sums within [0, count] at finite epsilon).
    base_rates_, generalized_fpr_, generalized_fnr_ : numpy.ndarray of shape (2,)
        Per group (privileged, unprivileged), from ``statistics_``.
    mix_rates_ : numpy.ndarray of shape (2,)
        AIF360's ``priv_mix_rate`` and ``unpriv_mix_rate`` (clipped to [0, 1] at finite epsilon, which changes no
        prediction: a rate is compared with a uniform draw).
    constant_choice_ : ConstantChoice
        The private choice against the constant classifiers (at threshold 0.5).
    privacy_spent_ : PrivacySpend
        The one charge.

    Privacy
    -------
    Relation: ``privacy_unit`` (one person's group, or one row). Released: the eight sums, once, Laplace with L1
    sensitivity 4 (scale ``4 / epsilon_fit``) or the analytic Gaussian with L2 sensitivity 2; then the choice
    against the constants (exponential mechanism, sensitivity 1), with ``epsilon_fit + epsilon_choice = epsilon``
    (``selection_split``). Public: n, the score range [0, 1], the two groups, ``cost_constraint``; under
    ``"sensitive_attribute"`` also the scores and labels (the per-label totals are used exactly). Derivation:
    docs/privacy_analysis/score_postprocessing.md.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> groups = rng.randint(0, 2, 400)
    >>> y = rng.randint(0, 2, 400)
    >>> scores = np.clip(0.3 + 0.4 * y + 0.1 * groups + 0.1 * rng.randn(400), 0, 1)
    >>> model = DPCalibratedEqualizedOdds(epsilon=np.inf).fit(scores, y, sensitive_features=groups)
    >>> bool(0 <= model.mix_rates_.min() <= model.mix_rates_.max() <= 1)
    True
    """

    _public_parameter_checks = {
        "cost_constraint": functools.partial(check_choice, options=tuple(_COSTS)),
        "privacy_unit": functools.partial(check_choice, options=PRIVACY_UNITS),
        "random_state": check_seed,
    }

    def __init__(self, cost_constraint: str = "weighted", *, epsilon: float = 1.0, delta: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.cost_constraint = cost_constraint
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.random_state = random_state

    def _check_params_together(self, checked: dict[str, Any]) -> dict[str, Any]:
        checked["epsilon"], checked["delta"] = validate_epsilon_delta(self.epsilon, self.delta)
        fit, _ = selection_split(checked["epsilon"])
        if not math.isinf(fit):
            l1, l2 = CALIBRATED_EQ_ODDS_SENSITIVITY
            noise_scale(fit, checked["delta"], l1, l2)          # a usable scale, from public parameters
        return checked

    def _planned_spend(self, resolved: dict[str, Any]) -> PrivacySpend:
        epsilon, delta = resolved["epsilon"], resolved["delta"]
        return PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)

    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike) -> DPCalibratedEqualizedOdds:
        """Fit the mixing rates from one release of the (group, label) counts and score sums.

        Parameters
        ----------
        X : array-like of shape (n_samples,) or (n_samples, 1)
            The scores (probability of the favorable label); clipped to [0, 1].
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
        scores, labels, groups = read_rows(X, y, sensitive_features)            # 3. domain
        scores = np.clip(scores, 0.0, 1.0)
        exact = _sums(scores, labels, groups)                                    # 4. count
        epsilon_fit, epsilon_choice = selection_split(epsilon)
        release_state, choice_state = release_seeds(self.random_state, 2)
        l1, l2 = CALIBRATED_EQ_ODDS_SENSITIVITY                                  # 5. release
        self.noisy_statistics_, _, _ = release_table(exact, l1=l1, l2=l2, epsilon=epsilon_fit, delta=delta,
                                                     random_state=release_state)
        self.privacy_spent_ = charge(self.accountant, self._planned_spend(public))   # before anything may warn
        self.statistics_ = _post_process(self.noisy_statistics_, exact, self.privacy_unit, epsilon)
        self._solve(self.statistics_)                                            # 6. solve
        positive = None if math.isinf(epsilon) else self._positive_probability(scores, groups)
        self.constant_choice_ = choose_constant(positive, labels, epsilon=epsilon_choice, random_state=choice_state,
                                               owner=type(self).__name__)
        return self

    def _solve(self, statistics):
        """AIF360's fit on the released sums: base rates, generalized rates, costs, mixing rates."""
        counts, sums = statistics[..., 0], statistics[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            self.base_rates_ = counts[:, 1] / counts.sum(axis=1)
            self.generalized_fpr_ = sums[:, 0] / counts[:, 0]
            self.generalized_fnr_ = (counts[:, 1] - sums[:, 1]) / counts[:, 1]
        fp_rate, fn_rate = _COSTS[self.cost_constraint]
        cost = _cost(self.generalized_fpr_, self.generalized_fnr_, self.base_rates_, fp_rate, fn_rate)
        trivial = _cost(self.base_rates_, 1.0 - self.base_rates_, self.base_rates_, fp_rate, fn_rate)
        priv, unpriv = GROUPS
        rates = np.zeros(2)
        with np.errstate(divide="ignore", invalid="ignore"):
            if cost[unpriv] > cost[priv]:
                rates[priv] = (cost[unpriv] - cost[priv]) / (trivial[priv] - cost[priv])
            else:
                rates[unpriv] = (cost[priv] - cost[unpriv]) / (trivial[unpriv] - cost[unpriv])
        if math.isinf(self.epsilon):
            self.mix_rates_ = rates                                 # AIF360's, unclipped
            return
        # predict replaces a score when a uniform draw is <= the rate: a rate above 1 acts as 1 and one below 0 as
        # 0 (AIF360's own rates leave [0, 1] on Adult), so clipping changes no prediction; 0/0 (no gap) is 0.
        self.mix_rates_ = np.clip(np.nan_to_num(rates, nan=0.0), 0.0, 1.0)

    def _positive_probability(self, scores: ArrayLike, groups: ArrayLike, threshold: float = 0.5) -> np.ndarray:
        """The probability that the fitted rule predicts the favorable label for each row: ``1[score >=
        threshold]`` kept with probability ``1 - mix_rate`` of the row's group, else ``1[base rate >= threshold]``.
        """
        scores, groups = np.asarray(scores, dtype=float), np.asarray(groups, dtype=int)
        mix, base = self.mix_rates_[groups], self.base_rates_[groups]
        return (1.0 - mix) * (scores >= threshold) + mix * (base >= threshold)


def _sums(scores, labels, groups):
    """The exact (group, label, {count, score sum}) table."""
    table = np.zeros((2, 2, 2))
    np.add.at(table, (groups, labels, 0), 1.0)
    np.add.at(table, (groups, labels, 1), scores)
    return table


def _post_process(noisy, exact, privacy_unit, epsilon):
    """The release projected onto the public per-label totals (``"sensitive_attribute"``), then, at finite epsilon,
    counts floored at 1 and score sums clipped to [0, count] (what exact sums satisfy); released values only.
    """
    table = project_onto_public_totals(noisy, exact, privacy_unit)
    if math.isinf(epsilon):
        return table
    table[..., 0] = np.maximum(table[..., 0], 1.0)
    table[..., 1] = np.clip(table[..., 1], 0.0, table[..., 0])
    return table


def _cost(gfpr, gfnr, base, fp_rate, fn_rate):
    """AIF360's per-group cost: the generalized FPR, FNR, or their base-rate weighted mix (``weighted_cost``)."""
    if fn_rate == 0:
        return gfpr
    if fp_rate == 0:
        return gfnr
    norm = fp_rate + fn_rate
    return fp_rate / norm * gfpr * (1 - base) + fn_rate / norm * gfnr * base
