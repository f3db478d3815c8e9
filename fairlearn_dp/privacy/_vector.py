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
  ``rng.standard_normal(2 m)``, the same legacy polar-method stream as ``2 m`` scalar calls. Secure: the stdlib
  ``normalvariate`` (Kinderman-Monahan, the sampler diffprivlib calls) ``2 m`` times, on a ``SystemRandom`` whose
  ``random()`` serves the batched secure uniforms above; then the formula elementwise.

So a seeded release is the per-cell release, value for value (the same seed gives the same numbers as before this
module existed), and ``random_state=None`` keeps diffprivlib's cryptographically secure source (the OS CSPRNG,
never numpy's or Python's global generator) and the exact distribution of each draw: the uniforms are the same
53-bit grid with the same construction, only fetched with one system call per batch instead of one per uniform.
Parameters are checked once per call with the mechanism's own ``_check_all`` (not once per cell). Nothing here
charges an accountant: the release functions that call it charge once per release, as before.

The secure Gaussian is the one path still drawn variate by variate: the stdlib ``normalvariate`` is a rejection
sampler in Python with no array form, and the rule for release noise (DESIGN.md, "Two paths for noise") forbids
writing our own (numpy) normal sampler. With the parameter checks and the per-uniform system calls gone it costs
about 1-2 us a cell (tests/benchmarks/bench_noise.py: 0.4-0.8 s for 4x10^5 cells against 3.5-5 s for
``randomise``; the Laplace and seeded paths take 0.01-0.09 s). Alternatives weighed:

- OpenDP's vector Gaussian (``make_gaussian`` on ``vector_domain(atom_domain(T=float))``, opendp 0.16.0): an exact
  discrete-Gaussian sampler in Rust, but measured here at ~20 s for 4x10^5 cells at its default granularity
  ``2^-1074`` (5-8 s at coarser grids, which also need a fixed vector length and weaken the privacy map), and
  263 MB installed (the wheel is ~47 MB): slower than diffprivlib's scalar loop, so no optional extra. Its vector
  Laplace (~9 s per 4x10^5) is no faster either.
- Box-Muller, inverse-CDF or numpy ``Generator`` normals on secure bits: a sampler of our own, ruled out above.

Large releases in this package are Laplace (the fair-regression joint histogram, the threshold-optimizer tables,
the exponentiated-gradient oracle statistics at ``delta = 0``); Gaussian releases (zCDP estimators, ``delta > 0``)
are mostly small vectors (the group-budget regressor: ~11 coordinates a release).
"""

from __future__ import annotations

import itertools
import math
import os
import random

import numpy as np
from diffprivlib.mechanisms import Gaussian, GaussianAnalytic, Laplace

__all__ = ["randomise_vector"]

# Mechanisms whose ``randomise`` this module reproduces. Exact types: subclasses (LaplaceTruncated, LaplaceFolded,
# LaplaceBoundedDomain, ...) override ``randomise`` with other distributions and are refused.
_LAPLACE = (Laplace,)
_GAUSSIAN = (Gaussian, GaussianAnalytic)

_RECIP_BPF = 2.0 ** -53            # random.RECIP_BPF: SystemRandom.random() = (56 random bits >> 3) * 2**-53
_CHUNK_CELLS = 1 << 16             # cells per batch of secure Laplace uniforms (bounds the temporary memory)
_UNIFORMS_PER_CELL_GAUSSIAN = 6    # normalvariate reads 2 / 0.73 ~ 2.74 uniforms a normal, two normals a cell
_MAX_GAUSSIAN_BATCH = 1 << 18      # uniforms per os.urandom read for the secure Gaussian


def randomise_vector(mechanism, values):
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
        source = _BatchedSystemRandom(min(_MAX_GAUSSIAN_BATCH, _UNIFORMS_PER_CELL_GAUSSIAN * m + 64))
        # SystemRandom.normalvariate(source) with its defaults (mu=0.0, sigma=1.0) returns the same z as
        # randomise's normalvariate(0, 1); map over one repeated instance is the cheapest Python loop for it.
        normals = np.fromiter(map(random.SystemRandom.normalvariate, itertools.repeat(source, 2 * m)),
                              dtype=float, count=2 * m)
    else:
        normals = rng.standard_normal(2 * m)
    pairs = normals.reshape(m, 2)
    standard_normal = (pairs[:, 0] + pairs[:, 1]) / np.sqrt(2)
    return flat + standard_normal * mechanism._scale


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


class _BatchedSystemRandom(random.SystemRandom):
    """A ``SystemRandom`` whose ``random()`` serves :func:`_secure_uniforms` batches of ``batch`` uniforms.

    Every other method is SystemRandom's (here only ``normalvariate``, which reads ``self.random``). The uniforms
    are those ``SystemRandom.random()`` would return (same bits, same construction, fresh OS randomness), fetched
    ``batch`` at a time; one instance serves one release and is then dropped with any unread uniforms.
    """

    def __init__(self, batch):
        super().__init__()
        if batch < 1 or not math.isfinite(batch):
            raise ValueError(f"batch must be a positive integer, got {batch!r}.")
        batches = iter(lambda: _secure_uniforms(int(batch)).tolist(), None)   # endless: a list is never None
        self.random = itertools.chain.from_iterable(batches).__next__
