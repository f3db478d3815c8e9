"""The loaders whose feature matrix has a public row bound publish it (``X.attrs``), and it is the right one."""

import math

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from fairlearn_dp.datasets import (
    ADULT_PUBLIC_BOUNDS,
    adult_categories,
    adult_features,
    fetch_adult,
    fetch_communities_crime,
    fetch_law_school,
)


def _adult(sensitive):
    return adult_features(sensitive)[0]


# (loader of the feature frame, analytic L2 bound, analytic L1 bound), derived from each loader's public domain:
# Adult: 5 numeric columns in [0, 1] and 6 one-hot blocks with exactly one 1 each; Law School: lsat on the 10-48
# LSAT scale and the 0/1 pass_bar; Communities and Crime: 99 features in [0, 1].
PUBLISHED = {
    "adult_features(sex)": (lambda: _adult("sex"), math.sqrt(5 + 6), 11.0),
    "adult_features(race)": (lambda: _adult("race"), math.sqrt(5 + 6), 11.0),
    "fetch_law_school": (lambda: fetch_law_school().data, math.sqrt(48 ** 2 + 1), 49.0),
    "fetch_communities_crime": (lambda: fetch_communities_crime().data, math.sqrt(99), 99.0),
}


@pytest.fixture(scope="module", params=list(PUBLISHED))
def published(request):
    load, l2, l1 = PUBLISHED[request.param]
    return load(), l2, l1


def test_the_published_bounds_are_the_analytic_ones(published):
    X, l2, l1 = published
    assert X.attrs["row_norm_bound"] == l2           # math.sqrt is correctly rounded: the same double everywhere
    assert X.attrs["row_norm_bound_l1"] == l1
    assert X.attrs["row_norm_bound_columns"] == tuple(X.columns)


def test_every_row_is_within_the_published_bounds(published):
    X, l2, l1 = published
    values = X.to_numpy(dtype=float)
    assert np.linalg.norm(values, axis=1).max() <= l2
    assert np.abs(values).sum(axis=1).max() <= l1


def test_the_bounds_survive_a_train_test_split(published):
    X, l2, _ = published
    y = np.arange(len(X)) % 2
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    for part in (X_train, X_test, X_train.iloc[:10], X_test[X_test.columns[:2]]):
        assert part.attrs["row_norm_bound"] == l2


def test_the_adult_bound_is_tight():
    """A record of the public domain at the upper bound of every numeric attribute reaches sqrt(11) exactly."""
    X = _adult("sex")
    codebook = adult_categories()
    row = X.iloc[:1].copy()
    row[:] = 0.0
    row[list(ADULT_PUBLIC_BOUNDS)] = 1.0
    for attribute in (c for c in codebook if c not in ("sex", "race")):
        row[f"{attribute}_{codebook[attribute][0]}"] = 1.0
    assert np.linalg.norm(row.to_numpy()) == pytest.approx(X.attrs["row_norm_bound"], rel=1e-15)


def test_arrays_frames_with_the_target_and_raw_data_carry_no_bound():
    assert fetch_law_school(as_frame=False).data.__class__ is np.ndarray
    for bunch in (fetch_law_school(), fetch_communities_crime()):
        assert "row_norm_bound" not in bunch.frame.attrs         # the frame holds the target too
        assert "row_norm_bound" in bunch.data.attrs
    assert "row_norm_bound" in fetch_law_school(return_X_y=True)[0].attrs
    assert "row_norm_bound" not in fetch_adult().data.attrs      # raw categorical attributes: no numeric row
