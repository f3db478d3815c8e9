"""AIF360 face of DPExponentiatedGradient: a Transformer that delegates to the engine, matching AIF360's
ExponentiatedGradientReduction surface."""

import math

import numpy as np
import pytest
from aif360.algorithms import Transformer
from aif360.algorithms.inprocessing import ExponentiatedGradientReduction
from diffprivlib import BudgetAccountant
from fairlearn.reductions import EqualizedOdds
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from aif360_dp._glue import joint_declared_groups, predict_seed, protected_frame
from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction
from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the AIF360 face's
    # delegation, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]


def test_fit_predict_delegates_to_the_engine_with_the_same_seed(aif360_adult_numeric):
    acc = BudgetAccountant()
    face = DPExponentiatedGradientReduction(constraints="EqualizedOdds", difference_bound=0.05, epsilon=5.0,
                                            max_iter=40, accountant=acc, seed=3)
    assert isinstance(face, Transformer)
    out = face.fit(aif360_adult_numeric).predict(aif360_adult_numeric)
    assert out is not aif360_adult_numeric and out.labels.shape == aif360_adult_numeric.labels.shape
    assert set(np.unique(out.labels)) <= {aif360_adult_numeric.favorable_label, aif360_adult_numeric.unfavorable_label}
    assert face.feature_names_ == ["age", "education-num", "hours-per-week"]      # protected attributes dropped
    assert len(acc.spent_budget) == 1 and face.privacy_spent_.epsilon == 5.0 and face.model_.mode_ == "statistics"

    assert face.protected_attribute_names_ == ["race", "sex"]                    # all of them, as AIF360
    X = aif360_adult_numeric.features[:, [aif360_adult_numeric.feature_names.index(name) for name in face.feature_names_]]
    y = (aif360_adult_numeric.labels.ravel() == aif360_adult_numeric.favorable_label).astype(int)
    engine = DPExponentiatedGradient(None, EqualizedOdds(difference_bound=0.05), epsilon=5.0, max_iter=40,
                                     groups=joint_declared_groups(aif360_adult_numeric, ["race", "sex"]),
                                     accountant=BudgetAccountant(), random_state=3).fit(
        X, y, sensitive_features=protected_frame(aif360_adult_numeric, ["race", "sex"]))
    assert engine.groups == ["1.0,1.0", "1.0,0.0", "0.0,1.0", "0.0,0.0"]
    np.testing.assert_allclose(out.scores.ravel(), engine._pmf_predict(X)[:, 1])
    expected = np.where(engine.predict(X, random_state=predict_seed(3)) == 1, aif360_adult_numeric.favorable_label,
                        aif360_adult_numeric.unfavorable_label)
    np.testing.assert_array_equal(out.labels.ravel(), expected)


def test_predict_does_not_need_the_protected_attribute(aif360_adult_numeric):
    face = DPExponentiatedGradientReduction(epsilon=5.0, max_iter=10, accountant=BudgetAccountant(), seed=0).fit(aif360_adult_numeric)
    scrambled = aif360_adult_numeric.copy(deepcopy=True)
    scrambled.features[:, scrambled.feature_names.index("race")] = 0.0
    scrambled.protected_attributes[:] = 0.0
    np.testing.assert_allclose(face.predict(scrambled).scores, face.predict(aif360_adult_numeric).scores)


# AIF360's own ExponentiatedGradientReduction, run next to ours, passes its labels to scikit-learn's LabelEncoder as
# a column (scikit-learn's DataConversionWarning, from AIF360's call).
@pytest.mark.filterwarnings("ignore:A column-vector y was passed:sklearn.exceptions.DataConversionWarning")
def test_epsilon_inf_with_the_estimator_oracle_is_aif360s(aif360_adult_numeric):
    """AIF360's reduction is Fairlearn's, and so is the engine's at epsilon=inf with an estimator (same eps, rounds,
    LP step), both grouping by every protected attribute (race x sex here): the same randomized classifier. Same
    code on the same inputs in one process: 1e-9 is the issue's bound, met with room (the measured gap is 0)."""
    with threadpool_limits(limits=1):
        reference = ExponentiatedGradientReduction(LogisticRegression(), EqualizedOdds(difference_bound=0.05), eps=0.1,
                                                   drop_prot_attr=True)
        ref_out = reference.fit(aif360_adult_numeric).predict(aif360_adult_numeric)
        face = DPExponentiatedGradientReduction(LogisticRegression(), "EqualizedOdds", difference_bound=0.05,
                                                eps=0.1, epsilon=math.inf, accountant=BudgetAccountant(),
                                                seed=0).fit(aif360_adult_numeric)
    assert face.model_.oracle_ == "estimator" and face.model_.eps == 0.1
    assert face.model_.last_iter_ < 50
    assert len(face.model_.predictors_) == len(reference.model.model_.predictors_)
    np.testing.assert_allclose(face.predict(aif360_adult_numeric).scores.ravel(), ref_out.scores.ravel(), rtol=0,
                               atol=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    ({"constraints": "BoundedGroupLoss"}, "constraints"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"options": StatisticsGameOptions(oracle="regression")}, "options.oracle"),
    ({"protected_attribute_name": "age"}, "protected_attribute_name"),
    ({"eps": 0.0}, "eps"),
    ({"nu": 0.01}, "nu"),
    ({"eta0": -1.0}, "eta0"),
])
def test_bad_input(aif360_adult_numeric, kwargs, match):
    params = {"epsilon": 1.0, "accountant": BudgetAccountant(), "seed": 0}
    params.update(kwargs)
    with pytest.raises((ValueError, TypeError), match=match):
        DPExponentiatedGradientReduction(**params).fit(aif360_adult_numeric)


def test_predict_before_fit_and_non_binary_dataset(aif360_adult_numeric):
    from aif360.algorithms.transformer import NotFittedError

    with pytest.raises(NotFittedError):
        DPExponentiatedGradientReduction().predict(aif360_adult_numeric)
    with pytest.raises(TypeError, match="BinaryLabelDataset"):
        DPExponentiatedGradientReduction().fit(object())


def test_the_estimator_is_the_learner_of_the_statistics_game(aif360_adult_numeric):
    """AIF360's first argument is used at a finite epsilon (the statistics game): the same fit as the engine's."""
    acc = BudgetAccountant()
    face = DPExponentiatedGradientReduction(LogisticRegression(), "DemographicParity", difference_bound=0.05,
                                            epsilon=1.0, delta=1e-5, max_iter=8, accountant=acc, seed=4)
    out = face.fit(aif360_adult_numeric).predict(aif360_adult_numeric)
    assert face.model_.mode_ == "statistics" and face.model_.oracle_ == "weighted_estimator"
    assert all(isinstance(h, LogisticRegression) for h in face.model_.predictors_ if hasattr(h, "coef_"))
    assert acc.spent_budget == [(1.0, 1e-5)]
    columns = [aif360_adult_numeric.feature_names.index(name) for name in face.feature_names_]
    X = aif360_adult_numeric.features[:, columns]
    y = (aif360_adult_numeric.labels.ravel() == aif360_adult_numeric.favorable_label).astype(int)
    from fairlearn.reductions import DemographicParity

    engine = DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05), epsilon=1.0,
                                     delta=1e-5, max_iter=8,
                                     groups=joint_declared_groups(aif360_adult_numeric, ["race", "sex"]),
                                     accountant=BudgetAccountant(), random_state=4).fit(
        X, y, sensitive_features=protected_frame(aif360_adult_numeric, ["race", "sex"]))
    np.testing.assert_allclose(out.scores.ravel(), engine._pmf_predict(X)[:, 1])
