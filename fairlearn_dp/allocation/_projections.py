"""Post-processing of noisy counts by projection (Zhu, Fioretto & Van Hentenryck 2022, Sec. 6).

All functions are batched: a 1-D input is one vector, a 2-D input holds one vector per row (e.g. one Monte-Carlo
draw per row), and the projection is applied row by row.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["project_sum", "project_nonnegative_sum", "project_simplex", "project_with_invariants"]


def _as_rows(values, name):
    arr = np.asarray(values, dtype=float)
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector or a 2-D array with one vector per row.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr, arr.ndim == 1


def _check_total(total):
    if isinstance(total, bool) or not isinstance(total, numbers.Real) or not np.isfinite(total):
        raise TypeError(f"total must be a finite number, got {total!r}.")
    return float(total)


def project_sum(noisy, total):
    """``pi_S``: Euclidean projection onto ``{v : sum(v) = total}`` (Lemma 1).

    Closed form ``v_i = x~_i + (total - sum_j x~_j) / n``.
    """
    arr, _ = _as_rows(noisy, "noisy")
    total = _check_total(total)
    return arr + (total - arr.sum(axis=-1, keepdims=True)) / arr.shape[-1]


def project_nonnegative_sum(noisy, total):
    """``pi_S+``: Euclidean projection onto ``{v >= 0 : sum(v) = total}`` (program P_S+, Lemma 2).

    Lemma 2: ``pi_S+(x~) = (pi_S(x~) - T)_+`` where the scalar ``T >= 0`` solves ``sum_i (pi_S(x~)_i - T)_+ =
    total``; equivalently ``(x~ - theta)_+`` with ``sum_i (x~_i - theta)_+ = total``. ``theta`` is found exactly by
    Michelot's (1986) active-set iteration, vectorised over rows: start from ``theta = (sum(x~) - total) / n``
    (that is, ``pi_S``), keep the entries above ``theta``, recompute ``theta = (sum of kept - total) / #kept`` and
    repeat until the kept set stops shrinking (at most ``n`` rounds; a handful in practice). ``O(n)`` per round, no
    sort. ``total`` must be > 0.
    """
    arr, single = _as_rows(noisy, "noisy")
    total = _check_total(total)
    if total <= 0:
        raise ValueError(f"total must be > 0 for the non-negative projection, got {total}.")
    rows = np.atleast_2d(arr)
    theta = (rows.sum(axis=1) - total) / rows.shape[1]
    kept = np.full(rows.shape[0], rows.shape[1])
    active = np.ones(rows.shape[0], dtype=bool)
    while active.any():
        sub = rows[active]
        above = sub > theta[active, None]
        count = above.sum(axis=1)
        theta[active] = (np.where(above, sub, 0.0).sum(axis=1) - total) / count
        changed = count != kept[active]
        kept[active] = count
        active[np.flatnonzero(active)[~changed]] = False
    out = np.maximum(rows - theta[:, None], 0.0)
    return out[0] if single else out


def project_simplex(values):
    """Euclidean projection onto the probability simplex ``{v >= 0 : sum(v) = 1}`` (the PoS step, program P_PoS)."""
    return project_nonnegative_sum(values, 1.0)


def project_with_invariants(noisy, *, total=None, nonnegative=True, A_eq=None, b_eq=None, A_ub=None, b_ub=None,
                            solver=None):
    """Euclidean projection of one vector onto a polyhedron of user-declared invariants, solved with cvxpy.

    ``{v : sum(v) = total (if given), v >= 0 (if nonnegative), A_eq v = b_eq, A_ub v <= b_ub}``; e.g. hierarchical
    invariants (county counts summing to published state totals) as rows of ``A_eq``. Returns the projection, or
    raises ``ValueError`` if the invariants are infeasible.

    This is the general (slow) path: for the plain sum/non-negativity invariants use :func:`project_sum` and
    :func:`project_nonnegative_sum`, which tests show agree with it. ``solver=None`` uses OSQP with polishing and
    tight tolerances; any installed cvxpy solver name can be passed instead.
    """
    import cvxpy as cp

    arr, single = _as_rows(noisy, "noisy")
    if not single:
        raise ValueError("project_with_invariants projects one vector at a time (1-D noisy).")
    v = cp.Variable(arr.size)
    constraints = []
    if total is not None:
        constraints.append(cp.sum(v) == _check_total(total))
    if nonnegative:
        constraints.append(v >= 0)
    for matrix, vector, equality, name in ((A_eq, b_eq, True, "A_eq"), (A_ub, b_ub, False, "A_ub")):
        if matrix is None:
            continue
        matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
        vector = np.atleast_1d(np.asarray(vector, dtype=float))
        if matrix.shape != (vector.size, arr.size):
            raise ValueError(f"{name} must have shape (len(b), n) = ({vector.size}, {arr.size}), got {matrix.shape}.")
        constraints.append(matrix @ v == vector if equality else matrix @ v <= vector)
    problem = cp.Problem(cp.Minimize(cp.sum_squares(v - arr)), constraints)
    if solver is None:
        # OSQP with solution polishing recovers the exact active set; cvxpy's default tolerances (and Clarabel's)
        # left errors up to ~1e-4 on these projections in our tests.
        problem.solve(solver="OSQP", eps_abs=1e-10, eps_rel=1e-10, polishing=True, max_iter=200_000)
    else:
        problem.solve(solver=solver)
    if problem.status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        raise ValueError("The declared invariants are infeasible.")
    if problem.status != cp.OPTIMAL:
        raise RuntimeError(f"The projection was not solved to optimality (status {problem.status!r}).")
    return np.asarray(v.value, dtype=float)
