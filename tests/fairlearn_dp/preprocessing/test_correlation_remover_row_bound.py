"""DPCorrelationRemover's public L1 row-norm bound on the non-sensitive columns (``row_norm_bound_l1``): Lemma 3 of
docs/privacy_analysis/correlation_remover.md attained and never exceeded, Fairlearn's output at epsilon=inf when the
bound does not bind, and the release without the bound unchanged (bit for bit) from the code before the bound."""

import hashlib
import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.preprocessing import CorrelationRemover

from fairlearn_dp.preprocessing import DPCorrelationRemover
from fairlearn_dp.preprocessing._correlation_statistics import sensitivities

INF = math.inf

# Recorded on commit c526cd7 (before row_norm_bound_l1): sha256 (first 16 hex digits) of noisy_statistics_ and the
# rounded beta_, epsilon = 100, on integer rows (their sums are exact in any order, so the released values are the
# exact statistics plus the seeded draws).
_BEFORE = [
    ((0,), "sensitive_attribute", 0.0, 0, "1f61fc3ba01b8638", [[0.2241930947, 0.3816388691, 0.3992338452]]),
    ((0,), "sensitive_attribute", 0.0, 1, "89e3c0aa9e65ff65", [[0.1879346073, 0.3825126981, 0.419056584]]),
    ((0,), "sensitive_attribute", 1e-06, 0, "fd440a6a5933f7f9", [[0.1622430182, 0.3301481651, 0.3414330799]]),
    ((0,), "sensitive_attribute", 1e-06, 1, "20cdd5a058551d2f", [[0.0686441739, 0.4959803094, 0.4658287383]]),
    ((0,), "record", 0.0, 0, "0d04cad71a2671d3", [[0.0479531404, 0.4271232621, 0.4359056782]]),
    ((0,), "record", 0.0, 1, "d490604eaf2eee0f", [[0.1292529319, 0.3089696179, 0.4121893073]]),
    ((0,), "record", 1e-06, 0, "9466aaba8d50057f", [[0.3360742149, 0.4289486685, 0.4690435616]]),
    ((0,), "record", 1e-06, 1, "8595462fb21212de", [[0.0441201742, 0.2423668346, 0.4343547875]]),
    ((0, 1), "sensitive_attribute", 0.0, 0, "373928f462839c07", [[0.2446462254, 0.3322748574],
                                                                   [-0.3365140469, 0.4258288719]]),
    ((0, 1), "sensitive_attribute", 0.0, 1, "058cc7e8cf78c619", [[0.3706318335, 0.2455250451],
                                                                   [-0.3426489846, 0.4287782309]]),
    ((0, 1), "sensitive_attribute", 1e-06, 0, "9c15ba15b3003085", [[0.5720089525, 0.3170952864],
                                                                     [-0.3714503488, 0.5188273621]]),
    ((0, 1), "sensitive_attribute", 1e-06, 1, "13d46ad6b26a1faa", [[-0.0219946144, 0.0272698957],
                                                                     [-0.3048987394, 0.3780269419]]),
    ((0, 1), "record", 0.0, 0, "0140077767cbce91", [[0.4486219442, 0.4808040181], [-0.3512788974, 0.4663287641]]),
    ((0, 1), "record", 0.0, 1, "80de3ce17a6b1986", [[0.4013874599, 0.4098254799], [-0.3596493038, 0.3821029497]]),
    ((0, 1), "record", 1e-06, 0, "3e0c25d44e52d931", [[0.6153223312, 0.4412946156], [-0.4718815224, 0.3222972799]]),
    ((0, 1), "record", 1e-06, 1, "a9d089c712f5da0a", [[0.2766923999, 0.2872151128], [-0.2878186607, 0.4283594234]]),
]


