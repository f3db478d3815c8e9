"""Attribute-blind DP fair regression post-processing (group_estimator=): LP, guarantee, privacy, bad input."""

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import PrivacyWarning, UtilityWarning
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.postprocessing._blind import (
    cell_distributions,
    n_posterior_cells,
    noise_margins,
    posterior_buckets,
    solve_blind_remap,
)

# HiGHS (scipy's linprog and cvxpy's) returns optima to within its default primal and dual feasibility tolerances,
# 1e-7: optima of different solves are compared at that tolerance (objectives at rel 1e-6); the same LP solved
# twice gives the same result. The objectives here are >= 1e-3 unless alpha makes them 0.
HIGHS_TOLERANCE = 1e-7


def _ks(p, q):
    return float(np.max(np.abs(np.cumsum(p) - np.cumsum(q))))


def _random_instance(rng, n_groups=3, k=6, n_buckets=3):
    n_cells = k * n_buckets
    conditional = rng.dirichlet(np.full(n_cells, 0.5), size=n_groups)
    conditional[:, rng.choice(n_cells, 2, replace=False)] = 0.0          # some empty cells
    conditional /= conditional.sum(axis=1, keepdims=True)
    weights = rng.dirichlet(np.ones(n_groups))
    marginal = weights @ conditional
    return conditional, marginal, np.repeat(np.arange(k), n_buckets), np.linspace(0.05, 0.95, k)


def _dense_reference_lp(conditional, marginal, cell_bin, centers, alpha, margins=None):
    """The LP written again in the test, densely: every cell a kernel row (empty cells fixed to their own bin),
    pairwise KS constraints between groups (``|Q_a - Q_b| <= r_a + r_b``, ``r = max(alpha/2 - m, 0)``), solved by
    scipy.optimize.linprog. Returns the optimum."""
    from scipy.optimize import linprog

    n_groups, n_cells = conditional.shape
    k = centers.size
    cost = (marginal[:, None] * (centers[None, :] - centers[cell_bin][:, None]) ** 2).ravel()
    rows_eq, b_eq = [], []
    for c in range(n_cells):                                   # sum_v T(v | c) = 1
        row = np.zeros(n_cells * k)
        row[c * k:(c + 1) * k] = 1.0
        rows_eq.append(row)
        b_eq.append(1.0)
    for c in np.flatnonzero(marginal <= 0):                    # empty cells keep their own bin
        row = np.zeros(n_cells * k)
        row[c * k + cell_bin[c]] = 1.0
        rows_eq.append(row)
        b_eq.append(1.0)
    half = np.maximum(alpha / 2 - (np.zeros(n_groups) if margins is None else np.asarray(margins)), 0.0)
    rows_ub, b_ub = [], []
    for a in range(n_groups):
        for b in range(n_groups):
            if a == b:
                continue
            for v in range(k - 1):                             # Q_a(v) - Q_b(v) <= r_a + r_b
                row = np.zeros((n_cells, k))
                row[:, :v + 1] = (conditional[a] - conditional[b])[:, None]
                rows_ub.append(row.ravel())
                b_ub.append(half[a] + half[b])
    result = linprog(cost, A_ub=np.array(rows_ub), b_ub=np.array(b_ub), A_eq=np.array(rows_eq),
                     b_eq=np.array(b_eq), bounds=(0, None), method="highs")
    assert result.status == 0
    return result.fun


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_lp_agrees_with_an_independent_dense_formulation(seed, alpha):
    conditional, marginal, cell_bin, centers = _random_instance(np.random.default_rng(seed))
    solution = solve_blind_remap(conditional, marginal, cell_bin, centers, alpha)
    reference = _dense_reference_lp(conditional, marginal, cell_bin, centers, alpha)
    assert solution.objective == pytest.approx(reference, rel=1e-6, abs=HIGHS_TOLERANCE)


@pytest.mark.parametrize("seed", range(2))
def test_solver_option_solves_the_lp_as_written_in_cvxpy(seed):
    """``solver="HIGHS"`` (the cvxpy formulation) reaches the same optimum, and its kernel meets the constraints."""
    conditional, marginal, cell_bin, centers = _random_instance(np.random.default_rng(seed))
    solution = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1)
    written = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1, solver="HIGHS")
    assert solution.objective == pytest.approx(written.objective, rel=1e-6, abs=HIGHS_TOLERANCE)
    for a in range(3):
        for b in range(a + 1, 3):
            assert _ks(written.targets[a], written.targets[b]) <= 0.1 + 1e-7


