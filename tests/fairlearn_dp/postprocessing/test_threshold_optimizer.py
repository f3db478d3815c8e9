"""DPThresholdOptimizer: Hardt's LP at epsilon = inf, Fairlearn parity, Thm. 3.1, privacy plumbing, bad input."""

import contextlib
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.postprocessing import ThresholdOptimizer
from scipy.optimize import linprog
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression

import fairlearn_dp.postprocessing._threshold_optimizer as module
from fairlearn_dp.exceptions import FairnessWarning, PrivacyWarning, UtilityWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy import PrivacySpend


def binary_problem(m=5000, n_groups=3, seed=0):
    """Base predictions yhat, groups a, labels y with group-dependent error rates."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_groups, m)
    y = (rng.random(m) < 0.3 + 0.1 * a).astype(int)
    correct = rng.random(m) < 0.7 + 0.08 * a
    yhat = np.where(correct, y, 1 - y)
    return yhat, a, y


def table(yhat, a, y, n_groups):
    q = np.zeros((2, n_groups, 2))
    np.add.at(q, (yhat, a, y), 1.0)
    return q / yhat.size


def hardt_lp(q, gamma):
    """Independent scipy formulation of LP-hat (6): variables p[yhat, a] in [0, 1] (row-major), error minimised."""
    _, n_groups, _ = q.shape
    q_ay = q.sum(axis=0)
    cost = np.array([q[yh, a, 0] - q[yh, a, 1] for yh in range(2) for a in range(n_groups)])

    def rate_row(a, label):
        row = np.zeros(2 * n_groups)
        for yh in range(2):
            row[yh * n_groups + a] = q[yh, a, label] / q_ay[a, label]
        return row

    rows, bounds = [], []
    for a in range(1, n_groups):
        for label in (0, 1):
            diff = rate_row(a, label) - rate_row(0, label)
            rows += [diff, -diff]
            bounds += [gamma, gamma]
    result = linprog(cost, A_ub=np.array(rows), b_ub=np.array(bounds), bounds=(0, 1), method="highs")
    assert result.status == 0
    return result.x.reshape(2, n_groups), result.fun + q[:, :, 1].sum()


def error_and_gaps(p, q):
    """Empirical error of Y_p and its largest FP / TP gap to group 0, from the exact table q[yhat, a, y]."""
    q_ay = q.sum(axis=0)
    error = float(np.sum(p * q[:, :, 0] + (1 - p) * q[:, :, 1]))
    fp = (p * q[:, :, 0]).sum(axis=0) / q_ay[:, 0]
    tp = (p * q[:, :, 1]).sum(axis=0) / q_ay[:, 1]
    return error, np.abs(fp - fp[0]), np.abs(tp - tp[0])


#: The paper's LP~ (1) (privacy_slack=True, what fit_binary runs) on these small problems often leaves a constraint
#: unbound, which the fit reports (a FairnessWarning); tests of other properties ignore it (the warning itself is
#: tested in test_mixing_lp.py and test_warnings_and_guarantee.py).
SLACK_MAY_NOT_BIND = pytest.mark.filterwarnings(
    "ignore:The .* constraint does not bind:fairlearn_dp.exceptions.FairnessWarning")


def fit_binary(yhat, a, y, accountant=None, **kwargs):
    """Algorithm 1 of Jagielski et al. as the paper states it: binary predictions, flips, LP~ (1) with its slack."""
    params = {"constraints": "equalized_odds", "objective": "accuracy_score", "flip": True, "predict_method": "predict",
                  "epsilon": 1.0, "groups": sorted(set(a.tolist())), "accountant": accountant if accountant is not None else BudgetAccountant(),
                  "random_state": 0, "options": ThresholdOptimizerOptions(privacy_slack=True)}
    params.update(kwargs)
    return DPThresholdOptimizer(**params).fit(yhat[:, None], y, sensitive_features=a)


@pytest.mark.parametrize("gamma", [0.0, 0.03])
def test_infinite_epsilon_is_hardts_lp(gamma):
    yhat, a, y = binary_problem()
    q = table(yhat, a, y, 3)
    p_ref, error_ref = hardt_lp(q, gamma)
    model = fit_binary(yhat, a, y, epsilon=np.inf, tol=gamma)
    p = model.mixing_rates_.T                                  # [yhat, a]
    error, fp_gap, tp_gap = error_and_gaps(p, q)
    assert error == pytest.approx(error_ref, abs=1e-7)
    assert fp_gap.max() <= gamma + 1e-7 and tp_gap.max() <= gamma + 1e-7
    assert model.objective_value_ == pytest.approx(1 - error_ref, abs=1e-7)


class _FixedScores(ClassifierMixin, BaseEstimator):
    """'Classifier' whose score is its single input column (so both optimisers see identical scores)."""

    def fit(self, X, y=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        s = np.asarray(X, dtype=float)[:, 0]
        return np.column_stack([1 - s, s])


def score_problem(m=4000, seed=0, n_bins=20):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, m)
    X = rng.normal(size=(m, 2))
    X[:, 0] += 0.5 * a
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=m) > 0.5).astype(int)
    raw = LogisticRegression().fit(X, y).predict_proba(X)[:, 1]
    scores = (np.floor(raw * n_bins) + 0.5) / n_bins               # bin centres: public bins split every score
    return scores, a, y


@pytest.mark.parametrize("constraints, objective", [("equalized_odds", "accuracy_score"),
                                                    ("equalized_odds", "balanced_accuracy_score"),
                                                    ("demographic_parity", "accuracy_score"),
                                                    ("true_positive_rate_parity", "accuracy_score"),
                                                    ("false_positive_rate_parity", "selection_rate")])
def test_infinite_epsilon_matches_fairlearn_on_scores(constraints, objective):
    scores, a, y = score_problem()
    fairlearn = ThresholdOptimizer(estimator=_FixedScores().fit(None), constraints=constraints, objective=objective,
                                   prefit=True, predict_method="predict_proba").fit(scores[:, None], y,
                                                                                     sensitive_features=a)
    # maximising the selection rate under FPR parity: "predict 1" in every group, which the fit reports
    constant = pytest.warns(UtilityWarning, match="ignores the base") if objective == "selection_rate" else (
        contextlib.nullcontext())
    with constant:
        ours = DPThresholdOptimizer(constraints=constraints, objective=objective, epsilon=np.inf, options=ThresholdOptimizerOptions(n_score_bins=20),
                                    groups=[0, 1, 2], accountant=BudgetAccountant()).fit(scores[:, None], y,
                                                                                          sensitive_features=a)
    p_fl = fairlearn._pmf_predict(scores[:, None], sensitive_features=a)[:, 1]
    p_dp = ours._pmf_predict(scores[:, None], sensitive_features=a)[:, 1]

    def stats(p):
        accuracy = np.mean(p * y + (1 - p) * (1 - y))
        balanced = 0.5 * (p[y == 1].mean() + 1 - p[y == 0].mean())
        rates = {"tpr": [p[(a == g) & (y == 1)].mean() for g in range(3)],
                 "fpr": [p[(a == g) & (y == 0)].mean() for g in range(3)],
                 "selection": [p[a == g].mean() for g in range(3)]}
        return accuracy, balanced, rates

    acc_fl, bal_fl, rates_fl = stats(p_fl)
    acc_dp, bal_dp, rates_dp = stats(p_dp)
    # The LP is the exact optimum over the same threshold mixtures Fairlearn searches on a 1000-point grid.
    assert acc_dp == pytest.approx(acc_fl, abs=2e-3) and bal_dp == pytest.approx(bal_fl, abs=2e-3)
    for rate in module._CONSTRAINT_RATES[constraints]:
        assert np.ptp(rates_dp[rate]) <= 1e-6
        assert np.ptp(rates_fl[rate]) <= 2e-3


@SLACK_MAY_NOT_BIND
def test_theorem_3_1_holds_in_at_least_1_minus_beta_of_runs():
    """Over 200 noise draws: realised error and FP/TP gaps on the training data stay within Thm. 3.1's bounds."""
    yhat, a, y = binary_problem(m=5000, n_groups=3, seed=1)
    q = table(yhat, a, y, 3)
    m, n_groups, epsilon, beta, gamma = yhat.size, 3, 0.5, 0.05, 0.02
    log_term = math.log(4 * n_groups / beta)
    q_ay = q.sum(axis=0)
    assert q_ay.min() > 4 * log_term / (m * epsilon)                   # the theorem's assumption holds
    _, error_star = hardt_lp(q, gamma)
    error_bound = error_star + 24 * n_groups * log_term / (m * epsilon)
    fp_bound = gamma + 8 * log_term / (np.minimum(q_ay[:, 0], q_ay[0, 0]) * m * epsilon - 4 * log_term)
    tp_bound = gamma + 8 * log_term / (np.minimum(q_ay[:, 1], q_ay[0, 1]) * m * epsilon - 4 * log_term)
    within = 0
    runs = 200
    for seed in range(runs):
        model = fit_binary(yhat, a, y, epsilon=epsilon, tol=gamma, options=ThresholdOptimizerOptions(beta=beta, privacy_slack=True),
                           random_state=seed)
        error, fp_gap, tp_gap = error_and_gaps(model.mixing_rates_.T, q)
        within += (error <= error_bound + 1e-9) and np.all(fp_gap <= fp_bound + 1e-9) and np.all(
            tp_gap <= tp_bound + 1e-9)
    assert within >= (1 - beta) * runs


