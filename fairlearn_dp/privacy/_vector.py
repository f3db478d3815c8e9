"""Vectorised releases: one diffprivlib mechanism applied to every cell of an array in one call.

diffprivlib 0.6.6 mechanisms are scalar (``randomise(value)`` takes one number), and calling ``randomise`` once per
cell costs 8-12 us a cell (its parameter checks, four ``SystemRandom.random()`` calls -- one ``os.urandom`` system
call each -- per Laplace draw). :func:`randomise_vector` draws the noise of a whole array in one call *with the
mechanism's own formula and sampler*; only how the underlying uniform (or normal) variates are fetched changes:

- ``Laplace``: ``randomise(v) = v - b * Laplace._laplace_sampler(u1, u2, u3, u4)`` with ``b = sensitivity /
  (epsilon - log(1 - delta))`` and four ``_rng.random()`` uniforms. Here the same staticmethod runs elementwise on
  arrays of ``4 m`` uniforms: seeded (``_rng`` a ``RandomState``), ``rng.random_sample(4 m)``, the very stream the
  ``4 m`` scalar calls would read, in their order; secure (``_rng`` a ``SystemRandom``), uniforms built exactly as
  ``SystemRandom.random()`` builds one (7 bytes of ``os.urandom``, big-endian, ``>> 3``, ``* 2**-53``) from one
  ``os.urandom`` read per batch of cells.
- ``Gaussian`` / ``GaussianAnalytic``: ``randomise(v) = v + ((N1 + N2) / sqrt(2)) * sigma``. Seeded:
  ``rng.standard_normal(2 m)``, the same legacy polar-method stream as ``2 m`` scalar calls. Secure: the stdlib's
  ``Random.normalvariate`` (Kinderman-Monahan ratio of uniforms, the sampler diffprivlib calls) evaluated on arrays
  by :func:`_normalvariate_array`, with CPython's operations in CPython's order, on the batched secure uniforms
  above, read pair by pair in stream order; then the formula elementwise.

So a seeded release is the per-cell release, value for value (the same seed gives the same numbers as before this
module existed), and ``random_state=None`` keeps diffprivlib's cryptographically secure source (the OS CSPRNG,
never numpy's or Python's global generator) and the exact distribution of each draw: the uniforms are the same
53-bit grid with the same construction, only fetched with one system call per batch instead of one per uniform.
Parameters are checked once per call with the mechanism's own ``_check_all`` (not once per cell). Nothing here
charges an accountant: the release functions that call it charge once per release, as before.

The array form of ``normalvariate`` returns, on any stream of uniforms, the very numbers ``2 m`` calls of
``normalvariate`` return on that stream, after reading the same number of uniforms. Why (each rejection round reads a
fixed pair, comparisons near the acceptance boundary are re-decided with ``math.log``) and how it is tested:
docs/performance.md, "Secure Gaussian in array form".

Large releases in this package are Laplace (the fair-regression joint histogram, the threshold-optimizer tables,
the exponentiated-gradient oracle statistics at ``delta = 0``); Gaussian releases (zCDP estimators, ``delta > 0``)
are mostly small vectors (the group-budget regressor: ~11 coordinates a release).
"""

from __future__ import annotations

import functools
import math
import os
import random
from types import SimpleNamespace

import numpy as np
from diffprivlib.mechanisms import Gaussian, GaussianAnalytic, Laplace
from numpy.typing import ArrayLike

__all__ = ["analytic_gaussian", "randomise_vector", "mechanism_scale"]

# Mechanisms whose ``randomise`` this module reproduces. Exact types: subclasses (LaplaceTruncated, LaplaceFolded,
# LaplaceBoundedDomain, ...) override ``randomise`` with other distributions and are refused.
_LAPLACE = (Laplace,)