@pytest.mark.parametrize("seed", range(3))
def test_margins_tighten_each_group_in_all_three_formulations(seed):
    """Per-group margins: the sparse LP, the cvxpy LP and the test's dense LP reach one optimum; the released
    pairwise KS is at most r_a + r_b with r = max(alpha/2 - m, 0) (one margin above alpha/2: that group is pinned
    to the centre CDF); margins of 0 give the untightened LP, and tightening never lowers the optimum."""
    conditional, marginal, cell_bin, centers = _random_instance(np.random.default_rng(seed))
    margins = np.array([0.0, 0.03, 0.2])                      # r = (0.05, 0.02, 0)
    tightened = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1, margins=margins)
    written = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1, solver="HIGHS", margins=margins)
    reference = _dense_reference_lp(conditional, marginal, cell_bin, centers, 0.1, margins)
    assert tightened.objective == pytest.approx(reference, rel=1e-6, abs=HIGHS_TOLERANCE)
    assert written.objective == pytest.approx(reference, rel=1e-6, abs=HIGHS_TOLERANCE)
    half = [0.05, 0.02, 0.0]
    for a in range(3):
        for b in range(a + 1, 3):
            assert _ks(tightened.targets[a], tightened.targets[b]) <= half[a] + half[b] + 1e-7
    plain = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1)
    zero = solve_blind_remap(conditional, marginal, cell_bin, centers, 0.1, margins=np.zeros(3))
    assert zero.objective == pytest.approx(plain.objective, abs=1e-12)
    assert tightened.objective >= plain.objective - 2 * HIGHS_TOLERANCE


def test_noise_margins_formula():
    """m_a = z (sigma / w_a) max_v sqrt(sum over the cells kept for a of F_c(v)^2), written out with loops."""
    rng = np.random.default_rng(5)
    conditional, marginal, cell_bin, centers = _random_instance(rng, n_groups=3, k=5, n_buckets=2)
    conditional[1, :3] = 0.0
    conditional[1] /= conditional[1].sum()
    kernel = rng.dirichlet(np.ones(5), size=conditional.shape[1])
    weights = np.array([0.5, 0.3, 0.0])
    got = noise_margins(conditional, weights, kernel, cell_noise_sd=0.01, n_sd=1.5)
    for a in range(2):
        best = 0.0
        for v in range(4):
            total = sum(kernel[c, :v + 1].sum() ** 2 for c in range(conditional.shape[1]) if conditional[a, c] > 0)
            best = max(best, math.sqrt(total))
        assert got[a] == pytest.approx(1.5 * 0.01 / weights[a] * best, rel=1e-12)
    assert got[2] == 0.0                                        # no released mass: unknown, left as without margins
    np.testing.assert_array_equal(noise_margins(conditional, weights, kernel, 0.0, 1.5), 0.0)
    np.testing.assert_array_equal(noise_margins(conditional, weights, kernel, 0.01, 0.0), 0.0)


@pytest.mark.parametrize("alpha", [0.0, 0.05, 0.3])
def test_released_distributions_satisfy_ks_parity_and_the_map_is_a_kernel(alpha):
    conditional, marginal, cell_bin, centers = _random_instance(np.random.default_rng(7), n_groups=4)
    solution = solve_blind_remap(conditional, marginal, cell_bin, centers, alpha)
    kernel = solution.kernel.toarray()
    assert np.all(kernel >= 0) and np.allclose(kernel.sum(axis=1), 1.0)
    np.testing.assert_allclose(solution.targets, conditional @ kernel, atol=1e-12)
    for a in range(4):
        for b in range(a + 1, 4):
            assert _ks(solution.targets[a], solution.targets[b]) <= alpha + 1e-7
    empty = np.flatnonzero(marginal == 0)
    np.testing.assert_array_equal(kernel[empty, cell_bin[empty]], 1.0)        # empty cells keep their own bin


def test_alpha_one_leaves_binned_outputs_unchanged():
    conditional, marginal, cell_bin, centers = _random_instance(np.random.default_rng(3))
    solution = solve_blind_remap(conditional, marginal, cell_bin, centers, 1.0)
    assert solution.objective == pytest.approx(0.0, abs=HIGHS_TOLERANCE)


def test_one_hot_posterior_recovers_the_attribute_aware_optimum():
    """With a posterior that reveals the group exactly (two groups), cells are (bin, group) and the blind LP is the
    aware LP: at epsilon = inf both post-processors reach the same optimum."""
    rng = np.random.default_rng(0)
    n = 4000
    groups = rng.integers(0, 2, n)
    outputs = np.clip(rng.normal(0.4 + 0.2 * groups, 0.15), 0, 1)

    class Oracle(ClassifierMixin, BaseEstimator):        # posterior = one-hot of the group hidden in column 1
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def predict_proba(self, X):
            column = np.asarray(X)[:, 1].astype(int)
            return np.eye(2)[column]

    for alpha in (0.0, 0.1):
        params = {"epsilon": math.inf, "bounds": (0, 1), "n_bins": 12, "alpha": alpha, "groups": [0, 1]}
        aware = DPFairRegressionPostprocessor(**params, accountant=BudgetAccountant()).fit(
            outputs[:, None], sensitive_features=groups)
        blind = DPFairRegressionPostprocessor(**params, group_estimator=Oracle().fit(None, None), posterior_buckets=2,
                                              prefit=True,
                                              accountant=BudgetAccountant()).fit(
            np.column_stack([outputs, groups]), sensitive_features=groups)
        assert blind.objective_ == pytest.approx(aware.objective_, rel=1e-6, abs=HIGHS_TOLERANCE)


def _law_like(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 3, n)
    feature = rng.normal(groups, 1.0)
    outputs = np.clip(rng.normal(0.3 + 0.2 * groups, 0.1), 0, 1)
    X = np.column_stack([outputs, feature])
    group_estimator = LogisticRegression().fit(np.column_stack([rng.normal(0.5, 0.2, 600),
                                                                rng.normal(np.arange(600) % 3, 1.0)]),
                                               np.arange(600) % 3)
    return X, groups, group_estimator


