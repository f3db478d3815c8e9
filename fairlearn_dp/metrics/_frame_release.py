"""The one release of a private metric frame: per-cell counts (or sums), their noise, and their post-processing.

A frame's cells are the (control level, sensitive group) pairs. Each row adds a vector ``v`` to its cell:

- classification: the one-hot of its confusion bin, in the order ``(tn, fp, fn, tp)`` (bin ``2 y_true + y_pred``);
  with ``K`` public classes (``labels``), the one-hot of its bin ``K i + j`` among the ``K^2`` cells
  ``(y_true = class i, y_pred = class j)``;
- regression: ``(1, u_1, ..., u_m)``, its count and the per-row values the metrics read, each scaled into
  ``[0, 1]`` by the public ``bounds = (lo, hi)``: the clipped prediction ``(p - lo) / (hi - lo)``, the squared
  error ``(y - p)^2 / (hi - lo)^2`` and the absolute error ``|y - p| / (hi - lo)`` of the clipped values.

Sensitivity (``k`` = length of ``v``; classification ``||v||_1 = ||v||_2 = 1``, regression ``||v||_1 <= k``,
``||v||_2 <= sqrt(k)``):

- ``privacy_unit="sensitive_attribute"``: neighbours differ in one person's sensitive value, so one row's ``v``
  (its labels, predictions and control level are public) leaves one group's cell for another's within its control
  level: ``-v`` in one cell, ``+v`` in another. L1 ``2 ||v||_1``, L2 ``sqrt(2) ||v||_2``.
- ``privacy_unit="record"``: neighbours differ by substituting one evaluation row (``n`` public): ``-v`` in one
  cell, ``+v'`` in another (or ``v' - v`` in the same one, which is smaller). L1 ``||v||_1 + ||v'||_1``, L2
  ``sqrt(||v||_2^2 + ||v'||_2^2)``: the same bounds.

So classification releases at L1 2 and L2 ``sqrt(2)`` (Laplace ``2 / epsilon`` per count), for any number of classes
(the changed row still moves one unit between two of the ``K^2`` cells), regression at L1
``2 k`` and L2 ``sqrt(2 k)``. One release through :func:`fairlearn_dp.privacy._release.release_laplace`
(diffprivlib's Laplace), or :func:`~fairlearn_dp.privacy._release.release_gaussian` (its analytic Gaussian) when
``delta > 0``, one charge.

Sample weights ``w`` in ``[0, B]`` (public ``B``): each row adds ``w v``. A weight is part of its record and may
depend on the sensitive value (Reweighing's), so a changed row gives ``-w v`` and ``+w' v'`` with ``w, w'`` in
``[0, B]``, under either unit: every bound above times ``B``. No weighted total is public then (post-processing
only clips the counts at 0).

The bounds hold whether or not a row's prediction depends on its sensitive value (a post-processor's predictions
do): the changed row's vector may also change, but it stays one vector in one cell.

Post-processing to a consistent table (only public totals are used, :func:`public_totals`): under
``"sensitive_attribute"`` a sum over groups of a column that depends on public values only is a sum over public
rows, so each such vector is projected onto the non-negative vectors with that sum. With ``public_predictions``
(predictions that do not depend on the sensitive features) every (control level, column) vector over groups has a
public sum; otherwise only the count of each (control level, true class) over groups and predicted classes (for
regression: the count over groups). Under ``"record"`` the count columns are projected onto the non-negative
vectors summing to the public ``n``. Value sums are then clipped into ``[0, count]``.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy._projection import project_onto_nonnegative_sum
from ..privacy._release import noise_scale, noise_sd, release_gaussian, release_laplace

__all__ = ["CONFUSION_COLUMNS", "count_cells", "n_classes", "sensitivities", "release_cells", "release_table",
           "public_totals", "post_process", "simulate", "resample_counts", "empty_cells_nan"]

CONFUSION_COLUMNS = ("tn", "fp", "fn", "tp")


def count_cells(cells, n_cells, *, labels=None, values=None, n_classes=2, weights=None):
    """Per-cell sums: ``(n_cells, k^2)`` confusion counts from ``labels = (y_true, y_pred)`` (class indices in
    ``0 .. k - 1``, ``k = n_classes``; bin ``k y_true + y_pred``, so ``(tn, fp, fn, tp)`` for 0/1 labels), or
    ``(n_cells, 1 + m)`` from ``values`` (rows of ``m`` scaled values; the count first). One pass of
    :func:`numpy.bincount` per column, so any split of the rows sums to the same table (the Dask path).
    ``weights``: each row adds its weight instead of 1 (weighted counts; regression: its weight times its values).
    """
    cells = np.asarray(cells, dtype=np.int64)
    if labels is not None:
        y_true, y_pred = labels
        k = int(n_classes)
        index = cells * (k * k) + k * np.asarray(y_true, dtype=np.int64) + np.asarray(y_pred, dtype=np.int64)
        return np.bincount(index, weights=weights, minlength=k * k * n_cells).reshape(n_cells, k * k).astype(float)
    columns = [np.bincount(cells, weights=weights, minlength=n_cells).astype(float)]
    columns += [np.bincount(cells, weights=values[:, j] if weights is None else weights * values[:, j],
                            minlength=n_cells) for j in range(values.shape[1])]
    return np.stack(columns, axis=1)


def n_classes(table):
    """The number of classes ``k`` of a classification table, whose last axis holds the ``k^2`` confusion cells."""
    k = math.isqrt(table.shape[-1])
    if k * k != table.shape[-1]:
        raise ValueError(f"a confusion table has k^2 columns, got {table.shape[-1]}.")
    return k


def sensitivities(kind, width, weight_bound=1.0, n_tables=1):
    """``(l1, l2)`` of the whole table for one changed row (see the module docstring; the same for both units),
    rows weighted in ``[0, weight_bound]`` (1: unweighted). ``n_tables = M`` tables over the same rows (a
    :class:`~fairlearn_dp.metrics.DPReport` of ``M`` models): the changed row moves in each of them, so the squared
    L2 and the L1 distances add up, L1 ``M l1`` and L2 ``sqrt(M) l2``.
    """
    b, m = float(weight_bound), int(n_tables)
    if kind == "classification":
        return 2.0 * b * m, math.sqrt(2.0 * m) * b
    return 2.0 * width * b * m, math.sqrt(2.0 * width * m) * b


def release_cells(counts, *, kind, epsilon, delta, random_state, weight_bound=1.0, n_tables=1):
    """``(noisy counts, noise scale, noise sd)``: one release of the whole table (``epsilon = inf``: exact);
    ``n_tables``: the number of stacked tables over the same rows (:func:`sensitivities`).
    """
    l1, l2 = sensitivities(kind, counts.shape[-1], weight_bound, n_tables)
    return release_table(counts, l1=l1, l2=l2, epsilon=epsilon, delta=delta, random_state=random_state)


def release_table(counts, *, l1, l2, epsilon, delta, random_state):
    """``(noisy counts, noise scale, noise sd)`` of one release at the given sensitivities (the one home of a count
    table's release: the frames' and the AIF360 metric classes'; ``epsilon = inf``: exact, scale and sd 0).
    """
    if delta == 0:
        noisy = release_laplace(counts, epsilon=epsilon, l1_sensitivity=l1, random_state=random_state)
    else:
        noisy = release_gaussian(counts, l2_sensitivity=l2, epsilon=epsilon, delta=delta, random_state=random_state)
    if math.isinf(epsilon):
        return noisy, 0.0, 0.0
    scale = noise_scale(epsilon, delta, l1, l2)
    return noisy, scale, noise_sd(scale, delta)


def public_totals(table, *, kind, unit, public_predictions, weighted=False):
    """The sums of a ``(..., C, G, K)`` table that are public under ``unit`` (None under ``"record"``).

    ``"sensitive_attribute"``: with ``public_predictions`` the sums over groups ``(..., C, K)`` (every column is a
    function of public values); otherwise, for classification, the per-(control level, true label) sums over groups
    and predicted labels ``(..., C, 2)``, and for regression the row counts over groups ``(..., C, 1)``. Each is a
    sum over rows of values that neighbouring datasets share, so it may be used exactly. Weighted counts have no
    public totals (None): a row's weight may depend on its sensitive value (Reweighing's does).
    """
    if unit != "sensitive_attribute" or weighted:
        return None
    if public_predictions:
        return table.sum(axis=-2)
    if kind == "classification":
        k = n_classes(table)
        return table.reshape(table.shape[:-1] + (k, k)).sum(axis=(-3, -1))        # (..., C, true label)
    return table[..., :1].sum(axis=-2)


def post_process(noisy, *, kind, unit, totals, n, public_predictions=False, weighted=False):
    """The consistent table from a noisy ``(..., C, G, K)`` table (batched over leading axes), with the
    :func:`public_totals` ``totals`` (``"sensitive_attribute"``) or the public row count ``n`` (``"record"``).
    Weighted counts (no public total) are only made non-negative.
    """
    noisy = np.asarray(noisy, dtype=float)
    if weighted:
        out = noisy.copy()
        counts = out if kind == "classification" else out[..., :1]
        np.maximum(counts, 0.0, out=counts)
    elif unit == "sensitive_attribute":
        out = _project_attribute_unit(noisy, kind, totals, public_predictions)
    else:
        out = _project_counts(noisy, kind, n)
    if kind == "regression":
        out[..., 1:] = np.minimum(np.maximum(out[..., 1:], 0.0), out[..., :1])   # 0 <= value sums <= count
    return out


def _project_attribute_unit(noisy, kind, totals, public_predictions):
    if public_predictions:
        return _project_columns(noisy, totals)
    if kind == "classification":
        # (..., C, G, true, predicted) -> (..., C, true, G x predicted): one vector per (control, true label)
        k = n_classes(noisy)
        split = noisy.reshape(noisy.shape[:-1] + (k, k))
        moved = np.moveaxis(split, -2, -3)                                  # (..., C, true, G, predicted)
        rows = moved.reshape(moved.shape[:-2] + (-1,))
        projected = _project_rows(rows, totals).reshape(moved.shape)
        return np.moveaxis(projected, -3, -2).reshape(noisy.shape)
    out = noisy.copy()
    out[..., :1] = _project_columns(noisy[..., :1], totals)
    return out


def _project_rows(rows, totals):
    """Each row (last axis) onto ``{v >= 0, sum v = total}`` with its total (zero for a zero total)."""
    flat = rows.reshape(-1, rows.shape[-1])
    flat_totals = np.asarray(totals, dtype=float).reshape(-1)
    positive = flat_totals > 0
    if positive.all():                   # the projection is row by row: the same numbers without the copies
        return project_onto_nonnegative_sum(flat, flat_totals).reshape(rows.shape)
    out = np.zeros_like(flat)
    if positive.any():
        out[positive] = project_onto_nonnegative_sum(flat[positive], flat_totals[positive])
    return out.reshape(rows.shape)


def _project_columns(noisy, totals):
    """Each (control level, column) vector over groups onto ``{v >= 0, sum v = total}`` (zero for a zero total)."""
    moved = np.moveaxis(noisy, -2, -1)                       # (..., C, K, G)
    return np.moveaxis(_project_rows(moved, totals), -1, -2)


def _project_counts(noisy, kind, n):
    """Record unit: the count cells onto the non-negative vectors summing to the public ``n``."""
    lead = noisy.shape[:-3]
    out = noisy.copy()
    if kind == "classification":
        rows = noisy.reshape(-1, int(np.prod(noisy.shape[-3:])))
        out = project_onto_nonnegative_sum(rows, np.broadcast_to(n, rows.shape[:1])).reshape(noisy.shape)
    else:
        rows = noisy[..., 0].reshape(-1, int(np.prod(noisy.shape[-3:-1])))
        out[..., 0] = project_onto_nonnegative_sum(rows, np.broadcast_to(n, rows.shape[:1])).reshape(
            lead + noisy.shape[-3:-1])
    return out


#: Values (draws x table cells) simulated at a time: memory bounded by the table, not by ``n_boot`` times it.
CHUNK_VALUES = 2 ** 18
#: A cell is resampled by numpy's multinomial when the normal approximation would drop more skewness than this
#: from one of its released counts (:func:`resample_counts`). Under noise of sd ``s`` per count the most it can drop
#: is ``2 / (3^(3/2) s)`` (at binomial variance ``2 s^2``): 0.136 at the Laplace noise of epsilon = 1 (``s = 2
#: sqrt(2)``), so every cell of a frame with that much noise or more is drawn normal, and cells with small counts
#: under less noise are drawn from the multinomial.
MAX_DROPPED_SKEWNESS = 0.14


def simulate(table, *, kind, unit, n, scale, delta, n_boot, rng, sampling, public_predictions=False,
             weight_bound=None):
    """``n_boot`` draws of the whole estimator under the parametric model that the released ``table`` (``(C, G,
    K)``) is the truth, yielded in chunks ``(start, draws)``: ``draws`` holds the post-processed ``(C, G, K)``
    tables of draws ``start, start + 1, ...``. Rows resampled per cell (``sampling``; :func:`resample_counts`, or
    for regression a normal with the largest variance a mean in ``[0, 1]`` allows, ``m (1 - m)`` per row), fresh
    noise of the public ``scale`` added (:func:`_noise`), the same post-processing (:func:`_post_process_draws`).
    Post-processing of released values only: the draws use numpy generators, not a release mechanism.

    A chunk holds at most :data:`CHUNK_VALUES` values (at least one draw) and draws from its own generator, seeded
    by one of the integers drawn from ``rng`` first: the numbers depend on the seed and the table's shape only.
    Inside, each draw is stored bins-major, ``(C, K, G)`` (a bin's groups side by side, the vectors that the
    projections and the metrics read), and yielded as a ``(C, G, K)`` view.

    Weighted counts (``weight_bound = B``): the rows' weights are not released, so a cell of weight sum ``S`` is
    resampled as ``S / B`` rows of weight ``B`` -- the fewest rows, and so the widest sampling spread, that weights
    in ``[0, B]`` allow (Kish's effective size ``(sum w)^2 / sum w^2 >= S / B``): conservative intervals, no
    extra release.
    """
    per_chunk = max(1, CHUNK_VALUES // max(table.size, 1))
    starts = range(0, n_boot, per_chunk)
    seeds = rng.integers(0, 2 ** 63, size=len(starts))
    bins = np.ascontiguousarray(np.swapaxes(table, -1, -2))                     # (C, K, G)
    weighted = weight_bound is not None
    b = 1.0 if weight_bound is None else float(weight_bound)
    options = {"kind": kind, "unit": unit, "public_predictions": public_predictions, "weighted": weighted}
    if sampling and kind == "classification":
        resampler = _CountResampler(bins, b, noise_sd(scale, delta) ** 2, axis=-2)
    for start, seed in zip(starts, seeds, strict=True):
        chunk_rng, n_draws = np.random.default_rng(int(seed)), min(per_chunk, n_boot - start)
        if not sampling:
            base = np.repeat(bins[None], n_draws, axis=0)
        elif kind == "classification":
            base = resampler.draw(n_draws, chunk_rng)
        else:
            base = _resample_sums(bins, n_draws, chunk_rng, b)
        totals = _draw_totals(base, **options)                                  # the draws' own public sums
        if scale > 0:
            base += _noise(chunk_rng, scale, delta, base.shape)                 # base is a fresh array
        yield start, np.swapaxes(_post_process_draws(base, totals=totals, n=n, **options), -1, -2)


def _noise(rng, scale, delta, shape):
    """Simulated release noise: normal of sd ``scale`` (``delta > 0``), else Laplace of scale ``scale`` drawn as
    ``scale E`` with an independent fair sign, ``E`` standard exponential (the Laplace law exactly; a quarter of
    :meth:`numpy.random.Generator.laplace`'s time, which takes a logarithm per draw).
    """
    if delta > 0:
        return rng.normal(0.0, scale, shape)
    noise = rng.standard_exponential(shape)
    noise *= scale
    signs = np.unpackbits(rng.integers(0, 256, (noise.size + 7) // 8, dtype=np.uint8), count=noise.size)
    noise.reshape(-1).view(np.uint64)[...] ^= signs.astype(np.uint64) << np.uint64(63)      # flip the sign bit
    return noise


def resample_counts(table, n_draws, rng, weight_bound=1.0, noise_variance=0.0, axis=-1):
    """``(n_draws,) + table.shape`` resampled confusion counts (the ``K`` bins of a cell along ``axis``): each
    cell's ``m = S / B`` rows (``S`` its count, ``B`` the weight bound) redrawn with the cell's shares ``p``
    (uniform for an empty cell), times ``B``.

    Each draw has the multinomial's mean ``m p`` and covariance ``m (diag(p) - p p^T)`` and sums to ``m``. Where the
    normal approximation is accurate for the released count -- the skewness it drops, ``v / (v + s^2)^(3/2)`` for a
    count of binomial variance ``v = m p_k (1 - p_k)`` and release noise of variance ``s^2`` (``noise_variance /
    B^2`` in rows), is at most :data:`MAX_DROPPED_SKEWNESS` for every count of the cell -- the draw is normal, by
    the chain of conditional normals (:class:`_CountResampler`); elsewhere (small counts with little noise) it is
    numpy's multinomial. Post-processing of released values only.
    """
    return _CountResampler(table, weight_bound, noise_variance, axis).draw(n_draws, rng)


class _CountResampler:
    """:func:`resample_counts` of one table, its per-cell constants computed once for every chunk of draws.

    The normal draws follow the chain of conditional normals: count ``j`` is ``q_j R_j + sd_j Z_j`` -- ``R_j`` the
    rows left after counts ``0 .. j - 1``, ``q_j = p_j / P_j`` with ``P_j = p_j + ... + p_last``, ``sd_j^2 = m P_j
    q_j (1 - q_j)``, ``Z_j`` standard normal -- and the last count is the rest. The multinomial is the same chain of
    binomials, with the same conditional means and mean conditional variances, so the two share their first two
    moments (``K - 1`` normals per cell).
    """

    def __init__(self, table, weight_bound, noise_variance, axis):
        table = np.asarray(table, dtype=float)
        self.shape, self.axis, self.weight_bound = table.shape, axis % table.ndim, weight_bound
        total = table.sum(axis=self.axis, keepdims=True)
        sizes = np.rint(total / weight_bound)
        shares = np.divide(table, total, out=np.full(table.shape, 1.0 / table.shape[self.axis]), where=total > 0)
        variance = sizes * shares * (1.0 - shares)
        dropped = np.divide(variance, (variance + noise_variance / weight_bound ** 2) ** 1.5,
                            out=np.zeros(variance.shape), where=variance > 0)
        self.exact = (dropped > MAX_DROPPED_SKEWNESS).any(axis=self.axis)
        rest = np.flip(np.cumsum(np.flip(shares, self.axis), axis=self.axis), self.axis)        # P_j
        quota = np.divide(shares, rest, out=np.zeros(shares.shape), where=rest > 0)
        spread = np.sqrt(np.maximum(sizes * rest * quota * (1.0 - quota), 0.0))
        self.sizes = np.take(sizes, 0, axis=self.axis)
        self.quota = [np.take(quota, j, axis=self.axis) for j in range(table.shape[self.axis] - 1)]
        self.spread = [np.take(spread, j, axis=self.axis) for j in range(table.shape[self.axis] - 1)]
        self.exact_shares = np.moveaxis(shares, self.axis, -1)[self.exact]

    def draw(self, n_draws, rng):
        """``(n_draws,) + table.shape`` draws from ``rng``."""
        draws = np.empty((n_draws,) + self.shape)
        left = np.repeat(self.sizes[None], n_draws, axis=0)
        at = (slice(None),) * (self.axis + 1)
        for j, (quota, spread) in enumerate(zip(self.quota, self.spread, strict=True)):
            count = rng.standard_normal(left.shape)
            count *= spread
            count += quota * left
            draws[at + (j,)] = count
            left -= count
        draws[at + (len(self.quota),)] = left
        if self.exact.any():
            cells = np.moveaxis(draws, self.axis + 1, -1)                         # a (n_draws, cells..., K) view
            cells[:, self.exact] = rng.multinomial(self.sizes[self.exact].astype(np.int64), self.exact_shares,
                                                   size=(n_draws, len(self.exact_shares)))
        if self.weight_bound != 1.0:
            draws *= self.weight_bound
        return draws


def _resample_sums(bins, n_draws, rng, weight_bound=1.0):
    """Regression sums ``(n_draws, C, 1 + m, G)`` from the bins-major ``(C, 1 + m, G)`` table (:func:`simulate`)."""
    count = bins[..., :1, :]
    mean = np.divide(bins[..., 1:, :], count, out=np.zeros(bins[..., 1:, :].shape), where=count > 0).clip(0.0, 1.0)
    sd = np.sqrt(weight_bound * count * mean * (1.0 - mean))
    values = bins[..., 1:, :] + sd * rng.standard_normal((n_draws,) + bins[..., 1:, :].shape)
    counts = np.broadcast_to(count, (n_draws,) + count.shape)
    return np.concatenate([counts, np.clip(values, 0.0, counts)], axis=-2)


def _draw_totals(draws, *, kind, unit, public_predictions, weighted):
    """:func:`public_totals` of bins-major draws ``(B, C, K, G)``: the same sums, over contiguous groups."""
    if unit != "sensitive_attribute" or weighted:
        return None
    if public_predictions:
        return draws.sum(axis=-1)                                                 # (B, C, K)
    if kind == "classification":
        classes = math.isqrt(draws.shape[-2])
        return draws.reshape(draws.shape[:-2] + (classes, -1)).sum(axis=-1)       # (B, C, true label)
    return draws[..., :1, :].sum(axis=-1)


def _post_process_draws(draws, *, kind, unit, totals, n, public_predictions, weighted):
    """:func:`post_process` of bins-major draws ``(B, C, K, G)`` (the same projections, each onto a row of
    contiguous values: no copies), in place.
    """
    b, c, k, g = draws.shape
    counts = draws if kind == "classification" else draws[:, :, :1]
    if weighted:
        np.maximum(counts, 0.0, out=counts)
    elif unit == "sensitive_attribute":
        if kind == "classification" and not public_predictions:       # (true label) x (predicted label, group)
            classes = math.isqrt(k)
            rows = draws.reshape(-1, classes * g)
        else:                                                         # (column) x (group)
            rows = counts.reshape(-1, g)
        projected = _project_rows(rows, totals)
        counts[...] = projected.reshape(counts.shape)
    else:
        rows = counts.reshape(b, -1)
        counts[...] = project_onto_nonnegative_sum(rows, np.broadcast_to(n, (b,))).reshape(counts.shape)
    if kind == "regression":
        draws[:, :, 1:] = np.minimum(np.maximum(draws[:, :, 1:], 0.0), draws[:, :, :1])   # 0 <= value sums <= count
    return draws


def empty_cells_nan(table, values):
    """``values`` (``{metric name: (..., cells)}``) with NaN in each cell whose row of ``table`` (``(..., cells,
    K)``) adds up to 0: MetricFrame's value of a cell without rows. Only for the exact table (``epsilon = inf``),
    whose zeros are public; a released table keeps its values there (a zero count is noise's answer, not a fact).
    """
    empty = np.asarray(table).sum(axis=-1) == 0
    if not empty.any():
        return values
    out = {}
    for name, value in values.items():
        value = np.array(value, dtype=object if np.asarray(value).dtype == object else float)
        value[empty] = np.nan
        out[name] = value
    return out

