"""DPCorrelationRemover (issue 40): Fairlearn's CorrelationRemover at epsilon=inf, the sensitivity lemmas of
docs/privacy_analysis/correlation_remover.md attained and never exceeded, one charge per fit, the failure paths and
scikit-learn's conventions."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.preprocessing import CorrelationRemover
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.preprocessing import DPCorrelationRemover
from fairlearn_dp.preprocessing._correlation_statistics import Layout, sensitivities, sufficient_statistics

INF = math.inf


def _adult_with(adult, name):
    """Adult's 103 features (all in [0, 1]) with the attribute one-hot encoded in front: sex gives one column (Male),
    race all five (they sum to 1, so their covariance is singular: Fairlearn's lstsq takes the minimum-norm
    solution, ours the pseudo-inverse)."""
    X, _, attribute = adult
    codes = pd.get_dummies(pd.Series(attribute, name=name), prefix=name, dtype=float)
    if name == "sex":
        codes = codes[["sex_Male"]]
    return pd.concat([codes.reset_index(drop=True), X.reset_index(drop=True)], axis=1), list(codes.columns)


@pytest.mark.parametrize("name, fixture", [("sex", "adult_sex"), ("race", "adult_race")])
@pytest.mark.parametrize("alpha", [1.0, 0.4])
def test_infinite_epsilon_is_fairlearns_transform_on_adult(request, name, fixture, alpha):
    X, ids = _adult_with(request.getfixturevalue(fixture), name)
    ours = DPCorrelationRemover(sensitive_feature_ids=ids, alpha=alpha, epsilon=INF, bounds=(0.0, 1.0),
                                accountant=BudgetAccountant()).fit(X)
    theirs = CorrelationRemover(sensitive_feature_ids=ids, alpha=alpha).fit(X)
    # Round-off: features in [0, 1], n = 48,842; the statistics are sums (relative error ~ n * 1e-16) and the
    # solves are of conditioned 1 x 1 and 5 x 5 (rank 4) systems: 1e-9 leaves orders of magnitude of margin.
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.sensitive_mean_, theirs.sensitive_mean_, rtol=0, atol=1e-12)
    assert ours.n_directions_ == len(ids) - (name == "race")


# Fairlearn's own tests of CorrelationRemover (test/unit/preprocessing/linear_dep_remover/test_sklearn_compat.py,
# MIT licence), their assertions reproduced with our class at epsilon=inf (no bounds: the drop-in's arguments).
def test_fairlearns_linear_dependence_example():
    X = np.array([[0, 0, 1, 1], [1, 1, 2, 2], [0.1, 0.2, 1.2, 1.1]]).T
    expected = np.array([[1.5, 0.6], [1.5, 0.7], [1.5, 0.7], [1.5, 0.6]])
    np.testing.assert_array_almost_equal(expected, DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=INF)
                                         .fit_transform(X))
    frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [1, 1, 2, 2], "c": [0.1, 0.2, 1.2, 1.1]})
    np.testing.assert_array_almost_equal(expected, DPCorrelationRemover(sensitive_feature_ids="a", epsilon=INF)
                                         .fit_transform(frame))


@pytest.mark.parametrize("alpha, expected", [(0.0, [[2, 3], [5, 6], [8, 9]]), (0.5, [[3.5, 4.5], [5, 6], [6.5, 7.5]]),
                                             (1.0, [[5, 6], [5, 6], [5, 6]])])
def test_fairlearns_alpha_example(alpha, expected):
    X = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    got = DPCorrelationRemover(sensitive_feature_ids=[0], alpha=alpha, epsilon=INF).fit_transform(X)
    np.testing.assert_array_almost_equal(np.array(expected), got)


def test_fairlearns_default_sensitive_features_example():
    X = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    np.testing.assert_array_equal(X, DPCorrelationRemover(epsilon=INF).fit_transform(X))


def test_missing_sensitive_columns_are_refused_with_fairlearns_message_before_the_budget():
    exhausted = BudgetAccountant(epsilon=1e-3)
    with pytest.raises(ValueError, match=r"Columns \[-1, 3, 4\] not found in the input data"):
        DPCorrelationRemover(sensitive_feature_ids=[-1, 0, 3, 4], epsilon=1.0, bounds=(0, 1),
                             accountant=exhausted).fit(np.array([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match=r"Columns \['c', 'd'\] not found"):
        DPCorrelationRemover(sensitive_feature_ids=["a", "b", "c", "d"], epsilon=INF).fit(
            pd.DataFrame({"a": [1, 2], "b": [3, 4]}))


# ------------------------------------------------------------------------------------------- sensitivity
def _released(X, ids, bounds, unit):
    model = DPCorrelationRemover(sensitive_feature_ids=ids, epsilon=INF, bounds=bounds, privacy_unit=unit,
                                 accountant=BudgetAccountant()).fit(X)
    return model.noisy_statistics_


def test_attribute_unit_worst_neighbours_attain_the_l1_bound():
    """Lemma 1 with one sensitive column in [0, 1] and z in [-1, 1]: 2 r (1 + R) = 2, reached by s 0 -> 1 at z = 1;
    with r = 2 (s in [-2, 2]) the interior optimum (1 + R + 2r)^2 / 4 = 9, reached by s 2 -> -1 at z = 1."""
    rng = np.random.default_rng(1)
    X = np.c_[rng.integers(0, 2, 30), rng.uniform(-1, 1, 30)]
    X[0] = (0.0, 1.0)
    X_prime = X.copy()
    X_prime[0, 0] = 1.0
    bounds = ([0.0, -1.0], [1.0, 1.0])
    l1, _ = sensitivities([0.5], [1.0], "sensitive_attribute")
    move = _released(X_prime, [0], bounds, "sensitive_attribute") - _released(X, [0], bounds, "sensitive_attribute")
    assert l1 == 2.0 and np.abs(move).sum() == pytest.approx(l1, rel=1e-12)
    wide = ([-2.0, -1.0], [2.0, 1.0])
    X[0], X_prime[0] = (2.0, 1.0), (-1.0, 1.0)
    l1, _ = sensitivities([2.0], [1.0], "sensitive_attribute")
    move = _released(X_prime, [0], wide, "sensitive_attribute") - _released(X, [0], wide, "sensitive_attribute")
    assert l1 == 9.0 and np.abs(move).sum() == pytest.approx(l1, rel=1e-12)


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_no_neighbour_moves_the_release_beyond_its_sensitivities(unit):
    """Random rows in and beyond the bounds (clipped), two sensitive columns, two other columns; the attribute unit
    changes only the sensitive columns of row 0, the record unit the whole row."""
    rng = np.random.default_rng(2)
    lower, upper = np.array([0.0, -1.0, -2.0, 0.0]), np.array([1.0, 2.0, 1.0, 3.0])
    l1, l2 = sensitivities((upper - lower)[:2] / 2, (upper - lower)[2:] / 2, unit)
    columns = 2 if unit == "sensitive_attribute" else 4
    worst_l1 = worst_l2 = 0.0
    for _ in range(300):
        X = rng.uniform(lower - 0.5, upper + 0.5, (12, 4))
        X_prime = X.copy()
        X_prime[0, :columns] = rng.uniform(lower - 0.5, upper + 0.5)[:columns]
        corners = rng.random() < 0.5                # extreme rows: every column at one end of its interval
        if corners:
            X_prime[0, :columns] = np.where(rng.random(4) < 0.5, lower, upper)[:columns]
            X[0, :columns] = np.where(rng.random(4) < 0.5, lower, upper)[:columns]
        move = _released(X_prime, [0, 1], (lower, upper), unit) - _released(X, [0, 1], (lower, upper), unit)
        worst_l1, worst_l2 = max(worst_l1, np.abs(move).sum()), max(worst_l2, np.linalg.norm(move))
    assert worst_l1 <= l1 * (1 + 1e-12) and worst_l2 <= l2 * (1 + 1e-12)
    assert worst_l1 > 0.5 * l1                       # the search reaches the scale of the bound


def test_the_layout_releases_the_other_columns_sums_under_the_record_unit_only():
    S, Z = np.ones((3, 2)), np.full((3, 3), 2.0)
    record, _ = sufficient_statistics(S, Z, Layout(2, 3, True))
    attribute, sums_z = sufficient_statistics(S, Z, Layout(2, 3, False))
    assert record.size == 2 + 3 + 3 + 6 and attribute.size == 2 + 3 + 6
    np.testing.assert_array_equal(sums_z, [6.0, 6.0, 6.0])


# ---------------------------------------------------------------------------------------- budget and noise
def _small(seed=0, n=400):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2, n)
    return np.c_[s, np.clip(0.5 * s + rng.normal(0, 0.3, n), -1, 2), rng.uniform(0, 1, n)]


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_one_charge_per_fit_and_a_seeded_fit_is_reproducible(delta, unit):
    accountant = BudgetAccountant()
    make = lambda seed: DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=2.0, delta=delta, privacy_unit=unit,  # noqa: E731
                                             bounds=([0, -1, 0], [1, 2, 1]), accountant=accountant, random_state=seed)
    first = make(3).fit(_small())
    assert accountant.spent_budget == [(2.0, delta)] and tuple(first.privacy_spent_.as_tuple()) == (2.0, delta)
    again, other = make(3).fit(_small()), make(4).fit(_small())
    np.testing.assert_array_equal(first.noisy_statistics_, again.noisy_statistics_)
    assert not np.array_equal(first.noisy_statistics_, other.noisy_statistics_)
    assert first.noisy_statistics_.size == (4 if unit == "sensitive_attribute" else 6)   # 1 + (2) + 1 + 2


def test_the_budget_is_checked_before_the_data_are_read():
    exhausted = BudgetAccountant(epsilon=0.5)
    model = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0, bounds=(0, 1), accountant=exhausted)
    with pytest.raises(BudgetError):
        model.fit(np.array([[np.nan, 1.0], [0.0, 1.0]]))      # NaN would be a domain error after the budget
    assert exhausted.spent_budget == [] and not hasattr(model, "beta_")
    with pytest.raises(ValueError, match="bounds=.* is required at a finite epsilon"):
        DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0, accountant=exhausted).fit(_small())


def test_noise_that_hides_every_direction_removes_nothing_and_warns():
    """At a tiny epsilon the released covariance of s is noise (possibly negative): every eigen-direction falls
    under the floor, beta is 0 and transform returns z unchanged, with a UtilityWarning from released values."""
    model = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1e-4, bounds=([0, -1, 0], [1, 2, 1]),
                                 accountant=BudgetAccountant(), random_state=0)
    with pytest.warns(UtilityWarning, match="removes nothing"):
        out = model.fit_transform(_small())
    assert model.n_directions_ == 0 and np.all(model.beta_ == 0)
    np.testing.assert_array_equal(out, _small()[:, 1:])


def test_values_beyond_the_bounds_are_clipped_silently_and_the_fit_tracks_the_exact_one_at_large_epsilon():
    X = _small(n=4000)
    X[:5, 1] = 50.0                                   # beyond the declared [-1, 2]: clipped, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        noisy = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=50.0, bounds=([0, -1, 0], [1, 2, 1]),
                                     accountant=BudgetAccountant(), random_state=0).fit(X)
    clipped = X.copy()
    clipped[:, 1] = np.clip(clipped[:, 1], -1, 2)
    exact = CorrelationRemover(sensitive_feature_ids=[0]).fit(clipped)
    # Noise sd per entry sqrt(2) * l1 / epsilon = sqrt(2) * 3.75 / 50 ~ 0.11 on sums over n = 4000 rows: the
    # covariances move by ~3e-5 against Var(s) ~ 0.25, so beta moves by ~1e-3 (a tenth of that tolerance).
    np.testing.assert_allclose(noisy.beta_, exact.beta_, atol=0.01)


# ------------------------------------------------------------------------------------- scikit-learn conventions
def test_feature_names_set_output_pipeline_and_clone():
    X = pd.DataFrame(_small(), columns=["sex", "income", "other"])
    accountant = BudgetAccountant()
    model = DPCorrelationRemover(sensitive_feature_ids=["sex"], epsilon=1.0, bounds=([0, -1, 0], [1, 2, 1]),
                                 accountant=accountant, random_state=0).set_output(transform="pandas")
    out = model.fit_transform(X)
    assert list(out.columns) == ["income", "other"] and list(model.get_feature_names_out()) == ["income", "other"]
    assert list(model.feature_names_in_) == ["sex", "income", "other"] and model.n_features_in_ == 3
    with pytest.raises(ValueError, match="feature names should match"):
        model.transform(X[["income", "sex", "other"]])
    with pytest.raises(ValueError, match="input_features is not equal"):
        model.get_feature_names_out(["a", "b", "c"])
    assert clone(model).accountant is accountant and clone(model).get_params() == model.get_params()
    array_model = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=INF).fit(_small())
    assert list(array_model.get_feature_names_out()) == ["x1", "x2"]
    y = (_small()[:, 1] > 0.3).astype(int)
    pipe = make_pipeline(DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0,
                                              bounds=([0, -1, 0], [1, 2, 1]), accountant=accountant, random_state=0),
                         LogisticRegression())
    assert pipe.fit(_small(), y).predict(_small()).shape == (400,)


def test_domain_errors_quote_no_value():
    X = np.array([["a", 1.0], ["0.5", 2.0]], dtype=object)
    with pytest.raises(ValueError, match="^X must be numeric") as error:
        DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0, bounds=(0, 1),
                             accountant=BudgetAccountant()).fit(X)
    assert "'a'" not in str(error.value)
