"""The exponential mechanism over a finite candidate set, drawn by diffprivlib (McSherry & Talwar 2007).

Costs are minimised: candidate ``i`` is drawn with probability ``exp(-epsilon * cost_i / (2 * sensitivity))``
normalised, which is diffprivlib's ``Exponential`` with utility ``-cost`` (non-monotonic utility).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from diffprivlib.mechanisms import Exponential
from numpy.typing import ArrayLike

__all__ = ["exponential_mechanism", "exponential_mechanism_probabilities", "exponential_mechanism_excess_cost"]


def _check(costs, epsilon, sensitivity):
    costs = np.asarray(costs, dtype=float).ravel()
    if costs.size == 0:
        raise ValueError("The candidate set (hypothesis class) is empty.")
    if not np.all(np.isfinite(costs)):
        raise ValueError("costs must be finite.")
    if not (isinstance(epsilon, numbers.Real) and epsilon > 0 and not math.isnan(epsilon)):
        raise ValueError(f"epsilon must be > 0, got {epsilon!r}.")
    if not (isinstance(sensitivity, numbers.Real) and math.isfinite(sensitivity) and sensitivity > 0):
        raise ValueError(f"sensitivity must be a finite number > 0, got {sensitivity!r}.")
    return costs


def exponential_mechanism_probabilities(costs: ArrayLike, *, epsilon: float, sensitivity: float) -> np.ndarray:
    """``exp(-epsilon * cost / (2 sensitivity))`` normalised (the argmin set, uniformly, when epsilon is inf)."""
    costs = _check(costs, epsilon, sensitivity)
    if math.isinf(epsilon):
        best = np.isclose(costs, costs.min(), rtol=0, atol=1e-12)
        return best / best.sum()
    logits = -float(epsilon) * (costs - costs.min()) / (2 * float(sensitivity))
    weights = np.exp(logits)
    return weights / weights.sum()


def exponential_mechanism(costs: ArrayLike, *, epsilon: float, sensitivity: float,
                          random_state: int | np.random.RandomState | None = None) -> int:
    """Index of the candidate drawn by the exponential mechanism (epsilon-DP for cost sensitivity ``sensitivity``).

    Drawn by ``diffprivlib.mechanisms.Exponential(epsilon, sensitivity, utility=-costs)``; ``epsilon = inf``
    returns the (first) minimiser with no noise (the non-private best response).
    """
    costs = _check(costs, epsilon, sensitivity)
    if math.isinf(epsilon):
        return int(np.argmin(costs))
    utility = (-(costs - costs.min())).tolist()
    mechanism = Exponential(epsilon=float(epsilon), sensitivity=float(sensitivity), utility=utility,
                            monotonic=False, random_state=random_state)
    return int(mechanism.randomise())


def exponential_mechanism_excess_cost(n_candidates: int, *, epsilon: float, sensitivity: float,
                                      probability: float) -> float:
    """The excess ``t`` of McSherry and Talwar's guarantee: the drawn candidate's cost exceeds the smallest cost by
    ``t`` or more with probability at most ``probability``, for every cost vector.

    Every candidate costing at least ``min + t`` has at most ``exp(-epsilon t / (2 sensitivity))`` times the
    minimiser's weight, and there are at most ``n_candidates - 1`` of them, so ``t = 2 sensitivity ln((n_candidates -
    1) / probability) / epsilon``; 0 for a single candidate or ``epsilon = inf`` (the minimiser is drawn). A function
    of public values and of the sensitivity only, so it may be published with the draw.
    """
    if n_candidates <= 1 or math.isinf(epsilon):
        return 0.0
    return max(0.0, 2.0 * float(sensitivity) * math.log((n_candidates - 1) / probability) / float(epsilon))
