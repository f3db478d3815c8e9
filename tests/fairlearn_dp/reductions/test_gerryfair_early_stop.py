"""DPGerryFairClassifier's early stop (issue 37): AIF360's rule at epsilon = inf, "equal within the noise" otherwise.

The rule and its level are derived on docs/privacy_analysis/gerryfair.md ("The early stop"): a stalled round (the
noise-free error, or the noise-free violation, unchanged) passes an agreement test with probability at least
``1 - STOP_LEVEL``; a round whose error and violation both move by at least twice their tolerance passes with
probability at most ``3 STOP_LEVEL``.
"""

import math
import warnings

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from scipy import stats
from sklearn.linear_model import LinearRegression

from fairlearn_dp.reductions import DPGerryFairClassifier
from fairlearn_dp.reductions import _gerryfair_oracles as oracles
from fairlearn_dp.reductions._gerryfair_oracles import STOP_LEVEL, _aif360_stops, _stop_tolerance

N_TRIALS = 200
# A stalled fit misses round 5 with probability at most 0.01: Binomial(200, 0.01) exceeds 6 with probability 0.005.
MAX_MISSES = int(stats.binom.isf(0.005, N_TRIALS, STOP_LEVEL))


def stalled_data(n=2000, seed=0):
    """All-zero features and a Learner without intercept: every play is ``1[0 < 0] = 0`` whatever the noise, so the
    average play is 0, the error ``E_t = n_+`` and ``U_t = 0`` exactly in every round (a stalled game).
    """
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    return np.zeros((n, 2)), y, rng.integers(0, 2, n).astype(float)


def fit_stalled(seed, *, delta, early_termination=True, epsilon=10.0):
    X, y, a = stalled_data()
    # gamma = 1/4 (the largest weighted disparity): the released violation |U~| / n, noise only here (Laplace scale
    # 52.7 / 2,000 at delta = 0), is below it except with probability e^-9.5, so the stop is decided by the agreement.
    model = DPGerryFairClassifier(epsilon=epsilon, delta=delta, max_iters=40, gamma=0.25,
                                  predictor=LinearRegression(fit_intercept=False), early_termination=early_termination,
                                  accountant=BudgetAccountant(), random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, y, sensitive_features=a)


@pytest.mark.parametrize("delta", [0.0, 1e-5])
def test_a_stalled_game_stops_at_finite_epsilon(delta):
    """Round 5 is the first the rule may stop at (AIF360's five rounds); a stalled game stops there in at least
    ``1 - STOP_LEVEL`` of the seeds (the binomial bound above). Before issue 37 the noisy values were compared for
    equality and no seed stopped (39 rounds every time).
    """
    rounds = [fit_stalled(seed, delta=delta).n_iter_ for seed in range(N_TRIALS)]
    assert sum(r != 5 for r in rounds) <= MAX_MISSES, np.bincount(rounds)
    model = fit_stalled(0, delta=delta)
    assert model.errors_[0] == pytest.approx(0.3, abs=0.05)          # released values, not exact ones
    assert len(set(model.errors_)) == len(model.errors_)              # noisy: never equal, yet the game stopped
    assert fit_stalled(0, delta=delta, early_termination=False).n_iter_ == 39
    assert model.privacy_spent_.epsilon == 10.0                       # charged for all rounds in any case


def _noise(rng, laplace, scale, size):
    return rng.laplace(0.0, scale, size) if laplace else rng.normal(0.0, scale, size)


@pytest.mark.parametrize("laplace", [True, False])
def test_the_tolerance_is_the_noise_quantile_of_the_stated_level(laplace):
    """Simulated releases (numpy, a simulation: nothing is released) of a stalled and of a moving round at the
    tolerance :func:`_stop_tolerance` gives: a stalled error passes with probability ``1 - STOP_LEVEL`` (exactly:
    the tolerance is that quantile), and when both the error and the violation move by twice their tolerance the
    rule stops with probability at most ``3 STOP_LEVEL`` (the error test at most ``STOP_LEVEL``, the violation test,
    on absolute values, at most ``2 STOP_LEVEL``).
    """
    rng = np.random.default_rng(0)
    n, scale, trials = 1000, 40.0, 200_000
    tol = _stop_tolerance(scale, laplace, n)
    stalled = np.abs(_noise(rng, laplace, scale, trials) - _noise(rng, laplace, scale, trials)) / n <= tol
    # Binomial standard error at 200,000 draws: sqrt(0.01 * 0.99 / 2e5) = 2.2e-4; 5 of them.
    assert stalled.mean() == pytest.approx(1 - STOP_LEVEL, abs=5 * 2.2e-4)
    error = 0.3 + np.array([0.0, 2 * tol])                            # the noise-free rates of two rounds
    violation = np.array([0.0, 2 * tol])                              # the worst case: |U| folds the noise at 0
    stops = 0
    for _ in range(20_000):
        errors = list(error + _noise(rng, laplace, scale, 2) / n)
        violations = list(np.abs(violation + _noise(rng, laplace, scale, 2) / n))
        stops += _aif360_stops([0.0] * 3 + errors, [0.0] * 3 + violations, math.inf, tol, tol)
    assert stops / 20_000 <= 3 * STOP_LEVEL


def test_tolerances_are_zero_and_the_rule_is_aif360s_at_epsilon_inf(monkeypatch):
    """Without noise both tolerances are 0, and the rule is AIF360's ``==`` (one ulp apart does not stop)."""
    assert _stop_tolerance(0.0, True, 100) == _stop_tolerance(0.0, False, 100) == 0.0
    errors, violations = [0.3] * 5, [0.2, 0.1, 0.05, 0.02, 0.001]
    assert _aif360_stops(errors, violations, 0.01)
    assert not _aif360_stops(errors[:4], violations[:4], 0.01)                  # fewer than 5 rounds
    assert not _aif360_stops(errors, violations, 0.001)                          # violation not below gamma
    apart = errors[:4] + [math.nextafter(0.3, 1.0)]
    assert not _aif360_stops(apart, violations, 0.01)
    assert _aif360_stops(apart, violations[:4] + [0.02], 0.05)                   # equal violations suffice
    seen = []
    original = oracles._aif360_stops

    def spy(errors, violations, gamma, error_tolerance, violation_tolerance):
        seen.append((error_tolerance, violation_tolerance))
        return original(errors, violations, gamma, error_tolerance, violation_tolerance)

    monkeypatch.setattr("fairlearn_dp.reductions._gerryfair._aif360_stops", spy)
    model = fit_stalled(0, delta=0.0, epsilon=math.inf)
    assert model.n_iter_ == 5 and set(seen) == {(0.0, 0.0)}           # exact values: AIF360 stops at round 5 too
