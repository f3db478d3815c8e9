"""fairlearn_dp.datasets.adult_features: a public feature set (codebook columns, public scaling)."""

import numpy as np
import pytest

from fairlearn_dp.datasets import ADULT_PUBLIC_BOUNDS, adult_categories, adult_features


def test_columns_come_from_the_codebook_and_values_lie_in_unit_interval():
    X, y, a = adult_features("sex")
    codebook = adult_categories()
    categorical = [c for c in codebook if c not in ("sex", "race")]
    expected = list(ADULT_PUBLIC_BOUNDS) + [f"{c}_{v}" for c in categorical for v in codebook[c] + ["missing"]]
    assert list(X.columns) == expected
    assert len(X) == len(y) == len(a) == 48842
    values = X.to_numpy()
    assert values.min() >= 0.0 and values.max() <= 1.0
    # exactly one indicator (a codebook value or "missing") per categorical attribute and row
    for c in categorical:
        block = X[[f"{c}_{v}" for v in codebook[c] + ["missing"]]].to_numpy()
        assert np.all(block.sum(axis=1) == 1.0), c
    assert np.linalg.norm(values, axis=1).max() <= np.sqrt(len(ADULT_PUBLIC_BOUNDS) + len(categorical))
    assert set(np.unique(y)) == {0, 1} and set(a) <= set(codebook["sex"])


def test_sensitive_must_be_sex_or_race():
    with pytest.raises(ValueError, match="sensitive"):
        adult_features("age")
