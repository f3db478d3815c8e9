r"""Attribute-blind fair regression post-processing: the remapping LP over (output bin, posterior bucket) cells.

The attribute-aware post-processor (Xian et al. 2024, Alg. 1) maps each output to a new one with a kernel that
depends on the output's bin *and the group*. When the group must not be an input at prediction time, the kernel may
depend only on what the deployed model sees: the output bin ``j`` of the regressor and a bucket ``b`` of the
predicted group posterior ``g(x)`` (a classifier of the group from ``x``). A *cell* is the pair ``c = (j, b)``.

Released statistic (fit, true groups): the joint PMF ``p_hat(a, c)`` of (true group, cell) over all ``|A| k B``
cells of the public grid -- the same release as the attribute-aware fit with ``k B`` "bins" instead of ``k``, so
its L1 sensitivity under substitution of one record is ``2 / n`` (L2 ``sqrt(2) / n``). Everything below reads only
the released PMF.

From it (post-processing, :func:`cell_distributions`): group weights ``w_a = max(sum_c p_hat(a, c), 0)``, each
group's cell distribution ``P(c | a)`` (its noisy row projected onto the scaled simplex), and the cell marginal
``P(c) = sum_a w_a P(c | a) / sum_a w_a``. The LP ::

    minimise   sum_c P(c) sum_v T(v | c) (v - v_j(c))^2          (expected squared change of the output)
    subject to sum_v T(v | c) = 1,  T >= 0                        (a randomised map per cell)
               q_a(v) = sum_c P(c | a) T(v | c)                   (group a's induced output distribution)
               |sum_{v' <= v} q_a(v') - R(v)| <= alpha / 2        (every q_a within KS alpha / 2 of one CDF R)

so every two groups' induced output distributions are within KS distance ``alpha`` of each other. It is always
feasible (mapping every cell to one bin equalises all groups). Cells with ``P(c) = 0`` have no mass: they keep
their own bin (as Alg. 1, line 12 of the aware algorithm). Two formulations give the same optimum (tested):
``solver="exact"`` (default) has only the cells with mass as variables, a centre CDF ``R`` for the KS constraints
and sparse constraint matrices, solved by HiGHS through ``scipy.optimize.linprog``; a cvxpy solver name (e.g.
``"HIGHS"``) solves the LP as written above with pairwise constraints ``|Q_a - Q_a'| <= alpha`` in cvxpy
(equivalent: at each point, values within ``alpha`` of each other are within ``alpha / 2`` of their midpoint).

What is guaranteed
------------------
- On the released distributions, KS parity holds exactly: ``max_{a, a'} KS(q_a, q_a') <= alpha`` (LP constraints).
- On the population (or a test set), with ``P(. | a)`` the true cell distribution of group ``a``: the induced
  output distribution of group ``a`` is ``sum_c P(c | a) T(. | c)``, and a Markov kernel cannot increase total
  variation, so its CDF differs from ``q_a``'s by at most ``TV(P(. | a), P_hat(. | a))`` at every point. Hence
  ``KS_population(a, a') <= alpha + TV_a + TV_a'`` where ``TV_a`` is the total-variation error of the released
  cell distribution of group ``a`` (sampling error plus the release noise, ``O(sqrt(k B / n_a))`` and
  ``O(k B / (n_a epsilon))``). **This does not depend on the calibration of the group estimator**: the fit
  measures each cell's group composition with the *true* groups, so a miscalibrated (even constant) posterior
  only makes the cells less informative, which raises the squared change needed for parity (with a constant
  posterior the cells are the output bins alone, and parity needs a map that ignores the group), never the KS.
  The group estimator's quality is therefore a question of accuracy (MSE), not of fairness; the bound's TV terms
  grow with the number of cells, so more posterior buckets trade estimation error for resolution.

Noise margins
-------------
The constraint above holds for the *released* distributions. For the fitting data's own (noise-free) cell
distributions the induced CDF of group ``a`` at ``v`` differs by ``sum_c (P(c | a) - P_hat(c | a)) F_c(v)`` with
``F_c(v) = T(<= v | c)``: the release noise spread over the ``k B`` cells of the group, which for a small group is
of the order of ``alpha`` itself (Law School, epsilon = 1, k B = 432: about 0.04 on the in-sample KS). With
``noise_margins`` the constraints are tightened per group: ``|Q_a(v) - R(v)| <= max(alpha/2 - m_a, 0)`` with
``m_a = z (sigma / w_a) max_v sqrt(sum_{c : P_hat(c|a) > 0} F_c(v)^2)`` -- ``z`` standard deviations of that
difference if the errors of the cells the projection keeps were independent with the release's per-cell standard
deviation ``sigma`` (public: ``sqrt 2 * 2 / (n epsilon)`` for Laplace, the analytic Gaussian's sigma otherwise),
scaled by ``1 / w_a`` as the conditional is. ``F`` is taken from the untightened solution and the LP solved once
more (a plug-in step, not a fixed point). This is an estimate, not a bound (it ignores the projection's shift and
the true mass of the cells it zeroes); what is guaranteed is unchanged or stronger: on the released distributions
``KS(q_a, q_a') <= max(alpha/2 - m_a, 0) + max(alpha/2 - m_a', 0) <= alpha``, and the population bound above.
Margins read only the release, its public noise scale and the solution: post-processing.

Posterior buckets (public, data-independent): with two groups, ``B`` equal-width intervals of ``P(groups[1] | x)``
on [0, 1]; with ``|A| > 2`` groups, the most probable group ``a*`` and ``L = ceil(B / |A|)`` geometric levels of
its probability (level ``l`` when ``1 - p_a*`` lies in ``((1 - 1/|A|) 2^-(l+1), (1 - 1/|A|) 2^-l]``, the last
level open-ended), i.e. ``|A| L`` buckets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

__all__ = ["posterior_buckets", "n_posterior_cells", "cell_distributions", "solve_blind_remap", "noise_margins"]


def n_posterior_cells(n_groups, n_buckets):
    """Number of posterior buckets for ``n_groups`` groups and the parameter ``n_buckets`` (see module doc)."""
    if n_groups == 2:
        return n_buckets
    return n_groups * math.ceil(n_buckets / n_groups)


def posterior_buckets(proba, n_buckets):
    """Bucket index of each row of the posterior matrix ``proba`` (rows on the simplex, columns in group order).

    Two groups: ``floor(B p_1)`` clipped to ``B - 1``. More groups: ``a* L + level`` with ``a* = argmax`` (first on
    ties) and ``level = floor(log2((1 - 1/|A|) / (1 - p_a*)))`` clipped to ``[0, L - 1]``, ``L = ceil(B / |A|)``.
    """
    proba = np.asarray(proba, dtype=float)
    n_groups = proba.shape[1]
    if n_groups == 2:
        return np.clip(np.floor(proba[:, 1] * n_buckets), 0, n_buckets - 1).astype(np.intp)
    levels = math.ceil(n_buckets / n_groups)
    top = np.argmax(proba, axis=1)
    p_top = proba[np.arange(proba.shape[0]), top]
    floor = 1.0 / n_groups
    # Geometric levels of the remaining probability 1 - p_top on (0, 1 - 1/|A|]: halving it moves up one level.
    with np.errstate(divide="ignore"):
        level = np.floor(np.log2((1.0 - floor) / np.maximum(1.0 - p_top, 1e-300)))
    level = np.clip(level, 0, levels - 1).astype(np.intp)
    return top.astype(np.intp) * levels + level


def cell_distributions(noisy_joint_pmf):
    """``(group_weights, P(c | a), P(c))`` from the released joint PMF of shape ``(n_groups, n_cells)`` alone.

    Group ``a``'s weight is its released mass ``w_a = max(sum_c p_hat(a, c), 0)`` (unbiased before the max). Its
    cell distribution is the Euclidean projection of its noisy row onto ``{p >= 0 : sum p = w_a}``
    (:func:`fairlearn_dp.allocation.project_nonnegative_sum`, Zhu et al.'s ``pi_S+``: subtract one threshold,
    clip at 0), divided by ``w_a``. Clipping each cell at 0 instead would add the positive part of the noise of
    every empty cell: with ``k B`` cells that is about ``k B s / 2`` of spurious mass per group (Laplace scale
    ``s``), as large as a small group's own mass. A group with ``w_a = 0`` gets the uniform distribution. ``P(c)``
    is the weighted mixture ``sum_a w_a P(c | a) / sum_a w_a``.
    """
    from ..allocation import project_nonnegative_sum

    noisy = np.asarray(noisy_joint_pmf, dtype=float)
    n_groups, n_cells = noisy.shape
    mass = np.maximum(noisy.sum(axis=1), 0.0)
    conditional = np.full((n_groups, n_cells), 1.0 / n_cells)
    for a in range(n_groups):
        if mass[a] > 0:
            conditional[a] = project_nonnegative_sum(noisy[a], public_total=mass[a]) / mass[a]
    total = mass.sum()
    marginal = (mass @ conditional) / total if total > 0 else np.full(n_cells, 1.0 / n_cells)
    return mass, conditional, marginal


@dataclass(frozen=True)
class BlindSolution:
    """Result of :func:`solve_blind_remap`: ``kernel`` (CSR, ``n_cells x k``), ``targets`` (``|A| x k``, each
    group's induced output distribution) and ``objective`` (the expected squared change).
    """

    kernel: sparse.csr_array
    targets: np.ndarray
    objective: float


def solve_blind_remap(conditional, marginal, cell_bin, bin_centers, alpha, solver="exact", margins=None):
    """Solve the attribute-blind remapping LP (module doc): ``"exact"`` with HiGHS on sparse matrices, or the LP
    as written in cvxpy with the named cvxpy ``solver``.

    Parameters
    ----------
    conditional : ndarray (n_groups, n_cells)
        ``P(c | a)``, rows summing to 1.
    marginal : ndarray (n_cells,)
        ``P(c)``, the weights of the objective.
    cell_bin : ndarray of int (n_cells,)
        The output bin ``j(c)`` of each cell.
    bin_centers : ndarray (k,)
    alpha : float in [0, 1]
    solver : str, default="exact"
    margins : ndarray (n_groups,) or None
        Per-group tightening ``m_a`` of the KS constraints (:func:`noise_margins`): each group's induced CDF within
        ``r_a = max(alpha/2 - m_a, 0)`` of the centre CDF, hence pairwise KS ``<= r_a + r_b``.

    Returns
    -------
    BlindSolution
    """
    conditional, marginal, cell_bin, centers = _lp_arrays(conditional, marginal, cell_bin, bin_centers)
    half = _half_widths(alpha, margins, conditional.shape[0])
    if solver != "exact":
        return _solve_blind_cvxpy(conditional, marginal, cell_bin, centers, half, solver)
    n_groups, n_cells = conditional.shape
    k = centers.size
    active = np.flatnonzero(marginal > 0)            # cells with mass: the LP's variables
    m = active.size
    # Variables: T (m x k, row-major), q (n_groups x k), R (k - 1).
    n_t, n_q = m * k, n_groups * k
    n_var = n_t + n_q + (k - 1)
    spread = np.ptp(centers) or 1.0
    cost = np.zeros(n_var)
    cost[:n_t] = (marginal[active, None] * ((centers[None, :] - centers[cell_bin[active], None]) / spread) ** 2).ravel()

    inactive = np.setdiff1d(np.arange(n_cells), active)
    a_eq, b_eq = _equality_constraints(conditional, cell_bin, active, inactive, k, n_var)
    a_ub, b_ub = _ks_constraints(half, k, n_t, n_q, n_var)
    bounds = np.zeros((n_var, 2))
    bounds[:, 1] = np.inf
    bounds[n_t + n_q:, 1] = 1.0
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if result.status != 0:                           # pragma: no cover - always feasible (see module doc)
        raise RuntimeError(f"The attribute-blind remapping LP failed: {result.message}")
    x = np.maximum(result.x, 0.0)
    kernel = np.zeros((n_cells, k))
    kernel[active] = x[:n_t].reshape(m, k)
    kernel[active] /= kernel[active].sum(axis=1, keepdims=True)
    kernel[inactive, cell_bin[inactive]] = 1.0
    targets = conditional @ kernel
    objective = float(result.fun) * spread ** 2
    return BlindSolution(sparse.csr_array(kernel), targets, objective)


def _equality_constraints(conditional, cell_bin, active, inactive, k, n_var):
    """``(A_eq, b_eq)`` of the sparse LP of :func:`solve_blind_remap` (variables ``T``, ``q``, ``R`` in that order):
    (1) each active cell's kernel row sums to 1; (2) ``q_a(v) - sum_c P(c|a) T(v|c)`` = the fixed part.
    """
    n_groups, m = conditional.shape[0], active.size
    n_t, n_q = m * k, n_groups * k
    rows_1 = np.repeat(np.arange(m), k)
    eq1 = sparse.csr_array((np.ones(n_t), (rows_1, np.arange(n_t))), shape=(m, n_var))
    # Inactive cells keep their own bin: their (fixed) contribution P(c|a) 1[v = j(c)] moves to the right-hand side.
    fixed = np.zeros((n_groups, k))
    if inactive.size:
        np.add.at(fixed.T, cell_bin[inactive], conditional[:, inactive].T)
    a_idx, c_idx = np.nonzero(conditional[:, active])
    weights = conditional[:, active][a_idx, c_idx]
    v = np.arange(k)
    rows_2 = (a_idx[:, None] * k + v[None, :]).ravel()
    cols_2 = (c_idx[:, None] * k + v[None, :]).ravel()
    vals_2 = -np.repeat(weights, k)
    eq2 = sparse.csr_array(
        (np.concatenate([vals_2, np.ones(n_q)]),
         (np.concatenate([rows_2, np.arange(n_q)]), np.concatenate([cols_2, n_t + np.arange(n_q)]))),
        shape=(n_q, n_var))
    return sparse.vstack([eq1, eq2], format="csr"), np.concatenate([np.ones(m), fixed.ravel()])


def _ks_constraints(half, k, n_t, n_q, n_var):
    """``(A_ub, b_ub)`` of the sparse LP of :func:`solve_blind_remap`, the KS constraints: for a, l < k - 1,
    ``sum_{v <= l} q_a(v) - R(l) <= r_a`` and ``R(l) - sum_{v <= l} q_a(v) <= r_a``, with the half-width
    ``r_a = max(alpha/2 - m_a, 0)`` (``half``; ``m_a = 0`` without margins).
    """
    a_of, l_of = np.divmod(np.arange(half.size * (k - 1)), k - 1)          # one (a, l) pair per upper row
    lengths = l_of + 1                                                     # q_a(0..l)
    starts = np.repeat(n_t + a_of * k, lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    q_cols = starts + offsets
    q_rows = np.repeat(np.arange(a_of.size), lengths)
    upper = sparse.csr_array(
        (np.concatenate([np.ones(q_cols.size), -np.ones(a_of.size)]),
         (np.concatenate([q_rows, np.arange(a_of.size)]), np.concatenate([q_cols, n_t + n_q + l_of]))),
        shape=(a_of.size, n_var))
    return sparse.vstack([upper, -upper], format="csr"), np.tile(half[a_of], 2)


def _lp_arrays(conditional, marginal, cell_bin, bin_centers):
    """The LP's inputs as float arrays (``cell_bin`` as indices), shared by both formulations."""
    return (np.asarray(conditional, dtype=float), np.asarray(marginal, dtype=float),
            np.asarray(cell_bin, dtype=np.intp), np.asarray(bin_centers, dtype=float))


def _half_widths(alpha, margins, n_groups):
    """Per-group half-widths ``r_a = max(alpha / 2 - m_a, 0)`` of the KS constraints (``m_a = 0`` without margins)."""
    half = np.full(n_groups, float(alpha) / 2.0)
    if margins is not None:
        half = np.maximum(half - np.asarray(margins, dtype=float), 0.0)
    return half


def noise_margins(conditional, group_weights, kernel, cell_noise_sd, n_sd):
    """Per-group KS margins: ``n_sd`` standard deviations of the release noise's effect on each group's induced
    output CDF under ``kernel`` (see "Noise margins" in the module doc). Post-processing of released values.

    Parameters
    ----------
    conditional : ndarray (n_groups, n_cells)
        The released cell distributions ``P_hat(c | a)``.
    group_weights : ndarray (n_groups,)
        The released group masses ``w_a``.
    kernel : sparse or dense (n_cells, k)
        The randomised map ``T`` (rows sum to 1).
    cell_noise_sd : float
        Standard deviation of the noise of one cell of the released joint PMF (public: from ``n``, epsilon, delta).
    n_sd : float >= 0

    Returns
    -------
    ndarray (n_groups,): ``m_a = n_sd (cell_noise_sd / w_a) max_v sqrt(sum_{c : P_hat(c|a) > 0} F_c(v)^2)``, with
    ``F_c(v) = T(<= v | c)`` for ``v < k - 1``; 0 for a group of no released mass (its distribution is unknown and
    stood in for by the uniform one: its constraint stays as without margins).
    """
    conditional = np.asarray(conditional, dtype=float)
    weights = np.asarray(group_weights, dtype=float)
    margins = np.zeros(conditional.shape[0])
    if n_sd == 0 or cell_noise_sd == 0:
        return margins
    dense = kernel.toarray() if sparse.issparse(kernel) else np.asarray(kernel, dtype=float)
    cdf_sq = np.cumsum(dense, axis=1)[:, :-1] ** 2                       # F_c(v)^2, v < k - 1
    for a in range(conditional.shape[0]):
        if weights[a] > 0:
            kept = conditional[a] > 0
            spread = math.sqrt(float(cdf_sq[kept].sum(axis=0).max())) if kept.any() and cdf_sq.shape[1] else 0.0
            margins[a] = n_sd * cell_noise_sd / weights[a] * spread
    return margins


def _solve_blind_cvxpy(conditional, marginal, cell_bin, centers, half, solver):
    """The LP as written (every cell a kernel row, pairwise KS constraints ``|Q_a - Q_b| <= r_a + r_b``: intervals
    on a line meet pairwise iff they share a point, so this is the centre-CDF form), in cvxpy with ``solver``; the
    inputs as :func:`_lp_arrays` returns them.
    """
    import cvxpy as cp

    n_groups, n_cells = conditional.shape
    k = centers.size
    T = cp.Variable((n_cells, k), nonneg=True)
    cost = marginal[:, None] * (centers[None, :] - centers[cell_bin][:, None]) ** 2
    cdfs = (conditional @ T) @ np.triu(np.ones((k, k)))                    # Q_a(v) for every group and point
    constraints = [cp.sum(T, axis=1) == 1]
    empty = np.flatnonzero(marginal <= 0)
    if empty.size:                                                          # no mass: keep the own bin
        constraints.append(T[empty, :] == np.eye(k)[cell_bin[empty]])
    for a in range(n_groups):
        for b in range(a + 1, n_groups):
            constraints.append(cp.abs(cdfs[a, :-1] - cdfs[b, :-1]) <= half[a] + half[b])
    problem = cp.Problem(cp.Minimize(cp.sum(cp.multiply(cost, T))), constraints)
    with np.errstate(invalid="ignore"):     # cvxpy's bound propagation multiplies 0 by the variables' infinite
        problem.solve(solver=solver)        # upper bound (nan, then discarded); the LP itself is unaffected
    if problem.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):     # pragma: no cover - always feasible
        raise RuntimeError(f"The attribute-blind remapping LP failed ({solver}): {problem.status}")
    kernel = np.maximum(T.value, 0.0)
    kernel /= kernel.sum(axis=1, keepdims=True)
    return BlindSolution(sparse.csr_array(kernel), conditional @ kernel, float(problem.value))
