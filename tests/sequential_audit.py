"""The long audits as a group-sequential test: the fixed 5,000-run test's error rates, fewer runs on average.

The long audit of a registry row (``test_every_registry_row_passes_a_long_audit``) used to fit ``N = 5000`` times on
each neighbour and fail when the lower confidence bound on epsilon (:func:`fairlearn_dp.audit.epsilon_lower_bound`, at
95%) exceeded the declared epsilon. Its power against a given violation follows from the row's event probabilities
``(p, p')`` (``event.expected_probabilities``: known exactly for every row). This module runs the same audit in
looks of :data:`LOOKS` runs per neighbour (cumulative), and decides at each look:

- **violation** (the audit fails) when the lower bound at confidence ``1 - alpha_k`` exceeds the declared epsilon.
  The ``alpha_k`` (:data:`EARLY_ALPHA` at each early look, the rest of :data:`ALPHA` at the last) add up to
  ``ALPHA = 0.05``, the fixed test's level: the probability of a false violation is at most 0.05 (a union bound over
  the looks), as before.
- **pass early** (at a look before the last) when an upper confidence bound on the event's privacy loss, at
  confidence ``1 - TOTAL_EARLY_BETA / 4`` (four early looks), is at most ``epsilon + Delta``, and the lower bound
  already exceeds the row's minimum where the test requires one (the check that the event is informative).
  ``Delta`` is the row's *design alternative*: the smallest violation (event loss ``epsilon + Delta``) that the
  fixed 5,000-run test detects with probability :data:`DESIGN_POWER`. A mechanism whose event loss is ``epsilon +
  Delta`` or more passes early with probability at most ``TOTAL_EARLY_BETA = 0.01`` over all early looks (the upper
  bounds' coverage), so the sequential test detects it with probability at least the fixed test's power at
  ``alpha_K`` minus 0.01: the power at the design alternative is kept to within that stated 0.01. :func:`simulate`
  computes both tests' powers and the runs an exact mechanism takes by drawing the binomial counts (no fits):
  ``tests/benchmarks/bench_sequential_audit.py`` prints them per row, ``test_sequential_audit.py`` checks them.

What is not kept: against violations smaller than ``Delta`` the early pass lowers the power (the fixed test's
power there is below ``DESIGN_POWER`` too). The planted-bug tests (a halved or twentieth sensitivity) keep their
fixed run counts.

The loss of the event is ``ln((p - delta) / p')`` (or with the roles swapped), the quantity the lower bound bounds;
an alternative of loss ``epsilon + Delta`` keeps ``p`` and lowers ``p'`` to ``(p - delta) e^-(epsilon + Delta)``.
Each look's runs are a fresh :func:`~fairlearn_dp.audit.audit` call whose seeds come from a child of
``numpy.random.SeedSequence(random_state)`` (``spawn_key=(look,)``); seeds are distinct within a look, and a 32-bit
seed repeated across looks (probability about 1% over 10,000 seeds) would repeat one fit.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta, binom

from fairlearn_dp.audit import audit

#: Cumulative runs per neighbour at each look; the last is the fixed test's ``N``.
LOOKS = (625, 1250, 2500, 3750, 5000)
#: The fixed test's level: the probability of a false "violation".
ALPHA = 0.05
#: The level spent at each early look (the last look gets the rest of ``ALPHA``).
EARLY_ALPHA = 0.001
#: The probability, over all early looks, of passing early a mechanism whose event loss is ``epsilon + Delta`` or more.
TOTAL_EARLY_BETA = 0.01
#: ``Delta``: the violation the fixed ``N``-run test detects with this probability.
DESIGN_POWER = 0.98


def long_audit_minimum(name):
    """The lower bound registry row ``name``'s long audit must exceed (its event is informative); None: none."""
    # The zCDP rows' event has ln(p / p') ~ 0.11 at epsilon = 1 (see tests/audit_cases.py): the bound is
    # positive but small, far below the loose (epsilon, delta) conversion they declare. The exponential-mechanism
    # learner's event has ln(p / p') = 0.59 (two candidates cannot exceed ln((1 + e) / 2) = 0.62), Jagielski's
    # exponentiated gradient's ln(p / p') = 0.88 but probability 1/16 on D.
    from audit_cases import EXPONENTIAL_MECHANISM_ROWS, EXPONENTIATED_GRADIENT_ROWS, STATISTICS_GAME_ROWS, ZCDP_ROWS

    if name in STATISTICS_GAME_ROWS:
        # The statistics game's release: one count's shift of 1 under Gaussian noise of sigma ~14 (its share of
        # epsilon = 1): ln(p / p') ~ 0.07, which 5,000 runs cannot resolve from 0 at 95% confidence, so only "no
        # violation" is checked; the power of its audits is the planted-bug tests of its "gram" variant.
        return None
    if name in ZCDP_ROWS + EXPONENTIAL_MECHANISM_ROWS:
        return 0.0
    return 0.2 if name in EXPONENTIATED_GRADIENT_ROWS else 0.4


