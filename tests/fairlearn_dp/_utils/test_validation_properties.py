"""Property-based tests (hypothesis) of the shared validators in ``fairlearn_dp._utils._validation`` (issue 11).

The contract: on ANY input a validator returns a valid value or raises ``ValueError``/``TypeError`` naming the
argument -- never another exception, never NaN (or a missing label) passed through. Settings are local to this
module: 100 examples, no deadline, derandomized, no example database.

The inputs these properties first found wrong (Python ints beyond float range, a string as bounds, zero columns,
duplicate or missing declared groups) keep their own regression tests at the bottom.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from fairlearn_dp._utils._validation import (
    as_1d_float,
    as_group_vector,
    check_alpha,
    check_bounds,
    check_n_bins,
    encode_groups,
    resolve_groups,
)
from fairlearn_dp.exceptions import FairdpWarning

PROPERTIES = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                      suppress_health_check=[HealthCheck.too_slow])
CLEAR_ERRORS = (ValueError, TypeError)


def scalars():
    """Odd scalars, Python ints beyond float range included."""
    return st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-10**400, 10**400),
        st.booleans(),
        st.text(max_size=3),
        st.none(),
        st.complex_numbers(max_magnitude=10),
        st.just(pd.NA),
    )


def arrays_any_dtype(min_side=0):
    dtypes = st.sampled_from([np.float64, np.int64, np.bool_, np.complex128, "U2", "datetime64[D]", object])
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=min_side, max_side=4)
    return st.one_of(
        dtypes.filter(lambda d: d is not object).flatmap(lambda d: hnp.arrays(d, shapes)),
        shapes.flatmap(lambda shape: hnp.arrays(object, shape, elements=scalars())),
    )


def junk():
    scalar = scalars()
    return st.one_of(scalar, st.lists(scalar, max_size=6), st.lists(st.lists(scalar, max_size=3), max_size=3),
                     arrays_any_dtype(), st.lists(st.floats(-1e3, 1e3), max_size=6),
                     st.dictionaries(st.text(max_size=2), scalar, max_size=3))


def group_inputs():
    """Sensitive features: hashable labels (some missing), 2-D label arrays with >= 1 column, frames, junk."""
    label = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "c"]), st.booleans(),
                      st.floats(allow_nan=True), st.none())
    column_arrays = st.tuples(st.integers(0, 5), st.integers(1, 3)).flatmap(
        lambda shape: hnp.arrays(object, shape, elements=label))
    frames = st.lists(st.tuples(label, label), max_size=5).map(lambda rows: pd.DataFrame(rows, columns=["s", "r"]))
    return st.one_of(st.lists(label, max_size=6), column_arrays, frames, st.lists(label, max_size=6).map(pd.Series),
                     scalars(), st.lists(st.lists(label, min_size=1, max_size=2), max_size=4))


def _missing(value):
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _run(call):
    """``(True, result)`` or ``(False, None)`` after a clear error; any other exception propagates."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairdpWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return True, call()
        except CLEAR_ERRORS:
            return False, None


# --------------------------------------------------------------------------------------------- as_1d_float
@PROPERTIES
@given(values=junk())
def test_as_1d_float_returns_a_finite_1d_array_or_raises_clearly(values):
    ok, arr = _run(lambda: as_1d_float(values, "y"))
    if ok:
        assert isinstance(arr, np.ndarray) and arr.dtype == float and arr.ndim == 1 and arr.size >= 1
        assert np.all(np.isfinite(arr))


@PROPERTIES
@given(values=junk())
def test_as_1d_float_errors_name_the_argument(values):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            as_1d_float(values, "my_argument")
        except CLEAR_ERRORS as exc:
            assert "my_argument" in str(exc)


# ---------------------------------------------------------------------------------------- groups pipeline
@PROPERTIES
@given(features=group_inputs(), n=st.integers(-1, 6))
def test_as_group_vector_returns_one_present_label_per_row_or_raises_clearly(features, n):
    ok, vector = _run(lambda: as_group_vector(features, n))
    if ok:
        assert isinstance(vector, np.ndarray) and vector.ndim == 1 and vector.dtype == object
        assert len(vector) == n
        assert not any(_missing(v) for v in vector)


@PROPERTIES
@given(features=group_inputs(), declared=st.one_of(st.none(), group_inputs()))
def test_groups_pipeline_encodes_every_row_or_raises_clearly(features, declared):
    """as_group_vector -> resolve_groups -> encode_groups, as every estimator's fit runs them."""
    n = len(features) if hasattr(features, "__len__") and not isinstance(features, str) else 1
    ok, vector = _run(lambda: as_group_vector(features, n))
    if not ok:
        return
    ok, groups = _run(lambda: resolve_groups(declared, vector, estimator_name="Estimator"))
    if not ok:
        return
    assert isinstance(groups, list) and len(groups) >= 2
    assert not any(_missing(g) for g in groups)
    ok, codes = _run(lambda: encode_groups(vector, groups))
    if ok:
        assert codes.dtype == np.intp and codes.shape == (len(vector),)
        assert np.all((codes >= 0) & (codes < len(groups)))
        assert [groups[c] for c in codes] == list(vector)


