"""``from diffprivlib import ...`` as a program's first line works where fairdp is installed (scikit-learn 1.9).

The installed ``fairdp_diffprivlib_hook.pth`` registers ``_fairdp_diffprivlib_hook``'s finder at start-up; the first
import of diffprivlib runs ``fairlearn_dp._compat``'s shim. Checked in fresh interpreters (the tests' own process
imported fairdp long ago): the import works, start-up imports neither numpy nor scikit-learn, and a broken hook
never breaks start-up. These tests need fairdp installed from this tree (``pip install -e .`` or a wheel).
"""

import ast
import json
import site
import subprocess
import sys
from pathlib import Path

import pytest

import _fairdp_diffprivlib_hook as hook

ROOT = Path(__file__).resolve().parents[1]
REINSTALL = "fairdp_diffprivlib_hook.pth is missing or stale: reinstall fairdp (`pip install -e .`) from this tree"
#: Modules the start-up must not import (the hook is lazy).
HEAVY = {"numpy", "sklearn", "scipy", "pandas", "fairlearn", "fairlearn_dp", "diffprivlib"}


def fresh(code, cwd, *options):
    """Run ``code`` in a fresh interpreter (outside the source tree, so imports come from the installation)."""
    return subprocess.run([sys.executable, *options, "-c", code], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def pth_line():
    """The ``.pth`` line setup.py installs (read from setup.py without running it)."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    (value,) = [node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and [getattr(t, "id", None) for t in node.targets] == ["PTH_LINE"]]
    return value


def test_the_installed_pth_file_is_this_trees():
    site_dirs = [*site.getsitepackages(), site.getusersitepackages()]
    candidates = [Path(d) / "fairdp_diffprivlib_hook.pth" for d in site_dirs]
    found = [path for path in candidates if path.is_file()]
    assert len(found) == 1, REINSTALL
    assert found[0].read_text(encoding="utf-8") == pth_line(), REINSTALL


FIRST_LINE = """\
import sys
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})
hooked = "_fairdp_diffprivlib_hook" in sys.modules
from diffprivlib import BudgetAccountant
accountant = BudgetAccountant()
accountant.spend(0.5, 0)
print(json.dumps({{"loaded": loaded, "hooked": hooked, "spent": accountant.total()[0]}}))
"""


def test_diffprivlib_as_the_first_import_works(tmp_path):
    code = "import json\n" + FIRST_LINE.format(heavy=sorted(HEAVY))
    result = fresh(code, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["hooked"], REINSTALL
    assert report["loaded"] == []
    assert report["spent"] == 0.5


def test_startup_imports_neither_numpy_nor_scikit_learn(tmp_path):
    """``-X importtime``: the hook is imported at start-up, with no nested import and nothing heavy."""
    result = fresh("pass", tmp_path, "-X", "importtime")
    assert result.returncode == 0, result.stderr[-2000:]
    rows = [line.split("|") for line in result.stderr.splitlines() if line.startswith("import time:")][1:]
    names = {row[2].strip().split(".")[0] for row in rows}
    assert "_fairdp_diffprivlib_hook" in names, REINSTALL
    assert not names & HEAVY
    (hook_row,) = [row for row in rows if row[2].strip() == "_fairdp_diffprivlib_hook"]
    self_us, cumulative_us = int(hook_row[0].split(":")[1]), int(hook_row[1])
    assert cumulative_us == self_us        # it imports nothing (``sys`` is built in and already loaded)


def test_the_names_are_defined_only_where_scikit_learn_lacks_them(tmp_path):
    code = """\
import json, numpy as np, sklearn.tree._tree as tree
before = {name: getattr(tree, name, None) for name in ("DOUBLE", "DTYPE")}
import diffprivlib
after = {name: getattr(tree, name) for name in ("DOUBLE", "DTYPE")}
expected = {"DOUBLE": np.float64, "DTYPE": np.float32}
print(json.dumps({name: (before[name] is None, after[name] is (before[name] or expected[name])) for name in after}))
"""
    result = fresh(code, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert all(kept_or_defined for _, kept_or_defined in report.values()), report
    import sklearn

    if tuple(int(p) for p in sklearn.__version__.split(".")[:2]) >= (1, 9):
        assert all(missing for missing, _ in report.values())   # the case the hook exists for


@pytest.mark.parametrize("module_source", [None, "raise RuntimeError('broken hook')\n",
                                           "def install():\n    raise RuntimeError('broken hook')\n"],
                         ids=["missing", "raises-on-import", "raises-in-install"])
def test_a_broken_hook_never_breaks_start_up(tmp_path, module_source):
    """The ``.pth`` line swallows every error: start-up goes on, silently."""
    site_dir, module_dir = tmp_path / "site", tmp_path / "modules"
    site_dir.mkdir()
    module_dir.mkdir()
    (site_dir / "fairdp_diffprivlib_hook.pth").write_text(pth_line(), encoding="utf-8")
    if module_source is not None:
        (module_dir / "_fairdp_diffprivlib_hook.py").write_text(module_source, encoding="utf-8")
    # -S: no site-packages (the installed hook stays out of the way); site.addsitedir processes the .pth as start-up.
    code = f"import sys, site; sys.path.insert(0, {str(module_dir)!r}); site.addsitedir({str(site_dir)!r}); print('up')"
    result = fresh(code, tmp_path, "-S")
    assert (result.returncode, result.stdout, result.stderr) == (0, "up\n", "")


# ------------------------------------------------------------------------------------ the finder, in-process
def test_the_finder_finds_nothing_and_runs_the_shim_once(monkeypatch):
    calls = []
    monkeypatch.setattr(hook, "_run_shim", lambda: calls.append(1))
    monkeypatch.setattr(hook._DiffprivlibFinder, "done", False)
    finder = hook._DiffprivlibFinder
    assert finder.find_spec("numpy") is None and calls == []
    assert finder.find_spec("diffprivlib.mechanisms") is None and calls == []
    assert finder.find_spec("diffprivlib") is None and calls == [1]
    assert finder.find_spec("diffprivlib") is None and calls == [1]


def test_the_finder_steps_aside_when_the_engine_is_not_importable(monkeypatch):
    monkeypatch.setitem(sys.modules, "fairlearn_dp._compat", None)      # makes the import raise ImportError
    assert hook._run_shim() is None


def test_install_is_idempotent_and_skips_a_loaded_diffprivlib(monkeypatch):
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.delitem(sys.modules, "diffprivlib")
    while hook._DiffprivlibFinder in sys.meta_path:
        sys.meta_path.remove(hook._DiffprivlibFinder)
    hook.install()
    hook.install()
    assert sys.meta_path.count(hook._DiffprivlibFinder) == 1 and sys.meta_path[0] is hook._DiffprivlibFinder
    sys.meta_path.remove(hook._DiffprivlibFinder)
    monkeypatch.setitem(sys.modules, "diffprivlib", object())
    hook.install()
    assert hook._DiffprivlibFinder not in sys.meta_path
