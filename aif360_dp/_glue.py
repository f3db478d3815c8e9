"""AIF360 datasets <-> ``(X, y, sensitive_features)`` and back: the faces' one glue module (private to the faces,
so that :mod:`aif360_dp` depends on :mod:`fairlearn_dp` only).

AIF360's ``RegressionDataset`` min-max scales every column, the target included, to [0, 1]. fairdp's AIF360
datasets record the target's original range in ``metadata["label_scale"] = {"min": ..., "max": ...}``; the
conversions here use it so the engine works in the target's original units (where the public ``bounds`` are
stated) and write predictions back in the dataset's stored units.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
import pandas as pd

__all__ = ["DatasetArrays", "dataset_to_arrays", "arrays_to_dataset", "declared_groups", "protected_attribute",
           "protected_attributes", "joint_declared_groups", "protected_frame", "predict_seed", "public_label_bounds",
           "check_dataset", "check_group_attributes"]


class DatasetArrays(NamedTuple):
    """An AIF360 dataset as arrays: the features, the labels and the rest of :func:`dataset_to_arrays`' fields."""

    X: pd.DataFrame
    y: np.ndarray
    sensitive_features: pd.Series


def check_dataset(dataset, name="dataset"):
    """A ``TypeError`` naming ``name`` unless ``dataset`` is an AIF360 ``StructuredDataset`` (e.g. numpy arrays,
    which the AIF360 faces do not take: wrap them in a ``BinaryLabelDataset`` or ``RegressionDataset``).
    """
    from aif360.datasets import StructuredDataset

    if not isinstance(dataset, StructuredDataset):
        raise TypeError(f"{name} must be an AIF360 dataset (a StructuredDataset such as BinaryLabelDataset or "
                        f"RegressionDataset), got {type(dataset).__name__}.")


def check_group_attributes(dataset, definitions, name, dataset_name="dataset"):
    """Every attribute named in the group ``definitions`` (AIF360's list of ``{attribute: value}`` dicts) must be a
    protected attribute of ``dataset``; a ``ValueError`` naming ``name`` otherwise. Only the public schema
    (attribute names) is read, not a row.
    """
    check_dataset(dataset, dataset_name)
    names = list(dataset.protected_attribute_names)
    for definition in definitions:
        missing = [key for key in definition if key not in names]
        if missing:
            raise ValueError(f"{name} names {missing[0]!r}, which is not a protected attribute of {dataset_name} "
                             f"(its protected attributes: {names}).")


def protected_attribute(dataset, name=None):
    """The protected attribute to group by: ``name``, or the dataset's first protected attribute."""
    check_dataset(dataset)
    names = list(dataset.protected_attribute_names)
    if name is None:
        if not names:
            raise ValueError("dataset has no protected attribute.")
        return names[0]
    if name not in names:
        raise ValueError(f"protected_attribute_name {name!r} is not one of the dataset's {names}.")
    return name


def protected_attributes(dataset, names=None, *, name="protected_attribute_name"):
    """The protected attributes to group by, as a list: ``names`` (one name or a list of names), or all of the
    dataset's protected attributes, in the dataset's order (AIF360's ``ExponentiatedGradientReduction`` groups by
    all of them). Only the public schema is read; errors name ``name``.
    """
    check_dataset(dataset)
    available = list(dataset.protected_attribute_names)
    if names is None:
        if not available:
            raise ValueError("dataset has no protected attribute.")
        return available
    chosen = [names] if isinstance(names, str) else names
    if isinstance(chosen, bytes) or not isinstance(chosen, (list, tuple)) or not chosen:
        raise TypeError(f"{name} must be None, an attribute name or a non-empty list of attribute names, got "
                        f"{names!r}.")
    if not all(isinstance(item, str) for item in chosen) or len(set(chosen)) != len(chosen):
        raise ValueError(f"{name} must list distinct attribute names, got {names!r}.")
    missing = [item for item in chosen if item not in available]
    if missing:
        raise ValueError(f"{name} {missing[0]!r} is not one of the dataset's protected attributes {available}.")
    return list(chosen)


def joint_declared_groups(dataset, names):
    """The public groups of the attributes ``names``: every combination of each attribute's declared values.

    Each attribute's values are those :func:`declared_groups` returns (the dataset's privileged then unprivileged
    values, never read from rows). With one attribute these are the groups (floats). With several, a group is a
    combination of one declared value per attribute (attributes in the order of ``names``), labelled as the
    engines label a row of several sensitive columns, the values' text joined by commas as Fairlearn does (e.g.
    ``"1.0,0.0"`` for sex 1.0 and race 0.0): a dataset with attributes of ``k_1, ..., k_r`` declared values has
    ``k_1 * ... * k_r`` groups, each declared even if no row falls in it.
    """
    per_attribute = [declared_groups(dataset, item) for item in names]
    for item, values in zip(names, per_attribute, strict=False):
        if not values:
            raise ValueError(f"protected attribute {item!r} has no declared value: declare its privileged and "
                             "unprivileged values in the dataset (privileged_protected_attributes, "
                             "unprivileged_protected_attributes).")
    if len(per_attribute) == 1:
        return per_attribute[0]
    texts = [pd.Series(values, dtype=float).astype(str).tolist() for values in per_attribute]
    return [",".join(combination) for combination in itertools.product(*texts)]


