"""DPFairRegressionPostprocessor: Alg. 1 behaviour, privacy plumbing, sklearn conventions, bad input."""

import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import fairlearn_dp.postprocessing._fair_regression as module
from fairlearn_dp.exceptions import PrivacyWarning, UtilityWarning
from fairlearn_dp.metrics import ks_statistical_parity
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.postprocessing._fair_regression import private_group_estimates
from fairlearn_dp.privacy import PrivacySpend


def make(accountant, **kwargs):
    params = {"epsilon": 1.0, "bounds": (0.0, 1.0), "n_bins": 10, "groups": [0, 1, 2], "accountant": accountant,
                  "random_state": 0}
    params.update(kwargs)
    return DPFairRegressionPostprocessor(**params)


def binned(values, n_bins, lower=0.0, upper=1.0):
    index = np.clip(np.floor((values - lower) / (upper - lower) * n_bins), 0, n_bins - 1)
    return lower + (index + 0.5) * (upper - lower) / n_bins


def test_alpha_one_leaves_binned_outputs_unchanged(regression_outputs, accountant):
    outputs, groups = regression_outputs
    model = make(accountant, alpha=1.0).fit(outputs[:, None], sensitive_features=groups)
    predicted = model.predict(outputs[:, None], sensitive_features=groups, random_state=0)
    np.testing.assert_allclose(predicted, binned(outputs, 10))


def test_alpha_zero_makes_target_pmfs_identical_and_outputs_fair(regression_outputs, accountant):
    outputs, groups = regression_outputs
    model = make(accountant, alpha=0.0, epsilon=np.inf).fit(outputs[:, None], sensitive_features=groups)
    for target in model.target_pmfs_:
        np.testing.assert_allclose(target, model.barycenter_, atol=1e-12)
    before = ks_statistical_parity(outputs, outputs, sensitive_features=groups)
    after = ks_statistical_parity(outputs, model.predict(outputs[:, None], sensitive_features=groups,
                                                         random_state=0), sensitive_features=groups)
    # Groups of ~1000 rows: sampling the randomised transport leaves KS noise of order 1/sqrt(1000) ~ 0.03.
    assert before > 0.5 and after < 0.08


def test_infinite_epsilon_uses_the_exact_empirical_distributions(regression_outputs, accountant):
    outputs, groups = regression_outputs
    model = make(accountant, epsilon=np.inf).fit(outputs[:, None], sensitive_features=groups)
    bins = np.clip(np.floor(outputs * 10), 0, 9).astype(int)
    for a in range(3):
        empirical = np.bincount(bins[groups == a], minlength=10) / np.sum(groups == a)
        np.testing.assert_allclose(model.group_pmfs_[a], empirical, atol=1e-12)
        assert model.group_weights_[a] == pytest.approx(np.mean(groups == a))
    assert model.privacy_spent_ == PrivacySpend(math.inf, 0.0)


def test_accountant_charged_exactly_once(regression_outputs):
    outputs, groups = regression_outputs
    for epsilon, delta in [(0.7, 0.0), (2.0, 1e-6)]:
        acc = BudgetAccountant()
        model = make(acc, epsilon=epsilon, delta=delta).fit(outputs[:, None], sensitive_features=groups)
        assert acc.spent_budget == [(epsilon, delta)]
        assert model.privacy_spent_ == PrivacySpend(epsilon, delta)


def test_default_accountant_is_diffprivlibs_global_one(regression_outputs):
    outputs, groups = regression_outputs
    default = BudgetAccountant()
    previous = BudgetAccountant.pop_default()
    default.set_default()
    try:
        DPFairRegressionPostprocessor(epsilon=0.3, bounds=(0, 1), n_bins=5, groups=[0, 1, 2], random_state=0).fit(
            outputs[:, None], sensitive_features=groups)
        assert default.spent_budget == [(0.3, 0.0)]
    finally:
        BudgetAccountant.pop_default()
        if previous is not None:
            previous.set_default()


