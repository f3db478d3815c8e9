"""Issue 41: the faster exact solver (merge of sorted breakpoints, coarse-to-fine bisection) releases exactly what
the solver of commit c526cd7 released: its outputs on small seeded inputs, recorded with that commit's code
(``barycenter_recorded_c526cd7.npz``). The sparsity structure is compared exactly, the floats to 1e-12 relative (the
same arithmetic in the same order, but another CPU's vectorised loops may round differently).
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.postprocessing._barycenter import _first_nonnegative, solve_barycenter

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
#: The outputs of commit c526cd7's code on the cases below (checked there against digests of its own outputs before the
#: change): the solver's per "seed-alpha" and the seeded fit's per "n_bins-alpha" (release, solution, predictions).
RECORDED = np.load(Path(__file__).parent / "barycenter_recorded_c526cd7.npz")


def _assert_recorded(key, arrays):
    """Integer arrays (the couplings' sparsity structure) equal; floats within 1e-12 relative: the same arithmetic in
    the same order, but numpy's vectorised loops may round differently on another CPU (CI), so not bit for bit."""
    for name, value in arrays.items():
        expected = RECORDED[f"{key}/{name}"]
        if expected.dtype.kind in "iu":
            np.testing.assert_array_equal(value, expected, err_msg=f"{key}/{name}")
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-15, err_msg=f"{key}/{name}")


def _coupling_arrays(couplings):
    arrays = {}
    for i, coupling in enumerate(couplings):
        arrays.update({f"coupling{i}/data": coupling.data, f"coupling{i}/indices": coupling.indices.astype(np.int64),
                       f"coupling{i}/indptr": coupling.indptr.astype(np.int64)})
    return arrays


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
        _assert_recorded(f"solver/{seed}-{alpha}", {"barycenter": solution.barycenter, "targets": solution.targets,
                                                    **_coupling_arrays(solution.couplings)})
        assert solution.objective == pytest.approx(OBJECTIVES[f"{seed}-{alpha}"], rel=1e-12, abs=1e-15)


def _seeded_fit(n_bins, alpha):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 3000)
    x = np.clip(rng.normal(0.3 + 0.1 * a, 0.15), 0, 1)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pp = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=n_bins, alpha=alpha, groups=[0, 1, 2, 3],
                                           accountant=BudgetAccountant(), random_state=11).fit(x, sensitive_features=a)
        predictions = pp.predict(x, sensitive_features=a, random_state=5)
    return pp, predictions


@pytest.mark.parametrize(("n_bins", "alpha"), [(1, 0.0), (7, 0.0), (50, 0.1), (400, 0.02)])
def test_seeded_fit_and_predict_equal_the_recorded_ones(n_bins, alpha):
    pp, predictions = _seeded_fit(n_bins, alpha)
    _assert_recorded(f"fit/{n_bins}-{alpha}", {"release": pp.noisy_joint_pmf_, "barycenter": pp.barycenter_,
                                              "targets": pp.target_pmfs_, "predict": predictions,
                                              **_coupling_arrays(pp.transport_plans_)})


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
