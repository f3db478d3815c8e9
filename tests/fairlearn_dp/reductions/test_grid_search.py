"""DPGridSearch (issue 40): Fairlearn's GridSearch at epsilon=inf, its grid built from public inputs, Fairlearn's
selection rule on the released values, one charge, the budget split, parameters refused before the budget, and the
AIF360 face equal to AIF360's GridSearchReduction at epsilon=inf."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.reductions import DemographicParity, EqualizedOdds, ErrorRateParity, GridSearch
from sklearn.exceptions import DataConversionWarning
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.privacy import approx_dp_to_zcdp
from fairlearn_dp.reductions import DPGridSearch

pytestmark = [pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
              pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")]


def _synthetic(n=1500, n_groups=2, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    X = rng.uniform(-1, 1, (n, 3))
    y = (X[:, 0] + 0.4 * groups + 0.3 * rng.standard_normal(n) > 0.2).astype(int)
    return X, y, groups


@pytest.fixture(scope="module")
def adult_small(adult_sex):
    """2,000 Adult rows by sex (seed 0), the numeric columns and one categorical block (fast fits)."""
    X, y, sex = adult_sex
    rows = np.sort(np.random.default_rng(0).choice(len(y), 2000, replace=False))
    return X.iloc[rows, :20].reset_index(drop=True), np.asarray(y)[rows], np.asarray(sex)[rows]


def test_epsilon_inf_is_fairlearns_grid_search_on_adult(adult_small):
    """At epsilon=inf with an estimator: Fairlearn's grid, best_idx_, objectives_ and predictions."""
    X, y, sex = adult_small
    ours = DPGridSearch(LogisticRegression(max_iter=500), DemographicParity(), grid_size=7, epsilon=math.inf)
    ours.fit(X, y, sensitive_features=sex)
    theirs = GridSearch(LogisticRegression(max_iter=500), DemographicParity(), grid_size=7)
    theirs.fit(X, y, sensitive_features=sex)
    assert ours.best_idx_ == theirs.best_idx_ and ours.n_oracle_calls_ == 7 and ours.mode_ == "fairlearn"
    pd.testing.assert_frame_equal(ours.lambda_vecs_, theirs.lambda_vecs_)
    np.testing.assert_allclose(ours.objectives_, theirs.objectives_, atol=1e-9)
    # The same solver on the same data and weights: the predictions agree except at round-off ties.
    assert np.mean(ours.predict(X) != theirs.predict(X)) <= 1e-3
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-6)
    assert ours.privacy_spent_.epsilon == math.inf


def _in_declared_order(X, y, groups):
    """The rows reordered so that group 0, 1, ... first appear in that order, and label 0 before label 1."""
    front = [int(np.flatnonzero((groups == 0) & (y == 0))[0])]
    front += [int(np.flatnonzero(groups == g)[0]) for g in range(1, groups.max() + 1)]
    order = np.r_[front, np.setdiff1d(np.arange(len(y)), front)]
    return X[order], y[order], groups[order]


@pytest.mark.parametrize("constraints, n_groups", [(DemographicParity(), 2), (EqualizedOdds(), 3),
                                                   (ErrorRateParity(), 3)])
def test_private_grid_is_fairlearns_grid_from_the_declared_groups(constraints, n_groups):
    """The grid is built from the constraint's public structure (moment type, declared groups, in their order):
    Fairlearn's grid for data whose groups first appear in the declared order. Fairlearn's basis leaves out the
    group that appears last in the data; the private grid leaves out the last declared group, whatever the rows'
    order (the order of appearance is a property of the private data), so a permutation of the rows keeps it."""
    X, y, groups = _in_declared_order(*_synthetic(n_groups=n_groups))
    theirs = GridSearch(LogisticRegression(), constraints, grid_size=9).fit(X, y, sensitive_features=groups)

    def private_grid(order):
        search = DPGridSearch(None, constraints, grid_size=9, epsilon=1.0, delta=1e-5, groups=list(range(n_groups)),
                              random_state=0, accountant=BudgetAccountant())
        return search.fit(X[order], y[order], sensitive_features=groups[order])

    ours = private_grid(np.arange(len(y)))
    pd.testing.assert_frame_equal(ours.lambda_vecs_, theirs.lambda_vecs_, check_index_type=False)
    assert list(ours.gammas_.index) == list(theirs.gammas_.index)
    reversed_rows = private_grid(np.arange(len(y))[::-1])
    pd.testing.assert_frame_equal(reversed_rows.lambda_vecs_, ours.lambda_vecs_)


