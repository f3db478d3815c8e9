"""Fairlearn's introspection of a ``DPThresholdOptimizer`` fitted at finite epsilon, from released values only.

A fit at finite epsilon releases one noisy table, derives ``table_`` from it and solves the mixing LP on it:
``mixing_rates_[a, b] = P(Y~ = 1 | score bin b, group a)``. From these, the public grid (``bin_edges_``, the binning
itself), ``groups_`` and the public parameters, this module builds what Fairlearn's ``ThresholdOptimizer`` exposes
after its fit (the Fairlearn objects and private attribute names are in ``fairlearn_dp._fairlearn_compat``):

- ``interpolated_thresholder_``: Fairlearn's ``InterpolatedThresholder`` on the same base estimator, whose
  ``interpolation_dict`` describes exactly the randomised thresholding ``predict`` uses. Each group's rule is a
  mixture of two ``ThresholdOperation``s (``p0``, ``operation0``, ``p1``, ``operation1``), and with equalized odds,
  or when a constant is needed, the drawn decision is replaced by ``prediction_constant`` with probability
  ``p_ignore`` (Fairlearn's equalized-odds fields). The thresholds are the exact bin boundaries of the public grid:
  ``score > t`` holds exactly when the score's bin is at or above the threshold's bin, for every float score.
- ``x_metric_``, ``y_metric_`` and the private attributes ``plot_threshold_optimizer`` reads: each group's
  released trade-off curve (the upper convex hull of its released ROC points, or of constraint metric against
  objective, on Fairlearn's grid of ``grid_size + 1`` points) and the fitted solution.

``DPThresholdOptimizer`` builds these on first access (its ``__getattr__``), so a fit does not pay for them.

A rule of Fairlearn's form has at most two jumps over the bins. The LP's basic solutions give that for the simple
constraints (one rate per group), but an equalized-odds solution (two rates per group), or an interior-point
solver's, can mix three or more thresholds in a group. :func:`representable_mixing` then replaces that group's
mixing by Fairlearn's own equalized-odds construction with the same released FPR and TPR: the point at the group's
FPR on its released ROC hull, mixed with the constant prediction equal to that FPR. Every rate, constraint and
objective of the LP is linear in a group's (FPR, TPR) on the released table, so the solution's released value and
constraints are unchanged.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from .._fairlearn_compat import (
    PLOT_ATTRIBUTES,
    ThresholdOperation,
    interpolate_curve,
    interpolated_thresholder,
    interpolation,
    metric_names,
    set_plot_attributes,
)
from .._utils._validation import as_1d_float

__all__ = ["INTROSPECTION_ATTRIBUTES", "bin_thresholds", "fairlearn_introspection", "representable_mixing",
           "set_fairlearn_introspection"]

# What Fairlearn's ThresholdOptimizer.fit sets besides estimator_ (built on first access after a finite-epsilon fit).
INTROSPECTION_ATTRIBUTES = ("interpolated_thresholder_", "x_metric_", "y_metric_") + PLOT_ATTRIBUTES

# Steps of a group's mixing rates at most this large are round-off of the LP solver, not thresholds.
_JUMP_TOL = 1e-12
_SIGN_BIT = np.int64(np.iinfo(np.int64).min)

# Group metrics from released masses: fp / tp of the rule, neg / pos of the group (Fairlearn's names; the last is
# the objective of AIF360's EqOddsPostprocessing, which has no Fairlearn metric).
_METRICS = {
    "selection_rate": lambda fp, tp, neg, pos: (fp + tp) / (neg + pos),
    "false_positive_rate": lambda fp, tp, neg, pos: fp / neg,
    "true_positive_rate": lambda fp, tp, neg, pos: tp / pos,
    "false_negative_rate": lambda fp, tp, neg, pos: (pos - tp) / pos,
    "true_negative_rate": lambda fp, tp, neg, pos: (neg - fp) / neg,
    "accuracy_score": lambda fp, tp, neg, pos: (tp + neg - fp) / (neg + pos),
    "balanced_accuracy_score": lambda fp, tp, neg, pos: 0.5 * tp / pos + 0.5 * (neg - fp) / neg,
    "sum_of_group_tpr_minus_fpr": lambda fp, tp, neg, pos: tp / pos - fp / neg,
}


class _Rule(NamedTuple):
    """One group's rule in Fairlearn's form, thresholds as bin indices: ``(">", j)`` predicts 1 iff bin >= j and
    ``("<", j)`` iff bin < j (``(">", 0)`` always, ``(">", B)`` never).
    """

    p0: float
    op0: tuple
    p1: float
    op1: tuple
    p_ignore: float
    constant: float


class PassthroughScores(BaseEstimator):
    """The base "estimator" of ``estimator=None``: ``X`` is the one column of base predictions or scores."""

    def fit(self, X=None, y=None):
        return self

    def __sklearn_is_fitted__(self):
        return True

    def predict(self, X):
        return as_1d_float(X, "X")

    decision_function = predict

    def predict_proba(self, X):
        scores = as_1d_float(X, "X")
        return np.column_stack([1.0 - scores, scores])


# --------------------------------------------------------------------------------------------- rules and mixing
def rule_values(rule: _Rule, n_bins: int) -> np.ndarray:
    """``P(Y~ = 1 | bin)`` of a rule, by the formula of Fairlearn's ``InterpolatedThresholder``."""
    mixed = rule.p0 * _predicts_one(rule.op0, n_bins) + rule.p1 * _predicts_one(rule.op1, n_bins)
    return rule.p_ignore * rule.constant + (1 - rule.p_ignore) * mixed


