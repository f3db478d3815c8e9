"""DPMetricFrame draws its Monte-Carlo intervals when first read (issue 41.3), with the same numbers.

The constructor releases the table and computes the values; the draws behind the intervals, ``noise_error_`` and
``unreadable_`` are made on the first read of any of them, once, from the generator kept at construction -- so the
numbers do not depend on what is read first, nor on a copy made before (the values recorded before the change:
``test_dp_metric_frame_reference.py``).
"""

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import selection_rate
from sklearn.metrics import accuracy_score

from fairlearn_dp.metrics import DPMetricFrame
from fairlearn_dp.metrics import _dp_metric_frame as frame_module

METRICS = {"accuracy": accuracy_score, "selection_rate": selection_rate}
GROUPS = list(range(30))


def _frame(**kwargs):
    rng = np.random.default_rng(41)
    n = 3000
    y = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return DPMetricFrame(metrics=METRICS, y_true=y, y_pred=pred, sensitive_features=rng.integers(0, 30, n),
                             epsilon=1.0, groups=GROUPS, random_state=0, accountant=BudgetAccountant(),
                             n_boot=200, **kwargs)


@pytest.fixture
def simulations(monkeypatch):
    calls = []
    original = frame_module.simulate

    def counted(*args, **kwargs):
        calls.append(kwargs["sampling"])
        return original(*args, **kwargs)

    monkeypatch.setattr(frame_module, "simulate", counted)
    return calls


def test_the_constructor_makes_no_draws_and_the_first_read_makes_them_once(simulations):
    frame = _frame()
    assert simulations == []
    assert frame.by_group.shape == (30, 2)
    frame.by_group_ci
    assert simulations == [True]                          # the intervals' sampling draws only
    frame.difference_ci(), frame.overall_ci
    assert simulations == [True]
    frame.noise_error_
    assert simulations == [True, False]                   # then the noise draws: the release code's order
    frame.unreadable_, frame.by_group_ci
    assert simulations == [True, False]


def test_noise_error_read_first_makes_the_sampling_draws_before_it(simulations):
    _frame().unreadable_
    assert simulations == [True, False]


def test_a_requested_max_noise_error_draws_at_construction(simulations):
    from fairlearn_dp.metrics import MetricFrameOptions
    _frame(options=MetricFrameOptions(max_noise_error=0.5))
    assert simulations == [True, False]


def _intervals(frame):
    return [frame.noise_error_, frame.unreadable_, *frame.by_group_ci, *frame.difference_ci("to_overall")]


def test_the_draws_do_not_depend_on_the_first_read_nor_on_a_copy():
    first = _intervals(_frame())
    noise_first = _frame()
    noise_first.unreadable_
    half_drawn = _frame()
    half_drawn.by_group_ci
    unread = _frame()
    for other in (noise_first, copy.deepcopy(half_drawn), half_drawn, copy.deepcopy(unread), pickle.loads(pickle.dumps(unread)), unread):
        for a, b in zip(first, _intervals(other), strict=True):
            (pd.testing.assert_frame_equal if isinstance(a, pd.DataFrame) else pd.testing.assert_series_equal)(a, b)


def test_other_missing_attributes_still_raise():
    frame = _frame()
    with pytest.raises(AttributeError, match="no_such_attribute"):
        frame.no_such_attribute
    with pytest.raises(AttributeError):
        frame.__getattr__("__setstate__")             # what copy and pickle look up: not a lazy attribute
    assert "_draws" not in vars(frame) and vars(frame)["_pending_draws"] is not None      # and no draw made
