"""The last step of every private classifier: a private choice between the fitted model and the fair constants.

A private fit can end worse than predicting one label for everyone (little data, a small epsilon, weak signal). The
constant classifiers are perfectly fair: ``h = 0`` and ``h = 1`` select, and err on each label, at the same rate in
every group, so they meet demographic parity, equalized odds and the true/false positive rate parities exactly; for
error-rate parity the only fair constant is the coin ``P(h = 1) = 1/2`` (its error is 1/2 in every group). So the
classifiers end with :func:`choose_against_constants`, which returns the candidate of smallest training cost
(``c_FP FP + c_FN FN``, the 0/1 error by default) among the fitted model and the fair constants, by:

- **an exact choice, epsilon 0**, when every candidate's cost is public: under ``privacy_unit="sensitive_attribute"``
  (X and y public) for a released model that does not read the sensitive feature (the cost of a released model on
  public rows is post-processing). It keeps the model only when a one-sided paired test at level ``SELECTION_BETA``
  says it beats the best constant on the training rows beyond their sampling error (:func:`_exact_choice`);
- **the exponential mechanism** otherwise, with utility ``-cost``: replacing one record (or one person's sensitive
  attribute, for a model that reads it) changes each candidate's cost by at most ``max(c_FP, c_FN)``, the
  sensitivity. The share of the fit's epsilon it takes is :data:`SELECTION_SHARE` (:func:`selection_split`).

The chosen candidate's training cost exceeds the best candidate's by at most
``exponential_mechanism_excess_cost`` ``/ n`` with probability at least ``1 - beta``
(McSherry & Talwar 2007): the selection error stated on the constant-fallback page. At ``epsilon = inf`` the
estimators keep the toolkit's output (no choice is made), so that they stay exact drop-ins.
Derivation: docs/privacy_analysis/constant_fallback.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

from ._exponential import exponential_mechanism, exponential_mechanism_excess_cost

__all__ = []

#: The share of a record-level fit's epsilon spent on the choice against the constants (the rest fits the model).
#: Chosen by ``tests/benchmarks/bench_usefulness.py`` (docs/performance.md); documented on the fallback page.
SELECTION_SHARE = 0.1

#: The confidence parameter of the stated selection error.
SELECTION_BETA = 0.05


@dataclass(frozen=True)
class ConstantChoice:
    """The outcome of :func:`choose_against_constants` (a released value: every field is public or released).

    Attributes
    ----------
    chosen : str
        ``"fitted"`` or ``"constant"``.
    constant : float or None
        The chosen constant's probability of predicting 1 (0, 1 or 0.5); None when the fitted model is chosen.
    epsilon : float
        The budget the choice spent (0 for an exact choice on public costs; ``inf`` when no choice was made).
    error_bound : float
        With probability at least ``1 - beta``, the chosen candidate's training cost per row exceeds the smallest
        candidate's by at most this (0 for an exact choice).
    beta : float
        The confidence parameter of ``error_bound``.
    candidates : tuple of str
        The candidates compared, in order: ``"fitted"``, then ``"constant 0"``, ``"constant 1"`` or
        ``"constant 0.5"``.
    """

    chosen: str
    constant: float | None
    epsilon: float
    error_bound: float
    beta: float
    candidates: tuple[str, ...]

    @property
    def is_constant(self) -> bool:
        """Whether a constant classifier was chosen."""
        return self.chosen == "constant"


def fair_constants(error_parity: bool) -> tuple[float, ...]:
    """The constants (probabilities of predicting 1) that meet the constraint exactly on every dataset: ``(0, 1)``,
    or ``(0.5,)`` for error-rate parity.
    """
    return (0.5,) if error_parity else (0.0, 1.0)


def selection_split(epsilon: float) -> tuple[float, float]:
    """``(epsilon_fit, epsilon_choice)``: :data:`SELECTION_SHARE` of ``epsilon`` for the choice, the rest for the
    fit (basic composition: they add up to ``epsilon``; the choice is pure DP and takes no delta). ``inf`` gives
    ``(inf, inf)``. The fit's part is the remainder ``epsilon - choice`` as before; when the floating-point
    subtraction rounds it up (``8 - 0.8`` is ``7.2``, and ``7.2 + 0.8`` exceeds 8 in exact arithmetic), the choice's
    share is rounded down until the two add up to at most ``epsilon`` exactly (a few ulps of the choice's share).
    """
    if math.isinf(epsilon):
        return math.inf, math.inf
    epsilon = float(epsilon)
    choice = SELECTION_SHARE * epsilon
    fit = epsilon - choice
    while Fraction(fit) + Fraction(choice) > Fraction(epsilon):    # the excess is at most half an ulp of the fit's
        choice = math.nextafter(choice, 0.0)
    return fit, choice


def no_choice() -> ConstantChoice:
    """The outcome when no choice is made (``epsilon = inf``: the toolkit's output is kept)."""
    return ConstantChoice("fitted", None, math.inf, 0.0, SELECTION_BETA, ("fitted",))


def choose_against_constants(positive: ArrayLike, y: ArrayLike, *, epsilon: float, error_parity: bool = False,
                             costs: tuple[float, float] = (1.0, 1.0), public: bool = False,
                             random_state: int | np.random.RandomState | None = None) -> ConstantChoice:
    """Choose between the fitted model (its probabilities ``positive`` of predicting 1 on the training rows) and the
    fair constants, by the training cost ``c_FP sum p (1 - y) + c_FN sum (1 - p) y`` with ``costs = (c_FP, c_FN)``.

    ``public=True``: every cost is public (see the module docstring), the choice is exact and spends nothing.
    Otherwise the exponential mechanism with ``epsilon`` and sensitivity ``max(costs)`` draws it
    (diffprivlib's ``Exponential``, ``exponential_mechanism``; ``random_state`` seeds it,
    None: diffprivlib's secure source). The exact choice keeps the fitted model only when a one-sided paired test at
    level ``SELECTION_BETA`` on the training rows says it is more accurate than the best constant (ties and
    differences within the rows' sampling error go to the constant, which is exactly fair).
    """
    positive = np.asarray(positive, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    c_fp, c_fn = float(costs[0]), float(costs[1])
    model_cost = c_fp * positive @ (1.0 - y) + c_fn * (1.0 - positive) @ y

    def differences(c):
        """``(size, mean, sd)`` of the per-row cost of constant ``c`` minus the model's."""
        row_model = c_fp * positive * (1.0 - y) + c_fn * (1.0 - positive) * y
        row_constant = c_fp * c * (1.0 - y) + c_fn * (1.0 - c) * y
        difference = row_constant - row_model
        if difference.size < 2:
            return difference.size, 0.0, 0.0
        return difference.size, float(np.mean(difference)), float(np.std(difference, ddof=1))

    return choose_on_sums(model_cost, float(y.sum()), y.size, differences, epsilon=epsilon,
                          error_parity=error_parity, costs=costs, public=public, random_state=random_state)


def choose_on_sums(model_cost: float, n_positive: float, n: int, differences: Callable[[float], tuple],
                   *, epsilon: float, error_parity: bool = False, costs: tuple[float, float] = (1.0, 1.0),
                   public: bool = False, random_state: int | np.random.RandomState | None = None) -> ConstantChoice:
    """:func:`choose_against_constants` from sums over the training rows: the model's training cost ``model_cost``,
    the ``n_positive`` label-1 rows of ``n``, and ``differences(c)``, the ``(size, mean, sd)`` (``ddof=1``) of the
    per-row cost of the constant ``c`` minus the model's (read by the exact choice only, for the best constant).
    A fit that sums over its rows elsewhere (on Dask workers) chooses with the same mechanism and draws.
    """
    constants = fair_constants(error_parity)
    c_fp, c_fn = float(costs[0]), float(costs[1])
    probabilities = np.concatenate([[np.nan], np.asarray(constants)])
    candidates = ("fitted",) + tuple(f"constant {c:g}" for c in constants)
    cost = np.empty(len(candidates))
    cost[0] = model_cost
    for i, c in enumerate(constants, start=1):
        cost[i] = c_fp * c * (n - n_positive) + c_fn * (1.0 - c) * n_positive
    if public:
        index = _exact_choice(n, constants, cost, differences)
        spent, bound = 0.0, 0.0
    else:
        sensitivity = max(c_fp, c_fn)
        index = exponential_mechanism(cost, epsilon=epsilon, sensitivity=sensitivity, random_state=random_state)
        spent = float(epsilon)
        bound = exponential_mechanism_excess_cost(len(candidates), epsilon=epsilon, sensitivity=sensitivity,
                                                  probability=SELECTION_BETA) / max(n, 1)
    if index == 0:
        return ConstantChoice("fitted", None, spent, bound, SELECTION_BETA, candidates)
    return ConstantChoice("constant", float(probabilities[index]), spent, bound, SELECTION_BETA, candidates)


def _exact_choice(n, constants, cost, differences):
    """Index of the exact choice on public costs: the fitted model (0) only when a one-sided paired test at level
    :data:`SELECTION_BETA` says it is more accurate than the best constant, else that constant.

    The training rows are a sample: a fitted model that beats the best constant on them by less than their sampling
    error is, on new rows, as likely to lose. So the per-row cost differences ``d_i`` (the best constant's cost minus
    the model's on row ``i``; ``differences(c)``: their size, mean and sd) must have a mean above
    ``z sd(d) / sqrt(n)``, ``z`` the ``1 - beta`` normal quantile. A function of public values (X, y and the
    released model) only. Ties go to a constant (exactly fair).
    """
    best = 1 + int(np.flatnonzero(cost[1:] <= cost[1:].min() + 1e-9 * max(n, 1))[-1])
    size, mean, sd = differences(constants[best - 1])
    if size < 2:
        return best
    z = NormalDist().inv_cdf(1.0 - SELECTION_BETA)
    margin = z * sd / math.sqrt(size)
    return 0 if mean > max(margin, 1e-12) else best


def selection_error_bound(n_rows: int, epsilon: float, *, error_parity: bool = False,
                          costs: tuple[float, float] = (1.0, 1.0)) -> float:
    """The stated selection error of :func:`choose_against_constants` on ``n_rows`` rows at the choice's
    ``epsilon`` (public: computed before any data are read).
    """
    n_candidates = 1 + len(fair_constants(error_parity))
    return exponential_mechanism_excess_cost(n_candidates, epsilon=epsilon, sensitivity=max(costs),
                                             probability=SELECTION_BETA) / max(int(n_rows), 1)