def test_large_epsilon_converges_to_the_non_private_solution():
    yhat, a, y = binary_problem()
    exact = fit_binary(yhat, a, y, epsilon=np.inf)
    private = fit_binary(yhat, a, y, epsilon=1e5)
    q = table(yhat, a, y, 3)
    assert error_and_gaps(private.mixing_rates_.T, q)[0] == pytest.approx(
        error_and_gaps(exact.mixing_rates_.T, q)[0], abs=1e-3)


@SLACK_MAY_NOT_BIND
def test_released_table_noise_has_stated_scale_on_neighbouring_datasets():
    """Two datasets differing in one person's sensitive attribute: noise is Laplace(2 / (m epsilon)) on both."""
    yhat, a, y = binary_problem(m=2000)
    a_neighbour = a.copy()
    a_neighbour[0] = (a[0] + 1) % 3
    epsilon, m = 0.8, yhat.size
    scale = 2 / (m * epsilon)
    for groups in (a, a_neighbour):
        exact = table(yhat, groups, y, 3).transpose(1, 0, 2)             # (a, yhat, y), the release's layout
        noise = np.concatenate([(fit_binary(yhat, groups, y, epsilon=epsilon, random_state=s).noisy_table_ - exact)
                                .ravel() for s in range(150)])
        assert abs(np.mean(np.abs(noise)) - scale) < 5 * scale / math.sqrt(noise.size)
    exact_a = table(yhat, a, y, 3)
    exact_b = table(yhat, a_neighbour, y, 3)
    assert np.abs(exact_a - exact_b).sum() == pytest.approx(2 / m)      # the L1 sensitivity is attained


