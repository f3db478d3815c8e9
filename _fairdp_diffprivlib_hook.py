"""Make ``import diffprivlib`` work as a program's first line on scikit-learn 1.9 (installed with fairdp).

diffprivlib 0.6.6 cannot be imported before fairdp on scikit-learn 1.9 (see :mod:`fairlearn_dp._compat`). The fairdp
distribution installs ``fairdp_diffprivlib_hook.pth`` at the root of site-packages; at interpreter start-up that
file calls :func:`install`, which puts one finder at the front of ``sys.meta_path`` and imports nothing else (no
numpy, no scikit-learn: start-up costs about what reading the one small module costs). The first time anything
imports ``diffprivlib``, the finder runs :func:`fairlearn_dp._compat.ensure_diffprivlib_importable` -- the one
compatibility shim, which defines the two missing names only where scikit-learn lacks them -- and returns None, so
the ordinary import of diffprivlib proceeds. After that the finder does nothing.

If fairdp's engine cannot be imported (a moved source checkout of an editable install, say), the finder steps
aside and diffprivlib's import runs as it would without fairdp. The ``.pth`` line itself swallows every error, so a
broken environment never breaks the start-up of other Python programs. In an editable install this module is found
through setuptools' ``__editable__.fairdp-*.pth`` finder, which start-up registers first (``site`` reads ``.pth``
files in name order, and ``_`` sorts before ``f``).
"""

import sys

__all__ = ["install"]

_DIFFPRIVLIB = "diffprivlib"


class _DiffprivlibFinder:
    """A ``sys.meta_path`` finder that finds nothing: it runs fairdp's shim before diffprivlib's first import."""

    done = False

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        # Only the top-level name: ``import diffprivlib.x`` imports ``diffprivlib`` first. The finder stays in
        # sys.meta_path (removing it while the import system iterates that list would skip the next finder).
        if fullname == _DIFFPRIVLIB and not cls.done:
            cls.done = True
            _run_shim()
        return None


def _run_shim():
    try:
        from fairlearn_dp._compat import ensure_diffprivlib_importable
    except ImportError:
        return  # fairdp's engine is not importable here: diffprivlib's own import reports what it reports
    ensure_diffprivlib_importable()


def install():
    """Put the finder at the front of ``sys.meta_path`` (once; idempotent). Imports nothing."""
    if _DIFFPRIVLIB in sys.modules or _DiffprivlibFinder in sys.meta_path:
        return
    sys.meta_path.insert(0, _DiffprivlibFinder)
