"""DPClassificationMetric's entropy indices (whole dataset, between groups, between all groups) and generalized
(score-based) rates: AIF360's values at epsilon = inf, post-processing of the one release otherwise."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import ClassificationMetric
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError

import fairlearn_dp.metrics._frame_release as release_module
from aif360_dp.metrics import DPClassificationMetric

SEX = {"unprivileged_groups": [{"sex": 0}], "privileged_groups": [{"sex": 1}]}
TWO = {"unprivileged_groups": [{"sex": 0, "race": 0}, {"sex": 0, "race": 2}],
           "privileged_groups": [{"sex": 1, "race": 1}, {"sex": 1, "race": 2}]}
ALPHAS = (0, 1, 2, 3, 0.5, -1)
ENTROPY = ["generalized_entropy_index", "between_group_generalized_entropy_index",
           "between_all_groups_generalized_entropy_index"]
DERIVED = ["theil_index", "coefficient_of_variation", "between_group_theil_index",
           "between_group_coefficient_of_variation", "between_all_groups_theil_index",
           "between_all_groups_coefficient_of_variation"]
GENERALIZED_CONDITIONED = ["num_generalized_true_positives", "num_generalized_false_positives",
                           "num_generalized_false_negatives", "num_generalized_true_negatives",
                           "generalized_true_positive_rate", "generalized_false_positive_rate",
                           "generalized_false_negative_rate", "generalized_true_negative_rate"]


def _bld(frame, names, **metadata):
    return BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=names, **metadata)


def random_pair(seed=0, m=300):
    """Two protected attributes (sex, race), random labels, predictions and scores in [0, 1]."""
    rng = np.random.default_rng(seed)
    sex, race = rng.integers(0, 2, m), rng.integers(0, 3, m)
    y = (rng.random(m) < 0.35 + 0.2 * sex).astype(float)
    frame = pd.DataFrame({"sex": sex.astype(float), "race": race.astype(float), "y": y})
    truth = _bld(frame, ["sex", "race"])
    classified = truth.copy(deepcopy=True)
    classified.labels = np.where(rng.random(m) < 0.7 + 0.1 * sex, y, 1 - y).reshape(-1, 1)
    classified.scores = rng.random((m, 1))
    return truth, classified


def aif360_test_pair():
    """AIF360's own test data (tests/test_classification_metric.py: generalized entropy, Theil, between all
    groups): one attribute ``feat`` with values 0, 1, 2."""
    data = np.array([[0, 1], [0, 0], [1, 0], [1, 1], [1, 0], [1, 0], [2, 1], [2, 0], [2, 1], [2, 1]], dtype=float)
    pred = data.copy()
    pred[[3, 9], -1] = 0
    pred[[4, 5], -1] = 1
    truth = _bld(pd.DataFrame(data, columns=["feat", "y"]), ["feat"])
    classified = _bld(pd.DataFrame(pred, columns=["feat", "y"]), ["feat"])
    classified.scores = np.linspace(0.0, 1.0, 10).reshape(-1, 1)
    return truth, classified


def empty_cells_pair(repeat=1):
    """Empty cells: race 2 is declared with no row, no row has sex 0 and race 1, and there is no false negative at
    all (so ``alpha = 0`` is finite); each row ``repeat`` times."""
    sex = np.repeat([1.0, 1, 1, 0, 0, 1, 0, 1, 1, 0], repeat)
    race = np.repeat([0.0, 1, 3, 0, 3, 1, 0, 0, 3, 0], repeat)
    y = np.repeat([1.0, 0, 0, 1, 0, 1, 0, 0, 1, 0], repeat)
    pred = np.repeat([1.0, 1, 0, 1, 1, 1, 0, 0, 1, 1], repeat)
    metadata = {"privileged_protected_attributes": [np.array([1.0]), np.array([1.0])],
                    "unprivileged_protected_attributes": [np.array([0.0]), np.array([0.0, 2.0, 3.0])]}
    truth = _bld(pd.DataFrame({"sex": sex, "race": race, "y": y}), ["sex", "race"], **metadata)
    classified = _bld(pd.DataFrame({"sex": sex, "race": race, "y": pred}), ["sex", "race"], **metadata)
    classified.scores = np.repeat([0.9, 0.6, 0.2, 1.0, 0.7, 0.8, 0.0, 0.3, 0.5, 0.95], repeat).reshape(-1, 1)
    return truth, classified


CASES = {
    "random_sex": (random_pair, SEX), "random_two": (random_pair, TWO),
    "random_race_only_privileged": (random_pair, {"privileged_groups": [{"race": 1}],
                                                      "unprivileged_groups": [{"race": 0}]}),
    "aif360_tests": (aif360_test_pair, {"unprivileged_groups": [{"feat": 0}], "privileged_groups": [{"feat": 2}]}),
    "empty_cells": (empty_cells_pair, SEX),
    "empty_cells_and_neither": (empty_cells_pair, {"unprivileged_groups": [{"race": 3}],
                                                       "privileged_groups": [{"sex": 1, "race": 1}]}),
}


def _close(ours, theirs, name):
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, err_msg=name)


# ---------------------------------------------------------------------------------------------------- fidelity
@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_inequality_indices_and_generalized_rates_at_infinite_epsilon_are_aif360s(case, unit):
    make, groups = CASES[case]
    truth, classified = make()
    reference = ClassificationMetric(truth, classified, **groups)
    ours = DPClassificationMetric(truth, classified, **groups, epsilon=np.inf, privacy_unit=unit,
                                  bounded_scores=True, accountant=BudgetAccountant())
    with np.errstate(all="ignore"):                          # AIF360 divides by zero on empty cells
        for name in ENTROPY:
            for alpha in ALPHAS:
                _close(getattr(ours, name)(alpha=alpha), getattr(reference, name)(alpha=alpha), f"{name}({alpha})")
            _close(getattr(ours, name)(), getattr(reference, name)(), name)
        for name in DERIVED:
            _close(getattr(ours, name)(), getattr(reference, name)(), name)
        for privileged in (None, True, False):
            for name in GENERALIZED_CONDITIONED:
                _close(getattr(ours, name)(privileged=privileged), getattr(reference, name)(privileged=privileged),
                       f"{name}({privileged})")
            matrix, expected = (m.generalized_binary_confusion_matrix(privileged) for m in (ours, reference))
            assert sorted(matrix) == sorted(expected)
            _close([matrix[k] for k in expected], list(expected.values()), "generalized_binary_confusion_matrix")
            measures, expected = (m.performance_measures(privileged=privileged) for m in (ours, reference))
            assert list(measures) == list(expected)                  # the generalized ones in AIF360's order
            _close(list(measures.values()), list(expected.values()), "performance_measures")
        _close(ours.generalized_equalized_odds_difference(), reference.generalized_equalized_odds_difference(),
               "generalized_equalized_odds_difference")
        for name in ["smoothed_empirical_differential_fairness", "differential_fairness_bias_amplification"]:
            for concentration in (1.0, 0.5, 3.0):
                _close(getattr(ours, name)(concentration), getattr(reference, name)(concentration), name)
            _close(getattr(ours, name)(), getattr(reference, name)(), name)


def test_aif360s_own_expected_values():
    """The values AIF360's tests assert (tests/test_classification_metric.py), from the released counts."""
    truth, classified = aif360_test_pair()
    ours = DPClassificationMetric(truth, classified, epsilon=np.inf, accountant=BudgetAccountant())
    assert ours.generalized_entropy_index() == pytest.approx(0.2, abs=1e-15)
    assert ours.theil_index() == pytest.approx(4 * np.log(2) / 10, abs=1e-15)
    b = np.array([1, 1, 1.25, 1.25, 1.25, 1.25, 0.75, 0.75, 0.75, 0.75])
    assert ours.between_all_groups_generalized_entropy_index() == pytest.approx(1 / 20 * np.sum(b ** 2 - 1),
                                                                                abs=1e-15)
    data = np.array([[0, 0, 1], [0, 1, 0], [1, 1, 0], [1, 1, 1], [1, 0, 0], [1, 0, 0]], dtype=float)
    pred = data.copy()
    pred[[0, 3], -1] = 0
    pred[[4, 5], -1] = 1
    names = ["feat", "feat2"]
    truth = _bld(pd.DataFrame(data, columns=names + ["y"]), names)
    classified = _bld(pd.DataFrame(pred, columns=names + ["y"]), names)
    ours = DPClassificationMetric(truth, classified, unprivileged_groups=[{"feat": 0}],
                                  privileged_groups=[{"feat": 1}], epsilon=np.inf, accountant=BudgetAccountant())
    b = np.array([0.5, 0.5, 1.25, 1.25, 1.25, 1.25])
    assert ours.between_group_generalized_entropy_index() == pytest.approx(1 / 12 * np.sum(b ** 2 - 1), abs=1e-15)