def _predicts_one(op, n_bins):
    bins = np.arange(n_bins)
    return bins >= op[1] if op[0] == ">" else bins < op[1]


def rule_from_values(values) -> _Rule | None:
    """The rule of Fairlearn's form that gives one group's mixing rates, or None if there is none.

    ``values = K + sum_i w_i op_i`` with one threshold per jump (``">"`` up, ``"<"`` down, weight ``|step|``) and
    ``K = values[0] - (the downward weights)`` the weight of "always 1"; "always 0" takes the rest, ``1 - K - sum
    w``. Both must be >= 0 (a mixture of thresholds) and there must be at most two jumps.
    """
    values = np.asarray(values, dtype=float)
    steps = np.diff(values)
    jumps = np.flatnonzero(np.abs(steps) > _JUMP_TOL)
    if jumps.size > 2:
        return None
    parts = [(abs(float(steps[i])), (">" if steps[i] > 0 else "<", int(i) + 1)) for i in jumps]
    always_one = float(values[0]) - sum(weight for weight, op in parts if op[0] == "<")
    always_zero = 1.0 - always_one - sum(weight for weight, _ in parts)
    if min(always_one, always_zero) < -_JUMP_TOL:
        return None
    return _assemble(parts, max(always_one, 0.0), max(always_zero, 0.0), values.size)


def _assemble(jumps, always_one, always_zero, n_bins):
    """Two thresholds when the constants add at most one more part (they are thresholds too: ``(">", 0)`` and
    ``(">", n_bins)``); otherwise the jumps, with the constants as ``p_ignore`` and ``prediction_constant``.
    """
    constants = [(weight, op) for weight, op in ((always_one, (">", 0)), (always_zero, (">", n_bins)))
                 if weight > _JUMP_TOL]
    if len(jumps) + len(constants) <= 2:
        (w0, op0), (w1, op1) = _two(jumps + constants)
        return _Rule(w0 / (w0 + w1), op0, w1 / (w0 + w1), op1, 0.0, 0.0)
    (w0, op0), (w1, op1) = _two(jumps)
    p_ignore = always_one + always_zero
    return _Rule(w0 / (w0 + w1), op0, w1 / (w0 + w1), op1, p_ignore, always_one / p_ignore)


def _two(parts):
    """Exactly two (weight, op) parts: a single part is paired with itself at weight 0."""
    return parts if len(parts) == 2 else [parts[0], (0.0, parts[0][1])]


