"""Views of a :class:`~fairlearn_dp.metrics.DPReport`'s release, and the log of released rows.

Matching a view to the release reads no data: a view passes the very objects the report was built from (object
identity, through weak references: the report keeps no data), or None for "the release's", and ``y_pred`` names the
model (the object or the model's name). Anything else (another array, even with equal content, a column the report
did not release) is refused: deciding that two different arrays hold the same rows would read them.

A second private release over rows a report has released (the same ``y_true`` and ``sensitive_features`` objects)
warns: the decision reads object identity only, a public fact of the caller's program, never the rows. A copy of
the data is not recognised (a content hash would be a function of the private rows).
"""

from __future__ import annotations

import math
import weakref
from types import SimpleNamespace
from typing import Any

from ..exceptions import PrivacyWarning, warn
from ..privacy import PrivacySpend

__all__ = ["SharedRelease", "SINGLE_MODEL", "identity", "reference", "view_of", "note_release"]


class SharedRelease:
    """The base of :class:`~fairlearn_dp.metrics.DPReport`: how a view reads the release (the report sets
    ``models_``, ``noisy_counts_``, ``noise_scale_``, ``noise_sd_`` and its private state).
    """

    def model_name(self, model: str | None) -> str:
        """The name of a released model (``model`` None: the only one); a ``ValueError`` naming the models."""
        if model is None:
            if len(self.models_) != 1:
                raise ValueError(f"model is required: this report released {len(self.models_)} models "
                                 f"{self.models_}.")
            return self.models_[0]
        if not isinstance(model, str) or model not in self.models_:
            raise ValueError(f"model must be one of the report's models {self.models_}, got {model!r}.")
        return model

    def frame_view(self, *, y_true: Any, y_pred: Any, sensitive_features: Any, control_features: Any,
                   epsilon: float, options: dict) -> SimpleNamespace:
        """What a frame reads from this release for the model ``y_pred``, after checking (public facts only) that
        the view's arguments are the release's: the data objects themselves or None, ``y_pred`` a released model's
        object or name, the release's own arguments left at their defaults. Raises otherwise, before anything is
        read.
        """
        given = [name for name, default in _RELEASE_ARGUMENTS.items() if options[name] is not default
                 and not (isinstance(default, (float, str, bool)) and options[name] == default)]
        if epsilon not in (1.0, self._epsilon) or given:
            raise ValueError(f"release: {(['epsilon'] if epsilon not in (1.0, self._epsilon) else []) + given} "
                             "belong to the release (DPReport); leave them out of a view of it.")
        inputs = self._inputs
        if y_true is not None and not (inputs.y_true is not None and inputs.y_true() is y_true):
            raise ValueError(_MISMATCH.format("y_true"))
        if sensitive_features is not None and not _same(inputs.sensitive_features, sensitive_features):
            raise ValueError(_MISMATCH.format("sensitive_features"))
        if control_features is not None and (inputs.control_features is None or
                                             not _same(inputs.control_features, control_features)):
            raise ValueError(_MISMATCH.format("control_features") if inputs.control_features is not None else
                             "control_features: the report released no control features; build the report with them.")
        if isinstance(y_pred, str):
            model = self.model_name(y_pred)
        else:
            found = [name for name, ref in zip(self.models_, inputs.y_pred, strict=False) if ref is not None and ref() is y_pred]
            if not found:
                raise ValueError(_MISMATCH.format("y_pred") + f" Or name the model: y_pred in {self.models_}.")
            model = found[0]
        index = self.models_.index(model)
        return SimpleNamespace(model=model, table=self._tables[index], noisy=self.noisy_counts_[index],
                               sf=self._sf, cf=self._cf, n=self._n, unit=self.privacy_unit,
                               public_predictions=self.public_predictions, classes=self.labels,
                               delta=self._delta, noise_scale=self.noise_scale_, noise_sd=self.noise_sd_)


#: The name of the one model of a report built from a single ``y_pred`` array.
SINGLE_MODEL = "y_pred"

#: The frame's arguments that belong to the release, with the value a view must leave them at.
_RELEASE_ARGUMENTS = {"delta": 0.0, "groups": None, "control_groups": None, "bounds": None, "labels": None,
                      "privacy_unit": "sensitive_attribute", "public_predictions": False, "accountant": None,
                      "weight_bound": None}


