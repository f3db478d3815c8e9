"""DPExponentiatedGradient's statistics game: Learner resolution, the estimator as Learner, the
sensitivities of its two releases on neighbouring datasets, the noise scale, the zCDP budget split, determinism,
warnings and bad input. Accuracy on Adult is checked by the slow tests of tests/examples/test_adult_inprocessing.py."""

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.reductions import DemographicParity, EqualizedOdds, ErrorRateParity, TruePositiveRateParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import FairdpWarning, FairnessWarning, UtilityWarning
from fairlearn_dp.privacy._zcdp import approx_dp_to_zcdp, zcdp_to_approx_dp
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    JagielskiExponentiatedGradient,
    StatisticsGameOptions,
    linear_threshold_hypotheses,
)
from fairlearn_dp.reductions._eg_params import _EVENT_LABELS, _event_index, _moment_events
from fairlearn_dp.reductions._game_rows import InMemoryRows
from fairlearn_dp.reductions._statistics_game import (
    COUNT_SHARE,
    StatisticsGame,
    attribute_sensitivities,
    gram_sensitivity,
    label_cell_sensitivity,
    round_sensitivity,
)


def synthetic(seed, n=800, n_features=3):
    rng = np.random.default_rng(seed)
    a = rng.choice(["a", "b"], size=n, p=[0.6, 0.4])
    X = rng.uniform(-1, 1, (n, n_features)) + 0.5 * (a == "a")[:, None]
    logits = 2 * X[:, 0] - X[:, 1] + 0.8 * (a == "a")
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-logits))).astype(int)
    return X, y, a


def make(**kwargs):
    params = {"epsilon": 1.0, "delta": 1e-5, "groups": ["a", "b"], "random_state": 0, "accountant": BudgetAccountant()}
    params.update(kwargs)
    estimator = params.pop("estimator", LogisticRegression())
    constraints = params.pop("constraints", DemographicParity(difference_bound=0.01))
    if params.pop("algorithm3", False):           # Algorithm 3 (it has no estimator)
        return JagielskiExponentiatedGradient(constraints, **params)
    return DPExponentiatedGradient(estimator, constraints, **params)


# ------------------------------------------------------------------------------------------- mode resolution
@pytest.mark.parametrize("kwargs, oracle", [
    ({}, "weighted_estimator"),
    ({"estimator": None}, "least_squares"),
    ({"options": StatisticsGameOptions(oracle="least_squares")}, "least_squares"),
    ({"privacy_unit": "record"}, "least_squares"),
    ({"epsilon": math.inf}, "estimator"),                          # Fairlearn's own algorithm
    ({"epsilon": math.inf, "options": StatisticsGameOptions(oracle="estimator")}, "weighted_estimator"),
    ({"epsilon": math.inf, "options": StatisticsGameOptions(oracle="least_squares")}, "least_squares"),
])
def test_mode_resolution(kwargs, oracle):
    assert make(**kwargs)._resolve_oracle(kwargs.get("epsilon", 1.0)) == oracle


def test_the_estimator_is_the_learner_at_finite_epsilon():
    """The issue: the estimator was silently ignored at finite epsilon. Now each round fits a clone of it with
    Fairlearn's reduction weights (through ``sample_weight_name``)."""
    calls = []

    class Recording(LogisticRegression):
        def fit(self, X, y, sample_weight=None):
            calls.append(sample_weight is not None and np.all(sample_weight >= 0))
            return super().fit(X, y, sample_weight=sample_weight)

    X, y, a = synthetic(0)
    model = make(estimator=Recording(), max_iter=12).fit(X, y, sensitive_features=a)
    assert model.oracle_ == "weighted_estimator" and model.mode_ == "statistics"
    assert len(calls) == model.n_iter_ and all(calls)
    assert all(isinstance(h, Recording) for h in model.predictors_)
    assert math.isclose(model.weights_.sum(), 1.0)


