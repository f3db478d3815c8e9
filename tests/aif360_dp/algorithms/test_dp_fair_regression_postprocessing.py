"""AIF360 face: a Transformer on RegressionDatasets that delegates to the Fairlearn-face estimator."""

import numpy as np
import pytest
from aif360.algorithms import Transformer
from diffprivlib import BudgetAccountant

from aif360_dp._glue import dataset_to_arrays, predict_seed
from aif360_dp.algorithms.postprocessing import DPFairRegressionPostprocessing
from aif360_dp.datasets import CommunitiesCrimeDataset, LawSchoolGPADataset
from fairlearn_dp.metrics import ks_statistical_parity
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import PrivacySpend


@pytest.fixture(scope="module")
def communities():
    return CommunitiesCrimeDataset()


def test_is_an_aif360_transformer_and_records_metadata(communities):
    acc = BudgetAccountant()
    post = DPFairRegressionPostprocessing(epsilon=1.0, bounds=communities.metadata["label_bounds"], n_bins=12,
                                          accountant=acc, seed=0)
    assert isinstance(post, Transformer)
    out = post.fit(communities).predict(communities)
    assert out.metadata["transformer"] == "DPFairRegressionPostprocessing.predict"
    assert out.metadata["params"]["epsilon"] == 1.0
    assert out.metadata["previous"] == [communities]
    np.testing.assert_array_equal(out.protected_attributes, communities.protected_attributes)
    np.testing.assert_array_equal(out.features, communities.features)
    assert out.protected_attribute_names == communities.protected_attribute_names
    assert acc.spent_budget == [(1.0, 0.0)] and post.privacy_spent_ == PrivacySpend(1.0)
    assert out.labels.min() >= 0 and out.labels.max() <= 1


def test_matches_the_fairlearn_face_on_the_same_data(communities):
    post = DPFairRegressionPostprocessing(epsilon=2.0, bounds=(0, 1), n_bins=12, alpha=0.0,
                                          accountant=BudgetAccountant(), seed=3)
    out = post.fit(communities).predict(communities)
    arrays = dataset_to_arrays(communities)
    engine = DPFairRegressionPostprocessor(epsilon=2.0, bounds=(0, 1), n_bins=12, alpha=0.0, groups=[0.0, 1.0],
                                           accountant=BudgetAccountant(), random_state=3)
    engine.fit(arrays.y[:, None], sensitive_features=arrays.sensitive_features)
    expected = engine.predict(arrays.y[:, None], sensitive_features=arrays.sensitive_features,
                              random_state=predict_seed(3))
    assert predict_seed(3) != 3
    np.testing.assert_allclose(dataset_to_arrays(out).y, expected, atol=1e-12)
    before = ks_statistical_parity(arrays.y, arrays.y, sensitive_features=arrays.sensitive_features)
    after = ks_statistical_parity(arrays.y, expected, sensitive_features=arrays.sensitive_features)
    assert after < before / 3


def test_four_group_law_school_in_original_units():
    data = LawSchoolGPADataset()
    train, test = data.split([0.7], shuffle=True, seed=0)
    post = DPFairRegressionPostprocessing(epsilon=1.0, bounds=data.metadata["label_bounds"], n_bins=36,
                                          accountant=BudgetAccountant(), seed=0).fit(train)
    groups = post.model_.groups_
    assert len(groups) == 4 and groups[0] == 1.0 and groups[1:] == sorted(groups[1:])   # privileged first
    out = post.predict(test)
    y = dataset_to_arrays(out).y
    assert set(np.round(y, 10)) <= set(np.round(post.model_.bin_centers_, 10))   # GPA units, bin midpoints in (1, 4)


def test_fit_on_predictions_and_not_fitted_error(communities):
    post = DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0, 1), n_bins=12, accountant=BudgetAccountant(),
                                          seed=0)
    with pytest.raises(ValueError, match="fitted"):
        post.predict(communities)
    predicted = communities.copy(deepcopy=True)
    predicted.labels = np.clip(predicted.labels * 0.8 + 0.1, 0, 1)
    post.fit(communities, predicted)
    assert post.predict(predicted).labels.shape == communities.labels.shape
    with pytest.raises(ValueError, match="protected_attribute_name"):
        DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0, 1), protected_attribute_name="nope",
                                       accountant=BudgetAccountant()).fit(communities)


def test_labels_without_public_bounds_are_refused_before_the_budget_is_touched():
    """AIF360's RegressionDataset min-max scales the label with the data's own min and max, so bounds on the stored
    label are data-dependent: a dataset without metadata['label_bounds'] needs bounds= (in original units)."""
    import pandas as pd
    from aif360.datasets import RegressionDataset

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 200), "a": rng.integers(0, 2, 200).astype(float)})
    frame["y"] = 3 * frame["x"] + rng.normal(size=200)
    plain = RegressionDataset(df=frame, dep_var_name="y", protected_attribute_names=["a"],
                              privileged_classes=[[1.0]])
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="label_scale.*min-max"):
        DPFairRegressionPostprocessing(epsilon=1.0, n_bins=5, accountant=accountant, seed=0).fit(plain)
    assert accountant.spent_budget == []
    with pytest.raises(ValueError, match="label_scale"):     # bounds cannot make the data-scaled labels private
        DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0.0, 1.0), n_bins=5, accountant=accountant,
                                       seed=0).fit(plain)
    assert accountant.spent_budget == []
    plain.metadata["label_scale"] = {"min": 0.0, "max": 1.0}  # the caller declares the label's public scale
    post = DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0.0, 1.0), n_bins=5, accountant=accountant,
                                          seed=0).fit(plain)
    assert post.model_.bounds == (0.0, 1.0)
    # The dataset's own public bounds are the default.
    law = LawSchoolGPADataset()
    assert DPFairRegressionPostprocessing(epsilon=1.0, n_bins=5, accountant=accountant, seed=0).fit(
        law).model_.bounds == law.metadata["label_bounds"]


def test_budget_check_comes_before_the_dataset_is_read(communities):
    from diffprivlib.utils import BudgetError

    broken = communities.copy(deepcopy=True)
    broken.labels[0, 0] = np.nan
    exhausted = BudgetAccountant(epsilon=0.5)
    for dataset in (communities, broken):
        with pytest.raises(BudgetError):
            DPFairRegressionPostprocessing(epsilon=1.0, n_bins=5, accountant=exhausted, seed=0).fit(dataset)
