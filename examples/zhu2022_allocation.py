"""Reproduce the experiments of Zhu, Fioretto & Van Hentenryck (IJCAI 2022), Sections 6-8, with fairdp.
====================================================================================================

"Post-processing of Differentially Private Data: A Fairness Perspective" measures how the post-processing of
noisy census counts treats entities unequally. This script repeats its two experiments with
:mod:`fairlearn_dp.allocation` (Monte-Carlo *simulation* path: numpy draws, nothing is released):

1. **Table 1 analogue (data release, Section 6).** The non-negative, sum-preserving projection ``pi_S+`` of
   noisy county household counts, Laplace ``lambda = 10`` and Gaussian ``sigma = 25``. The paper's setting: the
   total ``C = sum(x)`` is a PUBLIC INVARIANT (published exactly), so neighbouring datasets are substitutions (one
   household moves between counties: L1 sensitivity 2, L2 sqrt(2)); the release that matches it is
   ``release_counts(x, epsilon=..., invariant_total=True)``. The noise is given by its scale, as in the paper's
   Example 3, so nothing here depends on that calibration; for reference, ``lambda = 10`` is the Laplace scale of
   ``epsilon = 2 / 10 = 0.2`` under substitution. Measured: the empirical alpha-fairness (``max_i B_i - min_i B_i``
   of the bias ``B = E[pi_S+(x~)] - x``, :func:`~fairlearn_dp.allocation.monte_carlo`, 1,000,000 draws), its
   Monte-Carlo standard error (from the standard errors of the two extreme entities) and the bounds of Theorem 1
   (``theorem1_bounds``: exact for Gaussian, Monte Carlo for Laplace). Instances:

   - ``hawaii``: :func:`~fairlearn_dp.datasets.fetch_hawaii_counties` -- a DOCUMENTED STAND-IN (ACS 2006-2010
     households, total 442,267), not the paper's 2010 Census counts (total 453,558);
   - ``synthetic``: counts ``[1, 3, 8, 20, 60, 150, 400]``, several entities within a few noise scales of 0, so
     the bias is large and the bounds bite.

   Diagnostics added to the paper's columns (same draws): a control-variate estimate of the bias,
   ``E[pi_S+(x~) - pi_S(x~)]`` (exact because ``E[pi_S(x~)] = x``; ``pi_S+ - pi_S`` is 0 unless the noise
   pushes an entity below 0, so its Monte-Carlo error is orders of magnitude smaller), a low-variance lower
   bound (``B((pi_S)_+)_i = E[(pi_S(x~)_i)_-]``) and the tighter upper bound of Lemma 3 (2b),
   ``lower + E[T(pi_S(x~))]`` with ``T`` the threshold of Lemma 2.

2. **Table 2 analogue (downstream allocation, Sections 7-8).** Title I-style allocation ``P^F(x) = x / sum(x)`` over
   all 13,545 SAIPE 2012 school districts (:func:`~fairlearn_dp.datasets.fetch_school_districts`; weights ``a_i = 1``
   because the paper's per-district weights are unavailable -- the loader's ``state_weights`` hook accepts a weight
   per state), Laplace noise ``lambda = 1 / epsilon`` for ``epsilon`` in {0.1, 0.01, 0.001} (the paper's calibration:
   sensitivity 1, the add/remove relation of ``release_counts(x, epsilon=...)``; BL and PoS use no total, so none has
   to be public), 200,000 draws per epsilon, the baseline ``pi_BL`` and the projection onto the simplex ``pi_PoS``
   evaluated on the same draws. Per (epsilon, mechanism): alpha-fairness and the cost of privacy
   (:mod:`fairlearn_dp.metrics`, budget ``B = 6.5e9`` dollars; in dollars and as a share of ``B``, the unit of the
   paper's Table 2) and the expected under-allocation of the largest district (New York City). Diagnostics: the
   Monte-Carlo standard error of alpha, the "noise floor" each metric would show on an unbiased mechanism with the
   same standard errors, a control-variate estimate (the first-order expansion of ``P^F(x~)``, whose mean is exactly
   ``P^F(x)``, subtracted draw by draw through a third statistic, the noisy counts themselves) and, for ``pi_BL``,
   the first-order analytic value ``E[(x~)_+] / sum E[(x~)_+] - P^F(x)``. Then the per-group report
   (:func:`fairdp_adapters.reporting.allocation_bias_report`, by state and by district-size decile) at
   ``epsilon = 0.01`` and a Figure 4-style scatter of the biases
   (``plot_allocation_biases``, a private helper of ``fairdp_adapters.reporting``).

Outputs (under ``--out``):

``table1_data_release.csv`` / ``table1_entities.csv``
    Table 1 analogue (one row per instance x mechanism, with the paper's values and, on the Hawaii rows, the
    smallest county the paper's lower bound implies: ``implied_*``, ``implied_smallest_counts()``) and the
    per-entity biases behind it.
``table2_allocation.csv``
    Table 2 analogue (one row per epsilon x mechanism) with the diagnostics, the paper's values, the budget, the
    counts column and the number and total of the counts.
``table2_district_biases.csv.gz``
    Per district: leaid, state, name, count, true share, and for each epsilon the biases of BL and PoS (plain
    Monte Carlo, their standard errors, control variate).
``report_eps0.01_by_state.csv`` / ``report_eps0.01_by_size_decile.csv``
    ``allocation_bias_report`` by group for BL and PoS at epsilon = 0.01 (plus an ``overall`` row).
``figure4_biases.png`` / ``figure4_biases_control_variate.png``
    Bias vs true share, rows = epsilon, columns = BL / PoS (plain Monte Carlo as in the paper; control variate).
``summary.md``
    Everything printed: both tables, notes, run times, peak memory.

Every Monte-Carlo run has a fixed seed (``numpy.random.SeedSequence``), so the results do not depend on
``--n-jobs``.

Usage::

    python examples/zhu2022_allocation.py                      # 1e6 / 200,000 draws (several minutes)
    python examples/zhu2022_allocation.py --quick              # 1e5 / 2,000 draws (smoke test, ~1 minute)
    python examples/zhu2022_allocation.py --n-jobs 2 --out /tmp/zhu --draws-table2 50000
    python examples/zhu2022_allocation.py --out /tmp/zhu --figure-only   # redraw Figure 4 from a saved run
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fairdp_adapters.reporting import _plot_allocation_biases as plot_allocation_biases  # noqa: E402
from fairdp_adapters.reporting import _size_deciles as size_deciles  # noqa: E402
from fairdp_adapters.reporting import allocation_bias_report  # noqa: E402

from fairlearn_dp.allocation import (  # noqa: E402
    BaselineAllocation,
    GaussianNoise,
    LaplaceNoise,
    ProjectionOntoSimplexAllocation,
    monte_carlo,
    project_nonnegative_sum,
    proportional_allocation,
)
from fairlearn_dp.allocation._evaluation import (  # noqa: E402
    NonNegativeSumProjection,  # noqa: E402
    positive_part_bias,
    sum_projection_positive_part_bias,
    theorem1_bounds,
)
from fairlearn_dp.allocation._projections import project_sum  # noqa: E402
from fairlearn_dp.datasets import fetch_hawaii_counties, fetch_school_districts  # noqa: E402
from fairlearn_dp.metrics import alpha_fairness, cost_of_privacy  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "zhu2022"
DEFAULT_N_JOBS = 2

# --- Table 1 (data release) ----------------------------------------------------------------------------------------
TABLE1_DRAWS = 1_000_000
QUICK_TABLE1_DRAWS = 100_000
TABLE1_SEED = 2022
#: The paper's Example 3 mechanisms.
TABLE1_MECHANISMS = (("Laplace", LaplaceNoise(10.0)), ("Gaussian", GaussianNoise(25.0)))
#: Small synthetic counts: several entities within a few noise scales of 0.
SYNTHETIC_COUNTS = (1, 3, 8, 20, 60, 150, 400)
PAPER_HAWAII_TOTAL = 453_558
#: Paper, Table 1 (Hawaii): alpha-fairness, lower, upper.
PAPER_TABLE1 = {"Laplace": (0.0245, 0.0242, 0.0288), "Gaussian": (0.0910, 0.0897, 0.1085)}
#: Multiples of the Monte-Carlo standard error allowed by the inside-the-bounds check.
SE_TOLERANCE = 4.0

# --- Table 2 (downstream allocation) -------------------------------------------------------------------------------
TABLE2_DRAWS = 200_000
QUICK_TABLE2_DRAWS = 2_000
TABLE2_SEED = 2023
EPSILONS = (0.1, 0.01, 0.001)
#: Title I basic grants (paper, Section 5), dollars.
BUDGET = 6.5e9
MECHANISMS = ("BL", "PoS")
REPORT_EPSILON = 0.01
#: Paper, Table 2: (alpha-fairness, cost of privacy as a share of the budget) per (epsilon, mechanism).
PAPER_TABLE2 = {
    (0.1, "BL"): (3.00e-07, 1.62e-05), (0.1, "PoS"): (1.50e-07, 1.41e-05),
    (0.01, "BL"): (1.70e-05, 1.33e-03), (0.01, "PoS"): (1.75e-06, 1.04e-03),
    (0.001, "BL"): (8.06e-04, 5.90e-02), (0.001, "PoS"): (2.23e-05, 3.49e-02),
}
COUNT_COLUMNS = ("children_5_17_in_poverty", "children_5_17")
NOISE_FLOOR_REPLICATES = 200


def _sci(value, digits=3):
    return "nan" if value is None or not np.isfinite(value) else f"{value:.{digits}e}"


def _dollars(value):
    return f"{0.0 if abs(value) < 0.5 else value:,.0f}"      # no "-0"


# ===================================================================================== Table 1 (data release)
class SumProjectionResidual:
    """Statistic ``pi_S+(x~) - pi_S(x~)``: its mean is the bias of ``pi_S+`` (since ``E[pi_S(x~)] = x``)."""

    def __init__(self, total):
        self.total = total

    def __call__(self, rows):
        return project_nonnegative_sum(rows, public_total=self.total) - project_sum(rows, public_total=self.total)


class Lemma2Threshold:
    """Statistic ``T(pi_S(x~))`` of Lemma 2, repeated in every column (``pi_S+ = (pi_S - T)_+``).

    ``T = max_i (pi_S(x~)_i - pi_S+(x~)_i)``: equality on the entries kept positive, ``pi_S_i <= T`` on the
    others.
    """

    def __init__(self, total):
        self.total = total

    def __call__(self, rows):
        gap = project_sum(rows, public_total=self.total) - project_nonnegative_sum(rows, public_total=self.total)
        return np.repeat(gap.max(axis=1, keepdims=True), rows.shape[1], axis=1)


def table1_instances():
    """``[(instance, counts, entity labels)]``: the Hawaii stand-in and the small synthetic instance."""
    hawaii = fetch_hawaii_counties()
    return [("hawaii", hawaii.counts.to_numpy(dtype=np.int64), list(hawaii.counts.index)),
            ("synthetic", np.asarray(SYNTHETIC_COUNTS, dtype=np.int64),
             [f"e{i}" for i in range(len(SYNTHETIC_COUNTS))])]


def _extreme_se(bias_values, std_errors):
    """Standard error of ``max B - min B`` from the standard errors of the two extreme entities."""
    hi, lo = int(np.argmax(bias_values)), int(np.argmin(bias_values))
    return float(math.hypot(std_errors[hi], std_errors[lo]))


def table1_row(instance, counts, labels, mechanism, noise, *, n_draws, seed):
    """Empirical alpha-fairness of ``pi_S+`` and Theorem 1's bounds for one instance and mechanism.

    Three Monte-Carlo runs, all single-process (5-7 entities: fast): (a) ``pi_S+`` with the control variate and
    the Lemma 2 threshold on the same draws; (b) ``theorem1_bounds`` (Monte Carlo for Laplace); (c) the same
    statistics as (b) with the same seed, to get their standard errors and the low-variance lower bound.
    Returns ``(row, entities)``.
    """
    x = counts.astype(float)
    total = float(x.sum())
    smallest, largest = int(np.argmin(x)), int(np.argmax(x))
    spread = float(x[largest] - x[smallest])

    run = monte_carlo(counts, noise, {"pi_S+": NonNegativeSumProjection(total),
                                      "residual": SumProjectionResidual(total), "T": Lemma2Threshold(total)},
                      n_draws=n_draws, random_state=seed, n_jobs=1, progress=False)
    bias = run.means["pi_S+"] - x
    alpha = alpha_fairness(x, run.means["pi_S+"])
    alpha_se = _extreme_se(bias, run.std_errors["pi_S+"])
    bias_cv = run.means["residual"]
    alpha_cv = float(np.ptp(bias_cv))
    alpha_cv_se = _extreme_se(bias_cv, run.std_errors["residual"])
    expected_t = float(run.means["T"][0])

    # theorem1_bounds estimates B((pi_S)_+)_i through E[(pi_S(x~)_i)_-] (equal because E[pi_S(x~)] = x): exact
    # for Gaussian, a low-variance Monte-Carlo mean for Laplace; it also returns Lemma 3's upper bound.
    bounds = theorem1_bounds(counts, noise, n_draws=n_draws, random_state=seed + 1, n_jobs=1, progress=False)
    bounds_se = bounds["std_errors"]["lower"]
    lower_cv, lower_cv_se = float(bounds["lower"]), bounds_se
    upper_thm1_cv = float(bounds["upper"])
    upper_lemma3 = min(spread, float(bounds["upper_lemma3"]))

    tol = SE_TOLERANCE * math.hypot(alpha_se, bounds_se)
    tol_cv = SE_TOLERANCE * math.hypot(alpha_cv_se, lower_cv_se)
    paper = PAPER_TABLE1.get(mechanism) if instance == "hawaii" else None
    row = {
        "instance": instance, "mechanism": mechanism, "noise": noise.describe(), "n_entities": x.size,
        "total_C": total, "x_min": float(x[smallest]), "x_max": float(x[largest]), "n_draws": n_draws,
        "alpha": alpha, "alpha_se": alpha_se, "lower": float(bounds["lower"]), "upper": float(bounds["upper"]),
        "bounds_method": bounds["method"], "bounds_se": bounds_se,
        "inside_bounds_4se": bool(bounds["lower"] - tol <= alpha <= bounds["upper"] + tol),
        "alpha_cv": alpha_cv, "alpha_cv_se": alpha_cv_se, "lower_cv": lower_cv, "lower_cv_se": lower_cv_se,
        "upper_thm1_cv": upper_thm1_cv, "expected_T": expected_t, "upper_lemma3": upper_lemma3,
        "inside_bounds_cv_4se": bool(lower_cv - tol_cv <= alpha_cv <= upper_thm1_cv + tol_cv),
        "paper_alpha": paper[0] if paper else np.nan, "paper_lower": paper[1] if paper else np.nan,
        "paper_upper": paper[2] if paper else np.nan,
        "paper_total_C": PAPER_HAWAII_TOTAL if instance == "hawaii" else np.nan,
    }
    entities = pd.DataFrame({"instance": instance, "mechanism": mechanism, "entity": labels, "count": counts,
                             "bias": bias, "bias_se": run.std_errors["pi_S+"], "bias_cv": bias_cv,
                             "bias_cv_se": run.std_errors["residual"]})
    return row, entities


def run_table1(n_draws, seed=TABLE1_SEED):
    """Table 1 analogue for every instance and mechanism; returns ``(table, entities)``."""
    rows, entities = [], []
    for k, (instance, counts, labels) in enumerate(table1_instances()):
        for j, (mechanism, noise) in enumerate(TABLE1_MECHANISMS):
            row, ent = table1_row(instance, counts, labels, mechanism, noise, n_draws=n_draws,
                                  seed=seed + 10 * (2 * k + j))
            rows.append(row)
            entities.append(ent)
    return pd.DataFrame(rows), pd.concat(entities, ignore_index=True)


def implied_smallest_count(lower=PAPER_TABLE1["Gaussian"][1], sigma=25.0, n=5):
    """The smallest count ``x_1`` (integer) whose exact Gaussian lower bound is closest to the paper's.

    With ``x_n`` far above ``sigma`` the lower bound of Theorem 1 is ``E[(pi_S(x~)_1)_-]``, a function of ``x_1``
    alone (``sum_projection_positive_part_bias``).
    """
    candidates = np.arange(1, 400)
    values = [sum_projection_positive_part_bias(np.array([c] + [10 ** 6] * (n - 1)), sigma)[0] for c in candidates]
    return int(candidates[int(np.argmin(np.abs(np.asarray(values) - lower)))])


def laplace_positive_part_bias(x1, lam=10.0, n=5, step=0.01):
    """``E[(pi_S(x~)_1)_-]`` under Laplace(``lam``) noise, for a count ``x1`` whose ``n - 1`` companions are far
    above the noise (numerical convolution; the Laplace analogue of ``sum_projection_positive_part_bias``).

    ``pi_S(x~)_1 = x1 + Z`` with ``Z = (1 - 1/n) eta_1 - (1/n) sum_{j > 1} eta_j``: the density of ``Z`` is the
    convolution of one Laplace(``lam (n - 1) / n``) and ``n - 1`` Laplace(``lam / n``) densities, on a grid of
    ``step`` over +-40 ``lam``.
    """
    from scipy.signal import fftconvolve

    z = np.arange(-40 * lam, 40 * lam + step / 2, step)

    def laplace(scale):
        return np.exp(-np.abs(z) / scale) / (2 * scale)

    density = laplace(lam * (n - 1) / n)
    for _ in range(n - 1):
        density = fftconvolve(density, laplace(lam / n), mode="same") * step
    density /= density.sum() * step
    values = np.atleast_1d(np.asarray(x1, dtype=float))
    out = np.array([(np.maximum(-(v + z), 0.0) * density).sum() * step for v in values])
    return out if np.ndim(x1) else float(out[0])


def implied_smallest_count_laplace(lower=PAPER_TABLE1["Laplace"][1], lam=10.0, n=5):
    """The smallest count ``x_1`` (integer) whose Laplace lower bound ``E[(pi_S(x~)_1)_-]`` is closest to the
    paper's Laplace lower bound (:func:`laplace_positive_part_bias`; the paper estimated it by Monte Carlo)."""
    candidates = np.arange(1, 200)
    values = laplace_positive_part_bias(candidates, lam=lam, n=n)
    return int(candidates[int(np.argmin(np.abs(values - lower)))])