@SLACK_MAY_NOT_BIND
def test_mixing_rates_come_only_from_the_released_table(monkeypatch):
    released = np.array([[[0.2, 0.05], [0.05, 0.1]], [[0.15, 0.05], [0.1, 0.3]]])

    def fake_release(counts, n, **kwargs):
        return released.reshape(2, 4).copy(), PrivacySpend(1.0)

    monkeypatch.setattr(module, "release_counts", fake_release)
    # Same size m (public: it enters the slack), otherwise unrelated data.
    first = fit_binary(*binary_problem(m=600, n_groups=2, seed=1))
    second = fit_binary(*binary_problem(m=600, n_groups=2, seed=7))
    np.testing.assert_array_equal(first.mixing_rates_, second.mixing_rates_)
    np.testing.assert_array_equal(first.noisy_table_, released)


def test_negative_and_empty_noisy_cells_do_not_crash():
    yhat, a, y = binary_problem(m=60, n_groups=3, seed=3)
    with pytest.warns(FairnessWarning, match="noisy mass of group index|cannot bind"):
        model = fit_binary(yhat, a, y, epsilon=0.05, random_state=4)
    assert np.all((model.mixing_rates_ >= 0) & (model.mixing_rates_ <= 1))
    assert np.all(model.table_ >= 0) and model.table_.sum() == pytest.approx(1.0)
    assert np.any(np.isinf(model.slack_["tpr"]) | np.isinf(model.slack_["fpr"]))


