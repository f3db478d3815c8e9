"""Write the Sphinx inventories (``objects.inv``, format version 2) of Fairlearn, AIF360 and diffprivlib.

Intersphinx normally downloads a project's ``objects.inv`` from its documentation site; CI reaches no documentation
site, and these three projects have no Debian documentation package that ships one (see ``README.md`` here). This
script builds an equivalent inventory from the INSTALLED package's public names, with the page addresses their
documentation sites use, so ``docs/conf.py`` can link to them offline::

    python docs/_inventories/make_inventory.py            # rewrite fairlearn.inv, aif360.inv, diffprivlib.inv
    python docs/_inventories/make_inventory.py --check    # exit 1 if a committed file differs from a fresh one

Public names: a module's ``__all__`` where it has one (Fairlearn), else the classes and functions that the module
exposes under a public name and defines itself or in a submodule (AIF360 and diffprivlib define no ``__all__``).
``tests/test_docs.py`` checks that the committed files hold exactly the entries a fresh run gives.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import zlib
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Project:
    """One documented project: which modules hold its public names, and where its site puts each name's page."""

    name: str                      # distribution and top-level package
    modules: tuple[str, ...]       # public modules whose names are documented
    page: str                      # page of a name: ``{name}`` (dotted), ``{module}``, ``{module_tail}``
    module_page: str | None = None  # page of a module (None: no module entries)
    root_aliases: bool = False     # also list ``package.Name`` for a name the package root re-exports

    def uri(self, template: str, name: str, module: str) -> str:
        """The page address, relative to the site's base URL (``$`` at the end stands for the name)."""
        return template.format(name=name, module=module, module_tail=module.rsplit(".", 1)[-1])


#: Base URLs are in docs/conf.py (intersphinx_mapping); the page schemes are the sites' own:
#: fairlearn.org/v0.15/api_reference/generated/fairlearn.metrics.MetricFrame.html,
#: aif360.readthedocs.io/en/stable/modules/generated/aif360.datasets.StandardDataset.html,
#: diffprivlib.readthedocs.io/en/latest/modules/accountant.html#diffprivlib.accountant.BudgetAccountant.
PROJECTS = (
    Project("fairlearn",
            ("fairlearn.adversarial", "fairlearn.datasets", "fairlearn.metrics", "fairlearn.postprocessing",
             "fairlearn.preprocessing", "fairlearn.reductions"),
            page="api_reference/generated/{name}.html#$", module_page="api_reference/index.html#module-$"),
    Project("aif360",
            ("aif360.algorithms", "aif360.algorithms.preprocessing", "aif360.algorithms.inprocessing",
             "aif360.algorithms.postprocessing", "aif360.datasets", "aif360.explainers", "aif360.metrics"),
            page="modules/generated/{name}.html#$"),
    Project("diffprivlib", ("diffprivlib.accountant", "diffprivlib.utils"),
            page="modules/{module_tail}.html#{name}", root_aliases=True),
)


def _public_names(module) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    def defined_here(value):           # in the module or one of its submodules, not imported from a sibling
        home = getattr(value, "__module__", "") or ""
        return home == module.__name__ or home.startswith(module.__name__ + ".")

    return [name for name, value in vars(module).items()
            if not name.startswith("_") and (inspect.isclass(value) or inspect.isfunction(value))
            and defined_here(value)]


def _role(value) -> str:
    if inspect.isclass(value):
        return "py:exception" if issubclass(value, BaseException) else "py:class"
    if callable(value):
        return "py:function"
    return "py:data"


def entries(project: Project) -> list[tuple[str, str, str]]:
    """``(name, domain:role, uri)`` of every public name of ``project`` (sorted, no duplicates)."""
    found = {}
    documented = {}
    for module_name in project.modules:
        module = importlib.import_module(module_name)
        if project.module_page:
            found[module_name] = ("py:module", project.uri(project.module_page, module_name, module_name))
        for name in _public_names(module):
            value = getattr(module, name)
            dotted = f"{module_name}.{name}"
            found[dotted] = (_role(value), project.uri(project.page, dotted, module_name))
            documented.setdefault(id(value), found[dotted][1])
    if project.root_aliases:
        root = importlib.import_module(project.name)
        for name, value in vars(root).items():
            if not name.startswith("_") and id(value) in documented and inspect.isclass(value):
                uri = documented[id(value)]
                found[f"{project.name}.{name}"] = (_role(value), uri)
    return sorted((name, role, uri) for name, (role, uri) in found.items())


def inventory_bytes(project: Project) -> bytes:
    """The ``objects.inv`` file of ``project`` (Sphinx inventory version 2: four header lines, then zlib)."""
    header = (f"# Sphinx inventory version 2\n# Project: {project.name}\n# Version: {version(project.name)}\n"
              "# The remainder of this file is compressed using zlib.\n")
    lines = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in entries(project))
    return header.encode() + zlib.compress(lines.encode(), 9)


def read_entries(path: Path) -> list[tuple[str, str, str]]:
    """``(name, domain:role, uri)`` of a version-2 inventory file written by :func:`inventory_bytes`."""
    return read_entries_of_bytes(path.read_bytes())


def read_entries_of_bytes(data: bytes) -> list[tuple[str, str, str]]:
    """``(name, domain:role, uri)`` of the contents of a version-2 inventory written by :func:`inventory_bytes`."""
    header_end = 0
    for _ in range(4):
        header_end = data.index(b"\n", header_end) + 1
    rows = []
    for line in zlib.decompress(data[header_end:]).decode().splitlines():
        name, role, _priority, uri, _display = line.split(" ", 4)
        rows.append((name, role, uri))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    args = parser.parse_args(argv)
    import fairlearn_dp  # noqa: F401  (first: lets diffprivlib import on scikit-learn 1.9, see fairlearn_dp._compat)

    stale = []
    for project in PROJECTS:
        path = HERE / f"{project.name}.inv"
        if args.check:
            if not path.is_file() or read_entries(path) != entries(project):
                stale.append(path.name)
        else:
            path.write_bytes(inventory_bytes(project))
            print(f"wrote {path.name}: {len(entries(project))} entries ({project.name} {version(project.name)})")
    if stale:
        print("stale (run docs/_inventories/make_inventory.py): " + ", ".join(stale))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
