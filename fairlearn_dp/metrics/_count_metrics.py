"""Metrics as functions of per-group counts and sums: what a private report can compute from one release.

A metric a :class:`~fairlearn_dp.metrics.DPMetricFrame` accepts is a :class:`CountMetric`: a function of the
confusion counts of one cell (classification) or of the sums of bounded per-row values (regression). The metric
functions of scikit-learn and Fairlearn that are such functions are recognised by identity (:func:`as_count_metric`);
a user declares their own with :func:`count_metric`. Every function here is elementwise arithmetic on numpy arrays,
so one call evaluates a metric for every group and every Monte-Carlo draw of the interval computation: this is the
fast path. Any other classification metric of the confusion counts (other keyword arguments, user functions,
several classes) is evaluated on weighted confusion cells (:mod:`._cell_metrics`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sklearn.metrics as skm
from fairlearn import metrics as flm
from numpy.typing import ArrayLike

from ._cell_metrics import CellMetric, cell_metric_reads_y_true, check_cell_metric

__all__ = ["ConfusionCounts", "RegressionSums", "CountMetric", "count_metric", "as_count_metric",
           "VALUE_COLUMNS", "reads_y_true"]


@dataclass(frozen=True)
class ConfusionCounts:
    """Confusion counts of one cell (or arrays of them): ``tp``, ``fp``, ``tn``, ``fn``; ``n`` is their sum."""

    tp: np.ndarray
    fp: np.ndarray
    tn: np.ndarray
    fn: np.ndarray

    @property
    def n(self) -> np.ndarray:
        """``tp + fp + tn + fn``."""
        return self.tp + self.fp + self.tn + self.fn


@dataclass(frozen=True)
class RegressionSums:
    """Sums over the rows of one cell (or arrays of them) of bounded per-row values.

    ``n`` is the row count; ``prediction``, ``squared_error`` and ``absolute_error`` are the sums of the clipped
    prediction, of the squared error and of the absolute error of clipped values (``None`` when not released).
    """

    n: np.ndarray
    prediction: np.ndarray | None = None
    squared_error: np.ndarray | None = None
    absolute_error: np.ndarray | None = None


#: How a metric's noise error is judged (:class:`CountMetric`, ``scale``).
SCALES = ("rate", "count", "value", "squared")

#: Per-row values a regression release may hold (``RegressionSums`` fields besides ``n``).
VALUE_COLUMNS = ("prediction", "squared_error", "absolute_error")


@dataclass(frozen=True)
class CountMetric:
    """A metric computed from counts: ``function(counts)`` with ``counts`` a :class:`ConfusionCounts`
    (``kind="classification"``) or a :class:`RegressionSums` (``kind="regression"``, reading ``values``).

    Calling the object with ``(y_true, y_pred)`` computes it exactly on those rows, so the same metric works in
    Fairlearn's :class:`~fairlearn.metrics.MetricFrame` too (binary 0/1 labels; regression values as given).
    """

    function: Callable
    name: str
    kind: str = "classification"
    values: tuple = ()
    scale: str = "rate"

    def __call__(self, y_true: ArrayLike, y_pred: ArrayLike) -> float:
        y_true, y_pred = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)
        if self.kind == "classification":
            counts = ConfusionCounts(tp=np.sum((y_true == 1) & (y_pred == 1)), fp=np.sum((y_true == 0) & (y_pred == 1)),
                                     tn=np.sum((y_true == 0) & (y_pred == 0)), fn=np.sum((y_true == 1) & (y_pred == 0)))
        else:
            error = y_true - y_pred
            counts = RegressionSums(n=float(y_true.size), prediction=y_pred.sum(), squared_error=np.sum(error ** 2),
                                    absolute_error=np.abs(error).sum())
        return float(self.function(counts))


def count_metric(function: Callable, *, name: str | None = None, kind: str = "classification",
                 values: tuple = (), scale: str = "rate") -> CountMetric:
    """Declare a metric as a function of counts, for :class:`~fairlearn_dp.metrics.DPMetricFrame`.

    Parameters
    ----------
    function : callable
        ``function(counts) -> value``, written as arithmetic on the fields of ``counts`` (they may be numpy
        arrays: one call evaluates every group and every Monte-Carlo draw). For classification, ``counts`` is a
        named tuple ``ConfusionCounts`` (fields ``tp``, ``fp``, ``tn``, ``fn``, ``n``); for regression a
        ``RegressionSums`` (``n`` and the sums named in ``values``).
    name : str, optional
        The metric's name (default: ``function.__name__``).
    kind : {"classification", "regression"}, default="classification"
    values : tuple of str
        For regression, the per-row values whose sums the function reads (of ``"prediction"``,
        ``"squared_error"``, ``"absolute_error"``); only these are released.
    scale : {"rate", "count", "value", "squared"}, default="rate"
        What a noise error is measured against when the frame reports unreadable groups: 1 (a rate), the value
        itself (a count), the width of ``bounds`` (a value in the units of ``y``) or its square.

    Examples
    --------
    >>> from fairlearn_dp.metrics import count_metric
    >>> false_discovery_rate = count_metric(lambda c: c.fp / (c.fp + c.tp), name="false_discovery_rate")
    >>> false_discovery_rate([0, 1, 0, 1], [1, 1, 0, 0])
    0.5
    """
    if not callable(function):
        raise TypeError(f"function must be callable, got {type(function).__name__}.")
    if kind not in ("classification", "regression"):
        raise ValueError(f"kind must be 'classification' or 'regression', got {kind!r}.")
    values = tuple(values)
    unknown = [v for v in values if v not in VALUE_COLUMNS]
    if unknown or (values and kind != "regression"):
        raise ValueError(f"values must name regression sums among {VALUE_COLUMNS} (kind='regression'), got {values!r}.")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}.")
    return CountMetric(function, name if name is not None else getattr(function, "__name__", "metric"), kind, values,
                       scale)


def _ratio(numerator, denominator, zero_division=0.0):
    """``numerator / denominator`` elementwise, ``zero_division`` where the denominator is not > 0 (scikit-learn's
    and Fairlearn's convention for an empty denominator).
    """
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, dtype=float),
                                                 np.asarray(denominator, dtype=float))
    out = np.full(numerator.shape, float(zero_division))
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _balanced_accuracy(c, zero_division):
    """scikit-learn's balanced accuracy: the mean recall over the classes present (here: with a count > 0)."""
    positives, negatives = c.tp + c.fn, c.tn + c.fp
    tpr, tnr = _ratio(c.tp, positives), _ratio(c.tn, negatives)
    both = (positives > 0) & (negatives > 0)
    return np.where(both, (tpr + tnr) / 2, np.where(positives > 0, tpr, np.where(negatives > 0, tnr, zero_division)))


# Module-level rules, not lambdas: a frame that holds them pickles, as a MetricFrame does.
def _accuracy(c, z):
    return _ratio(c.tp + c.tn, c.n, z)


def _zero_one_loss(c, z):
    return _ratio(c.fp + c.fn, c.n, z)


def _precision(c, z):
    return _ratio(c.tp, c.tp + c.fp, z)


def _recall(c, z):
    return _ratio(c.tp, c.tp + c.fn, z)


def _f1(c, z):
    return _ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, z)


