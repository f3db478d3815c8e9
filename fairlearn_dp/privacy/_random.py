"""Random sources: ``random_state=None`` never means numpy's global generator.

Two kinds of randomness run in fairdp, and ``random_state=None`` must be unpredictable for both:

- Release noise (the DP mechanisms) is drawn by diffprivlib; with ``random_state=None`` its mechanisms use a
  cryptographically secure source (``secrets.SystemRandom``). :func:`release_seeds` keeps ``None`` as ``None`` so
  that path is preserved, and only derives reproducible per-stage seeds from an explicit seed.
- Non-release sampling (randomised predictions, public random hypothesis classes) uses numpy;
  :func:`check_random_state` returns a generator seeded from the operating system's entropy for ``None`` (numpy's
  ``SeedSequence()``), never the global ``np.random`` state, which any caller may have seeded (``np.random.seed(7)``
  would otherwise make two "unseeded" fits identical and their noise predictable).

Randomised predictions draw one uniform per row, in row order, from that generator (``random_sample(n)``). On Dask
inputs each partition starts from the generator advanced by the number of rows before it
(:func:`copy_random_state`, :func:`skip_draws`), so every row gets the same draw whatever the partitioning, and the
lazy predictions equal the in-memory ones.
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.utils import check_random_state as _sklearn_check_random_state

__all__ = ["check_random_state", "copy_random_state", "release_random_state", "release_seeds", "skip_draws"]


def check_random_state(random_state: int | np.random.RandomState | None) -> np.random.RandomState:
    """A ``numpy.random.RandomState`` for non-release sampling; ``None`` gives one seeded from OS entropy.

    An int or a ``RandomState`` behave as in :func:`sklearn.utils.check_random_state` (same seed, same draws).
    """
    if random_state is None:
        return np.random.RandomState(np.random.MT19937(np.random.SeedSequence()))
    return _sklearn_check_random_state(random_state)


def copy_random_state(random_state: int | np.random.RandomState | None) -> np.random.RandomState:
    """:func:`check_random_state` of ``random_state``, never the caller's own object: a ``RandomState`` passed in is
    copied (its state at this call), so drawing from the result does not advance it.
    """
    generator = check_random_state(random_state)
    return copy.deepcopy(generator) if generator is random_state else generator


#: Uniforms drawn at once (8 MiB) when a generator is advanced by many draws.
_SKIP_CHUNK = 1 << 20


def skip_draws(generator: np.random.RandomState, count: int) -> np.random.RandomState:
    """A copy of the ``RandomState`` ``generator`` advanced as if ``generator.random_sample(count)`` had been called.

    ``random_sample(a)`` then ``random_sample(b)`` draw exactly ``random_sample(a + b)``, for every bit generator, so
    the copy's next draws are draws ``count, count + 1, ...`` of the original stream. Costs ``count`` draws, in
    chunks of bounded memory; ``generator`` itself is not changed.
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ValueError(f"count must be a non-negative integer, got {count!r}.")
    advanced = copy.deepcopy(generator)
    for start in range(0, int(count), _SKIP_CHUNK):
        advanced.random_sample(min(_SKIP_CHUNK, int(count) - start))
    return advanced


def release_random_state(random_state: int | np.random.RandomState | None) -> np.random.RandomState | None:
    """The one random state of a fit's diffprivlib mechanisms: None stays None (each mechanism then uses
    diffprivlib's cryptographically secure generator); an int or a ``RandomState`` gives one shared, reproducible
    ``RandomState`` (scikit-learn's conversion: the caller's own object is used, not copied).
    """
    return None if random_state is None else _sklearn_check_random_state(random_state)


def release_seeds(random_state: int | np.random.RandomState | None,
                  count: int) -> list[np.random.RandomState | None]:
    """``count`` random states for independent release streams derived from one ``random_state``.

    ``None`` gives ``[None] * count`` (each diffprivlib mechanism then draws from its secure source); an int or a
    ``RandomState`` gives ``count`` reproducible ``RandomState`` objects, distinct per stream.
    """
    if random_state is None:
        return [None] * count
    seeds = _sklearn_check_random_state(random_state).randint(np.iinfo(np.int32).max, size=count)
    return [np.random.RandomState(int(seed)) for seed in seeds]
