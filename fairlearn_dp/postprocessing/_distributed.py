"""Out-of-core and distributed fits of the post-processors: sufficient statistics on Dask workers, one release.

Both post-processors read their data only through one table of counts: the (group, bin) histogram of
:class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` and the (group, score bin, label) table of
:class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`. Counts add up over any split of the rows, so with Dask
inputs ``fit`` is a map-reduce (docs/design.md, "Scale"):

1. on the client, before any data are read: the public parameters and the budget (the estimator's own checks),
   then this module's checks of the Dask inputs, which look at types and layout only (number of partitions, known
   chunk sizes); ``groups`` must be declared;
2. map, on the workers, partition by partition: the estimator's own per-row code (``_outputs`` -- the prefit
   model's predict method --, ``_discretize``, label and group encoding, with their domain checks and messages),
   reduced to an integer count per cell with :func:`numpy.bincount`;
3. reduce: the count tables are summed in a tree of tasks on the workers, and only the summed table (``n_groups x
   n_bins`` or ``n_groups x n_bins x 2`` integers) reaches the client;
4. on the client: one release of ``counts / n`` through :func:`fairlearn_dp.privacy.noisy_vector` at the
   sensitivity of :func:`fairlearn_dp.privacy.joint_histogram_sensitivity`, charged once -- what
   :func:`~fairlearn_dp.privacy.private_joint_histogram` does after it has counted -- then the estimator's own
   ``_solve_from_release``.

The same data, parameters and ``random_state`` therefore give the same released statistic (and the same fitted
object) as the in-memory ``fit``, whatever the partitioning and the scheduler (tested).

Privacy and failure paths. The neighbouring relation, the sensitivity and the mechanism are the in-memory fit's.
The number of rows ``n`` is public there, and so is the layout here (how many partitions, their lengths): it is a
property of how the data are stored, not of their values, and no error message carries a count or a value.
``groups`` must be passed: reading the list of groups off distributed data would need a pass whose result is
treated as public (the in-memory fit does it with a ``PrivacyWarning``; a Dask fit refuses instead). A row that
fails a domain check (non-numeric output, a group not in ``groups``, a non-binary label, partitions of different
lengths) raises on its worker before anything is released: the error reaches the client, the accountant is not
charged and the estimator stays as it was (``atomic_fit``).

Scope: the base estimator must be prefit (``prefit=True``) or absent (``estimator=None``, ``X`` holds its
outputs): fitting it on distributed data is not this package's job. ``DPThresholdOptimizer`` at ``epsilon=inf``
with an estimator is Fairlearn's ``ThresholdOptimizer``, which needs in-memory data, so it refuses Dask inputs.
Dask is an optional dependency (``pip install "fairdp[dask]"``); nothing here imports it unless Dask inputs are
passed. ``predict`` and ``_pmf_predict`` on Dask inputs (lazy, partition by partition, with the partition checks
below) are in ``_dask_predict.py``.
"""

from __future__ import annotations

import copy
import math
import numbers

import numpy as np

from ..privacy._release import release_joint_counts
from ..utils._dask import is_dask_input, partitions as _partitions
from ..utils._validation import as_group_vector, encode_groups

__all__ = ["is_dask_input", "fit_regression_dask", "fit_threshold_optimizer_dask"]

#: Partition count tables summed per reduce task (the tree of sums has depth log_FAN_IN(number of partitions)).
FAN_IN = 16

_ARGUMENTS = ("X", "y", "sensitive_features")


# ------------------------------------------------------------------------------------------------ public checks
def _require_groups(groups):
    if groups is None:
        raise ValueError("groups=[...] is required with Dask inputs: the public list of groups is not read off "
                         "distributed data. Declare every group the data may hold.")


def _require_prefit_or_none(estimator):
    if estimator.estimator is not None and not estimator.prefit:
        raise ValueError("With Dask inputs the estimator must be prefit (prefit=True; its predict method then runs "
                         "on every partition) or None (X holds its outputs): fitting it on distributed data is not "
                         "supported.")