def _selection_rate(c, z):
    return _ratio(c.tp + c.fp, c.n, z)


def _false_negative_rate(c, z):
    return _ratio(c.fn, c.tp + c.fn, z)


def _true_negative_rate(c, z):
    return _ratio(c.tn, c.tn + c.fp, z)


def _false_positive_rate(c, z):
    return _ratio(c.fp, c.tn + c.fp, z)


def _rows(c):
    return c.n


def _mean_prediction(s):
    return _ratio(s.prediction, s.n)


def _mean_squared_error(s):
    return _ratio(s.squared_error, s.n)


def _mean_absolute_error(s):
    return _ratio(s.absolute_error, s.n)


_CLASSIFICATION = {   # function -> rule(counts, zero_division)
    skm.accuracy_score: _accuracy,
    skm.zero_one_loss: _zero_one_loss,
    skm.balanced_accuracy_score: _balanced_accuracy,
    skm.precision_score: _precision,
    skm.recall_score: _recall,
    skm.f1_score: _f1,
    flm.selection_rate: _selection_rate,
    flm.true_positive_rate: _recall,
    flm.false_negative_rate: _false_negative_rate,
    flm.true_negative_rate: _true_negative_rate,
    flm.false_positive_rate: _false_positive_rate,
}

_REGRESSION = {   # function -> (the per-row value it sums, its scale, rule(sums))
    skm.mean_squared_error: ("squared_error", "squared", _mean_squared_error),
    skm.mean_absolute_error: ("absolute_error", "value", _mean_absolute_error),
}

#: Keyword arguments a recognised function may carry (through ``sample_params`` or ``functools.partial``) without
#: changing what it computes from the counts: the positive label 1 (labels are 0/1).
_NEUTRAL_KWARGS = {"pos_label": (1, True)}

_NOT_FROM_COUNTS = ("metrics: {name} cannot be computed from one release of per-group sums of bounded values: with "
                    "`bounds` (regression) DPMetricFrame computes count, mean_prediction, mean_squared_error and "
                    "mean_absolute_error. Declare a metric of the sums with fairlearn_dp.metrics.count_metric("
                    "kind='regression').")


