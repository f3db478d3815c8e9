"""Empirical privacy audits: lower confidence bounds on the epsilon a DP estimator actually provides.

An audit fits an estimator many times on two neighbouring datasets ``D`` and ``D'`` with fresh noise, counts how
often one event ``E`` holds for the released (fitted) object, and uses that every (epsilon, delta)-DP mechanism has
``P[M(D) in E] <= e^epsilon P[M(D') in E] + delta``: exact Clopper-Pearson bounds on the two frequencies turn the
counts into a lower confidence bound on epsilon (:func:`epsilon_lower_bound`), and the audit fails when that bound
exceeds the declared epsilon. It can only ever show a LOWER bound: passing does not prove the estimator private
(a bug may show only on other datasets, other neighbours or other events), it only fails to find a violation.
The event, fixed before the runs, determines the power: an event on which the privacy-loss ratio is large and the
probabilities are not tiny (for the Laplace mechanism, thresholds at one dataset's true values on the cells that
change) gives bounds close to the true epsilon, a poorly chosen event gives bounds near 0 even for a broken
mechanism. :func:`default_audit_case` builds such an event for every row of :mod:`fairdp_adapters.registry` from
its declared neighbouring relation, and :func:`audit_registered` runs it; a new registry row without a default
case raises ``NotImplementedError``.
"""

from ._audit import AuditResult, audit
from ._bounds import clopper_pearson, epsilon_lower_bound
from ._registry_cases import AuditCase, audit_registered, default_audit_case

__all__ = [
    "clopper_pearson",
    "epsilon_lower_bound",
    "AuditResult",
    "audit",
    "AuditCase",
    "default_audit_case",
    "audit_registered",
]