def _blind(group_estimator, **params):
    defaults = {"epsilon": 1.0, "bounds": (0, 1), "n_bins": 10, "alpha": 0.05, "groups": [0, 1, 2], "prefit": True,
                    "accountant": BudgetAccountant(), "random_state": 0}
    defaults.update(params)
    return DPFairRegressionPostprocessor(group_estimator=group_estimator, **defaults)


def test_fit_predict_needs_no_sensitive_features_and_is_reproducible():
    X, groups, group_estimator = _law_like()
    model = _blind(group_estimator).fit(X, sensitive_features=groups)
    first = model.predict(X, random_state=3)
    np.testing.assert_array_equal(first, model.predict(X, random_state=3))
    np.testing.assert_array_equal(first, _blind(group_estimator).fit(X, sensitive_features=groups)
                                  .predict(X, random_state=3))
    assert set(np.unique(first)) <= set(model.bin_centers_)
    assert model.noisy_joint_pmf_.shape == (3, 10 * model.n_posterior_buckets_)
    assert model.remap_.shape == (10 * model.n_posterior_buckets_, 10)
    assert model.privacy_spent_.epsilon == 1.0 and not hasattr(model, "transport_plans_")
    pmf = model._pmf_predict(X[:5])
    np.testing.assert_allclose(pmf.sum(axis=1), 1.0)


def test_population_parity_obeys_the_module_bound_at_epsilon_inf():
    """The guarantee of ``_blind.py`` on fresh data, checked term by term at epsilon = inf (the release is then the
    exact fitting PMF): in sample the induced KS is at most alpha; on a test sample, the map's induced output
    distributions (test cell distribution of each group times ``remap_``) are within KS ``alpha + TV_a + TV_b``,
    with ``TV`` the measured total variation between the fitting and test cell distributions; and the sampled
    predictions' KS is within two Hoeffding terms (union bound over the points, failure probability 1e-3 per group) of the
    induced one."""
    from fairlearn_dp.metrics import ks_statistical_parity

    alpha = 0.05
    X, groups, group_estimator = _law_like(n=20000, seed=1)
    X_test, groups_test, _ = _law_like(n=20000, seed=2)
    model = _blind(group_estimator, epsilon=math.inf, alpha=alpha).fit(X, sensitive_features=groups)
    kernel = model.remap_.toarray()

    def induced(X_, groups_):
        rows = model._kernel_rows(X_, None)
        cells = np.array([np.bincount(rows[groups_ == g], minlength=kernel.shape[0]) / np.sum(groups_ == g)
                          for g in range(3)])
        return cells, cells @ kernel

    fit_cells, fit_q = induced(X, groups)
    np.testing.assert_allclose(fit_cells, model.cell_pmfs_, atol=1e-12)        # the exact release at inf
    test_cells, test_q = induced(X_test, groups_test)
    tv = 0.5 * np.abs(test_cells - fit_cells).sum(axis=1)
    induced_ks = 0.0
    for a in range(3):
        for b in range(a + 1, 3):
            assert _ks(fit_q[a], fit_q[b]) <= alpha + 1e-7
            assert _ks(test_q[a], test_q[b]) <= alpha + tv[a] + tv[b] + 1e-9
            induced_ks = max(induced_ks, _ks(test_q[a], test_q[b]))
    sampled = ks_statistical_parity(X_test[:, 0], model.predict(X_test, random_state=0),
                                    sensitive_features=groups_test)
    # Each row's output is drawn independently from its cell's kernel row (independent, not identically
    # distributed), so per group and point Hoeffding, with a union bound over the k - 1 = 9 points, bounds the
    # deviation of the sampled CDF from the induced one: sqrt(ln(2 (k - 1) / 1e-3) / (2 n_a)), for two groups.
    hoeffding = math.sqrt(math.log(2 * 9 / 1e-3) / (2 * np.bincount(groups_test).min()))
    assert abs(sampled - induced_ks) <= 2 * hoeffding
    raw = ks_statistical_parity(X_test[:, 0], X_test[:, 0], sensitive_features=groups_test)
    assert raw > 0.5 and sampled < raw / 2


def test_neighbouring_datasets_move_one_count_between_two_cells():
    """Sensitivity: substituting one record changes the exact released PMF by at most 2/n in L1 (epsilon = inf
    releases the exact PMF)."""
    X, groups, group_estimator = _law_like(n=500)
    rng = np.random.default_rng(5)
    for _ in range(20):
        i = rng.integers(500)
        X_prime, groups_prime = X.copy(), groups.copy()
        X_prime[i] = (rng.random(), rng.normal(0, 2))
        groups_prime[i] = rng.integers(0, 3)
        pmf = _blind(group_estimator, epsilon=math.inf).fit(X, sensitive_features=groups).noisy_joint_pmf_
        pmf_prime = _blind(group_estimator, epsilon=math.inf).fit(
            X_prime, sensitive_features=groups_prime).noisy_joint_pmf_
        assert np.abs(pmf - pmf_prime).sum() <= 2 / 500 + 1e-12


