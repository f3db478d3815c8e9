"""The objective of the private reductions: Fairlearn's ``ErrorRate``, with its public costs.

Fairlearn's ``ErrorRate(costs={"fp": c_FP, "fn": c_FN})`` is the objective ``c_FP P[h = 1, Y = 0] + c_FN P[h = 0,
Y = 1]`` (unit costs: the error rate); the cost of predicting 1 for row ``i`` is ``c_FP (1 - y_i) - c_FN y_i``
(the negative of its ``signed_weights``). The costs are public parameters.

Privacy. In the statistics game (:class:`~fairlearn_dp.reductions.DPExponentiatedGradient`) the costs only weigh
released values and public data: the Learner's cost vector (``(1 - y_i) c_FP - y_i c_FN`` over ``n``, plus the
constraint part) and the play's error
(``c_FP`` times the released label-0 sums of its predictions, plus ``c_FN`` times the released label-1 count
minus the released label-1 sums) are post-processing of the same releases as with unit costs; no release involves
a cost, so every sensitivity, under ``"sensitive_attribute"`` and under ``"record"``, is unchanged. Algorithm 3
(:class:`~fairlearn_dp.reductions.JagielskiExponentiatedGradient`) calibrates its Learner's noise to the unit-cost
error, so it has no objective.
"""

from __future__ import annotations

import math
import numbers

from fairlearn.reductions import ErrorRate

__all__ = ["objective_costs"]


def objective_costs(objective, *, allow_costs: bool) -> tuple[float, float]:
    """``(c_FP, c_FN)`` of ``objective`` (None: the error rate, ``(1.0, 1.0)``), checked as a public parameter.

    ``allow_costs=False`` (Algorithm 3) accepts unit costs only. Raises ``ValueError`` naming ``objective``.
    """
    if objective is None:
        return 1.0, 1.0
    if type(objective) is not ErrorRate or getattr(objective, "data_loaded", False):
        raise ValueError("objective: the private algorithm minimizes Fairlearn's ErrorRate (with costs); pass "
                         f"objective=None or a fresh ErrorRate(), got {objective!r}.")
    costs = (getattr(objective, "fp_cost", None), getattr(objective, "fn_cost", None))
    if not all(isinstance(c, numbers.Real) and not isinstance(c, bool) and math.isfinite(c) and c >= 0
               for c in costs) or sum(costs) <= 0:
        raise ValueError(f"objective: ErrorRate's costs must be finite numbers >= 0 with a positive sum, got "
                         f"fp={costs[0]!r}, fn={costs[1]!r}.")
    if not allow_costs and costs != (1.0, 1.0):
        raise ValueError("objective: Algorithm 3 minimizes the error rate only (its noise is "
                         "calibrated to unit costs); use DPExponentiatedGradient for ErrorRate(costs=...), or pass "
                         f"objective=None or ErrorRate() with unit costs, got fp={costs[0]!r}, fn={costs[1]!r}.")
    return float(costs[0]), float(costs[1])
