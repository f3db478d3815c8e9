"""Fairlearn's fairness aggregates, each computed from one private release (:class:`DPMetricFrame`).

Every argument of an aggregate (``method``, ``agg``) is checked before the frame is built, which charges the
budget; the frame's warnings are issued once the aggregate's value is computed (``issue_warnings_after_release``).
"""

from __future__ import annotations

from typing import Any

from fairlearn.metrics import false_positive_rate, selection_rate, true_positive_rate
from numpy.typing import ArrayLike

from ..privacy import issue_warnings_after_release
from ..utils._validation import check_choice
from ._dp_metric_frame import _METHODS, DPMetricFrame

__all__ = ["dp_demographic_parity_difference", "dp_demographic_parity_ratio", "dp_equalized_odds_difference",
           "dp_equalized_odds_ratio", "dp_equal_opportunity_difference", "dp_equal_opportunity_ratio"]

_AGGS = ("worst_case", "mean")


def _frame(metrics, y_true, y_pred, sensitive_features, privacy, method):
    check_choice(method, "method", _METHODS)            # before the frame charges the budget
    return DPMetricFrame(metrics=metrics, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                         **privacy)


@issue_warnings_after_release()
def dp_demographic_parity_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                     sensitive_features: ArrayLike | dict[str, ArrayLike],
                                     method: str = "between_groups", **privacy: Any) -> float:
    """Fairlearn's ``demographic_parity_difference`` (selection rates) from one private release.

    ``privacy`` holds :class:`DPMetricFrame`'s privacy arguments (``epsilon``, ``delta``, ``groups``,
    ``privacy_unit``, ``accountant``, ``random_state``); one release of the per-group confusion counts is charged.
    """
    return _frame(selection_rate, y_true, y_pred, sensitive_features, privacy, method).difference(method=method)


@issue_warnings_after_release()
def dp_demographic_parity_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sensitive_features: ArrayLike | dict[str, ArrayLike],
                                method: str = "between_groups", **privacy: Any) -> float:
    """Fairlearn's ``demographic_parity_ratio`` from one private release (see
    :func:`dp_demographic_parity_difference`).
    """
    return _frame(selection_rate, y_true, y_pred, sensitive_features, privacy, method).ratio(method=method)


def _odds(y_true, y_pred, sensitive_features, method, agg, privacy, how):
    check_choice(agg, "agg", _AGGS)
    frame = _frame({"tpr": true_positive_rate, "fpr": false_positive_rate}, y_true, y_pred, sensitive_features,
                   privacy, method)
    values = frame.difference(method=method) if how == "difference" else frame.ratio(method=method)
    if agg == "mean":
        return float(values.mean())
    return float(values.max() if how == "difference" else values.min())


@issue_warnings_after_release()
def dp_equalized_odds_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                 sensitive_features: ArrayLike | dict[str, ArrayLike],
                                 method: str = "between_groups", agg: str = "worst_case", **privacy: Any) -> float:
    """Fairlearn's ``equalized_odds_difference``: the larger (``agg="worst_case"``) or the mean of the TPR and FPR
    differences, both from one private release of the per-group confusion counts.
    """
    return _odds(y_true, y_pred, sensitive_features, method, agg, privacy, "difference")


@issue_warnings_after_release()
def dp_equalized_odds_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sensitive_features: ArrayLike | dict[str, ArrayLike],
                            method: str = "between_groups", agg: str = "worst_case", **privacy: Any) -> float:
    """Fairlearn's ``equalized_odds_ratio``: the smaller (or the mean) of the TPR and FPR ratios, one release."""
    return _odds(y_true, y_pred, sensitive_features, method, agg, privacy, "ratio")


@issue_warnings_after_release()
def dp_equal_opportunity_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                    sensitive_features: ArrayLike | dict[str, ArrayLike],
                                    method: str = "between_groups", **privacy: Any) -> float:
    """Fairlearn's ``equal_opportunity_difference`` (true positive rates) from one private release."""
    return _frame(true_positive_rate, y_true, y_pred, sensitive_features, privacy, method).difference(method=method)


@issue_warnings_after_release()
def dp_equal_opportunity_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                               sensitive_features: ArrayLike | dict[str, ArrayLike],
                               method: str = "between_groups", **privacy: Any) -> float:
    """Fairlearn's ``equal_opportunity_ratio`` from one private release."""
    return _frame(true_positive_rate, y_true, y_pred, sensitive_features, privacy, method).ratio(method=method)
