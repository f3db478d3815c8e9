"""Tests for the census count loaders (SAIPE school districts, Hawaii counties) and the files they ship."""

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
from fairlearn_dp.datasets import fetch_hawaii_counties, fetch_school_districts

PACKAGE_DIR = Path(datasets.__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
CENSUS_FILES = {
    "school_districts_saipe.csv": (965_058, "04a58f36503224244b37ee9d86991321"),
    "hawaii_counties_usdata_2010.csv": (274, "8b3ef16c546d3ab42b9a1de2a6e759f0"),
}
SAIPE_FIELDS = {"frame", "counts", "weights", "state", "district_name", "DESCR"}
HAWAII_FIELDS = {"frame", "counts", "population", "housing_units", "DESCR"}
HAWAII_COUNTS = {
    "Hawaii County": 64_382, "Honolulu County": 304_827, "Kalawao County": 67, "Kauai County": 21_710,
    "Maui County": 51_281,
}  # fmt: skip


@pytest.fixture(scope="module")
def districts():
    return fetch_school_districts()


@pytest.fixture(scope="module")
def hawaii():
    return fetch_hawaii_counties()


def _all_states_weights(states, value=1.0):
    return dict.fromkeys(sorted(set(states)), value)


# --- shipped files -------------------------------------------------------------------------------------------------


def _provenance_table():
    """``{file: (bytes, md5)}`` from the table of data/PROVENANCE.md."""
    text = (DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{32})` \|", text, flags=re.MULTILINE)
    return {name: (int(size.replace(",", "")), md5) for name, size, md5 in rows}


@pytest.mark.parametrize("name", sorted(CENSUS_FILES))
def test_census_file_matches_provenance_md5_and_size(name):
    assert _provenance_table()[name] == CENSUS_FILES[name]
    content = (DATA_DIR / name).read_bytes()
    assert len(content) == CENSUS_FILES[name][0]
    assert hashlib.md5(content).hexdigest() == CENSUS_FILES[name][1]


def test_provenance_states_sources_licences_and_hawaii_warning():
    text = (DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    for needle in (
        "bellwetherorg/edfinr_data_cleaning", "8a73e9939e2a534a930b45e260a8b312aeb0b5d7", "public domain",
        "OpenIntroStat/usdata", "e03a18da03943e20af2c5504170815c9e968c040", "GPL-3", "STAND-IN", "453,558",
    ):  # fmt: skip
        assert needle in text, needle


# --- offline only --------------------------------------------------------------------------------------------------


def test_census_module_has_no_network_code():
    tree = ast.parse((PACKAGE_DIR / "_census.py").read_text(encoding="utf-8"))
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
    assert not names & {"fetch_openml", "urlretrieve", "urlopen", "read_html"}
    assert not [name for name in names if name.split(".")[0] in {"urllib", "requests", "http", "socket"}]
    strings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [value for value in strings if re.search(r"\b(https?|ftp)://", value)]


@pytest.mark.parametrize("loader", [fetch_school_districts, fetch_hawaii_counties], ids=lambda f: f.__name__)
def test_census_loaders_work_without_network(loader, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    assert len(loader(as_frame=False).counts) > 0


def test_exported():
    assert {"fetch_school_districts", "fetch_hawaii_counties"} <= set(datasets.__all__)


@pytest.mark.parametrize("loader", [fetch_school_districts, fetch_hawaii_counties], ids=lambda f: f.__name__)
def test_arguments_are_keyword_only(loader):
    with pytest.raises(TypeError):
        loader(False)


# --- school districts ----------------------------------------------------------------------------------------------


def test_school_districts_bunch_as_frame(districts):
    assert isinstance(districts, Bunch) and set(districts) == SAIPE_FIELDS
    assert isinstance(districts.frame, pd.DataFrame) and districts.frame.shape == (13_545, 9)
    counts = districts.counts
    assert isinstance(counts, pd.Series) and counts.name == "children_5_17_in_poverty"
    assert counts.dtype == np.int64 and counts.index.name == "leaid" and counts.index.is_unique
    for field in ("weights", "state", "district_name"):
        assert isinstance(districts[field], pd.Series)
        assert districts[field].index.equals(counts.index), field
    assert districts.weights.dtype == np.float64
    np.testing.assert_array_equal(counts.to_numpy(), districts.frame["children_5_17_in_poverty"].to_numpy())
    np.testing.assert_array_equal(counts.index, districts.frame["leaid"])


def test_school_districts_rows_and_totals(districts):
    assert len(districts.counts) == 13_545
    assert districts.counts.sum() == 11_428_672
    assert (districts.counts >= 0).all()
    assert districts.counts.idxmax() == "3620580" and districts.counts.max() == 380_293
    assert districts.state.nunique() == 52 and (districts.state == "PR").sum() == 1
    no_pr = fetch_school_districts(include_puerto_rico=False)
    assert len(no_pr.counts) == len(no_pr.frame) == 13_544
    assert no_pr.counts.sum() == 11_085_737
    assert "PR" not in set(no_pr.state) and "7200030" not in no_pr.counts.index


def test_school_districts_keep_leading_zeros(districts):
    frame = districts.frame
    for column in ("state", "state_fips", "leaid", "district_id", "district_name"):
        assert pd.api.types.is_string_dtype(frame[column]) or frame[column].dtype == object, column
    assert districts.counts.index[0] == "0100005"
    assert districts.counts.index.str.fullmatch(r"\d{7}").all()
    assert (frame["leaid"] == frame["state_fips"] + frame["district_id"]).all()
    assert frame.loc[frame["state"] == "AL", "state_fips"].eq("01").all()
    assert districts.state["0100005"] == "AL"
    assert districts.district_name["0100005"] == "Albertville City School District"


def test_school_districts_default_weights_are_one(districts):
    assert districts.weights.name == "weight"
    assert (districts.weights == 1.0).all()


def test_school_districts_state_weights_applied(districts):
    states = sorted(set(districts.state))
    weights = {code: float(rank + 1) for rank, code in enumerate(states)}
    weights["ZZ"] = -5.0  # keys for states not present are ignored
    bunch = fetch_school_districts(state_weights=weights)
    np.testing.assert_array_equal(bunch.weights.to_numpy(), districts.state.map(weights).to_numpy(dtype=float))
    assert bunch.weights["3620580"] == weights["NY"] and bunch.weights["7200030"] == weights["PR"]
    assert bunch.weights.index.equals(bunch.counts.index) and bunch.weights.dtype == np.float64
    # allocation P_i = a_i x_i / sum_j a_j x_j is well defined and favours heavier-weight states
    allocation = bunch.weights * bunch.counts / (bunch.weights * bunch.counts).sum()
    assert np.isclose(allocation.sum(), 1.0)


def test_school_districts_state_weights_without_puerto_rico(districts):
    weights = _all_states_weights(districts.state, 2.5)
    del weights["PR"]
    bunch = fetch_school_districts(state_weights=weights, include_puerto_rico=False)
    assert len(bunch.weights) == 13_544 and (bunch.weights == 2.5).all()
    with pytest.raises(ValueError, match="PR"):
        fetch_school_districts(state_weights=weights)


def test_school_districts_state_weights_missing_states(districts):
    weights = _all_states_weights(districts.state)
    del weights["TX"], weights["WY"]
    with pytest.raises(ValueError, match=r"TX, WY"):
        fetch_school_districts(state_weights=weights)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf"), np.nan])
def test_school_districts_state_weights_non_positive_or_non_finite(districts, bad):
    weights = _all_states_weights(districts.state)
    weights["CA"] = bad
    with pytest.raises(ValueError, match="positive and finite"):
        fetch_school_districts(state_weights=weights)


@pytest.mark.parametrize("bad", [[("AL", 1.0)], "AL"])
def test_school_districts_state_weights_not_a_mapping(bad):
    with pytest.raises(TypeError, match="mapping"):
        fetch_school_districts(state_weights=bad)


def test_school_districts_state_weights_not_a_number(districts):
    weights = _all_states_weights(districts.state)
    weights["CA"] = "1.0"
    with pytest.raises(TypeError, match="CA"):
        fetch_school_districts(state_weights=weights)


def test_school_districts_as_arrays(districts):
    arrays = fetch_school_districts(as_frame=False)
    assert set(arrays) == SAIPE_FIELDS and arrays.frame is None
    for field in ("counts", "weights", "state", "district_name"):
        assert isinstance(arrays[field], np.ndarray) and arrays[field].shape == (13_545,), field
        np.testing.assert_array_equal(arrays[field], districts[field].to_numpy())
    assert arrays.counts.dtype == np.int64 and arrays.weights.dtype == np.float64
    assert arrays.DESCR == districts.DESCR


def test_school_districts_descr(districts):
    descr = districts.DESCR
    for needle in (
        "Licence", "public domain", "04a58f36503224244b37ee9d86991321", "2010", "16,000", "13,545", "Puerto Rico",
        "380,293", "state_weights", "per-pupil expenditure", "a_i",
    ):  # fmt: skip
        assert needle in descr, needle


# --- Hawaii counties -----------------------------------------------------------------------------------------------


def test_hawaii_bunch_as_frame(hawaii):
    assert isinstance(hawaii, Bunch) and set(hawaii) == HAWAII_FIELDS
    assert isinstance(hawaii.frame, pd.DataFrame) and hawaii.frame.shape == (5, 5)
    assert hawaii.frame["fips"].tolist() == ["15001", "15003", "15005", "15007", "15009"]
    for field in ("counts", "population", "housing_units"):
        series = hawaii[field]
        assert isinstance(series, pd.Series) and series.dtype == np.int64, field
        assert series.index.name == "county" and series.index.tolist() == list(HAWAII_COUNTS), field
    assert hawaii.counts.name == "households_acs5yr_2006_2010"


def test_hawaii_counts_and_totals(hawaii):
    assert hawaii.counts.to_dict() == HAWAII_COUNTS
    assert hawaii.counts.sum() == 442_267
    assert hawaii.population.sum() == 1_360_301
    assert hawaii.housing_units.sum() == 519_508
    # the stand-in: no column reaches the paper's C = 453,558
    assert 453_558 not in {hawaii.counts.sum(), hawaii.population.sum(), hawaii.housing_units.sum()}


def test_hawaii_as_arrays(hawaii):
    arrays = fetch_hawaii_counties(as_frame=False)
    assert set(arrays) == HAWAII_FIELDS and arrays.frame is None
    for field in ("counts", "population", "housing_units"):
        assert isinstance(arrays[field], np.ndarray) and arrays[field].dtype == np.int64, field
        np.testing.assert_array_equal(arrays[field], hawaii[field].to_numpy())


def test_hawaii_descr_warns_it_is_not_the_papers_data(hawaii):
    descr = hawaii.DESCR
    for needle in ("Licence", "GPL-3", "453,558", "442,267", "ACS", "NOT the paper's data", "8b3ef16c546d3ab4"):
        assert needle in descr, needle
