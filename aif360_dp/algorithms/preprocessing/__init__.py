"""DP counterparts of AIF360 pre-processors.

Each class subclasses AIF360's ``Transformer`` (``fit(dataset)`` learns from an AIF360 dataset, ``transform(dataset)``
returns a new dataset, metadata recorded) and delegates the computation to an engine class of
``fairlearn_dp.preprocessing``: reweighing weights from one release of the (group, label) table, and the
disparate-impact repair from one release of per-group feature histograms on public ranges. The guarantee covers
what is learnt (the weights, the repair map), not the rows a transform returns (docs/privacy_analysis/preprocessing.md).
"""

from ._dp_disparate_impact_remover import DPDisparateImpactRemover
from ._dp_reweighing import DPReweighing

__all__ = ["DPReweighing", "DPDisparateImpactRemover"]
