"""Issue 41 item 4 (the Monte-Carlo hot path made faster) changes no number: ``monte_carlo`` and the non-negative
projection give the values that commit c526cd7 (before the change) gave on small inputs, recorded in
``monte_carlo_recorded_c526cd7.json`` (floats as ``float.hex``) by running that commit's package on this script's
inputs (bit for bit on the recording machine). Compared to 1e-12 relative: seeded draws and elementwise arithmetic,
but the means and standard errors are numpy reductions, whose vectorised loops may round differently on another CPU.

The Laplace sampler gained a second form afterwards, for rows of at least 2,048 draws (``lam S E``, a random sign
times one exponential); the rows here are shorter, so they still draw ``lam (E1 - E2)`` as when the values were
recorded. The long rows' stream is pinned on its own (``test_long_laplace_rows_give_the_recorded_draws``)."""

import base64
import json
from pathlib import Path

import numpy as np
import pytest

from fairlearn_dp.allocation import (
    BaselineAllocation,
    GaussianNoise,
    LaplaceNoise,
    ProjectionOntoSimplexAllocation,
    monte_carlo,
    project_nonnegative_sum,
)
from fairlearn_dp.allocation._evaluation import (
    NegativePartOfSumProjection,
    NonNegativeSumProjection,
    ProjectionShift,
)

RECORDED = json.loads((Path(__file__).parent / "monte_carlo_recorded_c526cd7.json").read_text())
COUNTS = np.array([0., 1., 2., 5., 10., 3., 0., 7., 40., 1.])
WEIGHTS = np.array([1., 2., 1., 1., 3., 1., 2., 1., 1., 2.])


def _floats(hexes):
    return np.array([float.fromhex(value) for value in hexes])


@pytest.mark.parametrize("noise, name", [(LaplaceNoise(6.0), "laplace"), (GaussianNoise(5.0), "gaussian")])
def test_monte_carlo_gives_the_recorded_values(noise, name):
    total = COUNTS.sum()
    statistics = {"BL": BaselineAllocation(), "PoS": ProjectionOntoSimplexAllocation(),
                  "BLw": BaselineAllocation(WEIGHTS), "PoSw": ProjectionOntoSimplexAllocation(WEIGHTS),
                  "plus": NonNegativeSumProjection(total), "shift": ProjectionShift(total),
                  "negative": NegativePartOfSumProjection(total)}
    result = monte_carlo(COUNTS, noise, statistics, n_draws=300, random_state=11, chunk_size=70)
    for statistic, (means, std_errors) in RECORDED[name].items():
        np.testing.assert_allclose(result.means[statistic], _floats(means), rtol=1e-12, atol=1e-12, err_msg=statistic)
        np.testing.assert_allclose(result.std_errors[statistic], _floats(std_errors), rtol=1e-12, atol=1e-12,
                                   err_msg=statistic)


def test_nonnegative_projection_gives_the_recorded_values():
    rows = np.random.default_rng(2).laplace(1.0, 4.0, (6, 10))
    expected = np.array([_floats(row) for row in RECORDED["projection"]])
    np.testing.assert_allclose(project_nonnegative_sum(rows, public_total=3.0), expected, rtol=1e-12, atol=1e-12)


def test_built_in_mechanisms_still_check_their_weights():
    """BL and PoS are called through their batch method inside monte_carlo: a wrong weight vector is still refused,
    with the mechanism's own message."""
    with pytest.raises(ValueError, match="length mismatch"):
        monte_carlo(COUNTS, LaplaceNoise(6.0), {"BL": BaselineAllocation(WEIGHTS[:3])}, n_draws=10, random_state=0)


# Recorded by running main 83c2021 (before issue 41 item 4's Monte-Carlo kernels) on these inputs: 160 entities, an
# eighth of them at zero and half below 5, so that the projections set many entries to 0 and their threshold moves
# over several rounds; plus the non-negative projection onto a tiny and a huge total.
RECORDED_83C2021 = json.loads((Path(__file__).parent / "monte_carlo_recorded_83c2021.json").read_text())


