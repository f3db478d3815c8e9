"""Failure paths of the post-processors (issue: privacy hardening): the budget check comes before the data, no raise
or warning depends on the private data inside the declared domain, a failed refit leaves the estimator as it was,
and unseeded randomness never comes from numpy's global generator."""

import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError

from fairlearn_dp.exceptions import FairnessWarning, UtilityWarning
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer, ThresholdOptimizerOptions


def _regression(accountant, **kwargs):
    params = {"epsilon": 1.0, "bounds": (0.0, 1.0), "n_bins": 8, "groups": [0, 1, 2], "accountant": accountant, "random_state": 0}
    params.update(kwargs)
    return DPFairRegressionPostprocessor(**params)


def _threshold(accountant, **kwargs):
    params = {"constraints": "equalized_odds", "predict_method": "predict", "groups": [0, 1, 2], "accountant": accountant,
                  "random_state": 0}
    params.update(kwargs)
    return DPThresholdOptimizer(**params)


def _records(n=300, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)                   # group 2 is declared but has no rows yet
    y = rng.integers(0, 2, n)
    yhat = np.where(rng.random(n) < 0.8, y, 1 - y)
    outputs = np.clip(rng.normal(0.4 + 0.2 * a, 0.1), 0, 1)
    return outputs, yhat, y, a


# ------------------------------------------------------------------ data-dependent raises (leak): neighbours alike
def test_regression_neighbours_one_with_a_single_member_group_one_without_both_fit():
    """D: group 2 has exactly one member; D': that record substituted into group 0. Both are in the domain, so both
    fit, release a table of the same shape, and emit the same (no) warnings."""
    outputs, _, _, a = _records()
    a_d, a_d_prime = a.copy(), a.copy()
    a_d[0], a_d_prime[0] = 2, 0
    released = []
    for groups in (a_d, a_d_prime):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = _regression(BudgetAccountant()).fit(outputs[:, None], sensitive_features=groups)
        released.append(model.noisy_joint_pmf_)
    assert released[0].shape == released[1].shape == (3, 8)
    # Same seed, neighbouring data: the two releases differ by at most the sensitivity 2/n in L1.
    assert np.abs(released[0] - released[1]).sum() <= 2 / outputs.size + 1e-12


def test_threshold_neighbours_one_group_with_one_member_one_without_both_fit():
    """Under both privacy units, a declared group with one member (D) or none (D') fits; neither raises on the
    group lacking a label. Warnings may only come from the released table (noisy mass not positive)."""
    _, yhat, y, a = _records()
    for unit in ("sensitive_attribute", "record"):
        a_d, a_d_prime = a.copy(), a.copy()
        a_d[0], a_d_prime[0] = 2, 0
        tables = []
        for groups in (a_d, a_d_prime):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FairnessWarning)  # released-value warnings (noisy mass <= 0)
                model = _threshold(BudgetAccountant(), privacy_unit=unit).fit(yhat[:, None], y,
                                                                                sensitive_features=groups)
            tables.append(model.noisy_table_)
        assert tables[0].shape == tables[1].shape == (3, 2, 2)
        assert np.abs(tables[0] - tables[1]).sum() <= 2 / y.size + 1e-12


def test_threshold_group_with_one_label_only_fits_at_every_epsilon():
    _, yhat, y, a = _records()
    y = np.where(a == 1, 0, y)                  # group 1 has no positive label
    for epsilon in (1.0, np.inf):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FairnessWarning)  # released values: the one-label group's rate
            model = _threshold(BudgetAccountant(), epsilon=epsilon, groups=[0, 1]).fit(yhat[:, None], y,
                                                                                      sensitive_features=a)
        assert model.mixing_rates_.shape == (2, 2)


@pytest.mark.parametrize("make, data", [
    (_regression, lambda o, yh, y, a: {"X": np.r_[np.nan, o[1:]][:, None], "sensitive_features": a}),
    (_threshold, lambda o, yh, y, a: {"X": yh[:, None], "y": np.r_[7, y[1:]], "sensitive_features": a}),
])
def test_exhausted_budget_is_a_budget_error_before_the_data_are_read(make, data):
    """With an exhausted accountant both neighbours (valid or not) get BudgetError: the budget check comes first."""
    outputs, yhat, y, a = _records()
    exhausted = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetError):
        make(exhausted).fit(**data(outputs, yhat, y, a))
    valid = {"X": (outputs if make is _regression else yhat)[:, None], "sensitive_features": a}
    if make is _threshold:
        valid["y"] = y
    with pytest.raises(BudgetError):
        make(exhausted).fit(**valid)
    assert exhausted.spent_budget == []


