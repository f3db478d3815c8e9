"""The barycenter LP: exact 1-D solver vs the cvxpy LP vs an independent scipy formulation, and known optima."""

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

from fairlearn_dp.postprocessing._barycenter import monotone_coupling, solve_barycenter, transport_cost

# The LP solvers (scipy's and cvxpy's HiGHS) return optima to within HiGHS's default primal and dual feasibility
# tolerances, 1e-7: solver outputs are compared at that tolerance (the exact solver is exact to round-off, far
# tighter), objectives at rel 1e-6: far below what a wrong coupling or barycenter moves (one grid point off costs
# 22 instead of 21 in test_two_diracs_have_the_known_w2_barycenter).
HIGHS_TOLERANCE = 1e-7
EXACT_TOLERANCE = 1e-9          # the exact solver: sums of at most a few hundred masses in [0, 1], round-off only


def _linprog_barycenter(pmfs, weights, alpha, grid):
    """Xian et al.'s LP built independently as a scipy sparse LP: variables [pi_1 .. pi_A (row-major), q]."""
    n_groups, k = pmfs.shape
    n_pi = k * k
    n_var = n_groups * n_pi + k
    cost = np.concatenate([w * transport_cost(grid).ravel() for w in weights] + [np.zeros(k)])
    eq_rows, eq_cols, eq_vals, b_eq = [], [], [], []
    ub_rows, ub_cols, ub_vals, b_ub = [], [], [], []
    row_eq = row_ub = 0
    for a in range(n_groups):
        base = a * n_pi
        for j in range(k):                                    # sum_l pi_a(j, l) = p_a(j)
            eq_rows += [row_eq] * k
            eq_cols += [base + j * k + col for col in range(k)]
            eq_vals += [1.0] * k
            b_eq.append(pmfs[a, j])
            row_eq += 1
        for last in range(k):                                 # +/- sum_{j <= last} (q_a(j) - q(j)) <= alpha / 2
            cols = [base + i * k + m for m in range(last + 1) for i in range(k)] + [n_groups * n_pi + m
                                                                                    for m in range(last + 1)]
            vals = [1.0] * (k * (last + 1)) + [-1.0] * (last + 1)
            for sign in (1.0, -1.0):
                ub_rows += [row_ub] * len(cols)
                ub_cols += cols
                ub_vals += [sign * v for v in vals]
                b_ub.append(alpha / 2)
                row_ub += 1
    a_eq = sparse.csr_matrix((eq_vals, (eq_rows, eq_cols)), shape=(row_eq, n_var))
    a_ub = sparse.csr_matrix((ub_vals, (ub_rows, ub_cols)), shape=(row_ub, n_var))
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    assert result.status == 0
    return result.fun


def _random_instance(rng, sparse_mass=True):
    n_groups = int(rng.integers(2, 5))
    k = int(rng.integers(2, 14))
    pmfs = rng.dirichlet(np.full(k, 0.7), size=n_groups)
    if sparse_mass:                         # exact zeros, as the private re-normalisation produces
        pmfs[pmfs < 0.03] = 0
        pmfs /= pmfs.sum(axis=1, keepdims=True)
    weights = rng.dirichlet(np.ones(n_groups)) * rng.uniform(0.5, 1.0)   # need not sum to 1
    grid = rng.uniform(-2, 2) + (np.arange(k) + 0.5) * rng.uniform(0.1, 1.0)
    return pmfs, weights, grid


def _check_feasible(solution, pmfs, alpha, tol=EXACT_TOLERANCE):
    plans = solution.plans
    assert np.all(plans >= -tol)
    np.testing.assert_allclose(plans.sum(axis=2), pmfs, atol=tol)
    np.testing.assert_allclose(plans.sum(axis=1), solution.targets, atol=tol)
    ks = np.abs(np.cumsum(solution.targets - solution.barycenter, axis=1)).max()
    assert ks <= alpha / 2 + tol
    assert solution.barycenter.min() >= -tol and solution.barycenter.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alpha", [0.0, 0.04, 0.3])
