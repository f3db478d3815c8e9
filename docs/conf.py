"""Sphinx configuration of the fairdp documentation site.

Build (warnings are errors)::

    pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html

The gallery is built from ``docs/gallery_src/`` (small scripts: the quickstart runs in about 3 s, the reproduction
pages load the figures and tables the example scripts stored in ``docs/img/``). The reproductions themselves
(``examples/*.py``) are long-running and are never executed by the build.
"""

import os
import re
import shutil
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# Matplotlib without a display; BLAS on one thread (a shared 2-core machine, see docs/development.md).
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import warnings  # noqa: E402

# numpydoc's signature handler parses raw docstrings and warns about the "Privacy" section, which
# _privacy_section_into_notes (below) renders; nothing else is filtered.
warnings.filterwarnings("ignore", message=r"Unknown section Privacy", category=UserWarning)

import fairlearn_dp  # noqa: E402,F401  (first: installs the scikit-learn 1.9 shim before diffprivlib is imported)

project = "fairdp"
author = "fairdp contributors"
copyright = "fairdp contributors"
try:
    from importlib.metadata import version as _version

    release = _version("fairdp")
except Exception:  # pragma: no cover - not installed: the docs still build from the source tree
    release = "0.1.0"
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

# Markdown pages (MyST): the user-guide pages moved out of the README keep their Markdown.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath", "amsmath"]   # rendered math on the privacy-analysis pages

exclude_patterns = ["_build", "img", "gallery_src", "_inventories", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
default_role = "literal"          # `x` in our own pages and docstrings renders as code, as in the README

# ---- cross-references: every reference must resolve (-W turns a broken one into an error) ----------------------------
nitpicky = True
# Words of a type description that are not names (napoleon turns the AIF360 faces' Google-style "(float, optional)"
# into a type field, whose every word Sphinx tries to resolve); nothing else is ignored.
nitpick_ignore = [("py:class", "optional"), ("py:class", "classifier")]

# The other projects' inventories are files in docs/_inventories/ (CI reaches no documentation site): Python,
# scikit-learn and SciPy from Debian's documentation packages, Fairlearn, AIF360 and diffprivlib written from the
# installed packages by docs/_inventories/make_inventory.py (origins, versions, licences: docs/_inventories/README.md).
# The links point to the online sites.
_INVENTORIES = DOCS / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(_INVENTORIES / "python.inv")),
    "sklearn": ("https://scikit-learn.org/stable/", str(_INVENTORIES / "sklearn.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy/", str(_INVENTORIES / "scipy.inv")),
    "fairlearn": ("https://fairlearn.org/v0.15/", str(_INVENTORIES / "fairlearn.inv")),   # fairlearn is capped < 0.16
    "aif360": ("https://aif360.readthedocs.io/en/stable/", str(_INVENTORIES / "aif360.inv")),
    "diffprivlib": ("https://diffprivlib.readthedocs.io/en/latest/", str(_INVENTORIES / "diffprivlib.inv")),
}
intersphinx_timeout = 1                     # never used: every inventory above is a local file

# ---- API reference: autosummary stubs under docs/generated/ (git-ignored, rewritten on every build) --------------
autosummary_generate = True
# Stubs of names no longer documented (a class moved or renamed) would stay behind and fail the -W build: start from
# an empty folder; autosummary writes every current stub again.
shutil.rmtree(DOCS / "generated", ignore_errors=True)
autosummary_imported_members = True
autodoc_default_options = {}              # members are listed by docs/_templates/autosummary/class.rst
autodoc_typehints = "none"        # numpydoc sections carry the types
autoclass_content = "class"

# ---- numpydoc ------------------------------------------------------------------------------------------------------
# The docstrings follow Fairlearn's numpydoc style; the style checks (GL01, SS05, ...) are not enforced by this build.
numpydoc_validation_checks = set()
numpydoc_show_class_members = False   # members are listed by the autosummary class template instead
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False