# ---------------------------------------------------------------------------------------------------- release
@pytest.mark.parametrize("case", ["random_two", "empty_cells"])
def test_at_epsilon_one_every_new_method_is_finite_and_in_range_with_one_release_and_one_charge(case, monkeypatch):
    make, groups = CASES[case]
    truth, classified = make() if case == "random_two" else make(repeat=30)     # 300 rows, cells still empty
    releases = []
    real = release_module.release_laplace

    def counting(*args, **kwargs):
        releases.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(release_module, "release_laplace", counting)    # every count-table release (delta = 0)
    accountant = BudgetAccountant()
    metric = DPClassificationMetric(truth, classified, **groups, epsilon=1.0, bounded_scores=True, random_state=7,
                                    accountant=accountant)
    for name in ENTROPY:
        for alpha in (1, 2, 0.5):
            value = getattr(metric, name)(alpha=alpha)
            assert np.isfinite(value) and value >= 0.0, (name, alpha)
    for name in DERIVED:
        assert np.isfinite(getattr(metric, name)()) and getattr(metric, name)() >= 0.0, name
    for privileged in (None, True, False):
        counts = metric.generalized_binary_confusion_matrix(privileged)
        assert all(value >= 0.0 for value in counts.values())
        for name in GENERALIZED_CONDITIONED[4:]:
            rate = getattr(metric, name)(privileged=privileged)
            assert np.isnan(rate) or 0.0 <= rate <= 1.0, name       # nan only for a released count of 0
    assert 0.0 <= metric.generalized_equalized_odds_difference() <= 1.0
    assert 0.0 <= metric.smoothed_empirical_differential_fairness() < np.inf
    assert np.isfinite(metric.differential_fairness_bias_amplification())
    assert len(releases) == 1 and releases[0]["l1_sensitivity"] == 4.0              # Laplace: L1 (L2 would be 2)
    assert accountant.spent_budget == [(1.0, 0.0)]
    cells = metric.released_cell_counts_
    assert list(cells.columns) == ["tn", "fp", "fn", "tp", "gfp", "gtp"] and (cells.to_numpy() >= 0).all()
    assert (cells["gfp"] <= cells["tn"] + cells["fp"] + 1e-9).all()
    assert (cells["gtp"] <= cells["fn"] + cells["tp"] + 1e-9).all()
    # the per-condition table is the sum of its cells (a condition with no cell: zeros)
    sums = cells[["tn", "fp", "fn", "tp"]].groupby(level="condition").sum()
    np.testing.assert_allclose(sums.reindex(metric.released_counts_.index, fill_value=0.0),
                               metric.released_counts_, atol=1e-9)


