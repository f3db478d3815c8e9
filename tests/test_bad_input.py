"""Bad input found by fuzzing (issue 23, section 5): silent, misleading, unclear and slow cases.

Every case is refused with a ``ValueError``/``TypeError`` that names the argument; public parameters are refused
before the budget check (a fresh or an exhausted accountant is left untouched), and messages that depend on the
data quote no value of it.
"""

import contextlib
import io
import math
import signal
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.metrics import selection_rate
from fairlearn.reductions import DemographicParity, EqualizedOdds
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression

from fairlearn_dp._utils import _progress
from fairlearn_dp._utils._validation import as_group_vector, check_X
from fairlearn_dp.allocation import CostOfPrivacyAllocation, project_nonnegative_sum, release_counts
from fairlearn_dp.allocation._projections import project_sum, project_with_invariants
from fairlearn_dp.exceptions import FairdpWarning, PrivacyWarning, UtilityWarning
from fairlearn_dp.metrics import DPMetricFrame, MetricFrameOptions, dp_demographic_parity_difference
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer
from fairlearn_dp.postprocessing._fair_regression import MAX_FIT_MEMORY_BYTES, fit_memory_estimate
from fairlearn_dp.privacy._accountant import MAX_EPSILON, validate_epsilon_delta
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    DPGerryFairClassifier,
    DPGridSearch,
    DPGroupBudgetRegressor,
    ExponentialMechanismFairClassifier,
    JagielskiExponentiatedGradient,
)
from fairlearn_dp.reductions._exponentiated_gradient import MAX_ROUNDS
from fairlearn_dp.reductions._gerryfair import MAX_ITERS, _AuditorPlays
from fairlearn_dp.reductions._hypotheses import linear_threshold_hypotheses

SECRET = "zq-secret-7"            # a private value planted in the data: no message may quote it


