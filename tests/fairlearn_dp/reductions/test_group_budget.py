"""DPGroupBudgetRegressor / Classifier: zCDP composition, noise scales, budgets, convergence, DPSE vs DPNoSE."""

import math
import pickle
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression

from fairlearn_dp.privacy import PrivacySpend, zcdp_to_approx_dp
from fairlearn_dp.reductions import DPGroupBudgetClassifier, DPGroupBudgetRegressor

SIZES = (10_000, 5_000, 2_000, 1_000, 500)


def synthetic(seed, sizes=SIZES, n_features=2, noise=0.3, scale=1.0):
    """The paper's synthetic OLS model (group-specific slopes), scaled into [-1, 1]."""
    rng = np.random.default_rng(seed)
    betas = rng.uniform(-1, 1, (len(sizes), n_features))
    X = np.vstack([rng.uniform(-1, 1, (n, n_features)) for n in sizes])
    groups = np.concatenate([np.full(n, k) for k, n in enumerate(sizes)])
    y = np.einsum("ij,ij->i", X, betas[groups]) * scale + rng.normal(0, noise, groups.size)
    return X, np.clip(y, -1, 1), groups


def make(**kwargs):
    params = {"rho": 2.0, "groups": list(range(5)), "accountant": BudgetAccountant(), "random_state": 0}
    params.update(kwargs)
    return DPGroupBudgetRegressor(**params)


def test_total_spend_is_computed_tau_plus_mu_and_charged_once():
    X, y, g = synthetic(0)
    acc = BudgetAccountant()
    model = make(rho=2.0, stage1_fraction=0.2, accountant=acc).fit(X, y, sensitive_features=g)
    assert model.stage1_fallback_ is None
    assert model.ledger_.total("stage1") == pytest.approx(0.4, rel=1e-12)
    assert model.ledger_.total("stage2") == pytest.approx(1.6, rel=1e-12)
    assert model.rho_spent_ == pytest.approx(2.0, rel=1e-12)
    expected = PrivacySpend(zcdp_to_approx_dp(model.rho_spent_, 1e-6), 1e-6, rho=model.rho_spent_)
    assert acc.spent_budget == [(expected.epsilon, 1e-6)]
    assert model.privacy_spent_.rho == pytest.approx(2.0)


def test_group_budgets_sum_to_the_stage_budget():
    X, y, g = synthetic(1)
    model = make(rho=1.0, n_iter=20).fit(X, y, sensitive_features=g)
    assert model.budget_shares_.sum() == pytest.approx(1.0)
    stage2 = [e for e in model.ledger_.entries if e["stage"] == "stage2"]
    per_iteration = np.array([e["rho"] for e in stage2]).reshape(20, 5)
    np.testing.assert_allclose(per_iteration.sum(axis=1), 0.8 / 20)          # mu / T every iteration
    np.testing.assert_allclose(per_iteration[0], 0.8 * model.budget_shares_ / 20)


def test_gradient_noise_has_the_stated_scale():
    """Recompute each iteration's exact clipped group gradient at the recorded iterate: the difference to the
    released gradient is N(0, sigma_k^2) with sigma_k = (2 clip / n_k) / sqrt(2 mu s_k^2 / T)."""
    X, y, g = synthetic(2, sizes=(3000, 600))
    model = DPGroupBudgetRegressor(rho=0.5, groups=[0, 1], n_iter=150, accountant=BudgetAccountant(),
                                   random_state=1).fit(X, y, sensitive_features=g)
    design = np.column_stack([X, np.ones(len(X))])
    sizes = model.group_sizes_
    for k in range(2):
        rows = g == k
        residuals = []
        for t, theta in enumerate(model.history_["theta"]):
            per_example = 2 * (design[rows] @ theta - y[rows])[:, None] * design[rows]
            norms = np.linalg.norm(per_example, axis=1)
            exact = (per_example / np.maximum(1, norms / 2.0)[:, None]).mean(axis=0)
            residuals.append(model.history_["noisy_gradients"][t, k] - exact)
        residuals = np.concatenate(residuals)
        mu_t = 0.5 * 0.8 * model.budget_shares_[k] / 150
        sigma = (2 * 2.0 / sizes[k]) / math.sqrt(2 * mu_t)
        assert model.history_["sigma_gradient"][k] == pytest.approx(sigma)
        assert abs(residuals.std() - sigma) < 5 * sigma / math.sqrt(2 * residuals.size)


