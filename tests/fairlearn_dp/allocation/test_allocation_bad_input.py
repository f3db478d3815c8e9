"""Bad input for the allocation helpers (issue 11): a clear ValueError/TypeError naming the argument, never a
silent negative share, NaN, broadcast or a foreign exception."""

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


class NaNStatistic:
    def __call__(self, rows):
        return np.full(rows.shape, np.nan)


class ColumnStatistic:
    def __call__(self, rows):
        return rows[:, :1]


CASES = [
    # the four from the issue
    (lambda: proportional_allocation([5, -3, 3]), ValueError, "counts must be non-negative"),
    (lambda: proportional_allocation([0, 0, 0]), ValueError, "total > 0"),
    (lambda: proportional_allocation([[1, 2], [0, 0]]), ValueError, "total > 0"),
    (lambda: release_counts(["1", "2"], epsilon=1.0, accountant=BudgetAccountant()), TypeError, "counts"),
    (lambda: release_counts([True, False], epsilon=1.0, accountant=BudgetAccountant()), TypeError, "booleans"),
    (lambda: release_counts(np.array([1, 0], dtype=bool), epsilon=1.0, accountant=BudgetAccountant()), TypeError,
     "counts"),
    (lambda: release_counts("12", epsilon=1.0, accountant=BudgetAccountant()), TypeError, "counts"),
    (lambda: release_counts([1, None], epsilon=1.0, accountant=BudgetAccountant()), TypeError, "counts"),
    (lambda: release_counts([[1, 2], [3]], epsilon=1.0, accountant=BudgetAccountant()), ValueError, "counts"),
    # proportional allocation / weights
    (lambda: proportional_allocation([1, 2], weights=["1", "2"]), TypeError, "weights"),
    (lambda: proportional_allocation([1, 2], weights=[True, True]), TypeError, "weights"),
    (lambda: proportional_allocation([1, 2], weights=[[1.0, 2.0]]), ValueError, "weights"),
    (lambda: proportional_allocation([1, np.nan]), ValueError, "counts"),
    (lambda: proportional_allocation([-1, -2], allow_negative=True), ValueError, "total > 0"),
    (lambda: proportional_allocation([1, 2], allow_negative="yes"), TypeError, "allow_negative"),
    (lambda: BaselineAllocation([True, True]).allocate([1.0, 2.0]), TypeError, "weights"),
    (lambda: ProjectionOntoSimplexAllocation().allocate(["1", "2"]), TypeError, "noisy"),
    (lambda: CostOfPrivacyAllocation(solver=3).allocate([1.0, 2.0]), TypeError, "solver"),
    # projections
    (lambda: project_sum([True, False], public_total=1.0), TypeError, "noisy"),
    (lambda: project_sum([1.0, 2.0], public_total=True), TypeError, "public_total"),
    (lambda: project_sum([1.0, 2.0], public_total=np.nan), ValueError, "public_total"),
    (lambda: project_nonnegative_sum([1.0, 2.0], public_total="3"), TypeError, "public_total"),
    (lambda: project_simplex([1.0, np.inf]), ValueError, "values"),
    (lambda: project_with_invariants([1.0, 2.0], A_eq=[[1.0, 1.0]]), ValueError, "b_eq"),
    (lambda: project_with_invariants([1.0, 2.0], A_eq=[[1.0, 1.0]], b_eq=[np.nan]), ValueError, "finite"),
    (lambda: project_with_invariants([1.0, 2.0], A_ub=[["a", "b"]], b_ub=[1.0]), TypeError, "A_ub"),
    (lambda: project_with_invariants([1.0, 2.0], nonnegative="no"), TypeError, "nonnegative"),
    # evaluation
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"s": NonNegativeSumProjection(3)}, n_draws=10, chunk_size=0),
     ValueError, "chunk_size"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), [NonNegativeSumProjection(3)], n_draws=10), TypeError,
     "statistics"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"s": NonNegativeSumProjection(3)}, n_draws=True), TypeError,
     "n_draws"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"s": NonNegativeSumProjection(3)}, n_draws=10,
                         random_state=-1), ValueError, "random_state"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"s": NonNegativeSumProjection(3)}, n_draws=10,
                         max_chunk_mb=np.nan), ValueError, "max_chunk_mb"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"nan": NaNStatistic()}, n_draws=10), ValueError, "'nan'"),
    (lambda: monte_carlo([1, 2], LaplaceNoise(1.0), {"col": ColumnStatistic()}, n_draws=10), ValueError, "shape"),
    (lambda: bias([1.0, 2.0, 3.0], [1.0]), ValueError, "same shape"),
    (lambda: bias([1.0, np.nan], [1.0, 2.0]), ValueError, "NaN"),
    (lambda: sum_projection_positive_part_bias([1, 5, 9], 0.0), ValueError, "sigma"),
    (lambda: sum_projection_positive_part_bias([1, 5, 9], -2.0), ValueError, "sigma"),
    (lambda: positive_part_bias([True, False], LaplaceNoise(1.0)), TypeError, "counts"),
    (lambda: proposition2_integral(1, 5, 2.0, 2.5), TypeError, "n"),
    (lambda: proposition2_integral(1, 5, "2", 3), TypeError, "sigma"),
    (lambda: proposition2_integral(1, np.inf, 2.0, 3), ValueError, "x_max"),
    (lambda: theorem1_bounds([1, 5, 9], GaussianNoise(2.0), total="abc"), TypeError, "total"),
    (lambda: theorem1_bounds([1, 5, 9], "laplace"), TypeError, "noise"),
    (lambda: NonNegativeSumProjection(-1.0), ValueError, "total"),
    (lambda: LaplaceNoise(True), TypeError, "lam"),
    (lambda: LaplaceNoise(np.inf), ValueError, "lam"),
    (lambda: GaussianNoise("1"), TypeError, "sigma"),
]