def classification_data(n=240, n_groups=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    a = np.array(["a", "b", "c"])[rng.integers(0, n_groups, n)]
    return X, y, a


@contextlib.contextmanager
def deadline(seconds):
    """Fail (instead of hanging) when the block runs longer than ``seconds`` (the test runs in the main thread)."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def refused_before_the_budget(make, fit, error, match):
    """``make(accountant)`` refused by ``fit`` with ``error`` matching ``match``, on a fresh accountant (nothing
    charged) and on an exhausted one (the parameter error comes first, not diffprivlib's BudgetError)."""
    for accountant in (BudgetAccountant(), exhausted_accountant()):
        with pytest.raises(error, match=match) as raised:
            fit(make(accountant))
        assert not isinstance(raised.value, BudgetError)       # a subclass of ValueError: not the error meant
        assert accountant.spent_budget == []


def exhausted_accountant():
    """An accountant that cannot pay for any fit: a check placed after the budget check meets its BudgetError."""
    return BudgetAccountant(epsilon=1e-3, delta=0.0)


# ------------------------------------------------------------------------------ silent: epsilon = 1e308
def test_a_finite_epsilon_beyond_sqrt_of_the_float_maximum_poisons_diffprivlibs_accountant():
    """Why the cap exists: diffprivlib's total() squares each spend's epsilon (a Python float), which overflows
    above sqrt(DBL_MAX) ~ 1.34e154; every later total() of that accountant then raises."""
    poisoned = BudgetAccountant()
    poisoned.spend(1e200, 0.0)
    with pytest.raises(OverflowError):
        poisoned.total()
    capped = BudgetAccountant()
    for _ in range(3):
        capped.spend(MAX_EPSILON, 0.0)
    assert capped.total()[0] == pytest.approx(3 * MAX_EPSILON, rel=1e-15)
    assert sys.float_info.max > MAX_EPSILON ** 2 * 1e100        # 1e100 such spends still compose finitely


@pytest.mark.parametrize("epsilon", [1e308, 1e200, MAX_EPSILON * 1.5, 10 ** 101])
def test_validate_epsilon_delta_refuses_a_finite_epsilon_above_the_cap(epsilon):
    with pytest.raises(ValueError, match="epsilon must be at most"):
        validate_epsilon_delta(epsilon)
    assert validate_epsilon_delta(MAX_EPSILON) == (MAX_EPSILON, 0.0)
    assert validate_epsilon_delta(math.inf) == (math.inf, 0.0)          # inf: the non-private baseline


def _estimators_with_epsilon(accountant, epsilon):
    X, y, a = classification_data()
    H = linear_threshold_hypotheses(3, n_directions=4, n_thresholds=3, random_state=0)
    groups = ["a", "b", "c"]
    return [
        (DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=epsilon, groups=groups, accountant=accountant,
                              random_state=0), (X, y), {"sensitive_features": a}),
        (DPFairRegressionPostprocessor(epsilon=epsilon, bounds=(-1, 1), groups=groups, accountant=accountant,
                                       random_state=0), (X[:, :1],), {"sensitive_features": a}),
        (DPExponentiatedGradient(None, DemographicParity(), epsilon=epsilon, delta=1e-6, max_iter=3,
                                 groups=groups, accountant=accountant, random_state=0), (X, y),
         {"sensitive_features": a}),
        (ExponentialMechanismFairClassifier(H, epsilon=epsilon, groups=groups, accountant=accountant,
                                            random_state=0), (X, y), {"sensitive_features": a}),
        (DPGerryFairClassifier(max_iters=3, epsilon=epsilon, accountant=accountant, random_state=0),
         (X, y), {"sensitive_features": (a == "a").astype(float)}),
        (DPGroupBudgetRegressor(epsilon=epsilon, groups=groups, n_iter=3, accountant=accountant, random_state=0),
         (X, X[:, 0]), {"sensitive_features": a}),
    ]


@pytest.mark.parametrize("index", range(6))
def test_every_estimator_refuses_epsilon_1e308_before_the_budget_and_the_accountant_stays_usable(index):
    for accountant in (BudgetAccountant(), exhausted_accountant()):   # the exhausted one: before the budget check
        model, args, kwargs = _estimators_with_epsilon(accountant, 1e308)[index]
        with pytest.raises(ValueError, match="epsilon"):
            model.fit(*args, **kwargs)
        assert accountant.spent_budget == []
        accountant.total()                              # still computable (it raised OverflowError for good)


@pytest.mark.parametrize("index", range(6))
def test_every_estimator_fits_at_the_cap_and_the_accountant_composes(index):
    accountant = BudgetAccountant()
    model, args, kwargs = _estimators_with_epsilon(accountant, MAX_EPSILON)[index]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(*args, **kwargs)
    assert len(accountant.spent_budget) == 1 and math.isfinite(accountant.total()[0])


def test_group_budget_refuses_a_rho_whose_conversion_exceeds_the_cap_and_release_counts_epsilon_1e308():
    X, y, a = classification_data()
    refused_before_the_budget(
        lambda acc: DPGroupBudgetRegressor(rho=1e300, groups=["a", "b", "c"], accountant=acc),
        lambda model: model.fit(X, X[:, 0], sensitive_features=a), ValueError, "rho=")
    refused_before_the_budget(lambda acc: acc, lambda acc: release_counts([3, 4, 5], epsilon=1e308, accountant=acc),
                              ValueError, "epsilon must be at most")


# ------------------------------------------------------------------------------ silent: fairdp sweep --epsilon 1e400
def _sweep(capsys, *epsilons):
    """``(exit code, stdout, stderr)`` of ``fairdp sweep ... --dry-run``, run in-process (``cli.main``, as the
    console script calls it; an exception other than ``SystemExit`` fails the test: no traceback reaches a user)."""
    from fairdp_adapters.cli import main

    try:
        code = main(["sweep", "--estimator", "DPThresholdOptimizer", "--epsilon", *epsilons, "--dry-run"])
    except SystemExit as exit_info:
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_cli_refuses_an_epsilon_that_overflows_a_float_or_exceeds_the_cap(capsys):
    """float("1e400") is inf: the sweep used to run it as a non-private fit. Only the word inf means inf."""
    code, _, err = _sweep(capsys, "1e400")
    assert code == 2
    assert err.strip() == "fairdp: error: argument --epsilon: '1e400' overflows a float (only 'inf' means infinity)"
    code, _, err = _sweep(capsys, "1e308")
    assert code == 2 and "at most 1e+100" in err
    code, out, err = _sweep(capsys, "inf", "1e100", "1")
    assert code == 0, err
    assert "grid {'epsilon': [inf, 1e+100, 1.0]}" in out


def test_the_cli_refuses_a_parameter_value_that_overflows_a_float(capsys):
    from fairdp_adapters.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", "--estimator", "DPThresholdOptimizer", "--epsilon", "1", "--param", "tol=1e999",
              "--dry-run"])
    assert exit_info.value.code == 2
    assert "tol='1e999' overflows a float" in capsys.readouterr().err


# ------------------------------------------------------------------------------ silent: grid_size=0, noise_margin
@pytest.mark.parametrize("epsilon", [1.0, math.inf])
@pytest.mark.parametrize("grid_size, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError)])
def test_threshold_optimizer_refuses_a_grid_size_below_one_before_the_budget(epsilon, grid_size, error):
    X, y, a = classification_data()
    refused_before_the_budget(
        lambda acc: DPThresholdOptimizer(estimator=LogisticRegression(), grid_size=grid_size, epsilon=epsilon,
                                         groups=["a", "b", "c"], accountant=acc),
        lambda model: model.fit(X, y, sensitive_features=a), error, "grid_size")


@pytest.mark.parametrize("params", [{"noise_margin": 2.0}, {"noise_margin": 0.0}, {"posterior_buckets": 4}])
def test_blind_only_parameters_without_a_group_estimator_are_refused_not_ignored(params):
    X, _, a = classification_data()
    name = next(iter(params))
    refused_before_the_budget(
        lambda acc: DPFairRegressionPostprocessor(bounds=(-1, 1), groups=["a", "b", "c"], accountant=acc, **params),
        lambda model: model.fit(X[:, :1], sensitive_features=a), ValueError,
        f"{name}=.*applies only in attribute-blind mode")


def test_blind_only_parameters_at_their_defaults_pass_and_clone_round_trips():
    X, _, a = classification_data()
    model = DPFairRegressionPostprocessor(bounds=(-1, 1), groups=["a", "b", "c"], noise_margin=1, posterior_buckets=10,
                                          accountant=BudgetAccountant(), random_state=0)
    clone(model).fit(X[:, :1], sensitive_features=a)
    assert clone(model).get_params()["noise_margin"] == 1


# ------------------------------------------------------------------------------ silent: project_sum(total=-5)
@pytest.mark.parametrize("total", [-5, -1e-9])
def test_projections_refuse_a_negative_public_total(total):
    for project in (project_sum, project_nonnegative_sum, project_with_invariants):
        with pytest.raises(ValueError, match="public_total must be >= 0"):
            project([1.0, 2.0, 3.0], public_total=total)
    assert project_sum([1.0, 2.0, 3.0], public_total=0).sum() == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------------------ silent: unused group budget
def _fallback_data(seed, shift):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 2)) * 10 + shift             # far outside data_bound=1: clipped to one corner
    return X, rng.normal(size=300) * 0.1, np.repeat([0, 1, 2], 100)