def test_huge_rho_converges_to_ols():
    X, y, g = synthetic(3, noise=0.2)
    ols = LinearRegression().fit(X, y)
    model = make(rho=1e9, objective="pooled", learning_rate=2e-5, n_iter=400, clip=100.0).fit(
        X, y, sensitive_features=g)
    np.testing.assert_allclose(model.coef_, ols.coef_, atol=2e-3)
    assert model.intercept_ == pytest.approx(ols.intercept_, abs=2e-3)


def test_huge_rho_with_bounded_group_loss_reaches_the_non_private_bgl_solution():
    """With negligible noise, Alg. 2's iterate settles where the BGL Lagrangian's subgradient vanishes: the
    worst group's mean loss is pushed down to (about) the threshold, below the unconstrained fit's."""
    X, y, g = synthetic(4, sizes=(4000, 400), noise=0.1)
    free = make(rho=1e9, groups=[0, 1], learning_rate=0.05, n_iter=400).fit(X, y, sensitive_features=g)
    def loss(m):
        return [np.mean((m.predict(X[g == k]) - y[g == k]) ** 2) for k in (0, 1)]
    worst = max(loss(free))
    bgl = make(rho=1e9, groups=[0, 1], learning_rate=0.05, n_iter=400, bounded_group_loss=0.8 * worst,
               lagrange_multiplier=3.0).fit(X, y, sensitive_features=g)
    assert max(loss(bgl)) < worst


def test_same_seed_same_model_clone_and_pickle():
    X, y, g = synthetic(5)
    a = make(random_state=7, n_iter=30).fit(X, y, sensitive_features=g)
    b = make(random_state=7, n_iter=30).fit(X, y, sensitive_features=g)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    c = make(random_state=8, n_iter=30).fit(X, y, sensitive_features=g)
    assert not np.array_equal(a.coef_, c.coef_)
    assert clone(a).get_params()["rho"] == 2.0
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(a)).predict(X[:5]), a.predict(X[:5]))


def test_epsilon_delta_instead_of_rho():
    X, y, g = synthetic(6)
    acc = BudgetAccountant()
    model = make(rho=None, epsilon=3.0, delta=1e-5, accountant=acc, n_iter=10).fit(X, y, sensitive_features=g)
    assert acc.spent_budget[0][0] == pytest.approx(3.0)
    assert model.privacy_spent_.epsilon == pytest.approx(3.0)


def test_classifier_learns_a_separable_problem():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (6000, 2))
    g = (rng.random(6000) < 0.2).astype(int)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    model = DPGroupBudgetClassifier(rho=4.0, groups=[0, 1], accountant=BudgetAccountant(), random_state=0,
                                    learning_rate=0.5).fit(X, y, sensitive_features=g)
    assert np.mean(model.predict(X) == y) > 0.9
    assert set(model.classes_) == {0, 1}
    assert np.allclose(model.predict_proba(X).sum(axis=1), 1.0)
    reference = LogisticRegression().fit(X, y)
    assert np.sign(model.coef_[0]) == np.sign(reference.coef_[0, 0])


@pytest.mark.parametrize("kwargs, data, error, match", [
    ({"rho": 0.0}, {}, ValueError, "rho"),
    ({"rho": -1.0}, {}, ValueError, "rho"),
    ({"stage1_fraction": 1.0}, {}, ValueError, "stage1_fraction"),
    ({"stage1_fraction": 0.0}, {}, ValueError, "stage1_fraction"),
    ({"budget_allocation": "equal"}, {}, ValueError, "budget_allocation"),
    ({"objective": "pooled", "bounded_group_loss": 0.1}, {}, ValueError, "group_mean"),
    ({}, {"nan": True}, ValueError, "X contains NaN"),
    ({"rho": None}, {}, ValueError, "rho"),
    ({"target_bound": 0.0}, {}, ValueError, "target_bound"),
    ({"target_bound": float("inf")}, {}, ValueError, "target_bound"),
])
def test_bad_input(kwargs, data, error, match):
    X, y, g = synthetic(9, sizes=(300, 200, 100, 100, 100))
    if data.get("nan"):
        X = X.copy()
        X[0, 0] = np.nan
    acc = BudgetAccountant()
    with pytest.raises(error, match=match):
        make(accountant=acc, **kwargs).fit(X, y, sensitive_features=g)
    assert acc.spent_budget == []


