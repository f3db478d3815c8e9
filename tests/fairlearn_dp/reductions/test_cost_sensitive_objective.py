"""Fairlearn's cost-sensitive ``ErrorRate(costs=...)`` as the objective of the statistics game, and the public
rescaling of X under ``privacy_unit="sensitive_attribute"`` (``_objective.py``, ``_public_features.py``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity, ErrorRate
from scipy.special import expit, logit
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions
from fairlearn_dp.reductions._public_features import PublicFeatureMap

# The group is independent of (x, y): the fits warn that they cannot enforce it privately (expected here); with
# costs c_FP = 1, c_FN = 10 the record-unit fit is no better than the cheaper constant (expected too).
pytestmark = [pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
              pytest.mark.filterwarnings("ignore:DPExponentiatedGradient. the private fit is no better than a constant"
                                         ":fairlearn_dp.exceptions.UtilityWarning")]

N = 6000
SD = 2.0            # x ~ N(0, SD^2), P(y = 1 | x) = sigmoid(x), a group independent of (x, y)
FN_HEAVY = {"fp": 0.1, "fn": 0.9}
FP_HEAVY = {"fp": 0.9, "fn": 0.1}


def _data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, SD, N)
    y = (rng.random(N) < expit(x)).astype(int)
    return x[:, None], y, rng.integers(0, 2, N)


def _fit(costs, *, estimator=LogisticRegression(), privacy_unit="sensitive_attribute", epsilon=math.inf, **kw):
    X, y, a = _data()
    objective = None if costs is None else ErrorRate(costs=costs)
    model = DPExponentiatedGradient(estimator, DemographicParity(difference_bound=1.0), objective=objective,
                                    epsilon=epsilon, delta=1e-5, groups=[0, 1], random_state=0,
                                    privacy_unit=privacy_unit, max_iter=10,
                                    options=StatisticsGameOptions(oracle="estimator"), **kw)
    return model.fit(X, y, sensitive_features=a), X, y


def _positive_rate(model, X):
    return float(model._pmf_predict(X)[:, 1].mean())


def test_costs_move_the_estimator_learner_to_the_cost_sensitive_threshold():
    """A loose constraint (bound 1 never binds): the game is the weighted best response, and logistic regression on
    a well-specified logistic model, with the labels weighted by the costs, moves the log-odds by
    ``log(c_FN / c_FP)``: it predicts 1 iff ``sigmoid(x) > c_FP / (c_FP + c_FN)``, i.e. ``x > logit(c_FP / (c_FP +
    c_FN))``, for a positive rate ``P(N(0, SD^2) > t)`` (0.864 with fn-heavy costs, 0.5 for unit costs, 0.136 with
    fp-heavy ones). Tolerance 0.03: the sampling sd of a rate over N = 6000 rows is at most 0.0065, plus the
    coefficient's estimation error (its sd about 0.05 on x's scale moves the rate by below 0.01)."""
    for costs, expected in ((FN_HEAVY, norm.sf(logit(0.1) / SD)), (None, 0.5), (FP_HEAVY, norm.sf(logit(0.9) / SD))):
        model, X, _ = _fit(costs)
        assert abs(_positive_rate(model, X) - expected) < 0.03, (costs, _positive_rate(model, X), expected)


def test_costs_move_the_least_squares_learner_under_record():
    """The least-squares Learner (``"record"``) regresses the cost of predicting 1, ``c_FP (1 - y) - c_FN y``, on
    ``[x, 1]`` and predicts 1 where it is negative: heavier false-negative costs mean more positives. The linear fit
    of ``sigmoid(x)`` is ``0.5 + b x`` with ``b = E[sigmoid'(x)] ~ 0.14`` here, so the crossing of ``c_FP / (c_FP +
    c_FN) = 0.1`` is near ``x = -2.9`` (rate about 0.93), 0.5 at unit costs, about 0.07 mirrored: far apart, so a
    margin of 0.2 between neighbours leaves room for the fit's sampling error."""
    rates = [_positive_rate(_fit(costs, estimator=None, privacy_unit="record", row_norm_bound=20.0)[0],
                            _data()[0]) for costs in (FN_HEAVY, None, FP_HEAVY)]
    assert rates[0] > rates[1] + 0.2 and rates[1] > rates[2] + 0.2, rates


