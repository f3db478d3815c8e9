"""Group-aware privacy budget allocation for DP regression (the budget-tailoring paper, Algorithms 1-3).

Stage 1 (Alg. 1) spends ``tau`` zCDP on a precursor DP OLS fit ("Analyze Gauss") and per-group standard errors
``s_k``; Stage 2 (Alg. 2 / Alg. 3) spends ``mu`` zCDP on projected DP gradient descent in which group ``k`` gets the
share ``s_k^2`` of every iteration's budget, optionally with a bounded-group-loss (BGL) penalty. ``rho = tau + mu``.
The stages are in :mod:`._group_budget_stages`; the budget splits and the ledger (``ZCDPLedger``) are the
privacy core's (:mod:`fairlearn_dp.privacy`); derivations in docs/privacy_analysis/group_budget.md.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any, Self

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin, SharedAccountantCloneMixin, atomic_fit
from .._utils._fit_support import linear_span, warn_if_constant_chosen, warn_if_constant_output
from .._utils._validation import (
    as_group_vector,
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_seed,
    encode_groups,
    resolve_groups,
    value_errors,
)
from .._utils._withheld import call_withheld
from ..exceptions import UtilityWarning, warn
from ..privacy import BudgetAccountant, PrivacySpend, approx_dp_to_zcdp, zcdp_to_approx_dp
from ..privacy._accountant import MAX_EPSILON, charge, validate_epsilon_delta
from ..privacy._budget_split import group_budget_split
from ..privacy._random import release_seeds
from ..privacy._selection import SELECTION_SHARE
from ..privacy._zcdp import check_rho
from ..privacy._zcdp_ledger import ZCDPLedger
from ._group_budget_stages import _GroupBudgetStages

__all__ = ["DPGroupBudgetRegressor", "DPGroupBudgetClassifier"]


def _check_classes(classes, name="classes"):
    """The public label set ``classes`` as a list ``[negative, positive]`` (``[0, 1]`` when None); a ``TypeError`` or
    ``ValueError`` naming ``classes`` otherwise (the classifier's entry of the parameter table).
    """
    if classes is None:
        return [0, 1]
    if isinstance(classes, (str, bytes)) or not hasattr(classes, "__iter__"):
        raise TypeError(f"{name} must be None or a sequence of two labels [negative, positive].")
    labels = list(np.asarray(classes, dtype=object).ravel())
    if len(labels) != 2:
        raise ValueError(f"{name} must hold exactly two labels [negative, positive], got {len(labels)}.")
    for label in labels:
        try:
            hash(label)
        except TypeError as exc:
            raise TypeError(f"{name} must hold hashable labels.") from exc
        if label is None or (isinstance(label, numbers.Real) and math.isnan(label)):
            raise ValueError(f"{name} must not contain None or NaN.")
    if labels[0] == labels[1]:
        raise ValueError(f"{name} must hold two distinct labels.")
    return labels


_POSITIVE = value_errors(functools.partial(check_real, low=0.0, low_open=True))
_FRACTION = value_errors(functools.partial(check_real, low=0.0, high=1.0, low_open=True, high_open=True))


class _GroupBudgetBase(SharedAccountantCloneMixin, PrivateFitMixin, _GroupBudgetStages, BaseEstimator):
    """Shared fit machinery; subclasses choose the loss (squared / logistic)."""

    _loss = "squared"

    #: Each public parameter's own domain, checked in this order before anything else (``PrivateFitMixin``); the
    #: rules that relate several (``rho`` or ``epsilon``, ``objective`` and ``bounded_group_loss``, the classifier's
    #: ``target_bound``) are in ``_check_params_together``.
    _public_parameter_checks = {
        "fit_intercept": check_bool,
        "random_state": check_seed,
        "stage1_fraction": _FRACTION,
        "budget_allocation": functools.partial(check_choice, options=("standard_errors", "uniform")),
        "objective": functools.partial(check_choice, options=("group_mean", "pooled")),
        "data_bound": _POSITIVE,
        "clip": _POSITIVE,
        "learning_rate": _POSITIVE,
        "coef_bound": _POSITIVE,
        "lagrange_multiplier": _POSITIVE,
        "n_iter": value_errors(functools.partial(check_int, low=1)),
        "bounded_group_loss": value_errors(functools.partial(check_real, low=0.0, allow_none=True)),
        "target_bound": value_errors(functools.partial(check_real, low=0.0, low_open=True, allow_none=True)),
        "delta": _FRACTION,                 # in (0, 1): the (epsilon, delta) report of the zCDP spend
    }

    def __init__(self, *, rho: float | None = None, epsilon: float | None = None, delta: float = 1e-6,
                 stage1_fraction: float = 0.2, budget_allocation: str = "standard_errors",
                 objective: str = "group_mean", bounded_group_loss: float | None = None,
                 lagrange_multiplier: float = 1.0, data_bound: float = 1.0, target_bound: float | None = None,
                 clip: float = 2.0, n_iter: int = 200, learning_rate: float = 0.05, coef_bound: float = 5.0,
                 fit_intercept: bool = True, groups: Sequence[Any] | None = None,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.rho = rho
        self.epsilon = epsilon
        self.delta = delta
        self.stage1_fraction = stage1_fraction
        self.budget_allocation = budget_allocation
        self.objective = objective
        self.bounded_group_loss = bounded_group_loss
        self.lagrange_multiplier = lagrange_multiplier
        self.data_bound = data_bound
        self.target_bound = target_bound
        self.clip = clip
        self.n_iter = n_iter
        self.learning_rate = learning_rate
        self.coef_bound = coef_bound
        self.fit_intercept = fit_intercept
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------ parameters
    def _total_rho(self):
        """The zCDP budget: ``rho``, or the largest rho whose (epsilon, delta) conversion is at most ``epsilon``
        (``delta`` already checked by the table).
        """
        if self.rho is not None:
            if self.epsilon is not None:
                raise ValueError("Give either rho or epsilon, not both.")
            return self._checked_rho()
        if self.epsilon is None:
            raise ValueError("rho (zCDP budget) or epsilon is required.")
        if isinstance(self.epsilon, bool) or not (isinstance(self.epsilon, numbers.Real)
                                                  and not math.isnan(self.epsilon) and self.epsilon > 0):
            raise ValueError(f"epsilon must be a number > 0 (inf: no privacy), got {self.epsilon!r}.")
        if math.isinf(self.epsilon):
            return math.inf                         # the non-private baseline: no noise, charged (inf, 0)
        validate_epsilon_delta(self.epsilon, 0.0)   # finite: at most MAX_EPSILON (the accountant's composition)
        # Largest rho whose Bun-Steinke conversion rho + 2 sqrt(rho ln(1/delta)) is at most epsilon, also in
        # floating point (the plain formula can convert back to epsilon + a few ulps, which an accountant whose
        # ceiling is epsilon refuses).
        return approx_dp_to_zcdp(self.epsilon, self.delta)

    def _checked_rho(self):
        """``rho`` given: ``inf`` (the non-private baseline), or a finite rho > 0 whose (epsilon, delta) conversion
        is at most ``MAX_EPSILON`` (beyond it the accountant's composition would overflow).
        """
        if not isinstance(self.rho, bool) and isinstance(self.rho, numbers.Real) and math.isinf(self.rho) \
                and self.rho > 0:
            return math.inf
        rho = check_rho(self.rho)
        if zcdp_to_approx_dp(rho, self.delta) > MAX_EPSILON:
            raise ValueError(f"rho={rho!r} converts to an epsilon above {MAX_EPSILON:g}, which would make the "
                             "accountant's composition overflow; use rho=numpy.inf for a non-private run.")
        return rho

    def _check_params_together(self, checked):
        """The joint rules, after the table: ``bounded_group_loss`` needs ``objective="group_mean"``; the
        classifier refuses a ``target_bound``; ``rho`` or ``epsilon`` gives the budget;
        the declared ``groups``. Returns ``(rho, groups)`` (``groups`` None when they are to be read from the data).
        """
        if self.objective == "pooled" and self.bounded_group_loss is not None:
            raise ValueError("bounded_group_loss needs objective='group_mean' (Alg. 2).")
        self._target_bound()                        # the classifier refuses a target_bound here, before the data
        rho = self._total_rho()
        groups = None
        if self.groups is not None:
            groups = resolve_groups(self.groups, None, estimator_name=type(self).__name__)
        return rho, groups

    def _planned_spend(self, resolved):
        """The whole budget ``rho`` as ``(epsilon, delta)`` (a fit never charges more)."""
        return self._spend(resolved[0])

    def _target_bound(self):
        """Public bound on ``|y|``: ``target_bound``, or ``data_bound`` when it is None (1 for the classifier)."""
        return float(self.data_bound if self.target_bound is None else self.target_bound)

    def _label_attributes(self):
        """Fitted attributes fixed by public label parameters (the classifier's ``classes_``)."""
        return {}

    def _spend(self, rho):
        """What ``rho`` zCDP costs as ``(epsilon, delta)``; with ``epsilon`` given, ``rho`` converts to at most it."""
        if math.isinf(rho):
            return PrivacySpend(math.inf, 0.0, rho=math.inf)
        return PrivacySpend(zcdp_to_approx_dp(rho, self.delta), self.delta, rho=rho)

    # ------------------------------------------------------------------ data
    def _design(self, X, *, warn_clipped=False):
        """``X`` clipped to ``[-data_bound, data_bound]``, with the constant column at the bound (intercept).

        Clipping in ``fit`` is silent: a warning emitted only when some value exceeded the bound would tell whether
        the private data hold such a value. ``predict`` (``warn_clipped=True``) warns, its data are not the fit's.
        """
        if isinstance(X, (pd.DataFrame, pd.Series)):
            X = X.to_numpy()
        X = call_withheld(np.asarray, X, dtype=float,        # its message could quote a private value: withheld
                          replace=(((TypeError, ValueError), TypeError("X must be numeric.")),))
        if X.ndim != 2 or X.shape[0] == 0:
            raise ValueError("X must be a non-empty 2-D array.")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or infinite values.")
        bound = float(self.data_bound)
        if warn_clipped and np.any(np.abs(X) > bound):
            warn(f"Some feature values exceed data_bound={bound} in absolute value and were clipped.", UtilityWarning)
        X = np.clip(X, -bound, bound)
        if self.fit_intercept:
            X = np.column_stack([X, np.full(X.shape[0], bound)])   # constant column at the bound: |x_j| <= U
        return X

    # ------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike) -> Self:
        """Fit the DP model (group sizes are treated as public, see Privacy).

        Order: the public parameters and groups are validated and the accountant is checked for the whole budget
        before the data are read (:meth:`check_public_inputs`); a fit that raises leaves the estimator as it was.
        """
        rho, groups = self.check_public_inputs(X, y, sensitive_features=sensitive_features)
        design = self._design(X)
        target = self._target(y, design.shape[0])
        group_vector = as_group_vector(sensitive_features, design.shape[0], groups=groups)
        if groups is None:
            groups = resolve_groups(None, group_vector, estimator_name=type(self).__name__,
                                    private=not math.isinf(rho))
        group_index = encode_groups(group_vector, groups)
        sizes = np.bincount(group_index, minlength=len(groups))
        # One independent stream per stage, both derived from random_state (DPNoSE draws the stage-1 seed too and
        # leaves it unused): DPSE and DPNoSE fitted with the same random_state then share their stage-2 standard
        # normal draws, which makes paired comparisons of the two allocations far less noisy (common random
        # numbers). Each release still gets fresh, independent noise. random_state=None: diffprivlib's secure
        # source for every release (never numpy's global generator).
        # A third stream for the classifier's final choice (the first two are the same as without it).
        stage1_rng, stage2_rng, choice_rng = release_seeds(self.random_state, 3)
        rho_fit, rho_choice = self._choice_split(rho)
        ledger = ZCDPLedger()
        present = sizes > 0
        uniform = present / present.sum()           # equal shares over the groups that have rows (sizes are public)
        fallback = stage1 = None
        if self.budget_allocation == "standard_errors" and np.any(sizes >= design.shape[1] + 1):
            tau, mu = group_budget_split(rho_fit, self.stage1_fraction)
            shares, fallback, stage1 = self._stage1_standard_errors(design, target, group_index, sizes, tau,
                                                                    ledger, stage1_rng)
        else:
            mu = rho_fit
            shares = uniform
            if self.budget_allocation == "standard_errors":
                fallback = "no group has d + 1 rows"         # public: stage 1 is skipped, its budget goes to stage 2
        coef, history = self._stage2_gradient_descent(design, target, group_index, sizes, mu, shares, ledger,
                                                      stage2_rng)
        choice = self._final_choice(design, target, coef, rho_choice, choice_rng)    # None: the regressor
        spent = self._charged_rho(ledger.total() + rho_choice, rho)
        privacy_spent = charge(self.accountant, self._spend(spent))

        self.groups_ = groups
        self.group_sizes_ = sizes
        self.budget_shares_ = shares
        self.stage1_fallback_ = fallback
        self.stage1_statistics_ = stage1
        self.coef_ = coef[:-1] if self.fit_intercept else coef
        self.intercept_ = float(coef[-1] * self.data_bound) if self.fit_intercept else 0.0
        self.ledger_ = ledger
        self.history_ = history
        set_fit_features(self, X)               # n_features_in_ (and feature_names_in_), as scikit-learn's
        self.rho_spent_ = spent
        self.privacy_spent_ = privacy_spent
        for name, value in self._label_attributes().items():
            setattr(self, name, value)
        self._warn_if_budget_unused(fallback, spent, rho)       # after the charge: the warning may be an error
        if choice is not None:
            self._set_constant_choice(choice)
        return self

    def _set_constant_choice(self, choice):
        """The classifier's released choice against the constant classifiers, with its warnings (after the charge:
        a warning may be an error).
        """
        self.constant_choice_ = choice
        warn_if_constant_chosen(type(self).__name__, choice, "More data, a larger budget or fewer iterations")
        # The released margins x . coef_ + intercept_ on the public box |x_j| <= data_bound (where fit and predict
        # clip every row): one sign on the whole box is a constant output (sound; y is private, so the rows'
        # own predictions are not released).
        span = linear_span(self.coef_, self.data_bound, 1)
        warn_if_constant_output(type(self).__name__, float(self.intercept_ - span > 0),
                                float(self.intercept_ + span > 0), choice=choice, labels=tuple(self.classes_),
                                source="its released coefficients over the box |x_j| <= data_bound",
                                hint="More data, a larger budget or fewer iterations")

    def _warn_if_budget_unused(self, fallback, spent, rho):
        """A :class:`~fairlearn_dp.exceptions.UtilityWarning` (a fallback taken) when less than the budget was
        spent (stage 1 fell back before its residual releases). Its text depends only on the fallback (a released
        value's test), ``rho`` and what was charged (from public group sizes and the releases made), never on a data
        value.
        """
        if math.isinf(rho) or spent >= rho * (1 - 1e-9):
            return
        warn(
            f"{type(self).__name__}: stage 1 fell back ({fallback}, a test on released values) and skipped its "
            f"residual releases, so only rho={spent:.6g} of the budget rho={rho:.6g} was spent and charged, as "
            f"(epsilon={self.privacy_spent_.epsilon:.6g}, delta={self.privacy_spent_.delta:g}) (privacy_spent_); "
            "stage 2 used its own share, not the unspent part.",
            UtilityWarning)

    @staticmethod
    def _charged_rho(total, rho):
        """The zCDP spend to charge: the ledger's sum of its releases' costs, capped at the budget ``rho`` when it
        exceeds it only by floating-point rounding (the per-release costs are recomputed from their sigmas and
        summed over up to ``T K`` releases; the budget splits sum to ``rho`` exactly in real arithmetic). A larger
        excess would be a bug and is charged as it is.
        """
        if math.isinf(rho) or rho < total <= rho * (1 + 1e-9):
            return rho
        return total

    def _decision(self, X):
        check_is_fitted(self, "coef_")
        check_predict_features(self, X)         # scikit-learn's checks: the same columns, in the same order
        design = self._design(X, warn_clipped=True)
        return design[:, :self.n_features_in_] @ self.coef_ + self.intercept_




class DPGroupBudgetRegressor(RegressorMixin, _GroupBudgetBase):
    """Differentially private linear regression with group-aware budget allocation and optional bounded group loss.

    Two stages (the budget-tailoring paper): a precursor DP OLS fit estimates each group's prediction standard
    error ``s_k`` privately (Alg. 1); projected DP gradient descent then gives group k the share ``s_k^2`` of every
    iteration's privacy budget (Alg. 2; Alg. 3 with ``objective="pooled"``), so groups whose predictions are least
    certain (often the smallest) get less noise. With ``bounded_group_loss=eta`` the objective adds
    ``lagrange_multiplier * max(0, max_k L_k - eta)`` (Fairlearn's ``BoundedGroupLoss`` as a Lagrangian, ``f =
    sum``, ``g = max - eta``). ``budget_allocation="uniform"`` is the paper's DPNoSE baseline (no stage 1, equal
    shares). The model does not need the sensitive attribute at predict time.

    Parameters
    ----------
    rho : float or None
        Total zCDP budget (``tau + mu``). Alternatively give ``epsilon`` (and ``delta``): rho is then the largest
        value whose conversion is ``(epsilon, delta)``.
    epsilon : float or None
        ``numpy.inf`` (or ``rho=numpy.inf``) is the non-private baseline, as for every fairdp estimator: the same
        two stages with exact statistics (no noise), charged ``(inf, 0)``, no ``PrivacyWarning``.
    delta : float, default=1e-6
        For the (epsilon, delta) report of the zCDP spend.
    stage1_fraction : float, default=0.2
        ``tau / rho``, in (0, 1).
    budget_allocation : {"standard_errors", "uniform"}, default="standard_errors"
        DPSE (the paper's method) or DPNoSE.
    objective : {"group_mean", "pooled"}, default="group_mean"
        Sum of per-group mean losses (Alg. 2, groups weigh equally) or the plain sum over rows (Alg. 3).
    bounded_group_loss : float or None, default=None
        Threshold ``eta`` of the bounded-group-loss penalty (None: no fairness term).
    lagrange_multiplier : float, default=1.0
        ``G`` of the Lagrangian.
    data_bound : float, default=1.0
        Public bound ``U`` on ``|x_j|`` (features are clipped to it silently in ``fit``, with a warning in
        ``predict``; scale your data accordingly).
    target_bound : float or None, default=None
        Public bound ``V`` on ``|y|`` (targets are clipped to it, silently); None uses ``data_bound``. Give it
        separately when the target's range differs from the features': a loose bound on X inflates the stage-1
        noise on ``X^T X`` by ``U^2``.
    clip : float, default=2.0
        Per-example gradient clipping norm ``Delta`` (losses are clipped to ``Delta^2``); the paper uses 2.
    n_iter : int, default=200
        ``T``.
    learning_rate : float, default=0.05
    coef_bound : float, default=5.0
        Coefficients are projected onto ``[-coef_bound, coef_bound]^P`` (the paper's ``C_P = [-5, 5]^P``).
    fit_intercept : bool, default=True
    groups : list or None
        Public group labels (None: read from the data with a PrivacyWarning). A declared group may have no rows
        (it then gets share 0 and releases nothing).
    accountant : diffprivlib.BudgetAccountant or None
    random_state : None, int or RandomState
        None: the release noise comes from diffprivlib's secure source (never numpy's global generator). An int
        or a RandomState makes the noise reproducible (experiments only).

    Attributes
    ----------
    coef_, intercept_ : the DP model.
    groups_ : list
        The groups, in the order of the per-group attributes.
    group_sizes_ : ndarray of shape (n_groups,)
        ``n_k`` (public).
    budget_shares_ : ndarray of shape (n_groups,)
        ``s_k^2`` (sums to 1; 0 for a group without rows, ``1 / K'`` for a group too small for a standard error).
    stage1_fallback_ : str or None
        Why stage 1 gave equal shares (a released ``X^T X`` not positive definite, a released residual sum <= 0,
        or no group with ``d + 1`` rows), None otherwise.
    stage1_statistics_ : dict or None
        Stage 1's releases: ``"gram"`` (the noisy ``X^T X``, its upper triangle mirrored), ``"moments"`` (``X^T
        y``) and ``"residual_sums"`` (of the groups with ``d + 1`` rows; None if not released); None without stage 1.
    ledger_ : ZCDPLedger
        Every Gaussian release with its stage, sensitivity, sigma and zCDP cost.
    rho_spent_ : float
        The zCDP spent: the ledger's sum, capped at ``rho`` for floating-point rounding; less when stage 1 fell
        back before its residual releases (a UtilityWarning then reports it).
    privacy_spent_ : PrivacySpend
    history_ : dict
        Iterates and noisy gradients / losses per iteration (diagnostics, all DP).

    Privacy
    -------
    - Neighbouring relation: substitution of one record ``(x, a, y)`` within a group; the group sizes ``n_k`` are
      public (as in the paper). The guarantee is for X clipped to ``data_bound`` and y to ``target_bound``.
    - Released statistics: stage 1 (``tau = stage1_fraction * rho``) the upper triangle of ``X^T X``, ``X^T y`` and
      each group's clipped residual sum; stage 2 (``mu = rho - tau``) each group's clipped gradient mean per
      iteration (and its clipped loss mean with ``bounded_group_loss``). The rest is post-processing.
    - Mechanism: diffprivlib's analytic Gaussian at the zCDP sigma, every release recorded in ``ledger_``; zCDP
      adds, and the accountant is charged ``(rho + 2 sqrt(rho ln(1/delta)), delta)`` once (``privacy_spent_``).
    - Sensitivities (L2): ``U^2 sqrt(d^2 - (d mod 2))`` (upper triangle of ``X^T X``, ``d >= 2``), ``2 sqrt(d) U
      V`` (``X^T y``), ``clip^2`` (residual sum), ``2 clip / n_k`` (gradient mean; ``2 clip`` pooled), ``clip^2 /
      n_k`` (loss mean); each attained by some neighbour.
    - Public inputs: ``n_k``, ``groups``, ``data_bound``, ``target_bound``, ``clip``, ``n_iter`` and the other
      parameters; small and empty groups get default shares decided by the public sizes.
    - Derivations: docs/privacy_analysis/group_budget.md.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.reductions import DPGroupBudgetRegressor
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 3, 6000)
    >>> X = rng.uniform(-1, 1, (6000, 2))
    >>> y = np.clip(X @ [0.5, -0.3] + 0.1 * g - 0.1 + 0.1 * rng.standard_normal(6000), -1, 1)
    >>> model = DPGroupBudgetRegressor(rho=1.0, groups=[0, 1, 2], accountant=BudgetAccountant(), random_state=0)
    >>> model = model.fit(X, y, sensitive_features=g)
    >>> spent = model.privacy_spent_                # rho as the sum of the releases' costs, epsilon its conversion
    >>> bool(abs(spent.rho - 1.0) < 1e-9), spent.delta
    (True, 1e-06)
    >>> pred = model.predict(X)
    >>> pred.shape, bool(np.mean((pred - y) ** 2) < 0.5 * np.var(y))   # MSE about 0.017, variance 0.13
    ((6000,), True)
    """

    _loss = "squared"

    def _target(self, y, n):
        """``y`` as floats clipped to ``[-target_bound, target_bound]`` (silently: see Privacy)."""
        values = _as_column(y, n)
        values = call_withheld(values.astype, float,          # its message could quote a private value: withheld
                               replace=(((TypeError, ValueError), TypeError("y must be numeric.")),))
        if not np.all(np.isfinite(values)):
            raise ValueError("y contains NaN or infinite values.")
        bound = self._target_bound()
        return np.clip(values, -bound, bound)

    @staticmethod
    def _gradient_scalars(margin, y):
        """Per-example gradient of ``(x theta - y)^2`` is ``2 (x theta - y) x``: the scalar ``2 (margin - y)``."""
        return 2 * (margin - y)

    @staticmethod
    def _losses_from_margin(margin, y):
        return (margin - y) ** 2

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predictions ``X coef_ + intercept_`` (no sensitive attribute needed)."""
        return self._decision(X)


class DPGroupBudgetClassifier(ClassifierMixin, _GroupBudgetBase):
    """Logistic-loss variant of :class:`DPGroupBudgetRegressor` for binary labels (the paper's Appendix A).

    Stage 1 is the same DP OLS precursor on labels coded -1/+1; stage 2 runs the same DP gradient descent on the
    logistic loss ``log(1 + exp(-y theta^T x))`` (per-example gradients clipped to ``clip``, losses to
    ``clip^2``). Parameters and attributes are those of :class:`DPGroupBudgetRegressor`, except that
    ``target_bound`` does not apply (labels are in {-1, +1}, so the bound on ``|y|`` is 1) and the label set is
    declared, not read from the data:

    Parameters
    ----------
    classes : sequence of two labels or None, default=None
        The public label set ``[negative, positive]`` (e.g. ``["no", "yes"]``); the positive class is coded +1.
        None means the labels are 0 and 1 (``classes_ = [0, 1]``; booleans count as 0/1). ``y`` holding any other
        value is a ``ValueError`` naming ``y``. A label set read from the data would tell, e.g., whether some
        record has the positive label, so it is never inferred.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes`` (or ``[0, 1]``), whatever labels the data hold; ``predict`` returns these.
    constant_choice_ : ConstantChoice
        The private choice (``0.1 rho``) between the fitted model and the two constant classifiers by their
        training errors; when a constant wins (``UtilityWarning``) every prediction is it (margins ``+-inf``).

    Privacy
    -------
    - Neighbouring relation: substitution of one record ``(x, a, y)`` within a group; the group sizes ``n_k`` are
      public. The guarantee is for X clipped to ``data_bound``.
    - Released statistics: those of :class:`DPGroupBudgetRegressor`, on labels coded -1/+1 and with the logistic
      loss's clipped per-example gradients and losses.
    - Mechanism: the same Gaussian releases on ``0.9 rho``, recorded in ``ledger_``, then the exponential mechanism
      with ``epsilon_c = sqrt(0.2 rho)`` for the final choice (``epsilon_c^2 / 2 = 0.1 rho`` zCDP, included in
      ``rho_spent_``, not in ``ledger_``), composed in zCDP and charged once.
    - Sensitivities: the regressor's, with ``V = 1`` (labels coded -1/+1).
    - Public inputs: the regressor's, and the label set ``classes`` (never read from the data).
    - Derivations: docs/privacy_analysis/group_budget.md.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.reductions import DPGroupBudgetClassifier
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 3, 6000)
    >>> X = rng.uniform(-1, 1, (6000, 2))
    >>> y = (X[:, 0] + 0.2 * g + 0.3 * rng.standard_normal(6000) > 0.2).astype(int)
    >>> model = DPGroupBudgetClassifier(epsilon=1.0, delta=1e-6, groups=[0, 1, 2], accountant=BudgetAccountant(),
    ...                                 random_state=0)
    >>> model = model.fit(X, y, sensitive_features=g)
    >>> spent = model.privacy_spent_                # epsilon converted to rho, spent in zCDP, converted back
    >>> bool(abs(spent.epsilon - 1.0) < 1e-9), spent.delta, model.classes_.tolist()
    (True, 1e-06, [0, 1])
    >>> bool((model.predict(X) == y).mean() > 0.8)                  # accuracy, about 0.86
    True
    """

    _loss = "logistic"
    _choice_share = SELECTION_SHARE         # the final choice against the constant classifiers

    #: The regressor's table and the declared label set.
    _public_parameter_checks = {**_GroupBudgetBase._public_parameter_checks, "classes": _check_classes}

    def __init__(self, *, rho: float | None = None, epsilon: float | None = None, delta: float = 1e-6,
                 stage1_fraction: float = 0.2, budget_allocation: str = "standard_errors",
                 objective: str = "group_mean", bounded_group_loss: float | None = None,
                 lagrange_multiplier: float = 1.0, data_bound: float = 1.0, target_bound: float | None = None,
                 clip: float = 2.0, n_iter: int = 200, learning_rate: float = 0.05, coef_bound: float = 5.0,
                 fit_intercept: bool = True, groups: Sequence[Any] | None = None,
                 classes: Sequence[Any] | None = None, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        super().__init__(rho=rho, epsilon=epsilon, delta=delta, stage1_fraction=stage1_fraction,
                         budget_allocation=budget_allocation, objective=objective,
                         bounded_group_loss=bounded_group_loss, lagrange_multiplier=lagrange_multiplier,
                         data_bound=data_bound, target_bound=target_bound, clip=clip, n_iter=n_iter,
                         learning_rate=learning_rate, coef_bound=coef_bound, fit_intercept=fit_intercept,
                         groups=groups, accountant=accountant, random_state=random_state)
        self.classes = classes

    def _target_bound(self):
        """Labels are coded -1/+1, so the bound on ``|y|`` is 1 (``target_bound`` does not apply)."""
        if self.target_bound is not None:
            raise ValueError("target_bound does not apply to DPGroupBudgetClassifier (labels are coded -1/+1); "
                             "leave it None.")
        return 1.0

    def _declared_classes(self):
        """The public label set as a list ``[negative, positive]`` (``[0, 1]`` when ``classes`` is None)."""
        return _check_classes(self.classes)

    def _label_attributes(self):
        labels = self._declared_classes()
        kinds = {type(label) for label in labels}
        return {"classes_": np.asarray(labels) if len(kinds) == 1 else np.array(labels, dtype=object)}

    def _target(self, y, n):
        """Labels in the declared ``classes`` coded -1 (negative) / +1 (positive); anything else is an error."""
        values = _as_column(y, n)
        if pd.isna(values).any():
            raise ValueError("y contains missing values (NaN/None); labels must be one of classes.")
        labels = self._declared_classes()
        codes = pd.Index(pd.Series(labels, dtype=object)).get_indexer(pd.Series(values, dtype=object))
        if np.any(codes < 0):
            declared = "classes=[0, 1] (the default)" if self.classes is None else "the declared classes"
            raise ValueError(f"y contains a label that is not one of {declared}; pass classes=[negative, "
                             "positive] to declare the label set.")
        return np.where(codes == 1, 1.0, -1.0)

    @staticmethod
    def _gradient_scalars(margin, y):
        """Per-example gradient of ``log(1 + exp(-y x theta))`` is ``-y / (1 + exp(y x theta)) x``."""
        return -y / (1.0 + np.exp(y * margin))

    @staticmethod
    def _losses_from_margin(margin, y):
        return np.logaddexp(0.0, -y * margin)

    def _decision(self, X):
        """The margins, or ``-inf`` / ``+inf`` for every row when the final choice returned a constant."""
        decision = super()._decision(X)
        if self.constant_choice_.is_constant:
            return np.full(decision.shape, math.inf if self.constant_choice_.constant == 1.0 else -math.inf)
        return decision

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """The margins ``X coef_ + intercept_`` (positive: the positive class); ``+-inf`` for a constant."""
        return self._decision(X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """``[P(negative), P(positive)]`` per row: the logistic function of the margin."""
        decision = self._decision(X)
        with np.errstate(over="ignore"):          # exp overflow: the probability is 0, exactly the limit
            p = 1.0 / (1.0 + np.exp(-decision))
        return np.column_stack([1 - p, p])

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The declared class of each row: the positive one where the margin is > 0."""
        check_is_fitted(self, "coef_")
        return self.classes_[(self._decision(X) > 0).astype(int)]


def _as_column(y, n):
    """``y`` as a 1-D array of length ``n`` (a one-column 2-D input is accepted)."""
    if isinstance(y, (pd.DataFrame, pd.Series)):
        y = y.to_numpy()
    values = np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError("y must be one-dimensional (or a single column).")
    if values.size != n:
        raise ValueError(f"y has {values.size} rows but X has {n} (length mismatch).")
    return values
