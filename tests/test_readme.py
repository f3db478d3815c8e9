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