def _array(text):
    return np.frombuffer(base64.b64decode(text), dtype="<f8")


@pytest.mark.parametrize("name", ["laplace", "gaussian"])
def test_monte_carlo_gives_the_values_recorded_before_the_banded_projection(name):
    counts, weights = _array(RECORDED_83C2021["counts"]), _array(RECORDED_83C2021["weights"])
    total = counts.sum()
    statistics = {"BL": BaselineAllocation(), "PoS": ProjectionOntoSimplexAllocation(),
                  "BLw": BaselineAllocation(weights), "PoSw": ProjectionOntoSimplexAllocation(weights),
                  "plus": NonNegativeSumProjection(total), "plus_small": NonNegativeSumProjection(1e-3),
                  "plus_huge": NonNegativeSumProjection(1e9), "shift": ProjectionShift(total),
                  "negative": NegativePartOfSumProjection(total)}
    recorded = RECORDED_83C2021[name]
    noise = LaplaceNoise(8.0) if name == "laplace" else GaussianNoise(6.0)
    result = monte_carlo(counts, noise, {key: statistics[key] for key in recorded}, n_draws=700, random_state=7,
                         chunk_size=150)
    for statistic, (means, std_errors) in recorded.items():
        np.testing.assert_allclose(result.means[statistic], _array(means), rtol=1e-12, atol=1e-15, err_msg=statistic)
        np.testing.assert_allclose(result.std_errors[statistic], _array(std_errors), rtol=1e-12, atol=1e-15,
                                   err_msg=statistic)


# LaplaceNoise(2.5).sample(np.random.Generator(np.random.PCG64(5)), (2, 2050)): each row's first four and last two
# draws, recorded when rows of at least 2,048 draws became lam S E (random sign times one exponential).
LONG_ROWS = [
    (["0x1.3dde009152f7fp+2", "0x1.e01f5d3d6a8c4p+0", "-0x1.a06ee95fdbeb8p+1", "-0x1.52d57e1a7c784p+0"],
     ["-0x1.f9d9621b02624p-6", "-0x1.31bc109ac41f8p+2"]),
    (["-0x1.8f9d93b140b01p+2", "0x1.12939a954a450p-3", "-0x1.bee739903d3f4p-1", "0x1.e0cc817e1fea8p-2"],
     ["0x1.15158f63fe4dcp+2", "-0x1.0c1a474886ee7p-3"]),
]


def test_long_laplace_rows_give_the_recorded_draws():
    """The stream of a long row: its 2,050 exponentials, then 43 uniforms k / 2**53 whose integers k give the signs
    by their lowest 48 bits, least significant byte first and each byte's most significant bit first (1: negative).
    Seeded draws, compared bit for bit except numpy's exponential tail, which calls ``log1p`` (an ulp apart on
    another libm), hence 1e-15 relative; the re-derivation below uses the same generator calls on this machine."""
    draws = LaplaceNoise(2.5).sample(np.random.Generator(np.random.PCG64(5)), (2, 2050))
    for row, (first, last) in zip(draws, LONG_ROWS, strict=True):
        np.testing.assert_allclose(row[:4], _floats(first), rtol=1e-15, atol=0)
        np.testing.assert_allclose(row[-2:], _floats(last), rtol=1e-15, atol=0)
    rng = np.random.Generator(np.random.PCG64(5))
    for row in draws:
        magnitudes = rng.standard_exponential(2050)
        integers = (rng.random(43) * 2.0 ** 53).astype(np.uint64)
        bits = [(int(k) >> (8 * byte + 7 - bit)) & 1 for k in integers for byte in range(6) for bit in range(8)]
        np.testing.assert_array_equal(row, 2.5 * np.where(np.array(bits[:2050]) == 1, -magnitudes, magnitudes))
