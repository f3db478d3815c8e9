"""randomise_vector: one call per release, the mechanism's own formula, sampler and kind of random source."""

import math
import random

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.mechanisms import Gaussian, GaussianAnalytic, Geometric, Laplace, LaplaceTruncated
from scipy import stats

from fairlearn_dp.privacy import _vector
from fairlearn_dp.privacy._release import release_gaussian, release_joint_counts, release_laplace
from fairlearn_dp.privacy._vector import randomise_vector
from fairlearn_dp.privacy._zcdp import zcdp_gaussian_mechanism
from fairlearn_dp.privacy._zcdp_ledger import ZCDPLedger

MECHANISMS = {
    "laplace": lambda rs: Laplace(epsilon=0.7, sensitivity=0.3, random_state=rs),
    "laplace_delta": lambda rs: Laplace(epsilon=0.7, delta=0.05, sensitivity=0.3, random_state=rs),
    "gaussian_analytic": lambda rs: GaussianAnalytic(epsilon=2.0, delta=1e-6, sensitivity=0.3, random_state=rs),
    "gaussian": lambda rs: Gaussian(epsilon=0.5, delta=1e-5, sensitivity=0.3, random_state=rs),
}
KS_ALPHA = 1e-6          # per test: the secure path is not seeded, so this is its false-alarm probability


def _reference(mechanism):
    """The documented noise law of ``mechanism.randomise``: Laplace(b) or Normal(sigma), from diffprivlib's own
    parameters (``b = s / (eps - log(1 - delta))``; ``sigma = _scale``, whose square is ``variance(0)``)."""
    if type(mechanism) is Laplace:
        scale = mechanism.sensitivity / (mechanism.epsilon - math.log(1 - mechanism.delta))
        assert 2 * scale ** 2 == pytest.approx(mechanism.variance(0.0))
        return stats.laplace(scale=scale)
    assert mechanism._scale ** 2 == pytest.approx(mechanism.variance(0.0))
    return stats.norm(scale=mechanism._scale)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_seeded_release_is_the_per_cell_release_bit_for_bit(name):
    """Same uniforms / normals in the same order: the vector draw equals the scalar loop and leaves the same state."""
    values = np.random.default_rng(1).normal(size=(301, 7))
    scalar, vector = MECHANISMS[name](11), MECHANISMS[name](11)
    expected = np.array([scalar.randomise(float(v)) for v in values.ravel()]).reshape(values.shape)
    got = randomise_vector(vector, values)
    assert got.shape == values.shape and np.array_equal(got, expected)
    assert scalar._rng.random_sample() == vector._rng.random_sample()        # the stream is consumed identically


@pytest.mark.parametrize("secure", [False, True], ids=["seeded", "secure"])
@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_vector_noise_has_the_documented_distribution(name, secure):
    """KS distance to Laplace(b) / Normal(sigma) below the exact KS critical value at level KS_ALPHA; the sample
    scale (mean |noise| for Laplace, sd for the Gaussian) within 5 standard errors of the mechanism's scale."""
    n = 100_000
    mechanism = MECHANISMS[name](None if secure else 2024)
    offset = 3.25                                              # the noise is added to the values, whatever they are
    noise = randomise_vector(mechanism, np.full(n, offset)) - offset
    reference = _reference(mechanism)
    statistic = stats.kstest(noise, reference.cdf).statistic
    assert statistic < stats.kstwo.ppf(1 - KS_ALPHA, n)
    if type(mechanism) is Laplace:
        scale = reference.std() / math.sqrt(2)                 # |Laplace(b)| ~ Exponential(b): mean b, sd b
        assert abs(np.mean(np.abs(noise)) - scale) < 5 * scale / math.sqrt(n)
    else:
        sigma = reference.std()                                # sample sd: standard error ~ sigma / sqrt(2 n)
        assert abs(noise.std() - sigma) < 5 * sigma / math.sqrt(2 * n)