def test_optimiser_sees_only_the_released_statistic(regression_outputs, accountant, monkeypatch):
    """Replace the release by a fixed 'released' PMF: two unrelated datasets must then give identical fits."""
    released = np.array([[0.05, 0.1, 0.05, 0.0, 0.1], [0.2, 0.0, 0.1, 0.2, 0.2]])

    def fake_release(counts, n, **kwargs):
        return released.copy(), PrivacySpend(1.0)

    monkeypatch.setattr(module, "release_counts", fake_release)
    outputs, groups = regression_outputs
    first = make(accountant, n_bins=5, groups=[0, 1]).fit(outputs[:200, None], sensitive_features=groups[:200] % 2)
    rng = np.random.default_rng(99)
    second = make(accountant, n_bins=5, groups=[0, 1]).fit(rng.uniform(size=(50, 1)),
                                                           sensitive_features=rng.integers(0, 2, 50))
    for name in ("group_weights_", "group_pmfs_", "barycenter_", "target_pmfs_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    for plan_first, plan_second in zip(first.transport_plans_, second.transport_plans_, strict=True):
        np.testing.assert_array_equal(plan_first.toarray(), plan_second.toarray())
    np.testing.assert_array_equal(first.noisy_joint_pmf_, released)


def test_released_histogram_noise_has_stated_scale(regression_outputs):
    """noisy_joint_pmf_ - exact PMF is Laplace(2 / (n epsilon)) per cell: mean |noise| = b within 5 sd."""
    outputs, groups = regression_outputs
    n, epsilon, n_bins = outputs.size, 0.5, 10
    exact = make(BudgetAccountant(), epsilon=np.inf).fit(outputs[:, None], sensitive_features=groups)
    noise = np.concatenate([
        (make(BudgetAccountant(), epsilon=epsilon, random_state=seed).fit(outputs[:, None], sensitive_features=groups)
         .noisy_joint_pmf_ - exact.noisy_joint_pmf_).ravel() for seed in range(200)])
    scale = 2 / (n * epsilon)
    assert abs(np.mean(np.abs(noise)) - scale) < 5 * scale / math.sqrt(noise.size)
    assert noise.size == 200 * 3 * n_bins


def test_same_seed_same_fit_and_predictions(regression_outputs, accountant):
    outputs, groups = regression_outputs
    one = make(accountant, random_state=5).fit(outputs[:, None], sensitive_features=groups)
    two = make(accountant, random_state=5).fit(outputs[:, None], sensitive_features=groups)
    three = make(accountant, random_state=6).fit(outputs[:, None], sensitive_features=groups)
    for plan_one, plan_two in zip(one.transport_plans_, two.transport_plans_, strict=True):
        np.testing.assert_array_equal(plan_one.toarray(), plan_two.toarray())
    assert not np.array_equal(one.noisy_joint_pmf_, three.noisy_joint_pmf_)
    p1 = one.predict(outputs[:, None], sensitive_features=groups, random_state=11)
    p2 = two.predict(outputs[:, None], sensitive_features=groups, random_state=11)
    p3 = one.predict(outputs[:, None], sensitive_features=groups, random_state=12)
    np.testing.assert_array_equal(p1, p2)
    assert not np.array_equal(p1, p3)


def test_predict_samples_the_transport_kernel(regression_outputs, accountant):
    outputs, groups = regression_outputs
    model = make(accountant, alpha=0.0).fit(outputs[:, None], sensitive_features=groups)
    x = np.full(20_000, 0.42)[:, None]
    a = np.ones(20_000, dtype=int)
    draws = model.predict(x, sensitive_features=a, random_state=0)
    pmf = model._pmf_predict(x[:1], sensitive_features=a[:1])[0]
    frequencies = np.array([np.mean(draws == c) for c in model.bin_centers_])
    assert np.all(np.abs(frequencies - pmf) < 5 * np.sqrt(pmf * (1 - pmf) / 20_000) + 1e-12)


def test_solvers_agree_on_the_fit(regression_outputs, accountant):
    outputs, groups = regression_outputs
    exact = make(accountant, alpha=0.05).fit(outputs[:, None], sensitive_features=groups)
    lp = make(accountant, alpha=0.05, solver="HIGHS").fit(outputs[:, None], sensitive_features=groups)
    assert exact.objective_ == pytest.approx(lp.objective_, rel=1e-6)


def test_clone_get_params_and_pickle(regression_outputs, accountant):
    outputs, groups = regression_outputs
    model = make(accountant, alpha=0.1)
    params = model.get_params()
    assert params["alpha"] == 0.1 and params["accountant"] is accountant
    cloned = clone(model)
    assert cloned.get_params()["n_bins"] == 10 and cloned.accountant is accountant   # spends reach the user's one
    model.fit(outputs[:, None], sensitive_features=groups)
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(
        restored.predict(outputs[:, None], sensitive_features=groups, random_state=1),
        model.predict(outputs[:, None], sensitive_features=groups, random_state=1))
    cloned.fit(outputs[:, None], sensitive_features=groups)
    assert len(accountant.spent_budget) == 2


def test_wraps_a_prefit_pipeline_and_pandas_inputs(accountant):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x1": rng.normal(size=2000), "x2": rng.normal(size=2000)})
    a = pd.Series(rng.choice(["f", "m"], 2000), name="sex")
    y = 2.0 + 0.5 * X["x1"] + 0.4 * (a == "m") + rng.normal(scale=0.2, size=2000)
    pipe = make_pipeline(StandardScaler(), LinearRegression()).fit(X[:1000], y[:1000])
    model = DPFairRegressionPostprocessor(estimator=pipe, prefit=True, epsilon=2.0, bounds=(0, 4), n_bins=20,
                                          groups=["f", "m"], accountant=accountant, random_state=0)
    model.fit(X[1000:], y[1000:], sensitive_features=a[1000:])
    fair = model.predict(X[1000:], sensitive_features=a[1000:], random_state=0)
    assert fair.shape == (1000,)
    assert ks_statistical_parity(y[1000:], fair, sensitive_features=a[1000:]) < \
        ks_statistical_parity(y[1000:], pipe.predict(X[1000:]), sensitive_features=a[1000:])


def test_non_private_estimator_fitted_inside_warns(accountant):
    rng = np.random.default_rng(1)
    X, a = rng.normal(size=(300, 2)), rng.integers(0, 2, 300)
    y = X[:, 0] + a
    model = DPFairRegressionPostprocessor(estimator=LinearRegression(), epsilon=1.0, bounds=(-5, 5), groups=[0, 1],
                                          accountant=accountant, random_state=0)
    with pytest.warns(PrivacyWarning, match="NOT differentially private"):
        model.fit(X, y, sensitive_features=a)


def test_groups_read_from_data_warn(regression_outputs, accountant):
    outputs, groups = regression_outputs
    with pytest.warns(PrivacyWarning, match="groups"):
        model = make(accountant, groups=None).fit(outputs[:, None], sensitive_features=groups)
    assert model.groups_ == [0, 1, 2]


def test_multi_column_sensitive_features(accountant):
    rng = np.random.default_rng(0)
    sf = pd.DataFrame({"sex": rng.choice(["f", "m"], 500), "race": rng.choice(["a", "b"], 500)})
    model = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=5,
                                          groups=["f,a", "f,b", "m,a", "m,b"], accountant=accountant,
                                          random_state=0)
    model.fit(rng.uniform(size=(500, 1)), sensitive_features=sf)
    assert model.group_pmfs_.shape == (4, 5)


