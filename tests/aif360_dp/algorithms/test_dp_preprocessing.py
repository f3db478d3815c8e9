"""DPReweighing and DPDisparateImpactRemover (issue 40): AIF360's Reweighing and DisparateImpactRemover at
epsilon = inf, one release each otherwise (docs/privacy_analysis/preprocessing.md)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from aif360.algorithms import Transformer
from aif360.algorithms.preprocessing import Reweighing
from aif360.datasets import BinaryLabelDataset
from diffprivlib import BudgetAccountant

from aif360_dp.algorithms.preprocessing import DPDisparateImpactRemover, DPReweighing
from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.preprocessing._disparate_impact import (
    DPDisparateImpactRepairer,
    histogram_sensitivity,
    repair_targets,
)
from fairlearn_dp.preprocessing._reweighing import DPReweighingWeights, table_sensitivity, weights_from_table
from fairlearn_dp.privacy import PrivacySpend

WEIGHTS = ("w_p_fav", "w_p_unfav", "w_up_fav", "w_up_unfav")
SEX = ([{"sex": 0.0}], [{"sex": 1.0}])
RACE = ([{"race": 0.0}], [{"race": 1.0}])
# Groups that leave rows in neither (white women, non-white men): AIF360 counts them in the label marginals.
PARTIAL = ([{"sex": 0.0, "race": 0.0}], [{"sex": 1.0, "race": 1.0}])


def small_dataset(n=200, seed=0, x=None):
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.4).astype(float)
    y = (rng.random(n) < 0.3 + 0.3 * a).astype(float)
    x = rng.integers(0, 10, n) + 2.0 * a if x is None else x
    frame = pd.DataFrame({"a": a, "x": x.astype(float), "y": y})
    return BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"],
                              privileged_protected_attributes=[np.array([1.0])],
                              unprivileged_protected_attributes=[np.array([0.0])])


# ------------------------------------------------------------------------------------------------ reweighing
@pytest.mark.parametrize("groups", [SEX, RACE, PARTIAL], ids=["sex", "race", "neither-rows"])
def test_reweighing_at_infinite_epsilon_is_aif360s(aif360_adult, groups):
    unprivileged, privileged = groups
    reference = Reweighing(unprivileged, privileged).fit(aif360_adult)
    ours = DPReweighing(unprivileged, privileged, epsilon=math.inf, accountant=BudgetAccountant()).fit(aif360_adult)
    for name in WEIGHTS:                        # the same ratios of the same sums: equal within round-off
        assert getattr(ours, name) == pytest.approx(getattr(reference, name), rel=1e-12)
    np.testing.assert_allclose(ours.transform(aif360_adult).instance_weights,
                               reference.transform(aif360_adult).instance_weights, rtol=1e-12)
    assert isinstance(ours, Transformer) and ours.privacy_spent_ == PrivacySpend(math.inf, 0.0)


def test_reweighing_keeps_aif360s_total_weight_with_instance_weights():
    """AIF360's tests/test_reweighing.py (fnlwgt as instance weights; the total weight is kept), with the weights'
    public bound declared (fnlwgt < 1.5e6 in Adult)."""
    from aif360_dp.datasets import AdultDataset

    ad = AdultDataset(instance_weights_name="fnlwgt", features_to_drop=[])
    ours = DPReweighing([{"sex": 0}], [{"sex": 1}], epsilon=math.inf, weight_bound=1.5e6,
                        accountant=BudgetAccountant())
    transformed = ours.fit_transform(ad)
    assert np.isclose(ad.instance_weights.sum(), transformed.instance_weights.sum())
    reference = Reweighing([{"sex": 0}], [{"sex": 1}]).fit(ad)
    assert ours.w_up_fav == pytest.approx(reference.w_up_fav, rel=1e-12)


def test_reweighing_refuses_weights_without_their_bound_and_clips_them_to_it():
    data = small_dataset()
    data.instance_weights[0] = 2.0
    accountant = BudgetAccountant()
    with pytest.raises(ValueError, match="weight_bound"):
        DPReweighing([{"a": 0}], [{"a": 1}], accountant=accountant).fit(data)
    # A weight above the public bound is clipped to it, as any value beyond a public bound (the domain rule).
    clipped = data.copy(deepcopy=True)
    clipped.instance_weights[0] = 1.5
    over = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=math.inf, weight_bound=1.5, accountant=accountant).fit(data)
    at = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=math.inf, weight_bound=1.5, accountant=accountant).fit(clipped)
    assert (over.w_up_fav, over.w_up_unfav, over.w_p_fav, over.w_p_unfav) == pytest.approx(
        (at.w_up_fav, at.w_up_unfav, at.w_p_fav, at.w_p_unfav), rel=1e-12)


def test_reweighing_table_sensitivity_is_attained_and_never_exceeded():
    """Lemma 1: one substituted row moves the table by at most 2B in L1 and sqrt(2) B in L2, and the worst case
    (a row of weight B moved between two cells) attains both."""
    rng = np.random.default_rng(1)
    bound = 2.5
    l1, l2 = table_sensitivity(bound)
    groups, labels, weights = rng.integers(0, 3, 50), rng.integers(0, 2, 50), rng.uniform(0, bound, 50)

    def table(g, y, w):
        return DPReweighingWeights(epsilon=math.inf, n_groups=3, weight_bound=bound,
                                   accountant=BudgetAccountant()).fit(g, y, sample_weight=w).noisy_table_

    base = table(groups, labels, weights)
    for _ in range(50):
        i = rng.integers(50)
        g, y, w = groups.copy(), labels.copy(), weights.copy()
        g[i], y[i], w[i] = rng.integers(0, 3), rng.integers(0, 2), rng.uniform(0, bound)
        change = table(g, y, w) - base
        assert np.abs(change).sum() <= l1 + 1e-12 and np.sqrt((change ** 2).sum()) <= l2 + 1e-12
    g, y, w = groups.copy(), labels.copy(), weights.copy()
    g[0], y[0], w[0] = 0, 0, bound
    worst_d = table(g, y, w)
    g[0], y[0] = 1, 1
    change = table(g, y, w) - worst_d
    assert np.abs(change).sum() == pytest.approx(l1) and np.sqrt((change ** 2).sum()) == pytest.approx(l2)


def test_released_cells_at_or_below_zero_give_finite_positive_weights():
    weights, floored = weights_from_table([[10.0, -3.0], [0.0, 7.0]], floor=1.0)
    assert np.all(np.isfinite(weights)) and np.all(weights > 0)
    np.testing.assert_array_equal(floored, [[False, True], [True, False]])
    kept = np.array([[10.0, 1.0], [1.0, 7.0]])            # the floored table: marginals from it
    assert weights[0, 1] == pytest.approx(kept[0].sum() * kept[:, 1].sum() / (kept.sum() * 1.0))


def test_a_floored_cell_warns_and_the_neither_row_does_not():
    data = small_dataset(n=40)
    with pytest.warns(UtilityWarning, match="raised to it"):
        DPReweighing([{"a": 0}], [{"a": 1}], epsilon=0.01, seed=3, accountant=BudgetAccountant()).fit(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UtilityWarning)       # the empty "neither" row is floored, silently
        fitted = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=50.0, seed=0, accountant=BudgetAccountant()).fit(data)
    assert fitted.model_.floored_cells_[2].all() and not fitted.model_.floored_cells_[:2].any()


def test_reweighing_charges_once_and_is_reproducible_when_seeded():
    data = small_dataset()
    accountant = BudgetAccountant()
    first = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=0.5, delta=1e-6, seed=7, accountant=accountant).fit(data)
    assert accountant.spent_budget == [(0.5, 1e-6)] and first.privacy_spent_ == PrivacySpend(0.5, 1e-6)
    second = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=0.5, delta=1e-6, seed=7,
                          accountant=BudgetAccountant()).fit(data)
    np.testing.assert_array_equal(first.model_.noisy_table_, second.model_.noisy_table_)
    assert [getattr(first, w) for w in WEIGHTS] == [getattr(second, w) for w in WEIGHTS]


def test_a_failed_fit_leaves_the_reweigher_as_it_was():
    data = small_dataset()
    reweigher = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=1.0, seed=0, accountant=BudgetAccountant()).fit(data)
    before = (reweigher.w_p_fav, reweigher.model_)
    bad = data.copy(deepcopy=True)
    bad.labels[0] = 7.0
    with pytest.raises(ValueError, match="labels"):
        reweigher.fit(bad)
    assert (reweigher.w_p_fav, reweigher.model_) == before


# ---------------------------------------------------------------------------------- disparate-impact remover
def _bba_repair(data, column, repair_level):
    """AIF360's repair, BlackBoxAuditing's repairer called as AIF360's DisparateImpactRemover calls it."""
    from BlackBoxAuditing.repairers.GeneralRepairer import Repairer

    return np.array(Repairer(data.tolist(), column, repair_level, False).repair(data.tolist()), dtype=float)


