"""Empirical privacy audit: exact binomial bounds, the epsilon lower bound, and an audit of every registry row."""

import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from scipy.stats import binomtest

from fairdp_adapters import registry
from fairlearn_dp.audit import (
    AuditResult,
    audit,
    audit_registered,
    clopper_pearson,
    default_audit_case,
    epsilon_lower_bound,
)
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import PrivacySpend, noisy_vector
from fairlearn_dp.reductions import ZCDPLedger
from fairlearn_dp.reductions import _exponential_mechanism_classifier as exponential_mechanism_module
from fairlearn_dp.reductions import _exponentiated_gradient as exponentiated_gradient_module
from fairlearn_dp.reductions import _gerryfair as gerryfair_module
from fairlearn_dp.reductions import _group_budget as group_budget_module


# ------------------------------------------------------------------------------------------ Clopper-Pearson
@pytest.mark.parametrize("k, n, expected", [
    (5, 10, (0.187086, 0.812914)),      # classical tables
    (0, 10, (0.0, 0.308498)),           # 1 - 0.025 ** (1 / 10)
    (10, 10, (0.691502, 1.0)),
    (1, 20, (0.001265, 0.248732)),
])
def test_clopper_pearson_known_values(k, n, expected):
    np.testing.assert_allclose(clopper_pearson(k, n, 0.05), expected, atol=1e-6)


@pytest.mark.parametrize("k, n", [(0, 7), (3, 7), (7, 7), (123, 1000), (999, 1000)])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.3])
def test_clopper_pearson_matches_scipy_exact_intervals(k, n, alpha):
    result = binomtest(k, n)
    two_sided = result.proportion_ci(1 - alpha, method="exact")
    np.testing.assert_allclose(clopper_pearson(k, n, alpha), (two_sided.low, two_sided.high), atol=1e-10)
    greater = binomtest(k, n, alternative="greater").proportion_ci(1 - alpha, method="exact")
    less = binomtest(k, n, alternative="less").proportion_ci(1 - alpha, method="exact")
    np.testing.assert_allclose(clopper_pearson(k, n, alpha, alternative="greater"), (greater.low, 1.0), atol=1e-10)
    np.testing.assert_allclose(clopper_pearson(k, n, alpha, alternative="less"), (0.0, less.high), atol=1e-10)
    assert clopper_pearson(0, 10, 0.05, alternative="less")[1] == pytest.approx(1 - 0.05 ** 0.1)


@pytest.mark.parametrize("args, match", [((11, 10, 0.05), "k must"), ((1, 0, 0.05), "n must"),
                                         ((1, 10, 1.0), "alpha"), ((1.5, 10, 0.05), "k must")])
def test_clopper_pearson_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        clopper_pearson(*args)
    with pytest.raises(ValueError, match="alternative"):
        clopper_pearson(1, 10, 0.05, alternative="upper")


# ------------------------------------------------------------------------------------------ the lower bound
def test_epsilon_lower_bound_formula_and_symmetry():
    n = 10_000
    p_low, _ = clopper_pearson(5000, n, 0.025)
    _, q_high = clopper_pearson(1000, n, 0.025)
    expected = math.log(p_low / q_high)
    assert epsilon_lower_bound(5000, 1000, n) == pytest.approx(expected)
    assert epsilon_lower_bound(1000, 5000, n) == pytest.approx(expected)     # either direction
    assert epsilon_lower_bound(5000, 1000, n, delta=0.1) == pytest.approx(math.log((p_low - 0.1) / q_high))
    assert epsilon_lower_bound(5000, 1000, n, confidence=0.5) > expected > epsilon_lower_bound(
        5000, 1000, n, confidence=0.999)
    assert epsilon_lower_bound(500, 500, 1000) == 0.0                      # no evidence: 0, never negative
    assert epsilon_lower_bound(0, 0, 1000) == 0.0
    assert epsilon_lower_bound(10, 0, 10, delta=0.9) == 0.0                # delta swallows everything
    with pytest.raises(ValueError, match="hits_d_prime"):
        epsilon_lower_bound(1, 11, 10)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(1, 1, 10, delta=1.0)