def test_classifier_needs_binary_labels():
    X, y, g = synthetic(10, sizes=(300, 200, 100, 100, 100))
    with pytest.raises(ValueError, match="y contains a label that is not one of classes"):
        DPGroupBudgetClassifier(rho=1.0, groups=list(range(5)), accountant=BudgetAccountant()).fit(
            X, np.arange(y.size) % 3, sensitive_features=g)


def test_target_bound_sets_the_stage1_moment_sensitivity_and_clips_y():
    """X^T y moves by at most 2 sqrt(d) U V under substitution (U on features, V on targets); the upper triangle of
    X^T X by U^2 sqrt(d^2 - 1) for odd d (here d = 3)."""
    X, y, g = synthetic(11, sizes=(400, 300))
    y = 5 * y
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # clipping is silent: a warning would depend on the private y
        model = make(groups=[0, 1], data_bound=1.0, target_bound=4.0).fit(X, y, sensitive_features=g)
    clipped = make(groups=[0, 1], data_bound=1.0, target_bound=4.0).fit(X, np.clip(y, -4, 4), sensitive_features=g)
    np.testing.assert_array_equal(model.coef_, clipped.coef_)
    d = X.shape[1] + 1
    stage1 = [e for e in model.ledger_.entries if e["stage"] == "stage1"]
    assert stage1[0]["l2_sensitivity"] == pytest.approx(math.sqrt(d ** 2 - 1) * 1.0 ** 2)
    assert stage1[1]["l2_sensitivity"] == pytest.approx(2 * math.sqrt(d) * 1.0 * 4.0)
    default = make(groups=[0, 1], data_bound=2.0).fit(X, np.clip(y, -2, 2), sensitive_features=g)
    assert default.ledger_.entries[1]["l2_sensitivity"] == pytest.approx(2 * math.sqrt(d) * 2.0 * 2.0)
    with pytest.raises(ValueError, match="target_bound does not apply"):
        DPGroupBudgetClassifier(rho=1.0, target_bound=2.0, groups=[0, 1]).fit(X, y > 0, sensitive_features=g)


def test_dpse_and_dpnose_with_one_random_state_share_stage2_normals():
    """Each stage draws from its own stream, so at the first iterate (theta = 0 for both) the standardised
    stage-2 noise of DPSE and DPNoSE is the same draw (common random numbers), while the noise scales differ."""
    X, y, g = synthetic(12, sizes=(2000, 300))
    design = np.column_stack([X, np.ones(len(X))])
    standardised = {}
    for allocation in ("standard_errors", "uniform"):
        model = make(groups=[0, 1], budget_allocation=allocation, random_state=7).fit(X, y, sensitive_features=g)
        noise = []
        for k in range(2):
            rows = g == k
            per_example = -2 * y[rows][:, None] * design[rows]           # gradient at theta = 0
            exact = (per_example / np.maximum(1, np.linalg.norm(per_example, axis=1) / 2.0)[:, None]).mean(axis=0)
            noise.append((model.history_["noisy_gradients"][0, k] - exact) / model.history_["sigma_gradient"][k])
        standardised[allocation] = np.concatenate(noise)
        sigmas = model.history_["sigma_gradient"]
        standardised[allocation + "_sigma"] = sigmas
    np.testing.assert_allclose(standardised["standard_errors"], standardised["uniform"], atol=1e-9)
    assert not np.allclose(standardised["standard_errors_sigma"], standardised["uniform_sigma"])
