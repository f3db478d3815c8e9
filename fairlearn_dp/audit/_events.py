"""Events: tests on the released outcome of one fit, fixed before the audit's runs.

An event maps a fit's outcome to ``True`` or ``False``. The outcome is the fitted object, or -- when the audit
treats failures as outputs (``audit(..., fit_failures="output")``) -- a :class:`FitFailure` recording that ``fit``
raised and what it said. :class:`FitFailed` tests the latter; the other events read a released attribute of the
fitted object and are ``False`` on a failure (a failed fit releases no attribute), so a neighbour that fails where
the other fits also moves their frequencies.

Every event here is picklable (so :func:`~fairlearn_dp.audit.audit` can send it to joblib workers) and described by
its ``description``. The threshold events are built from the two datasets and the class's declared noise (the
per-estimator cases in ``tests/audit_cases.py`` build them) and carry ``expected_probabilities``: their
probabilities on ``D`` and ``D'`` when the release is exactly the declared mechanism (the audit's calibration check).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["released_attribute", "FitFailure", "FitFailed", "CellEvent", "ThresholdEvent", "ProjectionEvent",
           "OrthantEvent", "PlayErrorEvent", "SelectionEvent"]


def released_attribute(obj: Any, dotted: str) -> Any:
    """``obj.a.b``, also through dicts and lists: ``history_.noisy_gradients`` is ``obj.history_["noisy_gradients"]``
    and ``history_.0.error_statistic`` is ``obj.history_[0]["error_statistic"]``.
    """

    def step(o, part):
        if isinstance(o, Mapping):
            return o[part]
        if part.isdigit() and isinstance(o, Sequence) and not isinstance(o, str):
            return o[int(part)]
        return getattr(o, part)

    return functools.reduce(step, dotted.split("."), obj)


@dataclass(frozen=True)
class FitFailure:
    """The observable outcome of a fit that raised: what an observer of a failed fit learns.

    Attributes
    ----------
    exception_type : type
        The class of the exception ``fit`` raised.
    message : str
        Its text (``str(exception)``).
    """

    exception_type: type
    message: str


class FitFailed:
    """The event "the fit raised" (optionally: an exception of one of ``exception_types``).

    With ``audit(..., fit_failures="output")`` a fit that raises is an output like any other, and this event counts
    it: a fit whose success depends on one person's data (e.g. a group with one member fits, the neighbour with that
    record substituted away raises) is flagged like any other leak. DP fits fail only as a function of public inputs
    and released (noisy) values, so its frequencies must satisfy the same inequality as any other event's.

    Parameters
    ----------
    exception_types : exception class or tuple of them, default=Exception
        Which failures count.

    Examples
    --------
    >>> from fairlearn_dp.audit import FitFailed
    >>> event = FitFailed(ValueError)       # audit(..., event=event, fit_failures="output")
    >>> event, event.description
    (FitFailed(the fit raised (ValueError)), 'the fit raised (ValueError)')
    """

    def __init__(self, exception_types: type[BaseException] | tuple[type[BaseException], ...] = Exception) -> None:
        types = exception_types if isinstance(exception_types, tuple) else (exception_types,)
        if not types or not all(isinstance(t, type) and issubclass(t, BaseException) for t in types):
            raise TypeError(f"exception_types must be an exception class or a tuple of them, got "
                            f"{exception_types!r}.")
        self.exception_types = types

    @property
    def description(self) -> str:
        names = ", ".join(t.__name__ for t in self.exception_types)
        return f"the fit raised ({names})"

    def __call__(self, outcome: Any) -> bool:
        return bool(isinstance(outcome, FitFailure) and issubclass(outcome.exception_type, self.exception_types))

    def __repr__(self) -> str:
        return f"FitFailed({self.description})"


class _ReleaseEvent:
    """An event on a released attribute of a fitted object; ``False`` on a :class:`FitFailure`."""

    def __call__(self, outcome: Any) -> bool:
        if isinstance(outcome, FitFailure):
            return False
        return self._holds(outcome)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description})"


def _cell(cell):
    return "[" + ", ".join(map(str, cell)) + "]"


class CellEvent(_ReleaseEvent):
    """``released[lost] >= threshold_lost and released[gained] <= threshold_gained`` on a fitted object."""

    def __init__(self, attribute: str, lost: Sequence[int], gained: Sequence[int], threshold_lost: float,
                 threshold_gained: float, expected_probabilities: tuple[float, float] | None = None) -> None:
        self.attribute = attribute
        self.lost = tuple(int(i) for i in lost)
        self.gained = tuple(int(i) for i in gained)
        self.threshold_lost = float(threshold_lost)
        self.threshold_gained = float(threshold_gained)
        self.expected_probabilities = expected_probabilities

    @property
    def description(self) -> str:
        return (f"{self.attribute}[{', '.join(map(str, self.lost))}] >= {self.threshold_lost:.6g} and "
                f"{self.attribute}[{', '.join(map(str, self.gained))}] <= {self.threshold_gained:.6g} (true values "
                "on D; D' moves one count from the first cell to the second)")

    def _holds(self, fitted):
        released = np.asarray(released_attribute(fitted, self.attribute), dtype=float)
        return bool(released[self.lost] >= self.threshold_lost and released[self.gained] <= self.threshold_gained)


class ThresholdEvent(_ReleaseEvent):
    """``released[cell] <= threshold`` (``>=`` when ``D'`` moves the cell down) on a fitted object: one Gaussian
    release thresholded at its true value on ``D``.
    """

    def __init__(self, attribute: str, cell: Sequence[int], threshold: float, shift: float, sigma: float) -> None:
        from scipy.stats import norm

        self.attribute = attribute
        self.cell = tuple(int(i) for i in cell)
        self.threshold = float(threshold)
        self.shift = float(shift)
        self.sigma = float(sigma)
        self.expected_probabilities = (0.5, float(norm.cdf(-abs(self.shift) / self.sigma)))

    @property
    def description(self) -> str:
        return (f"{self.attribute}[{', '.join(map(str, self.cell))}] {'<=' if self.shift > 0 else '>='} "
                f"{self.threshold:.6g} (true value on D; D' shifts it by {self.shift:+.6g}; declared Gaussian sigma "
                f"{self.sigma:.6g})")

    def _holds(self, fitted):
        released = float(np.asarray(released_attribute(fitted, self.attribute), dtype=float)[self.cell])
        return bool(released <= self.threshold if self.shift > 0 else released >= self.threshold)


class ProjectionEvent(_ReleaseEvent):
    """``<released, u> <= threshold`` on a fitted object, ``u`` the unit vector along ``direction``: one Gaussian
    vector release projected onto the direction in which ``D'`` moves it, thresholded at its value on ``D``.

    With i.i.d. noise of sd ``sigma`` on every entry that ``direction`` weighs, the projection's noise has sd
    ``sigma``, and ``D'`` shifts it by ``shift`` (the L2 norm of the change when ``direction`` is the change): the
    event has probabilities ``1/2`` on ``D`` and ``Phi(-shift / sigma)`` on ``D'``. It is :class:`ThresholdEvent` for
    a change spread over several entries.
    """

    def __init__(self, attribute: str, direction: ArrayLike, threshold: float, shift: float, sigma: float) -> None:
        from scipy.stats import norm

        direction = np.asarray(direction, dtype=float)
        length = float(np.linalg.norm(direction))
        if not (np.isfinite(length) and length > 0):
            raise ValueError("direction must be a finite, nonzero array.")
        if not shift > 0:
            raise ValueError(f"shift must be > 0 (D' moves the projection up), got {shift!r}.")
        self.attribute = attribute
        self.direction = direction / length
        self.threshold = float(threshold)
        self.shift = float(shift)
        self.sigma = float(sigma)
        self.expected_probabilities = (0.5, float(norm.cdf(-self.shift / self.sigma)))

    @property
    def description(self) -> str:
        return (f"<{self.attribute}, u> <= {self.threshold:.6g} (u: the unit direction in which D' moves the "
                f"release, by {self.shift:.6g}; the true value on D; declared Gaussian sigma {self.sigma:.6g})")

    def _holds(self, fitted):
        released = np.asarray(released_attribute(fitted, self.attribute), dtype=float)
        return bool(float(np.sum(released * self.direction)) <= self.threshold)


class OrthantEvent(_ReleaseEvent):
    """Every moved cell of one vector Laplace release on the far side of its true value on ``D`` from ``D'``:
    ``released[c] >= truth_D[c]`` for the cells ``D'`` lowers and ``released[c] <= truth_D[c]`` for those it raises.

    On this event the Laplace privacy loss takes its maximum, ``sum_c |Delta_c| / b`` (``b`` the per-coordinate
    scale), everywhere; its probability is ``2^-k`` on ``D`` and ``2^-k exp(-sum_c |Delta_c| / b)`` on ``D'`` for
    ``k`` moved cells.
    """

    def __init__(self, attribute: str, lowered: Sequence[Sequence[int]], raised: Sequence[Sequence[int]],
                 thresholds_lowered: Sequence[float], thresholds_raised: Sequence[float],
                 expected_probabilities: Sequence[float]) -> None:
        self.attribute = attribute
        self.lowered = tuple(tuple(int(i) for i in cell) for cell in lowered)
        self.raised = tuple(tuple(int(i) for i in cell) for cell in raised)
        self.thresholds_lowered = tuple(float(t) for t in thresholds_lowered)
        self.thresholds_raised = tuple(float(t) for t in thresholds_raised)
        self.expected_probabilities = tuple(float(p) for p in expected_probabilities)

    @property
    def description(self) -> str:
        tests = [f"{_cell(c)} >= {t:.6g}" for c, t in zip(self.lowered, self.thresholds_lowered, strict=False)]
        tests += [f"{_cell(c)} <= {t:.6g}" for c, t in zip(self.raised, self.thresholds_raised, strict=False)]
        return (f"{self.attribute}: " + " and ".join(tests) + " (true values on D; D' lowers the first cells and "
                "raises the others)")

    def _holds(self, fitted):
        released = np.asarray(released_attribute(fitted, self.attribute), dtype=float)
        return bool(all(released[c] >= t for c, t in zip(self.lowered, self.thresholds_lowered, strict=False))
                    and all(released[c] <= t for c, t in zip(self.raised, self.thresholds_raised, strict=False)))


class PlayErrorEvent(_ReleaseEvent):
    """``released >= sum_i |h(x_i) - y_i|`` on ``D``, with ``h`` the play released with it (read from the fitted
    object): a one-count Laplace release thresholded at its true value on ``D`` given the play.

    The true value is a function of the released play and of ``D`` (fixed, known to the auditor), so this is an event
    on the output. When the play has the same distribution on ``D`` and ``D'`` and, for every play, ``D'`` lowers
    the statistic by exactly the sensitivity, its probability is ``1/2`` on ``D`` and ``e^{-Delta / b} / 2`` on
    ``D'``, whatever the play.
    """

    def __init__(self, attribute: str, play_attribute: str, X: ArrayLike, y: ArrayLike,
                 expected_probabilities: Sequence[float]) -> None:
        self.attribute = attribute
        self.play_attribute = play_attribute
        self.X = np.asarray(X, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.expected_probabilities = tuple(float(p) for p in expected_probabilities)

    def reference(self, fitted: Any) -> float:
        """The statistic's true value on ``D`` for the fitted object's released play."""
        play = released_attribute(fitted, self.play_attribute)
        return float(np.abs(np.asarray(play.predict(self.X), dtype=float) - self.y).sum())

    @property
    def description(self) -> str:
        return (f"{self.attribute} >= sum_i |{self.play_attribute}(x_i) - y_i| over D (its true value on D given the "
                "released play; D' lowers it by its sensitivity for every play)")

    def _holds(self, fitted):
        return bool(float(released_attribute(fitted, self.attribute)) >= self.reference(fitted))


class SelectionEvent(_ReleaseEvent):
    """``released == index``: the exponential mechanism selected the candidate whose cost ``D'`` raises."""

    def __init__(self, attribute: str, index: int, expected_probabilities: Sequence[float]) -> None:
        self.attribute = attribute
        self.index = int(index)
        self.expected_probabilities = tuple(float(p) for p in expected_probabilities)

    @property
    def description(self) -> str:
        return (f"{self.attribute} == {self.index} (the candidate whose cost D' raises; equal costs on D, so "
                "probability 1/2 on D whatever the mechanism's scale)")

    def _holds(self, fitted):
        return bool(int(released_attribute(fitted, self.attribute)) == self.index)
