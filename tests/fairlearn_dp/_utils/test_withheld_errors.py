"""Errors whose message could quote a private value are replaced, and the original is unreachable.

``raise ... from None`` inside an ``except`` block only sets ``__suppress_context__``: the original exception stays
in ``__context__``, where loggers and error trackers read it. The shared helper
(:func:`fairlearn_dp._utils._validation.call_withheld`, used by ``call_on_private_rows`` and by the conversions of
the private data) raises the replacement outside the ``except`` block. Checked here: ``__context__`` and
``__cause__`` are None, the original message appears nowhere in the chain nor in ``traceback.format_exception``,
and no frame of the traceback holds the original exception.
"""

import math
import traceback
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.base import BaseEstimator

from fairlearn_dp._utils._withheld import call_on_private_rows, call_withheld
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.reductions import (
    DPGerryFairClassifier,
    DPGroupBudgetRegressor,
    JagielskiExponentiatedGradient,
    linear_threshold_hypotheses,
)

SECRET = "alice-4711"


def _chain(error):
    """Every exception reachable from ``error`` through ``__cause__`` / ``__context__``."""
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or error.__context__
    return seen


def _frame_exceptions(error):
    """Exceptions held by the locals of the frames of ``error``'s traceback (other than ``error`` itself)."""
    found = []
    tb = error.__traceback__
    while tb is not None:
        for value in tb.tb_frame.f_locals.values():
            if isinstance(value, BaseException) and value is not error:
                found.append(value)
        tb = tb.tb_next
    return found


def _assert_withheld(error):
    assert error.__context__ is None and error.__cause__ is None
    assert all(SECRET not in str(e) for e in _chain(error))
    assert SECRET not in "".join(traceback.format_exception(error))
    assert all(SECRET not in str(e) for e in _frame_exceptions(error))


def _quote(X):
    raise ValueError(f"cannot process {SECRET!r}")


def test_call_on_private_rows_leaves_nothing_of_the_original_reachable():
    with pytest.raises(ValueError, match="message is withheld") as info:
        call_on_private_rows(_quote, None, "model.predict(X)")
    _assert_withheld(info.value)


def test_call_on_private_rows_inside_an_except_block_keeps_only_the_callers_context():
    """Raised while the caller handles another exception, the replacement's context is the caller's exception (as
    for any raise), never the withheld one."""
    try:
        raise KeyError("the caller's own")
    except KeyError:
        with pytest.raises(ValueError) as info:
            call_on_private_rows(_quote, None, "model.predict(X)")
    assert isinstance(info.value.__context__, KeyError) and info.value.__cause__ is None
    assert all(SECRET not in str(e) for e in _chain(info.value))
    assert SECRET not in "".join(traceback.format_exception(info.value))


def test_call_withheld_replaces_only_the_listed_types():
    replace = ((TypeError, ValueError("replaced")),)
    with pytest.raises(ValueError, match="replaced") as info:
        call_withheld(_raise, TypeError(SECRET), replace=replace)
    _assert_withheld(info.value)
    with pytest.raises(KeyError, match=SECRET):                      # not listed: propagates unchanged
        call_withheld(_raise, KeyError(SECRET), replace=replace)
    assert call_withheld(int, "3", replace=replace) == 3


def _raise(error):
    raise error


def _strings(n=40):
    X = np.full((n, 1), 0.5, dtype=object)
    X[7, 0] = SECRET                                                    # one private row that is not a number
    return X


def _fit(model, **fit_args):
    accountant = BudgetAccountant()
    model.set_params(accountant=accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as info:
            model.fit(**fit_args)
    assert accountant.spent_budget == []
    return info.value


def test_private_data_conversions_withhold_the_value():
    """Each conversion of private data to numbers: numpy's message quotes the offending value."""
    n = 40
    groups = np.arange(n) % 2
    y = (np.arange(n) // 2) % 2
    errors = [
        _fit(DPFairRegressionPostprocessor(bounds=(0, 1), n_bins=4, groups=[0, 1]), X=_strings(n),
             sensitive_features=groups),
        _fit(JagielskiExponentiatedGradient(DemographicParity(), privacy_unit="record",
                                     hypotheses=linear_threshold_hypotheses(1, n_directions=2, n_thresholds=2,
                                                                            random_state=0),
                                     min_count=5, max_iter=2, groups=[0, 1]),
             X=_strings(n), y=y, sensitive_features=groups),
        _fit(DPGroupBudgetRegressor(epsilon=1.0, groups=[0, 1]), X=_strings(n), y=y.astype(float),
             sensitive_features=groups),
        _fit(DPGroupBudgetRegressor(epsilon=1.0, groups=[0, 1]), X=np.full((n, 1), 0.5),
             y=_strings(n)[:, 0], sensitive_features=groups),
        _fit(DPGerryFairClassifier(max_iters=2, epsilon=1.0), X=_strings(n), y=y, sensitive_features=groups),
    ]
    for error in errors:
        assert "numeric" in str(error), str(error)
        _assert_withheld(error)
    # Labels go through the one binary-label check: its message, no value quoted.
    labels = _fit(DPGerryFairClassifier(max_iters=2, epsilon=1.0), X=np.full((n, 1), 0.5), y=_strings(n)[:, 0],
                  sensitive_features=groups)
    assert str(labels) == "y must be binary labels 0/1 (non-binary labels found)."
    _assert_withheld(labels)


def test_prefit_regressor_error_on_the_private_rows_is_withheld_through_the_estimator():
    class Quoting(BaseEstimator):
        def fit(self, X, y):
            self.fitted_ = True
            return self

        def predict(self, X):
            raise ValueError(f"unknown category {SECRET!r}")

    X = np.full((40, 1), 0.5)
    # Private rows: the regressor is made total (issue 34): every row it raises on gets the lower end of bounds,
    # and its message appears nowhere (no error, no warning).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = DPFairRegressionPostprocessor(estimator=Quoting().fit(X, None), prefit=True, bounds=(0, 1), n_bins=4,
                                              groups=[0, 1], random_state=0, accountant=BudgetAccountant()).fit(
            X, sensitive_features=np.arange(40) % 2)
    assert all(SECRET not in str(warning.message) for warning in caught)
    at_default = DPFairRegressionPostprocessor(bounds=(0, 1), n_bins=4, groups=[0, 1], random_state=0,
                                               accountant=BudgetAccountant()).fit(
        np.zeros((40, 1)), sensitive_features=np.arange(40) % 2)
    np.testing.assert_allclose(model.noisy_joint_pmf_, at_default.noisy_joint_pmf_, rtol=0, atol=1e-12)
    # Without privacy (epsilon=inf) nothing is withheld: the user sees the model's own error.
    model = DPFairRegressionPostprocessor(estimator=Quoting().fit(X, None), prefit=True, bounds=(0, 1), n_bins=4,
                                          groups=[0, 1], epsilon=math.inf, accountant=BudgetAccountant())
    with pytest.raises(ValueError, match=SECRET):
        model.fit(X, sensitive_features=np.arange(40) % 2)
