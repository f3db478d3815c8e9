"""Runner of AIF360's metric calls (copies under ``aif360_examples/``) with fairdp's DP metric classes swapped in.

Each source (a test module of AIF360 or the code cells of a demo notebook) runs unedited, and its own
``from aif360.metrics import ClassificationMetric`` / ``BinaryLabelDatasetMetric`` gets a *twin* (AIF360's modules,
e.g. an algorithm's internal metric objects, keep AIF360's classes): the twin builds
AIF360's object and fairdp's (``DPClassificationMetric`` / ``DPBinaryLabelDatasetMetric``, same positional and
keyword arguments plus the mode's ``epsilon``, a seed and a shared accountant) on the same datasets, runs every
method call on both, records the pair and hands AIF360's value back to the source. So the workflow's control flow
(thresholds chosen, its own asserts) is AIF360's, and every metric call the source makes is compared, at the state
of the datasets it was made on. AIF360's dataset loaders read the data bundled with fairdp
(``aif360_dp.datasets.AdultDataset``) instead of AIF360's empty data folder.
"""

import builtins
import contextlib
import importlib.util
import json
import math
import re
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import aif360.datasets
import aif360.metrics
import matplotlib
import numpy as np
from aif360.algorithms.preprocessing.optim_preproc_helpers import data_preproc_functions
from diffprivlib import BudgetAccountant

from aif360_dp.datasets import AdultDataset
from aif360_dp.metrics import DPBinaryLabelDatasetMetric, DPClassificationMetric

COPIES = Path(__file__).resolve().parent / "aif360_examples"
AIF360_CLASSES = {"ClassificationMetric": (aif360.metrics.ClassificationMetric, DPClassificationMetric),
                  "BinaryLabelDatasetMetric": (aif360.metrics.BinaryLabelDatasetMetric, DPBinaryLabelDatasetMetric)}


@dataclass
class Call:
    """One metric call: the site that built the object, the method, AIF360's value and fairdp's (or the exception
    raised), and the object's constructor arguments."""

    site: str
    cls: str
    method: str
    expected: object
    got: object
    arguments: tuple = ((), {})


@dataclass
class Run:
    """What one source made: its metric objects (site, class, fairdp's constructor error or None) and calls."""

    epsilon: float
    objects: list = field(default_factory=list)
    calls: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    accountant: BudgetAccountant = field(default_factory=lambda: BudgetAccountant(epsilon=math.inf))
    reports: list = field(default_factory=list)
    namespace: dict = field(default_factory=dict)       # a notebook's globals after the run
    failed_cells: list = field(default_factory=list)    # (cell, error) of the cells that raised (keep_going=True)
    substitutes: list = field(default_factory=list)     # the DP transformers built by an algorithm swap


@dataclass
class Context:
    """What a swap's ``declared`` callable may read to write the DP arguments a user would add at a call: the
    call's arguments, the source's namespace (e.g. the loop variable a user would pass as ``threshold=``) and the
    run (its epsilon, accountant and the reports built so far)."""

    args: tuple
    kwargs: dict
    namespace: dict
    run: Run


def _source_namespace():
    """The globals of the outermost frame in the copied sources (a notebook cell's namespace)."""
    namespace, frame = {}, sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(str(COPIES)):
            namespace = frame.f_globals
        frame = frame.f_back
    return namespace


def _site():
    """The chain of frames in the copied sources that led to this call (``cell 23 > common_utils.py:9``)."""
    frames = []
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(str(COPIES)):
            where = Path(name).name
            frames.append(f"{where.removesuffix('.txt')}:{frame.f_code.co_name}" if where.startswith("test_") else where)
        frame = frame.f_back
    return " > ".join(reversed(frames))


@contextlib.contextmanager
def _recorded(run):
    """Warnings of the metric objects are recorded on the run (the test suite turns warnings into errors, which
    would stop the workflow at AIF360's own 0 / 0 or at a released value's warning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    run.warnings.extend(caught)


def _side(args, side):
    """``args`` for one side of a twin: a twin's method passed as an argument (``metric.difference(metric.
    true_positive_rate)``) becomes that side's own method, so each side computes from its own values only."""
    return [getattr(getattr(arg.twin_method[0], side), arg.twin_method[1]) if hasattr(arg, "twin_method") else arg
            for arg in args]


