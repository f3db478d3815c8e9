"""Data transforms on feature rows (not validation): clipping rows onto a public norm ball."""

from __future__ import annotations

import numpy as np

__all__ = ["clip_rows"]


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
