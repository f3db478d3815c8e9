"""Census release and allocation (Zhu et al. 2022): projections, mechanisms, Theorems 1-3, Monte Carlo, release."""

import math

import cvxpy as cp
import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.allocation import (
    BaselineAllocation,
    CostOfPrivacyAllocation,
    GaussianNoise,
    LaplaceNoise,
    ProjectionOntoSimplexAllocation,
    monte_carlo,
    project_nonnegative_sum,
    proportional_allocation,
    release_counts,
)
from fairlearn_dp.allocation._evaluation import (
    NonNegativeSumProjection,
    bias,
    positive_part_bias,
    proposition2_integral,
    sum_projection_positive_part_bias,
    theorem1_bounds,
)
from fairlearn_dp.allocation._projections import project_simplex, project_sum, project_with_invariants
from fairlearn_dp.metrics import alpha_fairness, cost_of_privacy
from fairlearn_dp.privacy import PrivacySpend

HIGHS_TOLERANCE = 1e-7          # HiGHS's default primal / dual feasibility tolerance


def random_vectors(seed, rows=30):
    rng = np.random.default_rng(seed)
    out = []
    for r in range(rows):
        n = int(rng.integers(1, 40))
        v = rng.normal(size=n) * rng.uniform(0.1, 20) + rng.uniform(-10, 10)
        if r % 5 == 0:
            v = -np.abs(v) - 0.1                       # all negative
        out.append((v, float(rng.uniform(0.5, 50))))
    return out


@pytest.mark.parametrize("seed", range(3))
def test_nonnegative_sum_projection_satisfies_constraints_and_matches_cvxpy(seed):
    for v, total in random_vectors(seed):
        fast = project_nonnegative_sum(v, public_total=total)
        assert fast.min() >= 0 and abs(fast.sum() - total) <= 1e-9 * max(1.0, total)
        exact = project_with_invariants(v, public_total=total)
        np.testing.assert_allclose(fast, exact, atol=1e-9 * max(1.0, total))
        # Lemma 2: pi_S+ = (pi_S - T)_+ for one scalar T >= 0.
        pi_s = project_sum(v, public_total=total)
        T = (pi_s - fast)[fast > 0].mean()
        assert T >= -1e-9
        np.testing.assert_allclose(fast, np.maximum(pi_s - T, 0.0), atol=1e-9 * max(1.0, np.abs(v).max()))


def test_sum_projection_closed_form_and_batching():
    rng = np.random.default_rng(1)
    batch = rng.normal(size=(7, 12)) * 5
    projected = project_sum(batch, public_total=10.0)
    np.testing.assert_allclose(projected.sum(axis=1), 10.0, atol=1e-12)
    np.testing.assert_allclose(projected,
                               [project_with_invariants(r, public_total=10.0, nonnegative=False) for r in batch],
                               atol=1e-6)
    np.testing.assert_allclose(project_nonnegative_sum(batch, public_total=10.0),
                               [project_nonnegative_sum(r, public_total=10.0) for r in batch], atol=1e-12)
    assert project_simplex(np.array([-1.0, -2.0, -3.0])) == pytest.approx([1.0, 0.0, 0.0])


def test_projection_with_hierarchical_invariants():
    noisy = np.array([3.2, -0.5, 4.1, 2.2])
    A = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])            # two counties' sums published
    v = project_with_invariants(noisy, A_eq=A, b_eq=[3.0, 6.0])
    np.testing.assert_allclose(A @ v, [3.0, 6.0], atol=1e-6)
    assert v.min() >= -1e-8
    with pytest.raises(ValueError, match="infeasible"):
        project_with_invariants(noisy, public_total=5.0, A_eq=A, b_eq=[3.0, 6.0])


