"""AIF360 ``AdultDataset`` with AIF360's defaults, reading the bundled UCI files instead of AIF360's data folder."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pandas as pd
from aif360.datasets import StandardDataset

from fairlearn_dp.datasets import fetch_adult

__all__ = ["AdultDataset"]

#: Name AIF360 gives the Adult label column.
_LABEL_NAME = "income-per-year"
#: fetch_adult returns the 32,561 rows of adult.data first, then the 16,281 rows of adult.test.
_N_TRAIN = 32_561

_DEFAULT_METADATA = {
    "label_maps": [{1.0: ">50K", 0.0: "<=50K"}],
    "protected_attribute_maps": [{1.0: "White", 0.0: "Non-white"}, {1.0: "Male", 0.0: "Female"}],
}


def _default(value, fallback):
    """``fallback`` when ``value`` is None, else ``value`` (lets list defaults be fresh objects per call)."""
    return fallback if value is None else value


class AdultDataset(StandardDataset):
    """UCI Adult as an AIF360 :class:`~aif360.datasets.StandardDataset`, from the data bundled with fairdp.

    A drop-in for :class:`aif360.datasets.AdultDataset`: same constructor keywords, same defaults and same
    preprocessing, but the raw files come from :func:`fairlearn_dp.datasets.fetch_adult` (shipped with the
    package) instead of AIF360's ``data/raw/adult`` folder, which AIF360 leaves empty. As in AIF360, the test rows
    come first, the label column is named ``income-per-year``, ``fnlwgt`` is dropped and the 3,620 rows with a
    missing value are dropped, leaving 45,222 rows. It loads on pandas 2 and 3: the text columns reach AIF360's
    preprocessing as object columns, whereas AIF360 0.6.1's own class fails on pandas 3's string columns
    (``np.issubdtype`` cannot interpret ``StringDtype``; with ``pd.options.future.infer_string = False`` it
    gives the same dataset as this class).

    Parameters
    ----------
    label_name : str, default='income-per-year'
        Label column.
    favorable_classes : list or callable, default=['>50K', '>50K.']
        Label values mapped to the favorable label 1.0 (the ``'.'`` variant, present in the raw test file, is
        kept for compatibility; the loader removes it).
    protected_attribute_names : list of str, default=['race', 'sex']
        Protected attribute columns.
    privileged_classes : list of (list or callable), default=[['White'], ['Male']]
        Privileged values of each protected attribute, mapped to 1.0; all others to 0.0.
    instance_weights_name : str or None, default=None
        Column holding instance weights (e.g. ``'fnlwgt'`` together with ``features_to_drop=[]``).
    categorical_features : list of str, default=['workclass', 'education', 'marital-status', 'occupation', \
'relationship', 'native-country']
        Columns one-hot encoded (``name=value``).
    features_to_keep : list of str, default=[]
        Columns to keep (empty: all); protected attributes, categorical features and the label are always kept.
    features_to_drop : list of str, default=['fnlwgt']
        Columns to drop; overrides ``features_to_keep``.
    na_values : list, default=['?']
        Values treated as missing (their rows are dropped). The loader has already turned ``'?'`` into NaN.
    custom_preprocessing : callable or None, default=None
        ``DataFrame -> DataFrame`` function applied before the standard preprocessing.
    metadata : dict or None, default=None
        Metadata to attach; None gives AIF360's Adult mappings: ``'label_maps'`` ``[{1.0: '>50K', 0.0: '<=50K'}]``
        and ``'protected_attribute_maps'`` ``[{1.0: 'White', 0.0: 'Non-white'}, {1.0: 'Male', 0.0: 'Female'}]``.
        The dict passed is copied, not modified.

    See Also
    --------
    aif360.datasets.StandardDataset : the preprocessing steps.
    fairlearn_dp.datasets.fetch_adult : the bundled data, provenance and licence.

    Examples
    --------
    >>> data = AdultDataset(protected_attribute_names=["sex"], privileged_classes=[["Male"]],
    ...                     categorical_features=[], features_to_keep=["age", "education-num"])
    >>> data.features.shape, data.feature_names, data.label_names
    ((48842, 3), ['age', 'education-num', 'sex'], ['income-per-year'])
    >>> data.privileged_protected_attributes, data.favorable_label
    ([array([1.])], 1.0)
    """

    def __init__(
        self,
        label_name: str = _LABEL_NAME,
        favorable_classes: list | Callable | None = None,
        protected_attribute_names: list[str] | None = None,
        privileged_classes: list | None = None,
        instance_weights_name: str | None = None,
        categorical_features: list[str] | None = None,
        features_to_keep: list[str] | None = None,
        features_to_drop: list[str] | None = None,
        na_values: list | None = None,
        custom_preprocessing: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
        metadata: dict | None = None,
    ) -> None:
        na_values = _default(na_values, ["?"])
        super().__init__(
            df=_adult_frame(na_values),
            label_name=label_name,
            favorable_classes=_default(favorable_classes, [">50K", ">50K."]),
            protected_attribute_names=_default(protected_attribute_names, ["race", "sex"]),
            privileged_classes=_default(privileged_classes, [["White"], ["Male"]]),
            instance_weights_name=instance_weights_name,
            categorical_features=_default(
                categorical_features,
                ["workclass", "education", "marital-status", "occupation", "relationship", "native-country"],
            ),
            features_to_keep=_default(features_to_keep, []),
            features_to_drop=_default(features_to_drop, ["fnlwgt"]),
            na_values=na_values,
            custom_preprocessing=custom_preprocessing,
            metadata=copy.deepcopy(_DEFAULT_METADATA) if metadata is None else dict(metadata),
        )


def _adult_frame(na_values):
    """The bundled Adult frame laid out as AIF360's loader reads it: test rows first, plain object columns."""
    frame = fetch_adult(as_frame=True).frame
    frame = pd.concat([frame.iloc[_N_TRAIN:], frame.iloc[:_N_TRAIN]], ignore_index=True)
    frame = frame.rename(columns={"class": _LABEL_NAME})
    categorical = frame.select_dtypes(include="category").columns
    frame[categorical] = frame[categorical].astype(object)
    return frame.mask(frame.isin(list(na_values)))
