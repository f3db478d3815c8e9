"""DPExponentiatedGradient (Jagielski et al. 2019, Alg. 3): Fairlearn equivalence at epsilon=inf, noise scales,
composition, sensitivities checked on neighbouring datasets, exponential mechanism, bad input."""

import math

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import (
    BoundedGroupLoss,
    DemographicParity,
    EqualizedOdds,
    ErrorRate,
    ExponentiatedGradient,
    FalsePositiveRateParity,
    TruePositiveRateParity,
    ZeroOneLoss,
)
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler
from threadpoolctl import threadpool_limits

from fairlearn_dp.privacy._composition import advanced_composition_epsilon
from fairlearn_dp.privacy._exponential import exponential_mechanism, exponential_mechanism_probabilities
from fairlearn_dp.privacy._selection import selection_split
from fairlearn_dp.reductions import DPExponentiatedGradient, JagielskiExponentiatedGradient, linear_threshold_hypotheses
from fairlearn_dp.reductions._hypotheses import hypothesis_predictions

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the game's
    # releases, budget and seeding, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]


@pytest.fixture(scope="module")
def adult_3000(adult):
    """3,000 rows of the shared ``adult``: numeric columns scaled into [-1, 1], labels 0/1, sex."""
    bunch = adult
    X = MinMaxScaler((-1, 1)).fit_transform(bunch.data.select_dtypes("number"))
    y = (np.asarray(bunch.target) == ">50K").astype(int)
    a = np.asarray(bunch.sensitive_features["sex"])
    rows = np.random.default_rng(0).permutation(len(y))[:3000]
    return X[rows], y[rows], a[rows]


def synthetic(seed, n=600, n_features=3):
    rng = np.random.default_rng(seed)
    a = rng.choice(["a", "b"], size=n, p=[0.6, 0.4])
    X = rng.uniform(-1, 1, (n, n_features))
    logits = 2 * X[:, 0] - X[:, 1] + 0.8 * (a == "a")
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logits))).astype(int)
    return X, y, a


def error_and_violation(model, X, y, a, events):
    """Expected error of the randomized classifier and its largest between-group gap of E[h | event]."""
    p = model._pmf_predict(X)[:, 1]
    error = float(np.mean(p * (1 - y) + (1 - p) * y))
    gaps = []
    for label in events:
        mask = np.ones_like(y, dtype=bool) if label is None else (y == label)
        means = [p[mask & (a == g)].mean() for g in np.unique(a)]
        gaps.append(max(means) - min(means))
    return error, max(gaps)


@pytest.mark.parametrize("moment, events", [(EqualizedOdds, (0, 1)), (DemographicParity, (None,))])
def test_matches_fairlearn_at_epsilon_inf_with_the_exact_oracle(adult_3000, moment, events):
    """At epsilon=inf with an estimator the fit is Fairlearn's own: same plays, same weights (its final LP included),
    hence the same randomized classifier, error and violation on the training data."""
    X, y, a = adult_3000
    # One BLAS thread: SciPy 1.17's L-BFGS-B calls BLAS on tiny vectors, and on a busy 2-core machine a thread pool
    # makes each LogisticRegression fit ~20x slower (for both libraries alike).
    with threadpool_limits(limits=1):
        reference = ExponentiatedGradient(LogisticRegression(), moment(difference_bound=0.02), eps=0.1).fit(
            X, y, sensitive_features=a)
        ours = DPExponentiatedGradient(LogisticRegression(), moment(difference_bound=0.02), eps=0.1,
                                       epsilon=math.inf, groups=["Female", "Male"]).fit(X, y, sensitive_features=a)
    assert ours.oracle_ == "estimator" and ours.max_iter is None            # None: Fairlearn's 50 rounds
    assert ours.last_iter_ == reference.last_iter_
    np.testing.assert_array_equal(ours.weights_.to_numpy(), reference.weights_.to_numpy())
    np.testing.assert_array_equal(ours._pmf_predict(X), reference._pmf_predict(X))
    np.testing.assert_array_equal(ours.predict(X, random_state=0), reference.predict(X, random_state=0))
    assert error_and_violation(ours, X, y, a, events) == error_and_violation(reference, X, y, a, events)
    assert ours.privacy_spent_.epsilon == math.inf


def neighbours(unit, label, seed=3):
    """D and D' differing in one unit of the relation, at a record of group "a" with label ``label`` (so that it
    lies in the moment's event); returns (X, y, a), (X', y', a')."""
    X, y, a = synthetic(seed, n=300)
    X2, y2, a2 = X.copy(), y.copy(), a.copy()
    j = int(np.flatnonzero((a == "a") & (y == label))[0])
    a2[j] = "b"
    if unit == "record":
        X2[j] = -X[j]
        y2[j] = 1 - y[j]
    return (X, y, a), (X2, y2, a2)


