"""The random sources live in :mod:`fairlearn_dp.privacy._random` (the privacy core); re-exported here for the
modules that import them from ``utils``.
"""

from ..privacy._random import check_random_state, copy_random_state, release_random_state, release_seeds, skip_draws

__all__ = ["check_random_state", "copy_random_state", "release_random_state", "release_seeds", "skip_draws"]
