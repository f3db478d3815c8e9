"""The secure Gaussian's array form of CPython's ``random.Random.normalvariate`` (``_vector._normalvariate_array``).

Bit equality and the same uniform count as the scalar sampler on seeded streams, on replayed secure bytes and on
constructed acceptance-boundary pairs; batch sizes at and around the uniforms a draw needs; no global generator;
the standard normal law on 10^7 draws. The construction and its proof: docs/performance.md, "Secure Gaussian in
array form".
"""

import math
import random
import types

import numpy as np
import pytest
from diffprivlib.mechanisms import Gaussian, GaussianAnalytic, Laplace
from scipy import stats

from fairlearn_dp.privacy import _vector
from fairlearn_dp.privacy._vector import randomise_vector

NV_MAGICCONST = random.NV_MAGICCONST
GRID = 2.0 ** -53                                       # SystemRandom.random()'s uniforms are k * 2**-53


class Counting(random.Random):
    """A seeded ``random.Random`` that counts the uniforms its ``normalvariate`` reads."""

    def __init__(self, seed):
        super().__init__(seed)
        self.read = 0

    def random(self):
        self.read += 1
        return super().random()


class Replay(random.Random):
    """A ``random.Random`` whose ``random()`` serves a given list of uniforms, counting what it serves."""

    def __init__(self, uniforms):
        super().__init__()
        self._uniforms, self.read = list(uniforms), 0

    def random(self):
        self.read += 1
        return self._uniforms[self.read - 1]


def _stream_of(uniforms, batch):
    """A ``_UniformStream`` serving ``uniforms`` in order, ``batch`` at a time; then one batch of NaN (never
    accepted: a batch may run past the end without being read); asked for more, it fails."""
    padded = list(uniforms) + [math.nan] * batch

    def draw(size):
        if len(padded) < size:
            raise AssertionError("the draw read past the uniforms it was given")
        served = padded[:size]
        del padded[:size]
        return np.array(served)
    return _vector._UniformStream(draw, batch)


def _scalar(uniforms, count):
    """``count`` scalar ``normalvariate(0, 1)`` calls (as diffprivlib makes them) on ``uniforms``; values, uniforms
    read."""
    replay = Replay(uniforms)
    return [replay.normalvariate(0, 1) for _ in range(count)], replay.read


def _all_normals(uniforms):
    """How many normals the scalar loop draws from ``uniforms`` before it runs out."""
    replay, count = Replay(uniforms), 0
    try:
        while True:
            replay.normalvariate(0, 1)
            count += 1
    except IndexError:
        return count


def _uniforms_needed(seed, count):
    reference = Counting(seed)
    for _ in range(count):
        reference.normalvariate(0, 1)
    return reference.read


@pytest.mark.parametrize("seed", [0, 1, 12345])
@pytest.mark.parametrize("count", [1, 2, 9, 2000])
def test_equals_normalvariate_on_a_seeded_stream_for_batches_around_the_boundary(seed, count):
    """random.Random(seed) feeds both: the same values and the same number of uniforms read, whatever the batch --
    1 (every pair straddles two batches), 2, 3, and the exact number the draws need, one less and one more."""
    needed = _uniforms_needed(seed, count)
    reference = Counting(seed)
    expected = [reference.normalvariate(0, 1) for _ in range(count)]
    for batch in sorted({1, 2, 3, needed - 1, needed, needed + 1, 4096} - {0}):
        source = random.Random(seed)
        stream = _vector._UniformStream(lambda size: np.array([source.random() for _ in range(size)]), batch)
        got = _vector._normalvariate_array(count, stream)
        assert got.tolist() == expected, batch
        assert stream.consumed == reference.read == needed, batch


def test_an_all_reject_batch_is_skipped_pair_by_pair():
    """Pairs (0, 0) always reject (u2 = 1, -log u2 = 0 < zz). Batches made only of them -- of even and odd size, so
    that the pair after them straddles -- are read through like the scalar loop reads them."""
    tail = random.Random(3)
    rest = [tail.random() for _ in range(500)]
    for zeros in (1, 6, 7, 64):
        uniforms = [0.0] * zeros + rest
        expected, read = _scalar(uniforms, 50)
        for batch in (zeros, zeros + 1, 2, 5):
            stream = _stream_of(uniforms, batch)
            assert _vector._normalvariate_array(50, stream).tolist() == expected, (zeros, batch)
            assert stream.consumed == read
    stream = _stream_of([0.0] * 10 + [0.5, 0.5], 4)                 # (0.5, 0.5) accepts: z = 0
    assert _vector._normalvariate_array(1, stream).tolist() == [0.0] and stream.consumed == 12


