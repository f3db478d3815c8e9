"""DP exponentiated-gradient reduction (Jagielski et al. 2019, Algorithm 3 "DP-oracle-learner", Subroutine 2).

The Auditor plays exponentiated gradient on Laplace-noised constraint violations; the Learner best-responds through
a private cost-sensitive-classification oracle; the output is the uniform mixture of the Learner's plays. Fairlearn's
``Moment`` objects define the constraints (the Agarwal et al. 2018 reduction Fairlearn implements).
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings

import numpy as np
import pandas as pd
from fairlearn.reductions import (
    DemographicParity,
    EqualizedOdds,
    FalsePositiveRateParity,
    TruePositiveRateParity,
)
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..privacy import PrivacySpend, charge, check_spend, noisy_vector, per_mechanism_epsilon, validate_epsilon_delta
from ..utils._validation import SharedAccountantCloneMixin, as_group_vector, encode_groups, resolve_groups
from ._exponential import exponential_mechanism
from ._hypotheses import LinearThresholdClassifier, hypothesis_predictions

__all__ = ["DPExponentiatedGradient"]

SUPPORTED_MOMENTS = (DemographicParity, EqualizedOdds, TruePositiveRateParity, FalsePositiveRateParity)
_PRIVACY_UNITS = ("sensitive_attribute", "record")
_ORACLES = ("auto", "exponential", "regression", "estimator", "diffprivlib")


class DPExponentiatedGradient(SharedAccountantCloneMixin, MetaEstimatorMixin, BaseEstimator):
    """Differentially private exponentiated-gradient reduction for fair classification (DP-oracle-learner).

    Jagielski et al. (2019), Algorithm 3: the Lagrangian game of Agarwal et al. (2018) between a Learner, who
    best-responds to the Lagrange multipliers through a private cost-sensitive classification oracle, and an
    Auditor, who plays exponentiated gradient (multiplicative weights) on the constraint violations of the
    Learner's play with Laplace noise added. After ``T`` rounds the randomized classifier ``Q`` is the uniform
    mixture of the Learner's ``T`` plays. The classifier does not use the sensitive feature at prediction time.
    Drop-in for :class:`fairlearn.reductions.ExponentiatedGradient`: same ``Moment`` constraints, same
    ``predict(X, random_state=None)`` and ``_pmf_predict(X)`` semantics.

    Parameters
    ----------
    estimator : estimator or None, default=None
        Base classifier with ``fit(X, y, sample_weight=...)``, used only by ``oracle="estimator"`` (the
        non-private best response of Fairlearn, allowed only with ``epsilon=inf``).
    constraints : fairlearn.reductions.Moment
        ``DemographicParity``, ``EqualizedOdds``, ``TruePositiveRateParity`` or ``FalsePositiveRateParity``
        (difference bounds; no ratio bounds or control features). Its ``difference_bound`` is the fairness
        tolerance gamma of the paper.
    epsilon : float, default=1.0
        Total privacy budget of the fit (``inf``: no noise).
    delta : float, default=1e-7
        Total delta: half of it is the failure probability of the private lower bound on the cell counts (when
        ``min_count`` is None), the rest the slack of advanced composition over the rounds. ``delta=0`` needs a
        public ``min_count`` and uses basic composition.
    bound_B : float, default=10.0
        ``B``, the L1 bound on the Lagrange multipliers. Larger B enforces the constraints harder (violation bound
        ``gamma + (1 + 2 nu) / B``, Thm. 4.4) but raises the Learner's cost sensitivity.
    max_iter : int or None, default=None
        Rounds ``T``. None: Algorithm 3's formula ``B sqrt(ln(4|A| - 3)) m eps / (2 (2|A|B + 1) sqrt(ln(1/delta))
        (d_H ln m + ln(2/beta)))`` (``ln |H|`` instead of ``d_H ln m`` for a finite class, Thm. 4.5; ``d_H =
        n_features + 1`` for the regression oracle). It grows like ``eps``, which keeps each round's budget near
        a constant: for large epsilon, setting ``max_iter`` spends the budget on fewer, less noisy rounds; 200 when ``epsilon=inf`` (the uniform average of Algorithm 3
        needs more rounds than Fairlearn's 50, whose last step re-weights the plays by a linear program).
    eta : float or None, default=None
        Auditor's learning rate; None: Algorithm 3's ``(1/2) sqrt(ln(4|A| - 3) / T)``.
    oracle : {"auto", "exponential", "regression", "estimator", "diffprivlib"}, default="auto"
        The Learner's cost-sensitive classification oracle ``CSC_eps'(H)``:

        - ``"exponential"``: the exponential mechanism over the finite class ``hypotheses`` (Subroutine 2 as
          analysed in the paper); protects whole records when the class is fixed before seeing the data.
        - ``"regression"``: the paper's experimental oracle (Kearns et al. 2018; Smith et al. 2017): a linear
          regression of the per-record cost difference on ``[X, 1]``, released as ``(X^T X)^{-1} noisy(X^T c)``;
          predicts 1 where the predicted cost of 1 is lower. Laplace noise on ``X^T c``, and on ``X^T X`` too when
          ``privacy_unit="record"``. Needs ``feature_bound``.
        - ``"estimator"``: Fairlearn's best response (``estimator`` fitted on the signed weights), no privacy;
          only with ``epsilon=inf`` (the equivalence baseline).
        - ``"diffprivlib"``: a diffprivlib model as oracle. Refused: diffprivlib's models ignore
          ``sample_weight`` (they warn and fit unweighted), so the best response would silently be wrong.
        - ``"auto"``: ``"estimator"`` when ``epsilon=inf`` and an estimator is given, else ``"exponential"`` when
          ``hypotheses`` is given, else ``"regression"``.
    hypotheses : list or None, default=None
        Finite hypothesis class for ``oracle="exponential"`` (fitted classifiers or callables returning 0/1),
        fixed before seeing the data, e.g. :func:`fairlearn_dp.reductions.linear_threshold_hypotheses`.
    feature_bound : float, default=1.0
        Public bound ``R`` on ``|x_j|`` for the regression oracle (features beyond it are clipped, with a warning).
    ridge : float, default=0.0
        Public ridge penalty added to the diagonal of ``X^T X`` by the regression oracle (post-processing of the
        released or public ``X^T X``; a multiple of ``m`` damps the noise on ``X^T c``). A 1e-6 relative jitter is
        always added for numerical stability.
    min_count : int or None, default=None
        Public lower bound ``N`` on every (group, event) cell count, e.g. ``min_{a,y} q_ay m`` for equalized odds.
        None: estimated privately (Laplace counts minus a margin) with ``min_count_fraction`` of epsilon.
    min_count_fraction : float, default=0.1
        Share of epsilon spent on the private lower bound when ``min_count`` is None.
    beta : float, default=0.05
        Confidence parameter of Algorithm 3's ``T`` formula.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        Neighbouring relation protected (see Privacy).
    groups : list or None, default=None
        Public list of groups (None: read from the data, with a ``PrivacyWarning``).
    accountant : diffprivlib.BudgetAccountant or None, default=None
    random_state : None, int or RandomState, default=None

    Attributes
    ----------
    predictors_ : list
        The Learner's distinct plays (classifiers with ``predict``).
    weights_ : numpy.ndarray
        Their weights in ``Q`` (play counts / T).
    lambda_ : numpy.ndarray
        The Auditor's average multipliers (``lambda~`` of Algorithm 3), indexed like ``constraint_index_``.
    history_ : dict of numpy arrays
        Per round: ``lambda`` (T, K), ``noisy_gamma`` (T, K), ``hypothesis`` (T,) index into the plays,
        ``noise_scale`` (the auditor's Laplace scale). Everything in it is a DP release or post-processing.
    n_iter_ : int
        T.
    epsilon_per_mechanism_ : float
        epsilon' of each of the 2T per-round mechanisms.
    composition_ : str
        "basic" or "advanced".
    min_count_ : float
        The cell-count lower bound the sensitivities used (public, or the DP estimate).
    sensitivity_ : dict
        ``auditor_l1`` (of the violation vector) and ``learner`` (of the cost) or ``regression_l1``.
    privacy_spent_ : PrivacySpend

    Privacy
    -------
    - Neighbouring relation: ``privacy_unit="sensitive_attribute"`` (the paper's): one person's sensitive
      attribute changes, X and y are public; the hypotheses must not read the sensitive attribute (keep it out of
      X). ``"record"``: one whole record ``(x, a, y)`` is substituted; the data size ``m`` is public in both.
    - Every (group, event) cell must hold at least ``N`` rows (``min_count``, or its DP estimate; a public
      ``min_count`` above the data's actual minimum is an error, since the guarantee would not hold). Then a group
      mean changes by at most ``1/(N - 1)`` between neighbours.
    - Auditor: the violation vector ``gamma(h_t)`` has entries ``+-(E[h|e, g] - E[h|e])``. Changing one
      attribute moves one record between two cells of the same event (E[h|e] unchanged): L1 sensitivity
      ``4 / (N - 1)`` (two cells, two signs). Substituting a record also moves the event means (at most two
      events, each entering ``2 |G|`` coordinates with change ``<= 1/(|G| N - 1)``): ``8 / (N - 1)``. Laplace
      noise of scale ``sensitivity / epsilon'`` (diffprivlib ``Laplace``) on each coordinate.
    - Learner, exponential mechanism: the cost ``err(h) + lambda^T (gamma(h) - bound)`` changes by at most
      ``||lambda||_1 max_k |Delta gamma_k| <= B / (N - 1)`` (attribute) or ``1/m + 2B/(N - 1)`` (record).
    - Learner, regression oracle: ``X^T c = (1/m) sum_i x_i (1 - 2 y_i) - sum_{e,g} lambda'_{e,g} (mean_e x -
      mean_{e,g} x)`` with ``lambda' = lambda_+ - lambda_-``, ``|lambda'|_1 <= B``; a cell mean moves by at most
      ``2 d R / (N - 1)`` in L1 (``d`` features, ``|x_j| <= R``; the intercept column's mean never moves):
      L1 sensitivity ``2 d R B / (N - 1)`` (attribute) or ``2 (d + 1) max(R, 1) / m + 4 d R B / (N - 1)``
      (record, where ``X^T X``'s upper triangle is also released, once, with L1 sensitivity ``(d+1)(d+2) max(R,
      1)^2`` and its own ``epsilon'``).
    - Budget: with ``min_count=None``, ``min_count_fraction * epsilon`` goes to Laplace cell counts (L1
      sensitivity 2), and the lower bound ``min(noisy) - (2/eps_0) ln(1/delta)`` fails with probability at most
      ``delta/2`` (counted in delta). The 2T per-round mechanisms (2T + 1 with that ``X^T X``) get the largest
      ``epsilon'`` for which basic composition, or advanced composition with the remaining delta, stays within
      the remaining epsilon. The accountant is charged once with ``(epsilon, delta)`` (``delta`` only when it
      was used).
    """

    def __init__(self, estimator=None, constraints=None, *, epsilon=1.0, delta=1e-7, bound_B=10.0, max_iter=None,
                 eta=None, oracle="auto", hypotheses=None, feature_bound=1.0, ridge=0.0, min_count=None,
                 min_count_fraction=0.1, beta=0.05, privacy_unit="sensitive_attribute", groups=None,
                 accountant=None, random_state=None):
        self.estimator = estimator
        self.constraints = constraints
        self.epsilon = epsilon
        self.delta = delta
        self.bound_B = bound_B
        self.max_iter = max_iter
        self.eta = eta
        self.oracle = oracle
        self.hypotheses = hypotheses
        self.feature_bound = feature_bound
        self.ridge = ridge
        self.min_count = min_count
        self.min_count_fraction = min_count_fraction
        self.beta = beta
        self.privacy_unit = privacy_unit
        self.groups = groups
        self.accountant = accountant
        self.random_state = random_state

    # ------------------------------------------------------------------------------------------ validation
    def _check_params(self):
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        if not isinstance(self.constraints, SUPPORTED_MOMENTS):
            raise ValueError("constraints must be one of Fairlearn's DemographicParity, EqualizedOdds, "
                             f"TruePositiveRateParity, FalsePositiveRateParity; got {type(self.constraints).__name__}"
                             " (unsupported moment).")
        if getattr(self.constraints, "ratio", 1.0) != 1.0:
            raise ValueError("constraints: ratio bounds are not supported (use difference_bound).")
        if getattr(self.constraints, "data_loaded", False):
            raise ValueError("constraints already holds data; pass a fresh Moment object.")
        if not (isinstance(self.bound_B, numbers.Real) and math.isfinite(self.bound_B) and self.bound_B > 0):
            raise ValueError(f"bound_B must be a finite number > 0, got {self.bound_B!r}.")
        if self.max_iter is not None and (isinstance(self.max_iter, bool)
                                          or not isinstance(self.max_iter, numbers.Integral) or self.max_iter < 1):
            raise ValueError(f"max_iter must be None or an integer >= 1, got {self.max_iter!r}.")
        if self.eta is not None and not (isinstance(self.eta, numbers.Real) and math.isfinite(self.eta)
                                         and self.eta > 0):
            raise ValueError(f"eta must be None or a finite number > 0, got {self.eta!r}.")
        if self.oracle not in _ORACLES:
            raise ValueError(f"oracle must be one of {_ORACLES}, got {self.oracle!r}.")
        if self.privacy_unit not in _PRIVACY_UNITS:
            raise ValueError(f"privacy_unit must be one of {_PRIVACY_UNITS}, got {self.privacy_unit!r}.")
        if not (isinstance(self.feature_bound, numbers.Real) and math.isfinite(self.feature_bound)
                and self.feature_bound > 0):
            raise ValueError(f"feature_bound must be a finite number > 0, got {self.feature_bound!r}.")
        if not (isinstance(self.ridge, numbers.Real) and math.isfinite(self.ridge) and self.ridge >= 0):
            raise ValueError(f"ridge must be a finite number >= 0, got {self.ridge!r}.")
        if self.min_count is not None and (isinstance(self.min_count, bool)
                                           or not isinstance(self.min_count, numbers.Integral)
                                           or self.min_count < 2):
            raise ValueError(f"min_count must be None or an integer >= 2, got {self.min_count!r}.")
        if not (isinstance(self.min_count_fraction, numbers.Real) and 0 < self.min_count_fraction < 1):
            raise ValueError(f"min_count_fraction must be in (0, 1), got {self.min_count_fraction!r}.")
        if not (isinstance(self.beta, numbers.Real) and 0 < self.beta < 1):
            raise ValueError(f"beta must be in (0, 1), got {self.beta!r}.")
        oracle = self.oracle
        if oracle == "auto":
            if math.isinf(epsilon) and self.estimator is not None:
                oracle = "estimator"
            elif self.hypotheses is not None:
                oracle = "exponential"
            else:
                oracle = "regression"
        if oracle == "estimator":
            if not math.isinf(epsilon):
                raise ValueError("oracle='estimator' is Fairlearn's non-private best response: it needs "
                                 "epsilon=inf. Use oracle='exponential' or 'regression' for a private fit.")
            if self.estimator is None or not hasattr(self.estimator, "fit"):
                raise ValueError("oracle='estimator' needs an estimator with fit(X, y, sample_weight=...).")
        if oracle == "diffprivlib":
            raise ValueError("oracle='diffprivlib' is not available: diffprivlib's models (0.6) ignore "
                             "sample_weight, so the cost-sensitive best response would silently be an unweighted "
                             "fit. Use oracle='exponential' or 'regression'.")
        if oracle == "exponential" and (self.hypotheses is None or len(self.hypotheses) == 0):
            raise ValueError("oracle='exponential' needs a non-empty finite hypothesis class `hypotheses` "
                             "(empty hypothesis class).")
        if delta == 0 and self.min_count is None and not math.isinf(epsilon):
            raise ValueError("delta=0 needs a public min_count: the private lower bound on the cell counts fails "
                             "with a small probability that must be counted in delta.")
        return epsilon, delta, oracle

    def _load(self, X, y, sensitive_features):
        X_arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X_arr.ndim != 2 or X_arr.shape[0] == 0:
            raise ValueError("X must be a non-empty 2-D array.")
        if not np.all(np.isfinite(X_arr)):
            raise ValueError("X contains NaN or infinite values.")
        n = X_arr.shape[0]
        y_arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
        if y_arr.size != n:
            raise ValueError(f"y has {y_arr.size} rows but X has {n} (length mismatch).")
        if pd.isna(pd.Series(y_arr)).any():
            raise ValueError("y contains NaN.")
        if not np.all(np.isin(y_arr, (0, 1))):
            raise ValueError("y must hold binary labels 0/1.")
        y_arr = y_arr.astype(int)
        group_vector = as_group_vector(sensitive_features, n)
        groups = resolve_groups(self.groups, group_vector, estimator_name=type(self).__name__)
        group_index = encode_groups(group_vector, groups)
        if len(groups) < 2:
            raise ValueError("sensitive_features: at least two groups are needed (single group).")
        counts = np.bincount(group_index, minlength=len(groups))
        if np.any(counts == 0):
            raise ValueError("sensitive_features: a declared group has no rows (empty group).")
        return X_arr, y_arr, group_index, groups

    # ------------------------------------------------------------------------------------------ fit
    def fit(self, X, y, *, sensitive_features, **kwargs):
        """Run T rounds of the private Learner/Auditor game on ``(X, y)`` with ``sensitive_features``."""
        if kwargs:
            raise TypeError(f"Unexpected fit arguments: {sorted(kwargs)}.")
        epsilon, delta, oracle = self._check_params()
        X_arr, y_arr, group_index, groups = self._load(X, y, sensitive_features)
        n, d = X_arr.shape
        moment = copy.deepcopy(self.constraints)
        # The moment sees group codes (public labels' positions), never raw strings that might differ in dtype.
        moment.load_data(X_arr, pd.Series(y_arr), sensitive_features=pd.Series(group_index, name="group"))
        U = moment.U.to_numpy(dtype=float)                       # (n, K): gamma(h) = -U^T h / n
        bound = moment.bound().to_numpy(dtype=float)
        constraint_index = moment.index
        n_constraints = U.shape[1]
        cell_counts = moment.tags.groupby(["event", "group_id"]).size().to_numpy()
        n_events = moment.tags["event"].dropna().nunique()
        if n_events == 0 or cell_counts.size != n_events * len(groups):
            raise ValueError("Every group needs rows in every event of the constraint (e.g. both labels for "
                             "EqualizedOdds): a (group, event) cell is empty.")

        private = not math.isinf(epsilon)
        spend_bound = PrivacySpend(epsilon, delta if private else 0.0)
        check_spend(self.accountant, spend_bound)
        rng = check_random_state(self.random_state)

        # --- the cell-count lower bound N (public or DP), then the per-round budget
        eps_rounds, delta_rounds, delta_used = epsilon, delta, 0.0
        if not private:
            min_count = float(cell_counts.min())
        elif self.min_count is not None:
            if cell_counts.min() < self.min_count:
                raise ValueError(f"min_count={self.min_count} exceeds the smallest (group, event) cell of the data:"
                                 " the declared sensitivity, hence the privacy guarantee, would not hold.")
            min_count = float(self.min_count)
        else:
            eps0 = self.min_count_fraction * epsilon
            delta0 = delta / 2
            noisy = noisy_vector(cell_counts.astype(float), epsilon=eps0, l1_sensitivity=2.0, random_state=rng)
            # P(Laplace(2/eps0) > t) = exp(-t eps0 / 2) / 2 = delta0 at t = (2/eps0) ln(1/(2 delta0)).
            min_count = float(np.floor(noisy.min() - (2.0 / eps0) * math.log(1.0 / (2.0 * delta0))))
            eps_rounds, delta_rounds, delta_used = epsilon - eps0, delta - delta0, delta0
            if min_count < 2:
                charge(self.accountant, PrivacySpend(eps0, delta0))
                raise ValueError(f"The private lower bound on the (group, event) cell counts is {min_count:.0f} < "
                                 "2: too few rows per cell for this epsilon (its share was spent). Give a public "
                                 "min_count or more data.")
        self.min_count_ = min_count

        sensitivity = self._sensitivities(min_count, n, d, len(groups), oracle)
        T = self._n_rounds(epsilon, delta, n, d, len(groups), oracle, private)
        if private:
            # 2T per-round mechanisms, plus the one release of X^T X by the regression oracle under "record".
            n_mechanisms = 2 * T + int(oracle == "regression" and self.privacy_unit == "record")
            eps_prime, rule = per_mechanism_epsilon(eps_rounds, n_mechanisms, delta_rounds)
            if rule == "advanced":
                delta_used += delta_rounds
        else:
            eps_prime, rule = math.inf, "none"
        eta = (float(self.eta) if self.eta is not None
               else 0.5 * math.sqrt(math.log(4 * len(groups) - 3) / T))           # Algorithm 3's eta
        B = float(self.bound_B)

        learner = self._make_oracle(oracle, X_arr, y_arr, U, n, d, eps_prime, sensitivity, rng)
        auditor_scale = sensitivity["auditor_l1"] / eps_prime if private else 0.0
        theta = np.zeros(n_constraints)
        plays, play_index = [], {}
        history = {"lambda": [], "noisy_gamma": [], "hypothesis": []}
        counts = []
        for _ in range(T):
            weights = np.exp(theta - theta.max())
            lam = B * weights / (math.exp(-theta.max()) + weights.sum())     # B e^theta / (1 + sum e^theta)
            h, key, predictions = learner(lam)
            if key not in play_index:
                play_index[key] = len(plays)
                plays.append(h)
                counts.append(0)
            index = play_index[key]
            counts[index] += 1
            gamma = -(U.T @ predictions) / n
            noisy_gamma = (noisy_vector(gamma, epsilon=eps_prime, l1_sensitivity=sensitivity["auditor_l1"],
                                        random_state=rng) if private else gamma)
            theta = theta + eta * (noisy_gamma - bound)
            history["lambda"].append(lam)
            history["noisy_gamma"].append(noisy_gamma)
            history["hypothesis"].append(index)

        self.predictors_ = plays
        self.weights_ = np.asarray(counts, dtype=float) / T
        self.lambda_ = np.mean(history["lambda"], axis=0)
        self.constraint_index_ = constraint_index
        self.history_ = {key: np.asarray(value) for key, value in history.items()}
        self.history_["noise_scale"] = auditor_scale
        self.n_iter_ = T
        self.eta_ = eta
        self.oracle_ = oracle
        self.epsilon_per_mechanism_ = eps_prime
        self.composition_ = rule
        self.sensitivity_ = sensitivity
        self.groups_ = groups
        self.n_features_in_ = d
        spent = PrivacySpend(epsilon, delta_used) if private else PrivacySpend(math.inf, 0.0)
        self.privacy_spent_ = charge(self.accountant, spent)
        return self

    def _sensitivities(self, N, m, d, n_groups, oracle):
        """The derivations are in the class docstring (Privacy)."""
        B = float(self.bound_B)
        R = float(self.feature_bound)
        record = self.privacy_unit == "record"
        out = {"auditor_l1": (8.0 if record else 4.0) / (N - 1)}
        if oracle == "exponential":
            out["learner"] = (1.0 / m + 2 * B / (N - 1)) if record else B / (N - 1)
        elif oracle == "regression":
            if record:
                out["regression_l1"] = 2 * (d + 1) * max(R, 1.0) / m + 4 * d * R * B / (N - 1)
                out["gram_l1"] = (d + 1) * (d + 2) * max(R, 1.0) ** 2
            else:
                out["regression_l1"] = 2 * d * R * B / (N - 1)
        return out

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
        return max(1, int(numerator / denominator))

    # ------------------------------------------------------------------------------------------ oracles
    def _make_oracle(self, oracle, X, y, U, n, d, eps_prime, sensitivity, rng):
        """A function lambda -> (hypothesis, key, predictions on X): the Learner's best response (Subroutine 2)."""
        # Cost of predicting 1 minus cost of predicting 0, per record: L(h) = sum_i c_i h(x_i) + const, with the
        # error part (1 - 2 y_i)/n and the constraint part -(U lambda)_i / n (gamma(h) = -U^T h / n).
        base = (1.0 - 2.0 * y) / n
        private = math.isfinite(eps_prime)
        if oracle == "exponential":
            P = hypothesis_predictions(self.hypotheses, X)             # (n, |H|), public class, private data
            hypotheses = list(self.hypotheses)
            # Every hypothesis' cost is base . P[:, j] - lambda . (U^T P)[:, j] / n: precompute both parts once,
            # so a round costs O(K |H|) instead of O(n |H|).
            base_costs = np.zeros(P.shape[1])
            constraint_costs = np.zeros((U.shape[1], P.shape[1]))     # (K, |H|)
            for start in range(0, n, 4096):
                block = P[start:start + 4096].astype(float)
                base_costs += base[start:start + 4096] @ block
                constraint_costs += U[start:start + 4096].T @ block
            constraint_costs /= n

            def best_response(lam):
                costs = base_costs - lam @ constraint_costs
                index = exponential_mechanism(costs, epsilon=eps_prime, sensitivity=sensitivity.get("learner", 1.0),
                                              random_state=rng)
                return hypotheses[index], ("H", index), P[:, index].astype(float)
            return best_response

        if oracle == "regression":
            R = float(self.feature_bound)
            if np.any(np.abs(X) > R):
                warnings.warn(f"Some feature values exceed feature_bound={R} in absolute value and were clipped.",
                              UserWarning, stacklevel=4)
            Xc = np.clip(X, -R, R)
            design = np.column_stack([Xc, np.ones(n)])
            gram = design.T @ design
            record = self.privacy_unit == "record"
            if record and private:
                upper = np.triu_indices(d + 1)
                noisy_upper = noisy_vector(gram[upper], epsilon=eps_prime, l1_sensitivity=sensitivity["gram_l1"],
                                           random_state=rng)
                gram = np.zeros_like(gram)
                gram[upper] = noisy_upper
                gram = gram + np.triu(gram, 1).T
            jitter = 1e-6 * max(1.0, float(np.trace(np.abs(gram))) / (d + 1))
            # The matrix is fixed for the whole run: invert it once (pseudo-inverse: a noisy Gram may be singular).
            inverse = np.linalg.pinv(gram + (float(self.ridge) + jitter) * np.eye(d + 1))

            def best_response(lam):
                c = base - U @ lam / n
                moment = design.T @ c
                if private:
                    moment = noisy_vector(moment, epsilon=eps_prime, l1_sensitivity=sensitivity["regression_l1"],
                                          random_state=rng)
                beta_hat = inverse @ moment
                # h(x) = 1 where the predicted cost difference [x, 1] . beta < 0, i.e. x . (-beta_x) >= beta_0.
                h = LinearThresholdClassifier(-beta_hat[:d], beta_hat[d])
                predictions = h.predict(Xc).astype(float)
                return h, ("R", h), predictions
            return best_response

        # oracle == "estimator": Fairlearn's reduction to weighted classification, no privacy (epsilon = inf).
        def best_response(lam):
            signed = -(base - U @ lam / n) * n                      # Fairlearn's signed weights
            red_y = (signed > 0).astype(int)
            red_w = np.abs(signed)
            red_w = n * red_w / red_w.sum()
            if np.unique(red_y).size == 1:
                model = DummyClassifier(strategy="constant", constant=int(red_y[0])).fit(X, red_y)
            else:
                model = clone(self.estimator).fit(X, red_y, sample_weight=red_w)
            predictions = np.asarray(model.predict(X), dtype=float)
            return model, ("E", id(model)), predictions
        return best_response

    # ------------------------------------------------------------------------------------------ predict
    def _pmf_predict(self, X):
        """``(n, 2)`` probabilities of predicting 0 and 1 under the randomized classifier Q (Fairlearn's form)."""
        check_is_fitted(self, "predictors_")
        X_arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X_arr.ndim != 2 or X_arr.shape[1] != self.n_features_in_:
            raise ValueError(f"X must have {self.n_features_in_} columns, got shape {X_arr.shape}.")
        if self.oracle_ == "regression":
            X_arr = np.clip(X_arr, -self.feature_bound, self.feature_bound)
        positive = np.zeros(X_arr.shape[0])
        for h, w in zip(self.predictors_, self.weights_):
            positive += w * np.asarray(h.predict(X_arr), dtype=float)
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X, random_state=None):
        """Randomized 0/1 predictions: 1 with probability ``_pmf_predict(X)[:, 1]`` (Fairlearn's semantics)."""
        positive = self._pmf_predict(X)[:, 1]
        rng = check_random_state(random_state)
        return (positive >= rng.rand(len(positive))).astype(int)
