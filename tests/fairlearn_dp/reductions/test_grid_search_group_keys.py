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
