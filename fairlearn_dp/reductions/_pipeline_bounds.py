"""The public L2 row bound a ``Pipeline``'s declared preprocessing gives (``privacy_unit="record"``).

Under ``"record"`` the statistics game clips every feature row to a public bound ``C`` on its L2 norm, and the
noise grows with ``C`` (:mod:`fairlearn_dp._utils._row_bounds`). When ``row_norm_bound`` is None and the estimator is
a ``Pipeline`` whose preprocessing ends in steps whose output is bounded by their parameters alone, ``C`` is
derived from those parameters and the output layout (how many columns each part produces), never from a value of
the data. The steps whose output is bounded whatever their input:

- ``OneHotEncoder`` (fitted): each block has at most one 1 (with any ``drop``; an unknown category is all zeros or
  refused), so ``n_blocks`` to the squared norm. Fitted on the private rows it must have declared categories
  (``_pipeline.check_public_preprocessing`` refuses it otherwise); prefit, its categories are public;
- ``OrdinalEncoder`` (fitted): codes ``0 .. k_j - 1``, or the declared ``unknown_value`` / ``encoded_missing_value``;
- ``MinMaxScaler(clip=True)`` (prefit, e.g. on the declared ``[lower, upper]``): every output in ``feature_range``,
  whatever the scaler was fitted on (the clip is applied last). Without ``clip`` it is not bounded;
- ``FunctionTransformer(np.clip, kw_args={"a_min": lower, "a_max": upper})`` (numpy 2's ``min``/``max`` too): every
  output in ``[lower, upper]`` (scalars, or one entry per column);
- ``Normalizer``: L2 norm at most 1 (``norm="l2"`` or ``"l1"``), every entry at most 1 (``"max"``).

A ``Pipeline`` is bounded by its last step that is not an identity (``None``, ``"passthrough"``, fairdp's dense
step), a ``ColumnTransformer`` by the sum over its parts (each part's width read off the fitted
``output_indices_``; a ``"passthrough"`` part reads raw columns, so it has no bound), a ``FeatureUnion`` likewise
when each part's bound needs no width; a ``FrozenEstimator`` by the step it wraps. Anything else (a scaler without
``clip``, a ``StandardScaler``, ``SimpleImputer``, an arbitrary function) has no derived bound, and the estimator
falls back to ``feature_bound`` with its warning. The derived bound only sets ``C``: rows are clipped to it
whatever they are, so it bears on utility, not on the guarantee.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer, MinMaxScaler, Normalizer, OneHotEncoder, OrdinalEncoder

from ._pipeline import as_dense_float

__all__ = ["preprocessing_row_norm_bound"]

_IDENTITY = (None, "passthrough")


def preprocessing_row_norm_bound(preprocessing, n_features):
    """The L2 row bound of ``preprocessing``'s output from its declared parameters and layout, or None.

    Parameters
    ----------
    preprocessing : sklearn.pipeline.Pipeline
        The fitted preprocessing (the game's ``GameEstimator.preprocessing``).
    n_features : int
        The number of columns it outputs (public: the layout).

    Returns
    -------
    float or None
    """
    squared = _squared_bound(preprocessing, int(n_features))
    if squared is None or not math.isfinite(squared) or squared <= 0:
        return None
    return float(math.sqrt(squared))


def _squared_bound(step, width):
    """Bound on the squared L2 norm of ``step``'s output rows (``width`` columns, None if unknown), or None."""
    if isinstance(step, FrozenEstimator):
        return _squared_bound(step.estimator, width)
    if isinstance(step, Pipeline):
        return _pipeline_bound(step, width)
    if isinstance(step, ColumnTransformer):
        return _column_transformer_bound(step)
    if isinstance(step, FeatureUnion):
        return _sum_or_none(_squared_bound(part, None) for _, part in step.transformer_list
                            if part not in ("drop", None))
    reach = _leaf_reach(step, width)
    if isinstance(reach, float):                # already a bound on the whole row (one-hot blocks, Normalizer)
        return reach
    return None if reach is None else float(np.sum(reach ** 2))


def _is_identity(step):
    return step in _IDENTITY or (type(step) is FunctionTransformer and _is_dense_step(step.func))


def _is_dense_step(func):
    return func is None or func is as_dense_float   # fairdp's dense step: an identity on the values


def _pipeline_bound(pipeline, width):
    """The last non-identity step's bound (identities keep the width and the values)."""
    for _, step in reversed(pipeline.steps):
        if not _is_identity(step):
            return _squared_bound(step, width)
    return None


def _column_transformer_bound(transformer):
    """Sum of the parts' bounds, each on its slice of the output (``output_indices_`` of the fitted transformer)."""
    indices = getattr(transformer, "output_indices_", None)
    if indices is None:
        return None
    bounds = []
    for name, part, _ in transformer.transformers_:
        piece = indices.get(name)
        width = 0 if piece is None else piece.stop - piece.start
        if width == 0 or (isinstance(part, str) and part == "drop"):
            continue
        if isinstance(part, str):               # "passthrough": raw columns, no declared bound
            return None
        bounds.append(_squared_bound(part, width))
    return _sum_or_none(bounds)


def _sum_or_none(bounds):
    bounds = list(bounds)
    return None if not bounds or any(b is None for b in bounds) else float(sum(bounds))


def _leaf_reach(step, width):
    """Per-column bound on ``|output|`` (an array), a bound on the squared row norm (a float), or None."""
    if type(step) is OneHotEncoder and hasattr(step, "categories_"):
        return float(len(step.categories_))     # one 1 at most per block: whole-row bound
    if type(step) is OrdinalEncoder and hasattr(step, "categories_"):
        return _ordinal_reach(step)
    if type(step) is MinMaxScaler and step.clip and hasattr(step, "n_features_in_"):
        low, high = step.feature_range
        return _per_column(max(abs(low), abs(high)), step.n_features_in_ if width is None else width)
    if type(step) is Normalizer:
        if step.norm in ("l1", "l2"):
            return 1.0
        return None if width is None else float(width)
    if type(step) is FunctionTransformer and step.func is np.clip:
        return _clip_reach(step.kw_args or {}, width)
    return None


def _ordinal_reach(encoder):
    extra = [len(categories) - 1.0 for categories in encoder.categories_]
    declared = [encoder.encoded_missing_value]
    if encoder.handle_unknown == "use_encoded_value":
        declared.append(encoder.unknown_value)
    # A NaN code makes the row non-finite, which the game replaces by the zero row: it adds nothing.
    floor = max([abs(float(v)) for v in declared if v is not None and np.isfinite(float(v))], default=0.0)
    return np.maximum(np.asarray(extra, dtype=float), floor)


def _clip_reach(kw_args, width):
    low = kw_args.get("a_min", kw_args.get("min"))
    high = kw_args.get("a_max", kw_args.get("max"))
    if low is None or high is None:
        return None
    try:
        reach = np.maximum(np.abs(np.asarray(low, dtype=float)), np.abs(np.asarray(high, dtype=float)))
    except (TypeError, ValueError):
        return None
    if reach.ndim > 1 or not np.all(np.isfinite(reach)):
        return None
    return _per_column(reach, width)


def _per_column(reach, width):
    """``reach`` (a number, or one entry per column) for each of ``width`` output columns, or None if they disagree."""
    reach = np.asarray(reach, dtype=float).ravel()
    size = width if width is not None else (reach.size if reach.size > 1 else None)
    if size is None or reach.size not in (1, size):
        return None
    return np.broadcast_to(reach, (size,)).astype(float)
