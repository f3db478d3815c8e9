"""approx_dp_to_zcdp: the zCDP budget for a requested (epsilon, delta) never converts back above epsilon."""

import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.privacy import zcdp_to_approx_dp
from fairlearn_dp.privacy._zcdp import approx_dp_to_zcdp


def _exact(epsilon, delta):
    log_term = math.log(1 / delta)
    return (epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))) ** 2


def test_the_reported_case():
    """Old (the estimators' inline formula): epsilon = 1, delta = 1e-6 gave a rho converting to 1.0000000000000016."""
    log_term = math.log(1e6)
    plain = (math.sqrt(log_term + 1.0) - math.sqrt(log_term)) ** 2
    assert zcdp_to_approx_dp(plain, 1e-6) > 1.0                      # the defect, in floating point
    rho = approx_dp_to_zcdp(1.0, 1e-6)
    assert zcdp_to_approx_dp(rho, 1e-6) <= 1.0
    assert rho == pytest.approx(_exact(1.0, 1e-6), rel=1e-12)
    BudgetAccountant(epsilon=1.0, delta=1e-6).spend(zcdp_to_approx_dp(rho, 1e-6), 1e-6)


def _grid():
    rng = np.random.default_rng(0)
    cases = [(e, d) for e in (1e-6, 1e-3, 0.01, 0.1, 0.5, 1.0, 2.0, 3.0, 7.3, 10.0, 100.0, 1e4)
             for d in (1e-300, 1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.05, 0.3, 0.9)]
    cases += [(10 ** rng.uniform(-8, 4), 10 ** rng.uniform(-30, -0.01)) for _ in range(3000)]
    return cases


def test_converts_back_to_at_most_epsilon_and_is_close_to_the_exact_value():
    """Property over a grid and 3,000 random (epsilon, delta) pairs (fixed seed)."""
    for epsilon, delta in _grid():
        rho = approx_dp_to_zcdp(epsilon, delta)
        assert rho > 0
        assert zcdp_to_approx_dp(rho, delta) <= epsilon, (epsilon, delta)
        assert rho == pytest.approx(_exact(epsilon, delta), rel=1e-8), (epsilon, delta)


def test_keeps_the_plain_formula_when_it_is_already_within_the_budget():
    """Budgets that never overshot keep their exact float (seeded results do not move)."""
    kept = 0
    for epsilon, delta in _grid()[:200]:
        log_term = math.log(1 / delta)
        plain = (math.sqrt(log_term + epsilon) - math.sqrt(log_term)) ** 2
        if (plain > 0 and abs(plain - _exact(epsilon, delta)) <= 1e-9 * _exact(epsilon, delta)
                and zcdp_to_approx_dp(plain, delta) <= epsilon):
            assert approx_dp_to_zcdp(epsilon, delta) == plain
            kept += 1
    assert kept > 20


@pytest.mark.parametrize("epsilon, delta, match", [
    (0.0, 1e-6, "epsilon"), (-1.0, 1e-6, "epsilon"), (math.inf, 1e-6, "epsilon"), (math.nan, 1e-6, "epsilon"),
    (True, 1e-6, "epsilon"), ("1", 1e-6, "epsilon"), (1.0, 0.0, "delta"), (1.0, 1.0, "delta"),
    (1.0, math.nan, "delta"), (1.0, "x", "delta"), (1e-300, 0.5, "too small"),
])
def test_bad_input(epsilon, delta, match):
    with pytest.raises(ValueError, match=match):
        approx_dp_to_zcdp(epsilon, delta)