@functools.lru_cache(maxsize=4096)
def _analytic_scale(epsilon: float, delta: float, sensitivity: float) -> float:
    """The scale ``GaussianAnalytic`` computes for this triple: diffprivlib's own search, run once per process."""
    return GaussianAnalytic._find_scale(SimpleNamespace(epsilon=epsilon, delta=delta, sensitivity=sensitivity))


class _MemoisedGaussianAnalytic(GaussianAnalytic):
    """diffprivlib's ``GaussianAnalytic`` (its checks, parameters and ``randomise``) with its scale memoised."""

    def _find_scale(self):
        return _analytic_scale(float(self.epsilon), float(self.delta), float(self.sensitivity))


_GAUSSIAN = (Gaussian, GaussianAnalytic, _MemoisedGaussianAnalytic)

_RECIP_BPF = 2.0 ** -53            # random.RECIP_BPF: SystemRandom.random() = (56 random bits >> 3) * 2**-53
_CHUNK_CELLS = 1 << 16             # cells per batch of secure Laplace uniforms (bounds the temporary memory)
_UNIFORMS_PER_CELL_GAUSSIAN = 6    # normalvariate reads 2 / 0.73 ~ 2.74 uniforms a normal, two normals a cell
_MAX_GAUSSIAN_BATCH = 4 * _CHUNK_CELLS   # uniforms per os.urandom read for the secure Gaussian (the Laplace's batch)
_NV_MAGICCONST = random.NV_MAGICCONST    # 4 exp(-1/2) / sqrt(2), the stdlib's own constant
# Acceptance comparisons closer than this relative margin (>= 8 ulps of -log(u2)) are re-decided with math.log:
# numpy's log and the C library's may differ in the last ulp, and normalvariate decides with math.log.
_BOUNDARY_MARGIN = 8 * 2.0 ** -52
_array_log = np.log                # the array log (a name of its own, so that tests can perturb it)


def analytic_gaussian(*, epsilon: float, delta: float, sensitivity: float,
                      random_state: int | np.random.RandomState | None = None) -> GaussianAnalytic:
    """The mechanism ``GaussianAnalytic(epsilon=..., delta=..., sensitivity=..., random_state=...)`` of diffprivlib,
    with the scale of its calibration memoised per process.

    ``GaussianAnalytic`` finds its scale (Balle & Wang 2018's analytic calibration) by a binary search in its
    constructor, a few milliseconds on every release. This mechanism is a ``GaussianAnalytic`` whose scale is the one
    diffprivlib's own search returned for the same (epsilon, delta, sensitivity), run once per distinct triple: the
    noise, and every seeded draw, are diffprivlib's bit for bit. The triple is public (a budget and a sensitivity).
    """
    return _MemoisedGaussianAnalytic(epsilon=epsilon, delta=delta, sensitivity=sensitivity, random_state=random_state)


def mechanism_scale(mechanism: Laplace | Gaussian | GaussianAnalytic) -> float:
    """The scale diffprivlib's ``mechanism`` draws its noise with (Laplace ``b``, Gaussian ``sigma``): its private
    ``_scale``, read in this module only, with the other diffprivlib internals (tested on the pinned versions).
    """
    return mechanism._scale


