"""Default audit cases for every row of :mod:`fairdp_adapters.registry`, built from the row's neighbouring relation.

Each case fits the estimator on a small synthetic dataset ``D`` and on a neighbour ``D'`` that differs in exactly
one unit of the row's declared relation, so that one cell of the released statistic loses one count and one cell
gains one. The event tests the released statistic at those two cells:

    released[lost] >= true_D[lost]   and   released[gained] <= true_D[gained].

For Laplace noise of scale ``b = 2 / (n epsilon)`` per cell and a count change of ``1 / n`` in each of the two cells
(L1 sensitivity ``2 / n``), this event has probability exactly ``1/4`` on ``D`` and ``e^{-epsilon} / 4`` on ``D'``:
the likelihood ratio reaches ``e^epsilon`` everywhere on it, so it is an optimal event for this mechanism. A
threshold on one cell alone, at the true value of one dataset, reaches only ``e^{epsilon/2}`` (the budget is spread
over two cells); a one-cell threshold at the midpoint of the two true values gives a ratio of
``(2 e^{epsilon/4} - 1)`` (about ``e^{0.45}`` at ``epsilon = 1``).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, NamedTuple

import numpy as np

from ._audit import audit

__all__ = ["AuditCase", "default_audit_case", "audit_registered"]


class AuditCase(NamedTuple):
    """Arguments of :func:`~fairlearn_dp.audit.audit` for one registry row (unpacks as a 5-tuple)."""

    factory: Callable[[int], Any]
    dataset: dict
    neighbour: dict
    event: Callable[[Any], bool]
    declared_epsilon: float


class _CellEvent:
    """``released[lost] >= threshold_lost and released[gained] <= threshold_gained`` on a fitted object."""

    def __init__(self, attribute, lost, gained, threshold_lost, threshold_gained):
        self.attribute = attribute
        self.lost = tuple(int(i) for i in lost)
        self.gained = tuple(int(i) for i in gained)
        self.threshold_lost = float(threshold_lost)
        self.threshold_gained = float(threshold_gained)

    @property
    def description(self):
        return (f"{self.attribute}[{', '.join(map(str, self.lost))}] >= {self.threshold_lost:.6g} and "
                f"{self.attribute}[{', '.join(map(str, self.gained))}] <= {self.threshold_gained:.6g} (true values "
                "on D; D' moves one count from the first cell to the second)")

    def __call__(self, fitted):
        released = np.asarray(_attribute(fitted, self.attribute), dtype=float)
        return bool(released[self.lost] >= self.threshold_lost and released[self.gained] <= self.threshold_gained)

    def __repr__(self):
        return f"_CellEvent({self.description})"


def _attribute(obj, dotted):
    return functools.reduce(getattr, dotted.split("."), obj)


# --------------------------------------------------------------------------------------------- estimators
def _accountant():
    from diffprivlib import BudgetAccountant

    return BudgetAccountant()


def _make_fair_regression(epsilon, seed):
    from ..postprocessing import DPFairRegressionPostprocessor

    return DPFairRegressionPostprocessor(epsilon=epsilon, bounds=(0.0, 1.0), n_bins=_N_BINS, groups=[0, 1],
                                         accountant=_accountant(), random_state=seed)


def _make_threshold_optimizer(epsilon, seed):
    from ..postprocessing import DPThresholdOptimizer

    return DPThresholdOptimizer(constraints="equalized_odds", predict_method="predict", flip=True,
                                epsilon=epsilon, groups=[0, 1], privacy_unit="sensitive_attribute",
                                accountant=_accountant(), random_state=seed)


def _make_aif360_fair_regression(epsilon, seed):
    from aif360_dp.algorithms.postprocessing import DPFairRegressionPostprocessing

    return DPFairRegressionPostprocessing(epsilon=epsilon, bounds=(0.0, 1.0), n_bins=_N_BINS,
                                          accountant=_accountant(), seed=seed)


def _make_aif360_eq_odds(epsilon, seed):
    from aif360_dp.algorithms.postprocessing import DPEqOddsPostprocessing

    return DPEqOddsPostprocessing([{"a": 0.0}], [{"a": 1.0}], seed=seed, epsilon=epsilon,
                                  accountant=_accountant())


# ------------------------------------------------------------------------------------------------ data
_N_BINS = 4
_CENTRES = (np.arange(_N_BINS) + 0.5) / _N_BINS      # outputs sit on bin centres: no rounding at bin edges


def _regression_records(n):
    """``n`` regressor outputs on bin centres and groups 0/1; record 0 is (lowest bin, group 0)."""
    rng = np.random.default_rng(2024)
    groups = np.arange(n) % 2
    outputs = _CENTRES[rng.integers(0, _N_BINS, n)]
    outputs[0], groups[0] = _CENTRES[0], 0
    # Substitution of record 0 by (highest bin, group 1): cell (0, 0) loses one count, cell (1, k-1) gains one.
    outputs_prime, groups_prime = outputs.copy(), groups.copy()
    outputs_prime[0], groups_prime[0] = _CENTRES[-1], 1
    return (outputs, groups), (outputs_prime, groups_prime)


def _classification_records(n):
    """Base predictions, labels and groups 0/1 with every (group, label) present; neighbour: person 0's group
    changes from 0 to 1 (predictions and labels unchanged)."""
    rng = np.random.default_rng(2019)
    groups = np.arange(n) % 2
    labels = (np.arange(n) // 2) % 2
    predictions = np.where(rng.random(n) < 0.75, labels, 1 - labels)
    groups_prime = groups.copy()
    groups_prime[0] = 1
    return predictions, labels, groups, groups_prime


def _fair_regression_case(n):
    (x, a), (x_prime, a_prime) = _regression_records(n)
    return (_make_fair_regression, {"X": x[:, None], "sensitive_features": a},
            {"X": x_prime[:, None], "sensitive_features": a_prime}, "noisy_joint_pmf_")


def _threshold_optimizer_case(n):
    predictions, labels, a, a_prime = _classification_records(n)
    X = predictions[:, None].astype(float)
    return (_make_threshold_optimizer, {"X": X, "y": labels, "sensitive_features": a},
            {"X": X, "y": labels, "sensitive_features": a_prime}, "noisy_table_")


def _aif360_regression_dataset(outputs, groups):
    import pandas as pd

    from aif360_dp.datasets._base import BundledRegressionDataset

    index = pd.RangeIndex(outputs.size)
    features = pd.DataFrame({"x": np.linspace(0.0, 1.0, outputs.size)}, index=index)
    return BundledRegressionDataset(features=features, target=pd.Series(outputs, index=index, name="y"),
                                    groups=pd.Series(groups, index=index, name="a"),
                                    group_names={0: "group 0", 1: "group 1"}, privileged_group=0,
                                    label_bounds=(0.0, 1.0))


def _aif360_fair_regression_case(n):
    (x, a), (x_prime, a_prime) = _regression_records(n)
    return (_make_aif360_fair_regression, {"dataset_true": _aif360_regression_dataset(x, a)},
            {"dataset_true": _aif360_regression_dataset(x_prime, a_prime)}, "model_.noisy_joint_pmf_")


def _aif360_binary_datasets(predictions, labels, groups):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    frame = pd.DataFrame({"a": groups.astype(float), "x": np.linspace(0.0, 1.0, groups.size),
                          "y": labels.astype(float)})
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])
    predicted = truth.copy(deepcopy=True)
    predicted.labels = predictions.astype(float).reshape(-1, 1)
    return {"dataset_true": truth, "dataset_pred": predicted}


def _aif360_eq_odds_case(n):
    predictions, labels, a, a_prime = _classification_records(n)
    return (_make_aif360_eq_odds, _aif360_binary_datasets(predictions, labels, a),
            _aif360_binary_datasets(predictions, labels, a_prime), "model_.noisy_table_")


# Registry row -> (phrase its declared neighbouring relation must contain, case builder).
_XIAN = "substitution of one fitting record"
_JAGIELSKI = "one person's sensitive attribute changed"
_CASES = {
    "DPFairRegressionPostprocessor": (_XIAN, _fair_regression_case),
    "DPThresholdOptimizer": (_JAGIELSKI, _threshold_optimizer_case),
    "DPFairRegressionPostprocessing": (_XIAN, _aif360_fair_regression_case),
    "DPEqOddsPostprocessing": (_JAGIELSKI, _aif360_eq_odds_case),
}


def default_audit_case(entry_name, *, epsilon=1.0, n=40):
    """The default audit of one registry row: ``(factory, dataset, neighbour, event, declared_epsilon)``.

    ``D`` has ``n`` records; ``D'`` differs from it in one unit of the row's declared neighbouring relation:
    substitution of one record ``(x, a)`` for the Xian et al. post-processors (one cell of the joint PMF loses a
    count, another gains one), one person's sensitive attribute for the Jagielski et al. post-processors (the
    person's (prediction, label) count moves from group 0 to group 1 in the released table). The event
    thresholds the released statistic at those two cells at their true values on ``D`` (computed by a fit with
    ``epsilon=inf``, which adds no noise): see the module docstring for why this event is optimal for the Laplace
    mechanism. The AIF360 transformers are audited through their ``model_``.

    Parameters
    ----------
    entry_name : str
        A registry row's name (:func:`fairdp_adapters.registry.get`).
    epsilon : float, default=1.0
        Budget of the audited estimator (its declared epsilon).
    n : int, default=40
        Records in each dataset (>= 8).

    Returns
    -------
    AuditCase

    Raises
    ------
    KeyError
        ``entry_name`` is not a registry row.
    NotImplementedError
        The row has no default audit case (a new row: add one here), or its declared neighbouring relation is not
        the one the case was built for.
    """
    from fairdp_adapters import registry

    entry = registry.get(entry_name)
    if entry.name not in _CASES:
        raise NotImplementedError(
            f"Registry row {entry.name!r} ({entry.dp_class}) has no default privacy-audit case: add one for its "
            f"neighbouring relation ({entry.neighbouring!r}) to fairlearn_dp/audit/_registry_cases.py.")
    relation, builder = _CASES[entry.name]
    if relation not in entry.neighbouring:
        raise NotImplementedError(
            f"The default audit case of registry row {entry.name!r} assumes the neighbouring relation "
            f"{relation!r}, but the row declares {entry.neighbouring!r}: update the case.")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 8:
        raise ValueError(f"n must be an integer >= 8, got {n!r}.")
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon < math.inf):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}.")
    make, dataset, neighbour, attribute = builder(int(n))
    event = _optimal_event(make, dataset, neighbour, attribute, entry.name)
    return AuditCase(functools.partial(make, float(epsilon)), dataset, neighbour, event, float(epsilon))


def _optimal_event(make, dataset, neighbour, attribute, name):
    """The two-cell event at the true values on ``D``, after checking that ``D'`` moves exactly one count."""
    truth = np.asarray(_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    change = truth - truth_prime
    changed = np.flatnonzero(np.abs(change.ravel()) > 1e-12)
    lost, gained = np.unravel_index(np.argmax(change), change.shape), np.unravel_index(np.argmin(change),
                                                                                       change.shape)
    if changed.size != 2 or not math.isclose(change[lost], -change[gained], rel_tol=1e-9):
        raise RuntimeError(f"The default neighbours of {name!r} do not move exactly one count between two cells "
                           f"of {attribute} (changed cells: {changed.size}).")
    return _CellEvent(attribute, lost, gained, truth[lost], truth[gained])


def audit_registered(name, *, n_runs=2000, random_state=None, epsilon=1.0, n=40, confidence=0.95, n_jobs=None):
    """Audit registry row ``name`` on its :func:`default_audit_case`; returns an :class:`AuditResult`."""
    case = default_audit_case(name, epsilon=epsilon, n=n)
    return audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=n_runs,
                 declared_epsilon=case.declared_epsilon, confidence=confidence, random_state=random_state,
                 n_jobs=n_jobs)
