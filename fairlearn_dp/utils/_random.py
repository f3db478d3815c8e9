"""Random sources: ``random_state=None`` never means numpy's global generator.

Two kinds of randomness run in fairdp, and ``random_state=None`` must be unpredictable for both:

- Release noise (the DP mechanisms) is drawn by diffprivlib; with ``random_state=None`` its mechanisms use a
  cryptographically secure source (``secrets.SystemRandom``). :func:`release_seeds` keeps ``None`` as ``None`` so
  that path is preserved, and only derives reproducible per-stage seeds from an explicit seed.
- Non-release sampling (randomised predictions, public random hypothesis classes) uses numpy;
  :func:`check_random_state` returns a generator seeded from the operating system's entropy for ``None`` (numpy's
  ``SeedSequence()``), never the global ``np.random`` state, which any caller may have seeded (``np.random.seed(7)``
  would otherwise make two "unseeded" fits identical and their noise predictable).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state as _sklearn_check_random_state

__all__ = ["check_random_state", "release_seeds"]


def check_random_state(random_state):
    """A ``numpy.random.RandomState`` for non-release sampling; ``None`` gives one seeded from OS entropy.

    An int or a ``RandomState`` behave as in :func:`sklearn.utils.check_random_state` (same seed, same draws).
    """
    if random_state is None:
        return np.random.RandomState(np.random.MT19937(np.random.SeedSequence()))
    return _sklearn_check_random_state(random_state)


def release_seeds(random_state, count):
    """``count`` random states for independent release streams derived from one ``random_state``.

    ``None`` gives ``[None] * count`` (each diffprivlib mechanism then draws from its secure source); an int or a
    ``RandomState`` gives ``count`` reproducible ``RandomState`` objects, distinct per stream.
    """
    if random_state is None:
        return [None] * count
    seeds = _sklearn_check_random_state(random_state).randint(np.iinfo(np.int32).max, size=count)
    return [np.random.RandomState(int(seed)) for seed in seeds]