def test_slack_matches_the_papers_formula_for_binary_predictions():
    yhat, a, y = binary_problem()
    model = fit_binary(yhat, a, y, epsilon=0.7, options=ThresholdOptimizerOptions(beta=0.1, privacy_slack=True))
    mass = model.group_label_mass_
    expected = 4 * math.log(4 * 3 / 0.1) / (np.minimum(mass[:, 1], mass[0, 1]) * yhat.size * 0.7)
    np.testing.assert_allclose(model.slack_["tpr"][1:], expected[1:])
    assert model.slack_["tpr"][0] == 0


@SLACK_MAY_NOT_BIND
def test_accountant_charged_once_and_same_seed_same_predictions():
    yhat, a, y = binary_problem()
    acc = BudgetAccountant()
    one = fit_binary(yhat, a, y, accountant=acc, epsilon=0.5, random_state=3)
    assert acc.spent_budget == [(0.5, 0.0)] and one.privacy_spent_ == PrivacySpend(0.5)
    two = fit_binary(yhat, a, y, epsilon=0.5, random_state=3)
    np.testing.assert_array_equal(one.mixing_rates_, two.mixing_rates_)
    np.testing.assert_array_equal(one.predict(yhat[:, None], sensitive_features=a, random_state=1),
                                  two.predict(yhat[:, None], sensitive_features=a, random_state=1))
    gauss = BudgetAccountant()
    fit_binary(yhat, a, y, accountant=gauss, epsilon=1.0, delta=1e-6)
    assert gauss.spent_budget == [(1.0, 1e-6)]


def test_predict_samples_the_mixing_rates():
    yhat, a, y = binary_problem()
    model = fit_binary(yhat, a, y)
    x, groups = np.ones((40_000, 1)), np.full(40_000, 2)
    p = model.mixing_rates_[2, 1]
    draws = model.predict(x, sensitive_features=groups, random_state=0)
    assert abs(draws.mean() - p) < 5 * math.sqrt(p * (1 - p) / draws.size) + 1e-12


def test_flip_false_only_mixes_thresholds():
    yhat, a, y = binary_problem()
    model = fit_binary(yhat, a, y, flip=False, epsilon=np.inf)
    # Without flips, P(1 | yhat = 1) >= P(1 | yhat = 0) in every group (a mixture of thresholds is monotone).
    assert np.all(model.mixing_rates_[:, 1] >= model.mixing_rates_[:, 0] - 1e-9)


def test_clone_params_pickle_and_sklearn_estimator(accountant=None):
    scores, a, y = score_problem(m=1500)
    X = np.column_stack([scores, np.random.default_rng(0).normal(size=scores.size)])
    base = LogisticRegression().fit(X, y)
    acc = BudgetAccountant()
    model = DPThresholdOptimizer(estimator=base, prefit=True, constraints="equalized_odds", epsilon=2.0,
                                 groups=[0, 1, 2], accountant=acc, random_state=0)
    assert clone(model).accountant is acc and clone(model).get_params()["epsilon"] == 2.0
    model.fit(X, y, sensitive_features=pd.Series(a, name="group"))
    assert model.mode_ == "scores" and model._predict_method == "predict_proba"
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X, sensitive_features=a, random_state=2),
                                  model.predict(X, sensitive_features=a, random_state=2))


def test_record_privacy_unit_warns_about_non_private_estimator():
    scores, a, y = score_problem(m=600)
    with pytest.warns(PrivacyWarning, match="NOT differentially private"):
        DPThresholdOptimizer(estimator=LogisticRegression(), privacy_unit="record", groups=[0, 1, 2],
                             accountant=BudgetAccountant(), random_state=0).fit(scores[:, None], y,
                                                                                 sensitive_features=a)