def test_nonpositive_noisy_weight_falls_back_to_uniform():
    with pytest.warns(UtilityWarning, match="not positive"):
        weights, pmfs = private_group_estimates(np.array([[0.3, 0.2, 0.1], [-0.05, 0.01, 0.0]]))
    assert weights[1] == 0.0
    np.testing.assert_allclose(pmfs[1], 1 / 3)


def test_renormalisation_is_linf_isotonic_regression_of_the_cdf():
    # Partial sums 0.5, 0.3, 0.9, 1.0 -> isotonic (L-inf) midpoint fit 0.4, 0.4, 0.9, 1.0 -> PMF .4, 0, .5, .1
    weights, pmfs = private_group_estimates(np.array([[0.5, -0.2, 0.6, 0.1], [0.25, 0.25, 0.25, 0.25]]))
    np.testing.assert_allclose(weights, [1.0, 1.0])
    np.testing.assert_allclose(pmfs[0], [0.4, 0.0, 0.5, 0.1])
    assert np.all(pmfs >= 0)


@pytest.mark.parametrize("kwargs, fit_args, error, match", [
    ({"epsilon": 0}, {}, ValueError, "epsilon"),
    ({"epsilon": -1.0}, {}, ValueError, "epsilon"),
    ({"delta": 1.0}, {}, ValueError, "delta"),
    ({"n_bins": 0}, {}, ValueError, "n_bins"),
    ({"n_bins": 2.5}, {}, TypeError, "n_bins"),
    ({"alpha": 1.2}, {}, ValueError, "alpha"),
    ({"alpha": -0.01}, {}, ValueError, "alpha"),
    ({"bounds": None}, {}, ValueError, "bounds"),
    ({"bounds": (1.0, 0.0)}, {}, ValueError, "bounds"),
    ({"groups": [0]}, {}, ValueError, "at least 2 groups"),
    ({"n_bins": 1_000_001}, {}, ValueError, "n_bins must be <= 1000000"),
    ({"groups": [0, 1]}, {}, ValueError, "unseen group"),
    ({}, {"nan_x": True}, ValueError, "X contains NaN"),
    ({}, {"nan_a": True}, ValueError, "sensitive_features contains missing"),
    ({}, {"short_a": True}, ValueError, "length mismatch"),
    ({}, {"short_numeric_a": True}, ValueError, "sensitive_features has .* rows .*length mismatch"),  # int fast path
    ({}, {"short_y": True}, ValueError, "length mismatch"),
])
def test_bad_input(regression_outputs, accountant, kwargs, fit_args, error, match):
    outputs, groups = regression_outputs
    X, a, y = outputs[:, None].copy(), groups.astype(object), None
    if fit_args.get("nan_x"):
        X[3, 0] = np.nan
    if fit_args.get("nan_a"):
        a[5] = None
    if fit_args.get("short_a"):
        a = a[:-1]
    if fit_args.get("short_numeric_a"):
        a = groups[:-1]
    if fit_args.get("short_y"):
        y = outputs[:-2]
    before = list(accountant.spent_budget)
    with pytest.raises(error, match=match):
        make(accountant, **kwargs).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == before   # nothing charged for a failed fit


