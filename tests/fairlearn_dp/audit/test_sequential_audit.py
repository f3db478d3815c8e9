"""The long audits' group-sequential design (tests/sequential_audit.py): its bounds, level and power, checked on the
binomial counts alone (no fits)."""

import math
import warnings

import numpy as np
import pytest
import sequential_audit as design
from audit_cases import default_audit_case
from fairdp_adapters import registry

from fairlearn_dp.audit import epsilon_lower_bound

N_SIM = 20000


def _mc(p):
    """The Monte Carlo tolerance: four binomial standard errors of a frequency near ``p`` over ``N_SIM`` draws."""
    return 4 * math.sqrt(p * (1 - p) / N_SIM)


@pytest.fixture(scope="module")
def row_parameters():
    """The distinct (p, p', epsilon, delta) of the registry rows' default events, with a row that has them."""
    seen = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # the cases' small fits at epsilon = 1 may warn (not checked here)
        for entry in registry.entries():
            case = default_audit_case(entry.name)
            key = (*case.event.expected_probabilities, case.declared_epsilon, case.declared_delta)
            seen.setdefault(tuple(round(value, 12) for value in key), entry.name)
    return seen


def test_the_looks_spend_the_fixed_tests_level():
    alphas = design.look_alphas()
    assert len(alphas) == len(design.LOOKS) and design.LOOKS[-1] == 5000
    assert sum(alphas) == pytest.approx(design.ALPHA) and min(alphas) > 0
    assert design.early_beta() * (len(design.LOOKS) - 1) == pytest.approx(design.TOTAL_EARLY_BETA)


def test_the_vectorised_lower_bound_is_the_audits_bound():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(1, 6000))
        hits, hits_prime = (int(value) for value in rng.integers(0, n + 1, 2))
        delta = float(rng.choice([0.0, 1e-5, 0.2862]))
        lower, _ = design._loss_bounds(hits, hits_prime, n, confidence=0.95, delta=delta)
        assert float(lower) == pytest.approx(epsilon_lower_bound(hits, hits_prime, n, confidence=0.95, delta=delta),
                                             abs=1e-12)


@pytest.mark.parametrize("p, p_prime, delta", [(0.25, 0.25 * math.exp(-1), 0.0), (0.5, 0.0786, 0.2862),
                                                (0.0625, 0.0625 * math.exp(-1.3), 0.0)])
def test_the_upper_bound_covers_the_true_loss(p, p_prime, delta):
    """At the first look and the early-pass confidence, the upper bound falls below the true loss at most
    ``early_beta()`` of the time (Clopper-Pearson bounds are conservative)."""
    rng = np.random.default_rng(2)
    n = design.LOOKS[0]
    hits, hits_prime = rng.binomial(n, p, N_SIM), rng.binomial(n, p_prime, N_SIM)
    _, upper = design._loss_bounds(hits, hits_prime, n, confidence=1 - design.early_beta(), delta=delta)
    true_loss = max(math.log((p - delta) / p_prime), math.log((p_prime - delta) / p) if p_prime > delta else -1)
    miss = float(np.mean(upper < true_loss))
    assert miss <= design.early_beta() + _mc(design.early_beta())


@pytest.mark.slow  # every row's design: about 10 s, beside the long audits that use it
def test_the_sequential_test_keeps_the_level_and_the_power_at_the_design_alternative(row_parameters):
    assert len(row_parameters) >= 6
    for (p, p_prime, epsilon, delta), name in row_parameters.items():
        excess = design.design_alternative(p, p_prime, epsilon=epsilon, delta=delta)
        alternative = design._alternative(p, p_prime, epsilon, delta, excess)
        # Delta is the smallest excess (to 0.005) that the fixed test detects with probability DESIGN_POWER
        assert design.fixed_power(*alternative, epsilon=epsilon, delta=delta) >= design.DESIGN_POWER, name
        assert design.fixed_power(*design._alternative(p, p_prime, epsilon, delta, excess - 0.005), epsilon=epsilon,
                                  delta=delta) < design.DESIGN_POWER, name
        for minimum in (None, 0.0):
            # an exact mechanism (loss at most epsilon): a false violation at most ALPHA of the time
            _, sequential, runs = design.simulate(p, p_prime, epsilon=epsilon, delta=delta, design_delta=excess,
                                                  minimum=minimum, n_sim=N_SIM)
            assert sequential <= design.ALPHA + _mc(design.ALPHA) and runs <= design.LOOKS[-1], name
            # the design alternative: the sequential test detects it at most TOTAL_EARLY_BETA less often than the
            # fixed one (the same draws: a paired difference)
            fixed, sequential, _ = design.simulate(*alternative, epsilon=epsilon, delta=delta, design_delta=excess,
                                                   minimum=minimum, n_sim=N_SIM)
            assert fixed >= design.DESIGN_POWER - _mc(design.DESIGN_POWER), name
            assert sequential >= fixed - design.TOTAL_EARLY_BETA, name


def test_a_gross_violation_is_reported_at_the_first_look():
    """A mechanism of twice the declared loss (p' = p e^-2 on a Laplace row's event) is always caught, on average
    before the second look (1,250 runs): the early looks' lower bounds detect it."""
    p = 0.25
    fixed, sequential, runs = design.simulate(p, p * math.exp(-2), epsilon=1.0, delta=0.0, design_delta=0.3,
                                              minimum=0.4, n_sim=N_SIM)
    assert fixed == sequential == 1.0 and runs < design.LOOKS[1]
