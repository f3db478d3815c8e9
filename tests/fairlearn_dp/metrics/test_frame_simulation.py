"""The vectorised interval simulation of DPMetricFrame (issue 41.3): its resampler, its noise and its
post-processing, against the laws and the code they replace.

Tolerances come from the sampling distribution of what is compared: a sample mean or covariance of N draws is
within 5 of its standard errors of the true value except with probability below 6e-7 (normal limit); the
Kolmogorov-Smirnov bound is the DKW inequality's at 1e-6. Seeds are fixed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from fairlearn_dp.metrics import _frame_release as release

DRAWS = 40_000


def _moments_within_5_se(draws, mean, covariance):
    """The sample mean and covariance of ``draws`` (N, K) within 5 standard errors of ``mean`` and ``covariance``;
    the standard error of a covariance entry is that of the mean of the products of the centred draws."""
    n = draws.shape[0]
    centred = draws - draws.mean(axis=0)
    sd = np.sqrt(np.diag(covariance))
    assert np.all(np.abs(draws.mean(axis=0) - mean) <= 5 * sd / math.sqrt(n) + 1e-12)
    products = centred[:, :, None] * centred[:, None, :]
    se = products.std(axis=0) / math.sqrt(n)
    assert np.all(np.abs(products.mean(axis=0) - covariance) <= 5 * se + 1e-12), (products.mean(axis=0),
                                                                                 covariance, se)


def _multinomial_moments(size, shares):
    return size * shares, size * (np.diag(shares) - np.outer(shares, shares))


@pytest.mark.parametrize("counts, noise_variance, weight_bound, exact", [
    ([400.0, 90.0, 60.0, 250.0], 8.0, 1.0, False),          # large counts, noise of epsilon = 1: normal
    ([30.0, 9.0, 6.0, 25.0], 8.0, 1.0, False),              # the benchmark's cell size under that noise: normal
    ([30.0, 9.0, 6.0, 25.0], 0.0, 1.0, True),               # small counts, no noise: numpy's multinomial
    ([5.0, 0.0, 1.0, 2.0], 0.5, 1.0, True),                 # an empty bin
    ([800.0, 180.0, 120.0, 500.0], 32.0, 2.0, False),       # weighted: 800 rows of weight 2
    ([60.0, 8.0, 10.0, 5.0, 70.0, 12.0, 3.0, 9.0, 50.0], 8.0, 1.0, False),      # 3 classes, 9 bins
])
def test_resampled_counts_have_the_multinomials_mean_and_covariance(counts, noise_variance, weight_bound, exact):
    """A cell of weight sum S is S / B rows of weight B: the draws, divided by B, have the multinomial's mean and
    covariance at m = S / B rows and the cell's shares, and each sums to m."""
    counts = np.asarray(counts)
    rng = np.random.default_rng(41)
    draws = release.resample_counts(counts[None], DRAWS, rng, weight_bound, noise_variance)[:, 0] / weight_bound
    size = counts.sum() / weight_bound
    mean, covariance = _multinomial_moments(size, counts / counts.sum())
    _moments_within_5_se(draws, mean, covariance)
    np.testing.assert_allclose(draws.sum(axis=1), size, rtol=1e-12)
    assert np.array_equal(draws, np.round(draws)) == exact              # which sampler drew the cell


def test_each_cell_is_drawn_with_its_own_moments_in_any_layout():
    """A (C, K, G) table (bins along axis -2, the simulation's layout) with cells of both samplers: every cell's
    draws have its multinomial's moments."""
    table = np.array([[[400.0, 3.0, 30.0], [90.0, 1.0, 9.0], [60.0, 0.0, 6.0], [250.0, 4.0, 25.0]]])   # (1, 4, 3)
    draws = release.resample_counts(table, DRAWS, np.random.default_rng(7), noise_variance=0.3, axis=-2)
    assert draws.shape == (DRAWS, 1, 4, 3)
    for group in range(3):
        cell = table[0, :, group]
        _moments_within_5_se(draws[:, 0, :, group], *_multinomial_moments(cell.sum(), cell / cell.sum()))


