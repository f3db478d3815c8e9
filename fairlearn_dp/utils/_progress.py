"""Whether to show a progress bar (shared by the audit, the Monte Carlo and the sweeps)."""

from __future__ import annotations

import sys


def show_progress(progress):
    """``progress`` as a bool; ``None`` means "when standard error is a terminal" (False if it was replaced by an
    object without ``isatty`` or closed)."""
    if progress is None:
        try:
            return bool(sys.stderr.isatty())
        except (AttributeError, ValueError):
            return False
    return bool(progress)
