"""DPGerryFairClassifier (AIF360 face): AIF360's GerryFairClassifier surface, delegation, accounting, round trip."""

import logging

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms import Transformer
from aif360.algorithms.inprocessing import GerryFairClassifier
from aif360.algorithms.transformer import NotFittedError
from aif360.datasets import BinaryLabelDataset
from diffprivlib import BudgetAccountant

from aif360_dp.algorithms.inprocessing._dp_gerryfair import DPGerryFairClassifier
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.reductions._gerryfair import DPGerryFairClassifier as Engine

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the AIF360 face's
    # delegation, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
]

logging.getLogger().setLevel(logging.ERROR)


def dataset(n=200, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, (n, 2)).astype(float)
    x = rng.uniform(0, 1, (n, 2))
    logit = 3 * (x[:, 0] - 0.5) + 1.5 * a[:, 0] * (x[:, 1] - 0.3) - 0.8 * a[:, 1]
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    frame = pd.DataFrame({"race": a[:, 0], "sex": a[:, 1], "x1": x[:, 0], "x2": x[:, 1], "label": y})
    return BinaryLabelDataset(df=frame, label_names=["label"], protected_attribute_names=["race", "sex"],
                              favorable_label=1.0, unfavorable_label=0.0)


def make(**kwargs):
    params = {"max_iters": 4, "epsilon": 1.0, "accountant": BudgetAccountant(), "random_state": 0, "feature_norm_bound": 4.0,
                  "sensitive_norm_bound": 2.0}
    params.update(kwargs)
    return DPGerryFairClassifier(**params)


def test_round_trip_returns_a_labelled_copy_and_charges_once():
    data = dataset()
    acc = BudgetAccountant()
    model = make(accountant=acc)
    assert isinstance(model, Transformer) and model.classifiers is None
    out = model.fit(data).predict(data)
    assert acc.spent_budget == [(1.0, 0.0)] and model.privacy_spent_ == PrivacySpend(1.0)
    assert isinstance(model.model_, Engine) and model.model_.n_iter_ == 3
    assert len(model.classifiers) == len(model.errors) == len(model.fairness_violations) == 3
    assert out is not data and out.metadata["transformer"] == "DPGerryFairClassifier.predict"
    assert out.metadata["params"]["epsilon"] == 1.0
    assert set(np.unique(out.labels)) <= {0.0, 1.0} and out.labels.shape == data.labels.shape
    np.testing.assert_array_equal(out.features, data.features)
    np.testing.assert_array_equal(out.protected_attributes, data.protected_attributes)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):    # the engine saw named columns
        soft = model.model_.predict_proba(data.features)[:, 1]
    np.testing.assert_allclose(out.scores.ravel(), soft)
    np.testing.assert_array_equal(out.labels.ravel(), (soft >= 0.5).astype(float))
    np.testing.assert_array_equal(model.predict(data, threshold=0.7).labels.ravel(), (soft >= 0.7).astype(float))
    np.testing.assert_allclose(model.predict(data, threshold=None).labels.ravel(), soft)   # AIF360: soft labels
    # The Learner sees all features (protected attributes included, as AIF360), the Auditor both attributes.
    assert model.model_.n_features_in_ == 4
    assert model.model_.history_[0]["auditor_statistic"].shape == (3,)
    again = make().fit(data)
    np.testing.assert_array_equal(again.predict(data).labels, out.labels)                 # same seed, same fit


@pytest.mark.parametrize("fairness_def", ["FP", "FN"])
def test_infinite_epsilon_first_round_is_aif360s(fairness_def):
    """One round (max_iters=2): no multiplier yet, so the game is AIF360's exactly (see the engine's tests for all
    rounds against AIF360 with its update_costs index fixed)."""
    data = dataset(seed=2)
    ours = make(max_iters=2, fairness_def=fairness_def, epsilon=np.inf).fit(data)
    reference = GerryFairClassifier(max_iters=2, fairness_def=fairness_def).fit(data)
    np.testing.assert_array_equal(ours.predict(data).labels, reference.predict(data).labels)
    np.testing.assert_allclose(ours.errors, reference.errors, atol=1e-12)
    np.testing.assert_allclose(ours.fairness_violations, reference.fairness_violations, atol=1e-12)
    assert ours.privacy_spent_ == PrivacySpend(np.inf)


def test_early_termination_flag_reaches_the_engine():
    data = dataset()
    model = make(max_iters=8, epsilon=np.inf, gamma=1.0).fit(data, early_termination=True)
    assert model.model_.early_termination is True and model.model_.n_iter_ < 7
    assert make(max_iters=8, gamma=1.0).fit(data, early_termination=False).model_.n_iter_ == 7


def test_bad_input():
    data = dataset()
    with pytest.raises(NotFittedError, match="fitted"):
        make().predict(data)
    acc = BudgetAccountant()
    for params, match in (({"epsilon": 0}, "epsilon"), ({"delta": 1.5}, "delta"),
                          ({"fairness_def": "SP"}, "fairness_def"), ({"heatmapflag": True}, "heatmapflag")):
        with pytest.raises(ValueError, match=match):
            make(accountant=acc, **params).fit(data)
    coded = dataset()                               # binary for AIF360, but coded 1/2: GerryFair reads 0/1 labels
    coded.labels = coded.labels + 1.0
    with pytest.raises(ValueError, match="y must be binary"):
        make(accountant=acc).fit(coded)
    broken = dataset()
    broken.features[0, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        make(accountant=acc).fit(broken)
    assert acc.spent_budget == []
