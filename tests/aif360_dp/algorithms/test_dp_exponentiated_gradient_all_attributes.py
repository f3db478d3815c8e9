"""DPExponentiatedGradientReduction groups by every protected attribute, as AIF360's ExponentiatedGradientReduction
does: at epsilon=inf it computes AIF360's randomized classifier (checked against AIF360's class, run in the same
test, on the data of AIF360's examples/demo_exponentiated_gradient_reduction.ipynb), and at a finite epsilon its
public groups are the combinations of each attribute's declared values."""

import math

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms.inprocessing import ExponentiatedGradientReduction
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MaxAbsScaler
from threadpoolctl import threadpool_limits

from aif360_dp._glue import joint_declared_groups, protected_attributes, protected_frame
from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction
from aif360_dp.datasets import AdultDataset
from fairlearn_dp._utils._validation import as_group_vector
from fairlearn_dp.exceptions import PrivacyWarning
from fairlearn_dp.reductions import DPExponentiatedGradient

# Same code (Fairlearn's ExponentiatedGradient) on the same inputs in one process: the gap is round-off at most
# (measured: exactly 0); 1e-9 is the bound the drop-in promise is held to.
ATOL = 1e-9


@pytest.fixture(scope="module")
def demo():
    """The notebook's data: ``load_preproc_data_adult()`` (AIF360's loader, run unchanged, its ``AdultDataset``
    being aif360_dp's, which reads the bundled Adult files instead of AIF360's empty data folder), split 70/30
    after ``np.random.seed(0)`` and scaled with ``MaxAbsScaler`` fitted on the training part, as the notebook does.
    numpy's global generator is restored afterwards."""
    from aif360.algorithms.preprocessing.optim_preproc_helpers import data_preproc_functions

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(data_preproc_functions, "AdultDataset", AdultDataset)
        dataset = data_preproc_functions.load_preproc_data_adult()
    state = np.random.get_state()
    try:
        np.random.seed(0)
        train, test = dataset.split([0.7], shuffle=True)
    finally:
        np.random.set_state(state)
    scaler = MaxAbsScaler()
    train.features = scaler.fit_transform(train.features)
    test.features = scaler.transform(test.features)
    assert train.features.shape == (34189, 18) and train.protected_attribute_names == ["sex", "race"]
    return train, test


def _aif360_and_ours(train, test, **ours):
    """AIF360's class and the face at epsilon=inf, as the notebook builds AIF360's; favorable-label scores on
    ``test`` and the fitted Fairlearn models."""
    with threadpool_limits(limits=1):
        reference = ExponentiatedGradientReduction(estimator=LogisticRegression(solver="lbfgs"),
                                                   constraints="EqualizedOdds", drop_prot_attr=False).fit(train)
        face = DPExponentiatedGradientReduction(LogisticRegression(solver="lbfgs"), "EqualizedOdds",
                                                drop_prot_attr=False, epsilon=math.inf,
                                                accountant=BudgetAccountant(), **ours).fit(train)
    return (reference.predict(test).scores.ravel(), face.predict(test).scores.ravel(), reference.model.model_,
            face.model_)


# AIF360's own ExponentiatedGradientReduction, run next to ours, passes its labels to scikit-learn's LabelEncoder as
# a column (scikit-learn's DataConversionWarning, from AIF360's call).
@pytest.mark.filterwarnings("ignore:A column-vector y was passed:sklearn.exceptions.DataConversionWarning")
def test_epsilon_inf_is_aif360s_on_a_part_of_the_demo_data(demo):
    """The first 2,000 training rows: AIF360's classifier to 1e-9; grouping by sex alone (the face's behaviour
    before) gives a classifier far from it, so the comparison can fail."""
    train, test = demo
    part = train.subset(np.arange(2000))
    theirs, ours, reference, engine = _aif360_and_ours(part, test)
    assert engine.mode_ == "fairlearn" and len(engine.predictors_) == len(reference.predictors_)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ATOL)
    np.testing.assert_allclose(engine.weights_.to_numpy(), reference.weights_.to_numpy(), rtol=0, atol=ATOL)
    _, sex_only, _, _ = _aif360_and_ours(part, test, protected_attribute_name="sex")
    assert np.abs(sex_only - theirs).max() > 0.1


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:A column-vector y was passed:sklearn.exceptions.DataConversionWarning")  # AIF360's
def test_epsilon_inf_is_aif360s_on_the_demo_notebook(demo):
    """The notebook's fit (34,189 training rows, sex x race, EqualizedOdds, drop_prot_attr=False): the same
    predictors, weights and ``_pmf_predict`` on the 14,653 test rows, to 1e-9."""
    train, test = demo
    theirs, ours, reference, engine = _aif360_and_ours(train, test)
    assert len(engine.predictors_) == len(reference.predictors_)
    np.testing.assert_allclose(engine.weights_.to_numpy(), reference.weights_.to_numpy(), rtol=0, atol=ATOL)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ATOL)
    X_test = pd.DataFrame(test.features, columns=test.feature_names)
    np.testing.assert_allclose(engine._pmf_predict(X_test), reference._pmf_predict(X_test), rtol=0, atol=ATOL)