def test_group_budget_warns_from_released_values_when_stage_one_falls_back_and_reports_what_it_charged():
    messages = []
    for seed, shift in ((0, 50.0), (1, 80.0)):             # neighbours-like: same public sizes, other values
        accountant = BudgetAccountant()
        with pytest.warns(UtilityWarning, match="stage 1 fell back") as caught:
            model = DPGroupBudgetRegressor(rho=1.0, groups=[0, 1, 2], accountant=accountant, random_state=0).fit(
                *_fallback_data(seed, shift)[:2], sensitive_features=_fallback_data(seed, shift)[2])
        assert model.stage1_fallback_ == "X^T X not positive definite"
        # Stage 1's Gram and moment releases (tau / (K + 1) with K = 3 groups) and stage 2 (rho - tau): 0.85.
        assert model.rho_spent_ == pytest.approx(0.2 / 4 + 0.8, rel=1e-12)
        assert model.privacy_spent_.rho == model.rho_spent_ == pytest.approx(model.ledger_.total(), rel=1e-12)
        assert accountant.spent_budget == [model.privacy_spent_.as_tuple()]
        assert caught[0].filename == __file__                # points at the caller's line
        messages.append(str(caught[0].message))
    assert "only rho=0.85 of the budget rho=1 was spent" in messages[0]
    assert messages[0] == messages[1]                     # a function of public inputs and released values only