@pytest.mark.parametrize("ids, unit, delta, seed, digest, beta", _BEFORE)
def test_without_the_row_bound_the_release_is_the_one_before_it(ids, unit, delta, seed, digest, beta):
    rng = np.random.default_rng(4040)
    X = np.c_[rng.integers(0, 3, 16), rng.integers(-2, 3, 16), rng.integers(0, 5, 16),
              rng.integers(-3, 4, 16)].astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DPCorrelationRemover(sensitive_feature_ids=list(ids), epsilon=100.0, delta=delta,
                                     bounds=([0.0, -2.0, 0.0, -3.0], [2.0, 2.0, 4.0, 3.0]), privacy_unit=unit,
                                     accountant=BudgetAccountant(), random_state=seed).fit(X)
    assert hashlib.sha256(model.noisy_statistics_.tobytes()).hexdigest()[:16] == digest
    np.testing.assert_allclose(model.beta_, beta, rtol=1e-8, atol=1e-9)


def _released(X, ids, bounds, unit, row_bound):
    model = DPCorrelationRemover(sensitive_feature_ids=ids, epsilon=INF, bounds=bounds, privacy_unit=unit,
                                 row_norm_bound_l1=row_bound, accountant=BudgetAccountant()).fit(X)
    return model.noisy_statistics_


@pytest.mark.parametrize("s_bounds, s, s_prime, expected", [((0.0, 1.0), 0.0, 1.0, 3.0),       # 2 r (1 + B)
                                                            ((-2.0, 2.0), 2.0, -1.5, 12.25)])  # (1 + B + 2 r)^2 / 4
def test_attribute_unit_worst_neighbours_attain_the_row_bounded_l1_and_exceed_a_ten_percent_smaller_one(
        s_bounds, s, s_prime, expected):
    """Lemma 3, one sensitive column, four other columns in [0, 1] under the row bound B = 2: the worst row has
    ``||z||_1 = 2`` (z = (1, 1, 0, 0)) and s moved by the maximiser of Lemma 1 at slope 1 + B."""
    rng = np.random.default_rng(3)
    X = np.c_[rng.uniform(*s_bounds, 40), rng.uniform(0, 0.5, (40, 4))]
    X[0] = (s, 1.0, 1.0, 0.0, 0.0)
    X_prime = X.copy()
    X_prime[0, 0] = s_prime
    bounds = ([s_bounds[0], 0, 0, 0, 0], [s_bounds[1], 1, 1, 1, 1])
    r, half, reach = [(s_bounds[1] - s_bounds[0]) / 2], [0.5] * 4, [1.0] * 4
    l1, _ = sensitivities(r, half, "sensitive_attribute", row_bound=2.0, reach=reach)
    smaller, _ = sensitivities(r, half, "sensitive_attribute", row_bound=1.8, reach=reach)
    unit = "sensitive_attribute"
    move = np.abs(_released(X_prime, [0], bounds, unit, 2.0) - _released(X, [0], bounds, unit, 2.0)).sum()
    assert l1 == expected and move == pytest.approx(l1, rel=1e-12)
    assert move > smaller * 1.01


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_no_neighbour_moves_the_row_bounded_release_beyond_its_sensitivities(unit):
    """Random rows in and beyond the bounds (clipped, then scaled onto the L1 ball), two sensitive columns, three
    other columns (one box excluding 0); the attribute unit changes the sensitive columns of row 0, the record unit
    the whole row."""
    rng = np.random.default_rng(5)
    lower, upper = np.array([0.0, -1.0, -2.0, 0.0, 1.0]), np.array([1.0, 2.0, 1.0, 3.0, 2.0])
    bound = 3.0
    model = DPCorrelationRemover(sensitive_feature_ids=[0, 1], epsilon=INF, bounds=(lower, upper), privacy_unit=unit,
                                 row_norm_bound_l1=bound, accountant=BudgetAccountant())
    model.fit(rng.uniform(lower, upper, (12, 5)))
    l1, l2 = model.sensitivity_["l1"], model.sensitivity_["l2"]
    columns = 2 if unit == "sensitive_attribute" else 5
    worst_l1 = worst_l2 = 0.0
    for _ in range(300):
        X = rng.uniform(lower - 0.5, upper + 0.5, (12, 5))
        X_prime = X.copy()
        X_prime[0, :columns] = rng.uniform(lower - 0.5, upper + 0.5)[:columns]
        if rng.random() < 0.5:                       # extreme rows: every column at one end of its interval
            X_prime[0, :columns] = np.where(rng.random(5) < 0.5, lower, upper)[:columns]
            X[0, :columns] = np.where(rng.random(5) < 0.5, lower, upper)[:columns]
        move = (_released(X_prime, [0, 1], (lower, upper), unit, bound)
                - _released(X, [0, 1], (lower, upper), unit, bound))
        worst_l1, worst_l2 = max(worst_l1, np.abs(move).sum()), max(worst_l2, np.linalg.norm(move))
    assert worst_l1 <= l1 * (1 + 1e-12) and worst_l2 <= l2 * (1 + 1e-12)
    assert worst_l1 > 0.5 * l1                       # the search reaches the scale of the bound


