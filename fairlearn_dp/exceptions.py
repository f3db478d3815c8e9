"""The warning categories fairdp issues, in one place (as :mod:`sklearn.exceptions`).

fairdp warns only where the released values show that the output is not what the user asked for; how wide a
guarantee is (a high-probability disparity bound, a noise error) is a fitted attribute, never a warning by itself
(user guide, "Warnings"). Every warning fairdp issues is a :class:`FairdpWarning`, in one of three categories a user
can filter apart::

    import warnings
    from fairlearn_dp.exceptions import FairnessWarning

    warnings.simplefilter("error", FairnessWarning)     # a constraint that is not enforced stops the run

- :class:`PrivacyWarning`: the privacy guarantee is weaker than it looks (a choice that should be public was read
  from the data, a component is not differentially private).
- :class:`FairnessWarning`: the fairness constraint is not enforced as asked (it cannot bind, it does not bind for
  some groups, a group's constraint is dropped).
- :class:`UtilityWarning`: the output is degenerate or not what was asked for (a constant classifier, a fallback
  taken, a group the release cannot read, values clipped to the declared public bounds, the user's estimator not
  used).

Each is issued at the line of the user's code that made the call (the stack
walk skips fairdp's, scikit-learn's, Fairlearn's, AIF360's and joblib's frames).
"""

from __future__ import annotations

import sys
import warnings

__all__ = ["FairdpWarning", "PrivacyWarning", "FairnessWarning", "UtilityWarning"]


class FairdpWarning(UserWarning):
    """Base class of every warning fairdp issues: ``warnings.simplefilter("ignore", FairdpWarning)`` silences all."""


class PrivacyWarning(FairdpWarning):
    """The privacy guarantee is weaker than it looks: a choice that should be public was taken from the data, or a
    component of the output is not differentially private.
    """


class FairnessWarning(FairdpWarning):
    """The released values show that the fairness constraint is not enforced as asked: it cannot bind at this
    epsilon, it does not bind for some groups, or a group's constraint was dropped.
    """


class UtilityWarning(FairdpWarning):
    """The released values show that the output is degenerate or not what was asked for: a constant or degenerate
    output, a fallback taken, a group the release cannot read, values clipped to the declared public bounds.
    """


#: Modules whose frames are library code, not the user's: a warning points at the first frame outside them.
_LIBRARY_PREFIXES = ("fairlearn_dp", "aif360_dp", "fairdp_adapters", "sklearn", "fairlearn", "aif360", "joblib",
                     "contextlib", "functools", "warnings", "concurrent", "threading", "dask", "distributed")


def _is_library(module_name: str) -> bool:
    return any(module_name == prefix or module_name.startswith(prefix + ".") for prefix in _LIBRARY_PREFIXES)


def user_stacklevel() -> int:
    """The ``stacklevel`` (for :func:`warnings.warn` called by the caller of this function) of the first frame
    outside the library modules: the user's line that made the call. ``1`` (the caller itself) when every frame is
    library code.
    """
    frame = sys._getframe(2)            # 0: here, 1: the function about to warn (stacklevel 1), 2: its caller
    level = 2
    while frame is not None and _is_library(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


def warn(message: str, category: type[FairdpWarning]) -> None:
    """Issue ``message`` in ``category`` at the user's line (the first frame outside the library modules).

    The one way fairdp issues a warning: the category says what kind of problem the released values show, and the
    stack level points at the call the user wrote, not at a library line.
    """
    if not (isinstance(category, type) and issubclass(category, FairdpWarning)):
        raise TypeError(f"category must be a FairdpWarning subclass, got {category!r}.")
    warnings.warn(message, category, stacklevel=user_stacklevel())