def test_the_public_grid_is_memoised_per_public_inputs_and_copied_out():
    """A refit with the same constraint, groups and grid arguments copies the memoised grid (a sweep's or an audit's
    thousands of fits do not rebuild it): changing a fitted ``lambda_vecs_`` in place leaves the next fit's grid as
    it was, other arguments give other grids, and a constraint that cannot be pickled (no memo key) still fits."""
    X, y, groups = _in_declared_order(*_synthetic(n_groups=2))

    def fit(constraints, **params):
        search = DPGridSearch(None, constraints, epsilon=1.0, delta=1e-5, groups=[0, 1], random_state=0,
                              accountant=BudgetAccountant(), **params)
        return search.fit(X, y, sensitive_features=groups)

    first = fit(DemographicParity(), grid_size=7)
    expected = first.lambda_vecs_.copy()
    first.lambda_vecs_.iloc[:, :] = 99.0
    pd.testing.assert_frame_equal(fit(DemographicParity(), grid_size=7).lambda_vecs_, expected)
    assert fit(DemographicParity(), grid_size=5).lambda_vecs_.shape[1] == 5
    assert not fit(DemographicParity(), grid_size=7, grid_limit=1.0).lambda_vecs_.equals(expected)

    unpicklable = DemographicParity()
    unpicklable.note = lambda: None                 # a lambda pickles by name: no memo key, deepcopy still works
    pd.testing.assert_frame_equal(fit(unpicklable, grid_size=7).lambda_vecs_, expected)


def test_a_refit_with_the_same_public_inputs_builds_the_grid_once(monkeypatch):
    """The memo is used: two fits with the same constraint, groups and grid arguments call Fairlearn's grid generator
    and ``load_data`` once; a third fit with another grid size builds its own grid (from the memoised constraint)."""
    from collections import OrderedDict

    from fairlearn_dp.reductions import _grid_search

    monkeypatch.setattr(_grid_search, "_PUBLIC_STRUCTURES", OrderedDict())
    calls = {"grid": 0, "load": 0}
    generator, load = _grid_search.GridGenerator, _grid_search._load_structure

    def counted_generator(*args, **kwargs):
        calls["grid"] += 1
        return generator(*args, **kwargs)

    def counted_load(*args, **kwargs):
        calls["load"] += 1
        return load(*args, **kwargs)

    monkeypatch.setattr(_grid_search, "GridGenerator", counted_generator)
    monkeypatch.setattr(_grid_search, "_load_structure", counted_load)
    X, y, groups = _in_declared_order(*_synthetic(n_groups=2))
    for grid_size in (7, 7, 5):
        DPGridSearch(None, DemographicParity(), grid_size=grid_size, epsilon=1.0, delta=1e-5, groups=[0, 1],
                     random_state=0, accountant=BudgetAccountant()).fit(X, y, sensitive_features=groups)
    assert calls == {"grid": 2, "load": 1}


def test_noise_free_statistics_path_applies_fairlearns_rule_to_exact_values():
    """Least-squares best responses at epsilon=inf: objectives_ and gammas_ are each play's exact error and
    Fairlearn's violations, and best_idx_ minimises (1 - w) error + w max violation."""
    X, y, groups = _synthetic()
    search = DPGridSearch(None, DemographicParity(), constraint_weight=0.7, epsilon=math.inf, groups=[0, 1])
    search.fit(X, y, sensitive_features=groups)
    assert search.mode_ == "statistics" and search.oracle_ == "least_squares"
    for k, play in enumerate(search.predictors_):
        moment = DemographicParity()
        moment.load_data(X, y, sensitive_features=groups)
        np.testing.assert_allclose(search.gammas_.iloc[:, k].to_numpy(), moment.gamma(play.predict).to_numpy(),
                                   atol=1e-12)
        assert search.objectives_[k] == pytest.approx(np.mean(play.predict(X) != y), abs=1e-12)
    losses = 0.3 * np.array(search.objectives_) + 0.7 * search.gammas_.max(axis=0).to_numpy()
    assert search.best_idx_ == int(np.argmin(losses))
    np.testing.assert_array_equal(search.predict(X), search.predictors_[search.best_idx_].predict(X))


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_one_charge_and_the_budget_split(unit):
    """One charge of (epsilon, delta); the statistics and the K grid releases compose to the game's rho."""
    X, y, groups = _synthetic()
    accountant = BudgetAccountant()
    search = DPGridSearch(LogisticRegression(), DemographicParity(difference_bound=0.05), grid_size=6, epsilon=2.0,
                          delta=1e-5, privacy_unit=unit, groups=[0, 1], random_state=1, accountant=accountant,
                          row_norm_bound=2.0)
    search.fit(X, y, sensitive_features=groups)
    assert len(accountant.spent_budget) == 1 and accountant.spent_budget[0] == (2.0, 1e-5)
    assert search.privacy_spent_.epsilon == 2.0 and search.privacy_spent_.delta == 1e-5
    game_epsilon = 2.0 if unit == "sensitive_attribute" else 2.0 * 0.9       # the choice's share under "record"
    rho = approx_dp_to_zcdp(game_epsilon, 1e-5)
    assert search.rho_["total"] == pytest.approx(rho, rel=1e-12)
    assert search.rho_["statistics"] + 6 * search.rho_["per_grid_point"] == pytest.approx(rho, rel=1e-12)
    assert search.noise_scale_["per_grid_point"] == pytest.approx(
        math.sqrt(2.0) / math.sqrt(2.0 * search.rho_["per_grid_point"]), rel=1e-12)
    assert len(search.history_["grid_sums"]) == 6 == search.n_oracle_calls_