def test_scores_outside_the_score_range_are_clipped_silently_in_fit():
    rng = np.random.default_rng(1)
    scores = rng.uniform(-0.5, 1.5, 400)
    y, a = rng.integers(0, 2, 400), rng.integers(0, 2, 400)
    model = DPThresholdOptimizer(constraints="demographic_parity", predict_method="predict_proba", groups=[0, 1],
                                 accountant=BudgetAccountant(), random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        model.fit(scores[:, None], y, sensitive_features=a)
    with pytest.warns(UtilityWarning, match="outside score_range"):
        model.predict(scores[:, None], sensitive_features=a, random_state=0)


# ------------------------------------------------------------------ state after a failed refit
@pytest.mark.parametrize("make", [_regression, _threshold])
def test_a_failed_refit_leaves_the_estimator_exactly_as_it_was(make):
    outputs, yhat, y, a = _records()
    X = (outputs if make is _regression else yhat)[:, None]
    fit_kwargs = {"y": y} if make is _threshold else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairnessWarning)    # a few rows: a label's noisy mass may be 0 (dropped)
        model = make(BudgetAccountant()).fit(X, sensitive_features=a, **fit_kwargs)
    predicted = model.predict(X, sensitive_features=a, random_state=3)
    changed = {"n_bins": 4} if make is _regression else {"predict_method": "predict_proba"}
    model.set_params(**changed)
    before = dict(vars(model))
    bad = X.astype(float)
    bad[0, 0] = np.nan                          # the refit fails on the data, after the new grid was validated
    with pytest.raises(ValueError, match="NaN"):
        model.fit(bad, sensitive_features=a, **fit_kwargs)
    assert vars(model).keys() == before.keys()
    for key, value in before.items():
        assert vars(model)[key] is value, key
    model.set_params(n_bins=8) if make is _regression else model.set_params(predict_method="predict")
    np.testing.assert_array_equal(model.predict(X, sensitive_features=a, random_state=3), predicted)


def test_a_failed_first_fit_leaves_the_estimator_unfitted():
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    outputs, _, _, a = _records()
    model = _regression(BudgetAccountant())
    with pytest.raises(ValueError, match="unseen group"):
        model.fit(outputs[:, None], sensitive_features=np.r_[9, a[1:]])
    with pytest.raises(NotFittedError):
        check_is_fitted(model)


# ------------------------------------------------------------------ unseeded randomness
@pytest.mark.parametrize("make", [_regression, _threshold])
def test_unseeded_fits_and_predictions_do_not_follow_the_global_generator(make):
    outputs, yhat, y, a = _records()
    X = (outputs if make is _regression else yhat)[:, None]
    fit_kwargs = {"y": y} if make is _threshold else {}
    released, predicted = [], []
    for _ in range(2):
        np.random.seed(7)
        with warnings.catch_warnings():
            # released-value warnings of a few rows with unseeded noise (a dropped constraint, a constant rule,
            # a uniform fallback): whether they fire is random, and not what is tested here
            warnings.simplefilter("ignore", FairnessWarning)
            warnings.simplefilter("ignore", UtilityWarning)
            model = make(BudgetAccountant(), random_state=None).fit(X, sensitive_features=a, **fit_kwargs)
        released.append(getattr(model, "noisy_joint_pmf_", getattr(model, "noisy_table_", None)))
        if make is _threshold:
            model.mixing_rates_ = np.full_like(model.mixing_rates_, 0.5)     # so that predict must draw
        np.random.seed(7)
        predicted.append(model.predict(X, sensitive_features=a))
    assert not np.array_equal(released[0], released[1])
    assert not np.array_equal(predicted[0], predicted[1])


# ------------------------------------------------------------------ fail fast on huge grids
def test_huge_bin_counts_fail_fast_before_any_work():

    outputs, yhat, y, a = _records()
    with pytest.raises(ValueError, match="n_bins must be <= 1000000"):
        _regression(BudgetAccountant(), n_bins=10**7).fit(outputs[:, None], sensitive_features=a)
    with pytest.raises(ValueError, match="n_score_bins must be <= 10000"):
        _threshold(BudgetAccountant(), predict_method="predict_proba", options=ThresholdOptimizerOptions(n_score_bins=10**7)).fit(
            outputs[:, None], y, sensitive_features=a)