def costs_and_gammas(moment_cls, X, y, a, hypotheses, lam):
    moment = moment_cls(difference_bound=0.0)
    moment.load_data(X, pd.Series(y), sensitive_features=pd.Series(a))
    U = moment.U.to_numpy(dtype=float)
    P = hypothesis_predictions(hypotheses, X).astype(float)
    n = len(y)
    gammas = -(U.T @ P) / n
    costs = ((1 - 2 * y) / n) @ P + lam @ gammas
    return costs, gammas, moment.tags.groupby(["event", "group_id"]).size().min()


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("moment_cls", [EqualizedOdds, DemographicParity, TruePositiveRateParity,
                                        FalsePositiveRateParity])
def test_declared_sensitivities_bound_the_change_between_neighbours(unit, moment_cls):
    """For many hypotheses and multipliers with ||lambda||_1 = B, the violation vector moves by at most the declared
    L1 sensitivity and the Learner's cost by at most the declared cost sensitivity."""
    (X, y, a), (X2, y2, a2) = neighbours(unit, label=1 if moment_cls is TruePositiveRateParity else 0)
    hypotheses = linear_threshold_hypotheses(3, n_directions=20, n_thresholds=8, random_state=1)
    rng = np.random.default_rng(4)
    n_min = None
    worst_gamma = worst_cost = 0.0
    for _ in range(20):
        probe = moment_cls(difference_bound=0.0)
        probe.load_data(X, pd.Series(y), sensitive_features=pd.Series(a))
        lam = rng.dirichlet(np.ones(len(probe.index))) * 10.0
        c1, g1, n1 = costs_and_gammas(moment_cls, X, y, a, hypotheses, lam)
        c2, g2, _ = costs_and_gammas(moment_cls, X2, y2, a2, hypotheses, lam)
        n_min = n1
        worst_gamma = max(worst_gamma, np.abs(g1 - g2).sum(axis=0).max())
        worst_cost = max(worst_cost, np.abs(c1 - c2).max())
    model = JagielskiExponentiatedGradient(moment_cls(difference_bound=0.0), epsilon=1.0, bound_B=10.0,
                                    oracle="exponential", hypotheses=hypotheses, min_count=int(n_min), max_iter=1,
                                    privacy_unit=unit, groups=["a", "b"], accountant=BudgetAccountant(),
                                    random_state=0).fit(X, y, sensitive_features=a)
    assert worst_gamma > 0 and worst_cost > 0
    assert worst_gamma <= model.sensitivity_["auditor_l1"] * (1 + 1e-12)
    assert worst_cost <= model.sensitivity_["learner"] * (1 + 1e-12)


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("moment_cls", [EqualizedOdds, DemographicParity])
def test_regression_oracle_sensitivity_bounds_the_change_of_its_release(unit, moment_cls):
    """The regression oracle releases [X, 1]^T c (c: per-record cost of predicting 1 minus 0); between neighbours it
    moves by at most the declared L1 sensitivity for every lambda with ||lambda||_1 <= B."""
    (X, y, a), (X2, y2, a2) = neighbours(unit, label=0)
    worst, n_min = 0.0, None
    rng = np.random.default_rng(5)
    for _ in range(50):
        releases = []
        for Xd, yd, ad in ((X, y, a), (X2, y2, a2)):
            moment = moment_cls(difference_bound=0.0)
            moment.load_data(Xd, pd.Series(yd), sensitive_features=pd.Series(ad))
            U = moment.U.to_numpy(dtype=float)
            if n_min is None:
                n_min = moment.tags.groupby(["event", "group_id"]).size().min()
            releases.append((U, yd, Xd))
        lam = rng.dirichlet(np.ones(releases[0][0].shape[1])) * 10.0
        values = []
        for U, yd, Xd in releases:
            c = (1 - 2 * yd) / len(yd) - U @ lam / len(yd)
            values.append(np.column_stack([Xd, np.ones(len(yd))]).T @ c)
        worst = max(worst, np.abs(values[0] - values[1]).sum())
    model = JagielskiExponentiatedGradient(moment_cls(difference_bound=0.0), epsilon=1.0, bound_B=10.0,
                                    oracle="regression", min_count=int(n_min), max_iter=1, privacy_unit=unit,
                                    groups=["a", "b"], accountant=BudgetAccountant(), random_state=0).fit(
        X, y, sensitive_features=a)
    assert 0 < worst <= model.sensitivity_["regression_l1"]


