"""fairdp's AIF360 face: AIF360 ``Transformer`` subclasses that delegate to :mod:`fairlearn_dp`."""