def _laplace_bound(l1_sensitivity, n_runs=20_000, seed=0):
    """Neighbouring 1-cell statistics 1 (D) and 0 (D'), epsilon = 1; event: release >= 1 (D's true value), the
    optimal event for the Laplace mechanism (likelihood ratio e^epsilon on all of it, probability 1/2 on D)."""
    on_d = noisy_vector(np.ones(n_runs), epsilon=1.0, l1_sensitivity=l1_sensitivity, random_state=seed)
    on_d_prime = noisy_vector(np.zeros(n_runs), epsilon=1.0, l1_sensitivity=l1_sensitivity, random_state=seed + 1)
    return epsilon_lower_bound(int(np.sum(on_d >= 1.0)), int(np.sum(on_d_prime >= 1.0)), n_runs)


def test_lower_bound_of_a_correct_laplace_release_stays_below_epsilon():
    bound = _laplace_bound(l1_sensitivity=1.0)
    assert 0.85 < bound <= 1.0          # the event is powerful: the bound nearly reaches the true epsilon


def test_lower_bound_detects_a_half_scale_laplace_release():
    assert _laplace_bound(l1_sensitivity=0.5) > 1.5      # the true epsilon is 2


# ----------------------------------------------------------------------------- a broken estimator is caught
class _HalfScaleFairRegression(DPFairRegressionPostprocessor):
    """BROKEN on purpose: releases the joint PMF with half the Laplace scale it claims (sensitivity 1/n, not 2/n)."""

    def _release_joint_histogram(self, bin_index, group_index, *, n_groups, n_bins, epsilon, delta):
        counts = np.zeros((n_groups, n_bins))
        np.add.at(counts, (group_index, bin_index), 1.0)
        n = bin_index.size
        noisy = noisy_vector(counts / n, epsilon=epsilon, l1_sensitivity=1.0 / n, random_state=self.random_state)
        return noisy, PrivacySpend(epsilon, delta)


def _half_scale_factory(seed):
    return _HalfScaleFairRegression(epsilon=1.0, bounds=(0.0, 1.0), n_bins=4, groups=[0, 1],
                                    accountant=BudgetAccountant(), random_state=seed)


def test_audit_detects_a_broken_estimator():
    case = default_audit_case("DPFairRegressionPostprocessor")
    result = audit(_half_scale_factory, case.dataset, case.neighbour, event=case.event, n_runs=1000,
                   declared_epsilon=1.0, random_state=1)
    assert not result.passed and result.epsilon_lower_bound > 1.0


class _TwentiethSensitivityLedger(ZCDPLedger):
    """BROKEN on purpose: calibrates every Gaussian release to a twentieth of its L2 sensitivity (noise 20 times too
    small) while recording the same zCDP cost, so the estimator still reports the declared (epsilon, delta)."""

    def release(self, values, *, l2_sensitivity, **kwargs):
        return super().release(values, l2_sensitivity=l2_sensitivity / 20, **kwargs)


def test_audit_detects_a_gaussian_release_with_too_little_noise(monkeypatch):
    case = default_audit_case("DPGroupBudgetRegressor")
    monkeypatch.setattr(group_budget_module, "ZCDPLedger", _TwentiethSensitivityLedger)
    assert case.factory(0).fit(**case.dataset).privacy_spent_.epsilon == pytest.approx(case.declared_epsilon)
    result = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=200,
                   declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, random_state=1)
    assert not result.passed and result.epsilon_lower_bound > 1.5


class _TwentiethScaleReleaser(gerryfair_module._Releaser):
    """BROKEN on purpose: every DPGerryFairClassifier release draws Laplace noise of a twentieth of its declared scale
    (the history still records the declared scale and the fit still charges the declared budget)."""

    def mechanism(self, sensitivity):
        return super().mechanism(sensitivity / 20)


@pytest.mark.parametrize("name", ["DPGerryFairClassifier", "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier"])
def test_audit_detects_a_gerryfair_release_with_too_little_noise(monkeypatch, name):
    case = default_audit_case(name)
    monkeypatch.setattr(gerryfair_module, "_Releaser", _TwentiethScaleReleaser)
    fitted = case.factory(0).fit(**case.dataset)
    model = getattr(fitted, "model_", fitted)
    assert model.per_release_spend_.epsilon == pytest.approx(case.declared_epsilon)
    assert model.history_[0]["error_noise_scale"] == pytest.approx(1.0)              # declared, not drawn
    result = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=200,
                   declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, random_state=1)
    assert not result.passed and result.epsilon_lower_bound > 2.0


