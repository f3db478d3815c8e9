"""Common construction of the AIF360 regression datasets built from the bundled loaders.

AIF360's :class:`~aif360.datasets.RegressionDataset` min-max scales every column of its frame to [0, 1] -- the
features, the protected attribute and the label alike -- but records the privileged / unprivileged values as they
were *before* scaling. With a numeric protected attribute whose codes are not already 0 and 1 (e.g. four race
groups coded 0..3) its own validation then rejects the dataset ("All observed values for protected attributes
should be designated ..."), since the stored 1/3 and 2/3 match none of the recorded codes.
:class:`BundledRegressionDataset` therefore applies that same min-max map to the group codes first (codes 0..3
become 0, 1/3, 2/3, 1, exactly the values AIF360 would store), so AIF360's own scaling leaves them unchanged and the
privileged / unprivileged values it records are the stored ones; ``metadata`` records how to read the stored label
and group values in original units.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from aif360.datasets import RegressionDataset
from sklearn.preprocessing import MinMaxScaler

__all__ = ["BundledRegressionDataset"]


class BundledRegressionDataset(RegressionDataset):
    """A :class:`~aif360.datasets.RegressionDataset` over one bundled loader's output, with scale-aware metadata.

    Parameters
    ----------
    features : pandas.DataFrame
        Numeric features, without missing values.
    target : pandas.Series
        Numeric label, named; becomes the dependent variable.
    groups : pandas.Series
        Integer group codes, named; becomes the single protected attribute.
    group_names : dict of int to str
        Name of each group code.
    privileged_group : int
        Code of the privileged group.
    label_bounds : tuple of float
        Public bounds ``(low, high)`` of the label in original units.

    Attributes
    ----------
    privileged_protected_attributes : list of ndarray
        One array holding the *stored* (scaled) value of the privileged group.
    unprivileged_protected_attributes : list of ndarray
        One array holding the stored values of the other groups, ascending.
    metadata : dict
        AIF360's metadata plus

        - ``'protected_attribute_maps'``: ``[{stored value: group name}]``;
        - ``'label_scale'``: ``{'min': m, 'max': M}``, the observed label range, so that
          ``original = stored * (M - m) + m``;
        - ``'label_bounds'``: ``label_bounds``, the public bounds in original units.

        There is no ``'label_maps'``: the label is continuous.
    """

    def __init__(self, *, features: pd.DataFrame, target: pd.Series, groups: pd.Series, group_names: dict,
                 privileged_group: int, label_bounds: tuple[float, float]) -> None:
        codes = groups.to_numpy()
        scaled_groups = pd.Series(_min_max(codes), index=groups.index, name=groups.name)
        frame = pd.concat([features, scaled_groups, target], axis=1)
        super().__init__(
            df=frame,
            dep_var_name=target.name,
            protected_attribute_names=[groups.name],
            privileged_classes=[np.unique(scaled_groups[codes == privileged_group]).tolist()],
        )
        if self.labels.shape[0] != len(frame):
            raise ValueError(f"{type(self).__name__}: input rows with missing values were dropped; pass none.")

        stored_value = _stored_values(codes, self.protected_attributes[:, 0])
        self.privileged_protected_attributes = [np.array([stored_value[privileged_group]])]
        self.unprivileged_protected_attributes = [
            np.array(sorted(value for code, value in stored_value.items() if code != privileged_group))
        ]
        self.metadata.update(
            {
                "protected_attribute_maps": [{stored_value[code]: group_names[code] for code in sorted(stored_value)}],
                "label_scale": {"min": float(target.min()), "max": float(target.max())},
                "label_bounds": tuple(float(bound) for bound in label_bounds),
            }
        )


def _min_max(values):
    """The map AIF360's ``RegressionDataset`` applies to each column (scikit-learn's ``MinMaxScaler``)."""
    return MinMaxScaler().fit_transform(np.asarray(values, dtype=np.float64).reshape(-1, 1)).ravel()


def _stored_values(codes, stored):
    """``{code: stored value}`` pairing each original group code with the scaled value AIF360 stored for it."""
    mapping = {}
    for code in np.unique(codes):
        values = np.unique(stored[codes == code])
        if values.size != 1:
            raise ValueError(f"Group code {code} was scaled to several values {values}.")
        mapping[code.item()] = float(values[0])
    return mapping