def _threshold_points(group_table, flip):
    """Released (false positive, true positive) masses of every threshold of one group: "bin >= j" for j = 0..B
    (j = 0 predicts 1 everywhere, j = B nowhere) and, with ``flip``, "bin < j"; and the group's (negative,
    positive) masses. Sums from the top bin down, so that thresholds that differ only by empty bins get equal
    masses and the ends are exact (the totals are the j = 0 sums).
    """
    tails = np.cumsum(group_table[::-1], axis=0)[::-1]
    totals = tails[0]
    masses = np.vstack([tails, np.zeros(2)])
    ops = [(">", j) for j in range(len(masses))]
    if flip:
        masses = np.vstack([masses, totals - masses])
        ops += [("<", j) for j in range(len(ops))]
    return masses[:, 0], masses[:, 1], ops, totals


def _rule_on_hull(values, group_table, flip):
    """A rule of Fairlearn's form with the same released FPR and TPR as ``values`` (see the module docstring)."""
    negatives, positives = group_table.sum(axis=0)
    n_bins = values.size
    if not (negatives > 0 and positives > 0):      # one rate at most is defined: a constant keeps it
        present = group_table[:, 1] if positives > 0 else group_table[:, 0]
        rate = float(values @ present / present.sum()) if present.sum() > 0 else float(values.mean())
        return _Rule(1.0, (">", n_bins), 0.0, (">", n_bins), 1.0, rate)
    fpr = min(max(float(values @ group_table[:, 0] / negatives), 0.0), 1.0)
    tpr = min(max(float(values @ group_table[:, 1] / positives), 0.0), 1.0)
    fp, tp, ops, (negatives, positives) = _threshold_points(group_table, flip)
    sign = 1.0 if tpr >= fpr else -1.0             # above the diagonal: the upper hull; below: the lower one
    x, y = fp / negatives, sign * tp / positives
    hull = _upper_hull(x, y)
    p0, left, p1, right = _hull_point(x[hull], fpr)
    gap = sign * (p0 * y[hull[left]] + p1 * y[hull[right]]) - fpr
    reach = 0.0 if gap == 0 else min(max((tpr - fpr) / gap, 0.0), 1.0)
    return _Rule(p0, ops[hull[left]], p1, ops[hull[right]], 1.0 - reach, fpr)


def _upper_hull(x, y) -> np.ndarray:
    """Indices of the vertices of the upper convex hull of the points ``(x, y)``, by increasing ``x`` (Andrew's
    monotone chain; a point on the segment between its neighbours is dropped).
    """
    order = np.lexsort((y, x))
    xs, ys = x[order].tolist(), y[order].tolist()
    hull = []
    for k in range(len(xs)):
        while len(hull) >= 2:
            i, j = hull[-2], hull[-1]
            if (ys[j] - ys[i]) * (xs[k] - xs[i]) > (ys[k] - ys[i]) * (xs[j] - xs[i]):
                break
            hull.pop()
        hull.append(k)
    return order[hull]


def _hull_point(hull_x, x):
    """Where ``x`` falls on a hull (vertices' x increasing, spanning [0, 1]): ``(p0, left, p1, right)`` with the
    point ``p0 * vertex[left] + p1 * vertex[right]``.
    """
    right = min(max(int(np.searchsorted(hull_x, x, side="right")), 1), hull_x.size - 1)
    left = right - 1
    span = hull_x[right] - hull_x[left]
    p1 = 0.0 if span <= 0 else min(max((x - hull_x[left]) / span, 0.0), 1.0)
    return 1.0 - p1, left, p1, right


def representable_mixing(mixing_rates, table, *, flip: bool) -> np.ndarray:
    """``mixing_rates`` with every group's rule in Fairlearn's form (see the module docstring); groups already in
    that form keep their rates bit for bit. Reads the released ``table`` (groups x bins x labels) only.
    """
    rates = np.array(mixing_rates, dtype=float, copy=True)
    for a, values in enumerate(rates):
        if rule_from_values(values) is None:
            rates[a] = rule_values(_rule_on_hull(values, table[a], flip), values.size)
    return rates