@pytest.mark.parametrize("seed", range(8))
def test_pos_is_the_unique_optimum_of_p_alpha(seed):
    """Theorem 2: pi_PoS solves min_{v in simplex} max_i (v - p)_i - min_i (v - p)_i, uniquely."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 40, 15).astype(float)
    noisy = counts + rng.laplace(0, 8, 15)
    weights = rng.uniform(0.5, 2.0, 15)
    if (noisy * weights).sum() <= 0:
        pytest.skip("weighted noisy total not positive for this draw")
    p = proportional_allocation(noisy, weights, allow_negative=True)
    pos = ProjectionOntoSimplexAllocation(weights).allocate(noisy)
    v, hi, lo = cp.Variable(15, nonneg=True), cp.Variable(), cp.Variable()
    problem = cp.Problem(cp.Minimize(hi - lo), [cp.sum(v) == 1, v - p <= hi, v - p >= lo])
    problem.solve(solver="HIGHS")
    # HiGHS returns an optimum to within its default primal and dual feasibility tolerances, 1e-7 (measured:
    # 4e-16); moving one coordinate 1e-4 away from PoS raises the optimum by >= 7.7e-6 on these seeds (below).
    assert np.ptp(pos - p) == pytest.approx(problem.value, abs=HIGHS_TOLERANCE)
    # Uniqueness: adding "stay at distance >= 1e-4 from PoS in some coordinate" makes the optimum worse (by more
    # than the error of two solves).
    for i in range(15):
        for sign in (1, -1):
            worse = cp.Problem(cp.Minimize(hi - lo), [cp.sum(v) == 1, v - p <= hi, v - p >= lo,
                                                     sign * (v[i] - pos[i]) >= 1e-4])
            worse.solve(solver="HIGHS")
            assert worse.status == cp.INFEASIBLE or worse.value > problem.value + 2 * HIGHS_TOLERANCE


@pytest.mark.parametrize("seed", range(5))
def test_pos_and_baseline_solve_the_cost_of_privacy_program(seed):
    """Theorem 3: PoS is an optimum of P_CoP; so is BL when sum a_j x~_j > 0."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 30, 10).astype(float)
    noisy = counts + rng.laplace(0, 6, (4, 10))
    weights = rng.uniform(0.5, 2.0, 10)
    defined = (noisy * weights).sum(axis=1) > 0
    p = proportional_allocation(noisy[defined], weights, allow_negative=True)
    l1 = {m.name: np.abs(m.allocate(noisy[defined]) - p).sum(axis=1)
          for m in (BaselineAllocation(weights), ProjectionOntoSimplexAllocation(weights),
                    CostOfPrivacyAllocation(weights))}
    np.testing.assert_allclose(l1["PoS"], l1["CoP"], atol=1e-8)
    np.testing.assert_allclose(l1["BL"], l1["CoP"], atol=1e-8)


def test_mechanisms_return_simplex_allocations_and_handle_undefined_totals():
    noisy = np.array([[5.0, -2.0, 3.0], [-1.0, -2.0, -3.0]])
    for mechanism in (BaselineAllocation(), ProjectionOntoSimplexAllocation()):
        shares = mechanism.allocate(noisy)
        np.testing.assert_allclose(shares.sum(axis=1), 1.0)
        assert shares.min() >= 0
        np.testing.assert_allclose(shares[1], 1 / 3)        # undefined formula -> uniform, as documented
    np.testing.assert_allclose(BaselineAllocation([1.0, 1.0, 2.0]).allocate(noisy[0]), [5 / 11, 0, 6 / 11])


def small_instance():
    return np.array([2.0, 5.0, 12.0, 30.0, 80.0, 250.0])


@pytest.mark.parametrize("noise", [LaplaceNoise(10.0), GaussianNoise(25.0)])
def test_theorem1_bounds_contain_the_empirical_alpha(noise):
    x = small_instance()
    result = monte_carlo(x, noise, {"pi_S+": NonNegativeSumProjection(x.sum())}, n_draws=200_000, random_state=3)
    b = bias(result.means["pi_S+"], x)
    alpha = np.ptp(b)
    slack = 4 * (result.std_errors["pi_S+"][0] + result.std_errors["pi_S+"][-1])   # MC error of the estimate
    bounds = theorem1_bounds(x, noise, n_draws=200_000, random_state=4)
    assert bounds["method"] == ("exact" if isinstance(noise, GaussianNoise) else "monte_carlo")
    slack += 4 * bounds["std_errors"]["upper_lemma3"]
    assert bounds["lower"] - slack <= alpha <= bounds["upper_lemma3"] + slack
    assert bounds["upper_lemma3"] <= bounds["upper"] + slack
    assert bounds["upper"] <= x.max() - x.min()
    assert alpha > 0                                       # Example 2: not at the centroid -> unfair