def reference(value):
    """A weak reference to an input (None when the type has none, e.g. a list: such an input cannot be matched)."""
    try:
        return weakref.ref(value)
    except TypeError:
        return None


def identity(features):
    """``((key, weak reference), ...)`` of a features argument: a dict's columns, else the object itself."""
    items = features.items() if isinstance(features, dict) else [(None, features)]
    return tuple((key, reference(value)) for key, value in items)


def _columns(features):
    """The column objects of a features argument (a dict's values, else the object itself)."""
    return list(features.values()) if isinstance(features, dict) else [features]


def _same_columns(identity, features):
    """Whether ``features`` holds the very column objects of ``identity``, however wrapped (a dict or not)."""
    columns = _columns(features)
    return len(columns) == len(identity) and all(ref is not None and ref() is c for c, (_, ref) in zip(columns, identity, strict=False))


def _same(identity, features):
    """Whether ``features`` is the very object(s) recorded in ``identity`` (object identity, no data read)."""
    items = list(features.items()) if isinstance(features, dict) else [(None, features)]
    return len(items) == len(identity) and all(
        key == k and ref is not None and ref() is value for (key, value), (k, ref) in zip(items, identity, strict=False))


class _ReleaseLog:
    """The rows released so far, by object identity of ``(y_true, sensitive_features)`` (weak references only)."""

    def __init__(self):
        self._entries = []

    def note(self, owner, y_true, sensitive_features, spend):
        """Record a release; warn when a report is involved and the same rows were released before. An exact
        computation (``epsilon = inf``) is no private release: neither recorded nor warned about.
        """
        if math.isinf(spend.epsilon):
            return
        self._entries = [e for e in self._entries if e[1] is not None and e[1]() is not None]
        earlier = [e for e in self._entries if e[1]() is y_true and _same_columns(e[2], sensitive_features)
                   and {owner, e[0]} & set(_VIEWS)]
        if earlier:
            previous, _, _, spent = earlier[-1]
            report = previous if previous in _VIEWS else owner
            rows = "the same dataset object" if owner == "DPThresholdReport" else ("the same y_true and "
                                                                                  "sensitive_features objects")
            warn(f"{owner}: these rows ({rows}) were already released by a "
                 f"{previous} (epsilon={spent.epsilon:g}); this release spends epsilon={spend.epsilon:g} more, and "
                 f"the epsilons add up. Read further views from the first release: {_VIEWS[report]}.",
                 PrivacyWarning)
        known = any(e[0] == owner and e[1]() is y_true and _same_columns(e[2], sensitive_features)
                    for e in self._entries)                          # one entry per (owner, rows): no growth
        if reference(y_true) is not None and not known:
            self._entries.append((owner, reference(y_true), identity(sensitive_features), spend))


_LOG = _ReleaseLog()

#: The shared releases, and how a view reads each (the AIF360 threshold report records its dataset as both
#: ``y_true`` and ``sensitive_features``: the object holds both).
_VIEWS = {"DPReport": "report.metric_frame(...) or dp_*(..., release=report)",
          "DPThresholdReport": "DPClassificationMetric(dataset, classified_dataset, ..., release=report, "
                               "threshold=t); a report of one dataset and one classified dataset"}


def note_release(owner: str, y_true: Any, sensitive_features: Any, spend: PrivacySpend) -> None:
    """Record a release over ``(y_true, sensitive_features)``; warns on a second release involving a report."""
    _LOG.note(owner, y_true, sensitive_features, spend)


def view_of(release: Any, *, y_true, y_pred, sensitive_features, control_features, epsilon,
            options: dict) -> SimpleNamespace:
    """What a frame reads from ``release`` (a :class:`SharedRelease`) for the model ``y_pred``
    (:meth:`SharedRelease.frame_view`); a ``TypeError`` for anything else.
    """
    if not isinstance(release, SharedRelease):
        raise TypeError(f"release must be a DPReport, got {type(release).__name__}.")
    return release.frame_view(y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                              control_features=control_features, epsilon=epsilon, options=options)


_MISMATCH = ("{} is not the object the release was built from: a view reads the release, so it takes the very same "
             "objects (or None: the release's); other data, even equal, would need reading the rows to compare "
             "(a column taken from a DataFrame twice is two objects: keep it in a variable).")
