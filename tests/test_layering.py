"""The engine does not depend on its faces: no module under fairlearn_dp/ imports aif360_dp or fairdp_adapters.

Data and dependencies flow one way (docs/design.md, "Layering"): ``aif360_dp`` wraps ``fairlearn_dp``, and
``fairdp_adapters`` (the registry, reporting, the command line) sits on both. Every import in the
engine is checked, including lazy imports inside functions and ``importlib.import_module("...")`` /
``__import__("...")`` calls with a literal name.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "fairlearn_dp"
FACES = ("aif360_dp", "fairdp_adapters", "adapters")
_DYNAMIC_IMPORTS = {"import_module", "__import__"}


def _is_face(module):
    return module is not None and module.split(".")[0] in FACES


def _upward_imports(tree):
    """``(line, imported name)`` of every import of a face in a parsed module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if _is_face(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            # Relative imports (level > 0) stay inside fairlearn_dp: its top level has no parent package.
            if node.level == 0 and _is_face(node.module):
                found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if (name in _DYNAMIC_IMPORTS and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and _is_face(node.args[0].value)):
                found.append((node.lineno, node.args[0].value))
    return found


def _engine_modules():
    return sorted(ENGINE.rglob("*.py"))


def test_the_engine_has_modules_to_check():
    modules = _engine_modules()
    assert len(modules) > 20 and ENGINE / "audit" / "__init__.py" in modules


@pytest.mark.parametrize("path", _engine_modules(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_engine_module_imports_a_face(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    upward = _upward_imports(tree)
    assert not upward, (f"{path.relative_to(ROOT)} imports {', '.join(f'{name} (line {line})' for line, name in upward)}:"
                        " fairlearn_dp must not depend on aif360_dp or fairdp_adapters; move the code to the face.")


@pytest.mark.parametrize("source, expected", [
    ("import aif360_dp", ["aif360_dp"]),
    ("import numpy, fairdp_adapters.registry as r", ["fairdp_adapters.registry"]),
    ("def f():\n    from aif360_dp.algorithms import inprocessing", ["aif360_dp.algorithms"]),
    ("from fairdp_adapters import registry", ["fairdp_adapters"]),
    ("import importlib\nimportlib.import_module('aif360_dp.datasets')", ["aif360_dp.datasets"]),
    ("__import__('fairdp_adapters')", ["fairdp_adapters"]),
    ("from . import _audit\nfrom ..privacy import PrivacySpend\nimport aif360\nimport fairlearn", []),
])
def test_the_check_sees_every_form_of_import(source, expected):
    assert [name for _, name in _upward_imports(ast.parse(source))] == expected