def test_proposition2_integral_equals_the_closed_form():
    x = small_instance()
    sigma = 25.0
    closed = sum_projection_positive_part_bias(x, sigma)
    value, (low, high) = proposition2_integral(x.min(), x.max(), sigma, x.size)
    assert value == pytest.approx(closed[0] - closed[-1], rel=1e-9)
    assert low <= value <= high


@pytest.mark.parametrize("noise", [LaplaceNoise(7.0), GaussianNoise(9.0)])
def test_exact_positive_part_bias_matches_monte_carlo(noise):
    x = np.array([0.0, 3.0, 10.0, 40.0])

    class PositivePart:
        def __call__(self, rows):
            return np.maximum(rows, 0.0)

    result = monte_carlo(x, noise, {"pos": PositivePart()}, n_draws=100_000, random_state=0)
    estimate = bias(result.means["pos"], x)
    assert np.all(np.abs(estimate - positive_part_bias(x, noise)) <= 5 * result.std_errors["pos"] + 1e-12)


def test_cost_of_privacy_is_half_the_l1_bias_for_simplex_mechanisms():
    x = np.array([0.0, 2.0, 5.0, 9.0, 40.0, 120.0])
    truth = proportional_allocation(x)
    result = monte_carlo(x, LaplaceNoise(5.0), {"BL": BaselineAllocation(), "PoS": ProjectionOntoSimplexAllocation()},
                         n_draws=20_000, random_state=1)
    for name in ("BL", "PoS"):
        expected = result.means[name]
        assert expected.sum() == pytest.approx(1.0)
        assert cost_of_privacy(truth, expected, budget=6.5e9) == pytest.approx(
            cost_of_privacy(truth, expected, budget=6.5e9, form="l1"), rel=1e-9)
    assert alpha_fairness(truth, result.means["PoS"]) < alpha_fairness(truth, result.means["BL"])


@pytest.mark.parametrize("shape", [(100, 2000), (200_000,)], ids=["short_rows", "long_rows"])
def test_laplace_simulation_draws_have_the_laplace_distribution(shape):
    """LaplaceNoise.sample (simulation path; rows shorter than 2,048 draws: lam (E1 - E2), longer: lam S E, a random
    sign times an exponential): the empirical CDF of 200,000 draws is within the DKW band of Laplace(0, lam) at
    level 1e-6 (sup |F_n - F| <= sqrt(ln(2e6) / (2 n)) = 0.0060), any shape works, and the stream is read row by row
    (two rows drawn apart equal the same two rows drawn together)."""
    lam, n = 3.0, 200_000
    rng = np.random.Generator(np.random.PCG64(11))
    draws = np.sort(LaplaceNoise(lam).sample(rng, shape).ravel())
    cdf = np.where(draws < 0, 0.5 * np.exp(draws / lam), 1 - 0.5 * np.exp(-draws / lam))
    steps = np.arange(1, n + 1) / n
    sup = max(np.max(np.abs(steps - cdf)), np.max(np.abs(steps - 1 / n - cdf)))
    assert sup <= math.sqrt(math.log(2e6) / (2 * n))
    assert np.ndim(LaplaceNoise(lam).sample(rng, ())) == 0
    assert LaplaceNoise(lam).sample(rng, 5).shape == (5,)
    assert LaplaceNoise(lam).sample(rng, (3, 0)).shape == (3, 0) and LaplaceNoise(lam).sample(rng, (0, 4)).size == 0
    cube = LaplaceNoise(lam).sample(np.random.Generator(np.random.PCG64(5)), (2, 3, 4))
    np.testing.assert_array_equal(cube.reshape(6, 4),
                                  LaplaceNoise(lam).sample(np.random.Generator(np.random.PCG64(5)), (6, 4)))
    together = LaplaceNoise(lam).sample(np.random.Generator(np.random.PCG64(3)), (2, 7))
    rng_apart = np.random.Generator(np.random.PCG64(3))
    apart = np.vstack([LaplaceNoise(lam).sample(rng_apart, (1, 7)), LaplaceNoise(lam).sample(rng_apart, (1, 7))])
    np.testing.assert_array_equal(together, apart)