# ------------------------------------------------------------------------------------------- sensitivities
def _game(X, y, a, *, record, constraints=None, epsilon=math.inf, rng=None, row_norm=None, estimator=None):
    constraints = constraints or DemographicParity(difference_bound=0.01)
    groups = np.array(["a", "b"])
    g = np.searchsorted(groups, a)
    events = _moment_events(constraints)
    norm = row_norm if row_norm is not None else float(np.linalg.norm(X, axis=1).max())
    game = StatisticsGame(rows=InMemoryRows(X, y, g), event_of_label=_event_index(constraints, np.array([0, 1])),
                          n_events=len(events), n_groups=2, error_parity=isinstance(constraints, ErrorRateParity), record=record,
                          row_norm=norm, epsilon=epsilon, delta=1e-5, statistics_fraction=0.5, n_rounds=10,
                          bound=0.01, B=100.0, eta=0.02, ridge=None, estimator=estimator,
                          sample_weight_name="sample_weight", rng=rng)
    game._event_labels = _EVENT_LABELS[events]
    return game


def _round(game, predictions):
    """The round's release of the per-row ``predictions`` (in memory)."""
    return game.release_round(game.round_sums(None, predictions).cells)


def test_attribute_neighbours_move_the_statistics_by_at_most_the_declared_sensitivity():
    """One person's attribute changes: S moves by sqrt(2) ||phi_i|| (attained by the row of largest norm), the
    per-round cell sums by sqrt(2) |h_i|; X, y (and so C) are the same on both."""
    X, y, a = synthetic(1)
    row = int(np.argmax(np.linalg.norm(X, axis=1)))
    a2 = a.copy()
    a2[row] = "b" if a[row] == "a" else "a"
    C = float(np.linalg.norm(X, axis=1).max())
    games = [_game(X, y, groups, record=False) for groups in (a, a2)]
    for game in games:
        game.release_statistics()
    moved = np.linalg.norm(games[0].S_ - games[1].S_)
    assert moved <= label_cell_sensitivity(C, record=False) * (1 + 1e-12)
    assert math.isclose(moved, label_cell_sensitivity(C, record=False))             # tight for this row
    # Released as two vectors: the feature sums move by sqrt(2) ||z_i||, the counts by sqrt(2).
    feature_bound, count_bound = attribute_sensitivities(C)
    assert math.isclose(np.linalg.norm(games[0].S_[..., :-1] - games[1].S_[..., :-1]), feature_bound)
    assert math.isclose(np.linalg.norm(games[0].S_[..., -1] - games[1].S_[..., -1]), count_bound)
    h = (X[:, 0] > 0).astype(float)
    h[row] = 1.0
    step = np.linalg.norm(_round(games[0], h) - _round(games[1], h))
    assert math.isclose(step, round_sensitivity())


@pytest.mark.parametrize("constraints", [DemographicParity(), EqualizedOdds(), TruePositiveRateParity(),
                                         ErrorRateParity()])
def test_record_neighbours_move_the_statistics_by_at_most_the_declared_sensitivity(constraints):
    """Substitution of a whole record (x, a, y) -> (x', a', y') with both rows on the public norm bound: S moves by
    at most max(sqrt(2 (C^2 + 1)), 2C), the Gram matrix's upper triangle by at most gram_sensitivity(C, d), the round
    sums by at most sqrt 2."""
    X, y, a = synthetic(2)
    C = 1.5
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True) / C, 1.0)
    X2, y2, a2 = X.copy(), y.copy(), a.copy()
    X[0] = np.array([C, 0.0, 0.0])
    X2[0] = np.array([0.0, -C, 0.0])
    y[0], y2[0] = 0, 1
    a[0], a2[0] = "a", "b"
    games = [_game(*data, record=True, constraints=constraints, row_norm=C) for data in ((X, y, a), (X2, y2, a2))]
    for game in games:
        game.release_statistics()
    moved = np.linalg.norm(games[0].S_ - games[1].S_)
    assert moved <= label_cell_sensitivity(C, record=True) * (1 + 1e-12)
    # Same cell, x' = -x on the bound: ||x' - x|| = 2C, the declared sensitivity when C >= 1 (attained).
    X3 = X.copy()
    X3[0] = -X[0]
    same = _game(X3, y, a, record=True, constraints=constraints, row_norm=C)
    same.release_statistics()
    assert math.isclose(np.linalg.norm(games[0].S_ - same.S_), label_cell_sensitivity(C, record=True))
    upper = np.triu_indices(X.shape[1] + 1)
    gram_moved = np.linalg.norm(games[0].gram_[upper] - games[1].gram_[upper])
    assert gram_moved <= gram_sensitivity(C, X.shape[1]) * (1 + 1e-12)
    h1, h2 = (X[:, 0] > 0).astype(float), (X2[:, 0] > 0).astype(float)
    h1[0], h2[0] = 1.0, 1.0
    step = np.linalg.norm(_round(games[0], h1) - _round(games[1], h2))
    assert step <= round_sensitivity() * (1 + 1e-12)


