"""Monte-Carlo audit of a DP estimator: fit it many times on two neighbouring datasets and count one event."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from .._utils._progress import progress_bar, show_progress
from .._utils._validation import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_real,
    validate_params,
    value_errors,
)
from ..exceptions import UtilityWarning, warn
from ._bounds import epsilon_lower_bound
from ._events import FitFailure

__all__ = ["AuditResult", "audit", "check_fit_kwargs"]


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
    failures : tuple of int
        ``(failed fits on D, failed fits on D')``; always ``(0, 0)`` with ``fit_failures="raise"``.

    Examples
    --------
    Audit a DP post-processor on two datasets that differ in one person's group (30 fits on each):

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.audit import audit
    >>> from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
    >>> def factory(seed):
    ...     return DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0.0, 1.0), n_bins=4, groups=[0, 1],
    ...                                          accountant=BudgetAccountant(), random_state=seed)
    >>> scores = ((np.arange(20) % 4 + 0.5) / 4)[:, None]
    >>> groups = np.arange(20) % 2
    >>> neighbour = groups.copy()
    >>> neighbour[0] = 1
    >>> def event(fitted):
    ...     return bool(fitted.noisy_joint_pmf_[0, 0] >= 3 / 20)
    >>> result = audit(factory, {"X": scores, "sensitive_features": groups},
    ...                {"X": scores, "sensitive_features": neighbour}, event=event, n_runs=30, declared_epsilon=1.0,
    ...                random_state=0)
    >>> result.passed, result.n_runs, result.declared_epsilon, result.failures
    (True, 30, 1.0, (0, 0))
    """

    epsilon_lower_bound: float
    declared_epsilon: float
    declared_delta: float
    passed: bool
    hits: tuple
    n_runs: int
    event: str
    confidence: float
    failures: tuple = (0, 0)


