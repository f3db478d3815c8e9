"""fairlearn_dp._utils._row_bounds: published row bounds (X.attrs), the tight bound of a box, the resolution order."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from fairlearn_dp._utils._row_bounds import (
    box_row_norm_bound,
    feature_bound_radius,
    feature_reach,
    publish_row_norm_bounds,
    published_row_norm_bound,
    resolve_row_norm_bound,
    warn_loose_row_norm_bound,
)
from fairlearn_dp._utils._validation import check_feature_bound
from fairlearn_dp.exceptions import UtilityWarning


def _frame(n=6, d=3):
    X = pd.DataFrame(np.random.default_rng(0).uniform(0, 1, size=(n, d)), columns=[f"c{j}" for j in range(d)])
    return publish_row_norm_bounds(X, l2=math.sqrt(d), l1=float(d))


# --- the box -------------------------------------------------------------------------------------------------------


def test_box_bound_is_the_norm_of_the_farthest_corner():
    rng = np.random.default_rng(1)
    lower = rng.uniform(-3, 1, size=7)
    upper = lower + rng.uniform(0, 4, size=7)
    farthest = np.where(np.abs(lower) > np.abs(upper), lower, upper)     # the corner farthest from 0
    # Sums of 7 squares in two orders (one through BLAS' dot): relative gap <= about 2 * 6 * eps / 2 < 1e-14.
    assert box_row_norm_bound((lower, upper), 7) == pytest.approx(math.sqrt(sum(max(lo * lo, hi * hi) for lo, hi
                                                                                 in zip(lower, upper, strict=False))), rel=1e-14)
    assert box_row_norm_bound((lower, upper), 7) == pytest.approx(np.linalg.norm(farthest), rel=1e-14)
    assert box_row_norm_bound((lower, upper), 7, norm_ord=1) == pytest.approx(np.abs(farthest).sum(), rel=1e-14)
    # Every point of the box is within the bound, and the farthest corner is on it (the bound is tight).
    points = rng.uniform(lower, upper, size=(1000, 7))
    assert np.linalg.norm(points, axis=1).max() <= box_row_norm_bound((lower, upper), 7)


def test_a_number_is_the_symmetric_box_and_scalar_sides_broadcast():
    assert box_row_norm_bound(2.0, 4) == 4.0                   # 2 sqrt(4)
    assert box_row_norm_bound(2.0, 4, norm_ord=1) == 8.0
    assert box_row_norm_bound((0.0, 1.0), 11) == math.sqrt(11)
    assert box_row_norm_bound((-3.0, [1.0, 2.0]), 2) == math.sqrt(18)    # |-3| beats both upper bounds
    np.testing.assert_array_equal(feature_reach((-3.0, [1.0, 4.0]), 2), [3.0, 4.0])
    assert feature_bound_radius((-3.0, [1.0, 4.0])) == 4.0 and feature_bound_radius(2.5) == 2.5


def test_a_box_with_another_number_of_features_is_refused():
    with pytest.raises(ValueError, match=r"feature_bound: the box .* 3 entries per side but X has 4 features"):
        feature_reach(([0.0] * 3, [1.0] * 3), 4)


@pytest.mark.parametrize("bad, error", [
    ("1", TypeError), (True, TypeError), (None, TypeError), ([1.0], TypeError), ((1.0, 2.0, 3.0), TypeError),
    (math.nan, ValueError), (math.inf, ValueError), (0.0, ValueError), (-1.0, ValueError),
    ((1.0, 0.0), ValueError), ((0.0, math.nan), ValueError), ((0.0, math.inf), ValueError), (("a", 1.0), TypeError),
    ((None, 1.0), TypeError), ((0.0, 0.0), ValueError), (([0.0, 0.0], [1.0, 1.0, 1.0]), ValueError),
    ((0.0, [[1.0]]), ValueError), ((0.0, []), ValueError), (([0.0, 2.0], [1.0, 1.0]), ValueError),
])
def test_bad_feature_bounds_are_refused_naming_the_parameter(bad, error):
    with pytest.raises(error, match="feature_bound"):
        check_feature_bound(bad)


def test_valid_feature_bounds():
    assert check_feature_bound(3) == 3.0
    lower, upper = check_feature_bound(np.array([[0.0, -1.0], [1.0, 1.0]]))      # a (2, d) array is a pair
    np.testing.assert_array_equal(lower, [0.0, -1.0])
    np.testing.assert_array_equal(upper, [1.0, 1.0])
    check_feature_bound((2.0, 2.0))                             # a constant feature at 2


# --- published bounds ----------------------------------------------------------------------------------------------


def test_published_bound_survives_row_and_column_selections():
    X = _frame()
    for part in (X.iloc[:3], X[X["c0"] > 0.5], X[["c0", "c2"]], X.drop(columns="c1"), X.sample(4, random_state=0)):
        assert published_row_norm_bound(part) == math.sqrt(3)
        assert published_row_norm_bound(part, norm_ord=1) == 3.0


def test_a_column_outside_the_published_ones_voids_the_bound_and_says_why():
    X = _frame()
    X["extra"] = 5.0                                            # pandas keeps attrs; the bound no longer covers X
    assert published_row_norm_bound(X) is None
    bound, source, note = resolve_row_norm_bound(None, 1.0, X, 4)
    assert (bound, source) == (2.0, "feature_bound") and "other columns" in note


def test_arrays_and_unmarked_frames_publish_nothing():
    X = _frame()
    assert published_row_norm_bound(X.to_numpy()) is None
    assert published_row_norm_bound(pd.DataFrame(X.to_numpy())) is None
    assert published_row_norm_bound([[0.0, 1.0]]) is None


def test_a_bound_set_by_hand_without_columns_is_used():
    X = pd.DataFrame(np.zeros((2, 3)))
    X.attrs["row_norm_bound"] = 1.5
    assert published_row_norm_bound(X) == 1.5 and published_row_norm_bound(X, norm_ord=1) is None


@pytest.mark.parametrize("bad", [-1.0, 0.0, math.nan, math.inf, "3", True])
def test_a_bad_published_bound_is_refused_naming_it(bad):
    X = _frame()
    X.attrs["row_norm_bound"] = bad
    with pytest.raises((TypeError, ValueError), match=r"X\.attrs\['row_norm_bound'\]"):
        published_row_norm_bound(X)


def test_resolution_order():
    X = _frame()
    assert resolve_row_norm_bound(2.5, 1.0, X, 3) == (2.5, "row_norm_bound", None)
    assert resolve_row_norm_bound(None, 1.0, X, 3) == (math.sqrt(3), "published", None)
    assert resolve_row_norm_bound(None, (0.0, 2.0), X.to_numpy(), 3) == (math.sqrt(12), "box", None)
    assert resolve_row_norm_bound(None, 2.0, X.to_numpy(), 3) == (2 * math.sqrt(3), "feature_bound", None)


def test_the_loose_bound_warning_names_the_remedies():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_loose_row_norm_bound("Model", 10.15, 103, None)
    (warning,) = caught
    assert warning.category is UtilityWarning and warning.filename == __file__
    text = str(warning.message)
    assert "10.15" in text and "103 features" in text and "row_norm_bound" in text and "(lower, upper)" in text