def test_seeded_fit_reproduces_its_draws_and_other_seeds_differ():
    X, y, groups = _synthetic()

    def sums(seed):
        search = DPGridSearch(None, DemographicParity(), epsilon=1.0, delta=1e-5, groups=[0, 1], random_state=seed,
                              accountant=BudgetAccountant())
        return np.array(search.fit(X, y, sensitive_features=groups).history_["grid_sums"])

    np.testing.assert_array_equal(sums(3), sums(3))
    assert not np.array_equal(sums(3), sums(4))


@pytest.mark.parametrize("params, error, name", [
    ({"constraint_weight": 1.5}, ValueError, "constraint_weight"),
    ({"grid_size": 0}, ValueError, "grid_size"),
    ({"grid_size": 2.5}, TypeError, "grid_size"),
    ({"grid_limit": -1.0}, ValueError, "grid_limit"),
    ({"selection_rule": "best"}, ValueError, "selection_rule"),
    ({"grid": "grid"}, TypeError, "grid"),
    ({"grid": pd.DataFrame({0: [1.0, 0.0]})}, ValueError, "grid"),
    ({"grid_offset": [0.0]}, TypeError, "grid_offset"),
    ({"delta": 0.0}, ValueError, "delta"),
    ({"privacy_unit": "row"}, ValueError, "privacy_unit"),
])
def test_bad_parameters_are_refused_by_name_before_the_budget(params, error, name):
    """An accountant that cannot pay would raise BudgetError: the parameter's error comes first."""
    X, y, groups = _synthetic(n=100)
    search = DPGridSearch(None, DemographicParity(), **{"epsilon": 1.0, "delta": 1e-5, "groups": [0, 1],
                                                        "accountant": BudgetAccountant(epsilon=0.1), **params})
    with pytest.raises(error, match=name):
        search.fit(X, y, sensitive_features=groups)
    with pytest.raises(BudgetError):
        DPGridSearch(None, DemographicParity(), epsilon=1.0, delta=1e-5, groups=[0, 1],
                     accountant=BudgetAccountant(epsilon=0.1)).fit(X, y, sensitive_features=groups)


def test_a_given_grid_is_searched_and_a_constant_choice_is_predicted():
    """A user grid (Fairlearn's layout) sets the multipliers; with a tiny budget under "record" a fair constant may
    win the private choice, and then predict and predict_proba return it for every row."""
    X, y, groups = _synthetic(n=300)
    index = pd.MultiIndex.from_product([["+", "-"], ["all"], [0, 1]], names=["sign", "event", "group_id"])
    grid = pd.DataFrame({"a": [0.0, 0.0, 0.0, 0.0], "b": [0.5, 0.0, 0.0, 0.5]}, index=index)
    search = DPGridSearch(None, DemographicParity(), grid=grid, epsilon=math.inf, groups=[0, 1])
    search.fit(X, y, sensitive_features=groups)
    assert search.n_oracle_calls_ == 2 and list(search.gammas_.columns) == ["a", "b"]
    chosen = [DPGridSearch(None, DemographicParity(), epsilon=0.05, delta=1e-5, privacy_unit="record",
                           row_norm_bound=2.0, groups=[0, 1], random_state=seed,
                           accountant=BudgetAccountant()).fit(X, y, sensitive_features=groups)
              for seed in range(6)]
    constant = next(s for s in chosen if s.constant_choice_.is_constant)
    value = int(constant.constant_choice_.constant)
    np.testing.assert_array_equal(constant.predict(X), np.full(len(y), value))
    np.testing.assert_array_equal(constant.predict_proba(X)[:, 1], np.full(len(y), float(value)))