def _gaussian_smallest_count_bias(x1, sigma=25.0, n=5):
    """Exact Gaussian ``E[(pi_S(x~)_1)_-]`` for a count ``x1`` whose ``n - 1`` companions are far above the noise."""
    return float(sum_projection_positive_part_bias(np.array([x1] + [10 ** 6] * (n - 1)), sigma)[0])


def implied_smallest_counts(candidates=np.arange(1, 200)):
    """The smallest count ``x_1`` each of the paper's Hawaii lower bounds implies, one row per mechanism.

    The lower bound ``E[(pi_S(x~)_1)_-]`` decreases in ``x_1`` (Gaussian: exact formula; Laplace:
    :func:`laplace_positive_part_bias`). Columns: the paper's lower bound, the nearest integer count
    (:func:`implied_smallest_count` / :func:`implied_smallest_count_laplace`), the count interpolated linearly
    between the two integers that bracket the bound and the bounds there, and the other mechanism's bound at the
    implied integer count. The Gaussian bound is exact; the paper's Laplace bound is a Monte-Carlo estimate with a
    standard error of about 0.02, so it constrains ``x_1`` only loosely.
    """
    candidates = np.asarray(candidates)
    curves = {"Gaussian": np.array([_gaussian_smallest_count_bias(c) for c in candidates]),
              "Laplace": laplace_positive_part_bias(candidates)}
    nearest = {"Gaussian": implied_smallest_count(), "Laplace": implied_smallest_count_laplace()}
    rows = []
    for mechanism, other in (("Gaussian", "Laplace"), ("Laplace", "Gaussian")):
        target = PAPER_TABLE1[mechanism][1]
        values = curves[mechanism]
        k = int(np.flatnonzero(values >= target)[-1])          # values[k] >= target > values[k + 1]
        rows.append({
            "mechanism": mechanism, "paper_lower": target, "implied_x1": nearest[mechanism],
            "implied_x1_interpolated": float(candidates[k] + (values[k] - target) / (values[k] - values[k + 1])),
            "x1_below": int(candidates[k]), "lower_at_x1_below": float(values[k]),
            "x1_above": int(candidates[k + 1]), "lower_at_x1_above": float(values[k + 1]),
            "other_mechanism": other,
            "other_lower_at_implied_x1": float(curves[other][np.flatnonzero(candidates == nearest[mechanism])[0]]),
        })
    return pd.DataFrame(rows)