@pytest.mark.parametrize("noise", [0.05, 1.0])
def test_group_budget_does_not_warn_when_the_whole_budget_is_spent(noise):
    """Without a fallback, or with the late one (a noisy residual sum <= 0, after every release), all is spent."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(600, 2))
    y = X @ [0.5, -0.3] + noise * rng.normal(size=600)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FairdpWarning)
        model = DPGroupBudgetRegressor(rho=5.0, groups=[0, 1], accountant=BudgetAccountant(), random_state=0).fit(
            X, y, sensitive_features=np.repeat([0, 1], 300))
    assert model.stage1_fallback_ != "X^T X not positive definite" and model.rho_spent_ == pytest.approx(5.0)


# ------------------------------------------------------------------------------ misleading: several columns
def _two_columns(n=240, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"sex": np.array(["F", "M"])[rng.integers(0, 2, n)],
                          "race": np.array(["x", SECRET])[rng.integers(0, 2, n)]})
    return frame


@pytest.mark.parametrize("make", [
    lambda acc, groups: (DPThresholdOptimizer(estimator=LogisticRegression(), groups=groups, accountant=acc), True),
    lambda acc, groups: (DPFairRegressionPostprocessor(bounds=(-1, 1), groups=groups, accountant=acc), False),
    lambda acc, groups: (DPExponentiatedGradient(None, DemographicParity(), epsilon=1.0, delta=1e-6, max_iter=2,
                                                 groups=groups, accountant=acc), True),
    lambda acc, groups: (DPGroupBudgetRegressor(rho=1.0, groups=groups, n_iter=2, accountant=acc), None),
])
def test_several_sensitive_columns_with_per_column_groups_explain_the_combined_labels(make):
    X, y, _ = classification_data()
    frame = _two_columns()
    for groups, what in ((["F", "M"], "got 'F' in groups"),
                         (["F,x", "M,x"], "a combined label in sensitive_features is not one of the 2")):
        accountant = BudgetAccountant()
        model, labels = make(accountant, groups)
        args = (X, y) if labels else (X[:, :1],) if labels is False else (X, X[:, 0])
        with pytest.raises(ValueError) as info:
            model.fit(*args, sensitive_features=frame)
        message = str(info.value)
        assert "2 columns ('sex', 'race')" in message and "joined by commas" in message
        assert "groups=['<sex>,<race>', ...]" in message and what in message
        assert SECRET not in message
        assert accountant.spent_budget == []
    model, labels = make(BudgetAccountant(), ["F,x", f"F,{SECRET}", "M,x", f"M,{SECRET}"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(*((X, y) if labels else (X[:, :1],) if labels is False else (X, X[:, 0])),
                  sensitive_features=frame)


# ------------------------------------------------------------------------------ silent: "a,b" + "c" == "a" + "b,c"
_TABLES = {   # several sensitive columns, as a user's data may hold them
    "a comma inside a value": pd.DataFrame({"a": ["a,b", "a", "a,b", "a", "x", "x"],
                                            "b": ["c", "b,c", "c", "b,c", "c", "c"]}),
    "a backslash inside a value": pd.DataFrame({"a": ["a\\", "a", "b", "b", "a", "a"],
                                                "b": ["c", "\\c", "c", "c", "c", "c"]}),
    "an int column beside a float one": pd.DataFrame({"a": [1, 2, 1, 2, 1, 2], "b": [0.5, 0.5, 1.5, 1.5, 0.5, 1.5]}),
    "a bool column beside an int one": pd.DataFrame({"a": [True, False] * 3, "b": [0, 0, 1, 1, 0, 1]}),
    "rows of numbers": [(1, 0.5), (2, 0.5), (1, 1.5), (2, 1.5), (1, 0.5), (2, 1.5)],
    "strings and ints": pd.DataFrame({"a": ["x", "y"] * 3, "b": [0, 0, 1, 1, 0, 1]}),
}


@pytest.mark.parametrize("table", list(_TABLES), ids=list(_TABLES))
def test_several_sensitive_columns_give_fairlearns_combined_labels(table):
    """The labels of several columns are Fairlearn's, character for character (the epsilon=inf fits go through
    Fairlearn, so the groups must not change names with epsilon): before, a comma inside a value merged the two
    intersections ("a,b", "c") and ("a", "b,c") into one group silently, and ints beside floats or bools read
    "1" / "True" where Fairlearn reads "1.0" / "1"."""
    from fairlearn.utils._input_validation import _validate_and_reformat_input

    sensitive = _TABLES[table]
    n = len(sensitive)
    expected = list(_validate_and_reformat_input(np.zeros((n, 1)), y=np.zeros(n), sensitive_features=sensitive)[2])
    assert list(as_group_vector(sensitive, n)) == expected


def test_a_comma_inside_a_sensitive_value_does_not_merge_two_intersections_at_epsilon_1():
    X, y, _ = classification_data(n=240)
    rng = np.random.default_rng(1)
    pairs = np.array([("a,b", "c"), ("a", "b,c")], dtype=object)[rng.integers(0, 2, len(y))]
    frame = pd.DataFrame(pairs, columns=["first", "second"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=1.0, accountant=BudgetAccountant(),
                                     random_state=0).fit(X, y, sensitive_features=frame)
    assert model.groups_ == ["a,b\\,c", "a\\,b,c"]                     # two groups, as Fairlearn's
    fairlearn_path = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=math.inf,
                                          accountant=BudgetAccountant()).fit(X, y, sensitive_features=frame)
    assert sorted(fairlearn_path.interpolated_thresholder_.interpolation_dict) == model.groups_


# ------------------------------------------------------------------------------ late: a missing or short argument
def _fit_with(make_model, **replace):
    """``fit`` of ``make_model(accountant)`` on :func:`classification_data` with arguments replaced."""
    X, y, a = classification_data()
    arguments = {"X": X, "y": y, "sensitive_features": a, **replace}
    return lambda model: model.fit(arguments["X"], arguments["y"], sensitive_features=arguments["sensitive_features"])


def _TO(accountant):
    return DPThresholdOptimizer(estimator=LogisticRegression(), groups=["a", "b", "c"], accountant=accountant)


def _EG(accountant):
    return DPExponentiatedGradient(LogisticRegression(), DemographicParity(), max_iter=2, groups=["a", "b", "c"],
                                   accountant=accountant)


def _GS(accountant):
    return DPGridSearch(LogisticRegression(), DemographicParity(), grid_size=2, groups=["a", "b", "c"],
                        accountant=accountant)


def _FR(accountant):
    return DPFairRegressionPostprocessor(estimator=LinearRegression(), bounds=(-1, 1), groups=["a", "b", "c"],
                                         accountant=accountant)


_SHORT = slice(0, 200)


@pytest.mark.parametrize("make, replace, match", [
    (_TO, {"y": None}, "Must supply nonempty y"),
    (_TO, {"y": "y"}, "X and y must have same number of rows"),
    (_TO, {"short_y": True}, "X and y must have same number of rows"),
    (_TO, {"short_a": True}, "X and the sensitive features must have same number of rows"),
    (_EG, {"y": None}, "y is required"),
    (_EG, {"y": "y"}, "y must be array-like with one entry per row, got str"),
    (_EG, {"short_y": True}, "y has 200 rows but X has 240: different lengths"),
    (_EG, {"short_a": True}, "sensitive_features has 200 rows but X has 240: different lengths"),
    (_EG, {"sensitive_features": None}, "sensitive_features is required"),
    (_GS, {"y": None}, "y is required"),
    (_GS, {"short_a": True}, "sensitive_features has 200 rows but X has 240: different lengths"),
    (_FR, {"short_y": True}, "y has 200 rows but X has 240: different lengths"),
    (_FR, {"short_a": True}, "sensitive_features has 200 rows but X has 240: different lengths"),
    (_FR, {"sensitive_features": None}, "sensitive_features is required"),
], ids=lambda value: value.__name__.strip("_") if callable(value) else None)
def test_a_missing_or_short_argument_is_public_layout_refused_before_the_budget(make, replace, match):
    """Whether ``y`` is given and how many rows each argument has are public (shapes): refused before the budget
    check, naming the argument. Before, a fit on an exhausted accountant raised diffprivlib's BudgetError instead,
    and the private reductions said "y has 1 rows but X has 240" for ``y=None``."""
    X, y, a = classification_data()
    if replace.pop("short_y", False):
        replace["y"] = y[_SHORT]
    if replace.pop("short_a", False):
        replace["sensitive_features"] = a[_SHORT]
    refused_before_the_budget(make, _fit_with(make, **replace), ValueError, match)


@pytest.mark.parametrize("replace, match", [
    ({"y_pred": None}, "y_pred is required"),
    ({"y_pred": np.zeros(200, dtype=int)}, "y_pred has 200 rows but y_true has 240: different lengths"),
    ({"sensitive_features": None}, "sensitive_features is required"),
    ({"sensitive_features": pd.Series(["a"] * 200, name="g")}, r"sensitive_features\['g'\] has 200 rows"),
    ({"sample_params": {"sample_weight": np.ones(200)}}, "sample_weight has 200 rows but y_true has 240"),
])
@pytest.mark.parametrize("aggregate", [False, True])
def test_a_frame_refuses_a_missing_or_short_argument_before_the_budget(replace, match, aggregate):
    """The same for ``DPMetricFrame`` and the ``dp_*`` aggregates (before: BudgetError on an exhausted accountant,
    and "y_pred and y_true have different lengths" for ``y_pred=None``)."""
    _, y, a = classification_data()
    arguments = {"y_true": y, "y_pred": 1 - y, "sensitive_features": a, **replace}
    options = MetricFrameOptions(weight_bound=2.0 if "sample_params" in replace else None)

    def fit(accountant):
        kwargs = dict(arguments, groups=["a", "b", "c"], accountant=accountant, options=options)
        if not aggregate:
            return DPMetricFrame(metrics=selection_rate, **kwargs)
        kwargs.update(kwargs.pop("sample_params", {}))                # the aggregates take sample_weight
        return dp_demographic_parity_difference(kwargs.pop("y_true"), kwargs.pop("y_pred"), **kwargs)

    refused_before_the_budget(lambda acc: acc, fit, ValueError, match)


# ------------------------------------------------------------------------------ misleading: pd.NA "not numeric"
def _with_missing(values, dtype):
    """``values`` (an array or a frame) in pandas' nullable ``dtype`` with one missing value (``pd.NA``)."""
    table = (pd.DataFrame(values) if np.ndim(values) == 2 else pd.Series(values)).astype(dtype)
    table.iloc[(3, 0) if table.ndim == 2 else 3] = pd.NA
    return table


