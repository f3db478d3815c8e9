"""Audit of ``random_state=None``: an unseeded fit must not be reproducible from numpy's (or Python's) global seed."""

from __future__ import annotations

import functools
import math
import random
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._utils._validation import check_callable, check_int, validate_params, value_errors
from ._audit import check_fit_kwargs
from ._events import released_attribute

__all__ = ["ReproducibilityResult", "audit_unseeded_reproducibility"]


@dataclass(frozen=True)
class ReproducibilityResult:
    """Outcome of :func:`audit_unseeded_reproducibility`.

    Attributes
    ----------
    passed : bool
        No released statistic was reproduced: for every global seed, the two unseeded fits released different
        values of every statistic.
    statistics : tuple of str
        The statistics compared (dotted attribute paths, or the callables' descriptions).
    global_seeds : tuple of int
        The seeds given to ``np.random.seed`` and ``random.seed`` before each fit.
    identical : tuple of tuple of bool
        ``identical[i][j]``: statistic ``i`` took the same value in the two fits on ``dataset`` after global seed
        ``global_seeds[j]``.
    distinguishes_neighbours : tuple of tuple of bool or None
        With a ``neighbour``: ``[i][j]`` is True when statistic ``i`` was identical on ``dataset`` after seed ``j``
        and the fit on ``neighbour`` after the same seed released another value -- an observer who knows the seed
        then tells the two datasets apart with certainty. None without a neighbour.
    epsilon_lower_bound : float
        ``inf`` when a statistic was reproduced (and, with a neighbour, told the neighbours apart): the noise is a
        function of a seed anyone can set, so it protects nothing; ``0.0`` otherwise (this check is not a
        statistical bound: passing shows only that the global generators do not drive the noise).
    """

    passed: bool
    statistics: tuple
    global_seeds: tuple
    identical: tuple
    distinguishes_neighbours: tuple | None
    epsilon_lower_bound: float


def audit_unseeded_reproducibility(factory_unseeded: Callable[[], Any], dataset: dict[str, Any],
                                   neighbour: dict[str, Any] | None = None, *,
                                   statistics: str | Callable[[Any], Any] | Sequence[str | Callable[[Any], Any]],
                                   global_seeds: Sequence[int] = (0, 1, 2)) -> ReproducibilityResult:
    """Check that an estimator built with ``random_state=None`` does not draw its noise from a global generator.

    A DP estimator's noise must be unpredictable. One that draws from numpy's global generator when
    ``random_state=None`` is not: after ``np.random.seed(s)`` -- which any library or user code may have called --
    its noise is a known function of ``s``, so its output reveals the data exactly (epsilon is infinite). For each
    global seed ``s`` this check sets ``np.random.seed(s)`` and ``random.seed(s)``, fits a fresh unseeded estimator
    on ``dataset``, sets the same seeds again and fits a second one, and flags every released statistic the two fits
    share. With a ``neighbour``, it also fits it after the same seeds, to show that a reproduced statistic tells the
    neighbours apart. The global generators' states are restored afterwards.

    Parameters
    ----------
    factory_unseeded : callable
        ``factory_unseeded()`` returns a fresh, unfitted estimator with ``random_state=None`` (``seed=None`` for an
        AIF360 face) and a fresh accountant.
    dataset : dict
        Keyword arguments of ``fit``.
    neighbour : dict or None, default=None
        Keyword arguments of ``fit`` for a neighbouring dataset (optional).
    statistics : str, callable or sequence of them
        Released statistics to compare: dotted attribute paths of the fitted object (``"noisy_joint_pmf_"``,
        ``"model_.history_.noisy_gradients"``) or callables ``statistic(fitted) -> array-like``. Choose
        continuous noisy values: two independent draws of one then practically never coincide, so a coincidence
        means the draws were not independent. (A statistic with few possible values, e.g. a selected index,
        coincides by chance.)
    global_seeds : sequence of int, default=(0, 1, 2)
        Seeds of the global generators, at least one.

    Returns
    -------
    ReproducibilityResult

    Notes
    -----
    Fits run with warnings silenced; exceptions propagate.
    """
    checked = validate_params(SimpleNamespace(factory_unseeded=factory_unseeded, dataset=dataset, neighbour=neighbour,
                                              statistics=statistics, global_seeds=global_seeds), _PARAMETERS)
    statistics, seeds = checked["statistics"], checked["global_seeds"]

    numpy_state, python_state = np.random.get_state(), random.getstate()
    identical = [[False] * len(seeds) for _ in statistics]
    distinguishes = [[False] * len(seeds) for _ in statistics] if neighbour is not None else None
    try:
        for j, seed in enumerate(seeds):
            first = _released_after_seed(factory_unseeded, dataset, statistics, int(seed))
            second = _released_after_seed(factory_unseeded, dataset, statistics, int(seed))
            other = (_released_after_seed(factory_unseeded, neighbour, statistics, int(seed))
                     if neighbour is not None else None)
            for i in range(len(statistics)):
                identical[i][j] = _same(first[i], second[i])
                if other is not None:
                    distinguishes[i][j] = identical[i][j] and not _same(first[i], other[i])
    finally:
        np.random.set_state(numpy_state)
        random.setstate(python_state)
    flagged = any(any(row) for row in identical)
    leak = any(any(row) for row in distinguishes) if distinguishes is not None else flagged
    return ReproducibilityResult(
        passed=not flagged, statistics=tuple(_describe(s) for s in statistics), global_seeds=tuple(map(int, seeds)),
        identical=tuple(map(tuple, identical)),
        distinguishes_neighbours=None if distinguishes is None else tuple(map(tuple, distinguishes)),
        epsilon_lower_bound=math.inf if leak else 0.0)