def test_audit_detects_an_exponential_mechanism_with_too_little_noise(monkeypatch):
    """BROKEN on purpose: the learner draws its hypothesis at a twentieth of the declared sensitivity."""
    case = default_audit_case("ExponentialMechanismFairClassifier")
    honest = exponential_mechanism_module.exponential_mechanism

    def sharp(costs, *, epsilon, sensitivity, random_state=None):
        return honest(costs, epsilon=epsilon, sensitivity=sensitivity / 20, random_state=random_state)

    monkeypatch.setattr(exponential_mechanism_module, "exponential_mechanism", sharp)
    result = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=200,
                   declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, random_state=1)
    # The event keeps probability 1/2 on D whatever the scale (equal losses), and nearly 0 on D'.
    assert 0.35 < result.hits[0] / 200 < 0.65
    assert not result.passed and result.epsilon_lower_bound > 2.0


@pytest.mark.slow
def test_audit_detects_an_exponentiated_gradient_auditor_with_too_little_noise(monkeypatch):
    """BROKEN on purpose: the Auditor's violation vector gets a twentieth of its declared Laplace scale. The event has
    probability 1/16 on D, so it takes ~1000 runs (~15 s) to exceed epsilon = 1."""
    case = default_audit_case("DPExponentiatedGradient")
    honest = exponentiated_gradient_module.noisy_vector

    def sharp(values, *, epsilon, l1_sensitivity, random_state=None):
        return honest(values, epsilon=epsilon, l1_sensitivity=l1_sensitivity / 20, random_state=random_state)

    monkeypatch.setattr(exponentiated_gradient_module, "noisy_vector", sharp)
    result = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=1000,
                   declared_epsilon=case.declared_epsilon, declared_delta=case.declared_delta, random_state=1)
    assert result.hits[1] == 0 and not result.passed and result.epsilon_lower_bound > 1.5


@pytest.mark.parametrize("name, shares, declared", [
    ("DPExponentiatedGradient", 2, "epsilon_per_mechanism_"),
    ("DPExponentiatedGradientReduction", 2, "model_.epsilon_per_mechanism_"),
    ("ExponentialMechanismFairClassifier", 2, "exponential_mechanism_epsilon_"),
    ("DPGerryFairClassifier", 6, "per_release_spend_.epsilon"),
    ("aif360_dp.algorithms.inprocessing.DPGerryFairClassifier", 6, "model_.per_release_spend_.epsilon"),
])
def test_single_release_cases_declare_the_audited_release_budget(name, shares, declared):
    """The in-processing cases give the estimator ``shares x epsilon`` and audit the one release that gets
    ``epsilon`` against the value the fitted object declares for it; the case objects can go to joblib workers."""
    import pickle

    from fairlearn_dp.audit._events import _attribute

    case = default_audit_case(name, epsilon=0.5)
    estimator = case.factory(3)
    assert estimator.epsilon == pytest.approx(shares * 0.5) and estimator.accountant is not case.factory(3).accountant
    fitted = case.factory(3).fit(**case.dataset)
    assert case.declared_epsilon == pytest.approx(0.5) == _attribute(fitted, declared)
    assert fitted.privacy_spent_.epsilon == pytest.approx(shares * 0.5)
    assert pickle.loads(pickle.dumps(case.event)).description == case.event.description
    assert pickle.loads(pickle.dumps(case.factory))(3).epsilon == estimator.epsilon
    first = audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=10, declared_epsilon=0.5,
                  random_state=5)
    assert first == audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=10,
                          declared_epsilon=0.5, random_state=5, n_jobs=1)


def test_exponential_mechanism_case_needs_an_even_n():
    with pytest.raises(ValueError, match="even n >= 12"):
        default_audit_case("ExponentialMechanismFairClassifier", n=41)
    assert default_audit_case("ExponentialMechanismFairClassifier", n=100).event.expected_probabilities[0] == 0.5