def test_secure_uniforms_are_system_random_s_construction(monkeypatch):
    """Uniform i is (int.from_bytes(7 bytes, 'big') >> 3) * 2**-53 of the i-th 7-byte slice, as SystemRandom.random."""
    data = bytes(np.random.default_rng(5).integers(0, 256, 7 * 1000 + 1, dtype=np.uint8))
    data = b"\xff" * 7 + b"\x00" * 7 + data[14:]              # both ends of the grid
    monkeypatch.setattr(_vector.os, "urandom", lambda size: data[:size])
    uniforms = _vector._secure_uniforms(1000)
    expected = [(int.from_bytes(data[7 * i:7 * i + 7], "big") >> 3) * 2.0 ** -53 for i in range(1000)]
    assert uniforms.tolist() == expected
    assert uniforms[0] == 1 - 2.0 ** -53 and uniforms[1] == 0.0
    assert np.all(uniforms * 2.0 ** 53 == np.floor(uniforms * 2.0 ** 53))  # on the 53-bit grid


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_secure_path_never_touches_the_global_generators(name):
    """random_state=None: numpy's and Python's global generators are untouched, and re-seeding them does not
    repeat the noise (it comes from the OS)."""
    np.random.seed(7)
    random.seed(7)
    numpy_state, python_state = np.random.get_state(), random.getstate()
    first = randomise_vector(MECHANISMS[name](None), np.zeros(5000))
    after = np.random.get_state()
    assert all(np.array_equal(a, b) for a, b in zip(numpy_state, after, strict=False)) and random.getstate() == python_state
    np.random.seed(7)
    random.seed(7)
    second = randomise_vector(MECHANISMS[name](None), np.zeros(5000))
    assert not np.any(first == second)


def test_numpy_global_generator_as_random_state_is_still_secure():
    """diffprivlib maps random_state=np.random.mtrand._rand to its secure source; so does the vector path."""
    mechanism = Laplace(epsilon=1.0, sensitivity=1.0, random_state=np.random.mtrand._rand)
    state = np.random.get_state()
    randomise_vector(mechanism, np.zeros(1000))
    assert all(np.array_equal(a, b) for a, b in zip(state, np.random.get_state(), strict=False))


def test_secure_laplace_is_one_os_read_per_batch_never_one_per_uniform(monkeypatch):
    calls = []
    real = _vector.os.urandom
    monkeypatch.setattr(_vector.os, "urandom", lambda size: calls.append(size) or real(size))
    mechanism = Laplace(epsilon=1.0, sensitivity=1.0)
    monkeypatch.setattr(mechanism._rng, "random", lambda: pytest.fail("per-uniform SystemRandom.random() call"))
    randomise_vector(mechanism, np.zeros(1000))
    assert calls == [7 * 4000 + 1]
    calls.clear()
    cells = 3 * _vector._CHUNK_CELLS + 5
    randomise_vector(mechanism, np.zeros(cells))
    assert len(calls) == 4 and sum(calls) == 7 * 4 * cells + 4


def test_empty_and_shaped_values():
    for name, make in MECHANISMS.items():
        for secure in (False, True):
            mechanism = make(None if secure else 3)
            assert randomise_vector(mechanism, np.zeros((0, 3))).shape == (0, 3)
            assert randomise_vector(mechanism, np.zeros((2, 3, 4))).shape == (2, 3, 4)
    assert randomise_vector(Laplace(epsilon=1.0, sensitivity=0.0, random_state=1), [1, 2, True]).tolist() == [1, 2, 1]


def test_refusals_match_the_mechanism():
    with pytest.raises(TypeError, match="Laplace, Gaussian and GaussianAnalytic"):
        randomise_vector(LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=0, upper=1), [0.5])
    with pytest.raises(TypeError, match="Laplace, Gaussian and GaussianAnalytic"):
        randomise_vector(Geometric(epsilon=1.0), [1])
    with pytest.raises(TypeError, match="real numbers"):
        randomise_vector(Laplace(epsilon=1.0, sensitivity=1.0), ["1.0"])
    with pytest.raises(TypeError, match="real numbers"):
        randomise_vector(Laplace(epsilon=1.0, sensitivity=1.0), [1 + 2j])
    broken = Laplace(epsilon=1.0, sensitivity=1.0)
    broken.sensitivity = -1.0                                  # the mechanism's own _check_all refuses it
    with pytest.raises(ValueError, match="Sensitivity"):
        randomise_vector(broken, [0.0])
    with pytest.raises(ValueError, match="Sensitivity"):
        broken.randomise(0.0)


