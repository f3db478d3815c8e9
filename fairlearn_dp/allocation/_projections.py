"""Post-processing of noisy counts by projection (Zhu, Fioretto & Van Hentenryck 2022, Sec. 6).

All functions are batched: a 1-D input is one vector, a 2-D input holds one vector per row (e.g. one Monte-Carlo
draw per row), and the projection is applied row by row.

Which total? The sum constraint must use a PUBLIC total, or the projection publishes it exactly. Pass the
``CountRelease`` returned by :func:`~fairlearn_dp.allocation.release_counts` and the
total is taken from it: its public total when the release was made with ``invariant_total=True`` (substitution
neighbours, noise calibrated for sensitivity 2), otherwise the released total (the sum of the noisy counts, which
is post-processing). Giving ``public_total=`` next to an add/remove release is refused: the true total differs by
one between add/remove neighbours, so publishing it exactly is an epsilon = infinity release. For plain arrays
(simulation, or a total that is public by other means, e.g. released separately with its own budget) the caller
passes ``public_total=`` and thereby declares it public.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._utils._validation import as_real_array, check_real, check_solver
from ..privacy._projection import nonnegative_sum_rows as _nonnegative_sum_rows
from ..privacy._projection import project_onto_sum
from ._release import CountRelease

__all__ = ["project_sum", "project_nonnegative_sum", "project_simplex", "project_with_invariants"]

_ADD_REMOVE_TOTAL = (
    "public_total was given with a count release made under add/remove neighbours (invariant_total=False), whose "
    "true total is private: a total computed from the counts (e.g. x.sum()) differs by one between neighbouring "
    "datasets and would be published exactly (epsilon = infinity). Release with invariant_total=True if the total "
    "is a public invariant (noise calibrated for sensitivity 2), or omit public_total to use the released total "
    "(the sum of the noisy counts); a total public by other means (e.g. released with its own budget) can be "
    "passed with release.noisy.")


def _as_rows(values, name):
    if isinstance(values, CountRelease):
        values = values.noisy
    arr = as_real_array(values, name)
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector or a 2-D array with one vector per row.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr, arr.ndim == 1


def _check_total(total, name="public_total"):
    """A public total of counts: a finite real number >= 0 (a negative total would make the projections return
    negative counts).
    """
    total = check_real(total, name)
    if total < 0:
        raise ValueError(f"{name} must be >= 0 (a total of counts), got {total:g}.")
    return total


def _rows_and_total(noisy, public_total, *, required):
    """``(rows, single, total)``: the total from a ``CountRelease``, else the caller's public total."""
    if isinstance(noisy, CountRelease):
        if noisy.public_total is None:
            if public_total is not None:
                raise ValueError(_ADD_REMOVE_TOTAL)
            total = noisy.released_total
        else:
            total = noisy.public_total
            if public_total is not None and _check_total(public_total) != total:
                raise ValueError(f"public_total={public_total!r} contradicts the release's public total "
                                 f"{total:g} (invariant_total=True); omit public_total.")
        arr, single = _as_rows(noisy.noisy, "noisy")
        return arr, single, total
    arr, single = _as_rows(noisy, "noisy")
    if public_total is None:
        if required:
            raise TypeError("public_total is required when noisy is an array (pass the CountRelease from "
                            "release_counts to take the total from it).")
        return arr, single, None
    return arr, single, _check_total(public_total)


def project_sum(noisy: ArrayLike | CountRelease, *, public_total: float | None = None) -> np.ndarray:
    """``pi_S``: Euclidean projection onto ``{v : sum(v) = total}`` (Lemma 1).

    Closed form ``v_i = x~_i + (total - sum_j x~_j) / n``.

    Parameters
    ----------
    noisy : CountRelease or array-like of shape (n,) or (k, n)
        A release from :func:`release_counts` (the total is taken from it), or noisy vectors (one per row).
    public_total : float or None, default=None
        The total (a finite number >= 0), which must be PUBLIC (a published invariant, or a value released with its own
        budget; never a sum of private counts). Required for arrays. With a release: must agree with an invariant-total
        release's public total, and is refused with an add/remove release (whose projection uses the released total,
        i.e. returns the noisy counts unchanged).
    """
    arr, _, total = _rows_and_total(noisy, public_total, required=True)
    return project_onto_sum(arr, np.broadcast_to(total, arr.shape[:-1]), axis=-1)


