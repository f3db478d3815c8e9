"""Private pre-processing: the engines of the AIF360 face's pre-processors (``aif360_dp.algorithms.preprocessing``).

The reweighing weights from one release of the (group, label) table (``_reweighing.py``) and the disparate-impact
repair from one release of per-group feature histograms on public ranges (``_disparate_impact.py``). Their classes
are used through the AIF360 face; they are not public names of the engine.
"""

__all__: list[str] = []