def test_single_group_in_data_without_declared_groups(accountant):
    with pytest.warns(PrivacyWarning), pytest.raises(ValueError, match="at least 2 groups"):
        make(accountant, groups=None).fit(np.full((10, 1), 0.5), sensitive_features=np.zeros(10))


def test_unseen_group_at_predict_and_not_fitted(regression_outputs, accountant):
    outputs, groups = regression_outputs
    with pytest.raises(Exception, match="not fitted"):
        make(accountant).predict(outputs[:, None], sensitive_features=groups)
    model = make(accountant).fit(outputs[:, None], sensitive_features=groups)
    with pytest.raises(ValueError, match="unseen group"):
        model.predict(outputs[:5, None], sensitive_features=[0, 1, 2, 7, 0])


def test_outputs_outside_bounds_are_clipped_silently_in_fit_and_with_a_warning_in_predict(regression_outputs,
                                                                                          accountant):
    import warnings

    outputs, groups = regression_outputs
    shifted = outputs.copy()
    shifted[:10] = 1.7
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # fit: no warning that depends on the private data
        model = make(accountant, alpha=1.0).fit(shifted[:, None], sensitive_features=groups)
    with pytest.warns(UtilityWarning, match="outside bounds"):
        predicted = model.predict(shifted[:10, None], sensitive_features=groups[:10], random_state=0)
    np.testing.assert_allclose(predicted, 0.95)


def test_group_with_zero_private_weight_is_not_moved_at_alpha_one(accountant, monkeypatch):
    """A group whose noisy weight comes out <= 0 must keep its own PMF when alpha = 1 (no fairness asked)."""
    # Both other groups sit in the top bin, so barycenter CDFs anywhere in [0, 0.5] cost them nothing; the
    # uniform fallback PMF of the zero-weight group (CDF 0.25, 0.5, 0.75) fits only some of those choices.
    released = np.array([[0.0, 0.0, 0.0, 0.4], [-0.02, 0.0, 0.01, 0.0], [0.0, 0.0, 0.0, 0.5]])
    monkeypatch.setattr(module, "release_counts", lambda *a, **k: (released.copy(), PrivacySpend(1.0)))
    outputs, groups = np.linspace(0, 1, 30), np.arange(30) % 3
    with pytest.warns(UtilityWarning, match="not positive"):
        model = make(accountant, n_bins=4, alpha=1.0).fit(outputs[:, None], sensitive_features=groups)
    assert model.group_weights_[1] == 0.0
    np.testing.assert_allclose(model.target_pmfs_, model.group_pmfs_, atol=1e-12)


