"""DPBinaryLabelDatasetMetric and DPClassificationMetric: AIF360's metric classes at epsilon = inf, one private
release of per-condition counts otherwise."""

import math

import numpy as np
import pandas as pd
import pytest
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import BinaryLabelDatasetMetric, ClassificationMetric
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError

from aif360_dp.metrics import DPBinaryLabelDatasetMetric, DPClassificationMetric
from fairlearn_dp.privacy import PrivacySpend

SEX = {"unprivileged_groups": [{"sex": 0}], "privileged_groups": [{"sex": 1}]}
# Two attributes; race 1 with sex 0 matches neither condition.
TWO = {"unprivileged_groups": [{"sex": 0, "race": 0}, {"sex": 0, "race": 2}],
           "privileged_groups": [{"sex": 1, "race": 1}, {"sex": 1, "race": 2}]}
GROUPINGS = {"sex": SEX, "sex_and_race": TWO}

CONDITIONED = ["num_instances", "num_positives", "num_negatives", "base_rate"]
CLASSIFICATION_CONDITIONED = CONDITIONED + [
    "num_true_positives", "num_false_positives", "num_true_negatives", "num_false_negatives", "num_pred_positives",
    "num_pred_negatives", "true_positive_rate", "false_positive_rate", "true_negative_rate", "false_negative_rate",
    "positive_predictive_value", "false_discovery_rate", "false_omission_rate", "negative_predictive_value",
    "accuracy", "error_rate", "precision", "recall", "sensitivity", "specificity", "selection_rate", "power"]
DATASET_GROUP = ["disparate_impact", "statistical_parity_difference", "mean_difference"]
CLASSIFICATION_GROUP = DATASET_GROUP + [
    "equal_opportunity_difference", "true_positive_rate_difference", "average_odds_difference",
    "average_abs_odds_difference", "average_predictive_value_difference", "equalized_odds_difference",
    "error_rate_difference", "error_rate_ratio", "false_positive_rate_difference", "false_positive_rate_ratio",
    "false_negative_rate_difference", "false_negative_rate_ratio", "false_omission_rate_difference",
    "false_omission_rate_ratio", "false_discovery_rate_difference", "false_discovery_rate_ratio"]
PERFORMANCE_KEYS = ["TPR", "TNR", "FPR", "FNR", "PPV", "NPV", "FDR", "FOR", "ACC"]


def datasets(seed=0, m=300):
    """A true-label dataset with two protected attributes (sex, race) and a classified copy."""
    rng = np.random.default_rng(seed)
    sex, race = rng.integers(0, 2, m), rng.integers(0, 3, m)
    y = (rng.random(m) < 0.35 + 0.2 * sex).astype(float)
    frame = pd.DataFrame({"sex": sex.astype(float), "race": race.astype(float), "x": rng.normal(size=m), "y": y})
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["sex", "race"])
    classified = truth.copy(deepcopy=True)
    classified.labels = np.where(rng.random(m) < 0.7 + 0.1 * sex, y, 1 - y).reshape(-1, 1)
    return truth, classified


@pytest.fixture(scope="module")
def data():
    return datasets()


def _exhausted():
    accountant = BudgetAccountant(epsilon=1.0, delta=0.0)
    accountant.spend(1.0, 0.0)
    return accountant