def test_at_infinite_epsilon_a_bound_that_does_not_bind_gives_fairlearns_output():
    rng = np.random.default_rng(6)
    s = rng.integers(0, 2, 300)
    X = np.c_[s, s + rng.normal(0, 1, 300), rng.uniform(0, 1, 300), 2 * s - rng.uniform(0, 1, 300)]
    bound = float(np.abs(X[:, 1:]).sum(axis=1).max())
    ours = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=INF, row_norm_bound_l1=bound,
                                accountant=BudgetAccountant()).fit(X)
    theirs = CorrelationRemover(sensitive_feature_ids=[0]).fit(X)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=1e-9, atol=1e-9)


def test_rows_above_the_bound_are_scaled_onto_it_silently():
    """The released cross sums are those of the rows scaled onto the L1 ball (no warning names a row)."""
    X = np.array([[0.0, 1.0, 1.0, 1.0], [1.0, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        released = _released(X, [0], (0.0, 1.0), "sensitive_attribute", 1.5)
    Z = np.array([[0.5, 0.5, 0.5], [0.5, 0.0, 0.0], [0.0, 0.0, 0.0]])
    S = X[:, :1] - 0.5
    np.testing.assert_allclose(released[-3:], (S.T @ Z).ravel(), rtol=1e-12)


# ------------------------------------------------------------------------------------------ shrink_coefficients
def test_shrinking_zeroes_the_coefficients_within_the_noise_and_keeps_the_release():
    """A column independent of s gets coefficient 0, a column driven by s keeps its coefficient; the released vector
    is the same draw (shrinking is post-processing)."""
    rng = np.random.default_rng(7)
    s = rng.integers(0, 2, 5000)
    X = np.c_[s, (s + rng.uniform(-1, 1, 5000)) / 2, rng.uniform(0, 1, (5000, 3))]
    fits = [DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0, bounds=([0, -0.5, 0, 0, 0], [1, 1, 1, 1, 1]),
                                 shrink_coefficients=shrink, accountant=BudgetAccountant(), random_state=3).fit(X)
            for shrink in (False, True)]
    np.testing.assert_array_equal(fits[0].noisy_statistics_, fits[1].noisy_statistics_)
    assert np.all(fits[0].beta_[0, 1:] != 0) and np.all(fits[1].beta_[0, 1:] == 0)
    assert fits[1].beta_[0, 0] == fits[0].beta_[0, 0] and fits[1].beta_[0, 0] == pytest.approx(0.5, abs=0.1)


def test_shrinking_at_infinite_epsilon_is_fairlearns_output():
    rng = np.random.default_rng(8)
    s = rng.integers(0, 3, 200)
    X = np.c_[s, s + rng.normal(0, 1, 200), rng.uniform(0, 1, 200)]
    ours = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=INF, shrink_coefficients=True,
                                accountant=BudgetAccountant()).fit(X)
    theirs = CorrelationRemover(sensitive_feature_ids=[0]).fit(X)
    np.testing.assert_allclose(ours.transform(X), theirs.transform(X), rtol=1e-9, atol=1e-9)