def test_the_cells_are_the_declared_intersections_and_undeclared_values_are_refused():
    truth, classified = random_pair()
    # declared: sex {1, 0} x race {2, 0, 1}, each with its condition (race 1 with sex 0: neither)
    metric = DPClassificationMetric(truth, classified, **TWO, epsilon=np.inf, accountant=BudgetAccountant())
    index = metric.released_cell_counts_.index
    assert list(index.names) == ["condition", "sex", "race"]
    assert list(index) == [("privileged", 1.0, 2.0), ("neither", 1.0, 0.0), ("privileged", 1.0, 1.0),
                           ("unprivileged", 0.0, 2.0), ("unprivileged", 0.0, 0.0), ("neither", 0.0, 1.0)]
    assert list(metric.released_cell_counts_.columns) == ["tn", "fp", "fn", "tp"]
    moved = truth.copy(deepcopy=True)
    moved.protected_attributes[3, 1] = 5.0                  # AIF360's datasets refuse an undeclared value
    classified.protected_attributes[3, 1] = 5.0
    with pytest.raises(ValueError, match="neither in its privileged_protected_attributes") as error:
        DPClassificationMetric(moved, classified, **TWO, accountant=BudgetAccountant())
    assert "5" not in str(error.value)


def test_the_score_release_has_twice_the_count_releases_noise_scale():
    truth, classified = random_pair(m=60)
    plain = DPClassificationMetric(truth, classified, **SEX, epsilon=2.0, random_state=0,
                                   accountant=BudgetAccountant())
    scored = DPClassificationMetric(truth, classified, **SEX, epsilon=2.0, random_state=0, bounded_scores=True,
                                    accountant=BudgetAccountant())
    assert plain.noise_scale_ == pytest.approx(1.0) and scored.noise_scale_ == pytest.approx(2.0)
    assert scored.noise_sd_ == pytest.approx(2.0 * math.sqrt(2.0))