@pytest.mark.parametrize("privacy_unit", ["sensitive_attribute", "record"])
def test_private_cost_sensitive_fit_reports_the_cost_weighted_error(privacy_unit):
    """At finite epsilon the fit runs (no refusal) and, under ``"sensitive_attribute"`` (y and plays public), its
    ``estimated_error_`` is exactly the mixture's cost-weighted error ``c_FP FP + c_FN FN`` (over n)."""
    estimator = LogisticRegression() if privacy_unit == "sensitive_attribute" else None
    model, X, y = _fit(FN_HEAVY, estimator=estimator, privacy_unit=privacy_unit, epsilon=1.0, row_norm_bound=20.0)
    assert model.mode_ == "statistics" and model.privacy_spent_.epsilon == 1.0
    if privacy_unit == "sensitive_attribute":
        positive = model._pmf_predict(X)[:, 1]
        cost = np.mean(FN_HEAVY["fp"] * positive * (1 - y) + FN_HEAVY["fn"] * (1 - positive) * y)
        assert model.estimated_error_ == pytest.approx(cost, abs=1e-12)


def test_unit_costs_are_the_error_rate():
    """``ErrorRate()`` (unit costs) and ``objective=None`` give the same fit (same seed, same game)."""
    unit, X, _ = _fit({"fp": 1.0, "fn": 1.0}, epsilon=1.0)
    default, _, _ = _fit(None, epsilon=1.0)
    np.testing.assert_array_equal(unit._pmf_predict(X), default._pmf_predict(X))
    assert unit.estimated_error_ == default.estimated_error_


def test_bad_costs_are_refused_before_the_budget():
    objective = ErrorRate()
    objective.fp_cost = float("nan")
    X, y, a = _data()
    accountant = BudgetAccountant(epsilon=1.0, delta=1e-5)
    model = DPExponentiatedGradient(LogisticRegression(), DemographicParity(), objective=objective, epsilon=1.0,
                                    delta=1e-5, groups=[0, 1], accountant=accountant)
    with pytest.raises(ValueError, match="objective"):
        model.fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == []


# ----------------------------------------------------------------------------- the public rescaling of X
def test_feature_map_bounds_each_coordinate_and_maps_linear_plays_back():
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(1e6, 3e5, 500), rng.integers(0, 2, 500), np.full(500, 7.0)])
    feature_map = PublicFeatureMap.from_public(X)
    Z = feature_map.transform(X)
    assert np.all(np.abs(Z) <= 1.0 + 1e-12) and np.all(Z[:, 2] == 0.0)
    beta = rng.normal(size=4)
    w, b = feature_map.raw_linear(beta)
    # Both sides are O(1) sums of O(1) terms (|z| <= 1): agreement to a few rounding errors of the 1e6-scale terms.
    np.testing.assert_allclose(X @ w + b, Z @ beta[:-1] + beta[-1], rtol=0, atol=1e-8)


def test_sensitive_attribute_statistics_do_not_depend_on_a_columns_scale():
    """Under ``"sensitive_attribute"`` the statistics are released of the rescaled X, which is the same for ``X``
    and for ``X`` with a column multiplied by 1e6 and shifted: the row bound is at most ``sqrt(d)`` (each
    ``|z_j| <= 1``) and the proxies' reliability (computed from the release and the rescaled X, before any
    estimator fit) agrees up to rounding (the inputs agree to about 1e-15 relative; the ridge keeps the solve's
    condition number below about 1e4 here, so 1e-8 is far above the propagated rounding)."""
    X, y, a = _data()
    X = np.column_stack([X, (X[:, 0] > 0) + 0.5 * a])     # a second column that carries group information
    scaled = X.copy()
    scaled[:, 0] = 1e6 * scaled[:, 0] + 3e6
    fits = []
    for features in (X, scaled):
        model = DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.01), epsilon=1.0,
                                        delta=1e-5, groups=[0, 1], random_state=0, max_iter=3)
        fits.append(model.fit(features, y, sensitive_features=a))
    assert all(fit.row_norm_bound_ <= math.sqrt(2) + 1e-12 for fit in fits)
    np.testing.assert_allclose(fits[0].proxy_reliability_, fits[1].proxy_reliability_, rtol=0, atol=1e-8)
    assert fits[0].noise_scale_["statistics"] == pytest.approx(fits[1].noise_scale_["statistics"], rel=1e-12)
