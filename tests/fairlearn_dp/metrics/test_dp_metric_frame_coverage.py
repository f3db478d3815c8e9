"""Statistical tests of DPMetricFrame's release: interval coverage, noise scale, and an empirical privacy bound.

Every tolerance below is derived from the sampling distribution of the quantity tested (binomial standard errors,
the standard error of a sample standard deviation, Clopper-Pearson bounds), never tuned to the observed values.
All seeds are fixed, so the tests are deterministic; a failure at a derived tolerance means the property is false
(or a one-in-several-thousand draw, see each test).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.metrics import MetricFrame, false_positive_rate, selection_rate, true_positive_rate
from scipy import stats
from sklearn.metrics import accuracy_score

from fairlearn_dp.metrics import DPMetricFrame, MetricFrameOptions

EPSILON = 1.0
LAPLACE_SCALE = 2.0 / EPSILON      # L1 sensitivity 2 of the confusion-count table (one row moves between cells)
METRICS = {"accuracy": accuracy_score, "selection_rate": selection_rate, "tpr": true_positive_rate,
           "fpr": false_positive_rate}


def frame(y_true, y_pred, sensitive, groups, **kwargs):
    kwargs.setdefault("epsilon", EPSILON)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)          # the "unreadable group" warning of small groups
        return DPMetricFrame(metrics=kwargs.pop("metrics", METRICS), y_true=y_true, y_pred=y_pred,
                             sensitive_features=sensitive, groups=groups, accountant=BudgetAccountant(), **kwargs)


# ------------------------------------------------------------------------------------------------------ coverage
SIZES = (130, 400, 1500, 5000, 8000)
COVERAGE_TRIALS = 300
COVERAGE_N_BOOT = 400               # n_boot=400 Monte-Carlo draws instead of the default 1000, for speed (~4 s)
NOMINAL = 0.95
FLOOR = 0.93


def coverage_data():
    """Five groups of sizes SIZES; labels with base rates 0.15-0.35 and fixed predictions of a noisy score (seed
    fixed). Group 0 (130 rows) has 13 positives (11 true positives, 2 false negatives): its TPR rests on counts
    comparable to the noise (sd about 2.5 per count)."""
    rng = np.random.default_rng(20240721)
    group = np.repeat(np.arange(len(SIZES)), SIZES)
    y_true = (rng.random(group.size) < np.array([0.15, 0.2, 0.25, 0.3, 0.35])[group]).astype(np.int8)
    score = 0.9 * y_true + 0.05 * group + rng.normal(0.0, 0.45, group.size)
    return y_true, (score > 0.6).astype(np.int8), group


@pytest.fixture(scope="module")
def coverage_runs():
    """Over COVERAGE_TRIALS releases with distinct random_state: per (trial, group, metric) whether the 95%
    by_group_ci covers the exact in-sample value (Fairlearn's MetricFrame on the same rows), and per (trial, metric)
    whether difference_ci() (between groups) covers MetricFrame.difference()."""
    y_true, y_pred, group = coverage_data()
    exact_frame = MetricFrame(metrics=METRICS, y_true=y_true, y_pred=y_pred, sensitive_features=group)
    exact = exact_frame.by_group.loc[list(range(len(SIZES))), list(METRICS)].to_numpy()
    exact_difference = exact_frame.difference()[list(METRICS)].to_numpy()
    covered = np.empty((COVERAGE_TRIALS, len(SIZES), len(METRICS)), dtype=bool)
    difference_covered = np.empty((COVERAGE_TRIALS, len(METRICS)), dtype=bool)
    for trial in range(COVERAGE_TRIALS):
        released = frame(y_true, y_pred, group, list(range(len(SIZES))), random_state=trial,
                         n_boot=COVERAGE_N_BOOT)
        low, high = (table[list(METRICS)].to_numpy() for table in released.by_group_ci)
        assert low.shape == high.shape == exact.shape
        covered[trial] = (low <= exact) & (exact <= high)
        low, high = (bound[list(METRICS)].to_numpy() for bound in released.difference_ci())
        difference_covered[trial] = (low <= exact_difference) & (exact_difference <= high)
    return {"by_group": covered, "difference": difference_covered}


@pytest.mark.slow  # a coverage simulation over many releases: CI runs it (-m slow)
def test_by_group_ci_covers_the_exact_values_pooled_over_groups(coverage_runs):
    """Pooled per metric over the 5 groups: 5 x 300 = 1500 (trial, group) pairs. Groups are released in one table,
    but their noise and resampling draws are independent apart from the projection onto the public sums,
    so the pairs are close to independent trials. The binomial standard error at true coverage 95% is
    sqrt(0.95 * 0.05 / 1500) = 0.0056; 93% is 3.55 standard errors below 95%, so a frame whose true coverage is
    >= 95% fails with probability < 2e-4 per metric (8e-4 over the 4 metrics). The floor is safe only if the true
    coverage is >= 95%: at a true 94% it sits 1.8 standard errors below the truth and one run in 28 fails. (Against
    the in-sample values the interval is conservative: it also holds the sampling error of the rows, which the exact
    in-sample value does not have; the observed pooled coverage is 99.6-99.9%, far from the floor.)"""
    pooled = coverage_runs["by_group"].mean(axis=(0, 1))
    assert pooled.min() >= FLOOR, dict(zip(METRICS, pooled.round(4), strict=False))


PER_CELL_FLOOR = NOMINAL - 4 * math.sqrt(NOMINAL * (1 - NOMINAL) / COVERAGE_TRIALS)     # 0.8997


@pytest.mark.slow  # a coverage simulation over many releases: CI runs it (-m slow)
def test_by_group_ci_covers_the_exact_values_in_every_group(coverage_runs):
    """Per (group, metric): 300 trials each, binomial standard error sqrt(0.95 * 0.05 / 300) = 0.0126 at 95%.
    The floor 95% - 4 standard errors = 90.0% fails a frame with true coverage >= 95% with probability < 3.2e-5
    per cell (6.3e-4 over the 20 cells). A small group whose interval undercovers would be hidden by the pooled
    test above (group 0's TPR rests on 13 positives, 2 of them false negatives)."""
    per_cell = pd.DataFrame(coverage_runs["by_group"].mean(axis=0), index=list(SIZES), columns=list(METRICS))
    assert (per_cell.to_numpy() >= PER_CELL_FLOOR).all(), f"floor {PER_CELL_FLOOR:.4f}\n{per_cell}"


@pytest.mark.slow  # a coverage simulation over many releases: CI runs it (-m slow)
def test_difference_ci_covers_the_exact_difference(coverage_runs):
    """Per metric, 300 trials: the same binomial floor as per cell, 95% - 4 standard errors = 90.0%. The target is
    in-sample (MetricFrame.difference() on these rows); the interval also carries the sampling error of the rows,
    so it is if anything wide for this target (as by_group_ci is above). (A basic bootstrap of max - min covered
    83.7% for accuracy and 87.7% for TPR here: the interval is now the range of the difference over the groups'
    simultaneous intervals.)"""
    coverage = coverage_runs["difference"].mean(axis=0)
    assert (coverage >= PER_CELL_FLOOR).all(), dict(zip(METRICS, coverage.round(4), strict=False))


# ------------------------------------------------------------------------------------------------------ noise
ONE_METRIC = {"selection_rate": selection_rate}    # the release is the same for any metric; one metric is faster


def blocks_data(n_groups, n_controls, per_bin):
    """Every (control level, group) cell holds ``per_bin`` rows of each confusion bin (tn, fp, fn, tp)."""
    cells = n_controls * n_groups
    bins = np.tile(np.repeat(np.arange(4), per_bin), cells)
    cell = np.repeat(np.arange(cells), 4 * per_bin)
    return (bins // 2).astype(np.int8), (bins % 2).astype(np.int8), cell % n_groups, cell // n_groups


def sd_standard_error(sd, n, kurtosis):
    """Standard error of the sample sd of ``n`` iid draws with standard deviation ``sd`` and kurtosis
    ``kurtosis`` (delta method: var(s^2) = sd^4 (kurtosis - 1) / n, so se(s) = sd sqrt((kurtosis - 1) / (4 n)))."""
    return sd * math.sqrt((kurtosis - 1) / (4 * n))


@pytest.mark.parametrize("public_predictions", [True, False])
@pytest.mark.parametrize("n_groups, n_controls, frames, delta",
                         [(2, 1000, 3, 0.0), (5, 500, 5, 0.0), (2, 1000, 3, 1e-5)])
def test_released_counts_noise_sd_under_sensitive_attribute(n_groups, n_controls, frames, delta,
                                                            public_predictions):
    """Under "sensitive_attribute" the released counts are projected onto public sums: with
    ``public_predictions=True`` each (control level, column) vector over the G groups (m = G entries), otherwise
    each (control level, true label) vector over the G groups x 2 predicted labels (m = 2G entries). With no
    clipping (every count is 40; the noise sd is at most 5.3, so 0 is > 7 sd away) the projection subtracts the mean
    noise of the vector: an entry gets e_0 - mean(e) = sum_i c_i e_i with c_0 = 1 - 1/m, c_i = -1/m, whose variance
    is (1 - 1/m) s^2 for iid noise of sd s (Laplace b = 2/epsilon: s = sqrt(2) b = 2.83; analytic Gaussian:
    s = noise_sd_). Its kurtosis is 3 + k_ex sum c^4 / (sum c^2)^2, k_ex the noise's excess kurtosis (Laplace 3,
    Gaussian 0). m = 2 gives sd 2.00, m = 4: 2.45, m = 5: 2.53, m = 10: 2.68 (unprojected 2.83).

    Vectors are released and projected independently, so one entry per vector -- group 0, predicted label 0 for
    the per-true-label vectors (tn, fn); group 0 of every column otherwise -- gives iid draws (control levels x 4
    or x 2 entries x frames: 5,000 to 12,000). The sample sd must be within 4 standard errors of the derived sd
    (a false failure has probability 6e-5; relative tolerance about 6% at 6,000 Laplace draws) and the mean within 4
    standard errors of 0."""
    y_true, y_pred, group, control = blocks_data(n_groups, n_controls, per_bin=40)
    errors = []
    for seed in range(frames):
        released = frame(y_true, y_pred, group, list(range(n_groups)), control_features=control, delta=delta,
                         metrics=ONE_METRIC, options=MetricFrameOptions(public_predictions=public_predictions), random_state=1000 + seed,
                         n_boot=10)
        if delta == 0:
            assert released.noise_scale_ == pytest.approx(LAPLACE_SCALE)
            assert released.noise_sd_ == pytest.approx(math.sqrt(2) * LAPLACE_SCALE)
        table = released.released_counts_.to_numpy().reshape(n_controls, n_groups, 4)
        entries = table[:, 0, :] if public_predictions else table[:, 0, [0, 2]]      # (tn, fp, fn, tp) or (tn, fn)
        errors.append(entries.ravel() - 40.0)
    errors = np.concatenate(errors)
    m = n_groups if public_predictions else 2 * n_groups
    c = np.array([1 - 1 / m] + [-1 / m] * (m - 1))
    expected_sd = math.sqrt(1 - 1 / m) * released.noise_sd_
    kurtosis = 3 + (3.0 if delta == 0 else 0.0) * (c ** 4).sum() / (c ** 2).sum() ** 2
    tolerance = 4 * sd_standard_error(expected_sd, errors.size, kurtosis)
    assert abs(errors.std() - expected_sd) <= tolerance, (errors.std(), expected_sd, tolerance)
    assert abs(errors.mean()) <= 4 * expected_sd / math.sqrt(errors.size)


def test_noise_sd_of_the_gaussian_release_is_diffprivlibs():
    """delta > 0: the analytic Gaussian is calibrated to the table's L2 sensitivity sqrt(2) (one row leaves a cell
    and enters another)."""
    from diffprivlib.mechanisms import GaussianAnalytic
    y_true, y_pred, group, _ = blocks_data(2, 1, per_bin=40)
    released = frame(y_true, y_pred, group, [0, 1], delta=1e-5, random_state=0, n_boot=10)
    sigma = math.sqrt(GaussianAnalytic(epsilon=EPSILON, delta=1e-5, sensitivity=math.sqrt(2)).variance(0.0))
    assert released.noise_sd_ == pytest.approx(sigma)


def test_released_counts_noise_sd_under_record():
    """Under "record" all K = C G 4 count cells are projected together onto the public n (checked exactly: the
    released table sums to n). With no clipping each cell keeps e_i - mean(e): variance (1 - 1/K) 2 b^2, the same
    Laplace scale b = 2/epsilon as the other unit. Here K = 2000 (250 control levels, 2 groups): the cells are
    correlated at -1/(K - 1), which changes the standard error of the sample sd by a relative O(1/K), so the
    10,000 cells of 5 frames are treated as iid (kurtosis of e_i - mean(e): 3 + 3 (1 - 1/K)^2 ~ 6). Tolerance: 4
    standard errors."""
    n_controls, frames = 250, 5
    y_true, y_pred, group, control = blocks_data(2, n_controls, per_bin=40)
    errors = []
    for seed in range(frames):
        released = frame(y_true, y_pred, group, {"sensitive_feature_0": [0, 1],
                                                 "control_feature_0": list(range(n_controls))},
                         control_features=control, privacy_unit="record", metrics=ONE_METRIC, random_state=seed,
                         n_boot=10)
        table = released.released_counts_.to_numpy()
        assert table.sum() == pytest.approx(y_true.size, rel=1e-12)
        errors.append(table.ravel() - 40.0)
    errors = np.concatenate(errors)
    k = n_controls * 2 * 4
    expected_sd = math.sqrt((1 - 1 / k) * 2) * LAPLACE_SCALE
    tolerance = 4 * sd_standard_error(expected_sd, errors.size, 6.0)
    assert abs(errors.std() - expected_sd) <= tolerance, (errors.std(), expected_sd, tolerance)
    assert abs(errors.mean()) <= 4 * expected_sd / math.sqrt(errors.size)


# ------------------------------------------------------------------------------------------------------ privacy
def projected_laplace_survival(w, b, m):
    """P(W > w) for W = e_0 - mean(e_0, ..., e_{m-1}), e_i iid Laplace(0, b): the noise an entry keeps after the
    projection of an m-entry vector onto its public sum (no clipping). By Gil-Pelaez inversion of the characteristic
    function phi_W(t) = L((1 - 1/m) t) L(t / m)^(m - 1), L(t) = 1 / (1 + b^2 t^2), which is real and even:
    P(W > w) = 1/2 - (1/pi) int_0^inf sin(t w) phi_W(t) / t dt."""
    from scipy.integrate import quad

    def phi(t):
        return 1 / (1 + (b * (1 - 1 / m) * t) ** 2) / (1 + (b * t / m) ** 2) ** (m - 1)

    if w == 0:
        return 0.5
    integral = quad(lambda t: math.sin(t * w) * phi(t) / t, 0, math.inf, limit=500)[0]
    return 0.5 - integral / math.pi


@pytest.mark.parametrize("public_predictions", [True, False])
def test_threshold_attack_on_neighbouring_datasets_stays_within_epsilon(public_predictions):
    """Empirical privacy loss of a threshold attack on one released count, privacy_unit="sensitive_attribute".

    D and D' differ in one person's sensitive value: a true-positive row of group A is in group B in D' -- still a
    true positive with public_predictions=True, a false negative otherwise (a post-processor's prediction may change
    with the group). The attack observes group A's released tp count and tests S_t = {count > t} (and its
    complement, for the other direction) at 8 thresholds t. For epsilon-DP, P[S | D] <= e^epsilon P[S | D'] for
    every S, so ln(P[S|D] / P[S|D']) <= epsilon = 1.

    Draws: the frame has 2000 identical control levels; each level's tp count depends only on that level's rows and
    its own noise (independent noise per cell, projection per control level), so the levels are 2000 independent
    draws of the one-count release, and moving one person in every level gives each level the distribution it has
    under the neighbour that differs in that level alone. 4 frames per dataset: 8,000 draws under D and under D'.

    Margin: with Clopper-Pearson bounds at level alpha = 1e-3 / 32 per bound (Bonferroni over 2 probabilities x 16
    sets), ln(lower(P[S|D]) / upper(P[S|D'])) > epsilon happens with probability < 1e-3 in total if the release is
    epsilon-DP. The same bounds must also contain the exact loss of this mechanism: without clipping the count is
    20 + W under D and 19 + W under D' (the projected vector's public sum is unchanged), W the projected Laplace
    noise of projected_laplace_survival with m = 2 (tp over the 2 groups) or m = 4 (the true-label-1 vector: fn, tp
    of both groups). A check that the attack has power (the exact loss reaches 0.83 (m = 2) or 0.66 (m = 4) at
    t = 23.5) and that the noise is not larger than claimed."""
    n_controls, frames, per_bin = 2000, 4, 20
    y_true, y_pred, group, control = blocks_data(2, n_controls, per_bin)
    tp_of_group_a = np.flatnonzero((y_true == 1) & (y_pred == 1) & (group == 0))
    first_per_level = tp_of_group_a[np.unique(control[tp_of_group_a], return_index=True)[1]]
    neighbour_group, neighbour_pred = group.copy(), y_pred.copy()
    neighbour_group[first_per_level] = 1                          # one person per level: A -> B
    if not public_predictions:
        neighbour_pred[first_per_level] = 0                       # ... and their prediction changes with the group

    def released_tp(groups, predictions, seed0):
        draws = []
        for seed in range(seed0, seed0 + frames):
            table = frame(y_true, predictions, groups, [0, 1], control_features=control, random_state=seed,
                          options=MetricFrameOptions(public_predictions=public_predictions), metrics=ONE_METRIC, n_boot=10).released_counts_
            draws.append(table["tp"].to_numpy().reshape(n_controls, 2)[:, 0])
        return np.concatenate(draws)

    on_d, on_neighbour = released_tp(group, y_pred, 0), released_tp(neighbour_group, neighbour_pred, 10_000)
    n = on_d.size
    thresholds = per_bin + np.arange(-4, 4) + 0.5
    alpha = 1e-3 / 32
    m = 2 if public_predictions else 4

    def cp(k):
        lower = stats.beta.ppf(alpha, k, n - k + 1) if k > 0 else 0.0
        upper = stats.beta.ppf(1 - alpha, k + 1, n - k) if k < n else 1.0
        return lower, upper

    losses = []
    for t in thresholds:
        # upper tail: D has the larger count; lower tail: D' does.
        p = projected_laplace_survival(t - per_bin, LAPLACE_SCALE, m)
        p_neighbour = projected_laplace_survival(t - per_bin + 1, LAPLACE_SCALE, m)
        for hits, hits_neighbour, exact in [
                ((on_d > t).sum(), (on_neighbour > t).sum(), math.log(p / p_neighbour)),
                ((on_neighbour <= t).sum(), (on_d <= t).sum(), math.log((1 - p_neighbour) / (1 - p)))]:
            (low, high), (low_n, high_n) = cp(hits), cp(hits_neighbour)
            lower_bound = math.log(low / high_n) if low > 0 else -math.inf
            upper_bound = math.log(high / low_n) if low_n > 0 else math.inf
            estimate = math.log(hits / hits_neighbour) if hits and hits_neighbour else float("nan")
            losses.append((t, estimate, lower_bound, upper_bound, exact))
            assert lower_bound <= EPSILON, losses[-1]
            assert lower_bound <= exact <= upper_bound, losses[-1]


def test_projected_laplace_survival_matches_the_closed_form_for_two_entries():
    """m = 2: W = (e_1 - e_2) / 2, and P(e_1 - e_2 > z) = (2 + z/b) exp(-z/b) / 4 for z >= 0 (density of the
    difference of two Laplace(b): (1 + |z|/b) exp(-|z|/b) / (4b))."""
    b = LAPLACE_SCALE
    for w in (0.25, 1.0, 3.5):
        assert projected_laplace_survival(w, b, 2) == pytest.approx((2 + 2 * w / b) * math.exp(-2 * w / b) / 4,
                                                                    abs=1e-9)
        assert projected_laplace_survival(-w, b, 2) == pytest.approx(1 - projected_laplace_survival(w, b, 2),
                                                                     abs=1e-9)
