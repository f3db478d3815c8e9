"""The AIF360 faces keep the engines' final choice against the fair constants (issue 36, items 1 and 5):
``constant_choice_``, the constant predictions when it wins, and GerryFair's reported errors and violations within
their feasible ranges ([0, 1] and [0, 1/4], clipped as post-processing)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset
from diffprivlib import BudgetAccountant

from aif360_dp.algorithms.inprocessing import DPGroupBudgetClassification
from aif360_dp.algorithms.inprocessing._dp_gerryfair import DPGerryFairClassifier
from aif360_dp.algorithms.postprocessing import DPEqOddsPostprocessing
from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.privacy._selection import no_choice

CONSTANT_WARNING = "no more accurate than a constant classifier"


def no_signal(n=400, seed=0):
    """Two features in [0, 1], a binary protected attribute, labels Bernoulli(0.3) independent of both."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"sex": rng.integers(0, 2, n).astype(float), "x1": rng.uniform(0, 1, n),
                          "x2": rng.uniform(0, 1, n), "label": (rng.random(n) < 0.3).astype(float)})
    return BinaryLabelDataset(df=frame, label_names=["label"], protected_attribute_names=["sex"],
                              favorable_label=1.0, unfavorable_label=0.0)


def fit_recording(model, *data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(*data)
    return [w for w in caught if issubclass(w.category, UtilityWarning)]


def test_gerryfair_face_returns_the_constant_and_reports_feasible_errors_and_violations():
    data = no_signal()
    accountant = BudgetAccountant()
    model = DPGerryFairClassifier(max_iters=10, epsilon=1.0, accountant=accountant, random_state=0)
    caught = fit_recording(model, data)
    assert model.constant_choice_ is model.model_.constant_choice_
    assert model.constant_choice_.is_constant and model.constant_choice_.constant == 0.0
    assert any(CONSTANT_WARNING in str(w.message) for w in caught)
    assert accountant.spent_budget == [(1.0, 0.0)]
    out = model.predict(data)
    np.testing.assert_array_equal(out.labels.ravel(), np.zeros(len(data.labels)))
    np.testing.assert_array_equal(out.scores.ravel(), np.zeros(len(data.labels)))
    assert all(0.0 <= e <= 1.0 for e in model.errors)
    assert all(0.0 <= v <= 0.25 for v in model.fairness_violations)


def test_gerryfair_face_outputs_stay_in_range_where_the_raw_releases_do_not():
    model = DPGerryFairClassifier(max_iters=10, epsilon=0.05, accountant=BudgetAccountant(), random_state=0)
    fit_recording(model, no_signal(n=60))
    raw = model.model_.history_
    assert min(r["error"] for r in raw) < 0 or max(r["error"] for r in raw) > 1 \
        or max(r["fairness_violation"] for r in raw) > 0.25            # the clipping has something to do
    assert all(0.0 <= e <= 1.0 for e in model.errors)
    assert all(0.0 <= v <= 0.25 for v in model.fairness_violations)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        errors, fp_violations, _ = model.pareto(no_signal(n=60), [0.01], audit_epsilon=0.05)
    assert 0.0 <= errors[0] <= 1.0 and 0.0 <= fp_violations[0] <= 0.25


def test_group_budget_classification_face_returns_the_constant():
    data = no_signal()
    model = DPGroupBudgetClassification(epsilon=1.0, budget_allocation="uniform", accountant=BudgetAccountant(),
                                        seed=1)
    caught = fit_recording(model, data)
    assert model.constant_choice_ is model.model_.constant_choice_
    assert model.constant_choice_.is_constant and model.constant_choice_.constant == 0.0
    assert any(CONSTANT_WARNING in str(w.message) for w in caught)
    out = model.predict(data)
    np.testing.assert_array_equal(out.labels.ravel(), np.zeros(len(data.labels)))
    np.testing.assert_array_equal(out.scores.ravel(), np.zeros(len(data.labels)))
    infinite = DPGroupBudgetClassification(epsilon=math.inf, accountant=BudgetAccountant(), seed=0)
    fit_recording(infinite, data)
    assert infinite.constant_choice_ == no_choice()


def test_eq_odds_face_records_the_lp_choice():
    truth = no_signal()
    predicted = truth.copy(deepcopy=True)
    predicted.labels = np.random.default_rng(1).integers(0, 2, (len(truth.labels), 1)).astype(float)
    model = DPEqOddsPostprocessing([{"sex": 0.0}], [{"sex": 1.0}], seed=0, epsilon=1.0,
                                   accountant=BudgetAccountant())
    fit_recording(model, truth, predicted)
    assert model.constant_choice_ is model.model_.constant_choice_
    assert model.constant_choice_.epsilon == 0.0                     # made by the LP on the released table
