"""Whether to show a progress bar (shared by the audit, the Monte Carlo and the sweeps), and the rounds of a long
fit with one.
"""

from __future__ import annotations

import sys


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


#: Seconds a fit's loop runs before its bar appears: a short fit (and a grid search of them) prints nothing.
FIT_PROGRESS_DELAY = 2.0


def progress_rounds(start, stop, *, desc):
    """``range(start, stop)`` over a fit's rounds, with a tqdm bar on standard error when it is a terminal and the
    loop runs longer than ``FIT_PROGRESS_DELAY`` seconds (``show_progress(None)``); the bar is closed when the loop
    ends or breaks. The number of rounds is public, so the bar shows nothing private.
    """
    if not show_progress(None):
        yield from range(start, stop)
        return
    from tqdm.auto import tqdm

    bar = tqdm(total=max(stop - start, 0), desc=desc, unit="round", delay=FIT_PROGRESS_DELAY, leave=False)
    try:
        for index in range(start, stop):
            yield index
            bar.update()
    finally:
        bar.close()
