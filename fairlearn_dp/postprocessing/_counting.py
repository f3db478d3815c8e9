"""The counting step of the post-processors' ``fit``, with an in-memory and a Dask backend, and its one release.

Both post-processors read their data only through one table of counts (docs/design.md, "The order inside fit"
and "Scale"). Their ``fit`` validates the public inputs and checks the budget
(:meth:`~fairlearn_dp._utils._fit_order.PrivateFitMixin.check_public_inputs`), reads the domain (the base
estimator, the groups, the public grid), then builds ``cell_index(x, y, sensitive_features)``: the flat cell index
of each row, with the per-row domain checks and their messages (a partial of a module-level function over a light
copy of the estimator, so that it can be shipped to Dask workers). A backend counts::

    counts, n = backend(cell_index, n_cells, X, y, sensitive_features)

- :func:`count_cells_in_memory`: ``cell_index`` on all rows, then :func:`numpy.bincount`;
- :func:`~._distributed.count_cells_dask`: ``cell_index`` on every aligned partition on the Dask workers, the
  partition counts summed in a tree there.

Both return integer counts, equal for the same rows whatever the partitioning; :func:`release_counts` then
releases ``counts / n`` once, through :func:`fairlearn_dp.privacy._release.release_joint_counts` (the same
noise for the same ``random_state`` whichever backend counted). Backends receive callables and return counts: they read and set nothing of the estimators.
"""

from __future__ import annotations

import numpy as np

from .._utils._dask import is_dask_input
from ..privacy._release import release_joint_counts
from ._distributed import check_layout, count_cells_dask

__all__ = ["count_cells_in_memory", "count_cells_dask", "counting_backend", "check_layout", "is_dask_input",
           "release_counts", "require_declared_groups", "require_prefit_or_none"]


def require_declared_groups(groups):
    """The public rule of Dask inputs: ``groups`` declared (the list of groups is not read off distributed data)."""
    if groups is None:
        raise ValueError("groups=[...] is required with Dask inputs: the public list of groups is not read off "
                         "distributed data. Declare every group the data may hold.")


def require_prefit_or_none(estimator, prefit):
    """The public rule of Dask inputs: the base ``estimator`` prefit or None (it is not fitted on distributed data)."""
    if estimator is not None and not prefit:
        raise ValueError("With Dask inputs the estimator must be prefit (prefit=True; its predict method then runs "
                         "on every partition) or None (X holds its outputs): fitting it on distributed data is not "
                         "supported.")


def count_cells_in_memory(cell_index, n_cells, X, y, sensitive_features):
    """The in-memory backend: ``(counts, n)``, the integer count of each of the ``n_cells`` cells of
    ``cell_index(X, y, sensitive_features)`` and the number of rows.
    """
    cells = np.asarray(cell_index(X, y, sensitive_features), dtype=np.intp)
    return np.bincount(cells, minlength=n_cells), cells.size


def counting_backend(X, y, sensitive_features):
    """The backend for these inputs: Dask's when any of them is a Dask collection, else the in-memory one."""
    return count_cells_dask if is_dask_input(X, y, sensitive_features) else count_cells_in_memory


def release_counts(counts, n, *, epsilon, delta, accountant, random_state):
    """The one release of a fit: ``counts / n`` with noise at the joint histogram's sensitivity, charged once
    (:func:`fairlearn_dp.privacy._release.release_joint_counts`). Returns ``(noisy, spend)``, shaped as ``counts``.
    """
    if n < 1:
        raise ValueError("Cannot release a histogram of an empty dataset.")
    return release_joint_counts(counts, n, epsilon=epsilon, delta=delta, accountant=accountant,
                                random_state=random_state)
