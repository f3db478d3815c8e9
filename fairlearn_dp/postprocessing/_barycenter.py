"""Step 2-3 of Xian et al. (2024), Alg. 1: the fixed-support Wasserstein-barycenter LP with KS-ball tolerance.

``LP({p_a}, {w_a}, alpha)`` (Xian et al., Sec. 3.3)::

    minimise   sum_a w_a sum_{j,l} (v_j - v_l)^2 pi_a(j, l)
    subject to sum_l pi_a(j, l) = p_a(j),                    (pi_a couples p_a ...)
               sum_j pi_a(j, l) = q_a(l),                    (... with the target q_a)
               |sum_{j <= l} (q_a(j) - q(j))| <= alpha / 2,  (q_a within KS distance alpha/2 of the barycenter q)
               pi_a >= 0, q >= 0.

Two solvers return the same optimum:

- ``solver="exact"`` (default) exploits that the problem is one-dimensional. For a squared cost on a line the
  optimal coupling is the monotone (quantile) one, and with ``F`` and ``G`` the CDFs of ``p`` and ``q`` on the first
  ``k - 1`` grid points (spacing ``D``)::

      W_2^2(p, q) / D^2 = sum_{i,j} [2 max(F_i, G_j) - max(F_i, F_j) - max(G_i, G_j)]
                        = sum_j [2 chi(G_j) - (2j - 1) G_j] - const(F),     chi(g) = sum_i max(F_i, g),

  using that ``G`` is non-decreasing (derivation: write both quantile functions as ``s + D/2 + D sum_j
  1[F_j < u]`` and integrate the squared difference over ``u``). The objective is therefore separable over ``j``,
  convex and piecewise linear in each ``G_a(j)``, and the KS constraints only couple ``G_a(j)`` with ``Q(j)`` at
  the same ``j``. For fixed ``Q(j)`` the best ``G_a(j)`` is ``clip(F_a(j), Q(j) - alpha/2, Q(j) + alpha/2)``, and
  ``Q(j)`` minimises a convex piecewise-linear function whose slope is
  ``sum_a w_a [min(0, 2 N_a(Q + alpha/2) - (2j - 1)) + max(0, 2 N_a(Q - alpha/2) - (2j - 1))]`` with ``N_a(g) =
  #{i : F_a(i) < g}``. That slope falls with ``j`` at every ``Q``, so the smallest minimisers are non-decreasing in
  ``j`` and the monotonicity constraints of CDFs hold without being imposed. Each ``Q(j)`` is found by bisection
  over the breakpoints ``{F_a(i) -/+ alpha/2} U {0, 1}`` (merged from their ``2 |A|`` sorted runs), coarse to fine
  in ``j``: a row's search is bracketed by the answers of rows already solved on either side (the answers are
  monotone in ``j``), about ``O(|A| (k + #breakpoints))`` slope terms in all instead of ``O(|A| k log(|A| k))``,
  with the same answers. The couplings are then
  the monotone (north-west corner) couplings of ``p_a`` and ``q_a``, returned as sparse CSR matrices: a monotone
  coupling of two PMFs on ``k`` points has at most ``2k - 1`` non-zeros (one per piece between consecutive CDF
  values of ``p`` and ``q``). Memory: ``O(|A| k)`` for the result; the solver's largest temporaries are the counts
  ``N_a`` at every breakpoint, ``|A| x (2 |A| k)`` int32 values twice (about 2.6 MB at ``|A| = 4``, ``k = 10^4``):
  ``16 |A|`` bytes per histogram cell at worst, the group term of the fit's memory bound (``fit_memory_estimate``).
  No ``k x k`` array is built.
- ``solver=<cvxpy solver name>`` (e.g. ``"HIGHS"``) builds the LP above verbatim in cvxpy (``O(k^2 |A|)``
  variables, hence ``O(|A| k^2)`` memory) and solves it with that solver; its couplings are converted to CSR.
  ``tests/fairlearn_dp/postprocessing/test_barycenter.py`` checks that both agree with an independent
  ``scipy.optimize.linprog`` formulation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["BarycenterSolution", "solve_barycenter", "monotone_coupling", "transport_cost"]


@dataclass(frozen=True)
class BarycenterSolution:
    """Optimum of ``LP({p_a}, {w_a}, alpha)``.

    Attributes
    ----------
    barycenter : ndarray of shape (k,)
        ``q``, the centre of the KS balls.
    targets : ndarray of shape (n_groups, k)
        ``q_a``, each group's target PMF.
    couplings : tuple of scipy.sparse.csr_array of shape (k, k)
        ``pi_a``, one per group: optimal couplings of ``p_a`` (rows) and ``q_a`` (columns). From the exact solver,
        at most ``2k - 1`` non-zeros each.
    objective : float
        ``sum_a w_a <C, pi_a>``.
    """

    barycenter: np.ndarray
    targets: np.ndarray
    couplings: tuple
    objective: float

    @property
    def plans(self):
        """The couplings as one dense array of shape (n_groups, k, k): ``|A| k^2`` floats, for small ``k`` only."""
        return np.stack([coupling.toarray() for coupling in self.couplings])


def solve_barycenter(pmfs, weights, alpha, grid, *, solver="exact"):
    """Solve ``LP({p_a}, {w_a}, alpha)`` on the support ``grid`` (Xian et al. 2024, Alg. 1, line 10).

    Parameters
    ----------
    pmfs : array-like of shape (n_groups, k)
        Group PMFs ``p_a`` (non-negative rows summing to 1).
    weights : array-like of shape (n_groups,)
        Non-negative group weights ``w_a``.
    alpha : float
        KS tolerance in ``[0, 1]``; targets lie within ``alpha / 2`` of the barycenter.
    grid : array-like of shape (k,)
        Increasing, equally spaced support points ``v_j``.
    solver : str, default="exact"
        ``"exact"`` for the structure-exploiting solver, or the name of an installed cvxpy solver for the plain LP.

    Returns
    -------
    BarycenterSolution
    """
    pmfs = np.atleast_2d(np.asarray(pmfs, dtype=float))
    weights = np.asarray(weights, dtype=float)
    grid = np.asarray(grid, dtype=float)
    n_groups, k = pmfs.shape
    if weights.shape != (n_groups,) or grid.shape != (k,):
        raise ValueError("weights must have one entry per group and grid one entry per bin.")
    if np.any(pmfs < 0) or not np.allclose(pmfs.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("pmfs must be non-negative and each row must sum to 1.")
    if np.any(weights < 0) or not np.all(np.isfinite(weights)):
        raise ValueError("weights must be finite and non-negative.")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}.")
    if not isinstance(solver, str):
        raise TypeError(f"solver must be a string, got {type(solver).__name__}.")
    if solver == "exact":
        return _solve_exact_1d(pmfs, weights, float(alpha), grid)
    return _solve_cvxpy(pmfs, weights, float(alpha), grid, solver)


def transport_cost(grid):
    """The dense cost matrix ``C[j, l] = (v_j - v_l)^2`` (``k^2`` floats: used by the cvxpy LP only)."""
    grid = np.asarray(grid, dtype=float)
    return (grid[:, None] - grid[None, :]) ** 2


def _cdf(pmfs):
    """CDFs at the first ``k - 1`` grid points, made exactly non-decreasing and inside [0, 1]."""
    cdf = np.cumsum(pmfs, axis=-1)[..., :-1]
    return np.clip(np.maximum.accumulate(cdf, axis=-1), 0.0, 1.0)


def monotone_coupling(p, q):
    """The monotone (quantile, north-west corner) coupling of two PMFs on the same ordered support.

    It is the optimal coupling for any convex cost of ``v_j - v_l`` on a line. Returns a ``(k_p, k_q)``
    ``scipy.sparse.csr_array`` with row sums ``p`` and column sums ``q`` and at most ``k_p + k_q - 1`` non-zeros:
    one per piece of ``[0, 1]`` between consecutive values of the two CDFs, the piece's length being the mass moved
    (``O(k log k)`` time, ``O(k)`` memory).
    """
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    k_p, k_q = p.size, q.size
    cdf_p = np.append(_cdf(p), 1.0)
    cdf_q = np.append(_cdf(q), 1.0)
    cuts = _sorted_unique([np.zeros(1), cdf_p, cdf_q])
    lengths = np.diff(cuts)                                   # > 0: the cuts are distinct
    mids = 0.5 * (cuts[:-1] + cuts[1:])
    # Every CDF value is a cut, so the row and column are constant on a piece, and at least one of them moves up
    # at each cut: the (row, column) pairs are distinct and already in row-major (CSR) order.
    rows = np.minimum(np.searchsorted(cdf_p, mids, side="left"), k_p - 1)
    cols = np.minimum(np.searchsorted(cdf_q, mids, side="left"), k_q - 1)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=k_p))])
    return sparse.csr_array((lengths, cols, indptr), shape=(k_p, k_q))


def _coupling_cost(coupling, grid):
    """``<C, pi> = sum (v_j - v_l)^2 pi(j, l)`` over the non-zeros of a CSR coupling."""
    rows = np.repeat(np.arange(coupling.shape[0]), np.diff(coupling.indptr))
    return float(np.sum((grid[rows] - grid[coupling.indices]) ** 2 * coupling.data))


def _solve_exact_1d(pmfs, weights, alpha, grid):
    """The structure-exploiting exact solver (see the module docstring for the derivation)."""
    n_groups, k = pmfs.shape
    if k == 1:
        couplings = tuple(sparse.csr_array(np.ones((1, 1))) for _ in range(n_groups))
        return BarycenterSolution(np.ones(1), np.ones((n_groups, 1)), couplings, 0.0)
    half = alpha / 2.0
    cdfs = _cdf(pmfs)                                        # F_a(j), j = 1..k-1
    breakpoints = _sorted_unique([np.zeros(1), *np.clip(cdfs - half, 0.0, 1.0), *np.clip(cdfs + half, 0.0, 1.0),
                                  np.ones(1)])
    mids = 0.5 * (breakpoints[:-1] + breakpoints[1:])        # one point inside each linear piece
    n_pieces = mids.size
    counts_at = _breakpoint_counts(cdfs, mids, half)
    two_j_minus_1 = 2 * np.arange(1, k, dtype=np.int64) - 1

    def slope(j_rows, pieces):
        total = np.zeros(j_rows.size)
        odd = two_j_minus_1[j_rows]
        for a in range(n_groups):          # fixed summation order keeps the slope exactly monotone in j
            n_above, n_below = counts_at(a, pieces)
            up = 2 * n_above - odd
            down = 2 * n_below - odd
            total = total + weights[a] * (np.minimum(up, 0) + np.maximum(down, 0))
        return total

    # Q(j) is the left breakpoint of the first piece whose slope is >= 0 (index n_pieces: the breakpoint 1.0).
    lo = _first_nonnegative(slope, k - 1, n_pieces)
    bary_cdf = breakpoints[lo]                                # index n_pieces is the breakpoint 1.0
    target_cdfs = np.clip(cdfs, bary_cdf - half, bary_cdf + half)
    barycenter = np.diff(np.concatenate([[0.0], bary_cdf, [1.0]]))
    targets = np.diff(np.concatenate([np.zeros((n_groups, 1)), target_cdfs, np.ones((n_groups, 1))], axis=1), axis=1)
    couplings = tuple(monotone_coupling(pmfs[a], targets[a]) for a in range(n_groups))
    objective = float(sum(weights[a] * _coupling_cost(couplings[a], grid) for a in range(n_groups)))
    return BarycenterSolution(barycenter, targets, couplings, objective)


# Up to this many groups the solver's counts N_a are tabulated at every piece (16 |A| bytes per histogram cell);
# beyond, they are searched at the pieces each bisection step asks for, so that memory stays linear in cells.
_TABULATED_GROUPS = 8


def _breakpoint_counts(cdfs, mids, half):
    """``counts_at(a, pieces)``: ``N_a(g) = #{i : F_a(i) < g}`` at ``g = mids[pieces] +/- half``, as two arrays.

    With at most ``_TABULATED_GROUPS`` groups both counts are tabulated once for every piece (int32: counts < k);
    with more, each call searches ``cdfs[a]`` at the asked pieces only. The values are the same either way.
    """
    n_groups, n_pieces = cdfs.shape[0], mids.size
    if n_groups > _TABULATED_GROUPS:
        def search(a, pieces):
            at = mids[pieces]
            return (np.searchsorted(cdfs[a], at + half, side="left"),
                    np.searchsorted(cdfs[a], at - half, side="left"))
        return search
    n_above = np.empty((n_groups, n_pieces), dtype=np.int32)
    n_below = np.empty((n_groups, n_pieces), dtype=np.int32)
    shifted_up, shifted_down = mids + half, mids - half
    for a in range(n_groups):
        n_above[a] = _count_below(cdfs[a], shifted_up)
        n_below[a] = _count_below(cdfs[a], shifted_down)
    return lambda a, pieces: (n_above[a, pieces], n_below[a, pieces])


def _count_below(values, keys):
    """``numpy.searchsorted(values, keys, side="left")`` for non-decreasing ``values`` and ``keys``: the number of
    values below each key, found by placing the (fewer) values among the keys and counting, in integers.

    ``values[i] < keys[p]`` exactly when ``p >= #{q : keys[q] <= values[i]}``, so the count at ``p`` is the number of
    values whose place is at most ``p``: ``len(values)`` searches instead of ``len(keys)``.
    """
    places = np.searchsorted(keys, values, side="right")
    return np.cumsum(np.bincount(places, minlength=keys.size + 1)[:keys.size])


def _sorted_unique(runs):
    """The distinct values of non-decreasing 1-D float arrays, ascending: ``numpy.unique`` of their concatenation.

    A stable sort of the concatenation is a merge of its sorted runs (timsort), ``O(n log(#runs))`` rather than a
    full sort; repeats are then dropped as ``numpy.unique`` drops them, so the result is the same array.
    """
    values = np.sort(np.concatenate(runs), kind="stable")
    keep = np.empty(values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]


def _first_nonnegative(slope, n_rows, n_pieces):
    """For each row ``j``, the first piece ``p`` with ``slope(j, p) >= 0`` (``n_pieces`` if none).

    ``slope`` must be non-decreasing in ``p`` and non-increasing in ``j``, so the answers are non-decreasing in
    ``j``. Rows are solved coarse to fine: at stride ``s`` (a power of two, halved each round) the rows ``j`` with
    ``j + 1`` an odd multiple of ``s`` are bisected inside ``[answer(j - s), answer(j + s)]``, already known (0 and
    ``n_pieces`` beyond the ends). Each answer is the exact first non-negative piece, as a bisection over all
    pieces would find it, in about ``O(n_rows + n_pieces)`` evaluations of ``slope`` in all instead of
    ``O(n_rows log n_pieces)``.
    """
    answer = np.empty(n_rows, dtype=np.intp)
    stride = 1 << max(n_rows.bit_length() - 1, 0)
    while stride >= 1:
        rows = np.arange(stride - 1, n_rows, 2 * stride)
        left, right = rows - stride, rows + stride
        lo = np.where(left >= 0, answer[np.maximum(left, 0)], 0)
        hi = np.where(right < n_rows, answer[np.minimum(right, n_rows - 1)], n_pieces)
        while rows.size:
            done = lo >= hi
            answer[rows[done]] = lo[done]
            rows, lo, hi = rows[~done], lo[~done], hi[~done]
            mid = (lo + hi) // 2
            nonneg = slope(rows, mid) >= 0
            hi = np.where(nonneg, mid, hi)
            lo = np.where(nonneg, lo, mid + 1)
        stride //= 2
    return answer


def _solve_cvxpy(pmfs, weights, alpha, grid, solver):
    """The LP of Xian et al. (Sec. 3.3) written verbatim in cvxpy."""
    import cvxpy as cp

    if solver not in cp.installed_solvers():
        raise ValueError(f"solver must be 'exact' or an installed cvxpy solver {cp.installed_solvers()}, "
                         f"got {solver!r}.")
    n_groups, k = pmfs.shape
    cost = transport_cost(grid)
    plans = [cp.Variable((k, k), nonneg=True) for _ in range(n_groups)]
    barycenter = cp.Variable(k, nonneg=True)
    constraints = []
    objective = 0
    for a in range(n_groups):
        target = cp.sum(plans[a], axis=0)
        constraints += [cp.sum(plans[a], axis=1) == pmfs[a],
                        cp.abs(cp.cumsum(target - barycenter)) <= alpha / 2]
        objective = objective + weights[a] * cp.sum(cp.multiply(cost, plans[a]))
    # The paper only asks q >= 0; adding sum(q) = 1 does not change the optimum (replacing q's CDF Q by min(Q, 1)
    # with a final 1 keeps every KS constraint, because each q_a's CDF lies in [0, 1] and ends at 1).
    constraints.append(cp.sum(barycenter) == 1)
    problem = cp.Problem(cp.Minimize(objective), constraints)
    problem.solve(solver=solver)
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"The barycenter LP was not solved to optimality (status {problem.status!r}).")
    plan_values = np.stack([np.clip(p.value, 0.0, None) for p in plans])
    bary = np.clip(barycenter.value, 0.0, None)
    couplings = tuple(sparse.csr_array(plan) for plan in plan_values)
    return BarycenterSolution(bary, plan_values.sum(axis=1), couplings, float(problem.value))
