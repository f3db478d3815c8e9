"""Failure paths are outputs: the audit observes fits that raise and flags a fit whose success depends on one record."""

import math
import warnings

import numpy as np
import pytest

from fairlearn_dp.audit import FitFailed, audit
from fairlearn_dp.audit._audit import AuditResult
from fairlearn_dp.audit._events import CellEvent, FitFailure
from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.privacy._release import release_laplace

GROUPS = (0, 1)


class _GroupCounts:
    """Toy DP estimator: releases each declared group's share of the rows with Laplace noise (epsilon-DP under
    substitution of one record's group: L1 sensitivity 2 / n, n public). A declared group with no rows is released
    like any other cell, so every dataset in the domain fits."""

    def __init__(self, epsilon=1.0, random_state=None):
        self.epsilon = epsilon
        self.random_state = random_state

    def _check(self, groups):
        if not np.isin(groups, GROUPS).all():
            raise ValueError("sensitive_features holds a group not in the declared groups.")

    def fit(self, X, *, sensitive_features):
        groups = np.asarray(sensitive_features)
        self._check(groups)
        n = groups.size
        shares = np.array([np.sum(groups == g) for g in GROUPS], dtype=float) / n
        self.noisy_shares_ = release_laplace(shares, epsilon=self.epsilon, l1_sensitivity=2.0 / n,
                                          random_state=self.random_state)
        return self


class _EmptyGroupRefuses(_GroupCounts):
    """BROKEN on purpose: refuses a dataset in which a declared group has no rows (before releasing anything), so
    whether the fit succeeds reveals whether the one member of a small group is in the data."""

    def _check(self, groups):
        super()._check(groups)
        if any(np.sum(groups == g) == 0 for g in GROUPS):
            raise ValueError("a declared group has no rows.")


class _MessageCountsRows(_GroupCounts):
    """BROKEN on purpose: both neighbours fail (an exhausted budget, say), but the message states a data count."""

    def _check(self, groups):
        raise ValueError(f"budget exhausted; group 1 has {np.sum(groups == 1)} rows.")


def _neighbours(n=20):
    """``D``: group 1 has exactly one member (record 0); ``D'``: that record substituted by one of group 0."""
    groups = np.zeros(n, dtype=int)
    groups[0] = 1
    groups_prime = np.zeros(n, dtype=int)
    X = np.zeros((n, 1))
    return {"X": X, "sensitive_features": groups}, {"X": X, "sensitive_features": groups_prime}


def _factory(cls):
    def factory(seed):
        return cls(epsilon=1.0, random_state=seed)

    return factory


def test_a_fit_that_fails_only_on_one_neighbour_is_flagged():
    """One member of group 1 on D, none on D': the broken estimator fits D and raises on D'. The failure event
    holds on every run on D' and never on D, so the bound is as large as the runs allow (ln of about n_runs)."""
    dataset, neighbour = _neighbours()
    result = audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=FitFailed(), n_runs=200,
                   declared_epsilon=1.0, random_state=0, fit_failures="output")
    assert isinstance(result, AuditResult)
    assert result.hits == (0, 200) and result.failures == (0, 200)
    assert not result.passed and result.epsilon_lower_bound > 3.5
    assert result.event == "the fit raised (Exception)"
    # More runs, larger bound: the true epsilon of "does the fit fail" is infinite here.
    more = audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=FitFailed(ValueError), n_runs=2000,
                 declared_epsilon=1.0, random_state=0, fit_failures="output")
    assert more.epsilon_lower_bound > result.epsilon_lower_bound + 2


def test_a_fit_that_releases_empty_groups_passes_the_failure_audit():
    dataset, neighbour = _neighbours()
    result = audit(_factory(_GroupCounts), dataset, neighbour, event=FitFailed(), n_runs=200, declared_epsilon=1.0,
                   random_state=0, fit_failures="output")
    assert result.passed and result.hits == (0, 0) and result.failures == (0, 0)
    assert result.epsilon_lower_bound == 0.0