@pytest.mark.parametrize("dtype", ["Float64", "Int64"])
@pytest.mark.parametrize("where", ["reductions X", "post-processor scores", "check_X"])
def test_a_missing_value_of_a_nullable_column_is_named_as_missing(where, dtype):
    """``pd.NA`` in a nullable numeric column reads as a missing value ("contains NaN", a ``ValueError`` as
    Fairlearn's and scikit-learn's "Input X contains NaN"), not as a non-number: before, the private reductions
    raised ``TypeError: X must be numeric (finite floats)``, ``check_X`` "X must be numeric", and a Series of
    scores failed on its dtype. Refused before any charge."""
    X, y, a = classification_data()
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="contains NaN"):
        if where == "reductions X":
            _EG(accountant).fit(_with_missing(np.round(X * 10), dtype), y, sensitive_features=a)
        elif where == "post-processor scores":
            DPFairRegressionPostprocessor(bounds=(-10, 10), groups=["a", "b", "c"], accountant=accountant).fit(
                _with_missing(np.round(X[:, 0] * 10), dtype), sensitive_features=a)
        else:
            check_X(_with_missing(np.round(X * 10), dtype))
    assert accountant.spent_budget == []


def test_nullable_columns_without_missing_values_give_the_same_seeded_fit():
    """The same floats as numpy's columns, so the same seeded release."""
    X, y, a = classification_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairdpWarning)                  # a small fit's utility warnings
        fits = [_EG(BudgetAccountant()).set_params(random_state=0).fit(features, y, sensitive_features=a)
                for features in (pd.DataFrame(X), pd.DataFrame(X).astype("Float64"))]
    np.testing.assert_array_equal(fits[0].predict(X, random_state=0), fits[1].predict(X, random_state=0))
    np.testing.assert_array_equal(fits[0]._pmf_predict(X), fits[1]._pmf_predict(X))


@pytest.mark.parametrize("dtype", ["Float64", "str", "category"])
@pytest.mark.parametrize("post_processor", ["threshold", "regression"])
def test_scores_in_a_series_of_a_pandas_extension_dtype_fit_as_the_same_numbers(post_processor, dtype):
    """With ``estimator=None`` ``X`` is the column of scores; a Series of pandas' nullable ``Float64``, of pandas
    3's default ``str`` dtype or a ``category`` of numbers holds the same scores. Before, the check of complex data
    read the Series' one dtype as a list: ``TypeError: 'Float64Dtype' object is not iterable``."""
    X, y, a = classification_data()
    scores = np.round((X[:, 0] + 1) / 2, 2)

    def fit(column):
        if post_processor == "threshold":
            model = DPThresholdOptimizer(groups=["a", "b", "c"], accountant=BudgetAccountant(), random_state=0)
            return model.fit(column, y, sensitive_features=a).noisy_table_
        model = DPFairRegressionPostprocessor(bounds=(0, 1), groups=["a", "b", "c"], accountant=BudgetAccountant(),
                                              random_state=0)
        return model.fit(column, sensitive_features=a).noisy_joint_pmf_

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairdpWarning)                  # a small fit's utility warnings
        np.testing.assert_array_equal(fit(pd.Series(scores).astype(dtype)), fit(scores))


