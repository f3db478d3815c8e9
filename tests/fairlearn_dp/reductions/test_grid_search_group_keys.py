"""DPGridSearch maps each declared group to its row of Fairlearn's grid index exactly: a group whose text is another
group's text (``1`` and ``"1"``) never reads that group's multipliers."""

import numpy as np
import pandas as pd
import pytest

from fairlearn_dp.reductions._grid_search import grid_multipliers


def _grid(groups, values):
    index = pd.MultiIndex.from_tuples([(sign, "all", g) for sign in ("+", "-") for g in groups],
                                      names=["sign", "event", "group_id"])
    plus = list(values)
    return pd.DataFrame({0: plus + [0.0] * len(groups)}, index=index)


def test_equal_labels_win_over_equal_texts():
    grid = _grid([1, "1"], [2.0, 5.0])
    out = grid_multipliers(grid, ["all"], [1, "1"])
    np.testing.assert_array_equal(out[0, 0], [2.0, 5.0])
    out = grid_multipliers(grid, ["all"], ["1", 1])
    np.testing.assert_array_equal(out[0, 0], [5.0, 2.0])


def test_a_group_found_only_by_its_text_is_read():
    grid = _grid(["a", "1"], [2.0, 5.0])
    out = grid_multipliers(grid, ["all"], ["a", 1])
    np.testing.assert_array_equal(out[0, 0], [2.0, 5.0])


def test_a_declared_group_missing_from_the_grid_is_a_value_error_naming_it():
    grid = _grid([1, 2], [2.0, 5.0])
    with pytest.raises(ValueError, match="grid"):
        grid_multipliers(grid, ["all"], [1, 3])


def test_a_private_grid_above_max_rounds_is_refused_before_the_budget():
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import DemographicParity
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.reductions import DPGridSearch
    from fairlearn_dp.reductions._eg_params import MAX_ROUNDS

    X = np.random.default_rng(0).uniform(-1, 1, size=(40, 2))
    y, a = (X[:, 0] > 0).astype(int), np.array(["p", "q"] * 20)
    accountant = BudgetAccountant()
    search = DPGridSearch(LogisticRegression(), DemographicParity(), epsilon=1.0, groups=["p", "q"],
                          grid_size=MAX_ROUNDS + 1, accountant=accountant, random_state=0)
    with pytest.raises(ValueError, match="grid_size must be at most MAX_ROUNDS"):
        search.fit(X, y, sensitive_features=a)
    assert accountant.spent_budget == []
