"""AIF360 dataset over the bundled Communities and Crime data: violent-crime rate, two groups."""

from __future__ import annotations

from fairlearn_dp.datasets import COMMUNITIES_CRIME_BOUNDS, fetch_communities_crime

from ._base import BundledRegressionDataset

__all__ = ["CommunitiesCrimeDataset"]

_GROUP_NAMES = {0: "white", 1: "black"}
_PRIVILEGED = 0


class CommunitiesCrimeDataset(BundledRegressionDataset):
    """Communities and Crime data of Xian et al. as an AIF360 :class:`~aif360.datasets.RegressionDataset`.

    Built from :func:`fairlearn_dp.datasets.fetch_communities_crime` (bundled UCI files, no download). 1,994
    communities; label ``ViolentCrimesPerPop``; the loader's 99 numeric features; protected attribute ``black``
    = 1 if ``racepctblack > 0.06`` (970 communities) else 0 (1,024, the paper's "white" group), privileged
    group 0.

    AIF360 min-max scales every column with its observed range. Here every feature and the label already span
    exactly [0, 1] and the group is 0/1, so all values are stored unchanged.

    Attributes
    ----------
    privileged_protected_attributes : list of ndarray
        ``[array([0.0])]``.
    unprivileged_protected_attributes : list of ndarray
        ``[array([1.0])]``.
    metadata : dict
        ``'protected_attribute_maps'`` ``[{0.0: 'white', 1.0: 'black'}]``, ``'label_scale'``
        ``{'min': 0.0, 'max': 1.0}`` (``original = stored * (max - min) + min``) and ``'label_bounds'``
        ``(0.0, 1.0)``.

    References
    ----------
    Xian, R., Li, Q., Kamath, G., & Zhao, H. (2024). Differentially Private Post-Processing for Fair Regression.
    ICML.

    Examples
    --------
    >>> data = CommunitiesCrimeDataset()
    >>> data.features.shape, data.label_names, data.protected_attribute_names
    ((1994, 100), ['ViolentCrimesPerPop'], ['black'])
    >>> data.privileged_protected_attributes, data.metadata["label_bounds"]
    ([array([0.])], (0.0, 1.0))
    """

    def __init__(self) -> None:
        bunch = fetch_communities_crime(as_frame=True)
        super().__init__(
            features=bunch.data,
            target=bunch.target,
            groups=bunch.sensitive_features,
            group_names=_GROUP_NAMES,
            privileged_group=_PRIVILEGED,
            label_bounds=COMMUNITIES_CRIME_BOUNDS,
        )
