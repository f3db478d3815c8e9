"""The documentation's cross-references to other projects are checked and work offline (issue 34).

``docs/conf.py`` turns ``nitpicky`` on (with ``-W`` a reference that resolves nowhere fails the build) and maps every
other project to an inventory committed in ``docs/_inventories/``: CI reaches no documentation site. The Fairlearn,
AIF360 and diffprivlib inventories are written from the installed packages by ``make_inventory.py``; regenerating
them must give the committed entries.
"""

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INVENTORIES = ROOT / "docs" / "_inventories"


def _conf_assignments():
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    return {target.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


def _make_inventory():
    spec = importlib.util.spec_from_file_location("make_inventory", INVENTORIES / "make_inventory.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_nitpicky_with_intersphinx_on_committed_inventories():
    conf = _conf_assignments()
    assert ast.literal_eval(conf["nitpicky"]) is True
    extensions = ast.literal_eval(conf["extensions"])
    assert "sphinx.ext.intersphinx" in extensions
    mapping = conf["intersphinx_mapping"]
    assert isinstance(mapping, ast.Dict)
    names = {ast.literal_eval(key) for key in mapping.keys}
    assert {"python", "sklearn", "scipy", "fairlearn", "aif360", "diffprivlib"} <= names
    for name in names:                     # each inventory is a file here, never a download
        assert (INVENTORIES / f"{name}.inv").is_file(), name
        assert f'_INVENTORIES / "{name}.inv"' in (ROOT / "docs" / "conf.py").read_text(encoding="utf-8")
    # only type words are ignored, never a name
    ignored = ast.literal_eval(conf["nitpick_ignore"])
    assert {target for _, target in ignored} <= {"optional", "classifier", "array-like", "default"}


@pytest.mark.parametrize("project", ["fairlearn", "aif360", "diffprivlib"])
def test_regenerating_an_inventory_gives_the_committed_entries(project):
    pytest.importorskip("fairlearn_dp")
    make_inventory = _make_inventory()
    (spec,) = [p for p in make_inventory.PROJECTS if p.name == project]
    committed = make_inventory.read_entries(INVENTORIES / f"{project}.inv")
    assert committed == make_inventory.entries(spec)
    assert make_inventory.read_entries_of_bytes(make_inventory.inventory_bytes(spec)) == committed


def test_the_inventories_hold_the_names_the_api_reference_links():
    make_inventory = _make_inventory()
    names = {name for project in ("fairlearn", "aif360", "diffprivlib")
             for name, _, _ in make_inventory.read_entries(INVENTORIES / f"{project}.inv")}
    assert {"fairlearn.metrics.MetricFrame", "fairlearn.postprocessing.ThresholdOptimizer",
            "fairlearn.reductions.ExponentiatedGradient", "fairlearn.reductions.Moment", "fairlearn.datasets",
            "aif360.datasets.BinaryLabelDataset", "aif360.datasets.StandardDataset", "aif360.algorithms.Transformer",
            "aif360.metrics.ClassificationMetric", "diffprivlib.BudgetAccountant",
            "diffprivlib.utils.BudgetError"} <= names
    for project in ("python", "sklearn", "scipy"):               # Debian's files: real Sphinx inventories
        assert (INVENTORIES / f"{project}.inv").read_bytes().startswith(b"# Sphinx inventory version 2\n")
    readme = (INVENTORIES / "README.md").read_text(encoding="utf-8")
    for origin in ("python3.11-doc", "python-sklearn-doc", "python-scipy-doc", "make_inventory.py"):
        assert origin in readme