def randomise_vector(mechanism: Laplace | Gaussian | GaussianAnalytic, values: ArrayLike) -> np.ndarray:
    """``mechanism.randomise`` applied to every cell of ``values``, in one call (does not charge an accountant).

    Draws exactly what ``numpy.array([mechanism.randomise(float(v)) for v in values.ravel()])`` would draw, with the
    same distribution per cell and cells independent; for a mechanism built with a seed or ``RandomState`` the very
    same numbers, consuming the same stream (see the module docstring for how each case is fetched).

    Parameters
    ----------
    mechanism : diffprivlib.mechanisms.Laplace, Gaussian or GaussianAnalytic
        A configured mechanism (exactly these classes: subclasses with another ``randomise`` are refused). Its
        ``_rng`` -- a ``numpy.random.RandomState`` (seeded) or a ``secrets.SystemRandom`` (``random_state=None``)
        -- is the source; the secure one is never replaced by a numpy or seeded generator. A source of another
        type (a subclass of either, passed as ``random_state``) is used through ``randomise``, cell by cell.
    values : array-like of real numbers
        The exact statistics, any shape.

    Returns
    -------
    numpy.ndarray of float, same shape as ``values``.

    Raises
    ------
    TypeError
        An unsupported mechanism or random source, or values that are not real numbers (as ``randomise``).
    ValueError
        Parameters the mechanism's own checks refuse.
    """
    if type(mechanism) not in _LAPLACE + _GAUSSIAN:
        raise TypeError("randomise_vector supports diffprivlib's Laplace, Gaussian and GaussianAnalytic "
                        f"mechanisms, got {type(mechanism).__name__}.")
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise TypeError("Values to be randomised must be real numbers.")
    arr = arr.astype(float)
    mechanism._check_all(0.0)                     # the mechanism's own parameter checks, once for all cells
    rng = mechanism._rng
    flat = arr.ravel()
    if type(rng) is random.SystemRandom:          # what diffprivlib builds for random_state=None
        secure = True
    elif type(rng) is np.random.RandomState:      # a seed or a RandomState
        secure = False
    else:                                         # a user's own subclass: its methods may differ, so call them
        return np.fromiter((mechanism.randomise(float(v)) for v in flat), dtype=float,
                           count=flat.size).reshape(arr.shape)
    if type(mechanism) in _LAPLACE:
        noisy = _laplace(mechanism, flat, rng, secure)
    else:
        noisy = _gaussian(mechanism, flat, rng, secure)
    return noisy.reshape(arr.shape)


def _laplace(mechanism, flat, rng, secure):
    """``Laplace.randomise``: ``v - b * _laplace_sampler(u1, u2, u3, u4)``, ``b = s / (eps - log(1 - delta))``."""
    scale = mechanism.sensitivity / (mechanism.epsilon - np.log(1 - mechanism.delta))
    noisy = np.empty_like(flat)
    for start in range(0, flat.size, _CHUNK_CELLS):
        stop = min(start + _CHUNK_CELLS, flat.size)
        m = stop - start
        uniforms = _secure_uniforms(4 * m) if secure else rng.random_sample(4 * m)
        # Cell i reads uniforms 4i..4i+3 as (u1, u2, u3, u4), the order of randomise's four rng.random() calls.
        u1, u2, u3, u4 = np.ascontiguousarray(uniforms.reshape(m, 4).T)
        standard_laplace = Laplace._laplace_sampler(u1, u2, u3, u4)
        noisy[start:stop] = flat[start:stop] - scale * standard_laplace
    return noisy


def _gaussian(mechanism, flat, rng, secure):
    """``Gaussian.randomise``: ``v + ((N1 + N2) / sqrt(2)) * sigma`` with two standard normals per cell."""
    m = flat.size
    if secure:
        stream = _UniformStream(_secure_uniforms, min(_MAX_GAUSSIAN_BATCH, _UNIFORMS_PER_CELL_GAUSSIAN * m + 64))
        normals = _normalvariate_array(2 * m, stream)
    else:
        normals = rng.standard_normal(2 * m)
    pairs = normals.reshape(m, 2)
    standard_normal = (pairs[:, 0] + pairs[:, 1]) / np.sqrt(2)
    return flat + standard_normal * mechanism_scale(mechanism)


