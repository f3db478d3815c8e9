"""Every public parameter of every DP estimator is validated before the budget is checked: a bad value is a
``ValueError``/``TypeError`` that names the parameter, and it costs nothing.

For each row of :mod:`fairdp_adapters.registry` (both faces) the estimator of its default audit case
(``default_audit_case`` of the test-support module ``tests/audit_cases.py``, a valid configuration on a small valid dataset) is rebuilt
with one constructor parameter replaced by a bad value, and fitted twice:

- with a fresh ``BudgetAccountant``: the fit raises a ``ValueError``/``TypeError`` (not diffprivlib's
  ``BudgetError``) whose message names the parameter, and the accountant has spent nothing;
- with an accountant that cannot pay any spend: the same error, not a ``BudgetError``, which shows that the
  parameter is checked *before* the budget (a check after the budget check would cost a retry nothing, but it
  would still be a check after it).

The bad values are generated from each parameter's domain (``_KINDS``: a wrong string choice, a number below or
above its range, NaN, an infinity, a bool or a string where a number belongs, a wrong type, ...). Every
constructor parameter must have an entry in the table (``_COMMON`` or the row's own ``_ROWS[row]``): a new
parameter without one fails :func:`test_every_parameter_has_a_domain`, so it cannot escape silently. ``_free``
marks a parameter without a constrained domain, with the reason. ``release_counts`` (census allocation) is checked
the same way.
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from functools import cache

import numpy as np
import pandas as pd
import pytest
from audit_cases import default_audit_case
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairdp_adapters import registry
from fairlearn.reductions import BoundedGroupLoss, DemographicParity, ErrorRate, ZeroOneLoss

from fairlearn_dp.metrics import MetricFrameOptions
from fairlearn_dp.postprocessing import ThresholdOptimizerOptions
from fairlearn_dp.reductions import StatisticsGameOptions

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check that a bad
    # parameter costs nothing, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]

NAN = float("nan")


class _Domain:
    """The bad values of one parameter domain (``reason``: why a domain without bad values is free)."""

    def __init__(self, *bad, reason=None):
        self.bad = tuple(bad)
        self.reason = reason


def _real(low=None, high=None, *, low_open=False, high_open=False, none=False, inf=False):
    """A real number in the interval; None / an infinity allowed or not. Bad: wrong types, NaN, out of range."""
    bad = ["1", True, [1.0], NAN]
    if not none:
        bad.append(None)
    if not inf:
        bad.append(math.inf)
    if low is not None:
        bad += [low - 1.0] + ([low] if low_open else [])
    if high is not None:
        bad += [high + 1.0] + ([high] if high_open else [])
    return _Domain(*bad)


def _integer(low, *, none=False):
    return _Domain("3", True, 2.5, NAN, low - 1, [low], *([] if none else [None]))


def _choice(*options, none=False):
    return _Domain("nope", 1, [options[0]], *([] if none else [None]))


def _free(reason):
    return _Domain(reason=reason)


_BOOL = _Domain("yes", 1, None, 0.0)
_SEED = _Domain("nope", -1, 2.5, True, 2 ** 32, [0])
_ACCOUNTANT = _Domain("accountant", 5)
_GROUPS = _Domain("ab", [0], [0, 0], [0, None], 5)
_BOUNDS = _Domain(None, (1.0, 0.0), (0.0, NAN), (0.0, math.inf), "ab", (0.0,), 5)
_FACE_BOUNDS = _Domain(*(value for value in _BOUNDS.bad if value is not None))     # None: the dataset's label bounds
_ESTIMATOR = _Domain("nope", 5)
_EPSILON = _real(0.0, low_open=True, inf=True)
_DELTA = _real(0.0, 1.0, high_open=True)
_POSITIVE = _real(0.0, low_open=True)
_POSITIVE_OR_NONE = _real(0.0, low_open=True, none=True)
_FRACTION = _real(0.0, 1.0, low_open=True, high_open=True)
_HYPOTHESES = _Domain("ab", [], [1, 2], 5)
# A number R > 0 or a box (lower, upper), each side a number or a per-feature array.
_FEATURE_BOUND = _Domain(*_POSITIVE.bad, (1.0, 0.0), (0.0, NAN), (0.0, math.inf), ("a", 1.0), (None, 1.0),
                         (0.0, 0.0), ([0.0, 0.0], [1.0, 1.0, 1.0]), (0.0, [[1.0]]), (0.0, []))
_PROTECTED_NAME = _Domain(5, "no_such_attribute", ["a", "a"], [], ["no_such_attribute"])   # a list: AIF360 EG face

# Parameters shared by several classes, with the same domain.
_COMMON = {
    "epsilon": _EPSILON,
    "delta": _DELTA,
    "accountant": _ACCOUNTANT,
    "random_state": _SEED,
    "seed": _SEED,
    "groups": _GROUPS,
}

_FAIR_REGRESSION = {
    "estimator": _ESTIMATOR,
    "bounds": _BOUNDS,
    "n_bins": _integer(1),
    "alpha": _real(0.0, 1.0),
    "prefit": _BOOL,
    "predict_method": _Domain(5, None),
    "solver": _Domain("nope", 5, None),
    "group_estimator": _Domain("nope", 5),
    "posterior_buckets": _integer(1),
    "noise_margin": _real(0.0),
    "protected_attribute_name": _PROTECTED_NAME,
}

def _error_rate_with_costs(fp, fn):
    """An ``ErrorRate`` whose costs were set outside its domain after construction (its constructor refuses them;
    valid costs are accepted by the statistics game)."""
    objective = ErrorRate()
    objective.fp_cost, objective.fn_cost = fp, fn
    return objective


_EXPONENTIATED_GRADIENT = {
    "estimator": _ESTIMATOR,
    "constraints": _Domain("nope", 5, None, DemographicParity(difference_bound=-0.1),
                           DemographicParity(ratio_bound=0.8), BoundedGroupLoss(ZeroOneLoss())),
    "objective": _Domain("nope", 5, _error_rate_with_costs(NAN, 1.0), _error_rate_with_costs(-1.0, 1.0)),
    "eps": _POSITIVE,
    "max_iter": _integer(1, none=True),
    "nu": _POSITIVE_OR_NONE,             # None on the private paths: any other value is refused there
    "eta0": _POSITIVE,
    "run_linprog_step": _choice(True, False, "auto"),
    "sample_weight_name": _Domain(5, None),
    "row_norm_bound": _POSITIVE_OR_NONE,
    "options": _Domain("nope", 5, {"ridge": 1.0}, StatisticsGameOptions(oracle="regression"),
                       StatisticsGameOptions(statistics_fraction=1.0), StatisticsGameOptions(ridge=-1.0),
                       StatisticsGameOptions(feature_bound=0.0), StatisticsGameOptions(feature_bound=(1.0, 0.0))),
    "privacy_unit": _choice("sensitive_attribute", "record"),
    # AIF360 face
    "difference_bound": _real(0.0),
    "protected_attribute_name": _PROTECTED_NAME,
    "drop_prot_attr": _BOOL,
}

# DPThresholdOptimizer's expert settings (and the AIF360 equal-odds face's, which forwards them): each field's bad
# values, the error naming options.<field>.
_THRESHOLD_OPTIONS = _Domain("nope", 5, {"beta": 0.1}, ThresholdOptimizerOptions(beta=0.0),
                             ThresholdOptimizerOptions(beta=1.5), ThresholdOptimizerOptions(privacy_slack="yes"),
                             ThresholdOptimizerOptions(n_score_bins=0), ThresholdOptimizerOptions(n_score_bins=10**7),
                             ThresholdOptimizerOptions(n_score_bins=2.5), ThresholdOptimizerOptions(solver="nope"),
                             ThresholdOptimizerOptions(solver=5))

_GRID_SEARCH = {
    "estimator": _ESTIMATOR,
    "constraints": _EXPONENTIATED_GRADIENT["constraints"],
    "selection_rule": _choice("tradeoff_optimization"),
    "constraint_weight": _real(0.0, 1.0),
    "grid_size": _integer(1),
    "grid_limit": _real(0.0),
    "grid_offset": _Domain("ab", 5, [0.0], pd.Series([1.0], index=["no_such_cell"])),
    "grid": _Domain("ab", 5, pd.DataFrame(), pd.DataFrame({0: [1.0, 0.0]})),
    "sample_weight_name": _Domain(5, None),
    "row_norm_bound": _POSITIVE_OR_NONE,
    "privacy_unit": _choice("sensitive_attribute", "record"),
    # AIF360 face
    "prot_attr": _PROTECTED_NAME,
    "drop_prot_attr": _BOOL,
    "loss": _choice("ZeroOne", "Square", "Absolute"),
    "min_val": _free("AIF360's BoundedGroupLoss parameter: read only on Fairlearn's path (epsilon=inf)"),
    "max_val": _free("AIF360's BoundedGroupLoss parameter: read only on Fairlearn's path (epsilon=inf)"),
}

_GERRYFAIR = {
    "C": _real(0.0),
    "printflag": _BOOL,
    "heatmapflag": _BOOL,
    "heatmap_iter": _integer(1),
    "heatmap_path": _Domain(5, None),
    "max_iters": _integer(2),
    "gamma": _real(0.0),
    "fairness_def": _choice("FP", "FN"),
    "predictor": _ESTIMATOR,
    "early_termination": _BOOL,
    "feature_norm_bound": _POSITIVE_OR_NONE,
    "sensitive_norm_bound": _POSITIVE_OR_NONE,
    "composition": _choice("auto", "basic", "advanced", "zcdp"),
    "cost_update": _Domain("nope", 1, ["aif360"], None, "aif360"),      # 'aif360' needs epsilon=inf
    "sensitive_values": _Domain("ab", 5, [[]]),
}

_GROUP_BUDGET = {
    "rho": _POSITIVE_OR_NONE,
    "epsilon": _real(0.0, low_open=True, inf=True, none=True),     # None: rho gives the budget
    "delta": _FRACTION,
    "stage1_fraction": _FRACTION,
    "budget_allocation": _choice("standard_errors", "uniform"),
    "objective": _choice("group_mean", "pooled"),
    "bounded_group_loss": _real(0.0, none=True),
    "lagrange_multiplier": _POSITIVE,
    "data_bound": _POSITIVE,
    "target_bound": _POSITIVE_OR_NONE,
    "clip": _POSITIVE,
    "n_iter": _integer(1),
    "learning_rate": _POSITIVE,
    "coef_bound": _POSITIVE,
    "fit_intercept": _BOOL,
    "classes": _Domain("ab", 5, [0], [0, 0], [0, None]),
    # AIF360 faces
    "bounds": _BOUNDS,
    "protected_attribute_name": _PROTECTED_NAME,
    "drop_prot_attr": _BOOL,
}

def _first_prediction(y_true, y_pred, sample_weight=None):
    """Not a function of the confusion counts (it reads the row order): refused by the frame's probes."""
    return float(y_pred[0])