def _twin(name, run, declared):
    """The class the source gets for ``name``: AIF360's object and fairdp's side by side (module docstring)."""
    aif_class, dp_class = AIF360_CLASSES[name]

    class Twin:
        def __init__(self, *args, **kwargs):
            self._site, self._arguments = _site(), (args, kwargs)
            self._aif = aif_class(*args, **kwargs)
            try:
                with _recorded(run):
                    if getattr(declared, "wants_context", False):
                        extra = declared(self._site, name, Context(args, kwargs, _source_namespace(), run))
                    else:
                        extra = declared(self._site, name) if callable(declared) else declared
                    # a view of a report (release=) reads the report's release: no epsilon, seed or accountant
                    privacy = {} if "release" in extra else {"epsilon": run.epsilon, "random_state": len(run.objects),
                                                                 "accountant": run.accountant}
                    self._dp = dp_class(*args, **kwargs, **extra, **privacy)
                self._error = None
            except Exception as exc:                  # recorded: each call on this object is compared with it
                self._dp, self._error = None, exc
            run.objects.append((self._site, name, self._error))

        def __getattr__(self, attribute):
            value = getattr(self._aif, attribute)
            if not callable(value):
                return value

            def call(*args, **kwargs):
                with _recorded(run):                  # AIF360's 0 / 0 warnings are its own behaviour
                    expected = value(*_side(args, "_aif"), **kwargs)
                try:
                    if self._dp is None:
                        raise self._error
                    with _recorded(run):
                        got = getattr(self._dp, attribute)(*_side(args, "_dp"), **kwargs)
                except Exception as exc:
                    got = exc
                run.calls.append(Call(self._site, name, attribute, expected, got, self._arguments))
                return expected

            call.twin_method = (self, attribute)
            return call

    Twin.__name__ = Twin.__qualname__ = name
    return Twin


def substitute(dp_class, extra=None):
    """An algorithm swap (issue 40): the source's ``Reweighing(...)`` (say) builds ``dp_class`` with the same
    arguments plus the run's ``epsilon``, a seed (the substitute's index), the run's accountant and what
    ``extra(site)`` returns (the DP-only arguments a user adds at that call, e.g. public feature ranges)."""
    def make(run):
        def build(*args, **kwargs):
            added = extra(_site()) if callable(extra) else dict(extra or {})
            built = dp_class(*args, **kwargs, **added, epsilon=run.epsilon, seed=len(run.substitutes),
                             accountant=run.accountant)
            run.substitutes.append(built)
            return built

        build.__name__ = build.__qualname__ = dp_class.__name__
        return build

    return make


def _swap(monkeypatch, run, declared, algorithms=None):
    """The builtins for the sources' namespaces: their ``from aif360.metrics import ...`` gets the twins and their
    ``from aif360.datasets import AdultDataset`` the bundled data, while AIF360's own modules (an algorithm's
    internal metric objects) keep AIF360's classes; AIF360's Adult loader reads the bundled data (monkeypatch).
    ``algorithms`` (``{module: {name: substitute(...)}}``) swaps the source's imports of AIF360's algorithms for
    fairdp's DP classes."""
    monkeypatch.setattr(data_preproc_functions, "AdultDataset", AdultDataset)
    proxies = {"aif360.metrics": {name: _twin(name, run, declared) for name in AIF360_CLASSES},
               "aif360.datasets": {"AdultDataset": AdultDataset}}
    for module_name, replacements in (algorithms or {}).items():
        importlib.import_module(module_name)
        proxies[module_name] = {name: make(run) for name, make in replacements.items()}
    for module_name, replacements in proxies.items():
        proxy = types.ModuleType(module_name)
        proxy.__dict__.update(vars(sys.modules[module_name]), **replacements)
        proxies[module_name] = proxy

    def swapped_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and fromlist and name in proxies:
            return proxies[name]
        return builtins.__import__(name, globals, locals, fromlist, level)

    return {**vars(builtins), "__import__": swapped_import}


