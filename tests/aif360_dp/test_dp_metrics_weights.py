"""The AIF360 metric classes on a reweighted dataset (``instance_weights`` not all 1) with a declared public
``weight_bound`` (issue 38.2): AIF360's reweighing demo pattern, equal to AIF360's metrics at epsilon = inf."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.preprocessing import Reweighing
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import BinaryLabelDatasetMetric, ClassificationMetric
from diffprivlib import BudgetAccountant

from aif360_dp.metrics import DPBinaryLabelDatasetMetric, DPClassificationMetric

SEX = {"unprivileged_groups": [{"sex": 0}], "privileged_groups": [{"sex": 1}]}
DATASET_METHODS = ["num_instances", "num_positives", "num_negatives", "base_rate"]
CLASSIFICATION_METHODS = DATASET_METHODS + [
    "num_true_positives", "num_false_positives", "num_true_negatives", "num_false_negatives", "num_pred_positives",
    "num_pred_negatives", "true_positive_rate", "false_positive_rate", "positive_predictive_value", "accuracy",
    "selection_rate", "num_generalized_true_positives", "num_generalized_false_positives",
    "generalized_true_positive_rate", "generalized_false_positive_rate"]
GROUP_METHODS = ["disparate_impact", "statistical_parity_difference", "mean_difference", "average_odds_difference",
                 "equal_opportunity_difference", "error_rate_ratio"]
# Equal up to rounding: weighted sums in another order than AIF360's.
RTOL = 1e-12


@pytest.fixture(scope="module")
def reweighted():
    """AIF360's reweighing demo, on synthetic rows: Reweighing's weights (a function of group and label), then a
    classified copy with scores."""
    rng = np.random.default_rng(382)
    m = 400
    sex = rng.integers(0, 2, m)
    y = (rng.random(m) < 0.3 + 0.3 * sex).astype(float)
    frame = pd.DataFrame({"sex": sex.astype(float), "x": rng.normal(size=m), "y": y})
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["sex"],
                               privileged_protected_attributes=[[1.0]],
                               unprivileged_protected_attributes=[[0.0]])
    transformed = Reweighing(**SEX).fit_transform(truth)
    classified = transformed.copy(deepcopy=True)
    scores = np.clip(0.3 * y + 0.7 * rng.random(m), 0, 1)
    classified.scores = scores.reshape(-1, 1)
    classified.labels = (scores > 0.5).astype(float).reshape(-1, 1)
    bound = math.ceil(transformed.instance_weights.max())
    assert not np.all(transformed.instance_weights == 1)
    return transformed, classified, bound


def test_dataset_metric_on_reweighted_data_is_aif360s(reweighted):
    transformed, _, bound = reweighted
    reference = BinaryLabelDatasetMetric(transformed, **SEX)
    ours = DPBinaryLabelDatasetMetric(transformed, **SEX, epsilon=np.inf, weight_bound=bound,
                                      accountant=BudgetAccountant())
    for name in DATASET_METHODS:
        for privileged in (None, True, False):
            assert getattr(ours, name)(privileged) == pytest.approx(getattr(reference, name)(privileged), rel=RTOL)
    for name in ["disparate_impact", "statistical_parity_difference", "mean_difference"]:
        assert getattr(ours, name)() == pytest.approx(getattr(reference, name)(), rel=RTOL, abs=1e-15)
    # Reweighing's point: the weighted base rates are equal across groups
    assert ours.statistical_parity_difference() == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("unit", ["sensitive_attribute", "record"])
def test_classification_metric_on_reweighted_data_is_aif360s(reweighted, unit):
    transformed, classified, bound = reweighted
    reference = ClassificationMetric(transformed, classified, **SEX)
    ours = DPClassificationMetric(transformed, classified, **SEX, epsilon=np.inf, weight_bound=bound,
                                  bounded_scores=True, privacy_unit=unit, accountant=BudgetAccountant())
    for name in CLASSIFICATION_METHODS:
        for privileged in (None, True, False):
            assert getattr(ours, name)(privileged) == pytest.approx(getattr(reference, name)(privileged), rel=RTOL)
    for name in GROUP_METHODS:
        assert getattr(ours, name)() == pytest.approx(getattr(reference, name)(), rel=RTOL, abs=1e-15)
    with pytest.raises(NotImplementedError, match="ignoring instance_weights"):
        ours.theil_index()


def test_reweighted_metrics_at_epsilon_one_scale_the_noise_by_the_bound(reweighted):
    transformed, classified, bound = reweighted
    ours = DPClassificationMetric(transformed, classified, **SEX, epsilon=1.0, weight_bound=bound, random_state=0,
                                  accountant=BudgetAccountant())
    assert ours.noise_scale_ == pytest.approx(2 * bound)
    assert np.isfinite(ours.disparate_impact()) and np.all(ours.released_cell_counts_.to_numpy() >= 0)
    dataset_metric = DPBinaryLabelDatasetMetric(transformed, **SEX, epsilon=1.0, weight_bound=bound, random_state=0,
                                                accountant=BudgetAccountant())
    assert dataset_metric.noise_scale_ == pytest.approx(2 * bound)


def test_neighbouring_reweighted_tables_differ_by_at_most_the_sensitivity(reweighted):
    """One person's attribute changed and their weight with it (as Reweighing's would): the weighted table moves by
    at most L1 2B, and by exactly 2B for a row of weight B."""
    transformed, classified, bound = reweighted
    moved_truth, moved_classified = transformed.copy(deepcopy=True), classified.copy(deepcopy=True)
    for data in (moved_truth, moved_classified):
        data.protected_attributes[0, 0] = 1.0 - data.protected_attributes[0, 0]
        data.instance_weights[0] = bound
    base_truth, base_classified = transformed.copy(deepcopy=True), classified.copy(deepcopy=True)
    for data in (base_truth, base_classified):
        data.instance_weights[0] = bound

    def table(truth, predicted):
        return DPClassificationMetric(truth, predicted, **SEX, epsilon=np.inf, weight_bound=bound,
                                      privacy_unit="record", accountant=BudgetAccountant()).released_cell_counts_

    difference = table(moved_truth, moved_classified).to_numpy() - table(base_truth, base_classified).to_numpy()
    assert np.abs(difference).sum() == pytest.approx(2 * bound, rel=1e-12)


@pytest.mark.parametrize("change, match", [
    (lambda t, c: None, "instance_weights are not all 1: declare their public bound"),
    (lambda t, c: t.instance_weights.__setitem__(0, -1.0), "holds negative weights"),
    (lambda t, c: c.instance_weights.__setitem__(0, 0.5), "must equal dataset.instance_weights"),
])
def test_out_of_range_weights_are_refused_before_the_release(reweighted, change, match):
    transformed, classified, bound = reweighted
    truth, predicted = transformed.copy(deepcopy=True), classified.copy(deepcopy=True)
    change(truth, predicted)
    accountant = BudgetAccountant()
    kwargs = {} if "declare" in match else {"weight_bound": bound}
    with pytest.raises(ValueError, match=match):
        DPClassificationMetric(truth, predicted, **SEX, epsilon=1.0, accountant=accountant, **kwargs)
    assert accountant.total() == (0, 0)


@pytest.mark.parametrize("bound", [0, -1.0, np.inf, "2"])
def test_weight_bound_is_checked_before_the_budget(reweighted, bound):
    transformed, _, _ = reweighted
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    with pytest.raises((ValueError, TypeError), match="weight_bound must be"):
        DPBinaryLabelDatasetMetric(transformed, **SEX, epsilon=1.0, weight_bound=bound, accountant=exhausted)


def test_weights_above_the_bound_are_clipped_to_it_as_in_the_metric_frame(reweighted):
    """A weight above the public weight_bound is clipped to it without a warning, as DPMetricFrame does (the
    classes used to refuse it: a refusal on a data value the public bound covers); at epsilon = inf both classes
    equal AIF360's metrics on the clipped weights."""
    transformed, classified, bound = reweighted
    heavy, heavy_classified = transformed.copy(deepcopy=True), classified.copy(deepcopy=True)
    for data in (heavy, heavy_classified):
        data.instance_weights[:3] = [99.0, bound + 0.5, 10.0 * bound]
    clipped, clipped_classified = heavy.copy(deepcopy=True), heavy_classified.copy(deepcopy=True)
    for data in (clipped, clipped_classified):
        data.instance_weights = np.minimum(data.instance_weights, bound)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = DPClassificationMetric(heavy, heavy_classified, **SEX, epsilon=np.inf, weight_bound=bound,
                                      bounded_scores=True, accountant=BudgetAccountant())
        dataset = DPBinaryLabelDatasetMetric(heavy, **SEX, epsilon=np.inf, weight_bound=bound,
                                             accountant=BudgetAccountant())
    reference = ClassificationMetric(clipped, clipped_classified, **SEX)
    for name in ["num_instances", "num_true_positives", "num_generalized_true_positives", "accuracy"]:
        for privileged in (None, True, False):
            assert getattr(ours, name)(privileged) == pytest.approx(getattr(reference, name)(privileged), rel=RTOL)
    assert dataset.num_positives() == pytest.approx(BinaryLabelDatasetMetric(clipped, **SEX).num_positives(),
                                                    rel=RTOL)