@PROPERTIES
@given(data=st.data(), labels=st.lists(st.one_of(st.integers(0, 4), st.sampled_from(["a", "b", "c"])), min_size=1,
                                      max_size=12))
def test_groups_pipeline_on_plausible_labels_encodes_or_reports_an_unseen_group(data, labels):
    """Mostly valid input: the labels of the data, declared as None, exactly, in another order, with extras, or
    with some missing (then an unseen-group ValueError without any count)."""
    present = list(dict.fromkeys(labels))
    declared = data.draw(st.one_of(st.none(), st.permutations(present),
                                   st.lists(st.sampled_from(present + ["z", 9]), unique=True, max_size=8)))
    vector = as_group_vector(pd.Series(labels, dtype=object), len(labels))
    ok, groups = _run(lambda: resolve_groups(declared, vector, estimator_name="Estimator"))
    if not ok:
        assert declared is not None and len(declared) < 2 or len(present) < 2
        return
    if set(present) <= set(groups):
        codes = encode_groups(vector, groups)
        assert [groups[c] for c in codes] == labels
    else:
        with pytest.raises(ValueError, match="unseen group") as info:
            encode_groups(vector, groups)
        assert not any(ch.isdigit() for ch in str(info.value).replace(str(len(groups)), ""))


@PROPERTIES
@given(declared=junk())
def test_resolve_groups_on_any_declaration_returns_distinct_labels_or_raises_clearly(declared):
    ok, groups = _run(lambda: resolve_groups(declared, np.array(["a", "b"], dtype=object), estimator_name="E"))
    if ok:
        assert isinstance(groups, list) and len(groups) >= 2
        assert len(set(groups)) == len(groups)


# ------------------------------------------------------------------------------------------ scalar checks
@PROPERTIES
@given(n_bins=junk(), maximum=st.one_of(st.none(), st.integers(1, 10**6)))
def test_check_n_bins_returns_an_int_in_range_or_raises_clearly(n_bins, maximum):
    ok, value = _run(lambda: check_n_bins(n_bins, "n_score_bins", maximum=maximum))
    if ok:
        assert type(value) is int and value >= 1 and (maximum is None or value <= maximum)
    else:
        with pytest.raises(CLEAR_ERRORS, match="n_score_bins"):
            check_n_bins(n_bins, "n_score_bins", maximum=maximum)


@PROPERTIES
@given(bounds=st.one_of(junk(), st.tuples(scalars(), scalars()), st.lists(st.floats(), min_size=2, max_size=2)))
def test_check_bounds_returns_a_finite_increasing_pair_or_raises_clearly(bounds):
    ok, pair = _run(lambda: check_bounds(bounds))
    if ok:
        lower, upper = pair
        assert isinstance(lower, float) and isinstance(upper, float)
        assert math.isfinite(lower) and math.isfinite(upper) and lower < upper


@PROPERTIES
@given(alpha=st.one_of(junk(), st.floats(-0.5, 1.5)))
def test_check_alpha_returns_a_float_in_the_unit_interval_or_raises_clearly(alpha):
    ok, value = _run(lambda: check_alpha(alpha))
    if ok:
        assert isinstance(value, float) and 0.0 <= value <= 1.0


# ----------------------------------------------------------------------------- inputs the properties found


def test_as_1d_float_python_int_beyond_float_range():
    with pytest.raises(CLEAR_ERRORS):
        as_1d_float([10**400], "y")


def test_check_bounds_python_int_beyond_float_range():
    with pytest.raises(CLEAR_ERRORS):
        check_bounds((0, 10**400))


@pytest.mark.parametrize("bounds", ["12", b"12"])
def test_check_bounds_refuses_a_string(bounds):
    with pytest.raises(TypeError):
        check_bounds(bounds)


def test_as_group_vector_with_zero_columns():
    with pytest.raises(CLEAR_ERRORS):
        as_group_vector(np.zeros((2, 0)), 2)


def test_encode_groups_with_duplicate_groups():
    with pytest.raises(CLEAR_ERRORS):
        encode_groups(np.array(["a", "b"], dtype=object), ["a", "b", "a"])


@pytest.mark.parametrize("groups", [[float("nan"), float("nan")], [None, "a"], [float("nan"), "a"]])
def test_resolve_groups_refuses_missing_labels(groups):
    with pytest.raises(ValueError):
        resolve_groups(groups, np.array(["a", "a"], dtype=object), estimator_name="E")
