"""ExponentialMechanismFairClassifier (Cummings et al. 2019, Alg. 1): utility, noisy group size, sampling law,
accounting, reproducibility, sklearn conventions and input validation."""

import functools
import itertools
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from scipy import stats
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from fairlearn_dp.exceptions import PrivacyWarning, UtilityWarning
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.reductions._exponential_mechanism_classifier import (
    ExponentialMechanismFairClassifier,
    _noisy_min_group_size,
    _utility_loss,
)
from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier, linear_threshold_hypotheses

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the mechanism's
    # selection probabilities, budget and seeding, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
]

# ------------------------------------------------------------------ the tiny hand-computed problem
# Base records (x, a, y); the dataset repeats them REPEAT times (rates and error are unchanged by repetition).
#   group 0: (0, 0, 0) (1, 0, 1) (2, 0, 1) (3, 0, 0)     positives at x = 1, 2
#   group 1: (0, 1, 1) (1, 1, 0) (2, 1, 1) (3, 1, 1)     positives at x = 0, 2, 3
BASE = [(0, 0, 0), (1, 0, 1), (2, 0, 1), (3, 0, 0), (0, 1, 1), (1, 1, 0), (2, 1, 1), (3, 1, 1)]
REPEAT = 5
N = len(BASE) * REPEAT                      # 40
MIN_POSITIVES = 2 * REPEAT                  # group 0 has 2 positives per copy, group 1 has 3
# Hypotheses: constant 0, 1[x >= 1.5], 1[x >= 0.5], constant 1.
#   const 0 : TPR (0, 0)      Gamma 0    err 5/8 (the 5 positives)        u = 15/24
#   x >= 1.5: TPR (1/2, 2/3)  Gamma 1/6  err 3/8 (x=1,y=1; x=3,y=0 | x=0,y=1)  u = 3/8 + 1/6 = 13/24
#   x >= 0.5: TPR (1, 2/3)    Gamma 1/3  err 3/8 (x=3,y=0 | x=0,y=1; x=1,y=0)  u = 3/8 + 1/3 = 17/24
#   const 1 : TPR (1, 1)      Gamma 0    err 3/8 (the 3 negatives)        u = 9/24
GAMMA = np.array([0.0, 1 / 6, 1 / 3, 0.0])
ERR = np.array([5 / 8, 3 / 8, 3 / 8, 3 / 8])
U_HAND = np.array([15, 13, 17, 9]) / 24


def tiny_hypotheses():
    return [LinearThresholdClassifier([0.0], 1.0), LinearThresholdClassifier([1.0], 1.5),
            LinearThresholdClassifier([1.0], 0.5), LinearThresholdClassifier([0.0], 0.0)]


# epsilon = 8: 0.1 of it for the final choice against the constants, the rest halved (Algorithm 1's two steps).
EPS_HALF = (8.0 - 0.1 * 8.0) / 2


def tiny_data():
    rows = BASE * REPEAT
    X = np.array([[x] for x, _, _ in rows], dtype=float)
    a = np.array([g for _, g, _ in rows])
    y = np.array([label for _, _, label in rows])
    return X, y, a


def make(**kwargs):
    """Algorithm 1 exactly: ``diagnostic_share=0`` (no diagnostic release; the diagnostic is tested in
    test_exponential_mechanism_degenerate.py)."""
    params = {"epsilon": 8.0, "diagnostic_share": 0.0, "groups": [0, 1], "accountant": BudgetAccountant(), "random_state": 0}
    params.update(kwargs)
    return ExponentialMechanismFairClassifier(tiny_hypotheses(), **params)


def em_probabilities(u, epsilon, sensitivity):
    """The paper's law, written out: exp(-eps u / (2 Delta)) normalised."""
    weights = np.exp(-epsilon * np.asarray(u) / (2 * sensitivity))
    return weights / weights.sum()


@functools.cache
def many_fits(n_fits, epsilon=8.0):
    """(chosen indices, sensitivities, released M) of n_fits fits of the tiny problem, seeds 0..n_fits-1."""
    X, y, a = tiny_data()
    chosen, sens, estimates = [], [], []
    for seed in range(n_fits):
        model = make(epsilon=epsilon, random_state=seed).fit(X, y, sensitive_features=a)
        chosen.append(model.hypothesis_index_)
        sens.append(model.sensitivity_)
        estimates.append(model.min_group_size_estimate_)
    return np.array(chosen), np.array(sens), np.array(estimates)


