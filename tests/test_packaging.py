"""The wheel installs exactly fairlearn_dp, aif360_dp and fairdp_adapters, with every subpackage and data file, plus
the diffprivlib import hook (a module and its .pth, in the regular and in the editable wheel)."""

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


#: The diffprivlib import hook: a top-level module and the .pth (setup.py's build_pth) that registers it at start-up.
HOOK_MODULE, HOOK_PTH = "_fairdp_diffprivlib_hook", "fairdp_diffprivlib_hook.pth"


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    """A copy of the tree, so setuptools' build/ and egg-info folders never land in the work tree."""
    source = tmp_path_factory.mktemp("src") / "fairdp"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv*", "build", "*.egg-info",
                                                                "__pycache__", "output", ".hypothesis"))
    return source


def _build(source, out, hook):
    """Call a PEP 517 hook of setuptools in a child process (no network, no build isolation)."""
    code = f"from setuptools import build_meta as b; print(b.{hook}({str(out)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    (path,) = out.glob("*.whl")
    return zipfile.ZipFile(path)


@pytest.fixture(scope="module")
def wheel(source, tmp_path_factory):
    return _build(source, tmp_path_factory.mktemp("wheel"), "build_wheel")


@pytest.fixture(scope="module")
def editable_wheel(source, tmp_path_factory):
    return _build(source, tmp_path_factory.mktemp("editable"), "build_editable")


def test_top_level_import_names(wheel):
    names = wheel.namelist()
    tops = {n.split("/")[0] for n in names if not re.match(r"fairdp-[^/]*\.dist-info/", n)}
    assert tops == {"fairlearn_dp", "aif360_dp", "fairdp_adapters", f"{HOOK_MODULE}.py", HOOK_PTH}
    assert not any(n.startswith("adapters/") for n in names)
    top_level = [n for n in names if n.endswith("top_level.txt")]
    if top_level:
        assert set(wheel.read(top_level[0]).decode().split()) == {"fairlearn_dp", "aif360_dp", "fairdp_adapters",
                                                                  HOOK_MODULE}


def test_both_wheels_install_the_hook_pth_at_the_root_of_site_packages(wheel, editable_wheel):
    """The regular and the editable wheel (``pip install -e .``) carry the same .pth at their root (purelib)."""
    line = wheel.read(HOOK_PTH)
    assert line.startswith(b"import ") and line.count(b"\n") == 1 and HOOK_MODULE.encode() in line
    assert editable_wheel.read(HOOK_PTH) == line
    (finder,) = [n for n in editable_wheel.namelist() if n.startswith("__editable__") and n.endswith("finder.py")]
    assert f"'{HOOK_MODULE}':" in editable_wheel.read(finder).decode()       # the editable finder maps the module


def test_every_source_package_is_in_the_wheel(wheel):
    names = set(wheel.namelist())
    for init in list((ROOT / "fairlearn_dp").rglob("__init__.py")) + list((ROOT / "aif360_dp").rglob("__init__.py")):
        assert init.relative_to(ROOT).as_posix() in names
    for module in (ROOT / "adapters").glob("*.py"):
        assert f"fairdp_adapters/{module.name}" in names
    for data in (ROOT / "fairlearn_dp" / "datasets" / "data").iterdir():
        assert f"fairlearn_dp/datasets/data/{data.name}" in names


def test_the_wheel_carries_the_mit_licence_that_pyproject_declares(wheel):
    """LICENSE is the MIT text under the project's copyright, and the wheel ships it and declares it (PEP 639)."""
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 the fairdp developers\n")
    assert "Permission is hereby granted, free of charge" in text and 'THE SOFTWARE IS PROVIDED "AS IS"' in text
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"
    (licence,) = [n for n in wheel.namelist() if re.fullmatch(r"fairdp-[^/]*\.dist-info/licenses/LICENSE", n)]
    assert wheel.read(licence).decode("utf-8") == text
    (metadata,) = [n for n in wheel.namelist() if re.fullmatch(r"fairdp-[^/]*\.dist-info/METADATA", n)]
    headers = wheel.read(metadata).decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers


def test_declared_package_list_matches_the_tree():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = set(config["tool"]["setuptools"]["packages"])
    found = {p.parent.relative_to(ROOT).as_posix().replace("/", ".")
             for top in ("fairlearn_dp", "aif360_dp") for p in (ROOT / top).rglob("__init__.py")}
    assert declared == found | {"fairdp_adapters"}
    # Top-level modules: the hook only (setup.py is the build script, not a module of the distribution).
    assert config["tool"]["setuptools"]["py-modules"] == [HOOK_MODULE]
    assert {p.stem for p in ROOT.glob("*.py")} == {HOOK_MODULE, "setup"}


def _runtime_requirements():
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return [Requirement(d) for d in dependencies]


def test_min_versions_file_pins_every_runtime_dependency_at_its_declared_floor():
    """.ci/run's minimum-versions leg installs exactly the floors of pyproject.toml: the two cannot drift."""
    floors = {}
    for requirement in _runtime_requirements():
        lower = [s.version for s in requirement.specifier if s.operator == ">="]
        assert len(lower) == 1, f"{requirement} needs exactly one floor (>=)"
        assert Version(lower[0]) in requirement.specifier, f"{requirement}: the floor is above the cap"
        floors[canonicalize_name(requirement.name)] = lower[0]
    pins = {}
    for line in (ROOT / ".ci" / "min-versions.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, sep, version = (part.strip() for part in line.partition("=="))
            assert sep and name and version, f"not a 'name==version' pin: {line!r}"
            assert canonicalize_name(name) not in pins, f"pinned twice: {line!r}"
            pins[canonicalize_name(name)] = version
    assert pins == floors
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert any("-c .ci/min-versions.txt" in line and "pytest" in line for line in ci_lines)


def test_fairlearn_and_diffprivlib_are_capped_below_their_next_minor_release():
    """fairdp uses their private internals, so an untested minor release must not be installed."""
    caps = {r.name: [s.version for s in r.specifier if s.operator == "<"] for r in _runtime_requirements()}
    for name in ("fairlearn", "diffprivlib"):
        (cap,) = caps[name]
        assert cap.count(".") == 1, f"{name} is capped at {cap}, not below a minor release"
