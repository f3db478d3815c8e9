"""The release of :class:`~fairlearn_dp.preprocessing.DPCorrelationRemover`: its bounded sufficient statistics, their
sensitivities under both privacy units, and the projection solved from the released values.

Layout of the released vector (``p`` sensitive columns ``s``, ``q`` other columns ``z``, each shifted by the centre
``c`` of its public interval and clipped to it, so that ``|s_j| <= r_j`` and ``|z_k| <= R_k`` with ``r``, ``R`` the
half-widths):

- ``sum_i s_i`` (``p`` entries);
- ``sum_i z_i`` (``q`` entries), under ``privacy_unit="record"`` only (under ``"sensitive_attribute"`` the other
  columns are public and their sums are computed exactly);
- the upper triangle, diagonal included, of ``sum_i s_i s_i^T`` (``p (p + 1) / 2`` entries, row by row);
- ``sum_i s_i z_i^T`` (``p q`` entries, row by row).

The shift by the public centres changes neither the covariances nor the projection (both are invariant under adding
a constant to a column), and it halves the largest value a square or product can take. The derivations are on
docs/privacy_analysis/correlation_remover.md.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

__all__ = ["Layout", "sufficient_statistics", "sensitivities", "solve_projection", "eigen_floor"]

# The noise's spectral norm on a p x p symmetric matrix of i.i.d. entries of sd sigma is about 2 sqrt(p) sigma
# (the semicircle law's edge); directions of the released covariance below 3 sqrt(p) sigma are treated as noise.
_NOISE_EDGE = 3.0
# With shrink=True, a coefficient within this many of its (approximate) noise standard deviations of 0 is set to 0.
_SHRINK_SDS = 3.0


class Layout(NamedTuple):
    """The sizes of the released vector's blocks."""

    p: int
    q: int
    release_sums_z: bool

    def sizes(self):
        """``(sum s, sum z, triangle of s s^T, s z^T)`` block lengths."""
        return self.p, self.q if self.release_sums_z else 0, self.p * (self.p + 1) // 2, self.p * self.q


def sufficient_statistics(S, Z, layout):
    """The exact released vector of centred, clipped ``S`` (n x p) and ``Z`` (n x q), and the exact ``sum z``."""
    upper = np.triu_indices(layout.p)
    gram = (S.T @ S)[upper]
    cross = (S.T @ Z).ravel()
    sums_z = Z.sum(axis=0)
    blocks = [S.sum(axis=0), sums_z if layout.release_sums_z else np.empty(0), gram, cross]
    return np.concatenate(blocks), sums_z


def _diagonal_term(r, slope):
    """``max over d in [0, 2 r] of d (slope + 2 r - d)``: one sensitive column's sum, square and products, moved
    together (Lemma 1 of the privacy-analysis page).
    """
    d = min(2.0 * r, (slope + 2.0 * r) / 2.0)
    return d * (slope + 2.0 * r - d)


def sensitivities(r, R, privacy_unit, row_bound=None, reach=None):
    """``(L1, L2)`` sensitivity of the released vector for half-widths ``r`` (sensitive) and ``R`` (other columns);
    with a public ``row_bound`` on the L1 norm of a row's other columns, :func:`_row_bounded_sensitivities`.

    ``"sensitive_attribute"``: one row's ``s`` changes, its ``z`` is fixed (and public). Moving ``s_j`` by ``d_j``
    moves ``sum s_j`` by ``d_j``, ``s_j^2`` by ``d_j (s_j + s'_j)`` (at most ``d_j (2 r_j - d_j)``) and each
    ``s_j z_k`` by at most ``d_j R_k``; an off-diagonal product ``s_j s_k`` moves by at most its range ``2 r_j r_k``.
    ``"record"``: the whole row changes; every entry moves by at most its range (``2 r_j``, ``2 R_k``, ``r_j^2``,
    ``2 r_j r_k``, ``2 r_j R_k``). L2: the root of the sum of the squared ranges, under both units.
    """
    r, R = np.asarray(r, dtype=float), np.asarray(R, dtype=float)
    if row_bound is not None:
        return _row_bounded_sensitivities(r, R, privacy_unit, row_bound, reach)
    off = [2.0 * r[j] * r[k] for j in range(r.size) for k in range(j + 1, r.size)]
    cross = np.outer(2.0 * r, R).ravel()
    if privacy_unit == "record":
        ranges = np.concatenate([2.0 * r, 2.0 * R, r ** 2, off, cross])
        return float(ranges.sum()), float(np.sqrt(np.sum(ranges ** 2)))
    slope = 1.0 + float(R.sum())
    l1 = sum(_diagonal_term(rj, slope) for rj in r) + float(np.sum(off))
    ranges = np.concatenate([2.0 * r, r ** 2, off, cross])
    return float(l1), float(np.sqrt(np.sum(ranges ** 2)))