def test_aif360_face_at_infinity_is_aif360s_grid_search_reduction(aif360_adult_numeric):
    pytest.importorskip("aif360")
    from aif360.algorithms.inprocessing import GridSearchReduction

    from aif360_dp.algorithms.inprocessing import DPGridSearchReduction

    data = aif360_adult_numeric
    with warnings.catch_warnings():     # AIF360 passes its (n, 1) labels to a LabelEncoder: scikit-learn warns
        warnings.simplefilter("ignore", DataConversionWarning)
        theirs = GridSearchReduction(LogisticRegression(), "DemographicParity", prot_attr="sex", grid_size=5)
        theirs.fit(data)
    ours = DPGridSearchReduction(LogisticRegression(), "DemographicParity", prot_attr="sex", grid_size=5,
                                 epsilon=math.inf).fit(data)
    assert ours.model_.best_idx_ == theirs.model.model_.best_idx_
    expected, got = theirs.predict(data), ours.predict(data)
    assert np.mean(expected.labels != got.labels) <= 1e-3
    np.testing.assert_allclose(got.scores, expected.scores, atol=1e-6)
    private = DPGridSearchReduction(LogisticRegression(), "DemographicParity", prot_attr="sex", epsilon=1.0,
                                    delta=1e-5, seed=0, accountant=BudgetAccountant()).fit(data)
    assert private.privacy_spent_.epsilon == 1.0 and private.model_.mode_ == "statistics"
    assert set(np.unique(private.predict(data).labels)) <= {data.favorable_label, data.unfavorable_label}


def test_a_private_refit_keeps_no_attribute_of_fairlearns_fit():
    """Fairlearn's path (epsilon=inf with an estimator) stores its Moment loaded with the raw rows in constraints_;
    a private refit of the same object must not keep it (nor any other attribute the private path does not set),
    and an inf refit keeps none of the private fit's releases."""
    X, y, groups = _synthetic(n=300)
    search = DPGridSearch(LogisticRegression(), DemographicParity(), grid_size=3, epsilon=math.inf)
    search.fit(X, y, sensitive_features=groups)
    assert hasattr(search, "constraints_") and hasattr(search, "oracle_execution_times_")
    search.set_params(epsilon=1.0, delta=1e-5, groups=[0, 1], random_state=0, accountant=BudgetAccountant())
    search.fit(X, y, sensitive_features=groups)
    assert search.mode_ == "statistics"
    assert not hasattr(search, "constraints_") and not hasattr(search, "oracle_execution_times_")
    search.set_params(epsilon=math.inf, accountant=None)
    search.fit(X, y, sensitive_features=groups)
    assert search.mode_ == "fairlearn" and not hasattr(search, "history_") and not hasattr(search, "rho_")


@pytest.mark.parametrize("spoil", ["nan_in_X", "undeclared_group", "label_not_0_1"])
def test_domain_errors_quote_no_value_charge_nothing_and_leave_the_fit(spoil):
    """Domain errors (after the budget check) name the problem but no value of the data; nothing is charged and the
    estimator keeps its earlier fit."""
    X, y, groups = _synthetic(n=200)
    accountant = BudgetAccountant()
    search = DPGridSearch(None, DemographicParity(), grid_size=3, epsilon=1.0, delta=1e-5, groups=[0, 1],
                          random_state=0, accountant=accountant)
    search.fit(X, y, sensitive_features=groups)
    before = dict(vars(search))
    X, y, groups = X.copy(), y.copy(), groups.copy()
    if spoil == "nan_in_X":
        X[7, 1] = np.nan
    elif spoil == "undeclared_group":
        groups[7] = 4321
    else:
        y[7] = 4321
    with pytest.raises(ValueError) as raised:
        search.fit(X, y, sensitive_features=groups)
    assert "4321" not in str(raised.value)
    assert len(accountant.spent_budget) == 1
    assert vars(search).keys() == before.keys() and all(vars(search)[k] is before[k] for k in before)


class _FailsOnReleasedWeights(LogisticRegression):
    """A best response that raises, quoting its sample weights, once they are not uniform: they are then a function
    of the first release (the multipliers 0 give uniform weights)."""

    def fit(self, X, y, sample_weight=None):
        if not np.allclose(sample_weight, sample_weight[0]):
            raise RuntimeError(f"weights {sample_weight[:3]}")
        return super().fit(X, y, sample_weight=sample_weight)


def test_a_best_response_failing_after_the_first_release_costs_the_fit():
    """The estimator is fitted on weights derived from the released statistics: its failure (and its message) is a
    release, so it is charged what the fit costs; the estimator stays unfitted."""
    X, y, groups = _synthetic()
    X[:, 1] += groups                       # the features tell the groups apart: the proxies are not constant
    accountant = BudgetAccountant()
    search = DPGridSearch(_FailsOnReleasedWeights(), DemographicParity(), grid_size=5, epsilon=1.0, delta=1e-5,
                          groups=[0, 1], random_state=0, accountant=accountant)
    with pytest.raises(RuntimeError, match="weights"):
        search.fit(X, y, sensitive_features=groups)
    assert accountant.spent_budget == [(1.0, 1e-5)]
    assert not hasattr(search, "predictors_") and not hasattr(search, "privacy_spent_")