# ---------------------------------------------------------------------------------------------------- fidelity
@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("grouping", sorted(GROUPINGS))
def test_classification_metric_at_infinite_epsilon_is_aif360s(data, grouping, unit):
    truth, classified = data
    reference = ClassificationMetric(truth, classified, **GROUPINGS[grouping])
    ours = DPClassificationMetric(truth, classified, **GROUPINGS[grouping], epsilon=np.inf, privacy_unit=unit,
                                  accountant=BudgetAccountant())
    for name in CLASSIFICATION_CONDITIONED:
        for privileged in (None, True, False):
            np.testing.assert_allclose(getattr(ours, name)(privileged=privileged),
                                       getattr(reference, name)(privileged=privileged), rtol=1e-9, atol=1e-9,
                                       err_msg=f"{name}(privileged={privileged})")
    for privileged in (None, True, False):
        expected = reference.performance_measures(privileged=privileged)
        measures = ours.performance_measures(privileged=privileged)
        assert list(measures) == PERFORMANCE_KEYS                              # the generalized ones omitted
        np.testing.assert_allclose([measures[k] for k in PERFORMANCE_KEYS], [expected[k] for k in PERFORMANCE_KEYS],
                                   rtol=1e-9, atol=1e-9)
        matrix, expected = ours.binary_confusion_matrix(privileged), reference.binary_confusion_matrix(privileged)
        assert list(matrix) == list(expected)
        np.testing.assert_allclose(list(matrix.values()), list(expected.values()), rtol=1e-9, atol=1e-9)
    for name in CLASSIFICATION_GROUP:
        np.testing.assert_allclose(getattr(ours, name)(), getattr(reference, name)(), rtol=1e-9, atol=1e-9,
                                   err_msg=name)
    np.testing.assert_allclose(ours.difference(ours.accuracy), reference.difference(reference.accuracy), atol=1e-9)
    np.testing.assert_allclose(ours.ratio(ours.accuracy), reference.ratio(reference.accuracy), rtol=1e-9)


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
@pytest.mark.parametrize("grouping", sorted(GROUPINGS))
def test_dataset_metric_at_infinite_epsilon_is_aif360s(data, grouping, unit):
    truth, _ = data
    reference = BinaryLabelDatasetMetric(truth, **GROUPINGS[grouping])
    ours = DPBinaryLabelDatasetMetric(truth, **GROUPINGS[grouping], epsilon=np.inf, privacy_unit=unit,
                                      accountant=BudgetAccountant())
    for name in CONDITIONED:
        for privileged in (None, True, False):
            np.testing.assert_allclose(getattr(ours, name)(privileged=privileged),
                                       getattr(reference, name)(privileged=privileged), rtol=1e-9, atol=1e-9,
                                       err_msg=f"{name}(privileged={privileged})")
    for name in DATASET_GROUP:
        np.testing.assert_allclose(getattr(ours, name)(), getattr(reference, name)(), rtol=1e-9, atol=1e-9,
                                   err_msg=name)


def test_the_classification_metric_reads_true_labels_for_base_rates_and_predictions_for_parity(data):
    truth, classified = data
    ours = DPClassificationMetric(truth, classified, **SEX, epsilon=np.inf, accountant=BudgetAccountant())
    dataset_metric = BinaryLabelDatasetMetric(truth, **SEX)
    predictions = BinaryLabelDatasetMetric(classified, **SEX)
    np.testing.assert_allclose(ours.base_rate(True), dataset_metric.base_rate(True))
    np.testing.assert_allclose(ours.disparate_impact(), predictions.disparate_impact())
    assert not math.isclose(ours.disparate_impact(), dataset_metric.disparate_impact())


def test_a_missing_condition_refuses_like_aif360(data):
    truth, classified = data
    ours = DPClassificationMetric(truth, classified, privileged_groups=[{"sex": 1}], epsilon=1.0, random_state=0,
                                  accountant=BudgetAccountant())
    reference = ClassificationMetric(truth, classified, privileged_groups=[{"sex": 1}])
    with pytest.raises(AttributeError, match="unprivileged_groups"):
        ours.true_positive_rate(privileged=False)
    with pytest.raises(AttributeError, match="unprivileged_groups"):
        reference.true_positive_rate(privileged=False)
    assert list(ours.released_counts_.index) == ["privileged", "neither"]
    np.testing.assert_allclose(ours.num_instances(), reference.num_instances())      # public under the default unit


