"""Rows (not validation): the count of an input's rows, and clipping feature rows onto a public norm ball."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._compat import num_samples
from ._dask import is_dask_collection

__all__ = ["n_rows", "clip_rows"]


def n_rows(data: Any) -> Any:
    """Number of rows of ``data``: a Dask collection's ``shape[0]`` (known chunks: an int; nothing is computed),
    else scikit-learn's count (numpy, pandas, lists); None when ``data`` has no rows (a scalar, None).
    """
    if is_dask_collection(data):
        return data.shape[0]
    try:
        return num_samples(data)
    except TypeError:
        return None


def clip_rows(M, bound, norm_ord=2):
    """Rows of ``M`` with a norm above the public ``bound`` scaled onto the ball; silently (Privacy: the caller
    knows only the bound, and a warning would tell whether the private data exceed it).
    """
    norms = np.linalg.norm(M, ord=norm_ord, axis=1)
    over = norms > bound
    if not over.any():
        return M
    M = M.copy()
    M[over] *= (bound / norms[over])[:, None]
    return M