def test_noise_scale_is_two_over_n_epsilon():
    """The release's noise: Laplace of scale 2/(n epsilon) per cell (mean absolute deviation = scale)."""
    X, groups, group_estimator = _law_like(n=400)
    exact = _blind(group_estimator, epsilon=math.inf).fit(X, sensitive_features=groups).noisy_joint_pmf_
    deviations = np.concatenate([
        (_blind(group_estimator, epsilon=0.5, random_state=seed).fit(X, sensitive_features=groups)
         .noisy_joint_pmf_ - exact).ravel() for seed in range(20)])
    scale = 2 / (400 * 0.5)
    # mean |Laplace(b)| = b, sd = b; 20 x 3 x 10 x B cells: five standard errors
    assert abs(np.abs(deviations).mean() - scale) < 5 * scale / math.sqrt(deviations.size)


def test_fit_margins_come_from_the_public_noise_scale_and_the_untightened_solution():
    """The fit's margins: the per-cell noise sd is public (Laplace sqrt 2 * 2/(n epsilon); analytic Gaussian sigma),
    the margins are noise_margins of the untightened solution (the fit with noise_margin=0 and the same seed), and
    the released KS then respects the tightened half-widths. At epsilon = inf there is no margin."""
    from diffprivlib.mechanisms import GaussianAnalytic

    X, groups, group_estimator = _law_like(n=1500)
    plain = _blind(group_estimator, noise_margin=0.0).fit(X, sensitive_features=groups)
    model = _blind(group_estimator).fit(X, sensitive_features=groups)
    np.testing.assert_array_equal(plain.noisy_joint_pmf_, model.noisy_joint_pmf_)
    assert model.cell_noise_sd_ == pytest.approx(math.sqrt(2) * 2 / (1500 * 1.0), rel=1e-12)
    np.testing.assert_array_equal(plain.ks_margins_, 0.0)
    expected = noise_margins(plain.cell_pmfs_, plain.group_weights_, plain.remap_, model.cell_noise_sd_, 1.0)
    np.testing.assert_allclose(model.ks_margins_, expected, rtol=1e-12)
    assert np.all(model.ks_margins_ > 0) and model.objective_ >= plain.objective_ - 2 * HIGHS_TOLERANCE
    half = np.maximum(0.05 / 2 - model.ks_margins_, 0.0)
    for a in range(3):
        for b in range(a + 1, 3):
            assert _ks(model.target_pmfs_[a], model.target_pmfs_[b]) <= half[a] + half[b] + 1e-7
    gaussian = _blind(group_estimator, delta=1e-6).fit(X, sensitive_features=groups)
    sigma = math.sqrt(GaussianAnalytic(epsilon=1.0, delta=1e-6, sensitivity=math.sqrt(2) / 1500).variance(0.0))
    assert gaussian.cell_noise_sd_ == pytest.approx(sigma, rel=1e-12)
    exact = _blind(group_estimator, epsilon=math.inf).fit(X, sensitive_features=groups)
    exact_plain = _blind(group_estimator, epsilon=math.inf, noise_margin=0.0).fit(X, sensitive_features=groups)
    assert exact.cell_noise_sd_ == 0.0
    np.testing.assert_array_equal(exact.ks_margins_, 0.0)
    np.testing.assert_array_equal(exact.remap_.toarray(), exact_plain.remap_.toarray())


def _unequal_groups(n, seed=0):
    """Three groups of unequal sizes (60/30/10%): margins then differ by group and, at n = 3000 and
    four posterior buckets, between 0.009 and 0.051: with alpha = 0.12 each binds without pinning its group."""
    rng = np.random.default_rng(seed)
    groups = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    X = np.column_stack([np.clip(rng.normal(0.3 + 0.2 * groups, 0.1), 0, 1), rng.normal(groups, 1.0)])
    group_estimator = LogisticRegression().fit(np.column_stack([rng.normal(0.5, 0.2, 600),
                                                                rng.normal(np.arange(600) % 3, 1.0)]),
                                               np.arange(600) % 3)
    return X, groups, group_estimator


def test_the_fit_solves_the_lp_with_its_own_margins_scaled_by_noise_margin():
    """Where the margins bind but do not pin (0 < m_a < alpha/2, different per group): the fitted map is the LP's
    optimum with exactly ``ks_margins_`` in group order (the margins reversed give another optimum), and the margins
    scale linearly with ``noise_margin`` (same release, same untightened solution)."""
    X, groups, group_estimator = _unequal_groups(3000)
    params = {"alpha": 0.12, "posterior_buckets": 4}
    model = _blind(group_estimator, **params).fit(X, sensitive_features=groups)
    margins = model.ks_margins_
    assert np.all((margins > 0) & (margins < 0.06)) and len(set(np.round(margins, 6))) == 3
    _, conditional, marginal = cell_distributions(model.noisy_joint_pmf_)
    cell_bin = np.repeat(np.arange(10), model.n_posterior_buckets_)
    own = solve_blind_remap(conditional, marginal, cell_bin, model.bin_centers_, 0.12, margins=margins)
    reversed_ = solve_blind_remap(conditional, marginal, cell_bin, model.bin_centers_, 0.12, margins=margins[::-1])
    assert model.objective_ == pytest.approx(own.objective, rel=1e-9)
    assert abs(reversed_.objective - own.objective) > 1e-3 * own.objective
    scaled = _blind(group_estimator, noise_margin=2.5, **params).fit(X, sensitive_features=groups)
    np.testing.assert_allclose(scaled.ks_margins_, 2.5 * margins, rtol=1e-12)


