"""The fast quantiles of a frame's draws are numpy.nanquantile's numbers (issue 41.3)."""

import warnings

import numpy as np
import pytest

from fairlearn_dp.metrics._frame_quantiles import nanquantile_draws, sort_draws


@pytest.mark.parametrize("shape", [(200,), (200, 7), (1000, 2, 33), (11, 1)])
@pytest.mark.parametrize("q", [0.0, 0.0025, 0.025, 0.5, 0.9875, 0.975, 1.0])
def test_equals_nanquantile_with_and_without_nan(shape, q):
    rng = np.random.default_rng(41)
    draws = rng.laplace(size=shape)
    draws[rng.random(shape) < 0.01] = np.nan                  # scattered NaN
    if draws.ndim > 1:
        draws[:, 0] = np.nan                                   # an all-NaN column
        draws[::3, -1] = np.nan
    clean = np.nan_to_num(draws)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for values in (draws, clean, np.round(clean, 1)):      # ties too
            np.testing.assert_array_equal(nanquantile_draws(values, q), np.nanquantile(values, q, axis=0))


@pytest.mark.parametrize("shape", [(200,), (300, 2, 9)])
def test_several_quantiles_in_one_call_are_each_calls_numbers(shape):
    rng = np.random.default_rng(7)
    draws = rng.normal(size=shape)
    draws[rng.random(shape) < 0.02] = np.nan
    quantiles = [0.025 / 9, 0.025, 0.5, 1.0 - 0.025 / 9, 0.975]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        together = nanquantile_draws(draws, quantiles)
        for i, q in enumerate(quantiles):
            np.testing.assert_array_equal(together[i], np.nanquantile(draws, q, axis=0))


@pytest.mark.parametrize("shape", [(200,), (200, 7), (301, 2, 9), (11, 1)])
def test_quantiles_of_draws_sorted_in_chunks_are_nanquantiles_numbers(shape):
    """sort_draws joins the chunks of draws and sorts each column once (NaN last); every quantile is then read
    from the sorted columns (presorted=True) with numpy's arithmetic: nanquantile's numbers, with NaN, ties,
    infinities and all-NaN columns."""
    rng = np.random.default_rng(5)
    draws = np.round(rng.laplace(size=shape), 2)
    draws[rng.random(shape) < 0.03] = np.nan
    draws[rng.random(shape) < 0.01] = np.inf
    draws[rng.random(shape) < 0.01] = -np.inf
    if draws.ndim > 1:
        draws[:, 0] = np.nan
    quantiles = [0.0, 0.025 / 10_001, 0.025, 0.5, 0.975, 1.0 - 0.025 / 10_001, 1.0]
    ordered = sort_draws([draws[:50], draws[50:51], draws[51:]])
    assert ordered.shape == draws.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        together = nanquantile_draws(ordered, quantiles, presorted=True)
        for i, q in enumerate(quantiles):
            np.testing.assert_array_equal(together[i], np.nanquantile(draws, q, axis=0))
            np.testing.assert_array_equal(nanquantile_draws(ordered, q, presorted=True),
                                          np.nanquantile(draws, q, axis=0))