def run_test_module(monkeypatch, name, epsilon, declared=None, algorithms=None):
    """Run every ``test_*`` function of AIF360's test module ``name`` (its copy) with the twins (and the
    ``algorithms`` swaps of :func:`_swap`); returns the Run.

    A function that fails is recorded as a call of method ``<test failed>`` with the traceback as fairdp's value.
    """
    run = Run(epsilon)
    path = COPIES / name
    namespace = {"__name__": f"aif360_examples.{path.stem}",
                 "__builtins__": _swap(monkeypatch, run, declared or {}, algorithms)}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    for function_name, function in list(namespace.items()):
        if function_name.startswith("test_") and callable(function):
            try:
                function()
            except Exception:
                run.calls.append(Call(function_name, "", "<test failed>", None, traceback.format_exc()))
    return run


class _Stub(types.ModuleType):
    """``IPython.display`` / ``ipywidgets`` for a run without them: ``display`` and ``Markdown`` do nothing, and the
    widgets imported (never used by the cells run) are placeholders."""

    @staticmethod
    def display(*args, **kwargs):
        return None

    @staticmethod
    def Markdown(text):
        return text

    interactive = FloatSlider = None


@contextlib.contextmanager
def _notebook_stubs():
    """``IPython.display`` and ``ipywidgets`` importable (as stubs) inside the block when they are not installed; the
    notebooks import them for display only."""
    stubs = {}
    if importlib.util.find_spec("IPython") is None:
        stubs.update({"IPython": types.ModuleType("IPython"), "IPython.display": _Stub("IPython.display")})
    if importlib.util.find_spec("ipywidgets") is None:
        stubs["ipywidgets"] = _Stub("ipywidgets")
    sys.modules.update(stubs)
    try:
        yield
    finally:
        for module in stubs:
            del sys.modules[module]


def notebook_cells(name):
    """The code cells of the notebook copy ``name``: (index, source without IPython magics)."""
    notebook = json.loads((COPIES / name).read_text(encoding="utf-8"))
    return [(index, "".join(line for line in cell["source"] if not line.lstrip().startswith("%")))
            for index, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code"]


def run_notebook(monkeypatch, name, epsilon, declared=None, algorithms=None, keep_going=False):
    """Run the notebook copy's code cells in order with the twins (matplotlib's Agg backend, figures closed); the
    examples folder's ``common_utils`` is the copy. ``algorithms``: the swaps of :func:`_swap`; ``keep_going``: a
    cell whose own ``assert`` fails is recorded in ``run.failed_cells`` and the next cells run. Returns the Run
    (``run.namespace``: the notebook's globals at the end)."""
    import matplotlib.pyplot as plt

    run = Run(epsilon)
    swapped_builtins = _swap(monkeypatch, run, declared or {}, algorithms)
    matplotlib.use("Agg")
    utils_path = COPIES / "common_utils.py"
    utils = types.ModuleType("common_utils")
    utils.__file__, utils.__builtins__ = str(utils_path), swapped_builtins
    exec(compile(utils_path.read_text(encoding="utf-8"), str(utils_path), "exec"), utils.__dict__)
    monkeypatch.setitem(sys.modules, "common_utils", utils)
    monkeypatch.setattr(sys, "path", list(sys.path))              # the notebook appends "../"
    state = np.random.get_state()
    namespace = run.namespace
    namespace.update({"__name__": "__main__", "__builtins__": swapped_builtins})
    try:
        for index, source in notebook_cells(name):
            # the stubs only for a cell that imports them: matplotlib takes any "IPython" module for IPython itself
            with _notebook_stubs() if re.search(r"IPython|ipywidgets", source) else contextlib.nullcontext():
                try:
                    exec(compile(source, f"{COPIES / name.removesuffix('.txt')}#cell{index}", "exec"), namespace)
                except AssertionError as error:
                    if not keep_going:
                        raise
                    run.failed_cells.append((index, error))
            plt.close("all")
    finally:
        np.random.set_state(state)                                  # the notebook seeds numpy's global generator
    return run
