"""Warnings issued after a release are issued once the call's result is complete.

A warning is a release too, and with warnings turned into errors (``-W error``, ``warnings.simplefilter("error")``)
a warning issued after the accountant was charged would abort the call: the budget spent, the release lost (a fit
rolled back by ``atomic_fit``, a ``DPMetricFrame`` never returned). Every public call that releases (each ``fit``,
through ``atomic_fit``; ``DPMetricFrame``; the ``dp_*`` aggregates; the AIF360 metric classes; ``pareto``) runs
inside :class:`warnings_after_release` (a ``with`` block, which adds no frame, so the stack levels of the warnings
issued before the release stay right) or the decorator :func:`issue_warnings_after_release`. From the first
``charge`` inside it, warnings are recorded instead of shown or raised; once the call has
completed its result (fitted attributes stored, object built), they are issued again, in order, under the caller's
own filters, at the user's line. Turned into an exception, such a warning carries the call's result as its
``result`` attribute (the fitted estimator, the frame, the value), so nothing released is lost. Warnings before the
charge are issued as they happen (an error then costs nothing).

Only the outermost call records (a face's ``fit`` that fits an engine estimator issues the engine's warnings after
its own state is stored). The warning filters are process-wide: fits run concurrently in threads of one process
should not rely on the deferral (as with :class:`warnings.catch_warnings` itself).
"""

from __future__ import annotations

import contextvars
import functools
import warnings
from collections.abc import Callable

from ..exceptions import user_stacklevel

__all__ = ["warnings_after_release", "issue_warnings_after_release", "mark_released"]

_SCOPE: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("fairdp_post_release_scope", default=None)


class _Scope:
    """The warnings of one outermost releasing call: issued live before the charge, recorded after it."""

    def __init__(self):
        self.deferred = []
        self.released = False
        self._catcher = warnings.catch_warnings()

    def __enter__(self):
        self._catcher.__enter__()          # restores the caller's filters and showwarning on exit
        self._show = warnings.showwarning
        warnings.showwarning = self._showwarning
        return self

    def __exit__(self, *exc_info):
        self._catcher.__exit__(*exc_info)

    def _showwarning(self, message, category, filename, lineno, file=None, line=None):
        if self.released:
            self.deferred.append(message)
        else:
            self._show(message, category, filename, lineno, file, line)

    def release(self):
        """From the first charge on, every warning is recorded (none is raised by an ``error`` filter)."""
        if not self.released:
            self.released = True
            warnings.simplefilter("always")


def mark_released() -> None:
    """Called by ``charge``: the current releasing call (if any) defers its warnings."""
    scope = _SCOPE.get()
    if scope is not None:
        scope.release()


def _issue(deferred, result, error):
    """Issue the recorded warnings at the user's line (the first frame outside the library modules), carrying
    ``result``.

    When the call itself raised (``error``), a warning turned into an exception is added to that exception's
    notes instead of replacing it.
    """
    for message in deferred:
        if isinstance(message, Warning):
            message.result = result
        try:
            warnings.warn(message, stacklevel=user_stacklevel())
        except Warning as raised:
            if error is None:
                raise
            error.add_note(f"{type(raised).__name__} issued after the release: {raised}")


class warnings_after_release:          # lower case, as contextlib's: read as ``with warnings_after_release():``
    """The ``with`` block of a public call that releases: its warnings after the charge are issued when it ends.

    Set ``release.result`` to what the warnings should carry (the fitted estimator, the object built); the block
    should end once that result is complete. Only the outermost block records and issues.

    The warnings point at the user's line that made the call (the first frame
    past fairdp's, scikit-learn's, Fairlearn's and AIF360's frames, e.g. a ``Pipeline`` or AIF360's
    ``Transformer`` wrapper).
    """

    def __init__(self) -> None:
        self.result = None
        self._scope = self._token = None

    def __enter__(self) -> warnings_after_release:
        if _SCOPE.get() is None:                    # else an outer call records and issues
            self._scope = _Scope()
            self._token = _SCOPE.set(self._scope)
            self._scope.__enter__()
        return self

    def __exit__(self, exc_type, error, traceback) -> bool:
        if self._scope is None:
            return False
        self._scope.__exit__(exc_type, error, traceback)
        _SCOPE.reset(self._token)
        _issue(self._scope.deferred, self.result, error)
        return False


def issue_warnings_after_release(result: str = "return") -> Callable[[Callable], Callable]:
    """Decorate a public call that releases (a :class:`warnings_after_release` block around it).

    The wrapper is one frame more between the user and the call: only for calls whose own warnings before the
    release do not point at their caller (else use the block).

    Parameters
    ----------
    result : {"return", "self"}
        What the issued warnings carry as ``result``: the call's return value, or its first argument (for
        ``__init__``).

    Returns
    -------
    callable
        The decorator.
    """
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with warnings_after_release() as release:
                value = function(*args, **kwargs)
                release.result = args[0] if result == "self" else value
            return value

        return wrapper

    return decorate
