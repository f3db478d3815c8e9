"""DPGerryFairClassifier (AIF360 face) at epsilon=inf is AIF360's GerryFairClassifier round for round: on the data of
AIF360's examples/demo_gerryfair.ipynb, both classes run in the same test give the same errors and fairness
violations in every round and the same soft predictions, up to round-off. The Lagrangian update (each audited row
its own subgroup cost, the private algorithm's) is a different trajectory, so the comparison can fail."""

import logging
import warnings

import numpy as np
import pytest
from aif360.algorithms.inprocessing import GerryFairClassifier
from diffprivlib import BudgetAccountant

from aif360_dp.algorithms.inprocessing import DPGerryFairClassifier
from aif360_dp.datasets import AdultDataset
from fairlearn_dp.exceptions import UtilityWarning

logging.getLogger().setLevel(logging.ERROR)

# Round-off bound. The errors, violations and soft predictions are averages of n = 1,000 terms built from t running
# means of 0/1 plays (t <= 499): each running-mean update adds at most a few ulps (2.2e-16 relative, values <= 1),
# so every quantity is within about t * 4.4e-16 <= 2.2e-13 of the other class's. A different play in any round
# changes that round's error by at least 1 / (n t) >= 2e-6 and every later one too: 1e-12 separates the two.
ATOL = 1e-12


def _demo_data():
    """The notebook's ``load_preproc_data_adult(sub_samp=1000, balance=True)`` (AIF360's loader, unchanged, over
    aif360_dp's ``AdultDataset``, which reads the bundled Adult files), its random sample drawn after
    ``np.random.seed(0)``; numpy's global generator is restored afterwards."""
    from aif360.algorithms.preprocessing.optim_preproc_helpers import data_preproc_functions

    state = np.random.get_state()
    try:
        np.random.seed(0)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(data_preproc_functions, "AdultDataset", AdultDataset)
            data = data_preproc_functions.load_preproc_data_adult(sub_samp=1000, balance=True)
    finally:
        np.random.set_state(state)
    assert data.features.shape == (1000, 18) and data.protected_attribute_names == ["sex", "race"]
    return data


def _both(data, max_iters, fairness_def, **ours):
    """AIF360's class and ours at epsilon=inf with the notebook's arguments (C=100, gamma=0.005)."""
    params = {"C": 100, "printflag": False, "gamma": 0.005, "fairness_def": fairness_def, "max_iters": max_iters,
                  "heatmapflag": False}
    reference = GerryFairClassifier(**params).fit(data, early_termination=True)
    model = DPGerryFairClassifier(**params, epsilon=np.inf, accountant=BudgetAccountant(), **ours).fit(
        data, early_termination=True)
    return reference, model


def _assert_same_iterates(reference, model, data):
    assert len(model.errors) == len(reference.errors) == len(model.classifiers)
    np.testing.assert_allclose(model.errors, reference.errors, rtol=0, atol=ATOL)
    np.testing.assert_allclose(model.fairness_violations, reference.fairness_violations, rtol=0, atol=ATOL)
    soft = model.predict(data, threshold=None).labels
    np.testing.assert_allclose(soft, reference.predict(data, threshold=None).labels, rtol=0, atol=ATOL)


@pytest.fixture(scope="module")
def demo():
    return _demo_data()


@pytest.mark.parametrize("fairness_def", ["FP", "FN"])
def test_short_demo_follows_aif360s_iterates(demo, fairness_def):
    """max_iters=10 (nine rounds, the issue's "iteration 9"): AIF360's errors and violations in every round."""
    reference, model = _both(demo, 10, fairness_def)
    assert model.model_.cost_update == "aif360"
    _assert_same_iterates(reference, model, demo)
    # The private algorithm's update at epsilon=inf is another game from round 2 on (the first is AIF360's).
    _, lagrangian = _both(demo, 10, fairness_def, cost_update="lagrangian")
    assert lagrangian.errors[0] == pytest.approx(reference.errors[0], abs=ATOL)
    assert max(abs(a - b) for a, b in zip(lagrangian.errors, reference.errors, strict=False)) > 0.01


def test_unscaled_features_follow_aif360s_iterates_at_epsilon_inf(demo):
    """Features (protected attributes among them) times 100, as a user's raw data: at epsilon=inf nothing is
    private, so no row is scaled onto a norm ball (the default bound, every entry in [-1, 1], would scale all of
    them) and the fit is AIF360's on those features. Same round-off bound: every quantity compared is an average
    of 0/1 plays, whatever the scale of the features."""
    scaled = demo.copy(deepcopy=True)
    scaled.features = scaled.features * 100.0
    scaled.protected_attributes = scaled.protected_attributes * 100.0
    assert np.abs(scaled.features).sum(axis=1).max() > scaled.features.shape[1]     # the default bound would clip
    reference, model = _both(scaled, 10, "FP")
    _assert_same_iterates(reference, model, scaled)
    assert model.model_.feature_norm_bound_ == np.inf and model.model_.sensitive_norm_bound_ == np.inf


@pytest.mark.slow
def test_notebook_fit_follows_aif360s_iterates(demo):
    """The notebook's own fit, max_iterations=500: 499 rounds, the same trajectory to round-off."""
    reference, model = _both(demo, 500, "FP")
    assert len(reference.errors) == 499
    _assert_same_iterates(reference, model, demo)


def test_aif360s_update_is_refused_at_finite_epsilon_before_the_budget(demo):
    exhausted = BudgetAccountant(epsilon=1.0)
    exhausted.spend(1.0, 0.0)
    for model in (DPGerryFairClassifier(max_iters=3, epsilon=1.0, cost_update="aif360", accountant=exhausted),
                  DPGerryFairClassifier(max_iters=3, epsilon=1.0, cost_update="nope", accountant=exhausted)):
        with pytest.raises(ValueError, match="cost_update"):
            model.fit(demo)
        with pytest.raises(ValueError, match="cost_update"):
            model.pareto(demo, [0.1])
    assert exhausted.spent_budget == [(1.0, 0.0)]
    private = DPGerryFairClassifier(max_iters=3, epsilon=1.0, accountant=BudgetAccountant(), random_state=0,
                                    feature_norm_bound=4.0, sensitive_norm_bound=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)        # 1,000 rows at epsilon=1 may be worse than constant
        private.fit(demo)
    assert private.model_.cost_update == "lagrangian"