# ---------------------------------------------------------------------------------------------------- refusals
def test_generalized_rates_without_declared_scores_refuse_naming_the_parameter():
    truth, classified = random_pair()
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=1.0, random_state=0,
                                    accountant=BudgetAccountant())
    assert "GTPR" not in metric.performance_measures()
    for name in ["generalized_binary_confusion_matrix", "generalized_true_positive_rate",
                 "generalized_equalized_odds_difference"]:
        with pytest.raises(ValueError, match="bounded_scores=True"):
            getattr(metric, name)()


def test_bad_alpha_and_bounded_scores_are_refused():
    truth, classified = random_pair()
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=np.inf, accountant=BudgetAccountant())
    with pytest.raises(TypeError, match="alpha"):
        metric.generalized_entropy_index(alpha="2")
    with pytest.raises(ValueError, match="alpha"):
        metric.between_group_generalized_entropy_index(alpha=np.inf)
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    with pytest.raises(TypeError, match="bounded_scores"):                    # a public parameter: before the budget
        DPClassificationMetric(truth, classified, **SEX, bounded_scores="yes", accountant=exhausted)
    with pytest.raises(BudgetError):                                        # the budget before the scores are read
        DPClassificationMetric(truth, classified, **SEX, bounded_scores=True, accountant=exhausted)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores_are_refused_without_their_value(bad):
    truth, classified = random_pair()
    classified.scores[4, 0] = bad
    with pytest.raises(ValueError, match="scores must be finite") as error:
        DPClassificationMetric(truth, classified, **SEX, bounded_scores=True, accountant=BudgetAccountant())
    assert str(error.value) == ("classified_dataset.scores must be finite (bounded_scores=True): NaN or infinite "
                                "scores are refused.")                      # one fixed text: no value, no count
    DPClassificationMetric(truth, classified, **SEX, accountant=BudgetAccountant())    # undeclared: not read