def audit(estimator_factory: Callable[[int], Any], dataset: dict[str, Any], neighbour: dict[str, Any], *,
          event: Callable[[Any], bool], n_runs: int, declared_epsilon: float, declared_delta: float = 0.0,
          confidence: float = 0.95, random_state: int | np.random.SeedSequence | None = None,
          n_jobs: int | None = None, fit_failures: str = "raise", progress: bool | None = None) -> AuditResult:
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
        ``event(outcome) -> bool``, a test on the outcome of one fit: the fitted object (its released attributes)
        or, with ``fit_failures="output"``, a ``FitFailure`` when ``fit`` raised (:class:`FitFailed` tests
        that; the built-in attribute events are ``False`` on a failure). It must be fixed before the runs (not
        chosen from their results). Its ``description`` attribute (or its docstring, or its repr) describes it in
        the result.
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
        None runs in this process; otherwise the runs are split into chunks run through ``joblib.Parallel``
        (so a Dask or Ray backend can take them). The result does not depend on ``n_jobs``.
    fit_failures : {"raise", "output"}, default="raise"
        What a fit that raises an :class:`Exception` is. "raise": an error of the audit setup, re-raised. "output":
        an observable outcome like any other release -- whether a fit succeeds, and what its error says, may depend
        only on public inputs and released values, so a fit that fails on one neighbour and not on the other is a
        leak. The event then receives a ``FitFailure`` (exception class and message) for that run, and the
        result counts the failures. Exceptions of the factory (building the estimator) and of the event always
        propagate; a :class:`~fairlearn_dp.exceptions.UtilityWarning` says when every fit on both datasets failed
        (then only failures were audited, usually a broken setup).
    progress : bool or None, default=None
        Show a tqdm progress bar over the ``2 n_runs`` fits (per chunk with ``n_jobs``); None shows it only when
        standard error is a terminal. It does not change the result.

    Returns
    -------
    AuditResult

    Notes
    -----
    Warnings raised inside the fits (e.g. noise-driven slack or empty-group warnings at the small sizes audits
    use) are silenced; exceptions propagate unless ``fit_failures="output"``.
    """
    validate_params(SimpleNamespace(n_runs=n_runs, declared_epsilon=declared_epsilon,
                                    estimator_factory=estimator_factory, event=event, dataset=dataset,
                                    neighbour=neighbour, fit_failures=fit_failures, progress=progress),
                    _AUDIT_PARAMETERS)
    observe = fit_failures == "output"
    n_runs = int(n_runs)
    seeds = _distinct_seeds(random_state, 2 * n_runs)
    seeds_d, seeds_d_prime = seeds[:n_runs], seeds[n_runs:]
    with progress_bar(show_progress(progress), total=2 * n_runs, desc="privacy audit", unit="fit") as bar:
        if n_jobs is None:
            tick = None if bar is None else bar.update
            hits_d, failures_d = _count_hits(estimator_factory, dataset, event, seeds_d, observe, tick)
            hits_d_prime, failures_d_prime = _count_hits(estimator_factory, neighbour, event, seeds_d_prime,
                                                         observe, tick)
        else:
            from joblib import Parallel, delayed

            n_chunks = max(1, min(n_runs, 4 * abs(int(n_jobs)) if n_jobs != -1 else 16))
            tasks = [(fit_kwargs, chunk) for fit_kwargs, part in ((dataset, seeds_d), (neighbour, seeds_d_prime))
                     for chunk in np.array_split(part, n_chunks)]
            results = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_count_hits)(estimator_factory, fit_kwargs, event, chunk, observe)
                for fit_kwargs, chunk in tasks)
            counts = []
            for (_, chunk), count in zip(tasks, results, strict=False):     # joblib yields in task order
                counts.append(count)
                if bar is not None:
                    bar.update(len(chunk))
            hits_d, failures_d = map(sum, zip(*counts[:n_chunks], strict=False))
            hits_d_prime, failures_d_prime = map(sum, zip(*counts[n_chunks:], strict=False))
    if observe and failures_d == failures_d_prime == n_runs:
        warn(f"Every fit failed on both datasets ({n_runs} runs each): the audit tested only the failure "
             "outcome; check the factory and the fit arguments.", UtilityWarning)
    bound = epsilon_lower_bound(hits_d, hits_d_prime, n_runs, confidence=confidence, delta=declared_delta)
    return AuditResult(epsilon_lower_bound=bound, declared_epsilon=float(declared_epsilon),
                       declared_delta=float(declared_delta), passed=bool(bound <= declared_epsilon),
                       hits=(int(hits_d), int(hits_d_prime)), n_runs=n_runs, event=_describe(event),
                       confidence=float(confidence), failures=(int(failures_d), int(failures_d_prime)))


_FIT_FAILURES = ("raise", "output")


def check_fit_kwargs(value, name, *, allow_none=False):
    """``dataset`` / ``neighbour``: a dict of ``fit`` keyword arguments (None passes with ``allow_none``)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, dict):
        raise TypeError(f"dataset and neighbour must be dicts of fit keyword arguments"
                        f"{' (neighbour may be None)' if allow_none else ''}; {name} is a {type(value).__name__}.")
    return value


#: :func:`audit`'s parameters, checked in this order before any fit (the audit's documented error for a bad count or
#: epsilon, of whatever type, is a ``ValueError``).
_AUDIT_PARAMETERS = {
    "n_runs": value_errors(functools.partial(check_int, low=1)),
    "declared_epsilon": value_errors(functools.partial(check_real, low=0.0, low_open=True, allow_inf=True)),
    "estimator_factory": check_callable,
    "event": check_callable,
    "dataset": check_fit_kwargs,
    "neighbour": check_fit_kwargs,
    "fit_failures": functools.partial(check_choice, options=_FIT_FAILURES),
    "progress": functools.partial(check_bool, allow_none=True),
}


def _count_hits(estimator_factory, fit_kwargs, event, seeds, observe_failures=False, tick=None):
    """Fit one fresh estimator per seed; count the outcomes that satisfy ``event`` and the fits that raised (an
    outcome, a ``FitFailure``, when ``observe_failures``; otherwise the exception propagates). ``tick(1)``,
    if given, is called after each fit (the progress bar).
    """
    hits = failures = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in seeds:
            estimator = estimator_factory(int(seed))
            try:
                estimator.fit(**fit_kwargs)
                outcome = estimator
            except Exception as error:
                if not observe_failures:
                    raise
                outcome = FitFailure(type(error), str(error))
                failures += 1
            hits += bool(event(outcome))
            if tick is not None:
                tick(1)
    return hits, failures


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
