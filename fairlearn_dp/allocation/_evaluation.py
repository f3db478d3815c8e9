"""Bias of post-processing and allocation mechanisms: a vectorised Monte-Carlo engine and exact values.

Monte Carlo is the SIMULATION path (docs/design.md, "Two paths for noise"): noise is drawn with numpy
``Generator`` s to estimate what a mechanism does in expectation; nothing here releases data. The data-release statistics (``pi_S``, ``pi_S+``) use
the paper's setting: the total ``C = sum(x)`` is a public invariant, which is what
``release_counts(..., invariant_total=True)`` releases (substitution neighbours; ``LaplaceNoise.from_epsilon(eps,
invariant_total=True)`` simulates its noise). Draws are split into chunks (bounded memory), each
chunk gets its own seed from ``numpy.random.SeedSequence(random_state).spawn``, chunks run through joblib (so a
Dask or Ray backend distributes them unchanged) and are summed in chunk order: results are identical for any
``n_jobs`` and backend. Inside a chunk, draws are simulated and evaluated in cache-sized batches, which changes no
number (see ``_chunk_sums``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from scipy import integrate, stats

from .._utils._progress import progress_bar, show_progress
from .._utils._validation import as_real_array, check_bool, check_int, check_real, validate_params
from ._mechanisms import _batch_evaluator
from ._projections import project_nonnegative_sum, project_sum
from ._release import GaussianNoise, LaplaceNoise, _batch_sampler, _check_counts

__all__ = ["MonteCarloResult", "monte_carlo", "bias", "NonNegativeSumProjection",
           "NegativePartOfSumProjection", "ProjectionShift", "positive_part_bias", "sum_projection_positive_part_bias",
           "proposition2_integral", "theorem1_bounds"]


@dataclass
class MonteCarloResult:
    """Means (and their standard errors) of each statistic over ``n_draws`` simulated releases."""

    means: dict = field(default_factory=dict)
    std_errors: dict = field(default_factory=dict)
    n_draws: int = 0
    chunk_size: int = 0


class NonNegativeSumProjection:
    """Statistic ``pi_S+(x~)`` (projection onto ``{v >= 0, sum v = total}``), batched; picklable for joblib.

    ``total`` is the public total ``C`` of the simulated setting (> 0).
    """

    def __init__(self, total: float) -> None:
        self.total = check_real(total, "total", low=0.0, low_open=True)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return project_nonnegative_sum(rows, public_total=self.total)


class ProjectionShift:
    """Statistic ``T(pi_S(x~))`` of Lemma 2 (the scalar with ``pi_S+ = (pi_S - T)_+``), repeated in every column."""

    def __init__(self, total: float) -> None:
        self.total = check_real(total, "total", low=0.0, low_open=True)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        plus = project_nonnegative_sum(rows, public_total=self.total)
        shift = np.where(plus > 0, project_sum(rows, public_total=self.total) - plus, np.nan)
        return np.repeat(np.nanmean(shift, axis=1, keepdims=True), rows.shape[1], axis=1)


class NegativePartOfSumProjection:
    """Statistic ``(pi_S(x~))_-``, used by the upper bound of Theorem 1 (Proposition 1)."""

    def __init__(self, total: float) -> None:
        self.total = check_real(total, "total")

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        return np.maximum(-project_sum(rows, public_total=self.total), 0.0)


#: Bytes of one batch of draws inside a chunk (a few such arrays stay in a core's cache; see _chunk_sums).
BATCH_BYTES = 512 * 1024


def _chunk_sums(counts, noise, statistics, n_rows, seed, batch_rows=None):
    """Sums and sums of squares, over the ``n_rows`` draws of one chunk, of every statistic (one column a entity).

    The chunk's draws come from one ``Generator`` seeded by ``seed``; they are drawn and evaluated in batches of
    ``batch_rows`` draws (default: about ``BATCH_BYTES`` of noisy counts) so that the working arrays stay in cache,
    which is what makes the statistics fast. The result does not depend on the batch size: the Generator yields the
    same stream in consecutive batches as in one call, the statistics treat draws (rows) independently, and the
    sums are accumulated draw after draw, the order of ``values.sum(axis=0)`` on the whole chunk.
    """
    rng = np.random.Generator(np.random.PCG64(seed))
    n = counts.size
    if batch_rows is None:
        batch_rows = max(1, BATCH_BYTES // (8 * n))
    evaluators = {name: _batch_evaluator(statistic, n) for name, statistic in statistics.items()}
    sums = {name: (np.zeros(n), np.zeros(n)) for name in statistics}
    squares = np.empty((batch_rows, n))
    draw = _batch_sampler(noise, n, batch_rows)
    for start in range(0, n_rows, batch_rows):
        rows = min(batch_rows, n_rows - start)
        noisy = draw(rng, rows)
        noisy += counts                                           # x + noise, in place
        for name, (statistic, trusted) in evaluators.items():
            values = statistic(noisy)
            if not trusted:
                values = _checked_values(name, values, noisy.shape, rows)
            total, total_squares = sums[name]
            # Draw after draw, in place: numpy sums axis 0 of a C-ordered array row after row too, so these are the
            # sums of one big array of the chunk's draws, whatever the batch size.
            for row in values:
                total += row
            # A trusted statistic's output is a new array of its own: squared in place (one array fewer in cache).
            for row_squares in np.square(values, out=values if trusted else squares[:rows]):
                total_squares += row_squares
    return sums


def _checked_values(name, values, shape, rows):
    """A statistic's output for a batch of ``rows`` draws as floats, checked: shape ``shape``, all finite."""
    values = np.asarray(values, dtype=float)
    if values.shape != shape:
        raise ValueError(f"statistic {name!r} must return an array of shape (draws, n) = {shape} for "
                         f"a batch of {rows} draws, got {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"statistic {name!r} returned NaN or infinite values.")
    return values


def monte_carlo(counts: ArrayLike, noise: LaplaceNoise | GaussianNoise,
                statistics: Mapping[str, Callable[[np.ndarray], np.ndarray]], *, n_draws: int,
                random_state: int | None = None, n_jobs: int | None = 1, chunk_size: int | None = None,
                max_chunk_mb: float = 128, progress: bool | None = None) -> MonteCarloResult:
    """Estimate ``E[statistic(x + noise)]`` for each statistic by simulation (vectorised, chunked, parallel).

    Parameters
    ----------
    counts : array-like of shape (n,)
        True counts ``x`` (non-negative integers).
    noise : LaplaceNoise or GaussianNoise
        The simulated mechanism.
    statistics : dict of str -> callable
        Each maps a ``(k, n)`` batch of noisy vectors to a ``(k, n)`` array (e.g. an allocation mechanism, or
        ``NonNegativeSumProjection``). Must be picklable when ``n_jobs != 1``.
    n_draws : int
        Number of simulated releases.
    random_state : int or None
        Seed of the ``SeedSequence`` that gives every chunk its own stream.
    n_jobs : int
        joblib workers over chunks. The active joblib backend runs them: to use a Dask cluster (the ``[dask]``
        extra), call ``monte_carlo(..., n_jobs=-1)`` inside ``with joblib.parallel_backend("dask"):`` with a
        ``dask.distributed.Client`` connected; the result is the same as with ``n_jobs=1`` (tested).
    chunk_size : int or None
        Draws per chunk; by default as many as fit in ``max_chunk_mb`` megabytes of working arrays.
    progress : bool or None
        Show a tqdm progress bar over chunks; None shows it only when stderr is a terminal.

    Returns
    -------
    MonteCarloResult
    """
    counts = _check_counts(counts)
    _check_noise_and_statistics(noise, statistics)
    n_draws, chunk_size, max_chunk_mb, random_state = _check_monte_carlo_options(
        n_draws, chunk_size, max_chunk_mb, n_jobs, random_state, progress)
    if chunk_size is None:
        per_row = 8 * counts.size * (4 + 2 * len(statistics))
        chunk_size = max(1, min(n_draws, int(max_chunk_mb * 1e6 // per_row)))
    sizes = [chunk_size] * (n_draws // chunk_size) + ([n_draws % chunk_size] if n_draws % chunk_size else [])
    seeds = np.random.SeedSequence(random_state).spawn(len(sizes))
    tasks = (delayed(_chunk_sums)(counts, noise, statistics, size, seed) for size, seed in zip(sizes, seeds, strict=False))
    results = Parallel(n_jobs=n_jobs, return_as="generator")(tasks)
    totals = {name: [np.zeros(counts.size), np.zeros(counts.size)] for name in statistics}
    with progress_bar(show_progress(progress), total=len(sizes), desc=f"Monte Carlo ({noise.describe()})",
                      unit="chunk") as bar:
        for chunk in results:                           # joblib yields in task order: deterministic sums
            for name, (first, second) in chunk.items():
                totals[name][0] += first
                totals[name][1] += second
            if bar is not None:
                bar.update()
    return _monte_carlo_result(totals, n_draws, chunk_size)


def _check_noise_and_statistics(noise, statistics):
    """``monte_carlo``'s checks of the simulated mechanism and of the statistics (a non-empty dict of callables)."""
    if not isinstance(noise, (LaplaceNoise, GaussianNoise)):
        raise TypeError("noise must be a LaplaceNoise or GaussianNoise (simulation) object.")
    if not isinstance(statistics, Mapping):
        raise TypeError(f"statistics must be a dict of name -> callable, got {type(statistics).__name__}.")
    if not statistics:
        raise ValueError("statistics must name at least one statistic.")
    for name, statistic in statistics.items():
        if not isinstance(name, str) or not callable(statistic):
            raise TypeError("statistics must map names (str) to callables.")


def _check_n_jobs(n_jobs, name):
    """The joblib ``n_jobs``: None or a non-zero integer (a ``ValueError`` for any other value)."""
    if n_jobs is not None and (isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (int, np.integer))
                               or n_jobs == 0):
        raise ValueError(f"{name} must be a non-zero integer (joblib: -1 for all cores), got {n_jobs!r}.")
    return n_jobs


#: :func:`monte_carlo`'s run options, checked in this order (after the counts, the noise and the statistics).
_MONTE_CARLO_OPTIONS = {
    "n_draws": functools.partial(check_int, low=1),
    "chunk_size": functools.partial(check_int, low=1, allow_none=True),
    "max_chunk_mb": functools.partial(check_real, low=0.0, low_open=True),
    "n_jobs": _check_n_jobs,
    "random_state": functools.partial(check_int, low=0, allow_none=True),
    "progress": functools.partial(check_bool, allow_none=True),
}


def _check_monte_carlo_options(n_draws, chunk_size, max_chunk_mb, n_jobs, random_state, progress):
    """``monte_carlo``'s checks of its run options; returns ``(n_draws, chunk_size, max_chunk_mb, random_state)``."""
    checked = validate_params(SimpleNamespace(n_draws=n_draws, chunk_size=chunk_size, max_chunk_mb=max_chunk_mb,
                                              n_jobs=n_jobs, random_state=random_state, progress=progress),
                              _MONTE_CARLO_OPTIONS)
    return checked["n_draws"], checked["chunk_size"], checked["max_chunk_mb"], checked["random_state"]


def _monte_carlo_result(totals, n_draws, chunk_size):
    """Means and standard errors from the per-statistic ``[sum, sum of squares]`` over ``n_draws`` draws."""
    result = MonteCarloResult(n_draws=n_draws, chunk_size=chunk_size)
    for name, (first, second) in totals.items():
        mean = first / n_draws
        variance = np.maximum(second / n_draws - mean ** 2, 0.0) * n_draws / max(n_draws - 1, 1)
        result.means[name] = mean
        result.std_errors[name] = np.sqrt(variance / n_draws)
    return result


def bias(expected: ArrayLike, target: ArrayLike) -> np.ndarray:
    """``B = E[pi(x~)] - P(x)`` (Sec. 4): expected output minus the value on the true data (same shapes)."""
    expected = as_real_array(expected, "expected")
    target = as_real_array(target, "target")
    if expected.shape != target.shape or expected.size == 0:
        raise ValueError(f"expected and target must be non-empty and of the same shape, got {expected.shape} and "
                         f"{target.shape}.")
    if not (np.all(np.isfinite(expected)) and np.all(np.isfinite(target))):
        raise ValueError("expected and target must not contain NaN or infinite values.")
    return expected - target


# ---------------------------------------------------------------------------------------------- exact values
def positive_part_bias(counts: ArrayLike, noise: LaplaceNoise | GaussianNoise) -> np.ndarray:
    """Exact ``E[(x_i + eta_i)_+] - x_i`` of the positive part of each noisy count (the first step of pi_BL).

    Laplace(lambda), x >= 0: ``(lambda / 2) exp(-x / lambda)``. Gaussian(sigma): ``sigma phi(x/sigma) - x
    Phi(-x/sigma)``.
    """
    x = _check_counts(counts)
    if isinstance(noise, LaplaceNoise):
        return 0.5 * noise.lam * np.exp(-x / noise.lam)
    if isinstance(noise, GaussianNoise):
        return _gaussian_positive_part_bias(x, noise.sigma)
    raise TypeError("noise must be a LaplaceNoise or GaussianNoise object.")


def _gaussian_positive_part_bias(mean, scale):
    z = mean / scale
    return scale * stats.norm.pdf(z) - mean * stats.norm.cdf(-z)


def sum_projection_positive_part_bias(counts: ArrayLike, sigma: float) -> np.ndarray:
    """Exact ``B((pi_S)_+)_i`` under the Gaussian mechanism, with the public total equal to ``sum(x)``.

    ``pi_S(x~)_i = x_i + eta_i - mean(eta) ~ N(x_i, s^2)`` with ``s = sigma sqrt(1 - 1/n)``, hence ``B_i = s
    phi(x_i/s) - x_i Phi(-x_i/s)``. The same number is ``E[(pi_S(x~)_i)_-]`` (since ``E[Y_+] - E[Y] =
    E[Y_-]``), the term of Proposition 1.
    """
    x = _check_counts(counts)
    sigma = check_real(sigma, "sigma", low=0.0, low_open=True)
    if x.size < 2:
        raise ValueError("counts needs at least 2 entities.")
    return _gaussian_positive_part_bias(x, sigma * math.sqrt(1.0 - 1.0 / x.size))


def proposition2_integral(x_min: float, x_max: float, sigma: float,
                          n: int) -> tuple[float, tuple[float, float]]:
    """Proposition 2: ``B((pi_S)_+)_1 - B((pi_S)_+)_n = int_{-x_n}^{-x_1} Phi(a t) dt``, ``a = sqrt(n/(n-1)) /
    sigma``, by quadrature. Returns ``(value, (lower, upper))`` with the proposition's bracket ``[Phi(-a x_n),
    Phi(-a x_1)] * (x_n - x_1)``.
    """
    x_min = check_real(x_min, "x_min")
    x_max = check_real(x_max, "x_max")
    sigma = check_real(sigma, "sigma", low=0.0, low_open=True)
    n = check_int(n, "n", low=2)
    if x_max < x_min:
        raise ValueError("x_max must be >= x_min.")
    a = math.sqrt(n / (n - 1)) / sigma
    value, _ = integrate.quad(lambda t: stats.norm.cdf(a * t), -x_max, -x_min, epsabs=1e-12, epsrel=1e-12)
    width = x_max - x_min
    return value, (stats.norm.cdf(-a * x_max) * width, stats.norm.cdf(-a * x_min) * width)


def theorem1_bounds(counts: ArrayLike, noise: LaplaceNoise | GaussianNoise, *, total: float | None = None,
                    n_draws: int = 200_000, random_state: int | None = None, n_jobs: int | None = 1,
                    progress: bool | None = None) -> dict[str, Any]:
    """Theorem 1's lower and upper bounds on the alpha-fairness of ``pi_S+``, and Lemma 3's tighter upper bound.

    With entities sorted by true count and the public total ``C = sum(x)`` (a ``total`` that differs is an error):
    ``lower = B((pi_S)_+)_1 - B((pi_S)_+)_n``; ``upper = min{x_n - x_1, lower + sum_i E[(pi_S(x~)_i)_-]}``
    (Theorem 1, via Proposition 1); ``upper_lemma3 = lower + E[T(pi_S(x~))]`` (Lemma 3, eq. 2b, never looser).

    Because ``E[pi_S(x~)] = x``, ``B((pi_S)_+)_i = E[(pi_S(x~)_i)_-]``. Under the Gaussian mechanism that is the
    closed form of :func:`sum_projection_positive_part_bias` and ``lower``/``upper`` are exact; under Laplace they
    are Monte-Carlo means of ``(pi_S)_-`` (a low-variance statistic: it is 0 unless the noise nearly cancels a
    count), as in the paper. ``E[T]`` is always a Monte-Carlo mean.

    Returns
    -------
    dict with ``lower``, ``upper``, ``upper_lemma3``, ``method`` ("exact" or "monte_carlo" for lower/upper) and
    ``std_errors`` (Monte-Carlo standard errors of the estimated quantities).
    """
    x = _check_counts(counts)
    if not isinstance(noise, (LaplaceNoise, GaussianNoise)):
        raise TypeError("noise must be a LaplaceNoise or GaussianNoise (simulation) object.")
    if x.size < 2:
        raise ValueError("counts needs at least 2 entities.")
    if total is not None and not math.isclose(check_real(total, "total"), x.sum(), rel_tol=0,
                                              abs_tol=1e-9):
        raise ValueError(f"total={total} contradicts the counts, which sum to {x.sum():g}: the public total C of "
                         "the data-release setting is the true total.")
    total = float(x.sum())
    smallest, largest = int(np.argmin(x)), int(np.argmax(x))
    spread = x[largest] - x[smallest]
    result = monte_carlo(x, noise, {"negative": NegativePartOfSumProjection(total), "shift": ProjectionShift(total)},
                         n_draws=n_draws, random_state=random_state, n_jobs=n_jobs, progress=progress)
    shift, shift_se = float(result.means["shift"][0]), float(result.std_errors["shift"][0])
    if isinstance(noise, GaussianNoise):
        negative = sum_projection_positive_part_bias(x, noise.sigma)
        method, lower_se = "exact", 0.0
    else:
        negative = result.means["negative"]
        method = "monte_carlo"
        lower_se = float(np.hypot(result.std_errors["negative"][smallest], result.std_errors["negative"][largest]))
    lower = float(negative[smallest] - negative[largest])
    return {"lower": lower, "upper": float(min(spread, lower + negative.sum())), "upper_lemma3": lower + shift,
            "method": method, "std_errors": {"lower": lower_se, "upper_lemma3": float(np.hypot(lower_se, shift_se))}}
