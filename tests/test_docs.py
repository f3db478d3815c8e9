"""The documentation site builds with warnings as errors (issue 15), and its API reference covers every public name.

Build command (also in docs/conf.py): ``python -m sphinx -W -b html docs docs/_build/html``. The gallery executes
only docs/gallery_src/ (the quickstart fit and readers of stored outputs), never the reproductions in examples/.
Marked ``docs``; skipped unless the ``[docs]`` extra is installed. ``.ci/run`` runs ``pytest -m docs``.
"""

import importlib
import re
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

pytestmark = pytest.mark.docs

#: Every public module and the API page that must list its ``__all__``.
PUBLIC_MODULES = [
    "fairlearn_dp.postprocessing", "fairlearn_dp.reductions", "fairlearn_dp.allocation", "fairlearn_dp.metrics",
    "fairlearn_dp.privacy", "fairlearn_dp.exceptions", "fairlearn_dp.datasets", "fairlearn_dp.audit",
    "aif360_dp.algorithms.postprocessing", "aif360_dp.algorithms.inprocessing", "aif360_dp.datasets", "aif360_dp.metrics",
    "fairdp_adapters.registry", "fairdp_adapters.reporting", "fairdp_adapters.cli",
]


def _api_sections():
    """{module: text of its section in docs/api.rst}."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    parts = re.split(r"^\.\. currentmodule:: (\S+)$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


@pytest.mark.parametrize("module", PUBLIC_MODULES)
def test_api_reference_lists_every_public_name(module):
    sections = _api_sections()
    assert module in sections, f"docs/api.rst has no section for {module}"
    listed = set(re.findall(r"^   (\w+)$", sections[module], flags=re.M))
    listed |= set(re.findall(r":obj:`~[\w.]+\.(\w+)`", sections[module]))      # re-exports named in the text
    missing = [name for name in importlib.import_module(module).__all__ if name not in listed]
    assert not missing, f"{module}.__all__ names missing from docs/api.rst: {missing}"
    entries = set(re.findall(r"^   (\w+)$", sections[module], flags=re.M))
    extra = sorted(entries - set(importlib.import_module(module).__all__))
    assert not extra, f"docs/api.rst lists names that {module} does not export: {extra}"


#: Raw reST that Sphinx passes through as text when the markup is malformed (``-W`` does not catch it): an inline
#: literal's double backticks, a role, a link reference.
RAW_REST = re.compile(r"``|:(?:class|func|meth|attr|mod|obj|data|exc|ref|doc|term|math|py:\w+):`|\w`__?(?!\w)")


class _VisibleText(HTMLParser):
    """The text a reader sees on a page: everything outside code blocks (``<pre>``), scripts and styles."""

    HIDDEN = {"pre", "script", "style", "textarea"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.chunks = []

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag):
        self.hidden -= tag in self.HIDDEN and self.hidden > 0

    def handle_data(self, data):
        if not self.hidden:
            self.chunks.append(data)


def raw_rest_in_pages(html):
    """``[(page, excerpt), ...]``: raw reST in the visible text of the built pages under ``html``."""
    found = []
    for page in sorted(html.rglob("*.html")):
        if {"_sources", "_modules"} & set(page.relative_to(html).parts):
            continue
        parser = _VisibleText()
        parser.feed(page.read_text(encoding="utf-8"))
        text = "".join(parser.chunks)
        found += [(str(page.relative_to(html)), " ".join(text[max(m.start() - 50, 0):m.end() + 30].split()))
                  for m in RAW_REST.finditer(text)]
    return found


def test_raw_rest_check_finds_malformed_markup(tmp_path):
    """The check below sees what a reader sees: markup outside code blocks, not a code block's backticks."""
    (tmp_path / "bad.html").write_text("<p>Works on <code>BinaryLabelDataset``s (e.g.</code> :class:`X`</p>"
                                       "<p>see `the docs`_ here</p>")
    (tmp_path / "good.html").write_text("<p>At <code>epsilon=inf</code></p><pre>x = ``literal`` :class:`Y`</pre>"
                                        "<script>var a = '``';</script>")
    found = raw_rest_in_pages(tmp_path)
    assert {page for page, _ in found} == {"bad.html"}
    assert len(found) == 3, found


def test_docs_build_without_warnings(tmp_path):
    for name in ("sphinx", "pydata_sphinx_theme", "numpydoc", "sphinx_gallery"):
        pytest.importorskip(name)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(tmp_path / "doctrees"),
         str(DOCS), str(tmp_path / "html")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, f"sphinx -W failed ({elapsed:.0f} s):\n{proc.stderr[-6000:]}"
    html = tmp_path / "html"
    for page in ("index.html", "api.html", "performance.html", "migration.html", "data.html", "design.html",
                 "development.html", "user_guide/index.html", "user_guide/regression.html", "auto_examples/index.html",
                 "auto_examples/plot_0_quickstart.html", "auto_scripts/index.html"):
        assert (html / page).is_file(), page
    # every script of examples/ has a page in the second gallery (rendered with its code, not executed)
    for script in sorted((ROOT / "examples").glob("*.py")):
        assert (html / "auto_scripts" / f"{script.stem}.html").is_file(), script.name
    # the stored reproduction figures are on the gallery pages
    assert (html / "_images" / "xian2024_fig2_tradeoffs.png").is_file()
    # the API page's references to Fairlearn, AIF360 and scikit-learn classes are links (intersphinx, issue 34)
    api = (html / "api.html").read_text(encoding="utf-8")
    for page in ("https://fairlearn.org/v0.15/api_reference/generated/fairlearn.metrics.MetricFrame.html",
                 "https://aif360.readthedocs.io/en/stable/modules/generated/aif360.metrics.ClassificationMetric.html",
                 "https://scikit-learn.org/stable/modules/generated/sklearn.utils.Bunch.html"):
        assert f'href="{page}#' in api, page
    # no malformed markup shows as raw reST (Sphinx renders it as text without a warning)
    raw = raw_rest_in_pages(html)
    assert not raw, "raw reST in the built pages:\n" + "\n".join(f"{page}: {excerpt}" for page, excerpt in raw)