def as_count_metric(function, name, *, kind_hint, sample_params=None, classes=None):
    """The metric given to a frame as a :class:`CountMetric` (vectorised) or a
    :class:`~fairlearn_dp.metrics._cell_metrics.CellMetric` (evaluated on weighted cells), or a ``ValueError``
    naming it.

    The fast path, for binary 0/1 labels (``classes`` None): the functions of scikit-learn and Fairlearn listed in
    ``_CLASSIFICATION`` and ``_REGRESSION``, ``fairlearn.metrics.count``, ``fairlearn.metrics.mean_prediction``
    (the selection rate for classification, the mean clipped prediction for regression: ``kind_hint``),
    ``functools.partial`` of those with ``zero_division`` or ``pos_label=1`` only, and :class:`CountMetric`
    objects. Any other classification metric (other keyword arguments, other functions, declared ``classes``) goes
    through :func:`~fairlearn_dp.metrics._cell_metrics.check_cell_metric`, which checks on public synthetic probes
    that it is a function of the confusion counts. Public: it reads the functions and arguments only.
    """
    if isinstance(function, CountMetric):
        if sample_params:
            raise ValueError(f"metric {name!r}: a count_metric takes no sample_params.")
        if classes is not None and function.kind == "classification":
            raise ValueError(f"metric {name or function.name!r}: a count_metric reads the binary counts (tp, fp, tn, "
                             "fn), which do not exist with declared labels; pass a function (y_true, y_pred, "
                             "sample_weight=None) instead.")
        return function if name is None else CountMetric(function.function, name, function.kind, function.values,
                                                         function.scale)
    base = function.func if isinstance(function, functools.partial) else function
    label = name if name is not None else getattr(base, "__name__", "metric")
    keywords = dict(sample_params or {})
    per_row = sorted(str(key) for key, value in keywords.items()
                     if not isinstance(value, (str, bytes)) and np.ndim(value) > 0)
    if per_row:
        raise ValueError(f"metric {label!r}: sample_params {per_row} hold per-row values, which a private frame does "
                         "not accept (per-row weights are sample_weight, with their public bound weight_bound).")
    fast = _fast_path(function, label, kind_hint, keywords, classes)
    if fast is not None:
        return fast
    if kind_hint == "regression":
        raise ValueError(_NOT_FROM_COUNTS.format(name=f"metric {label!r}"))
    if not callable(function):
        raise TypeError(f"metric {label!r} must be callable, got {type(function).__name__}.")
    bound = functools.partial(function, **keywords) if keywords else function
    return check_cell_metric(bound, label, (0, 1) if classes is None else tuple(classes))


def _fast_path(function, label, kind_hint, keywords, classes):
    """The vectorised :class:`CountMetric` of a recognised function, or None (the general path decides)."""
    base, kwargs = function, dict(keywords)
    if isinstance(function, functools.partial):
        if function.args:
            return None
        base, kwargs = function.func, {**function.keywords, **kwargs}
    if classes is not None:                            # declared classes: only the row count is vectorised
        return CountMetric(_rows, label, "any", (), "count") if base is flm.count and not kwargs else None
    zero_division = kwargs.pop("zero_division", 0.0)
    for key, value in list(kwargs.items()):
        if key in _NEUTRAL_KWARGS and value in _NEUTRAL_KWARGS[key]:
            kwargs.pop(key)
    if kwargs:
        return None
    if zero_division == "warn":                 # scikit-learn's default: 0 (with a warning it cannot give here)
        zero_division = 0.0
    if isinstance(zero_division, bool) or not isinstance(zero_division, (int, float)):
        return None                             # e.g. np.nan: the general path evaluates it as scikit-learn does
    try:
        return _recognised(base, label, kind_hint, float(zero_division))
    except ValueError:
        return None


def _recognised(base, label, kind_hint, zero_division):
    if base is flm.count:
        return CountMetric(_rows, label, "any", (), "count")
    if base is flm.mean_prediction:
        if kind_hint == "regression":
            return CountMetric(_mean_prediction, label, "regression", ("prediction",), "value")
        return CountMetric(functools.partial(_apply, _selection_rate, zero_division), label)
    if base in _CLASSIFICATION:
        rule = _CLASSIFICATION[base]
        return CountMetric(functools.partial(_apply, rule, zero_division), label)
    if base in _REGRESSION:
        column, scale, rule = _REGRESSION[base]
        return CountMetric(rule, label, "regression", (column,), scale)
    raise ValueError(_NOT_FROM_COUNTS.format(name=f"metric {label!r}"))


def _apply(rule, zero_division, counts):
    return rule(counts, zero_division)


def reads_y_true(metric) -> bool:
    """Whether a frame's metric (resolved) may read ``y_true``, by a public probe of the function: a classification
    :class:`CountMetric` that gives the same value on random confusion counts and on the same counts with every row
    moved to ``y_true = 0`` (``tn + fn``, ``fp + tp``) does not; nor does the row count; a regression metric does.
    """
    if isinstance(metric, CellMetric):
        return cell_metric_reads_y_true(metric)
    if metric.kind == "any":
        return False
    if metric.kind != "classification":
        return True
    tp, fp, tn, fn = np.random.default_rng(20240938).integers(0, 50, size=(4, 64)).astype(float)
    zero = np.zeros_like(tp)
    with np.errstate(all="ignore"):
        on_rows = np.asarray(metric.function(ConfusionCounts(tp=tp, fp=fp, tn=tn, fn=fn)), dtype=float)
        without = np.asarray(metric.function(ConfusionCounts(tp=zero, fp=fp + tp, tn=tn + fn, fn=zero)), dtype=float)
    return not np.allclose(on_rows, without, rtol=1e-12, atol=1e-15, equal_nan=True)