def _secure_uniforms(size):
    """``size`` independent uniforms on ``{k 2^-53 : 0 <= k < 2^53}`` from one ``os.urandom`` read.

    The construction of ``random.SystemRandom.random()`` (CPython 3.11-3.13: ``(int.from_bytes(os.urandom(7)) >> 3)
    * 2**-53``, big-endian), applied to consecutive 7-byte slices of one read of ``7 size + 1`` bytes. Uniform ``i``
    is the big-endian 8-byte integer at byte offset ``7 i`` (bytes ``7i .. 7i+7``) shifted right by 11: the shift
    drops the eighth byte and then 3 more bits, leaving exactly ``int.from_bytes(bytes[7i:7i+7]) >> 3``. (The
    strided view avoids copying the bytes into 8-byte slots; the extra last byte only serves the last view.)
    """
    buffer = os.urandom(7 * size + 1)
    words = np.ndarray(shape=(size,), dtype=">u8", buffer=buffer, offset=0, strides=(7,))
    return (words >> np.uint64(11)) * _RECIP_BPF


class _UniformStream:
    """Uniforms in stream order, fetched ``batch`` at a time with ``draw(batch)`` (an array of uniforms in [0, 1)).

    :meth:`unread` shows the uniforms not yet read (at least ``minimum``: when fewer remain, the unread tail is kept
    in front of new batches, so a pair may straddle two batches); :meth:`advance` marks the first ``count`` of them
    read. ``consumed`` counts the uniforms read. One instance serves one release; unread uniforms are then dropped.
    """

    def __init__(self, draw, batch):
        if not (isinstance(batch, int) and batch >= 1):
            raise ValueError(f"batch must be a positive integer, got {batch!r}.")
        self._draw, self._batch = draw, batch
        self._buffer, self._position, self.consumed = np.empty(0), 0, 0

    def unread(self, minimum):
        while self._buffer.size - self._position < minimum:
            tail, fresh = self._buffer[self._position:], self._draw(self._batch)
            self._buffer = np.concatenate((tail, fresh)) if tail.size else fresh
            self._position = 0
        return self._buffer[self._position:]

    def advance(self, count):
        self._position += count
        self.consumed += count


def _normalvariate_array(count, stream):
    """``count`` draws of ``random.Random.normalvariate()`` on the uniforms of ``stream``, as an array.

    The same numbers, read from the same uniforms (``stream.consumed`` grows by what ``count`` scalar calls would
    read), as ``count`` calls of CPython's loop: ``u1 = random(); u2 = 1.0 - random(); z = NV_MAGICCONST * (u1 -
    0.5) / u2; zz = z * z / 4.0``; accept ``z`` if ``zz <= -log(u2)``, else read the next pair. Every attempt reads
    exactly one pair, so the pairs are fixed in advance: each round tests every complete pair left in the stream,
    keeps the accepted ``z`` in order and marks read the pairs up to the last one needed.
    """
    normals = np.empty(count)
    filled = 0
    while filled < count:
        unread = stream.unread(2)
        pairs = unread.size // 2
        z, accepted = _kinderman_monahan_pairs(unread[0:2 * pairs:2], unread[1:2 * pairs:2])
        taken = accepted[:count - filled]
        normals[filled:filled + taken.size] = z[taken]
        filled += taken.size
        stream.advance(2 * (int(taken[-1]) + 1) if filled == count else 2 * pairs)
    return 0.0 + normals * 1.0        # normalvariate returns mu + z * sigma; diffprivlib passes (0, 1)


def _kinderman_monahan_pairs(first, second):
    """One rejection round of ``normalvariate`` on each pair ``(first[i], second[i])``: every ``z`` and the indices
    of the accepted pairs, in order. Operations as CPython's, in its order (each is one IEEE-754 rounding, as in
    Python); ``-log(u2)`` from the array log, except near ``zz == -log(u2)``, where ``math.log`` decides.
    """
    u2 = 1.0 - second
    z = _NV_MAGICCONST * (first - 0.5) / u2
    zz = z * z / 4.0
    minus_log = -_array_log(u2)
    accept = zz <= minus_log
    near = np.abs(zz - minus_log) <= _BOUNDARY_MARGIN * minus_log
    for i in np.flatnonzero(near).tolist():
        accept[i] = float(zz[i]) <= -math.log(float(u2[i]))
    return z, np.flatnonzero(accept)