_METRIC_FRAME = {
    "metrics": _Domain("nope", 5, None, {}, _first_prediction, {"first": _first_prediction}),
    # sample_weight is data (issue 38.2: its values are checked after the budget check); other per-row values are
    # refused from the arguments alone
    "sample_params": _Domain("ab", 5, {"no_such_metric": {}}, {"selection_rate": {"scores": [1.0]}}),
    "bounds": _Domain(*(value for value in _BOUNDS.bad if value is not None)),       # None: classification
    "privacy_unit": _choice("sensitive_attribute", "record"),
    "n_boot": _integer(10),
    "ci_quantiles": _Domain("ab", 5, [], [0.0], [1.0], [NAN], ["a"]),
    # The expert settings: each field's bad values (labels, public_predictions, max_noise_error, weight_bound).
    "options": _Domain("nope", 5, {"labels": [0, 1]}, *(MetricFrameOptions(labels=bad) for bad in
                                                         ("ab", 5, [], [0], [0, 0], [0, None], {"a": [0, 1]})),
                       *(MetricFrameOptions(public_predictions=bad) for bad in _BOOL.bad),
                       *(MetricFrameOptions(max_noise_error=bad) for bad in _POSITIVE_OR_NONE.bad),
                       *(MetricFrameOptions(weight_bound=bad) for bad in _POSITIVE_OR_NONE.bad)),
    # The report is built from its data (the audit case's wrapper passes them at fit): data, not parameters.
    **dict.fromkeys(("y_true", "y_pred", "sensitive_features", "control_features"),
                    _free("the evaluation data, checked after the budget (domain checks)")),
}

