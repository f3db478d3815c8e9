"""Fairlearn's private names, in one module.

fairdp subclasses Fairlearn's classes and fills in what Fairlearn's own functions read from them. Where that needs
a name Fairlearn does not export (a class or helper in one of its ``_private`` modules, or a private attribute its
functions read), the name is used here, so that a Fairlearn release that moves it breaks this module only.

It holds the messages and constants of Fairlearn's ``ThresholdOptimizer`` and input validation that
``DPThresholdOptimizer`` repeats word for word (a drop-in raises Fairlearn's errors), those of ``MetricFrame``'s
bootstrap parameters that ``DPMetricFrame`` repeats, and it builds the introspection of a fitted ``ThresholdOptimizer`` from given values (fairdp passes
released values only): ``interpolated_thresholder_`` (an ``InterpolatedThresholder`` whose ``interpolation_dict``
maps each group to a ``Bunch`` of ``ThresholdOperation`` mixtures), ``x_metric_`` / ``y_metric_``, and the private
attributes :func:`fairlearn.postprocessing.plot_threshold_optimizer` reads (:data:`PLOT_ATTRIBUTES`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from fairlearn.metrics._metric_frame import _BOOTSTRAP_NEED_N_AND_CI as BOOTSTRAP_NEED_N_AND_CI
from fairlearn.metrics._metric_frame import _BOOTSTRAP_NOT_INITIALIZED as BOOTSTRAP_NOT_INITIALIZED
from fairlearn.postprocessing._constants import BASE_ESTIMATOR_NONE_ERROR_MESSAGE
from fairlearn.postprocessing._interpolated_thresholder import InterpolatedThresholder
from fairlearn.postprocessing._threshold_operation import ThresholdOperation
from fairlearn.postprocessing._threshold_optimizer import (
    NO_CONTROL_FEATURES,
    NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE,
    NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE,
    OBJECTIVES_FOR_EQUALIZED_ODDS,
    OBJECTIVES_FOR_SIMPLE_CONSTRAINTS,
    SIMPLE_CONSTRAINTS,
)
from fairlearn.postprocessing._tradeoff_curve_utilities import _interpolate_curve
from fairlearn.reductions._grid_search._grid_generator import _GridGenerator as GridGenerator
from fairlearn.utils._input_validation import _KW_CONTROL_FEATURES as KW_CONTROL_FEATURES
from fairlearn.utils._input_validation import _LABELS_NOT_0_1_ERROR_MESSAGE as LABELS_NOT_0_1_ERROR_MESSAGE
from fairlearn.utils._input_validation import _MESSAGE_SENSITIVE_FEATURES_NONE as MESSAGE_SENSITIVE_FEATURES_NONE
from fairlearn.utils._input_validation import _MESSAGE_X_SENSITIVE_ROWS as MESSAGE_X_SENSITIVE_ROWS
from fairlearn.utils._input_validation import _MESSAGE_X_Y_ROWS as MESSAGE_X_Y_ROWS
from fairlearn.utils._input_validation import _MESSAGE_Y_NONE as MESSAGE_Y_NONE
from sklearn.utils import Bunch

from .privacy._random import check_random_state

__all__ = ["PLOT_ATTRIBUTES", "SecureInterpolatedThresholder", "ThresholdOperation", "interpolate_curve",
           "interpolated_thresholder", "interpolation", "metric_names", "set_plot_attributes",
           # Fairlearn's messages and constants (fairlearn 0.15.x), repeated by DPThresholdOptimizer
           "BASE_ESTIMATOR_NONE_ERROR_MESSAGE", "KW_CONTROL_FEATURES", "LABELS_NOT_0_1_ERROR_MESSAGE",
           "MESSAGE_SENSITIVE_FEATURES_NONE", "MESSAGE_X_SENSITIVE_ROWS", "MESSAGE_X_Y_ROWS", "MESSAGE_Y_NONE",
           "NO_CONTROL_FEATURES", "NOT_SUPPORTED_CONSTRAINTS_ERROR_MESSAGE",
           "NOT_SUPPORTED_OBJECTIVES_FOR_EQUALIZED_ODDS_ERROR_MESSAGE",
           "NOT_SUPPORTED_OBJECTIVES_FOR_SIMPLE_CONSTRAINTS_ERROR_MESSAGE", "OBJECTIVES_FOR_EQUALIZED_ODDS",
           "OBJECTIVES_FOR_SIMPLE_CONSTRAINTS", "SIMPLE_CONSTRAINTS",
           # MetricFrame's bootstrap messages (fairlearn 0.15.x), repeated by DPMetricFrame
           "BOOTSTRAP_NEED_N_AND_CI", "BOOTSTRAP_NOT_INITIALIZED",
           # GridSearch's grid of Lagrange multipliers (Fairlearn 0.15), which DPGridSearch builds from the public
           # structure of the constraint (its events and the declared groups), never from the data
           "GridGenerator"]

# The private attributes of a fitted ThresholdOptimizer that plot_threshold_optimizer reads (Fairlearn 0.15).
PLOT_ATTRIBUTES = ("_tradeoff_curve", "_x_grid", "_y_min", "_x_best", "_y_best", "_x_best_per_group",
                   "_overall_tradeoff_curve", "_between_groups")


class SecureInterpolatedThresholder(InterpolatedThresholder):
    """Fairlearn's ``InterpolatedThresholder`` whose ``predict(random_state=None)`` draws from an OS-seeded generator
    (Fairlearn's would use numpy's global state); an int or a ``RandomState`` give Fairlearn's draws.
    """

    def predict(self, X, *, sensitive_features, random_state=None):
        """Fairlearn's ``InterpolatedThresholder.predict``, with ``None`` turned into an OS-seeded generator."""
        return super().predict(X, sensitive_features=sensitive_features,
                               random_state=check_random_state(random_state))


