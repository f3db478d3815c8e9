"""AIF360 dataset objects built from the data bundled with fairdp, for the AIF360 face of the package.

The classes read the raw files shipped in :mod:`fairlearn_dp.datasets` through its offline loaders (nothing is
downloaded, unlike AIF360's own dataset classes, which expect files in AIF360's data folder or fetch them):
:class:`LawSchoolGPADataset` and :class:`CommunitiesCrimeDataset` are the regression datasets of Xian et al.
(AIF360 ``RegressionDataset``), with metadata that maps AIF360's min-max scaled label and group values back to
original units; :class:`AdultDataset` reproduces AIF360's ``AdultDataset`` (``StandardDataset``) with the same
keywords and defaults.
"""

from ._adult_dataset import AdultDataset
from ._communities_crime_dataset import CommunitiesCrimeDataset
from ._law_school_gpa_dataset import LawSchoolGPADataset

__all__ = ["AdultDataset", "CommunitiesCrimeDataset", "LawSchoolGPADataset"]
