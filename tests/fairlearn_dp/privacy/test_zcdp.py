"""zCDP accounting and the zCDP Gaussian release."""

import math

import numpy as np
import pytest
from scipy import stats

from fairlearn_dp.privacy import zcdp_to_approx_dp
from fairlearn_dp.privacy._release import release_gaussian
from fairlearn_dp.privacy._zcdp import (
    compose_zcdp,
    pure_dp_to_zcdp,
    zcdp_gaussian_mechanism,
    zcdp_gaussian_sigma,
    zcdp_spend,
)


def test_conversions_and_composition():
    assert zcdp_to_approx_dp(0.5, 1e-6) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
    assert pure_dp_to_zcdp(2.0) == 2.0
    assert compose_zcdp(0.1, 0.2, 0.3) == pytest.approx(0.6)
    spend = zcdp_spend(0.5, 1e-6)
    assert spend.rho == 0.5 and spend.delta == 1e-6 and spend.epsilon == pytest.approx(zcdp_to_approx_dp(0.5, 1e-6))
    with pytest.raises(ValueError, match="rho"):
        compose_zcdp(0.1, 0.0)
    with pytest.raises(ValueError, match="delta"):
        zcdp_to_approx_dp(0.5, 0.0)


@pytest.mark.parametrize("sensitivity, rho", [(1.0, 0.5), (0.02, 8.0), (3.0, 1e-3), (1.0, 1e7)])
def test_diffprivlib_mechanism_has_the_zcdp_sigma(sensitivity, rho):
    mechanism = zcdp_gaussian_mechanism(sensitivity, rho)
    assert math.sqrt(mechanism.variance(0.0)) == pytest.approx(sensitivity / math.sqrt(2 * rho), rel=1e-9)
    assert zcdp_gaussian_sigma(sensitivity, rho) == pytest.approx(sensitivity / math.sqrt(2 * rho))


def test_noise_is_gaussian_with_that_sigma():
    sigma = zcdp_gaussian_sigma(2.0, 0.3)
    noise = release_gaussian(np.zeros(40_000), l2_sensitivity=2.0, rho=0.3, random_state=0)
    assert abs(noise.std() - sigma) < 5 * sigma / math.sqrt(2 * noise.size)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 1e-3
