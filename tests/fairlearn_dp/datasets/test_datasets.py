"""Tests for the offline loaders of fairlearn_dp.datasets and the files they ship."""

import ast
import hashlib
import re
import socket
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.utils import Bunch

import fairlearn_dp.datasets as datasets
from fairlearn_dp.datasets import (
    COMMUNITIES_CRIME_BOUNDS,
    LAW_SCHOOL_BOUNDS,
    fetch_adult,
    fetch_communities_crime,
    fetch_law_school,
)

PACKAGE_DIR = Path(datasets.__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
LOADERS = [fetch_law_school, fetch_communities_crime, fetch_adult]
SHAPES = {fetch_law_school: (21_983, 2), fetch_communities_crime: (1_994, 99), fetch_adult: (48_842, 14)}
ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation", "relationship",
    "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
]  # fmt: skip


@pytest.fixture(scope="module")
def law():
    return fetch_law_school()


@pytest.fixture(scope="module")
def communities():
    return fetch_communities_crime()


# --- shipped files -------------------------------------------------------------------------------------------------


def _provenance_table():
    """``{file: (bytes, md5)}`` from the table of data/PROVENANCE.md."""
    text = (DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{32})` \|", text, flags=re.MULTILINE)
    return {name: (int(size.replace(",", "")), md5) for name, size, md5 in rows}


def test_provenance_lists_exactly_the_shipped_files():
    shipped = {path.name for path in DATA_DIR.iterdir() if path.name != "PROVENANCE.md"}
    assert set(_provenance_table()) == shipped == {
        "bar_pass_prediction.csv", "communities.data", "communities.names", "adult.data", "adult.test", "adult.names",
        "school_districts_saipe.csv", "hawaii_counties_usdata_2010.csv",
    }  # fmt: skip


@pytest.mark.parametrize("name", sorted(_provenance_table()))
def test_shipped_file_matches_provenance_md5_and_size(name):
    size, md5 = _provenance_table()[name]
    content = (DATA_DIR / name).read_bytes()
    assert len(content) == size
    assert hashlib.md5(content).hexdigest() == md5


# --- offline only --------------------------------------------------------------------------------------------------


def _imported_and_called_names(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


@pytest.mark.parametrize("path", sorted(PACKAGE_DIR.glob("*.py")), ids=lambda path: path.name)
def test_no_download_code(path):
    names = _imported_and_called_names(path)
    forbidden = {"fetch_openml", "urlretrieve", "urlopen"}
    assert not names & forbidden
    assert not [name for name in names if name.split(".")[0] in {"urllib", "requests", "http", "socket"}]


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_loaders_work_without_network(loader, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert loader(as_frame=False).data.shape == SHAPES[loader]


# --- return conventions --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_bunch_as_frame(loader):
    bunch = loader()
    assert isinstance(bunch, Bunch)
    assert set(bunch) == {"data", "target", "frame", "feature_names", "target_names", "sensitive_features", "DESCR"}
    assert isinstance(bunch.data, pd.DataFrame) and bunch.data.shape == SHAPES[loader]
    assert isinstance(bunch.target, pd.Series) and len(bunch.target) == SHAPES[loader][0]
    assert bunch.feature_names == list(bunch.data.columns)
    assert bunch.target_names == [bunch.target.name]
    assert bunch.target.name not in bunch.feature_names
    assert list(bunch.frame.columns) == bunch.feature_names + bunch.target_names
    pd.testing.assert_frame_equal(bunch.frame[bunch.feature_names], bunch.data)
    pd.testing.assert_series_equal(bunch.frame[bunch.target.name], bunch.target)
    assert bunch.sensitive_features.index.equals(bunch.data.index)
    assert isinstance(bunch.DESCR, str) and "Licence" in bunch.DESCR and "Preprocessing" in bunch.DESCR


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_bunch_as_arrays(loader):
    frames, arrays = loader(as_frame=True), loader(as_frame=False)
    assert arrays.frame is None
    for field in ("data", "target", "sensitive_features"):
        assert isinstance(arrays[field], np.ndarray)
        assert arrays[field].shape == frames[field].shape
    np.testing.assert_array_equal(arrays.target, frames.target.to_numpy())
    assert arrays.feature_names == frames.feature_names and arrays.target_names == frames.target_names


@pytest.mark.parametrize("as_frame", [True, False])
@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_return_X_y(loader, as_frame):
    X, y = loader(as_frame=as_frame, return_X_y=True)
    bunch = loader(as_frame=as_frame)
    assert type(X) is type(bunch.data) and type(y) is type(bunch.target)
    assert X.shape == SHAPES[loader] and y.shape == (SHAPES[loader][0],)


@pytest.mark.parametrize("loader", LOADERS, ids=lambda loader: loader.__name__)
def test_arguments_are_keyword_only(loader):
    with pytest.raises(TypeError):
        loader(False)


# --- Law School ----------------------------------------------------------------------------------------------------


def test_law_school_rows_and_groups(law):
    assert len(law.data) == 21_983
    assert law.sensitive_features.name == "race"
    assert law.sensitive_features.value_counts().to_dict() == {
        "asian": 897, "black": 1_343, "hisp": 1_027, "white": 18_716,
    }  # fmt: skip


def test_law_school_target_and_features(law):
    assert LAW_SCHOOL_BOUNDS == (1.0, 4.0)
    assert law.target.name == "ugpa"
    assert LAW_SCHOOL_BOUNDS[0] <= law.target.min() and law.target.max() <= LAW_SCHOOL_BOUNDS[1]
    assert (law.target.min(), law.target.max()) == (1.5, 3.9)
    assert "lsat" in law.feature_names
    # no copy or linear function of the target, no encoding of the group
    assert not {"ugpa", "gpa", "index6040", "dnn_bar_pass_prediction", "race", "race1"} & set(law.feature_names)
    assert all(pd.api.types.is_numeric_dtype(dtype) for dtype in law.data.dtypes)
    assert not law.frame.isna().any().any()
    assert law.data.index.equals(pd.RangeIndex(21_983))


def test_law_school_descr_states_bounds_and_licence(law):
    assert "(1.0, 4.0)" in law.DESCR
    assert "c1a96f051a9a1db838b0a80eef68d1d6" in law.DESCR
    assert "Licence: unknown" in law.DESCR


# --- Communities and Crime -----------------------------------------------------------------------------------------


def test_communities_rows_and_groups(communities):
    assert len(communities.data) == 1_994
    assert communities.sensitive_features.name == "black"
    assert pd.api.types.is_integer_dtype(communities.sensitive_features)
    assert communities.sensitive_features.value_counts().to_dict() == {1: 970, 0: 1_024}
    np.testing.assert_array_equal(
        communities.sensitive_features, (communities.data["racepctblack"] > 0.06).astype(int)
    )


def test_communities_columns_target_and_missing_values(communities):
    assert COMMUNITIES_CRIME_BOUNDS == (0.0, 1.0)
    assert communities.target.name == "ViolentCrimesPerPop"
    low, high = COMMUNITIES_CRIME_BOUNDS
    assert low <= communities.target.min() and communities.target.max() <= high
    assert not {"state", "county", "community", "communityname", "fold"} & set(communities.feature_names)
    assert not {"OtherPerCap", "LemasSwornFT", "PolicBudgPerPop"} & set(communities.feature_names)
    assert not communities.frame.isna().any().any()
    assert "CC BY 4.0" in communities.DESCR


# --- Adult ---------------------------------------------------------------------------------------------------------


def test_adult_rows_columns_and_target(adult):
    assert adult.data.shape == (48_842, 14)
    assert adult.feature_names == ADULT_COLUMNS
    assert adult.target.name == "class"
    assert adult.target.value_counts().to_dict() == {"<=50K": 37_155, ">50K": 11_687}
    assert "CC BY 4.0" in adult.DESCR


def test_adult_dtypes_and_missing_values(adult):
    categorical = ["workclass", "education", "marital-status", "occupation", "relationship", "race", "sex",
                   "native-country"]  # fmt: skip
    for column in ADULT_COLUMNS:
        expected = "category" if column in categorical else "int64"
        assert adult.data[column].dtype == expected, column
    assert adult.data.isna().any(axis=1).sum() == 3_620
    assert adult.data.isna().sum()[["workclass", "occupation", "native-country"]].tolist() == [2_799, 2_809, 857]
    values = pd.concat([adult.data[column].astype(object).dropna() for column in categorical])
    assert "?" not in set(values)
    assert (values == values.str.strip()).all()


def test_adult_sensitive_features(adult):
    sensitive = adult.sensitive_features
    assert isinstance(sensitive, pd.DataFrame) and list(sensitive.columns) == ["sex", "race"]
    assert sensitive["sex"].value_counts().to_dict() == {"Male": 32_650, "Female": 16_192}
    assert sensitive["race"].value_counts()["White"] == 41_762
    arrays = fetch_adult(as_frame=False)
    assert arrays.sensitive_features.shape == (48_842, 2)
    assert arrays.data.dtype == object


def test_adult_categories_is_the_public_codebook():
    """adult_categories() reads adult.names, not the data: every attribute's listed values, in the file's order."""
    from fairlearn_dp.datasets import adult_categories, fetch_adult

    codebook = adult_categories()
    assert codebook["sex"] == ["Female", "Male"]
    assert codebook["race"] == ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"]
    assert len(codebook["native-country"]) == 41 and set(codebook) == {
        "workclass", "education", "marital-status", "occupation", "relationship", "race", "sex", "native-country"}
    data = fetch_adult()
    for name, values in codebook.items():                       # the data use no value outside the codebook
        assert set(data.data[name].dropna().astype(str)) <= set(values)
