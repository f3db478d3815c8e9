"""The last step of DPExponentiatedGradient: the private choice between Q and the fair constants (issue 36, item 1).

Derivations: docs/privacy_analysis/constant_fallback.md.
"""

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity, ErrorRate, ErrorRateParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.privacy._budget_split import statistics_game_split
from fairlearn_dp.privacy._exponential import exponential_mechanism_probabilities
from fairlearn_dp.privacy._selection import SELECTION_SHARE, choose_against_constants, no_choice, selection_split
from fairlearn_dp.reductions import DPExponentiatedGradient, JagielskiExponentiatedGradient

CHOSEN = "no more accurate than a constant classifier"

# Every private path: the statistics game with the estimator Learner and with the least-squares Learner, under the
# attribute unit; the statistics game under "record"; Algorithm 3 under both units.
PATHS = {
    "game, estimator": {"estimator": LogisticRegression()},
    "game, least squares": {"estimator": None},
    "game, record": {"estimator": None, "privacy_unit": "record", "row_norm_bound": 2.0},
    "paper": {"estimator": None, "algorithm3": True, "oracle": "regression", "max_iter": 3},
    "paper, record": {"estimator": None, "algorithm3": True, "oracle": "regression", "privacy_unit": "record", "max_iter": 3,
                          "min_count": 40},
}