# ------------------------------------------------------------------ utility (Alg. 1, line 1)
def test_utility_matches_hand_computation():
    X, y, a = tiny_data()
    predictions = np.column_stack([h.predict(X) for h in tiny_hypotheses()])
    np.testing.assert_allclose(_utility_loss(predictions, y, a, 2), U_HAND, rtol=0, atol=1e-12)
    np.testing.assert_allclose(_utility_loss(predictions, y, a, 2, weight=2.0), 2 * GAMMA + ERR, rtol=0, atol=1e-12)


def test_utility_with_three_groups_uses_the_max_pairwise_tpr_gap():
    labels = np.array([1, 1, 1, 1, 1, 0])
    groups = np.array([0, 0, 1, 1, 2, 2])
    predictions = np.array([[1, 1], [1, 0], [1, 1], [0, 0], [0, 1], [1, 0]])
    # column 0: TPR (1, 1/2, 0) -> gap 1; errors at rows 3, 4, 5 -> 1/2.  column 1: TPR (1/2, 1/2, 1) -> gap 1/2;
    # errors at rows 1, 3 -> 1/3.
    np.testing.assert_allclose(_utility_loss(predictions, labels, groups, 3), [1.5, 0.5 + 1 / 3], atol=1e-12)
    # A declared group without positive examples has rate 0 by convention (documented): column 1's gap becomes 1.
    np.testing.assert_allclose(_utility_loss(predictions, labels, groups, 4), [1.5, 1 + 1 / 3], atol=1e-12)


@pytest.mark.parametrize("n_groups, weight", [(2, 1.0), (3, 1.0), (3, 2.5)])
def test_loss_changes_by_at_most_the_derived_sensitivity_between_neighbours(n_groups, weight):
    """|u(Z,h) - u(Z',h)| <= 2 w / max(m(Z), m(Z')) + 1/n (Privacy section), which the paper's Delta dominates."""
    rng = np.random.default_rng(1)
    n, n_h = 12, 30
    worst = 0.0
    for _ in range(1200):
        preds = rng.integers(0, 2, (n, n_h))
        labels = (rng.random(n) < 0.6).astype(int)
        groups = rng.integers(0, n_groups, n)
        i = rng.integers(n)
        preds2, labels2, groups2 = preds.copy(), labels.copy(), groups.copy()
        preds2[i], labels2[i], groups2[i] = rng.integers(0, 2, n_h), rng.integers(0, 2), rng.integers(n_groups)
        m = min(np.sum((labels == 1) & (groups == g)) for g in range(n_groups))
        m2 = min(np.sum((labels2 == 1) & (groups2 == g)) for g in range(n_groups))
        if max(m, m2) == 0:
            continue
        change = np.abs(_utility_loss(preds, labels, groups, n_groups, weight)
                        - _utility_loss(preds2, labels2, groups2, n_groups, weight)).max()
        bound = 2 * weight / max(m, m2) + 1 / n
        assert change <= bound + 1e-12
        worst = max(worst, change / bound)
    assert worst > 0.5          # the bound is not vacuous on these data


# ------------------------------------------------------------------ sampling law (Alg. 1, lines 4-5)
def test_selection_probabilities_follow_the_exponential_mechanism_formula():
    X, y, a = tiny_data()
    model = make().fit(X, y, sensitive_features=a)
    assert model.delta_ == pytest.approx(math.exp(-math.sqrt(N)), rel=1e-15)
    floor = model.min_group_size_estimate_ - 1                   # L = M - 1 (M >= 2 here)
    assert floor >= 2 and model.rate_floor_ == floor
    assert model.sensitivity_ == pytest.approx(max(2 / floor, 1 / floor + 1 / N), rel=1e-15)   # tight: 2 w / L
    assert model.exponential_mechanism_epsilon_ == EPS_HALF and model.min_group_size_epsilon_ == EPS_HALF
    expected = em_probabilities(U_HAND, EPS_HALF, model.sensitivity_)
    probabilities = model._selection_probabilities(X, y, sensitive_features=a)
    np.testing.assert_allclose(probabilities, expected, rtol=1e-12, atol=0)
    assert expected.min() > 0.02 and expected.max() < 0.9      # a non-degenerate law, so the next test has power
    # fairness_weight = 2 weighs Gamma twice and doubles its share of the sensitivity.
    weighted = make(fairness_weight=2.0).fit(X, y, sensitive_features=a)
    assert weighted.sensitivity_ == pytest.approx(4 / weighted.rate_floor_, rel=1e-15)
    np.testing.assert_allclose(weighted._selection_probabilities(X, y, sensitive_features=a),
                               em_probabilities(2 * GAMMA + ERR, EPS_HALF, weighted.sensitivity_), rtol=1e-12)


