"""Whether to show a progress bar (shared by the audit, the Monte Carlo and the sweeps), the bar itself, and the
rounds of a long fit with one.

Every bar is opened by :func:`progress_bar`, which holds the warnings shown while it is open and shows them once it
has closed: a warning written to standard error in the middle of a bar would break it (and be overwritten by its
next refresh).
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["show_progress", "progress_bar", "warnings_after_progress", "progress_rounds", "FIT_PROGRESS_DELAY"]


def show_progress(progress):
    """``progress`` as a bool; ``None`` means "when standard error is a terminal" (False if it was replaced by an
    object without ``isatty`` or closed).
    """
    if progress is None:
        try:
            return bool(sys.stderr.isatty())
        except (AttributeError, ValueError):
            return False
    return bool(progress)


@contextlib.contextmanager
def warnings_after_progress() -> Iterator[None]:
    """Hold the warnings shown inside the block and show them, in order, when it ends.

    Only the display is held: ``warnings.showwarning`` is replaced for the block, so the filters apply as usual
    when a warning is issued (an ``"error"`` filter still raises at once, ``"once"`` still counts). The held
    warnings go to the ``showwarning`` that was in place before (the caller's, or one of
    :func:`warnings.catch_warnings` ``(record=True)`` / ``pytest.warns``, which then record them). The
    replacement is process-wide, as :func:`warnings.catch_warnings` is.
    """
    held = []
    show = warnings.showwarning

    def hold(message, category, filename, lineno, file=None, line=None):
        held.append((message, category, filename, lineno, file, line))

    warnings.showwarning = hold
    try:
        yield
    finally:
        if warnings.showwarning is hold:        # else a block opened inside this one has not restored its own
            warnings.showwarning = show
        for args in held:
            show(*args)


@contextlib.contextmanager
def progress_bar(show: bool, **tqdm_kwargs: Any) -> Iterator[Any]:
    """A tqdm bar on standard error (``tqdm_kwargs``: ``total``, ``desc``, ...) when ``show``, else None.

    The bar is closed when the block ends, and the warnings shown while it was open follow it
    (:func:`warnings_after_progress`), so they never interleave with it.
    """
    if not show:
        yield None
        return
    from tqdm.auto import tqdm

    with warnings_after_progress():
        bar = tqdm(**tqdm_kwargs)
        try:
            yield bar
        finally:
            bar.close()


#: Seconds a fit's loop runs before its bar appears: a short fit (and a grid search of them) prints nothing.
FIT_PROGRESS_DELAY = 2.0


def progress_rounds(start, stop, *, desc):
    """``range(start, stop)`` over a fit's rounds, with a tqdm bar on standard error when it is a terminal and the
    loop runs longer than ``FIT_PROGRESS_DELAY`` seconds (``show_progress(None)``); the bar is closed when the loop
    ends or breaks, and the warnings of the rounds are shown after it. The number of rounds is public, so the bar
    shows nothing private.
    """
    if not show_progress(None):
        yield from range(start, stop)
        return
    with progress_bar(True, total=max(stop - start, 0), desc=desc, unit="round", delay=FIT_PROGRESS_DELAY,
                      leave=False) as bar:
        for index in range(start, stop):
            yield index
            bar.update()
