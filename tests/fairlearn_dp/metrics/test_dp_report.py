"""DPReport: one release of the confusion tables of the compared models, read by frames and aggregates (issue 38.5)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    equalized_odds_difference,
    selection_rate,
    true_positive_rate,
)
from sklearn.metrics import accuracy_score

from fairlearn_dp.exceptions import PrivacyWarning
from fairlearn_dp.metrics import (
    DPMetricFrame,
    DPReport,
    dp_demographic_parity_difference,
    dp_equalized_odds_difference,
)

GROUPS = ["a", "b", "c"]
METRICS = {"accuracy": accuracy_score, "selection rate": selection_rate, "TPR": true_positive_rate}


@pytest.fixture
def data():
    """Fresh objects for every test: a second release over the same objects warns."""
    rng = np.random.default_rng(38)
    n = 1500
    y = rng.integers(0, 2, n)
    group = pd.Series(rng.choice(GROUPS, n), name="group")
    site = rng.choice(["north", "south"], n)
    models = {"first": np.where(rng.random(n) < 0.8, y, 1 - y), "second": np.where(rng.random(n) < 0.6, y, 1 - y)}
    return y, models, group, site


def test_one_charge_for_a_report_with_several_frames_and_aggregates(data):
    y, models, group, _ = data
    accountant = BudgetAccountant()
    report = DPReport(y, models, sensitive_features=group, epsilon=0.8, groups=GROUPS, accountant=accountant,
                      random_state=0)
    assert accountant.total() == (0.8, 0.0) and len(accountant) == 1
    assert report.privacy_spent_.epsilon == 0.8 and report.noise_scale_ == pytest.approx(2 * 2 / 0.8)
    frames = [report.metric_frame(METRICS, model=name, random_state=1, n_boot=10) for name in report.models_]
    frames.append(report.metric_frame(selection_rate, model="second", random_state=1, n_boot=10))
    values = [dp_demographic_parity_difference(y, models["first"], sensitive_features=group, release=report,
                                               n_boot=10),
              dp_equalized_odds_difference(y, "second", sensitive_features=None, release=report, n_boot=10)]
    assert accountant.total() == (0.8, 0.0) and len(accountant) == 1       # the views charged nothing
    assert all(frame.privacy_spent_.epsilon == 0 and frame.release_ is report for frame in frames)
    assert all(np.isfinite(values))
    # every view of one model reads the same released table
    np.testing.assert_array_equal(frames[1].released_counts_.to_numpy(), frames[2].released_counts_.to_numpy())
    np.testing.assert_array_equal(frames[0].noisy_counts_, report.noisy_counts_[0])


@pytest.mark.parametrize("model", ["first", "second"])
def test_every_view_equals_the_standalone_call_at_epsilon_inf(data, model):
    y, models, group, site = data
    report = DPReport(y, models, sensitive_features={"group": group}, control_features={"site": site},
                      epsilon=math.inf, groups=GROUPS, control_groups=["north", "south"])
    frame = report.metric_frame(METRICS, model=model, n_boot=None, ci_quantiles=None)
    exact = MetricFrame(metrics=METRICS, y_true=y, y_pred=models[model], sensitive_features={"group": group},
                        control_features={"site": site})
    # counts exact at epsilon = inf: the rates are ratios of the same integers (a few ulps apart at most)
    np.testing.assert_allclose(frame.by_group.to_numpy(float), exact.by_group.to_numpy(float), rtol=1e-12)
    np.testing.assert_allclose(frame.overall.to_numpy(float), exact.overall.to_numpy(float), rtol=1e-12)
    plain = DPReport(y, models, sensitive_features=group, epsilon=math.inf, groups=GROUPS)
    for dp, fairlearn in [(dp_demographic_parity_difference, demographic_parity_difference),
                          (dp_equalized_odds_difference, equalized_odds_difference)]:
        assert dp(y, models[model], sensitive_features=group, release=plain) == pytest.approx(
            fairlearn(y, models[model], sensitive_features=group), rel=1e-12, abs=1e-15)


def test_a_view_equals_a_standalone_frame_at_the_same_scale(data):
    """One model at epsilon: the view's table is the release itself, post-processed as a standalone frame's."""
    y, models, group, _ = data
    report = DPReport(y, models["first"], sensitive_features=group, epsilon=1.0, groups=GROUPS, random_state=3)
    with pytest.warns(PrivacyWarning, match="already released"):         # a second release of the same rows
        alone = DPMetricFrame(metrics=METRICS, y_true=y, y_pred=models["first"], sensitive_features=group,
                              epsilon=1.0, groups=GROUPS, random_state=3, n_boot=10)
    view = report.metric_frame(METRICS, n_boot=10)
    assert report.models_ == ["y_pred"] and view.noise_scale_ == alone.noise_scale_ == 2.0
    np.testing.assert_allclose(view.by_group.to_numpy(), alone.by_group.to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("change, message", [
    ({"y_true": "copy"}, "y_true is not the object"),
    ({"y_pred": "copy"}, "y_pred is not the object"),
    ({"sensitive_features": "copy"}, "sensitive_features is not the object"),
    ({"groups": GROUPS}, r"\['groups'\] belong to the release"),
    ({"epsilon": 0.5}, r"\['epsilon'\] belong to the release"),
    ({"accountant": "new"}, r"\['accountant'\] belong to the release"),
    ({"y_pred": "third"}, "model must be one of the report's models"),
])
def test_views_that_do_not_match_the_release_are_refused_before_reading(data, change, message):
    y, models, group, site = data
    accountant = BudgetAccountant()
    report = DPReport(y, models, sensitive_features=group, epsilon=1.0, groups=GROUPS, accountant=accountant,
                      random_state=0)
    copies = {"y_true": y.copy(), "y_pred": models["first"].copy(), "sensitive_features": group.copy()}
    replace = {"copy": lambda name: copies[name], "site": lambda name: site, "new": lambda name: BudgetAccountant()}
    arguments = {"y_true": y, "y_pred": models["first"], "sensitive_features": group, "release": report}
    arguments.update({k: replace[v](k) if isinstance(v, str) and v in replace else v for k, v in change.items()})
    with pytest.raises(ValueError, match=message):
        dp_demographic_parity_difference(**arguments)
    assert accountant.total() == (1.0, 0.0)


@pytest.mark.parametrize("name", ["labels", "weight_bound", "max_noise_error", "public_predictions"])
def test_a_view_refuses_the_former_keywords_by_name(data, name):
    """The options' fields given as keywords to a view: a TypeError naming them, as the constructor's (not a
    duplicate keyword of an internal method)."""
    y, models, group, _ = data
    report = DPReport(y, models, sensitive_features=group, epsilon=1.0, groups=GROUPS, accountant=BudgetAccountant(),
                      random_state=0)
    with pytest.raises(TypeError, match=rf"DPMetricFrame\(\) got unexpected keyword arguments \['{name}'\]"):
        dp_demographic_parity_difference(y, models["first"], sensitive_features=group, release=report,
                                         **{name: None})


def test_a_report_refuses_regression_metrics_and_weights(data):
    y, models, group, _ = data
    report = DPReport(y, models["first"], sensitive_features=group, epsilon=1.0, groups=GROUPS, random_state=0)
    with pytest.raises(ValueError, match="releases unweighted counts"):
        report.metric_frame(accuracy_score, sample_params={"sample_weight": np.ones(len(y))})
    with pytest.raises(TypeError, match="release must be a DPReport"):
        dp_demographic_parity_difference(y, models["first"], sensitive_features=group, release="report")
    with pytest.raises(TypeError, match="release"):          # a frame of a report is report.metric_frame(...)
        DPMetricFrame(metrics=accuracy_score, y_true=y, y_pred=models["first"], sensitive_features=group,
                      release=report)
    with pytest.raises(ValueError, match="model is required"):
        DPReport(y, models, sensitive_features=group, epsilon=math.inf, groups=GROUPS).metric_frame(accuracy_score)


def test_releasing_the_same_rows_again_warns(data):
    y, models, group, _ = data
    DPReport(y, models, sensitive_features=group, epsilon=1.0, groups=GROUPS, random_state=0)
    with pytest.warns(PrivacyWarning, match="already released by a DPReport"):
        DPReport(y, models["first"], sensitive_features={"group": group}, epsilon=1.0, groups=GROUPS,
                 random_state=0)
    with pytest.warns(PrivacyWarning, match="epsilons add up"):
        DPMetricFrame(metrics=accuracy_score, y_true=y, y_pred=models["first"], sensitive_features=group,
                      epsilon=1.0, groups=GROUPS, random_state=0, n_boot=10)
    # object identity only: other objects (a copy) are not recognised, and frames without a report do not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        DPReport(y.copy(), models, sensitive_features=group.copy(), epsilon=1.0, groups=GROUPS, random_state=0)
        other = y.copy()
        for _ in range(2):
            DPMetricFrame(metrics=accuracy_score, y_true=other, y_pred=models["first"], sensitive_features=group,
                          epsilon=1.0, groups=GROUPS, random_state=0, n_boot=10)


def test_multiclass_record_unit_views_equal_metric_frame_at_epsilon_inf():
    import functools

    from sklearn.metrics import f1_score

    rng = np.random.default_rng(5)
    animals = ["cat", "dog", "fish"]
    truth = rng.choice(animals, 900)
    guess = np.where(rng.random(900) < 0.7, truth, rng.choice(animals, 900))
    site = rng.choice(["n", "s"], 900)
    metrics = {"accuracy": accuracy_score, "macro F1": functools.partial(f1_score, average="macro")}
    report = DPReport(truth, {"guess": guess}, sensitive_features=site, labels=animals, groups=["n", "s"],
                      privacy_unit="record", epsilon=math.inf)
    view = report.metric_frame(metrics, n_boot=None, ci_quantiles=None)
    exact = MetricFrame(metrics=metrics, y_true=truth, y_pred=guess, sensitive_features=site)
    np.testing.assert_allclose(view.by_group.to_numpy(float), exact.by_group.to_numpy(float), rtol=1e-12)


@pytest.mark.parametrize("n_models", [1, 3])
def test_the_noise_is_calibrated_to_the_stacked_sensitivity(data, n_models):
    """L1 2M (Laplace 2M / epsilon) and L2 sqrt(2M) (the analytic Gaussian's sigma at that sensitivity)."""
    from fairlearn_dp.privacy._release import noise_scale

    y, models, group, _ = data
    predictions = {f"m{i}": models["first"] for i in range(n_models)}
    laplace = DPReport(y, predictions, sensitive_features=group, epsilon=0.5, groups=GROUPS, random_state=0)
    assert laplace.noise_scale_ == pytest.approx(2 * n_models / 0.5, rel=1e-12)
    with pytest.warns(PrivacyWarning):                               # the same rows again
        gaussian = DPReport(y, predictions, sensitive_features=group, epsilon=0.5, delta=1e-6, groups=GROUPS,
                            random_state=0)
    assert gaussian.noise_scale_ == pytest.approx(noise_scale(0.5, 1e-6, None, math.sqrt(2 * n_models)), rel=1e-12)
    assert laplace.noisy_counts_.shape == (n_models, 1, len(GROUPS), 4)
