"""Monte Carlo in cache-sized batches: the same sums, bit for bit, whatever the batch size, and the projection core
gives the same numbers as the plain Michelot iteration and as rows projected one at a time."""

import numpy as np
import pytest

from fairlearn_dp.allocation import (
    BaselineAllocation,
    GaussianNoise,
    LaplaceNoise,
    ProjectionOntoSimplexAllocation,
    project_nonnegative_sum,
)
from fairlearn_dp.allocation._evaluation import (
    NegativePartOfSumProjection,
    NonNegativeSumProjection,
    ProjectionShift,
    _chunk_sums,
)
from fairlearn_dp.allocation._release import _laplace_scratch
from fairlearn_dp.privacy._projection import nonnegative_sum_rows as _nonnegative_sum_rows


def _statistics(total, weights):
    return {"BL": BaselineAllocation(weights), "PoS": ProjectionOntoSimplexAllocation(weights),
            "plus": NonNegativeSumProjection(total), "shift": ProjectionShift(total),
            "negative": NegativePartOfSumProjection(total)}


def _whole_chunk(counts, noise, statistics, n_rows, seed):
    """The chunk evaluated in one piece: one draw of all rows, numpy's axis-0 sums."""
    rng = np.random.Generator(np.random.PCG64(seed))
    noisy = counts[None, :] + noise.sample(rng, (n_rows, counts.size))
    return {name: (values.sum(axis=0), np.square(values).sum(axis=0))
            for name, values in ((name, statistic(noisy)) for name, statistic in statistics.items())}


@pytest.mark.parametrize("noise, size", [(LaplaceNoise(4.0), 257), (LaplaceNoise(4.0), 2100), (GaussianNoise(3.0), 257)],
                         ids=["laplace", "laplace_long_rows", "gaussian"])
def test_chunk_sums_do_not_depend_on_the_batch_size(noise, size):
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 30, size).astype(float)
    weights = rng.uniform(0.5, 2.0, counts.size)
    seed = np.random.SeedSequence(5).spawn(2)[1]
    for w in (None, weights):
        statistics = _statistics(counts.sum(), w)
        expected = _whole_chunk(counts, noise, statistics, 61, seed)
        for batch_rows in (1, 2, 7, 60, 61, 500, None):
            got = _chunk_sums(counts, noise, statistics, 61, seed, batch_rows=batch_rows)
            for name in statistics:
                np.testing.assert_array_equal(got[name][0], expected[name][0], err_msg=f"{name} {batch_rows}")
                np.testing.assert_array_equal(got[name][1], expected[name][1], err_msg=f"{name} {batch_rows}")


def _michelot_reference(rows, total):
    """The plain iteration (every active row re-read, the kept sum computed again at the end)."""
    theta = (rows.sum(axis=1) - total) / rows.shape[1]
    kept = np.full(rows.shape[0], rows.shape[1])
    mask = np.ones(rows.shape, dtype=bool)
    active = np.ones(rows.shape[0], dtype=bool)
    while active.any():
        index = np.flatnonzero(active)
        sub = rows[index]
        above = sub > theta[index, None]
        count = above.sum(axis=1)
        lost = count == 0
        if lost.any():
            above[lost] = sub[lost] == sub[lost].max(axis=1, keepdims=True)
            count = above.sum(axis=1)
        theta[index] = (np.where(above, sub, 0.0).sum(axis=1) - total) / count
        mask[index] = above
        changed = count != kept[index]
        kept[index] = count
        active[index[~changed]] = False
    mean_kept = np.where(mask, rows, 0.0).sum(axis=1) / kept
    return np.where(mask, np.maximum(rows - mean_kept[:, None] + (total / kept)[:, None], 0.0), 0.0)


def test_projection_core_equals_the_plain_iteration_and_is_row_independent():
    rng = np.random.default_rng(3)
    rows = np.concatenate([rng.normal(0, 3, (40, 333)), rng.laplace(5, 50, (40, 333)),
                           np.full((1, 333), 2.0), np.zeros((1, 333))])
    rows[3, 7] = 1e30
    for total in (1.0, 5.0, 1e4):
        expected = _michelot_reference(rows, total)
        np.testing.assert_array_equal(_nonnegative_sum_rows(rows, total), expected)
        one_at_a_time = np.vstack([_nonnegative_sum_rows(row[None, :], total) for row in rows])
        np.testing.assert_array_equal(one_at_a_time, expected)
        np.testing.assert_array_equal(project_nonnegative_sum(rows, public_total=total), expected)


def test_projection_core_with_rows_stopping_together_separately_and_lost():
    """The whole-vector bookkeeping (every row still iterating), the switch to per-row bookkeeping when some rows
    stop before others, and a first set that rounding empties (theta at the largest entries) give the plain
    iteration's numbers, whatever rows are passed together."""
    rng = np.random.default_rng(8)
    census_like = rng.laplace(20, 50, (6, 400))             # similar rows: they stop in the same round
    mixed = np.vstack([census_like[:3], rng.normal(0, 3, (3, 400)), np.full((1, 400), 2.0)])
    for rows, total in ((census_like, 1.0), (mixed, 1.0), (mixed, 1e-310), (np.full((2, 5), 2.0), 1e-300)):
        expected = _michelot_reference(rows, total)
        np.testing.assert_array_equal(_nonnegative_sum_rows(rows, total), expected)
        np.testing.assert_array_equal(np.vstack([_nonnegative_sum_rows(row[None, :], total) for row in rows]),
                                      expected)


def test_mechanisms_fall_back_to_their_checks_when_a_total_overflows():
    """BL's and PoS's batch paths skip their finiteness scans only when the totals prove them needless: a weighted
    total that overflows (BL) or shares that overflow (PoS) still give the uniform split for that row."""
    big = np.finfo(float).max / 2
    with np.errstate(over="ignore", invalid="ignore"):      # numpy's overflow warnings: the inputs are extreme
        bl = BaselineAllocation([4.0, 1.0, 1.0]).allocate([big, big, 1.0])
        rows = np.array([[big, -big, 1e-10], [3.0, -1.0, 2.0]])  # first row: total 1e-10, shares +-inf
        shares = ProjectionOntoSimplexAllocation().allocate(rows)
    np.testing.assert_array_equal(bl, np.full(3, 1 / 3))
    np.testing.assert_array_equal(shares[0], np.full(3, 1 / 3))
    np.testing.assert_array_equal(shares[1], ProjectionOntoSimplexAllocation().allocate(rows[1]))


@pytest.mark.parametrize("rows", [1, 3])
@pytest.mark.parametrize("n", [11, 2047, 2048, 2100])                  # both sides of _SIGN_BIT_MIN_LENGTH
def test_laplace_sample_into_gives_the_sampled_numbers(rows, n):
    noise = LaplaceNoise(3.0)
    expected = noise.sample(np.random.default_rng(4), (rows, n))
    got = noise._sample_into(np.random.default_rng(4), np.empty((rows, n)), _laplace_scratch(n))
    np.testing.assert_array_equal(got, expected)
