"""Allocation of a budget in proportion to private counts (Zhu, Fioretto & Van Hentenryck 2022, Sec. 7-8).

Every mechanism maps noisy counts ``x~`` to an allocation on the probability simplex (shares of the budget) and
shares one interface: ``allocate(noisy)`` takes one vector or a 2-D batch (one draw per row) and returns shares of
the same shape. They only post-process released counts, so they cost no privacy.
"""

from __future__ import annotations

import numpy as np

from ._projections import _as_rows, project_simplex

__all__ = ["proportional_allocation", "AllocationMechanism", "BaselineAllocation", "ProjectionOntoSimplexAllocation",
           "CostOfPrivacyAllocation", "check_weights"]


def check_weights(weights, n):
    """Allocation weights ``a_i``: ``None`` means all 1; otherwise ``n`` finite values > 0."""
    if weights is None:
        return np.ones(n)
    arr = np.asarray(weights, dtype=float).ravel()
    if arr.size != n:
        raise ValueError(f"weights has {arr.size} entries but there are {n} entities (length mismatch).")
    if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError("weights must be finite and > 0.")
    return arr


def proportional_allocation(counts, weights=None):
    """``P^F(x)_i = a_i x_i / sum_j a_j x_j`` (the Title I formula), for one vector or a batch of rows.

    Rows whose weighted total is not positive have no proportional allocation; they get ``nan`` (callers decide
    how to handle them, see the mechanisms).
    """
    arr, _ = _as_rows(counts, "counts")
    weighted = arr * check_weights(weights, arr.shape[-1]) if weights is not None else arr.copy()
    total = weighted.sum(axis=-1, keepdims=True)
    positive = total > 0
    if positive.all():
        weighted /= total
        return weighted
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(positive, weighted / np.where(positive, total, 1.0), np.nan)


class AllocationMechanism:
    """Base class: ``allocate(noisy) -> shares`` on the simplex, batched over rows.

    Parameters
    ----------
    weights : array-like of shape (n,) or None
        The formula's weights ``a_i`` (public), all 1 when None.
    """

    name = "base"

    def __init__(self, weights=None):
        self.weights = weights

    def allocate(self, noisy):
        arr, single = _as_rows(noisy, "noisy")
        rows = np.atleast_2d(arr)
        out = self._allocate(rows, check_weights(self.weights, rows.shape[1]))
        return out[0] if single else out

    def _allocate(self, rows, weights):
        raise NotImplementedError

    def __call__(self, noisy):
        return self.allocate(noisy)

    def __repr__(self):
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
    """

    name = "BL"

    def _allocate(self, rows, weights):
        return _uniform_where_undefined(proportional_allocation(np.maximum(rows, 0.0), weights))


class ProjectionOntoSimplexAllocation(AllocationMechanism):
    """``pi_PoS`` (Definition 4): project ``P^F(x~)`` onto the simplex.

    The unique optimum of ``min_{v in simplex} max_i (v - P^F(x~))_i - min_i (v - P^F(x~))_i`` (program P_alpha,
    Theorem 2) and an optimum of the cost-of-privacy program P_CoP (Theorem 3). If ``sum_j a_j x~_j <= 0`` then
    ``P^F(x~)`` is undefined and the budget is split uniformly (documented choice).
    """

    name = "PoS"

    def _allocate(self, rows, weights):
        proportional = proportional_allocation(rows, weights)
        defined = np.all(np.isfinite(proportional), axis=1)
        out = np.full_like(rows, 1.0 / rows.shape[1])
        if defined.any():
            out[defined] = project_simplex(proportional[defined])
        return out


class CostOfPrivacyAllocation(AllocationMechanism):
    """``pi*_CoP`` (program P_CoP): ``argmin_{v in simplex} ||v - P^F(x~)||_1``, solved as an LP with cvxpy.

    Theorem 3 says ``pi_PoS`` attains this optimum (and ``pi_BL`` too when ``sum_j a_j x~_j > 0``); this mechanism
    solves the program directly, one draw at a time, to check that claim and for users who want the LP's own
    solution. Much slower than the closed-form mechanisms: use it on small instances.
    """

    name = "CoP"

    def __init__(self, weights=None, solver="HIGHS"):
        super().__init__(weights)
        self.solver = solver

    def _allocate(self, rows, weights):
        import cvxpy as cp

        proportional = proportional_allocation(rows, weights)
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