# ---------------------------------------------------------------------------------------------------- accounting
def test_one_release_and_one_charge_per_object(data):
    truth, classified = data
    accountant = BudgetAccountant()
    metric = DPClassificationMetric(truth, classified, **TWO, epsilon=0.7, accountant=accountant, random_state=3)
    answers = [getattr(metric, name)(privileged=p) for name in CLASSIFICATION_CONDITIONED for p in (None, True, False)]
    answers += [getattr(metric, name)() for name in CLASSIFICATION_GROUP]
    answers += [metric.performance_measures(True), metric.binary_confusion_matrix(False)]
    assert accountant.spent_budget == [(0.7, 0.0)]
    assert metric.privacy_spent_ == PrivacySpend(0.7, 0.0)
    dataset_accountant = BudgetAccountant()
    dataset_metric = DPBinaryLabelDatasetMetric(truth, **SEX, epsilon=0.5, delta=1e-6, accountant=dataset_accountant)
    [getattr(dataset_metric, name)(privileged=p) for name in CONDITIONED for p in (None, True, False)]
    [getattr(dataset_metric, name)() for name in DATASET_GROUP]
    assert dataset_accountant.spent_budget == [(0.5, 1e-6)]
    assert dataset_metric.privacy_spent_ == PrivacySpend(0.5, 1e-6)


def test_infinite_epsilon_is_charged_inf_zero(data):
    truth, classified = data
    accountant = BudgetAccountant()
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=np.inf, accountant=accountant)
    assert accountant.spent_budget == [(math.inf, 0.0)] and metric.privacy_spent_ == PrivacySpend(math.inf, 0.0)
    assert metric.noise_scale_ == 0.0 and metric.noise_sd_ == 0.0


def test_the_budget_is_checked_before_the_datasets_are_read(data):
    truth, classified = data
    short = classified.subset(np.arange(10))
    odd = truth.copy(deepcopy=True)
    odd.labels[0, 0] = 7.0                                                 # a non-binary label
    with pytest.raises(ValueError, match="same number"):                   # invalid data: a domain error ...
        DPClassificationMetric(truth, short, **SEX, accountant=BudgetAccountant())
    poor = BudgetAccountant(epsilon=0.5)
    with pytest.raises(BudgetError):                                       # ... never reached without the budget
        DPClassificationMetric(truth, short, **SEX, epsilon=1.0, accountant=poor)
    with pytest.raises(BudgetError):
        DPBinaryLabelDatasetMetric(odd, **SEX, epsilon=1.0, accountant=poor)
    assert poor.spent_budget == []


@pytest.mark.parametrize("change, exception, match", [
    ({"epsilon": 0}, ValueError, "epsilon"),
    ({"epsilon": -1.0}, ValueError, "epsilon"),
    ({"delta": 1.0}, ValueError, "delta"),
    ({"privacy_unit": "x"}, ValueError, "privacy_unit"),
    ({"random_state": -1}, ValueError, "random_state"),
    ({"accountant": "nope"}, TypeError, "accountant"),
    ({"privileged_groups": {"sex": 1}}, TypeError, "privileged_groups"),
    ({"privileged_groups": []}, ValueError, "privileged_groups"),
    ({"unprivileged_groups": [{}]}, ValueError, "unprivileged_groups"),
    ({"privileged_groups": [{"sex": 1}], "unprivileged_groups": [{"race": 0}]}, ValueError, "overlap"),
    ({"privileged_groups": [{"age": 1}]}, ValueError, "privileged_groups"),
])
def test_bad_public_parameters_fail_before_the_budget(data, change, exception, match):
    truth, classified = data
    params = {**SEX, "epsilon": 1.0, "accountant": _exhausted(), **change}
    with pytest.raises(exception, match=match):
        DPClassificationMetric(truth, classified, **params)
    with pytest.raises(exception, match=match):
        DPBinaryLabelDatasetMetric(truth, **params)


