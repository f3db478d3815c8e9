"""Glue shared by fairdp's Fairlearn and AIF360 faces (installed as ``fairdp_adapters``).

- :mod:`fairdp_adapters.aif360`: AIF360 dataset <-> ``(X, y, sensitive_features)`` and back, keeping the
  protected-attribute metadata.
- :mod:`fairdp_adapters.registry`: one table of DP classes, their non-private counterparts and privacy units.
- :mod:`fairdp_adapters.reporting`: ``MetricFrame``-based before/after reports.
"""