def test_auditor_noise_is_laplace_with_the_documented_scale():
    """The released violations minus the exact violations of the released plays are Laplace(0, b) with
    b = (4 / (N - 1)) / epsilon': mean 0 (a scale, not a location) and standard deviation sqrt(2) b."""
    X, y, a = synthetic(5, n=2000)
    model = JagielskiExponentiatedGradient(EqualizedOdds(difference_bound=0.05), epsilon=2.0, delta=1e-6,
                                    oracle="regression", min_count=100, max_iter=300, groups=["a", "b"],
                                    accountant=BudgetAccountant(), random_state=1).fit(X, y, sensitive_features=a)
    b = (4 / (100 - 1)) / model.epsilon_per_mechanism_
    assert model.history_["noise_scale"] == pytest.approx(b)
    moment = EqualizedOdds(difference_bound=0.05)
    moment.load_data(X, pd.Series(y), sensitive_features=pd.Series(a))
    U = moment.U.to_numpy(dtype=float)
    residuals = []
    for t, index in enumerate(model.history_["hypothesis"]):
        h = model.predictors_[index]
        exact = -(U.T @ h.predict(X)) / len(y)
        residuals.append(model.history_["noisy_gamma"][t] - exact)
    residuals = np.concatenate(residuals)
    sd = math.sqrt(2) * b
    assert abs(residuals.mean()) < 5 * sd / math.sqrt(residuals.size)
    # The sample sd of Laplace has relative standard error sqrt((kurtosis - 1) / (4 N)) = sqrt(5 / (4 N)).
    assert abs(residuals.std() / sd - 1) < 5 * math.sqrt(5 / (4 * residuals.size))


@pytest.mark.parametrize("epsilon, delta, T", [(1.0, 1e-7, 5), (1.0, 1e-7, 400), (8.0, 1e-5, 50),
                                               (0.5, 0.0, 20)])
def test_rounds_compose_within_the_budget_and_the_accountant_is_charged_once(epsilon, delta, T):
    X, y, a = synthetic(6, n=5000)
    acc = BudgetAccountant()
    min_count = 20 if delta == 0 else None
    model = JagielskiExponentiatedGradient(EqualizedOdds(), epsilon=epsilon, delta=delta, oracle="regression",
                                    max_iter=T, min_count=min_count, groups=["a", "b"], accountant=acc,
                                    random_state=0).fit(X, y, sensitive_features=a)
    eps_rounds = epsilon if min_count else epsilon * (1 - model.min_count_fraction)
    delta_rounds = delta / 2
    e0 = model.epsilon_per_mechanism_
    composed = (advanced_composition_epsilon(e0, 2 * T, delta_rounds) if model.composition_ == "advanced"
                else 2 * T * e0)
    assert composed <= eps_rounds * (1 + 1e-12)
    assert composed >= eps_rounds * (1 - 1e-9)                    # and the budget is used, not wasted
    if delta > 0 and T >= 400:
        assert model.composition_ == "advanced"
    assert len(acc.spent_budget) == 1
    assert acc.spent_budget[0] == (epsilon, model.privacy_spent_.delta)
    assert model.privacy_spent_.epsilon == epsilon and model.privacy_spent_.delta <= delta


def test_record_level_regression_oracle_counts_its_gram_release():
    """Under privacy_unit="record" the regression oracle also releases X^T X once: 2T + 1 mechanisms."""
    X, y, a = synthetic(13, n=2000)
    model = JagielskiExponentiatedGradient(EqualizedOdds(), epsilon=1.0, delta=0.0, oracle="regression", max_iter=10,
                                    min_count=20, privacy_unit="record", groups=["a", "b"],
                                    accountant=BudgetAccountant(), random_state=0).fit(X, y, sensitive_features=a)
    # The game's part of epsilon (the rest pays for the choice against the constants) over 21 mechanisms.
    assert model.epsilon_per_mechanism_ == pytest.approx(selection_split(1.0)[0] / 21)
    assert model.sensitivity_["gram_l1"] == pytest.approx((3 + 1) * (3 + 2) * 1.0)