@pytest.mark.parametrize("groups, missing, name", [
    ({"privileged_groups": [{"age": 1.0}], "unprivileged_groups": [{"sex": 0.0}]}, "age", "privileged_groups"),
    ({"privileged_groups": [{"sex": 1.0}], "unprivileged_groups": [{"age": 0.0}]}, "age", "unprivileged_groups"),
])
def test_an_attribute_missing_from_the_dataset_is_named_not_reported_as_an_overlap(data, groups, missing, name):
    """Definitions that share no attribute would overlap, but the first fault is the attribute the dataset does
    not have: the schema check comes first, and names the attribute and the argument (before the budget)."""
    truth, classified = data
    for make in (lambda: DPClassificationMetric(truth, classified, **groups, accountant=_exhausted()),
                 lambda: DPBinaryLabelDatasetMetric(truth, **groups, accountant=_exhausted())):
        with pytest.raises(ValueError, match=f"^{name} names '{missing}', which is not a protected attribute"):
            make()


# ---------------------------------------------------------------------------------------------------- release
def test_same_random_state_same_values_and_a_consistent_table(data):
    truth, classified = data
    first, second = (DPClassificationMetric(truth, classified, **TWO, epsilon=0.5, random_state=11,
                                            accountant=BudgetAccountant()) for _ in range(2))
    pd.testing.assert_frame_equal(first.released_counts_, second.released_counts_)
    assert first.average_odds_difference() == second.average_odds_difference()
    other = DPClassificationMetric(truth, classified, **TWO, epsilon=0.5, random_state=12,
                                   accountant=BudgetAccountant())
    assert not np.allclose(first.released_counts_, other.released_counts_)
    exact = DPClassificationMetric(truth, classified, **TWO, epsilon=np.inf, accountant=BudgetAccountant())
    table = first.released_counts_
    assert list(table.index) == ["privileged", "unprivileged", "neither"]
    assert list(table.columns) == ["tn", "fp", "fn", "tp"] and (table.to_numpy() >= 0).all()
    # "sensitive_attribute": the per-true-label totals are public, so the released columns add up to them exactly;
    # with public_predictions=True every confusion bin's total is.
    exact_totals = exact.released_counts_.sum(axis=0)
    np.testing.assert_allclose(table[["tn", "fp"]].to_numpy().sum(), exact_totals[["tn", "fp"]].sum(), atol=1e-8)
    np.testing.assert_allclose(table[["fn", "tp"]].to_numpy().sum(), exact_totals[["fn", "tp"]].sum(), atol=1e-8)
    public = DPClassificationMetric(truth, classified, **TWO, epsilon=0.5, random_state=11, public_predictions=True,
                                    accountant=BudgetAccountant())
    np.testing.assert_allclose(public.released_counts_.sum(axis=0), exact_totals, atol=1e-8)
    record = DPBinaryLabelDatasetMetric(truth, **TWO, epsilon=0.5, random_state=11, privacy_unit="record",
                                        accountant=BudgetAccountant())
    assert list(record.released_counts_.columns) == ["negatives", "positives"]
    assert (record.released_counts_.to_numpy() >= 0).all()
    np.testing.assert_allclose(record.num_instances(), len(truth.labels))           # "record": n is public


@pytest.mark.parametrize("cls, delta", [(DPClassificationMetric, 0.0), (DPBinaryLabelDatasetMetric, 0.0),
                                        (DPClassificationMetric, 1e-5)])
def test_the_release_noise_has_the_mechanism_scale(cls, delta):
    """The raw release (``_noisy``: before post-processing) minus the exact table, over 800 seeded objects: its
    standard deviation is the mechanism's (Laplace ``sqrt(2) * 2 / epsilon``) within 4 standard errors of a
    sample standard deviation (Laplace: ``sd * sqrt(5 / (4 n))``, kurtosis 6; Gaussian: ``sd / sqrt(2 n)``)."""
    truth, classified = datasets(m=120)
    args = (truth, classified) if cls is DPClassificationMetric else (truth,)
    epsilon = 2.0
    exact = cls(*args, **TWO, epsilon=np.inf, accountant=BudgetAccountant())._noisy
    noise = np.concatenate([(cls(*args, **TWO, epsilon=epsilon, delta=delta, random_state=seed,
                                 accountant=BudgetAccountant())._noisy - exact).ravel() for seed in range(800)])
    metric = cls(*args, **TWO, epsilon=epsilon, delta=delta, random_state=0, accountant=BudgetAccountant())
    if delta == 0:
        assert metric.noise_scale_ == pytest.approx(2.0 / epsilon)
        assert metric.noise_sd_ == pytest.approx(2.0 * math.sqrt(2.0) / epsilon)
        standard_error = metric.noise_sd_ * math.sqrt(5.0 / (4.0 * noise.size))
    else:
        assert metric.noise_sd_ == metric.noise_scale_ > 0
        standard_error = metric.noise_sd_ / math.sqrt(2.0 * noise.size)
    assert abs(noise.std() - metric.noise_sd_) < 4 * standard_error
    assert abs(noise.mean()) < 4 * metric.noise_sd_ / math.sqrt(noise.size)