@pytest.mark.parametrize("repair_level", [1.0, 0.0, 0.5, 0.3, 0.8])
@pytest.mark.parametrize("seed", range(4))
def test_repairer_at_infinite_epsilon_is_blackboxauditings(seed, repair_level):
    """With one integer value per bin (at its centre) the present bins are the distinct values: equal outputs."""
    pytest.importorskip("BlackBoxAuditing")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 400))
    a = (rng.random(n) < rng.uniform(0.3, 0.7)).astype(float)
    data = np.column_stack([rng.integers(0, 20, n) + 3.0 * a, a, rng.integers(-5, 5, n) * 2.0])
    reference = _bba_repair(data, 1, repair_level)
    repairer = DPDisparateImpactRepairer(repair_level=repair_level, feature_ranges=[(-0.5, 25.5), (-10.5, 9.5)],
                                         n_bins=[26, 20], epsilon=math.inf, accountant=BudgetAccountant())
    X = data[:, [0, 2]]
    np.testing.assert_allclose(repairer.fit(X, a.astype(int)).transform(X, a.astype(int)), reference[:, [0, 2]],
                               rtol=0, atol=1e-12)


# aif360_adult_numeric (tests/conftest.py) divides age and hours-per-week by 100 and education-num by 16: one value
# per bin at its centre with these public ranges; the rows are repaired by sex. race is a feature too (AIF360's remover repairs it as any other).
ADULT_RANGES = {"age": (0.165, 0.905), "education-num": (0.5 / 16, 16.5 / 16), "hours-per-week": (0.005, 0.995),
                "race": (-0.5, 1.5)}