@pytest.mark.parametrize("call, error, match", CASES)
def test_bad_input_is_a_clear_error(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_valid_edge_inputs_still_work():
    np.testing.assert_allclose(proportional_allocation([5, 0, 3]), [5 / 8, 0, 3 / 8])
    np.testing.assert_allclose(proportional_allocation([5, -1, 4], allow_negative=True), [5 / 8, -1 / 8, 4 / 8])
    np.testing.assert_allclose(proportional_allocation(np.array([2, 2], dtype=np.uint8)), [0.5, 0.5])
    np.testing.assert_allclose(proportional_allocation(np.array([1, 3], dtype=object)), [0.25, 0.75])
    assert LaplaceNoise(np.int64(3)).lam == 3.0 and GaussianNoise(np.float32(2.0)).sigma == 2.0
    # all-zero noisy counts: the mechanisms' documented uniform split (no NaN)
    for mechanism in (BaselineAllocation(), ProjectionOntoSimplexAllocation()):
        np.testing.assert_allclose(mechanism.allocate([0.0, 0.0, 0.0, 0.0]), 0.25)
    release = release_counts(np.array([0, 3, 2]), epsilon=1.0, accountant=BudgetAccountant(), random_state=0)
    assert release.noisy.shape == (3,)


@pytest.mark.parametrize("option, error", [({"n_draws": 1.5}, TypeError), ({"n_draws": 0}, ValueError),
                                           ({"chunk_size": "10"}, TypeError), ({"n_jobs": 0}, ValueError),
                                           ({"n_jobs": "2"}, ValueError), ({"progress": "yes"}, TypeError),
                                           ({"random_state": -1}, ValueError), ({"max_chunk_mb": 0}, ValueError)])
def test_monte_carlo_option_table_names_the_option(option, error):
    kwargs = {"n_draws": 10, **option}
    with pytest.raises(error, match=next(iter(option))):
        monte_carlo([1, 2], LaplaceNoise(1.0), {"s": NonNegativeSumProjection(3)}, **kwargs)


def test_release_counts_and_the_mechanisms_check_their_parameters_before_the_budget():
    accountant = BudgetAccountant(epsilon=1.0)
    accountant.spend(1.0, 0.0)
    with pytest.raises(TypeError, match="invariant_total"):
        release_counts([1, 2], epsilon=1.0, invariant_total="yes", accountant=accountant)
    with pytest.raises(ValueError, match="random_state"):
        release_counts([1, 2], epsilon=1.0, random_state=-1, accountant=accountant)
    with pytest.raises(TypeError, match="allow_negative"):
        proportional_allocation([1.0, 2.0], allow_negative="no")
