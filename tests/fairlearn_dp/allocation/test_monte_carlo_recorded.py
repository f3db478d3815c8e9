"""Issue 41 item 4 (the Monte-Carlo hot path made faster) changes no number: ``monte_carlo`` and the non-negative
projection give the values that commit c526cd7 (before the change) gave on small inputs, recorded in
``monte_carlo_recorded_c526cd7.json`` (floats as ``float.hex``) by running that commit's package on this script's
inputs (bit for bit on the recording machine). Compared to 1e-12 relative: seeded draws and elementwise arithmetic,
but the means and standard errors are numpy reductions, whose vectorised loops may round differently on another CPU.

The Laplace sampler itself changed afterwards (``lam S E``, a random sign times one exponential, instead of
``lam (E1 - E2)``): the Laplace cases here run with ``_DifferenceOfExponentials``, the earlier sampler, so that they
still pin everything after the draws; the new sampler's stream is pinned on its own
(``test_laplace_sampler_gives_the_recorded_draws``)."""

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


class _DifferenceOfExponentials(LaplaceNoise):
    """The Laplace simulation sampler up to commit 34898c8: each row (last axis) of ``n`` draws is ``lam (E1 - E2)`` of
    its ``2 n`` consecutive standard exponentials (the first ``n`` minus the last ``n``)."""

    def _sample_into(self, rng, out, signs):
        for row in out:
            pairs = rng.standard_exponential(size=(2, out.shape[1]))
            np.subtract(pairs[0], pairs[1], out=row)
        out *= self.lam
        return out


def _floats(hexes):
    return np.array([float.fromhex(value) for value in hexes])


@pytest.mark.parametrize("noise, name", [(_DifferenceOfExponentials(6.0), "laplace"),
                                          (GaussianNoise(5.0), "gaussian")])
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
    noise = _DifferenceOfExponentials(8.0) if name == "laplace" else GaussianNoise(6.0)
    result = monte_carlo(counts, noise, {key: statistics[key] for key in recorded}, n_draws=700, random_state=7,
                         chunk_size=150)
    for statistic, (means, std_errors) in recorded.items():
        np.testing.assert_allclose(result.means[statistic], _array(means), rtol=1e-12, atol=1e-15, err_msg=statistic)
        np.testing.assert_allclose(result.std_errors[statistic], _array(std_errors), rtol=1e-12, atol=1e-15,
                                   err_msg=statistic)


# LaplaceNoise(2.5).sample(np.random.Generator(np.random.PCG64(5)), (2, 9)), recorded when the sampler became
# lam S E (random sign times one exponential).
LAPLACE_DRAWS = [
    ["-0x1.3dde009152f7fp+2", "0x1.e01f5d3d6a8c4p+0", "0x1.a06ee95fdbeb8p+1", "-0x1.52d57e1a7c784p+0",
     "0x1.34c375e5ee024p-4", "0x1.15b64f99cea93p+0", "0x1.9afc3b5269e74p+0", "0x1.26f6bbc931e7bp-2",
     "-0x1.280db8917f5ccp-3"],
    ["-0x1.30d77f0a33970p+2", "0x1.403a518328e41p+1", "0x1.5cc94a2eccebbp+1", "0x1.7516033b8750ap+1",
     "0x1.2375dc63e9bbfp-1", "0x1.5d245db27cccbp+2", "0x1.ca3a45e95a262p+1", "-0x1.422a3e0631676p+2",
     "0x1.4bd05928d8249p+0"],
]


def test_laplace_sampler_gives_the_recorded_draws():
    """The stream: per row, its 9 exponentials, then 2 bytes whose bits (most significant first) are the signs of
    the row's draws (1: negative). Seeded draws, compared bit for bit except numpy's exponential tail, which calls
    ``log1p`` (an ulp apart on another libm), hence 1e-15 relative."""
    draws = LaplaceNoise(2.5).sample(np.random.Generator(np.random.PCG64(5)), (2, 9))
    np.testing.assert_allclose(draws, [_floats(row) for row in LAPLACE_DRAWS], rtol=1e-15, atol=0)
    rng = np.random.Generator(np.random.PCG64(5))
    for row in draws:
        magnitudes = rng.standard_exponential(9)
        negative = np.unpackbits(np.frombuffer(rng.bytes(2), dtype=np.uint8))[:9] == 1
        np.testing.assert_array_equal(row, 2.5 * np.where(negative, -magnitudes, magnitudes))
