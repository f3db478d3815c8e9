"""The dp_* aggregates (``fairlearn_dp/metrics/_dp_aggregates.py``): every argument is checked before the release
charges the budget, and the frame's warnings come after the aggregate's value is computed."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.metrics import (
    MetricFrameOptions,
    dp_demographic_parity_difference,
    dp_demographic_parity_ratio,
    dp_equal_opportunity_difference,
    dp_equal_opportunity_ratio,
    dp_equalized_odds_difference,
    dp_equalized_odds_ratio,
)

AGGREGATES = [dp_demographic_parity_difference, dp_demographic_parity_ratio, dp_equal_opportunity_difference,
              dp_equal_opportunity_ratio, dp_equalized_odds_difference, dp_equalized_odds_ratio]
Y_TRUE = [0, 1, 1, 0, 1, 0]
Y_PRED = [1, 1, 0, 0, 1, 0]
GROUPS = ["a", "a", "a", "b", "b", "b"]


EQUALIZED_ODDS = [dp_equalized_odds_difference, dp_equalized_odds_ratio]


@pytest.mark.parametrize("aggregate, argument", [(aggregate, "method") for aggregate in AGGREGATES]
                         + [(aggregate, "agg") for aggregate in EQUALIZED_ODDS])
def test_a_bad_argument_is_refused_before_the_budget_is_spent(aggregate, argument):
    """A bad ``method`` (every aggregate) or ``agg`` (equalized odds) costs nothing, and its error comes before an
    exhausted accountant's."""
    bad = {argument: "nope"}
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match=argument):
        aggregate(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"], accountant=accountant,
                  random_state=0, **bad)
    assert accountant.spent_budget == []
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    with pytest.raises(ValueError, match=argument):
        aggregate(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"], accountant=exhausted,
                  random_state=0, **bad)


def test_the_frames_warning_as_an_error_keeps_the_released_value():
    """Six rows at epsilon = 1: every group misses the precision asked for (max_noise_error), so the frame warns
    after the release. Turned into an error, the warning comes after the value is computed and carries it; the
    budget is charged once."""
    accountant = BudgetAccountant()
    arguments = {"sensitive_features": GROUPS, "epsilon": 1.0, "groups": ["a", "b"], "accountant": accountant,
                     "random_state": 0, "options": MetricFrameOptions(max_noise_error=0.02)}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UtilityWarning, match="release noise alone") as info:
            dp_demographic_parity_difference(Y_TRUE, Y_PRED, **arguments)
    assert accountant.spent_budget == [(1.0, 0.0)]
    with pytest.warns(UtilityWarning, match="release noise alone"):
        again = dp_demographic_parity_difference(Y_TRUE, Y_PRED, **{**arguments, "accountant": BudgetAccountant()})
    assert isinstance(info.value.result, float) and np.isfinite(info.value.result)
    assert info.value.result == again                 # same seed, same release: the value that was paid for


# ------------------------------------------------------------------------------------------------ small groups
def small_groups_data(sizes=(160, 480, 1560, 135, 4000), positives=(19, 133, 179, 25, 1000), seed=0):
    """Groups sized like Adult's test split by race (the largest cut to 4,000 rows for speed): each group's
    positives and negatives get predictions 1 with group-specific rates (seed fixed)."""
    rng = np.random.default_rng(seed)
    group, y_true, y_pred = [], [], []
    for g, (n, p) in enumerate(zip(sizes, positives, strict=False)):
        tpr, fpr = 0.35 + 0.07 * g, 0.02 + 0.015 * g
        labels = np.r_[np.ones(p, dtype=int), np.zeros(n - p, dtype=int)]
        group += [f"g{g}"] * n
        y_true.append(labels)
        y_pred.append((rng.random(n) < np.where(labels == 1, tpr, fpr)).astype(int))
    return np.concatenate(y_true), np.concatenate(y_pred), np.array(group)


SMALL_GROUPS = [f"g{g}" for g in range(5)]


