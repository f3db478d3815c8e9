"""The public and domain checks of the AIF360 metric classes, and AIF360's conventions for divisions.

The public checks (group definitions, the datasets' schema) run before the budget; the domain checks
(:func:`_binary_labels`, :func:`_check_unit_weights`, :func:`_check_same_rows`) read rows after it, with messages
that quote no count and no value.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np
from aif360.datasets import BinaryLabelDataset
from aif360.datasets.multiclass_label_dataset import MulticlassLabelDataset

from .._glue import check_group_attributes


def _check_groups(groups, name):
    """``groups`` as a list of dicts (AIF360's format), or None; a ``ValueError``/``TypeError`` naming ``name``."""
    if groups is None:
        return None
    if isinstance(groups, dict):
        raise TypeError(f"{name} must be a list of dicts {{attribute: value}} (AIF360's format), got a dict: wrap "
                        "it in a list.")
    if not isinstance(groups, (list, tuple)) or not groups:
        raise ValueError(f"{name} must be None or a non-empty list of non-empty dicts {{attribute: value}}, got "
                         f"{groups!r}.")
    for group in groups:
        if not isinstance(group, dict) or not group or not all(isinstance(key, str) for key in group):
            raise ValueError(f"{name} must be a list of non-empty dicts {{attribute name: value}}, got {group!r} "
                             "in it.")
    return [dict(group) for group in groups]


def _check_disjoint(privileged, unprivileged):
    """Refuse definitions under which one row could match both conditions, from the definitions alone (public).

    A row matches a condition when it matches all of the attribute values of one of its dicts (AIF360's
    :func:`~aif360.metrics.utils.compute_boolean_conditioning_vector`). A privileged and an unprivileged dict can
    both match one row unless some attribute they share has different values in them.
    """
    if privileged is None or unprivileged is None:
        return
    for first in privileged:
        for second in unprivileged:
            if all(first[key] == second[key] for key in set(first) & set(second)):
                raise ValueError(f"privileged_groups and unprivileged_groups overlap: a row matching {first!r} can "
                                 f"also match {second!r} (they share no attribute with different values). Declare "
                                 "disjoint groups.")


def _check_dataset_type(dataset, name):
    if not isinstance(dataset, (BinaryLabelDataset, MulticlassLabelDataset)):
        raise TypeError(f"{name} must be an AIF360 BinaryLabelDataset or MulticlassLabelDataset, got "
                        f"{type(dataset).__name__}.")


def _label_values(dataset, label):
    """The declared values of ``favorable_label`` or ``unfavorable_label``: one (binary) or a list (multiclass)."""
    return sorted(float(value) for value in np.ravel(getattr(dataset, label)))


def _check_schema(dataset, classified_dataset, groups):
    """The public schema: dataset types, the attributes the groups name, matching metadata of the two datasets."""
    _check_dataset_type(dataset, "dataset")
    for name, definition in groups.items():
        if definition is not None:
            check_group_attributes(dataset, definition, name, "dataset")
    if classified_dataset is None:
        return
    _check_dataset_type(classified_dataset, "classified_dataset")
    if list(classified_dataset.protected_attribute_names) != list(dataset.protected_attribute_names):
        raise ValueError("dataset and classified_dataset must have the same protected_attribute_names (they may "
                         "differ only in labels or scores).")
    for label in ("favorable_label", "unfavorable_label"):
        if _label_values(classified_dataset, label) != _label_values(dataset, label):
            raise ValueError(f"dataset and classified_dataset must have the same {label}.")


def _binary_labels(dataset, name):
    """The 0/1 vector ``label in favorable_label`` (a MulticlassLabelDataset's favorable values are one class, as
    AIF360's metrics binarize them); a domain error (no value quoted) for any other label.
    """
    labels = np.asarray(dataset.labels).ravel()
    favorable = np.isin(labels, _label_values(dataset, "favorable_label"))
    if not np.all(favorable | np.isin(labels, _label_values(dataset, "unfavorable_label"))):
        if np.isnan(labels.astype(float)).any():
            raise ValueError(f"{name} has missing labels (NaN).")
        raise ValueError(f"{name} has labels other than its favorable_label and unfavorable_label values.")
    return favorable.astype(np.int64)


def _check_unit_weights(dataset, name):
    if not np.all(np.asarray(dataset.instance_weights) == 1):
        raise ValueError(f"{name}.instance_weights are not all 1: declare their public bound, weight_bound=B (every "
                         "weight in [0, B]; the release's noise scales with B), or reset them to 1.")


def _row_weights(dataset, name, bound, classified_dataset=None):
    """The rows' ``instance_weights``, clipped to ``[0, bound]`` (None: they must all be 1, and None is returned);
    with ``classified_dataset``, its weights must be the same (one weighted release). The domain (a finite,
    non-negative weight per instance) is checked after the budget check, with messages that quote no weight; a
    weight above the public ``bound`` is clipped to it without a warning, as ``DPMetricFrame`` does.
    """
    if bound is None:
        for data, label in ((dataset, name), (classified_dataset, "classified_dataset")):
            if data is not None:
                _check_unit_weights(data, label)
        return None
    weights = np.asarray(dataset.instance_weights, dtype=float).ravel()
    if weights.shape[0] != np.asarray(dataset.labels).shape[0] or not np.all(np.isfinite(weights)):
        raise ValueError(f"{name}.instance_weights must be one finite weight per instance.")
    if np.any(weights < 0):
        raise ValueError(f"{name}.instance_weights holds negative weights: a private metric needs weights in "
                         "[0, weight_bound].")
    if classified_dataset is not None and not np.array_equal(
            np.asarray(classified_dataset.instance_weights, dtype=float).ravel(), weights):
        raise ValueError("classified_dataset.instance_weights must equal dataset.instance_weights: one release of "
                         "weighted counts has one weight per instance.")
    return np.minimum(weights, bound)


def _check_same_rows(dataset, classified_dataset):
    """Both datasets describe the same instances: as many rows, the same protected attributes."""
    if (np.asarray(classified_dataset.labels).shape[0] != np.asarray(dataset.labels).shape[0]
            or classified_dataset.protected_attributes.shape != dataset.protected_attributes.shape):
        raise ValueError("dataset and classified_dataset must have the same number of instances.")
    if not np.array_equal(classified_dataset.protected_attributes, dataset.protected_attributes, equal_nan=True):
        raise ValueError("dataset and classified_dataset must have the same protected attributes (they may differ "
                         "only in labels or scores).")


def _division(numerator, denominator):
    """``numerator / denominator`` as AIF360 computes it (numpy floats: ``nan`` or ``inf`` when dividing by 0),
    without the warning.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float64(numerator) / np.float64(denominator)


def _share(numerator, denominator):
    """AIF360's convention for PPV, NPV, FDR, FOR and ACC: 0 when the denominator is not positive."""
    return _division(numerator, denominator) if denominator > 0.0 else np.float64(0.0)


def _unavailable(name, needs):
    """A method that refuses with ``NotImplementedError``: it needs more than the released table."""

    def method(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(
            f"{type(self).__name__}.{name} is not available: it needs {needs}, which the one differentially private "
            "release this object answers from (per-condition counts) does not contain, and it is never computed "
            "on the raw data.")

    method.__name__ = name
    method.__doc__ = f"Not available: needs {needs} (raises ``NotImplementedError``)."
    return method



def _bounded_scores(dataset):
    """``dataset.scores`` as a vector clipped to ``[0, 1]`` (the public range declared by ``bounded_scores=True``:
    a finite score outside it is clipped without a warning, as ``DPMetricFrame`` clips values to its ``bounds``);
    a NaN or infinite score is a domain error that quotes no value.
    """
    scores = np.asarray(dataset.scores, dtype=float)
    if scores.ndim != 2 or scores.shape[1] != 1 or scores.shape[0] != np.asarray(dataset.labels).shape[0]:
        raise ValueError("classified_dataset.scores must have one column and one row per instance "
                         "(bounded_scores=True).")
    scores = scores.ravel()
    if not np.all(np.isfinite(scores)):
        raise ValueError("classified_dataset.scores must be finite (bounded_scores=True): NaN or infinite scores "
                         "are refused.")
    return np.clip(scores, 0.0, 1.0)
