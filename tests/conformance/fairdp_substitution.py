"""pytest plugin: run an upstream test suite with fairdp's classes substituted at ``epsilon=inf``.

Loaded with ``-p fairdp_substitution`` (this folder on ``sys.path``). Before the upstream tests import anything,
it rebinds ``fairlearn.postprocessing.ThresholdOptimizer``, ``fairlearn.reductions.ExponentiatedGradient`` and
``fairlearn.reductions.GridSearch`` and ``fairlearn.preprocessing.CorrelationRemover`` (in the packages and in their
defining modules) to subclasses of :class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer`,
:class:`~fairlearn_dp.reductions.DPExponentiatedGradient`, :class:`~fairlearn_dp.reductions.DPGridSearch` and
:class:`~fairlearn_dp.preprocessing.DPCorrelationRemover` whose only change is the default ``epsilon=inf``, so
every upstream construction ``ThresholdOptimizer(...)`` builds our class with the same arguments. The subclasses
keep our ``__init__`` code (only its default changes), so ``get_params``/``clone`` see our signature.
"""

from __future__ import annotations

import math
import types
import warnings


def _with_infinite_epsilon(cls, name):
    init = cls.__init__
    new_init = types.FunctionType(init.__code__, init.__globals__, "__init__", init.__defaults__, init.__closure__)
    new_init.__kwdefaults__ = {**(init.__kwdefaults__ or {}), "epsilon": math.inf}
    new_init.__doc__ = init.__doc__
    # Defined as a name of this module, so that pickle finds the subclass (upstream tests pickle fitted objects).
    subclass = type(name, (cls,), {"__init__": new_init, "__module__": __name__, "__doc__": cls.__doc__})
    globals()[name] = subclass
    return subclass


def substitute():
    """Rebind Fairlearn's names; returns ``{qualified name: substituted class}``."""
    import fairlearn.postprocessing
    import fairlearn.postprocessing._threshold_optimizer
    import fairlearn.preprocessing
    import fairlearn.preprocessing._correlation_remover
    import fairlearn.reductions
    import fairlearn.reductions._exponentiated_gradient.exponentiated_gradient as eg_module
    import fairlearn.reductions._grid_search.grid_search as gs_module

    # Imported with deprecation warnings silenced: pytest_configure runs under the upstream configuration's
    # filterwarnings = error, and an older dependency (diffprivlib 0.6.4 on numpy 2: "numpy.core is deprecated")
    # warns once at import time, which would stop the whole run before any test (an INTERNALERROR, no report).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from fairlearn_dp.postprocessing import DPThresholdOptimizer
        from fairlearn_dp.preprocessing import DPCorrelationRemover
        from fairlearn_dp.reductions import DPExponentiatedGradient, DPGridSearch

    threshold = _with_infinite_epsilon(DPThresholdOptimizer, "ThresholdOptimizer")
    reduction = _with_infinite_epsilon(DPExponentiatedGradient, "ExponentiatedGradient")
    fairlearn.postprocessing.ThresholdOptimizer = threshold
    fairlearn.postprocessing._threshold_optimizer.ThresholdOptimizer = threshold
    fairlearn.reductions.ExponentiatedGradient = reduction
    eg_module.ExponentiatedGradient = reduction
    grid_search = _with_infinite_epsilon(DPGridSearch, "GridSearch")
    fairlearn.reductions.GridSearch = grid_search
    gs_module.GridSearch = grid_search
    remover = _with_infinite_epsilon(DPCorrelationRemover, "CorrelationRemover")
    fairlearn.preprocessing.CorrelationRemover = remover
    fairlearn.preprocessing._correlation_remover.CorrelationRemover = remover
    return {"fairlearn.postprocessing.ThresholdOptimizer": threshold,
            "fairlearn.reductions.ExponentiatedGradient": reduction,
            "fairlearn.reductions.GridSearch": grid_search,
            "fairlearn.preprocessing.CorrelationRemover": remover}


def pytest_configure(config):
    substitute()