def test_gaussian_release_has_the_noise_sd_the_margins_assume():
    """delta > 0: the release's cell noise has standard deviation ``cell_noise_sd_`` (the analytic Gaussian's
    sigma), measured against the exact PMF over 20 seeds: sample sd within five standard errors (sd of a sample
    sd ~ sigma / sqrt(2 N)) and mean within five (sigma / sqrt(N))."""
    X, groups, group_estimator = _law_like(n=400)
    exact = _blind(group_estimator, epsilon=math.inf).fit(X, sensitive_features=groups).noisy_joint_pmf_
    fits = [_blind(group_estimator, epsilon=0.5, delta=1e-6, random_state=seed).fit(X, sensitive_features=groups)
            for seed in range(20)]
    deviations = np.concatenate([(fit.noisy_joint_pmf_ - exact).ravel() for fit in fits])
    sigma = fits[0].cell_noise_sd_
    n = deviations.size
    assert abs(deviations.std() - sigma) < 5 * sigma / math.sqrt(2 * n)
    assert abs(deviations.mean()) < 5 * sigma / math.sqrt(n)


def test_margins_lower_the_in_sample_ks_of_the_true_cells():
    """What the margins are for: the induced KS of the fitting data's own (noise-free) cell distributions under the
    fitted map. Over 12 seeds at epsilon = 0.5 it exceeds alpha on average without margins; the margins lower its
    mean (fails if they do nothing; here every margin exceeds alpha/2, so which group gets which is checked by
    test_the_fit_solves_the_lp_with_its_own_margins_scaled_by_noise_margin). On every seed it obeys the bound
    KS_true(a, b) <= r_a + r_b + TV_a + TV_b (released half-widths plus the total variation between each group's
    true and released cell distributions: a Markov kernel does not increase TV)."""
    X, groups, group_estimator = _law_like(n=1500)
    exact = _blind(group_estimator, epsilon=math.inf).fit(X, sensitive_features=groups)
    true_cells = exact.cell_pmfs_                           # the exact in-sample cell distributions

    def in_sample(model):
        targets = true_cells @ model.remap_.toarray()
        tv = 0.5 * np.abs(true_cells - model.cell_pmfs_).sum(axis=1)
        half = np.maximum(0.05 / 2 - model.ks_margins_, 0.0)
        pairs = [(a, b) for a in range(3) for b in range(a + 1, 3)]
        for a, b in pairs:
            assert _ks(targets[a], targets[b]) <= half[a] + half[b] + tv[a] + tv[b] + 1e-9
        return max(_ks(targets[a], targets[b]) for a, b in pairs)

    plain, tight = [], []
    for seed in range(12):
        plain.append(in_sample(_blind(group_estimator, epsilon=0.5, noise_margin=0.0,
                                      random_state=seed).fit(X, sensitive_features=groups)))
        tight.append(in_sample(_blind(group_estimator, epsilon=0.5, random_state=seed).fit(
            X, sensitive_features=groups)))
    assert np.mean(plain) > 0.05
    assert np.mean(tight) < np.mean(plain), (np.mean(tight), np.mean(plain))


def test_group_weights_and_cell_distributions_use_the_release_only():
    noisy = np.array([[0.2, -0.01, 0.1, 0.0], [-0.3, -0.1, 0.05, 0.02]])
    mass, conditional, marginal = cell_distributions(noisy)
    np.testing.assert_allclose(mass, [0.29, 0.0])
    np.testing.assert_allclose(conditional.sum(axis=1), 1.0)
    assert np.all(conditional >= 0)
    np.testing.assert_allclose(conditional[1], 0.25)                     # no mass: uniform
    np.testing.assert_allclose(marginal, conditional[0])


def test_posterior_buckets():
    two = np.array([[0.95, 0.05], [0.5, 0.5], [0.0, 1.0]])
    np.testing.assert_array_equal(posterior_buckets(two, 10), [0, 5, 9])
    four = np.array([[0.25, 0.25, 0.25, 0.25], [0.05, 0.05, 0.1, 0.8], [0.0, 0.0, 0.0, 1.0], [0.7, 0.1, 0.1, 0.1]])
    levels = math.ceil(10 / 4)
    assert n_posterior_cells(4, 10) == 4 * levels
    buckets = posterior_buckets(four, 10)
    # geometric levels: floor(log2((1 - 1/4) / (1 - p_top))), clipped to [0, levels - 1]
    assert buckets[0] == 0                                   # p_top = 1/4: level 0
    assert buckets[1] == 3 * levels + 1                      # log2(0.75 / 0.2) = 1.9
    assert buckets[2] == 3 * levels + levels - 1             # p_top = 1: the last level
    assert buckets[3] == 0 * levels + 1                      # log2(0.75 / 0.3) = 1.3


