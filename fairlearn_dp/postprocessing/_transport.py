"""What :class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` computes from its release alone: the
private group weights and PMFs (Xian et al. 2024, Alg. 1, lines 5-9), the row-normalised transport kernels of the
optimal couplings (line 12) and their CDFs for ``predict``'s inverse-CDF sampling.

All of it is post-processing of the released joint PMF; memory is linear in ``n_groups * n_bins``.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from ..exceptions import UtilityWarning, warn

__all__ = ["private_group_estimates"]

# _row_cumsum: rows still this many or more after a column pass are summed together in the next pass
_PASS_ROWS = 2048


def private_group_estimates(noisy_joint_pmf):
    """Private group weights and PMFs from the noisy joint PMF (Xian et al. 2024, Alg. 1, lines 5-9).

    For each group ``a``: ``w_a = max(sum_j p_check(a, v_j), 0)`` (line 6); scaled partial sums ``F_check(v_j) =
    (1/w_a) sum_{l <= j} p_check(a, v_l)`` (line 7); L-infinity isotonic regression ``G_j = (max_{l <= j}
    F_check_l + min_{r >= j} F_check_r) / 2`` clipped to [0, 1], with ``G_k = 1`` (line 8); and ``p_a(v_j) = G_j -
    G_{j-1}`` (line 9). A group whose noisy weight is not positive gets a uniform PMF (its weight is 0, so it does
    not move the barycenter), with a warning: the paper's division by ``w_a`` is undefined there.

    Returns
    -------
    weights : ndarray of shape (n_groups,)
    pmfs : ndarray of shape (n_groups, n_bins)
    """
    noisy = np.atleast_2d(np.asarray(noisy_joint_pmf, dtype=float))
    n_groups, n_bins = noisy.shape
    totals = noisy.sum(axis=1)
    weights = np.maximum(totals, 0.0)
    pmfs = np.full((n_groups, n_bins), 1.0 / n_bins)
    for a in range(n_groups):
        if weights[a] <= 0:
            warn(f"The noisy weight of group index {a} is not positive; its PMF is set to uniform.", UtilityWarning)
            continue
        partial = np.cumsum(noisy[a]) / weights[a]
        isotonic = 0.5 * (np.maximum.accumulate(partial) + np.minimum.accumulate(partial[::-1])[::-1])
        cdf = np.clip(isotonic, 0.0, 1.0)
        cdf[-1] = 1.0
        pmfs[a] = np.diff(cdf, prepend=0.0)
    return weights, pmfs


def _transport_kernels(couplings):
    """Row-normalised couplings: ``K[a k + j, l] = P(g_a(v_j) = v_l)`` (Alg. 1, line 12), identity rows where
    ``p_a(v_j) = 0`` (row mass <= 1e-15).

    ``couplings`` are the ``|A|`` sparse (k, k) couplings; returns one CSR array of shape (|A| k, k) with at most
    ``nnz + |A| k`` non-zeros, in ``O(|A| k)`` memory. A row's mass is its non-zeros summed left to right.
    """
    k = couplings[0].shape[1]
    n_rows = len(couplings) * k
    plans = sparse.vstack(couplings, format="csr")
    indptr = plans.indptr.astype(np.int64)
    counts = np.diff(indptr)
    row_of = np.repeat(np.arange(n_rows), counts)
    cumulative = _row_cumsum(plans.data, indptr)
    row_mass = np.zeros(n_rows)
    row_mass[counts > 0] = cumulative[indptr[1:][counts > 0] - 1]
    identity = row_mass <= 1e-15
    new_counts = np.where(identity, 1, counts)
    new_indptr = np.concatenate([[0], np.cumsum(new_counts)])
    data = np.empty(new_indptr[-1])
    columns = np.empty(new_indptr[-1], dtype=np.int64)
    kept = ~identity[row_of]                                  # entries of rows that are normalised, not replaced
    target = new_indptr[row_of[kept]] + (np.arange(indptr[-1])[kept] - indptr[row_of[kept]])
    data[target] = plans.data[kept] / row_mass[row_of[kept]]
    columns[target] = plans.indices[kept]
    identity_rows = np.flatnonzero(identity)
    data[new_indptr[identity_rows]] = 1.0
    columns[new_indptr[identity_rows]] = identity_rows % k
    return sparse.csr_array((data, columns, new_indptr), shape=(n_rows, k))


def _shifted_kernel_cdfs(kernels):
    """The kernels' CDFs for ``predict``'s single ``searchsorted``: for row ``r``, the value ``2r`` at column 0,
    then ``F_r(l) + 2r`` at each non-zero column ``l``, where ``F_r`` is the row's cumulative sum (left to right,
    as ``numpy.cumsum`` of the dense row, whose zeros add nothing). Returns (values, columns), ``nnz + |A| k``
    each.
    """
    n_rows = kernels.shape[0]
    indptr = kernels.indptr.astype(np.int64)
    counts = np.diff(indptr)
    shift = 2.0 * np.arange(n_rows)
    starts = indptr[:-1] + np.arange(n_rows)                  # position of row r's leading entry
    values = np.empty(indptr[-1] + n_rows)
    columns = np.zeros(values.size, dtype=np.int64)
    values[starts] = shift
    steps = np.repeat(starts + 1, counts) + (np.arange(indptr[-1]) - np.repeat(indptr[:-1], counts))
    values[steps] = _row_cumsum(kernels.data, indptr) + np.repeat(shift, counts)
    columns[steps] = kernels.indices
    return values, columns


def _row_cumsum(values, indptr):
    """Cumulative sums of ``values`` restarting at every row of a CSR layout, each summed left to right.

    One vectorised pass per column position ``t`` adds entry ``t`` of every row longer than ``t`` to the row's sum
    so far, while more than ``_PASS_ROWS`` rows are that long; the few longer rows are finished one by one with
    ``numpy.cumsum`` from their last computed sum. Every sum is the sequential sum of its row, bit for bit, in
    ``O(nnz)`` work.
    """
    result = np.empty(values.size)
    counts = np.diff(indptr)
    rows = np.flatnonzero(counts > 0)
    position = indptr[:-1][rows]
    result[position] = values[position]
    step = 1
    while rows.size > _PASS_ROWS:
        longer = counts[rows] > step
        rows, position = rows[longer], position[longer] + 1
        result[position] = result[position - 1] + values[position]
        step += 1
    for row, last in zip(rows.tolist(), position.tolist(), strict=True):
        end = int(indptr[row + 1])
        if end - last > 1:
            result[last:end] = np.cumsum(np.concatenate([result[last:last + 1], values[last + 1:end]]))
    return result
