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

The zCDP rows (the budget-tailoring estimators, whose neighbours substitute one record within its group) release
Gaussian noise instead, and declare ``(epsilon, delta)`` with ``delta > 0``: the conversion ``epsilon = rho + 2
sqrt(rho ln(1/delta))`` they report and charge. Their case isolates one Gaussian release -- ``n_iter=1`` and
``budget_allocation="uniform"`` (no stage 1), one feature, no intercept -- so the released statistic is each
group's clipped mean gradient at ``theta = 0`` (``history_["noisy_gradients"]``), and the substituted record turns
its clipped gradient from ``-clip`` into ``+clip``: the changed group's mean moves by exactly the declared L2
sensitivity ``2 clip / n_k`` in one cell, nothing else moves. The event thresholds that cell at its true value on
``D``:

    released[cell] <= true_D[cell]     (D' moves the cell up by ``Delta = 2 clip / n_k``)

which has probability ``1/2`` on ``D`` and ``Phi(-Delta / sigma)`` on ``D'`` with the declared ``sigma``. The
bound uses the declared delta, ``epsilon >= ln((p - delta) / p')``. This threshold keeps probability 1/2 on ``D``
whatever the noise scale, so a release with far too little noise is caught (the test suite checks one with a
twentieth of the declared sigma), and at a few thousand runs it gives a larger lower bound than thresholds further
in the tail. The bound stays far below the declared epsilon even for a correct release: the zCDP-to-(epsilon,
delta) conversion is loose, and the declared budget also pays for the other groups' releases (sequential
composition over groups, as the class states), so the record's group uses only ``rho / K`` of it. Such an audit
can catch gross errors (wrong sensitivity by a large factor, noise not added), not subtle ones.

The in-processing rows (DP exponentiated gradient, the exponential-mechanism learner, private FairNR) release
several statistics and compose their budgets: their cases (:mod:`._inprocessing_cases`) isolate one release, whose
distribution alone differs between ``D`` and ``D'`` among those the event reads, and audit it against the epsilon
the fitted object declares for that release (the estimator gets ``shares x epsilon`` in total, so that release gets
``epsilon``).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable, NamedTuple

import numpy as np

from ._audit import audit
from ._events import _attribute, _CellEvent, _ThresholdEvent
from ._inprocessing_cases import (
    _aif360_exponentiated_gradient_case,
    _aif360_gerryfair_case,
    _exponential_mechanism_case,
    _exponentiated_gradient_case,
    _gerryfair_case,
    exponential_mechanism_default_n,
)

__all__ = ["AuditCase", "default_audit_case", "audit_registered"]


class AuditCase(NamedTuple):
    """Arguments of :func:`~fairlearn_dp.audit.audit` for one registry row (unpacks as a 6-tuple).

    ``declared_delta`` is 0 for the pure-DP rows and the delta of the reported ``(epsilon, delta)`` conversion for
    the zCDP rows. For the in-processing rows, ``declared_epsilon`` and ``declared_delta`` are what the class declares
    for the one release the event reads (e.g. ``epsilon_per_mechanism_``), not the fit's total.
    ``event.expected_probabilities`` holds the event's probabilities on ``D`` and ``D'`` when the release is exactly
    the declared mechanism (a check of the audit's calibration).
    """

    factory: Callable[[int], Any]
    dataset: dict
    neighbour: dict
    event: Callable[[Any], bool]
    declared_epsilon: float
    declared_delta: float = 0.0


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


def _group_budget_params(epsilon, rho, clip):
    """One Gaussian release per group: DPNoSE (no stage 1), one iteration, no intercept (see the module docstring).
    ``rho`` given: the (near-)noiseless reference fit that gives the true values."""
    return dict(epsilon=None if rho is not None else epsilon, rho=rho, budget_allocation="uniform", n_iter=1,
                fit_intercept=False, data_bound=1.0, clip=clip, accountant=_accountant())


def _make_group_budget_regressor(epsilon, seed, rho=None):
    from ..reductions import DPGroupBudgetRegressor

    return DPGroupBudgetRegressor(**_group_budget_params(epsilon, rho, clip=2.0), groups=[0, 1],
                                  random_state=seed)


def _make_group_budget_classifier(epsilon, seed, rho=None):
    from ..reductions import DPGroupBudgetClassifier

    return DPGroupBudgetClassifier(**_group_budget_params(epsilon, rho, clip=0.5), groups=[0, 1],
                                   random_state=seed)


def _make_aif360_group_budget_regression(epsilon, seed, rho=None):
    from aif360_dp.algorithms.inprocessing import DPGroupBudgetRegression

    return DPGroupBudgetRegression(**_group_budget_params(epsilon, rho, clip=2.0), seed=seed)


def _make_aif360_group_budget_classification(epsilon, seed, rho=None):
    from aif360_dp.algorithms.inprocessing import DPGroupBudgetClassification

    return DPGroupBudgetClassification(**_group_budget_params(epsilon, rho, clip=0.5), seed=seed)


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


def _group_budget_records(n, *, classification):
    """One feature in [-1, 1] and groups 0/1 alternating; record 0 is (x = 1, group 0, y = +1 / class 1). ``D'``
    substitutes record 0 within group 0 by (x = 1, y = -1 / class 0). At ``theta = 0`` its per-example gradient
    (``-2 y x`` squared loss, ``-y x / 2`` logistic loss with y coded -1/+1) goes from ``-clip`` to ``+clip`` for
    clip 2 (regressor) and 0.5 (classifier). Other records hold the extreme values (x = -1; y = -1 and +1), so that
    an AIF360 RegressionDataset's min-max scaling is the same on both datasets."""
    rng = np.random.default_rng(2023)
    groups = np.arange(n) % 2
    x = rng.uniform(-1.0, 1.0, n)
    y = (np.arange(n) // 2 % 2).astype(float) if classification else rng.uniform(-1.0, 1.0, n)
    x[0], y[0] = 1.0, 1.0
    x[1] = -1.0
    if not classification:
        y[2], y[4] = -1.0, 1.0                  # the label range stays [-1, 1] on D' (record 0 becomes -1)
    y_prime = y.copy()
    y_prime[0] = 0.0 if classification else -1.0
    return x, y, y_prime, groups


def _group_budget_case(n, *, classification):
    x, y, y_prime, groups = _group_budget_records(n, classification=classification)
    make = _make_group_budget_classifier if classification else _make_group_budget_regressor
    return (make, {"X": x[:, None], "y": y, "sensitive_features": groups},
            {"X": x[:, None], "y": y_prime, "sensitive_features": groups}, "history_.noisy_gradients",
            "history_.sigma_gradient")


def _aif360_group_budget_regression_case(n):
    import pandas as pd

    from aif360_dp.datasets._base import BundledRegressionDataset

    x, y, y_prime, groups = _group_budget_records(n, classification=False)
    index = pd.RangeIndex(n)

    def dataset(target):
        # AIF360 min-max scales x to (x + 1) / 2 (record 0 stays at 1) and the label from its observed range
        # [-1, 1]; label_bounds (-1, 1) maps it back onto [-1, 1] for the engine.
        return {"dataset": BundledRegressionDataset(
            features=pd.DataFrame({"x": x}, index=index), target=pd.Series(target, index=index, name="y"),
            groups=pd.Series(groups, index=index, name="a"), group_names={0: "group 0", 1: "group 1"},
            privileged_group=0, label_bounds=(-1.0, 1.0))}

    return (_make_aif360_group_budget_regression, dataset(y), dataset(y_prime), "model_.history_.noisy_gradients",
            "model_.history_.sigma_gradient")


def _aif360_group_budget_classification_case(n):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    x, y, y_prime, groups = _group_budget_records(n, classification=True)

    def dataset(labels):
        frame = pd.DataFrame({"a": groups.astype(float), "x": x, "y": labels})
        return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}

    return (_make_aif360_group_budget_classification, dataset(y), dataset(y_prime),
            "model_.history_.noisy_gradients", "model_.history_.sigma_gradient")


# Registry row -> (phrase its declared neighbouring relation must contain, case builder, event builder).
_XIAN = "substitution of one fitting record"
_JAGIELSKI = "one person's sensitive attribute changed"
_WITHIN_GROUP = "substitution of one record (x, a, y) within its group"
_RECORD = "substitution of one record (x, a, y); n public"
_CASES = {
    "DPFairRegressionPostprocessor": (_XIAN, _fair_regression_case, "laplace"),
    "DPThresholdOptimizer": (_JAGIELSKI, _threshold_optimizer_case, "laplace"),
    "DPFairRegressionPostprocessing": (_XIAN, _aif360_fair_regression_case, "laplace"),
    "DPEqOddsPostprocessing": (_JAGIELSKI, _aif360_eq_odds_case, "laplace"),
    "DPGroupBudgetRegressor": (_WITHIN_GROUP, functools.partial(_group_budget_case, classification=False),
                               "gaussian"),
    "DPGroupBudgetClassifier": (_WITHIN_GROUP, functools.partial(_group_budget_case, classification=True),
                                "gaussian"),
    "DPGroupBudgetRegression": (_WITHIN_GROUP, _aif360_group_budget_regression_case, "gaussian"),
    "DPGroupBudgetClassification": (_WITHIN_GROUP, _aif360_group_budget_classification_case, "gaussian"),
    # One release of a multi-release mechanism (builder(n, epsilon) returns the whole case): _inprocessing_cases.
    "DPExponentiatedGradient": (_JAGIELSKI, _exponentiated_gradient_case, "single_release"),
    "DPExponentiatedGradientReduction": (_JAGIELSKI, _aif360_exponentiated_gradient_case, "single_release"),
    "ExponentialMechanismFairClassifier": (_RECORD, _exponential_mechanism_case, "single_release"),
    "DPGerryFairClassifier": (_RECORD, _gerryfair_case, "single_release"),
    "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier": (_RECORD, _aif360_gerryfair_case, "single_release"),
}


# Records of each default dataset (n=None): 40, or a row's own choice as a function of epsilon.
_DEFAULT_N = 40
_ROW_DEFAULT_N = {"ExponentialMechanismFairClassifier": exponential_mechanism_default_n}


def default_audit_case(entry_name, *, epsilon=1.0, n=None):
    """The default audit of one registry row: ``(factory, dataset, neighbour, event, declared_epsilon)``.

    ``D`` has ``n`` records; ``D'`` differs from it in one unit of the row's declared neighbouring relation:
    substitution of one record ``(x, a)`` for the Xian et al. post-processors (one cell of the joint PMF loses a
    count, another gains one), one person's sensitive attribute for the Jagielski et al. post-processors (the
    person's (prediction, label) count moves from group 0 to group 1 in the released table). The event
    thresholds the released statistic at those two cells at their true values on ``D`` (computed by a fit with
    ``epsilon=inf``, which adds no noise): see the module docstring for why this event is optimal for the Laplace
    mechanism. For the budget-tailoring (zCDP) rows, ``D'`` substitutes one record's label within its group and
    the event thresholds the one released gradient cell that moves at its true value on ``D`` (computed by a fit
    with a budget so large that the noise is negligible, ``rho = 1e16``); the declared epsilon and delta are the
    ``(epsilon, delta)`` the class reports for ``epsilon`` (its ``privacy_spent_``). For the in-processing rows
    (DP exponentiated gradient, exponential-mechanism learner, private FairNR), the case isolates one release of
    the mechanism, gives the estimator the total budget that leaves exactly ``epsilon`` to that release, and
    declares the ``(epsilon, delta)`` the fitted object states for it (see :mod:`._inprocessing_cases` for each
    row's neighbours and event). The AIF360 transformers are audited through their ``model_``.

    Parameters
    ----------
    entry_name : str
        A registry row's name (:func:`fairdp_adapters.registry.get`).
    epsilon : float, default=1.0
        Budget of the audited estimator (its declared epsilon); for the in-processing rows, the budget of the audited
        release.
    n : int or None, default=None
        Records in each dataset (>= 8). None: 40, except ``ExponentialMechanismFairClassifier`` (an even ``n >=
        12`` large enough that its noisy group size practically never stops a fit: 58 at ``epsilon = 1``).

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
    relation, builder, kind = _CASES[entry.name]
    if relation not in entry.neighbouring:
        raise NotImplementedError(
            f"The default audit case of registry row {entry.name!r} assumes the neighbouring relation "
            f"{relation!r}, but the row declares {entry.neighbouring!r}: update the case.")
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon < math.inf):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}.")
    if n is None:
        n = _ROW_DEFAULT_N[entry.name](float(epsilon)) if entry.name in _ROW_DEFAULT_N else _DEFAULT_N
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 8:
        raise ValueError(f"n must be an integer >= 8, got {n!r}.")
    if kind == "single_release":
        make, dataset, neighbour, event, declared = builder(int(n), float(epsilon))
        return AuditCase(functools.partial(make, float(epsilon)), dataset, neighbour, event, declared.epsilon,
                         declared.delta)
    make, dataset, neighbour, *attributes = builder(int(n))
    if kind == "laplace":
        event = _optimal_event(make, dataset, neighbour, *attributes, entry.name, epsilon=float(epsilon))
        return AuditCase(functools.partial(make, float(epsilon)), dataset, neighbour, event, float(epsilon), 0.0)
    event, declared = _gaussian_event(make, dataset, neighbour, *attributes, entry.name, epsilon=float(epsilon))
    return AuditCase(functools.partial(make, float(epsilon)), dataset, neighbour, event, declared.epsilon,
                     declared.delta)


def _optimal_event(make, dataset, neighbour, attribute, name, *, epsilon):
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
    return _CellEvent(attribute, lost, gained, truth[lost], truth[gained],
                      expected_probabilities=(0.25, 0.25 * math.exp(-epsilon)))


# Budget of the reference fits giving the true values of the Gaussian releases: sigma = Delta / sqrt(rho) (two
# groups, one iteration), about 1e-8 Delta here, against a declared sigma of about 7.6 Delta at epsilon = 1.
_NOISELESS_RHO = 1e16


def _gaussian_event(make, dataset, neighbour, attribute, sigma_attribute, name, *, epsilon):
    """The one-cell threshold event at the true value on ``D`` of the released Gaussian statistic that ``D'`` moves,
    after checking that it moves exactly one cell; also returns the declared spend of a fit at ``epsilon``.

    The two reference fits share their seed, hence their noise draws, so the cells ``D'`` does not change are
    equal exactly and the changed cell differs by exactly the change of the true value.
    """
    truth = np.asarray(_attribute(make(None, 0, rho=_NOISELESS_RHO).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(_attribute(make(None, 0, rho=_NOISELESS_RHO).fit(**neighbour), attribute),
                             dtype=float)
    change = truth_prime - truth
    changed = np.flatnonzero(change.ravel() != 0)
    if changed.size != 1:
        raise RuntimeError(f"The default neighbours of {name!r} do not move exactly one cell of {attribute} "
                           f"(changed cells: {changed.size}).")
    cell = np.unravel_index(changed[0], change.shape)
    declared = make(epsilon, 0).fit(**dataset)
    sigma = np.asarray(_attribute(declared, sigma_attribute), dtype=float)[cell[1]]      # cell = (t, group, j)
    event = _ThresholdEvent(attribute, cell, truth[cell], change[cell], sigma)
    return event, _attribute(declared, "privacy_spent_")


def audit_registered(name, *, n_runs=2000, random_state=None, epsilon=1.0, n=None, confidence=0.95, n_jobs=None):
    """Audit registry row ``name`` on its :func:`default_audit_case`; returns an :class:`AuditResult`."""
    case = default_audit_case(name, epsilon=epsilon, n=n)
    return audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=n_runs,
                 declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, confidence=confidence,
                 random_state=random_state, n_jobs=n_jobs)
