"""Issue 41: the faster exact solver (merge of sorted breakpoints, coarse-to-fine bisection) releases exactly what
the solver of commit c526cd7 released: digests of its outputs on small seeded inputs, recorded with that commit's
code before the change, by the same cases and digests as below.

The solver's outputs are elementwise arithmetic, cumulative sums and searches (no BLAS, no iterative solver), in the
same order as before, so they are compared bit for bit; the objective (a pairwise ``numpy.sum``) to 1e-12.
"""

import hashlib
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.postprocessing._barycenter import _first_nonnegative, solve_barycenter

# sha256[:16] of (barycenter, targets, each coupling's data/indices/indptr) per "seed-alpha", at commit c526cd7
SOLVER_DIGESTS = {
    "0-0.0": "3f8a8697c9b3676a",
    "0-0.05": "ea82a7b66d629efb",
    "0-0.3": "73d4f28389398e0d",
    "0-1.0": "5cabc6dd282aa9b1",
    "1-0.0": "58ffadb83fc6a739",
    "1-0.05": "fbeefdacb2979a20",
    "1-0.3": "9a7d0ba83b31773e",
    "1-1.0": "aa31e783826972f8",
    "2-0.0": "7763491be5c2d7fe",
    "2-0.05": "326c8b348682e141",
    "2-0.3": "15c201cf1e43c5e6",
    "2-1.0": "492a17984878433e",
    "3-0.0": "e338f7996fab7d95",
    "3-0.05": "4c40c6a40a148b8e",
    "3-0.3": "d3cef4258fbd8375",
    "3-1.0": "34245c3ceb7e79de",
    "4-0.0": "256e7f61d009eafa",
    "4-0.05": "9569fe9ab4328866",
    "4-0.3": "51875ccc07f22be1",
    "4-1.0": "42f1d9fba2b530d4",
    "5-0.0": "ff069c27233df4d9",
    "5-0.05": "226719843bb308af",
    "5-0.3": "8c9d91a6ddedc112",
    "5-1.0": "990ab0c92b2546d8",
    "6-0.0": "4fa7694521dd5dea",
    "6-0.05": "e1f231f4a7d057da",
    "6-0.3": "192a9386703ac3fa",
    "6-1.0": "4b4d42908948ecd2",
    "7-0.0": "94c01cdf34017a3c",
    "7-0.05": "dfe28e5cf1933091",
    "7-0.3": "50c73fa11f8e7835",
    "7-1.0": "46a0c8077d8ef487",
    "8-0.0": "09cc4c36f497433e",
    "8-0.05": "45d7d1fa4d8e6b5f",
    "8-0.3": "eae2de64c30b0e61",
    "8-1.0": "de65abce343c9af2",
    "9-0.0": "566687ebd404935c",
    "9-0.05": "7f0d58cdb8468ef2",
    "9-0.3": "8ecccb23c5f64bbe",
    "9-1.0": "014ea182e149ca96",
    "10-0.0": "f9d3d95fe8e73f03",
    "10-0.05": "7e854667a91dd513",
    "10-0.3": "db0be5270e8cce5d",
    "10-1.0": "49a7d97b1cafd34c",
    "11-0.0": "de4afc219a2d4dc9",
    "11-0.05": "f971ce2fe8f92882",
    "11-0.3": "6b8dc6ded53fdf30",
    "11-1.0": "0026deec445cad53"
}
OBJECTIVES = {
    "0-0.0": 0.0,
    "0-0.05": 0.0,
    "0-0.3": 0.0,
    "0-1.0": 0.0,
    "1-0.0": 0.0010761308150606763,
    "1-0.05": 0.0003950783878821512,
    "1-0.3": 0.0,
    "1-1.0": 0.0,
    "2-0.0": 0.0015302345353545405,
    "2-0.05": 0.00031867138610676274,
    "2-0.3": 0.0,
    "2-1.0": 0.0,
    "3-0.0": 0.008242035557351236,
    "3-0.05": 0.004515265706429406,
    "3-0.3": 0.0,
    "3-1.0": 0.0,
    "4-0.0": 0.009544009646692742,
    "4-0.05": 0.004835567840260267,
    "4-0.3": 1.527007568871683e-06,
    "4-1.0": 0.0,
    "5-0.0": 0.0,
    "5-0.05": 0.0,
    "5-0.3": 0.0,
    "5-1.0": 0.0,
    "6-0.0": 0.0033924894397443406,
    "6-0.05": 0.0015614366894141762,
    "6-0.3": 0.0,
    "6-1.0": 0.0,
    "7-0.0": 0.001262150171747127,
    "7-0.05": 0.0002992692973311942,
    "7-0.3": 0.0,
    "7-1.0": 0.0,
    "8-0.0": 0.011444357697743286,
    "8-0.05": 0.006231356542955606,
    "8-0.3": 0.0,
    "8-1.0": 0.0,
    "9-0.0": 0.011156355581965642,
    "9-0.05": 0.006354053646436244,
    "9-0.3": 4.2454063708789326e-05,
    "9-1.0": 0.0,
    "10-0.0": 0.0,
    "10-0.05": 0.0,
    "10-0.3": 0.0,
    "10-1.0": 0.0,
    "11-0.0": 0.004883668020942072,
    "11-0.05": 0.0032526946700174373,
    "11-0.3": 0.0006190440528049189,
    "11-1.0": 0.0
}
# per "n_bins-alpha": the release (seeded Laplace draws), the solution, and predict's outputs, at commit c526cd7
FIT_DIGESTS = {
    "1-0.0": {
        "release": "e3362685788f84b2",
        "solution": "3456f0ca7a3cb57f",
        "predict": "941967f43dad7a88"
    },
    "7-0.0": {
        "release": "45ad74638d3ca00e",
        "solution": "76718825798f8a01",
        "predict": "083bfe39c2e390d9"
    },
    "50-0.1": {
        "release": "3e4e2c2189f3e890",
        "solution": "1db6a8699b78eae7",
        "predict": "b1413af2a0572d6d"
    },
    "400-0.02": {
        "release": "f187a3e45fd3e89e",
        "solution": "ea25d0dee9764c61",
        "predict": "d286612a9bd22763"
    }
}