# ------------------------------------------------------------------------------ misleading: groups=["grpA"]
@pytest.mark.parametrize("make, fit", [
    (lambda acc: DPThresholdOptimizer(estimator=LogisticRegression(), groups=["grpA"], accountant=acc),
     lambda m, X, y, a: m.fit(X, y, sensitive_features=a)),
    (lambda acc: DPFairRegressionPostprocessor(bounds=(-1, 1), groups=["grpA"], accountant=acc),
     lambda m, X, y, a: m.fit(X[:, :1], sensitive_features=a)),
    (lambda acc: DPExponentiatedGradient(None, DemographicParity(), epsilon=1.0, delta=1e-6, groups=["grpA"],
                                         accountant=acc),
     lambda m, X, y, a: m.fit(X, y, sensitive_features=a)),
    (lambda acc: ExponentialMechanismFairClassifier(linear_threshold_hypotheses(3, n_directions=2, n_thresholds=2,
                                                                                random_state=0),
                                                    groups=["grpA"], accountant=acc),
     lambda m, X, y, a: m.fit(X, y, sensitive_features=a)),
    (lambda acc: DPGroupBudgetRegressor(rho=1.0, groups=["grpA"], accountant=acc),
     lambda m, X, y, a: m.fit(X, X[:, 0], sensitive_features=a)),
])
def test_a_single_declared_group_names_groups_before_the_budget(make, fit):
    X, y, a = classification_data()
    refused_before_the_budget(make, lambda model: fit(model, X, y, a), ValueError,
                              r"groups must list at least 2 groups, got 1: \['grpA'\]")


# ------------------------------------------------------------------------------ misleading: predict_method="nope"
@pytest.mark.parametrize("epsilon", [1.0, math.inf])
def test_threshold_optimizer_names_a_bad_predict_method_before_the_budget(epsilon):
    X, y, a = classification_data()
    refused_before_the_budget(
        lambda acc: DPThresholdOptimizer(estimator=LogisticRegression(), predict_method="nope", epsilon=epsilon,
                                         groups=["a", "b", "c"], accountant=acc),
        lambda model: model.fit(X, y, sensitive_features=a), ValueError, "predict_method must be one of")


# ------------------------------------------------------------------------------ misleading: AIF360 n_bins=-3
def test_aif360_regression_face_checks_its_parameters_before_the_dataset():
    from aif360.datasets import RegressionDataset

    from aif360_dp.algorithms.postprocessing import DPFairRegressionPostprocessing

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 2, 50).astype(float), "y": rng.uniform(size=50)})
    plain = RegressionDataset(df=frame, dep_var_name="y", protected_attribute_names=["a"], privileged_classes=[[1.0]])
    for dataset in (plain, frame.to_numpy()):         # no label_scale (a dataset error), or not a dataset at all
        refused_before_the_budget(lambda acc: DPFairRegressionPostprocessing(n_bins=-3, accountant=acc),
                                  lambda model: model.fit(dataset), ValueError, "n_bins must be >= 1, got -3")
    with pytest.raises(TypeError, match="dataset_true must be an AIF360 dataset"):
        DPFairRegressionPostprocessing(accountant=BudgetAccountant()).fit(frame.to_numpy())


# ------------------------------------------------------------------------------ unclear: estimator="abc"
@pytest.mark.parametrize("make, fit", [
    (lambda acc, eps: DPThresholdOptimizer(estimator="abc", epsilon=eps, accountant=acc),
     lambda m, X, y, a: m.fit(X, y, sensitive_features=a)),
    (lambda acc, eps: DPFairRegressionPostprocessor(estimator="abc", epsilon=eps, bounds=(-1, 1), accountant=acc),
     lambda m, X, y, a: m.fit(X, y, sensitive_features=a)),
])
@pytest.mark.parametrize("epsilon", [1.0, math.inf])
def test_a_string_estimator_is_a_type_error_naming_estimator_before_any_warning(make, fit, epsilon):
    X, y, a = classification_data()
    for accountant in (BudgetAccountant(), exhausted_accountant()):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(TypeError, match="estimator must be None or a scikit-learn estimator"):
                fit(make(accountant, epsilon), X, y, a)
        assert caught == [] and accountant.spent_budget == []


# ------------------------------------------------------------------------------ unclear: 0 rows, solver, AIF360
@pytest.mark.parametrize("groups", [None, ["a", "b"]])
def test_exponential_mechanism_classifier_on_zero_rows_is_a_clear_error(groups):
    H = linear_threshold_hypotheses(3, n_directions=2, n_thresholds=2, random_state=0)
    for accountant in (BudgetAccountant(), BudgetAccountant(epsilon=10, delta=0.5)):  # delta=exp(-0)=1 was refused
        with pytest.raises(ValueError, match="X has no rows"):
            ExponentialMechanismFairClassifier(H, groups=groups, accountant=accountant).fit(
                np.zeros((0, 3)), np.zeros(0, dtype=int), sensitive_features=np.zeros(0))
        assert accountant.spent_budget == []


def test_cost_of_privacy_allocation_checks_the_solver_name_up_front():
    with pytest.raises(ValueError, match="solver must be the name of an installed cvxpy solver .*got 'NOPE'"):
        CostOfPrivacyAllocation(solver="NOPE")
    with pytest.raises(ValueError, match="solver must be the name of an installed cvxpy solver"):
        project_with_invariants([1.0, 2.0], public_total=3.0, solver="NOPE")
    mechanism = CostOfPrivacyAllocation()
    mechanism.solver = "NOPE"                           # set after construction: refused before a solve
    with pytest.raises(ValueError, match="solver"):
        mechanism.allocate([1.0, 2.0])


