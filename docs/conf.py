"""Sphinx configuration of the fairdp documentation site.

Build (warnings are errors)::

    pip install -e ".[docs]" && python -m sphinx -W -b html docs docs/_build/html

The gallery is built from ``docs/gallery_src/`` (small scripts: the quickstart runs in about 3 s, the reproduction
pages load the figures and tables the example scripts stored in ``docs/img/``). The reproductions themselves
(``examples/*.py``) are long-running and are never executed by the build.
"""

import os
import re
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
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

# Markdown pages (MyST): the user-guide pages moved out of the README keep their Markdown.
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3

exclude_patterns = ["_build", "img", "gallery_src", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
default_role = "literal"          # `x` in our own pages and docstrings renders as code, as in the README
nitpicky = False                  # third-party types in docstrings (array-like, BudgetAccountant, ...) have no targets

# ---- API reference: autosummary stubs under docs/generated/ (git-ignored, rewritten on every build) --------------
autosummary_generate = True
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
    lines[:] = GoogleDocstring(lines, config, app, what, name, obj, options).lines()


_SKLEARN_REQUEST_METHOD = re.compile(r"set_\w+_request")


def _skip_sklearn_request_methods(app, what, name, obj, skip, options):
    """``set_fit_request`` & co. are generated by scikit-learn's metadata routing (documented there, not here)."""
    if _SKLEARN_REQUEST_METHOD.fullmatch(name):
        return True
    return None


def setup(app):
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
