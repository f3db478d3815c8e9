"""Private fairness reporting, and fairness metrics that plug into :class:`fairlearn.metrics.MetricFrame`.

:class:`DPMetricFrame` is Fairlearn's ``MetricFrame`` computed from one differentially private release of the
per-group confusion counts (or sums of bounded values), its expert settings in one :class:`MetricFrameOptions`; the
``dp_*`` aggregates are Fairlearn's fairness aggregates
from one such release each (or all from one :class:`DPReport`: one release read by many views), and
:func:`count_metric` declares a metric as a function of the counts.

``ks_statistical_parity`` is the fairness violation of Xian et al. (2024), Definition 2.2: the largest two-sample
Kolmogorov-Smirnov distance between any two groups' output distributions. It has the signature of Fairlearn's
aggregate metrics (``demographic_parity_difference``).

Allocation metrics (Zhu et al. 2022) take the true allocation as ``y_true`` and a mechanism's expected allocation
as ``y_pred``: ``alpha_fairness``, ``cost_of_privacy`` (``form="l1"``: its l1 form), ``mean_bias``, ``misallocated_funds``.
"""

from ._allocation import alpha_fairness, cost_of_privacy, mean_bias, misallocated_funds
from ._count_metrics import count_metric
from ._dp_aggregates import (
    DPAggregate,
    dp_demographic_parity_difference,
    dp_demographic_parity_ratio,
    dp_equal_opportunity_difference,
    dp_equal_opportunity_ratio,
    dp_equalized_odds_difference,
    dp_equalized_odds_ratio,
)
from ._dp_metric_frame import DPMetricFrame
from ._frame_checks import MetricFrameOptions
from ._ks import ks_statistical_parity
from ._report import DPReport

__all__ = ["DPMetricFrame", "MetricFrameOptions", "DPReport", "DPAggregate", "dp_demographic_parity_difference", "dp_demographic_parity_ratio",
           "dp_equalized_odds_difference", "dp_equalized_odds_ratio", "dp_equal_opportunity_difference",
           "dp_equal_opportunity_ratio", "count_metric", "ks_statistical_parity", "alpha_fairness", "cost_of_privacy",
           "mean_bias", "misallocated_funds"]
