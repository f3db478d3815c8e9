"""Default privacy-audit cases for every row of :mod:`fairdp_adapters.registry`, built from the row's neighbouring
relation.

The generic audit (:func:`fairlearn_dp.audit.audit`, the events, the bounds) is part of the engine and knows no
estimator; the cases, which build each registered estimator and its two neighbouring datasets (through the AIF360
face where the row belongs to it), are test-support code that lives with the audit's tests, not in an installed
package (they read private engine names), so that the engine never imports its faces. ``fairdp audit`` loads this
file from a source checkout. A new registry row without a case makes :func:`default_audit_case` raise
``NotImplementedError`` (and the test suite fail).

Post-processing and zCDP rows
-----------------------------
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

In-processing rows
------------------
The DP exponentiated gradient (Jagielski et al. 2019, Alg. 3), the exponential-mechanism learner (Cummings et al.
2019, Alg. 1) and private FairNR (Cummings et al. 2019, Sec. 5) each release several statistics and compose their
budgets. An audit of the whole output against the total budget would be hopelessly loose, so each case fixes a
configuration in which the event reads one release whose distribution differs between ``D`` and ``D'``, every other
release it depends on having the same distribution on both, and compares the lower bound with the epsilon the fitted
object declares for that release (``epsilon_per_mechanism_``, ``exponential_mechanism_epsilon_``,
``per_release_spend_``). The factories give the estimator a total budget of (number of equal shares) x
``epsilon``, so that the audited release gets exactly ``epsilon`` (1 by default) as in the single-release rows; the
case checks that the fitted object declares that value. Per row:

- ``JagielskiExponentiatedGradient`` (neighbours: one person's sensitive attribute changed): ``max_iter=1``,
  ``DemographicParity``, ``delta=0`` with a public ``min_count`` (basic composition over
  the 2T = 2 mechanisms: each gets ``epsilon_total / 2``) and a one-hypothesis class, so the Learner's exponential
  mechanism is data-independent and the only data-dependent release is the Auditor's Laplace-noised violation vector
  ``history_["noisy_gamma"]`` (L1 sensitivity ``4 / (N - 1)``, scale ``history_["noise_scale"]``). Person 0, the
  only one the hypothesis labels 1, moves from group 0 to group 1: group 0's mean prediction drops from ``1/n_0`` to
  0 and group 1's rises from 0 to ``1/(n_1 + 1)``, moving all four coordinates (each group's ``+`` and ``-``
  constraint) by ``2/n_0 + 2/(n_1 + 1)`` in L1 -- about 0.88 of the declared sensitivity at ``n = 40`` (``N = 19``),
  the most one attribute change can move them with these group sizes. The event is the orthant of the four moved
  coordinates beyond their true values on ``D`` (probabilities ``1/16`` and ``e^{-0.88 epsilon} / 16``). A
  two-hypothesis class would not make the Learner's release auditable here: in round 1 the multipliers are uniform,
  so the ``+`` and ``-`` violations cancel in every hypothesis' cost, which then does not depend on the sensitive
  attribute at all.
- ``ExponentialMechanismFairClassifier`` (substitution of one record; ``n = 1000`` records by default, see
  :func:`exponential_mechanism_default_n`): the worst case of the tight sensitivity ``max(w min(2 / L, 1), w / L +
  1/n)``, reachable at the floor ``L = 1`` (for ``L > 1`` it needs a group with at most ``L`` positive examples, i.e.
  ``M`` overshooting the smallest count, which has probability ``delta / 2``).
  Group 0 has one positive example, record 0, so ``M = 1 + Y - ln(1/delta) / epsilon_size < 2`` and ``L = 1`` on all
  but a ``1e-9`` share of the fits, and the declared sensitivity is ``w + 1/n``. Two hypotheses ``1[x_1 >= 1/2]`` and
  ``1[x_2 >= 1/2]`` have equal utility losses on ``D``; ``D'`` substitutes record 0's features ``(1, 0)`` by ``(0,
  1)``. Every group's positive count is unchanged, so ``M`` has the same distribution on both, and the exponential
  mechanism's choice is the audited release (``exponential_mechanism_epsilon_``, with the class's ``delta_``). The
  first hypothesis' loss rises by 0.92 of the sensitivity (its gap widens, and it errs on record 0), the second's
  falls by all of it (its gap closes, and it no longer errs), so the two losses part by 0.96 of the most two losses
  can part, ``2 Delta`` (equal losses on ``D`` cap it there; see ``_selection_records``). The event "the first
  hypothesis is selected" has probability exactly ``1/2`` on ``D`` whatever the mechanism's scale, so a mechanism
  with far too little noise is caught, and ``1 / (1 + e^{0.96 epsilon})`` on ``D'``: ``ln(p / p') = 0.59`` at
  ``epsilon = 1`` for the correct mechanism (two candidates cannot reach more than ``ln((1 + e^epsilon) / 2) =
  0.62``), 1.36 for one with half the sensitivity, which the test suite checks is caught.
- ``DPGerryFairClassifier`` (both faces; substitution of one record): ``max_iters=2`` (one round, ``K = 6`` releases
  of ``epsilon_total / 6`` each, Laplace with ``delta = 0``), a Learner without intercept, and record 0 with ``x =
  0`` (its protected attribute too, which AIF360's features include) and label 1, substituted by the same record
  with label 0. Its design row is zero, so the Learner's statistics (``G_X``, ``b_1``) and hence its play ``h_1``
  have the same distribution on ``D`` and ``D'`` and ``h_1(x_0) = 0``; the Auditor's releases (``G_A``, ``S_1``,
  ``U_1``) do change, but the event does not read them and ``E_1`` does not depend on them. The audited release is
  the error statistic ``E_1 = sum_i |h_1(x_i) - y_i|`` (``history_[0]["error_statistic"]``, sensitivity 1, scale ``K
  / epsilon_total``, as its author suggested); ``D'`` lowers it by exactly 1 for every play. The event thresholds it
  at its true value on ``D`` for the released play: probabilities ``1/2`` and ``e^{-epsilon} / 2``. (The true
  ``E_1`` alone is not a fixed number: it depends on ``h_1``, hence on the noise of the Learner's releases.)

The statistics game (variants)
------------------------------
``DPExponentiatedGradient`` (and its AIF360 face) runs the statistics game, with two Gaussian releases: the one
release of sufficient statistics and the per-round cell sums of the play's predictions. Their default case is the
first (``variant="statistics"``, the same case); ``default_audit_case(name, variant="statistics")`` and
``variant="statistics_round"`` isolate each (one person's
attribute changed; a one-cell threshold event at the true value on ``D``, probabilities 1/2 and
``Phi(-1/sigma)``) and declare that release's own zCDP budget converted at the fit's delta. As for the other zCDP
rows, these audits catch gross errors (noise missing or far too small), not subtle ones.

``variant="gram"`` audits the Gram release under ``privacy_unit="record"`` on its worst neighbour (record 0's
features substituted so that the release moves by exactly its declared sensitivity, in four entries): the event
projects the release onto that move (``ProjectionEvent``), and the declared ``(epsilon,
delta)`` is the point of the release's exact Gaussian profile at which that event is optimal (``epsilon =
rho_gram``, ``delta = 1/2 - e^rho Phi(-sqrt(2 rho))``), not the loose zCDP conversion, so it catches a release
with half the declared sensitivity (a halved ``gram_sensitivity``: bound 2.7 against 1 with 400 runs).

Group-budget stage 1 (variant)
------------------------------
``default_audit_case("DPGroupBudgetRegressor", variant="stage1")`` (and ``"DPGroupBudgetClassifier"``, and its
AIF360 face ``"DPGroupBudgetClassification"``) audits
stage 1's Gram release on the worst-case neighbour of its tight sensitivity (one feature and the intercept; record
0's ``x = 1`` negated moves one entry by the whole sensitivity) and declares the release's exact Gaussian privacy
profile instead of the zCDP conversion, so that it catches a release with half the noise it should have.

Attribute-blind post-processing (variant)
-----------------------------------------
``default_audit_case("DPFairRegressionPostprocessor", variant="blind")`` (and ``"DPFairRegressionPostprocessing"``)
audits the attribute-blind mode (``group_estimator`` given): its one release is the (group, output bin, posterior
bucket) PMF. A fixed group classifier fitted on public synthetic rows; record 0 is substituted (output, group and
feature change), moving one count between two cells; the two-cell Laplace event of the aware case.

Failure paths and the global generator
--------------------------------------
Whether a fit succeeds is an output too. :func:`audit_registered` runs with ``fit_failures="output"`` (a fit that
raises counts as a ``FitFailure``, outside the default event), and
:func:`audit_registered_failures` audits the event "the fit raised" (:class:`~fairlearn_dp.audit.FitFailed`) on a
row's default neighbours. :func:`audit_registered_unseeded` checks that ``random_state=None`` (``seed=None`` for the
AIF360 faces) is unpredictable: after ``np.random.seed(s)``, two unseeded fits must release different statistics
(:func:`released_statistics` names them per row).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from fairdp_adapters import registry

from fairlearn_dp.audit import FitFailed, audit
from fairlearn_dp.audit._events import (
    CellEvent,
    OrthantEvent,
    PlayErrorEvent,
    SelectionEvent,
    ThresholdEvent,
    released_attribute,
)
from fairlearn_dp.audit._reproducibility import audit_unseeded_reproducibility
from fairlearn_dp.metrics import MetricFrameOptions
from fairlearn_dp.privacy import PrivacySpend

__all__ = ["AuditCase", "VARIANTS", "default_audit_case", "audit_registered", "audit_registered_failures", "failure_audit_case",
           "audit_registered_edge_failures", "audit_registered_unseeded", "released_statistics",
           "exponential_mechanism_default_n"]


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
    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

    return DPFairRegressionPostprocessor(epsilon=epsilon, bounds=(0.0, 1.0), n_bins=_N_BINS, groups=[0, 1],
                                         accountant=_accountant(), random_state=seed)


def _make_threshold_optimizer(epsilon, seed):
    from fairlearn_dp.postprocessing import DPThresholdOptimizer

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
    ``rho`` given: the (near-)noiseless reference fit that gives the true values.
    """
    return {"epsilon": None if rho is not None else epsilon, "rho": rho, "budget_allocation": "uniform", "n_iter": 1,
                "fit_intercept": False, "data_bound": 1.0, "clip": clip, "accountant": _accountant()}


def _make_group_budget_regressor(epsilon, seed, rho=None):
    from fairlearn_dp.reductions import DPGroupBudgetRegressor

    return DPGroupBudgetRegressor(**_group_budget_params(epsilon, rho, clip=2.0), groups=[0, 1],
                                  random_state=seed)


def _make_group_budget_classifier(epsilon, seed, rho=None):
    from fairlearn_dp.reductions import DPGroupBudgetClassifier

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
    changes from 0 to 1 (predictions and labels unchanged).
    """
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


class MetricFrameRelease:
    """:class:`~fairlearn_dp.metrics.DPMetricFrame` as the audit runs an estimator: every parameter of the frame at
    construction, the evaluation data at ``fit`` (the frame is ``frame_``; its release ``frame_.noisy_counts_``).

    A report is built from its data, not fitted; this wrapper only lets the registry's generic checks (audits,
    parameters before the budget, failure paths) treat it like the other rows. Its signature is the frame's minus
    the data arguments, so every parameter of the frame is checked.
    """

    _DATA = ("y_true", "y_pred", "sensitive_features", "control_features")

    def __init__(self, **params):
        for name, value in {**_frame_defaults(), **params}.items():
            setattr(self, name, value)

    def fit(self, y_true, y_pred, sensitive_features):
        from fairlearn_dp.metrics import DPMetricFrame

        params = {name: getattr(self, name) for name in _frame_parameters()}
        self.frame_ = DPMetricFrame(y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, **params)
        return self


def _frame_parameters():
    """The frame's parameters other than its data: ``{name: inspect.Parameter}``."""
    import inspect

    from fairlearn_dp.metrics import DPMetricFrame

    return {name: p for name, p in inspect.signature(DPMetricFrame).parameters.items()
            if name not in MetricFrameRelease._DATA}


def _frame_defaults():
    import inspect

    return {name: p.default for name, p in _frame_parameters().items() if p.default is not inspect.Parameter.empty}


def _frame_signature():
    import inspect

    return inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
                             + list(_frame_parameters().values()))


MetricFrameRelease.__init__.__signature__ = _frame_signature()


def _make_metric_frame(epsilon, seed):
    from fairlearn.metrics import selection_rate

    # n_boot at its minimum: the intervals are post-processing, and the audit builds thousands of frames.
    return MetricFrameRelease(metrics={"selection_rate": selection_rate}, epsilon=epsilon, groups=[0, 1],
                              accountant=_accountant(), random_state=seed, n_boot=10)