def test_monte_carlo_is_reproducible_and_independent_of_n_jobs():
    x = np.arange(30.0)
    stats = {"PoS": ProjectionOntoSimplexAllocation()}
    one = monte_carlo(x, LaplaceNoise(3.0), stats, n_draws=5000, chunk_size=700, random_state=9, n_jobs=1)
    two = monte_carlo(x, LaplaceNoise(3.0), stats, n_draws=5000, chunk_size=700, random_state=9, n_jobs=2)
    again = monte_carlo(x, LaplaceNoise(3.0), stats, n_draws=5000, chunk_size=700, random_state=9)
    np.testing.assert_array_equal(one.means["PoS"], two.means["PoS"])
    np.testing.assert_array_equal(one.means["PoS"], again.means["PoS"])
    other = monte_carlo(x, LaplaceNoise(3.0), stats, n_draws=5000, chunk_size=700, random_state=10)
    assert not np.array_equal(one.means["PoS"], other.means["PoS"])


def test_release_counts_uses_the_stated_laplace_scale_and_charges_once():
    acc = BudgetAccountant()
    counts = np.zeros(40_000, dtype=int)
    release = release_counts(counts, epsilon=0.5, accountant=acc, random_state=0)
    noisy = release.noisy
    assert release.spend == PrivacySpend(0.5) and acc.spent_budget == [(0.5, 0.0)]
    assert release.neighbouring == "add/remove" and release.public_total is None
    scale = 1 / 0.5
    assert abs(np.mean(np.abs(noisy)) - scale) < 5 * scale / math.sqrt(noisy.size)
    gaussian = BudgetAccountant()
    noisy = release_counts(counts, epsilon=1.0, delta=1e-6, accountant=gaussian, random_state=0).noisy
    sigma = GaussianNoise.from_epsilon(1.0, 1e-6).sigma
    assert abs(noisy.std() - sigma) < 5 * sigma / math.sqrt(2 * noisy.size)
    assert LaplaceNoise.from_epsilon(0.01).lam == pytest.approx(100.0)


@pytest.mark.parametrize("call, error, match", [
    (lambda: release_counts([3, -1, 2], epsilon=1.0, accountant=BudgetAccountant()), ValueError, "non-negative"),
    (lambda: release_counts([3, 1.5], epsilon=1.0, accountant=BudgetAccountant()), ValueError, "integers"),
    (lambda: release_counts([3, 1], epsilon=0, accountant=BudgetAccountant()), ValueError, "epsilon"),
    (lambda: release_counts([], epsilon=1.0, accountant=BudgetAccountant()), ValueError, "non-empty"),
    (lambda: BaselineAllocation([1.0, 0.0]).allocate([1.0, 2.0]), ValueError, "weights"),
    (lambda: ProjectionOntoSimplexAllocation([1.0]).allocate([1.0, 2.0]), ValueError, "length mismatch"),
    (lambda: theorem1_bounds([1, 5, 9], GaussianNoise(2.0), total=20), ValueError, "contradicts"),
    (lambda: project_nonnegative_sum([1.0, 2.0], public_total=0.0), ValueError, "total"),
    (lambda: project_sum([], public_total=1.0), ValueError, "non-empty"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {}, n_draws=10), ValueError, "statistic"),
    (lambda: LaplaceNoise(-1.0), ValueError, "lam"),
])
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()
