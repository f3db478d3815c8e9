"""Calls whose errors are withheld: third-party code run on private data raises errors that carry nothing of them."""

from __future__ import annotations

import warnings

__all__ = ["call_withheld", "call_on_private_rows"]


def call_on_private_rows(method, X, what):
    """``method(X)`` for third-party code (a prefit model's ``predict``/``predict_proba``) run on the private fitting
    rows before the release: its warnings are suppressed and an exception is replaced by one that names ``what``
    but not the original message. Their messages may quote values of the rows (e.g. an encoder's "unknown
    categories ['...']"), and a warning turned into an error would abort the fit before the charge. A failure
    remains a domain error (rows the prefit model cannot process), like a NaN, with a message that carries no data.
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