def _metric_frame_case(n):
    predictions, labels, a, a_prime = _classification_records(n)
    return (_make_metric_frame, {"y_true": labels, "y_pred": predictions, "sensitive_features": a},
            {"y_true": labels, "y_pred": predictions, "sensitive_features": a_prime}, "frame_.noisy_counts_")


def _make_multiclass_metric_frame(epsilon, seed):
    from fairlearn.metrics import count

    return MetricFrameRelease(metrics={"count": count}, options=MetricFrameOptions(labels=[0, 1, 2]),
                              epsilon=epsilon, groups=[0, 1],
                              accountant=_accountant(), random_state=seed, n_boot=10)


def _metric_frame_multiclass_case(n, epsilon):
    """The multiclass frame (issue 38): three declared classes, the 3 x 3 confusion table of each group released
    once. Neighbour: person 0's group changes from 0 to 1 (labels and predictions public), which moves one count
    between two of the 2 x 9 cells, as in the binary case; the same two-cell event.
    """
    rng = np.random.default_rng(38)
    groups = np.arange(n) % 2
    labels = (np.arange(n) // 2) % 3
    predictions = np.where(rng.random(n) < 0.7, labels, (labels + 1) % 3)
    groups_prime = groups.copy()
    groups_prime[0] = 1
    dataset = {"y_true": labels, "y_pred": predictions, "sensitive_features": groups}
    neighbour = {"y_true": labels, "y_pred": predictions, "sensitive_features": groups_prime}
    event = _optimal_event(_make_multiclass_metric_frame, dataset, neighbour, "frame_.noisy_counts_",
                           "DPMetricFrame", epsilon=epsilon)
    return _make_multiclass_metric_frame, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


class _WeightedMetricFrameRelease(MetricFrameRelease):
    """The frame with per-row weights as data (issue 38.2): ``fit`` also takes ``sample_weight``, passed to every
    metric through ``sample_params``.
    """

    def fit(self, y_true, y_pred, sensitive_features, sample_weight):
        self.sample_params = {name: {"sample_weight": sample_weight} for name in self.metrics}
        return super().fit(y_true, y_pred, sensitive_features)


#: The declared public bound of the weighted frame's weights.
_WEIGHT_BOUND = 2.5


def _make_weighted_metric_frame(epsilon, seed):
    from fairlearn.metrics import selection_rate

    return _WeightedMetricFrameRelease(metrics={"selection_rate": selection_rate},
                                       options=MetricFrameOptions(weight_bound=_WEIGHT_BOUND),
                                       epsilon=epsilon, groups=[0, 1], accountant=_accountant(), random_state=seed,
                                       n_boot=10)


def _metric_frame_weighted_case(n, epsilon):
    """The weighted frame (issue 38.2): weights in [0, B] with B = 2.5 declared, weighted confusion counts per
    group released once at L1 2B. Neighbour: person 0 (weight B in group 0) moves to group 1 and keeps weight B
    -- as if the weight were recomputed from the new group, at its largest -- which moves B between two cells,
    the derived sensitivity's worst case; the same two-cell event as the unweighted frame, at the scaled noise.
    """
    predictions, labels, a, a_prime = _classification_records(n)
    rng = np.random.default_rng(382)
    weights = rng.uniform(0.0, _WEIGHT_BOUND, n)
    weights[0] = _WEIGHT_BOUND                                     # person 0: group 0 in D, group 1 in D'
    dataset = {"y_true": labels, "y_pred": predictions, "sensitive_features": a, "sample_weight": weights}
    neighbour = dict(dataset, sensitive_features=a_prime)
    event = _optimal_event(_make_weighted_metric_frame, dataset, neighbour, "frame_.noisy_counts_",
                           "DPMetricFrame", epsilon=epsilon)
    return _make_weighted_metric_frame, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


class _WeightTablesMetricFrameRelease(MetricFrameRelease):
    """The frame with one metric weighted and one not (issue 38.2, several tables of one release): ``fit`` takes
    ``sample_weight`` and passes it to the metric ``"selection_rate_weighted"`` only.
    """

    def fit(self, y_true, y_pred, sensitive_features, sample_weight):
        self.sample_params = {"selection_rate_weighted": {"sample_weight": sample_weight}}
        return super().fit(y_true, y_pred, sensitive_features)


def _make_weight_tables_metric_frame(epsilon, seed):
    from fairlearn.metrics import selection_rate

    return _WeightTablesMetricFrameRelease(metrics={"selection_rate": selection_rate,
                                                    "selection_rate_weighted": selection_rate},
                                           options=MetricFrameOptions(weight_bound=_WEIGHT_BOUND), epsilon=epsilon,
                                           groups=[0, 1], accountant=_accountant(), random_state=seed, n_boot=10)


def _metric_frame_weight_tables_case(n, epsilon):
    """A frame that weighs one of its two metrics (issue 38.2): the unweighted and the weighted table released
    stacked in one call at L1 2 + 2B. Neighbour: person 0 (weight B in group 0) moves to group 1, which moves 1
    between two cells of the unweighted table and B between two of the weighted one: four cells. The event
    thresholds all four at their true values on ``D``: probability 1/16 on ``D`` and ``e^-(2 + 2B)/b / 16 =
    e^-epsilon / 16`` on ``D'`` at the declared Laplace scale ``b = (2 + 2B) / epsilon``.
    """
    predictions, labels, a, a_prime = _classification_records(n)
    weights = np.random.default_rng(383).uniform(0.0, _WEIGHT_BOUND, n)
    weights[0] = _WEIGHT_BOUND
    dataset = {"y_true": labels, "y_pred": predictions, "sensitive_features": a, "sample_weight": weights}
    neighbour = dict(dataset, sensitive_features=a_prime)
    truth = np.asarray(_make_weight_tables_metric_frame(math.inf, 0).fit(**dataset).frame_.noisy_counts_, dtype=float)
    change = truth - np.asarray(_make_weight_tables_metric_frame(math.inf, 0).fit(**neighbour).frame_.noisy_counts_,
                                dtype=float)
    lost = [tuple(c) for c in np.argwhere(change > 1e-12)]
    gained = [tuple(c) for c in np.argwhere(change < -1e-12)]
    if len(lost) != 2 or len(gained) != 2:
        raise RuntimeError("The neighbours must move one count in each of the frame's two tables.")
    event = _CellsEvent("frame_.noisy_counts_", lost, gained, truth,
                        expected_probabilities=(1 / 16, math.exp(-epsilon) / 16))
    return _make_weight_tables_metric_frame, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


class _ReportRelease:
    """:class:`~fairlearn_dp.metrics.DPReport` as the audit runs an estimator: its parameters at construction, the
    data at ``fit`` (the report is ``report_``; its release ``report_.noisy_counts_``).
    """

    def __init__(self, **params):
        self.params = params

    def fit(self, y_true, y_pred, sensitive_features):
        import warnings

        from fairlearn_dp.exceptions import PrivacyWarning
        from fairlearn_dp.metrics import DPReport

        with warnings.catch_warnings():
            # the audit releases the same rows on purpose, run after run: the re-release warning is expected
            warnings.simplefilter("ignore", PrivacyWarning)
            self.report_ = DPReport(y_true, y_pred, sensitive_features=sensitive_features, **self.params)
        return self


class _CellsEvent(CellEvent):
    """Every cell that ``D'`` moves, at once: ``released[lost_i] >= t_i`` for each lost cell and ``released[gained_j]
    <= t_j`` for each gained one (true values on ``D``), the optimal event for independent Laplace noise on them.
    """

    def __init__(self, attribute, lost_cells, gained_cells, truth, expected_probabilities):
        super().__init__(attribute, lost_cells[0], gained_cells[0], truth[lost_cells[0]], truth[gained_cells[0]],
                         expected_probabilities=expected_probabilities)
        self.lost_cells, self.gained_cells = [tuple(map(int, c)) for c in lost_cells], [tuple(map(int, c))
                                                                                       for c in gained_cells]
        self.thresholds = [float(truth[c]) for c in self.lost_cells + self.gained_cells]

    @property
    def description(self) -> str:
        return (f"{self.attribute} at the {len(self.lost_cells) + len(self.gained_cells)} cells D' moves, each "
                "beyond its true value on D towards D' (lost cells >=, gained cells <=)")

    def _holds(self, fitted):
        released = np.asarray(released_attribute(fitted, self.attribute), dtype=float)
        k = len(self.lost_cells)
        return bool(all(released[c] >= t for c, t in zip(self.lost_cells, self.thresholds[:k], strict=False))
                    and all(released[c] <= t for c, t in zip(self.gained_cells, self.thresholds[k:], strict=False)))


def _make_report(epsilon, seed):
    return _ReportRelease(epsilon=epsilon, groups=[0, 1], accountant=_accountant(), random_state=seed)


def _metric_frame_report_case(n, epsilon):
    """The shared release of a report (issue 38.5): two compared models' confusion tables per group, released in
    one call at L1 2M = 4. Neighbour: person 0's group changes from 0 to 1, which moves one count between two cells
    of each model's table: four cells. The event thresholds all four at their true values on ``D``: probability
    1/16 on ``D`` and ``e^-epsilon / 16`` on ``D'`` at the declared Laplace scale 2M / epsilon.
    """
    predictions, labels, a, a_prime = _classification_records(n)
    models = {"a": predictions, "b": np.where(np.arange(n) % 3 == 0, 1 - predictions, predictions)}
    dataset = {"y_true": labels, "y_pred": models, "sensitive_features": a}
    neighbour = dict(dataset, sensitive_features=a_prime)
    truth = np.asarray(_make_report(math.inf, 0).fit(**dataset).report_.noisy_counts_, dtype=float)
    change = truth - np.asarray(_make_report(math.inf, 0).fit(**neighbour).report_.noisy_counts_, dtype=float)
    lost = [tuple(c) for c in np.argwhere(change > 1e-12)]
    gained = [tuple(c) for c in np.argwhere(change < -1e-12)]
    if len(lost) != 2 or len(gained) != 2:
        raise RuntimeError("The report's neighbours must move one count in each of the two models' tables.")
    event = _CellsEvent("report_.noisy_counts_", lost, gained, truth,
                        expected_probabilities=(1 / 16, math.exp(-epsilon) / 16))
    return _make_report, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


class _ThresholdReportRelease:
    """:class:`~aif360_dp.metrics.DPThresholdReport` as the audit runs an estimator: its parameters at
    construction, the two datasets at ``fit`` (the report is ``report_``; its release ``report_.noisy_counts_``).
    """

    def __init__(self, **params):
        self.params = params

    def fit(self, dataset_true, dataset_pred):
        import warnings

        from aif360_dp.metrics import DPThresholdReport
        from fairlearn_dp.exceptions import PrivacyWarning

        with warnings.catch_warnings():
            # the audit releases the same rows on purpose, run after run: the re-release warning is expected
            warnings.simplefilter("ignore", PrivacyWarning)
            self.report_ = DPThresholdReport(dataset_true, dataset_pred, _SWEEP, **self.params)
        return self


#: The audited sweep's public thresholds (AIF360's demos sweep 100; the sensitivity does not depend on how many).
_SWEEP = np.linspace(0.05, 0.95, 19)


def _make_threshold_report(epsilon, seed):
    return _ThresholdReportRelease(epsilon=epsilon, accountant=_accountant(), random_state=seed)


def _threshold_report_case(n, epsilon):
    """The AIF360 threshold sweep's one release (issue 38.5): the (intersection, score interval, true label)
    histogram, at L1 2 for any number of thresholds. Neighbour: person 0's group changes from 0 to 1 (label and
    score unchanged), which moves one count between two bins. The event thresholds both at their true values on
    ``D``: probability 1/4 on ``D`` and ``e^-epsilon / 4`` on ``D'`` at the declared Laplace scale 2 / epsilon.
    """
    predictions, labels, a, a_prime = _classification_records(n)
    scores = (np.arange(n) % 20 + 0.5) / 20                                 # every interval of the sweep used
    dataset, neighbour = (_aif360_binary_datasets(predictions, labels, groups) for groups in (a, a_prime))
    for data in (dataset, neighbour):
        data["dataset_pred"].scores = scores.reshape(-1, 1)
    truth = np.asarray(_make_threshold_report(math.inf, 0).fit(**dataset).report_.noisy_counts_, dtype=float)
    change = truth - np.asarray(_make_threshold_report(math.inf, 0).fit(**neighbour).report_.noisy_counts_,
                                dtype=float)
    lost, gained = [tuple(c) for c in np.argwhere(change > 1e-12)], [tuple(c) for c in np.argwhere(change < -1e-12)]
    if len(lost) != 1 or len(gained) != 1:
        raise RuntimeError("The threshold report's neighbours must move one count between two bins.")
    event = _CellsEvent("report_.noisy_counts_", lost, gained, truth,
                        expected_probabilities=(1 / 4, math.exp(-epsilon) / 4))
    return _make_threshold_report, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


def _aif360_regression_dataset(outputs, groups, feature=None):
    import pandas as pd

    from aif360_dp.datasets._base import BundledRegressionDataset

    index = pd.RangeIndex(outputs.size)
    feature = np.linspace(0.0, 1.0, outputs.size) if feature is None else feature
    features = pd.DataFrame({"x": feature}, index=index)
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


def _score_total(epsilon):
    """The total budget that leaves ``epsilon`` to a score post-processor's release (the choice against the
    constants takes ``SELECTION_SHARE`` of the total)."""
    from fairlearn_dp.privacy._selection import SELECTION_SHARE

    return epsilon / (1.0 - SELECTION_SHARE)


def _make_calibrated_eq_odds(epsilon, seed):
    from aif360_dp.algorithms.postprocessing import DPCalibratedEqOddsPostprocessing

    return DPCalibratedEqOddsPostprocessing([{"a": 0.0}], [{"a": 1.0}], seed=seed, epsilon=_score_total(epsilon),
                                            accountant=_accountant())


def _make_reject_option(epsilon, seed):
    from aif360_dp.algorithms.postprocessing import DPRejectOptionClassification

    return DPRejectOptionClassification([{"a": 0.0}], [{"a": 1.0}], num_class_thresh=5, num_ROC_margin=3,
                                        epsilon=_score_total(epsilon), accountant=_accountant(), seed=seed)


def _score_post_processor_case(n, epsilon, *, make, scores, attribute, moved):
    """The one release of a score post-processor (issue 40): its statistic table, audited on the neighbours of
    its sensitivity lemma. Neighbour: person 0's group changes from 0 to 1 (label and score unchanged). The event
    thresholds every cell ``D'`` moves at its true value on ``D``; with ``moved`` cells, each moving by
    ``sensitivity / moved``, it has probability ``2^-moved`` on ``D`` and ``e^-epsilon 2^-moved`` on ``D'`` at the
    declared Laplace scale. The estimator gets the total budget that leaves ``epsilon`` to the release (the rest pays
    the choice against the constants, which the event does not read), and the case declares the release's share.
    """
    from fairlearn_dp.privacy._selection import selection_split

    predictions, labels, a, a_prime = _classification_records(n)
    dataset, neighbour = (_aif360_binary_datasets(predictions, labels, groups) for groups in (a, a_prime))
    for data in (dataset, neighbour):
        data["dataset_pred"].scores = scores.reshape(-1, 1)
    truth = np.asarray(released_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    change = truth - np.asarray(released_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    lost, gained = [tuple(c) for c in np.argwhere(change > 1e-12)], [tuple(c) for c in np.argwhere(change < -1e-12)]
    if len(lost) + len(gained) != moved or not np.allclose(np.abs(change[np.abs(change) > 1e-12]), 1.0):
        raise RuntimeError(f"The neighbours must move {moved} cells of {attribute} by 1 each.")
    declared = selection_split(_score_total(epsilon))[0]
    event = _CellsEvent(attribute, lost, gained, truth,
                        expected_probabilities=(2.0 ** -moved, math.exp(-declared) * 2.0 ** -moved))
    return make, dataset, neighbour, event, PrivacySpend(declared, 0.0)


def _calibrated_eq_odds_case(n, epsilon):
    """Person 0 (label 0) has score 1: leaving its cell and joining the other group's, it moves the count and the
    score sum of both cells by 1, the whole L1 sensitivity 4 (Lemma 1 of score_postprocessing.md)."""
    scores = (np.arange(n) % 10 + 0.5) / 10
    scores[0] = 1.0
    return _score_post_processor_case(n, epsilon, make=_make_calibrated_eq_odds, scores=scores,
                                      attribute="model_.noisy_statistics_", moved=4)


def _reject_option_case(n, epsilon):
    """Person 0 moves one count between two bins of the histogram, its L1 sensitivity 2 (Lemma 2)."""
    return _score_post_processor_case(n, epsilon, make=_make_reject_option, scores=(np.arange(n) % 20 + 0.5) / 20,
                                      attribute="model_.noisy_histogram_", moved=2)


def _make_reweighing(epsilon, seed):
    from aif360_dp.algorithms.preprocessing import DPReweighing

    return DPReweighing([{"a": 0.0}], [{"a": 1.0}], epsilon=epsilon, accountant=_accountant(), seed=seed)


def _preprocessing_dataset(x, groups, labels):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    frame = pd.DataFrame({"a": groups.astype(float), "x": x.astype(float), "y": labels.astype(float)})
    return BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"],
                              privileged_protected_attributes=[np.array([1.0])],
                              unprivileged_protected_attributes=[np.array([0.0])])


def _preprocessing_records(n):
    """Groups 0/1 alternating, labels alternating in pairs, ``x`` on bin centres; record 0 is ``(x = lowest centre,
    a = 0, y = 0)``, substituted on ``D'`` by ``(x = highest centre, a = 1, y = 1)``: one cell of the (group, label)
    table and of the (group, bin) histogram loses a count, another gains one (Lemmas 1 and 2 of
    docs/privacy_analysis/preprocessing.md at their worst case).
    """
    rng = np.random.default_rng(40)
    groups, labels = np.arange(n) % 2, (np.arange(n) // 2) % 2
    x = _CENTRES[rng.integers(0, _N_BINS, n)]
    x[0], groups[0], labels[0] = _CENTRES[0], 0, 0
    x_prime, groups_prime, labels_prime = x.copy(), groups.copy(), labels.copy()
    x_prime[0], groups_prime[0], labels_prime[0] = _CENTRES[-1], 1, 1
    return ({"dataset": _preprocessing_dataset(x, groups, labels)},
            {"dataset": _preprocessing_dataset(x_prime, groups_prime, labels_prime)})


def _reweighing_case(n):
    dataset, neighbour = _preprocessing_records(n)
    return _make_reweighing, dataset, neighbour, "model_.noisy_table_"


def _make_disparate_impact_remover(epsilon, seed):
    from aif360_dp.algorithms.preprocessing import DPDisparateImpactRemover

    return DPDisparateImpactRemover(epsilon=epsilon, feature_ranges={"x": (0.0, 1.0)}, n_bins=_N_BINS,
                                    accountant=_accountant(), seed=seed)


def _disparate_impact_case(n):
    dataset, neighbour = _preprocessing_records(n)
    return _make_disparate_impact_remover, dataset, neighbour, "model_.noisy_histograms_"


def _group_budget_records(n, *, classification):
    """One feature in [-1, 1] and groups 0/1 alternating; record 0 is (x = 1, group 0, y = +1 / class 1). ``D'``
    substitutes record 0 within group 0 by (x = 1, y = -1 / class 0). At ``theta = 0`` its per-example gradient
    (``-2 y x`` squared loss, ``-y x / 2`` logistic loss with y coded -1/+1) goes from ``-clip`` to ``+clip`` for
    clip 2 (regressor) and 0.5 (classifier). Other records hold the extreme values (x = -1; y = -1 and +1), so that
    an AIF360 RegressionDataset's min-max scaling is the same on both datasets.
    """
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


# ------------------------------------------------------------------------------- in-processing rows
def _check_share(name, declared, epsilon, what):
    """The factory's total budget must give the audited release exactly ``epsilon``."""
    if not math.isclose(declared, epsilon, rel_tol=1e-9):
        raise RuntimeError(f"The default case of {name!r} expects {what} = {epsilon:g} for the audited release, but "
                           f"the fitted object declares {declared!r}: update the case's share of the budget.")


# ------------------------------------------------------------------------------- DP exponentiated gradient
_EG_SHARES = 2                 # 2T mechanisms with T = max_iter = 1, basic composition (delta = 0)


def _eg_estimator_params(epsilon, min_count):
    from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

    return {"epsilon": _EG_SHARES * epsilon, "delta": 0.0, "max_iter": 1, "oracle": "exponential",
                "hypotheses": [LinearThresholdClassifier([1.0], 0.5)], "min_count": min_count,
                "accountant": _accountant()}


def _make_exponentiated_gradient(epsilon, seed, *, min_count):
    from fairlearn.reductions import DemographicParity

    from fairlearn_dp.reductions import JagielskiExponentiatedGradient

    return JagielskiExponentiatedGradient(constraints=DemographicParity(difference_bound=0.05),
                                          **_eg_estimator_params(epsilon, min_count), groups=[0, 1],
                                          random_state=seed)


def _attribute_change_records(n):
    """One public feature, 1 for person 0 and 0 for everyone else (the hypothesis ``1[x >= 1/2]`` labels only person
    0 with 1); groups 0/1 alternating; ``D'`` moves person 0 from group 0 to group 1. ``min_count`` is the smallest
    group on either dataset (the DemographicParity cells are the groups).
    """
    groups = np.arange(n) % 2
    x = np.zeros(n)
    x[0] = 1.0
    labels = (np.arange(n) // 2) % 2
    groups_prime = groups.copy()
    groups_prime[0] = 1
    min_count = int(min(np.bincount(groups, minlength=2).min(), np.bincount(groups_prime, minlength=2).min()))
    return x, labels, groups, groups_prime, min_count


def _exponentiated_gradient_case(n, epsilon):
    x, labels, groups, groups_prime, min_count = _attribute_change_records(n)
    make = functools.partial(_make_exponentiated_gradient, min_count=min_count)
    dataset = {"X": x[:, None], "y": labels, "sensitive_features": groups}
    neighbour = {"X": x[:, None], "y": labels, "sensitive_features": groups_prime}
    return (make, dataset, neighbour, *_orthant_event(make, dataset, neighbour, "",
                                                      "JagielskiExponentiatedGradient", epsilon=epsilon))


def _orthant_event(make, dataset, neighbour, prefix, name, *, epsilon):
    """The orthant event on the Auditor's violation vector and the declared spend of that release."""
    attribute = prefix + "history_.noisy_gamma"
    truth = np.asarray(released_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(released_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    change = truth_prime - truth
    lowered = [tuple(c) for c in np.argwhere(change < -1e-12)]
    raised = [tuple(c) for c in np.argwhere(change > 1e-12)]
    if not lowered or not raised:
        raise RuntimeError(f"The default neighbours of {name!r} do not move {attribute} both ways.")
    declared = make(epsilon, 0).fit(**dataset)
    release_epsilon = float(released_attribute(declared, prefix + "epsilon_per_mechanism_"))
    _check_share(name, release_epsilon, epsilon, "epsilon_per_mechanism_")
    scale = float(released_attribute(declared, prefix + "history_.noise_scale"))
    sensitivity = float(released_attribute(declared, prefix + "sensitivity_")["auditor_l1"])
    if not math.isclose(scale, sensitivity / release_epsilon, rel_tol=1e-9):
        raise RuntimeError(f"{name!r} declares a Laplace scale {scale!r} that is not its sensitivity over its "
                           "epsilon_per_mechanism_.")
    moved = len(lowered) + len(raised)
    l1 = float(np.abs(change).sum())
    expected = (0.5 ** moved, 0.5 ** moved * math.exp(-l1 / scale))
    event = OrthantEvent(attribute, lowered, raised, [truth[c] for c in lowered], [truth[c] for c in raised],
                         expected)
    return event, PrivacySpend(release_epsilon, 0.0)


# ------------------------------------------------------------------------------------------- correlation remover
# Column 0 is the sensitive one, in [0, 1] (half-width r = 1/2); column 1 in [-1, 1] (R = 1). Under the attribute
# unit the L1 sensitivity is max over d in [0, 2r] of d (1 + R + 2r - d) = 2r (1 + R) = 2 (Lemma 1 of
# docs/privacy_analysis/correlation_remover.md), reached by record 0: s from 0 to 1 with z = 1 moves sum s by 1 and
# sum s z by 1 (sum s^2 stays: the centred s^2 is 1/4 at both ends).
_CORRELATION_BOUNDS = ([0.0, -1.0], [1.0, 1.0])


def _make_correlation_remover(epsilon, seed):
    from fairlearn_dp.preprocessing import DPCorrelationRemover

    return DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=epsilon, bounds=_CORRELATION_BOUNDS,
                                accountant=_accountant(), random_state=seed)


def _correlation_records(n):
    rng = np.random.default_rng(40)
    X = np.c_[np.arange(n) % 2, rng.uniform(-1, 1, n)]
    X[0] = (0.0, 1.0)
    X_prime = X.copy()
    X_prime[0, 0] = 1.0
    return X, X_prime


# Variant "row_bound": column 0 sensitive in [0, 1]; three other columns in [0, 1] under row_norm_bound_l1 = 1, so
# Lemma 3's L1 sensitivity is 2r (1 + min(B, 3)) = 2 (against 2r (1 + 3/2) = 2.5 from the columns' widths), reached
# by record 0: s from 0 to 1 with z = (1, 0, 0) moves sum s by 1 and sum s z_1 by 1. The other rows (uniform in the
# cube) are mostly scaled onto the L1 ball.
def _make_row_bound_correlation_remover(epsilon, seed):
    from fairlearn_dp.preprocessing import DPCorrelationRemover

    return DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=epsilon, bounds=(0.0, 1.0), row_norm_bound_l1=1.0,
                                accountant=_accountant(), random_state=seed)


def _row_bound_correlation_records(n):
    rng = np.random.default_rng(41)
    X = np.c_[np.arange(n) % 2, rng.uniform(0, 1, (n, 3))]
    X[0] = (0.0, 1.0, 0.0, 0.0)
    X_prime = X.copy()
    X_prime[0, 0] = 1.0
    return X, X_prime


def _correlation_remover_case(n, epsilon, make=_make_correlation_remover, records=_correlation_records):
    """The one release (``noisy_statistics_``) on the worst neighbours of Lemma 1 (or 3): the orthant of its two
    moved entries, probabilities 1/4 and e^-epsilon / 4 (the move's L1 norm is the whole sensitivity)."""
    X, X_prime = records(n)
    dataset, neighbour = {"X": X}, {"X": X_prime}
    attribute = "noisy_statistics_"
    truth = released_attribute(make(math.inf, 0).fit(**dataset), attribute)
    change = released_attribute(make(math.inf, 0).fit(**neighbour), attribute) - truth
    raised = [tuple(c) for c in np.argwhere(change > 1e-12)]
    if len(raised) != 2 or np.any(change < -1e-12):
        raise RuntimeError("The default neighbours of 'DPCorrelationRemover' do not raise exactly two entries.")
    declared = make(epsilon, 0).fit(**dataset)
    moved = float(np.abs(change).sum()) / declared.sensitivity_["l1"]
    event = OrthantEvent(attribute, [], raised, [], [truth[c] for c in raised],
                         (0.25, 0.25 * math.exp(-epsilon * moved)))
    return make, dataset, neighbour, event, declared.privacy_spent_


# ------------------------------------------------------------------------- exponential-mechanism learner
def _selection_hypotheses():
    from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

    return [LinearThresholdClassifier([1.0, 0.0], 0.5), LinearThresholdClassifier([0.0, 1.0], 0.5)]


def _em_total(epsilon):
    """The total whose exponential-mechanism share is ``epsilon``: the final choice against the constants takes
    ``SELECTION_SHARE`` of it, and the rest is halved (``diagnostic_share=0``).
    """
    from fairlearn_dp.privacy._selection import SELECTION_SHARE
    from fairlearn_dp.reductions._exponential_mechanism_classifier import _MIN_GROUP_SIZE_SHARE

    return epsilon / ((1.0 - SELECTION_SHARE) * (1.0 - _MIN_GROUP_SIZE_SHARE))


def _make_exponential_mechanism_classifier(epsilon, seed):
    from fairlearn_dp.reductions import ExponentialMechanismFairClassifier

    return ExponentialMechanismFairClassifier(_selection_hypotheses(), epsilon=_em_total(epsilon), groups=[0, 1],
                                              diagnostic_share=0.0,   # the audit's event is the selection alone
                                              accountant=_accountant(), random_state=seed)


# The case's data keep the released floor at L = 1 (M < 2) except with at most this probability per fit, so that the
# event's probability on D' is the one computed at L = 1 (to within this much).
_MAX_FLOOR_ESCAPE_PROBABILITY = 1e-9
# Positive examples of group 1 (group 0 has one): n must be a multiple of it.
_SELECTION_GROUP_POSITIVES = 25


def _size_epsilon(epsilon):
    """``epsilon_size`` of the case's fits: the factory's total leaves ``epsilon`` to each of the two halves."""
    from fairlearn_dp.privacy._selection import SELECTION_SHARE
    from fairlearn_dp.reductions._exponential_mechanism_classifier import _MIN_GROUP_SIZE_SHARE

    return _em_total(epsilon) * (1.0 - SELECTION_SHARE) * _MIN_GROUP_SIZE_SHARE


def _selection_case_problem(n, epsilon):
    """Why the case's fits at ``n`` rows would not release ``L = 1`` on every run, or None.

    ``M = 1 + Y - sqrt(n) / epsilon_size`` (smallest group: one positive example; ``delta = exp(-sqrt(n))``), ``Y ~
    Laplace(1 / epsilon_size)``: ``P(M >= 2) = exp(-epsilon_size (1 + sqrt(n) / epsilon_size)) / 2``. The fit's public
    size check refuses when ``n // 2 <= sqrt(n) / epsilon_size + 1``.
    """
    from fairlearn_dp.reductions._exponential_mechanism_classifier import _margin

    size_epsilon = _size_epsilon(epsilon)
    margin = _margin(math.exp(-math.sqrt(n)), size_epsilon)
    if n // 2 <= margin + 1:
        return f"the fit refuses n={n} rows (n // 2 <= ln(1/delta) / epsilon_size + 1 = {margin + 1:.3g})"
    escape = 0.5 * math.exp(-size_epsilon * (1.0 + margin))
    if escape > _MAX_FLOOR_ESCAPE_PROBABILITY:
        return f"the released floor exceeds 1 with probability {escape:.2g} per fit"
    return None


def exponential_mechanism_default_n(epsilon):
    """The smallest multiple of 25, at least 1,000, at which the case's fits release the floor ``L = 1`` except with
    probability below 1e-9 and pass the fit's public size check (1,000 at ``epsilon = 1``).
    """
    n = 1000
    while _selection_case_problem(n, epsilon) is not None:
        n += _SELECTION_GROUP_POSITIVES
    return n


def _selection_records(n):
    """The worst case of the tight sensitivity at ``L = 1``, with equal losses on ``D`` (two hypotheses).

    Record 0, features ``(1, 0)``, is group 0's only positive example; group 1 has ``g = 25`` positive examples, all
    with ``x_2 = 1`` and ``a = floor(g (n - 2) / (n + g))`` of them with ``x_1 = 1``; the other rows are negatives,
    ``k = a (n / g + 1) - g + 1`` of them with features ``(1, 0)`` and the rest ``(0, 0)``. At ``L = 1`` (rates are
    means) ``h_1 = 1[x_1 >= 1/2]`` has gap ``1 - a/g`` and ``g - a + k`` errors, ``h_2 = 1[x_2 >= 1/2]`` gap 1 and one
    error (record 0): equal losses ``1 + 1/n``. ``D'`` substitutes record 0's features by ``(0, 1)``: ``h_1``'s gap
    becomes ``a/g`` and it errs on record 0, ``h_2``'s gap and error vanish.
    """
    g = _SELECTION_GROUP_POSITIVES
    if n % g or n < 4 * g:
        raise ValueError(f"The default case of 'ExponentialMechanismFairClassifier' needs n a multiple of {g}, at "
                         f"least {4 * g}, got {n}.")
    a = g * (n - 2) // (n + g)
    k = a * (n // g + 1) - g + 1                       # <= n - 1 - g: a (n + g) / g <= n - 2
    X = np.zeros((n, 2))
    labels = np.zeros(n, dtype=int)
    groups = np.arange(n) % 2                          # the negatives alternate between the groups
    X[0], labels[0], groups[0] = (1.0, 0.0), 1, 0
    positives = np.arange(1, g + 1)
    labels[positives], groups[positives], X[positives, 1] = 1, 1, 1.0
    X[positives[:a], 0] = 1.0
    X[g + 1:g + 1 + k, 0] = 1.0
    X_prime = X.copy()
    X_prime[0] = (0.0, 1.0)
    return X, X_prime, labels, groups


def _exponential_mechanism_case(n, epsilon):
    from fairlearn_dp.reductions import ExponentialMechanismFairClassifier
    from fairlearn_dp.reductions._exponential_mechanism_classifier import _sensitivity

    name = "ExponentialMechanismFairClassifier"
    X, X_prime, labels, groups = _selection_records(n)
    problem = _selection_case_problem(n, epsilon)
    if problem is not None:
        raise ValueError(f"n={n} is too small for the default case of {name!r} at epsilon={epsilon:g}: {problem}; use "
                         f"n >= {exponential_mechanism_default_n(epsilon)} (n=None chooses it).")
    make = _make_exponential_mechanism_classifier
    dataset = {"X": X, "y": labels, "sensitive_features": groups}
    neighbour = {"X": X_prime, "y": labels, "sensitive_features": groups}
    declared = make(epsilon, 0).fit(**dataset)
    release_epsilon = float(declared.exponential_mechanism_epsilon_)
    _check_share(name, release_epsilon, epsilon, "exponential_mechanism_epsilon_")
    weight = float(declared.fairness_weight)
    hypotheses = _selection_hypotheses()

    def losses(features):
        return ExponentialMechanismFairClassifier._utility_losses(hypotheses, features, labels, groups, 2, weight)

    # At L = 1 (the released floor on every fit but a 1e-9 share) the declared sensitivity is w + 1/n, and D' moves
    # the losses apart by 2 a/g + (g - a + k + 1)/n ~ 1.9: 0.96 of the most two hypotheses' losses can part (2 Delta).
    loss, loss_prime = losses(X), losses(X_prime)
    sensitivity = _sensitivity(1.0, n, weight)
    change = loss_prime - loss
    if not (math.isclose(loss[0], loss[1], abs_tol=1e-12) and change[0] > 0 > change[1]
            and np.max(np.abs(change)) <= sensitivity + 1e-12):
        raise RuntimeError(f"The default neighbours of {name!r} do not move the two utility losses apart from equal "
                           "values within the declared sensitivity.")
    gap = float(loss_prime[0] - loss_prime[1])
    # D' keeps every group's positive count, so M has one distribution on both datasets; given L = 1 the choice is the
    # exponential mechanism over two candidates, equal on D (probability 1/2 whatever the scale).
    p_prime = 1.0 / (1.0 + math.exp(release_epsilon * gap / (2.0 * sensitivity)))
    event = SelectionEvent("hypothesis_index_", 0, (0.5, p_prime))
    return make, dataset, neighbour, event, PrivacySpend(release_epsilon, float(declared.delta_))


# ---------------------------------------------------------------------------------------- private FairNR
_GERRYFAIR_MAX_ITERS = 2                                     # one round
_GERRYFAIR_RELEASES = 2 + 4 * (_GERRYFAIR_MAX_ITERS - 1)     # two Gram matrices, four statistics per round


def _gerryfair_params(epsilon, seed):
    from sklearn.linear_model import LinearRegression

    from fairlearn_dp.privacy._selection import SELECTION_SHARE

    # Each release gets epsilon: the releases share the total minus the final choice's SELECTION_SHARE.
    return {"max_iters": _GERRYFAIR_MAX_ITERS, "predictor": LinearRegression(fit_intercept=False),
                "epsilon": _GERRYFAIR_RELEASES * epsilon / (1.0 - SELECTION_SHARE), "delta": 0.0, "accountant": _accountant(),
                "random_state": seed}


def _make_gerryfair(epsilon, seed):
    from fairlearn_dp.reductions import DPGerryFairClassifier

    return DPGerryFairClassifier(**_gerryfair_params(epsilon, seed))


def _make_aif360_gerryfair(epsilon, seed):
    from aif360_dp.algorithms.inprocessing import DPGerryFairClassifier

    return DPGerryFairClassifier(**_gerryfair_params(epsilon, seed))


def _label_substitution_records(n):
    """One feature in [-1, 1], groups 0/1 alternating, labels alternating in pairs; record 0 is ``(x = 0, a = 0, y =
    1)`` and ``D'`` substitutes it by ``(0, 0, 0)``.
    """
    rng = np.random.default_rng(2019)
    groups = (np.arange(n) % 2).astype(float)
    x = rng.uniform(-1.0, 1.0, n)
    labels = ((np.arange(n) // 2) % 2).astype(float)
    x[0], groups[0], labels[0] = 0.0, 0.0, 1.0
    labels_prime = labels.copy()
    labels_prime[0] = 0.0
    return x, groups, labels, labels_prime


def _gerryfair_case(n, epsilon):
    x, groups, labels, labels_prime = _label_substitution_records(n)
    dataset = {"X": x[:, None], "y": labels, "sensitive_features": groups}
    neighbour = {"X": x[:, None], "y": labels_prime, "sensitive_features": groups}
    return (_make_gerryfair, dataset, neighbour,
            *_play_error_event(_make_gerryfair, dataset, neighbour, "", x[:, None], labels, "DPGerryFairClassifier",
                               epsilon=epsilon))


def _aif360_gerryfair_case(n, epsilon):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    x, groups, labels, labels_prime = _label_substitution_records(n)

    def dataset(y):
        frame = pd.DataFrame({"a": groups, "x": x, "y": y})
        return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}

    data, neighbour = dataset(labels), dataset(labels_prime)
    features = np.asarray(data["dataset"].features, dtype=float)          # (a, x): the Learner sees both
    return (_make_aif360_gerryfair, data, neighbour,
            *_play_error_event(_make_aif360_gerryfair, data, neighbour, "model_.", features, labels,
                               "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier", epsilon=epsilon))


def _play_error_event(make, dataset, neighbour, prefix, X, y, name, *, epsilon):
    """The round-1 error statistic thresholded at its true value on ``D`` given the released play, after checking
    that the play does not depend on the substituted record and that ``D'`` lowers the statistic by exactly its
    declared sensitivity; also returns the declared per-release spend.
    """
    statistic, play = prefix + "history_.0.error_statistic", prefix + "predictors_.0"
    truth, truth_prime = make(math.inf, 0).fit(**dataset), make(math.inf, 0).fit(**neighbour)
    declared = make(epsilon, 0).fit(**dataset)
    spend = released_attribute(declared, prefix + "per_release_spend_")
    _check_share(name, float(spend.epsilon), epsilon, "per_release_spend_.epsilon")
    if int(released_attribute(declared, prefix + "n_releases_")) != _GERRYFAIR_RELEASES or spend.delta != 0:
        raise RuntimeError(f"{name!r} no longer splits a pure-DP budget over {_GERRYFAIR_RELEASES} releases for "
                           f"max_iters={_GERRYFAIR_MAX_ITERS}: update the case.")
    sensitivity = float(released_attribute(declared, prefix + "history_.0.error_sensitivity"))
    scale = float(released_attribute(declared, prefix + "history_.0.error_noise_scale"))
    if not math.isclose(scale, sensitivity / float(spend.epsilon), rel_tol=1e-9):
        raise RuntimeError(f"{name!r} declares a Laplace scale {scale!r} that is not its sensitivity over its "
                           "per-release epsilon.")
    event = PlayErrorEvent(statistic, play, X, y, (0.5, 0.5 * math.exp(-sensitivity / scale)))
    shift = float(released_attribute(truth, statistic)) - float(released_attribute(truth_prime, statistic))
    if not (np.array_equal(released_attribute(truth, play).coef, released_attribute(truth_prime, play).coef)
            and math.isclose(shift, sensitivity, rel_tol=1e-12)
            and math.isclose(event.reference(truth), float(released_attribute(truth, statistic)), rel_tol=1e-12)):
        raise RuntimeError(f"The default neighbours of {name!r} do not leave the released play unchanged and lower "
                           f"{statistic} by exactly its declared sensitivity.")
    return event, PrivacySpend(float(spend.epsilon), 0.0)


# --------------------------------------------------------------------- the choice against the constants (variant)
def _make_constant_choice(epsilon, seed, *, min_count):
    """DPExponentiatedGradient under ``privacy_unit="record"`` whose only release that differs between the
    neighbours is the last one, the choice against the fair constants: Algorithm 3 with one hypothesis (its
    Learner's exponential mechanism does not read the data), DemographicParity (its violations read the
    predictions and groups, not the labels), a public ``min_count`` and ``delta = 0`` (no count release). The total
    budget is ``epsilon / SELECTION_SHARE``, so that the choice gets exactly ``epsilon``.
    """
    from fairlearn.reductions import DemographicParity

    from fairlearn_dp.privacy._selection import SELECTION_SHARE
    from fairlearn_dp.reductions import JagielskiExponentiatedGradient
    from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

    return JagielskiExponentiatedGradient(constraints=DemographicParity(difference_bound=0.05),
                                          oracle="exponential", hypotheses=[LinearThresholdClassifier([1.0], 0.5)],
                                          epsilon=epsilon / SELECTION_SHARE, delta=0.0, max_iter=1,
                                          min_count=min_count, privacy_unit="record", groups=[0, 1],
                                          accountant=_accountant(), random_state=seed)


def _constant_choice_case(n, epsilon):
    """The selection step (docs/privacy_analysis/constant_fallback.md) as a release on neighbouring datasets.

    Rows 0-3 have ``x = 1`` (the hypothesis ``1[x >= 1/2]`` labels them 1), the others ``x = 0``; ``P = n // 4``
    positives: rows 2 and 3, and ``P - 2`` of the others. So Q errs on ``FP + FN = 2 + (P - 2) = P`` rows, as
    the constant 0 does, and the constant 1 errs on ``n - P``. ``D'`` substitutes record 0 ``(x = 1, y = 0)`` by
    ``(x = 1, y = 1)``: Q's cost falls by 1, the constant 0's rises by 1 and the constant 1's falls by 1, each by
    the sensitivity 1. Every release of the game has the same distribution on both (see the factory). The event
    "a constant is chosen" has probability about 1/2 on ``D`` whatever the mechanism's scale, and on ``D'``
    ``1 / (1 + e^epsilon)``-ish (its exact probabilities are the exponential mechanism's on both cost vectors);
    declared: ``constant_choice_.epsilon``.
    """
    from fairlearn_dp.audit._events import SelectionEvent
    from fairlearn_dp.privacy._exponential import exponential_mechanism_probabilities

    groups = np.arange(n) % 2
    x = np.zeros(n)
    x[:4] = 1.0
    positives = n // 4
    labels = np.zeros(n, dtype=int)
    labels[[2, 3]] = 1
    labels[4:4 + positives - 2] = 1
    labels_prime = labels.copy()
    labels_prime[0] = 1
    make = functools.partial(_make_constant_choice, min_count=int(np.bincount(groups, minlength=2).min()))
    dataset = {"X": x[:, None], "y": labels, "sensitive_features": groups}
    neighbour = {"X": x[:, None], "y": labels_prime, "sensitive_features": groups}

    def costs(y):                                   # Q (= the hypothesis), the constant 0, the constant 1
        return np.array([np.sum(x != y), y.sum(), n - y.sum()], dtype=float)

    if not (costs(labels)[0] == costs(labels)[1] and np.all(np.abs(costs(labels_prime) - costs(labels)) == 1)):
        raise RuntimeError("The selection neighbours must tie Q with the constant 0 on D and move every cost by 1.")
    choice_epsilon = float(make(epsilon, 0).fit(**dataset).constant_choice_.epsilon)
    _check_share("DPExponentiatedGradient (selection)", choice_epsilon, epsilon, "constant_choice_.epsilon")
    expected = [1.0 - exponential_mechanism_probabilities(costs(y), epsilon=epsilon, sensitivity=1.0)[0]
                for y in (labels, labels_prime)]
    event = SelectionEvent("constant_choice_.is_constant", 1, expected)
    return make, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


# ------------------------------------------------------------------------------- the statistics game (variant)
_STATISTICS_DELTA = 1e-5


def _make_statistics_game(epsilon, seed, *, face, estimator=False, max_iter=2):
    """The statistics game (DPExponentiatedGradient): ``estimator`` False for the least-squares Learner, True for a
    ``LogisticRegression``; ``epsilon`` is the fit's total budget (inf: the noise-free reference).
    """
    from fairlearn.reductions import DemographicParity
    from sklearn.linear_model import LogisticRegression

    base = LogisticRegression() if estimator else None
    from fairlearn_dp.reductions import StatisticsGameOptions

    # oracle="estimator": at epsilon=inf (the reference) the game without noise, not Fairlearn's algorithm.
    params = {"epsilon": epsilon, "delta": _STATISTICS_DELTA, "max_iter": max_iter,
                  "options": StatisticsGameOptions(oracle="estimator"), "accountant": _accountant()}
    if face == "aif360":
        from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction

        return DPExponentiatedGradientReduction(base, "DemographicParity", difference_bound=0.05, **params, seed=seed)
    from fairlearn_dp.reductions import DPExponentiatedGradient

    return DPExponentiatedGradient(base, DemographicParity(difference_bound=0.05), **params, groups=[0, 1],
                                   random_state=seed)


def _statistics_threshold_case(make, x, labels, epsilon, *, face, release, sigma_key, rho_key):
    """Person 0 moves from group 0 to group 1 (groups alternate); ``release`` must move by exactly -1 in one cell
    and +1 in another. The event thresholds the rising cell at its true value on ``D``: probabilities 1/2 and
    ``Phi(-1/sigma)``; declared: that release's zCDP budget (``rho_[rho_key]``) converted at the fit's delta.
    """
    from fairlearn_dp.privacy import zcdp_to_approx_dp

    n = len(x)
    groups = np.arange(n) % 2
    groups_prime = groups.copy()
    groups_prime[0] = 1
    if face == "aif360":
        import pandas as pd
        from aif360.datasets import BinaryLabelDataset

        def data(a):
            frame = pd.DataFrame({"a": a.astype(float), "x": x, "y": labels.astype(float)})
            return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}
    else:
        def data(a):
            return {"X": x[:, None], "y": labels, "sensitive_features": a}
    dataset, neighbour = data(groups), data(groups_prime)
    attribute = ("model_." if face == "aif360" else "") + "history_." + release
    truth = np.asarray(released_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(released_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    change = truth_prime - truth
    gained = tuple(int(i) for i in np.unravel_index(np.argmax(change), change.shape))   # group order: the face's
    if np.count_nonzero(np.abs(change) > 1e-12) != 2 or not (math.isclose(change[gained], 1.0)
                                                             and math.isclose(change.min(), -1.0)):
        raise RuntimeError(f"The statistics-game neighbours must move exactly two cells of {release} by -1 and +1.")
    fitted = make(epsilon, 0).fit(**dataset)
    model = fitted.model_ if face == "aif360" else fitted
    # Under the attribute relation each release is projected onto its public margin over the two groups: an entry
    # keeps noise of sd sigma sqrt(1 - 1/2), and D' still moves it by exactly 1 (checked above, noise-free).
    sigma = float(model.noise_scale_[sigma_key]) * math.sqrt(1.0 - 1.0 / 2.0)
    event = ThresholdEvent(attribute, gained, truth[gained], 1.0, sigma)
    declared = PrivacySpend(zcdp_to_approx_dp(model.rho_[rho_key], _STATISTICS_DELTA), _STATISTICS_DELTA)
    return make, dataset, neighbour, event, declared


def _statistics_game_case(n, epsilon, *, face):
    """The one release of sufficient statistics (``history_["statistics"]``: the (event, group) sums of ``[x, 1]``,
    whose counts are their own Gaussian release, ``rho_["counts"]``).
    Person 0's feature is 0 and so is the column's mean (the others come in pairs +v, -v, multiples of 1/4, summed
    exactly), so person 0's feature stays 0 after the game's public centring and scaling of X: only the two count
    coordinates of its label cells move. Least-squares Learner, two planned rounds (the rest of the budget pays for
    per-round releases the event does not read).
    """
    i = np.arange(n - 1)
    x = np.concatenate([[0.0], ((i // 2) % 4 + 1) / 4.0 * np.where(i % 2 == 0, 1.0, -1.0)])
    if (n - 1) % 2:
        x[-1] = 0.0                                   # the unpaired last value
    labels = (np.arange(n) // 2) % 2
    make = functools.partial(_make_statistics_game, face=face)
    return _statistics_threshold_case(make, x, labels, epsilon, face=face, release="statistics",
                                      sigma_key="counts", rho_key="counts")


def _statistics_round_case(n, epsilon, *, face):
    """The per-round release (``history_["round_sums"][0]``: the (event, group) cell sums of the first play's 0/1
    predictions). With a ``LogisticRegression`` Learner and ``max_iter=1`` the first play is the estimator fitted
    on the public ``(X, y)`` with unit weights (the multipliers start balanced, so the constraint part of every
    cost is 0): the same on both datasets. It labels person 0 (``x = 1``) with 1.
    """
    x = np.linspace(0.0, 1.0, n)
    x[0] = 1.0
    labels = (x > 0.5).astype(int)
    make = functools.partial(_make_statistics_game, face=face, estimator=True, max_iter=1)
    return _statistics_threshold_case(make, x, labels, epsilon, face=face, release="round_sums",
                                      sigma_key="per_round", rho_key="per_round")


# ------------------------------------------------------------------ the statistics game's Gram release (variant)
_GRAM_ROW_NORM = 1.0          # C^2 > 1/2: the worst neighbour moves four entries of the release (C = 1: Delta^2 = 4.5)


def _gaussian_profile_delta(epsilon, mu):
    """The delta of the Gaussian mechanism's exact privacy profile (Balle & Wang 2018, Thm. 8) at ``epsilon``, for
    ``mu = Delta / sigma``: ``Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu)``. The cases that declare it
    (``"gram"``, ``"stage1"``) use a half-space event whose privacy loss on its boundary is this point's: the optimal
    event there, so a release with less noise than declared exceeds it (the zCDP conversion is too loose for that).
    At ``epsilon = rho = mu^2 / 2`` it is ``1/2 - e^rho Phi(-mu)``.
    """
    from scipy.stats import norm

    return float(norm.cdf(mu / 2 - epsilon / mu) - math.exp(epsilon) * norm.cdf(-mu / 2 - epsilon / mu))


def _make_gram_game(epsilon, seed):
    """The statistics game under ``privacy_unit="record"`` (least-squares Learner, two planned rounds, public row
    bound ``C = 1``, two features) whose Gram release gets ``rho_gram = epsilon``: the fit's zCDP budget is ``4
    epsilon`` (``statistics_fraction = 0.5``, half of ``rho_stats`` for the Gram), converted at the fit's delta, plus
    the choice against the constants' share. ``inf``: the noise-free reference.
    """
    from fairlearn.reductions import DemographicParity

    from fairlearn_dp.privacy import zcdp_to_approx_dp
    from fairlearn_dp.privacy._selection import SELECTION_SHARE
    from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions

    total = (math.inf if math.isinf(epsilon)
             else zcdp_to_approx_dp(4.0 * epsilon, _STATISTICS_DELTA) / (1.0 - SELECTION_SHARE))
    return DPExponentiatedGradient(None, DemographicParity(difference_bound=0.05), epsilon=total,
                                   delta=_STATISTICS_DELTA, max_iter=2,
                                   options=StatisticsGameOptions(statistics_fraction=0.5),
                                   privacy_unit="record", row_norm_bound=_GRAM_ROW_NORM, groups=[0, 1],
                                   accountant=_accountant(), random_state=seed)


def _gram_case(n, epsilon):
    """The Gram release under ``privacy_unit="record"`` (``history_["gram"]``: the noisy ``Phi^T Phi`` of ``phi = [x,
    1]``, whose upper triangle is released). ``D'`` substitutes record 0's features ``x = (a, b)`` by ``(b, a)`` with
    ``a - b = sqrt(C^2 + 1/2)`` and ``a + b = sqrt(C^2 - 1/2)`` (both on the bound, ``x . x' = -1/2``): the worst
    neighbour of docs/privacy_analysis/statistics_game.md, which moves the release by exactly its declared
    sensitivity (checked here, noise-free). The event projects the release onto that move and thresholds it at its
    value on ``D`` (``ProjectionEvent``: probabilities 1/2 and ``Phi(-sqrt(2 rho))``);
    declared: the release's Gaussian profile at ``epsilon = rho_gram``
    (:func:`_gaussian_profile_delta` at ``mu = sqrt(2 rho)``).
    """
    from fairlearn_dp.audit._events import ProjectionEvent

    C = _GRAM_ROW_NORM
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (n, 2))          # inside the bound: no other row is clipped
    plus, minus = math.sqrt(C * C + 0.5), math.sqrt(C * C - 0.5)
    X_prime = X.copy()
    X[0], X_prime[0] = ((minus + plus) / 2, (minus - plus) / 2), ((minus - plus) / 2, (minus + plus) / 2)
    labels, groups = (np.arange(n) // 2) % 2, np.arange(n) % 2
    dataset = {"X": X, "y": labels, "sensitive_features": groups}
    neighbour = {"X": X_prime, "y": labels, "sensitive_features": groups}
    attribute = "history_.gram"
    truth = np.asarray(released_attribute(_make_gram_game(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(released_attribute(_make_gram_game(math.inf, 0).fit(**neighbour), attribute),
                             dtype=float)
    move = np.triu(truth_prime - truth)                               # the released entries only
    fitted = _make_gram_game(epsilon, 0).fit(**dataset)
    shift = float(np.linalg.norm(move))
    if not math.isclose(shift, fitted.sensitivity_["gram_l2"], rel_tol=1e-9):
        raise RuntimeError(f"The Gram neighbours move the release by {shift:.6g}, not by its declared sensitivity "
                           f"{fitted.sensitivity_['gram_l2']:.6g}.")
    event = ProjectionEvent(attribute, move, float(np.sum(truth * move) / shift), shift,
                            float(fitted.noise_scale_["gram"]))
    rho = float(fitted.rho_["gram"])
    declared = PrivacySpend(rho, _gaussian_profile_delta(rho, math.sqrt(2.0 * rho)))
    return _make_gram_game, dataset, neighbour, event, declared


# ---------------------------------------------------------------------------------------------- the grid search
#: The reference fit's budget (noise sd about 1e-4 per cell sum): the sums of 0/1 predictions are integers, so the
#: reference release rounded is the noise-free one. (DPGridSearch at epsilon=inf with an estimator is Fairlearn's fit.)
_GRID_REFERENCE_EPSILON = 1e8


def _make_grid_search(epsilon, seed, *, face):
    """DPGridSearch (or its AIF360 face) with a ``LogisticRegression`` best response on a grid of two zero multiplier
    vectors (``grid_limit=0``), whose per-grid-point release gets ``rho = epsilon``: the fit's zCDP budget is ``4
    epsilon`` (half for the statistics, two grid points), converted at the fit's delta. ``inf``: the reference.
    """
    from fairlearn.reductions import DemographicParity
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.privacy import zcdp_to_approx_dp

    total = (_GRID_REFERENCE_EPSILON if math.isinf(epsilon)
             else zcdp_to_approx_dp(4.0 * epsilon, _STATISTICS_DELTA))
    params = {"grid_size": 2, "grid_limit": 0.0, "epsilon": total, "delta": _STATISTICS_DELTA,
              "accountant": _accountant()}
    if face == "aif360":
        from aif360_dp.algorithms.inprocessing import DPGridSearchReduction

        return DPGridSearchReduction(LogisticRegression(), "DemographicParity", **params, seed=seed)
    from fairlearn_dp.reductions import DPGridSearch

    return DPGridSearch(LogisticRegression(), DemographicParity(difference_bound=0.05), **params, groups=[0, 1],
                        random_state=seed)


def _grid_search_case(n, epsilon, *, face):
    """The per-grid-point release of DPGridSearch (``history_["grid_sums"][0]``: the (event, group) cell sums of the
    first grid point's 0/1 predictions). At the multipliers 0 the best response is the ``LogisticRegression`` fitted
    on the public ``(X, y)`` with unit weights: the same on both datasets; it labels person 0 (``x = 1``) with 1, and
    ``D'`` moves person 0 from group 0 to group 1: one cell sum rises by exactly 1, one falls by 1 (checked on the
    reference). Projected onto its public margin, each entry keeps noise of sd ``sigma / sqrt 2`` and the move is
    ``Delta / sigma = sqrt(2 rho)`` of it; the event thresholds the rising cell at its value on ``D``
    (probabilities 1/2 and ``Phi(-sqrt(2 rho))``); declared: the Gaussian profile at ``epsilon = rho``.
    """
    x = np.linspace(0.0, 1.0, n)
    x[0] = 1.0
    labels = (x > 0.5).astype(int)
    groups = np.arange(n) % 2
    groups_prime = groups.copy()
    groups_prime[0] = 1
    if face == "aif360":
        import pandas as pd
        from aif360.datasets import BinaryLabelDataset

        def data(a):
            frame = pd.DataFrame({"a": a.astype(float), "x": x, "y": labels.astype(float)})
            return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}
    else:
        def data(a):
            return {"X": x[:, None], "y": labels, "sensitive_features": a}
    make = functools.partial(_make_grid_search, face=face)
    dataset, neighbour = data(groups), data(groups_prime)
    attribute = ("model_." if face == "aif360" else "") + "history_.grid_sums.0"
    truth, truth_prime = (np.round(np.asarray(released_attribute(make(math.inf, 0).fit(**d), attribute), dtype=float))
                          for d in (dataset, neighbour))
    change = truth_prime - truth
    gained = tuple(int(i) for i in np.unravel_index(np.argmax(change), change.shape))
    if np.count_nonzero(change) != 2 or change[gained] != 1.0 or change.min() != -1.0:
        raise RuntimeError("The grid-search neighbours must move exactly two cells of grid_sums[0] by -1 and +1.")
    fitted = make(epsilon, 0).fit(**dataset)
    model = fitted.model_ if face == "aif360" else fitted
    rho = float(model.rho_["per_grid_point"])
    if not math.isclose(rho, epsilon, rel_tol=1e-6):
        raise RuntimeError(f"The grid-search case must give its audited release rho = {epsilon}, not {rho}.")
    sigma = float(model.noise_scale_["per_grid_point"]) * math.sqrt(1.0 - 1.0 / 2.0)
    event = ThresholdEvent(attribute, gained, truth[gained], 1.0, sigma)
    return make, dataset, neighbour, event, PrivacySpend(rho, _gaussian_profile_delta(rho, math.sqrt(2.0 * rho)))


# ------------------------------------------------------------------------ attribute-blind post-processing (variant)
def _blind_group_estimator():
    """A fixed group classifier of the group from ``[output, feature]``, fitted on public synthetic rows (not on the
    audited data): P(group 1) rises with the feature, so both posterior buckets are used.
    """
    from sklearn.linear_model import LogisticRegression

    public = np.array([[0.5, 0.0], [0.5, 0.2], [0.5, 0.8], [0.5, 1.0]])
    return LogisticRegression().fit(public, [0, 0, 1, 1])


def _make_blind_fair_regression(epsilon, seed, *, face):
    group_estimator = _blind_group_estimator()
    if face == "aif360":
        from aif360_dp.algorithms.postprocessing import DPFairRegressionPostprocessing

        return DPFairRegressionPostprocessing(epsilon=epsilon, bounds=(0.0, 1.0), n_bins=_N_BINS,
                                              group_estimator=group_estimator, posterior_buckets=2,
                                              accountant=_accountant(), seed=seed)
    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

    return DPFairRegressionPostprocessor(epsilon=epsilon, bounds=(0.0, 1.0), n_bins=_N_BINS, groups=[0, 1],
                                         group_estimator=group_estimator, posterior_buckets=2, prefit=True,
                                         accountant=_accountant(), random_state=seed)


def _blind_fair_regression_case(n, epsilon, *, face):
    """Attribute-blind mode: the released (group, output bin, posterior bucket) PMF. Record 0 (lowest bin, group 0,
    feature 0) is substituted by (highest bin, group 1, feature 1): one count moves between two cells; the event and
    its probabilities (1/4 and e^-epsilon / 4) are those of the aware case.
    """
    (x, a), (x_prime, a_prime) = _regression_records(n)
    feature = (np.arange(n) % 3) / 2.0
    feature_prime = feature.copy()
    feature[0], feature_prime[0] = 0.0, 1.0
    make = functools.partial(_make_blind_fair_regression, face=face)
    if face == "aif360":
        dataset = {"dataset_true": _aif360_regression_dataset(x, a, feature)}
        neighbour = {"dataset_true": _aif360_regression_dataset(x_prime, a_prime, feature_prime)}
        attribute = "model_.noisy_joint_pmf_"
    else:
        dataset = {"X": np.column_stack([x, feature]), "sensitive_features": a}
        neighbour = {"X": np.column_stack([x_prime, feature_prime]), "sensitive_features": a_prime}
        attribute = "noisy_joint_pmf_"
    name = "DPFairRegressionPostprocessor (attribute-blind)"
    event = _optimal_event(make, dataset, neighbour, attribute, name, epsilon=epsilon)
    return make, dataset, neighbour, event, PrivacySpend(epsilon, 0.0)


# --------------------------------------------------------------------------- group-budget stage 1 (variant)
_STAGE1_FRACTION = 0.5


def _make_group_budget_stage1(epsilon, seed, *, classification, face="fairlearn"):
    """DPSE with an intercept and one iteration. ``epsilon`` is the audited Gram release's ``mu = Delta / sigma``
    (its zCDP budget ``epsilon^2 / 2``; inf: the noise-free reference): with two groups of at least ``d + 1``
    rows the Gram gets ``stage1_fraction * rho_fit / 6`` (``rho_fit`` is 0.9 rho for the classifier, whose final
    choice takes 0.1). ``face="aif360"``: the classifier's AIF360 face.
    """
    fit_share = 0.9 if classification else 1.0
    rho = math.inf if math.isinf(epsilon) else epsilon ** 2 / 2 * 6 / (_STAGE1_FRACTION * fit_share)
    params = {"rho": rho, "stage1_fraction": _STAGE1_FRACTION, "n_iter": 1, "data_bound": 1.0, "accountant": _accountant()}
    if face == "aif360":
        from aif360_dp.algorithms.inprocessing import DPGroupBudgetClassification

        return DPGroupBudgetClassification(**params, seed=seed)
    from fairlearn_dp.reductions import DPGroupBudgetClassifier, DPGroupBudgetRegressor

    estimator = DPGroupBudgetClassifier if classification else DPGroupBudgetRegressor
    return estimator(**params, groups=[0, 1], random_state=seed)


def _group_budget_stage1_case(n, epsilon, *, classification, face="fairlearn"):
    """Stage 1's Gram release (``stage1_statistics_["gram"]``; one feature and the intercept, ``d = 2``). Record 0
    (group 0) has ``x = 1``; ``D'`` negates it, the worst-case neighbour of the privacy analysis: only the entry
    ``(0, 1)`` (``sum_i x_i U``) moves, by ``-2 U^2``, the whole tight sensitivity ``U^2 sqrt(d^2)``. The event
    thresholds that entry at its true value on ``D`` (probabilities ``1/2`` and ``Phi(-mu)``). The release is a
    Gaussian mechanism with ``mu = Delta / sigma``, so it is ``(epsilon, delta(epsilon))``-DP exactly for the
    Gaussian privacy profile ``delta(epsilon) = Phi(-epsilon / mu + mu / 2) - e^epsilon Phi(-epsilon / mu - mu /
    2)`` (Balle & Wang 2018); the case declares that pair at ``mu = epsilon``, so a release with too little noise
    (half the sensitivity: ``Phi(-2 mu)`` on ``D'``) is caught, which the looser zCDP conversion would not show.
    The AIF360 classification face gets the same records as a ``BinaryLabelDataset`` (its features unscaled, the
    protected attribute dropped); the regression face is not audited here: its dataset min-max scales ``x`` into
    ``[0, 1]``, where no neighbour reaches the sensitivity of the engine's box ``[-1, 1]``.
    """

    rng = np.random.default_rng(2023)
    groups = np.arange(n) % 2
    x = rng.uniform(-1.0, 1.0, n)
    x[0] = 1.0
    x_prime = x.copy()
    x_prime[0] = -1.0
    y = ((np.arange(n) // 2) % 2) if classification else rng.uniform(-1.0, 1.0, n)
    make = functools.partial(_make_group_budget_stage1, classification=classification, face=face)
    if face == "aif360":
        import pandas as pd
        from aif360.datasets import BinaryLabelDataset

        def data(values):
            frame = pd.DataFrame({"a": groups.astype(float), "x": values, "y": y.astype(float)})
            return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}
    else:
        def data(values):
            return {"X": values[:, None], "y": y, "sensitive_features": groups}
    dataset, neighbour = data(x), data(x_prime)
    prefix = "model_." if face == "aif360" else ""
    attribute = prefix + "stage1_statistics_.gram"
    truth = np.asarray(released_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    change = np.asarray(released_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float) - truth
    # The Gram is stage 1's first release.
    gram = released_attribute(make(epsilon, 0).fit(**dataset), prefix + "ledger_.entries")[0]
    moved = np.abs(change[np.triu_indices(2)]) > 1e-9
    if (moved.tolist() != [False, True, False] or not math.isclose(change[0, 1], -gram["l2_sensitivity"])
            or not math.isclose(gram["rho"], epsilon ** 2 / 2)):
        raise RuntimeError("The stage-1 neighbours must move only the Gram entry (0, 1), by its whole declared "
                           "sensitivity, and the Gram must get the zCDP budget epsilon^2 / 2.")
    event = ThresholdEvent(attribute, (0, 1), truth[0, 1], change[0, 1], gram["sigma"])
    mu = gram["l2_sensitivity"] / gram["sigma"]
    return make, dataset, neighbour, event, PrivacySpend(epsilon, _gaussian_profile_delta(epsilon, mu))


# Extra cases for rows whose class runs more than one algorithm: (row, variant) -> builder(n, epsilon).
_VARIANT_CASES = {
    ("DPExponentiatedGradient", "statistics"): functools.partial(_statistics_game_case, face="fairlearn"),
    ("DPExponentiatedGradientReduction", "statistics"): functools.partial(_statistics_game_case, face="aif360"),
    ("DPExponentiatedGradient", "statistics_round"): functools.partial(_statistics_round_case, face="fairlearn"),
    ("DPExponentiatedGradientReduction", "statistics_round"): functools.partial(_statistics_round_case,
                                                                                face="aif360"),
    ("JagielskiExponentiatedGradient", "selection"): _constant_choice_case,
    ("DPExponentiatedGradient", "gram"): _gram_case,
    ("DPFairRegressionPostprocessor", "blind"): functools.partial(_blind_fair_regression_case, face="fairlearn"),
    ("DPFairRegressionPostprocessing", "blind"): functools.partial(_blind_fair_regression_case, face="aif360"),
    ("DPGroupBudgetRegressor", "stage1"): functools.partial(_group_budget_stage1_case, classification=False),
    ("DPGroupBudgetClassifier", "stage1"): functools.partial(_group_budget_stage1_case, classification=True),
    ("DPGroupBudgetClassification", "stage1"): functools.partial(_group_budget_stage1_case, classification=True,
                                                                 face="aif360"),
    ("DPMetricFrame", "multiclass"): _metric_frame_multiclass_case,
    ("DPMetricFrame", "weighted"): _metric_frame_weighted_case,
    ("DPMetricFrame", "weight_tables"): _metric_frame_weight_tables_case,
    ("DPMetricFrame", "report"): _metric_frame_report_case,
    ("DPMetricFrame", "threshold_report"): _threshold_report_case,
    ("DPCorrelationRemover", "row_bound"): functools.partial(_correlation_remover_case,
                                                             make=_make_row_bound_correlation_remover,
                                                             records=_row_bound_correlation_records),
}
VARIANTS = tuple(_VARIANT_CASES)

# Registry rows by the kind of their audited release (the default audits' tolerances and the long audits' minimum
# lower bounds read them: tests/fairlearn_dp/audit/test_audit_cases.py, tests/sequential_audit.py).
#: zCDP releases: the declared (epsilon, delta) is the loose conversion of rho, far above the event's loss.
ZCDP_ROWS = ("DPGroupBudgetRegressor", "DPGroupBudgetClassifier", "DPGroupBudgetRegression",
             "DPGroupBudgetClassification")
#: One release of a multi-release mechanism (see the module docstring).
EXPONENTIATED_GRADIENT_ROWS = ("JagielskiExponentiatedGradient",)
#: The statistics game's release of sufficient statistics (its "statistics" variant): a zCDP release whose declared
#: (epsilon, delta) is that release's budget converted at the fit's delta, not the fit's epsilon.
STATISTICS_GAME_ROWS = ("DPExponentiatedGradient", "DPExponentiatedGradientReduction")
#: The exponential-mechanism learner's choice between two candidates.
EXPONENTIAL_MECHANISM_ROWS = ("ExponentialMechanismFairClassifier",)


# ----------------------------------------------------------------------------------------------------
# Registry row -> (phrase its declared neighbouring relation must contain, case builder, event builder).
_XIAN = "substitution of one fitting record"
_JAGIELSKI = "one person's sensitive attribute changed"
_WITHIN_GROUP = "substitution of one record (x, a, y) within its group"
_RECORD = "substitution of one record (x, a, y); n public"
_PREPROCESSING = "one whole record substituted (privacy_unit='record', default)"
_CASES = {
    "DPReweighing": (_PREPROCESSING, _reweighing_case, "laplace"),
    "DPDisparateImpactRemover": (_PREPROCESSING, _disparate_impact_case, "laplace"),
    "DPFairRegressionPostprocessor": (_XIAN, _fair_regression_case, "laplace"),
    "DPThresholdOptimizer": (_JAGIELSKI, _threshold_optimizer_case, "laplace"),
    "DPFairRegressionPostprocessing": (_XIAN, _aif360_fair_regression_case, "laplace"),
    "DPEqOddsPostprocessing": (_JAGIELSKI, _aif360_eq_odds_case, "laplace"),
    "DPMetricFrame": (_JAGIELSKI, _metric_frame_case, "laplace"),
    "DPCalibratedEqOddsPostprocessing": (_JAGIELSKI, _calibrated_eq_odds_case, "single_release"),
    "DPRejectOptionClassification": (_JAGIELSKI, _reject_option_case, "single_release"),
    "DPCorrelationRemover": (_JAGIELSKI, _correlation_remover_case, "single_release"),
    "DPGroupBudgetRegressor": (_WITHIN_GROUP, functools.partial(_group_budget_case, classification=False),
                               "gaussian"),
    "DPGroupBudgetClassifier": (_WITHIN_GROUP, functools.partial(_group_budget_case, classification=True),
                                "gaussian"),
    "DPGroupBudgetRegression": (_WITHIN_GROUP, _aif360_group_budget_regression_case, "gaussian"),
    "DPGroupBudgetClassification": (_WITHIN_GROUP, _aif360_group_budget_classification_case, "gaussian"),
    # One release of a multi-release mechanism (builder(n, epsilon) returns the whole case).
    "JagielskiExponentiatedGradient": (_JAGIELSKI, _exponentiated_gradient_case, "single_release"),
    "DPExponentiatedGradient": (_JAGIELSKI, functools.partial(_statistics_game_case, face="fairlearn"),
                                "single_release"),
    "DPExponentiatedGradientReduction": (_JAGIELSKI, functools.partial(_statistics_game_case, face="aif360"),
                                         "single_release"),
    "DPGridSearch": (_JAGIELSKI, functools.partial(_grid_search_case, face="fairlearn"), "single_release"),
    "DPGridSearchReduction": (_JAGIELSKI, functools.partial(_grid_search_case, face="aif360"), "single_release"),
    "ExponentialMechanismFairClassifier": (_RECORD, _exponential_mechanism_case, "single_release"),
    "DPGerryFairClassifier": (_RECORD, _gerryfair_case, "single_release"),
    "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier": (_RECORD, _aif360_gerryfair_case, "single_release"),
}


# Records of each default dataset (n=None): 40, or a row's own choice as a function of epsilon.
_DEFAULT_N = 40
_ROW_DEFAULT_N = {"ExponentialMechanismFairClassifier": exponential_mechanism_default_n}


def default_audit_case(entry_name, *, epsilon=1.0, n=None, variant=None):
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
    declares the ``(epsilon, delta)`` the fitted object states for it (see the module docstring for each
    row's neighbours and event). The AIF360 transformers are audited through their ``model_``.

    Parameters
    ----------
    entry_name : str
        A registry row's name (:func:`fairdp_adapters.registry.get`).
    epsilon : float, default=1.0
        Budget of the audited estimator (its declared epsilon); for the in-processing rows, the budget of the audited
        release.
    n : int or None, default=None
        Records in each dataset (>= 8). None: 40, except ``ExponentialMechanismFairClassifier`` (a multiple of 25,
        at least 1,000, large enough that its fits pass their public size check and release the floor ``L = 1``).

    variant : str or None, default=None
        A second algorithm of the row's class (:data:`VARIANTS`): ``"statistics"`` audits the statistics game's
        one release of sufficient statistics (``_statistics_game_case``), ``"statistics_round"`` its per-round
        release (``_statistics_round_case``), ``"selection"`` its last release, the choice against the fair
        constants under ``privacy_unit="record"`` (``_constant_choice_case``), ``"gram"`` its Gram release under
        ``privacy_unit="record"`` (``_gram_case``; ``epsilon`` is that release's ``rho``), ``"stage1"`` the
        group-budget estimators' stage-1 Gram release (``_group_budget_stage1_case``: ``epsilon`` is its Gaussian
        ``mu``, and the declared pair is its exact Gaussian profile at ``epsilon``), ``"multiclass"`` the metric
        frame's release of a 3 x 3 confusion table per group (``_metric_frame_multiclass_case``), ``"weighted"`` its
        release of weighted counts with a declared weight bound (``_metric_frame_weighted_case``),
        ``"weight_tables"`` its one release of an unweighted and a weighted table (one metric weighted, one not:
        ``_metric_frame_weight_tables_case``), ``"report"`` a ``DPReport``'s one release of two models' tables
        (``_metric_frame_report_case``), ``"threshold_report"`` an AIF360 ``DPThresholdReport``'s one release of a
        score's histogram (``_threshold_report_case``), ``"row_bound"`` the correlation remover's release under
        ``row_norm_bound_l1`` (Lemma 3's worst neighbours). None: the row's default case.

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
    entry = registry.get(entry_name)
    if entry.name not in _CASES:
        raise NotImplementedError(
            f"Registry row {entry.name!r} ({entry.dp_class}) has no default privacy-audit case: add one for its "
            f"neighbouring relation ({entry.neighbouring!r}) to the audit cases (tests/audit_cases.py).")
    relation, builder, kind = _CASES[entry.name]
    if relation not in entry.neighbouring:
        raise NotImplementedError(
            f"The default audit case of registry row {entry.name!r} assumes the neighbouring relation "
            f"{relation!r}, but the row declares {entry.neighbouring!r}: update the case.")
    if not (isinstance(epsilon, (int, float)) and 0 < epsilon < math.inf):
        raise ValueError(f"epsilon must be finite and > 0, got {epsilon!r}.")
    if variant is not None:
        if (entry.name, variant) not in _VARIANT_CASES:
            raise NotImplementedError(f"Registry row {entry.name!r} has no audit variant {variant!r} "
                                      f"(variants: {VARIANTS}).")
        n = _DEFAULT_N if n is None else n
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 8:
            raise ValueError(f"n must be an integer >= 8, got {n!r}.")
        make, dataset, neighbour, event, declared = _VARIANT_CASES[entry.name, variant](int(n), float(epsilon))
        return AuditCase(functools.partial(make, float(epsilon)), dataset, neighbour, event, declared.epsilon,
                         declared.delta)
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
    truth = np.asarray(released_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(released_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    change = truth - truth_prime
    changed = np.flatnonzero(np.abs(change.ravel()) > 1e-12)
    lost, gained = np.unravel_index(np.argmax(change), change.shape), np.unravel_index(np.argmin(change),
                                                                                       change.shape)
    if changed.size != 2 or not math.isclose(change[lost], -change[gained], rel_tol=1e-9):
        raise RuntimeError(f"The default neighbours of {name!r} do not move exactly one count between two cells "
                           f"of {attribute} (changed cells: {changed.size}).")
    return CellEvent(attribute, lost, gained, truth[lost], truth[gained],
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
    truth = np.asarray(released_attribute(make(None, 0, rho=_NOISELESS_RHO).fit(**dataset), attribute),
                       dtype=float)
    truth_prime = np.asarray(released_attribute(make(None, 0, rho=_NOISELESS_RHO).fit(**neighbour), attribute),
                             dtype=float)
    change = truth_prime - truth
    changed = np.flatnonzero(change.ravel() != 0)
    if changed.size != 1:
        raise RuntimeError(f"The default neighbours of {name!r} do not move exactly one cell of {attribute} "
                           f"(changed cells: {changed.size}).")
    cell = np.unravel_index(changed[0], change.shape)
    declared = make(epsilon, 0).fit(**dataset)
    sigma = np.asarray(released_attribute(declared, sigma_attribute), dtype=float)[cell[1]]      # cell = (t, group, j)
    event = ThresholdEvent(attribute, cell, truth[cell], change[cell], sigma)
    return event, released_attribute(declared, "privacy_spent_")


def audit_registered(name, *, n_runs=2000, random_state=None, epsilon=1.0, n=None, confidence=0.95, n_jobs=None,
                     fit_failures="output", variant=None, progress=None):
    """Audit registry row ``name`` on its :func:`default_audit_case`; returns an
    :class:`~fairlearn_dp.audit.AuditResult`.

    A fit that raises is an outcome outside the default event (``fit_failures="output"``, see
    :func:`fairlearn_dp.audit.audit`): a neighbour on which the fit fails more often than on the other moves the
    event's frequencies and is flagged; ``result.failures`` counts the failed fits. ``fit_failures="raise"``
    re-raises the first failure instead. ``progress`` is passed to :func:`~fairlearn_dp.audit.audit` (None: a
    progress bar when standard error is a terminal, as ``fairdp audit`` does).
    """
    case = default_audit_case(name, epsilon=epsilon, n=n, variant=variant)
    return audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=n_runs,
                 declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, confidence=confidence,
                 random_state=random_state, n_jobs=n_jobs, fit_failures=fit_failures, progress=progress)


def audit_registered_failures(name, *, n_runs=200, random_state=None, epsilon=1.0, n=None, confidence=0.95,
                              n_jobs=None):
    """Audit the event "the fit raised" (:class:`~fairlearn_dp.audit.FitFailed`) on row ``name``'s default
    neighbours.

    Whether a fit succeeds may depend only on public inputs and released values, so its frequency obeys the same
    inequality as any other event's; a fit that fails on one neighbour and not on the other is flagged (with 200
    runs, a deterministic difference gives a lower bound of about 3.8). Returns an
    :class:`~fairlearn_dp.audit.AuditResult`.
    """
    case = default_audit_case(name, epsilon=epsilon, n=n)
    return audit(case.factory, case.dataset, case.neighbour, event=FitFailed(), n_runs=n_runs,
                 declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, confidence=confidence,
                 random_state=random_state, n_jobs=n_jobs, fit_failures="output")


# Edge neighbours for the failure audit. Relations that let one record's group change (Xian: (x, a) substituted;
# Jagielski: one attribute changed; Cummings: one record substituted): on D record 0 is the only member of group 1,
# on D' it is in group 0, so group 1 is declared but empty. Within-group substitution (group sizes public): record 0
# is substituted within its group by one outside the public bounds (x = 3 data_bound; the regressors' y = 10
# target_bound), and for the classifiers it is the only positive label on D (none on D').
_EDGE_OUTSIDE_X = 3.0
_EDGE_OUTSIDE_Y = 10.0


def failure_audit_case(name, *, epsilon=1.0, n=None):
    """Neighbours at the edge of row ``name``'s data domain, with the event "the fit raised".

    The estimator is built as in :func:`default_audit_case` (same parameters, same public ``groups``); the datasets
    are the default case's, changed so that ``D`` and ``D'`` are neighbours under the row's relation and sit where a
    data-dependent check would fire: for the relations that let one record change its group, a declared group with
    one member on ``D`` and none on ``D'``; for the within-group rows (group sizes public), one record outside the
    public bounds on ``D'`` and, for the classifiers, no positive label left. Both lie in the declared domain, so
    every fit must succeed (docs/user_guide/failure_paths.rst); the audit flags a fit that fails on one
    of them only, and ``result.failures`` shows fits that fail on both.

    Returns
    -------
    AuditCase
        With ``event=FitFailed()``.
    """
    case = default_audit_case(name, epsilon=epsilon, n=n)
    entry = registry.get(name)
    if "sensitive_features" not in case.dataset and "X" in case.dataset:
        # The sensitive columns are in X (DPCorrelationRemover): record 0's sensitive value at its lower bound on D,
        # far beyond its upper bound on D' (clipped silently: both in the domain).
        X_prime = np.array(case.dataset["X"], dtype=float)
        X_prime[0, 0] = _EDGE_OUTSIDE_Y
        dataset, neighbour = case.dataset, {**case.dataset, "X": X_prime}
        return AuditCase(case.factory, dataset, neighbour, FitFailed(), case.declared_epsilon, case.declared_delta)
    size = _n_records(case.dataset)
    if _CASES[entry.name][0] == _WITHIN_GROUP:
        classification = entry.task == "classification"
        labels = np.zeros(size) if classification else None
        if classification:
            labels[0] = 1.0
        dataset = _edited(case.dataset, labels=labels)
        labels_prime = np.zeros(size) if classification else _labels(case.dataset).copy()
        if not classification:
            labels_prime[0] = _EDGE_OUTSIDE_Y
        features_prime = _x(case.dataset).copy()
        features_prime[0] = _EDGE_OUTSIDE_X
        neighbour = _edited(case.dataset, labels=labels_prime, x=features_prime)
    else:
        groups = np.zeros(size)
        groups[0] = 1.0
        dataset, neighbour = _edited(case.dataset, groups=groups), _edited(case.dataset, groups=np.zeros(size))
    return AuditCase(case.factory, dataset, neighbour, FitFailed(), case.declared_epsilon, case.declared_delta)


def _aif360_datasets(fit_kwargs):
    return {key: value for key, value in fit_kwargs.items() if hasattr(value, "protected_attribute_names")}


def _n_records(fit_kwargs):
    datasets = _aif360_datasets(fit_kwargs)
    if datasets:
        return next(iter(datasets.values())).features.shape[0]
    return len(fit_kwargs["sensitive_features"])


def _labels(fit_kwargs):
    from aif360_dp._glue import dataset_to_arrays

    datasets = _aif360_datasets(fit_kwargs)
    return (np.asarray(dataset_to_arrays(next(iter(datasets.values()))).y, dtype=float) if datasets
            else np.asarray(fit_kwargs["y"], dtype=float))


def _x(fit_kwargs):
    """The one non-protected feature ``x`` of a case's records."""
    datasets = _aif360_datasets(fit_kwargs)
    if datasets:
        dataset = next(iter(datasets.values()))
        return np.asarray(dataset.features[:, dataset.feature_names.index("x")], dtype=float)
    return np.asarray(fit_kwargs["X"], dtype=float)[:, -1]


def _edited(fit_kwargs, *, groups=None, labels=None, x=None):
    """A copy of a case's fit arguments with the protected attribute, the labels (original units) and/or the
    feature ``x`` replaced; an AIF360 dataset keeps its declared (privileged / unprivileged) groups.
    """
    from aif360_dp._glue import _label_scale

    edited = dict(fit_kwargs)
    datasets = _aif360_datasets(fit_kwargs)
    if not datasets:
        if groups is not None:
            edited["sensitive_features"] = np.asarray(groups).astype(np.asarray(fit_kwargs["sensitive_features"]).dtype)
        if labels is not None:
            edited["y"] = np.asarray(labels).astype(np.asarray(fit_kwargs["y"]).dtype)
        if x is not None:
            X = np.array(fit_kwargs["X"], dtype=float)
            X[:, -1] = x
            edited["X"] = X
        return edited
    for key, dataset in datasets.items():
        dataset = dataset.copy(deepcopy=True)
        if groups is not None:
            name = dataset.protected_attribute_names[0]
            dataset.protected_attributes[:, 0] = groups
            if name in dataset.feature_names:
                dataset.features[:, dataset.feature_names.index(name)] = groups
        if labels is not None and key != "dataset_pred":
            low, width = _label_scale(dataset)
            dataset.labels[:, 0] = (np.asarray(labels, dtype=float) - low) / width
        if x is not None:
            dataset.features[:, dataset.feature_names.index("x")] = x
        edited[key] = dataset
    return edited


def audit_registered_edge_failures(name, *, n_runs=20, random_state=None, epsilon=1.0, n=None, confidence=0.95,
                                   n_jobs=None):
    """Audit the event "the fit raised" on row ``name``'s :func:`failure_audit_case` (edge neighbours); returns an
    :class:`~fairlearn_dp.audit.AuditResult`, whose ``failures`` must be ``(0, 0)`` for a row that keeps the rule
    "inside the domain every dataset fits".
    """
    case = failure_audit_case(name, epsilon=epsilon, n=n)
    return audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=n_runs,
                 declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, confidence=confidence,
                 random_state=random_state, n_jobs=n_jobs, fit_failures="output")


# Continuous released statistics of each row's default case compared by audit_registered_unseeded: the event's
# attribute, except where that is a discrete choice (two unseeded fits then agree by chance).
_UNSEEDED_STATISTICS = {"ExponentialMechanismFairClassifier": ("min_group_size_estimate_",)}


def released_statistics(name, *, epsilon=1.0, n=None):
    """Dotted attribute paths of the continuous noisy statistics that row ``name``'s default case releases."""
    return _released_statistics(name, default_audit_case(name, epsilon=epsilon, n=n))


def _released_statistics(name, case):
    return _UNSEEDED_STATISTICS.get(registry.get(name).name, (case.event.attribute,))


def audit_registered_unseeded(name, *, global_seeds=(0, 1, 2), epsilon=1.0, n=None):
    """Check that row ``name`` with ``random_state=None`` (``seed=None`` for the AIF360 faces) is unpredictable.

    Builds the row's estimator as its :func:`default_audit_case` does, but unseeded (each fit with a fresh
    accountant), and runs :func:`fairlearn_dp.audit.audit_unseeded_reproducibility` on the case's ``D`` and ``D'``
    with the statistics of :func:`released_statistics`: after ``np.random.seed(s)`` two unseeded fits must release
    different values. Returns a ``ReproducibilityResult``.
    """
    case = default_audit_case(name, epsilon=epsilon, n=n)
    return audit_unseeded_reproducibility(functools.partial(case.factory, None), case.dataset, case.neighbour,
                                          statistics=_released_statistics(name, case),
                                          global_seeds=global_seeds)