@pytest.mark.parametrize("constraints", [DemographicParity(), EqualizedOdds()])
def test_release_noise_has_the_declared_scale_and_the_budget_adds_up(constraints):
    """Under the attribute relation: the feature sums (sigma_stats), the counts (sigma_counts) and the round sums
    (sigma_round), each projected onto its public margin over the G = 2 groups, so that each entry keeps noise of
    sd sigma sqrt(1 - 1/G) and the errors of a cell's groups sum to zero. Empirical sd of group 0's (independent)
    errors within 4 standard errors of that (the sd estimate of N Gaussian draws has relative standard error
    1/sqrt(2N)); rho_stats + T rho_round = rho(epsilon, delta), the counts' share COUNT_SHARE of rho_stats."""
    X, y, a = synthetic(3, n=300)
    truth = _game(X, y, a, record=False, constraints=constraints)
    truth.release_statistics()
    h = (X[:, 0] > 0).astype(float)
    true_round = _round(truth, h)
    features, counts, rounds = [], [], []
    for seed in range(60):
        game = _game(X, y, a, record=False, epsilon=1.0, rng=np.random.RandomState(seed), constraints=constraints)
        game.release_statistics()
        error = game.S_ - truth.S_
        np.testing.assert_allclose(error.sum(axis=1), 0.0, atol=1e-9)            # the public margins hold
        features.append(error[:, 0, :-1].ravel())
        counts.append(error[:, 0, -1])
        round_error = _round(game, h) - true_round
        np.testing.assert_allclose(round_error.sum(axis=1), 0.0, atol=1e-9)
        rounds.append(round_error[:, 0])
    assert game.S_.shape[0] == len(_moment_events(constraints))                 # (event, group) cells
    margin = math.sqrt(1 - 1 / 2)
    for draws, sigma in ((np.concatenate(features), game.sigma_stats), (np.concatenate(counts), game.sigma_counts),
                         (np.concatenate(rounds), game.sigma_round)):
        tolerance = 4 / math.sqrt(2 * draws.size)
        assert abs(draws.std() / (sigma * margin) - 1) < tolerance
        assert abs(draws.mean()) < 4 * sigma * margin / math.sqrt(draws.size)
    rho = approx_dp_to_zcdp(1.0, 1e-5)
    assert math.isclose(game.rho_stats + game.T * game.rho_round, rho)
    assert math.isclose(game.rho_counts, COUNT_SHARE * game.rho_stats)
    C = float(np.linalg.norm(X, axis=1).max())
    assert game.sigma_stats == pytest.approx(math.sqrt(2) * C / math.sqrt(2 * (game.rho_stats - game.rho_counts)))
    assert game.sigma_counts == pytest.approx(math.sqrt(2) / math.sqrt(2 * game.rho_counts))
    assert zcdp_to_approx_dp(rho, 1e-5) <= 1.0


def test_fit_charges_once_and_exposes_its_spend():
    X, y, a = synthetic(4)
    accountant = BudgetAccountant()
    model = make(accountant=accountant, max_iter=8).fit(X, y, sensitive_features=a)
    assert len(accountant.spent_budget) == 1
    assert accountant.spent_budget[0] == (1.0, 1e-5)
    assert (model.privacy_spent_.epsilon, model.privacy_spent_.delta) == (1.0, 1e-5)
    assert model.composition_ == "zcdp" and model.rho_["rounds_planned"] == 8
    assert model.noise_scale_["per_round"] == pytest.approx(round_sensitivity() / math.sqrt(2 * model.rho_["per_round"]))


