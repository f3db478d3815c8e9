"""AIF360 dataset over the bundled Law School data: undergraduate GPA, four race groups."""

from __future__ import annotations

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school

from ._base import BundledRegressionDataset

__all__ = ["LawSchoolGPADataset"]

_RACE_CODES = {"asian": 0, "black": 1, "hisp": 2, "white": 3}
_PRIVILEGED = "white"


class LawSchoolGPADataset(BundledRegressionDataset):
    """Law School data of Xian et al. as an AIF360 :class:`~aif360.datasets.RegressionDataset`.

    Built from :func:`fairlearn_dp.datasets.fetch_law_school` (bundled file, no download; unlike AIF360's own
    ``LawSchoolGPADataset``, which downloads the LSAC SAS file and predicts ``zfygpa`` for black / white students).
    21,983 students; label ``ugpa``; features ``lsat`` and ``pass_bar``; protected attribute ``race`` with four
    groups coded asian=0, black=1, hisp=2, white=3, privileged group white.

    AIF360 scales every column to [0, 1] with its observed minimum and maximum, so the stored values are: race
    asian 0.0, black 1/3, hisp 2/3, white 1.0 (the codes are given this scaling before AIF360 sees them, because
    AIF360 would otherwise reject a four-valued numeric protected attribute); ``lsat`` ``(lsat - 11) / 37``;
    label ``(ugpa - 1.5) / (3.9 - 1.5)``. ``metadata`` records how to go back.

    Attributes
    ----------
    privileged_protected_attributes : list of ndarray
        ``[array([1.0])]`` (white, as stored).
    unprivileged_protected_attributes : list of ndarray
        ``[array([0.0, 1/3, 2/3])]`` (asian, black, hisp, as stored).
    metadata : dict
        ``'protected_attribute_maps'`` ``[{0.0: 'asian', 1/3: 'black', 2/3: 'hisp', 1.0: 'white'}]``,
        ``'label_scale'`` ``{'min': 1.5, 'max': 3.9}`` (``ugpa = stored * (max - min) + min``) and
        ``'label_bounds'`` ``(1.0, 4.0)``, the public bounds of ``ugpa``.

    References
    ----------
    Xian, R., Li, Q., Kamath, G., & Zhao, H. (2024). Differentially Private Post-Processing for Fair Regression.
    ICML.

    Examples
    --------
    >>> data = LawSchoolGPADataset()
    >>> data.features.shape, data.label_names, data.protected_attribute_names
    ((21983, 3), ['ugpa'], ['race'])
    >>> data.privileged_protected_attributes, data.metadata["label_bounds"]
    ([array([1.])], (1.0, 4.0))
    """

    def __init__(self) -> None:
        bunch = fetch_law_school(as_frame=True)
        super().__init__(
            features=bunch.data,
            target=bunch.target,
            groups=bunch.sensitive_features.map(_RACE_CODES).astype(int),
            group_names={code: name for name, code in _RACE_CODES.items()},
            privileged_group=_RACE_CODES[_PRIVILEGED],
            label_bounds=LAW_SCHOOL_BOUNDS,
        )