def test_values_on_bin_edges_are_binned_consistently(accountant):
    # GPAs on a 0.1 grid with k = 180 bins of (1, 4): every value is an edge; each must land in the bin above it.
    gpa = np.round(np.arange(1.0, 4.0, 0.1), 1)
    model = DPFairRegressionPostprocessor(epsilon=np.inf, bounds=(1, 4), n_bins=180, alpha=1.0, groups=[0, 1],
                                          accountant=accountant).fit(gpa[:, None],
                                                                     sensitive_features=np.arange(gpa.size) % 2)
    expected = np.round((gpa - 1) * 60).astype(int)
    np.testing.assert_array_equal(model._discretize(gpa), expected)


# ------------------------------------------------------------------ sparse couplings (issue 14: memory linear in k)
def _shifted_outputs(n, n_groups, seed):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    return np.clip(rng.normal(0.35 + 0.1 * groups, 0.12), 0.0, 1.0), groups


def _dense_reference(model, X, sensitive_features, random_state):
    """``predict`` and ``_pmf_predict`` as on main before issue 14: dense (|A|, k, k) kernels, one searchsorted over
    all rows' CDFs, row r shifted by 2r."""
    from fairlearn_dp.privacy._random import check_random_state

    plans = np.stack([plan.toarray() for plan in model.transport_plans_])
    n_groups, k, _ = plans.shape
    row_mass = plans.sum(axis=2, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        kernels = np.where(row_mass > 1e-15, plans / np.where(row_mass > 0, row_mass, 1.0),
                           np.broadcast_to(np.eye(k), plans.shape))
    n_rows = n_groups * k
    shifted = (np.cumsum(kernels, axis=2).reshape(n_rows, k) + 2.0 * np.arange(n_rows)[:, None]).ravel()
    group_index, bin_index = model._rows(X, sensitive_features)
    uniforms = check_random_state(random_state).random_sample(group_index.size)
    row = group_index * k + bin_index
    position = np.searchsorted(shifted, uniforms + 2.0 * row, side="left") - row * k
    return model.bin_centers_[np.clip(position, 0, k - 1)], kernels[group_index, bin_index]


@pytest.mark.parametrize("n_bins, alpha, epsilon", [(3, 0.0, 1.0), (10, 0.05, 1.0), (36, 0.0, np.inf),
                                                    (36, 0.3, 0.5), (300, 0.0, 1.0), (300, 1.0, 1.0)])
def test_predict_gives_the_same_outputs_as_the_dense_kernels(regression_outputs, accountant, n_bins, alpha, epsilon):
    outputs, groups = regression_outputs
    model = make(accountant, n_bins=n_bins, alpha=alpha, epsilon=epsilon).fit(outputs[:, None],
                                                                               sensitive_features=groups)
    rng = np.random.default_rng(n_bins)
    x = rng.uniform(0, 1, 50_000)[:, None]
    a = rng.integers(0, 3, 50_000)
    for seed in range(3):
        expected, expected_pmf = _dense_reference(model, x, a, seed)
        np.testing.assert_array_equal(model.predict(x, sensitive_features=a, random_state=seed), expected)
    np.testing.assert_allclose(model._pmf_predict(x[:2000], sensitive_features=a[:2000]), expected_pmf[:2000],
                               rtol=1e-15, atol=1e-15)


def test_transport_pushes_each_group_onto_its_target_at_large_k(accountant):
    """Beyond the old 2,000-bin cap: inputs drawn from p_a are sent to outputs distributed as q_a (KS within the
    sampling error of 200,000 draws)."""
    outputs, groups = _shifted_outputs(n=20_000, n_groups=3, seed=1)
    model = make(accountant, n_bins=5_000, alpha=0.05).fit(outputs[:, None], sensitive_features=groups)
    rng = np.random.default_rng(2)
    m = 200_000
    for a in range(3):
        bins = rng.choice(5_000, size=m, p=model.group_pmfs_[a])
        predicted = model.predict(model.bin_centers_[bins][:, None], sensitive_features=np.full(m, a),
                                  random_state=a)
        empirical = np.cumsum(np.bincount(np.searchsorted(model.bin_centers_, predicted), minlength=5_000)) / m
        assert np.max(np.abs(empirical - np.cumsum(model.target_pmfs_[a]))) < 2 / math.sqrt(m)


def test_fitted_object_is_linear_in_n_bins(accountant):
    """k = 20,000 bins and 4 groups: sparse couplings with at most 2k - 1 non-zeros each, and a pickled size of a
    few hundred bytes per (group, bin); the dense (|A|, k, k) arrays held before would take 3 x 12.8 GB."""
    from scipy import sparse

    k, n_groups = 20_000, 4
    outputs, groups = _shifted_outputs(n=50_000, n_groups=n_groups, seed=3)
    model = make(accountant, n_bins=k, groups=list(range(n_groups))).fit(outputs[:, None],
                                                                        sensitive_features=groups)
    assert len(model.transport_plans_) == n_groups
    for plan in model.transport_plans_:
        assert sparse.issparse(plan) and plan.shape == (k, k) and plan.nnz <= 2 * k - 1
    assert model._kernels.shape == (n_groups * k, k) and model._kernels.nnz <= 3 * n_groups * k
    assert len(pickle.dumps(model)) < 400 * n_groups * k
    predicted = model.predict(outputs[:, None], sensitive_features=groups, random_state=0)
    assert np.all(np.isin(predicted, model.bin_centers_))


class _ParityScorer:
    """Minus the KS statistical parity of the predictions; the groups go to predict and to the metric (a
    ``make_scorer`` scorer would call ``predict(X)`` without them)."""

    def __call__(self, estimator, X, y=None, sensitive_features=None):
        predictions = estimator.predict(X, sensitive_features=sensitive_features, random_state=0)
        return -ks_statistical_parity(None, predictions, sensitive_features=sensitive_features)

    def get_metadata_routing(self):
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="sensitive_features", alias=True)
        return request


