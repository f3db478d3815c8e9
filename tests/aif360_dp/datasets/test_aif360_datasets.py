"""Tests for the AIF360 datasets built from the bundled data."""

import ast
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from aif360.datasets import RegressionDataset, StandardDataset

import aif360_dp.datasets as aif_datasets
import fairlearn_dp.datasets as fl_datasets
from aif360_dp.datasets import AdultDataset, CommunitiesCrimeDataset, LawSchoolGPADataset
from fairlearn_dp.datasets import fetch_communities_crime, fetch_law_school

PACKAGE_DIR = Path(aif_datasets.__file__).resolve().parent
BUNDLED_DATA_DIR = Path(fl_datasets.__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def law():
    return LawSchoolGPADataset()


@pytest.fixture(scope="module")
def communities():
    return CommunitiesCrimeDataset()


def _original_labels(dataset):
    scale = dataset.metadata["label_scale"]
    return dataset.labels.ravel() * (scale["max"] - scale["min"]) + scale["min"]


# --- offline only --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(PACKAGE_DIR.glob("*.py")), ids=lambda path: path.name)
def test_no_download_code(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not [module for module in modules if module.split(".")[0] in {"urllib", "requests", "http", "socket"}]
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    assert not names & {"fetch_openml", "urlretrieve", "urlopen", "read_sas"}


# --- Law School ----------------------------------------------------------------------------------------------------


def test_law_school_structure(law):
    assert isinstance(law, RegressionDataset)
    assert law.features.shape == (21_983, 3)
    assert law.label_names == ["ugpa"] and law.protected_attribute_names == ["race"]
    assert "lsat" in law.feature_names


def test_law_school_groups_and_privileged_values(law):
    stored, counts = np.unique(law.protected_attributes[:, 0], return_counts=True)
    np.testing.assert_allclose(stored, [0.0, 1 / 3, 2 / 3, 1.0], atol=1e-15)
    assert counts.tolist() == [897, 1_343, 1_027, 18_716]
    np.testing.assert_array_equal(law.privileged_protected_attributes[0], [1.0])
    np.testing.assert_array_equal(law.unprivileged_protected_attributes[0], stored[:3])
    names = law.metadata["protected_attribute_maps"][0]
    assert [names[value] for value in stored] == ["asian", "black", "hisp", "white"]
    assert "label_maps" not in law.metadata


def test_law_school_label_round_trip(law):
    assert law.metadata["label_scale"] == {"min": 1.5, "max": 3.9}
    assert law.metadata["label_bounds"] == (1.0, 4.0)
    assert law.labels.min() == 0.0 and law.labels.max() == 1.0
    np.testing.assert_allclose(_original_labels(law), fetch_law_school().target.to_numpy(), rtol=0, atol=1e-12)


def test_law_school_group_names_round_trip(law):
    frame, _ = law.convert_to_dataframe(de_dummy_code=True)
    expected = fetch_law_school().sensitive_features.to_numpy()
    np.testing.assert_array_equal(frame["race"].to_numpy(), expected)


# --- Communities and Crime -----------------------------------------------------------------------------------------


def test_communities_structure_and_groups(communities):
    assert isinstance(communities, RegressionDataset)
    assert communities.features.shape == (1_994, 100)  # 99 loader features + the protected attribute
    assert communities.label_names == ["ViolentCrimesPerPop"] and communities.protected_attribute_names == ["black"]
    values, counts = np.unique(communities.protected_attributes[:, 0], return_counts=True)
    assert values.tolist() == [0.0, 1.0] and counts.tolist() == [1_024, 970]
    np.testing.assert_array_equal(communities.privileged_protected_attributes[0], [0.0])
    np.testing.assert_array_equal(communities.unprivileged_protected_attributes[0], [1.0])
    assert communities.metadata["protected_attribute_maps"] == [{0.0: "white", 1.0: "black"}]


def test_communities_label_round_trip(communities):
    assert communities.metadata["label_bounds"] == (0.0, 1.0)
    original = _original_labels(communities)
    np.testing.assert_allclose(original, fetch_communities_crime().target.to_numpy(), rtol=0, atol=1e-12)
    low, high = communities.metadata["label_bounds"]
    assert low <= original.min() and original.max() <= high


def test_regression_metadata_survives_split(law):
    train, test = law.split([0.7], shuffle=True, seed=0)
    for part in (train, test):
        assert part.metadata["label_scale"] == law.metadata["label_scale"]
        assert part.metadata["protected_attribute_maps"] == law.metadata["protected_attribute_maps"]


# --- Adult ---------------------------------------------------------------------------------------------------------


def test_adult_defaults(aif360_adult):
    assert isinstance(aif360_adult, StandardDataset)
    assert aif360_adult.features.shape == (45_222, 98)
    assert aif360_adult.label_names == ["income-per-year"]
    assert aif360_adult.protected_attribute_names == ["race", "sex"]
    assert "fnlwgt" not in aif360_adult.feature_names
    assert aif360_adult.favorable_label == 1.0 and aif360_adult.unfavorable_label == 0.0
    assert [a.tolist() for a in aif360_adult.privileged_protected_attributes] == [[1.0], [1.0]]
    assert [a.tolist() for a in aif360_adult.unprivileged_protected_attributes] == [[0.0], [0.0]]
    assert aif360_adult.metadata["label_maps"] == [{1.0: ">50K", 0.0: "<=50K"}]
    assert aif360_adult.metadata["protected_attribute_maps"] == [
        {1.0: "White", 0.0: "Non-white"},
        {1.0: "Male", 0.0: "Female"},
    ]


def test_adult_keywords():
    dataset = AdultDataset(
        protected_attribute_names=["sex"],
        privileged_classes=[["Male"]],
        categorical_features=[],
        features_to_keep=["age", "education-num"],
    )
    assert sorted(dataset.feature_names) == ["age", "education-num", "sex"]
    weighted = AdultDataset(instance_weights_name="fnlwgt", features_to_drop=[])
    assert not np.all(weighted.instance_weights == 1.0)


def test_adult_does_not_mutate_metadata_argument():
    metadata = {"protected_attribute_maps": [{1.0: "Male", 0.0: "Female"}]}
    AdultDataset(
        protected_attribute_names=["sex"],
        privileged_classes=[["Male"]],
        categorical_features=["workclass", "education", "marital-status", "occupation", "relationship",
                              "native-country", "race"],
        metadata=metadata,
    )  # fmt: skip
    assert metadata == {"protected_attribute_maps": [{1.0: "Male", 0.0: "Female"}]}


class _BundledFilesReader:
    """Stand-in for ``pandas`` inside AIF360's adult module: ``read_csv`` reads our bundled copy of the file."""

    def __getattr__(self, name):
        return getattr(pd, name)

    @staticmethod
    def read_csv(path, **kwargs):
        return pd.read_csv(BUNDLED_DATA_DIR / os.path.basename(path), **kwargs)


@pytest.mark.skipif(int(pd.__version__.split(".")[0]) >= 3,
                    reason="AIF360 0.6.1's own AdultDataset fails on pandas 3 (np.issubdtype on a pandas StringDtype "
                           "column); the reference cannot be built there. Our AdultDataset is tested on pandas 3 above.")
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"protected_attribute_names": ["sex"], "privileged_classes": [["Male"]], "features_to_keep": ["age"]}],
    ids=["defaults", "sex-only"],
)
def test_adult_equals_aif360_adult_on_the_same_files(aif360_adult, kwargs, monkeypatch):
    import aif360.datasets.adult_dataset as reference_module

    monkeypatch.setattr(reference_module, "pd", _BundledFilesReader())
    reference = reference_module.AdultDataset(**kwargs)
    ours = aif360_adult if not kwargs else AdultDataset(**kwargs)
    assert ours == reference  # every field but metadata
    assert ours.feature_names == reference.feature_names
    assert ours.instance_names == reference.instance_names
