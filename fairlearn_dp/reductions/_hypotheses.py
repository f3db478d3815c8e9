"""Finite, data-independent hypothesis classes for the exponential-mechanism learners.

The exponential mechanism (Jagielski et al. 2019, Alg. 3 with a finite class; Cummings et al. 2019, Alg. 1) samples
from a hypothesis class fixed *before* it sees the data: if the class were built from the private records, it would
leak them. :func:`linear_threshold_hypotheses` builds linear threshold classifiers ``1[w . x >= b]`` from public
knowledge only (the number of features, a public bound on the features and a seed).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._utils._validation import check_int, check_real, value_errors
from .._utils._withheld import call_total_on_private_rows
from ..privacy._random import check_random_state

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["LinearThresholdClassifier", "linear_threshold_hypotheses", "hypothesis_predictions"]

# The checks of linear_threshold_hypotheses' arguments: a ValueError for every bad value, of whatever type.
_POSITIVE_INT = value_errors(functools.partial(check_int, low=1))
_NON_NEGATIVE_INT = value_errors(functools.partial(check_int, low=0))
_POSITIVE_REAL = value_errors(functools.partial(check_real, low=0.0, low_open=True))


class LinearThresholdClassifier:
    """The fixed classifier ``h(x) = 1[x @ coef >= threshold]`` (no fitting; picklable; equality by value)."""

    def __init__(self, coef: ArrayLike, threshold: float) -> None:
        self.coef = np.asarray(coef, dtype=float).ravel()
        self.threshold = float(threshold)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """``1[X @ coef >= threshold]`` for every row of ``X`` (0/1 ints)."""
        X = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.coef.size:
            raise ValueError(f"X must have {self.coef.size} columns, got shape {X.shape}.")
        return (X @ self.coef >= self.threshold).astype(int)

    def __call__(self, X: ArrayLike) -> np.ndarray:
        """``predict(X)``: the classifier as a callable hypothesis."""
        return self.predict(X)

    def __eq__(self, other):
        return (isinstance(other, LinearThresholdClassifier) and self.threshold == other.threshold
                and np.array_equal(self.coef, other.coef))

    def __hash__(self):
        return hash((self.threshold, self.coef.tobytes()))

    def __repr__(self):
        return f"LinearThresholdClassifier(coef={np.round(self.coef, 4).tolist()}, threshold={self.threshold:.4g})"


def linear_threshold_hypotheses(n_features: int, *, n_directions: int = 64, n_thresholds: int = 16,
                                feature_bound: float = 1.0, include_constants: bool = True,
                                random_state: int | np.random.RandomState | None = None,
                                ) -> list[LinearThresholdClassifier]:
    """A finite class of linear threshold classifiers built from public parameters only.

    Directions ``w`` are drawn uniformly on the unit sphere of ``R^n_features`` (plus the signed coordinate axes,
    so every single-feature rule is in the class); for each direction, thresholds ``b`` are spread evenly over
    ``[-r, r]`` with ``r = feature_bound * sqrt(n_features)`` (the range of ``w . x`` when ``|x_j| <=
    feature_bound``). With ``include_constants`` the class also holds the constant classifiers 0 and 1.

    Parameters
    ----------
    n_features : int
    n_directions : int, default=64
        Random directions (the ``2 n_features`` signed axes are added to them).
    n_thresholds : int, default=16
        Thresholds per direction.
    feature_bound : float, default=1.0
        Public bound on ``|x_j|`` (scale the features to it).
    include_constants : bool, default=True
    random_state : None, int or RandomState
        Seed for the directions (public randomness: it may be published with the model). None draws them from a
        generator seeded by the operating system's entropy, never from numpy's global generator.

    Returns
    -------
    list of LinearThresholdClassifier
        ``(n_directions + 2 n_features) * n_thresholds (+ 2)`` classifiers.
    """
    _POSITIVE_INT(n_features, "n_features")
    _NON_NEGATIVE_INT(n_directions, "n_directions")
    _POSITIVE_INT(n_thresholds, "n_thresholds")
    _POSITIVE_REAL(feature_bound, "feature_bound")
    rng = check_random_state(random_state)
    random_dirs = rng.normal(size=(int(n_directions), int(n_features)))
    random_dirs /= np.linalg.norm(random_dirs, axis=1, keepdims=True)
    axes = np.vstack([np.eye(n_features), -np.eye(n_features)])
    directions = np.vstack([axes, random_dirs])
    reach = float(feature_bound) * math.sqrt(n_features)
    # Midpoints of n_thresholds equal cells of [-reach, reach]: no threshold sits on the boundary.
    thresholds = -reach + (np.arange(n_thresholds) + 0.5) * (2 * reach / n_thresholds)
    hypotheses = [LinearThresholdClassifier(w, b) for w in directions for b in thresholds]
    if include_constants:
        zeros = np.zeros(n_features)
        hypotheses += [LinearThresholdClassifier(zeros, 1.0), LinearThresholdClassifier(zeros, 0.0)]  # 0 and 1
    return hypotheses


def hypothesis_predictions(hypotheses: Sequence[Any], X: ArrayLike, *, private: bool = False) -> np.ndarray:
    """The ``(n_samples, n_hypotheses)`` boolean matrix of every hypothesis' 0/1 predictions on ``X``.

    Each hypothesis is a fitted classifier with ``predict`` or a callable; predictions must be 0/1. Runs of
    :class:`LinearThresholdClassifier` are evaluated together as one matrix product. ``private=True`` (``X`` holds
    private records): each other hypothesis is made total row by row, a row on which it raises or predicts
    anything but 0/1 gets the public default 0 (a function of the row alone: the sensitivity of every count of the
    predictions is unchanged), so whether the fit succeeds depends on no record.
    """
    if hypotheses is None or len(hypotheses) == 0:
        raise ValueError("hypotheses must be a non-empty finite hypothesis class (a list of classifiers).")
    X_arr = np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X)
    out = np.empty((len(X_arr), len(hypotheses)), dtype=bool)
    linear = [i for i, h in enumerate(hypotheses) if isinstance(h, LinearThresholdClassifier)]
    if linear:
        coefs = np.column_stack([hypotheses[i].coef for i in linear])
        if X_arr.ndim != 2 or X_arr.shape[1] != coefs.shape[0]:
            raise ValueError(f"X must have {coefs.shape[0]} columns for the linear threshold hypotheses, got shape "
                             f"{X_arr.shape}.")
        thresholds = np.array([hypotheses[i].threshold for i in linear])
        for start in range(0, len(X_arr), 4096):
            block = np.asarray(X_arr[start:start + 4096], dtype=float)
            out[start:start + 4096, linear] = block @ coefs >= thresholds
    linear_set = set(linear)
    for index, h in enumerate(hypotheses):
        if index in linear_set:
            continue
        predict = h.predict if hasattr(h, "predict") else h
        if not callable(predict):
            raise TypeError(f"hypotheses[{index}] is neither a classifier with predict nor a callable.")
        if private:
            values = call_total_on_private_rows(predict, X, f"hypotheses[{index}]", default=0.0,
                                                row_shape=lambda: (), valid=_binary_rows).reshape(len(X_arr), -1)
            if values.shape[1] != 1:
                raise ValueError(f"hypotheses[{index}] must return one prediction per row.")
            values = values[:, 0]
        else:
            values = np.asarray(predict(X)).ravel()
        if values.size != len(X_arr):
            raise ValueError(f"hypotheses[{index}] returned {values.size} predictions for {len(X_arr)} rows.")
        if not np.all((values == 0) | (values == 1)):
            raise ValueError(f"hypotheses[{index}] must predict labels 0/1.")
        out[:, index] = values == 1
    return out


def _binary_rows(values):
    """Rows whose every output is 0 or 1."""
    return np.all((values == 0) | (values == 1), axis=tuple(range(1, values.ndim)))