def _aligned_partitions(X, y, sensitive_features):
    """Partition ``i`` of every argument, side by side: ``[(x_i, y_i or None, sf_i), ...]``.

    Raises ``ValueError`` naming the argument when partitions cannot align: not a Dask collection, unknown chunk
    sizes, another number of partitions, or known partition lengths that differ from X's.
    """
    values = dict(zip(_ARGUMENTS, (X, y, sensitive_features)))
    if sensitive_features is None:
        raise ValueError("sensitive_features is required.")
    parts = {name: _partitions(value, name) for name, value in values.items() if value is not None}
    x_parts, x_lengths = parts["X"]
    for name, (blocks, lengths) in parts.items():
        if len(blocks) != len(x_parts):
            raise ValueError(f"{name} has {len(blocks)} partitions but X has {len(x_parts)}: the arguments must be "
                             "partitioned alike, row for row (rechunk/repartition them the same way).")
        if lengths is not None and x_lengths is not None and lengths != x_lengths:
            if sum(lengths) != sum(x_lengths):
                raise ValueError(f"{name} and X have different lengths (length mismatch).")
            raise ValueError(f"{name} is chunked differently from X along the rows: rechunk it to X.chunks[0] "
                             "so that partition i of every argument holds the same rows.")
    return [tuple(parts[name][0][i] if name in parts else None for name in _ARGUMENTS)
            for i in range(len(x_parts))]


def _template(estimator, before, set_here):
    """A light copy of ``estimator`` for the workers: its parameters and what this fit set so far.

    ``set_here`` names the attributes this fit assigned; any other attribute that appeared or changed since the
    snapshot ``before`` (e.g. set by the estimator's own ``_set_grid``) is kept too. Attributes of an earlier fit
    (e.g. large transport plans) are left out, and so is the accountant: workers only run per-row methods.
    """
    names = set(estimator.get_params(deep=False)) | set(set_here) | {
        name for name, value in estimator.__dict__.items() if before.get(name, _MISSING) is not value}
    template = copy.copy(estimator)
    template.__dict__ = {name: value for name, value in estimator.__dict__.items() if name in names}
    template.accountant = None
    return template


_MISSING = object()


# ---------------------------------------------------------------------------------------------- map and reduce
def _rows(part):
    return 0 if part is None else len(part)


def _check_partition_lengths(index, x, y, sensitive_features):
    n = _rows(x)
    for name, part in (("y", y), ("sensitive_features", sensitive_features)):
        if part is not None and _rows(part) != n:
            raise ValueError(f"{name} and X differ in length in partition {index} (length mismatch): partition i "
                             "of every argument must hold the same rows.")
    return n


def _encode(sensitive_features, n_rows, groups):
    """Group index of each row: :func:`encode_groups` of :func:`as_group_vector`, with a fast path for a numeric
    column (same indices; anything unusual, including an unknown group, goes the general way and its error).
    """
    codes = _encode_numeric(sensitive_features, groups)
    if codes is not None:
        return codes
    return encode_groups(as_group_vector(sensitive_features, n_rows, groups=groups), groups)


def _encode_numeric(sensitive_features, groups):
    """Indices into ``groups`` for a 1-D int/float column whose values are all among numeric ``groups``; else None.

    ``encode_groups`` matches labels by Python equality (``1 == 1.0``); for integer columns that is integer
    equality and for float columns float equality, which this reproduces for groups that convert exactly.
    """
    values = _numeric_column(sensitive_features)
    if values is None:
        return None
    matched = _numeric_keys(groups, values.dtype.kind)
    if matched is None:
        return None
    codes = np.full(values.size, -1, dtype=np.intp)
    for key, position in zip(*matched):                 # one comparison pass per group: few groups
        codes[values == key] = position
    if np.any(codes < 0):                    # NaN, or a label not in groups: the general path decides (and raises)
        return None
    return codes


def _numeric_column(sensitive_features):
    """The 1-D int/float array of ``sensitive_features`` (a 1-D pandas object unwrapped), or None: not numeric,
    not one column, or uint64 (beyond the keys' range).
    """
    values = sensitive_features
    if hasattr(values, "to_numpy") and getattr(values, "ndim", 2) == 1:
        values = values.to_numpy()
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.dtype.kind not in "iuf":
        return None
    if values.dtype.kind == "u" and values.dtype.itemsize == 8:
        return None
    return values


def _numeric_keys(groups, kind):
    """``(keys, positions)``: each numeric group's key for a column of dtype kind ``kind`` and its index in
    ``groups``; None when the fast path cannot decide (a non-numeric group, one that does not convert exactly, no
    key, or more than ``_MAX_FAST_GROUPS`` keys).
    """
    keys, positions = [], []
    for position, group in enumerate(groups):
        key = _numeric_key(group, kind)
        if key is None:
            return None
        if key is _NO_MATCH:
            continue                             # a fractional group cannot equal an integer label
        keys.append(key)
        positions.append(position)
    if not keys or len(keys) > _MAX_FAST_GROUPS:
        return None
    return keys, positions