def test_private_min_count_is_a_lower_bound_and_a_low_estimate_degrades():
    X, y, a = synthetic(7, n=3000)
    moment = EqualizedOdds()
    moment.load_data(X, pd.Series(y), sensitive_features=pd.Series(a))
    true_min = moment.tags.groupby(["event", "group_id"]).size().min()
    estimates = [JagielskiExponentiatedGradient(EqualizedOdds(), epsilon=1.0, delta=1e-6, oracle="regression",
                                         max_iter=1, groups=["a", "b"], accountant=BudgetAccountant(),
                                         random_state=s).fit(X, y, sensitive_features=a).min_count_
                 for s in range(30)]
    margin = (2 / 0.1) * math.log(1 / 1e-6)
    assert max(estimates) <= true_min
    assert np.mean(estimates) == pytest.approx(true_min - margin, abs=3 * 2 / 0.1 * math.sqrt(2))
    # Too few rows for the margin: the released bound is below 2. It used to raise (after charging its share);
    # now N is floored at 2 and the fit goes on, charged once with the whole budget (issue 11: a released value
    # may decide a failure, but a degraded fit is the documented behaviour).
    acc = BudgetAccountant()
    X_small, y_small, a_small = synthetic(8, n=60)
    model = JagielskiExponentiatedGradient(EqualizedOdds(), epsilon=0.5, delta=1e-6, oracle="regression",
                                    groups=["a", "b"], accountant=acc, random_state=0).fit(
        X_small, y_small, sensitive_features=a_small)
    assert model.min_count_estimate_ < 2 and model.min_count_ == 2.0
    assert model.sensitivity_["auditor_l1"] == pytest.approx(4.0)
    assert acc.spent_budget == [(0.5, model.privacy_spent_.delta)]


def test_exponential_mechanism_probabilities_and_draws():
    costs = np.array([0.0, 0.1, 0.25, 0.25, 1.0])
    eps, sens = 3.0, 0.05
    expected = np.exp(-eps * costs / (2 * sens))
    expected /= expected.sum()
    np.testing.assert_allclose(exponential_mechanism_probabilities(costs, epsilon=eps, sensitivity=sens), expected,
                               rtol=1e-12)
    draws = np.array([exponential_mechanism(costs, epsilon=eps, sensitivity=sens, random_state=s)
                      for s in range(4000)])
    freq = np.bincount(draws, minlength=costs.size) / draws.size
    tolerance = 5 * np.sqrt(expected * (1 - expected) / draws.size) + 1e-12
    assert np.all(np.abs(freq - expected) <= tolerance)
    assert exponential_mechanism(costs, epsilon=math.inf, sensitivity=sens) == 0


def test_learner_play_follows_the_exponential_mechanism_over_the_class():
    """One round (lambda = 0 at t = 1): the play's distribution over a tiny class is exp(-eps' err / (2 Delta))."""
    X, y, a = synthetic(9, n=300)
    hypotheses = linear_threshold_hypotheses(3, n_directions=0, n_thresholds=2, random_state=0)
    errors = np.array([np.mean(h.predict(X) != y) for h in hypotheses])
    picks = []
    for seed in range(400):
        model = JagielskiExponentiatedGradient(DemographicParity(), epsilon=0.5, delta=0.0, oracle="exponential",
                                        hypotheses=hypotheses, min_count=50, max_iter=1, groups=["a", "b"],
                                        accountant=BudgetAccountant(), random_state=seed).fit(
            X, y, sensitive_features=a)
        picks.append(hypotheses.index(model.predictors_[0]))
    eps_prime, sens = model.epsilon_per_mechanism_, model.sensitivity_["learner"]
    assert eps_prime == pytest.approx(0.25)
    # At t = 1 theta = 0, so lambda = B / (K + 1) on every constraint: its cost term is the same for every h
    # (the "+" and "-" violations cancel), leaving the error.
    expected = exponential_mechanism_probabilities(errors, epsilon=eps_prime, sensitivity=sens)
    freq = np.bincount(picks, minlength=len(hypotheses)) / len(picks)
    assert np.all(np.abs(freq - expected) <= 5 * np.sqrt(expected * (1 - expected) / len(picks)) + 1e-12)