def test_exact_solver_equals_independent_linprog_and_cvxpy(seed, alpha):
    rng = np.random.default_rng(seed)
    pmfs, weights, grid = _random_instance(rng, sparse_mass=seed % 2 == 0)
    exact = solve_barycenter(pmfs, weights, alpha, grid)
    reference = _linprog_barycenter(pmfs, weights, alpha, grid)
    _check_feasible(exact, pmfs, alpha)
    assert exact.objective == pytest.approx(reference, rel=1e-6, abs=HIGHS_TOLERANCE)
    if seed < 4:
        via_cvxpy = solve_barycenter(pmfs, weights, alpha, grid, solver="HIGHS")
        _check_feasible(via_cvxpy, pmfs, alpha, HIGHS_TOLERANCE)
        assert via_cvxpy.objective == pytest.approx(reference, rel=1e-6, abs=HIGHS_TOLERANCE)


def test_two_diracs_have_the_known_w2_barycenter():
    # Diracs at x0 and x1 with weights w0, w1: the W2 barycenter is the Dirac at (w0 x0 + w1 x1) / (w0 + w1) and
    # the cost is w0 w1 (x1 - x0)^2 / (w0 + w1). On grid 0..10 with x0 = 0, x1 = 10, w = (0.3, 0.7): Dirac at 7.
    grid = np.arange(11.0)
    pmfs = np.zeros((2, 11))
    pmfs[0, 0] = pmfs[1, 10] = 1.0
    weights = np.array([0.3, 0.7])
    for solver, tol in (("exact", EXACT_TOLERANCE), ("HIGHS", HIGHS_TOLERANCE)):
        solution = solve_barycenter(pmfs, weights, 0.0, grid, solver=solver)
        assert solution.objective == pytest.approx(0.3 * 0.7 * 100, rel=10 * tol)   # a Dirac at 6 or 8: 22
        np.testing.assert_allclose(solution.barycenter, np.eye(11)[7], atol=tol)


def test_alpha_one_leaves_distributions_unchanged_and_alpha_zero_equalises():
    rng = np.random.default_rng(5)
    pmfs, weights, grid = _random_instance(rng)
    relaxed = solve_barycenter(pmfs, weights, 1.0, grid)
    np.testing.assert_allclose(relaxed.targets, pmfs, atol=1e-12)
    assert relaxed.objective == pytest.approx(0.0, abs=1e-15)
    for plan, p in zip(relaxed.plans, pmfs, strict=False):
        np.testing.assert_allclose(plan, np.diag(p), atol=1e-12)
    exact = solve_barycenter(pmfs, weights, 0.0, grid)
    for target in exact.targets:
        np.testing.assert_allclose(target, exact.barycenter, atol=1e-12)


def test_objective_decreases_with_alpha():
    rng = np.random.default_rng(9)
    pmfs, weights, grid = _random_instance(rng)
    values = [solve_barycenter(pmfs, weights, a, grid).objective for a in (0.0, 0.1, 0.2, 0.5, 1.0)]
    assert all(x >= y - 1e-12 for x, y in zip(values, values[1:], strict=False))


def test_monotone_coupling_has_the_marginals_and_is_monotone():
    rng = np.random.default_rng(2)
    p, q = rng.dirichlet(np.ones(8)), rng.dirichlet(np.ones(8))
    plan = monotone_coupling(p, q)
    np.testing.assert_allclose(plan.sum(axis=1), p, atol=1e-12)
    np.testing.assert_allclose(plan.sum(axis=0), q, atol=1e-12)
    rows, cols = np.nonzero(plan > 1e-14)
    order = np.lexsort((cols, rows))
    assert np.all(np.diff(cols[order]) >= 0)          # support is a staircase: never goes back


@pytest.mark.parametrize("kwargs, error", [
    ({"alpha": 1.5}, ValueError), ({"alpha": -0.1}, ValueError), ({"solver": "NOPE"}, ValueError),
    ({"solver": 3}, TypeError)])
def test_bad_arguments(kwargs, error):
    args = {"pmfs": np.full((2, 3), 1 / 3), "weights": np.ones(2), "alpha": 0.0, "grid": np.arange(3.0)}
    args.update(kwargs)
    with pytest.raises(error):
        solve_barycenter(args.pop("pmfs"), args.pop("weights"), args.pop("alpha"), args.pop("grid"), **args)


