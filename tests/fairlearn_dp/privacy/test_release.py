"""Privacy core: noise scales, sensitivities, accountant charging, neighbouring-output ratios."""

import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from scipy import optimize, stats

from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._accountant import validate_epsilon_delta
from fairlearn_dp.privacy._release import (
    joint_histogram_sensitivity,
    release_gaussian,
    release_joint_counts,
    release_laplace,
)


def private_joint_histogram(bin_index, group_index, *, n_bins, n_groups, **release):
    """The post-processors' two steps: count each (group, bin) cell of the public grid, then release_joint_counts."""
    counts = np.zeros((n_groups, n_bins))
    np.add.at(counts, (np.asarray(group_index), np.asarray(bin_index)), 1.0)
    return release_joint_counts(counts, len(bin_index), **release)


def test_laplace_noise_has_stated_scale():
    # |Laplace(0, b)| ~ Exponential(b): mean b, sd b. With N draws the sample mean of |noise| has sd b / sqrt(N);
    # allow 5 sd. A KS test against Laplace(0, b) at the 1e-3 level checks the shape.
    n_draws, sensitivity, epsilon = 40_000, 0.01, 0.5
    scale = sensitivity / epsilon
    noise = release_laplace(np.zeros(n_draws), epsilon=epsilon, l1_sensitivity=sensitivity, random_state=3)
    assert abs(np.mean(np.abs(noise)) - scale) < 5 * scale / math.sqrt(n_draws)
    assert stats.kstest(noise, stats.laplace(scale=scale).cdf).pvalue > 1e-3


def _analytic_gaussian_sigma(epsilon, delta, sensitivity):
    """Balle & Wang (2018), Thm. 8: the smallest sigma with Phi(D/2s - e s/D) - e^e Phi(-D/2s - e s/D) <= delta."""
    def excess(sigma):
        a = sensitivity / (2 * sigma)
        b = epsilon * sigma / sensitivity
        return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b) - delta
    return optimize.brentq(excess, 1e-6 * sensitivity, 1e3 * sensitivity)


def test_gaussian_noise_matches_analytic_gaussian_calibration():
    n_draws, sensitivity, epsilon, delta = 40_000, 0.02, 2.0, 1e-5
    sigma = _analytic_gaussian_sigma(epsilon, delta, sensitivity)
    noise = release_gaussian(np.zeros(n_draws), epsilon=epsilon, delta=delta, l2_sensitivity=sensitivity,
                             random_state=4)
    # The sample sd has standard error ~ sigma / sqrt(2N); allow 5 of them.
    assert abs(noise.std() - sigma) < 5 * sigma / math.sqrt(2 * n_draws)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > 1e-3


def test_infinite_epsilon_adds_no_noise():
    values = np.array([0.1, 0.2, 0.7])
    assert np.array_equal(release_laplace(values, epsilon=np.inf, l1_sensitivity=1.0), values)


