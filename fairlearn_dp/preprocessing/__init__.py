"""Differentially private pre-processing: transformations of the features fitted from DP statistics.

:class:`DPCorrelationRemover` is Fairlearn's ``CorrelationRemover`` fitted from one release of bounded sufficient
statistics (the means and the covariances of the columns with the sensitive ones).
"""

from ._correlation_remover import DPCorrelationRemover

__all__ = ["DPCorrelationRemover"]
