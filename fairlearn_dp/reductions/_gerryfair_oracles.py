"""The two players of private FairNR (internal): their releases, their oracles' solves and their plays.

Each release function computes one statistic of the data and hands it to the fit's releaser, the only data access
("Privacy item k" is release k of docs/privacy_analysis/gerryfair.md, where its sensitivity is derived). Everything
after a release -- the solve of a noisy Gram matrix, the Learner's and the Auditor's best responses, the Auditor's
running sums and the stopping rule -- is post-processing of released values.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd
from sklearn.base import clone

from .._utils._encoding import _with_intercept
from .._utils._fit_support import linear_span, warn_if_constant_output
from .._utils._rows import clip_rows
from .._utils._validation import check_X

__all__ = ["LinearCSCHypothesis", "RegressionCSCHypothesis"]

#: The largest weighted disparity ``|U_t| / n`` of any subgroup (the feasible range of ``fairness_violations_``).
MAX_VIOLATION = 0.25


class _SolvedGram:
    """Post-processing of a released Gram matrix into a linear solve (the oracle's normal equations).

    With noise: eigenvalues raised to ``s sqrt(p)`` (``s`` the noise's standard deviation per entry; about half the
    spectral norm of a symmetric ``p x p`` noise matrix), so the solve is positive definite; a heuristic, and
    post-processing whatever its value. Without noise: a pseudo-inverse after scaling the matrix to unit diagonal
    (eigenvalues below ``1e-10`` of the largest dropped), which gives scikit-learn's minimum-norm least-squares
    fit. ``ridge_alpha`` is added to the diagonal except the intercept entry (last), as scikit-learn's ``Ridge``.
    """

    def __init__(self, gram, noise_std, ridge_alpha, has_intercept):
        p = gram.shape[0]
        gram = (gram + gram.T) / 2
        if ridge_alpha:
            penalty = np.full(p, ridge_alpha)
            if has_intercept:
                penalty[-1] = 0.0
            gram = gram + np.diag(penalty)
        if noise_std > 0:
            scale = np.ones(p)
            values, vectors = np.linalg.eigh(gram)
            inverse_values = 1.0 / np.maximum(values, noise_std * math.sqrt(p))
        else:
            diagonal = np.diag(gram)
            scale = np.where(diagonal > 0, np.sqrt(np.where(diagonal > 0, diagonal, 1.0)), 1.0)
            values, vectors = np.linalg.eigh(gram / np.outer(scale, scale))
            top = float(np.abs(values).max()) if values.size else 0.0
            keep = values > 1e-10 * top
            inverse_values = np.where(keep, 1.0 / np.where(keep, values, 1.0), 0.0)
        self.scale, self.vectors, self.inverse_values = scale, vectors, inverse_values

    def solve(self, rhs):
        rhs = np.asarray(rhs, dtype=float) / self.scale
        return (self.vectors @ (self.inverse_values * (self.vectors.T @ rhs))) / self.scale


class _AuditorPlays:
    """The Auditor's past plays ``(g_s on the audited rows, sigma_s)`` as the two running sums the Learner's costs
    read: ``kappa = sum_s sigma_s (w_s - g_s)`` (``w_s`` the mean of ``g_s``) and ``mass = sum_s |sigma_s|``.
    Each is updated once per play, with the same additions in the same order as summing over the list of plays in
    every round (identical floats), so a round costs ``O(n)`` instead of ``O(t n)`` and no play is stored.
    ``first_row`` (``cost_update='aif360'``, ``epsilon = inf`` only): AIF360 0.6.1's ``update_costs``, every row
    gets the first audited row's term ``sigma_s (w_s - g_s(a_first))``.
    """

    def __init__(self, n_audited, *, first_row=False):
        self.kappa = np.zeros(n_audited)
        self.mass = 0
        self.count = 0
        self.first_row = first_row

    def add(self, members, sigma):
        self.mass += abs(sigma)
        if sigma != 0 and members.size:
            self.kappa += sigma * (members.mean() - (members[0] if self.first_row else members))
        self.count += 1


#: The early stop's level: a stalled round passes each agreement test with probability at least ``1 - STOP_LEVEL``.
STOP_LEVEL = 0.01


def _laplace_difference_quantile(level):
    """``z`` with ``P(|L_1 - L_2| > z b) = level`` for independent Laplace(``b``) draws: ``(1 + z/2) e^{-z} = level``
    (the tail of their difference), solved by bisection (the left side decreases in ``z``). 5.98 at 0.01.
    """
    low, high = 0.0, 100.0
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if (1 + middle / 2) * math.exp(-middle) > level else (low, middle)
    return high


def _stop_tolerance(noise_scale, laplace, n, level=STOP_LEVEL):
    """The ``1 - level`` quantile of ``|N_1 - N_2| / n`` for two releases' noises (public: the scale and ``n``).

    Laplace scale ``b``: ``z b / n`` with ``z`` from :func:`_laplace_difference_quantile`; Gaussian ``sigma``:
    ``z sqrt(2) sigma / n`` with ``z`` the standard normal's ``1 - level / 2`` quantile. 0 without noise.
    """
    if noise_scale == 0:
        return 0.0
    if laplace:
        return _laplace_difference_quantile(level) * noise_scale / n
    return NormalDist().inv_cdf(1 - level / 2) * math.sqrt(2) * noise_scale / n


def _aif360_stops(errors, violations, gamma, error_tolerance=0.0, violation_tolerance=0.0):
    """AIF360's early-termination rule on the released errors and violations, "equal" meaning "within the noise".

    After at least 5 rounds: stop when the last released violation is below ``gamma`` and the last two released
    errors agree within ``error_tolerance``, or the last two released violations within ``violation_tolerance``
    (:func:`_stop_tolerance` of their release noise, public). Tolerances 0 (``epsilon = inf``) give AIF360's rule
    exactly: ``abs(a - b) <= 0`` only when ``a == b``. Reads released values and public inputs only; derivation on
    docs/privacy_analysis/gerryfair.md ("The early stop").
    """
    def agree(values, tolerance):
        return values[-1] == values[-2] or abs(values[-1] - values[-2]) <= tolerance

    return (len(errors) >= 5 and (agree(errors, error_tolerance) or agree(violations, violation_tolerance))
            and violations[-1] < gamma)


# ------------------------------------------------------------------ releases (the only data access)
def _release_gram(release, design, radius):
    """Privacy items 1-2: the upper triangle of ``design^T design`` with noise (sensitivity ``2 radius^2``)."""
    p = design.shape[1]
    upper = np.triu_indices(p)
    exact = (design.T @ design)[upper]
    sensitivity = 2.0 * radius ** 2
    noisy, info = release(exact, l1=sensitivity, l2=sensitivity)
    gram = np.zeros((p, p))
    gram[upper] = noisy
    gram = gram + np.triu(gram, 1).T
    return gram, info


def _release_learner_gram(release, X_design, radius, *, linear, fit_intercept, ridge_alpha):
    """Privacy item 1 and its solve: ``(G_X released, its release info, its solve)``. The intercept entry is set to
    the public ``n``. Nothing is released for a generic regressor (``epsilon = inf`` only: it sees the costs).
    """
    if not linear:
        return None, {"sensitivity": None, "noise_scale": 0.0}, None
    gram, info = _release_gram(release, X_design, radius)
    if fit_intercept:
        gram[-1, -1] = X_design.shape[0]                               # the intercept entry is the public n
    return gram, info, _SolvedGram(gram, info["noise_std"], ridge_alpha, fit_intercept)


def _release_auditor_statistic(release, A_audited, q, radius):
    """Privacy item 4: ``S_t = sum_audited a~_i (q_i - m)`` (sensitivity ``3 radius``)."""
    deviation = q - q.mean() if q.size else q
    sensitivity = 3.0 * radius
    return release(A_audited.T @ deviation, l1=sensitivity, l2=sensitivity)


def _release_violation(release, members, q):
    """Privacy item 5: ``U_t = sum_audited g_t(a_i) (q_i - m)`` (sensitivity 3)."""
    deviation = q - q.mean() if q.size else q
    noisy, info = release(np.array([members @ deviation]), l1=3.0, l2=3.0)
    return float(noisy[0]), info


def _release_error(release, average, y):
    """Privacy item 6: ``E_t = sum_i |p_i - y_i|`` (sensitivity 1)."""
    noisy, info = release(np.array([np.abs(average - y).sum()]), l1=1.0, l2=1.0)
    return float(noisy[0]), info


# ------------------------------------------------------------------ solves (released statistics only)
def _solve_learner(gram_inverse, b_noisy, fit_intercept, norm_bound, norm_ord):
    """The Learner's CSC oracle on released statistics: ``h_t(x) = 1[x~ . G_X^{-1} b~_t < 0]``."""
    return LinearCSCHypothesis(gram_inverse.solve(b_noisy), fit_intercept=fit_intercept, norm_bound=norm_bound,
                               norm_ord=norm_ord)


def _solve_auditor(gram_inverse, s_noisy):
    """The Auditor's CSC oracle on released statistics: ``theta_t = G_A^{-1} S~_t``, ``g_t = 1[a~ . theta_t < 0]``.

    AIF360 regresses the cost of including a row, ``(q_i - m) / n``, and of excluding it, 0, on ``a~``; the
    second regression is identically 0, so the subgroup is where the first is negative.
    """
    return gram_inverse.solve(s_noisy)


# ------------------------------------------------------------------ the Learner's plays
class LinearCSCHypothesis:
    """One play of the Learner: ``h(x) = 1[x~ . coef < 0]`` (AIF360's ``RegOracle``: ``1[reg_1(x) < reg_0(x)]``).

    ``coef`` is ``beta_1 - beta_0``, the difference of the two cost regressions, with the intercept last when
    ``fit_intercept``. Rows of ``X`` whose norm exceeds the bound used in training are scaled onto the ball first,
    as in training.
    """

    def __init__(self, coef, *, fit_intercept=True, norm_bound=np.inf, norm_ord=2):
        self.coef = np.asarray(coef, dtype=float).ravel()
        self.fit_intercept = bool(fit_intercept)
        self.norm_bound = float(norm_bound)
        self.norm_ord = norm_ord

    def predict_design(self, design):
        return (design @ self.coef < 0).astype(int)

    def predict(self, X):
        X, _ = check_X(X, "X")
        X = clip_rows(X, self.norm_bound, self.norm_ord)
        return self.predict_design(_with_intercept(X) if self.fit_intercept else X)

    def __repr__(self):
        return f"LinearCSCHypothesis(coef={np.round(self.coef, 4).tolist()}, fit_intercept={self.fit_intercept})"


class RegressionCSCHypothesis:
    """One play of the Learner with a generic regressor (``epsilon = inf`` only): AIF360's ``RegOracle``.

    ``reg0`` and ``reg1`` are clones of the predictor fitted on the costs of labelling 0 and 1; ``h(x) =
    1[reg1(x) < reg0(x)]``.
    """

    def __init__(self, reg0, reg1):
        self.reg0, self.reg1 = reg0, reg1

    @classmethod
    def best_response(cls, predictor, X, difference, fairness_def):
        """AIF360's ``Learner.best_response``: ``c^1 - c^0 = difference``, with ``c^0 = 0`` ('FP') or ``c^1 = 0``
        ('FN'), as AIF360 initialises and updates them.
        """
        zeros = np.zeros_like(difference)
        costs_0, costs_1 = (zeros, difference) if fairness_def == "FP" else (-difference, zeros)
        reg0 = clone(predictor).fit(X, costs_0)
        reg1 = clone(predictor).fit(X, costs_1)
        return cls(reg0, reg1)

    def predict_design(self, X):
        return (np.asarray(self.reg1.predict(X)) < np.asarray(self.reg0.predict(X))).astype(int)

    def predict(self, X):
        X, _ = check_X(X, "X")
        return self.predict_design(X)

    def __repr__(self):
        return f"RegressionCSCHypothesis(reg0={self.reg0!r}, reg1={self.reg1!r})"


def _feasible_reports(errors, violations):
    """AIF360's ``errors`` and ``fairness_violations`` clipped to their feasible ranges (post-processing of the
    releases; ``history_`` keeps the raw noisy values): an error rate lies in ``[0, 1]``, and ``|U_t| / n <= 1/4``
    (``U_t`` sums a subset of the deviations of ``q`` in ``[0, 1]`` from their mean ``m``: at most ``n m (1 - m)``).
    """
    return ([float(np.clip(e, 0.0, 1.0)) for e in errors],
            [float(np.clip(v, 0.0, MAX_VIOLATION)) for v in violations])


def _save_heatmap(X, A2, names, y, predictions, path, heat_range, first):
    """AIF360's in-fit heatmap (``GerryFairClassifier.save_heatmap``), ``epsilon = inf`` only."""
    from aif360.algorithms.inprocessing.gerryfair import heatmap

    minmax = heatmap.heat_map(pd.DataFrame(X), pd.DataFrame(A2, columns=names), tuple(y), predictions, 0.1, path,
                              *heat_range)
    return (minmax[0], minmax[1]) if first else heat_range


def _warn_if_constant_output(owner, predictors, choice, *, feature_bound, norm_ord, fit_intercept):
    """The uniform mixture of the Learner's plays ``1[x . w + b < 0]`` predicts one label on the whole public feature
    ball ``||x||_norm_ord <= feature_bound`` (where fit and predict put every row): checked on the released plays
    only (``|x . w| <= feature_bound ||w||_dual``), so it never warns falsely and misses a mixture that is constant
    only on the training rows (y is private, so their predictions are not released).
    """
    dual = {1: np.inf, 2: 2}[norm_ord]
    ones = zeros = 0.0
    for h in predictors:
        coef = np.asarray(h.coef, dtype=float)
        w, b = (coef[:-1], coef[-1]) if fit_intercept else (coef, 0.0)
        span = linear_span(w, feature_bound, dual)
        ones += float(b + span < 0)
        zeros += float(b - span >= 0)
    warn_if_constant_output(owner, ones / len(predictors), 1.0 - zeros / len(predictors), choice=choice,
                            source="its released plays over the feature ball of radius feature_norm_bound_",
                            hint="More data, a larger epsilon or fewer rounds")
