"""Allocation of a budget in proportion to private counts (Zhu, Fioretto & Van Hentenryck 2022, Sec. 7-8).

Every mechanism maps noisy counts ``x~`` to an allocation on the probability simplex (shares of the budget) and
shares one interface: ``allocate(noisy)`` takes one vector or a 2-D batch (one draw per row) and returns shares of
the same shape. They only post-process released counts, so they cost no privacy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike

from .._utils._validation import as_real_array, check_bool, check_solver, validate_params
from ..privacy._projection import _nonnegative_sum_rows_summed
from ._projections import _as_rows, _nonnegative_sum_rows
from ._release import CountRelease

__all__ = ["proportional_allocation", "AllocationMechanism", "BaselineAllocation", "ProjectionOntoSimplexAllocation",
           "CostOfPrivacyAllocation", "check_weights"]


def check_weights(weights, n):
    """Allocation weights ``a_i``: ``None`` means all 1; otherwise ``n`` finite real numbers > 0 (1-D)."""
    if weights is None:
        return np.ones(n)
    arr = as_real_array(weights, "weights")
    if arr.ndim != 1:
        raise ValueError(f"weights must be a 1-D array with one weight per entity, got shape {arr.shape}.")
    if arr.size != n:
        raise ValueError(f"weights has {arr.size} entries but there are {n} entities (length mismatch).")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("weights must be finite and > 0.")
    return arr


def _proportional(rows, weights, *, in_place=False):
    """``P^F`` of each row of a 2-D batch (entries may be negative); ``nan`` rows where the weighted total <= 0.

    ``in_place=True`` writes into ``rows`` itself (the caller owns ``rows``). ``weights=None`` is unit weights.
    """
    return _proportional_and_totals(rows, weights, in_place=in_place)[0]


def _proportional_and_totals(rows, weights, *, in_place=False):
    """``(_proportional(rows, weights, in_place=in_place), weighted totals)``, the totals of shape ``(k, 1)``."""
    if weights is None or np.all(weights == 1.0):
        weighted = rows                              # unit weights: x * 1.0 is x, skip a pass
    else:
        weighted = np.multiply(rows, weights, out=rows if in_place else None)
    total = weighted.sum(axis=-1, keepdims=True)
    positive = total > 0
    if positive.all():
        return np.divide(weighted, total, out=weighted if in_place or weighted is not rows else None), total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(positive, weighted / np.where(positive, total, 1.0), np.nan), total


def proportional_allocation(counts: ArrayLike | CountRelease, weights: ArrayLike | None = None, *,
                            allow_negative: bool = False) -> np.ndarray:
    """``P^F(x)_i = a_i x_i / sum_j a_j x_j`` (the Title I formula), for one vector or a batch of rows.

    Parameters
    ----------
    counts : array-like of shape (n,) or (k, n), or CountRelease
        Counts (one vector per row): finite real numbers, non-negative unless ``allow_negative``.
    weights : array-like of shape (n,) or None, default=None
        The formula's weights ``a_i`` (finite, > 0); all 1 when None.
    allow_negative : bool, default=False
        Accept negative entries, as noisy counts ``x~`` have: ``P^F(x~)`` then sums to 1 but may lie off the
        simplex (the input that :class:`ProjectionOntoSimplexAllocation` projects). The allocation mechanisms are
        the way to allocate from noisy counts.

    Returns
    -------
    ndarray of the shape of ``counts``, each row summing to 1.

    Raises
    ------
    ValueError
        If an entry is negative (without ``allow_negative``) or a row's weighted total is not > 0 (all-zero
        counts, or noisy counts summing below 0): the formula is undefined there.
    """
    arr, single = _as_rows(counts, "counts")
    allow_negative = check_bool(allow_negative, "allow_negative")
    if not allow_negative and np.any(arr < 0):
        raise ValueError("counts must be non-negative (noisy counts: use an allocation mechanism, or "
                         "allow_negative=True for the raw formula P^F(x~)).")
    rows = np.atleast_2d(arr)
    shares = _proportional(rows, check_weights(weights, rows.shape[1]))
    if not np.all(np.isfinite(shares)):
        raise ValueError("counts must have a (weighted) total > 0 in every row: the proportional allocation of "
                         "all-zero counts (or of noisy counts summing to <= 0) is undefined.")
    return shares[0] if single else shares


class AllocationMechanism:
    """Base class: ``allocate(noisy) -> shares`` on the simplex, batched over rows.

    Parameters
    ----------
    weights : array-like of shape (n,) or None
        The formula's weights ``a_i`` (public), all 1 when None (checked against the number of entities when
        ``allocate`` sees it).
    """

    name = "base"
    #: ``{parameter name: check(value, name)}`` of the mechanism's other public parameters, run by
    #: :meth:`_check_public_parameters` (``weights`` is checked in ``allocate``: its length is the number of entities).
    _public_parameter_checks: ClassVar[dict[str, Callable[[Any, str], Any]]] = {}

    def __init__(self, weights: ArrayLike | None = None) -> None:
        self.weights = weights

    def _check_public_parameters(self):
        """Run the table ``_public_parameter_checks``; return ``{name: checked value}``."""
        return validate_params(self, self._public_parameter_checks)

    def allocate(self, noisy: ArrayLike | CountRelease) -> np.ndarray:
        """Shares on the simplex for one noisy vector (shape ``(n,)``) or a batch of them (one per row)."""
        arr, single = _as_rows(noisy, "noisy")
        rows = np.atleast_2d(arr)
        out = self._allocate(rows, check_weights(self.weights, rows.shape[1]))
        return out[0] if single else out

    def _allocate(self, rows, weights):
        raise NotImplementedError

    def __call__(self, noisy: ArrayLike | CountRelease) -> np.ndarray:
        """:meth:`allocate`."""
        return self.allocate(noisy)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(weights={'None' if self.weights is None else '...'})"


def _uniform_where_undefined(shares):
    undefined = ~np.all(np.isfinite(shares), axis=1)
    if undefined.any():
        shares = shares.copy()
        shares[undefined] = 1.0 / shares.shape[1]
    return shares


class BaselineAllocation(AllocationMechanism):
    """``pi_BL`` (Definition 3): take the positive part of the noisy counts, then apply ``P^F``.

    ``pi_BL(x~)_i = a_i (x~_i)_+ / sum_j a_j (x~_j)_+``. If every noisy count is <= 0 the formula is undefined; the
    budget is then split uniformly (a documented choice; the paper does not define this case).

    Examples
    --------
    Release the counts once, then allocate in proportion to the positive part of the noisy counts:

    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.allocation import BaselineAllocation, release_counts
    >>> release = release_counts([1200, 30, 8770], epsilon=1.0, accountant=BudgetAccountant(), random_state=0)
    >>> release.spend
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> shares = BaselineAllocation().allocate(release)
    >>> shares.shape, bool(abs(shares.sum() - 1) < 1e-12), bool(abs(shares[2] - 0.877) < 0.01)
    ((3,), True, True)
    >>> BaselineAllocation().allocate([10.0, -2.0, 30.0])   # a negative noisy count gets nothing
    array([0.25, 0.  , 0.75])
    """

    name = "BL"

    def _allocate(self, rows, weights):
        # An array of zeros, not the scalar 0.0: numpy's fast loop; the positive part is ours to divide in place.
        shares, total = _proportional_and_totals(np.maximum(rows, np.zeros(rows.shape[1])), weights, in_place=True)
        if np.all(total < np.inf) and np.all(total > 0):
            return shares       # entries >= 0, each <= its finite total > 0: every share is in [0, 1]
        return _uniform_where_undefined(shares)


class ProjectionOntoSimplexAllocation(AllocationMechanism):
    """``pi_PoS`` (Definition 4): project ``P^F(x~)`` onto the simplex.

    The unique optimum of ``min_{v in simplex} max_i (v - P^F(x~))_i - min_i (v - P^F(x~))_i`` (program P_alpha,
    Theorem 2) and an optimum of the cost-of-privacy program P_CoP (Theorem 3). If ``sum_j a_j x~_j <= 0`` then
    ``P^F(x~)`` is undefined and the budget is split uniformly (documented choice).

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.allocation import ProjectionOntoSimplexAllocation, release_counts
    >>> release = release_counts([1200, 30, 8770], epsilon=1.0, accountant=BudgetAccountant(), random_state=0)
    >>> shares = ProjectionOntoSimplexAllocation(weights=[1.0, 2.0, 1.0]).allocate(release)
    >>> shares.shape, bool(np.all(shares >= 0) and abs(shares.sum() - 1) < 1e-12)
    ((3,), True)
    >>> shares = ProjectionOntoSimplexAllocation().allocate([10.0, -2.0, 32.0])   # P^F = (0.25, -0.05, 0.8)
    >>> bool(np.allclose(shares, [0.225, 0.0, 0.775]))
    True
    """

    name = "PoS"

    def _allocate(self, rows, weights):
        proportional = _proportional(rows, weights)
        sums = proportional.sum(axis=1)
        if np.all(np.isfinite(sums)):     # a NaN or infinite share would make its row's sum one: all rows defined
            return _nonnegative_sum_rows_summed(proportional, 1.0, sums)
        defined = np.all(np.isfinite(proportional), axis=1)
        # project_simplex without its input checks: the defined rows are finite, the total is 1.
        if defined.all():
            return _nonnegative_sum_rows(proportional, 1.0)
        out = np.full_like(rows, 1.0 / rows.shape[1])
        if defined.any():
            out[defined] = _nonnegative_sum_rows(proportional[defined], 1.0)
        return out


def _batch_evaluator(statistic, n):
    """``(callable, trusted)`` for one statistic of ``monte_carlo`` on batches of ``n`` noisy counts. The built-in
    mechanisms BL and PoS (exactly these classes) are called through ``_allocate``, with their weights checked once
    a chunk instead of once a batch (their input, noise plus the checked counts, is finite by construction; unit
    weights are passed as None), and their output is trusted: shares, finite by construction, in a new array of
    their own (``monte_carlo`` may overwrite it). Any other statistic is called as given, its output to be checked.
    """
    if type(statistic) in (BaselineAllocation, ProjectionOntoSimplexAllocation):
        weights = check_weights(statistic.weights, n)
        return functools.partial(statistic._allocate, weights=None if np.all(weights == 1.0) else weights), True
    return statistic, False


class CostOfPrivacyAllocation(AllocationMechanism):
    """``pi*_CoP`` (program P_CoP): ``argmin_{v in simplex} ||v - P^F(x~)||_1``, solved as an LP with cvxpy.

    Theorem 3 says ``pi_PoS`` attains this optimum (and ``pi_BL`` too when ``sum_j a_j x~_j > 0``); this mechanism
    solves the program directly, one draw at a time, to check that claim and for users who want the LP's own
    solution. Much slower than the closed-form mechanisms: use it on small instances.

    Examples
    --------
    The LP may have several optima; each has the cost of ``pi_PoS``'s allocation (Theorem 3):

    >>> import numpy as np
    >>> from fairlearn_dp.allocation import CostOfPrivacyAllocation, ProjectionOntoSimplexAllocation
    >>> noisy = [10.0, -2.0, 32.0]                        # P^F(noisy) = (0.25, -0.05, 0.8)
    >>> shares = CostOfPrivacyAllocation(solver="HIGHS").allocate(noisy)
    >>> shares.shape, bool(abs(shares.sum() - 1) < 1e-6)
    ((3,), True)
    >>> cost = lambda v: np.abs(v - np.array([0.25, -0.05, 0.8])).sum()
    >>> bool(abs(cost(shares) - cost(ProjectionOntoSimplexAllocation().allocate(noisy))) < 1e-6)
    True
    """

    name = "CoP"
    _public_parameter_checks = {"solver": functools.partial(check_solver, own=None)}   # an installed cvxpy solver

    def __init__(self, weights: ArrayLike | None = None, solver: str = "HIGHS") -> None:
        super().__init__(weights)
        self.solver = solver
        self._check_public_parameters()                            # up front

    def _allocate(self, rows, weights):
        import cvxpy as cp

        self._check_public_parameters()                            # set after construction: checked before any solve
        proportional = _proportional(rows, weights)
        out = np.full_like(rows, 1.0 / rows.shape[1])
        n = rows.shape[1]
        target = cp.Parameter(n)
        v = cp.Variable(n, nonneg=True)
        problem = cp.Problem(cp.Minimize(cp.norm1(v - target)), [cp.sum(v) == 1])
        for r, p in enumerate(proportional):
            if not np.all(np.isfinite(p)):
                continue
            target.value = p
            problem.solve(solver=self.solver)
            if problem.status != cp.OPTIMAL:
                raise RuntimeError(f"P_CoP was not solved to optimality (status {problem.status!r}).")
            out[r] = np.clip(v.value, 0.0, None)
        return out
