"""Basic and advanced composition (Dwork & Roth 2014, Thm. 3.20)."""

import math

import pytest

from fairlearn_dp.privacy._composition import advanced_composition_epsilon, per_mechanism_epsilon


def test_advanced_composition_formula():
    k, eps0, delta = 100, 0.01, 1e-6
    expected = math.sqrt(2 * k * math.log(1 / delta)) * eps0 + k * eps0 * (math.exp(eps0) - 1)
    assert advanced_composition_epsilon(eps0, k, delta) == pytest.approx(expected, rel=1e-14)
    assert advanced_composition_epsilon(800.0, 2, 1e-6) == math.inf          # no overflow


@pytest.mark.parametrize("epsilon, k, delta", [(1.0, 200, 5e-8), (1.0, 10, 5e-8), (60.0, 2000, 1e-6),
                                               (1e7, 200, 5e-8), (800.0, 2, 1e-7), (0.5, 40, 0.0)])
def test_per_mechanism_epsilon_is_the_largest_within_budget(epsilon, k, delta):
    eps0, rule = per_mechanism_epsilon(epsilon, k, delta)
    basic = epsilon / k
    assert eps0 >= basic * (1 - 1e-12)
    if rule == "advanced":
        assert advanced_composition_epsilon(eps0, k, delta) <= epsilon
        assert advanced_composition_epsilon(eps0 * (1 + 1e-9), k, delta) > epsilon * (1 - 1e-6)
    else:
        assert rule == "basic" and eps0 == pytest.approx(basic)
        if delta > 0:
            assert advanced_composition_epsilon(basic, k, delta) >= epsilon


def test_bad_arguments():
    with pytest.raises(ValueError, match="k"):
        per_mechanism_epsilon(1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        per_mechanism_epsilon(-1.0, 3)
    with pytest.raises(ValueError, match="delta"):
        advanced_composition_epsilon(0.1, 3, 0.0)