ADULT_BINS = {"age": 74, "education-num": 16, "hours-per-week": 99, "race": 2}


@pytest.mark.parametrize("repair_level", [1.0, 0.7])
def test_remover_at_infinite_epsilon_is_aif360s_on_adult(aif360_adult_numeric, repair_level):
    pytest.importorskip("BlackBoxAuditing")
    from aif360.algorithms.preprocessing import DisparateImpactRemover

    reference = DisparateImpactRemover(repair_level=repair_level, sensitive_attribute="sex").fit_transform(
        aif360_adult_numeric)
    ours = DPDisparateImpactRemover(repair_level, "sex", epsilon=math.inf, feature_ranges=ADULT_RANGES,
                                    n_bins=ADULT_BINS, accountant=BudgetAccountant())
    repaired = ours.fit_transform(aif360_adult_numeric)
    np.testing.assert_allclose(repaired.features, reference.features, rtol=0, atol=1e-12)
    assert isinstance(ours, Transformer) and ours.privacy_spent_ == PrivacySpend(math.inf, 0.0)


def test_remover_repair_level_zero_is_the_identity(aif360_adult_numeric):
    """AIF360's test_repair0 (``ad_repd == ad``), at a finite epsilon too: no value moves."""
    for epsilon in (math.inf, 1.0):
        remover = DPDisparateImpactRemover(0.0, "sex", epsilon=epsilon, feature_ranges=ADULT_RANGES,
                                           n_bins=ADULT_BINS, seed=0, accountant=BudgetAccountant())
        assert remover.fit_transform(aif360_adult_numeric) == aif360_adult_numeric


def test_histogram_sensitivity_is_attained_and_never_exceeded():
    """Lemma 2: one substituted row moves the d histograms by at most 2d in L1 and sqrt(2d) in L2; a row that
    changes group (and bin) in every feature attains both."""
    rng = np.random.default_rng(2)
    d, n = 3, 60
    l1, l2 = histogram_sensitivity(d)
    X, groups = rng.uniform(0, 1, (n, d)), rng.integers(0, 2, n)

    def release(X, groups):
        model = DPDisparateImpactRepairer(feature_ranges=[(0.0, 1.0)] * d, n_bins=5, epsilon=math.inf,
                                          accountant=BudgetAccountant()).fit(X, groups)
        return np.concatenate([h.ravel() for h in model.noisy_histograms_])

    base = release(X, groups)
    for _ in range(30):
        i = rng.integers(n)
        X2, g2 = X.copy(), groups.copy()
        X2[i], g2[i] = rng.uniform(-1, 2, d), rng.integers(0, 2)          # outside the range: clipped
        change = release(X2, g2) - base
        assert np.abs(change).sum() <= l1 and np.sqrt((change ** 2).sum()) <= l2 + 1e-12
    X2, g2 = X.copy(), groups.copy()
    X2[0], g2[0] = np.where(X[0] < 0.5, 0.9, 0.1), 1 - groups[0]
    change = release(X2, g2) - base
    assert np.abs(change).sum() == l1 and np.sqrt((change ** 2).sum()) == pytest.approx(l2)