def test_empirical_selection_frequencies_match_the_formula():
    """Over seeds, #{chosen = k} - sum_s p_k(Delta_s) is a sum of independent centred Bernoulli terms (given each
    fit's released Delta_s), with variance sum_s p_k (1 - p_k): 4.5 standard deviations per hypothesis."""
    n_fits = 1000
    chosen, sens, _ = many_fits(n_fits)
    p = np.array([em_probabilities(U_HAND, EPS_HALF, s) for s in sens])   # (n_fits, |H|)
    counts = np.bincount(chosen, minlength=len(U_HAND))
    expected = p.sum(axis=0)
    sd = np.sqrt((p * (1 - p)).sum(axis=0))
    assert np.all(np.abs(counts - expected) <= 4.5 * sd), (counts, expected, sd)
    # Power: spending the whole epsilon (8) in the mechanism would shift the optimum's expected count by >> 4.5 sd.
    wrong = np.array([em_probabilities(U_HAND, 8.0, s) for s in sens]).sum(axis=0)
    assert abs(wrong[3] - expected[3]) > 2 * 4.5 * sd[3]


# ------------------------------------------------------------------ noisy group size (Alg. 1, lines 2-3)
def test_noisy_min_group_size_has_the_laplace_law():
    """M = min + Lap(1/eps) - ln(1/delta)/eps: mean, standard deviation sqrt(2)/eps, and the Laplace shape."""
    epsilon, delta, draws = 0.5, 1e-3, 20_000
    rng = np.random.RandomState(0)
    values = np.array([_noisy_min_group_size([30, 12, 50], epsilon=epsilon, delta=delta, random_state=rng)
                       for _ in range(draws)])
    scale = 1 / epsilon
    center = 12 - math.log(1 / delta) / epsilon
    # mean of n Laplace(b): sd sqrt(2) b / sqrt(n); sample variance: sd ~ sqrt(20 b^4 / n) (kurtosis 6).
    assert abs(values.mean() - center) <= 5 * math.sqrt(2) * scale / math.sqrt(draws)
    assert abs(values.var(ddof=1) / (2 * scale ** 2) - 1) <= 5 * math.sqrt(5 / draws)
    assert stats.kstest(values, stats.laplace(loc=center, scale=scale).cdf).pvalue > 1e-4


def test_released_min_group_size_uses_half_the_budget():
    """Through fit: M ~ m - sqrt(n)/eps_size + Lap(1/eps_size) (delta = exp(-sqrt(n)); eps_size = 0.9 eps / 2, the
    final choice against the constants takes 0.1 eps)."""
    _, sens, estimates = many_fits(1000)
    scale = 1 / EPS_HALF
    center = MIN_POSITIVES - math.sqrt(N) / EPS_HALF
    assert abs(estimates.mean() - center) <= 5 * math.sqrt(2) * scale / math.sqrt(estimates.size)
    assert abs(estimates.var(ddof=1) / (2 * scale ** 2) - 1) <= 5 * math.sqrt(5 / estimates.size)
    floors = np.maximum(estimates, 2) - 1
    np.testing.assert_allclose(sens, np.maximum(np.minimum(2 / floors, 1), 1 / floors + 1 / N), rtol=1e-13)


# ------------------------------------------------------------------ utility optimum with a huge epsilon
def synthetic(n_groups, seed=0, n=2000):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_groups, n)
    X = np.clip(rng.normal(0.2 * a[:, None] - 0.2, 0.4, (n, 2)), -1, 1)
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 0.3, n) > 0).astype(int)
    return X, y, a


def brute_force_gaps_and_errors(hypotheses, X, y, a, n_groups):
    """Independent re-implementation of Gamma^Z(h) = max_{a,b} |TPR_a - TPR_b| and err^Z(h)."""
    gaps, errors = [], []
    for h in hypotheses:
        pred = h.predict(X)
        tprs = [pred[(y == 1) & (a == g)].mean() for g in range(n_groups)]
        gaps.append(max(tprs) - min(tprs))
        errors.append(np.mean(pred != y))
    return np.array(gaps), np.array(errors)