def test_estimator_solver_option_reaches_the_same_optimum():
    X, groups, group_estimator = _law_like(n=2000)
    exact = _blind(group_estimator).fit(X, sensitive_features=groups)
    written = _blind(group_estimator, solver="HIGHS").fit(X, sensitive_features=groups)
    np.testing.assert_array_equal(exact.noisy_joint_pmf_, written.noisy_joint_pmf_)       # same seed, same release
    assert written.objective_ == pytest.approx(exact.objective_, rel=1e-6, abs=HIGHS_TOLERANCE)


def test_clone_and_get_params():
    _, _, group_estimator = _law_like()
    model = _blind(group_estimator, posterior_buckets=4, noise_margin=0.5)
    params = clone(model).get_params()
    assert params["posterior_buckets"] == 4 and params["group_estimator"] is not None
    assert params["noise_margin"] == 0.5


# ------------------------------------------------------------------------------------------------ bad input
class NoProba:
    classes_ = np.array([0, 1, 2])

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize("params, error, match", [
    ({"group_estimator": NoProba()}, TypeError, "predict_proba"),
    ({"posterior_buckets": 0}, ValueError, "posterior_buckets"),
    ({"posterior_buckets": 2.5}, TypeError, "posterior_buckets"),
    ({"noise_margin": -0.5}, ValueError, "noise_margin"),
    ({"noise_margin": math.nan}, ValueError, "noise_margin"),
    ({"noise_margin": True}, TypeError, "noise_margin"),          # not a number: the shared check_real's type
    ({"noise_margin": "1"}, TypeError, "noise_margin"),
    ({"groups": None}, ValueError, "groups must be declared"),
    ({"groups": [0, 1, 5]}, ValueError, "classes_"),
    ({"groups": [0, 1]}, ValueError, "classes_"),
    ({"n_bins": 1000, "posterior_buckets": 10}, ValueError, "n_bins=1000 and posterior_buckets=10"),
])
def test_bad_blind_inputs_are_refused_before_anything_is_charged(params, error, match):
    X, groups, group_estimator = _law_like(n=200)
    accountant = BudgetAccountant()
    params = {"group_estimator": group_estimator, **params}
    model = _blind(accountant=accountant, **params)
    with pytest.raises(error, match=match):
        model.fit(X, sensitive_features=groups)
    assert accountant.spent_budget == []


def test_predict_with_sensitive_features_in_blind_mode_is_an_error():
    X, groups, group_estimator = _law_like(n=300)
    model = _blind(group_estimator).fit(X, sensitive_features=groups)
    with pytest.raises(ValueError, match="must not be passed"):
        model.predict(X, sensitive_features=groups)


def test_aware_predict_without_sensitive_features_is_an_error():
    X, groups, _ = _law_like(n=300)
    model = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=10, groups=[0, 1, 2],
                                          accountant=BudgetAccountant(), random_state=0)
    model.fit(X[:, :1], sensitive_features=groups)
    with pytest.raises(ValueError, match="sensitive_features is required"):
        model.predict(X[:, :1])


def test_unprefit_group_estimator_is_fitted_with_a_privacy_warning_at_epsilon_inf():
    X, groups, _ = _law_like(n=600)
    model = _blind(LogisticRegression(), prefit=False, epsilon=math.inf)
    with pytest.warns(PrivacyWarning, match="group estimator is fitted here"):
        model.fit(X, sensitive_features=groups)
    assert list(model.group_estimator_.classes_) == [0, 1, 2]


def _one_member_neighbours(n=200, seed=3):
    """D: group "alice" has one member (row 0), the others are "bob"; D': that member moved to "bob", so one
    group is left in the data (a group classifier fitted on it faces a one-class problem)."""
    rng = np.random.default_rng(seed)
    groups = np.full(n, "bob", dtype=object)
    groups[0] = "alice"
    X = np.column_stack([np.clip(rng.normal(0.5, 0.15, n), 0, 1), rng.normal(size=n)])
    moved = groups.copy()
    moved[0] = "bob"
    return X, groups, moved


@pytest.mark.parametrize("estimator", [None, "regressor"])
def test_group_estimator_fitted_here_is_refused_at_finite_epsilon_identically_on_neighbours(estimator):
    """prefit=False with a group estimator at a finite epsilon: on D (one member of "alice") and on D' (that member
    moved to "bob"), the same refusal with the same message, before the budget check (nothing charged). It used to
    fail uncharged on one of them only, with a message quoting a label (a one-class fit)."""
    from sklearn.linear_model import LinearRegression

    X, groups, moved = _one_member_neighbours()
    outcomes = []
    for sensitive in (groups, moved):
        accountant = BudgetAccountant()
        params = {"groups": ["alice", "bob"], "prefit": False, "accountant": accountant}
        fit_args = {}
        if estimator == "regressor":
            params["estimator"] = LinearRegression()
            fit_args["y"] = X[:, 0]
        with pytest.raises(ValueError, match="prefit=False with a group_estimator") as error:
            _blind(LogisticRegression(), **params).fit(X, sensitive_features=sensitive, **fit_args)
        assert "alice" not in str(error.value) and "bob" not in str(error.value)
        outcomes.append((type(error.value), str(error.value), accountant.spent_budget))
    assert outcomes[0] == outcomes[1] and outcomes[0][2] == []
    assert "prefit=True" in outcomes[0][1] and "epsilon=inf" in outcomes[0][1]