# ------------------------------------------------------------------------------------ every registry row
# Fit costs differ (the threshold optimizers solve an LP per fit; the zCDP estimators calibrate diffprivlib's
# analytic Gaussian per fit, ~4 ms; the DP exponentiated gradient loads a Fairlearn moment per fit, ~7 ms, ~11 ms
# through AIF360); the Fairlearn-face fair-regression audit, the cheapest, gets the most runs. Each audit takes
# < 3 s (each zCDP row ~1.5 s at 200 runs; the exponentiated-gradient rows ~2-2.5 s at 150 / 120 runs).
_FAST_RUNS = {"DPFairRegressionPostprocessor": 1000, "DPFairRegressionPostprocessing": 300,
              "DPThresholdOptimizer": 300, "DPEqOddsPostprocessing": 300, "DPGroupBudgetRegressor": 200,
              "DPGroupBudgetClassifier": 200, "DPGroupBudgetRegression": 200, "DPGroupBudgetClassification": 200,
              "DPExponentiatedGradient": 150, "DPExponentiatedGradientReduction": 120,
              "ExponentialMechanismFairClassifier": 800, "DPGerryFairClassifier": 1000,
              "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier": 800}
_ZCDP_ROWS = ("DPGroupBudgetRegressor", "DPGroupBudgetClassifier", "DPGroupBudgetRegression",
              "DPGroupBudgetClassification")
# One release of a multi-release mechanism (fairlearn_dp/audit/_inprocessing_cases.py).
_EXPONENTIATED_GRADIENT_ROWS = ("DPExponentiatedGradient", "DPExponentiatedGradientReduction")
_GERRYFAIR_ROWS = ("DPGerryFairClassifier", "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier")
_EXPONENTIAL_MECHANISM_ROWS = ("ExponentialMechanismFairClassifier",)


def _check_expected_probabilities(name, result, expected):
    """The declared mechanism's probabilities of each row's event, and the event's attribute."""
    if name in _ZCDP_ROWS:
        assert result.declared_delta == 1e-6 and expected[0] == 0.5 and 0.4 < expected[1] < 0.5
        assert result.event.startswith(("history_.noisy_gradients", "model_.history_.noisy_gradients"))
    elif name in _EXPONENTIATED_GRADIENT_ROWS:
        # Four coordinates move by 2/20 + 2/21 in L1 against a declared sensitivity 4/18 (N = 19): 0.88 epsilon.
        assert result.declared_delta == 0.0 and expected[0] == 1 / 16
        assert expected[1] == pytest.approx(math.exp(-(2 / 20 + 2 / 21) / (4 / 18)) / 16, rel=1e-9)
        assert result.event.startswith(("history_.noisy_gamma", "model_.history_.noisy_gamma"))
    elif name in _GERRYFAIR_ROWS:
        assert result.declared_delta == 0.0 and expected == pytest.approx((0.5, 0.5 / math.e), rel=1e-12)
        assert result.event.startswith(("history_.0.error_statistic", "model_.history_.0.error_statistic"))
    elif name in _EXPONENTIAL_MECHANISM_ROWS:
        assert result.declared_delta == pytest.approx(math.exp(-math.sqrt(58)))      # the default delta, n = 58
        assert expected[0] == 0.5 and 0.35 < expected[1] < 0.45
        assert result.event.startswith("hypothesis_index_")
    else:
        assert result.declared_delta == 0.0 and expected == (0.25, 0.25 / math.e)
        assert result.event.startswith(("noisy_", "model_.noisy_"))


@pytest.mark.parametrize("name", [entry.name for entry in registry.REGISTRY])
def test_every_registry_row_passes_its_default_audit(name):
    result = audit_registered(name, n_runs=_FAST_RUNS.get(name, 300), random_state=7)
    assert isinstance(result, AuditResult)
    assert result.passed and 0.0 <= result.epsilon_lower_bound <= result.declared_epsilon
    assert result.declared_epsilon == pytest.approx(1.0, rel=1e-12)
    # Laplace rows: the event has probability 1/4 on D and e^-1 / 4 on D'; zCDP rows: 1/2 and Phi(-Delta / sigma);
    # in-processing rows: see _check_expected_probabilities. The counts must look like it (within 0.1 and within
    # five binomial standard deviations).
    expected = default_audit_case(name).event.expected_probabilities
    _check_expected_probabilities(name, result, expected)
    for hits, p in zip(result.hits, expected):
        tolerance = min(0.1, 5 * math.sqrt(p * (1 - p) / result.n_runs))
        assert abs(hits / result.n_runs - p) < tolerance


