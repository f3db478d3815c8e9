"""Any metric of the confusion counts: the user's own callable, evaluated on the released counts as weighted cells.

A classification metric ``f(y_true, y_pred, sample_weight=None, ...)`` is a *function of the confusion counts* when
its value on any rows equals its value on those rows' confusion cells -- the ``K^2`` pairs ``(y_true = class i,
y_pred = class j)`` with at least one row, each once, weighted by its count. For such a metric the released
(post-processed, non-negative) counts are a weighted dataset of at most ``K^2`` rows, and ``f`` on it is the value
the metric would have on rows with those counts. This is how scikit-learn's classification metrics with their keyword
arguments (``beta``, ``average``, ``pos_label``, ``labels``, ``zero_division``), ``confusion_matrix`` and
Fairlearn's base metrics are computed, without a table of their names.

What "is a function of the counts" means here is checked, before the budget, on public synthetic probes only
(:func:`check_cell_metric`): random labelled samples over the public classes, of several sizes and class
mixtures, drawn from a fixed seed. On each, the metric on the rows must equal the metric on the rows in reverse
order (it does not read the row order) and the metric on their weighted cells (it reads the rows only through the
counts, and reads ``sample_weight`` as frequency weights). A metric that fails is refused with the probe that
failed.

A metric without a ``sample_weight`` parameter (a user's ``f(y_true, y_pred)``, e.g. Fairlearn's examples'
``member_counts`` or Wilson bounds) is evaluated on *rows replicated from the counts*: each cell repeated as many
times as its released count rounded to the nearest integer (a post-processing of the release; exact at
``epsilon=inf``, where the unweighted counts are integers). Its probes compare the metric on the rows, on the rows
in reverse order and on the rows replicated from their counts (grouped by cell). It needs unweighted counts:
with ``sample_weight`` such a metric is refused, as MetricFrame's call would fail.

Probes are evidence, not a proof: a metric that treats weights as frequencies on integers only (e.g. by repeating
rows) passes them and is wrong on non-integer counts. Where probe and rows disagree by more than rounding, the
metric is refused.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sklearn

__all__ = ["CellMetric", "check_cell_metric", "flat_values", "CELL_DRAWS", "cell_metric_reads_y_true"]

#: Monte-Carlo draws a cell metric is evaluated on for the intervals (one Python call per group and draw, so the
#: first ``CELL_DRAWS`` of the frame's draws; the vectorised count metrics use them all).
CELL_DRAWS = 100

#: Sizes of the probe samples (1: a single row; the larger ones hold most of the ``K^2`` cells for small ``K``).
_PROBE_SIZES = (1, 2, 3, 5, 8, 13, 30, 60, 120)
_PROBE_SEED = 20240938            # public: the probes are synthetic data, never the user's rows
_MIN_DEFINED = 3                  # probes on which the metric must return a value (others may raise on both)


@dataclass(frozen=True)
class CellMetric:
    """A metric of the confusion counts evaluated on weighted cells: ``function(y_true, y_pred,
    sample_weight=counts)`` on the ``K^2`` cells over ``classes``.

    ``scalar`` is False for a metric whose value is an array (``confusion_matrix``): its cells in ``by_group``
    hold arrays and its intervals are NaN.
    """

    function: Callable
    name: str
    classes: tuple
    scalar: bool = True
    kind: str = "classification"
    values: tuple = ()
    scale: str = "rate"
    replicate: bool = False        # no sample_weight parameter: evaluated on rows replicated from rounded counts

    def evaluate(self, table):
        """The metric on each confusion table of ``table`` (shape ``(..., K^2)``): floats ``(...)`` for a scalar
        metric, else an object array of arrays. A table without a positive count, or on which the metric raises
        (e.g. one class only), gives NaN.
        """
        table = np.asarray(table, dtype=float)
        lead = table.shape[:-1]
        flat = table.reshape(-1, table.shape[-1])
        cell_true, cell_pred = _cells(self.classes)
        out = np.empty(flat.shape[0], dtype=float if self.scalar else object)
        # scikit-learn's parameter validation ran in the probes (same arguments), so it is skipped per call here
        with warnings.catch_warnings(), np.errstate(all="ignore"), sklearn.config_context(skip_parameter_validation=True):
            warnings.simplefilter("ignore")   # scikit-learn's zero_division warnings, once per group and draw
            for row, weights in enumerate(flat):
                out[row] = _value(self.function, cell_true, cell_pred, weights, self.scalar, self.replicate)
        return out.reshape(lead)


def _cells(classes):
    """``(y_true, y_pred)`` of the ``K^2`` cells, row-major (cell ``K i + j`` is ``(classes[i], classes[j])``)."""
    labels = np.asarray(list(classes))
    k = len(labels)
    return np.repeat(labels, k), np.tile(labels, k)


def _value(function, cell_true, cell_pred, weights, scalar, replicate=False):
    if replicate:
        weights = np.rint(weights)           # post-processing: whole rows replicated from the released counts
    positive = weights > 0
    if not positive.any():
        return np.nan
    weights = weights[positive]
    if np.all(weights == np.round(weights)):
        weights = weights.astype(np.int64)   # integer counts (epsilon=inf) stay integers: confusion_matrix's dtype
    try:
        value = np.asarray(_on_cells(function, cell_true[positive], cell_pred[positive], weights, replicate))
    except Exception:                        # noqa: BLE001 -- undefined on this released table (e.g. one class left)
        return np.nan
    if scalar:
        return float(value) if value.ndim == 0 else np.nan
    return value


def _on_cells(function, cell_true, cell_pred, counts, replicate):
    """The metric on cells weighted by ``counts``, or (``replicate``) on each cell repeated ``counts`` times."""
    if replicate:
        counts = counts.astype(np.int64)
        return function(np.repeat(cell_true, counts), np.repeat(cell_pred, counts))
    return function(cell_true, cell_pred, sample_weight=counts)


def _takes_sample_weight(function):
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "sample_weight" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def check_cell_metric(function, name, classes):
    """The :class:`CellMetric` of ``function``, or a ``ValueError`` naming the metric and the failed probe.

    Public: it calls ``function`` on synthetic samples over the public ``classes`` only (see the module docstring).
    """
    replicate = not _takes_sample_weight(function)
    rng = np.random.default_rng(_PROBE_SEED)
    labels = np.asarray(list(classes))
    k = len(labels)
    cell_true, cell_pred = _cells(labels)
    defined, shapes, homogeneous, error = 0, set(), True, None
    for size in _PROBE_SIZES:
        y_true, y_pred = _probe_sample(rng, k, size)
        counts = np.bincount(k * y_true + y_pred, minlength=k * k).astype(float)
        on_rows = _attempt(function, labels[y_true], labels[y_pred])
        reversed_rows = _attempt(function, labels[y_true][::-1], labels[y_pred][::-1])
        positive = counts > 0
        on_cells = _attempt(function, cell_true[positive], cell_pred[positive], counts[positive], replicate)
        outcomes = (on_rows, reversed_rows, on_cells)
        if all(isinstance(o, Exception) for o in outcomes):
            error = outcomes[0]
            continue                                   # undefined on these rows (e.g. one class): NaN in a frame
        problem = _disagreement(outcomes, size, replicate)
        if problem:
            raise ValueError(f"metrics: metric {name!r} is not a function of the confusion counts, so it cannot be "
                             f"computed from the released counts: {problem} Declare a metric of the counts with "
                             "fairlearn_dp.metrics.count_metric, or report it with Fairlearn's MetricFrame on "
                             "public data.")
        defined += 1
        shapes.add(on_rows.shape)
        doubled = _attempt(function, cell_true[positive], cell_pred[positive], 2 * counts[positive], replicate)
        homogeneous = homogeneous and not _disagreement((on_rows, doubled, doubled), size, replicate)
    if defined < _MIN_DEFINED:
        raise ValueError(f"metrics: metric {name!r} returned a value on {defined} of {len(_PROBE_SIZES)} synthetic "
                         f"probes over the classes {labels.tolist()}, too few to check that it is a function of the "
                         f"confusion counts (it raised {type(error).__name__}: {error}).")
    scalar = shapes == {()}
    # A value unchanged when every count doubles is a rate (its noise error is judged against 1), else a count.
    return CellMetric(function, name, tuple(classes), scalar=scalar,
                      scale="rate" if homogeneous or not scalar else "count", replicate=replicate)


def cell_metric_reads_y_true(metric):
    """Whether the value of ``metric`` (a :class:`CellMetric`) may depend on ``y_true``: False when, on every
    synthetic probe where it is defined (at least ``_MIN_DEFINED``), its value with random true classes equals its
    value with every true class the first one (e.g. ``selection_rate``). Public: synthetic probes only.
    """
    rng = np.random.default_rng(_PROBE_SEED + 1)
    labels = np.asarray(list(metric.classes))
    defined = 0
    for size in _PROBE_SIZES:
        y_true, y_pred = _probe_sample(rng, len(labels), size)
        outcomes = (_attempt(metric.function, labels[y_true], labels[y_pred]),
                    _attempt(metric.function, labels[np.zeros_like(y_true)], labels[y_pred]))
        if all(isinstance(o, Exception) for o in outcomes):
            continue
        if _disagreement(outcomes + outcomes[1:], size):
            return True
        defined += 1
    return defined < _MIN_DEFINED


def _probe_sample(rng, k, size):
    """Class indices of a random sample: true classes from random shares, predictions right about 60% of the time."""
    y_true = rng.choice(k, size, p=rng.dirichlet(np.ones(k)))
    y_pred = np.where(rng.random(size) < 0.6, y_true, rng.choice(k, size, p=rng.dirichlet(np.ones(k))))
    return y_true, y_pred


def _attempt(function, y_true, y_pred, weights=None, replicate=False):
    """The metric's value as a float array, or the exception it raised."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = function(y_true, y_pred) if weights is None else _on_cells(function, y_true, y_pred, weights,
                                                                               replicate)
            return np.asarray(value, dtype=float)
        except Exception as exc:                       # noqa: BLE001 -- the metric's own failure is the probe's answer
            return exc