@pytest.mark.parametrize("kwargs, data, error, match", [
    ({"epsilon": 0}, {}, ValueError, "epsilon"),
    ({"options": ThresholdOptimizerOptions(beta=0)}, {}, ValueError, "options.beta"),
    ({"options": ThresholdOptimizerOptions(beta=1.5)}, {}, ValueError, "options.beta"),
    ({"options": {"beta": 0.1}}, {}, TypeError, "options must be a ThresholdOptimizerOptions or None"),
    ({"constraints": "equal_everything"}, {}, ValueError, "constraints"),
    ({"objective": "selection_rate"}, {}, ValueError, "objective"),
    ({"privacy_unit": "row"}, {}, ValueError, "privacy_unit"),
    ({"tol": -0.1}, {}, ValueError, "tol"),
    ({}, {"y": "three"}, ValueError, "Supplied y labels are not 0 or 1"),       # Fairlearn's message
    ({"options": ThresholdOptimizerOptions(n_score_bins=0), "predict_method": "predict_proba"}, {}, ValueError,
     "options.n_score_bins must be >= 1"),
    ({"options": ThresholdOptimizerOptions(n_score_bins=10_001)}, {}, ValueError,
     "options.n_score_bins must be <= 10000"),
    ({"options": ThresholdOptimizerOptions(privacy_slack="yes")}, {}, TypeError, "options.privacy_slack"),
    ({"score_range": (1, 0)}, {}, ValueError, "score_range"),
    ({}, {"yhat": "scores"}, ValueError, "binary base predictions"),
    ({"groups": [0, 1]}, {}, ValueError, "unseen group"),
    ({"predict_method": "decision_function"}, {}, ValueError, "score_range"),
])
def test_bad_input(kwargs, data, error, match):
    yhat, a, y = binary_problem(m=500)
    if data.get("y") == "three":
        y = y.copy()
        y[0] = 2
    if data.get("y") == "missing_label":
        y = np.where(a == 1, 0, y)
    if data.get("yhat") == "scores":
        yhat = yhat * 0.7
    params = {"predict_method": "predict", "constraints": "equalized_odds"}
    params.update(kwargs)
    acc = BudgetAccountant()
    with pytest.raises(error, match=match):
        fit_binary(yhat, a, y, accountant=acc, **params)
    assert acc.spent_budget == []


@SLACK_MAY_NOT_BIND
def test_unseen_group_at_predict():
    yhat, a, y = binary_problem(m=500)
    model = fit_binary(yhat, a, y)
    with pytest.raises(ValueError, match="unseen group"):
        model.predict(yhat[:3, None], sensitive_features=[0, 1, 9])


@SLACK_MAY_NOT_BIND
def test_score_error_bound_solves_its_tail_equation_and_the_slack_is_optional():
    """With B score bins and Laplace noise of scale b = 2 / (m epsilon), E solves n_slices (P(positive parts > E) +
    8 P(noise sum > E)) = beta over the B cells of a slice (3 groups x 1 rate here); s_a = E / q~_a, and the slack of
    group a is s_a + s_0. The default (no slack) keeps the same bounds and enforces exact parity on the release."""
    from fairlearn_dp.postprocessing._mixing_lp import laplace_sum_sf, positive_part_sum_sf

    scores, a, y = score_problem(m=3000)
    model = DPThresholdOptimizer(constraints="true_positive_rate_parity", epsilon=0.5, groups=[0, 1, 2],
                                 options=ThresholdOptimizerOptions(beta=0.1, n_score_bins=8, privacy_slack=True),
                                 accountant=BudgetAccountant(), random_state=0)
    model.fit(scores[:, None], y, sensitive_features=a)
    mass = model.group_label_mass_[:, 1]
    budget = model.rate_error_["tpr"] * mass
    np.testing.assert_allclose(budget, budget[0], rtol=1e-12)          # one E for every group
    u = budget[0] / (2 / (3000 * 0.5))
    assert 3 * (positive_part_sum_sf(u, 8) + 8 * laplace_sum_sf(u, 8)) == pytest.approx(0.1, rel=1e-8)
    own = model.rate_error_["tpr"]
    np.testing.assert_allclose(model.slack_["tpr"], np.r_[0.0, own[1:] + own[0]])
    strict = clone(model).set_params(options=ThresholdOptimizerOptions(beta=0.1, n_score_bins=8)).fit(
        scores[:, None], y, sensitive_features=a)
    assert np.all(strict.slack_["tpr"] == 0)
    np.testing.assert_array_equal(strict.rate_error_["tpr"], own)       # same release, same bounds
    rates = strict._pmf_predict(scores[:, None], sensitive_features=a)[:, 1]
    private_tpr = [np.sum(strict.mixing_rates_[g] * strict.table_[g, :, 1]) / strict.table_[g, :, 1].sum()
                   for g in range(3)]
    assert np.ptp(private_tpr) <= 1e-6                # exact parity on the private statistics
    assert rates.shape == (3000,)
    assert DPThresholdOptimizer().get_params()["options"] is None
    assert ThresholdOptimizerOptions().privacy_slack is False


