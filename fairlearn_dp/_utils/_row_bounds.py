"""Public bounds on the norm of a feature row, for the estimators that clip rows under ``privacy_unit="record"``.

A record-level release of sums of feature rows needs a public bound ``C`` on ``||x||``: rows beyond it are scaled
onto it (silently), and the noise grows with ``C``. Where ``C`` comes from, first match wins:

1. the estimator's own parameter (``row_norm_bound``);
2. the bound published with ``X``: a pandas DataFrame's ``X.attrs["row_norm_bound"]`` (L2; ``"row_norm_bound_l1"``
   for the L1 norm), which the :mod:`fairlearn_dp.datasets` loaders set from their construction. ``attrs``
   survives row selections (``train_test_split``, ``iloc``, boolean masks) and column selections, under which the
   bound still holds. When ``X.attrs["row_norm_bound_columns"]`` lists the columns the bound was published for
   and ``X`` has a column outside them, the bound is not used;
3. (``DPExponentiatedGradient`` with a ``Pipeline``) the bound its declared preprocessing gives
   (:mod:`fairlearn_dp.reductions._pipeline_bounds`);
4. the tight bound of the box declared by ``feature_bound``: ``sqrt(sum_j max(lower_j^2, upper_j^2))`` (L2), ``R
   sqrt(d)`` for a number ``R``.

Only public inputs enter (parameters, the published metadata, the number of columns), never a value of the data.
pandas also carries ``attrs`` through arithmetic on the frame (``X * 10``), after which a published bound no
longer describes the values: set or drop ``X.attrs["row_norm_bound"]`` after transforming a loader's frame.

``layout_row_norm_bound`` (public, from ``fairlearn_dp.reductions``) computes the bound of a declared column
layout (one-hot blocks and bounded numeric columns) for users who build their own feature frame.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..exceptions import UtilityWarning, warn
from ._validation import check_choice, check_feature_bound, check_real

__all__ = ["ROW_NORM_BOUND", "ROW_NORM_BOUND_L1", "ROW_NORM_BOUND_COLUMNS", "publish_row_norm_bounds",
           "published_row_norm_bound", "feature_reach", "feature_bound_radius", "box_row_norm_bound",
           "resolve_row_norm_bound", "warn_loose_row_norm_bound", "layout_row_norm_bound"]

ROW_NORM_BOUND = "row_norm_bound"                   # X.attrs key: public bound on every row's L2 norm
ROW_NORM_BOUND_L1 = "row_norm_bound_l1"             # X.attrs key: the same for the L1 norm
ROW_NORM_BOUND_COLUMNS = "row_norm_bound_columns"   # X.attrs key: the columns the bounds were published for
_KEYS = {2: ROW_NORM_BOUND, 1: ROW_NORM_BOUND_L1}


def publish_row_norm_bounds(frame, *, l2, l1=None):
    """Record public row-norm bounds of ``frame`` in its ``attrs`` (in place) and return it.

    Parameters
    ----------
    frame : pandas.DataFrame
        Features whose every possible row (over the public domain, not just the rows present) satisfies the bounds.
    l2 : float
        Bound on the L2 norm of a row.
    l1 : float or None, default=None
        Bound on the L1 norm of a row, if known.
    """
    frame.attrs[ROW_NORM_BOUND] = float(l2)
    if l1 is not None:
        frame.attrs[ROW_NORM_BOUND_L1] = float(l1)
    frame.attrs[ROW_NORM_BOUND_COLUMNS] = tuple(frame.columns)
    return frame


def _published(X, norm_ord):
    """``(bound, note)``: the bound ``X`` publishes for the norm (None when it publishes none, or publishes it for
    other columns; ``note`` then says so). A published value that is not a number > 0 is a ``ValueError``.
    """
    attrs = getattr(X, "attrs", None)
    key = _KEYS[norm_ord]
    if not isinstance(attrs, dict) or attrs.get(key) is None:
        return None, None
    bound = check_real(attrs[key], f"X.attrs[{key!r}]", low=0.0, low_open=True)
    columns = attrs.get(ROW_NORM_BOUND_COLUMNS)
    if columns is not None and not set(getattr(X, "columns", ())) <= set(columns):
        return None, (f"X.attrs[{key!r}] = {bound:.4g} was published for other columns (X has columns outside "
                      f"X.attrs[{ROW_NORM_BOUND_COLUMNS!r}]), so it is not used")
    return bound, None


def published_row_norm_bound(X, norm_ord=2):
    """The row-norm bound ``X`` publishes (``X.attrs``, see the module docstring), or None.

    Parameters
    ----------
    X : array-like
        The feature matrix as passed to ``fit``; only a pandas DataFrame can carry a bound.
    norm_ord : {1, 2}, default=2
        The norm.

    Returns
    -------
    float or None
    """
    return _published(X, norm_ord)[0]


def feature_reach(feature_bound, n_features, name="feature_bound"):
    """Per-feature bound on ``|x_j|`` declared by ``feature_bound`` (a number or a ``(lower, upper)`` box), shape
    ``(n_features,)``. A box side whose length is not ``n_features`` is a ``ValueError`` naming ``name``.
    """
    checked = check_feature_bound(feature_bound, name)
    if isinstance(checked, float):
        return np.full(n_features, checked)
    reach = np.maximum(np.abs(checked[0]), np.abs(checked[1]))
    if reach.ndim == 1 and reach.size != n_features:
        raise ValueError(f"{name}: the box (lower, upper) has {reach.size} entries per side but X has "
                         f"{n_features} features.")
    return np.broadcast_to(reach, (n_features,)).astype(float)


def feature_bound_radius(feature_bound):
    """The largest ``|x_j|`` the (validated) ``feature_bound`` allows: ``R``, or ``max_j max(|lower_j|, |upper_j|)``."""
    if isinstance(feature_bound, numbers.Real):
        return float(feature_bound)
    lower, upper = check_feature_bound(feature_bound)
    return float(np.max(np.maximum(np.abs(lower), np.abs(upper))))


def box_row_norm_bound(feature_bound, n_features, norm_ord=2):
    """The tight bound on a row's norm inside the box ``feature_bound``: ``sqrt(sum_j max(lower_j^2, upper_j^2))``
    (L2) or ``sum_j max(|lower_j|, |upper_j|)`` (L1); ``R sqrt(d)`` or ``R d`` for a number ``R``.
    """
    reach = feature_reach(feature_bound, n_features)
    return float(math.sqrt(np.sum(reach ** 2))) if norm_ord == 2 else float(np.sum(reach))


def layout_row_norm_bound(*, one_hot: int | Sequence[Sequence] = 0,
                          numeric: Mapping[str, tuple[float, float]] | Sequence[tuple[float, float]] = (),
                          norm: str = "l2") -> float:
    """Public bound on the norm of every row of a declared column layout, from the declaration alone.

    The record-level estimators need a bound on ``||x||`` that holds for every row the public domain allows
    (``row_norm_bound`` of :class:`~fairlearn_dp.reductions.DPExponentiatedGradient`, ``feature_norm_bound`` of
    :class:`~fairlearn_dp.reductions.DPGerryFairClassifier`, ``data_norm`` of
    :class:`~fairlearn_dp.reductions.DPLogisticRegression`); this computes it for features made of one-hot blocks
    and bounded numeric columns. It reads no data: pass the categories and ranges you declare, never ones observed
    in the private rows.

    Parameters
    ----------
    one_hot : int or sequence of sequences, default=0
        The one-hot blocks: their number, or one list of declared categories per block (as
        ``OneHotEncoder(categories=...)`` takes them; only the number of blocks matters). A block has at most one
        entry equal to 1 and zeros elsewhere whatever ``OneHotEncoder``'s ``drop`` (the dropped category is the
        all-zero row) or ``handle_unknown`` (``"ignore"``, ``"warn"``, or ``"infrequent_if_exist"`` with declared
        categories: an unknown category is the all-zero row; ``"error"``: it is refused), so it adds at most 1 to
        the squared L2 norm and to the L1 norm.
    numeric : mapping of column name to (lower, upper), or sequence of (lower, upper), default=()
        The bounded numeric columns, with their declared range after any declared scaling (e.g. ``(0, 1)`` after
        ``MinMaxScaler(clip=True)``). A column adds ``max(lower^2, upper^2)`` to the squared L2 norm and
        ``max(|lower|, |upper|)`` to the L1 norm.
    norm : {"l2", "l1"}, default="l2"
        The norm bounded.

    Returns
    -------
    float
        ``sqrt(n_blocks + sum_j max(lower_j^2, upper_j^2))`` (L2) or ``n_blocks + sum_j max(|lower_j|, |upper_j|)``
        (L1): the largest norm a row of the layout can have (attained when every block has its 1 and every numeric
        column sits at its endpoint of larger magnitude).

    Raises
    ------
    ValueError, TypeError
        A malformed layout (a negative number of blocks, an empty block, a range with ``lower > upper`` or a
        non-finite end, a layout with no column), naming the argument.

    Examples
    --------
    >>> from fairlearn_dp.reductions import layout_row_norm_bound
    >>> round(layout_row_norm_bound(one_hot=[["a", "b", "c"], ["yes", "no"]], numeric={"age": (0, 1)}), 4)
    1.7321
    >>> layout_row_norm_bound(one_hot=2, numeric=[(-3, 2)], norm="l1")
    5.0
    """
    norm = check_choice(norm, "norm", ("l2", "l1"))
    blocks = _one_hot_blocks(one_hot)
    reach = _numeric_reach(numeric)
    if blocks == 0 and reach.size == 0:
        raise ValueError("layout_row_norm_bound: the layout declares no column (one_hot=0 and numeric is empty).")
    if norm == "l2":
        return float(math.sqrt(blocks + float(np.sum(reach ** 2))))
    return float(blocks + float(np.sum(reach)))


def _one_hot_blocks(one_hot):
    """The number of one-hot blocks ``one_hot`` declares (a count, or one category list per block)."""
    if isinstance(one_hot, numbers.Integral) and not isinstance(one_hot, (bool, np.bool_)):
        if one_hot < 0:
            raise ValueError(f"one_hot must be a number of blocks >= 0 or a list of category lists, got {one_hot}.")
        return int(one_hot)
    if isinstance(one_hot, (str, bytes)) or not isinstance(one_hot, (Sequence, np.ndarray)):
        raise TypeError("one_hot must be a number of blocks or a list of category lists (one per block), got "
                        f"{type(one_hot).__name__}.")
    for k, block in enumerate(one_hot):
        if isinstance(block, (str, bytes)) or not hasattr(block, "__len__"):
            raise TypeError(f"one_hot[{k}] must be a list of the block's categories, got {type(block).__name__}.")
        if len(block) == 0:
            raise ValueError(f"one_hot[{k}] declares no category.")
    return len(one_hot)


def _numeric_reach(numeric):
    """``max(|lower|, |upper|)`` of each declared numeric range, checked."""
    if not isinstance(numeric, (Mapping, Sequence, np.ndarray)) or isinstance(numeric, (str, bytes)):
        raise TypeError("numeric must be a mapping of column name to (lower, upper) or a list of (lower, upper), got "
                        f"{type(numeric).__name__}.")
    named = numeric.items() if isinstance(numeric, Mapping) else enumerate(numeric)
    reach = []
    for key, pair in named:
        name = f"numeric[{key!r}]"
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"{name} must be a pair (lower, upper), got {pair!r}.")
        lower, upper = (check_real(side, name) for side in pair)
        if lower > upper:
            raise ValueError(f"{name}: lower {lower:g} > upper {upper:g}.")
        reach.append(max(abs(lower), abs(upper)))
    return np.asarray(reach, dtype=float)


def resolve_row_norm_bound(row_norm_bound, feature_bound, X, n_features, norm_ord=2, derived=None):
    """The public row-norm bound ``C`` and where it came from (module docstring), from public inputs only.

    Parameters
    ----------
    row_norm_bound : float or None
        The estimator's parameter (validated).
    feature_bound : float or (lower, upper)
        The estimator's declared box (validated).
    X : array-like
        The feature matrix as passed to ``fit`` (read: ``X.attrs`` and nothing else).
    n_features : int
        Its number of columns.
    norm_ord : {1, 2}, default=2
    derived : float or None, default=None
        The bound a declared preprocessing gives (:mod:`fairlearn_dp.reductions._pipeline_bounds`), if any; it
        replaces the default ``feature_bound`` number, and a declared box when it is smaller.

    Returns
    -------
    bound : float
    source : {"row_norm_bound", "published", "preprocessing", "box", "feature_bound"}
        ``"feature_bound"``: the box of a number ``R`` (``R sqrt(d)``), the loose default.
    note : str or None
        Why a bound published with ``X`` was not used, if one was.
    """
    if row_norm_bound is not None:
        return float(row_norm_bound), "row_norm_bound", None
    published, note = _published(X, norm_ord)
    if published is not None:
        return published, "published", None
    source = "feature_bound" if isinstance(feature_bound, numbers.Real) else "box"
    box = box_row_norm_bound(feature_bound, n_features, norm_ord)
    # A declared box (per-feature bounds) is a declaration too: the smaller of two bounds of the domain holds.
    if derived is not None and (source == "feature_bound" or float(derived) <= box):
        return float(derived), "preprocessing", note
    return box, source, note


def warn_loose_row_norm_bound(owner, bound, n_features, note):
    """Warn (:class:`~fairlearn_dp.exceptions.UtilityWarning`, a fallback taken) that rows are clipped to
    ``feature_bound * sqrt(d)`` because nothing tighter was declared or published. Depends on public inputs only
    (parameters, ``X.attrs``, the number of columns).
    """
    why = f" ({note})" if note else ""
    warn(f"{owner}: privacy_unit='record' needs a public bound on the L2 norm of a row of X; none was "
         f"given (row_norm_bound=None) and X publishes none (X.attrs['row_norm_bound']){why}, so rows are "
         f"clipped to feature_bound * sqrt(n_features) = {bound:.4g} ({n_features} features). The noise "
         "grows with this bound, and a loose one can leave the fit no better than a constant classifier. "
         "If your rows have a smaller public bound (e.g. one-hot blocks with a single 1 each), pass "
         "row_norm_bound, or feature_bound=(lower, upper) per feature; the fairlearn_dp.datasets loaders "
         "publish theirs in X.attrs.", UtilityWarning)