def with_implied_smallest_counts(table, implied):
    """``table`` (Table 1 analogue) with the columns of ``implied_smallest_counts()`` prefixed ``implied_`` on
    the Hawaii rows (the paper's bounds are for Hawaii; NaN elsewhere)."""
    columns = {c: c if c.startswith("implied_") else f"implied_{c}" for c in implied.columns if c != "mechanism"}
    extra = implied.rename(columns=columns).assign(instance="hawaii").drop(columns="implied_paper_lower")
    return table.merge(extra, on=["instance", "mechanism"], how="left", validate="one_to_one")


def table1_markdown(table):
    lines = ["| instance | mechanism | α-fairness (MC ± SE) | lower | upper | bounds | inside (±4 SE) | "
             "α control variate (± SE) | lower, low variance | Lemma 3 upper (lower + E[T]) | "
             "paper α [lower, upper] |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples(index=False):
        paper = (f"{r.paper_alpha:.4f} [{r.paper_lower:.4f}, {r.paper_upper:.4f}]"
                 if np.isfinite(r.paper_alpha) else "-")
        lower = _sci(r.lower) + (f" ± {_sci(r.bounds_se, 1)}" if r.bounds_se > 0 else "")
        lines.append(f"| {r.instance} | {r.mechanism} | {_sci(r.alpha)} ± {_sci(r.alpha_se, 1)} | {lower} | "
                     f"{_sci(r.upper)} | {r.bounds_method} | {'yes' if r.inside_bounds_4se else 'NO'} | "
                     f"{_sci(r.alpha_cv)} ± {_sci(r.alpha_cv_se, 1)} | {_sci(r.lower_cv)} | "
                     f"{_sci(r.upper_lemma3)} | {paper} |")
    return "\n".join(lines)


def table1_notes(table, hawaii_counts, implied=None):
    hawaii = table[table["instance"] == "hawaii"]
    x_min = int(hawaii_counts.min())
    notes = [
        f"Hawaii counts are a DOCUMENTED STAND-IN: ACS 2006-2010 households {list(map(int, hawaii_counts))}, "
        f"total C = {int(hawaii_counts.sum()):,} (the paper's 2010 Census counts total {PAPER_HAWAII_TOTAL:,} and "
        "are not available); the Hawaii rows are not a reproduction of the paper's Table 1.",
        f"Four counties have tens of thousands of households and the noise never brings them near 0, so pi_S+ "
        f"equals pi_S there; only Kalawao ({x_min} households = {x_min / 10:.1f} Laplace scales, "
        f"{x_min / (25 * math.sqrt(0.8)):.1f} standard deviations of pi_S under Gaussian sigma = 25) is ever "
        "projected, so the true bias is tiny.",
    ]
    for r in hawaii.itertuples(index=False):
        if r.alpha < 3 * r.alpha_se:
            notes.append(
                f"Hawaii, {r.mechanism}: the plain Monte-Carlo alpha {_sci(r.alpha)} is within 3 standard errors "
                f"({_sci(r.alpha_se, 2)}) of 0, i.e. mostly Monte-Carlo noise (with {r.n_draws:,} draws each "
                f"county's mean has an error of about noise scale / sqrt(draws)); the control-variate estimate "
                f"{_sci(r.alpha_cv)} ± {_sci(r.alpha_cv_se, 1)} is the actual bias spread.")
    for r in table[(table["bounds_method"] == "monte_carlo") & (table["upper"] < 0)].itertuples(index=False):
        notes.append(
            f"{r.instance}, {r.mechanism}: theorem1_bounds' Monte-Carlo bounds are negative (lower {_sci(r.lower)}, "
            f"upper {_sci(r.upper)}): they are differences of means of (pi_S(x~))_+, which carry the full noise of "
            f"every count (SE {_sci(r.bounds_se, 1)}). The identity B((pi_S)_+)_i = E[(pi_S(x~)_i)_-] (as "
            f"E[pi_S(x~)] = x) gives the low-variance lower bound {_sci(r.lower_cv)} ± {_sci(r.lower_cv_se, 1)} and "
            f"Theorem 1 upper {_sci(r.upper_thm1_cv)}.")
    implied = (implied_smallest_counts() if implied is None else implied).set_index("mechanism")
    gaussian, laplace = implied.loc["Gaussian"], implied.loc["Laplace"]
    notes.append(
        f"For comparison, the paper's Gaussian lower bound {gaussian.paper_lower} corresponds (exact formula) "
        f"to a smallest count of about {gaussian.implied_x1} households ({gaussian.implied_x1_interpolated:.1f}), "
        f"but its Laplace lower bound {laplace.paper_lower} to about {laplace.implied_x1} "
        f"({laplace.implied_x1_interpolated:.1f}; numerical convolution): at {gaussian.implied_x1} the Laplace "
        f"bound would be {gaussian.other_lower_at_implied_x1:.4f}, at {laplace.implied_x1} the Gaussian one "
        f"{laplace.other_lower_at_implied_x1:.4f}. The Gaussian bounds are exact, but the paper's Laplace bounds are "
        f"Monte-Carlo means over its 10^6 runs: a difference of two counties' mean biases has a standard error of "
        f"about sqrt(4 lambda^2 / 10^6) = {math.sqrt(4 * 10.0 ** 2 / 1e6):.2f}, so a smallest county of about "
        f"{gaussian.implied_x1} households is consistent with both rows; the paper reports alphas of 0.02-0.1 "
        "households.")
    notes.append(
        "Theorem 1's upper bound (lower + sum_i E[(pi_S(x~)_i)_-]) is always >= 2 x lower (the sum contains "
        "E[(pi_S(x~)_1)_-] >= lower); the paper's uppers 0.0288 < 2 x 0.0242 and 0.1085 < 2 x 0.0897 are therefore "
        "not that bound: they match Lemma 3 (2b), lower + E[T], reported here as 'Lemma 3 upper'.")
    return notes


# =============================================================================== Table 2 (downstream allocation)
def load_districts(counts_column=COUNT_COLUMNS[0]):
    """SAIPE 2012 districts: ``(counts, frame)`` with ``frame`` = leaid, state, district_name, count."""
    data = fetch_school_districts()
    if counts_column not in COUNT_COLUMNS:
        raise ValueError(f"counts_column must be one of {COUNT_COLUMNS}, got {counts_column!r}.")
    frame = data.frame
    if list(frame["leaid"]) != list(data.counts.index):
        raise RuntimeError("fetch_school_districts returned a frame not aligned with its counts.")
    counts = frame[counts_column].to_numpy(dtype=np.int64)
    info = pd.DataFrame({"leaid": frame["leaid"].to_numpy(), "state": frame["state"].to_numpy(),
                         "district_name": frame["district_name"].to_numpy(), "count": counts})
    return counts, info


def allocation_statistics():
    """The two mechanisms (unit weights) and the noisy counts themselves (for the control variate)."""
    return {"BL": BaselineAllocation(), "PoS": ProjectionOntoSimplexAllocation(), "noisy": np.asarray}


def run_table2_monte_carlo(counts, *, epsilons=EPSILONS, n_draws, n_jobs, seed=TABLE2_SEED, log=print):
    """One Monte-Carlo run per epsilon (both mechanisms on the same draws); returns ``({eps: result}, {eps: s})``."""
    results, seconds = {}, {}
    for k, eps in enumerate(epsilons):
        noise = LaplaceNoise.from_epsilon(eps)
        start = time.perf_counter()
        results[eps] = monte_carlo(counts, noise, allocation_statistics(), n_draws=n_draws,
                                   random_state=seed + k, n_jobs=n_jobs)
        seconds[eps] = time.perf_counter() - start
        log(f"  epsilon = {eps:g} ({noise.describe()}): {n_draws:,} draws x {counts.size:,} districts in "
            f"{seconds[eps]:.1f} s")
    return results, seconds


def control_variate_bias(expected, mean_noisy, counts, true_shares):
    """Bias with the first-order expansion of ``P^F`` as control variate (unit weights).

    ``L(x~) = P + (x~ - x) / X - P (sum(x~) - X) / X`` has ``E[L] = P`` exactly and is linear in ``x~``, so the
    draw-by-draw mean of ``pi(x~) - L(x~)`` is ``mean(pi) - L(mean(x~))``: computable from the means of the same
    draws. It removes the first-order noise of every share and leaves the clipping / projection effects.
    """
    x = counts.astype(float)
    total = x.sum()
    return (expected - true_shares - (mean_noisy - x) / total
            + true_shares * (mean_noisy.sum() - total) / total)


def bl_first_order_bias(counts, noise, true_shares):
    """``E[(x~)_+] / sum_j E[(x~_j)_+] - P^F(x)``: ``pi_BL``'s bias to first order (exact positive parts)."""
    expected_positive = counts.astype(float) + positive_part_bias(counts, noise)
    return expected_positive / expected_positive.sum() - true_shares


def noise_floor(std_errors, *, rng, replicates=NOISE_FLOOR_REPLICATES):
    """``(alpha, cost share)`` an exactly unbiased mechanism would show with these Monte-Carlo standard errors."""
    fake = rng.standard_normal((replicates, std_errors.size)) * std_errors
    alpha = float(np.ptp(fake, axis=1).mean())
    cost = float(std_errors.sum() / math.sqrt(2 * math.pi))     # E[(se Z)_-] = se / sqrt(2 pi)
    return alpha, cost


def table2_rows(counts, info, results, seconds, true_shares, *, budget=BUDGET, seed=TABLE2_SEED,
                counts_column=COUNT_COLUMNS[0]):
    """Metrics per (epsilon, mechanism) and the per-district bias table."""
    rng = np.random.default_rng(seed)
    nyc = int(np.argmax(counts))
    rows = []
    districts = info.copy()
    districts["true_share"] = true_shares
    for eps, result in results.items():
        noise = LaplaceNoise.from_epsilon(eps)
        bl_first = bl_first_order_bias(counts, noise, true_shares)
        for mechanism in MECHANISMS:
            expected = result.means[mechanism]
            se = result.std_errors[mechanism]
            bias = expected - true_shares
            bias_cv = control_variate_bias(expected, result.means["noisy"], counts, true_shares)
            floor_alpha, floor_cost = noise_floor(se, rng=rng)
            worst = int(np.argmin(bias))
            paper = PAPER_TABLE2.get((eps, mechanism), (np.nan, np.nan))
            cost_dollars = cost_of_privacy(true_shares, expected, budget=budget)
            rows.append({
                "epsilon": eps, "lambda": noise.lam, "mechanism": mechanism, "n_draws": result.n_draws,
                "alpha": alpha_fairness(true_shares, expected),
                "alpha_se": _extreme_se(bias, se),
                "alpha_noise_floor": floor_alpha,
                "cost_dollars": cost_dollars,
                "cost_share": cost_dollars / budget,
                "cost_l1_share": cost_of_privacy(true_shares, expected, budget=1.0, form="l1"),
                "cost_noise_floor_share": floor_cost,
                "nyc_under_allocation_dollars": -bias[nyc] * budget,
                "nyc_under_allocation_se_dollars": se[nyc] * budget,
                "max_under_allocation_dollars": -bias[worst] * budget,
                "max_under_allocation_district": f"{info['district_name'].iloc[worst]} ({info['leaid'].iloc[worst]})",
                "alpha_cv": float(np.ptp(bias_cv)),
                "cost_cv_share": float(-bias_cv[bias_cv < 0].sum()),
                "nyc_under_allocation_cv_dollars": -bias_cv[nyc] * budget,
                "bl_first_order_alpha": float(np.ptp(bl_first)) if mechanism == "BL" else np.nan,
                "bl_first_order_cost_share": float(-bl_first[bl_first < 0].sum()) if mechanism == "BL" else np.nan,
                "paper_alpha": paper[0], "paper_cost_share": paper[1],
                "budget_dollars": budget, "counts_column": counts_column, "n_districts": counts.size,
                "total_count": int(counts.sum()),
                "seconds_for_epsilon": seconds[eps],
            })
            districts[f"bias_{mechanism}_eps{eps:g}"] = bias
            districts[f"se_{mechanism}_eps{eps:g}"] = se
            districts[f"bias_cv_{mechanism}_eps{eps:g}"] = bias_cv
    return pd.DataFrame(rows), districts


def table2_markdown(table):
    keys = [(eps, m) for eps in dict.fromkeys(table["epsilon"]) for m in MECHANISMS]
    lookup = {(r.epsilon, r.mechanism): r for r in table.itertuples(index=False)}
    header = "| Privacy budget | " + " | ".join(f"ε = {eps:g}, π_{m}" for eps, m in keys) + " |"
    lines = [header, "|---" * (len(keys) + 1) + "|"]

    def line(label, fmt):
        lines.append(f"| {label} | " + " | ".join(fmt(lookup[k]) for k in keys) + " |")

    line("α-fairness", lambda r: _sci(r.alpha, 2))
    line("  paper", lambda r: _sci(r.paper_alpha, 2))
    line("Cost of privacy (share of B)", lambda r: _sci(r.cost_share, 2))
    line("  paper", lambda r: _sci(r.paper_cost_share, 2))
    line("Cost of privacy ($)", lambda r: f"{r.cost_dollars:,.0f}")
    line("NYC expected under-allocation ($)", lambda r: f"{r.nyc_under_allocation_dollars:,.0f} "
                                                         f"± {r.nyc_under_allocation_se_dollars:,.0f}")
    line("Largest under-allocation ($)", lambda r: f"{r.max_under_allocation_dollars:,.0f}")
    line("MC SE of α", lambda r: _sci(r.alpha_se, 1))
    line("MC noise floor: α / cost share", lambda r: f"{_sci(r.alpha_noise_floor, 1)} / "
                                                      f"{_sci(r.cost_noise_floor_share, 1)}")
    line("Control variate: α / cost share", lambda r: f"{_sci(r.alpha_cv, 2)} / {_sci(r.cost_cv_share, 2)}")
    line("BL first-order analytic: α / cost share",
         lambda r: (f"{_sci(r.bl_first_order_alpha, 2)} / {_sci(r.bl_first_order_cost_share, 2)}"
                    if r.mechanism == "BL" else "-"))
    return "\n".join(lines)


def table2_notes(table, counts, counts_column):
    notes = [
        f"Data: SAIPE 2012 school districts ({counts.size:,}, counts `{counts_column}`, total {int(counts.sum()):,}) "
        "with unit weights a_i = 1: the paper used ~16,000 districts from 2010 data with per-district weights a_i, "
        "which are unavailable (fetch_school_districts(state_weights=...) accepts a weight per state). Only the "
        "qualitative pattern is expected to match the paper.",
        "Cost of privacy = B x sum of the negative biases (Def. 5); the paper's Table 2 reports it as a share of "
        "B (e.g. 1.62E-05 for BL at epsilon = 0.1), the 'share of B' row. 'Cost l1' (Prop. 3) agrees to rounding.",
        "MC noise floor: the alpha / cost share an exactly unbiased mechanism would show with the same "
        "per-district Monte-Carlo standard errors; values near it are dominated by Monte-Carlo noise. The control "
        "variate (same draws) removes the first-order noise of every share.",
    ]
    pattern = []
    for eps in dict.fromkeys(table["epsilon"]):
        bl = table[(table["epsilon"] == eps) & (table["mechanism"] == "BL")].iloc[0]
        pos = table[(table["epsilon"] == eps) & (table["mechanism"] == "PoS")].iloc[0]
        pattern.append(f"epsilon = {eps:g}: alpha BL/PoS = {bl.alpha / pos.alpha:.3g}, cost BL/PoS = "
                       f"{bl.cost_share / pos.cost_share:.3g} (paper: "
                       f"{bl.paper_alpha / pos.paper_alpha:.3g}, {bl.paper_cost_share / pos.paper_cost_share:.3g})")
    notes.append("Ratios, ours vs paper -- " + "; ".join(pattern) + ".")
    return notes


def write_report(counts, info, true_shares, results, out, *, eps=REPORT_EPSILON, budget=BUDGET):
    """``allocation_bias_report`` by state and size decile for BL and PoS at ``eps``; one CSV per grouping."""
    groupings = {"state": info["state"].to_numpy(), "size_decile": size_deciles(counts)}
    tables = {name: [] for name in groupings}
    for mechanism in MECHANISMS:
        frames = allocation_bias_report(true_shares, results[eps].means[mechanism], budget=budget,
                                        groupings=groupings)
        for name, frame in frames.items():
            block = pd.concat([frame.overall.to_frame().T.rename(index={0: "overall"}), frame.by_group])
            block.index = ["overall"] + [str(g) for g in frame.by_group.index]
            block.index.name = name
            block.insert(0, "mechanism", mechanism)
            tables[name].append(block)
    paths = {}
    for name, blocks in tables.items():
        table = pd.concat(blocks)
        if name == "size_decile":                       # D1 ... D10, not D1, D10, D2 ...
            rank = {"overall": 0} | {f"D{d}": d for d in range(1, 11)}
            table = (table.assign(_rank=[rank[g] for g in table.index])
                     .sort_values(["mechanism", "_rank"], kind="stable").drop(columns="_rank"))
        paths[name] = out / f"report_eps{eps:g}_by_{name}.csv"
        table.to_csv(paths[name])
        tables[name] = table
    return tables, paths


def decile_markdown(table):
    wide = table.reset_index().pivot(index="size_decile", columns="mechanism",
                                     values=["mean_bias", "misallocated_funds", "cost_of_privacy"])
    order = ["overall"] + [f"D{d}" for d in range(1, 11)]
    lines = ["| size decile | mean bias BL | mean bias PoS | net funds BL ($) | net funds PoS ($) | "
             "cost of privacy BL ($) | cost of privacy PoS ($) |", "|---|---|---|---|---|---|---|"]
    for g in order:
        r = wide.loc[g]
        lines.append(f"| {g} | {_sci(r[('mean_bias', 'BL')], 2)} | {_sci(r[('mean_bias', 'PoS')], 2)} | "
                     f"{_dollars(r[('misallocated_funds', 'BL')])} | {_dollars(r[('misallocated_funds', 'PoS')])} | "
                     f"{_dollars(r[('cost_of_privacy', 'BL')])} | {_dollars(r[('cost_of_privacy', 'PoS')])} |")
    return "\n".join(lines)


def plot_figure4(true_shares, districts, epsilons, path, *, control_variate=False):
    prefix = "bias_cv" if control_variate else "bias"
    biases = {(f"ε = {eps:g}", m): districts[f"{prefix}_{m}_eps{eps:g}"].to_numpy()
              for eps in epsilons for m in MECHANISMS}
    title = ("Figure 4 analogue: bias of E[π(x~)] vs true share (SAIPE 2012, unit weights"
             + (", control variate)" if control_variate else ", plain Monte Carlo)"))
    return plot_allocation_biases(true_shares, biases, path=path, budget=BUDGET, title=title)


# ================================================================================================== main
def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke test: {QUICK_TABLE1_DRAWS:,} / {QUICK_TABLE2_DRAWS:,} draws")
    parser.add_argument("--n-jobs", type=int, default=DEFAULT_N_JOBS,
                        help=f"joblib workers for the Table 2 Monte Carlo (default {DEFAULT_N_JOBS})")
    parser.add_argument("--draws-table1", type=int, default=None,
                        help=f"draws per Table 1 run (default {TABLE1_DRAWS:,}; {QUICK_TABLE1_DRAWS:,} with --quick)")
    parser.add_argument("--draws-table2", type=int, default=None,
                        help=f"draws per epsilon (default {TABLE2_DRAWS:,}; {QUICK_TABLE2_DRAWS:,} with --quick)")
    parser.add_argument("--counts-column", choices=COUNT_COLUMNS, default=COUNT_COLUMNS[0],
                        help="SAIPE column used as counts x_i (default: children in poverty, the Title I count)")
    parser.add_argument("--figure-only", action="store_true",
                        help="redraw the two Figure 4 PNGs from table2_district_biases.csv.gz of an earlier run "
                             "in --out (no Monte Carlo)")
    args = parser.parse_args(argv)
    if args.draws_table1 is None:
        args.draws_table1 = QUICK_TABLE1_DRAWS if args.quick else TABLE1_DRAWS
    if args.draws_table2 is None:
        args.draws_table2 = QUICK_TABLE2_DRAWS if args.quick else TABLE2_DRAWS
    if args.draws_table1 < 2 or args.draws_table2 < 2:
        parser.error("--draws-table1 and --draws-table2 must be >= 2")
    if args.n_jobs == 0:
        parser.error("--n-jobs must not be 0")
    return args


def redraw_figure4(out):
    """Both Figure 4 PNGs from the per-district biases saved by an earlier run in ``out``; returns their paths."""
    out = Path(out)
    saved = out / "table2_district_biases.csv.gz"
    if not saved.is_file():
        raise SystemExit(f"--figure-only: {saved} not found (run the script without --figure-only first)")
    districts = pd.read_csv(saved, dtype={"leaid": str})
    true_shares = districts["true_share"].to_numpy()
    paths = {"figure4": out / "figure4_biases.png", "figure4_cv": out / "figure4_biases_control_variate.png"}
    plot_figure4(true_shares, districts, EPSILONS, paths["figure4"])
    plot_figure4(true_shares, districts, EPSILONS, paths["figure4_cv"], control_variate=True)
    return paths


def _peak_memory_mb():
    """Peak resident memory (MB) of this process and of its terminated, waited-for children (Linux: KB units)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def main(argv=None):
    """Run both experiments; returns a dict with the tables, output paths and run times."""
    args = parse_args(argv)
    if args.figure_only:
        paths = redraw_figure4(args.out)
        print("Redrawn: " + ", ".join(str(path) for path in paths.values()))
        return {"paths": paths}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lines = []

    def log(text=""):
        print(text, flush=True)
        lines.append(text)

    paths = {}
    start = time.perf_counter()
    log("# Zhu, Fioretto & Van Hentenryck (IJCAI 2022) with fairdp")
    log(f"\nTable 1 draws: {args.draws_table1:,}; Table 2 draws per epsilon: {args.draws_table2:,}; "
        f"n_jobs (Table 2) = {args.n_jobs}\n")

    # ---- Table 1
    log("## Table 1 analogue: alpha-fairness of pi_S+ and Theorem 1 bounds")
    t1_start = time.perf_counter()
    table1, entities1 = run_table1(args.draws_table1)
    implied = implied_smallest_counts()
    table1 = with_implied_smallest_counts(table1, implied)
    t1_seconds = time.perf_counter() - t1_start
    paths["table1"] = out / "table1_data_release.csv"
    paths["table1_entities"] = out / "table1_entities.csv"
    table1.to_csv(paths["table1"], index=False)
    entities1.to_csv(paths["table1_entities"], index=False)
    log("")
    log(table1_markdown(table1))
    log("")
    for note in table1_notes(table1, table1_instances()[0][1], implied):
        log(f"- {note}")
    log(f"\nTable 1: {t1_seconds:.1f} s")

    # ---- Table 2
    log("\n## Table 2 analogue: BL vs PoS allocation of B = $6.5e9")
    counts, info = load_districts(args.counts_column)
    true_shares = proportional_allocation(counts)
    t2_start = time.perf_counter()
    results, seconds = run_table2_monte_carlo(counts, n_draws=args.draws_table2, n_jobs=args.n_jobs, log=log)
    t2_mc_seconds = time.perf_counter() - t2_start
    table2, districts = table2_rows(counts, info, results, seconds, true_shares, counts_column=args.counts_column)
    paths["table2"] = out / "table2_allocation.csv"
    paths["district_biases"] = out / "table2_district_biases.csv.gz"
    table2.to_csv(paths["table2"], index=False)
    districts.to_csv(paths["district_biases"], index=False, compression="gzip", float_format="%.8g")
    log("")
    log(table2_markdown(table2))
    log("")
    for note in table2_notes(table2, counts, args.counts_column):
        log(f"- {note}")

    reports, report_paths = write_report(counts, info, true_shares, results, out)
    paths.update({f"report_{name}": path for name, path in report_paths.items()})
    log(f"\n### allocation_bias_report at epsilon = {REPORT_EPSILON:g}, by district-size decile")
    log("")
    log(decile_markdown(reports["size_decile"]))

    paths["figure4"] = out / "figure4_biases.png"
    paths["figure4_cv"] = out / "figure4_biases_control_variate.png"
    plot_figure4(true_shares, districts, EPSILONS, paths["figure4"])
    plot_figure4(true_shares, districts, EPSILONS, paths["figure4_cv"], control_variate=True)
    t2_seconds = time.perf_counter() - t2_start
    elapsed = time.perf_counter() - start

    own_mb, children_mb = _peak_memory_mb()
    log("\n## Run time and memory")
    log(f"- Table 1: {t1_seconds:.1f} s; Table 2 Monte Carlo: {t2_mc_seconds:.1f} s "
        f"({', '.join(f'eps {e:g}: {s:.1f} s' for e, s in seconds.items())}); Table 2 with report and plots: "
        f"{t2_seconds:.1f} s; total {elapsed:.1f} s")
    log(f"- Peak RSS: this process {own_mb:.0f} MB; largest terminated child {children_mb:.0f} MB (joblib workers "
        "still alive are not counted: run under /usr/bin/time -v for the whole process tree)")
    paths["summary"] = out / "summary.md"
    log("\nFiles:")
    for path in paths.values():
        log(f"  {path}")
    paths["summary"].write_text("\n".join(lines) + "\n")
    return {"paths": paths, "table1": table1, "table1_entities": entities1, "table1_implied": implied,
            "table2": table2,
            "districts": districts, "reports": reports, "seconds": {"table1": t1_seconds, "table2": t2_seconds,
                                                                    "table2_per_epsilon": seconds,
                                                                    "total": elapsed},
            "peak_rss_mb": {"self": own_mb, "children": children_mb}, "markdown": "\n".join(lines)}


if __name__ == "__main__":
    main()
