"""The Lagrangian game of Agarwal et al. (2018) played on statistics released once (fairdp's practical DP reduction).

Jagielski et al. (2019, Algorithm 3) release two noisy values per round; here almost nothing is released per round:

1. **One release of sufficient statistics** (Gaussian, zCDP): the cell sums of ``phi = [x, 1]`` per (label, group)
   or (event, group) cell, and under ``privacy_unit="record"`` the upper triangle of ``Phi^T Phi``.
2. **The Learner's best responses** are post-processing of that release and of public data (the user's estimator on
   cost-sensitive labels, or the least-squares cost oracle).
3. **The Auditor's per-round release** is the vector of cell sums of the play's predictions (Gaussian, zCDP).
4. **The output** is the uniform average of the plays or Fairlearn's mixture of them found by a linear program on
   released values (:mod:`._game_mixture`), with an early stop on released values.

zCDP composes by addition: ``rho = rho_stats + T rho_round`` with ``rho_stats = statistics_fraction * rho``
(:func:`fairlearn_dp.privacy._budget_split.statistics_game_split`; ``rho_stats`` over the first step's releases:
:func:`fairlearn_dp.privacy._budget_split.statistics_release_split`).
Derivations (sensitivities, proxy memberships and their reliability, calibration, the program's slack, the
budget): docs/privacy_analysis/statistics_game.md.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from .._utils._progress import progress_rounds
from ..privacy._budget_split import statistics_game_split, statistics_release_split
from ..privacy._projection import project_onto_sum
from ..privacy._release import release_gaussian
from ..privacy._zcdp import zcdp_gaussian_sigma
from ._direction_reliability import direction_noise_variance, direction_reliability
from ._game_mixture import _calibrate_violations, _mixture_lp
from ._game_rows import exact_statistics, play_counts, symmetric_gram
from ._hypotheses import LinearThresholdClassifier

__all__ = ["StatisticsGame", "label_cell_sensitivity", "attribute_sensitivities", "gram_sensitivity",
           "round_sensitivity"]

PATIENCE = 8            # rounds without improvement of the LP value before the game stops
MIN_ROUNDS = 20         # the game plays at least this many rounds (or T if smaller)
IMPROVEMENT = 1e-4      # an LP value must drop by this much to count as an improvement
LP_SLACK_SD = 1.0       # the LP bound is relaxed by this many standard deviations of each violation estimate
FLOOR_SD = 3.0          # a released cell count is floored at FLOOR_SD noise standard deviations
FEASIBLE_TOL = 1e-9     # the early stop's tolerance on the mixture's violation of the program's bound
COUNT_SHARE = 0.25      # "sensitive_attribute": the cell counts' share of rho_stats (the feature sums get the rest)


def label_cell_sensitivity(row_norm, *, record):
    """L2 sensitivity of the (label, group) cell sums ``S`` of ``phi = [x, 1]`` with ``||x||_2 <= row_norm``.

    Sensitive attribute: one record moves from ``(y, g)`` to ``(y, g')``; two cells change by ``+-phi_i``:
    ``sqrt(2) ||phi_i|| <= sqrt(2 (row_norm^2 + 1))``. Record: ``(x, a, y)`` becomes ``(x', a', y')``. In two
    different cells, one loses ``phi`` and one gains ``phi'``: ``sqrt(||phi||^2 + ||phi'||^2) <= sqrt(2 (row_norm^2
    + 1))``; in the same cell it changes by ``phi' - phi = [x' - x, 0]``: ``||x' - x|| <= 2 row_norm``. The
    sensitivity is the larger of the two (each is attained).
    """
    C = float(row_norm)
    attribute = math.sqrt(2.0 * (C ** 2 + 1.0))
    return max(attribute, 2.0 * C) if record else attribute


def attribute_sensitivities(row_norm):
    """L2 sensitivities ``(features, counts)`` of the cell sums of ``z`` and the cell counts under
    ``"sensitive_attribute"``: one record moves from ``(c, g)`` to ``(c, g')`` (its cell ``c`` of labels or events is
    public), so two cells change by ``+-z_i`` (``sqrt(2) ||z_i|| <= sqrt(2) row_norm``) and two counts by ``+-1``
    (``sqrt 2``). Released separately, the two Gaussian releases compose (zCDP adds).
    """
    return math.sqrt(2.0) * float(row_norm), math.sqrt(2.0)


def gram_sensitivity(row_norm: float, n_features: int) -> float:
    """L2 sensitivity of the upper triangle (diagonal included) of ``Phi^T Phi``, ``phi = [x, 1]``, ``||x|| <= C``.

    Tight: a substitution of one record reaches it exactly. With ``d = n_features >= 2``: ``Delta^2 = 4 C^2`` for
    ``C^2 <= 1/2``, else ``2 C^4 + 2 C^2 + 1/2``. With ``d = 1``: ``Delta^2 = max over s in [0, C] of (C^2 -
    s^2)^2 + (C + s)^2``, from the endpoints and the roots of the derivative (``2 s (C - s) = 1``). Derivation and
    the worst-case neighbours: docs/privacy_analysis/statistics_game.md ("Gram matrix").
    """
    C = float(row_norm)
    if int(n_features) >= 2:
        return 2.0 * C if C * C <= 0.5 else math.sqrt(2.0 * C ** 4 + 2.0 * C ** 2 + 0.5)
    # d = 1: the worst pair is x = C, x' = -s, Delta^2 = g(s); g'(s) = 2 (C + s) (1 - 2 s (C - s)).
    candidates = [0.0, C]
    if C * C >= 2.0:
        candidates += [(C - math.sqrt(C * C - 2.0)) / 2.0, (C + math.sqrt(C * C - 2.0)) / 2.0]
    return math.sqrt(max((C * C - s * s) ** 2 + (C + s) ** 2 for s in candidates))


def round_sensitivity():
    """L2 sensitivity of the per-round (label, group) cell sums of a play's predictions ``h_i`` in ``[0, 1]``.

    The play ``h`` is a function of released values and (under ``"sensitive_attribute"``) public data, so it is
    the same on neighbouring datasets. Sensitive attribute: ``h_i`` moves between two cells: ``sqrt 2``. Record:
    ``h(x_i)`` leaves one cell and ``h(x'_i)`` joins one: at most ``sqrt 2`` (1 when the cell is the same).
    """
    return math.sqrt(2.0)


def _compact(predictions):
    """A play's predictions on the rows (floats; None for the least-squares Learner), kept in one byte a row when each
    is 0 or 1: ``astype(float)`` gives back the same values.
    """
    if predictions is None:
        return None
    if np.all((predictions == 0) | (predictions == 1)):
        return predictions.astype(np.uint8)
    return predictions.copy()


class RoundSums(NamedTuple):
    """The exact sums a round reads of the rows: ``cells``, the release cells' sums of the play's predictions; under
    ``"sensitive_attribute"`` (public X, y and play) also ``event_means``, per event the mean of the constraint's
    value, and ``error``, the play's training cost per row.
    """

    cells: np.ndarray
    event_means: np.ndarray | None
    error: float | None


class StatisticsGame:
    """One fit of the game (see the module docstring). Built by :class:`DPExponentiatedGradient`; not public.

    Parameters are resolved values: ``rows`` (:mod:`._game_rows`: ``X`` clipped to the public row norm under
    ``"record"``, ``y`` 0/1, the group indices; in memory or on Dask), ``event_of_label`` (each label's event, -1:
    none), ``n_events``, ``n_groups``, ``error_parity``; ``row_norm`` None under ``"sensitive_attribute"``: the
    largest ``||z||``, read with the statistics. The game reads its exact statistics when it is built (one pass over
    the rows, :func:`~._game_rows.exact_statistics`); the least-squares Learner reads the rows only through
    :mod:`._game_rows`' sums, the estimator Learner in memory.
    """

    def __init__(self, *, rows, event_of_label, n_events, n_groups, error_parity, record, row_norm,
                 epsilon, delta, statistics_fraction, n_rounds, bound, B, eta, ridge, estimator,
                 sample_weight_name, rng, feature_map=None, costs=(1.0, 1.0)):
        self.rows = rows
        # costs: the objective's public (c_FP, c_FN) (Fairlearn's ErrorRate(costs=...)); the cost of predicting 1
        # for row i is c_FP (1 - y_i) - c_FN y_i (unit costs: 1 - 2 y_i). It weighs released values only.
        self.fp_cost, self.fn_cost = float(costs[0]), float(costs[1])
        self.event_of_label, self.E, self.G = np.asarray(event_of_label, dtype=np.intp), n_events, n_groups
        self.error_parity, self.record = error_parity, record
        self.n, self.d = rows.n, rows.d
        self.T, self.bound, self.B, self.eta = n_rounds, bound, B, eta
        self.estimator, self.sample_weight_name, self.rng = estimator, sample_weight_name, rng
        self.private = math.isfinite(epsilon)
        # feature_map (public X only, "sensitive_attribute"): the released statistics are of z = map(x), see
        # :mod:`._public_features`; row_norm is then the bound on ||z||. The estimator still sees the raw X.
        self.feature_map = feature_map
        self._set_release_cells(error_parity, record)
        if rows.in_memory:
            self._read_rows()
        # One pass over the rows: the exact statistics of the release and what the least-squares Learner reads.
        self.exact = exact_statistics(
            rows, n_groups=n_groups, event_of_label=self.event_of_label if self.event_cells else None,
            n_events=n_events, feature_map=feature_map, gram=self.least_squares,
            totals=self.least_squares and not record, norms=row_norm is None)
        self.row_norm = self.exact.max_norm if row_norm is None else float(row_norm)
        self._set_noise(epsilon, delta, statistics_fraction)
        self.ridge = None if ridge is None else float(ridge)      # None: set from the noise after the release

    def _set_noise(self, epsilon, delta, statistics_fraction):
        """The budget splits, sensitivities and Gaussian noise scales of the releases (public)."""
        if not self.private:
            self.rho_stats = self.rho_round = self.rho_counts = math.inf
            self.rho_statistics = self.rho_gram = math.inf
            self.sensitivity = {}
            self.sigma_stats = self.sigma_round = self.sigma_gram = self.sigma_counts = 0.0
            return
        # The budget splits (privacy core): rho_stats for the statistics, rho_round for each round; rho_stats
        # over the statistics' releases (rho_statistics, rho_counts, rho_gram).
        self.rho_stats, self.rho_round = statistics_game_split(epsilon, delta, statistics_fraction, self.T)
        self.rho_statistics, self.rho_counts, self.rho_gram = statistics_release_split(
            self.rho_stats, record=self.record, count_share=COUNT_SHARE)
        self.sensitivity = {"round_l2": round_sensitivity()}
        if self.record:
            # S (features and count together) and the Gram matrix, each with half of rho_stats.
            self.sensitivity["statistics_l2"] = label_cell_sensitivity(self.row_norm, record=True)
            self.sensitivity["gram_l2"] = gram_sensitivity(self.row_norm, self.d)
            self.sigma_stats = zcdp_gaussian_sigma(self.sensitivity["statistics_l2"], self.rho_statistics)
            self.sigma_counts = self.sigma_stats
            self.sigma_gram = zcdp_gaussian_sigma(self.sensitivity["gram_l2"], self.rho_gram)
        else:
            # The feature sums and the cell counts are two Gaussian releases, the counts with COUNT_SHARE of
            # rho_stats (one release of [z, 1] would give them 1 / (C^2 + 1) of it: every estimated rate is a
            # ratio to a released count, whose relative error then biased each rate alike in every round).
            self.sensitivity["statistics_l2"], self.sensitivity["counts_l2"] = attribute_sensitivities(self.row_norm)
            # A public z of norm 0 (constant features) makes the feature sums 0 on every dataset: no noise.
            self.sigma_stats = (zcdp_gaussian_sigma(self.sensitivity["statistics_l2"], self.rho_statistics)
                                if self.sensitivity["statistics_l2"] > 0 else 0.0)
            self.sigma_counts = zcdp_gaussian_sigma(self.sensitivity["counts_l2"], self.rho_counts)
            self.sigma_gram = 0.0
        self.sigma_round = zcdp_gaussian_sigma(self.sensitivity["round_l2"], self.rho_round)

    @property
    def least_squares(self):
        """Whether the Learner is the least-squares cost oracle (it reads the rows through sums only)."""
        return self.record or self.estimator is None

    def _read_rows(self):
        """In-memory rows: ``X``, ``y``, the groups, each row's event and its cost of predicting 1 (the estimator
        Learner reads them; a caller with per-row predictions sums them with :meth:`round_sums`).
        """
        self.X, self.y, self.g = self.rows.X, self.rows.y, self.rows.g
        self.ev = self.event_of_label[self.y]
        self.objective_cost = self.fp_cost * (1.0 - self.y) - self.fn_cost * self.y

    def _set_release_cells(self, error_parity, record):
        """The cells that the releases sum over: the (label, group) cells or, when the events are public and error
        parity does not weigh the labels, the (event, group) cells; and the variance factor of projecting a release
        onto its public margin.
        """
        # The release cells. Under "sensitive_attribute" y is public, so the events (unions of label cells) are
        # public too, and both releases are of (event, group) cells: an event's sum is then one noisy value, not
        # the sum of its label cells' (demographic parity: noise variance halved; same sensitivity, since a row
        # still moves between two cells of its own event). Error-rate parity weighs the label cells by
        # (1 - 2y) and keeps them; so does the record unit (its error estimate reads the label-1 cells).
        self.event_cells = not record and not error_parity
        # Under "sensitive_attribute" every release cell's margin over the groups is public (a sum over rows of a
        # public event); the releases are projected onto it (``project_onto_sum``), which
        # leaves each cell a noise variance of (1 - 1/G) of the released one. 1 under "record" (no public margin).
        self.margin_factor = 1.0 if record else 1.0 - 1.0 / self.G

    # ------------------------------------------------------------------------------ step 1: the one release
    def _cell_sums(self, values):
        """Exact sums of ``values`` (per row, 1-D or 2-D, in memory) over the release cells: ``(cells / G, G, ...)``."""
        values = np.asarray(values, dtype=float)
        if self.event_cells:
            rows = self.ev >= 0
            cells, values = (self.ev * self.G + self.g)[rows], values[rows]
            n_cells = self.E * self.G
        else:
            cells, n_cells = self.y * self.G + self.g, 2 * self.G
        sums = np.zeros((n_cells,) + values.shape[1:])
        np.add.at(sums, cells, values)
        return sums.reshape((n_cells // self.G, self.G) + values.shape[1:])

    def _cell_width(self, e):
        """How many released cells one (event ``e``, group) cell sums: 1 for event cells, else its label cells."""
        return 1 if self.event_cells else len(self._event_labels[e])

    def release_statistics(self):
        """``S``, noisy under finite epsilon: ``2 x G x (d + 1)`` (label, group) cell sums, or ``E x G x (d + 1)``
        (event, group) sums under ``event_cells``; under ``"record"`` also the noisy Gram matrix.
        """
        exact = self.exact.cell_sums
        S = exact.reshape(-1, self.d + 1)
        if self.private and self.record:
            S = release_gaussian(S, l2_sensitivity=self.sensitivity["statistics_l2"], rho=self.rho_statistics,
                                 random_state=self.rng)
        elif self.private:
            features = (release_gaussian(S[:, :-1], l2_sensitivity=self.sensitivity["statistics_l2"],
                                         rho=self.rho_statistics, random_state=self.rng)
                        if self.sigma_stats > 0 else S[:, :-1])
            counts = release_gaussian(S[:, -1], l2_sensitivity=self.sensitivity["counts_l2"],
                                      rho=self.rho_counts, random_state=self.rng)
            S = np.column_stack([features, counts])
        S = S.reshape(-1, self.G, self.d + 1)
        if self.private and not self.record:
            S = project_onto_sum(S, exact.sum(axis=1), axis=1)
        self.S_ = S
        if self.record:
            gram = symmetric_gram(self.exact.gram_upper)
            if self.sigma_gram > 0:             # C = 0: every x is 0, the Gram is public (Delta = 0), no noise
                noisy = release_gaussian(self.exact.gram_upper, l2_sensitivity=self.sensitivity["gram_l2"],
                                         rho=self.rho_gram, random_state=self.rng)
                gram = symmetric_gram(noisy)
            self.gram_ = gram
        # Event-cell sums and counts from the label cells (post-processing); counts floored at a public multiple of
        # the noise, so that a small or empty cell cannot blow the costs up.
        labels_in_event = self._event_labels
        self.event_S_ = (self.S_ if self.event_cells                                                   # (E, G, d+1)
                         else np.stack([self.S_[list(labels)].sum(axis=0) for labels in labels_in_event]))
        floors = np.array([max(1.0, FLOOR_SD * self._count_sd(e)) for e in range(self.E)])
        self.cell_counts_ = np.maximum(self.event_S_[:, :, -1], floors[:, None])                  # (E, G)
        if self.ridge is None:
            self.ridge = self.default_ridge()
        if self.record:
            self.event_counts_ = np.maximum(self.event_S_[:, :, -1].sum(axis=1), floors * self.G)
            self.n_positive_ = float(np.clip(self.S_[1, :, -1].sum(), 0.0, self.n))
        else:                                   # y is public: the exact label counts
            labels = self.exact.label_counts
            self.event_counts_ = np.array([labels[list(event)].sum() for event in labels_in_event], dtype=float)
            self.n_positive_ = float(labels[1].sum())

    def default_ridge(self):
        """The ridge that keeps the released noise from dominating (a function of noise scales and released counts).

        A coefficient of ``theta_eg`` (or ``beta``) whose feature occurs ``c`` times carries noise of about
        ``sigma_stats / (c + ridge)``; for the proxy of the smallest group (share ``p_min``, a released value) it
        must stay well below ``p_min``, hence ``ridge = sigma_stats / p_min``. Under ``"record"`` the Learner is the
        least-squares oracle, whose small groups' directions are discounted by their reliability ``kappa`` instead
        (:mod:`._direction_reliability`), so the ridge has one job left: the released Gram matrix carries noise of
        spectral norm about ``2 sigma_gram sqrt(d + 1)`` (a symmetric Gaussian matrix), which the ridge must
        exceed so that the matrix stays positive definite; a larger ridge shrinks the Learner's costs toward their
        mean (the measurement behind this rule: docs/privacy_analysis/statistics_game.md). 1 without noise.
        """
        if not self.private:
            return 1.0
        if self.record:
            return float(2.0 * self.sigma_gram * math.sqrt(self.d + 1)) or 1.0    # C = 0: an exact Gram, as at inf
        counts = self.S_[:, :, -1].sum(axis=0)                                 # released group counts
        p_min = max(float(counts.min()), FLOOR_SD * self.sigma_counts) / self.n
        return float(max(self.sigma_stats / min(p_min, 1.0), 1.0))          # at least the noise-free ridge

    # ------------------------------------------------------------------------------ step 2: the Learner
    def prepare_learner(self):
        if self.least_squares:
            self._prepare_least_squares()
        else:
            self._prepare_proxy()

    def _penalty(self):
        """The ridge on the feature coefficients; the intercept (the constant column of ``phi``) is not penalised.

        An unpenalised intercept makes the proxies of each (event, group) cell sum to its released count exactly
        (the intercept's normal equation), so a play's proxy cell mean is unbiased for a constant play and the
        calibration's offset does not drift when the plays' positive rate changes.
        """
        penalty = self.ridge * np.eye(self.d + 1)
        penalty[-1, -1] = 0.0
        return penalty

    def _prepare_proxy(self):
        """Linear-probability estimates ``p_ig`` of ``1[a_i = g]`` for the rows of each event (public X, y)."""
        self.P_ = np.zeros((self.n, self.G))
        self.kappa_ = np.ones((self.E, self.G))
        for e in range(self.E):
            rows = self.ev == e
            if not rows.any():
                continue
            phi_e = np.column_stack([self.X[rows] if self.feature_map is None
                                     else self.feature_map.transform(self.X[rows]), np.ones(rows.sum())])
            gram_e = phi_e.T @ phi_e
            A = gram_e + self._penalty()
            theta = np.linalg.solve(A, self.event_S_[e].T)                    # (d + 1, G)
            P = phi_e @ theta
            # Shrink each group's proxy toward its mean by the share of its spread that is signal, not noise
            # (James-Stein style): the noise of theta is A^{-1} xi with xi ~ N(0, s^2 I), s^2 = sigma_stats^2 times
            # the number of label cells in the event, so a row's proxy carries noise variance s^2 phi^T A^{-2} phi,
            # on average s^2 tr(A^{-2} Phi_e^T Phi_e) / n_e. A group the features cannot tell apart at this noise
            # level gets kappa = 0: its proxy is its (released) share, and the Learner's cost ignores it.
            if self.private:
                A_inv = np.linalg.inv(A)
                # Cov(theta noise) = A^{-1} D A^{-1}, D the per-coordinate noise variance of the event's S
                # (features, then the count), so the mean proxy noise variance is tr(A^{-1} D A^{-1} G_e) / n_e.
                D = self._cell_width(e) * self.margin_factor * np.r_[np.full(self.d, self.sigma_stats ** 2),
                                                                     self.sigma_counts ** 2]
                noise_var = float(np.trace(A_inv @ (D[:, None] * A_inv) @ gram_e)) / rows.sum()
                mean = P.mean(axis=0)
                spread = P.var(axis=0)
                kappa = np.clip(1.0 - noise_var / np.maximum(spread, 1e-300), 0.0, 1.0)
                P = mean + kappa * (P - mean)
                self.kappa_[e] = kappa
            self.P_[rows] = P

    def _prepare_least_squares(self):
        gram = self.gram_ if self.record else symmetric_gram(self.exact.gram_upper)
        jitter = 1e-6 * max(1.0, float(np.trace(np.abs(gram))) / (self.d + 1))
        # The least-squares oracle keeps the ridge on the intercept too (as the paper-mode regression oracle): on
        # Adult under "record" that measured better (test accuracy 0.811 against 0.793 at epsilon = 1, seed 0).
        self.inverse_ = np.linalg.pinv(gram + (self.ridge + jitter) * np.eye(self.d + 1))
        if self.record:
            total = self.S_.sum(axis=(0, 1))                                   # Phi^T 1
            positive = self.S_[1].sum(axis=0)                                  # Phi^T y
        else:                                                                  # public X and y: exact
            total, positive = self.exact.total, self.exact.positive
        # Phi^T (c_FP (1 - y) - c_FN y) / n (unit costs: Phi^T (1 - 2y) / n)
        self.base_moment_ = (self.fp_cost * (total - positive) - self.fn_cost * positive) / self.n
        # Error-rate parity: the constraint part sums phi_i (1 - 2 y_i) over each group's rows.
        if self.error_parity:
            self.signed_S_ = (self.S_[0] - self.S_[1])[None]                   # (1, G, d+1)
        else:
            self.signed_S_ = self.event_S_
        self.kappa_ = self._direction_reliability(gram)

    def _direction_reliability(self, gram):
        """``kappa`` (E x G): the share of each group's cost direction that is signal, not release noise (1 without
        noise); the least-squares Learner plays against ``kappa * lambda'``. Post-processing of the release, see
        :mod:`fairlearn_dp.reductions._direction_reliability`.
        """
        if not self.private:
            return np.ones((self.E, self.G))
        totals = self.signed_S_.sum(axis=1)                                    # (E, d+1)
        directions = (self.signed_S_ / self.cell_counts_[:, :, None]
                      - (totals / self.event_counts_[:, None])[:, None, :])   # D_eg = S_eg / n_eg - S_e / n_e
        label_cells = [self._cell_width(e) for e in range(self.E)]            # error parity: 2 (signed sum)
        variance = direction_noise_variance(self.sigma_stats * math.sqrt(self.margin_factor), label_cells,
                                            self.cell_counts_, self.event_counts_)
        return direction_reliability(directions, variance, self.inverse_, gram)

    def best_response(self, lam_prime):
        """The Learner's play for multipliers ``lambda'`` (E x G): returns ``(classifier, predictions on X)``; the
        least-squares Learner's predictions are None (:meth:`round_sums` counts them on the rows).
        """
        n = self.n
        if self.least_squares:
            # Phi^T c = Phi^T (1 - 2y)/n + sum_{e,g} lambda'_eg (S_eg / n_eg - S_e / n_e)   (m_i folded into S),
            # with each direction's multiplier discounted by its reliability kappa (no noise: kappa = 1).
            lam_prime = lam_prime * self.kappa_
            event_totals = self.signed_S_.sum(axis=1)                          # (E, d+1)
            moment = self.base_moment_.copy()
            for e in range(self.E):
                moment += (lam_prime[e] / self.cell_counts_[e]) @ self.signed_S_[e]
                moment -= lam_prime[e].sum() / self.event_counts_[e] * event_totals[e]
            beta = self.inverse_ @ moment
            coef, intercept = ((beta[:-1], beta[-1]) if self.feature_map is None
                               else self.feature_map.raw_linear(beta))       # beta . [z, 1] as w . x + b
            return LinearThresholdClassifier(-coef, intercept), None
        inside = self.ev >= 0
        constraint = np.zeros(n)
        e = self.ev[inside]
        constraint[inside] = (np.einsum("ng,ng->n", self.P_[inside], (lam_prime / self.cell_counts_)[e])
                              - (lam_prime.sum(axis=1) / self.event_counts_)[e])
        if self.error_parity:
            constraint *= 1.0 - 2.0 * self.y
        cost = self.objective_cost / n + constraint
        labels = (cost < 0).astype(int)
        weights = np.abs(cost)
        weights = n * weights / weights.sum() if weights.sum() > 0 else np.ones(n)
        if labels.min() == labels.max():        # one class: the best response is that constant (no fit possible)
            h = LinearThresholdClassifier(np.zeros(self.d), 0.0 if labels[0] == 1 else 1.0)
            return h, h.predict(self.X).astype(float)
        model = clone(self.estimator)
        warm = self._warm_start(model)
        model.fit(self.X, labels, **{self.sample_weight_name: weights})
        if warm is not None:
            model.set_params(warm_start=warm)
            self._previous_linear = model
        predictions = np.asarray(model.predict(self.X), dtype=float).ravel()
        return model, predictions

    def _warm_start(self, model):
        """Start a ``LogisticRegression`` from the previous round's coefficients (speed only).

        The weighted logistic loss is convex, so a warm start reaches the same optimum (to the solver's tolerance)
        in fewer iterations; consecutive rounds' weights differ little. Only for scikit-learn's
        ``LogisticRegression`` with a solver that honours ``warm_start`` (not ``liblinear``); the play keeps the
        user's ``warm_start`` value. Returns that value, or None when no warm start is used.
        """
        from sklearn.linear_model import LogisticRegression

        if type(model) is not LogisticRegression or model.get_params().get("solver") == "liblinear":
            return None
        original = model.get_params()["warm_start"]
        previous = getattr(self, "_previous_linear", None)
        if previous is not None and hasattr(previous, "coef_") and previous.coef_.shape == (1, self.d):
            model.set_params(warm_start=True)
            model.coef_ = previous.coef_.copy()
            model.intercept_ = previous.intercept_.copy()
        return original

    def unenforced_groups(self):
        """The groups (indices) with a constraint the game cannot enforce, from released values: ``kappa = 0`` for
        the estimator Learner; ``kappa <= bound`` for the least-squares Learner, whose game enforces ``kappa gamma
        <= bound``, which then holds for every ``gamma`` in ``[-1, 1]``.
        """
        blind = self.kappa_ <= self.bound if self.least_squares else self.kappa_ == 0
        return sorted(set(np.nonzero(blind)[1].tolist()))

    def loosened_groups(self):
        """``{group index: effective bound}`` for the groups whose constraint the least-squares Learner's game
        enforces only loosely, from released values: it enforces ``gamma_eg <= bound / kappa_eg``, and a group is
        listed when that is more than twice the declared bound (``kappa_eg < 1/2`` in some cell) but the group is
        not already unenforced (:meth:`unenforced_groups`). Empty for the estimator Learner.
        """
        if not self.least_squares:
            return {}
        unenforced = set(self.unenforced_groups())
        kappa = np.min(self.kappa_, axis=0)                  # per group, its least reliable cell
        return {int(g): float(self.bound / kappa[g]) for g in np.nonzero(kappa < 0.5)[0]
                if int(g) not in unenforced and kappa[g] > 0}

    def reliability_warnings(self, name, groups, *, search=False):
        """The fit's two :class:`FairnessWarning` texts about groups whose released statistics are mostly noise (one
        place for both estimators that play this game): the unenforced groups, then the loosened ones with their
        effective bound. ``search``: the grid search's wording (its best responses apply only ``kappa`` of each
        grid multiplier) instead of the exponentiated gradient's (the game enforces ``gamma <= bound / kappa``).
        From released values only.
        """
        messages = []
        if self.unenforced_groups():
            blind = [str(groups[g]) for g in self.unenforced_groups()]
            reliability = ("proxy_reliability_" if search else
                           "proxy_reliability_ = 0, or at most the constraint's bound for the least-squares Learner")
            messages.append(
                f"{name}: at this epsilon the features cannot tell the members of group(s) {blind} apart from the "
                f"noise of the released statistics ({reliability}), so the "
                f"{'best responses' if search else 'Learner'} cannot correct their violations; they are measured "
                "(released) but not enforced. More data or a larger epsilon would help.")
        loose = {str(groups[g]): round(b, 3) for g, b in self.loosened_groups().items()}
        if loose and search:
            messages.append(
                f"{name}: at this epsilon the released statistics of group(s) {list(loose)} are mostly noise "
                "(proxy_reliability_ < 1/2), so the best responses apply only that share of each grid multiplier to "
                "their constraint: the grid corrects their violations less than it does the other groups'. More "
                "data or a larger epsilon would help.")
        elif loose:
            messages.append(
                f"{name}: at this epsilon the released statistics of group(s) {list(loose)} are mostly noise "
                "(proxy_reliability_ < 1/2), so the game enforces their constraint only to the effective bound(s) "
                f"{loose} (the declared bound divided by the reliability) rather than to the declared bound. More "
                "data or a larger epsilon would help.")
        return messages

    # ------------------------------------------------------------------------------ step 3: the Auditor
    def _auditor_weights(self):
        """Per constraint, the weight of its violation in the Auditor's step: ``kappa`` for the least-squares
        Learner, 1 for the estimator Learner.

        The least-squares Learner acts on cell ``(e, g)`` only through ``kappa_eg lambda'_eg``: its plays are the
        best responses of the game whose constraints are ``kappa_eg gamma_eg(h) <= bound`` (the group indicator
        replaced by its reliable part, see :mod:`._direction_reliability`). The Auditor plays that same game, so a
        multiplier the Learner cannot act on is not driven up by a violation it cannot correct (an unreliable
        direction times a large multiplier is noise again). For each group the fit enforces ``gamma_eg <= bound /
        kappa_eg``: the released reliability says how much (``proxy_reliability_``; 0: measured, not enforced).
        The estimator Learner's proxies are shrunk by their own ``kappa`` and its Auditor weighs every violation
        fully: a proxy with ``kappa`` near 0.15 still corrected a group of 340 rows on Adult by race.
        """
        if self.least_squares:
            return np.concatenate([self.kappa_.ravel(), self.kappa_.ravel()])
        return 1.0

    def values(self, predictions):
        """Per-row value whose conditional means the constraint compares: ``h``, or the error for error parity."""
        if self.error_parity:
            return predictions * (1.0 - 2.0 * self.y) + self.y
        return predictions

    def round_sums(self, play, predictions):
        """The exact sums a round reads of the rows (:class:`RoundSums`): from the ``predictions`` in memory (the
        estimator Learner), or from the play's counts on the rows (the least-squares Learner: one pass of
        :func:`~._game_rows.play_counts`, integers).
        """
        if predictions is not None:
            cells = self._cell_sums(predictions)
            if self.record:
                return RoundSums(cells, None, None)
            value = self.values(predictions)
            event_means = np.array([value[self.ev == e].mean() if np.any(self.ev == e) else 0.0
                                    for e in range(self.E)])
            error = float(np.mean(self.objective_cost * predictions + self.fn_cost * self.y))   # c_FP FP + c_FN FN
            return RoundSums(cells, event_means, error)
        counts = play_counts(self.rows, play, self.G)                          # (label, group, prediction)
        ones = counts[:, :, 1].astype(float)
        cells = np.stack([ones[list(labels)].sum(axis=0) for labels in self._event_labels]) if self.event_cells \
            else ones
        if self.record:
            return RoundSums(cells, None, None)
        # The rows whose value is 1: h under demographic parity and the rate parities, the error under error parity.
        value_ones = np.stack([counts[0, :, 1], counts[1, :, 0]]) if self.error_parity else counts[:, :, 1]
        rows, event_means = counts.sum(axis=2), []
        for labels in self._event_labels:
            size = int(rows[list(labels)].sum())
            event_means.append(int(value_ones[list(labels)].sum()) / size if size else 0.0)
        error = (self.fp_cost * float(counts[0, :, 1].sum()) + self.fn_cost * float(counts[1, :, 0].sum())) / self.n
        return RoundSums(cells, np.array(event_means), error)

    def release_round(self, exact):
        """The noisy cell sums of the play's predictions (``exact``: per release cell, as :meth:`release_statistics`):
        the round's only release.
        """
        if not self.private:
            return exact
        sums = release_gaussian(exact.ravel(), l2_sensitivity=self.sensitivity["round_l2"], rho=self.rho_round,
                                random_state=self.rng).reshape(exact.shape)
        # Under "sensitive_attribute" the play and y are public, so each event's total is too.
        return sums if self.record else project_onto_sum(sums, exact.sum(axis=1), axis=1)

    def violations(self, released, sums):
        """``gamma`` (2 E G: the ``+`` block then the ``-`` block) and the error of the play, from the release (and,
        under ``"sensitive_attribute"``, the public :class:`RoundSums` ``sums``).
        """
        labels_in_event = self._event_labels
        # under error parity, value sums per label cell: sum h (1 - 2y) + y = sum h (label 0), n_1g - sum h (label 1)
        value_sums = np.stack([released[0], self.S_[1, :, -1] - released[1]]) if self.error_parity else released
        cell_means = (value_sums if self.event_cells
                      else np.stack([value_sums[list(labels)].sum(axis=0) for labels in labels_in_event]))
        cell_means = cell_means / self.cell_counts_
        if self.record:
            event_means = np.stack([value_sums[list(labels)].sum() for labels in labels_in_event]) / self.event_counts_
            error = (self.fp_cost * released[0].sum() + self.fn_cost * (self.n_positive_ - released[1].sum())) / self.n
        else:
            event_means, error = sums.event_means, sums.error
        gamma = (cell_means - event_means[:, None]).ravel()
        return (np.clip(np.concatenate([gamma, -gamma]), -1.0, 1.0),
                float(np.clip(error, 0.0, max(self.fp_cost, self.fn_cost))))

    def proxy_violations(self, predictions):
        """``gamma`` computed with the proxy memberships ``p`` (post-processing, no release)."""
        value = self.values(predictions)
        out = np.zeros((self.E, self.G))
        for e in range(self.E):
            rows = self.ev == e
            if rows.any():
                out[e] = (self.P_[rows].T @ value[rows]) / self.cell_counts_[e] - value[rows].mean()
        gamma = out.ravel()
        return np.concatenate([gamma, -gamma])

    def lp_bound(self, rounds, proxy):
        """The LP's bound per constraint: ``bound`` plus ``LP_SLACK_SD`` standard deviations of its estimate.

        A cell mean's noise is ``sigma_round / n_eg`` (released, floored count) per label cell it sums; the
        calibration (two parameters fitted over the rounds played) averages it to ``sqrt(2 / rounds)`` of that.
        Without the slack the program would select plays whose noise happens to look fair, and a small group's
        unmeasurable violation would dominate the mixture. Public: noise scales and released counts only.
        """
        sd = self.gamma_sd()
        if proxy:
            sd = sd * math.sqrt(min(2.0, rounds) / rounds)
        return self.bound + LP_SLACK_SD * np.concatenate([sd, sd])

    def gamma_sd(self):
        """Noise sd of one round's released violation per (event, group) cell (public: noise scale, released counts).

        A cell of event ``e`` sums ``len(labels of e)`` noisy label cells; the event mean is public under
        ``"sensitive_attribute"`` (under ``"record"`` its noise is smaller by the group count and is left out).
        """
        width = np.array([math.sqrt(self._cell_width(e) * self.margin_factor) for e in range(self.E)])
        return (self.sigma_round * width[:, None] / self.cell_counts_).ravel()

    def _count_sd(self, e):
        """Noise sd of the released count of an (event ``e``, group) cell (public)."""
        return self.sigma_counts * math.sqrt(self._cell_width(e) * self.margin_factor)

    def calibrated_violations(self, proxy_gammas, released_gammas):
        """Each play's violation estimated from its free proxy violation, calibrated on the released ones.

        Per (event, group) cell, a regression over the rounds played of the released on the proxy violations
        (offset and attenuation, :func:`._game_mixture._calibrate_violations`), with the round's noise sd as the
        slope's prior scale. Post-processing of releases only.
        """
        return _calibrate_violations(proxy_gammas, released_gammas, self.gamma_sd())

    def _mixture(self, errors, gammas, rounds, proxy):
        """The program's mixture ``(q, value, within)``; ``within``: the mixture's released (calibrated) violation is
        within the program's bound in every cell the fit enforces (:meth:`unenforced_groups` are measured only).
        """
        bound = self.lp_bound(rounds, proxy)
        q, value = _mixture_lp(np.asarray(errors), gammas.T, bound, self.B)
        excess = (gammas.T @ q - bound).reshape(2, self.E, self.G)
        enforced = np.ones(self.G, dtype=bool)
        enforced[self.unenforced_groups()] = False
        return q, value, bool(np.all(excess[:, :, enforced] <= FEASIBLE_TOL))

    # ------------------------------------------------------------------------------ step 4: the game
    def start(self, event_labels):
        """Before the first play: the release of the statistics and the Learner's preparation. ``event_labels``: the
        labels each event of the moment is made of (``_EVENT_LABELS``).
        """
        self._event_labels = event_labels
        self.release_statistics()
        self.prepare_learner()

    def _round(self, lam_prime):
        """One round: the Learner's play for ``lambda'``, the exact sums it reads of the rows, their release and the
        violations: ``(play, predictions or None, released, gamma, error)``.
        """
        h, predictions = self.best_response(lam_prime)
        sums = self.round_sums(h, predictions)
        released = self.release_round(sums.cells)
        return (h, predictions, released, *self.violations(released, sums))

    def play(self, event_labels, *, linprog_step=True, after_release=None):
        """Play up to T rounds; the output mixture is the LP's (``linprog_step``) or the uniform average.
        ``after_release`` (the estimator's charge) is called once the statistics are released, before any Learner
        (a user's estimator) is fitted on weights derived from them.
        """
        self.start(event_labels)
        if after_release is not None:
            after_release()
        proxy = not self.least_squares
        K = self.E * self.G
        theta = np.zeros(2 * K)
        plays, errors, released_gammas, proxy_gammas, lambdas, values, round_sums, predicted = ([] for _ in range(8))
        rounds_played = 0
        for t in progress_rounds(0, self.T, desc="DPExponentiatedGradient (statistics game)"):
            weights = np.exp(theta - theta.max())
            lam = self.B * weights / (math.exp(-theta.max()) + weights.sum())
            lam_prime = (lam[:K] - lam[K:]).reshape(self.E, self.G)
            h, predictions, released, gamma, error = self._round(lam_prime)
            plays.append(h)
            predicted.append(_compact(predictions))     # the estimator Learner's, kept for the final choice
            errors.append(error)
            released_gammas.append(gamma)
            round_sums.append(released)
            lambdas.append(lam)
            if proxy:
                proxy_gammas.append(self.proxy_violations(predictions))
                gammas = self.calibrated_violations(np.array(proxy_gammas), np.array(released_gammas))
                auditor_gamma = gammas[-1]
            else:
                gammas = np.array(released_gammas)
                auditor_gamma = gamma
            theta = theta + self.eta * (self._auditor_weights() * auditor_gamma - self.bound)
            rounds_played = t + 1
            if not linprog_step:                    # the uniform average: all T planned rounds are played
                continue
            q, value, feasible = self._mixture(errors, gammas, rounds_played, proxy)
            values.append(value)
            # Stop early only on a mixture within the program's bound: one that the program had to let exceed it
            # (slack s > 0) means the plays so far cannot meet the constraint, and later rounds may.
            if (rounds_played >= min(MIN_ROUNDS, self.T) and rounds_played > PATIENCE
                    and value > values[-1 - PATIENCE] - IMPROVEMENT
                    and feasible):
                break
        self.lp_bound_ = self.lp_bound(rounds_played, proxy) if linprog_step else None
        if linprog_step:
            q, value, _ = self._mixture(errors, gammas, rounds_played, proxy)
        else:
            q = np.full(len(plays), 1.0 / len(plays))           # Q_EG: the uniform average of the rounds' plays
        self.plays_, self.q_ = plays, q
        self.play_predictions_ = None if self.least_squares else predicted
        self.errors_, self.gammas_ = np.array(errors), gammas
        self.lambdas_ = np.array(lambdas)
        self.released_gammas_ = np.array(released_gammas)
        self.round_sums_ = np.array(round_sums)
        self.lp_values_ = np.array(values)
        self.rounds_played_ = rounds_played
        self.estimated_error_ = float(np.array(errors) @ q)
        # Standard deviation of that estimate: 0 under "sensitive_attribute" (public X, y and plays); under "record"
        # each play's error reads 2G noisy round sums and the G noisy positive counts of release 1.
        # With costs: c_FP^2 G sigma_round^2 (label 0) + c_FN^2 G (sigma_round^2 + sigma_stats^2) (label 1).
        self.error_sd_ = (math.sqrt(self.G * self.sigma_round ** 2 * (self.fp_cost ** 2 + self.fn_cost ** 2)
                                    + self.G * self.fn_cost ** 2 * self.sigma_stats ** 2) / self.n
                          if self.record else 0.0)
        self.estimated_violation_ = float(np.max(gammas.T @ q - self.bound)) if gammas.size else 0.0
        return self
