"""Warnings issued after a release are issued once the call's result is complete.

A warning is a release too, and with warnings turned into errors (``-W error``, ``warnings.simplefilter("error")``)
a warning issued after the accountant was charged would abort the call: the budget spent, the release lost (a fit
rolled back by ``atomic_fit``, a ``DPMetricFrame`` never returned). Every public call that releases (each ``fit``,
through ``atomic_fit``; ``DPMetricFrame``; the ``dp_*`` aggregates; the AIF360 metric classes) runs inside
:func:`warnings_after_release`: from the first :func:`~fairlearn_dp.privacy.charge` inside it, warnings are recorded
instead of shown or raised, and once the call has completed its result (fitted attributes stored, object built),
they are issued again, in order, under the caller's own filters, at the caller's line. Turned into an exception,
such a warning carries the call's result as its ``result`` attribute (the fitted estimator, the frame, the value),
so nothing released is lost. Warnings before the charge are issued as they happen (an error then costs nothing).

Only the outermost call records (a face's ``fit`` that fits an engine estimator issues the engine's warnings after
its own state is stored). The warning filters are process-wide: fits run concurrently in threads of one process
should not rely on the deferral (as with :class:`warnings.catch_warnings` itself).
"""

from __future__ import annotations

import contextvars
import functools
import sys
import warnings
from collections.abc import Callable

__all__ = ["warnings_after_release", "mark_released"]

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
    """Called by :func:`~fairlearn_dp.privacy.charge`: the current releasing call (if any) defers its warnings."""
    scope = _SCOPE.get()
    if scope is not None:
        scope.release()


def _issue(deferred, result, error, stacklevel):
    """Issue the recorded warnings at the caller's line (``stacklevel`` counted from here), carrying ``result``.

    When the call itself raised (``error``), a warning turned into an exception is added to that exception's
    notes instead of replacing it.
    """
    for message in deferred:
        if isinstance(message, Warning):
            message.result = result
        try:
            warnings.warn(message, stacklevel=stacklevel + 1)
        except Warning as raised:
            if error is None:
                raise
            error.add_note(f"{type(raised).__name__} issued after the release: {raised}")


def _user_level(stacklevel):
    """``stacklevel`` for a warning issued from the wrapper (2 frames below its caller), moved past AIF360's
    wrappers (its ``Transformer`` wraps ``fit``/``predict``), so that a face's warnings point at the user's call.
    """
    frame = sys._getframe(stacklevel + 1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("aif360."):
        frame, stacklevel = frame.f_back, stacklevel + 1
    return stacklevel


def warnings_after_release(result: str = "return", stacklevel: int = 1) -> Callable[[Callable], Callable]:
    """Decorate a public call that releases so that its post-release warnings are issued after it completes.

    Parameters
    ----------
    result : {"return", "self"}
        What the issued warnings carry as ``result``: the call's return value, or its first argument (for
        ``__init__``).
    stacklevel : int
        ``1``: the warnings point at the line that called the decorated function; one more per wrapper between
        the user and the decorated function.

    Returns
    -------
    callable
        The decorator.
    """
    def decorate(function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if _SCOPE.get() is not None:            # an outer call records and issues
                return function(*args, **kwargs)
            scope = _Scope()
            token = _SCOPE.set(scope)
            try:
                with scope:
                    value = function(*args, **kwargs)
            except BaseException as error:
                _SCOPE.reset(token)
                _issue(scope.deferred, None, error, _user_level(stacklevel) + 1)
                raise
            _SCOPE.reset(token)
            _issue(scope.deferred, args[0] if result == "self" else value, None, _user_level(stacklevel) + 1)
            return value

        return wrapper

    return decorate
