"""Baseline for bench_allocation: the Monte-Carlo hot path of BL and PoS as it was at commit c526cd7 (before issue
41 item 4), copied so that the benchmark can time it against the current code in the same run.

Only the per-chunk work is copied (``_chunk_sums`` with the statistics called through ``allocate``, BL and PoS as
they were, Michelot's iteration on the active rows, and the Laplace sampler ``lam (E1 - E2)``); the chunking, the
seeds and the joblib reduction are the package's (unchanged by item 4). The package's sampler has changed since for
rows of at least 2,048 draws (``lam S E``, a random sign times one exponential), which the 13,545 districts are, so
``baseline_monte_carlo`` estimates the same means from other draws: the benchmark checks that the two agree within
their Monte-Carlo errors. (That everything after the draws
still gives c526cd7's numbers is tests/fairlearn_dp/allocation/test_monte_carlo_recorded.py.)
"""

from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from fairlearn_dp.allocation._evaluation import BATCH_BYTES, _monte_carlo_result
from fairlearn_dp.allocation._mechanisms import check_weights
from fairlearn_dp.privacy._projection import _row_counts


def _nonnegative_sum_rows(rows, total):
    """c526cd7's ``fairlearn_dp.privacy._projection.nonnegative_sum_rows``."""
    n_rows, n = rows.shape
    total = np.broadcast_to(np.asarray(total, dtype=float), (n_rows,))
    theta = (rows.sum(axis=1) - total) / n
    kept = np.full(n_rows, n)
    kept_sum = np.zeros(n_rows)
    mask = np.empty(rows.shape, dtype=bool)
    index = np.arange(n_rows)
    while index.size:
        sub = rows if index.size == n_rows else rows[index]
        above = sub > theta[index, None]
        count = _row_counts(above)
        lost = count == 0
        if lost.any():
            above[lost] = sub[lost] == sub[lost].max(axis=1, keepdims=True)
            count = _row_counts(above)
        sums = (sub * above).sum(axis=1)
        theta[index] = (sums - total[index]) / count
        mask[index] = above
        done = count == kept[index]
        kept[index] = count
        kept_sum[index[done]] = sums[done]
        index = index[~done]
    mean_kept = kept_sum / kept
    shifted = rows - mean_kept[:, None]
    shifted += (total / kept)[:, None]
    return np.where(mask, np.maximum(shifted, 0.0, out=shifted), 0.0)


def _proportional(rows, weights):
    weighted = rows if np.all(weights == 1.0) else rows * weights
    total = weighted.sum(axis=-1, keepdims=True)
    positive = total > 0
    if positive.all():
        return weighted / total
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(positive, weighted / np.where(positive, total, 1.0), np.nan)


def _checked_rows(noisy):
    """c526cd7's ``allocate`` input path (``_as_rows``: a float array, finite) for a 2-D batch."""
    arr = np.asarray(noisy, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError("noisy contains NaN or infinite values.")
    return arr


def baseline_bl(noisy):
    """c526cd7's ``BaselineAllocation()(noisy)`` on a 2-D batch."""
    rows = _checked_rows(noisy)
    shares = _proportional(np.maximum(rows, 0.0), check_weights(None, rows.shape[1]))
    undefined = ~np.all(np.isfinite(shares), axis=1)
    if undefined.any():
        shares = shares.copy()
        shares[undefined] = 1.0 / shares.shape[1]
    return shares


def baseline_pos(noisy):
    """c526cd7's ``ProjectionOntoSimplexAllocation()(noisy)`` on a 2-D batch."""
    rows = _checked_rows(noisy)
    proportional = _proportional(rows, check_weights(None, rows.shape[1]))
    defined = np.all(np.isfinite(proportional), axis=1)
    if defined.all():
        return _nonnegative_sum_rows(proportional, 1.0)
    out = np.full_like(rows, 1.0 / rows.shape[1])
    if defined.any():
        out[defined] = _nonnegative_sum_rows(proportional[defined], 1.0)
    return out


BASELINE_STATISTICS = {"BL": baseline_bl, "PoS": baseline_pos}


def _laplace_sample(lam, rng, shape):
    """c526cd7's ``LaplaceNoise(lam).sample(rng, shape)`` for a 2-D ``shape``: each row is ``lam (E1 - E2)`` of its
    ``2 n`` consecutive standard exponentials."""
    pairs = rng.standard_exponential(size=(shape[0], 2, shape[1]))
    draws = pairs[:, 0, :] - pairs[:, 1, :]
    draws *= lam
    return draws


def _chunk_sums(counts, noise, statistics, n_rows, seed):
    """c526cd7's ``_chunk_sums`` (default batch size)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n = counts.size
    batch_rows = max(1, BATCH_BYTES // (8 * n))
    sums = {}
    for start in range(0, n_rows, batch_rows):
        rows = min(batch_rows, n_rows - start)
        noisy = _laplace_sample(noise.lam, rng, (rows, n))
        noisy += counts
        for name, statistic in statistics.items():
            values = np.asarray(statistic(noisy), dtype=float)
            if values.shape != noisy.shape:
                raise ValueError(f"statistic {name!r}: shape {values.shape}")
            if not np.all(np.isfinite(values)):
                raise ValueError(f"statistic {name!r} returned NaN or infinite values.")
            if name not in sums:
                sums[name] = (np.zeros(n), np.zeros(n))
            total, total_squares = sums[name]
            for row in values:
                total += row
                total_squares += np.square(row)
    return sums


def baseline_monte_carlo(counts, noise, *, n_draws, n_jobs, random_state, chunk_size):
    """``monte_carlo(counts, noise, {"BL": ..., "PoS": ...}, ...)`` with c526cd7's per-chunk work; ``chunk_size``
    is the one ``monte_carlo`` chose (its ``MonteCarloResult.chunk_size``) so that the seeds are the same.
    """
    counts = np.asarray(counts, dtype=float)
    sizes = [chunk_size] * (n_draws // chunk_size) + ([n_draws % chunk_size] if n_draws % chunk_size else [])
    seeds = np.random.SeedSequence(random_state).spawn(len(sizes))
    tasks = (delayed(_chunk_sums)(counts, noise, BASELINE_STATISTICS, size, seed)
             for size, seed in zip(sizes, seeds, strict=True))
    totals = {name: [np.zeros(counts.size), np.zeros(counts.size)] for name in BASELINE_STATISTICS}
    for chunk in Parallel(n_jobs=n_jobs, return_as="generator")(tasks):
        for name, (first, second) in chunk.items():
            totals[name][0] += first
            totals[name][1] += second
    return _monte_carlo_result(totals, n_draws, chunk_size)


def default_chunk_size(n, n_draws, n_statistics=2, max_chunk_mb=128):
    """``monte_carlo``'s default chunk size (its formula, unchanged by item 4)."""
    per_row = 8 * n * (4 + 2 * n_statistics)
    return max(1, min(n_draws, int(max_chunk_mb * 1e6 // per_row)))
