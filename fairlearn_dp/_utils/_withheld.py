"""Calls whose errors are withheld: third-party code run on private data raises errors that carry nothing of them."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._compat import num_samples

__all__ = ["call_withheld", "call_on_private_rows", "call_total_on_private_rows", "rows_accepted_by"]


def call_on_private_rows(method, X, what):
    """``method(X)`` for third-party code (a prefit model's ``predict``/``predict_proba``) run on the private fitting
    rows before the release: its warnings are suppressed and an exception is replaced by one that names ``what``
    but not the original message. Their messages may quote values of the rows (e.g. an encoder's "unknown
    categories ['...']"), and a warning turned into an error would abort the fit before the charge. A failure
    remains a domain error (rows the prefit model cannot process), like a NaN, with a message that carries no data.
    Where the rows themselves are private (a record-level unit) a failure would answer a question about one record:
    there :func:`call_total_on_private_rows` is used instead.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call_withheld(method, X, replace=((Exception, ValueError(
            f"{what} failed on the fitting rows; its message is withheld because it could quote the private data "
            "(check that these rows are in the model's domain).")),))


def call_withheld(function, *args, replace, **kwargs):
    """``function(*args, **kwargs)``, with the exceptions it raises on private data replaced by errors that carry
    nothing of them.

    ``replace`` is a sequence of ``(exception types, error)`` pairs; the first pair whose types match the exception
    raised gives the error raised instead (an exception matching no pair propagates unchanged). The replacement is
    raised *outside* the ``except`` block, after the block has dropped the original: it is neither the new error's
    ``__context__`` nor its ``__cause__``, and no frame of the traceback holds it, so a logger or an error tracker
    that walks the chain cannot read its message (``raise ... from None`` only hides the context from the printed
    traceback: it stays in ``__context__``).
    """
    replacement = None
    try:
        return function(*args, **kwargs)
    except Exception as error:          # ``error`` is unbound when the block ends; only the replacement is kept
        for types, new in replace:
            if isinstance(error, types):
                replacement = new
                break
        else:
            raise
    raise replacement


def call_total_on_private_rows(function, X, what, *, default, row_shape=None, valid=None):
    """``function(X)`` as a float array, made total row by row: a row on which ``function`` raises, or whose output
    ``valid`` rejects (default: not finite), gets the public ``default`` output instead.

    For user or third-party code run on private records (a prefit model's scores, a Pipeline's declared
    preprocessing) under a record-level unit: whether such code fails on a row is a predicate of that row, so a fit
    that failed on one dataset and not on its neighbour would answer it, charged or not. ``function`` must be
    row-wise (each output row depends on its input row alone); the default is then a function of each row alone,
    so under substitution neighbours one record still changes one output row and the sensitivity of what is
    computed from the outputs is unchanged. Nothing tells how many rows were replaced (no warning, attribute or
    message): warnings of ``function`` are suppressed.

    ``function`` is called on the whole batch first; only if that raises are the failing rows found by bisection
    (about ``2 k log2 n`` calls for ``k`` failing rows). ``row_shape`` is the public shape of one output row
    (``()`` for one value per row), or a callable returning it (or None), called only when no row gives one;
    None takes it from the outputs (a ``ValueError`` naming ``what`` if no row
    gives one, or if rows give different shapes: ``function`` is then not row-wise). ``valid`` maps the
    ``(n, *row_shape)`` outputs to a boolean mask of the rows to keep.
    """
    n = num_samples(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pieces = _outputs_by_bisection(function, X, np.arange(n), whole=True)
    shapes = {out.shape[1:] for _, out in pieces if out is not None}
    if row_shape is None and len(shapes) == 1:
        row_shape = shapes.pop()
    elif callable(row_shape):           # a public shape, asked only when no row gave one
        row_shape = shapes.pop() if len(shapes) == 1 else row_shape()
    if row_shape is None or any(shape != tuple(row_shape) for shape in shapes):
        raise ValueError(f"{what} gave no output row of a single public shape on the fitting rows (it must map each "
                         "row on its own to an output of one shape); its messages are withheld because they could "
                         "quote the private data.")
    result = np.empty((n, *row_shape))
    result[...] = default               # the rows on which the call failed keep it
    for index, out in pieces:
        if out is not None:
            result[index] = out
    keep = np.all(np.isfinite(result.reshape(n, -1)), axis=1) if valid is None else np.asarray(valid(result), bool)
    result[~keep] = default
    return result


def rows_accepted_by(function, X):
    """Indices of the rows of ``X`` on which ``function`` (e.g. a declared step's ``fit``) does not raise, found as
    :func:`call_total_on_private_rows` finds them (whole batch first, then bisection); warnings suppressed.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pieces = _outputs_by_bisection(lambda rows: (function(rows), np.zeros(num_samples(rows)))[1], X,
                                       np.arange(num_samples(X)), whole=True)
    return np.concatenate([index for index, out in pieces if out is not None] or [np.arange(0)])


def _outputs_by_bisection(function, X, index, *, whole=False):
    """``[(row indices, their outputs or None)]`` covering ``index``: None for a single row on which ``function``
    raises or gives no float output of one row (the exception is dropped, never kept).
    """
    try:
        out = _as_float_rows(function(X if whole else take_rows(X, index)), index.size)
    except Exception:                   # any failure of the user code on these rows: split them
        out = None
    if out is not None or index.size <= 1:
        return [(index, out)]
    half = index.size // 2
    return _outputs_by_bisection(function, X, index[:half]) + _outputs_by_bisection(function, X, index[half:])


def _as_float_rows(out, n_rows):
    """``out`` as a dense float array with ``n_rows`` rows, or None."""
    if sp.issparse(out):
        out = out.toarray()
    out = np.asarray(out.to_numpy() if hasattr(out, "to_numpy") else out, dtype=float)
    return out if out.ndim >= 1 and out.shape[0] == n_rows else None


def take_rows(X, index):
    """The rows ``index`` of ``X`` (a DataFrame or Series by position, a sparse matrix, an array or a list)."""
    if hasattr(X, "iloc"):
        return X.iloc[index]
    if sp.issparse(X) or isinstance(X, np.ndarray):
        return X[index]
    return [X[i] for i in index]