# ------------------------------------------------------------------ sparse couplings (issue 14: memory linear in k)
def _dense_north_west_corner(p, q):
    """Textbook north-west corner rule on a dense matrix, independent of the solver's cut-based construction."""
    plan = np.zeros((p.size, q.size))
    p_left, q_left = p.astype(float).copy(), q.astype(float).copy()
    i = j = 0
    while i < p.size and j < q.size:
        moved = min(p_left[i], q_left[j])
        plan[i, j] += moved
        p_left[i] -= moved
        q_left[j] -= moved
        if p_left[i] <= 1e-13:
            i += 1
        else:
            j += 1
    return plan


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alpha", [0.0, 0.04, 0.3, 1.0])
def test_sparse_couplings_equal_the_dense_monotone_couplings(seed, alpha):
    rng = np.random.default_rng(100 + seed)
    pmfs, weights, grid = _random_instance(rng, sparse_mass=seed % 2 == 0)
    solution = solve_barycenter(pmfs, weights, alpha, grid)
    k = grid.size
    assert len(solution.couplings) == pmfs.shape[0]
    for coupling, p, q in zip(solution.couplings, pmfs, solution.targets, strict=True):
        assert sparse.issparse(coupling) and coupling.format == "csr" and coupling.shape == (k, k)
        assert coupling.nnz <= 2 * k - 1
        np.testing.assert_allclose(coupling.toarray(), _dense_north_west_corner(p, q), atol=1e-12)
    np.testing.assert_array_equal(solution.plans, np.stack([c.toarray() for c in solution.couplings]))
    dense_objective = sum(w * np.sum(transport_cost(grid) * plan) for w, plan in zip(weights, solution.plans, strict=False))
    assert solution.objective == pytest.approx(dense_objective, rel=1e-12, abs=1e-15)


def test_cvxpy_solver_returns_sparse_couplings_too():
    rng = np.random.default_rng(3)
    pmfs, weights, grid = _random_instance(rng)
    solution = solve_barycenter(pmfs, weights, 0.1, grid, solver="HIGHS")
    assert all(sparse.issparse(c) and c.shape == (grid.size, grid.size) for c in solution.couplings)
    _check_feasible(solution, pmfs, 0.1, HIGHS_TOLERANCE)


def test_monotone_coupling_is_sparse_with_at_most_2k_minus_1_entries():
    rng = np.random.default_rng(4)
    for k in (1, 2, 50, 3000):
        p, q = rng.dirichlet(np.full(k, 0.5)), rng.dirichlet(np.full(k, 0.5))
        plan = monotone_coupling(p, q)
        assert sparse.issparse(plan) and plan.shape == (k, k) and plan.nnz <= 2 * k - 1
        np.testing.assert_allclose(plan.sum(axis=1), p, atol=1e-12)
        np.testing.assert_allclose(plan.sum(axis=0), q, atol=1e-12)
        if k <= 50:
            np.testing.assert_allclose(plan.toarray(), _dense_north_west_corner(p, q), atol=1e-12)


def test_exact_solver_memory_is_linear_in_k():
    """4 groups at k = 10^4 and 2 * 10^4: the solver's peak allocation about doubles (a k x k array would make it
    quadruple; one such float64 array alone is 3.2 GB at k = 2 * 10^4) and stays within tens of MB."""
    import tracemalloc

    peaks = {}
    for k in (10_000, 20_000):
        rng = np.random.default_rng(k)
        pmfs = rng.dirichlet(np.full(k, 0.5), size=4)
        weights = rng.dirichlet(np.ones(4))
        grid = (np.arange(k) + 0.5) / k
        tracemalloc.start()
        solution = solve_barycenter(pmfs, weights, 0.05, grid)
        peaks[k] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert all(c.shape == (k, k) and c.nnz <= 2 * k - 1 for c in solution.couplings)
    assert peaks[20_000] < 64 * 2**20
    assert peaks[20_000] < 3 * peaks[10_000]