def _numeric_key(group, kind):
    """The key that ``group`` equals in a column of dtype kind ``kind`` (float, or int within +-2^62); None when
    the general path must decide; ``_NO_MATCH`` for a fractional group and an integer column.
    """
    if isinstance(group, (bool, np.bool_)) or not isinstance(group, numbers.Real):
        return None
    if kind == "f":
        key = float(group)
        if key != group:
            return None                          # an int beyond float precision: leave it to the general path
        return key
    if isinstance(group, numbers.Integral):
        key = int(group)
    elif float(group).is_integer():
        key = int(group)
    else:
        return _NO_MATCH
    if not -2 ** 62 < key < 2 ** 62:
        return None
    return key


_NO_MATCH = object()


#: Up to this many numeric groups, group labels are matched by one comparison pass per group.
_MAX_FAST_GROUPS = 64


def _labels(y):
    """``_binary_labels(y)`` of DPThresholdOptimizer, without its per-value Python check when ``y`` is a numeric
    array of zeros and ones (the same 0/1 integers); anything else goes its way, errors included.
    """
    from ._inputs import binary_labels as _binary_labels

    values = y.to_numpy() if hasattr(y, "to_numpy") else y
    if (isinstance(values, np.ndarray) and values.dtype.kind in "biuf" and values.size
            and (values.ndim == 1 or values.shape == (values.shape[0], 1))):
        values = values.ravel()
        if np.all((values == 0) | (values == 1)):
            return values.astype(np.intp)
    return _binary_labels(y)


def _sum_tables(*tables):
    return sum(tables[1:], tables[0])


def _summed(partition_tables):
    """Tree-sum the per-partition count tables on the workers; one table comes back to the client."""
    import dask

    level = partition_tables
    while len(level) > 1:
        level = [dask.delayed(_sum_tables, pure=True)(*level[i:i + FAN_IN]) for i in range(0, len(level), FAN_IN)]
    (table,) = dask.compute(level[0])
    return np.asarray(table)


def _regression_counts(template, groups, n_bins, index, x, y, sensitive_features):
    """Map step of DPFairRegressionPostprocessor: ``#{i : a_i = a, h(f(x_i)) = v_j}`` on one partition."""
    n_cells = len(groups) * n_bins
    if _check_partition_lengths(index, x, y, sensitive_features) == 0:
        return np.zeros(n_cells, dtype=np.int64)
    outputs = template._outputs(x, private=True)
    if y is not None and _rows(y) != outputs.size:
        raise ValueError(f"y and the outputs of X differ in length in partition {index} (length mismatch).")
    group_index = _encode(sensitive_features, outputs.size, groups)
    bin_index = template._discretize(outputs, warn_clipped=False)
    return np.bincount(group_index * n_bins + bin_index, minlength=n_cells).astype(np.int64, copy=False)


def _threshold_counts(template, groups, n_bins, index, x, y, sensitive_features):
    """Map step of DPThresholdOptimizer: ``#{i : a_i = a, bin_i = b, y_i = l}`` on one partition, cell
    ``a (2 B) + 2 b + l`` (the layout ``_release_joint_table`` releases).
    """
    from .._fairlearn_compat import MESSAGE_X_Y_ROWS as _MESSAGE_X_Y_ROWS

    from ._inputs import check_lengths as _check_lengths

    n_cells = len(groups) * 2 * n_bins
    if _check_partition_lengths(index, x, y, sensitive_features) == 0:
        return np.zeros(n_cells, dtype=np.int64)
    labels = _labels(y)
    _check_lengths(x, sensitive_features, labels.size)
    outputs = template._outputs(x, private=True)
    if outputs.size != labels.size:
        raise ValueError(_MESSAGE_X_Y_ROWS)
    group_index = _encode(sensitive_features, labels.size, groups)
    copy.copy(template)._set_grid(outputs)           # fit's domain check of the outputs (binary predictions)
    bin_index = template._discretize(outputs, warn_clipped=False)
    cells = group_index * (2 * n_bins) + 2 * bin_index + labels
    return np.bincount(cells, minlength=n_cells).astype(np.int64, copy=False)


def _cell_counts(count_partition, template, groups, n_bins, partitions):
    """Map ``count_partition`` over the aligned partitions and tree-sum the tables: ``(counts, n)``."""
    import dask

    shared = dask.delayed(template, pure=False)      # shipped once per worker, not once per task
    tables = [dask.delayed(count_partition, pure=True)(shared, list(groups), n_bins, index, *parts)
              for index, parts in enumerate(partitions)]
    counts = _summed(tables)
    return counts, int(counts.sum())