def _digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _cases():
    for seed in range(12):
        rng = np.random.default_rng(seed)
        n_groups = 1 + seed % 5
        k = int(rng.integers(1, 60))
        pmfs = rng.exponential(size=(n_groups, k)) * (rng.random((n_groups, k)) < 0.7)
        pmfs[:, 0] += 1e-3
        pmfs /= pmfs.sum(axis=1, keepdims=True)
        weights = rng.random(n_groups)
        for alpha in (0.0, 0.05, 0.3, 1.0):
            yield seed, alpha, pmfs, weights, np.linspace(0, 1, k)


def test_exact_solver_outputs_equal_the_recorded_ones():
    for seed, alpha, pmfs, weights, grid in _cases():
        solution = solve_barycenter(pmfs, weights, alpha, grid)
        arrays = [solution.barycenter, solution.targets]
        for coupling in solution.couplings:
            arrays += [coupling.data, coupling.indices.astype(np.int64), coupling.indptr.astype(np.int64)]
        assert _digest(*arrays) == SOLVER_DIGESTS[f"{seed}-{alpha}"], (seed, alpha)
        assert solution.objective == pytest.approx(OBJECTIVES[f"{seed}-{alpha}"], rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("n_bins", "alpha"), [(1, 0.0), (7, 0.0), (50, 0.1), (400, 0.02)])
def test_seeded_fit_and_predict_equal_the_recorded_ones(n_bins, alpha):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 3000)
    x = np.clip(rng.normal(0.3 + 0.1 * a, 0.15), 0, 1)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pp = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=n_bins, alpha=alpha, groups=[0, 1, 2, 3],
                                           accountant=BudgetAccountant(), random_state=11).fit(x, sensitive_features=a)
        predictions = pp.predict(x, sensitive_features=a, random_state=5)
    plans = [array for coupling in pp.transport_plans_
             for array in (coupling.data, coupling.indices.astype(np.int64), coupling.indptr.astype(np.int64))]
    expected = FIT_DIGESTS[f"{n_bins}-{alpha}"]
    assert _digest(pp.noisy_joint_pmf_) == expected["release"]
    assert _digest(pp.barycenter_, pp.target_pmfs_, *plans) == expected["solution"]
    assert _digest(predictions) == expected["predict"]


@pytest.mark.parametrize("seed", range(20))
def test_first_nonnegative_equals_a_full_scan(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_pieces = int(rng.integers(1, 70)), int(rng.integers(1, 90))
    # slope(j, p) = c_p - d_j with c non-decreasing and d non-decreasing: monotone in both, ties included
    c = np.sort(rng.integers(-5, 6, n_pieces)).astype(float)
    d = np.sort(rng.integers(-5, 6, n_rows)).astype(float)
    answer = _first_nonnegative(lambda rows, pieces: c[pieces] - d[rows], n_rows, n_pieces)
    table = c[None, :] - d[:, None] >= 0
    expected = np.where(table.any(axis=1), table.argmax(axis=1), n_pieces)
    np.testing.assert_array_equal(answer, expected)


@pytest.mark.parametrize("seed", range(6))
def test_row_cumsum_is_each_rows_sequential_cumsum(seed):
    """The column-pass ``_row_cumsum`` gives, bit for bit, ``numpy.cumsum`` of each row (many short rows and a few
    long ones, so that both the passes and the row-by-row finish run)."""
    from fairlearn_dp.postprocessing._transport import _row_cumsum

    rng = np.random.default_rng(seed)
    counts = rng.geometric(0.4, 6000) - 1
    counts[rng.integers(0, counts.size, 3)] = rng.integers(100, 3000, 3)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    values = rng.random(indptr[-1])
    expected = np.concatenate([np.cumsum(values[indptr[r]:indptr[r + 1]]) for r in range(counts.size)])
    assert _row_cumsum(values, indptr).tobytes() == expected.tobytes()


def test_searched_counts_give_the_tabulated_solutions(monkeypatch):
    """Beyond ``_TABULATED_GROUPS`` groups the solver searches its counts instead of tabulating them (memory linear
    in cells): the outputs are the recorded ones on both paths."""
    import fairlearn_dp.postprocessing._barycenter as barycenter

    monkeypatch.setattr(barycenter, "_TABULATED_GROUPS", 0)
    test_exact_solver_outputs_equal_the_recorded_ones()


def test_memory_estimate_is_linear_in_cells_whatever_the_groups():
    from fairlearn_dp.postprocessing._fair_regression import fit_memory_estimate

    per_cell = [fit_memory_estimate(groups, 10**6) / 10**6 for groups in (2, 4, 8, 16, 64, 1000)]
    assert per_cell == sorted(per_cell) and max(per_cell) == 384


def test_count_below_equals_searchsorted_left():
    from fairlearn_dp.postprocessing._barycenter import _count_below

    rng = np.random.default_rng(1)
    for _ in range(200):                                   # ties within and between both arrays, empty arrays
        values = np.sort(rng.integers(0, 20, rng.integers(0, 30)).astype(float))
        keys = np.sort(rng.integers(-2, 22, rng.integers(0, 40)).astype(float))
        np.testing.assert_array_equal(_count_below(values, keys), np.searchsorted(values, keys, side="left"))