@pytest.mark.parametrize("bad, inside", [(1.5, 1.0), (-0.1, 0.0), (1e300, 1.0)])
def test_scores_outside_the_declared_unit_interval_are_clipped_without_a_warning(bad, inside):
    """bounded_scores=True declares the public range [0, 1]: a finite score outside it is clipped, as DPMetricFrame
    clips a value to its bounds (it used to be refused: a refusal on a data value the public range covers)."""
    truth, classified = random_pair()
    clipped = classified.copy(deepcopy=True)
    classified.scores[4, 0], clipped.scores[4, 0] = bad, inside
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = DPClassificationMetric(truth, classified, **SEX, bounded_scores=True, epsilon=np.inf,
                                      accountant=BudgetAccountant())
    reference = ClassificationMetric(truth, clipped, **SEX)
    for privileged in (None, True, False):
        for name in ["num_generalized_true_positives", "num_generalized_false_positives"]:
            assert getattr(ours, name)(privileged) == pytest.approx(getattr(reference, name)(privileged),
                                                                    rel=1e-12)


@pytest.mark.parametrize("case", ["random_two", "empty_cells_and_neither"])
def test_intersections_false_releases_per_condition_and_refuses_only_the_all_groups_indices(case):
    make, groups = CASES[case]
    truth, classified = make()
    reference = ClassificationMetric(truth, classified, **groups)
    ours = DPClassificationMetric(truth, classified, **groups, epsilon=np.inf, intersections=False,
                                  bounded_scores=True, accountant=BudgetAccountant())
    assert list(ours.released_cell_counts_.index) == list(ours.released_counts_.index)
    with np.errstate(all="ignore"):
        for name in ["generalized_entropy_index", "between_group_generalized_entropy_index"]:
            for alpha in ALPHAS:
                _close(getattr(ours, name)(alpha=alpha), getattr(reference, name)(alpha=alpha), f"{name}({alpha})")
        _close(ours.generalized_equalized_odds_difference(), reference.generalized_equalized_odds_difference(),
               "generalized_equalized_odds_difference")
    for name in ["between_all_groups_generalized_entropy_index", "between_all_groups_theil_index",
                 "between_all_groups_coefficient_of_variation", "smoothed_empirical_differential_fairness",
                 "differential_fairness_bias_amplification"]:
        with pytest.raises(ValueError, match="intersections=True"):
            getattr(ours, name)()
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    with pytest.raises(TypeError, match="intersections"):                     # a public parameter: before the budget
        DPClassificationMetric(truth, classified, **groups, intersections=None, accountant=exhausted)


# ---------------------------------------------------------------------------------------------------- multiclass
def _multiclass_pair(repeat=1):
    """AIF360's test_multiclass_confusion_matrix data: labels 0, 1, 2 with favorable [0, 1], unfavorable [2]."""
    from aif360.datasets.multiclass_label_dataset import MulticlassLabelDataset

    data = np.array([[0, 1], [0, 0], [1, 0], [1, 1], [1, 0], [1, 2], [2, 1], [2, 0], [2, 2], [2, 1]], dtype=float)
    data = np.repeat(data, repeat, axis=0)
    pred = data.copy()
    pred[3, 1] = 0
    pred[4, 1] = 2
    labels = {"favorable_label": [0, 1], "unfavorable_label": [2], "label_names": ["label"],
                  "protected_attribute_names": ["feat"]}
    return (MulticlassLabelDataset(df=pd.DataFrame(data, columns=["feat", "label"]), **labels),
            MulticlassLabelDataset(df=pd.DataFrame(pred, columns=["feat", "label"]), **labels))