def protected_frame(dataset, names):
    """The protected attribute columns ``names`` of ``dataset`` as a DataFrame of floats (one column per attribute,
    named after it, indexed by the instance names): the form AIF360 passes to Fairlearn as ``sensitive_features``
    (several columns are combined into one group per row).
    """
    columns = [dataset.protected_attribute_names.index(item) for item in names]
    index = pd.Index(dataset.instance_names, name="instance")
    return pd.DataFrame(np.asarray(dataset.protected_attributes, dtype=float)[:, columns], columns=list(names),
                        index=index)


def _label_scale(dataset):
    scale = dataset.metadata.get("label_scale") if dataset.metadata else None
    if scale is None:
        return 0.0, 1.0
    low, high = float(scale["min"]), float(scale["max"])
    if not high > low:
        raise ValueError("metadata['label_scale'] must have max > min.")
    return low, high - low


def public_label_bounds(dataset, bounds=None):
    """The public bounds ``(s, t)`` of a regression dataset's labels, in the units :func:`dataset_to_arrays` returns.

    The dataset must record ``metadata['label_scale']`` (so labels are read back in original units; fairdp's datasets
    do): a plain AIF360 ``RegressionDataset`` min-max scales its label with the data's own minimum and maximum, so
    its stored [0, 1] labels depend on every record and no bounds can make a release on them private. Then
    ``bounds`` when given (declared public, original units), else ``metadata['label_bounds']``.
    """
    from fairlearn_dp._utils import check_bounds

    metadata = dataset.metadata or {}
    if metadata.get("label_scale") is None:
        raise ValueError("dataset has no metadata['label_scale']: AIF360 min-max scales a RegressionDataset's label "
                         "with the data's own min and max, so every stored label depends on every record (one record "
                         "can rescale all others) and no bounds make that private. Record the label's public "
                         "original range in metadata['label_scale'] (and its bounds in metadata['label_bounds']), as "
                         "fairdp's datasets do.")
    if bounds is not None:
        return check_bounds(bounds)
    if metadata.get("label_bounds") is not None:
        return check_bounds(metadata["label_bounds"])
    raise ValueError("bounds=(s, t) is required: the dataset has no public label bounds (metadata['label_bounds']), "
                     "and AIF360 min-max scales a RegressionDataset's label with the data's own min and max, so "
                     "bounds read from it would depend on the private data. Pass public bounds in the label's "
                     "original units (they are used with metadata['label_scale'] when the dataset records it).")


def dataset_to_arrays(dataset, *, protected_attribute_name=None):
    """Split an AIF360 dataset into features, labels (original units) and the protected attribute column.

    Returns
    -------
    DatasetArrays
        ``X`` (DataFrame of ``dataset.features`` with ``feature_names``), ``y`` (1-D labels, converted back with
        ``metadata["label_scale"]`` when present) and ``sensitive_features`` (Series named after the attribute,
        holding its values as stored in the dataset).
    """
    name = protected_attribute(dataset, protected_attribute_name)
    if dataset.labels.ndim != 2 or dataset.labels.shape[1] != 1:
        raise ValueError("dataset must have exactly one label column.")
    low, width = _label_scale(dataset)
    y = dataset.labels[:, 0].astype(float) * width + low
    column = dataset.protected_attribute_names.index(name)
    index = pd.Index(dataset.instance_names, name="instance")
    sensitive = pd.Series(dataset.protected_attributes[:, column], index=index, name=name)
    X = pd.DataFrame(dataset.features, columns=dataset.feature_names, index=index)
    return DatasetArrays(X, y, sensitive)


def arrays_to_dataset(template, y):
    """A copy of ``template`` whose labels are ``y`` (original units), stored in the template's label units.

    Features, protected attributes, instance names/weights and metadata are kept.
    """
    check_dataset(template)
    y = np.asarray(y, dtype=float).ravel()
    if y.size != template.labels.shape[0]:
        raise ValueError(f"y has {y.size} rows but the dataset has {template.labels.shape[0]} (length mismatch).")
    low, width = _label_scale(template)
    out = template.copy(deepcopy=True)
    out.labels = ((y - low) / width).reshape(-1, 1)
    return out


def declared_groups(dataset, protected_attribute_name=None):
    """The attribute's values declared in the dataset's metadata (privileged then unprivileged), not read from rows.

    These are public (the dataset's schema); they give the DP estimators their ``groups``.
    """
    name = protected_attribute(dataset, protected_attribute_name)
    column = dataset.protected_attribute_names.index(name)
    values = list(np.ravel(dataset.privileged_protected_attributes[column]))
    values += [v for v in np.ravel(dataset.unprivileged_protected_attributes[column]) if v not in values]
    return [float(v) for v in values]


def predict_seed(seed):
    """Seed for an AIF360 face's ``predict`` draws, derived from its ``seed`` but a different stream than ``fit``'s.

    AIF360 transformers take one ``seed``; using it unchanged for both the privacy noise of ``fit`` and the
    randomisation of ``predict`` would replay the noise's uniforms in the predictions.
    """
    if seed is None:
        return None
    return int(np.random.SeedSequence([int(seed), 1]).generate_state(1)[0])
