"""Differentially private pre-processing: transformations fitted from DP statistics.

:class:`DPCorrelationRemover` is Fairlearn's ``CorrelationRemover`` fitted from one release of bounded sufficient
statistics (the means and the covariances of the columns with the sensitive ones). The engines of the AIF360 face's
pre-processors (``aif360_dp.algorithms.preprocessing``) live here too and are not public names of the engine: the
reweighing weights from one release of the (group, label) table (``_reweighing.py``) and the disparate-impact repair
from one release of per-group feature histograms on public ranges (``_disparate_impact.py``).
"""

from ._correlation_remover import DPCorrelationRemover

__all__ = ["DPCorrelationRemover"]