def test_grid_search_with_routed_sensitive_features_and_a_fairness_scorer(regression_outputs):
    """GridSearchCV with metadata routing: every fit gets the groups and charges the shared accountant (grid
    points x folds + the refit), and the scorer passes the groups to predict."""
    import sklearn
    from sklearn.model_selection import GridSearchCV, KFold

    outputs, groups = regression_outputs
    accountant = BudgetAccountant()
    with sklearn.config_context(enable_metadata_routing=True):
        model = make(accountant, epsilon=0.5)
        model.set_fit_request(sensitive_features=True).set_predict_request(sensitive_features=True)
        grid = GridSearchCV(model, {"alpha": [0.0, 0.5], "n_bins": [5, 10]}, scoring=_ParityScorer(),
                            cv=KFold(2, shuffle=True, random_state=0), error_score="raise")
        grid.fit(outputs[:, None], sensitive_features=groups)
    assert accountant.spent_budget == [(0.5, 0.0)] * 9                 # 4 points x 2 folds, then the refit
    assert grid.best_params_["alpha"] == 0.0 and np.isfinite(grid.best_score_)   # full fairness scores best
    assert grid.best_estimator_.accountant is accountant


def test_a_regressor_fitted_inside_is_not_warned_about_at_infinite_epsilon(accountant):
    """Issue 35: at epsilon=inf nothing is promised, so "the model is then NOT differentially private" says nothing
    (as DPThresholdOptimizer, which does not warn there either); at a finite epsilon it warns (test above)."""
    rng = np.random.default_rng(1)
    X, a = rng.normal(size=(300, 2)), rng.integers(0, 2, 300)
    model = DPFairRegressionPostprocessor(estimator=LinearRegression(), epsilon=np.inf, bounds=(-5, 5), groups=[0, 1],
                                          accountant=accountant, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(X, X[:, 0] + a, sensitive_features=a)
    assert model.estimator_ is not model.estimator
