"""Jagielski et al. (2019), Algorithm 3 "DP-oracle-learner", as an estimator: :class:`JagielskiExponentiatedGradient`.

The estimator validates its public parameters (below), checks the budget, reads the data and runs
:class:`~._algorithm3.Algorithm3` (the hypotheses on the rows, count, release, play), which calls it back to charge the
whole spend once ``N`` is released, before any play; then it warns. It predicts as
:class:`~fairlearn_dp.reductions.DPExponentiatedGradient` does (the shared ``_GameClassifier``: the randomized
mixture of the plays, or the fair constant chosen against it). Derivations:
docs/privacy_analysis/exponentiated_gradient.md.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from sklearn.base import BaseEstimator

from .._utils._features import set_fit_features, warn_sensitive_columns_in_X
from .._utils._fit_support import atomic_fit
from .._utils._row_bounds import feature_bound_radius, feature_reach
from .._utils._validation import (
    check_choice,
    check_declared_groups,
    check_delta,
    check_epsilon,
    check_feature_bound,
    check_int,
    check_optional_hypotheses,
    check_real,
    check_seed,
    value_errors,
)
from ..privacy import PrivacySpend
from ..privacy._accountant import charge
from ..privacy._random import release_random_state
from ..privacy._selection import no_choice
from ._algorithm3 import Algorithm3
from ._eg_params import _FRACTION, _POSITIVE_OR_NONE, _PRIVACY_UNITS, _RIDGE, MAX_ROUNDS, _check_rounds, _GameParams
from ._exponentiated_gradient import _GameClassifier
from ._game_mixture import threshold_rate_bounds
from ._hypotheses import hypothesis_predictions

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import Moment
    from numpy.typing import ArrayLike

__all__ = ["JagielskiExponentiatedGradient"]

_ORACLES = ("auto", "exponential", "regression", "diffprivlib")


class JagielskiExponentiatedGradient(_GameClassifier, _GameParams, BaseEstimator):
    """Jagielski et al.'s (2019) Algorithm 3: exponentiated gradient with a private Learner and a private Auditor.

    The Learner best-responds through a private cost-sensitive oracle (the exponential mechanism over a finite class
    ``hypotheses``, or the paper's private linear regression of the costs), the Auditor plays exponentiated gradient
    on Laplace-noised constraint violations, and the output is the uniform mixture of the ``T`` plays. Constraints are
    Fairlearn's moments, each cell's denominator floored at the cell-count bound ``N``. For the default private
    reduction with Fairlearn's parameters, see :class:`DPExponentiatedGradient`. Prediction does not use the
    sensitive feature.

    Parameters
    ----------
    constraints : fairlearn.reductions.Moment
        ``DemographicParity``, ``EqualizedOdds``, ``TruePositiveRateParity``, ``FalsePositiveRateParity`` or
        ``ErrorRateParity``, with a difference bound (the objective is the error rate).
    oracle : {"auto", "exponential", "regression"}, default="auto"
        The Learner: the exponential mechanism over ``hypotheses``, or the private regression of the costs.
        ``"auto"``: ``"exponential"`` when ``hypotheses`` is given, else ``"regression"``. (``"diffprivlib"`` is
        refused: its models ignore ``sample_weight``.)
    hypotheses : list or None, default=None
        Finite class of classifiers or 0/1 callables, fixed before seeing the data, for ``oracle="exponential"``.
    max_iter : int or None, default=None
        Rounds ``T``, at most ``MAX_ROUNDS`` (1,000). None: the paper's formula (Thm. 4.5), 200 at ``epsilon=inf``;
        the value used is ``n_iter_``.
    bound_B : float, default=10.0
        ``B``, the L1 bound on the Auditor's multipliers.
    eta : float or None, default=None
        The Auditor's learning rate (None: ``sqrt(ln(4|A| - 3) / T) / 2``).
    feature_bound : float or (lower, upper), default=1.0
        Public bound on the features (``|x_j| <= R``, or a box); the regression oracle clips to ``[-R, R]``.
    ridge : float or None, default=None
        Added to ``X^T X`` in the regression oracle (None: 0).
    min_count : int or None, default=None
        Public lower bound ``N >= 2`` on the (event, group) cell counts (None: released).
    min_count_fraction : float, default=0.1
        Share of epsilon for the released ``min_count``.
    beta : float, default=0.05
        Confidence parameter of the formula for ``T``.
    epsilon : float, default=1.0
        Total privacy budget of the fit (``inf``: no noise).
    delta : float, default=1e-7
        Half for the released ``min_count``, the rest for advanced composition (0 needs a public ``min_count``).
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        Neighbouring relation protected (see Privacy).
    groups : list or None, default=None
        Public list of groups (None: read from the data, with a ``PrivacyWarning`` when private).
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Checked before the data are read and charged once per successful ``fit``.
    random_state : None, int or RandomState, default=None
        Seeds the release noise (experiments only). None: diffprivlib's secure generator.

    Attributes
    ----------
    predictors_, weights_ : list and numpy.ndarray
        The Learner's plays and their (uniform) weights in the mixture ``Q``.
    lambda_, constraint_index_ : numpy.ndarray and pandas.MultiIndex
        The Auditor's average multipliers and their (sign, event, group) index.
    history_ : dict of numpy.ndarray
        The releases and their post-processing (multipliers, violations, plays).
    n_iter_, eta_, oracle_ : int, float, str
        Rounds played, learning rate and the Learner.
    epsilon_per_mechanism_, composition_ : float, str
        The epsilon of each per-round mechanism and the composition rule.
    min_count_, min_count_estimate_ : float, float or None
        The cell-count floor ``N`` used, and its released estimate when ``min_count`` is None.
    sensitivity_, privacy_spent_, constant_choice_ : dict, PrivacySpend, ConstantChoice
        The releases' sensitivities; what the fit charged; the choice against the fair constants (see Privacy).
    groups_, n_features_in_ : list, int
        The groups; the number of columns of X.

    Privacy
    -------
    - Neighbouring relation: ``"sensitive_attribute"`` (one person's attribute changes; X, y public) or
      ``"record"`` (a record substituted).
    - Released: the cell-count floor ``N`` (unless public), then per round the violations and the Learner's play.
    - Mechanism: Laplace and the exponential mechanism, advanced composition over the rounds.
    - Sensitivity: ``4/(N-1)``, ``8/(N-1)`` under ``"record"`` (L1) for the violations.
    - Public inputs: ``m``, the declared groups, the constraint, every parameter and bound.
    - Last step: Q or a fair constant, chosen exactly (attribute unit) or on 10% of epsilon (constant_fallback.md).
    - Derivations: docs/privacy_analysis/exponentiated_gradient.md.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn.reductions import DemographicParity
    >>> from fairlearn_dp.reductions import JagielskiExponentiatedGradient
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 4000)
    >>> X = rng.uniform(-1, 1, (4000, 2))
    >>> y = (X[:, 0] + 0.3 * (sex == "male") + 0.3 * rng.standard_normal(4000) > 0).astype(int)
    >>> mitigator = JagielskiExponentiatedGradient(DemographicParity(difference_bound=0.05), epsilon=1.0, delta=1e-5,
    ...                                            groups=["female", "male"], accountant=BudgetAccountant(),
    ...                                            random_state=0)
    >>> mitigator = mitigator.fit(X, y, sensitive_features=sex)
    >>> mitigator.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=5e-06, rho=None)
    >>> pred = mitigator.predict(X, random_state=0)
    >>> rates = [pred[sex == group].mean() for group in ["female", "male"]]   # selection rates, about 0.57 and 0.61
    >>> bool((pred == y).mean() > 0.65), bool(abs(rates[0] - rates[1]) < 0.1)
    (True, True)
    """

    _constant_choice_hint = " (or DPExponentiatedGradient, the statistics game)"

    #: Every parameter, in this order, before the budget check.
    _public_parameter_checks = {
        "epsilon": check_epsilon,
        "delta": check_delta,
        "oracle": functools.partial(check_choice, options=_ORACLES),
        "privacy_unit": functools.partial(check_choice, options=_PRIVACY_UNITS),
        "bound_B": functools.partial(check_real, low=0.0, low_open=True),
        "eta": _POSITIVE_OR_NONE,
        "feature_bound": check_feature_bound,
        "ridge": _RIDGE,
        "min_count_fraction": _FRACTION,
        "beta": _FRACTION,
        "random_state": check_seed,
        "min_count": value_errors(functools.partial(check_int, low=2, allow_none=True)),
        "hypotheses": check_optional_hypotheses,
        "groups": check_declared_groups,
    }

    def __init__(self, constraints: Moment | None = None, *, oracle: str = "auto",
                 hypotheses: Sequence[Any] | None = None, max_iter: int | None = None, bound_B: float = 10.0,
                 eta: float | None = None, feature_bound: float | tuple[ArrayLike, ArrayLike] = 1.0,
                 ridge: float | None = None, min_count: int | None = None, min_count_fraction: float = 0.1,
                 beta: float = 0.05, epsilon: float = 1.0, delta: float = 1e-7,
                 privacy_unit: str = "sensitive_attribute", groups: Sequence[Hashable] | None = None,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.constraints = constraints
        self.oracle = oracle
        self.hypotheses = hypotheses
        self.max_iter = max_iter
        self.bound_B = bound_B
        self.eta = eta
        self.feature_bound = feature_bound
        self.ridge = ridge
        self.min_count = min_count
        self.min_count_fraction = min_count_fraction
        self.beta = beta
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------------------------------ before the budget
    def _check_params_together(self, checked):
        """The joint rules, after the table (rules: the analysis page); returns ``(epsilon, delta, oracle)`` with
        ``oracle`` resolved.
        """
        epsilon, delta, oracle = checked["epsilon"], checked["delta"], checked["oracle"]
        if oracle == "auto":
            oracle = "exponential" if self.hypotheses is not None else "regression"
        self._check_moment()
        _check_rounds(self.max_iter)
        if oracle == "diffprivlib":
            raise ValueError("oracle='diffprivlib' is not available: diffprivlib's models (0.6) ignore "
                             "sample_weight, so the cost-sensitive best response would silently be an unweighted "
                             "fit. Use oracle='exponential' or 'regression'.")
        if oracle == "exponential" and self.hypotheses is None:
            raise ValueError("oracle='exponential' needs a non-empty finite hypothesis class `hypotheses`.")
        if delta == 0 and self.min_count is None and not math.isinf(epsilon):
            raise ValueError("delta=0 needs a public min_count: the private lower bound on the cell counts fails "
                             "with a small probability that must be counted in delta.")
        return epsilon, delta, oracle

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """Public checks of ``fit``'s arguments: no other keyword arguments, the round cap and the feature box from
        ``X``'s shape (no value of the data is read).
        """
        epsilon, delta, oracle = resolved
        if fit_kwargs:
            raise TypeError(f"Unexpected fit arguments: {sorted(fit_kwargs)} (control_features and other Fairlearn "
                            "fit arguments are not supported by the private algorithm).")
        if self.privacy_unit == "sensitive_attribute" and not math.isinf(epsilon):     # X is public there
            warn_sensitive_columns_in_X(X, sensitive_features, remedy="To protect them, drop them from X, or pass "
                                        "privacy_unit='record' to protect whole records.")
        shape = getattr(X, "shape", None)
        shape = np.shape(X) if shape is None else shape
        if len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
            return resolved                         # _load's domain error
        if self.groups is not None:                 # the round cap; with groups read from the data, after loading
            self._n_rounds(self._game_epsilon(epsilon), delta, int(shape[0]), int(shape[1]), len(self.groups),
                           oracle, not math.isinf(epsilon))
        feature_reach(self.feature_bound, int(shape[1]))
        return resolved

    def _n_rounds(self, epsilon, delta, m, d, n_groups, oracle, private):
        """Algorithm 3's T (Thm. 4.5's ``ln |H|`` for a finite class), with ``|A|`` the number of groups."""
        if self.max_iter is not None:
            return int(self.max_iter)
        if not private:
            return 200
        B = float(self.bound_B)
        log_class = (math.log(len(self.hypotheses)) if oracle == "exponential" else (d + 1) * math.log(m))
        numerator = B * math.sqrt(math.log(4 * n_groups - 3)) * m * epsilon
        log_delta = math.log(1 / delta) if delta > 0 else 1.0
        denominator = (2 * (2 * n_groups * B + 1) * math.sqrt(log_delta)
                       * (log_class + math.log(2 / self.beta)))
        rounds = numerator / denominator
        if rounds > MAX_ROUNDS:                     # public: m, d, |A|, epsilon, delta, B, beta
            raise ValueError(f"Algorithm 3's formula asks for T = {rounds:,.0f} rounds at epsilon={epsilon:g} "
                             f"(max_iter=None; T grows like epsilon), above MAX_ROUNDS={MAX_ROUNDS:,}: set max_iter "
                             f"(at most {MAX_ROUNDS:,}), which spends the budget on fewer, less noisy rounds. Nothing "
                             "was spent.")
        return max(1, int(rounds))

    # ------------------------------------------------------------------------------------------ fit
    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike | None = None,
            **kwargs: Any) -> JagielskiExponentiatedGradient:
        """Fit on ``(X, y)`` with ``sensitive_features``: T rounds of the private Learner/Auditor game.

        Order: public parameters are validated and the budget is checked before the data are read; every fit of
        data inside the domain then succeeds (see Privacy). A fit that raises leaves the estimator as it was.
        """
        self.__dict__.pop("constant_choice_", None)
        epsilon, delta, oracle = self.check_public_inputs(X, y, sensitive_features=sensitive_features, **kwargs)
        private = not math.isinf(epsilon)
        X_arr, y_arr, group_index, groups = self._load(X, y, sensitive_features, private=private)
        self._fit_loaded(X_arr, y_arr, group_index, groups, epsilon, delta, oracle)
        set_fit_features(self, X)                   # n_features_in_ (and feature_names_in_), as scikit-learn's
        return self

    def _predict_rows(self, X_arr):
        """The regression oracle's plays read X clipped to the feature box ``[-R, R]``, at fit and here."""
        if self.oracle_ == "regression":
            radius = feature_bound_radius(self.feature_bound)
            return np.clip(X_arr, -radius, radius)
        return X_arr

    def _fit_loaded(self, X_arr, y_arr, group_index, groups, epsilon, delta, oracle):
        """Algorithm 3 (:mod:`._algorithm3`) on the loaded data: count, release, play, with the charge before the
        first play; then the warnings (post-processing of the releases and public values).
        """
        private = not math.isinf(epsilon)
        n, d = X_arr.shape
        game_epsilon = self._game_epsilon(epsilon)     # "record": the choice against the constants takes a share
        T = self._n_rounds(game_epsilon, delta, n, d, len(groups), oracle, private)  # public; capped before any release
        # Release noise: None reaches diffprivlib as None (its secure generator); a seed gives one reproducible
        # stream shared by all the fit's mechanisms, in the order they run.
        rng = release_random_state(self.random_state)
        game = Algorithm3(
            moment=self.constraints, oracle=oracle, epsilon=game_epsilon, delta=delta, n_rounds=T,
            B=float(self.bound_B), eta=self.eta, record=self.privacy_unit == "record",
            feature_radius=feature_bound_radius(self.feature_bound), ridge=self.ridge, min_count=self.min_count,
            min_count_fraction=self.min_count_fraction, hypotheses=self.hypotheses, rng=rng,
            name=type(self).__name__)
        # The whole spend is charged once N is released and the budget split (delta_used_ is then final), before the
        # first play: the plays drawn from the user's hypotheses, the Auditor's updates and the choice against the
        # constants are functions of releases, so a failure or a warning of theirs is a release too and costs what
        # the fit costs (a fit that raises from there on stays charged).
        charged = []
        game.fit(X_arr, y_arr, group_index, len(groups), after_release=lambda: charged.append(charge(
            self.accountant, PrivacySpend(epsilon, game.delta_used_) if private else PrivacySpend(math.inf, 0.0))))
        self.min_count_ = game.min_count_
        self.min_count_estimate_ = game.min_count_estimate_
        self.predictors_ = game.plays_
        self.weights_ = game.weights_
        self.lambda_ = game.lambda_
        self.constraint_index_ = game.constraint_index_
        self.history_ = game.history_
        self.n_iter_ = T
        self.eta_ = game.eta_
        self.oracle_ = oracle
        self.epsilon_per_mechanism_ = game.epsilon_per_mechanism_
        self.composition_ = game.composition_
        self.sensitivity_ = game.sensitivity_
        self.groups_ = groups
        self.n_features_in_ = d
        # The last release: Q (the plays' mixture, on the rows as predict sees them) against the fair constants. On
        # private rows a user's hypothesis that fails on a row predicts the public default 0 there, as in the game.
        self.constant_choice_ = no_choice()
        if private:
            rows = X_arr
            if oracle == "regression":              # its plays read X clipped to [-R, R], as predict does
                rows = self._predict_rows(X_arr)
            plays = hypothesis_predictions(self.predictors_, rows, private=self.privacy_unit == "record")
            positive = plays.astype(float) @ np.asarray(self.weights_, dtype=float)
            self.constant_choice_ = self._choose_against_constants(positive, y_arr, epsilon, rng)
        self.privacy_spent_ = charged[0]                # charged before any warning (one may be an error)
        self._warn_if_constant_chosen()
        if private and self.privacy_unit == "record":    # the plays' predictions on the domain: released plays
            radius = feature_bound_radius(self.feature_bound) if oracle == "regression" else math.inf
            low, high = threshold_rate_bounds(self.predictors_, self.weights_, radius, 1)     # the box [-R, R]^d
            self._warn_if_constant_output(low, high, source="its plays over the feature box [-R, R]^d")
        elif private:
            self._warn_if_constant_output(float(np.mean(positive)), source="its predictions on the public X")
        return self