def _boundary_pairs(rng, wanted):
    """Grid pairs (u1, u) with zz == -math.log(1 - u) exactly ('on', accepted by normalvariate) and with zz one ulp
    above it ('above', rejected): where a log one ulp off decides the other way."""
    found = {"on": [], "above": []}
    while min(len(pairs) for pairs in found.values()) < wanted:
        u = int(rng.integers(1, 2 ** 53)) * GRID
        u2 = 1.0 - u
        minus_log = -math.log(u2)
        half = 2 * math.sqrt(minus_log) * u2 / NV_MAGICCONST       # |u1 - 0.5| on the acceptance boundary
        if half >= 0.5:
            continue
        for centre in (round((0.5 + half) / GRID), round((0.5 - half) / GRID)):
            for k in range(centre - 4, centre + 5):
                z = NV_MAGICCONST * (k * GRID - 0.5) / u2
                zz = z * z / 4.0
                if zz == minus_log:
                    found["on"].append((k * GRID, u))
                elif zz == math.nextafter(minus_log, math.inf):
                    found["above"].append((k * GRID, u))
    return found


@pytest.mark.parametrize("direction", [-math.inf, math.inf], ids=["log_one_ulp_low", "log_one_ulp_high"])
def test_boundary_pairs_are_decided_with_math_log(monkeypatch, direction):
    """An array log one ulp off flips the decision on constructed boundary pairs; the re-decision with math.log
    restores normalvariate's result (and without it the result differs, so these pairs do reach the boundary)."""
    found = _boundary_pairs(np.random.default_rng(7), 30)
    filler = random.Random(8)
    uniforms = []
    for on, above in zip(found["on"][:30], found["above"][:30], strict=False):     # boundary pairs between ordinary pairs
        uniforms += [*on, filler.random(), filler.random(), *above, filler.random(), filler.random()]
    count = _all_normals(uniforms)                                    # the draws reach every pair
    expected, read = _scalar(uniforms, count)
    assert read > len(uniforms) - 4
    monkeypatch.setattr(_vector, "_array_log", lambda x: np.nextafter(np.log(x), direction))
    redecided = []
    monkeypatch.setattr(_vector, "math", types.SimpleNamespace(log=lambda x: redecided.append(x) or math.log(x)))
    stream = _stream_of(uniforms, 16)
    assert _vector._normalvariate_array(count, stream).tolist() == expected and stream.consumed == read
    boundary_u2 = {1.0 - u for _, u in found["on"][:30] + found["above"][:30]}
    assert boundary_u2 <= set(redecided)                              # every boundary pair went through math.log
    monkeypatch.setattr(_vector, "_BOUNDARY_MARGIN", -1.0)             # no re-decision: the perturbed log decides
    padded = uniforms + [filler.random() for _ in range(400)]          # enough accepted pairs whichever way
    assert _vector._normalvariate_array(count, _stream_of(padded, 16)).tolist() != expected


def test_the_array_log_is_within_the_boundary_margin_of_math_log():
    """The re-decision margin (8 ulps or more) covers the measured difference of the two logs on grid values."""
    rng = np.random.default_rng(11)
    u2 = 1.0 - np.concatenate([rng.integers(0, 2 ** 53, 200_000) * GRID,            # all of [0, 1)
                               rng.integers(0, 2 ** 20, 50_000) * GRID,              # u2 next to 1
                               1.0 - rng.integers(1, 2 ** 20, 50_000) * GRID])       # u2 next to 0
    array = -_vector._array_log(u2)
    scalar = np.array([-math.log(v) for v in u2.tolist()])
    # A decision can differ only if |zz - array| <= |array - scalar|; pairs with |zz - array| <= margin * array are
    # re-decided, so the difference must stay within the margin.
    assert np.all(np.abs(array - scalar) <= _vector._BOUNDARY_MARGIN * array)


def _recording_urandom(monkeypatch, seed, zero_first_read=False):
    """Replace the OS source of _vector with deterministic bytes; returns the list of reads."""
    rng, reads = np.random.default_rng(seed), []

    def urandom(size):
        data = bytes(size) if zero_first_read and not reads else rng.bytes(size)
        reads.append(data)
        return data
    monkeypatch.setattr(_vector.os, "urandom", urandom)
    return reads


def _system_random_replaying(monkeypatch, reads):
    """A real ``random.SystemRandom`` reading 7 bytes a uniform (its own ``random()``) from the bytes of ``reads``,
    without the last byte of each read (``_secure_uniforms`` reads 7 k + 1 bytes for k uniforms)."""
    data = b"".join(chunk[:-1] for chunk in reads)
    position = [0]

    def urandom(size):
        assert size == 7
        position[0] += 7
        return data[position[0] - 7:position[0]]
    monkeypatch.setattr(random, "_urandom", urandom)
    return random.SystemRandom(), position


GAUSSIANS = {
    "gaussian": {"cls": Gaussian, "epsilon": 0.5, "delta": 1e-5, "sensitivity": 0.3},
    "analytic": {"cls": GaussianAnalytic, "epsilon": 2.0, "delta": 1e-6, "sensitivity": 0.3},
    "analytic_wide": {"cls": GaussianAnalytic, "epsilon": 0.1, "delta": 1e-3, "sensitivity": 7.0},
}


