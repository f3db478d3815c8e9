"""DP census release and fair allocation (Zhu, Fioretto & Van Hentenryck, IJCAI 2022).

Release counts privately (:func:`release_counts`, diffprivlib; it returns a ``CountRelease`` that records the
neighbouring relation: add/remove with sensitivity 1 by default, substitution with sensitivity 2 when the total is
declared a public invariant with ``invariant_total=True``), post-process them by projection
(:func:`project_nonnegative_sum` = pi_S+; the projection pi_S onto the sum alone and the cvxpy projection onto
declared linear invariants are internal, ``_projections.project_sum`` and ``_projections.project_with_invariants``,
the reproduction's and the tests' reference), allocate a budget in proportion to them with the mechanisms BL, PoS and CoP (one interface:
``allocate(noisy)``), and measure what post-processing does to each entity: a vectorised, chunked, parallel
Monte-Carlo engine (:func:`monte_carlo`, simulation only). The paper's exact values (Theorem 1 bounds,
Proposition 2, positive-part biases) are internal (``_evaluation``; the reproduction
``examples/zhu2022_allocation.py`` uses them). Metrics (alpha-fairness, cost of privacy) are in
:mod:`fairlearn_dp.metrics`.
"""

from ._evaluation import monte_carlo
from ._mechanisms import (
    BaselineAllocation,
    CostOfPrivacyAllocation,
    ProjectionOntoSimplexAllocation,
    proportional_allocation,
)
from ._projections import project_nonnegative_sum
from ._release import GaussianNoise, LaplaceNoise, release_counts

__all__ = [
    "release_counts", "LaplaceNoise", "GaussianNoise",
    "project_nonnegative_sum",
    "proportional_allocation", "BaselineAllocation", "ProjectionOntoSimplexAllocation", "CostOfPrivacyAllocation",
    "monte_carlo",
]