# ------------------------------------------------------------------------------------------------ thresholds
def bin_thresholds(discretize, bin_edges, *, binary: bool):
    """``(below, above)``, each of length B + 1: for every finite float score, ``score > below[j]`` iff its bin is
    >= j and ``score < above[j]`` iff its bin is < j (``below[0] = above[0] = -inf``, ``below[B] = above[B] =
    inf``). Found by bisection over the floats, on ``discretize`` itself (it is non-decreasing).
    """
    n_bins = bin_edges.size - 1
    below, above = np.full(n_bins + 1, -np.inf), np.full(n_bins + 1, -np.inf)
    below[-1] = above[-1] = np.inf
    if binary:                                     # the base predictions are 0 or 1: bin = prediction
        below[1] = above[1] = 0.5
        return below, above
    targets = np.arange(1, n_bins)
    low = np.full(targets.size, _float_key(bin_edges[0]))     # its bin is 0 < j
    high = np.full(targets.size, _float_key(bin_edges[-1]))   # its bin is B - 1 >= j
    while np.any(low < high - 1):
        middle = (low >> 1) + (high >> 1) + (low & high & 1)
        reached = discretize(_key_float(middle)) >= targets
        high, low = np.where(reached, middle, high), np.where(reached, low, middle)
    below[1:-1], above[1:-1] = _key_float(low), _key_float(high)
    return below, above


def _float_key(value):
    """An int64 that orders floats as their values do (-0.0 and 0.0 share 0)."""
    bits = np.asarray(value, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, _SIGN_BIT - bits, bits)


def _key_float(key):
    return np.where(key < 0, _SIGN_BIT - key, key).astype(np.int64).view(np.float64)


# -------------------------------------------------------------------------------------------- introspection
def fairlearn_introspection(*, table, mixing_rates, groups, bin_edges, binary, discretize, constraints, objective,
                            flip, grid_size, estimator, predict_method) -> dict:
    """The attributes Fairlearn's ``ThresholdOptimizer`` has after ``fit``, from released values and public inputs.

    Returns a dict: ``interpolated_thresholder_``, ``x_metric_``, ``y_metric_``, and ``plot`` (the values of the
    private attributes ``plot_threshold_optimizer`` reads, keyed without their leading underscore). Every group's
    mixing rates must be in Fairlearn's form (:func:`representable_mixing`).
    """
    below, above = bin_thresholds(discretize, bin_edges, binary=binary)

    def operation(op):
        return ThresholdOperation(op[0], float(below[op[1]] if op[0] == ">" else above[op[1]]))

    equalized_odds = constraints == "equalized_odds"
    entries = {}
    for group, values in zip(groups, mixing_rates, strict=False):
        rule = rule_from_values(values)
        if rule is None:
            raise RuntimeError("Internal error: mixing rates not in Fairlearn's form (see representable_mixing).")
        entries[group] = _entry(rule, operation, equalized_odds)
    x_metric, y_metric = metric_names(constraints, objective)
    curves = _released_curves(table, groups, flip=flip, grid_size=grid_size, operation=operation,
                              metrics=(x_metric, y_metric))
    solution = _solution(table, mixing_rates, groups, curves, metrics=(x_metric, y_metric),
                         equalized_odds=equalized_odds)
    thresholder = interpolated_thresholder(PassthroughScores() if estimator is None else estimator, entries,
                                           predict_method)
    return {"interpolated_thresholder_": thresholder, "x_metric_": x_metric, "y_metric_": y_metric,
            "plot": {"tradeoff_curve": curves["by_group"], "x_grid": curves["x_grid"], **solution}}


def set_fairlearn_introspection(model, *, discretize, predict_method) -> None:
    """Set Fairlearn's fitted attributes on a ``DPThresholdOptimizer`` after its finite-epsilon solve, from its
    released ``table_`` and ``mixing_rates_`` and its public grid, groups and parameters; ``discretize`` (scores to
    bin indices, silently clipped) and ``predict_method`` (the resolved method of the base estimator) come from the
    estimator itself.
    """
    values = fairlearn_introspection(
        table=model.table_, mixing_rates=model.mixing_rates_, groups=model.groups_, bin_edges=model.bin_edges_,
        binary=model.mode_ == "binary", discretize=discretize,
        constraints=model.constraints, objective=model.objective, flip=bool(model.flip), grid_size=model.grid_size,
        estimator=model.estimator_, predict_method=predict_method)
    set_plot_attributes(model, **values.pop("plot"))
    for name, value in values.items():
        setattr(model, name, value)


