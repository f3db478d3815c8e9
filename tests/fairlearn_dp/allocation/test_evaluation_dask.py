"""monte_carlo and theorem1_bounds on a dask.distributed cluster through joblib's "dask" backend: the same numbers
as n_jobs=1. Needs the [dask] extra (skipped without it)."""

import joblib
import numpy as np
import pytest

from fairlearn_dp.allocation import (
    BaselineAllocation,
    GaussianNoise,
    LaplaceNoise,
    ProjectionOntoSimplexAllocation,
    monte_carlo,
)
from fairlearn_dp.allocation._evaluation import theorem1_bounds

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.dask


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def test_monte_carlo_on_a_dask_cluster_matches_one_process(client):
    counts = np.random.default_rng(0).integers(0, 80, 600).astype(float)
    statistics = {"BL": BaselineAllocation(), "PoS": ProjectionOntoSimplexAllocation()}
    for noise in (LaplaceNoise(5.0), GaussianNoise(4.0)):
        expected = monte_carlo(counts, noise, statistics, n_draws=3000, chunk_size=400, random_state=4, n_jobs=1)
        with joblib.parallel_backend("dask"):
            got = monte_carlo(counts, noise, statistics, n_draws=3000, chunk_size=400, random_state=4, n_jobs=-1)
        assert got.n_draws == expected.n_draws and got.chunk_size == expected.chunk_size
        for name in statistics:
            np.testing.assert_array_equal(got.means[name], expected.means[name])
            np.testing.assert_array_equal(got.std_errors[name], expected.std_errors[name])
    assert len(client.scheduler_info()["workers"]) == 2


def test_theorem1_bounds_on_a_dask_cluster_match_one_process(client):
    counts = np.random.default_rng(1).integers(0, 40, 200).astype(float)
    expected = theorem1_bounds(counts, LaplaceNoise(6.0), n_draws=2000, random_state=2)
    with joblib.parallel_backend("dask"):
        got = theorem1_bounds(counts, LaplaceNoise(6.0), n_draws=2000, random_state=2, n_jobs=-1)
    assert got == expected