def _check_statistics(statistics, name):
    """``statistics`` as a non-empty tuple of dotted attribute paths and callables (one is a tuple of one)."""
    if isinstance(statistics, str) or callable(statistics):
        statistics = (statistics,)
    statistics = tuple(statistics)
    if not statistics or not all(isinstance(s, str) or callable(s) for s in statistics):
        raise TypeError(f"{name} must be a dotted attribute path, a callable or a non-empty sequence of them.")
    return statistics


_GLOBAL_SEED = value_errors(functools.partial(check_int, low=0, high=2 ** 32 - 1))


def _check_global_seeds(global_seeds, name):
    """``global_seeds`` as a non-empty tuple of ints in ``[0, 2**32)`` (``ValueError`` naming ``name``)."""
    seeds = tuple(global_seeds) if not isinstance(global_seeds, (str, bytes)) else ()
    if not seeds:
        raise ValueError(f"{name} must be a non-empty sequence of integers in [0, 2**32), got {global_seeds!r}.")
    return tuple(_GLOBAL_SEED(seed, name) for seed in seeds)


#: :func:`audit_unseeded_reproducibility`'s parameters, checked in this order before any fit.
_PARAMETERS = {
    "factory_unseeded": check_callable,
    "dataset": check_fit_kwargs,
    "neighbour": functools.partial(check_fit_kwargs, allow_none=True),
    "statistics": _check_statistics,
    "global_seeds": _check_global_seeds,
}


def _released_after_seed(factory, fit_kwargs, statistics, seed):
    """Seed numpy's and Python's global generators, fit a fresh unseeded estimator, read its statistics."""
    np.random.seed(seed)
    random.seed(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator = factory()
        estimator.fit(**fit_kwargs)
    return [np.asarray(s(estimator) if callable(s) else released_attribute(estimator, s), dtype=float).copy()
            for s in statistics]


def _same(a, b):
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def _describe(statistic):
    if isinstance(statistic, str):
        return statistic
    return str(getattr(statistic, "description", None) or getattr(statistic, "__name__", None) or repr(statistic))