def project_nonnegative_sum(noisy: ArrayLike | CountRelease, *, public_total: float | None = None) -> np.ndarray:
    """``pi_S+``: Euclidean projection onto ``{v >= 0 : sum(v) = total}`` (program P_S+, Lemma 2).

    Lemma 2: ``pi_S+(x~) = (pi_S(x~) - T)_+`` where the scalar ``T >= 0`` solves ``sum_i (pi_S(x~)_i - T)_+ =
    total``; equivalently ``(x~ - theta)_+`` with ``sum_i (x~_i - theta)_+ = total``. ``theta`` is found exactly by
    Michelot's (1986) active-set iteration, vectorised over rows: start from ``theta = (sum(x~) - total) / n``
    (that is, ``pi_S``), keep the entries above ``theta``, recompute ``theta = (sum of kept - total) / #kept`` and
    repeat until the kept set stops shrinking (at most ``n`` rounds; a handful in practice). ``O(n)`` per round, no
    sort.

    Parameters
    ----------
    noisy : CountRelease or array-like of shape (n,) or (k, n)
        A release from :func:`release_counts` (the total is taken from it: the public total of an
        ``invariant_total=True`` release, else the released total), or noisy vectors (one per row).
    public_total : float or None, default=None
        The total (> 0), which must be PUBLIC: see ``project_sum`` (this module). Required for arrays.
    """
    arr, single, total = _rows_and_total(noisy, public_total, required=True)
    if total <= 0:
        if isinstance(noisy, CountRelease) and noisy.public_total is None:
            raise ValueError("the released total (sum of the noisy counts) is not > 0: the non-negative projection "
                             "onto it is undefined.")
        raise ValueError(f"public_total must be > 0 for the non-negative projection, got {total}.")
    out = _nonnegative_sum_rows(np.atleast_2d(arr), total)
    return out[0] if single else out


def project_simplex(values: ArrayLike) -> np.ndarray:
    """Euclidean projection onto the probability simplex ``{v >= 0 : sum(v) = 1}`` (the PoS step, program P_PoS).

    The total 1 is a constant, so any vectors (a release, noisy counts or proportional shares) may be projected.
    """
    arr, _ = _as_rows(values, "values")
    return project_nonnegative_sum(arr, public_total=1.0)


def _check_constraint(matrix, vector, n, name, vector_name):
    if (matrix is None) != (vector is None):
        raise ValueError(f"{name} and {vector_name} must be given together.")
    if matrix is None:
        return None, None
    matrix = as_real_array(matrix, name)
    vector = as_real_array(vector, vector_name)
    matrix = np.atleast_2d(matrix) if matrix.ndim == 1 else matrix
    vector = np.atleast_1d(vector)
    if matrix.ndim != 2 or vector.ndim != 1 or matrix.shape != (vector.size, n):
        raise ValueError(f"{name} must have shape (len({vector_name}), n) = ({vector.size}, {n}), "
                         f"got {matrix.shape}.")
    if not (np.all(np.isfinite(matrix)) and np.all(np.isfinite(vector))):
        raise ValueError(f"{name} and {vector_name} must be finite.")
    return matrix, vector


def project_with_invariants(noisy: ArrayLike | CountRelease, *, public_total: float | None = None,
                            nonnegative: bool = True, A_eq: ArrayLike | None = None, b_eq: ArrayLike | None = None,
                            A_ub: ArrayLike | None = None, b_ub: ArrayLike | None = None,
                            solver: str | None = None) -> np.ndarray:
    """Euclidean projection of one vector onto a polyhedron of user-declared invariants, solved with cvxpy.

    ``{v : sum(v) = total (if any), v >= 0 (if nonnegative), A_eq v = b_eq, A_ub v <= b_ub}``; e.g. hierarchical
    invariants (county counts summing to published state totals) as rows of ``A_eq``. Returns the projection, or
    raises ``ValueError`` if the invariants are infeasible.

    Parameters
    ----------
    noisy : CountRelease or array-like of shape (n,)
        One release or vector. With a ``CountRelease`` the sum constraint is always present, with the total
        taken from it (as :func:`project_nonnegative_sum`).
    public_total : float or None, default=None
        For arrays, the PUBLIC total of the sum constraint (None: no sum constraint); see ``project_sum`` (this module).
    nonnegative : bool, default=True
    A_eq, b_eq, A_ub, b_ub : array-like or None
        Further invariants; their right-hand sides must be public too (published numbers, never sums of private
        counts under add/remove). Exact invariants beyond the total restrict the neighbouring relation further:
        the guarantee then covers only the moves of one person that keep them fixed.
    solver : str or None, default=None
        None uses OSQP with polishing and tight tolerances; any installed cvxpy solver name can be passed instead.

    Notes
    -----
    This is the general (slow) path: for the plain sum/non-negativity invariants use ``project_sum`` and
    :func:`project_nonnegative_sum`, which tests show agree with it.
    """
    import cvxpy as cp

    arr, single, total = _rows_and_total(noisy, public_total, required=False)
    if not single:
        raise ValueError("project_with_invariants projects one vector at a time (1-D noisy).")
    if not isinstance(nonnegative, (bool, np.bool_)):
        raise TypeError(f"nonnegative must be True or False, got {type(nonnegative).__name__}.")
    if solver is not None:
        check_solver(solver, own=None)                  # an installed cvxpy solver's name, before any solve
    equalities = _check_constraint(A_eq, b_eq, arr.size, "A_eq", "b_eq")
    inequalities = _check_constraint(A_ub, b_ub, arr.size, "A_ub", "b_ub")
    v = cp.Variable(arr.size)
    constraints = []
    if total is not None:
        constraints.append(cp.sum(v) == total)
    if nonnegative:
        constraints.append(v >= 0)
    if equalities[0] is not None:
        constraints.append(equalities[0] @ v == equalities[1])
    if inequalities[0] is not None:
        constraints.append(inequalities[0] @ v <= inequalities[1])
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
