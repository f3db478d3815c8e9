"""The dp_* aggregates (``fairlearn_dp/metrics/_dp_aggregates.py``): every argument is checked before the release
charges the budget, and the frame's warnings come after the aggregate's value is computed."""

import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.metrics import (
    dp_demographic_parity_difference,
    dp_demographic_parity_ratio,
    dp_equal_opportunity_difference,
    dp_equal_opportunity_ratio,
    dp_equalized_odds_difference,
    dp_equalized_odds_ratio,
)

AGGREGATES = [dp_demographic_parity_difference, dp_demographic_parity_ratio, dp_equal_opportunity_difference,
              dp_equal_opportunity_ratio, dp_equalized_odds_difference, dp_equalized_odds_ratio]
Y_TRUE = [0, 1, 1, 0, 1, 0]
Y_PRED = [1, 1, 0, 0, 1, 0]
GROUPS = ["a", "a", "a", "b", "b", "b"]


EQUALIZED_ODDS = [dp_equalized_odds_difference, dp_equalized_odds_ratio]


@pytest.mark.parametrize("aggregate, argument", [(aggregate, "method") for aggregate in AGGREGATES]
                         + [(aggregate, "agg") for aggregate in EQUALIZED_ODDS])
def test_a_bad_argument_is_refused_before_the_budget_is_spent(aggregate, argument):
    """A bad ``method`` (every aggregate) or ``agg`` (equalized odds) costs nothing, and its error comes before an
    exhausted accountant's."""
    bad = {argument: "nope"}
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match=argument):
        aggregate(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"], accountant=accountant,
                  random_state=0, **bad)
    assert accountant.spent_budget == []
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    with pytest.raises(ValueError, match=argument):
        aggregate(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"], accountant=exhausted,
                  random_state=0, **bad)


def test_the_frames_warning_as_an_error_keeps_the_released_value():
    """Six rows at epsilon = 1: every group misses the precision asked for (max_noise_error), so the frame warns
    after the release. Turned into an error, the warning comes after the value is computed and carries it; the
    budget is charged once."""
    accountant = BudgetAccountant()
    arguments = dict(sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"], accountant=accountant,
                     random_state=0, max_noise_error=0.02)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UtilityWarning, match="release noise alone") as info:
            dp_demographic_parity_difference(Y_TRUE, Y_PRED, **arguments)
    assert accountant.spent_budget == [(1.0, 0.0)]
    with pytest.warns(UtilityWarning, match="release noise alone"):
        again = dp_demographic_parity_difference(Y_TRUE, Y_PRED, **{**arguments, "accountant": BudgetAccountant()})
    assert isinstance(info.value.result, float) and np.isfinite(info.value.result)
    assert info.value.result == again                 # same seed, same release: the value that was paid for
