"""Monte-Carlo audit of a DP estimator: fit it many times on two neighbouring datasets and count one event."""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from ._bounds import epsilon_lower_bound

__all__ = ["AuditResult", "audit"]


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    epsilon_lower_bound : float
        Lower confidence bound on the epsilon actually provided (0.0 when no positive bound is supported).
    declared_epsilon : float
        The epsilon the estimator claims.
    declared_delta : float
        The delta the estimator claims (used in the bound).
    passed : bool
        ``epsilon_lower_bound <= declared_epsilon``: the audit found no violation. This does NOT prove privacy.
    hits : tuple of int
        ``(hits on D, hits on D')``: runs whose fitted object satisfied the event.
    n_runs : int
        Fits on each dataset.
    event : str
        Description of the event tested.
    confidence : float
        Confidence level of the lower bound.
    """

    epsilon_lower_bound: float
    declared_epsilon: float
    declared_delta: float
    passed: bool
    hits: tuple
    n_runs: int
    event: str
    confidence: float


def audit(estimator_factory, dataset, neighbour, *, event, n_runs, declared_epsilon, declared_delta=0.0,
          confidence=0.95, random_state=None, n_jobs=None):
    """Empirically audit the privacy of an estimator's fit on one pair of neighbouring datasets.

    Fits ``estimator_factory(seed)`` on ``dataset`` and on ``neighbour`` ``n_runs`` times each, every fit with its
    own seed (all ``2 n_runs`` seeds distinct, drawn from ``numpy.random.SeedSequence(random_state)``), counts
    how often ``event`` holds for the fitted object, and turns the two counts into a lower confidence bound on
    epsilon with :func:`epsilon_lower_bound`. The audit fails when that bound exceeds ``declared_epsilon``.

    Parameters
    ----------
    estimator_factory : callable
        ``estimator_factory(seed)`` returns a fresh, unfitted estimator whose noise is seeded by ``seed`` and
        which charges a fresh accountant (e.g. ``diffprivlib.BudgetAccountant()``), so runs are independent and
        no accountant runs out of budget.
    dataset, neighbour : dict
        Keyword arguments of ``fit`` for the two neighbouring datasets (e.g. ``X``, ``y``, ``sensitive_features``;
        ``dataset_true`` / ``dataset_pred`` for an AIF360 transformer). They must be neighbours under the
        estimator's declared neighbouring relation, otherwise the bound means nothing.
    event : callable
        ``event(fitted) -> bool``, a test on the released attributes of the fitted object. It must be fixed before
        the runs (not chosen from their results). Its ``description`` attribute (or its docstring, or its repr)
        describes it in the result.
    n_runs : int
        Fits on each dataset, >= 1.
    declared_epsilon : float
        The epsilon the estimator claims, > 0.
    declared_delta : float, default=0.0
        The delta it claims, in [0, 1).
    confidence : float, default=0.95
        Confidence of the lower bound, in (0, 1).
    random_state : None, int or numpy.random.SeedSequence, default=None
        Entropy of the seeds; an int makes the audit reproducible.
    n_jobs : int or None, default=None
        None runs in this process; otherwise the runs are split into chunks run through :class:`joblib.Parallel`
        (so a Dask or Ray backend can take them). The result does not depend on ``n_jobs``.

    Returns
    -------
    AuditResult

    Notes
    -----
    Warnings raised inside the fits (e.g. noise-driven slack or empty-group warnings at the small sizes audits
    use) are silenced; exceptions are not.
    """
    if isinstance(n_runs, bool) or not isinstance(n_runs, numbers.Integral) or n_runs < 1:
        raise ValueError(f"n_runs must be a positive integer, got {n_runs!r}.")
    if (isinstance(declared_epsilon, bool) or not isinstance(declared_epsilon, numbers.Real)
            or not declared_epsilon > 0):
        raise ValueError(f"declared_epsilon must be > 0, got {declared_epsilon!r}.")
    if not callable(estimator_factory) or not callable(event):
        raise TypeError("estimator_factory and event must be callable.")
    if not isinstance(dataset, dict) or not isinstance(neighbour, dict):
        raise TypeError("dataset and neighbour must be dicts of fit keyword arguments.")
    n_runs = int(n_runs)
    seeds = _distinct_seeds(random_state, 2 * n_runs)
    seeds_d, seeds_d_prime = seeds[:n_runs], seeds[n_runs:]
    if n_jobs is None:
        hits_d = _count_hits(estimator_factory, dataset, event, seeds_d)
        hits_d_prime = _count_hits(estimator_factory, neighbour, event, seeds_d_prime)
    else:
        from joblib import Parallel, delayed

        n_chunks = max(1, min(n_runs, 4 * abs(int(n_jobs)) if n_jobs != -1 else 16))
        tasks = [(fit_kwargs, chunk) for fit_kwargs, part in ((dataset, seeds_d), (neighbour, seeds_d_prime))
                 for chunk in np.array_split(part, n_chunks)]
        counts = Parallel(n_jobs=n_jobs)(delayed(_count_hits)(estimator_factory, fit_kwargs, event, chunk)
                                         for fit_kwargs, chunk in tasks)
        hits_d, hits_d_prime = sum(counts[:n_chunks]), sum(counts[n_chunks:])
    bound = epsilon_lower_bound(hits_d, hits_d_prime, n_runs, confidence=confidence, delta=declared_delta)
    return AuditResult(epsilon_lower_bound=bound, declared_epsilon=float(declared_epsilon),
                       declared_delta=float(declared_delta), passed=bool(bound <= declared_epsilon),
                       hits=(int(hits_d), int(hits_d_prime)), n_runs=n_runs, event=_describe(event),
                       confidence=float(confidence))


def _count_hits(estimator_factory, fit_kwargs, event, seeds):
    """Fit one fresh estimator per seed and count the fitted objects that satisfy ``event``."""
    hits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in seeds:
            fitted = estimator_factory(int(seed))
            fitted.fit(**fit_kwargs)
            hits += bool(event(fitted))
    return hits


def _distinct_seeds(random_state, count):
    """``count`` distinct 32-bit seeds from ``SeedSequence(random_state)``, in a reproducible order."""
    sequence = random_state if isinstance(random_state, np.random.SeedSequence) else np.random.SeedSequence(
        random_state)
    seeds = []
    seen = set()
    draw = count
    while len(seeds) < count:
        for seed in sequence.generate_state(draw, dtype=np.uint32):
            if seed not in seen:
                seen.add(seed)
                seeds.append(int(seed))
        # On a (rare) collision, draw a longer stream from the same sequence; seeds already taken are skipped.
        draw *= 2
    return np.array(seeds[:count], dtype=np.int64)


def _describe(event):
    """``event.description``, else a function's docstring, else its repr."""
    description = getattr(event, "description", None)
    if description:
        return str(description)
    doc = getattr(event, "__doc__", None)
    if doc and doc is not getattr(type(event), "__doc__", None):
        return " ".join(doc.split())
    return repr(event)
