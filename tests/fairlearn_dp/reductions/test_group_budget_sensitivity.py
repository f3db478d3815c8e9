"""Stage 1 of the group-budget estimators: its L2 sensitivities are attained by a neighbour (tight), and no
neighbour exceeds them (docs/privacy_analysis/group_budget.md, "Stage 1")."""

import itertools
import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.reductions import DPGroupBudgetClassifier, DPGroupBudgetRegressor
from fairlearn_dp.reductions._group_budget_stages import gram_upper_sensitivity

# Rounding: each Gram entry is a sum of n = 40 products of size <= U^2 (U <= 2), so the entries of the two exact
# fits differ from the real-number change by at most about n * 2^-52 * U^2 * (a few) < 1e-12; 1e-9 covers it.
ATOL = 1e-9

# The noisy fits only show which sensitivity the ledger declares; whether they fall back does not matter here.
pytestmark = pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")


def _records(n_features, bound, seed=0, n=40):
    """``n`` rows in ``[-U, U]^p`` with two alternating groups; row 0 (group 0) is the all-``U`` row."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-bound, bound, (n, n_features))
    X[0] = bound
    return X, rng.uniform(-1.0, 1.0, n), np.arange(n) % 2


def _exact_stage1(X, y, groups, *, fit_intercept, bound, estimator=DPGroupBudgetRegressor, **params):
    """Stage 1's releases without noise (rho = inf) and the sensitivities the ledger declares for a finite rho."""
    exact = estimator(rho=np.inf, groups=[0, 1], data_bound=bound, fit_intercept=fit_intercept, n_iter=1,
                      **params).fit(X, y, sensitive_features=groups)
    noisy = estimator(rho=1.0, groups=[0, 1], data_bound=bound, fit_intercept=fit_intercept, n_iter=1,
                      accountant=BudgetAccountant(), random_state=0, **params).fit(X, y, sensitive_features=groups)
    declared = [e["l2_sensitivity"] for e in noisy.ledger_.entries if e["stage"] == "stage1"]
    return exact.stage1_statistics_, declared


def _worst_gram_neighbour(X, n_features, fit_intercept):
    """Row 0 is ``U (1, ..., 1)``; the neighbour negates ``m = floor(d / 2)`` of its feature entries (``d``
    columns with the intercept), so ``m (d - m)`` off-diagonal entries move by ``2 U^2`` (d = 1: the row becomes 0).
    """
    d = n_features + int(fit_intercept)
    X_prime = X.copy()
    if d == 1:
        X_prime[0] = 0.0
    else:
        X_prime[0, :d // 2] *= -1
    return X_prime


CASES = [(p, intercept, bound) for p in range(1, 7) for intercept in (True, False) for bound in (1.0, 2.0)]


@pytest.mark.parametrize("n_features, fit_intercept, bound", CASES)
def test_the_worst_neighbour_moves_the_gram_release_by_exactly_its_sensitivity(n_features, fit_intercept, bound):
    X, y, groups = _records(n_features, bound)
    X_prime = _worst_gram_neighbour(X, n_features, fit_intercept)
    released, declared = _exact_stage1(X, y, groups, fit_intercept=fit_intercept, bound=bound)
    released_prime, _ = _exact_stage1(X_prime, y, groups, fit_intercept=fit_intercept, bound=bound)
    d = n_features + int(fit_intercept)
    upper = np.triu_indices(d)
    change = np.linalg.norm(released_prime["gram"][upper] - released["gram"][upper])
    assert declared[0] == pytest.approx(bound ** 2 * math.sqrt(d * d - d % 2 if d > 1 else 1), rel=1e-15)
    assert change == pytest.approx(declared[0], abs=ATOL)


@pytest.mark.parametrize("n_features, fit_intercept, bound", CASES)
def test_a_gram_sensitivity_ten_percent_smaller_is_exceeded(n_features, fit_intercept, bound):
    X, y, groups = _records(n_features, bound)
    X_prime = _worst_gram_neighbour(X, n_features, fit_intercept)
    released, declared = _exact_stage1(X, y, groups, fit_intercept=fit_intercept, bound=bound)
    released_prime, _ = _exact_stage1(X_prime, y, groups, fit_intercept=fit_intercept, bound=bound)
    upper = np.triu_indices(n_features + int(fit_intercept))
    assert np.linalg.norm(released_prime["gram"][upper] - released["gram"][upper]) > 0.9 * declared[0]


@pytest.mark.parametrize("d", range(1, 6))
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_no_pair_of_rows_exceeds_the_gram_sensitivity(d, fit_intercept):
    """Validity, by brute force: every pair of rows with entries in {-1, -1/2, 0, 1/2, 1} (the intercept entry at 1
    when fitted), and random pairs in the box, move the upper triangle by at most the bound."""
    if fit_intercept and d == 1:
        pytest.skip("intercept-only design: its Gram is public (n U^2)")
    free = d - int(fit_intercept)
    grid = np.array(list(itertools.product((-1.0, -0.5, 0.0, 0.5, 1.0), repeat=free)))
    rng = np.random.default_rng(d)
    rows = np.vstack([grid, rng.uniform(-1, 1, (200, free))])
    if fit_intercept:
        rows = np.column_stack([rows, np.ones(len(rows))])
    upper = np.triu_indices(d)
    triangles = (rows[:, :, None] * rows[:, None, :])[:, upper[0], upper[1]]
    squared = (triangles ** 2).sum(1)[:, None] + (triangles ** 2).sum(1)[None, :] - 2 * triangles @ triangles.T
    assert math.sqrt(max(squared.max(), 0.0)) <= gram_upper_sensitivity(d, 1.0) + ATOL


@pytest.mark.parametrize("n_features, fit_intercept", [(1, True), (3, True), (4, False)])
@pytest.mark.parametrize("estimator", [DPGroupBudgetRegressor, DPGroupBudgetClassifier])
def test_the_worst_neighbour_moves_the_moments_by_exactly_their_sensitivity(n_features, fit_intercept, estimator):
    """X^T y: row 0 is ``U (1, ..., 1)`` with ``y = V``, its neighbour the same row with ``y = -V`` (the class
    label flipped): every coordinate moves by ``2 U V``, ``2 sqrt(d) U V`` in all (the bound is unchanged)."""
    bound, target_bound = 2.0, 3.0
    X, y, groups = _records(n_features, bound)
    params = {} if estimator is DPGroupBudgetClassifier else {"target_bound": target_bound}
    V = 1.0 if estimator is DPGroupBudgetClassifier else target_bound
    if estimator is DPGroupBudgetClassifier:
        y = (y > 0).astype(int)
        y[0] = 1
    else:
        y[0] = V
    y_prime = y.copy()
    y_prime[0] = 0 if estimator is DPGroupBudgetClassifier else -V
    released, declared = _exact_stage1(X, y, groups, fit_intercept=fit_intercept, bound=bound, estimator=estimator,
                                       **params)
    released_prime, _ = _exact_stage1(X, y_prime, groups, fit_intercept=fit_intercept, bound=bound,
                                      estimator=estimator, **params)
    d = n_features + int(fit_intercept)
    change = np.linalg.norm(released_prime["moments"] - released["moments"])
    assert declared[1] == pytest.approx(2 * math.sqrt(d) * bound * V, rel=1e-15)
    assert change == pytest.approx(declared[1], abs=ATOL) and change > 0.9 * declared[1]