_ROWS = {
    "DPMetricFrame": _METRIC_FRAME,
    "DPCorrelationRemover": {
        # A column the default case's X does not have (99, "a": X is an array) is refused from X's layout.
        "sensitive_feature_ids": _Domain(5, None, [0.5], [True], [99], ["a"]),
        "alpha": _real(0.0, 1.0),
        "privacy_unit": _choice("sensitive_attribute", "record"),
        # None: required at the case's finite epsilon; a per-column array of another length than X's 2 columns.
        "bounds": _Domain(*_BOUNDS.bad, ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0]), ([0.0, 0.0], [1.0, 1.0, 1.0])),
        "row_norm_bound_l1": _POSITIVE_OR_NONE,
        "shrink_coefficients": _BOOL,
    },
    "DPFairRegressionPostprocessor": _FAIR_REGRESSION,
    "DPFairRegressionPostprocessing": {**_FAIR_REGRESSION, "bounds": _FACE_BOUNDS},
    "DPThresholdOptimizer": {
        "estimator": _ESTIMATOR,
        "constraints": _choice("demographic_parity", "equalized_odds"),
        "objective": _choice("accuracy_score", "balanced_accuracy_score"),
        "grid_size": _integer(1),
        "flip": _BOOL,
        "prefit": _BOOL,
        "predict_method": _choice("auto", "predict_proba", "decision_function", "predict"),
        "tol": _real(0.0, 1.0, none=True),
        "score_range": _Domain((1.0, 0.0), (0.0, NAN), "ab", 5),
        "privacy_unit": _choice("sensitive_attribute", "record"),
        "options": _THRESHOLD_OPTIONS,
    },
    "DPEqOddsPostprocessing": {
        "unprivileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 0.0}]),
        "privileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 1.0}]),
        "gamma": _real(0.0, 1.0),
        "privacy_unit": _choice("sensitive_attribute", "record"),
        "options": _THRESHOLD_OPTIONS,
    },
    "DPCalibratedEqOddsPostprocessing": {
        "unprivileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 0.0}]),
        "privileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 1.0}]),
        "cost_constraint": _choice("weighted", "fpr", "fnr"),
        "privacy_unit": _choice("sensitive_attribute", "record"),
    },
    "DPRejectOptionClassification": {
        "unprivileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 0.0}]),
        "privileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 1.0}]),
        "low_class_thresh": _real(0.0, 1.0),
        "high_class_thresh": _real(0.0, 1.0),
        "num_class_thresh": _integer(1),
        "num_ROC_margin": _integer(1),
        "metric_name": _choice("Statistical parity difference", "Average odds difference",
                               "Equal opportunity difference"),
        "metric_ub": _real(),
        "metric_lb": _real(),
        "privacy_unit": _choice("sensitive_attribute", "record"),
    },
    "DPReweighing": {
        "unprivileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 0.0}]),
        "privileged_groups": _Domain("ab", 5, [], [{"no_such_attribute": 1.0}]),
        "privacy_unit": _choice("record", "sensitive_attribute"),
        "weight_bound": _POSITIVE_OR_NONE,
    },
    # The ranges and bins are per feature (the case's one feature is "x"): a missing or unknown feature is refused
    # from the dataset's schema, before the budget.
    "DPDisparateImpactRemover": {
        "repair_level": _real(0.0, 1.0),
        "sensitive_attribute": _Domain(5, None, "no_such_attribute", "x"),
        "feature_ranges": _Domain(None, "ab", {}, {"x": (1.0, 0.0)}, {"x": (0.0, NAN)}, {"x": (0.0, math.inf)},
                                  {"y": (0.0, 1.0)}, {"x": "ab"}, {"x": (0.0,)}),
        "n_bins": _Domain(None, "3", True, 2.5, 0, [4], {"x": 0}, {"y": 3}),
        "min_count": _real(0.0, none=True),
        "privacy_unit": _choice("record", "sensitive_attribute"),
    },
    # A box with one entry per feature of another X: refused from X's shape, before the budget. (The AIF360 face
    # checks the budget before it builds X from the dataset, so there the check comes after it.)
    "DPExponentiatedGradient": {**_EXPONENTIATED_GRADIENT,
                                "options": _Domain(*_EXPONENTIATED_GRADIENT["options"].bad, StatisticsGameOptions(
                                    feature_bound=([0.0] * 999, [1.0] * 999)))},
    "JagielskiExponentiatedGradient": {
        "constraints": _EXPONENTIATED_GRADIENT["constraints"],
        "oracle": _choice("auto", "exponential", "regression"),
        "hypotheses": _HYPOTHESES,
        "max_iter": _integer(1, none=True),
        "bound_B": _POSITIVE,
        "eta": _POSITIVE_OR_NONE,
        "feature_bound": _Domain(*_FEATURE_BOUND.bad, ([0.0] * 999, [1.0] * 999)),
        "ridge": _real(0.0, none=True),
        "min_count": _integer(2, none=True),
        "min_count_fraction": _FRACTION,
        "beta": _FRACTION,
        "privacy_unit": _choice("sensitive_attribute", "record"),
    },
    "DPExponentiatedGradientReduction": {**_EXPONENTIATED_GRADIENT,
                                         "constraints": _Domain("nope", 5, None)},
    "DPGridSearch": _GRID_SEARCH,
    "DPGridSearchReduction": {**_GRID_SEARCH, "constraints": _Domain("nope", 5, None)},
    "ExponentialMechanismFairClassifier": {
        "hypotheses": _Domain(*_HYPOTHESES.bad, None),
        "delta": _real(0.0, 1.0, low_open=True, high_open=True, none=True),
        "fairness_weight": _POSITIVE,
        "diagnostic_share": _real(0.0, 1.0, high_open=True),
    },
    "DPGerryFairClassifier": _GERRYFAIR,
    "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier": _GERRYFAIR,
    "DPGroupBudgetRegressor": _GROUP_BUDGET,
    "DPGroupBudgetClassifier": _GROUP_BUDGET,
    "DPGroupBudgetRegression": {**_GROUP_BUDGET, "bounds": _FACE_BOUNDS},
    "DPGroupBudgetClassification": _GROUP_BUDGET,
}


