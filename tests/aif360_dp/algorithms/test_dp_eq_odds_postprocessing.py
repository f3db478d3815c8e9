"""DPEqOddsPostprocessing: AIF360's EqOddsPostprocessing at epsilon = inf, privately otherwise."""

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms import Transformer
from aif360.algorithms.postprocessing import EqOddsPostprocessing
from aif360.datasets import BinaryLabelDataset
from diffprivlib import BudgetAccountant

from aif360_dp._glue import predict_seed
from aif360_dp.algorithms.postprocessing import DPEqOddsPostprocessing
from fairlearn_dp.exceptions import FairnessWarning
from fairlearn_dp.postprocessing import ThresholdOptimizerOptions
from fairlearn_dp.privacy import PrivacySpend

UNPRIVILEGED, PRIVILEGED = [{"a": 0}], [{"a": 1}]


def datasets(seed=1, m=3000):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, m)
    y = (rng.random(m) < 0.4 + 0.1 * a).astype(float)
    yhat = np.where(rng.random(m) < 0.75 + 0.1 * a, y, 1 - y)
    frame = pd.DataFrame({"a": a.astype(float), "x": rng.normal(size=m), "y": y})
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])
    predicted = truth.copy(deepcopy=True)
    predicted.labels = yhat.reshape(-1, 1)
    return truth, predicted


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_infinite_epsilon_reproduces_aif360(seed):
    truth, predicted = datasets(seed)
    reference = EqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=predict_seed(5)).fit(truth, predicted)
    ours = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=5, epsilon=np.inf,
                                  accountant=BudgetAccountant()).fit(truth, predicted)
    np.testing.assert_allclose(ours.model_params.x, reference.model_params.x, atol=1e-7)
    # AIF360 seeds the global RNG with its seed; ours draws predict's flips from predict_seed(seed).
    np.testing.assert_array_equal(ours.predict(predicted).labels, reference.predict(predicted).labels)


def test_private_fit_charges_once_and_returns_a_dataset():
    truth, predicted = datasets()
    acc = BudgetAccountant()
    post = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=0, epsilon=1.0, accountant=acc)
    assert isinstance(post, Transformer)
    out = post.fit_predict(truth, predicted)
    assert acc.spent_budget == [(1.0, 0.0)] and post.privacy_spent_ == PrivacySpend(1.0)
    assert out.metadata["transformer"] == "DPEqOddsPostprocessing.fit_predict"
    assert set(np.unique(out.labels)) <= {0.0, 1.0}
    np.testing.assert_array_equal(out.protected_attributes, predicted.protected_attributes)
    assert np.all((post.model_params.x >= 0) & (post.model_params.x <= 1))
    again = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=0, epsilon=1.0,
                                   accountant=BudgetAccountant()).fit(truth, predicted)
    np.testing.assert_array_equal(again.model_params.x, post.model_params.x)       # same seed, same fit


def test_bad_input():
    truth, predicted = datasets()
    post = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, accountant=BudgetAccountant())
    with pytest.raises(ValueError, match="fitted"):
        post.predict(predicted)
    with pytest.raises(ValueError, match="neither"):
        DPEqOddsPostprocessing([{"a": 0}], [{"a": 2}], accountant=BudgetAccountant()).fit(truth, predicted)
    with pytest.raises(ValueError, match="same number"):
        post.fit(truth, predicted.subset(np.arange(10)))
    with pytest.raises(ValueError, match="epsilon"):
        DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, epsilon=0, accountant=BudgetAccountant()).fit(truth,
                                                                                                         predicted)


def test_budget_check_comes_before_the_datasets_are_read_and_a_failed_fit_changes_nothing():
    from diffprivlib.utils import BudgetError

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"s": rng.integers(0, 2, 200).astype(float), "y": rng.integers(0, 2, 200).astype(float)})
    true = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["s"])
    pred = true.copy(deepcopy=True)
    odd = true.copy(deepcopy=True)
    odd.protected_attributes[0, 0] = 5.0            # a row in neither declared group: a domain error
    groups = {"unprivileged_groups": [{"s": 0}], "privileged_groups": [{"s": 1}]}
    exhausted = BudgetAccountant(epsilon=0.5)
    for dataset in (pred, odd):
        with pytest.raises(BudgetError):
            DPEqOddsPostprocessing(**groups, seed=0, accountant=exhausted).fit(true, dataset)
    post = DPEqOddsPostprocessing(**groups, seed=0, accountant=BudgetAccountant()).fit(true, pred)
    params = post.model_params
    with pytest.raises(ValueError, match="neither"):
        post.fit(true, odd)
    assert post.model_params is params