def _privacy_section_into_notes(app, what, name, obj, options, lines):
    """Keep the ``Privacy`` section of our docstrings (every DP class has one, see docs/design.md).

    numpydoc knows a fixed set of section names and drops any other with a UserWarning, so before numpydoc parses
    the docstring this moves the ``Privacy`` section to the end of ``Notes`` (created when absent) under a
    ``Privacy`` rubric. Runs before numpydoc's own ``autodoc-process-docstring`` handler (lower priority value).
    """
    header = [i for i in range(len(lines) - 1)
              if lines[i].strip() == "Privacy" and re.fullmatch(r"-{3,}", lines[i + 1].strip() or "x")]
    if not header:
        return
    start = header[0]

    def is_section(i):
        return (i + 1 < len(lines) and lines[i].strip() and re.fullmatch(r"-{3,}", lines[i + 1].strip() or "x")
                and len(lines[i + 1].strip()) >= len(lines[i].strip()) - 1 and not lines[i].startswith(" "))

    end = next((i for i in range(start + 2, len(lines)) if is_section(i)), len(lines))
    body = lines[start + 2:end]
    del lines[start:end]
    block = ["", ".. rubric:: Privacy", ""] + body + [""]
    notes = next((i for i in range(len(lines)) if is_section(i) and lines[i].strip() == "Notes"), None)
    if notes is None:
        # a new Notes section where numpydoc expects it: before References/Examples, else at the end
        after = next((i for i in range(len(lines)) if is_section(i) and lines[i].strip() in ("References", "Examples")),
                     len(lines))
        lines[after:after] = ["Notes", "-----", ".. rubric:: Privacy", ""] + body + [""]
        return
    notes_end = next((i for i in range(notes + 2, len(lines)) if is_section(i)), len(lines))
    lines[notes_end:notes_end] = block


# The AIF360 faces (aif360_dp.algorithms.*) document their constructors in AIF360's own Google style ("Args:"), as
# AIF360's classes do; napoleon turns those into field lists before numpydoc reads the docstring. Only there: the
# numpydoc docstrings elsewhere are left to numpydoc.
_GOOGLE_SECTION = re.compile(r"\s*(Args|Arguments|Returns|Raises|Attributes|Yields):\s*$")


def _google_style_aif360_faces(app, what, name, obj, options, lines):
    if not name.startswith("aif360_dp.") or not any(_GOOGLE_SECTION.fullmatch(line) for line in lines):
        return
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring

    config = Config(napoleon_use_param=True, napoleon_use_rtype=True, napoleon_use_ivar=True)
    lines[:] = [_qualify_aif360_types(line) for line in GoogleDocstring(lines, config, app, what, name, obj,
                                                                          options).lines()]


# AIF360's docstrings name its dataset classes unqualified ("dataset (BinaryLabelDataset)"), as the faces do; in a
# type field Sphinx resolves only full names against AIF360's inventory.
_AIF360_DATASET_TYPE = re.compile(
    r"(?<![\w.~])(BinaryLabelDataset|RegressionDataset|StructuredDataset|StandardDataset)\b")


def _qualify_aif360_types(line):
    if not line.lstrip().startswith((":type ", ":rtype:", ":vartype ")):
        return line
    return _AIF360_DATASET_TYPE.sub(r"~aif360.datasets.\1", line)


_SKLEARN_REQUEST_METHOD = re.compile(r"set_\w+_request")


def _skip_sklearn_request_methods(app, what, name, obj, skip, options):
    """``set_fit_request`` & co. are generated by scikit-learn's metadata routing (documented there, not here)."""
    if _SKLEARN_REQUEST_METHOD.fullmatch(name):
        return True
    return None


#: Our public modules (the sections of docs/api.rst): a class of ours in a "Bases:" line is named where it is documented.
_OUR_PUBLIC_MODULES = re.findall(r"^\.\. currentmodule:: (\S+)$", (DOCS / "api.rst").read_text(encoding="utf-8"),
                                 flags=re.M)
#: Where the other projects document the classes ours derive from (their defining modules are private or internal:
#: fairlearn.postprocessing._threshold_optimizer, aif360.algorithms.transformer, ...).
_THIRD_PARTY_PUBLIC_MODULES = ("fairlearn.postprocessing", "fairlearn.reductions", "fairlearn.metrics",
                               "aif360.algorithms", "aif360.datasets", "aif360.metrics", "sklearn.base",
                               "diffprivlib.accountant")
