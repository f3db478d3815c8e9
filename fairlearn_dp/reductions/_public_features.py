"""The statistics game's public reparametrisation of ``X`` when it is public (``privacy_unit="sensitive_attribute"``).

The game releases the (label, group) cell sums of ``phi_i = [z_i, 1]`` once, with Gaussian noise scaled to the
largest row norm. With the raw features that norm is set by the column of the largest scale (on Adult with the
numeric columns passed through unscaled, ``fnlwgt`` gives a row norm near ``1.5e6``), and the noise then drowns
every other column. Under ``"sensitive_attribute"`` ``X`` is public, so the game may release the statistics of any
function of ``X`` alone; it uses the affine map ``z = (x - c) / s`` with, per column, ``c`` the column mean and ``s``
the largest ``|x - c|`` (1 for a constant column), so that every ``|z_j| <= 1``.

Privacy (why the analysis is unchanged). The map is a function of the public ``X`` only, so it is the same on two
neighbouring datasets (they differ in one person's sensitive attribute). The release is
``S_lg = sum_{y_i = l, a_i = g} [z_i, 1]``; changing ``a_i`` moves ``[z_i, 1]`` from one cell to another, so the
L2 sensitivity is ``sqrt(2) ||[z_i, 1]|| <= sqrt(2 (C_z^2 + 1))`` with ``C_z = max_i ||z_i||``, read off the public
``z`` (:func:`~fairlearn_dp.reductions._statistics_game.label_cell_sensitivity` with ``C_z``). Because the map is
affine and invertible, ``[z, 1]`` spans the same functions as ``[x, 1]``: the proxies and the least-squares plays
computed from the release are affine in ``x`` either way (a reparametrisation; a play's coefficients are mapped
back by :meth:`PublicFeatureMap.raw_linear`), and the user's estimator is still fitted on the raw ``X``.

Never under ``privacy_unit="record"``: ``X`` is private there, and a scaling derived from it would leak; the bound
there is public metadata (``row_norm_bound``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PublicFeatureMap"]


class PublicFeatureMap:
    """``z = (x - center) / scale`` per column, fitted on public features (see the module docstring).

    Parameters
    ----------
    center, scale : numpy.ndarray
        Per column; ``scale > 0``.
    """

    def __init__(self, center: np.ndarray, scale: np.ndarray):
        self.center = np.asarray(center, dtype=float)
        self.scale = np.asarray(scale, dtype=float)

    @classmethod
    def from_public(cls, X: np.ndarray) -> PublicFeatureMap:
        """The map of public features ``X`` (2-D float): centre at the column means, scale by the largest
        deviation, so that every coordinate of ``z`` lies in ``[-1, 1]``.
        """
        center = X.mean(axis=0)
        return cls.from_column_statistics(center, np.abs(X - center).max(axis=0))

    @classmethod
    def from_column_statistics(cls, center: np.ndarray, deviation: np.ndarray) -> PublicFeatureMap:
        """The map of public features with column means ``center`` and largest deviations ``|x - center|``
        ``deviation`` (read off them elsewhere, e.g. on Dask workers: :mod:`._game_rows`).
        """
        scale = np.array(deviation, dtype=float)
        scale[~(scale > 0)] = 1.0                   # a constant column maps to 0
        return cls(center, scale)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """``z`` of the rows of ``X``."""
        return (X - self.center) / self.scale

    def raw_linear(self, beta: np.ndarray) -> tuple[np.ndarray, float]:
        """``(w, b)`` with ``w . x + b == beta . [z, 1]`` for every ``x`` (``beta`` of length ``d + 1``)."""
        w = beta[:-1] / self.scale
        return w, float(beta[-1] - w @ self.center)