def _row_bounded_sensitivities(r, R, privacy_unit, row_bound, reach):
    """``(L1, L2)`` when every row's other columns ``z`` (not shifted) satisfy ``||z||_1 <= row_bound`` and
    ``|z_k| <= reach_k``, ``R_k`` half the range of ``z_k`` (Lemma 3 of the privacy-analysis page).

    A row's cross entries ``s_j z`` move together: by ``d_j ||z||_1`` (attribute unit; L2 ``d_j ||z||_2``) or by at
    most ``r_j (||z||_1 + ||z'||_1)`` (record unit), so the row's norm replaces the sum of the columns' widths, and
    ``||z||_2 <= sqrt(||z||_inf ||z||_1)``; under the record unit ``sum z`` moves by at most
    ``min(sum 2 R, 2 row_bound)`` (L2: ``min(||2 R||_2, 2 sup ||z||_2)``).
    """
    reach = np.asarray(reach, dtype=float)
    off = np.array([2.0 * r[j] * r[k] for j in range(r.size) for k in range(j + 1, r.size)])
    width_1 = min(float(reach.sum()), row_bound)                 # sup ||z||_1
    # sup ||z||_2: ||z||_2^2 <= ||z||_inf ||z||_1 and ||z||_inf <= min(max reach, ||z||_1)
    width_2 = min(float(np.linalg.norm(reach)), math.sqrt(row_bound * min(float(reach.max()), row_bound)))
    cross_2 = float(np.sum((2.0 * r * width_2) ** 2))
    if privacy_unit == "record":
        sums_z_1 = min(float(np.sum(2.0 * R)), 2.0 * row_bound)
        sums_z_2 = min(float(np.linalg.norm(2.0 * R)), 2.0 * width_2)
        l1 = float(np.sum(2.0 * r) + sums_z_1 + np.sum(r ** 2) + off.sum() + np.sum(2.0 * r * width_1))
        l2 = math.sqrt(float(np.sum((2.0 * r) ** 2) + sums_z_2 ** 2 + np.sum(r ** 4) + np.sum(off ** 2)) + cross_2)
        return l1, l2
    l1 = sum(_diagonal_term(rj, 1.0 + width_1) for rj in r) + float(off.sum())
    l2 = math.sqrt(float(np.sum((2.0 * r) ** 2) + np.sum(r ** 4) + np.sum(off ** 2)) + cross_2)
    return float(l1), l2


def _split(released, layout):
    sizes = np.cumsum((0, *layout.sizes()))
    return [released[sizes[i]:sizes[i + 1]] for i in range(4)]


def eigen_floor(eigenvalues, n, noise_sd):
    """The smallest eigenvalue of the released covariance kept by the pseudo-inverse: round-off (``max(n, p)``
    machine epsilons of the largest, as ``numpy.linalg.lstsq``'s default cut-off) plus, for a noisy release, the
    noise's edge ``3 sqrt(p) noise_sd / n`` (a function of public inputs).
    """
    p = len(eigenvalues)
    top = max(float(np.max(np.abs(eigenvalues))), 0.0) if p else 0.0
    return max(n, p) * np.finfo(float).eps * top + _NOISE_EDGE * math.sqrt(p) * noise_sd / n


def shrink_within_noise(beta, inverse, mean_z, n, noise_sd):
    """``beta`` with the coefficients within ``3`` noise standard deviations of 0 set to 0: the noise of
    ``Cov(s, z)[j, k]`` (released ``sum s_j z_k / n - mean(s_j) mean(z_k)``) has sd about
    ``noise_sd sqrt(1 + mean(z_k)^2) / n``, and ``beta[j, k]`` about ``||inverse[j]||_2`` times that. A function of
    the released values and public inputs only (post-processing); nothing changes at ``noise_sd = 0``.
    """
    sd = np.outer(np.linalg.norm(inverse, axis=1), np.sqrt(1.0 + np.asarray(mean_z) ** 2)) * noise_sd / n
    return np.where(np.abs(beta) > _SHRINK_SDS * sd, beta, 0.0)


def solve_projection(released, sums_z, n, layout, noise_sd, shrink=False):
    """``(mean of s, beta, kept)`` from the released vector: the least-squares projection of ``z`` on the centred
    ``s``, ``beta = Cov(s)^+ Cov(s, z)``, with the pseudo-inverse over the eigen-directions of the released
    ``Cov(s)`` above :func:`eigen_floor` (negative ones, which noise can produce, included in the dropped);
    ``kept`` is the number of directions kept; ``shrink``: :func:`shrink_within_noise`. Post-processing of the
    release and of public inputs only.
    """
    sum_s, released_sums_z, gram, cross = _split(released, layout)
    if layout.release_sums_z:
        sums_z = released_sums_z
    mean_s, mean_z = sum_s / n, sums_z / n
    matrix = np.zeros((layout.p, layout.p))
    matrix[np.triu_indices(layout.p)] = gram
    matrix = matrix + np.triu(matrix, 1).T
    cov_s = matrix / n - np.outer(mean_s, mean_s)
    cov_sz = cross.reshape(layout.p, layout.q) / n - np.outer(mean_s, mean_z)
    eigenvalues, vectors = np.linalg.eigh(cov_s)
    keep = eigenvalues > eigen_floor(eigenvalues, n, noise_sd)
    inverse = (vectors[:, keep] / eigenvalues[keep]) @ vectors[:, keep].T
    beta = inverse @ cov_sz
    if shrink:
        beta = shrink_within_noise(beta, inverse, mean_z, n, noise_sd)
    return mean_s, beta, int(keep.sum())