def _data(seed, n=400, signal=False):
    """Labels independent of X (base rate 0.3), or y = [x_0 > 0] (strong signal)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (X[:, 0] > 0).astype(int) if signal else (rng.random(n) < 0.3).astype(int)
    return X, y, rng.choice(["a", "b"], size=n)


def _model(path, **params):
    kwargs = {"max_iter": 10, "constraints": DemographicParity(difference_bound=0.05), "epsilon": 1.0,
              "groups": ["a", "b"], "random_state": 0, **PATHS[path], **params}
    if kwargs.pop("algorithm3", False):          # Algorithm 3 (it has no estimator)
        kwargs.pop("estimator")
        return JagielskiExponentiatedGradient(**kwargs)
    return DPExponentiatedGradient(**kwargs)


def _fit(model, X, y, a):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=a)
    return [w for w in caught if issubclass(w.category, UtilityWarning) and CHOSEN in str(w.message)]


@pytest.mark.parametrize("path", list(PATHS))
def test_no_signal_returns_the_constant_and_warns(path):
    X, y, a = _data(0)
    model = _model(path)
    chosen = _fit(model, X, y, a)
    assert model.constant_choice_.is_constant and model.constant_choice_.constant == 0.0     # base rate 0.3
    assert len(chosen) == 1 and "always 0" in str(chosen[0].message)
    np.testing.assert_array_equal(model.predict(X, random_state=0), np.zeros(len(y)))
    np.testing.assert_array_equal(model._pmf_predict(X), np.tile([1.0, 0.0], (len(y), 1)))
    assert len(model.predictors_) == len(model.weights_) > 0              # Q is kept for inspection
    record = PATHS[path].get("privacy_unit") == "record"
    assert model.constant_choice_.epsilon == (pytest.approx(SELECTION_SHARE) if record else 0.0)


@pytest.mark.parametrize("path", ["game, estimator", "game, least squares", "game, record", "paper, record"])
def test_strong_signal_keeps_the_fitted_model(path):
    X, y, a = _data(1, signal=True)
    model = _model(path)
    assert _fit(model, X, y, a) == []
    assert model.constant_choice_.chosen == "fitted"
    positive = model._mixture_pmf(X)[:, 1]
    np.testing.assert_array_equal(model._pmf_predict(X)[:, 1], positive)
    assert np.mean(np.abs(positive - y)) < min(y.mean(), 1 - y.mean()) - 0.1     # clearly better than a constant


def test_error_rate_parity_chooses_the_fair_coin():
    """For error-rate parity the constants 0 and 1 are unfair (their errors are the groups' base rates); the coin
    errs 1/2 in every group. Features that carry nothing (constant columns) and half the labels 1: every linear
    play predicts one label for every row, so Q errs exactly n/2 as the coin does, and the tie goes to the coin."""
    n = 400
    X = np.ones((n, 3))
    y = np.tile([0, 1], n // 2)
    a = np.repeat(["a", "b"], n // 2)
    model = _model("paper", constraints=ErrorRateParity(difference_bound=0.05))
    chosen = _fit(model, X, y, a)
    assert model.constant_choice_.candidates == ("fitted", "constant 0.5")
    assert model.constant_choice_.constant == 0.5 and len(chosen) == 1 and "probability 0.5" in str(chosen[0].message)
    np.testing.assert_array_equal(model._pmf_predict(X), np.full((n, 2), 0.5))


def test_record_unit_charges_the_same_total_and_the_game_gets_the_rest():
    X, y, a = _data(0)
    accountant = BudgetAccountant()
    model = _model("game, record", accountant=accountant, epsilon=2.0, delta=1e-6)
    _fit(model, X, y, a)
    assert accountant.spent_budget == [(2.0, 1e-6)]
    assert (model.privacy_spent_.epsilon, model.privacy_spent_.delta) == (2.0, 1e-6)
    game_epsilon = selection_split(2.0)[0]
    assert game_epsilon == pytest.approx(1.8)
    rho_stats, rho_round = statistics_game_split(game_epsilon, 1e-6, 0.5, 10)[:2]
    assert model.rho_["statistics"] == pytest.approx(rho_stats, rel=1e-12)
    assert model.rho_["per_round"] == pytest.approx(rho_round, rel=1e-12)
    assert model.constant_choice_.epsilon == pytest.approx(0.2, rel=1e-12)
    # Algorithm 3: 2T + 1 = 7 basic-composition mechanisms share the game's epsilon (min_count is public here).
    accountant = BudgetAccountant()
    paper = _model("paper, record", accountant=accountant)
    _fit(paper, X, y, a)
    assert paper.epsilon_per_mechanism_ == pytest.approx(selection_split(1.0)[0] / 7, rel=1e-12)
    assert accountant.spent_budget == [(1.0, 0.0)]


def test_attribute_unit_choice_is_free():
    X, y, a = _data(0)
    accountant = BudgetAccountant()
    model = _model("game, least squares", accountant=accountant)
    _fit(model, X, y, a)
    assert accountant.spent_budget == [(1.0, 1e-7)]
    assert model.constant_choice_.epsilon == 0.0 and model.constant_choice_.error_bound == 0.0
    rho_stats = statistics_game_split(1.0, 1e-7, 0.5, 10)[0]          # the game keeps the whole epsilon
    assert model.rho_["statistics"] == pytest.approx(rho_stats, rel=1e-12)


@pytest.mark.parametrize("path", ["game, record", "paper, record"])
def test_seeded_fits_are_reproducible(path):
    X, y, a = _data(3)
    first, second = _model(path, random_state=7), _model(path, random_state=7)
    _fit(first, X, y, a)
    _fit(second, X, y, a)
    assert first.constant_choice_ == second.constant_choice_
    np.testing.assert_array_equal(first.weights_, second.weights_)


def test_cost_sensitive_objective_is_the_choice_cost():
    """With ErrorRate(costs={"fp": 0.2, "fn": 1}) predicting 1 for everyone costs 0.2 * 0.7 n < 0.3 n: the chosen
    constant is 1 (under unit costs it is 0)."""
    X, y, a = _data(0)
    model = _model("game, least squares", objective=ErrorRate(costs={"fp": 0.2, "fn": 1.0}))
    _fit(model, X, y, a)
    if model.constant_choice_.is_constant:
        assert model.constant_choice_.constant == 1.0
    positive = model._mixture_pmf(X)[:, 1]
    fitted_cost = 0.2 * positive @ (1 - y) + (1 - positive) @ y
    assert model.constant_choice_.is_constant == (fitted_cost >= 0.2 * np.sum(1 - y) - 1e-9)


def test_epsilon_inf_makes_no_choice():
    X, y, a = _data(0)
    fairlearn = DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05),
                                        epsilon=math.inf).fit(X, y, sensitive_features=a)
    assert fairlearn.mode_ == "fairlearn" and fairlearn.constant_choice_ == no_choice()
    game = _model("game, least squares", epsilon=math.inf)
    assert _fit(game, X, y, a) == []
    assert game.constant_choice_ == no_choice()
    np.testing.assert_array_equal(game._pmf_predict(X), game._mixture_pmf(X))


def test_aif360_face_exposes_the_choice_and_predicts_the_constant(three_feature_dataset):
    from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction

    X, y, a = _data(0)
    data = three_feature_dataset(X, y, a)
    face = DPExponentiatedGradientReduction(None, "DemographicParity", difference_bound=0.05, max_iter=10,
                                            seed=0, privacy_unit="record", row_norm_bound=2.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        face.fit(data)
    assert sum(CHOSEN in str(w.message) for w in caught) == 1              # warned once
    assert face.constant_choice_ is face.model_.constant_choice_ and face.constant_choice_.constant == 0.0
    predicted = face.predict(data)
    np.testing.assert_array_equal(predicted.labels.ravel(), np.zeros(len(y)))
    np.testing.assert_array_equal(predicted.scores.ravel(), np.zeros(len(y)))


# ------------------------------------------------------------------------------------ the choice itself
def _choice_data():
    """20 rows, 6 positives; Q's costs: 5 errors (fitted), 6 (always 0), 14 (always 1)."""
    y = np.array([1] * 6 + [0] * 14)
    positive = np.array([1, 1, 1, 0, 0, 0] + [1, 1] + [0] * 12, dtype=float)
    return positive, y


def _costs(positive, y, costs=(1.0, 1.0)):
    fitted = costs[0] * positive @ (1 - y) + costs[1] * (1 - positive) @ y
    return np.array([fitted, costs[1] * y.sum(), costs[0] * (1 - y).sum()])


@pytest.mark.parametrize("costs", [(1.0, 1.0), (0.5, 2.0)])
def test_selection_frequencies_match_the_exponential_mechanism(costs):
    """2,000 seeded draws: each candidate's count is Binomial(2000, p_i) with p_i diffprivlib's exponential mechanism
    probabilities for the costs with sensitivity max(costs); the count stays within 4.5 sd of 2000 p_i (a correct
    sampler fails this with probability below 2e-5 per candidate, two-sided normal tail), while a sampler using
    half the sensitivity (probabilities exp(-eps cost / sens)) moves some expected count by more than 9 sd, so it
    fails with probability above 1 - 2e-5."""
    positive, y = _choice_data()
    epsilon, draws = 0.5, 2000
    expected = exponential_mechanism_probabilities(_costs(positive, y, costs), epsilon=epsilon,
                                                   sensitivity=max(costs))
    rng = np.random.RandomState(12345)
    labels = {"fitted": 0, 0.0: 1, 1.0: 2}
    counts = np.zeros(3)
    for _ in range(draws):
        choice = choose_against_constants(positive, y, epsilon=epsilon, costs=costs, random_state=rng)
        counts[labels["fitted" if choice.constant is None else choice.constant]] += 1
    sd = np.sqrt(draws * expected * (1 - expected))
    assert np.all(np.abs(counts - draws * expected) <= 4.5 * sd), (counts / draws, expected)
    halved = exponential_mechanism_probabilities(_costs(positive, y, costs), epsilon=epsilon,
                                                 sensitivity=max(costs) / 2)
    assert np.max(draws * np.abs(halved - expected) / sd) > 9


@pytest.mark.parametrize("costs", [(1.0, 1.0), (0.5, 2.0)])
def test_neighbouring_datasets_probability_ratio_is_at_most_exp_epsilon(costs):
    """Replacing any one record (its Q probability and its label) moves each cost by at most max(costs); every
    candidate's probability changes by a factor of at most exp(epsilon)."""
    positive, y = _choice_data()
    epsilon = 0.5
    base = exponential_mechanism_probabilities(_costs(positive, y, costs), epsilon=epsilon, sensitivity=max(costs))
    for i in range(len(y)):
        for p_new in (0.0, 0.5, 1.0):
            for y_new in (0, 1):
                p2, y2 = positive.copy(), y.copy()
                p2[i], y2[i] = p_new, y_new
                assert np.max(np.abs(_costs(p2, y2, costs) - _costs(positive, y, costs))) <= max(costs) + 1e-12
                other = exponential_mechanism_probabilities(_costs(p2, y2, costs), epsilon=epsilon,
                                                            sensitivity=max(costs))
                assert np.all(np.maximum(base / other, other / base) <= math.exp(epsilon) * (1 + 1e-12))


def test_exact_choice_ties_go_to_the_constant():
    y = np.array([1, 0, 0, 0])
    choice = choose_against_constants(np.zeros(4), y, epsilon=0.0, public=True)
    assert choice.is_constant and choice.constant == 0.0 and choice.epsilon == 0.0


def test_exact_choice_keeps_the_model_only_beyond_the_rows_sampling_error():
    """The paired one-sided test at level 0.05: with n rows, a model that disagrees with the constant 0 on k rows and
    is right on r of them has mean difference (2r - k) / n and sd about sqrt(k / n) / sqrt(n); it is kept only when
    (2r - k) / sqrt(k) > 1.645 (to first order).
    """
    n = 10_000
    y = np.zeros(n)
    y[:3_000] = 1                                   # the constant 0 errs on 3,000 rows
    positive = np.zeros(n)
    # disagrees on 400 rows: right on 210 (positives), wrong on 190 (negatives): (420 - 400) / 20 = 1.0 < 1.645
    positive[:210] = 1
    positive[3_000:3_190] = 1
    within = choose_against_constants(positive, y, epsilon=0.0, public=True)
    assert within.is_constant and within.constant == 0.0
    # right on 240, wrong on 160: (480 - 400) / 20 = 4 > 1.645
    positive[:] = 0
    positive[:240] = 1
    positive[3_000:3_160] = 1
    beyond = choose_against_constants(positive, y, epsilon=0.0, public=True)
    assert beyond.chosen == "fitted"