def _binary_dataset(seed=0, m=200):
    from aif360.datasets import BinaryLabelDataset

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 2, m).astype(float), "x": rng.normal(size=m),
                          "y": rng.integers(0, 2, m).astype(float)})
    return frame, BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])


def test_eq_odds_names_a_group_attribute_missing_from_the_dataset_and_refuses_arrays():
    from aif360_dp.algorithms.postprocessing import DPEqOddsPostprocessing

    frame, dataset = _binary_dataset()
    refused_before_the_budget(
        lambda acc: DPEqOddsPostprocessing([{"race": 0}], [{"race": 1}], accountant=acc),
        lambda model: model.fit(dataset, dataset), ValueError,
        r"privileged_groups names 'race', which is not a protected attribute of dataset_true .*\['a'\]")
    refused_before_the_budget(
        lambda acc: DPEqOddsPostprocessing([{"a": 0}], [{"a": 1}], accountant=acc),
        lambda model: model.fit(frame.to_numpy(), frame.to_numpy()), TypeError,
        "dataset_true must be an AIF360 dataset .*got ndarray")
    with pytest.raises(ValueError, match="epsilon"):           # the parameters come before the datasets' schema
        DPEqOddsPostprocessing([{"race": 0}], [{"race": 1}], epsilon=-1.0, accountant=BudgetAccountant()).fit(
            frame.to_numpy(), frame.to_numpy())
    fitted = DPEqOddsPostprocessing([{"a": 0}], [{"a": 1}], accountant=BudgetAccountant(), seed=0).fit(dataset,
                                                                                                       dataset)
    with pytest.raises(TypeError, match="dataset must be an AIF360 dataset"):
        fitted.predict(frame.to_numpy())


# ------------------------------------------------------------------------------ slow: caps and progress
def test_fair_regression_refuses_a_fit_above_the_memory_budget_before_the_budget_or_the_release():
    X, _, _ = classification_data()
    labels = [f"g{i}" for i in range(12)]
    a = np.array(labels)[np.arange(len(X)) % 12]
    n_bins = MAX_FIT_MEMORY_BYTES // fit_memory_estimate(12, 12) + 1          # 12 declared groups: one bin over
    assert fit_memory_estimate(12, 12 * n_bins) > MAX_FIT_MEMORY_BYTES >= fit_memory_estimate(12, 12 * (n_bins - 1))
    refused_before_the_budget(
        lambda acc: DPFairRegressionPostprocessor(bounds=(-1, 1), n_bins=n_bins, groups=labels, accountant=acc),
        lambda model: model.fit(X[:, :1], sensitive_features=a), ValueError, "memory budget MAX_FIT_MEMORY_BYTES")
    DPFairRegressionPostprocessor(bounds=(-1, 1), n_bins=n_bins - 1, groups=labels).check_public_inputs(
        X[:, :1], sensitive_features=a, check_budget=False)                     # one bin under: accepted
    accountant = BudgetAccountant()                      # groups read from the data: refused before the release
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        with pytest.raises(ValueError, match=f"n_bins={n_bins} with 12 groups .* GiB of memory"):
            DPFairRegressionPostprocessor(bounds=(-1, 1), n_bins=n_bins, accountant=accountant).fit(
                X[:, :1], sensitive_features=a)
    assert accountant.spent_budget == []


def test_fair_regression_accepts_a_million_bins_at_four_groups():
    """Issue 41: refused by the time-based cap of 2 x 10^6 cells before; the memory estimate is 1.28 GB."""
    X, _, a = classification_data()
    DPFairRegressionPostprocessor(bounds=(-1, 1), n_bins=10**6, groups=["a", "b", "c", "d"]).check_public_inputs(
        X[:, :1], sensitive_features=a, check_budget=False)


@pytest.mark.slow
def test_fair_regression_at_the_documented_maximum_finishes_in_seconds():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 20_000)
    scores = np.clip(rng.normal(0.4 + 0.1 * a, 0.15), 0, 1)
    with deadline(60):                                   # about 3 s on a 2-core machine (it hung before the cap)
        DPFairRegressionPostprocessor(bounds=(0, 1), n_bins=10 ** 6, groups=[0, 1], accountant=BudgetAccountant(),
                                      random_state=0).fit(scores[:, None], sensitive_features=a)


@pytest.mark.parametrize("mode, oracle", [("paper", "regression"), ("statistics", "least_squares")])
def test_exponentiated_gradient_refuses_max_iter_above_the_cap_before_the_budget(mode, oracle):
    X, y, a = classification_data()
    refused_before_the_budget(
        lambda acc: DPExponentiatedGradient(None, EqualizedOdds(), epsilon=1.0,
                                            delta=1e-6, max_iter=MAX_ROUNDS + 1, groups=["a", "b", "c"],
                                            accountant=acc),
        lambda model: model.fit(X, y, sensitive_features=a), ValueError, "max_iter must be at most MAX_ROUNDS")


