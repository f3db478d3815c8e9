"""Jagielski et al. (2019), Algorithm 3 "DP-oracle-learner" (with Subroutine 2): the game of
:class:`~fairlearn_dp.reductions.JagielskiExponentiatedGradient`.

The Auditor plays exponentiated gradient on Laplace-noised constraint violations; the Learner best-responds through
a private cost-sensitive-classification oracle (the exponential mechanism over a finite class, or the paper's
private linear regression of the costs); the output is the uniform mixture of the Learner's plays. Fairlearn's
``Moment`` objects define the constraints, with each cell's denominator floored at the cell-count bound ``N``
(public ``min_count``, or released here first). The estimator validates the parameters, checks the budget and reads
the data; :class:`Algorithm3` evaluates the user's hypotheses on the rows (before any release), counts, releases
``N`` and splits the budget, calls the estimator back to charge the whole spend (``after_release``), then plays; the
estimator then warns. Derivations: docs/privacy_analysis/exponentiated_gradient.md.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from fairlearn.reductions import ErrorRateParity

from .._utils._progress import progress_rounds
from ..privacy._budget_split import min_count_split
from ..privacy._composition import per_mechanism_epsilon
from ..privacy._exponential import exponential_mechanism
from ..privacy._release import release_laplace
from ._eg_params import _event_index, _moment_events
from ._hypotheses import LinearThresholdClassifier, hypothesis_predictions

__all__ = ["Algorithm3"]


class Algorithm3:
    """T rounds of Algorithm 3's Learner/Auditor game on loaded data, with every release it makes.

    All arguments are public and resolved by the estimator: ``moment`` (a supported Fairlearn ``Moment``),
    ``oracle`` (``"exponential"`` or ``"regression"``), ``epsilon`` and ``delta`` (``inf``: the noise-free game),
    ``n_rounds`` (``T``), ``B``, ``eta`` (None: Algorithm 3's), ``record`` (the neighbouring relation),
    ``feature_radius`` (``R``), ``ridge``, ``min_count`` (None: released), ``min_count_fraction``, ``hypotheses``,
    ``rng`` (None: diffprivlib's secure source) and ``name`` (for the progress bar).

    After :meth:`fit`: ``plays_``, ``weights_``, ``lambda_``, ``constraint_index_``, ``history_``, ``eta_``,
    ``min_count_``, ``min_count_estimate_``, ``sensitivity_``, ``epsilon_per_mechanism_``, ``composition_`` and
    ``delta_used_`` (the delta the fit spent), as the estimator's attributes of the same names document.
    """

    def __init__(self, *, moment, oracle, epsilon, delta, n_rounds, B, eta, record, feature_radius, ridge,
                 min_count, min_count_fraction, hypotheses, rng, name):
        self.moment = moment
        self.oracle = oracle
        self.epsilon = epsilon
        self.delta = delta
        self.n_rounds = n_rounds
        self.B = B
        self.eta = eta
        self.record = record
        self.feature_radius = feature_radius
        self.ridge = ridge
        self.min_count = min_count
        self.min_count_fraction = min_count_fraction
        self.hypotheses = hypotheses
        self.rng = rng
        self.name = name
        self.private = not math.isinf(epsilon)

    def fit(self, X, y, group_index, n_groups, *, after_release=None):
        """Count, release ``N`` (unless public), build the floored moments, split the budget, play ``T`` rounds.

        The user's hypotheses are evaluated before the first release (on the public X, or total on private rows):
        their failures depend on public inputs only. ``after_release`` (the estimator's charge of the whole spend) is
        called once ``delta_used_`` is final, before any play: the plays, the Auditor's updates and whatever fails
        on them are functions of releases.
        """
        n, d = X.shape
        T = self.n_rounds
        # (n, |H|), public class; on private records total (a row a hypothesis fails on predicts 0)
        P = (hypothesis_predictions(self.hypotheses, X, private=self.record and self.private)
             if self.oracle == "exponential" else None)
        events = _moment_events(self.moment)
        event_index = _event_index(self.moment, y)
        cell_counts = _cell_counts(event_index, group_index, len(events), n_groups)      # (|E|, |G|)

        # --- the cell-count lower bound N (public or DP), then the per-round budget
        eps_rounds, delta_rounds = self._release_min_count(cell_counts)
        # gamma(h) = -U^T h / n, with each cell's (and event's) denominator floored at N (|G| N): floored moments.
        U, offset = self._floored_moments(event_index, group_index, events, cell_counts, y)
        bound = np.full(U.shape[1], float(self.moment.eps))

        # No sensitivity without noise (and none is defined for a cell of one row).
        self.sensitivity_ = self._sensitivities(self.min_count_, n, d) if self.private else {}
        self._split_budget(eps_rounds, delta_rounds)
        if after_release is not None:
            after_release()
        self.eta_ = (float(self.eta) if self.eta is not None
                     else 0.5 * math.sqrt(math.log(4 * n_groups - 3) / T))           # Algorithm 3's eta
        learner = self._make_oracle(X, y, U, n, d, P)
        self._play(learner, U, offset, bound, n)
        return self

    # ------------------------------------------------------------------------------------------ releases
    def _release_min_count(self, cell_counts):
        """``N``: the smallest non-empty cell without noise, the public ``min_count``, or a DP lower bound released
        with ``min_count_fraction`` of epsilon and half of delta (``min_count_split``).
        Returns the budget left for the rounds.
        """
        epsilon, delta = self.epsilon, self.delta
        eps_rounds, delta_rounds, delta_used = epsilon, delta, 0.0
        estimate = None
        if not self.private:
            present = cell_counts[cell_counts > 0]
            min_count = float(present.min()) if present.size else 0.0
        elif self.min_count is not None:
            min_count = float(self.min_count)
        else:
            eps0, delta0, eps_rounds, delta_rounds = min_count_split(epsilon, delta, self.min_count_fraction)
            noisy = release_laplace(cell_counts.ravel().astype(float), epsilon=eps0, l1_sensitivity=2.0,
                                    random_state=self.rng)
            # P(Laplace(2/eps0) > t) = exp(-t eps0 / 2) / 2 = delta0 at t = (2/eps0) ln(1/(2 delta0)).
            estimate = float(np.floor(noisy.min() - (2.0 / eps0) * math.log(1.0 / (2.0 * delta0))))
            min_count = max(estimate, 2.0)          # a released value; floored so that 1/(N - 1) is defined
            delta_used = delta0
        self.min_count_ = min_count
        self.min_count_estimate_ = estimate
        self.delta_used_ = delta_used
        return eps_rounds, delta_rounds

    def _floored_moments(self, event_index, group_index, events, cell_counts, y):
        """``(U, offset)`` with ``gamma(h) = -U^T h / n + offset``; sets ``constraint_index_``."""
        n = event_index.size
        U, self.constraint_index_ = _constraint_matrix(event_index, group_index, events, cell_counts,
                                                       floor=self.min_count_ if self.private else 0.0,
                                                       keep_empty=self.private)
        offset = np.zeros(U.shape[1])
        if isinstance(self.moment, ErrorRateParity):
            # The value is the error h (1 - 2y) + y: gamma(h) = -U'^T h / n + gamma_0 (analysis page, the Auditor).
            offset = -(U.T @ y.astype(float)) / n
            U = np.asfortranarray(U * (1.0 - 2.0 * y)[:, None])
        return U, offset

    def _split_budget(self, eps_rounds, delta_rounds):
        """``epsilon'`` of each per-round mechanism and the composition rule (``epsilon_per_mechanism_``,
        ``composition_``); advanced composition adds its delta to ``delta_used_``.
        """
        if self.private:
            # 2T per-round mechanisms, plus the one release of X^T X by the regression oracle under "record".
            n_mechanisms = 2 * self.n_rounds + int(self.oracle == "regression" and self.record)
            eps_prime, rule = per_mechanism_epsilon(eps_rounds, n_mechanisms, delta_rounds)
            if rule == "advanced":
                self.delta_used_ += delta_rounds
        else:
            eps_prime, rule = math.inf, "none"
        self.epsilon_per_mechanism_ = eps_prime
        self.composition_ = rule

    def _sensitivities(self, N, m, d):
        """The derivations are on the privacy-analysis page; ``N >= 2``."""
        B = self.B
        R = self.feature_radius
        record = self.record
        out = {"auditor_l1": (8.0 if record else 4.0) / (N - 1)}
        if self.oracle == "exponential":
            out["learner"] = (1.0 / m + 2 * B / (N - 1)) if record else B / (N - 1)
        elif self.oracle == "regression":
            # L1 change of one cell's floored mean of [x, 1] when a record joins or leaves it, times N.
            spread = (2 * (d * R + 1) if isinstance(self.moment, ErrorRateParity)
                      else max(2 * d * R, d * R + 1))
            if record:
                out["regression_l1"] = 2 * (d + 1) * max(R, 1.0) / m + 2 * spread * B / (N - 1)
                out["gram_l1"] = (d + 1) * (d + 2) * max(R, 1.0) ** 2
            else:
                out["regression_l1"] = spread * B / (N - 1)
        return out

    # ------------------------------------------------------------------------------------------ the game
    def _play(self, learner, U, offset, bound, n):
        """``T`` rounds: the Auditor's multipliers, the Learner's best response, the Auditor's noisy violations."""
        T, B, eta, private = self.n_rounds, self.B, self.eta_, self.private
        sensitivity, eps_prime = self.sensitivity_, self.epsilon_per_mechanism_
        n_constraints = U.shape[1]
        auditor_scale = sensitivity["auditor_l1"] / eps_prime if private else 0.0
        theta = np.zeros(n_constraints)
        plays, play_index = [], {}
        history = {"lambda": [], "noisy_gamma": [], "hypothesis": []}
        counts = []
        for _ in progress_rounds(0, T, desc=f"{self.name} (Algorithm 3)"):
            # No constraint (epsilon=inf and no row in any event): nothing to constrain.
            lam = _multipliers(theta, B) if n_constraints else np.zeros(0)
            h, key, predictions = learner(lam)
            if key not in play_index:
                play_index[key] = len(plays)
                plays.append(h)
                counts.append(0)
            index = play_index[key]
            counts[index] += 1
            gamma = -(U.T @ predictions) / n + offset
            noisy_gamma = (release_laplace(gamma, epsilon=eps_prime, l1_sensitivity=sensitivity["auditor_l1"],
                                           random_state=self.rng) if private else gamma)
            theta = theta + eta * (noisy_gamma - bound)
            history["lambda"].append(lam)
            history["noisy_gamma"].append(noisy_gamma)
            history["hypothesis"].append(index)

        self.plays_ = plays
        self.weights_ = np.asarray(counts, dtype=float) / T
        self.lambda_ = np.mean(history["lambda"], axis=0)
        self.history_ = {key: np.asarray(value) for key, value in history.items()}
        self.history_["noise_scale"] = auditor_scale

    # ------------------------------------------------------------------------------------------ oracles
    def _make_oracle(self, X, y, U, n, d, P):
        """A function lambda -> (hypothesis, key, predictions on X): the Learner's best response (Subroutine 2).
        ``P``: the hypotheses' predictions on X (the exponential oracle).
        """
        # Cost of predicting 1 minus cost of predicting 0, per record: L(h) = sum_i c_i h(x_i) + const, with the
        # error part (1 - 2 y_i)/n and the constraint part -(U lambda)_i / n (gamma(h) = -U^T h / n).
        base = (1.0 - 2.0 * y) / n
        if self.oracle == "exponential":
            return self._exponential_oracle(P, U, base, n)
        if self.oracle == "regression":
            return self._regression_oracle(X, U, base, n, d)
        raise AssertionError(f"unexpected oracle {self.oracle!r}")       # "estimator" runs Fairlearn's own fit

    def _exponential_oracle(self, P, U, base, n):
        """The exponential mechanism over the finite class ``hypotheses`` (the cost's sensitivity: ``learner``), on
        their predictions ``P`` on X.
        """
        eps_prime, sensitivity, rng = self.epsilon_per_mechanism_, self.sensitivity_, self.rng
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

    def _regression_oracle(self, X, U, base, n, d):
        """The paper's regression oracle: ``(X^T X)^{-1} noisy(X^T c)`` on the clipped ``[X, 1]``; under
        ``"record"`` the upper triangle of ``X^T X`` is released once first.
        """
        eps_prime, sensitivity, rng = self.epsilon_per_mechanism_, self.sensitivity_, self.rng
        private = math.isfinite(eps_prime)
        R = self.feature_radius
        # Values beyond the public bound are clipped silently: whether any was clipped depends on the data.
        Xc = np.clip(X, -R, R)
        design = np.column_stack([Xc, np.ones(n)])
        gram = design.T @ design
        if self.record and private:
            upper = np.triu_indices(d + 1)
            noisy_upper = release_laplace(gram[upper], epsilon=eps_prime, l1_sensitivity=sensitivity["gram_l1"],
                                          random_state=rng)
            gram = np.zeros_like(gram)
            gram[upper] = noisy_upper
            gram = gram + np.triu(gram, 1).T
        jitter = 1e-6 * max(1.0, float(np.trace(np.abs(gram))) / (d + 1))
        # The matrix is fixed for the whole run: invert it once (pseudo-inverse: a noisy Gram may be singular).
        inverse = np.linalg.pinv(gram + (float(self.ridge or 0.0) + jitter) * np.eye(d + 1))

        def best_response(lam):
            c = base - U @ lam / n
            moment = design.T @ c
            if private:
                moment = release_laplace(moment, epsilon=eps_prime, l1_sensitivity=sensitivity["regression_l1"],
                                         random_state=rng)
            beta_hat = inverse @ moment
            # h(x) = 1 where the predicted cost difference [x, 1] . beta < 0, i.e. x . (-beta_x) >= beta_0.
            h = LinearThresholdClassifier(-beta_hat[:d], beta_hat[d])
            predictions = h.predict(Xc).astype(float)
            return h, ("R", h), predictions
        return best_response


def _multipliers(theta, B):
    """The Auditor's multipliers ``B e^theta / (1 + sum e^theta)``, from ``theta - max(theta)``. When ``e^-max``
    overflows every multiplier is below ``B e^-709``: they are 0, their limit (``math.exp`` would raise, a failure
    that depended on the released violations).
    """
    weights = np.exp(theta - theta.max())
    try:
        scale = math.exp(-theta.max())
    except OverflowError:
        return np.zeros_like(weights)
    return B * weights / (scale + weights.sum())


def _cell_counts(event_index, group_index, n_events, n_groups):
    """``(n_events, n_groups)`` row counts of the (event, group) cells (zeros included)."""
    inside = event_index >= 0
    flat = event_index[inside] * n_groups + group_index[inside]
    return np.bincount(flat, minlength=n_events * n_groups).reshape(n_events, n_groups)


def _constraint_matrix(event_index, group_index, events, cell_counts, *, floor, keep_empty):
    """Fairlearn's ``U`` (``gamma(h) = -U^T h / n``) with denominators floored, and its constraint index.

    Column ``(+, e, g)`` holds ``1[e_i = e] / P(e) - 1[e_i = e, g_i = g] / P(e, g)`` and ``(-, e, g)`` its negative,
    so that ``gamma_(+,e,g)(h) = E^[h | e, g] - E^[h | e]`` (Agarwal et al. 2018, above Thm. 1), computed exactly as
    Fairlearn's ``UtilityParity.load_data`` does, except that ``P(e, g) = max(n_eg, N) / n`` and ``P(e) = max(n_e,
    |G| N) / n`` with ``N = floor``: ``E^[h | e, g] = sum_{cell} h / max(n_eg, N)``. With ``floor=0`` and
    ``keep_empty=False`` (the non-private fit) this is Fairlearn's matrix over the cells present in the data; with
    ``keep_empty=True`` every declared (event, group) cell has its two columns, whatever the data.
    """
    n = event_index.size
    n_events, n_groups = cell_counts.shape
    event_counts = cell_counts.sum(axis=1)
    cells = [(e, g) for e in range(n_events) for g in range(n_groups) if keep_empty or cell_counts[e, g] > 0]
    plus = np.empty((n, len(cells)))
    minus = np.empty((n, len(cells)))
    for column, (e, g) in enumerate(cells):
        p_event = max(event_counts[e], n_groups * floor) / n
        p_cell = max(cell_counts[e, g], floor) / n
        event_select = (event_index == e).astype(np.int64)
        cell_select = event_select * (group_index == g)
        # Fairlearn's expressions with ratio = 1, operation for operation (same floating-point results).
        plus[:, column] = event_select / p_event + (-1.0) * cell_select / p_cell
        minus[:, column] = (-1.0) * event_select / p_event + cell_select / p_cell
    tuples = ([("+", events[e], g) for e, g in cells] + [("-", events[e], g) for e, g in cells])
    names = ["sign", "event", "group_id"]
    index = (pd.MultiIndex.from_tuples(tuples, names=names) if tuples
             else pd.MultiIndex.from_arrays([[], [], []], names=names))
    # Column-major like Fairlearn's DataFrame.to_numpy(), so that the products with U sum in the same order.
    return np.asfortranarray(np.hstack([plus, minus])), index
