"""The cells of the classification metric's release and AIF360's inequality indices computed from counts.

For binary labels the benefit of a row, ``b = y_pred - y_true + 1``, takes three values: 0 on a false negative,
1 on a true positive or true negative, 2 on a false positive. So any function of the multiset of benefits (AIF360's
generalized entropy index, Theil index, coefficient of variation) is a function of the confusion counts, and the
between-group versions (each row's benefit replaced by its group's mean benefit, 0 for the rows in no group, as
AIF360 does) are functions of the per-group confusion counts. :func:`generalized_entropy` evaluates AIF360's
expressions on a distribution given as (value, count) pairs, so the released (possibly fractional) counts are
post-processed exactly as AIF360 processes rows. Formulas and derivation: ``docs/privacy_analysis/aif360_metrics.md``.
"""

from __future__ import annotations

import numbers
from itertools import product

import numpy as np
from aif360.metrics import utils as aif360_utils

__all__ = ["declared_intersections", "intersection_index", "dataset_intersections", "require_declared_cells", "benefit_distribution",
           "between_group_distribution", "generalized_entropy", "check_alpha", "smoothed_differential_fairness"]

#: The benefit values of the confusion bins (tn, fp, fn, tp).
_BIN_BENEFITS = np.array([1.0, 2.0, 0.0, 1.0])


def declared_intersections(dataset):
    """AIF360's ``between_all_groups`` groups: every combination of the declared privileged and unprivileged values
    of the protected attributes (dataset metadata, public), in AIF360's order, without repeats; ``(K, m)``.
    """
    all_values = [np.concatenate([np.ravel(p), np.ravel(u)]) for p, u in
                  zip(dataset.privileged_protected_attributes, dataset.unprivileged_protected_attributes, strict=False)]
    combinations = []
    for values in product(*all_values):
        if not any(all(a == b for a, b in zip(values, seen, strict=False)) for seen in combinations):
            combinations.append(values)
    return np.array(combinations, dtype=float).reshape(len(combinations), len(all_values))


def intersection_index(attributes, names, intersections):
    """Each row's intersection (an index into ``intersections``), -1 for a row with a value that is not declared."""
    index = np.full(attributes.shape[0], -1, dtype=np.int64)
    for k, values in enumerate(intersections):
        mask = aif360_utils.compute_boolean_conditioning_vector(attributes, list(names),
                                                                [dict(zip(names, values, strict=False))])
        index[mask & (index < 0)] = k
    return index


def require_declared_cells(cells):
    """``cells`` (each row's cell index, -1 for none), refusing a row in no cell: its protected-attribute values are
    not declared (AIF360's own datasets refuse such rows, ``StructuredDataset.validate_dataset``).
    """
    if np.any(cells < 0):
        raise ValueError("dataset has protected-attribute values that are neither in its "
                         "privileged_protected_attributes nor in its unprivileged_protected_attributes (AIF360's "
                         "datasets refuse them): declare every value.")
    return cells


def dataset_intersections(dataset, intersections):
    """:func:`intersection_index` of ``dataset``'s rows, every row in a declared intersection
    (:func:`require_declared_cells`).
    """
    return require_declared_cells(intersection_index(dataset.protected_attributes, dataset.protected_attribute_names,
                                                     intersections))


def benefit_distribution(counts):
    """``(values, weights)`` of the benefits of rows with confusion counts ``(tn, fp, fn, tp)``."""
    return _BIN_BENEFITS, np.asarray(counts, dtype=float)


def between_group_distribution(group_counts, rest):
    """``(values, weights)``: each group's mean benefit with its row count (groups with no rows left out, as AIF360
    skips them), and benefit 0 for the ``rest`` rows that are in no group (AIF360 leaves them at 0).
    """
    group_counts = np.asarray(group_counts, dtype=float).reshape(-1, 4)
    sizes = group_counts.sum(axis=1)
    present = sizes > 0
    means = group_counts[present] @ _BIN_BENEFITS / sizes[present]
    return np.append(means, 0.0), np.append(sizes[present], rest)


def generalized_entropy(values, weights, alpha):
    """AIF360's ``generalized_entropy_index`` of the distribution with ``weights[i]`` rows of benefit ``values[i]``.

    The mean of AIF360's per-row term over the rows, with the same expressions (``alpha = 1``:
    ``log((b / mu) ** b) / mu``; ``alpha = 0``: ``-log(b / mu) / mu``; otherwise ``((b / mu) ** alpha - 1)``,
    divided by ``alpha (alpha - 1)`` after the mean), ``mu`` the mean benefit; values with no rows are not
    evaluated (AIF360 evaluates the rows present only). ``nan`` with no row or a zero mean, as in AIF360.
    """
    values, weights = np.asarray(values, dtype=float), np.asarray(weights, dtype=float)
    present = weights > 0
    values, weights = values[present], weights[present]
    n = weights.sum()
    if n <= 0:
        return np.float64(np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        mu = np.float64((weights * values).sum() / n)
        if alpha == 1:
            terms = np.log((values / mu) ** values) / mu
        elif alpha == 0:
            terms = -np.log(values / mu) / mu
        else:
            return np.float64((weights * ((values / mu) ** alpha - 1)).sum() / n / (alpha * (alpha - 1)))
        return np.float64((weights * terms).sum() / n)


def check_alpha(alpha):
    """``alpha`` as a finite real number; a ``TypeError``/``ValueError`` naming it."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a real number, got {type(alpha).__name__}.")
    if not np.isfinite(alpha):
        raise ValueError(f"alpha must be finite, got {alpha!r}.")
    return alpha


def smoothed_differential_fairness(positives, totals, concentration):
    """AIF360's ``smoothed_empirical_differential_fairness`` of groups with ``positives`` favorable rows out of
    ``totals``: the largest ``|ln r_i - ln r_j|`` or ``|ln(1 - r_i) - ln(1 - r_j)|`` over pairs ``i != j`` of the
    Dirichlet-smoothed rates ``r = (positives + concentration / 2) / (totals + concentration)``, in AIF360's order.
    """
    if isinstance(concentration, bool) or not isinstance(concentration, numbers.Real):
        raise TypeError(f"concentration must be a real number, got {type(concentration).__name__}.")
    if not concentration >= 0 or not np.isfinite(concentration):
        raise ValueError("Concentration parameter must be non-negative (and finite).")
    if len(totals) < 2:
        raise ValueError("smoothed empirical differential fairness needs at least two intersections with rows.")
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = (np.asarray(positives, dtype=float) + concentration / 2) / (np.asarray(totals, dtype=float)
                                                                            + concentration)
        positive, negative = np.log(rates), np.log(1 - rates)
        return max(max(abs(positive[i] - positive[j]), abs(negative[i] - negative[j]))
                   for i in range(len(rates)) for j in range(len(rates)) if i != j)