def test_multiclass_label_datasets_are_binarized_as_aif360_does():
    from aif360.metrics import BinaryLabelDatasetMetric

    from aif360_dp.metrics import DPBinaryLabelDatasetMetric

    truth, classified = _multiclass_pair()
    groups = {"unprivileged_groups": [{"feat": 2}], "privileged_groups": [{"feat": 0}, {"feat": 1}]}
    ours = DPClassificationMetric(truth, classified, **groups, epsilon=np.inf, accountant=BudgetAccountant())
    assert ours.binary_confusion_matrix() == {"TP": 7.0, "FP": 0.0, "TN": 2.0, "FN": 1.0}   # AIF360's test values
    assert ours.false_negative_rate_difference() == pytest.approx(-0.2, abs=1e-15)
    reference = ClassificationMetric(truth, classified, **groups)
    with np.errstate(all="ignore"):
        for name in ["theil_index", "between_group_theil_index", "between_all_groups_coefficient_of_variation",
                     "average_odds_difference", "disparate_impact"]:
            _close(getattr(ours, name)(), getattr(reference, name)(), name)
    dataset_ours = DPBinaryLabelDatasetMetric(truth, **groups, epsilon=np.inf, accountant=BudgetAccountant())
    dataset_reference = BinaryLabelDatasetMetric(truth, **groups)
    for name in ["base_rate", "num_positives", "num_negatives"]:
        for privileged in (None, True, False):
            _close(getattr(dataset_ours, name)(privileged), getattr(dataset_reference, name)(privileged), name)
    private = DPClassificationMetric(*_multiclass_pair(repeat=20), **groups, epsilon=1.0, random_state=0,
                                     accountant=BudgetAccountant())
    assert 0.0 <= private.accuracy() <= 1.0 and np.isfinite(private.theil_index())
    odd = classified.copy(deepcopy=True)
    odd.labels[0, 0] = 5.0
    with pytest.raises(ValueError, match="labels other than its favorable_label and unfavorable_label values"):
        DPClassificationMetric(truth, odd, **groups, accountant=BudgetAccountant())


# ---------------------------------------------------------------------------------------------------- sensitivity
@pytest.mark.parametrize("bounded_scores, l1, l2", [(False, 2.0, math.sqrt(2.0)), (True, 4.0, 2.0)])
def test_one_changed_row_moves_the_exact_table_within_the_stated_sensitivity(bounded_scores, l1, l2):
    """Every change of row 0 (protected attributes among the declared values, true and predicted label, score in
    {0, 0.5, 1}): the exact cell table (the release at epsilon = inf) moves by at most the stated L1 and L2, and
    some change attains them."""
    truth, classified = random_pair(m=40)
    classified.scores[0, 0] = 1.0                           # so that the largest change is attainable

    def table(t, c):
        return DPClassificationMetric(t, c, **TWO, epsilon=np.inf, bounded_scores=bounded_scores,
                                      accountant=BudgetAccountant())._noisy

    base = table(truth, classified)
    largest = [0.0, 0.0]
    for sex in (0.0, 1.0):
        for race in (0.0, 1.0, 2.0):
            for y in (0.0, 1.0):
                for pred in (0.0, 1.0):
                    for score in (0.0, 0.5, 1.0):
                        t, c = truth.copy(deepcopy=True), classified.copy(deepcopy=True)
                        t.protected_attributes[0] = c.protected_attributes[0] = (sex, race)
                        t.labels[0, 0], c.labels[0, 0], c.scores[0, 0] = y, pred, score
                        difference = table(t, c) - base
                        largest = [max(largest[0], np.abs(difference).sum()),
                                   max(largest[1], np.sqrt((difference ** 2).sum()))]
    assert largest[0] <= l1 + 1e-12 and largest[1] <= l2 + 1e-12
    assert largest[0] == pytest.approx(l1) and largest[1] == pytest.approx(l2)


def test_differential_fairness_refuses_a_bad_concentration_and_a_single_group():
    truth, classified = random_pair()
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=np.inf, accountant=BudgetAccountant())
    with pytest.raises(ValueError, match="non-negative"):
        metric.smoothed_empirical_differential_fairness(concentration=-1.0)
    with pytest.raises(TypeError, match="concentration"):
        metric.differential_fairness_bias_amplification(concentration="1")
    one = truth.copy(deepcopy=True)
    one.protected_attributes[:] = 1.0                      # every row in one declared intersection
    single = classified.copy(deepcopy=True)
    single.protected_attributes[:] = 1.0
    metric = DPClassificationMetric(one, single, **SEX, epsilon=np.inf, accountant=BudgetAccountant())
    with pytest.raises(ValueError, match="at least two intersections"):
        metric.smoothed_empirical_differential_fairness()