def test_same_seed_same_result_and_secure_default():
    X, y, a = synthetic(5)
    first = make(max_iter=8).fit(X, y, sensitive_features=a)
    second = make(max_iter=8).fit(X, y, sensitive_features=a)
    np.testing.assert_array_equal(first.history_["released_gamma"], second.history_["released_gamma"])
    np.testing.assert_array_equal(first._pmf_predict(X), second._pmf_predict(X))
    np.random.seed(0)
    u1 = make(max_iter=3, random_state=None).fit(X, y, sensitive_features=a).history_["released_gamma"]
    np.random.seed(0)
    u2 = make(max_iter=3, random_state=None).fit(X, y, sensitive_features=a).history_["released_gamma"]
    assert not np.array_equal(u1, u2)


@pytest.mark.parametrize("privacy_unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("constraints", [DemographicParity(difference_bound=0.02),
                                         EqualizedOdds(difference_bound=0.02), ErrorRateParity(difference_bound=0.02)])
def test_fits_and_reduces_the_violation_without_noise(privacy_unit, constraints):
    """At epsilon=inf the game is Fairlearn's reduction with the proxy (or least-squares) Learner: it reduces the
    violation of the unconstrained model; with a large epsilon the private fit stays close."""
    X, y, a = synthetic(6, n=3000)
    kwargs = {"constraints": constraints, "privacy_unit": privacy_unit, "row_norm_bound": 3.0,
                  "options": StatisticsGameOptions(oracle="estimator")}
    base = LogisticRegression().fit(X, y).predict(X)
    clean = make(epsilon=math.inf, **kwargs).fit(X, y, sensitive_features=a)

    def gap(model):
        p = model._pmf_predict(X)[:, 1] if model is not None else base
        masks = [np.ones_like(y, bool)] if not isinstance(constraints, EqualizedOdds) else [y == 0, y == 1]
        if isinstance(constraints, ErrorRateParity):
            p = p * (1 - y) + (1 - p) * y
        return max(abs(p[m & (a == "a")].mean() - p[m & (a == "b")].mean()) for m in masks)
    assert gap(clean) < gap(None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noisy = make(epsilon=50.0, **kwargs).fit(X, y, sensitive_features=a)
    assert gap(noisy) < gap(None)


# ------------------------------------------------------------------------------------------- warnings, bad input
def test_warns_when_no_better_than_constant():
    """Tiny data at a small epsilon: the released error estimate is no better than the majority rate (and the
    groups' constraints cannot be enforced)."""
    X, y, a = synthetic(7, n=120)
    with pytest.warns(UtilityWarning, match="constant classifier"), \
            pytest.warns(FairnessWarning, match="cannot tell the members"):
        make(epsilon=0.05, privacy_unit="record", estimator=None, max_iter=5, row_norm_bound=3.0).fit(
            X, y, sensitive_features=a)


def test_record_unit_says_the_estimator_is_not_fitted_on_private_records():
    X, y, a = synthetic(8)
    with pytest.warns(UtilityWarning, match="never fitted on the private records"):     # and no other warning
        model = make(privacy_unit="record", max_iter=5, row_norm_bound=3.0, epsilon=10.0).fit(
            X, y, sensitive_features=a)
    assert model.oracle_ == "least_squares"


@pytest.mark.parametrize("kwargs, match", [
    ({"delta": 0.0}, "delta"),
    ({"nu": 1e-3}, "nu"),
    ({"options": StatisticsGameOptions(oracle="fast")}, "options.oracle"),
    ({"options": StatisticsGameOptions(oracle="exponential")}, "options.oracle"),
    ({"options": StatisticsGameOptions(statistics_fraction=1.0)}, "statistics_fraction"),
    ({"row_norm_bound": -1.0}, "row_norm_bound"),
    ({"eps": 0.0}, "eps"),
    ({"row_norm_bound": 0.1}, "row_norm_bound"),               # X is public here: a false bound is refused
])
def test_bad_input(kwargs, match):
    X, y, a = synthetic(9)
    model = make(**kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        model.fit(X, y, sensitive_features=a)
    assert not hasattr(model, "predictors_")


def test_budget_is_checked_before_the_data_are_read():
    X, y, a = synthetic(10)
    X[0, 0] = np.nan                                             # a domain error the data check would raise
    spent = BudgetAccountant(epsilon=0.5, delta=1e-5)
    with pytest.raises(BudgetError):
        make(accountant=spent).fit(X, y, sensitive_features=a)


# ------------------------------------------------------------------------------------------- the proxy
def _proxy_game(X, y, a, groups, epsilon):
    g = np.searchsorted(groups, a)
    constraints = DemographicParity()
    events = _moment_events(constraints)
    game = StatisticsGame(rows=InMemoryRows(X, y, g), event_of_label=_event_index(constraints, np.array([0, 1])),
                          n_events=1,
                          n_groups=len(groups), error_parity=False, record=False,
                          row_norm=float(np.linalg.norm(X, axis=1).max()), epsilon=epsilon, delta=1e-5,
                          statistics_fraction=0.5, n_rounds=10, bound=0.01, B=100.0, eta=0.02, ridge=None,
                          estimator=LogisticRegression(), sample_weight_name="sample_weight",
                          rng=np.random.RandomState(0))
    game._event_labels = _EVENT_LABELS[events]
    game.release_statistics()
    game.prepare_learner()
    return game


def test_proxies_sum_to_the_released_counts_and_keep_a_visible_group():
    """The intercept is not penalised, so each (event, group) cell's proxies sum to its released count; a group
    the features identify keeps kappa near 1."""
    rng = np.random.default_rng(11)
    n = 4000
    a = rng.choice(["a", "b"], size=n)
    X = np.column_stack([(a == "a") + 0.1 * rng.normal(size=n), rng.normal(size=n)])
    y = (rng.uniform(size=n) < 0.3 + 0.2 * (X[:, 1] > 0)).astype(int)
    game = _proxy_game(X, y, a, np.array(["a", "b"]), 0.5)
    np.testing.assert_allclose(game.P_.sum(axis=0), game.event_S_[0, :, -1], rtol=1e-8)
    assert np.all(game.kappa_ > 0.9)


def test_proxies_of_groups_the_features_cannot_see_are_shrunk():
    """Groups independent of 40 features: the proxies' spread is release noise (about chi^2_40 / 40 times the
    declared noise variance), so kappa stays small; with constant features it is exactly 0."""
    rng = np.random.default_rng(12)
    n = 3000
    a = rng.choice(["a", "b"], size=n)
    X = rng.uniform(0, 1, size=(n, 40))
    y = rng.integers(0, 2, size=n)
    game = _proxy_game(X, y, a, np.array(["a", "b"]), 0.5)
    assert np.all(game.kappa_ < 0.5)
    constant = _proxy_game(np.ones((n, 3)), y, a, np.array(["a", "b"]), 0.5)
    assert np.all(constant.kappa_ == 0)
    np.testing.assert_allclose(constant.P_, constant.P_[0][None, :].repeat(n, axis=0))


def test_warns_when_a_group_cannot_be_told_apart():
    rng = np.random.default_rng(13)
    n = 2000
    a = rng.choice(["a", "b"], size=n)
    X = np.column_stack([np.ones(n), np.zeros(n)])                    # features carry nothing
    y = rng.integers(0, 2, size=n)
    with pytest.warns(FairnessWarning, match="cannot tell the members"), \
            pytest.warns(UtilityWarning, match="constant classifier"):          # y is noise too
        model = make(epsilon=1.0, max_iter=5).fit(X, y, sensitive_features=a)
    assert np.all(model.proxy_reliability_ == 0)


def test_paper_mode_warns_when_no_better_than_constant():
    """Algorithm 3 under the attribute relation: the training error of Q is post-processing of public X, y and the
    released plays; at a tiny epsilon it is no better than the majority rate, and the warning points to
    DPExponentiatedGradient (the statistics game)."""
    X, y, a = synthetic(14, n=400)
    with pytest.warns(UtilityWarning, match="or DPExponentiatedGradient"):
        model = make(estimator=None, algorithm3=True, oracle="regression", epsilon=0.05, max_iter=3, delta=1e-5)
        model.fit(X, y, sensitive_features=a)
    assert isinstance(model, JagielskiExponentiatedGradient)


def _record_paper_warnings(X, y, a, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = make(estimator=None, algorithm3=True, privacy_unit="record", **kwargs).fit(X, y, sensitive_features=a)
    return model, [str(w.message) for w in caught if issubclass(w.category, UtilityWarning)]


@pytest.mark.parametrize("oracle", ["regression", "exponential"])
def test_paper_mode_record_ends_with_the_private_choice(oracle):
    """Algorithm 3 under "record": y is private, so the fit ends with the exponential mechanism's choice between Q and
    the fair constants on SELECTION_SHARE (0.1) of epsilon, and the game's mechanisms share the rest, basic
    composition: 2T + 1 = 7 (regression oracle, with its Gram release) or 2T = 6 (exponential oracle) mechanisms of
    0.9/7 or 0.9/6. m = 400, R = 1.5, N = 50, T = 3, epsilon = 1: the Learner's release is mostly noise (its
    noise sd exceeds its bound 24 times for the regression oracle), Q is no better than a constant, and the choice's
    warning (the only UtilityWarning) says so and names privacy_unit='sensitive_attribute'. At epsilon = 1e5 on
    4,000 rows the fitted model is kept and nothing warns."""
    extra = {"oracle": oracle, "min_count": 50, "feature_bound": 1.5}
    if oracle == "exponential":
        extra["hypotheses"] = linear_threshold_hypotheses(3, n_directions=10, n_thresholds=5, random_state=0)
    X, y, a = synthetic(21, n=400)
    model, messages = _record_paper_warnings(X, y, a, epsilon=1.0, max_iter=3, **extra)
    assert model.constant_choice_.is_constant and model.constant_choice_.epsilon == pytest.approx(0.1)
    assert len(messages) == 1 and "no more accurate than a constant" in messages[0]
    assert "privacy_unit='sensitive_attribute'" in messages[0]
    assert model.composition_ == "basic"
    assert model.epsilon_per_mechanism_ == pytest.approx(0.9 / (7 if oracle == "regression" else 6), rel=1e-12)
    X4, y4, a4 = synthetic(21, n=4000)
    kept, quiet = _record_paper_warnings(X4, y4, a4, epsilon=1e5, max_iter=2, **{**extra, "min_count": 500})
    assert quiet == [] and kept.constant_choice_.chosen == "fitted"


def test_paper_mode_record_warning_after_the_charge():
    """The record-unit warning comes after the charge: raised as an error, the fit is still charged (epsilon, 0)
    (basic composition, no delta used)."""
    acc = BudgetAccountant()
    X, y, a = synthetic(21, n=400)                  # the fit of the test above: the constant is chosen
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)
        with pytest.raises(UtilityWarning, match="no more accurate than a constant"):
            make(estimator=None, algorithm3=True, oracle="regression", privacy_unit="record", epsilon=1.0, max_iter=3,
                 min_count=50, feature_bound=1.5, accountant=acc).fit(X, y, sensitive_features=a)
    assert acc.spent_budget == [(1.0, 0.0)]


def test_worse_than_constant_warnings_point_at_the_callers_line():
    """stacklevel: the warnings of the three paths (record-unit paper mode, attribute paper mode, statistics game)
    and the statistics game's group warning are reported at the line that called fit, not inside the package."""
    X, y, a = synthetic(21, n=400)
    cases = [{"estimator": None, "algorithm3": True, "oracle": "regression", "privacy_unit": "record", "epsilon": 1.0, "max_iter": 3,
                  "min_count": 50},
             {"estimator": None, "algorithm3": True, "oracle": "regression", "epsilon": 0.05, "max_iter": 3},
             {"estimator": None, "privacy_unit": "record", "epsilon": 0.05, "max_iter": 5}]
    for params in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make(**params).fit(X, y, sensitive_features=a)
        privacy = [w for w in caught if issubclass(w.category, FairdpWarning)]
        assert privacy and all(w.filename == __file__ for w in privacy), [(w.filename, str(w.message)) for w in privacy]
    rng = np.random.default_rng(13)
    a2 = rng.choice(["a", "b"], size=2000)
    with pytest.warns(FairdpWarning) as record:
        make(epsilon=1.0, max_iter=5).fit(np.column_stack([np.ones(2000), np.zeros(2000)]), rng.integers(0, 2, 2000),
                                          sensitive_features=a2)
    assert {w.category for w in record} == {FairnessWarning, UtilityWarning}     # the group's, and y is noise
    assert all(w.filename == __file__ for w in record)


# ------------------------------------------------------------------------------------------- domain edges
@pytest.mark.parametrize("privacy_unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("constraints", [DemographicParity(difference_bound=0.05), EqualizedOdds(difference_bound=0.05),
                                         TruePositiveRateParity(difference_bound=0.05),
                                         ErrorRateParity(difference_bound=0.05)])
def test_empty_and_one_member_groups_fit_alike(privacy_unit, constraints):
    """Failure paths are releases: a declared group with one member (D) and with none (D', that member moved) must
    both fit, whatever the constraint and relation (counts are floored at a public multiple of the noise)."""
    X, y, a = synthetic(15, n=300)
    a = np.where(a == "a", "a", "b").astype(object)
    a_one = a.copy()
    a_one[0] = "c"
    for groups in (a_one, a):
        model = make(groups=["a", "b", "c"], constraints=constraints, privacy_unit=privacy_unit, max_iter=4,
                     row_norm_bound=3.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y, sensitive_features=groups)
        # Release cells: (label, group) under "record" and for error-rate parity, else (event, group).
        outer = 2 if privacy_unit == "record" or isinstance(constraints, ErrorRateParity) else len(
            _moment_events(constraints))
        assert model.n_iter_ >= 1 and model.history_["statistics"].shape == (outer, 3, X.shape[1] + 1)


@pytest.mark.parametrize("privacy_unit", ["sensitive_attribute", "record"])
def test_one_label_only_fits(privacy_unit):
    """All labels 0 is inside the domain (0/1 labels): under "record" the labels are private, so the fit must not
    fail on it; the Learner's one-class reduction gives the constant play."""
    X, _, a = synthetic(16, n=200)
    y = np.zeros(len(X), dtype=int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make(privacy_unit=privacy_unit, max_iter=3, row_norm_bound=3.0).fit(X, y, sensitive_features=a)
    assert set(np.unique(model.predict(X, random_state=0))) <= {0, 1}


@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")     # 5 rounds: no better than constant
def test_pandas_inputs_and_predict_without_sensitive_features():
    import pandas as pd

    X, y, a = synthetic(17)
    frame = pd.DataFrame(X, columns=["f0", "f1", "f2"])
    model = make(max_iter=5).fit(frame, pd.Series(y), sensitive_features=pd.Series(a))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                   # no feature-name warning from the plays
        pred = model.predict(frame, random_state=0)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):      # scikit-learn's, as its own
        unnamed = model.predict(X, random_state=0)
    np.testing.assert_array_equal(pred, unnamed)


def test_bound_and_row_clipping_follow_the_algorithm_that_ran():
    """B is Fairlearn's 1/eps in the game; predict clips rows as the fit did (a fitted attribute), not as a parameter
    changed after the fit says."""
    X, y, a = synthetic(18)
    fitted = make(privacy_unit="record", estimator=None, row_norm_bound=0.5, max_iter=4).fit(X, y, sensitive_features=a)
    assert fitted.bound_B_ == 100.0
    before = fitted._pmf_predict(3 * X)
    fitted.set_params(privacy_unit="sensitive_attribute")
    np.testing.assert_array_equal(fitted._pmf_predict(3 * X), before)
    outside = np.linalg.norm(3 * X, axis=1) > 0.5                # these rows are scaled onto the 0.5 ball
    np.testing.assert_array_equal(fitted._pmf_predict(3 * X)[outside], fitted._pmf_predict(30 * X)[outside])


# ------------------------------------------------------------------------------------- output and calibration
@pytest.mark.parametrize("kwargs", [{"privacy_unit": "record", "row_norm_bound": 3.0}, {"estimator": None}])
@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")    # the output's form is checked here,
@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning")   # not the fit's quality
def test_private_output_is_the_uniform_average_where_each_violation_is_its_own_release(kwargs):
    """``run_linprog_step="auto"``: where each play's violation is its own noisy release (the least-squares
    Learner), the uniform average of all T planned plays (the LP would select plays by their noise); True: the LP
    on released values; not a bool or "auto": ValueError."""
    X, y, a = synthetic(3)
    model = make(max_iter=12, **kwargs).fit(X, y, sensitive_features=a)
    assert model.n_iter_ == 12 and model.run_linprog_step == "auto" and model.oracle_ == "least_squares"
    np.testing.assert_allclose(model.weights_, np.full(12, 1 / 12))
    lp = make(max_iter=12, run_linprog_step=True, **kwargs).fit(X, y, sensitive_features=a)
    assert math.isclose(lp.weights_.sum(), 1.0) and np.all(lp.weights_ >= 0)
    assert len(lp.history_["lp_value"]) == lp.n_iter_


def test_private_output_is_the_lp_where_violations_are_calibrated():
    """The estimator Learner under the attribute relation: each play's violation is its public proxy violation
    calibrated on the released ones (two parameters per cell over all rounds, not the play's own noise), so
    ``"auto"`` runs Fairlearn's LP on them for demographic parity (the uniform average for equalized odds, where
    the LP measured worse); False forces the uniform average."""
    X, y, a = synthetic(3)
    odds = make(max_iter=12, constraints=EqualizedOdds(difference_bound=0.01)).fit(X, y, sensitive_features=a)
    np.testing.assert_allclose(odds.weights_, np.full(12, 1 / 12))
    model = make(max_iter=12).fit(X, y, sensitive_features=a)
    assert model.oracle_ == "weighted_estimator" and len(model.history_["lp_value"]) == model.n_iter_
    assert math.isclose(model.weights_.sum(), 1.0) and np.all(model.weights_ >= 0)
    uniform = make(max_iter=12, run_linprog_step=False).fit(X, y, sensitive_features=a)
    np.testing.assert_allclose(uniform.weights_, np.full(12, 1 / 12))
    with pytest.raises(ValueError, match="run_linprog_step"):
        make(run_linprog_step="uniform").fit(X, y, sensitive_features=a)
    with pytest.raises(ValueError, match="run_linprog_step"):
        make(run_linprog_step="uniform").fit(X, y, sensitive_features=a)


def test_calibration_corrects_the_proxys_bias_and_attenuation():
    """Released violations r_j = t_j + N(0, sd^2); proxy violations x_j = 0.5 t_j + 0.02 (attenuated and biased).
    The calibrated estimate regresses r on x over the rounds: for ordinary least squares with two parameters the
    mean squared error over the n design points is sd^2 chi^2_2 / n, so the RMS error stays below sd sqrt(13.8 / n)
    except with probability 0.001 per cell (the ridge toward slope 1 adds a bias of sd^2 / S_xx, about 0.1% here).
    The plain offset (slope 1) keeps half of every violation's deviation from the mean."""
    rng = np.random.default_rng(5)
    n = 4000
    a = rng.choice(["a", "b"], size=n)
    X = np.column_stack([(a == "a") + 0.3 * rng.normal(size=n), rng.normal(size=n)])
    y = rng.integers(0, 2, size=n)
    game = _proxy_game(X, y, a, np.array(["a", "b"]), 0.5)
    sd = game.gamma_sd()
    rounds = 200
    truth = rng.uniform(-0.1, 0.1, size=(rounds, sd.size))
    proxy = 0.5 * truth + 0.02
    released = truth + rng.normal(size=truth.shape) * sd
    both = np.concatenate
    estimate = game.calibrated_violations(both([proxy, -proxy], axis=1), both([released, -released], axis=1))
    np.testing.assert_allclose(estimate[:, sd.size:], -estimate[:, :sd.size])
    rms = np.sqrt(np.mean((estimate[:, :sd.size] - truth) ** 2, axis=0))
    assert np.all(rms <= sd * math.sqrt(13.8 / rounds)), (rms, sd)
    offset = proxy + (released - proxy).mean(axis=0)
    assert np.all(np.sqrt(np.mean((offset - truth) ** 2, axis=0)) > 0.02)


def test_warning_turned_into_an_error_does_not_skip_the_charge():
    """The warnings come after the charge (a warning raised as an error keeps it charged): here the first one is
    the least-squares Learner's unenforced groups (kappa <= bound at epsilon = 0.05), then the worse-than-constant."""
    import warnings

    X, y, a = synthetic(7, n=120)
    acc = BudgetAccountant()
    with warnings.catch_warnings(), pytest.warns(UtilityWarning, match="sqrt\\(n_features\\)"):
        warnings.simplefilter("error", FairnessWarning)            # the loose row bound, before the charge, warns
        with pytest.raises(FairnessWarning, match="cannot tell the members"):
            make(epsilon=0.05, privacy_unit="record", estimator=None, max_iter=5, accountant=acc).fit(
                X, y, sensitive_features=a)
    assert acc.spent_budget == [(0.05, 1e-5)]