def test_remover_charges_once_and_seeded_fits_are_reproducible(aif360_adult_numeric):
    accountant = BudgetAccountant()
    params = {"sensitive_attribute": "sex", "epsilon": 1.0, "feature_ranges": ADULT_RANGES, "n_bins": ADULT_BINS,
              "seed": 4}
    first = DPDisparateImpactRemover(accountant=accountant, **params).fit(aif360_adult_numeric)
    assert accountant.spent_budget == [(1.0, 0.0)] and first.privacy_spent_ == PrivacySpend(1.0, 0.0)
    second = DPDisparateImpactRemover(accountant=BudgetAccountant(), **params).fit(aif360_adult_numeric)
    for mine, theirs in zip(first.model_.noisy_histograms_, second.model_.noisy_histograms_, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    # The default threshold: 0.5 plus half a noise standard deviation of Laplace(2d / epsilon), d = 4.
    assert first.model_.min_count_ == pytest.approx(0.5 + 0.5 * math.sqrt(2) * 8.0)


def test_remover_refuses_undeclared_features_and_values_without_quoting_them():
    data = small_dataset()
    with pytest.raises(ValueError, match=r"feature_ranges must have one entry per feature.*missing \['x'\]"):
        DPDisparateImpactRemover(feature_ranges={"z": (0, 1)}, accountant=BudgetAccountant()).fit(data)
    bad = data.copy(deepcopy=True)
    bad.protected_attributes[0, 0] = 5.0
    with pytest.raises(ValueError, match="outside its declared") as error:
        DPDisparateImpactRemover(feature_ranges={"x": (0, 12)}, accountant=BudgetAccountant()).fit(bad)
    assert "5" not in str(error.value)


@pytest.mark.parametrize("bad", [5, None])
def test_remover_refuses_a_range_that_is_not_a_pair_by_name_before_the_budget(bad):
    accountant = BudgetAccountant(epsilon=0.1)                  # cannot pay epsilon = 1: the check comes first
    with pytest.raises(ValueError, match="feature_ranges must hold"):
        DPDisparateImpactRemover(feature_ranges={"x": bad}, accountant=accountant).fit(small_dataset())
    assert accountant.spent_budget == []


def test_a_group_without_released_bins_keeps_its_values_and_warns():
    x = np.arange(200) % 10 * 1.0
    data = small_dataset(x=x)
    data.protected_attributes[:, 0] = 0.0            # group 1 (privileged) declared but empty
    data.features[:, data.feature_names.index("a")] = 0.0
    remover = DPDisparateImpactRemover(feature_ranges={"x": (-0.5, 9.5)}, n_bins=10, epsilon=math.inf,
                                       accountant=BudgetAccountant())
    with pytest.warns(UtilityWarning, match="no released bin"):
        repaired = remover.fit_transform(data)
    # One group: each chunk of its own distinct values goes to the chunk's median, i.e. each value stays.
    np.testing.assert_array_equal(repaired.features, data.features)


def test_transform_refuses_other_features():
    data = small_dataset()
    remover = DPDisparateImpactRemover(feature_ranges={"x": (0, 12)}, seed=0, accountant=BudgetAccountant()).fit(data)
    other = small_dataset()
    other.feature_names = ["a", "z"]
    with pytest.raises(ValueError):
        remover.transform(other)


def test_remover_with_delta_releases_gaussian_noise_and_charges_once(aif360_adult_numeric):
    accountant = BudgetAccountant()
    remover = DPDisparateImpactRemover(0.5, "sex", epsilon=1.0, delta=1e-6, feature_ranges=ADULT_RANGES,
                                       n_bins=ADULT_BINS, seed=1, accountant=accountant)
    repaired = remover.fit_transform(aif360_adult_numeric)
    assert accountant.spent_budget == [(1.0, 1e-6)] and remover.privacy_spent_ == PrivacySpend(1.0, 1e-6)
    assert repaired.features.shape == aif360_adult_numeric.features.shape
    assert np.all(np.isfinite(repaired.features))


def test_repair_targets_of_a_release_with_one_present_bin_per_group():
    present = np.zeros((2, 5), dtype=bool)
    present[0, 1] = present[1, 3] = True
    targets = repair_targets(present)                # one chunk: both groups go to the lower median, bin 1
    assert np.all(targets == 1)
    assert np.array_equal(repair_targets(np.zeros((2, 5), dtype=bool)), np.tile(np.arange(5), (2, 1)))
