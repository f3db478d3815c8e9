"""The layer that registers fairdp's DP classes with both toolkits (installed as ``fairdp_adapters``).

- :mod:`fairdp_adapters.registry`: one table of the DP classes of both faces, their non-private counterparts,
  privacy units and public inputs.
- :mod:`fairdp_adapters.reporting`: ``MetricFrame``-based before/after reports, their private counterpart and
  privacy-fairness sweeps.
- :mod:`fairdp_adapters.cli`: the ``fairdp`` command.
"""