def _disagreement(outcomes, size, replicate=False):
    """Why the three values of a probe (rows, reversed rows, weighted cells) disagree, or ``""``."""
    names = ("on the rows", "on the rows in reverse order", "on the rows grouped by confusion cell" if replicate else
             "on the rows' confusion cells weighted by their counts")
    failed = [(n, o) for n, o in zip(names, outcomes, strict=False) if isinstance(o, Exception)]
    if failed:
        where, exc = failed[0]
        worked = next(n for n, o in zip(names, outcomes, strict=False) if not isinstance(o, Exception))
        return (f"on a synthetic sample of {size} rows it raised {type(exc).__name__} ({exc}) {where} but returned "
                f"a value {worked}.")
    rows = outcomes[0]
    for label, other in zip(names[1:], outcomes[1:], strict=False):
        if other.shape != rows.shape or not np.allclose(other, rows, rtol=1e-9, atol=1e-12, equal_nan=True):
            return (f"on a synthetic sample of {size} rows its value {label} differs from its value on the rows "
                    f"({_show(other)} against {_show(rows)}).")
    return ""


def _show(value):
    return f"{float(value):.6g}" if value.ndim == 0 else f"an array of shape {value.shape}"


def flat_values(values):
    """A metric's values as one flat column: floats, or an object array of arrays (array-valued metrics)."""
    values = np.asarray(values)
    if values.dtype != object:
        return values.reshape(-1)
    out = np.empty(values.size, dtype=object)
    out[:] = list(values.reshape(-1))
    return out