def test_paper_mode_refuses_the_formulas_unbounded_rounds_at_epsilon_1e12():
    """Algorithm 3's T grows like epsilon: at 1e12 it was ~10^10 rounds (the fit never finished)."""
    X, y, a = classification_data()
    with deadline(60):                  # public inputs only (shape, declared groups): refused before the budget
        refused_before_the_budget(
            lambda acc: JagielskiExponentiatedGradient(EqualizedOdds(), oracle="regression",
                                                epsilon=1e12, delta=1e-6, groups=["a", "b", "c"], accountant=acc),
            lambda model: model.fit(X, y, sensitive_features=a), ValueError,
            "asks for T = .* above MAX_ROUNDS=1,000: set max_iter")


def test_gerryfair_refuses_max_iters_above_the_cap_and_plays_the_cap_in_seconds():
    rng = np.random.default_rng(0)
    n = 1013
    X = rng.normal(size=(n, 5)) / 3
    A = rng.integers(0, 2, (n, 2)).astype(float)
    y = (X[:, 0] + 0.3 * A[:, 0] > 0).astype(int)
    refused_before_the_budget(
        lambda acc: DPGerryFairClassifier(max_iters=MAX_ITERS + 1, accountant=acc),
        lambda model: model.fit(X, y, sensitive_features=A), ValueError, "max_iters must be at most MAX_ITERS")
    with deadline(60), warnings.catch_warnings():        # 1,999 rounds: about 1 s (quadratic before: ~12 s)
        warnings.simplefilter("ignore")
        model = DPGerryFairClassifier(max_iters=MAX_ITERS, early_termination=False, accountant=BudgetAccountant(),
                                      random_state=0).fit(X, y, sensitive_features=A)
    assert model.n_iter_ == MAX_ITERS - 1


@pytest.mark.parametrize("delta, key", [(0.0, "row_norm_bound_l1"), (1e-5, "row_norm_bound")])
def test_gerryfair_refuses_a_malformed_published_row_norm_bound_before_the_budget(delta, key):
    """``X.attrs`` is public metadata: a bound that is not a number > 0 is refused before the budget check (an
    exhausted accountant would raise its BudgetError first otherwise)."""
    X, y, _ = classification_data()
    A = np.column_stack([X[:, 0] > 0, X[:, 1] > 0]).astype(float)
    for bad in (-1.0, "big"):
        frame = pd.DataFrame(X)
        frame.attrs[key] = bad
        refused_before_the_budget(
            lambda acc: DPGerryFairClassifier(max_iters=3, epsilon=1.0, delta=delta, accountant=acc,
                                              random_state=0),
            lambda model: model.fit(frame, y, sensitive_features=A), (ValueError, TypeError), key)


def test_auditor_running_sums_are_the_sums_over_the_plays():
    """The running sums do the same elementwise additions in the same order as summing the list of plays in every
    round (no BLAS involved), so they are equal to the float."""
    rng = np.random.default_rng(0)
    plays, running = [], _AuditorPlays(30)
    for _ in range(50):
        members, sigma = (rng.random(30) < 0.4).astype(float), float(rng.choice([-1.0, 0.0, 1.0]))
        plays.append((members, sigma))
        running.add(members, sigma)
        kappa = np.zeros(30)
        for m, s in plays:
            if s != 0:
                kappa += s * (m.mean() - m)
        np.testing.assert_array_equal(running.kappa, kappa)
        assert running.mass == sum(abs(s) for _, s in plays) and running.count == len(plays)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_long_fits_show_a_progress_bar_on_a_terminal_and_nothing_elsewhere(monkeypatch):
    monkeypatch.setattr(_progress, "FIT_PROGRESS_DELAY", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    for index in _progress.progress_rounds(1, 4, desc="unit test"):
        if index == 2:
            break                                        # an early stop closes the bar
    assert "unit test" in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(sys, "stderr", pipe)
    assert list(_progress.progress_rounds(1, 4, desc="unit test")) == [1, 2, 3]
    assert pipe.getvalue() == ""
    monkeypatch.setattr(sys, "stderr", terminal := _Terminal())
    X, y, a = classification_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        DPGerryFairClassifier(max_iters=4, accountant=BudgetAccountant(), random_state=0).fit(
            X, y, sensitive_features=(a == "a").astype(float))
    assert "DPGerryFairClassifier" in terminal.getvalue()


@pytest.mark.parametrize("face, kwargs, name", [
    ("DPGroupBudgetRegression", {"epsilon": 1.0, "n_iter": -3}, "n_iter"),
    ("DPGroupBudgetClassification", {"epsilon": -1.0}, "epsilon"),
    ("DPExponentiatedGradientReduction", {"max_iter": -3}, "max_iter"),
    ("DPGerryFairClassifier", {"max_iters": -3}, "max_iters"),
])
def test_aif360_inprocessing_faces_name_a_bad_parameter_before_looking_at_the_dataset(face, kwargs, name):
    """A bad public parameter is reported first, even when the dataset is not a dataset at all."""
    from sklearn.linear_model import LogisticRegression

    import aif360_dp.algorithms.inprocessing as faces

    if face == "DPExponentiatedGradientReduction":
        kwargs = {"estimator": LogisticRegression(), **kwargs}
    refused_before_the_budget(lambda acc: getattr(faces, face)(**kwargs, accountant=acc),
                              lambda model: model.fit(np.zeros((3, 3))), (TypeError, ValueError), name)