def test_one_accountant_charge_per_release():
    """The vector draw never charges; each release function charges once, however many cells it releases."""
    accountant = BudgetAccountant()
    with accountant:                                           # also the default accountant: nothing may use it
        randomise_vector(Laplace(epsilon=1.0, sensitivity=1.0), np.zeros(100_000))
        release_laplace(np.zeros(10_000), epsilon=1.0, l1_sensitivity=1.0)
        release_gaussian(np.zeros(10_000), l2_sensitivity=1.0, rho=0.5)
        release_gaussian(np.zeros(10_000), l2_sensitivity=1.0, epsilon=1.0, delta=1e-6)
    assert accountant.spent_budget == []
    n, n_groups, n_bins = 1000, 4, 5000                       # a 20,000-cell histogram: one release, one charge
    counts = np.bincount(np.random.default_rng(0).integers(0, n_groups * n_bins, n), minlength=n_groups * n_bins)
    noisy, spend = release_joint_counts(counts.reshape(n_groups, n_bins), n, epsilon=0.5, accountant=accountant)
    assert noisy.shape == (n_groups, n_bins) and accountant.spent_budget == [(0.5, 0.0)]
    ledger = ZCDPLedger()
    ledger.release(np.zeros(5000), stage="test", l2_sensitivity=1.0, rho=0.1, random_state=None)
    assert len(ledger.entries) == 1 and ledger.total() == pytest.approx(0.1)


def test_zcdp_release_has_the_zcdp_sigma():
    """release_gaussian at rho goes through the vector path with sigma = Delta_2 / sqrt(2 rho), seeded and secure."""
    sensitivity, rho, n = 2.0, 0.3, 100_000
    sigma = sensitivity / math.sqrt(2 * rho)
    assert zcdp_gaussian_mechanism(sensitivity, rho)._scale == pytest.approx(sigma)
    for random_state in (0, None):
        noise = release_gaussian(np.zeros(n), l2_sensitivity=sensitivity, rho=rho, random_state=random_state)
        assert stats.kstest(noise, stats.norm(scale=sigma).cdf).statistic < stats.kstwo.ppf(1 - KS_ALPHA, n)


def test_a_custom_random_source_is_used_through_randomise():
    """A user's SystemRandom subclass may differ from SystemRandom: its own methods are called, cell by cell."""
    class Fixed(random.SystemRandom):
        def random(self):
            return 0.25

    for mechanism in (Laplace(epsilon=1.0, sensitivity=1.0, random_state=Fixed()),
                      GaussianAnalytic(epsilon=1.0, delta=1e-6, sensitivity=1.0, random_state=Fixed())):
        expected = mechanism.randomise(0.0)
        assert randomise_vector(mechanism, np.zeros(4)).tolist() == [expected] * 4


def test_analytic_gaussian_is_diffprivlibs_mechanism_with_its_search_run_once_per_triple(monkeypatch):
    """Every Gaussian release builds its mechanism through ``analytic_gaussian``: diffprivlib's scale and seeded
    draws bit for bit, and diffprivlib's binary search once per (epsilon, delta, sensitivity), not once per release."""
    calls = []
    search = GaussianAnalytic._find_scale

    def counted(self):
        calls.append((self.epsilon, self.delta, self.sensitivity))
        return search(self)

    _vector._analytic_scale.cache_clear()
    monkeypatch.setattr(GaussianAnalytic, "_find_scale", counted)
    rng = np.random.RandomState(0)
    for _ in range(50):
        epsilon, delta = float(rng.uniform(0.05, 5.0)), float(10 ** rng.uniform(-12, -2))
        sensitivity = float(10 ** rng.uniform(-4, 3))
        calls.clear()
        mechanisms = [_vector.analytic_gaussian(epsilon=epsilon, delta=delta, sensitivity=sensitivity,
                                                random_state=7) for _ in range(3)]
        assert len(calls) == 1                                        # the first construction searches, no other
        reference = GaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity, random_state=7)
        assert all(isinstance(mechanism, GaussianAnalytic) for mechanism in mechanisms)
        assert {_vector.mechanism_scale(mechanism) for mechanism in mechanisms} == {_vector.mechanism_scale(reference)}
        draws = {tuple(randomise_vector(mechanism, np.arange(4.0))) for mechanism in mechanisms}
        assert draws == {tuple(randomise_vector(reference, np.arange(4.0)))}
    with pytest.raises(ValueError):                                  # diffprivlib's own checks still run
        _vector.analytic_gaussian(epsilon=1.0, delta=0.0, sensitivity=1.0)
