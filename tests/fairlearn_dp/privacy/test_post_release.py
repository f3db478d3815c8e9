"""Warnings issued after a release (``fairlearn_dp/privacy/_post_release.py``): with warnings turned into errors,
a warning after the charge must not lose what was paid for. It is issued once the call's result is complete (the
estimator fitted, the frame built), at the caller's line, and carries that result; a warning before the charge is
issued as it happens, so an error then costs nothing."""

import inspect
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import selection_rate
from sklearn.linear_model import LogisticRegression

from fairlearn_dp._utils import atomic_fit
from fairlearn_dp.exceptions import FairnessWarning, UtilityWarning
from fairlearn_dp.metrics import DPMetricFrame, MetricFrameOptions
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._accountant import charge
from fairlearn_dp.privacy._post_release import issue_warnings_after_release


class Toy:
    """Charges (1, 0), with a warning before and after the charge, and optionally fails after them."""

    def __init__(self, accountant, before=False, after=True, fail=False):
        self.accountant, self.before, self.after, self.fail = accountant, before, after, fail

    @atomic_fit
    def fit(self):
        if self.before:
            warnings.warn("before the charge", UserWarning)
        charge(self.accountant, PrivacySpend(1.0, 0.0))
        if self.after:
            warnings.warn("after the charge", RuntimeWarning)
        self.fitted_ = True
        if self.fail:
            raise ValueError("the fit fails after its release")
        return self


def test_a_warning_after_the_charge_turned_into_an_error_leaves_the_fit_done_and_carries_it():
    accountant = BudgetAccountant()
    toy = Toy(accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="after the charge") as info:
            toy.fit()
    assert toy.fitted_ and info.value.result is toy and accountant.spent_budget == [(1.0, 0.0)]


def test_a_warning_before_the_charge_turned_into_an_error_costs_nothing():
    accountant = BudgetAccountant()
    toy = Toy(accountant, before=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="before the charge"):
            toy.fit()
    assert not hasattr(toy, "fitted_") and accountant.spent_budget == []


def test_warnings_are_issued_in_order_at_the_callers_line_and_the_filters_are_restored():
    toy = Toy(BudgetAccountant(), before=True)
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        toy.fit()
    assert [str(record.message) for record in records] == ["before the charge", "after the charge"]
    assert (records[1].filename, records[1].lineno) == (__file__, line)
    assert warnings.filters == filters


def test_a_fit_that_fails_after_the_charge_keeps_its_error_and_notes_the_warning():
    accountant = BudgetAccountant()
    toy = Toy(accountant, fail=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="fails after its release") as info:
            toy.fit()
    assert any("after the charge" in note for note in info.value.__notes__)
    assert not hasattr(toy, "fitted_") and accountant.spent_budget == [(1.0, 0.0)]   # rolled back, charged
    with pytest.warns(RuntimeWarning, match="after the charge"), pytest.raises(ValueError):
        toy.fit()


def test_only_the_outermost_call_issues_them():
    accountant = BudgetAccountant()
    inner = Toy(accountant)
    state = {}

    @issue_warnings_after_release()
    def outer():
        inner.fit()
        state["inner fitted when outer continues"] = inner.fitted_
        return "outer's result"

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning, match="after the charge") as info:
            outer()
    assert state == {"inner fitted when outer continues": True} and info.value.result == "outer's result"


def problem(m=3000, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, m)
    X = rng.normal(size=(m, 3))
    X[:, 0] += 0.6 * a
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=m) > 0.6).astype(int)
    return X, y, a


def test_threshold_optimizers_fairness_warning_as_an_error_keeps_the_fitted_model():
    """At epsilon = 0.05 on 3000 rows with the privacy slack, the equalized-odds constraints cannot bind (a
    FairnessWarning issued after the release, from the released table). As an error, it leaves the model fitted and
    usable."""
    X, y, a = problem()
    accountant = BudgetAccountant()
    model = DPThresholdOptimizer(estimator=LogisticRegression().fit(X, y), prefit=True, constraints="equalized_odds",
                                 predict_method="predict_proba", epsilon=0.05, groups=[0, 1, 2], options=ThresholdOptimizerOptions(n_score_bins=10, privacy_slack=True),
                                 accountant=accountant, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FairnessWarning, match="cannot bind") as info:
            model.fit(X, y, sensitive_features=a)
    assert info.value.result is model and accountant.spent_budget == [(0.05, 0.0)]
    assert model.predict(X[:5], sensitive_features=a[:5], random_state=0).shape == (5,)


def test_dp_metric_frames_unreadable_warning_as_an_error_carries_the_frame():
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UtilityWarning, match="release noise alone") as info:
            DPMetricFrame(metrics=selection_rate, y_true=[0, 1, 1, 0], y_pred=[1, 1, 0, 0],
                          sensitive_features=["a", "a", "b", "b"], groups=["a", "b"], epsilon=1.0,
                          accountant=accountant, random_state=0, options=MetricFrameOptions(max_noise_error=0.02))
    frame = info.value.result
    assert isinstance(frame, DPMetricFrame) and frame.unreadable_.to_numpy().all()
    assert list(frame.by_group.index) == ["a", "b"] and accountant.spent_budget == [(1.0, 0.0)]


def test_a_warning_before_the_release_still_points_at_the_users_line():
    """The deferral is a block inside the call (no extra frame): DPMetricFrame's warning before its release (the
    levels read from the data) keeps pointing at the caller's line; the one after it (a precision asked for and
    missed) too."""
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        DPMetricFrame(metrics=selection_rate, y_true=[0, 1, 1, 0], y_pred=[1, 1, 0, 0],
                      sensitive_features=["a", "a", "b", "b"], epsilon=1.0, accountant=BudgetAccountant(),
                      random_state=0, options=MetricFrameOptions(max_noise_error=0.02))
    assert [str(record.message)[:40] for record in records] == [
        "DPMetricFrame: `groups` was not given, s", "DPMetricFrame: at this epsilon the relea"]
    assert {(record.filename, record.lineno) for record in records} == {(__file__, line)}
