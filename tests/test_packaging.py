"""The wheel installs exactly fairlearn_dp, aif360_dp and fairdp_adapters, with every subpackage and data file."""

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # Build from a copy so setuptools' build/ and egg-info folders never land in the work tree; call the PEP 517
    # hook in a child process (no network, no build isolation).
    source = tmp_path_factory.mktemp("src") / "fairdp"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info",
                                                                "__pycache__", "output"))
    code = f"from setuptools import build_meta as b; print(b.build_wheel({str(out)!r}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=source, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-2000:]
    (path,) = out.glob("*.whl")
    return zipfile.ZipFile(path)


def test_top_level_import_names(wheel):
    names = wheel.namelist()
    tops = {n.split("/")[0] for n in names if not re.match(r"fairdp-[^/]*\.dist-info/", n)}
    assert tops == {"fairlearn_dp", "aif360_dp", "fairdp_adapters"}
    assert not any(n.startswith("adapters/") for n in names)
    top_level = [n for n in names if n.endswith("top_level.txt")]
    if top_level:
        assert set(wheel.read(top_level[0]).decode().split()) == tops


def test_every_source_package_is_in_the_wheel(wheel):
    names = set(wheel.namelist())
    for init in list((ROOT / "fairlearn_dp").rglob("__init__.py")) + list((ROOT / "aif360_dp").rglob("__init__.py")):
        assert init.relative_to(ROOT).as_posix() in names
    for module in (ROOT / "adapters").glob("*.py"):
        assert f"fairdp_adapters/{module.name}" in names
    for data in (ROOT / "fairlearn_dp" / "datasets" / "data").iterdir():
        assert f"fairlearn_dp/datasets/data/{data.name}" in names


def test_declared_package_list_matches_the_tree():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = set(config["tool"]["setuptools"]["packages"])
    found = {p.parent.relative_to(ROOT).as_posix().replace("/", ".")
             for top in ("fairlearn_dp", "aif360_dp") for p in (ROOT / top).rglob("__init__.py")}
    assert declared == found | {"fairdp_adapters"}