@pytest.mark.parametrize("privileged, unprivileged", [
    ([{"a": 1}], [{"a": 1}]),                        # the same group twice
    ([{"a": 1}], [{"a": 1, "b": 0}]),               # agree on every shared attribute
    ([{"a": 1}], [{"b": 0}]),                        # no shared attribute: a row can match both
    ([{"a": 0}, {"a": 1}], [{"a": 1}]),             # one pair of dicts overlaps
])
def test_overlapping_group_definitions_are_refused_from_the_definitions_alone(privileged, unprivileged):
    """Before: the overlap was noticed only when some row fell in it, so the error depended on the data. Now it
    is read off the definitions, before the budget check and before any row: the same error whatever the data
    (here no row is in any overlap: b = 1 - a), and the accountant is untouched."""
    truth, predicted = datasets()
    frame = truth.convert_to_dataframe()[0].assign(b=lambda f: 1.0 - f["a"])
    truth = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a", "b"])
    labels = predicted.labels
    predicted = truth.copy(deepcopy=True)
    predicted.labels = labels
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match="overlap"):
        DPEqOddsPostprocessing(unprivileged, privileged, accountant=acc).fit(truth, predicted)
    assert acc.spent_budget == []
    with pytest.raises(ValueError, match="privileged_groups"):
        DPEqOddsPostprocessing([], PRIVILEGED, accountant=acc).fit(truth, predicted)
    disjoint = DPEqOddsPostprocessing([{"a": 0, "b": 1}, {"a": 0}], [{"a": 1}], accountant=BudgetAccountant())
    disjoint.fit(truth, predicted)                   # shared attribute a differs in every pair: fits


@pytest.mark.parametrize("privileged, unprivileged, missing, name", [
    ([{"race": 1.0}], UNPRIVILEGED, "race", "privileged_groups"),
    (PRIVILEGED, [{"race": 0.0}], "race", "unprivileged_groups"),
])
def test_an_attribute_missing_from_the_datasets_is_named_not_reported_as_an_overlap(privileged, unprivileged,
                                                                                     missing, name):
    """Definitions that share no attribute would overlap, but the first fault is the attribute the datasets do not
    have: the schema check comes first and names the attribute and the argument, before the budget."""
    truth, predicted = datasets(m=200)
    acc = BudgetAccountant()
    with pytest.raises(ValueError, match=f"^{name} names '{missing}', which is not a protected attribute of "
                                         "dataset_true"):
        DPEqOddsPostprocessing(unprivileged, privileged, accountant=acc).fit(truth, predicted)
    assert acc.spent_budget == []


def test_a_warning_after_the_release_turned_into_an_error_leaves_the_transformer_fitted():
    """The engine's "cannot bind" warning (a privacy slack >= 1 at epsilon = 0.1 on 600 rows) comes after the
    release: as an error it is raised once the face's state is stored (the transformer predicts), charged once;
    shown, it points at the user's call."""
    import inspect
    import warnings

    truth, predicted = datasets(m=600)
    acc = BudgetAccountant()
    face = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=0, accountant=acc, epsilon=0.1,
                                  options=ThresholdOptimizerOptions(privacy_slack=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FairnessWarning, match="cannot bind") as info:
            face.fit(truth, predicted)
    assert info.value.result is face and acc.spent_budget == [(0.1, 0.0)]
    assert face.predict(predicted).labels.shape == predicted.labels.shape
    face = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=0, accountant=BudgetAccountant(), epsilon=0.1,
                                  options=ThresholdOptimizerOptions(privacy_slack=True))
    with pytest.warns(FairnessWarning, match="cannot bind") as records:
        line = inspect.currentframe().f_lineno + 1
        face.fit(truth, predicted)
    assert records and {(record.filename, record.lineno) for record in records} == {(__file__, line)}


def test_a_missing_label_is_named_as_missing_not_as_non_binary():
    truth, predicted = datasets(m=200)
    predicted.labels[3] = np.nan
    with pytest.raises(ValueError, match=r"^dataset_pred has missing labels \(NaN\)\.$"):
        DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, accountant=BudgetAccountant()).fit(truth, predicted)


def test_the_guarantee_width_is_an_attribute_not_a_warning():
    """Issue 35: the engine's disparity_bound_ (released values only), with AIF360's group names; a fit whose
    constraint binds (no slack, the default) warns nothing, however wide the bound (the old code warned here)."""
    import warnings

    truth, predicted = datasets(m=600)
    face = DPEqOddsPostprocessing(UNPRIVILEGED, PRIVILEGED, seed=0, accountant=BudgetAccountant())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        face.fit(truth, predicted)
    assert set(face.disparity_bound_) == {"fpr", "tpr"}
    for rate, item in face.disparity_bound_.items():
        engine = face.model_.disparity_bound_[rate]
        assert (item.bound, item.beta) == (engine.bound, 0.05) and 0 < item.bound <= 1
        assert item.groups == tuple({0: "privileged", 1: "unprivileged"}[g] for g in engine.groups)