# ---------------------------------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("name, args", [
    ("consistency", ()), ("smoothed_empirical_differential_fairness", ()), ("rich_subgroup", (None,)),
])
def test_metrics_that_need_more_than_the_counts_refuse(data, name, args):
    truth, classified = data
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=1.0, random_state=0,
                                    accountant=BudgetAccountant())
    if name != "smoothed_empirical_differential_fairness":       # from the classification metric's intersections
        with pytest.raises(NotImplementedError, match=name):
            getattr(metric, name)(*args)
    dataset_metric = DPBinaryLabelDatasetMetric(truth, **SEX, epsilon=1.0, random_state=0,
                                                accountant=BudgetAccountant())
    if hasattr(BinaryLabelDatasetMetric, name):
        with pytest.raises(NotImplementedError, match=name):
            getattr(dataset_metric, name)(*args)


def test_no_aif360_metric_class_is_inherited_and_the_data_are_not_kept(data):
    truth, classified = data
    metric = DPClassificationMetric(truth, classified, **SEX, epsilon=1.0, random_state=0,
                                    accountant=BudgetAccountant())
    assert not isinstance(metric, (ClassificationMetric, BinaryLabelDatasetMetric))
    assert not hasattr(metric, "dataset") and not hasattr(metric, "classified_dataset")


# ---------------------------------------------------------------------------------------------------- bad input
def test_bad_datasets_are_refused_without_counts_or_values(data):
    truth, classified = data
    n = str(len(truth.labels))
    moved = classified.copy(deepcopy=True)
    moved.protected_attributes[0, 0] = 1.0 - moved.protected_attributes[0, 0]
    odd = classified.copy(deepcopy=True)
    odd.labels[3, 0] = 7.0
    weighted = truth.copy(deepcopy=True)
    weighted.instance_weights[5] = 2.0
    cases = [((truth, classified.subset(np.arange(10))), "same number of instances"),
             ((truth, moved), "same protected attributes"),
             ((truth, odd), "classified_dataset has labels other than"),
             ((weighted, classified), "instance_weights are not all 1: declare their public bound")]
    for args, match in cases:
        with pytest.raises(ValueError, match=match) as error:
            DPClassificationMetric(*args, **SEX, accountant=BudgetAccountant())
        assert n not in str(error.value) and "7" not in str(error.value)
    with pytest.raises(TypeError, match="classified_dataset"):
        DPClassificationMetric(truth, classified.labels, **SEX, accountant=BudgetAccountant())
    with pytest.raises(TypeError, match="dataset"):
        DPBinaryLabelDatasetMetric(pd.DataFrame({"sex": [0, 1]}), **SEX, accountant=BudgetAccountant())
    relabelled = classified.copy(deepcopy=True)
    relabelled.favorable_label = 0.0
    with pytest.raises(ValueError, match="favorable_label"):
        DPClassificationMetric(truth, relabelled, **SEX, accountant=_exhausted())    # public metadata: before


def test_a_missing_label_is_named_as_missing_not_as_non_binary(data):
    truth, classified = data
    classified = classified.copy(deepcopy=True)
    classified.labels[5] = np.nan
    with pytest.raises(ValueError, match=r"^classified_dataset has missing labels \(NaN\)\.$"):
        DPClassificationMetric(truth, classified, **SEX, accountant=BudgetAccountant())