def _domain(row, name):
    table = _ROWS.get(row, {})
    return table[name] if name in table else _COMMON.get(name)


def _parameter_names(function):
    """The named parameters of ``function`` (a class: of its ``__init__``)."""
    function = function.__init__ if isinstance(function, type) else function
    return [name for name, p in inspect.signature(function).parameters.items()
            if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


@cache
def _case(row):
    """``(class, valid parameters, fit arguments)`` of the row's default audit case."""
    case = default_audit_case(row)
    model = case.factory(0)
    cls = type(model)
    params = {name: getattr(model, name) for name in _parameter_names(cls)}
    return cls, params, case.dataset


def _exhausted():
    accountant = BudgetAccountant(epsilon=1.0, delta=0.0)
    accountant.spend(1.0, 0.0)
    return accountant


def _raised(call, *args, **kwargs):
    """The exception ``call(*args, **kwargs)`` raises (None when it returns)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call(*args, **kwargs)
    except Exception as error:              # noqa: BLE001 - classified by the caller
        return error
    return None


def _outcome(cls, params, fit_args, accountant):
    """The exception the fit raises (None when it succeeds)."""
    return _raised(lambda: cls(**{**params, "accountant": accountant}).fit(**fit_args))


def _problem(name, fresh, spent, exhausted):
    """What is wrong with one bad value's outcome (None: nothing)."""
    if fresh is None:
        return "accepted"
    if isinstance(fresh, BudgetError) or not isinstance(fresh, (ValueError, TypeError)):
        return f"{type(fresh).__name__}: {str(fresh)[:90]}"
    if not re.search(rf"(?<!\w){re.escape(name)}s?(?!\w)", str(fresh), re.IGNORECASE):
        return f"message does not name it: {str(fresh)[:90]}"
    if spent:
        return f"charged {spent}"
    if isinstance(exhausted, BudgetError) or type(exhausted) is not type(fresh) or str(exhausted) != str(fresh):
        return (f"checked after the budget (with an exhausted accountant: {type(exhausted).__name__}: "
                f"{str(exhausted)[:60]})")
    return None


@pytest.mark.parametrize("row", [entry.name for entry in registry.entries()])
def test_every_parameter_has_a_domain(row):
    cls = registry.get(row).load()
    missing = [name for name in _parameter_names(cls) if _domain(row, name) is None]
    assert not missing, (f"{row}: no entry in this module's parameter table for {missing}; add each parameter's "
                         "domain (or _free(reason)) so that its bad values are checked before the budget.")


@pytest.mark.parametrize("row", [entry.name for entry in registry.entries()])
def test_bad_public_parameters_fail_before_the_budget_and_name_the_parameter(row):
    cls, params, fit_args = _case(row)
    control = BudgetAccountant()
    assert _outcome(cls, params, fit_args, control) is None, "the valid case must fit"
    assert control.spent_budget, "the valid case must charge (else the exhausted accountant tests nothing)"
    assert isinstance(_outcome(cls, params, fit_args, _exhausted()), BudgetError), \
        "the valid case must meet the exhausted accountant's BudgetError"
    problems = []
    for name in _parameter_names(cls):
        for bad in _domain(row, name).bad:
            if name == "accountant":        # the bad value is the accountant: nothing can be charged
                fresh = exhausted = _outcome(cls, params, fit_args, bad)
                spent = []
            else:
                accountant = BudgetAccountant()
                fresh = _outcome(cls, {**params, name: bad}, fit_args, accountant)
                spent = accountant.spent_budget
                exhausted = _outcome(cls, {**params, name: bad}, fit_args, _exhausted())
            problem = _problem(name, fresh, spent, exhausted)
            if problem:
                problems.append(f"{name}={bad!r}: {problem}")
    assert not problems, f"{row}: {len(problems)} bad parameter value(s) not refused before the budget:\n" + \
        "\n".join(problems)


_RELEASE_COUNTS = {
    "epsilon": _real(0.0, low_open=True),            # finite: a release of counts always adds noise
    "delta": _DELTA,
    "invariant_total": _BOOL,
    "random_state": _SEED,
    "accountant": _ACCOUNTANT,
}


def test_release_counts_parameters_fail_before_the_budget():
    from fairlearn_dp.allocation import release_counts

    names = [name for name in _parameter_names(release_counts) if name != "counts"]
    assert sorted(names) == sorted(_RELEASE_COUNTS), "release_counts has a parameter without a domain here"
    valid = {"epsilon": 1.0, "delta": 0.0, "invariant_total": False, "random_state": 0}
    counts = np.array([3, 5, 7])
    control = BudgetAccountant()
    assert _raised(release_counts, counts, **valid, accountant=control) is None and control.spent_budget
    assert isinstance(_raised(release_counts, counts, **valid, accountant=_exhausted()), BudgetError)
    problems = []
    for name, domain in _RELEASE_COUNTS.items():
        for bad in domain.bad:
            if name == "accountant":
                fresh = exhausted = _raised(release_counts, counts, **valid, accountant=bad)
                spent = []
            else:
                accountant = BudgetAccountant()
                fresh = _raised(release_counts, counts, **{**valid, name: bad}, accountant=accountant)
                spent = accountant.spent_budget
                exhausted = _raised(release_counts, counts, **{**valid, name: bad}, accountant=_exhausted())
            problem = _problem(name, fresh, spent, exhausted)
            if problem:
                problems.append(f"{name}={bad!r}: {problem}")
    assert not problems, "release_counts:\n" + "\n".join(problems)