@SLACK_MAY_NOT_BIND
def test_gaussian_release_for_positive_delta():
    yhat, a, y = binary_problem()
    model = fit_binary(yhat, a, y, epsilon=1.0, delta=1e-5, random_state=1)
    assert np.all(np.isfinite(model.slack_["tpr"])) and model.slack_["tpr"][1] > 0
    assert model.privacy_spent_ == PrivacySpend(1.0, 1e-5)


@pytest.mark.parametrize("constraints, objective, flip", [
    ("equalized_odds", "accuracy_score", True), ("equalized_odds", "balanced_accuracy_score", False),
    ("demographic_parity", "selection_rate", False), ("true_positive_rate_parity", "true_negative_rate", True),
    ("false_positive_rate_parity", "true_positive_rate", False),
    ("equalized_odds", "sum_of_group_tpr_minus_fpr", True)])
def test_linprog_and_cvxpy_solve_the_same_lp(constraints, objective, flip):
    scores, a, y = score_problem(m=3000, seed=4)
    # a single rate as the objective may be maximised by a constant rule in every group (which the fit reports),
    # depending on the optimal vertex each solver returns: not what is compared here
    constant = objective in ("selection_rate", "true_negative_rate", "true_positive_rate")
    fits = []
    for solver in ("linprog", "HIGHS"):
        with warnings.catch_warnings():
            if constant:
                warnings.filterwarnings("ignore", "The fitted post-processor ignores", UtilityWarning)
            fits.append(DPThresholdOptimizer(
                constraints=constraints, objective=objective, flip=flip, epsilon=2.0, tol=0.01, options=ThresholdOptimizerOptions(n_score_bins=12, solver=solver),
                groups=[0, 1, 2], accountant=BudgetAccountant(), random_state=3).fit(
                scores[:, None], y, sensitive_features=a))
    assert fits[0].objective_value_ == pytest.approx(fits[1].objective_value_, abs=1e-8)
    # The optimum can be degenerate, so compare the objective, and check both solutions satisfy the constraints
    # on the private table they were fitted on.
    for fit in fits:
        t, m = fit.table_, fit.mixing_rates_
        private = {"tpr": (m * t[:, :, 1]).sum(1) / t[:, :, 1].sum(1), "fpr": (m * t[:, :, 0]).sum(1) / t[:, :, 0].sum(1),
                   "selection": (m * t.sum(2)).sum(1) / t.sum((1, 2))}
        for rate in module._CONSTRAINT_RATES[constraints]:
            gaps = np.abs(private[rate] - private[rate][0])
            assert np.all(gaps <= 0.01 + fit.slack_[rate] + 1e-7)


def test_unknown_solver():
    yhat, a, y = binary_problem(m=300)
    with pytest.raises(ValueError, match="solver"):
        fit_binary(yhat, a, y, options=ThresholdOptimizerOptions(solver="NOPE"))


def test_vacuous_slack_is_reported():
    yhat, a, y = binary_problem(m=2000)
    with pytest.warns(FairnessWarning, match="cannot bind"):
        model = fit_binary(yhat, a, y, epsilon=0.05, random_state=0)
    assert max(np.max(v[np.isfinite(v)]) for v in model.slack_.values()) >= 1


def test_drop_in_keeps_fairlearns_truth_value_reading_of_flip_and_prefit():
    """At epsilon=inf the fit is Fairlearn's, so ``prefit=1, flip=0`` (truth values, as Fairlearn reads them) give
    Fairlearn's predictions; at a finite epsilon the DP path asks for a real bool, before the budget."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] > 0).astype(int)
    sf = rng.integers(0, 2, 400)
    est = LogisticRegression().fit(X, y)
    theirs = ThresholdOptimizer(estimator=est, prefit=1, flip=0).fit(X, y, sensitive_features=sf)
    ours = DPThresholdOptimizer(estimator=est, prefit=1, flip=0, epsilon=math.inf).fit(X, y, sensitive_features=sf)
    assert np.array_equal(ours.predict(X, sensitive_features=sf, random_state=0),
                          theirs.predict(X, sensitive_features=sf, random_state=0))
    accountant = BudgetAccountant()
    with pytest.raises(TypeError, match="prefit"):
        DPThresholdOptimizer(estimator=est, prefit=1, epsilon=1.0, groups=[0, 1],
                             accountant=accountant).fit(X, y, sensitive_features=sf)
    assert accountant.spent_budget == []


class _FairnessScorer:
    """Accuracy minus the demographic parity difference. A scorer of ``make_scorer`` cannot be used: scikit-learn
    calls ``predict(X)`` without metadata, and a post-processor needs each row's group to predict."""

    def __call__(self, estimator, X, y, sensitive_features):
        from fairlearn.metrics import demographic_parity_difference

        y_pred = estimator.predict(X, sensitive_features=sensitive_features, random_state=0)
        return float(np.mean(y_pred == y)) - demographic_parity_difference(y, y_pred,
                                                                            sensitive_features=sensitive_features)

    def get_metadata_routing(self):
        from sklearn.utils.metadata_routing import MetadataRequest

        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="sensitive_features", alias=True)
        return request


