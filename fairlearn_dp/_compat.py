"""Compatibility with the users' current stack (scikit-learn 1.6-1.9, pandas 2-3): one private module.

diffprivlib 0.6.6 imports ``DOUBLE`` and ``DTYPE`` from ``sklearn.tree._tree`` (in its random-forest model) when it
is first imported; scikit-learn 1.9 no longer defines them, so ``import diffprivlib`` fails there. fairdp uses only
diffprivlib's mechanisms, accountant and utilities, none of which touch those names. Before diffprivlib's first
import, :func:`ensure_diffprivlib_importable` defines the two names with the values older scikit-learn gave them
(``float64`` and ``float32``: the tree code's double and feature dtypes), and only when they are missing. It installs
no warning filter and changes nothing on scikit-learn < 1.9.

scikit-learn's private ``_num_samples`` (the number of rows of any array-like, as scikit-learn's own checks count
them) is imported here only, as :func:`num_samples`.

``import fairlearn_dp`` runs it; so does the installed import hook (the top-level ``_fairdp_diffprivlib_hook``, which
``fairdp_diffprivlib_hook.pth`` registers at start-up) when a program imports ``diffprivlib`` first. Without an
installation (the source tree on ``PYTHONPATH``, or ``python -S``), import ``fairlearn_dp`` (or any fairdp package)
before ``diffprivlib``, or take the accountant from ``fairlearn_dp.privacy.BudgetAccountant`` (the same class).
"""

from __future__ import annotations

from sklearn.utils.validation import _num_samples as num_samples

__all__ = ["ensure_diffprivlib_importable", "num_samples", "lay_out_as_estimator"]


def ensure_diffprivlib_importable():
    """Define ``sklearn.tree._tree.DOUBLE``/``DTYPE`` if scikit-learn no longer does (1.9+). Idempotent."""
    import numpy as np
    import sklearn.tree._tree as tree_module

    if not hasattr(tree_module, "DOUBLE"):
        tree_module.DOUBLE = np.float64
    if not hasattr(tree_module, "DTYPE"):
        tree_module.DTYPE = np.float32


ensure_diffprivlib_importable()


def lay_out_as_estimator(repr_function):
    """Have scikit-learn's pretty printer lay out an estimator whose class defines ``repr_function`` as its
    ``__repr__`` exactly as it lays out any estimator (line wrapping, a nested estimator in a ``Pipeline``).

    The printer picks its layout by ``type(obj).__repr__`` (``sklearn.utils._pprint._EstimatorPrettyPrinter``'s
    table, stable since scikit-learn 0.21); a class that appends to scikit-learn's repr registers its ``__repr__``
    here, so that its parameter part, and its repr when nested, stay scikit-learn's. Returns ``repr_function``.
    """
    from sklearn.utils._pprint import _EstimatorPrettyPrinter

    table = getattr(_EstimatorPrettyPrinter, "_dispatch", None)
    if isinstance(table, dict):
        table[repr_function] = _EstimatorPrettyPrinter._pprint_estimator
    return repr_function
