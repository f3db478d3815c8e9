"""The house rules of the engine's structure, checked statically on every module of ``fairlearn_dp``.

- Only ``fairlearn_dp/privacy/`` imports diffprivlib's mechanisms: estimators call a release from the privacy core.
- Only ``fairlearn_dp/_fairlearn_compat.py`` imports Fairlearn's private names (a ``_module`` on the path or a
  ``_name``), so that a Fairlearn release that moves one breaks one module (and this suite, which imports it).
- The engine's import graph (module-level and lazy imports alike) has no circle.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "fairlearn_dp"
MODULES = sorted(ENGINE.rglob("*.py"))


def _module_name(path):
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """``(line, absolute module, imported names)`` of every import in ``path`` (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module
            found.append((node.lineno, module, [alias.name for alias in node.names]))
    return found


def _private(module, names):
    return any(part.startswith("_") for part in module.split(".")) or any(n.startswith("_") for n in names)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_only_the_privacy_core_imports_diffprivlib_mechanisms(path):
    if path.is_relative_to(ENGINE / "privacy"):
        return
    bad = [(line, module) for line, module, names in _imports(path)
           if module.startswith("diffprivlib.mechanisms")
           or (module == "diffprivlib" and "mechanisms" in names)]
    assert not bad, f"{path.relative_to(ROOT)} imports diffprivlib's mechanisms {bad}: release through privacy/."


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_only_the_compat_module_imports_fairlearns_private_names(path):
    if path == ENGINE / "_fairlearn_compat.py":
        return
    bad = [(line, module, names) for line, module, names in _imports(path)
           if module.split(".")[0] == "fairlearn" and _private(module, names)]
    assert not bad, f"{path.relative_to(ROOT)} imports Fairlearn's private names {bad}: use fairlearn_dp._fairlearn_compat."


# The privacy core's internal helpers (release functions, budget splits, seeds) live in its private modules, which
# the engine's own packages import directly; faces and adapters only those listed in ENGINE_PRIVATE_ALLOWED below.


#: The modules allowed to import another package's private names, each the one door for its package.
COMPAT_MODULES = {"fairlearn": ENGINE / "_fairlearn_compat.py", "sklearn": ENGINE / "_compat.py"}
PROJECT_PACKAGES = ("fairlearn_dp", "aif360_dp", "fairdp_adapters", "adapters", "_fairdp_diffprivlib_hook", "__future__")


@pytest.mark.parametrize("path", MODULES + sorted((ROOT / "aif360_dp").rglob("*.py")) + sorted(
    (ROOT / "adapters").rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_only_the_compat_modules_import_other_packages_private_names(path):
    """No module imports a private module or name of another package (scikit-learn, diffprivlib, AIF360, ...),
    except the one compatibility module of that package."""
    bad = [(line, module, names) for line, module, names in _imports(path)
           if module.split(".")[0] not in PROJECT_PACKAGES and _private(module, names)
           and COMPAT_MODULES.get(module.split(".")[0]) != path]
    assert not bad, f"{path.relative_to(ROOT)} imports private names of other packages {bad}."


#: The engine's private modules a face or an adapter may import, each with its reason; everything else they use is
#: a public name.
ENGINE_PRIVATE_ALLOWED = {
    "fairlearn_dp._utils": "the validation and fit helpers the faces share with the engine (internal)",
    "fairlearn_dp.privacy._accountant": "the AIF360 faces' own releases check and charge the budget as the engine's do",
    "fairlearn_dp.privacy._post_release": "the AIF360 faces' own releases defer their warnings as the engine's do",
    "fairlearn_dp.privacy._random": "the AIF360 faces' own releases derive their seeds as the engine's do",
    "fairlearn_dp.privacy._projection": "the AIF360 threshold report projects its totals as the engine's releases do",
    "fairlearn_dp.privacy._selection": "the audit cases size their events from the selection's share of epsilon",
    "fairlearn_dp.privacy._exponential": "the audit case computes the exponential mechanism's probabilities",
    "fairlearn_dp.reductions._hypotheses": "the audit cases build their one-threshold hypothesis classes",
    "fairlearn_dp.audit._events": "the audit cases' events specific to one estimator's release",
    "fairlearn_dp.metrics._frame_release": "the AIF360 metric objects answer from DPMetricFrame's one release",
    "fairlearn_dp.metrics._release_views": "the AIF360 threshold report shares DPReport's log of released rows",
    "fairlearn_dp.reductions._gerryfair": "the AIF360 GerryFair face's private audit (AIF360's own method)",
    "fairlearn_dp.postprocessing._calibrated_eq_odds": ("the engine of DPCalibratedEqOddsPostprocessing (issue 40; "
                                                         "Fairlearn has no counterpart, so it is not public)"),
    "fairlearn_dp.postprocessing._reject_option": ("the engine of DPRejectOptionClassification (issue 40; Fairlearn "
                                                   "has no counterpart, so it is not public)"),
    "fairlearn_dp.preprocessing._reweighing": "the engine of DPReweighing (Fairlearn has no counterpart, so it is "
                                              "no public name of the engine)",
    "fairlearn_dp.preprocessing._disparate_impact": "the engine of DPDisparateImpactRemover (Fairlearn has no "
                                                    "counterpart, so it is no public name of the engine)",
}


@pytest.mark.parametrize("path", sorted((ROOT / "aif360_dp").rglob("*.py")) + sorted((ROOT / "adapters").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_faces_and_adapters_use_the_engines_public_names(path):
    bad = [(line, module) for line, module, _ in _imports(path)
           if module.startswith("fairlearn_dp.") and any(part.startswith("_") for part in module.split("."))
           and module not in ENGINE_PRIVATE_ALLOWED]
    assert not bad, f"{path.relative_to(ROOT)} imports private modules of the engine {bad}."


#: The dependency rule of the three installed packages: each may import only the packages listed for it.
LAYERS = {"fairlearn_dp": ENGINE, "aif360_dp": ROOT / "aif360_dp", "fairdp_adapters": ROOT / "adapters"}
ALLOWED_LAYERS = {"fairlearn_dp": {"fairlearn_dp"}, "aif360_dp": {"fairlearn_dp", "aif360_dp"},
                  "fairdp_adapters": {"fairlearn_dp", "aif360_dp", "fairdp_adapters"}}


@pytest.mark.parametrize("path", [path for folder in LAYERS.values() for path in sorted(folder.rglob("*.py"))],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_each_package_imports_only_the_layers_below_it(path):
    """fairlearn_dp imports neither face; aif360_dp imports fairlearn_dp only (its dataset glue is
    ``aif360_dp._glue``); fairdp_adapters, which registers both faces and holds the CLI, sits on both."""
    package = next(name for name, folder in LAYERS.items() if path.is_relative_to(folder))
    # a relative import inside adapters/ resolves to the folder's name, "adapters": the installed fairdp_adapters
    tops = {name.split(".")[0] for _, name, _ in _imports(path)}
    layers = {"fairdp_adapters" if top == "adapters" else top for top in tops} & set(LAYERS)
    bad = sorted(layers - ALLOWED_LAYERS[package])
    assert not bad, f"{path.relative_to(ROOT)} imports {bad}: {package} may import {sorted(ALLOWED_LAYERS[package])}."


@pytest.mark.parametrize("path", sorted((ROOT / "aif360_dp").rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_aif360_faces_do_not_name_the_adapters(path):
    """Not in an import, nor a string for importlib, nor a docstring that sends the reader there: the faces' glue
    and its documentation are in ``aif360_dp``."""
    text = path.read_text(encoding="utf-8")
    assert "fairdp_adapters" not in text, f"{path.relative_to(ROOT)} names fairdp_adapters."


def _graph():
    known = {_module_name(path): path for path in MODULES}
    graph = {}
    for name, path in known.items():
        targets = set()
        for _, module, names in _imports(path):
            if module in known:
                targets.add(module)
            for imported in names:                     # ``from . import _module`` imports a module
                if f"{module}.{imported}" in known:
                    targets.add(f"{module}.{imported}")
        # A package's __init__ is what "from .pkg import x" reaches; importing a submodule runs its package's
        # __init__, which is not a circle of the submodule's own making: keep only module-to-module edges.
        graph[name] = {t for t in targets if t != name}
    return graph


def _cycles(graph):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def _without_packages(graph):
    """Edges into a package ``__init__`` replaced by edges into the submodules it imports (what such an import
    really depends on), so that ``__init__`` re-exports do not make circles."""
    packages = {name for name in graph if (ROOT / name.replace(".", "/") / "__init__.py").exists()}
    resolved = {}
    for name, targets in graph.items():
        if name in packages:
            continue
        out = set()
        for target in targets:
            out |= ({t for t in graph[target] if not t.startswith(name)} if target in packages else {target})
        resolved[name] = out - {name}
    return resolved


def test_the_engines_import_graph_has_no_circle():
    cycles = _cycles(_without_packages(_graph()))
    assert not cycles, f"import circles: {cycles}"


def test_the_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# ------------------------------------------------------------------------------ private attributes of others
FACES = ROOT / "aif360_dp"
#: The few accesses to another object's private attribute that are the point of their module, each with its reason.
PRIVATE_ACCESS_ALLOWED = {
    ("fairlearn_dp/privacy/_vector.py", "_check_all"): "diffprivlib's internals, used in this one module",
    ("fairlearn_dp/privacy/_vector.py", "_rng"): "diffprivlib's internals, used in this one module",
    ("fairlearn_dp/privacy/_vector.py", "_scale"): "diffprivlib's internals, used in this one module",
    ("fairlearn_dp/_utils/_fit_support.py", "_metadata_request"): "scikit-learn's clone keeps the routing requests",
    ("aif360_dp/algorithms/inprocessing/_dp_exponentiated_gradient.py", "_pmf_predict"):
        "Fairlearn's name for the mixture's probabilities, which AIF360's own face calls too",
}


def _own_private_names(tree):
    """The private names a module defines: functions, classes, module or class attributes, ``self._x = ...``."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(target, ast.Name):
                    names.add(target.id)
                elif isinstance(target, ast.Attribute):
                    names.add(target.attr)
    return names


def _foreign_private_accesses(path):
    """``(line, expression)`` of every ``obj._name`` in ``path`` where ``obj`` is not ``self``, ``cls``, ``super()``,
    ``type(...)`` or an imported module, and ``_name`` is not defined in ``path`` itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported |= {alias.asname or alias.name for alias in node.names}
    own = _own_private_names(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
            continue
        value = node.value
        if isinstance(value, ast.Name) and (value.id in ("self", "cls") or value.id in imported):
            continue
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("super", "type"):
            continue
        if node.attr in own:
            continue
        found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.parametrize("path", MODULES + sorted(FACES.rglob("*.py")), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_module_reaches_into_another_modules_private_attributes(path):
    """No module drives another's private methods or reads its private attributes: a face calls the engine's public
    ``check_public_inputs``, the Dask backends receive callables, diffprivlib's internals stay in one module."""
    relative = path.relative_to(ROOT).as_posix()
    bad = [(line, text) for line, text in _foreign_private_accesses(path)
           if (relative, text.rpartition(".")[2]) not in PRIVATE_ACCESS_ALLOWED]
    assert not bad, f"{relative} uses private attributes of objects defined elsewhere: {bad}"


def test_the_private_access_check_sees_a_foreign_call(tmp_path):
    module = tmp_path / "face.py"
    module.write_text("def fit(model):\n    model._check_params()\n    return model.check_public_inputs()\n")
    assert _foreign_private_accesses(module) == [(2, "model._check_params")]
