"""AIF360 dataset <-> arrays conversions: round trip, units, metadata."""

import numpy as np
import pytest

from aif360_dp._glue import arrays_to_dataset, dataset_to_arrays, declared_groups
from aif360_dp.datasets import CommunitiesCrimeDataset, LawSchoolGPADataset


@pytest.fixture(scope="module")
def law():
    return LawSchoolGPADataset()


def test_round_trip_keeps_everything(law):
    arrays = dataset_to_arrays(law)
    back = arrays_to_dataset(law, arrays.y)
    np.testing.assert_allclose(back.labels, law.labels, atol=1e-12)
    np.testing.assert_array_equal(back.features, law.features)
    np.testing.assert_array_equal(back.protected_attributes, law.protected_attributes)
    assert back.protected_attribute_names == law.protected_attribute_names
    assert back.metadata["protected_attribute_maps"] == law.metadata["protected_attribute_maps"]
    np.testing.assert_array_equal(back.privileged_protected_attributes[0], law.privileged_protected_attributes[0])
    assert back is not law and back.labels is not law.labels


def test_labels_come_back_in_original_units(law):
    arrays = dataset_to_arrays(law)
    assert arrays.y.min() >= 1.0 and arrays.y.max() <= 4.0 and arrays.y.min() < 2.0   # GPA, not [0, 1]
    assert arrays.sensitive_features.name == "race"
    assert list(arrays.X.columns) == law.feature_names


def test_declared_groups_come_from_metadata(law):
    groups = declared_groups(law)
    assert len(groups) == 4 and groups[0] == pytest.approx(1.0)     # privileged (white) first
    assert sorted(groups) == sorted(set(dataset_to_arrays(law).sensitive_features))


def test_bad_arguments(law):
    with pytest.raises(TypeError, match="dataset"):
        dataset_to_arrays(np.zeros(3))
    with pytest.raises(ValueError, match="length mismatch"):
        arrays_to_dataset(law, np.zeros(3))
    with pytest.raises(ValueError, match="protected_attribute_name"):
        declared_groups(CommunitiesCrimeDataset(), "race")