@pytest.mark.parametrize("n_groups", [2, 3])
def test_huge_epsilon_picks_the_utility_optimum(n_groups):
    X, y, a = synthetic(n_groups)
    hypotheses = linear_threshold_hypotheses(2, n_directions=16, n_thresholds=8, random_state=0)
    gaps, errors = brute_force_gaps_and_errors(hypotheses, X, y, a, n_groups)
    losses = gaps + errors
    best = int(np.argmin(losses))
    assert np.sort(losses)[1] - losses[best] > 1e-3          # a unique optimum, so the check is meaningful
    for epsilon in (1e6, math.inf):
        model = ExponentialMechanismFairClassifier(hypotheses, epsilon=epsilon, groups=list(range(n_groups)),
                                                   accountant=BudgetAccountant(), random_state=1)
        model.fit(X, y, sensitive_features=a)
        assert model.hypothesis_index_ == best
        assert model.hypothesis_ == hypotheses[best]
        np.testing.assert_array_equal(model.predict(X), hypotheses[best].predict(X))


def test_fairness_weight_trades_error_for_fairness():
    X, y, a = synthetic(2, seed=3)
    hypotheses = linear_threshold_hypotheses(2, n_directions=16, n_thresholds=8, random_state=0)
    gaps, errors = brute_force_gaps_and_errors(hypotheses, X, y, a, 2)
    chosen = {}
    for weight in (0.01, 5.0):
        model = ExponentialMechanismFairClassifier(hypotheses, epsilon=math.inf, fairness_weight=weight,
                                                   groups=[0, 1], accountant=BudgetAccountant())
        chosen[weight] = model.fit(X, y, sensitive_features=a).hypothesis_index_
    assert chosen[0.01] != chosen[5.0]
    assert gaps[chosen[5.0]] < gaps[chosen[0.01]] and errors[chosen[5.0]] > errors[chosen[0.01]]


# ------------------------------------------------------------------ accounting
def test_accountant_charged_once_with_the_total():
    X, y, a = tiny_data()
    accountant = BudgetAccountant()
    model = make(epsilon=8.0, accountant=accountant).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == [(8.0, math.exp(-math.sqrt(N)))]
    assert model.privacy_spent_ == PrivacySpend(8.0, math.exp(-math.sqrt(N)))
    explicit = BudgetAccountant()
    model = make(epsilon=8.0, delta=1e-5, accountant=explicit).fit(X, y, sensitive_features=a)
    assert explicit.spent_budget == [(8.0, 1e-5)] and model.delta_ == 1e-5
    # the margin follows the given delta: E[M] = m - ln(1e5) / 4 (checked loosely: one draw, 6 Laplace scales)
    assert abs(model.min_group_size_estimate_ - (MIN_POSITIVES - math.log(1e5) / 4.0)) < 6 * 0.25


def test_budget_is_checked_before_the_data_are_read():
    X, y, a = tiny_data()
    accountant = BudgetAccountant(epsilon=4.0, delta=1e-3)
    with pytest.raises(BudgetError):
        make(epsilon=8.0, accountant=accountant).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == []


def test_too_small_noisy_group_size_degrades_instead_of_raising():
    """Group 1 has no positive example: M = 0 + Y - 20 <= 1 unless Y > 21 (probability e^-21 / 2). Today's main
    raised (after charging the Laplace step); the fit now floors M at 2 (L = 1: the ordinary rates, 0 for the
    empty group), charges the whole budget once and warns that the draw may be degenerate (a function of M)."""
    rng = np.random.default_rng(0)
    n = 400
    a = np.repeat([0, 1], n // 2)
    y = np.where(a == 0, rng.integers(0, 2, n), 0)
    X = rng.uniform(-1, 1, (n, 1))
    accountant = BudgetAccountant()
    model = ExponentialMechanismFairClassifier(tiny_hypotheses(), epsilon=2.0, diagnostic_share=0.0, groups=[0, 1],
                                               accountant=accountant, random_state=0)
    with pytest.warns(UtilityWarning, match="cannot be relied on to beat a constant classifier"):
        model.fit(X, y, sensitive_features=a)
    assert model.min_group_size_estimate_ <= 1 and model.rate_floor_ == 1.0
    assert model.sensitivity_ == pytest.approx(1.0 + 1 / n)          # w / L + 1/n at L = 1 (tight)
    assert accountant.spent_budget == [(2.0, math.exp(-math.sqrt(n)))]


def test_data_too_small_for_the_margin_is_refused_without_spending():
    X, y, a = tiny_data()                       # n = 40: margin sqrt(40) / 0.25 = 25.3 > 40 // 2 - 1
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="Nothing was spent"):
        make(epsilon=0.5, accountant=accountant).fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == []


def test_uninformative_mechanism_warns_iff_its_guarantee_cannot_beat_a_constant():
    """n = 400, m = 22: at eps = 2, M = 22 + Y - sqrt(400) / 1 = 2 + Y; at eps = 4, M = 12 + Y; Delta = 2 / (M - 1) +
    1/n. The fit warns iff McSherry and Talwar's excess at probability 1/2, 2 Delta ln(2 (|H| - 1)) / eps_em, is >=
    1/2 (a function of the released M and public values); both outcomes occur over the 2 x 15 fits."""
    rng = np.random.default_rng(0)
    a = np.repeat([0, 1], 200)
    y = np.zeros(400, dtype=int)
    y[:22] = 1
    y[200:222] = 1
    X = rng.uniform(-1, 1, (400, 1))
    outcomes = set()
    for epsilon, seed in itertools.product((2.0, 4.0), range(15)):
        model = ExponentialMechanismFairClassifier(tiny_hypotheses(), epsilon=epsilon, diagnostic_share=0.0,
                                                   groups=[0, 1], accountant=BudgetAccountant(), random_state=seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(X, y, sensitive_features=a)          # never refuses: M is floored at 2
        warned = any("cannot be relied on to beat a constant" in str(w.message) for w in caught)
        assert warned == (2 * model.sensitivity_ * math.log(2 * 3) / (epsilon / 2) >= 0.5)
        outcomes.add(warned)
    assert outcomes == {True, False}


def test_a_constant_selection_is_warned():
    """The selected hypothesis is released; whether it is a constant classifier is read from it alone."""
    X, y, a = tiny_data()
    for seed in range(20):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = make(random_state=seed).fit(X, y, sensitive_features=a)
        constant = not np.any(model.hypothesis_.coef)
        assert constant == any("is a constant classifier" in str(w.message) for w in caught)


# ------------------------------------------------------------------ reproducibility and sklearn conventions
def test_same_seed_same_result_and_seeds_matter():
    X, y, a = tiny_data()
    for seed in range(10):      # both draws (Laplace and the mechanism's) must follow the seed
        first = make(random_state=seed).fit(X, y, sensitive_features=a)
        second = make(random_state=seed).fit(X, y, sensitive_features=a)
        assert first.hypothesis_index_ == second.hypothesis_index_
        assert first.min_group_size_estimate_ == second.min_group_size_estimate_
    shared = np.random.RandomState(3)
    indices = [make(random_state=shared).fit(X, y, sensitive_features=a).hypothesis_index_ for _ in range(20)]
    assert len(set(indices)) > 1            # a RandomState instance is a stream, not a fixed seed
    estimates = {make(random_state=s).fit(X, y, sensitive_features=a).min_group_size_estimate_ for s in range(5)}
    assert len(estimates) == 5


def test_predict_is_the_chosen_hypothesis_and_needs_no_sensitive_feature():
    X, y, a = tiny_data()
    model = make(random_state=1).fit(X, y, sensitive_features=a)
    assert not model.constant_choice_.is_constant       # seed 1: the drawn hypothesis is kept (seed 0: a constant)
    expected = tiny_hypotheses()[model.hypothesis_index_].predict(X)
    np.testing.assert_array_equal(model.predict(X), expected)
    np.testing.assert_array_equal(model.predict(pd.DataFrame(X)), expected)
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.score(X, y) == pytest.approx(1 - ERR[model.hypothesis_index_])
    assert model.n_features_in_ == 1
    with pytest.raises(ValueError, match="features"):
        model.predict(np.zeros((3, 2)))
    restored = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(restored.predict(X), expected)


def test_predict_before_fit_raises():
    with pytest.raises(NotFittedError):
        make().predict(np.zeros((2, 1)))


def test_clone_and_get_params():
    assert ExponentialMechanismFairClassifier().get_params()["epsilon"] == 1.0     # constructible without arguments
    accountant = BudgetAccountant()
    model = make(epsilon=3.0, delta=1e-4, fairness_weight=0.5, accountant=accountant, random_state=2)
    params = model.get_params()
    assert set(params) == {"hypotheses", "epsilon", "delta", "fairness_weight", "diagnostic_share", "groups",
                           "accountant", "random_state"}
    assert ExponentialMechanismFairClassifier().get_params()["diagnostic_share"] == 0.1
    assert params["epsilon"] == 3.0 and params["delta"] == 1e-4 and params["fairness_weight"] == 0.5
    copy = clone(model)
    assert copy.accountant is accountant                    # a clone charges the same accountant
    assert copy.hypotheses == model.hypotheses and copy.hypotheses is not model.hypotheses
    assert copy.get_params(deep=False).keys() == params.keys()
    copy.set_params(epsilon=6.0)
    assert copy.epsilon == 6.0 and model.epsilon == 3.0
    X, y, a = tiny_data()
    model.set_params(epsilon=8.0).fit(X, y, sensitive_features=a)
    assert not hasattr(clone(model), "hypothesis_")


def test_groups_none_warns_and_reads_the_groups():
    X, y, a = tiny_data()
    with pytest.warns(PrivacyWarning):
        model = make(groups=None).fit(X, y, sensitive_features=a)
    assert model.groups_ == [0, 1]


# ------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize("params, error, match", [
    ({"epsilon": 0.0}, ValueError, "epsilon"),
    ({"epsilon": -1.0}, ValueError, "epsilon"),
    ({"epsilon": float("nan")}, ValueError, "epsilon"),
    ({"epsilon": "1"}, TypeError, "epsilon"),
    ({"delta": 0.0}, ValueError, "delta"),
    ({"delta": 1.0}, ValueError, "delta"),
    ({"delta": -0.1}, ValueError, "delta"),
    ({"delta": float("nan")}, ValueError, "delta"),
    ({"delta": "0.1"}, TypeError, "delta"),
    ({"fairness_weight": 0.0}, ValueError, "fairness_weight"),
    ({"fairness_weight": float("inf")}, ValueError, "fairness_weight"),
    ({"groups": [0]}, ValueError, "at least 2 groups"),
    ({"accountant": "acc"}, TypeError, "accountant"),
])
def test_bad_parameters(params, error, match):
    X, y, a = tiny_data()
    with pytest.raises(error, match=match):
        make(**params).fit(X, y, sensitive_features=a)


