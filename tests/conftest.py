"""Shared fixtures: small synthetic regression problems, fresh accountants and the Adult data (session-scoped: read
once; tests must not change them in place, AIF360 datasets are copied by ``subset``).

Under pytest-xdist (the default run: one worker per core) each worker, and every process a test starts, uses one
BLAS/OpenMP thread: two workers with a pool of two threads each oversubscribe the cores, and OpenBLAS's waiting
threads spin (measured: a quarter more CPU time for the same tests, docs/performance.md, "The test suite"). A
single-process run (``-n 0``) keeps the libraries' defaults."""

import os

if os.environ.get("PYTEST_XDIST_WORKER"):        # before numpy loads its BLAS; threadpool_limits covers the rest
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from diffprivlib import BudgetAccountant  # noqa: E402

import fairlearn_dp  # noqa: F401,E402  (first: makes diffprivlib importable on scikit-learn 1.9, see fairlearn_dp._compat)

if os.environ.get("PYTEST_XDIST_WORKER"):        # the pools already loaded (numpy's, scikit-learn's OpenMP)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)


@pytest.fixture
def dask_threads():
    """Dask's threaded scheduler for the test (the [dask] tests: ``pytest.mark.usefixtures("dask_threads")``)."""
    dask = pytest.importorskip("dask")
    with dask.config.set(scheduler="threads"):
        yield


@pytest.fixture
def accountant():
    """A fresh, unlimited accountant so no test touches diffprivlib's global one."""
    return BudgetAccountant()


def make_regression_outputs(n=3000, n_groups=3, seed=0):
    """Regressor outputs in [0, 1] whose distribution shifts with the group."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    outputs = np.clip(rng.normal(0.35 + 0.15 * groups, 0.12), 0.0, 1.0)
    return outputs, groups


@pytest.fixture
def regression_outputs():
    return make_regression_outputs()


@pytest.fixture
def three_feature_dataset():
    """``make(X, y, a)``: an AIF360 ``BinaryLabelDataset`` of three features, the label and ``sex = (a == "a")``
    (skips without AIF360)."""
    pd = pytest.importorskip("pandas")
    datasets = pytest.importorskip("aif360.datasets")

    def make(X, y, a):
        frame = pd.DataFrame({"sex": (a == "a").astype(float), "x0": X[:, 0], "x1": X[:, 1], "x2": X[:, 2],
                              "label": y.astype(float)})
        return datasets.BinaryLabelDataset(df=frame, label_names=["label"], protected_attribute_names=["sex"],
                                           favorable_label=1.0, unfavorable_label=0.0)

    return make


# ------------------------------------------------------------------------------------------------- Adult
@pytest.fixture(scope="session")
def adult():
    """Adult as :func:`fairlearn_dp.datasets.fetch_adult` returns it (the bundled copy: a Bunch of DataFrames)."""
    from fairlearn_dp.datasets import fetch_adult

    return fetch_adult()


@pytest.fixture(scope="session")
def adult_sex():
    """:func:`fairlearn_dp.datasets.adult_features` by sex: model-ready ``(X, y, sex)`` (X a DataFrame)."""
    from fairlearn_dp.datasets import adult_features

    return adult_features("sex")


@pytest.fixture(scope="session")
def adult_race():
    """:func:`fairlearn_dp.datasets.adult_features` by race: model-ready ``(X, y, race)`` (X a DataFrame)."""
    from fairlearn_dp.datasets import adult_features

    return adult_features("race")


@pytest.fixture(scope="session")
def aif360_adult():
    """``aif360_dp.datasets.AdultDataset()`` with its defaults (skips without AIF360)."""
    pytest.importorskip("aif360")
    from aif360_dp.datasets import AdultDataset

    return AdultDataset()


@pytest.fixture(scope="session")
def aif360_adult_numeric():
    """2,000 Adult rows (seed 0) as an AIF360 dataset of numeric features only, scaled into [0, 1] with public
    ranges (ages and weekly hours below 100, education-num 1..16; race and sex are already 0/1)."""
    pytest.importorskip("aif360")
    from aif360_dp.datasets import AdultDataset

    data = AdultDataset(features_to_keep=["age", "education-num", "hours-per-week"], categorical_features=[])
    data = data.subset(np.sort(np.random.default_rng(0).choice(data.features.shape[0], 2000, replace=False)))
    assert data.feature_names == ["age", "education-num", "race", "sex", "hours-per-week"]
    data.features = data.features / np.array([100.0, 16.0, 1.0, 1.0, 100.0])
    return data


def pytest_addoption(parser):
    parser.addoption("--slow-shard", default=None, metavar="K/N",
                     help="run the K-th of N parts of the slow tests (tests/slow_shards.py; .ci/run runs one)")


def pytest_collection_modifyitems(config, items):
    spec = config.getoption("--slow-shard")
    if spec is None:
        return
    import slow_shards

    try:
        kept, dropped = slow_shards.select(items, spec)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