def test_prefit_group_estimator_fits_and_charges_identically_on_one_member_neighbours():
    """The way the refusal points to: a group estimator prefit on other rows. D and D' both fit and both charge."""
    X, groups, moved = _one_member_neighbours()
    rng = np.random.default_rng(0)
    public = LogisticRegression().fit(rng.normal(size=(90, 2)), np.repeat(["alice", "bob"], 45))
    spent = []
    for sensitive in (groups, moved):
        accountant = BudgetAccountant()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = _blind(public, groups=["alice", "bob"], accountant=accountant).fit(
                X, sensitive_features=sensitive)
        assert model.group_estimator_ is public
        spent.append(accountant.spent_budget)
    assert spent == [[(1.0, 0.0)], [(1.0, 0.0)]]


def test_fit_here_warnings_point_at_the_callers_line():
    """Blind mode fits one frame deeper than the aware fit: the group estimator's fitted-here warning is still
    reported at the line that called fit. (The regressor fitted here is not warned about at epsilon=inf, where
    nothing is promised; a finite epsilon needs both prefit in blind mode.)"""
    from sklearn.linear_model import LinearRegression

    X, groups, _ = _law_like(n=300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _blind(LogisticRegression(), prefit=False, estimator=LinearRegression(), epsilon=math.inf).fit(
            X, X[:, 0], sensitive_features=groups)
    privacy = [w for w in caught if issubclass(w.category, PrivacyWarning)]
    assert [str(w.message).startswith("The group estimator is fitted here") for w in privacy] == [True]
    assert privacy[0].filename == __file__, (privacy[0].filename, privacy[0].lineno)


def test_unprefit_diffprivlib_group_estimator_is_warned_too():
    """A diffprivlib classifier fitted here still reveals which groups the private data hold (classes_) and
    spends on its own accountant: warned like any other. (A stand-in whose module is diffprivlib's: diffprivlib
    0.6.6's LogisticRegression cannot be fitted on scikit-learn 1.9.)"""
    X, groups, group_estimator = _law_like(n=600)

    class DiffprivlibLike(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.unique(y)
            return self

        def predict_proba(self, X):
            return group_estimator.predict_proba(X)

    DiffprivlibLike.__module__ = "diffprivlib.models.logistic_regression"
    with pytest.warns(PrivacyWarning, match="group estimator is fitted here"):
        _blind(DiffprivlibLike(), prefit=False, epsilon=math.inf).fit(X, sensitive_features=groups)
    accountant = BudgetAccountant()                  # at a finite epsilon it is refused like any other
    with pytest.raises(ValueError, match="prefit=False with a group_estimator"):
        _blind(DiffprivlibLike(), prefit=False, accountant=accountant).fit(X, sensitive_features=groups)
    assert accountant.spent_budget == []


def test_group_labels_keep_their_type_for_the_fitted_group_estimator():
    """Labels given to a group estimator fitted here are the declared groups themselves (numpy would turn [0, "x"]
    into strings, and the estimator's classes_ would then not match the declared 0)."""
    X, groups, _ = _law_like(n=600)

    class Recorder(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.labels_ = list(y)
            self.classes_ = np.array([0, "x", "y"], dtype=object)
            return self

        def predict_proba(self, X):
            return np.full((len(X), 3), 1 / 3)

    labels = np.array([0, "x", "y"], dtype=object)[groups]
    model = _blind(Recorder(), prefit=False, groups=[0, "x", "y"], epsilon=math.inf)
    with pytest.warns(PrivacyWarning):
        model.fit(X, sensitive_features=labels)
    assert set(map(type, model.group_estimator_.labels_)) == {int, str}
    assert model._posterior_columns(model.group_estimator_, [0, "x", "y"]) == [0, 1, 2]


def test_non_finite_posteriors_never_fail_the_fit_and_are_warned_at_predict():
    """Whether some private row gets a NaN posterior is a property of the data: fit goes on (uniform posterior
    for such rows, no warning); predict warns."""
    X, groups, group_estimator = _law_like(n=600)

    class Patchy(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1, 2])
            return self

        def predict_proba(self, X):
            proba = group_estimator.predict_proba(X)
            proba[np.asarray(X)[:, 1] > 2.5] = np.nan
            return proba

    patchy = Patchy().fit(None, None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = _blind(patchy).fit(X, sensitive_features=groups)
    with pytest.warns(UtilityWarning, match="non-finite probabilities"):
        model.predict(X, random_state=0)


class _StrictCategories(ClassifierMixin, BaseEstimator):
    """A prefit group classifier whose domain is column 1 in {0, 1, 2}: like an encoder with unknown categories, it
    raises (quoting the value) on anything else, or only warns (``strict=False``)."""

    def __init__(self, strict=True):
        self.strict = strict

    def fit(self, X, y):
        self.classes_ = np.array([0, 1, 2])
        return self

    def predict_proba(self, X):
        codes = np.round(np.asarray(X)[:, 1]).astype(int)
        unknown = sorted(set(codes.tolist()) - {0, 1, 2})
        if unknown:
            message = f"Found unknown categories {unknown} in column 1"
            if self.strict:
                raise ValueError(message)
            warnings.warn(message, UserWarning)
        return np.full((len(codes), 3), 1 / 3)


def test_group_estimator_messages_on_the_private_rows_are_withheld():
    """predict_proba on the fitting rows is third-party code: it is made total (issue 34: a row it raises on gets
    the uniform posterior, the fit succeeds and is charged), and a warning there is suppressed (it depends on the
    rows, and raised as an error it would abort the fit before the charge)."""
    X, groups, _ = _law_like(n=300)
    X = X.copy()
    X[:, 1] = np.clip(np.round(X[:, 1]), 0, 2)
    X[7, 1] = 41.0                                      # one private row outside the model's domain
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _blind(_StrictCategories().fit(None, None), accountant=accountant).fit(X, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 0.0)]
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _blind(_StrictCategories(strict=False).fit(None, None), accountant=accountant).fit(
            X, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 0.0)]
    with pytest.warns(UserWarning, match="unknown categories"):       # predict: the user's own rows, unchanged
        _blind(_StrictCategories(strict=False).fit(None, None)).fit(X, sensitive_features=groups).predict(X)


def test_regressor_messages_on_the_private_rows_are_withheld():
    """The same for a prefit regressor's predict in fit (aware mode: the row gets the lower end of bounds); at
    epsilon = inf the message passes."""

    class Picky(BaseEstimator):
        def fit(self, X, y):
            self.fitted_ = True
            return self

        def predict(self, X):
            if np.any(np.asarray(X)[:, 0] > 0.99):
                raise ValueError(f"cannot score {np.asarray(X)[:, 0].max()!r}")
            return np.asarray(X)[:, 0]

    X, groups, _ = _law_like(n=300)
    X = X.copy()
    X[3, 0] = 0.995
    accountant = BudgetAccountant()
    model = DPFairRegressionPostprocessor(estimator=Picky().fit(None, None), prefit=True, epsilon=1.0, bounds=(0, 1),
                                          n_bins=10, groups=[0, 1, 2], accountant=accountant, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 0.0)]
    model.set_params(epsilon=math.inf)
    with pytest.raises(ValueError, match="cannot score"):
        model.fit(X, sensitive_features=groups)


