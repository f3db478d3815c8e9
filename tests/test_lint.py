"""The repository passes ruff with the configuration in pyproject.toml (pyflakes, bugbear, pydocstyle with the numpy
convention, McCabe complexity at most 12), and the engine's size limits hold: no module of ``fairlearn_dp`` over
600 lines, no class docstring over 120 lines (derivations go to docs/privacy_analysis/)."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE_MODULES = sorted((ROOT / "fairlearn_dp").rglob("*.py"))


def test_ruff_passes_with_the_projects_configuration():
    pytest.importorskip("ruff")                    # the [test] extra installs it
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)], capture_output=True,
                            text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_engine_module_is_over_600_lines(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 600, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept."


@pytest.mark.parametrize("path", sorted((ROOT / "fairlearn_dp").rglob("*.py")) + sorted((ROOT / "aif360_dp").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_class_docstring_is_over_120_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [(node.name, ast.get_docstring(node, clean=False).count("\n") + 1) for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node, clean=False)
            and ast.get_docstring(node, clean=False).count("\n") + 1 > 120]
    assert not long, f"{path.relative_to(ROOT)}: {long}: move derivations to docs/privacy_analysis/."
