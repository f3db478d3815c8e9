"""Tests of examples/adult_inprocessing.py (the statistics game on Adult against Algorithm 3 and Fairlearn).

The data preparation and the metric are fast; the issue's goal on the seed-0 split (one private fit each) and the
--quick run are marked slow (``pytest -m slow``).
"""

import math

import numpy as np
import pytest
from fairdp_adapters._checkout import load_example


@pytest.fixture(scope="module")
def script():
    return load_example("adult_inprocessing.py")


def test_data_preparation(script):
    X_train, X_test, y_train, y_test, a_train, a_test = script.load_adult_features("sex", 0)
    assert len(X_train) == 34189 and len(X_test) == 14653                # 70/30 of 48,842 rows
    assert not {"sex", "race", "fnlwgt"} & set(X_train.columns)          # the attribute is kept out of X
    assert X_train.to_numpy().min() >= 0.0 and X_train.to_numpy().max() <= 1.0   # public bounds
    assert set(np.unique(y_train)) == {0, 1} and set(np.unique(a_train)) == {"Female", "Male"}
    race = script.load_adult_features("race", 0)[4]
    assert len(np.unique(race)) == 5


def test_violation_metric(script):
    pred = np.array([1, 0, 1, 1, 0, 0])
    y = np.array([1, 0, 0, 1, 1, 0])
    a = np.array(["a", "a", "a", "b", "b", "b"])
    assert math.isclose(script.violation(pred, y, a, "dp"), 2 / 3 - 1 / 3)
    # label 0: a -> 1/2, b -> 0; label 1: a -> 1, b -> 1/2
    assert math.isclose(script.violation(pred, y, a, "eo"), 0.5)


@pytest.mark.slow
@pytest.mark.parametrize("constraint, bound", [
    ("dp", 0.05),
    ("eo", 0.06),
])
def test_issue_goal_on_the_seed_0_split(script, constraint, bound):
    """The drop-in swap at epsilon=1 (accuracy >= 0.80, violation within the goal) and at epsilon=0.5 (above the
    majority rate), sex, seed 0."""
    row = script.fit_one("statistics", 1.0, 0, "sex", constraint)
    assert row["accuracy"] >= 0.80 and row["violation"] <= bound
    row = script.fit_one("statistics", 0.5, 0, "sex", constraint)
    assert row["accuracy"] > row["majority"]


@pytest.mark.slow
def test_quick_run(script, tmp_path):
    summary = script.main(["--quick", "--out", str(tmp_path)])
    assert (tmp_path / "adult_inprocessing_sex_dp.png").exists()
    paper = summary[(summary["method"] == "paper") & (summary["epsilon"] == 1.0)].iloc[0]
    ours = summary[(summary["method"] == "statistics") & (summary["epsilon"] == 1.0)].iloc[0]
    # Algorithm 3 at epsilon = 1 is no better than a constant here: its final choice returns the constant classifier
    # (exactly fair), which the statistics game beats by about 0.07 of accuracy on this split.
    assert paper["violation_mean"] == 0.0
    assert ours["accuracy_mean"] > paper["accuracy_mean"] + 0.05
