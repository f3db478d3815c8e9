"""Shared fixtures: small synthetic regression problems and fresh accountants."""

import numpy as np
import pytest

import fairlearn_dp  # noqa: F401  (first: makes diffprivlib importable on scikit-learn 1.9, see fairlearn_dp._compat)
from diffprivlib import BudgetAccountant  # noqa: E402


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