def test_finite_epsilon_uses_the_joint_declared_groups(demo):
    """At epsilon=1 the groups are the four declared (sex, race) combinations, public, whatever the rows hold; the
    fit is the engine's with the protected columns as sensitive features (same seed: the same release)."""
    train, test = demo
    part = train.subset(np.arange(3000))
    acc = BudgetAccountant()
    face = DPExponentiatedGradientReduction(LogisticRegression(), "DemographicParity", difference_bound=0.05,
                                            epsilon=1.0, delta=1e-5, max_iter=8, accountant=acc, seed=2).fit(part)
    groups = ["1.0,1.0", "1.0,0.0", "0.0,1.0", "0.0,0.0"]                # sex, race: privileged first
    assert face.protected_attribute_names_ == ["sex", "race"] and face.model_.groups == groups
    assert face.model_.history_["statistics"].shape[:2] == (1, 4) and acc.spent_budget == [(1.0, 1e-5)]
    X = part.features[:, [part.feature_names.index(name) for name in face.feature_names_]]
    y = part.labels.ravel().astype(int)
    engine = DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05), epsilon=1.0,
                                     delta=1e-5, max_iter=8, groups=groups, accountant=BudgetAccountant(),
                                     random_state=2).fit(X, y, sensitive_features=part.protected_attributes)
    X_test = test.features[:, [test.feature_names.index(name) for name in face.feature_names_]]
    np.testing.assert_allclose(face.predict(test).scores.ravel(), engine._pmf_predict(X_test)[:, 1], rtol=1e-12,
                               atol=1e-12)
    one = DPExponentiatedGradientReduction(LogisticRegression(), "DemographicParity", epsilon=1.0, delta=1e-5,
                                           max_iter=4, protected_attribute_name="race",
                                           accountant=BudgetAccountant(), seed=0).fit(part)
    assert one.protected_attribute_names_ == ["race"] and one.model_.groups == [1.0, 0.0]


def test_joint_groups_label_every_row_as_the_engine_does(demo):
    """Each row's combined label (the engines' "a,b" of the row's values) is one of the declared combinations, in
    either attribute order; a declared combination need not occur."""
    train, _ = demo
    for names in (["sex", "race"], ["race", "sex"]):
        groups = joint_declared_groups(train, names)
        assert len(groups) == 4 and len(set(groups)) == 4
        labels = as_group_vector(protected_frame(train, names), train.features.shape[0], groups=groups)
        assert set(labels) == set(groups)
    assert joint_declared_groups(train, ["sex"]) == [1.0, 0.0]
    assert protected_attributes(train) == ["sex", "race"] and protected_attributes(train, "race") == ["race"]
    only_women = train.subset(np.flatnonzero(train.protected_attributes[:, 0] == 0.0))
    assert joint_declared_groups(only_women, ["sex", "race"]) == joint_declared_groups(train, ["sex", "race"])


