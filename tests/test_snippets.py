"""Every code block in the README and the documentation runs as pasted, and shown outputs match (issue 15).

What is collected: the fenced blocks of ``README.md`` and ``docs/**/*.md`` and the ``.. code-block::`` directives and
``::`` literal blocks of ``docs/**/*.rst`` (the generated pages -- ``docs/generated``, ``docs/auto_examples``,
``docs/_build`` -- are not sources; the gallery scripts in ``docs/gallery_src`` are executed by the Sphinx build,
``tests/test_docs.py``).

- **Python blocks** of one page run in order in one namespace, as a reader pastes them into one session, in a fresh
  interpreter per page with the repository root as working directory (a page must define every name it uses). They
  run with the ``docs`` marker (``.ci/run``), as the shell commands below; without the ``[docs]`` extra they skip.
- **Shown output**: a ``text`` block that directly follows a Python block (only blank lines between) is that block's
  expected standard output and must match line by line (trailing spaces ignored; a rounded number, 3 or more
  decimals, may be one unit off in its last digit, see ``_numbers_match``). A text block preceded by the
  comment ``<!-- illustrative -->`` (Markdown) or ``.. illustrative`` (reST) is not compared.
- A Python block preceded by ``<!-- requires: NAME -->`` / ``.. requires: NAME`` needs the optional package NAME (an
  extra, e.g. ``dask``); without it the page's remaining blocks are skipped, with the reason.
- **Shell blocks** (``bash``, ``sh``, ``console`` and reST ``::`` literals): in the default run they are checked
  (every ``examples/*.py`` or ``tests/benchmarks/*.py`` script they name exists and defines each ``--option`` they
  pass, every ``pip install`` extra exists in ``pyproject.toml``, every ``fairdp`` command line parses); with the
  ``docs`` marker (``.ci/run``) every one of them except the set-up commands runs as pasted and must exit 0. The
  README's two set-up commands are run by CI itself (``tests/test_readme.py``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOT_SOURCES = {"_build", "generated", "auto_examples", "auto_scripts", "gallery_src", "_templates", "img"}
SHELL = {"bash", "sh", "shell", "console"}
PYTHON = {"python", "py", "python3"}
TEXT = {"text", "none", "output"}


@dataclass
class Block:
    language: str
    code: str
    line: int
    marker: str = ""           # "illustrative", "requires: NAME" or ""
    follows_python: bool = False


def _sources():
    files = [ROOT / "README.md"]
    for path in sorted(DOCS.rglob("*")):
        if (path.suffix in (".md", ".rst") and not NOT_SOURCES & set(path.relative_to(DOCS).parts)
                and path.name != "sg_execution_times.rst"):
            files.append(path)
    return files


def _markdown_blocks(text):
    blocks, lines, i, previous_end, previous_language = [], text.splitlines(), 0, None, None
    while i < len(lines):
        opening = re.match(r"^```(\w*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        start = i
        end = next(j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```")
        before = [line for line in lines[:start] if line.strip()]
        marker = re.match(r"<!--\s*(illustrative|requires:\s*\w+)\s*-->", before[-1].strip()) if before else None
        adjacent = previous_end is not None and all(not lines[k].strip() for k in range(previous_end + 1, start))
        block = Block(opening.group(1).lower() or "text", "\n".join(lines[start + 1:end]), start + 1,
                      marker.group(1) if marker else "", adjacent and previous_language in PYTHON)
        blocks.append(block)
        previous_end, previous_language, i = end, block.language, end + 1
    return blocks


def _rst_blocks(text):
    blocks, lines, i, previous_end, previous_language = [], text.splitlines(), 0, None, None
    while i < len(lines):
        directive = re.match(r"^(\s*)\.\. code-block::\s*(\w+)\s*$", lines[i])
        literal = None if directive else re.match(r"^(\s*)(?!\.\.).*::\s*$", lines[i])
        if not (directive or literal):
            i += 1
            continue
        indent = len((directive or literal).group(1))
        language = directive.group(2).lower() if directive else "console"
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")) and directive:
            if lines[j].strip():                               # directive options such as :caption:
                j += 1
                continue
            break
        body, k = [], j
        while k < len(lines) and (not lines[k].strip() or len(lines[k]) - len(lines[k].lstrip()) > indent):
            body.append(lines[k])
            k += 1
        code = textwrap.dedent("\n".join(body)).strip("\n")
        if not code:
            i += 1
            continue
        before = [line for line in lines[:i] if line.strip()]
        marker = re.match(r"\.\.\s+(illustrative|requires:\s*\w+)\s*$", before[-1].strip()) if before else None
        adjacent = previous_end is not None and directive is not None and all(
            not lines[m].strip() for m in range(previous_end, i))
        block = Block(language, code, i + 1, marker.group(1) if marker else "",
                      adjacent and previous_language in PYTHON)
        blocks.append(block)
        previous_end, previous_language, i = k, block.language, k
    return blocks


def blocks_of(path):
    text = path.read_text(encoding="utf-8")
    return _markdown_blocks(text) if path.suffix == ".md" else _rst_blocks(text)


def _pages_with_python():
    return [p for p in _sources() if any(b.language in PYTHON for b in blocks_of(p))]


_RUNNER = r"""
import contextlib, importlib.util, io, json, sys, traceback, warnings
blocks = json.load(sys.stdin)
namespace, results = {"__name__": "__main__"}, []
for block in blocks:
    if block["requires"] and importlib.util.find_spec(block["requires"]) is None:
        results.append({"skipped": block["requires"]})
        break
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block["code"], block["name"], "exec"), namespace)
    except BaseException:
        results.append({"stdout": out.getvalue(), "error": traceback.format_exc()})
        break
    results.append({"stdout": out.getvalue(), "error": None})
