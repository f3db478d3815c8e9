"""The repository passes ruff with the configuration in pyproject.toml (pyflakes, bugbear, pydocstyle with the numpy
convention, McCabe complexity at most 12), and the size limits of the review rule hold (docs/development.md, "Review
rule and size limits"). The rule is one concept per module and one reason to change per module and function; the
limits are what a reviewer can check mechanically, set with headroom so that code written by the rule never meets
them, and a change that does is asked to split by concept rather than to squeeze lines:

- a function or method of ``fairlearn_dp``, ``aif360_dp`` or ``fairdp_adapters`` has at most 60 lines of body (its
  statements, the docstring not counted): a function longer than a screen does several steps, and each step gets a
  name (check the public inputs, read, release, post-process);
- a module of the three packages has at most 800 lines: a backstop, far above a module that holds one concept;
- a class docstring has at most 120 lines: derivations go to docs/privacy_analysis/.

The lines of the docstrings' numpydoc ``Examples`` sections are not counted: they are doctests (tests/test_snippets.py
runs them), not code or derivations, and a limit that counted them would push the examples out of the classes that
need them most."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY_MODULES = [path for package in ("fairlearn_dp", "aif360_dp", "adapters")
                   for path in sorted((ROOT / package).rglob("*.py"))]
MAX_FUNCTION_LINES = 60
MAX_MODULE_LINES = 800
MAX_CLASS_DOCSTRING_LINES = 120
# Functions over the limit while another change splits them, each with the date and the change; the lead removes an
# entry after that change is merged (test_function_exemptions_are_still_needed fails once one is no longer needed).
FUNCTION_EXEMPTIONS: dict[str, str] = {}


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


def body_lines(node):
    """The number of lines of a function's body: from its first statement after the docstring to the end of its last
    (comments and blank lines between statements count, as a reader reads them; the signature does not)."""
    body = node.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value,
                                                                                                  str):
        body = body[1:]
    return body[-1].end_lineno - body[0].lineno + 1 if body else 0


def functions(tree, prefix=""):
    """``(qualified name, node)`` of every function and method of ``tree`` (nested ones as ``outer.inner``)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from functions(node, name + ".")
        else:
            yield from functions(node, prefix)


def test_body_lines_counts_the_statements_after_the_docstring():
    tree = ast.parse('class C:\n    def f(self,\n          x):\n        """Doc.\n\n        More."""\n        a = 1\n\n'
                     '        # why\n        return (a,\n                x)\n')
    [(name, node)] = list(functions(tree))
    assert name == "C.f"
    assert body_lines(node) == 5


def long_functions(path):
    """``{"path::qualified name": body lines}`` of the functions of ``path`` over the limit."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(ROOT).as_posix()
    return {f"{where}::{name}": lines for name, node in functions(tree)
            if (lines := body_lines(node)) > MAX_FUNCTION_LINES}


@pytest.mark.parametrize("path", LIBRARY_MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_function_is_over_60_lines(path):
    long = {name: lines for name, lines in long_functions(path).items() if name not in FUNCTION_EXEMPTIONS}
    assert not long, (f"{long}: over {MAX_FUNCTION_LINES} lines of body; split by concept into named steps (check the "
                      "public inputs, read, release, post-process), see docs/development.md.")


def test_function_exemptions_are_still_needed():
    for name, reason in FUNCTION_EXEMPTIONS.items():
        path = ROOT / name.split("::")[0]
        assert path.exists() and name in long_functions(path), f"{name} ({reason}) is within the limit: remove it."


@pytest.mark.parametrize("path", LIBRARY_MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_module_is_over_800_lines(path):
    text = path.read_text(encoding="utf-8")
    examples = sum(examples_lines(ast.get_docstring(node, clean=False)) for node in docstring_nodes(ast.parse(text)))
    lines = len(text.splitlines()) - examples
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines: split it by concept."


@pytest.mark.parametrize("path", sorted((ROOT / "fairlearn_dp").rglob("*.py")) + sorted((ROOT / "aif360_dp").rglob("*.py")),
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_class_docstring_is_over_120_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    counted = [(node.name, doc.count("\n") + 1 - examples_lines(doc)) for node in ast.walk(tree)
               if isinstance(node, ast.ClassDef) and (doc := ast.get_docstring(node, clean=False))]
    long = [(name, lines) for name, lines in counted if lines > MAX_CLASS_DOCSTRING_LINES]
    assert not long, f"{path.relative_to(ROOT)}: {long}: move derivations to docs/privacy_analysis/."
