"""The repository passes ruff with the configuration in pyproject.toml (pyflakes, bugbear, pydocstyle with the numpy
convention, McCabe complexity at most 12), and the engine's size limits hold: no module of ``fairlearn_dp`` over
600 lines, no class docstring over 120 lines (derivations go to docs/privacy_analysis/). The lines of the docstrings'
numpydoc ``Examples`` sections are not counted: they are doctests (tests/test_snippets.py runs them), not code or
derivations, and a limit that counted them would push the examples out of the classes that need them most."""

import ast
import re
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


def examples_lines(docstring):
    """The number of lines of a docstring's numpydoc ``Examples`` sections (the blank line before the header, header,
    underline and body, up to the next section or the docstring's last line)."""
    lines = docstring.split("\n")
    count, inside = 0, False
    for i, line in enumerate(lines[:-1]):
        if line.strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip()):
            inside = line.strip() == "Examples"
            count += inside and i > 0 and not lines[i - 1].strip()
        count += inside
    return count


def test_examples_lines_counts_the_examples_section_only():
    doc = "Summary.\n\n    Parameters\n    ----------\n    x : int\n\n    Examples\n    --------\n    >>> 1\n    1\n    "
    assert examples_lines(doc) == 5
    assert examples_lines(doc.replace("Examples\n    --------", "Notes\n    -----")) == 0


def docstring_nodes(tree):
    """The module, class and function nodes of ``tree`` that have a docstring."""
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return [node for node in ast.walk(tree) if isinstance(node, kinds) and ast.get_docstring(node, clean=False)]


@pytest.mark.parametrize("path", ENGINE_MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_engine_module_is_over_600_lines(path):
    text = path.read_text(encoding="utf-8")
    examples = sum(examples_lines(ast.get_docstring(node, clean=False)) for node in docstring_nodes(ast.parse(text)))
    lines = len(text.splitlines()) - examples
    assert lines <= 600, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept."


@pytest.mark.parametrize("path", sorted((ROOT / "fairlearn_dp").rglob("*.py")) + sorted((ROOT / "aif360_dp").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_class_docstring_is_over_120_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    counted = [(node.name, doc.count("\n") + 1 - examples_lines(doc)) for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef) and (doc := ast.get_docstring(node, clean=False))]
    long = [(name, lines) for name, lines in counted if lines > 120]
    assert not long, f"{path.relative_to(ROOT)}: {long}: move derivations to docs/privacy_analysis/."