sys.__stdout__.write("\n@@RESULTS@@" + json.dumps(results))
"""


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _last_digit(number):
    """``(digits after the point, one unit of the last printed digit)`` of a printed number (``e`` notation: of its
    mantissa)."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return decimals, 10.0 ** (int(exponent or 0) - decimals)


def _numbers_match(printed, shown):
    """``printed`` matches ``shown`` if equal or, when ``shown`` is a rounded value (3 or more decimals, or 2 or more
    in ``e`` notation: metrics, model and solver outputs; budgets and counts are printed with fewer digits or in
    full), printed the same way and within one unit of its last digit.

    A value computed through BLAS, a solver or a fitted model moves by a few ulps on another CPU kernel or thread
    count. Rounded, it stays put unless it lies that close to a rounding boundary, where it may round to the
    neighbouring value: one unit in the last place. A difference of two units needs the value itself to move by
    more than one unit, a change the page must show.
    """
    if printed == shown:
        return True
    decimals, unit = _last_digit(shown)
    rounded = decimals >= (2 if "e" in shown.lower() else 3)
    same_form = _last_digit(printed)[0] == decimals and ("e" in printed.lower()) == ("e" in shown.lower())
    return rounded and same_form and abs(float(printed) - float(shown)) <= 1.5 * unit


def outputs_match(printed_lines, shown_lines):
    """Line by line: the same text around the numbers (spacing included) and each number matching
    (:func:`_numbers_match`)."""
    if len(printed_lines) != len(shown_lines):
        return False
    for printed, shown in zip(printed_lines, shown_lines, strict=False):
        if printed != shown and (_NUMBER.sub("#", printed) != _NUMBER.sub("#", shown) or not all(
                _numbers_match(p, q) for p, q in zip(_NUMBER.findall(printed), _NUMBER.findall(shown), strict=False))):
            return False
    return True