def test_grid_search_with_routed_sensitive_features_and_a_fairness_scorer():
    """GridSearchCV with metadata routing: the groups go to every fit (set_fit_request) and to the scorer, which
    passes them to predict; every fit charges the shared accountant (grid points x folds + the refit)."""
    import sklearn
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 1500)
    X = rng.normal(size=(1500, 2))
    X[:, 0] += 0.5 * a
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=1500) > 0.5).astype(int)
    accountant = BudgetAccountant()
    with sklearn.config_context(enable_metadata_routing=True):
        model = DPThresholdOptimizer(estimator=LogisticRegression(), constraints="demographic_parity",
                                     predict_method="predict_proba", epsilon=0.5, groups=[0, 1, 2],
                                     accountant=accountant, random_state=0)
        model.set_fit_request(sensitive_features=True).set_predict_request(sensitive_features=True)
        grid = GridSearchCV(model, {"tol": [0.0, 0.05], "options": [ThresholdOptimizerOptions(n_score_bins=5),
                                                          ThresholdOptimizerOptions(n_score_bins=10)]}, scoring=_FairnessScorer(), cv=2,
                            error_score="raise")
        grid.fit(X, y, sensitive_features=a)
        # The standard scorer reaches predict without the groups (scikit-learn routes metadata to score only).
        standard = make_scorer(lambda y, y_pred, sensitive_features: 0.0).set_score_request(sensitive_features=True)
        with pytest.raises(TypeError, match="sensitive_features"):
            GridSearchCV(model, {"tol": [0.0]}, scoring=standard, cv=2, error_score="raise").fit(
                X, y, sensitive_features=a)
    assert accountant.spent_budget[:9] == [(0.5, 0.0)] * 9            # 4 points x 2 folds, then the refit
    assert set(grid.best_params_) == {"tol", "options"} and np.isfinite(grid.best_score_)
    assert grid.best_estimator_.accountant is accountant
    assert grid.best_estimator_.predict(X[:5], sensitive_features=a[:5], random_state=0).shape == (5,)


def test_a_missing_label_is_named_as_missing_and_fairlearns_message_is_kept_at_infinite_epsilon():
    """Before: a NaN label was "Supplied y labels are not 0 or 1" at every epsilon. At finite epsilon (and without
    an estimator, a mode Fairlearn lacks) it is named as missing, with no value; at epsilon = inf with an estimator
    the fit is Fairlearn's, with Fairlearn's own message."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    a = np.tile([0, 1], 20)
    y = np.tile([0.0, 1.0], 20)
    y[3] = np.nan
    settings = {"constraints": "demographic_parity", "predict_method": "predict_proba", "groups": [0, 1], "random_state": 0}
    with pytest.raises(ValueError, match=r"^`y` contains missing labels \(NaN/None\): labels must be 0 or 1\.$"):
        DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=1.0, accountant=BudgetAccountant(),
                             **settings).fit(X, y, sensitive_features=a)
    with pytest.raises(ValueError, match=r"^`y` contains missing labels"):
        DPThresholdOptimizer(estimator=None, epsilon=math.inf, accountant=BudgetAccountant(),
                             **{**settings, "predict_method": "auto"}).fit(X[:, :1], y, sensitive_features=a)
    with pytest.raises(ValueError, match="^Supplied y labels are not 0 or 1$"):
        DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf, accountant=BudgetAccountant(),
                             **settings).fit(X, y, sensitive_features=a)
