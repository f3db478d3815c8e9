"""DP census release and fair allocation (Zhu, Fioretto & Van Hentenryck, IJCAI 2022).

Release counts privately (:func:`release_counts`, diffprivlib; it returns a :class:`CountRelease` that records the
neighbouring relation: add/remove with sensitivity 1 by default, substitution with sensitivity 2 when the total is
declared a public invariant with ``invariant_total=True``), post-process them by projection
(:func:`project_sum` = pi_S, :func:`project_nonnegative_sum` = pi_S+, :func:`project_with_invariants` for declared
linear invariants), allocate a budget in proportion to them with the mechanisms BL, PoS and CoP (one interface:
``allocate(noisy)``), and measure what post-processing does to each entity: a vectorised, chunked, parallel
Monte-Carlo engine (:func:`monte_carlo`, simulation only) and exact values where they exist (Theorem 1 bounds,
Proposition 2, positive-part biases). Metrics (alpha-fairness, cost of privacy) are in :mod:`fairlearn_dp.metrics`.
"""

from ._evaluation import (
    MonteCarloResult,
    NegativePartOfSumProjection,
    NonNegativeSumProjection,
    ProjectionShift,
    bias,
    monte_carlo,
    positive_part_bias,
    proposition2_integral,
    sum_projection_positive_part_bias,
    theorem1_bounds,
)
from ._mechanisms import (
    AllocationMechanism,
    BaselineAllocation,
    CostOfPrivacyAllocation,
    ProjectionOntoSimplexAllocation,
    proportional_allocation,
)
from ._projections import project_nonnegative_sum, project_simplex, project_sum, project_with_invariants
from ._release import COUNT_SENSITIVITY, CountRelease, GaussianNoise, LaplaceNoise, count_sensitivity, release_counts

__all__ = [
    "release_counts", "CountRelease", "count_sensitivity", "COUNT_SENSITIVITY", "LaplaceNoise", "GaussianNoise",
    "project_sum", "project_nonnegative_sum", "project_simplex", "project_with_invariants",
    "proportional_allocation", "AllocationMechanism", "BaselineAllocation", "ProjectionOntoSimplexAllocation",
    "CostOfPrivacyAllocation",
    "monte_carlo", "MonteCarloResult", "bias", "NonNegativeSumProjection",
    "NegativePartOfSumProjection", "ProjectionShift", "positive_part_bias", "sum_projection_positive_part_bias",
    "proposition2_integral", "theorem1_bounds",
]