@pytest.mark.parametrize("names, error, match", [
    (["sex", "sex"], ValueError, "distinct"),
    ([], TypeError, "protected_attribute_name"),
    (["sex", 3], ValueError, "distinct attribute names"),
    (("Age (decade)=10",), ValueError, "not one of the dataset's protected attributes"),
    ({"sex": [0.0, 1.0]}, TypeError, "protected_attribute_name"),
])
def test_a_bad_attribute_list_is_refused_before_the_budget(demo, names, error, match):
    train, _ = demo
    part = train.subset(np.arange(500))
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    face = DPExponentiatedGradientReduction(LogisticRegression(), epsilon=1.0, protected_attribute_name=names,
                                            accountant=exhausted, seed=0)
    with pytest.raises(error, match=match):
        face.fit(part)
    assert exhausted.spent_budget == [(1.0, 0.0)] and not hasattr(face, "model_")


def test_an_undeclared_value_is_an_unseen_group_error_and_charges_nothing(demo):
    train, _ = demo
    part = train.subset(np.arange(500)).copy(deepcopy=True)     # its metadata is edited below: not the fixture's
    part.protected_attributes[7, 1] = 2.0                 # a race value the dataset does not declare
    acc = BudgetAccountant()
    face = DPExponentiatedGradientReduction(LogisticRegression(), epsilon=1.0, accountant=acc, seed=0)
    with pytest.raises(ValueError, match="not one of the 4 declared groups"):
        face.fit(part)
    assert acc.spent_budget == [] and not hasattr(face, "model_")
    part.privileged_protected_attributes[1] = np.array([])
    part.unprivileged_protected_attributes[1] = np.array([])
    with pytest.raises(ValueError, match="'race' has no declared value"):
        face.fit(part)


@pytest.mark.parametrize("kwargs", [{}, {"protected_attribute_name": "race"}, {"max_iter": 5}])
def test_the_notebooks_drop_prot_attr_false_warns_under_the_attribute_unit_before_the_budget(demo, kwargs):
    """The notebook's ``drop_prot_attr=False`` keeps sex and race among the features, which
    ``privacy_unit="sensitive_attribute"`` treats as public: a ``PrivacyWarning`` from the schema, before the budget
    (issued although an exhausted accountant then raises ``BudgetError``), naming both arguments and what to pass."""
    train, _ = demo
    part = train.subset(np.arange(500))
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    face = DPExponentiatedGradientReduction(LogisticRegression(), "EqualizedOdds", drop_prot_attr=False, epsilon=1.0,
                                            accountant=exhausted, seed=0, **kwargs)
    with pytest.warns(PrivacyWarning, match=r"drop_prot_attr=False: the features hold\(s\) the sensitive "
                                            r"column\(s\) \[.*'race'.*\].*privacy_unit='sensitive_attribute'.*"
                                            r"drop_prot_attr=True.*privacy_unit='record'"), pytest.raises(BudgetError):
        face.fit(part)
    assert exhausted.spent_budget == [(1.0, 0.0)] and not hasattr(face, "model_")


@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")
@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning")
def test_the_notebooks_drop_prot_attr_false_fits_with_one_warning(demo):
    """The notebook runs unchanged but for ``epsilon``: one warning (the face's, not the engine's again)."""
    train, test = demo
    part = train.subset(np.arange(3000))
    with pytest.warns(PrivacyWarning) as record:
        face = DPExponentiatedGradientReduction(LogisticRegression(), "EqualizedOdds", drop_prot_attr=False,
                                                epsilon=1.0, accountant=BudgetAccountant(), seed=0).fit(part)
    assert len([w for w in record if "sensitive column" in str(w.message)]) == 1
    assert face.predict(test).labels.shape == test.labels.shape


@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")    # the record unit's Learner notice
@pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning")    # small groups: not this test's
def test_the_record_unit_fits_with_drop_prot_attr_false(demo):
    """Under ``privacy_unit="record"`` the whole row is private, so the notebook's ``drop_prot_attr=False`` fits: the
    model reads sex and race, the accountant is charged once."""
    train, test = demo
    part = train.subset(np.arange(3000))
    acc = BudgetAccountant()
    face = DPExponentiatedGradientReduction(LogisticRegression(), "EqualizedOdds", drop_prot_attr=False,
                                            privacy_unit="record", epsilon=1.0, accountant=acc, seed=0).fit(part)
    assert face.feature_names_ == list(part.feature_names) and {"sex", "race"} <= set(face.feature_names_)
    assert acc.spent_budget == [(1.0, 1e-7)] and face.model_.mode_ == "statistics"
    assert face.predict(test).labels.shape == test.labels.shape
