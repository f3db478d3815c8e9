"""The README's two set-up commands exist, and .ci/run runs the test command verbatim."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setup_commands():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(?:bash|sh)\n(.*?)\n```", section, flags=re.S)


def test_readme_has_exactly_two_setup_commands():
    commands = _setup_commands()
    assert len(commands) == 2
    assert all("\n" not in c for c in commands)
    assert "examples/quickstart.py" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command_verbatim():
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _setup_commands()[1] in ci_lines


#: The README's length limit (issue 34): details live in docs/, the README keeps the set-up and the examples.
README_WORD_LIMIT = 1500


def test_readme_is_under_its_word_limit():
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())     # what ``wc -w`` counts
    assert words < README_WORD_LIMIT, f"README.md has {words} words (limit {README_WORD_LIMIT})"


def test_readme_has_an_aif360_example_with_its_output():
    """A Python block that uses an AIF360 face on an AIF360 dataset, followed by its shown output (tests/test_snippets.py
    runs it and compares the output)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)\n```\n\n```text\n(.*?)\n```", text, flags=re.S)
    aif360 = [(code, shown) for code, shown in blocks
              if "from aif360_dp.algorithms." in code and "from aif360_dp.datasets import" in code]
    assert len(aif360) == 1
    code, shown = aif360[0]
    assert ".fit(" in code and ".predict(" in code and shown.strip()


def test_the_version_contract_moved_to_the_installation_page_with_every_floor():
    """The README links the tested stacks and the diffprivlib hook; docs/installation.md states every runtime floor of
    pyproject.toml that the README used to list, and the hook."""
    import tomllib

    from packaging.requirements import Requirement

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "[docs/installation.md](docs/installation.md)" in setup
    page = (ROOT / "docs" / "installation.md").read_text(encoding="utf-8")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    floors = {Requirement(d).name: next(s.version for s in Requirement(d).specifier if s.operator == ">=")
              for d in dependencies}
    for name in ("fairlearn", "diffprivlib", "aif360", "scikit-learn", "pandas", "numpy", "scipy", "cvxpy"):
        assert f"{name} {floors[name]}" in page, name
    assert "fairdp_diffprivlib_hook.pth" in page and "capped below their next minor release" in page