def _entry(rule, operation, equalized_odds):
    """Fairlearn's ``interpolation_dict`` entry: its six equalized-odds fields for equalized odds or when the rule
    needs a constant, its four simple-constraint fields otherwise.
    """
    if equalized_odds or rule.p_ignore > 0:
        return interpolation(rule.p0, operation(rule.op0), rule.p1, operation(rule.op1), p_ignore=rule.p_ignore,
                             prediction_constant=rule.constant)
    return interpolation(rule.p0, operation(rule.op0), rule.p1, operation(rule.op1))


def _metric(name, fp, tp, negatives, positives):
    """A group metric from released masses; NaN or inf where its denominator is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _METRICS[name](*(np.asarray(v, dtype=float) for v in (fp, tp, negatives, positives)))


def _released_curves(table, groups, *, flip, grid_size, operation, metrics):
    """Each group's released trade-off curve on Fairlearn's grid; a group whose metrics are undefined (its released
    mass of a label is 0) has none.
    """
    x_grid = np.linspace(0.0, 1.0, int(grid_size) + 1)
    by_group = {}
    for group, group_table in zip(groups, table, strict=False):
        fp, tp, ops, (negatives, positives) = _threshold_points(group_table, flip)
        x, y = (_metric(name, fp, tp, negatives, positives) for name in metrics)
        if np.all(np.isfinite(x)) and np.all(np.isfinite(y)):
            hull = _upper_hull(x, y)
            by_group[group] = interpolate_curve(x[hull], y[hull], [operation(ops[i]) for i in hull], x_grid)
    return {"x_grid": x_grid, "by_group": by_group}


def _solution(table, mixing_rates, groups, curves, *, metrics, equalized_odds):
    """Where the fitted rule sits, from the released (FP, TP) mass of each group's rule and the groups' released
    (negative, positive) masses: :func:`_overlap_solution` for equalized odds, else :func:`_simple_solution`.
    """
    fitted = np.einsum("ab,abl->al", mixing_rates, table)
    totals = table.sum(axis=1)
    x_best = float(_metric(metrics[0], *fitted.sum(axis=0), *totals.sum(axis=0)))
    if equalized_odds:
        return _overlap_solution(fitted, totals, curves, x_best=x_best, y_metric=metrics[1])
    return _simple_solution(fitted, totals, groups, curves, x_best=x_best, metrics=metrics)


def _overlap_solution(fitted, totals, curves, *, x_best, y_metric):
    """Equalized odds: the pooled released (FPR, TPR) of the rule, and the curves' overlap (their minimum)."""
    by_group = curves["by_group"]
    overlap = (pd.DataFrame({i: curve["y"] for i, curve in enumerate(by_group.values())}).min(axis=1)
               if by_group else pd.Series(np.full(curves["x_grid"].size, np.nan)))
    return {"y_min": overlap, "x_best": x_best,
            "y_best": float(_metric(y_metric, *fitted.sum(axis=0), *totals.sum(axis=0)))}


def _simple_solution(fitted, totals, groups, curves, *, x_best, metrics):
    """Simple constraints, as Fairlearn defines them: each group's constraint metric, the pooled one, the objective
    and the overall curve weighted by the groups' released shares (over the groups that have a curve).
    """
    x_metric, y_metric = metrics
    by_group = curves["by_group"]
    share = dict(zip(groups, totals.sum(axis=1), strict=False))
    x_per_group = {group: float(_metric(x_metric, *fitted[a], *totals[a])) for a, group in enumerate(groups)}
    y_per_group = {group: float(_metric(y_metric, *fitted[a], *totals[a])) for a, group in enumerate(groups)}
    overall = sum((share[group] * curve["y"] for group, curve in by_group.items()),
                  pd.Series(np.zeros(curves["x_grid"].size)))
    finite = [value for value in x_per_group.values() if np.isfinite(value)]
    return {"overall_tradeoff_curve": pd.DataFrame({"x": curves["x_grid"], "y": overall}), "x_best": x_best,
            "x_best_per_group": x_per_group, "y_best": float(sum(share[g] * y_per_group[g] for g in by_group)),
            "between_groups": float(max(finite) - min(finite)) if finite else float("nan")}