@pytest.mark.docs
@pytest.mark.parametrize("page", _pages_with_python(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run_as_pasted_and_shown_outputs_match(page):
    """Marked ``docs`` (about 90 s of CPU in all) and skipped without the ``[docs]`` extra, as the shell commands
    below, so the default run stays quick: .ci/run runs them with the documentation build."""
    pytest.importorskip("sphinx")
    blocks = blocks_of(page)
    python = [(i, b) for i, b in enumerate(blocks) if b.language in PYTHON]
    payload = [{"code": b.code, "name": f"{page.relative_to(ROOT)}:{b.line}",
                "requires": b.marker.split(":", 1)[1].strip() if b.marker.startswith("requires") else ""}
               for _, b in python]
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", _RUNNER], input=json.dumps(payload), capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=900)
    assert "@@RESULTS@@" in proc.stdout, f"runner failed:\n{proc.stderr[-4000:]}"
    results = json.loads(proc.stdout.rsplit("@@RESULTS@@", 1)[1])
    for (index, block), result in zip(python, results, strict=False):
        where = f"{page.relative_to(ROOT)}, block at line {block.line}"
        if "skipped" in result:
            pytest.skip(f"{where} needs the optional package {result['skipped']!r}")
        assert result["error"] is None, f"{where} raised:\n{result['error']}"
        shown = blocks[index + 1] if index + 1 < len(blocks) else None
        if shown is not None and shown.follows_python and shown.language in TEXT and shown.marker != "illustrative":
            got = [line.rstrip() for line in result["stdout"].rstrip("\n").splitlines()]
            expected = [line.rstrip() for line in shown.code.splitlines()]
            assert outputs_match(got, expected), (f"{where}: printed output differs from the block shown after it "
                                     f"(line {shown.line}).\nprinted:\n" + "\n".join(got))
    assert len(results) == len(python) or results[-1].get("error") is not None or "skipped" in results[-1]


def _pyproject_extras():
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^(\w[\w-]*)\s*=", section, flags=re.M))


def _check_shell_command(command, where):
    command = command.strip().lstrip("$ ").strip()
    for part in re.split(r"&&|;|\|\|", command):
        words = shlex.split(part)
        if not words:
            continue
        joined = " ".join(words)
        for extra_group in re.findall(r"\.\[([\w,-]+)\]", joined):
            unknown = set(extra_group.split(",")) - _pyproject_extras()
            assert not unknown, f"{where}: pip extra(s) {unknown} not in pyproject.toml"
        scripts = [w for w in words if re.fullmatch(r"(examples|tests/benchmarks|tests/conformance)/\w+\.py", w)]
        for script in scripts:
            path = ROOT / script
            assert path.is_file(), f"{where}: {script} does not exist"
            source = path.read_text(encoding="utf-8")
            for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", joined.split(script, 1)[1]):
                assert f'"{option}"' in source or f"'{option}'" in source, f"{where}: {script} has no {option}"
        if words[0].rsplit("/", 1)[-1] == "fairdp":
            from fairdp_adapters import cli

            try:                                          # parse only (nothing runs): sub-command, options, choices
                cli._build_parser().parse_args(words[1:])
            except SystemExit as exc:
                pytest.fail(f"{where}: `{joined}` is not a valid fairdp command line ({exc})")


@pytest.mark.parametrize("page", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_blocks_name_existing_scripts_options_and_extras(page):
    for block in blocks_of(page):
        if block.language in SHELL:
            for line in re.sub(r"\\\n\s*", " ", block.code).splitlines():   # join continuation lines
                line = re.sub(r"\s#.*$", "", line)                       # drop a trailing comment
                if line.strip() and not line.strip().startswith("#"):
                    _check_shell_command(line, f"{page.relative_to(ROOT)}:{block.line}")


def test_the_extractor_finds_the_blocks():
    """The collection cannot silently come up empty: the README's example and every algorithm page are run."""
    pages = {p.relative_to(ROOT).as_posix() for p in _pages_with_python()}
    for page in ["README.md", "docs/user_guide/regression.md", "docs/user_guide/classification.md",
                 "docs/user_guide/inprocessing.md", "docs/user_guide/group_budget.md",
                 "docs/user_guide/allocation.md", "docs/index.rst"]:
        assert page in pages, page
    readme = blocks_of(ROOT / "README.md")
    # The example (one 15-line block), its private report (a second, shorter block) and the AIF360 example (issue
    # 34), each with its output.
    examples = [i for i, b in enumerate(readme) if b.language == "python"]
    assert len(examples) == 3
    for example, limit in zip(examples, (15, 10, 15), strict=False):
        assert readme[example + 1].language == "text" and readme[example + 1].follows_python
        assert len([line for line in readme[example].code.splitlines() if line.strip()]) <= limit


def test_markdown_and_rst_parsers():
    md = "intro\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n<!-- illustrative -->\n```text\nx\n```\n"
    blocks = _markdown_blocks(md)
    assert [(b.language, b.follows_python, b.marker) for b in blocks] == [
        ("python", False, ""), ("text", True, ""), ("text", False, "illustrative")]
    rst = "Intro::\n\n   pip install x\n\n.. code-block:: python\n\n   print(2)\n\n.. code-block:: text\n\n   2\n"
    blocks = _rst_blocks(rst)
    assert [(b.language, b.code, b.follows_python) for b in blocks] == [
        ("console", "pip install x", False), ("python", "print(2)", False), ("text", "2", True)]


@pytest.mark.parametrize("printed, match", [
    ("EO difference: 0.071 -> 0.074", True),
    ("EO difference: 0.072 -> 0.073", True),             # each rounded value one unit off: a rounding boundary
    ("EO difference: 0.073 -> 0.074", False),            # two units
    ("EO difference: 0.071 -> 0.0741", False),           # another rounding
    ("EO  difference: 0.071 -> 0.074", False),           # other text or spacing
])
def test_shown_numbers_may_differ_by_one_unit_of_a_rounded_last_decimal(printed, match):
    assert outputs_match([printed], ["EO difference: 0.071 -> 0.074"]) is match
    assert outputs_match(["cost 6.233e+07"], ["cost 6.232e+07"]) and not outputs_match(["cost 6.234e+07"],
                                                                                         ["cost 6.232e+07"])
    assert not outputs_match(["delta=1e-05"], ["delta=1e-06"])                        # not a rounded value
    assert not outputs_match(["PrivacySpend(epsilon=1.1, delta=0.0, rho=None)"],
                             ["PrivacySpend(epsilon=1.0, delta=0.0, rho=None)"])          # budgets: exact
    assert not outputs_match(["n = 1001"], ["n = 1000"]) and not outputs_match(["a", "b"], ["a"])


@pytest.mark.parametrize("command", ["python examples/xian2024_reproduce.py --no-such-option",
                                     "python examples/no_such_script.py", 'pip install -e ".[no-such-extra]"',
                                     "fairdp no-such-command", "fairdp audit --no-such-option"])
def test_shell_check_refuses_wrong_commands(command):
    with pytest.raises((AssertionError, pytest.fail.Exception)):
        _check_shell_command(command, "example")


def _docstring_example_modules():
    """Modules whose docstrings hold ``>>>`` examples (they appear in the API reference): dotted names."""
    modules = []
    for package, name in (("fairlearn_dp", "fairlearn_dp"), ("aif360_dp", "aif360_dp"), ("adapters", "fairdp_adapters")):
        for path in sorted((ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(ROOT / package).with_suffix("").parts
                modules.append(".".join((name, *[p for p in parts if p != "__init__"])))
    return modules


@pytest.mark.parametrize("module", _docstring_example_modules())
def test_docstring_examples_run_and_match(module):
    """The ``Examples`` sections of the docstrings (rendered in the API reference) run and print what they show."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0, f"{module}: {result.failed} of {result.attempted} failed"


#: The packages whose public classes must show an ``Examples`` section (issue 39 item 7): all three.
EXAMPLES_PACKAGES = ("fairlearn_dp", "aif360_dp", "fairdp_adapters")
#: A numpydoc ``Examples`` header (underlined) or the Google-style ``Examples:`` of the AIF360 faces, then ``>>>``.
#: Prose may come between the header and the first ``>>>`` line (but no other section header).
_EXAMPLES_SECTION = re.compile(r"^[ \t]*Examples(?::[ \t]*\n|[ \t]*\n[ \t]*-{3,}[ \t]*\n)"
                               r"(?:(?![ \t]*-{3,}[ \t]*$).*\n)*?[ \t]*>>> ", re.MULTILINE)


def _public_classes(packages):
    """``(public module, name, class)`` of every public class of ``packages`` defined in fairdp (re-exports of
    other libraries' classes, e.g. diffprivlib's ``BudgetAccountant``, and ``Warning`` subclasses excluded), each
    class once (under the first public module that exports it)."""
    import importlib
    import inspect

    from test_public_api import public_names

    found, seen = [], set()
    for module, names in sorted(public_names().items()):
        if module.split(".")[0] not in packages:
            continue
        for name in sorted(names):
            obj = getattr(importlib.import_module(module), name)
            if (inspect.isclass(obj) and not issubclass(obj, Warning) and obj not in seen
                    and obj.__module__.split(".")[0] in ("fairlearn_dp", "aif360_dp", "fairdp_adapters")):
                seen.add(obj)
                found.append((module, name, obj))
    return found


def test_the_public_class_listing_finds_the_classes_and_skips_the_warnings():
    names = [f"{module}.{name}" for module, name, _ in _public_classes(EXAMPLES_PACKAGES)]
    assert "fairlearn_dp.privacy.PrivacySpend" in names and "aif360_dp.metrics.DPClassificationMetric" in names
    assert not any(name.endswith(("UtilityWarning", "PrivacyWarning", "BudgetAccountant")) for name in names)
    assert len(names) == len(set(names))


def test_the_examples_section_pattern():
    numpydoc = "Summary.\n\n    Examples\n    --------\n    >>> 1\n    1\n"
    google = "Summary.\n\n    Examples:\n        >>> 1\n        1\n"
    assert _EXAMPLES_SECTION.search(numpydoc) and _EXAMPLES_SECTION.search(google)
    assert not _EXAMPLES_SECTION.search(numpydoc.replace(">>> 1", "1 + 1"))          # a section without a doctest
    assert not _EXAMPLES_SECTION.search("Summary.\n\n    See the Examples\n    >>> 1\n")


@pytest.mark.parametrize(("module", "name", "cls"), [pytest.param(*found, id=f"{found[0]}.{found[1]}")
                                                     for found in _public_classes(EXAMPLES_PACKAGES)])
def test_every_public_class_has_an_examples_section(module, name, cls):
    """Issue 39 item 7: each public class's docstring has an ``Examples`` section with ``>>>`` lines, in a module that
    ``test_docstring_examples_run_and_match`` executes (so the example runs and its shown output is checked)."""
    assert _EXAMPLES_SECTION.search(cls.__doc__ or ""), f"{module}.{name}: no Examples section with >>> lines"
    assert cls.__module__ in _docstring_example_modules(), f"{module}.{name}: {cls.__module__} is not doctested"


def _runnable_shell_commands():
    """Every shell command of the README and the docs except the set-up commands (venv + pip install: run by CI
    itself, tests/test_readme.py), as ``(where, command)``."""
    commands = []
    for page in _sources():
        for block in blocks_of(page):
            if block.language not in SHELL:
                continue
            for line in re.sub(r"\\\n\s*", " ", block.code).splitlines():
                line = re.sub(r"\s#.*$", "", line).strip()
                if line and not line.startswith("#") and "venv" not in line and "pip install" not in line:
                    commands.append((f"{page.relative_to(ROOT)}:{block.line}", line))
    return commands


@pytest.mark.docs
@pytest.mark.parametrize("where, command", _runnable_shell_commands(), ids=lambda v: str(v)[:60])
def test_shell_commands_run_as_pasted(where, command, tmp_path):
    """The documented commands (``fairdp reproduce ... --quick``, ``fairdp sweep``, ``fairdp audit``) run as pasted
    and exit 0, from a scratch working directory, with this interpreter's ``bin`` (the installed ``fairdp``) first
    on PATH. Marked ``docs`` (about a minute) and skipped without the ``[docs]`` extra, so the default run stays
    quick: .ci/run runs it with the documentation build."""
    pytest.importorskip("sphinx")
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
               MPLBACKEND="Agg", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, f"{where}: `{command}` exited {proc.returncode}:\n{proc.stderr[-3000:]}"