@pytest.mark.parametrize("hypotheses, error, match", [
    ([], ValueError, "hypotheses"),
    (None, TypeError, "hypotheses is required"),
    ("h", TypeError, "hypotheses must be a list"),
    ([LinearThresholdClassifier([1.0], 0.0), 3], TypeError, r"hypotheses\[1\]"),
])
def test_bad_hypothesis_class(hypotheses, error, match):
    X, y, a = tiny_data()
    model = ExponentialMechanismFairClassifier(hypotheses, groups=[0, 1], accountant=BudgetAccountant())
    with pytest.raises(error, match=match):
        model.fit(X, y, sensitive_features=a)


def test_bad_data():
    X, y, a = tiny_data()
    accountant = BudgetAccountant()
    model = make(accountant=accountant)
    X_nan = X.copy()
    X_nan[3, 0] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        model.fit(X_nan, y, sensitive_features=a)
    with pytest.raises(ValueError, match="length mismatch"):
        model.fit(X, y[:-1], sensitive_features=a)
    with pytest.raises(ValueError, match="sensitive_features.*length mismatch"):
        model.fit(X, y, sensitive_features=a[:-1])
    with pytest.raises(ValueError, match="binary labels"):
        model.fit(X, np.where(y == 1, 2, 0), sensitive_features=a)
    with pytest.raises(ValueError, match="y contains missing"):
        model.fit(X, np.where(y == 1, np.nan, 0.0), sensitive_features=a)
    with pytest.raises(ValueError, match="at least 2 groups"), pytest.warns(PrivacyWarning):
        make(groups=None, accountant=accountant).fit(X, y, sensitive_features=np.zeros(N))
    with pytest.raises(ValueError, match="unseen group"):
        model.fit(X, y, sensitive_features=np.where(a == 1, 2, 0))
    assert accountant.spent_budget == []        # nothing was released