def interpolated_thresholder(estimator, interpolation_dict: dict, predict_method: str) -> InterpolatedThresholder:
    """A fitted thresholder on a fitted ``estimator``, as Fairlearn's ``ThresholdOptimizer.fit`` builds it."""
    return SecureInterpolatedThresholder(estimator, interpolation_dict, prefit=True,
                                         predict_method=predict_method).fit(None, None)


def interpolation(p0, operation0, p1, operation1, p_ignore=None, prediction_constant=None) -> Bunch:
    """One group's entry of ``interpolation_dict``: Fairlearn's four fields (simple constraints), or its six
    (equalized odds: the drawn threshold is replaced by ``prediction_constant`` with probability ``p_ignore``).
    """
    if p_ignore is None:
        return Bunch(p0=p0, operation0=operation0, p1=p1, operation1=operation1)
    return Bunch(p_ignore=p_ignore, prediction_constant=prediction_constant, p0=p0, operation0=operation0, p1=p1,
                 operation1=operation1)


def metric_names(constraints: str, objective: str) -> tuple[str, str]:
    """``(x_metric_, y_metric_)`` as Fairlearn's ``ThresholdOptimizer.fit`` sets them."""
    if constraints == "equalized_odds":
        return "false_positive_rate", "true_positive_rate"
    return SIMPLE_CONSTRAINTS[constraints], objective


def interpolate_curve(x, y, operations, x_grid) -> pd.DataFrame:
    """Fairlearn's trade-off curve of one group: the vertices ``(x, y)`` of its upper convex hull (sorted by ``x``,
    spanning ``[x_grid[0], x_grid[-1]]``, each with its ``ThresholdOperation``) interpolated on ``x_grid``, with
    Fairlearn's columns ``x``, ``y``, ``p0``, ``operation0``, ``p1``, ``operation1``.
    """
    hull = pd.DataFrame({"x": np.asarray(x, dtype=float), "y": np.asarray(y, dtype=float),
                         "operation": list(operations)})
    return _interpolate_curve(hull, "x", "y", "operation", np.asarray(x_grid, dtype=float))


def set_plot_attributes(estimator, **values) -> None:
    """Set the private attributes ``plot_threshold_optimizer`` reads (names in :data:`PLOT_ATTRIBUTES`, without
    their leading underscore: ``tradeoff_curve=...`` sets ``_tradeoff_curve``).
    """
    for name, value in values.items():
        attribute = "_" + name
        if attribute not in PLOT_ATTRIBUTES:
            raise ValueError(f"{attribute} is not one of {PLOT_ATTRIBUTES}.")
        setattr(estimator, attribute, value)