def look_alphas():
    """``alpha_k`` of each look: :data:`EARLY_ALPHA` at the early looks, the rest of :data:`ALPHA` at the last."""
    return (EARLY_ALPHA,) * (len(LOOKS) - 1) + (ALPHA - EARLY_ALPHA * (len(LOOKS) - 1),)


def early_beta():
    """The probability, per early look, of passing early a mechanism of event loss ``epsilon + Delta`` or more."""
    return TOTAL_EARLY_BETA / (len(LOOKS) - 1)


def _cp(hits, n, alpha):
    """Two-sided Clopper-Pearson bounds (``alpha / 2`` per tail), vectorised over ``hits`` (each distinct count's
    quantiles computed once)."""
    values, inverse = np.unique(np.asarray(hits, dtype=float), return_inverse=True)
    with np.errstate(invalid="ignore"):
        low = np.where(values > 0, beta.ppf(alpha / 2, values, n - values + 1), 0.0)
        high = np.where(values < n, beta.ppf(1 - alpha / 2, values + 1, n - values), 1.0)
    shape = np.shape(hits)
    return low[inverse].reshape(shape), high[inverse].reshape(shape)


def _loss_bounds(hits, hits_prime, n, *, confidence, delta):
    """``(lower, upper)`` confidence bounds on the event's loss ``max(ln((p - delta) / p'), ln((p' - delta) / p))``.

    The lower bound is :func:`fairlearn_dp.audit.epsilon_lower_bound`'s (four Clopper-Pearson bounds, each at
    ``1 - (1 - confidence) / 4`` per tail: Bonferroni over the two proportions), clipped at 0; the upper bound uses
    the same four bounds the other way round (``+inf`` when a lower proportion bound is 0). Vectorised.
    """
    alpha = (1 - confidence) / 2
    p_low, p_high = _cp(hits, n, alpha)
    q_low, q_high = _cp(hits_prime, n, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        lower = np.maximum(np.where((p_low - delta > 0) & (q_high > 0), np.log((p_low - delta) / q_high), 0.0),
                           np.where((q_low - delta > 0) & (p_high > 0), np.log((q_low - delta) / p_high), 0.0))
        lower = np.maximum(lower, 0.0)
        forward = np.where(p_high - delta > 0, np.log(np.maximum(p_high - delta, 1e-300) / q_low), -np.inf)
        backward = np.where(q_high - delta > 0, np.log(np.maximum(q_high - delta, 1e-300) / p_low), -np.inf)
    return lower, np.maximum(forward, backward)


def decide(hits, hits_prime, look, *, epsilon, delta, design_delta, minimum):
    """The decision at look index ``look`` for cumulative counts: ``"violation"``, ``"pass"`` or ``"continue"``.

    Vectorised over the counts (an array of decisions for arrays of counts).
    """
    n = LOOKS[look]
    lower, _ = _loss_bounds(hits, hits_prime, n, confidence=1 - look_alphas()[look], delta=delta)
    if look == len(LOOKS) - 1:
        return np.where(lower > epsilon, "violation", "pass")
    _, upper = _loss_bounds(hits, hits_prime, n, confidence=1 - early_beta(), delta=delta)
    early_pass = (upper <= epsilon + design_delta) & ((lower > minimum) if minimum is not None else True)
    return np.where(lower > epsilon, "violation", np.where(early_pass, "pass", "continue"))


def _alternative(p, p_prime, epsilon, delta, excess):
    """Event probabilities of a mechanism whose event loss is ``epsilon + excess``: ``p`` kept, ``p'`` lowered."""
    return p, (p - delta) * math.exp(-(epsilon + excess))


def simulate(p, p_prime, *, epsilon, delta, design_delta, minimum, n_sim=20000, seed=0):
    """Simulated operating characteristics of both tests for true event probabilities ``(p, p')``.

    Returns ``(fixed_violation_rate, sequential_violation_rate, expected_runs)``: how often each test reports a
    violation (its power, or for an exact mechanism its false-violation rate), and the mean runs per neighbour the
    sequential test takes. The binomial counts are drawn directly (no fits).
    """
    rng = np.random.default_rng(seed)
    steps = np.diff((0,) + LOOKS)
    draws = [rng.binomial(steps, q, size=(n_sim, len(steps))).cumsum(axis=1) for q in (p, p_prime)]
    fixed_lower, _ = _loss_bounds(draws[0][:, -1], draws[1][:, -1], LOOKS[-1], confidence=1 - ALPHA, delta=delta)
    fixed = float(np.mean(fixed_lower > epsilon))
    outcome = np.full(n_sim, "continue", dtype=object)
    runs = np.zeros(n_sim)
    for look in range(len(LOOKS)):
        open_ = outcome == "continue"
        decision = decide(draws[0][open_, look], draws[1][open_, look], look, epsilon=epsilon, delta=delta,
                          design_delta=design_delta, minimum=minimum)
        runs[open_] = LOOKS[look]
        outcome[open_] = decision
    return fixed, float(np.mean(outcome == "violation")), float(runs.mean())


def fixed_power(p, p_prime, *, epsilon, delta):
    """Exactly how often the fixed ``N``-run test reports a violation for event probabilities ``(p, p')``: the sum
    of the binomial probabilities of the count pairs whose lower bound (at ``1 - ALPHA``) exceeds ``epsilon`` (counts
    beyond 1e-12 of either tail left out)."""
    n = LOOKS[-1]
    support = [np.arange(binom.ppf(1e-12, n, q), binom.isf(1e-12, n, q) + 1) for q in (p, p_prime)]
    lower, _ = _loss_bounds(support[0][:, None], support[1][None, :], n, confidence=1 - ALPHA, delta=delta)
    return float(binom.pmf(support[0], n, p) @ (lower > epsilon) @ binom.pmf(support[1], n, p_prime))


@functools.lru_cache(maxsize=64)
def design_alternative(p, p_prime, *, epsilon, delta):
    """``Delta``: the smallest excess loss that the fixed ``N``-run test detects with probability
    :data:`DESIGN_POWER` (:func:`fixed_power`, bisection to 0.005)."""
    low, high = 0.0, 4.0
    while high - low > 0.005:
        middle = (low + high) / 2
        power = fixed_power(*_alternative(p, p_prime, epsilon, delta, middle), epsilon=epsilon, delta=delta)
        low, high = (middle, high) if power < DESIGN_POWER else (low, middle)
    return high


@dataclass(frozen=True)
class SequentialResult:
    """Outcome of :func:`sequential_audit`: the decision, the runs per neighbour it took and the final bounds."""

    passed: bool
    n_runs: int
    hits: tuple
    epsilon_lower_bound: float
    loss_upper_bound: float
    design_delta: float
    declared_epsilon: float
    declared_delta: float


def sequential_audit(case, *, random_state, minimum=None, design_delta=None):
    """Audit ``case`` (an ``AuditCase`` of ``tests/audit_cases.py``) in :data:`LOOKS` (see the module docstring).

    ``minimum``: the lower bound an early pass also needs (the event is informative); None for none. A failed fit
    is an outcome outside the event (``fit_failures="output"``, as ``audit_registered``).
    """
    p, p_prime = case.event.expected_probabilities
    epsilon, delta = case.declared_epsilon, case.declared_delta
    if design_delta is None:
        design_delta = design_alternative(p, p_prime, epsilon=epsilon, delta=delta)
    hits, done = np.zeros(2, dtype=int), 0
    for look, total in enumerate(LOOKS):
        result = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=total - done,
                       declared_epsilon=epsilon, declared_delta=delta, fit_failures="output",
                       random_state=np.random.SeedSequence(random_state, spawn_key=(look,)))
        hits += result.hits
        done = total
        decision = str(decide(hits[0], hits[1], look, epsilon=epsilon, delta=delta, design_delta=design_delta,
                              minimum=minimum))
        if decision != "continue":
            lower, upper = _loss_bounds(hits[0], hits[1], total, confidence=1 - look_alphas()[look], delta=delta)
            return SequentialResult(decision == "pass", total, (int(hits[0]), int(hits[1])), float(lower),
                                    float(upper), design_delta, epsilon, delta)
    raise AssertionError("the last look always decides")
