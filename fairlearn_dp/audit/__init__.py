"""Empirical privacy audits: lower confidence bounds on the epsilon a DP estimator actually provides.

An audit fits an estimator many times on two neighbouring datasets ``D`` and ``D'`` with fresh noise, counts how
often one event ``E`` holds for the released outcome, and uses that every (epsilon, delta)-DP mechanism has
``P[M(D) in E] <= e^epsilon P[M(D') in E] + delta``: exact Clopper-Pearson bounds on the two frequencies turn the
counts into a lower confidence bound on epsilon (:func:`epsilon_lower_bound`), and the audit fails when that bound
exceeds the declared epsilon. It can only ever show a LOWER bound: passing does not prove the estimator private
(a bug may show only on other datasets, other neighbours or other events), it only fails to find a violation.
The event, fixed before the runs, determines the power: an event on which the privacy-loss ratio is large and the
probabilities are not tiny (for the Laplace mechanism, thresholds at one dataset's true values on the cells that
change) gives bounds close to the true epsilon, a poorly chosen event gives bounds near 0 even for a broken
mechanism.

Failure paths are outputs: with ``audit(..., fit_failures="output")`` a fit that raises is an outcome
(``FitFailure``), and :class:`FitFailed` is the event "the fit raised", so a fit that succeeds on one neighbour
and fails on the other is flagged like any other leak. ``_reproducibility.audit_unseeded_reproducibility`` checks that
``random_state=None`` does not draw from numpy's (or Python's) global generator, which anyone can seed.

Public here are the audit and its result, the bound and the event every audit can use (:class:`FitFailed`); the
events of a release (``_events.CellEvent`` for a Laplace release, ``_events.ThresholdEvent`` for a Gaussian one, and
those specific to one estimator's release, which audit cases build), the reproducibility check (``_reproducibility.audit_unseeded_reproducibility``, a maintainers' tool) and the
Clopper-Pearson helper are internal (``_events``, ``_audit``, ``_bounds``).

This package is generic: it knows no estimator. The default cases of fairdp's registered estimators (each row's
neighbouring datasets and most powerful event) and ``audit_registered`` are test-support code of the source
checkout (``tests/audit_cases.py``), which ``fairdp audit`` loads from a clone.
"""

from ._audit import AuditResult, audit
from ._bounds import epsilon_lower_bound
from ._events import FitFailed

__all__ = [
    "epsilon_lower_bound",
    "AuditResult",
    "audit",
    "FitFailed",
]