def test_a_release_event_is_false_on_a_failure_so_a_failing_neighbour_moves_it():
    """The default events read released attributes; on a failed fit they are False, so a neighbour that fails also
    shows in an ordinary release event (here: group 1's noisy share at or above its true value on D)."""
    dataset, neighbour = _neighbours()
    event = CellEvent("noisy_shares_", lost=(1,), gained=(0,), threshold_lost=1 / 20, threshold_gained=19 / 20)
    assert event(FitFailure(ValueError, "no")) is False
    broken = audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=event, n_runs=400, declared_epsilon=1.0,
                   random_state=1, fit_failures="output")
    assert broken.hits[1] == 0 and not broken.passed
    correct = audit(_factory(_GroupCounts), dataset, neighbour, event=event, n_runs=400, declared_epsilon=1.0,
                    random_state=1, fit_failures="output")
    assert correct.passed and correct.hits[1] > 0


def test_error_messages_are_outputs_too():
    """Both neighbours fail, with messages that differ by one count: an event on the message flags it."""
    dataset, neighbour = _neighbours()

    def says_one_row(outcome):
        """the fit raised and its message says '1 rows'"""
        return isinstance(outcome, FitFailure) and "has 1 rows" in outcome.message

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)         # every fit fails: warned, see below
        result = audit(_factory(_MessageCountsRows), dataset, neighbour, event=says_one_row, n_runs=100,
                       declared_epsilon=1.0, random_state=0, fit_failures="output")
    assert result.failures == (100, 100) and result.hits == (100, 0) and not result.passed
    assert result.event == "the fit raised and its message says '1 rows'"


def test_every_fit_failing_is_warned_about():
    dataset, neighbour = _neighbours()
    with pytest.warns(UtilityWarning, match="Every fit failed on both datasets"):
        audit(_factory(_MessageCountsRows), dataset, neighbour, event=FitFailed(), n_runs=5, declared_epsilon=1.0,
              random_state=0, fit_failures="output")


def test_failures_raise_by_default_and_other_types_do_not_count():
    dataset, neighbour = _neighbours()
    with pytest.raises(ValueError, match="no rows"):
        audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=FitFailed(), n_runs=5, declared_epsilon=1.0,
              random_state=0)
    only_type_errors = audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=FitFailed(TypeError), n_runs=20,
                             declared_epsilon=1.0, random_state=0, fit_failures="output")
    assert only_type_errors.hits == (0, 0) and only_type_errors.failures == (0, 20)
    with pytest.raises(ValueError, match="fit_failures"):
        audit(_factory(_GroupCounts), dataset, neighbour, event=FitFailed(), n_runs=5, declared_epsilon=1.0,
              fit_failures="ignore")
    with pytest.raises(TypeError, match="exception_types"):
        FitFailed("ValueError")


def test_failure_audit_is_the_same_in_parallel_chunks():
    dataset, neighbour = _neighbours()
    kwargs = {"event": FitFailed(), "n_runs": 30, "declared_epsilon": 1.0, "random_state": 4, "fit_failures": "output"}
    assert (audit(_factory(_EmptyGroupRefuses), dataset, neighbour, **kwargs)
            == audit(_factory(_EmptyGroupRefuses), dataset, neighbour, n_jobs=1, **kwargs))


def test_failure_bound_grows_like_log_runs():
    """With a deterministic failure on one side, the bound is ln(p_low / p'_high) with Clopper-Pearson bounds at
    0 and n_runs hits: about ln(n_runs / ln(1 / alpha)), unbounded in n_runs (the true epsilon is infinite)."""
    from fairlearn_dp.audit._bounds import clopper_pearson

    dataset, neighbour = _neighbours()
    result = audit(_factory(_EmptyGroupRefuses), dataset, neighbour, event=FitFailed(), n_runs=200,
                   declared_epsilon=1.0, random_state=0, fit_failures="output")
    alpha = 0.05 / 2
    low, _ = clopper_pearson(200, 200, alpha)
    _, high = clopper_pearson(0, 200, alpha)
    assert result.epsilon_lower_bound == pytest.approx(math.log(low / high))