@pytest.mark.slow
@pytest.mark.parametrize("name", [entry.name for entry in registry.REGISTRY])
def test_every_registry_row_passes_a_long_audit(name):
    result = audit_registered(name, n_runs=5000, random_state=11)
    print(f"{name}: epsilon lower bound {result.epsilon_lower_bound:.3f} (declared {result.declared_epsilon:.3f}, "
          f"delta {result.declared_delta:g}), hits {result.hits}")
    # The zCDP rows' event has ln(p / p') ~ 0.11 at epsilon = 1 (see _registry_cases): the bound is positive but
    # small, far below the loose (epsilon, delta) conversion they declare. The exponential-mechanism learner's event
    # has ln(p / p') ~ 0.22 (one substitution moves a loss by about half the declared sensitivity), the exponentiated
    # gradient's ln(p / p') = 0.88 but probability 1/16 on D.
    minimum = {**dict.fromkeys(_ZCDP_ROWS + _EXPONENTIAL_MECHANISM_ROWS, 0.0),
               **dict.fromkeys(_EXPONENTIATED_GRADIENT_ROWS, 0.2)}.get(name, 0.4)
    assert result.passed and result.epsilon_lower_bound > minimum


def test_default_case_moves_exactly_one_count_and_is_reproducible():
    case = default_audit_case("DPThresholdOptimizer", epsilon=2.0, n=16)
    factory, dataset, neighbour, event, declared, declared_delta = case
    assert declared == 2.0 and declared_delta == 0.0 and factory(3).epsilon == 2.0 and factory(3).random_state == 3
    assert factory(3).accountant is not factory(3).accountant              # a fresh accountant per fit
    first = audit(factory, dataset, neighbour, event=event, n_runs=40, declared_epsilon=2.0, random_state=5)
    chunked = audit(factory, dataset, neighbour, event=event, n_runs=40, declared_epsilon=2.0, random_state=5,
                    n_jobs=1)
    assert first == chunked


def test_unknown_or_uncovered_registry_rows_raise(monkeypatch):
    with pytest.raises(KeyError, match="NoSuchEstimator"):
        default_audit_case("NoSuchEstimator")
    new_row = registry.RegistryEntry(
        name="DPBrandNewEstimator", dp_class="fairlearn_dp.postprocessing.DPBrandNewEstimator", counterpart="-",
        toolkit="fairlearn", task="classification", neighbouring="substitution of one record", guarantee="pure",
        paper="-")
    changed = registry.RegistryEntry(**{**registry.get("DPThresholdOptimizer").__dict__,
                                        "neighbouring": "addition or removal of one record"})
    rows = tuple(e for e in registry.REGISTRY if e.name != "DPThresholdOptimizer") + (new_row, changed)
    monkeypatch.setattr(registry, "REGISTRY", rows)
    with pytest.raises(NotImplementedError, match="DPBrandNewEstimator"):
        audit_registered("DPBrandNewEstimator", n_runs=10)
    with pytest.raises(NotImplementedError, match="assumes the neighbouring relation"):
        default_audit_case("DPThresholdOptimizer")


def test_audit_validates_its_arguments():
    case = default_audit_case("DPFairRegressionPostprocessor")
    with pytest.raises(ValueError, match="n_runs"):
        audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=0, declared_epsilon=1.0)
    with pytest.raises(ValueError, match="declared_epsilon"):
        audit(case.factory, case.dataset, case.neighbour, event=case.event, n_runs=5, declared_epsilon=0)
    with pytest.raises(TypeError, match="dicts"):
        audit(case.factory, [1], case.neighbour, event=case.event, n_runs=5, declared_epsilon=1.0)
