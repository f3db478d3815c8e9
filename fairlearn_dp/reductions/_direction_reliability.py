"""How much of each group's cost direction the least-squares Learner can trust (post-processing of releases).

The least-squares Learner of the statistics game (:mod:`fairlearn_dp.reductions._statistics_game`, used under
``privacy_unit="record"`` and with ``estimator=None``) best-responds to the multipliers ``lambda'`` with
``beta = (Phi^T Phi + ridge I)^{-1} (Phi^T (1 - 2y)/n + sum_{e,g} lambda'_eg D_eg)``, where each (event, group)
cell contributes its *direction* ``D_eg = S_eg / n_eg - S_e / n_e`` (the difference between the cell's and the
event's mean of ``phi = [x, 1]``, read off the released cell sums ``S``). Release noise of standard deviation
``sigma`` per coordinate of ``S`` puts noise of norm about ``sigma sqrt(L (d + 1)) / n_eg`` on ``D_eg`` (``L``
label cells summed): for a small group it swamps the direction. On Adult by race at epsilon = 1 under
``"record"`` (demographic parity, two groups of about 300 training rows, ``sigma`` = 76.5, 104 coordinates, seeds
0-4) the noise norm of their directions is 2.4-3.4 against a true direction of norm 0.26-0.56, and multipliers of
order 1 on those groups turned the plays into noise: the fit fell below the constant classifier (accuracy 0.686,
and 0.640 for equalized odds, against the constant classifier's 0.761).

The Learner therefore plays against ``kappa_eg lambda'_eg``, where ``kappa_eg`` is the positive-part James-Stein
factor of the direction, measured where it acts, on the Learner's predicted costs ``Phi beta``:

    ``kappa_eg = max(0, 1 - v_eg tr(M) / (D_eg^T M D_eg))``,  ``M = K^{-1} Gram_+ K^{-1}``,

with ``K`` the ridged matrix the Learner inverts, ``Gram_+`` the positive semi-definite part of the (released or
public) ``Phi^T Phi`` and ``v_eg`` the noise variance per coordinate of ``D_eg`` (:func:`direction_noise_variance`).
``D^T M D`` is the squared norm of the change that one unit of ``lambda'_eg`` makes to the predicted costs; its
expectation over the noise is the signal's plus ``v_eg tr(M)``. So ``kappa`` is the share of the direction's effect
that is signal: near 1 for a direction well above the noise, near 0 for a group whose released sums are mostly
noise, and 1 without noise. This equals replacing the indicator ``1[a_i = g]`` in the Learner's costs by
``(1 - kappa_g) n_g / n + kappa_g 1[a_i = g]`` (the group's share where its direction cannot be measured), as the
estimator Learner's proxies do (``proxy_reliability_``). The Auditor still measures every group's violation from the per-round release, and plays
the same game: its step weighs cell ``(e, g)``'s violation by ``kappa_eg`` (``StatisticsGame._auditor_weights``),
so the fit enforces ``kappa_eg gamma_eg <= bound``, i.e. ``gamma_eg <= bound / kappa_eg``, and a multiplier the
Learner cannot act on is not driven up.

Privacy: ``kappa`` is computed from the released ``S`` (and under ``"record"`` the released Gram matrix), the
released (floored) counts, the public noise scale and, under ``"sensitive_attribute"``, the public ``Phi^T Phi``:
post-processing, with no new release and no change to the budget or its split.
"""

from __future__ import annotations

import numpy as np

__all__ = ["direction_noise_variance", "direction_reliability", "psd_part"]


def psd_part(matrix):
    """The positive semi-definite part of a symmetric matrix (its negative eigenvalues set to 0).

    A released Gram matrix has noise of both signs; ``v^T Gram v`` of the released matrix may then be negative,
    while the quantity it estimates (a squared norm) is not.
    """
    values, vectors = np.linalg.eigh((matrix + matrix.T) / 2.0)
    return (vectors * np.clip(values, 0.0, None)) @ vectors.T


def direction_noise_variance(sigma, label_cells, cell_counts, event_counts):
    """Noise variance per coordinate of ``D_eg = S_eg / n_eg - sum_g' S_eg' / n_e``, shape ``(E, G)``.

    ``S_eg`` sums (with signs, for error-rate parity) ``label_cells[e]`` released label cells, each coordinate with
    independent noise of variance ``sigma^2``; the counts ``n_eg`` (``cell_counts``) and ``n_e`` (``event_counts``)
    are released or public values, held fixed. With ``xi_eg`` the noise of ``S_eg``, the noise of ``D_eg`` is
    ``xi_eg (1/n_eg - 1/n_e) - sum_{g' != g} xi_eg' / n_e``, of variance ``sigma^2 L_e ((1/n_eg - 1/n_e)^2 +
    (G - 1) / n_e^2)``.
    """
    cell_counts = np.asarray(cell_counts, dtype=float)
    event_counts = np.asarray(event_counts, dtype=float)[:, None]
    n_groups = cell_counts.shape[1]
    per_cell = (1.0 / cell_counts - 1.0 / event_counts) ** 2 + (n_groups - 1) / event_counts ** 2
    return float(sigma) ** 2 * np.asarray(label_cells, dtype=float)[:, None] * per_cell


def direction_reliability(directions, noise_variance, inverse, gram):
    """``kappa`` (shape ``(E, G)``): the share of each direction's effect on the predicted costs that is signal.

    ``directions`` is ``(E, G, d + 1)``, ``noise_variance`` ``(E, G)`` (:func:`direction_noise_variance`),
    ``inverse`` the matrix the Learner applies to its moment, ``gram`` the (released or public) ``Phi^T Phi``.
    Every coordinate of a direction is counted as noisy (the count coordinate, nearly noise-free when no count is
    floored, included): ``kappa`` errs toward shrinking. A direction with no effect gets 0 (nothing to follow).
    """
    metric = inverse @ psd_part(gram) @ inverse
    observed = np.einsum("egi,ij,egj->eg", directions, metric, directions)
    noise = noise_variance * float(np.trace(metric))
    share = np.divide(noise, observed, out=np.ones_like(observed), where=observed > 0)
    return np.clip(1.0 - share, 0.0, 1.0)
