"""AIF360 0.6.1's own ``AdultDataset`` on pandas 3, and the workarounds the docs give.

AIF360's class reads ``aif360/data/raw/adult/adult.{data,test}``, which the installed package does not ship (and the
tests download nothing): here its ``read_csv`` reads the bundled copies of the same UCI files instead, everything
else (AIF360's code, pandas' defaults) unchanged.
"""

import os
import warnings

import numpy as np
import pandas as pd
import pytest

from aif360_dp.datasets import AdultDataset

BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__import__("fairlearn_dp").__file__)), "datasets", "data")
PANDAS_3 = int(pd.__version__.split(".")[0]) >= 3


class _BundledReader:
    """pandas, except that ``read_csv`` reads the bundled file of the same name (for AIF360's loader module)."""

    def __getattr__(self, name):
        return getattr(pd, name)

    @staticmethod
    def read_csv(path, **kwargs):
        return pd.read_csv(os.path.join(BUNDLED, os.path.basename(path)), **kwargs)


@pytest.fixture
def aif360_adult(monkeypatch):
    import aif360.datasets.adult_dataset as module

    monkeypatch.setattr(module, "pd", _BundledReader())
    return module.AdultDataset


@pytest.mark.skipif(not PANDAS_3, reason="pandas < 3: AIF360's loader works unchanged")
def test_aif360s_adult_fails_on_pandas_3(aif360_adult):
    from aif360.algorithms.preprocessing.optim_preproc_helpers import data_preproc_functions

    with pytest.raises(TypeError, match="Cannot interpret .*StringDtype.* as a data type"):
        aif360_adult()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(data_preproc_functions, "AdultDataset", aif360_adult)
        with pytest.raises(ValueError, match="(?s)Could not convert .* to a NumPy dtype .*StringDtype"):
            data_preproc_functions.load_preproc_data_adult()      # its label column is still a string column


def test_the_workarounds_give_aif360s_dataset(aif360_adult):
    """With string inference off (pandas 3; the default before), AIF360's class loads, and aif360_dp's AdultDataset
    (any pandas) gives the same dataset: features, labels, protected attributes, names."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*future.infer_string")      # deprecated in pandas 3
        with pd.option_context("future.infer_string", False):
            theirs = aif360_adult()
    ours = AdultDataset()
    assert theirs.features.shape == ours.features.shape == (45222, 98)
    assert theirs.feature_names == ours.feature_names and theirs.label_names == ours.label_names
    np.testing.assert_array_equal(theirs.features, ours.features)
    np.testing.assert_array_equal(theirs.labels, ours.labels)
    np.testing.assert_array_equal(theirs.protected_attributes, ours.protected_attributes)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*future.infer_string")      # deprecated in pandas 3
        assert pd.get_option("future.infer_string") is PANDAS_3            # the option is restored