@pytest.mark.parametrize("max_batch", [7, 64, None], ids=["batch7", "batch64", "default_batch"])
@pytest.mark.parametrize("cells", [1, 3, 1000])
@pytest.mark.parametrize("name", sorted(GAUSSIANS))
def test_secure_release_is_randomise_on_replayed_secure_bytes(monkeypatch, name, cells, max_batch):
    """randomise_vector on the secure source equals diffprivlib's own randomise(value), cell by cell, on a real
    SystemRandom replaying the same OS bytes -- values and bytes read; the first read all zeros (an all-reject
    batch); small batches force pairs across reads."""
    if max_batch is not None:
        monkeypatch.setattr(_vector, "_MAX_GAUSSIAN_BATCH", max_batch)
    streams = []
    real_sampler = _vector._normalvariate_array
    monkeypatch.setattr(_vector, "_normalvariate_array",
                        lambda count, stream: streams.append(stream) or real_sampler(count, stream))
    reads = _recording_urandom(monkeypatch, seed=cells, zero_first_read=True)
    keywords = dict(GAUSSIANS[name])
    mechanism = keywords.pop("cls")(**keywords)
    assert type(mechanism._rng) is random.SystemRandom
    values = np.random.default_rng(2).normal(scale=50.0, size=cells)
    got = randomise_vector(mechanism, values)
    monkeypatch.undo()
    reference = GAUSSIANS[name]["cls"](**keywords)
    reference._rng, position = _system_random_replaying(monkeypatch, reads)
    expected = [reference.randomise(float(v)) for v in values]
    assert got.tolist() == expected
    (stream,) = streams
    assert 7 * stream.consumed == position[0]                          # the same uniforms read
    if max_batch is not None:
        assert len(reads) > 1                                          # refilled


def test_secure_gaussian_reads_the_os_in_batches_never_per_uniform(monkeypatch):
    """One os.urandom read of 7 b + 1 bytes per batch of b uniforms (the Laplace path's construction), b at most
    the Laplace's batch; SystemRandom.random() is never called."""
    reads = []
    real = _vector.os.urandom
    monkeypatch.setattr(_vector.os, "urandom", lambda size: reads.append(size) or real(size))
    mechanism = GaussianAnalytic(epsilon=1.0, delta=1e-6, sensitivity=1.0)
    monkeypatch.setattr(mechanism._rng, "random", lambda: pytest.fail("per-uniform SystemRandom.random() call"))
    monkeypatch.setattr(mechanism._rng, "normalvariate", lambda *a: pytest.fail("scalar normalvariate call"))
    randomise_vector(mechanism, np.zeros(10))
    assert reads[0] == 7 * (6 * 10 + 64) + 1
    reads.clear()
    randomise_vector(mechanism, np.zeros(100_000))
    batch = 4 * _vector._CHUNK_CELLS
    # 2 x 10^5 normals read 547,500 +- 640 (sd) uniforms (2.74 a normal, variance 4 (1 - p) / p^2 = 2.02 a normal,
    # p = 0.7306): three batches of 262,144, the last part-used.
    assert reads == [7 * batch + 1] * 3


@pytest.fixture
def global_generators_raise(monkeypatch):
    """Every function of numpy's global RandomState (np.random.random, normal, seed, ...), np.random.default_rng and
    every module-level function of ``random`` (bound to its hidden global instance) raise when called."""
    def refuse(*args, **kwargs):
        raise AssertionError("a global random generator was used")

    for name in dir(np.random):
        if callable(getattr(np.random.mtrand._rand, name, None)) and not name.startswith("_"):
            monkeypatch.setattr(np.random, name, refuse)
    monkeypatch.setattr(np.random, "default_rng", refuse)
    for name in dir(random):
        if getattr(getattr(random, name), "__self__", None) is random._inst:
            monkeypatch.setattr(random, name, refuse)
    with pytest.raises(AssertionError):
        np.random.standard_normal()
    with pytest.raises(AssertionError):
        random.normalvariate(0, 1)


def test_secure_releases_use_no_global_generator(global_generators_raise):
    for mechanism in (GaussianAnalytic(epsilon=1.0, delta=1e-6, sensitivity=1.0),
                      Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0), Laplace(epsilon=1.0, sensitivity=1.0)):
        noise = randomise_vector(mechanism, np.zeros(20_000))
        assert noise.shape == (20_000,) and np.unique(noise).size == 20_000
    stream = _vector._UniformStream(_vector._secure_uniforms, 1000)
    assert _vector._normalvariate_array(5000, stream).size == 5000


@pytest.mark.slow
def test_ten_million_secure_draws_are_standard_normal():
    """KS distance of 10^7 secure array draws to N(0, 1) below the DKW-Massart bound sqrt(log(2 / alpha) / (2 n)),
    which P(D_n > bound) <= alpha guarantees for every n (alpha = 1e-6: the false-alarm probability)."""
    n, alpha = 10 ** 7, 1e-6
    stream = _vector._UniformStream(_vector._secure_uniforms, _vector._MAX_GAUSSIAN_BATCH)
    draws = _vector._normalvariate_array(n, stream)
    assert stream.consumed % 2 == 0 and 2.5 < stream.consumed / n < 3.0   # 2 / acceptance rate 0.7306 = 2.737
    statistic = stats.kstest(draws, stats.norm.cdf).statistic
    assert statistic < math.sqrt(math.log(2 / alpha) / (2 * n))