_OURS = ("fairlearn_dp", "aif360_dp", "fairdp_adapters")


def _public_home(cls, modules):
    import importlib

    for module in modules:
        if getattr(importlib.import_module(module), cls.__name__, None) is cls:
            return f"{module}.{cls.__name__}"
    return None


def _public_bases(bases, linkable):
    """``bases`` with each class named where it is documented; a private class of ours (a mixin or base the API
    reference does not document) is replaced by its own bases. A third-party class that no inventory documents
    (``linkable(name)`` false; e.g. ``sklearn.base.MetaEstimatorMixin``, not in scikit-learn 1.2's inventory) is
    shown as code, not as a broken link."""
    shown = []
    for base in bases:
        if not isinstance(base, type) or base is object:
            shown.append(base)
            continue
        ours = base.__module__.split(".", 1)[0] in _OURS
        home = _public_home(base, _OUR_PUBLIC_MODULES if ours else _THIRD_PARTY_PUBLIC_MODULES)
        entry = None
        if ours and home is None:
            shown.extend(entry for entry in _public_bases(list(base.__bases__), linkable) if entry not in shown)
        elif ours or linkable(home or f"{base.__module__}.{base.__qualname__}"):
            entry = f":py:class:`~{home or base.__module__ + '.' + base.__qualname__}`"
        else:
            entry = f"``{home or base.__module__ + '.' + base.__qualname__}``"
        if entry is not None and entry not in shown:
            shown.append(entry)
    return [entry for entry in shown if entry is not object] or [object]


def _document_public_bases(app, name, obj, options, bases):
    from sphinx.ext.intersphinx import InventoryAdapter

    inventory = InventoryAdapter(app.env).main_inventory

    def linkable(dotted):
        return any(dotted in inventory.get(role, {}) for role in ("py:class", "py:exception"))

    bases[:] = _public_bases(bases, linkable)


def _qualify_diffprivlib_references(app, what, name, obj, options, lines):
    """diffprivlib's docstrings (``fairlearn_dp.privacy.BudgetAccountant`` is its class) write ``:class:`.BudgetError```,
    a suffix search that finds only objects of this site; the full name resolves against its inventory."""
    if getattr(obj, "__module__", "").startswith("diffprivlib"):
        lines[:] = [line.replace(":class:`.BudgetError`", ":class:`~diffprivlib.utils.BudgetError`") for line in lines]


def setup(app):
    app.connect("autodoc-process-bases", _document_public_bases)
    app.connect("autodoc-process-docstring", _qualify_diffprivlib_references)
    app.connect("autodoc-process-docstring", _google_style_aif360_faces, priority=90)
    app.connect("autodoc-process-docstring", _privacy_section_into_notes, priority=100)
    app.connect("autodoc-skip-member", _skip_sklearn_request_methods)


# ---- sphinx-gallery ------------------------------------------------------------------------------------------------
# Only the small scripts in docs/gallery_src/ are executed (plot_*.py: the quickstart fit and loaders of the stored
# reproduction outputs in docs/img/); examples/ holds the full reproductions (minutes to hours) and is not read here.
sphinx_gallery_conf = {
    # Two galleries: the reproduction results (docs/gallery_src, small pages that read the stored outputs; executed)
    # and the example scripts themselves (examples/, rendered with their code, never executed: they run minutes).
    "examples_dirs": [str(DOCS / "gallery_src"), str(ROOT / "examples")],
    "gallery_dirs": ["auto_examples", "auto_scripts"],
    "filename_pattern": r"/plot_",
    "plot_gallery": "True",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": True,
    "show_signature": False,
    "min_reported_time": 1,
}

# ---- HTML ------------------------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = "fairdp"
html_static_path = []
html_theme_options = {
    "navbar_end": ["navbar-icon-links"],
    "secondary_sidebar_items": ["page-toc"],
    "show_prev_next": False,
    "navigation_with_keys": False,
}
html_sidebars = {"index": [], "performance": [], "migration": []}
html_show_sourcelink = False
