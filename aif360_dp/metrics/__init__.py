"""DP counterparts of AIF360's dataset and classification metrics.

Each class mirrors AIF360's metric class of the same name without ``DP`` (method names, signatures, the
``privileged=None | True | False`` conditioning) and answers every method from one differentially private release
of per-cell counts (and, declared bounded, score sums), made and charged once in its constructor. Metrics that are
not functions of those counts and sums raise ``NotImplementedError``.
"""

from ._dp_classification_metric import DPClassificationMetric
from ._dp_dataset_metrics import DPBinaryLabelDatasetMetric
from ._threshold_report import DPThresholdReport

__all__ = ["DPBinaryLabelDatasetMetric", "DPClassificationMetric", "DPThresholdReport"]
