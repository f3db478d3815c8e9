"""Lazy ``predict`` / ``_pmf_predict`` of DPExponentiatedGradient on Dask inputs (issue 34, section 4): a Dask array
partitioned like ``X``, computed on the workers, equal to the in-memory predictions with the same ``random_state``.
Needs the [dask] extra (skipped without it; .ci/run's dask leg runs it with -m dask).

The in-memory and Dask paths predict with the same fitted object and draw the same uniforms (row ``r`` gets draw
``r`` of one stream). The probabilities come from dot products computed on partitions rather than on the whole array
(BLAS may sum in another order), so they are compared to a tolerance of a few ulps, and the 0/1 predictions exactly
on every row whose probability is not within that tolerance of its draw (where rounding cannot flip the comparison).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.tree import DecisionTreeClassifier

from fairlearn_dp.reductions import DPExponentiatedGradient

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")

pytestmark = [pytest.mark.dask, pytest.mark.usefixtures("dask_threads")]

N = 900
CHUNKINGS = [(N,), (300, 300, 300), (1, 598, 1, 300)]
#: |p - p'| of a probability summed over at most 5 plays, each weight times a 0/1 prediction (or a clipped linear
#: score in [0, 1]): a few ulps of 1.
TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    a = rng.randint(0, 2, N)
    X = pd.DataFrame(rng.normal(size=(N, 3)) + 0.5 * a[:, None], columns=["u", "v", "w"])
    y = (X.u - 0.5 * X.v + 0.3 * rng.randn(N) > 0).astype(int).to_numpy()
    return X, y, a


def _fit(data, frame=True, **params):
    X, y, a = data
    X = X if frame else X.to_numpy()
    model = DPExponentiatedGradient(DecisionTreeClassifier(max_depth=3, random_state=0), DemographicParity(),
                                    max_iter=5, groups=[0, 1], accountant=BudgetAccountant(), random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # privacy warnings of a small fit: not this test's subject
        return model.fit(X, y, sensitive_features=a)


FITS = {"private": {"epsilon": 1.0}, "fairlearn": {"epsilon": np.inf}}


@pytest.fixture(scope="module", params=list(FITS))
def fitted(request, data):
    return _fit(data, **FITS[request.param])


@pytest.fixture(scope="module", params=list(FITS))
def fitted_on_an_array(request, data):
    return _fit(data, frame=False, **FITS[request.param])


def _assert_same_predictions(model, X, got, seed):
    positive = model._pmf_predict(X)[:, 1]
    draws = np.random.RandomState(seed).rand(len(positive))
    clear = np.abs(positive - draws) > TOLERANCE          # rows rounding cannot flip
    assert clear.mean() > 0.99
    np.testing.assert_array_equal(got[clear], model.predict(X, random_state=seed)[clear])


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_predict_on_a_dask_array_is_lazy_and_equals_in_memory(fitted_on_an_array, data, chunks):
    model, X = fitted_on_an_array, data[0].to_numpy()
    lazy = model.predict(da.from_array(X, chunks=(chunks, 3)), random_state=7)
    assert dask.is_dask_collection(lazy) and lazy.numblocks == (len(chunks),) and lazy.chunks == (chunks,)
    _assert_same_predictions(model, X, lazy.compute(), 7)
    pmf = model._pmf_predict(da.from_array(X, chunks=(chunks, 3)))
    assert dask.is_dask_collection(pmf) and pmf.chunks == (chunks, (2,))
    np.testing.assert_allclose(pmf.compute(), model._pmf_predict(X), rtol=0, atol=TOLERANCE)


def test_predict_on_a_dask_dataframe_equals_in_memory(fitted, data):
    X = data[0]
    frame = dd.from_pandas(X, npartitions=4)
    lazy = fitted.predict(frame, random_state=3)
    assert dask.is_dask_collection(lazy) and lazy.numblocks == (4,)
    _assert_same_predictions(fitted, X, lazy.compute(), 3)
    np.testing.assert_allclose(fitted._pmf_predict(frame).compute(), fitted._pmf_predict(X), rtol=0,
                               atol=TOLERANCE)


def _no_compute(*args, **kwargs):
    raise AssertionError("a Dask graph was computed")


def test_the_column_checks_compute_nothing(fitted, data):
    frame = dd.from_pandas(data[0], npartitions=3)
    with dask.config.set(scheduler=_no_compute):
        fitted.predict(frame, random_state=0)              # the graph is built, not run
        with pytest.raises(ValueError, match="The feature names should match"):
            fitted.predict(frame[["w", "v", "u"]], random_state=0)
        with pytest.raises(ValueError, match="The feature names should match"):
            fitted._pmf_predict(frame[["w", "v", "u"]])
