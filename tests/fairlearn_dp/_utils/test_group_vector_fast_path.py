"""as_group_vector's fast path for integer columns and categorical codes returns what the general path returns.

The reference is the general single-column path (object conversion, one-column frame, per-row missing-value check),
applied to the same input: the same labels with the same Python types, the same errors, and the same groups and
codes downstream (resolve_groups, encode_groups).
"""

import datetime

import numpy as np
import pandas as pd
import pytest

from fairlearn_dp._utils import _validation
from fairlearn_dp._utils._validation import as_group_vector, encode_groups, resolve_groups

N = 1000
RNG = np.random.default_rng(0)
PICK = RNG.integers(0, 4, N)


def general_path(sensitive_features, n_samples, name="sensitive_features"):
    """as_group_vector's general single-column path, as it reads without the fast path."""
    if isinstance(sensitive_features, pd.Series):
        frame = sensitive_features.to_frame()
    else:
        frame = pd.DataFrame(np.asarray(sensitive_features, dtype=object)[:, None])
    if len(frame) != n_samples:
        raise ValueError(f"{name} has {len(frame)} rows but the data have {n_samples} (length mismatch).")
    if frame.isna().to_numpy().any():
        raise ValueError(f"{name} contains missing values (NaN/None).")
    return frame.iloc[:, 0].to_numpy(dtype=object)


def _categorical(categories, **keywords):
    return pd.Categorical.from_codes(PICK, categories=categories, **keywords)


FAST = {
    "int64": PICK.astype(np.int64),
    "int8_negative": (PICK - 2).astype(np.int8),
    "int32": PICK.astype(np.int32) * 1000,
    "uint8": PICK.astype(np.uint8),
    "uint64_beyond_int64": PICK.astype(np.uint64) + np.uint64(2 ** 63),
    "bool": PICK > 1,
    "series_int64": pd.Series(PICK, index=np.arange(N)[::-1] * 3, name="race"),
    "series_uint16": pd.Series(PICK.astype(np.uint16)),
    "series_bool": pd.Series(PICK > 2),
    "categorical_str": _categorical(["a", "b", "c", "d"]),
    "categorical_int_unused": _categorical([10, 20, 30, 40, 50]),
    "categorical_float": _categorical([0.5, 1.5, 2.5, 3.5]),
    "categorical_bool_ordered": pd.Categorical.from_codes(PICK % 2, categories=[False, True], ordered=True),
    "categorical_datetime": _categorical(pd.to_datetime(["2020-01-01", "2021-01-01", "2022-01-01", "2023-01-01"])),
    "categorical_mixed_objects": _categorical(pd.Index([1, "b", 2.5, datetime.date(2020, 1, 1)], dtype=object)),
    "series_category_str": pd.Series(_categorical(["x", "y", "z", "w"]), index=np.arange(N) + 7),
    "series_category_int": pd.Series(PICK).astype("category"),
    "empty_int": np.zeros(0, dtype=np.int64),
    "empty_categorical": pd.Categorical([], categories=["a"]),
}
GENERAL = {                                           # inputs the fast path leaves to the general path
    "float": PICK.astype(float),
    "object_ints": PICK.astype(object),
    "list_of_ints": PICK.tolist(),
    "strings": np.array(["a", "b", "c", "d"])[PICK],
    "nullable_Int64": pd.Series(PICK, dtype="Int64"),
    "masked_ints": np.ma.masked_array(PICK, mask=PICK == 0),
    "column_2d": PICK[:, None],
    "series_float": pd.Series(PICK.astype(float)),
}


@pytest.fixture
def fast_path_calls(monkeypatch):
    """Records, per call, whether the fast path answered (so that no test compares the general path with itself)."""
    calls = []
    real = _validation._integer_or_categorical_labels

    def spy(*args):
        labels = real(*args)
        calls.append(labels is not None)
        return labels
    monkeypatch.setattr(_validation, "_integer_or_categorical_labels", spy)
    return calls


def _same_labels(got, expected):
    assert isinstance(got, np.ndarray) and got.dtype == object and got.shape == expected.shape
    assert [type(label) for label in got] == [type(label) for label in expected]
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("name", sorted(FAST))
def test_fast_path_labels_are_the_general_path_s(name, fast_path_calls):
    values = FAST[name]
    n = len(values)
    got = as_group_vector(values, n)
    assert fast_path_calls == [True]
    expected = general_path(values, n)
    _same_labels(got, expected)
    if n:
        groups = resolve_groups(None, got, estimator_name="test", private=False)
        expected_groups = resolve_groups(None, expected, estimator_name="test", private=False)
        assert groups == expected_groups and list(map(type, groups)) == list(map(type, expected_groups))
        np.testing.assert_array_equal(encode_groups(got, groups), encode_groups(expected, groups))
        np.testing.assert_array_equal(np.unique(got.astype(str)), np.unique(expected.astype(str)))


@pytest.mark.parametrize("name", sorted(GENERAL))
def test_other_inputs_take_the_general_path(name, fast_path_calls):
    values = GENERAL[name]
    got = as_group_vector(values, N)
    assert fast_path_calls == [False]
    _same_labels(got, general_path(values if np.ndim(values) == 1 else np.asarray(values)[:, 0], N))


@pytest.mark.parametrize("name", sorted(set(FAST) - {"empty_int", "empty_categorical"}))
def test_length_mismatch_is_the_same_error(name, fast_path_calls):
    values = FAST[name]
    for n_samples in (len(values) - 1, len(values) + 5):
        with pytest.raises(ValueError) as expected:
            general_path(values, n_samples, "sf")
        with pytest.raises(ValueError) as got:
            as_group_vector(values, n_samples, "sf")
        assert str(got.value) == str(expected.value) and "length mismatch" in str(got.value)
    assert fast_path_calls == []                       # raised by the fast path itself (it never returned)


@pytest.mark.parametrize("values", [
    pd.Categorical(["a", None, "b"]),
    pd.Series(pd.Categorical([1, 2, np.nan])),
    pd.Categorical.from_codes([0, -1, 1], categories=[5, 6]),
], ids=["categorical_none", "series_category_nan", "code_minus_one"])
def test_a_missing_category_is_the_same_error(values):
    with pytest.raises(ValueError) as expected:
        general_path(values, 3)
    with pytest.raises(ValueError) as got:
        as_group_vector(values, 3)
    assert str(got.value) == str(expected.value) == "sensitive_features contains missing values (NaN/None)."
    with pytest.raises(ValueError, match="length mismatch"):       # the length is checked first, as before
        as_group_vector(values, 4)


def test_integer_labels_match_declared_groups_of_every_numeric_kind():
    """Labels from the fast path are Python ints, so declared groups 0, 1.0, np.int64(2), np.uint8(3) match them
    as they matched the general path's."""
    groups = [0, 1.0, np.int64(2), np.uint8(3)]
    for values in (PICK.astype(np.int16), pd.Series(PICK.astype(np.uint32)), _categorical([0, 1, 2, 3])):
        np.testing.assert_array_equal(encode_groups(as_group_vector(values, N), groups), PICK)