# ----------------------------------------------------------------------------------------------------- release
def release_cell_counts(counts, n, *, epsilon, delta, accountant, random_state):
    """The summed counts released on the client by :func:`fairlearn_dp.privacy._release.release_joint_counts`,
    the release step of the in-memory :func:`~fairlearn_dp.privacy.private_joint_histogram` (same sensitivity,
    noise and single charge): with the same counts and ``random_state`` the very same array.
    """
    if n < 1:
        raise ValueError("X is empty.")
    return release_joint_counts(counts, n, epsilon=epsilon, delta=delta, accountant=accountant,
                                random_state=random_state)


# --------------------------------------------------------------------------------------------------------- fits
def fit_regression_dask(estimator, X, y, sensitive_features, kwargs, *, public):
    """``DPFairRegressionPostprocessor.fit`` on Dask inputs (called by ``fit`` after its public checks)."""
    epsilon, delta, (lower, upper), n_bins, alpha, groups = public
    _require_groups(groups)
    _require_prefit_or_none(estimator)
    partitions = _aligned_partitions(X, y, sensitive_features)
    before = dict(estimator.__dict__)
    estimator.estimator_ = estimator._fit_estimator(X, y, **kwargs)   # prefit or None: X is not read
    estimator.groups_ = groups
    estimator.bin_edges_ = np.linspace(lower, upper, n_bins + 1)
    estimator.bin_centers_ = lower + (np.arange(n_bins) + 0.5) * (upper - lower) / n_bins

    template = _template(estimator, before, ("estimator_", "groups_", "bin_edges_", "bin_centers_"))
    counts, n = _cell_counts(_regression_counts, template, groups, n_bins, partitions)
    estimator.noisy_joint_pmf_, estimator.privacy_spent_ = release_cell_counts(
        counts.reshape(len(groups), n_bins), n, epsilon=epsilon, delta=delta, accountant=estimator.accountant,
        random_state=estimator.random_state)
    return estimator._solve_from_release(alpha, n_bins)


def fit_threshold_optimizer_dask(estimator, X, y, sensitive_features, kwargs, *, epsilon, delta):
    """``DPThresholdOptimizer.fit`` on Dask inputs (called by ``fit`` after validating epsilon and delta)."""
    from .._fairlearn_compat import MESSAGE_Y_NONE as _MESSAGE_Y_NONE

    if estimator._delegates_to_fairlearn(epsilon):
        raise ValueError("Dask inputs are not supported at epsilon=inf with an estimator: there DPThresholdOptimizer "
                         "is Fairlearn's ThresholdOptimizer, whose fit needs in-memory data. Compute the inputs, or "
                         "pass the base model's scores as X with estimator=None.")
    epsilon, delta, gamma, groups = estimator._check_public_inputs()
    estimator._check_fit_arguments(X, kwargs)
    if y is None:
        raise ValueError(_MESSAGE_Y_NONE + ".")
    _require_groups(groups)
    _require_prefit_or_none(estimator)
    partitions = _aligned_partitions(X, y, sensitive_features)
    estimator._forget_fit()
    before = dict(estimator.__dict__)
    estimator.estimator_ = estimator._fit_estimator(X, y, private=not math.isinf(epsilon), **kwargs)
    estimator._predict_method = estimator._resolve_predict_method()
    estimator.groups_ = groups
    # The grid is public (mode from predict_method, edges from score_range and n_score_bins); the outputs are
    # checked per partition on the workers (binary predictions), so a placeholder output sets it here.
    estimator._set_grid(np.zeros(1))
    n_bins = estimator.bin_edges_.size - 1

    template = _template(estimator, before, ("estimator_", "_predict_method", "groups_", "mode_", "bin_edges_"))
    counts, n = _cell_counts(_threshold_counts, template, groups, n_bins, partitions)
    # The in-memory release's layout: (group, 2 * bin + label) cells, released as one (n_groups, 2 B) array.
    noisy, estimator.privacy_spent_ = release_cell_counts(
        counts.reshape(len(groups), 2 * n_bins), n, epsilon=epsilon, delta=delta, accountant=estimator.accountant,
        random_state=estimator.random_state)
    estimator.noisy_table_ = noisy.reshape(len(groups), n_bins, 2)
    return estimator._solve_from_release(gamma, n_rows=n, n_bins=n_bins, epsilon=epsilon, delta=delta)
