"""The one validation module (issue 26): what it holds, what moved out of it, and the checks added to its vocabulary."""

import functools
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairlearn_dp._utils import _fit_order, _fit_support, _rows, _validation, _withheld
from fairlearn_dp._utils._validation import (
    BINARY_LABELS_MESSAGE,
    BINARY_LABELS_MISSING_MESSAGE,
    check_bool,
    check_callable,
    check_int,
    check_real,
    check_sensitive_features,
    check_X,
    value_errors,
)


@pytest.mark.parametrize("name, home", [
    ("atomic_fit", _fit_support), ("SharedAccountantCloneMixin", _fit_support),
    ("warn_if_worse_than_constant", _fit_support),
    ("clip_rows", _rows), ("call_withheld", _withheld), ("call_on_private_rows", _withheld),
])
def test_what_is_not_validation_lives_outside_the_validation_module(name, home):
    """The fit machinery, the diagnostics, the row transform and the withheld calls are defined in their own modules
    and not exported by the validation module, whose public names are validators only."""
    assert getattr(home, name).__module__ == home.__name__
    assert name in home.__all__ and name not in _validation.__all__
    assert all(export.startswith(("check_", "as_", "resolve_", "encode_", "validate_", "value_errors",
                                  "BINARY_LABELS")) for export in _validation.__all__)


def test_the_fit_order_module_holds_the_fit_machinery():
    assert _fit_order.atomic_fit is _fit_support.atomic_fit
    assert _fit_order.SharedAccountantCloneMixin is _fit_support.SharedAccountantCloneMixin


def test_the_moved_modules_do_not_import_the_validation_module():
    for module in (_fit_support, _rows, _withheld):
        assert "_validation" not in Path(module.__file__).read_text(encoding="utf-8").split('"""', 2)[2]


def test_check_X_returns_a_float_matrix_and_the_column_names():
    X, names = check_X(pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]}))
    assert X.dtype == float and X.shape == (2, 2) and list(names) == ["a", "b"]
    X, names = check_X([[1, 2]])
    assert names is None and X.tolist() == [[1.0, 2.0]]


@pytest.mark.parametrize("X, match", [([["secret", 1.0]], "X must be numeric"), ([1.0, 2.0], "non-empty 2-D"),
                                      (np.zeros((0, 2)), "non-empty 2-D"), ([[np.nan, 1.0]], "NaN or infinite")])
def test_check_X_refuses_without_quoting_a_value(X, match):
    with pytest.raises(ValueError, match=match) as error:
        check_X(X)
    assert "secret" not in str(error.value) and error.value.__context__ is None


def test_check_sensitive_features_checks_the_declared_groups():
    labels = check_sensitive_features(["a", "b", "a"], 3, groups=["a", "b"])
    assert labels.tolist() == ["a", "b", "a"]
    assert check_sensitive_features(np.array([0, 1]), 2).tolist() == [0, 1]      # without groups: no list
    with pytest.raises(ValueError, match="unseen group"):
        check_sensitive_features(["a", "c"], 2, groups=["a", "b"])
    with pytest.raises(ValueError, match="groups contains duplicates"):
        check_sensitive_features(["a", "a"], 2, groups=["a", "a"])
    with pytest.raises(ValueError, match="length mismatch"):
        check_sensitive_features(["a", "b"], 3, groups=["a", "b"])


def test_value_errors_turns_a_type_error_into_a_value_error_with_its_message():
    check = value_errors(functools.partial(check_int, low=1))
    assert check(3, "n_runs") == 3
    with pytest.raises(ValueError, match="n_runs must be an integer") as error:
        check(1.5, "n_runs")
    assert error.value.__context__ is None
    with pytest.raises(ValueError, match="n_runs"):
        check(0, "n_runs")


def test_check_callable_and_optional_bool():
    assert check_callable(len, "f") is len
    with pytest.raises(TypeError, match="f must be callable"):
        check_callable("len", "f")
    assert check_bool(None, "progress", allow_none=True) is None
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        check_bool("yes", "progress", allow_none=True)
    with pytest.raises(TypeError, match="flag must be True or False"):
        check_bool(None, "flag")


def test_check_real_allow_inf_accepts_an_infinity_but_never_nan():
    assert check_real(math.inf, "e", low=0.0, low_open=True, allow_inf=True) == math.inf
    with pytest.raises(ValueError, match="e must be a number"):
        check_real(math.nan, "e", allow_inf=True)
    with pytest.raises(ValueError, match="e must be a finite number"):
        check_real(math.inf, "e")
    with pytest.raises(ValueError):
        check_real(-math.inf, "e", low=0.0, allow_inf=True)


@pytest.mark.parametrize("labels", [
    np.array([0.0, 1.0, np.nan, 1.0]), [0, 1, None, 1], [0, 1, np.nan, 1], pd.Series([0, 1, None, 1], dtype="Int64"),
    pd.Series([0.0, np.nan, 1.0]).to_frame(), np.array([1, np.nan, 7.5]),
])
def test_missing_labels_are_named_as_missing_not_as_non_binary(labels):
    """Before: a NaN label was reported as "non-binary labels found". The message names the argument, quotes no
    value (7.5 is not shown), and another label still gets the binary-labels message."""
    with pytest.raises(ValueError, match=r"^y_true contains missing labels \(NaN/None\); binary labels 0/1 only\.$"):
        _validation.check_binary_labels(labels, "y_true")
    with pytest.raises(ValueError, match=r"non-binary labels found"):
        _validation.check_binary_labels([0, 1, 2], "y_true")


def _labels_error(estimator, y):
    """The ``ValueError`` a fit on 40 rows with labels ``y`` raises (two groups, one feature)."""
    X = np.linspace(0.0, 1.0, 40)[:, None]
    with pytest.raises(ValueError) as info:
        estimator.fit(X, y, sensitive_features=np.arange(40) % 2)
    return str(info.value)


def test_every_estimator_that_needs_binary_labels_says_the_one_message():
    """Before, the exponential-mechanism classifier said "y contains missing values (NaN/None).", the exponentiated
    gradient "y contains NaN." and GerryFair "y contains NaN or infinite values." for a missing label, and None was
    "y must be one-dimensional, got shape ()": now the one check's messages, wherever it is called."""
    from fairlearn.reductions import DemographicParity

    from fairlearn_dp.reductions import (
        DPGerryFairClassifier,
        ExponentialMechanismFairClassifier,
        JagielskiExponentiatedGradient,
    )
    from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

    estimators = [
        ExponentialMechanismFairClassifier([LinearThresholdClassifier([1.0], 0.5)], epsilon=1.0, groups=[0, 1],
                                           random_state=0),
        JagielskiExponentiatedGradient(DemographicParity(), privacy_unit="record", min_count=5,
                                       hypotheses=[LinearThresholdClassifier([1.0], 0.5)], max_iter=2, groups=[0, 1]),
        DPGerryFairClassifier(max_iters=2, epsilon=1.0),
    ]
    missing = np.r_[np.nan, np.arange(39) % 2]
    for estimator in estimators:
        assert _labels_error(estimator, missing) == BINARY_LABELS_MISSING_MESSAGE.format(name="y")
        assert _labels_error(estimator, np.arange(40) % 3) == BINARY_LABELS_MESSAGE.format(name="y")
    with pytest.raises(ValueError, match=r"^y is required: binary labels 0/1\.$"):
        _validation.check_binary_labels(None)