def test_unfitted_prefit_group_estimator_is_refused_before_the_budget():
    from sklearn.exceptions import NotFittedError

    X, groups, _ = _law_like(n=200)
    accountant = BudgetAccountant()
    with pytest.raises(NotFittedError):
        _blind(LogisticRegression(), accountant=accountant).fit(X, sensitive_features=groups)
    assert accountant.spent_budget == []


def test_exhausted_budget_fails_before_the_data_are_read():
    from diffprivlib.utils import BudgetError

    _, _, group_estimator = _law_like(n=200)
    accountant = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetError):
        _blind(group_estimator, accountant=accountant).fit(np.array([[np.nan, 0.0]]),
                                                            sensitive_features=np.array([7]))


def test_blind_refit_replaces_aware_attributes():
    X, groups, group_estimator = _law_like(n=400)
    model = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=10, groups=[0, 1, 2],
                                          accountant=BudgetAccountant(), random_state=0)
    model.fit(X[:, :1], sensitive_features=groups)
    assert hasattr(model, "transport_plans_")
    model.set_params(group_estimator=group_estimator, prefit=True).fit(X, sensitive_features=groups)
    assert not hasattr(model, "transport_plans_") and hasattr(model, "remap_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X, random_state=0)


def test_aif360_face_blind_mode_does_not_read_the_protected_attribute_at_predict():
    import pandas as pd

    from aif360_dp.algorithms.postprocessing import DPFairRegressionPostprocessing
    from aif360_dp.datasets._base import BundledRegressionDataset

    X, groups, _ = _law_like(n=800)
    groups = groups % 2
    index = pd.RangeIndex(800)

    def dataset(a):
        return BundledRegressionDataset(features=pd.DataFrame({"x": X[:, 1]}, index=index),
                                        target=pd.Series(X[:, 0], index=index, name="y"),
                                        groups=pd.Series(a, index=index, name="a"),
                                        group_names={0: "g0", 1: "g1"}, privileged_group=0, label_bounds=(0, 1))

    rng = np.random.default_rng(0)
    group_estimator = LogisticRegression().fit(np.column_stack([rng.random(200), rng.normal(size=200)]),
                                               rng.integers(0, 2, 200).astype(float))
    post = DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0, 1), n_bins=10, alpha=0.05,
                                          group_estimator=group_estimator, posterior_buckets=4,
                                          accountant=BudgetAccountant(), seed=0).fit(dataset(groups))
    assert post.model_.group_estimator_ is group_estimator and post.privacy_spent_.epsilon == 1.0
    assert post.model_.noise_margin == 1.0 and np.all(post.model_.ks_margins_ > 0)
    plain = DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0, 1), n_bins=10, alpha=0.05,
                                           group_estimator=group_estimator, posterior_buckets=4, noise_margin=0.0,
                                           accountant=BudgetAccountant(), seed=0).fit(dataset(groups))
    np.testing.assert_array_equal(plain.model_.ks_margins_, 0.0)
    first = post.predict(dataset(groups)).labels
    flipped = post.predict(dataset(1 - groups)).labels                  # other protected values, same features
    np.testing.assert_array_equal(first, flipped)