def exact_over(aggregate, y_true, y_pred, group, over, **kwargs):
    """Fairlearn's aggregate over the rows of the groups ``over`` (what a private value over them estimates)."""
    import fairlearn.metrics as fm
    rows = np.isin(group, list(over))
    return getattr(fm, aggregate.__name__[3:])(y_true[rows], y_pred[rows], sensitive_features=group[rows], **kwargs)


def test_the_default_is_a_float_and_detailed_names_the_groups_it_was_computed_over():
    """The default return is Fairlearn's float; detailed=True returns the same value of the same release with the
    groups it was computed over (all of them by default), the unreadable ones (the frame's unreadable_ for TPR or
    FPR) and an interval around the value."""
    y_true, y_pred, group = small_groups_data()
    arguments = {"sensitive_features": group, "epsilon": 1.0, "groups": SMALL_GROUPS, "random_state": 0,
                     "options": MetricFrameOptions(max_noise_error=0.05)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        value = dp_equalized_odds_difference(y_true, y_pred, accountant=BudgetAccountant(), **arguments)
        result = dp_equalized_odds_difference(y_true, y_pred, accountant=BudgetAccountant(), detailed=True,
                                              **arguments)
    assert type(value) is float and float(result) == result.value == value
    assert result.groups == tuple(SMALL_GROUPS) and result.excluded == ()
    flagged = result.frame.unreadable_[["tpr", "fpr"]].any(axis=1)
    assert result.unreadable == tuple(flagged.index[flagged]) == ("g0", "g3")     # 19 and 25 positives
    assert result.max_noise_error == 0.05
    low, high = result.ci
    assert low <= value <= high


@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_exclude_unreadable_computes_the_aggregate_over_the_readable_groups(aggregate):
    """The value over the readable groups is the aggregate of the frame's by_group restricted to them (the same
    release); the excluded groups are those the frame flags for a rate the aggregate reads."""
    y_true, y_pred, group = small_groups_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        result = aggregate(y_true, y_pred, sensitive_features=group, epsilon=1.0, groups=SMALL_GROUPS,
                           accountant=BudgetAccountant(), random_state=1, options=MetricFrameOptions(max_noise_error=0.05),
                           exclude_unreadable=True, detailed=True)
    names = list(result.frame.unreadable_.columns)
    flagged = result.frame.unreadable_[names].any(axis=1)
    assert result.excluded == result.unreadable == tuple(flagged.index[flagged]) and result.excluded
    assert result.groups == tuple(flagged.index[~flagged])
    by_group = result.frame.by_group
    by_group = (by_group.to_frame() if isinstance(by_group, pd.Series) else by_group).loc[list(result.groups)]
    ratio = aggregate.__name__.endswith("ratio")
    per_metric = by_group.min() / by_group.max() if ratio else by_group.max() - by_group.min()
    expected = per_metric.min() if ratio else per_metric.max()
    assert result.value == pytest.approx(expected, rel=1e-12)
    assert result.ci[0] <= result.value <= result.ci[1]


@pytest.mark.parametrize("aggregate", AGGREGATES)
def test_exclude_unreadable_is_exact_at_epsilon_inf(aggregate):
    """At epsilon = inf nothing is unreadable (no noise), so the value is Fairlearn's over every group."""
    y_true, y_pred, group = small_groups_data()
    result = aggregate(y_true, y_pred, sensitive_features=group, epsilon=np.inf, accountant=BudgetAccountant(),
                       exclude_unreadable=True, detailed=True)
    assert result.groups == tuple(SMALL_GROUPS) and result.unreadable == ()
    assert result.value == pytest.approx(exact_over(aggregate, y_true, y_pred, group, SMALL_GROUPS), abs=1e-12)


def test_one_warning_says_what_the_value_was_computed_over():
    """With max_noise_error given, one warning (not the frame's as well) names the unreadable groups and says
    whether the value includes them; excluded, it names the groups the value was computed over."""
    y_true, y_pred, group = small_groups_data()
    arguments = {"sensitive_features": group, "epsilon": 1.0, "groups": SMALL_GROUPS, "random_state": 0,
                     "options": MetricFrameOptions(max_noise_error=0.05)}
    with pytest.warns(UtilityWarning) as record:
        dp_equalized_odds_difference(y_true, y_pred, accountant=BudgetAccountant(), **arguments)
    assert len(record) == 1, [str(w.message) for w in record]
    assert str(record[0].message).startswith("dp_equalized_odds_difference: at this epsilon the release noise")
    assert "for: g0, g3; the value is computed over all groups, these included" in str(record[0].message)
    with pytest.warns(UtilityWarning) as record:
        dp_equalized_odds_difference(y_true, y_pred, accountant=BudgetAccountant(), exclude_unreadable=True,
                                     **arguments)
    assert len(record) == 1
    assert "computed over the readable groups only: g1, g2, g4" in str(record[0].message)


def test_too_few_readable_groups_give_nan_with_a_warning():
    """Excluding leaves one readable group (the default max_noise_error 0.02 reads only the 4,000-row group at
    epsilon = 1): a difference between groups over one group is not Fairlearn's 0 but NaN, with a warning."""
    y_true, y_pred, group = small_groups_data()
    with pytest.warns(UtilityWarning, match="fewer than 2 groups are readable") as record:
        result = dp_equalized_odds_difference(y_true, y_pred, sensitive_features=group, epsilon=1.0,
                                              groups=SMALL_GROUPS, accountant=BudgetAccountant(), random_state=0,
                                              exclude_unreadable=True, detailed=True)
    assert len(record) == 1 and result.groups == ("g4",)
    assert np.isnan(result.value) and all(np.isnan(result.ci))


@pytest.mark.parametrize("argument, bad", [("exclude_unreadable", "yes"), ("detailed", 1)])
def test_the_small_group_options_are_checked_before_the_budget(argument, bad):
    accountant = BudgetAccountant()
    with pytest.raises(TypeError, match=f"{argument} must be True or False"):
        dp_equalized_odds_difference(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"],
                                     accountant=accountant, random_state=0, **{argument: bad})
    assert accountant.spent_budget == []


def test_the_documented_group_size_reads_a_rate_within_the_stated_error():
    """docs/user_guide/private_reporting.md: a rate whose denominator has at least n = 2 ln(1/alpha) / (epsilon e)
    rows (Laplace scale 2 / epsilon) is read within e at level 1 - alpha. At that size each group's TPR and FPR
    (balanced: tp = fn, fp = tn) must be readable, so exclude_unreadable keeps every group. Margin: at a rate of
    1/2 the first-order noise is (e_1 - e_2) / (2 d), whose exact 95% half-width is 2.06 b / d (P(|e_1 - e_2| > z)
    = (1 + z / 2b) exp(-z / b)), 31% below the bound 3.00 b / d, against a relative Monte-Carlo error of the
    frame's noise_error_ of about 5% (1,000 draws)."""
    for epsilon, error in [(0.5, 0.1), (1.0, 0.05), (2.0, 0.05)]:
        n = int(np.ceil(2 * np.log(1 / 0.05) / (epsilon * error)))
        y_true = np.tile(np.r_[np.ones(n, dtype=int), np.zeros(n, dtype=int)], 3)
        y_pred = np.tile(np.r_[np.arange(n) % 2, np.arange(n) % 2], 3)
        group = np.repeat(["a", "b", "c"], 2 * n)
        result = dp_equalized_odds_difference(y_true, y_pred, sensitive_features=group, epsilon=epsilon,
                                              groups=["a", "b", "c"], accountant=BudgetAccountant(), random_state=0,
                                              options=MetricFrameOptions(max_noise_error=error), exclude_unreadable=True, detailed=True)
        assert result.unreadable == () and result.groups == ("a", "b", "c"), (epsilon, error, n)
        assert (result.frame.noise_error_.to_numpy() <= error).all()


# ------------------------------------------------------------------------------------------------ coverage
COVERAGE_TRIALS = 300
NOMINAL = 0.95
FLOOR = NOMINAL - 4 * math.sqrt(NOMINAL * (1 - NOMINAL) / COVERAGE_TRIALS)      # 0.8997


@pytest.mark.slow  # 1,200 releases: CI runs it (-m slow)
def test_intervals_cover_the_exact_values_over_the_groups_computed_over():
    """Over 300 seeds on the Adult-sized groups, the 95% intervals of (1) dp_equalized_odds_difference over every
    group, (2) the same with exclude_unreadable=True (max_noise_error=0.05; the target is Fairlearn's value over the
    groups the result names), (3) dp_demographic_parity_difference and (4) dp_equalized_odds_ratio, both with
    exclude_unreadable=True, and (5) by_group_ci of the TPR and FPR of every group (two small groups with 19 and 25
    positives included) cover the exact in-sample values. Binomial floor: 95% - 4 standard errors at 300 trials,
    sqrt(0.95 * 0.05 / 300) = 0.0126, so 90.0%; a quantity with true coverage >= 95% fails with probability
    < 3.2e-5 (< 1e-3 over the 14 quantities). The intervals are conservative by construction (Bonferroni boxes,
    and they also hold the rows' sampling error, which the in-sample target lacks)."""
    y_true, y_pred, group = small_groups_data()
    cases = {"EO difference, all groups": (dp_equalized_odds_difference, {}),
             "EO difference, readable": (dp_equalized_odds_difference, {"exclude_unreadable": True}),
             "DP difference, readable": (dp_demographic_parity_difference, {"exclude_unreadable": True}),
             "EO ratio, readable": (dp_equalized_odds_ratio, {"exclude_unreadable": True})}
    covered = {name: [] for name in cases}
    by_group_covered = []
    exact_rates, exact_values = None, {}
    for seed in range(COVERAGE_TRIALS):
        for name, (aggregate, options) in cases.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UtilityWarning)          # the unreadable groups, named
                result = aggregate(y_true, y_pred, sensitive_features=group, epsilon=1.0, groups=SMALL_GROUPS,
                                   accountant=BudgetAccountant(), random_state=seed, n_boot=400,
                                   options=MetricFrameOptions(max_noise_error=0.05), detailed=True, **options)
            if len(result.groups) < 2:
                covered[name].append(False)                 # a NaN never covers: counted against the interval
                continue
            key = (aggregate, result.groups)
            if key not in exact_values:
                exact_values[key] = exact_over(aggregate, y_true, y_pred, group, result.groups)
            exact = exact_values[key]
            covered[name].append(result.ci[0] <= exact <= result.ci[1])
            if name == "EO difference, all groups":
                if exact_rates is None:
                    exact_rates = _exact_rates(y_true, y_pred, group, result.frame.by_group.index)
                low, high = (bound[["tpr", "fpr"]].to_numpy() for bound in result.frame.by_group_ci)
                by_group_covered.append((low <= exact_rates) & (exact_rates <= high))
    coverage = {name: float(np.mean(hits)) for name, hits in covered.items()}
    per_cell = np.mean(by_group_covered, axis=0)
    assert min(coverage.values()) >= FLOOR, coverage
    assert per_cell.min() >= FLOOR, per_cell


def _exact_rates(y_true, y_pred, group, index):
    from fairlearn.metrics import MetricFrame, false_positive_rate, true_positive_rate
    frame = MetricFrame(metrics={"tpr": true_positive_rate, "fpr": false_positive_rate}, y_true=y_true,
                        y_pred=y_pred, sensitive_features=group)
    return frame.by_group.loc[list(index), ["tpr", "fpr"]].to_numpy()


def test_control_features_are_refused_before_the_budget():
    """Fairlearn's aggregates take no control features; the frame would give one value per level, which a float
    cannot hold: refused (before the release) rather than reduced to the first level."""
    accountant = BudgetAccountant()
    with pytest.raises(TypeError, match="control_features"):
        dp_equalized_odds_difference(Y_TRUE, Y_PRED, sensitive_features=GROUPS, epsilon=1.0, groups=["a", "b"],
                                     accountant=accountant, control_features=["x"] * 6)
    assert accountant.spent_budget == []