def test_simulated_laplace_noise_has_the_laplace_law():
    """Noise of scale b = 2: mean 0 and variance 2 b^2 within 5 standard errors (the variance's from the Laplace
    kurtosis 6: se = 2 b^2 sqrt(5 / N)), and the empirical distribution function within the DKW bound
    sqrt(ln(2 / 1e-6) / (2 N)) of the Laplace one."""
    from scipy import stats

    b, n = 2.0, 200_000
    noise = release._noise(np.random.default_rng(3), b, 0.0, (n,))
    assert abs(noise.mean()) <= 5 * math.sqrt(2) * b / math.sqrt(n)
    assert abs(noise.var() - 2 * b * b) <= 5 * 2 * b * b * math.sqrt(5 / n)
    assert stats.kstest(noise, stats.laplace(scale=b).cdf).statistic <= math.sqrt(math.log(2 / 1e-6) / (2 * n))


def _post_process_cases():
    for kind, unit, public, weighted in itertools.product(("binary", "multiclass", "regression"),
                                                          ("sensitive_attribute", "record"), (False, True),
                                                          (False, True)):
        if not (kind == "regression" and public):
            yield kind, unit, public, weighted


@pytest.mark.parametrize("kind, unit, public_predictions, weighted", list(_post_process_cases()))
def test_post_processing_of_bins_major_draws_equals_post_process(kind, unit, public_predictions, weighted):
    """The simulation post-processes its draws stored bins-major (C, K, G) with the same projections as the
    release's post_process on (C, G, K) tables, and takes the same public totals of them (up to the order of
    the sums: 1e-12)."""
    rng = np.random.default_rng(11)
    width = {"binary": 4, "multiclass": 9, "regression": 3}[kind]
    family = "regression" if kind == "regression" else "classification"
    exact = rng.integers(0, 6, (2, 5, width)).astype(float)
    if family == "regression":
        exact[..., 1:] = exact[..., :1] * rng.random((2, 5, width - 1))
    n = exact[..., 0].sum() if family == "regression" else exact.sum()
    draws = exact + rng.normal(0.0, 3.0, (3, 2, 5, width))
    options = {"kind": family, "unit": unit, "public_predictions": public_predictions, "weighted": weighted}
    totals = release.public_totals(np.broadcast_to(exact, draws.shape), **options)
    bins = np.ascontiguousarray(np.swapaxes(np.broadcast_to(exact, draws.shape), -1, -2))
    bins_totals = release._draw_totals(bins, **options)
    assert (bins_totals is None) == (totals is None)
    if totals is not None:
        np.testing.assert_allclose(bins_totals, totals, rtol=1e-12)
    expected = release.post_process(draws, totals=totals, n=n, **options)
    got = release._post_process_draws(np.ascontiguousarray(np.swapaxes(draws, -1, -2)), totals=totals, n=n,
                                      **options)
    np.testing.assert_allclose(np.swapaxes(got, -1, -2), expected, rtol=1e-12, atol=1e-12)


def test_simulated_draws_depend_on_the_seed_and_the_shape_only():
    """Chunks of at most CHUNK_VALUES values, each from its own seeded generator: the same seed gives the same
    draws, another seed others; all n_boot draws are yielded, in order."""
    table = np.abs(np.random.default_rng(0).normal(20.0, 5.0, (1, 300, 4)))
    arguments = {"kind": "classification", "unit": "sensitive_attribute", "n": table.sum(), "scale": 2.0,
                 "delta": 0.0, "n_boot": 1000, "sampling": True}

    def draws(seed):
        chunks = list(release.simulate(table, rng=np.random.default_rng(seed), **arguments))
        assert [start for start, _ in chunks] == list(range(0, 1000, release.CHUNK_VALUES // table.size))
        return np.concatenate([values for _, values in chunks])

    first = draws(5)
    assert first.shape == (1000, 1, 300, 4)
    np.testing.assert_array_equal(first, draws(5))
    assert not np.array_equal(first, draws(6))