def test_same_seed_same_model_clone_keeps_accountant_and_predict_semantics():
    X, y, a = synthetic(10)
    acc = BudgetAccountant()
    hypotheses = linear_threshold_hypotheses(3, n_directions=8, n_thresholds=6, random_state=0)
    make = JagielskiExponentiatedGradient(EqualizedOdds(), epsilon=5.0, oracle="exponential", hypotheses=hypotheses,
                                   min_count=20, max_iter=30, groups=["a", "b"], accountant=acc, random_state=4)
    first = clone(make).fit(X, y, sensitive_features=a)
    second = clone(make).fit(X, y, sensitive_features=a)
    assert len(acc.spent_budget) == 2                             # clones charge the user's accountant
    np.testing.assert_array_equal(first.history_["noisy_gamma"], second.history_["noisy_gamma"])
    pmf = first._pmf_predict(X)
    np.testing.assert_allclose(pmf.sum(axis=1), 1.0)
    np.testing.assert_array_equal(first.predict(X, random_state=1), first.predict(X, random_state=1))
    assert set(np.unique(first.predict(X))) <= {0, 1}
    assert first.weights_.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("kwargs, data, match", [
    ({"oracle": "exponential", "hypotheses": []}, {}, "empty hypothesis class"),
    ({"constraints": BoundedGroupLoss(ZeroOneLoss())}, {}, "unsupported moment"),
    ({"constraints": ErrorRate()}, {}, "unsupported moment"),
    ({"constraints": DemographicParity(ratio_bound=0.8)}, {}, "ratio"),
    ({"epsilon": 0.0}, {}, "epsilon"),
    ({"epsilon": -1.0}, {}, "epsilon"),
    ({"epsilon": float("nan")}, {}, "epsilon"),
    ({"delta": 1.0}, {}, "delta"),
    ({"delta": -0.1}, {}, "delta"),
    ({"delta": 0.0}, {}, "min_count"),
    ({"oracle": "estimator"}, {}, "oracle"),
    ({"oracle": "diffprivlib"}, {}, "sample_weight"),
    ({"bound_B": 0}, {}, "bound_B"),
    ({"privacy_unit": "row"}, {}, "privacy_unit"),
    ({"min_count": 1}, {}, "min_count"),
    ({"groups": ["a", "c"]}, {}, "unseen group"),
    ({}, {"single": True}, "at least 2 groups"),
    ({}, {"labels": True}, "binary"),
    ({}, {"nan": True}, "NaN"),
    ({}, {"short_y": True}, "length mismatch"),
])
def test_bad_input(kwargs, data, match):
    X, y, a = synthetic(11)
    if data.get("single"):
        a = np.full_like(a, "a")
    if data.get("labels"):
        y = y + 1
    if data.get("nan"):
        X = X.copy()
        X[0, 0] = np.nan
    if data.get("short_y"):
        y = y[:-1]
    params = {"constraints": EqualizedOdds(), "epsilon": 1.0, "oracle": "regression",
                  "groups": ["a"] if data.get("single") else ["a", "b"], "accountant": BudgetAccountant(), "random_state": 0}
    params.update(kwargs)
    acc = params["accountant"]
    with pytest.raises((ValueError, TypeError), match=match):
        JagielskiExponentiatedGradient(**params).fit(X, y, sensitive_features=a)
    assert acc.spent_budget == []


def _first_feature_positive(X):
    return (np.asarray(X)[:, 0] > 0).astype(int)


def _never(X):
    return np.zeros(len(X), dtype=int)


def test_paper_mode_with_plain_callable_hypotheses_fits_and_predicts():
    """``hypotheses`` may be plain callables (documented): the plays are then callables too, and ``_pmf_predict``
    calls them (it used to call ``.predict`` after the charge, so such a fit always failed, charged)."""
    X, y, a = synthetic(21)
    accountant = BudgetAccountant()
    model = JagielskiExponentiatedGradient(DemographicParity(),
                                    hypotheses=[_first_feature_positive, _never], min_count=20, max_iter=5,
                                    epsilon=5.0, groups=["a", "b"], accountant=accountant,
                                    random_state=0).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == [(5.0, 0.0)]
    assert all(h in (_first_feature_positive, _never) for h in model.predictors_)
    expected = sum(w * h(X) for h, w in zip(model.predictors_, model.weights_, strict=False))
    np.testing.assert_allclose(model._mixture_pmf(X)[:, 1], expected, rtol=0, atol=1e-12)
    choice = model.constant_choice_                 # the fit ends with the choice against the fair constants
    np.testing.assert_allclose(model._pmf_predict(X)[:, 1], choice.constant if choice.is_constant else expected,
                               rtol=0, atol=1e-12)
    assert set(np.unique(model.predict(X, random_state=0))) <= {0, 1}


@pytest.mark.parametrize("hypotheses, error", [([_never, 3], TypeError), ("ab", TypeError), (5, TypeError),
                                                ([], ValueError)])
def test_bad_hypotheses_are_refused_before_the_budget(hypotheses, error):
    X, y, a = synthetic(22)
    accountant = BudgetAccountant()
    with pytest.raises(error, match="hypotheses"):
        JagielskiExponentiatedGradient(DemographicParity(), hypotheses=hypotheses, min_count=20,
                                max_iter=5, groups=["a", "b"], accountant=accountant).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == []
