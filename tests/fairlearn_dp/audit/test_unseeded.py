"""`random_state=None` must be unpredictable: the audit flags noise drawn from numpy's or Python's global generator."""

import math
import random

import numpy as np
import pytest

from fairlearn_dp.audit._reproducibility import ReproducibilityResult, audit_unseeded_reproducibility
from fairlearn_dp.privacy._release import release_laplace


class _SecureCounts:
    """Correct: Laplace noise from diffprivlib, which uses a cryptographically secure source for None."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def fit(self, values):
        values = np.asarray(values, dtype=float)
        self.noisy_sum_ = release_laplace([values.sum()], epsilon=self.epsilon, l1_sensitivity=1.0,
                                       random_state=self.random_state)
        self.n_ = values.size                                       # public, not noisy
        return self


class _GlobalNumpyCounts(_SecureCounts):
    """BROKEN on purpose: with random_state=None, draws its Laplace noise from numpy's global generator."""

    def fit(self, values):
        values = np.asarray(values, dtype=float)
        rng = np.random.mtrand._rand if self.random_state is None else np.random.RandomState(self.random_state)
        self.noisy_sum_ = np.array([values.sum() + rng.laplace(scale=1.0 / self.epsilon)])
        self.n_ = values.size
        return self


class _GlobalPythonCounts(_SecureCounts):
    """BROKEN on purpose: draws its noise from Python's global ``random`` generator."""

    def fit(self, values):
        values = np.asarray(values, dtype=float)
        self.noisy_sum_ = np.array([values.sum() + random.expovariate(self.epsilon)
                                    - random.expovariate(self.epsilon)])
        return self


D, D_PRIME = {"values": [1.0, 0.0, 1.0]}, {"values": [0.0, 0.0, 1.0]}


@pytest.mark.parametrize("broken", [_GlobalNumpyCounts, _GlobalPythonCounts])
def test_noise_from_a_global_generator_is_flagged(broken):
    result = audit_unseeded_reproducibility(broken, D, D_PRIME, statistics="noisy_sum_")
    assert isinstance(result, ReproducibilityResult)
    assert not result.passed and result.identical == ((True, True, True),)
    # The seed identifies the dataset: same seed, same noise, the neighbour's release differs by the change.
    assert result.distinguishes_neighbours == ((True, True, True),)
    assert result.epsilon_lower_bound == math.inf
    without_neighbour = audit_unseeded_reproducibility(broken, D, statistics=["noisy_sum_"], global_seeds=[7])
    assert not without_neighbour.passed and without_neighbour.distinguishes_neighbours is None
    assert without_neighbour.epsilon_lower_bound == math.inf


def test_secure_noise_passes():
    result = audit_unseeded_reproducibility(_SecureCounts, D, D_PRIME, statistics=("noisy_sum_",),
                                            global_seeds=range(5))
    assert result.passed and result.epsilon_lower_bound == 0.0
    assert result.identical == ((False,) * 5,) and result.global_seeds == (0, 1, 2, 3, 4)


def test_a_public_attribute_is_not_noise():
    """A statistic that is not noisy (here the public n) is the same in every fit: the check needs noisy values."""
    result = audit_unseeded_reproducibility(_SecureCounts, D, statistics=["noisy_sum_", lambda fitted: fitted.n_])
    assert not result.passed and result.identical == ((False,) * 3, (True,) * 3)


def test_the_global_generators_are_restored():
    np.random.seed(123)
    random.seed(123)
    expected_numpy, expected_python = np.random.random(), random.random()
    np.random.seed(123)
    random.seed(123)
    audit_unseeded_reproducibility(_GlobalNumpyCounts, D, D_PRIME, statistics="noisy_sum_")
    assert np.random.random() == expected_numpy and random.random() == expected_python


def test_arguments_are_validated():
    with pytest.raises(TypeError, match="factory_unseeded"):
        audit_unseeded_reproducibility(None, D, statistics="noisy_sum_")
    with pytest.raises(TypeError, match="dicts"):
        audit_unseeded_reproducibility(_SecureCounts, [1.0], statistics="noisy_sum_")
    with pytest.raises(TypeError, match="statistics"):
        audit_unseeded_reproducibility(_SecureCounts, D, statistics=[])
    with pytest.raises(ValueError, match="global_seeds"):
        audit_unseeded_reproducibility(_SecureCounts, D, statistics="noisy_sum_", global_seeds=())
    with pytest.raises(ValueError, match="global_seeds"):
        audit_unseeded_reproducibility(_SecureCounts, D, statistics="noisy_sum_", global_seeds=[-1])