def test_same_seed_same_noise_different_seed_different_noise():
    a = release_laplace(np.zeros(10), epsilon=1.0, l1_sensitivity=1.0, random_state=7)
    b = release_laplace(np.zeros(10), epsilon=1.0, l1_sensitivity=1.0, random_state=7)
    c = release_laplace(np.zeros(10), epsilon=1.0, l1_sensitivity=1.0, random_state=8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("epsilon, delta, error", [(0, 0, ValueError), (-1, 0, ValueError),
                                                   (float("nan"), 0, ValueError), (1, 1, ValueError),
                                                   (1, -0.1, ValueError), ("1", 0, TypeError)])
def test_bad_epsilon_delta(epsilon, delta, error):
    with pytest.raises(error, match="epsilon|delta"):
        validate_epsilon_delta(epsilon, delta)


def _random_substitution(bins, groups, n_bins, n_groups, rng):
    bins2, groups2 = bins.copy(), groups.copy()
    i = rng.integers(bins.size)
    bins2[i], groups2[i] = rng.integers(n_bins), rng.integers(n_groups)
    return bins2, groups2


def test_joint_histogram_sensitivity_bounds_every_substitution():
    rng = np.random.default_rng(0)
    n, n_bins, n_groups = 200, 5, 3
    bins, groups = rng.integers(0, n_bins, n), rng.integers(0, n_groups, n)
    l1, l2 = joint_histogram_sensitivity(n)
    assert l1 == pytest.approx(2 / n) and l2 == pytest.approx(math.sqrt(2) / n)
    base, _ = private_joint_histogram(bins, groups, n_bins=n_bins, n_groups=n_groups, epsilon=np.inf,
                                      accountant=BudgetAccountant())
    seen_max = 0.0
    for _ in range(300):
        b2, g2 = _random_substitution(bins, groups, n_bins, n_groups, rng)
        other, _ = private_joint_histogram(b2, g2, n_bins=n_bins, n_groups=n_groups, epsilon=np.inf,
                                           accountant=BudgetAccountant())
        d1 = np.abs(base - other).sum()
        assert d1 <= l1 + 1e-12
        assert np.sqrt(((base - other) ** 2).sum()) <= l2 + 1e-12
        seen_max = max(seen_max, d1)
    assert seen_max == pytest.approx(l1)  # the bound is attained


def test_histogram_charges_accountant_once_and_checks_first():
    bins, groups = np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1])
    acc = BudgetAccountant()
    noisy, spend = private_joint_histogram(bins, groups, n_bins=3, n_groups=2, epsilon=0.5, accountant=acc,
                                           random_state=0)
    assert noisy.shape == (2, 3)
    assert spend == PrivacySpend(0.5, 0.0)
    assert acc.spent_budget == [(0.5, 0.0)]
    small = BudgetAccountant(epsilon=0.4)
    with pytest.raises(BudgetError):
        private_joint_histogram(bins, groups, n_bins=3, n_groups=2, epsilon=0.5, accountant=small)
    assert small.spent_budget == []


def test_neighbouring_output_ratio_is_within_e_epsilon():
    """Run the release many times on neighbouring datasets; event probabilities differ by at most e^epsilon.

    Event: the noisy value of the cell the substitution changes exceeds the midpoint of its two true values. Each
    probability is estimated from N runs (standard error <= 0.5 / sqrt(N); 5 of them as slack). Besides the
    e^epsilon bound, both probabilities must equal those of Laplace noise of scale 2 / (n epsilon), which a
    mechanism with the wrong scale would miss by far more than the slack.
    """
    n_bins, n_groups, n, epsilon, runs = 3, 2, 50, 1.0, 20_000
    bins = np.zeros(n, dtype=int)
    groups = np.zeros(n, dtype=int)
    bins2, groups2 = bins.copy(), groups.copy()
    bins2[0], groups2[0] = 2, 1                       # one record substituted: cell (0, 0) loses 1/n
    threshold = (n - 0.5) / n
    rng = np.random.RandomState(123)
    hits = np.zeros(2)
    for _ in range(runs):
        for k, (b, g) in enumerate([(bins, groups), (bins2, groups2)]):
            noisy, _ = private_joint_histogram(b, g, n_bins=n_bins, n_groups=n_groups, epsilon=epsilon,
                                               accountant=BudgetAccountant(), random_state=rng)
            hits[k] += noisy[0, 0] > threshold
    p, p_neighbour = hits / runs
    se = 5 * math.sqrt(0.25 / runs)
    assert p - se <= math.exp(epsilon) * (p_neighbour + se)
    scale = 2 / (n * epsilon)
    expected = 1 - stats.laplace(scale=scale).cdf(-0.5 / n), 1 - stats.laplace(scale=scale).cdf(0.5 / n)
    assert abs(p - expected[0]) < se and abs(p_neighbour - expected[1]) < se
