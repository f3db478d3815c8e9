"""Every number a docs page states about a run is recomputed from a committed file (a stale page fails here).

Scope: the gallery pages ``docs/gallery_src/plot_*.py`` (their rst docstring and ``#`` comments, not the code),
the module docstrings of ``examples/*.py`` and the README's results table. Not here:
``plot_2_jagielski2019_postprocessing.py`` and ``examples/jagielski2019_postprocessing.py``, whose figures the page
renders from its CSV at build time (f-strings), and the README's benchmark table (tests/benchmarks).

Two checks, so that the test cannot pass vacuously:

- :data:`FIGURES`, the registry of stated figures: (page, the exact text around the figure with ``{...}`` format
  fields, the committed files it comes from, a function recomputing the values from them). Each is rendered from
  the files and must appear verbatim in the page's prose.
- the completeness scan: every decimal number, percentage and ``Nx`` ratio in a page's prose must lie inside a
  registered figure's text or inside an :data:`ALLOWED` snippet, which names why the number is not a run figure
  (a parameter, a goal, a grid, the paper's published value, arithmetic on stated inputs, ...). Snippets marked
  ``UNTIED`` are run figures with no committed source yet; they are listed by
  :func:`test_untied_figures_are_few`, which pins their number so that none is added silently.

Machine-dependent figures are stated as ranges over committed runs on several BLAS kernels (the blind page).

To refresh after a change of results: re-run the command each page names (the default run of the script, or the
options stated on the page), copy its output files to ``docs/img/`` (``--publish`` where the script has it), run
this module and update each sentence it reports to the value it prints ("... gives '<text>', not on the page").
The files of this module's figures:

- Adult (``plot_4``): ``python examples/adult_inprocessing.py --seeds 10`` with ``--constraint eo --epsilons 0.5 1
  inf``, ``--sensitive race --epsilons 0.5 1 inf`` and ``--sensitive race --constraint eo --epsilons 0.5 1 inf``;
  copy ``adult_inprocessing_<sensitive>_<constraint>.csv`` (per seed) and ``..._summary.csv`` from ``--out``. A
  change that moves one method only: ``--out docs/img --methods <method> --update`` with the same options re-runs
  that method's fits and keeps the other rows (issue 36 re-ran ``paper`` this way: its final choice against the
  constants).
- blind (``plot_7``, README): ``--publish`` for the summaries; for each of ``OPENBLAS_CORETYPE=Haswell``,
  ``Prescott`` and ``SkylakeX`` (with ``OPENBLAS_NUM_THREADS=1``) and first seed 0 and 100,
  ``python examples/blind_fair_regression.py --epsilons 1 --alphas 0.1 --first-seed <s> --out <dir>``, the six
  ``per_seed.csv`` concatenated into ``blind_fair_regression_goal_per_kernel.csv``; with ``OPENBLAS_CORETYPE=Haswell``,
  ``--epsilons 1 --alphas 0.05 0.1 --noise-margin 0``'s ``summary.csv`` as ``blind_fair_regression_summary_noise_margin0.csv``.

The slow leg (``-m slow``) re-runs a seed subset of the regenerated runs (seed 0 of each Adult run, seeds 0-4 of the
blind goal) and compares it with the committed per-seed rows, so a code change that moves the results fails CI until
the files, and hence the pages, are regenerated.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
GALLERY = ROOT / "docs" / "gallery_src"
EXAMPLES = ROOT / "examples"

#: a decimal number (0.828, .5), or an integer or decimal with a percent sign or an ``x`` ratio suffix (26%, 3x)
NUMBER = re.compile(r"(?<![\w.])(?:\d+(?:[.,]\d+)*(?:\s?%|x)|\d*\.\d+)(?!\w|\.\d)")    # a full stop may follow


def _normalise(text):
    return " ".join(text.split())


def prose(path):
    """What a page states: a gallery page's docstring and comments, a script's docstring, the README's results
    table; whitespace normalised (line breaks and comment markers do not split a figure's text)."""
    text = path.read_text(encoding="utf-8")
    if path.name == "README.md":
        start = text.index("| paper | script | what holds |")
        return _normalise(text[start:text.index("\n\n", start)])
    parts = [ast.get_docstring(ast.parse(text), clean=False) or ""]
    if path.parent == GALLERY:
        parts += [token.string.lstrip("#") for token in tokenize.generate_tokens(io.StringIO(text).readline)
                  if token.type == tokenize.COMMENT]
    return _normalise("\n".join(parts))


@dataclass(frozen=True)
class Figure:
    """A stated figure: ``template.format(*values(*frames))`` must appear in ``page``'s prose."""

    page: str
    template: str
    sources: tuple
    values: Callable

    def render(self, read):
        return _normalise(self.template.format(*self.values(*[read(name) for name in self.sources])))


def _read(name):
    return pd.read_csv(IMG / name, dtype={"group": str}) if name.endswith(".csv") else None


def _where(frame, **equal):
    mask = pd.Series(True, index=frame.index)
    for column, value in equal.items():
        mask &= frame[column].isna() if value is None else frame[column] == value
    return frame[mask]


def _one(frame, **equal):
    rows = _where(frame, **equal)
    assert len(rows) == 1, f"{len(rows)} rows for {equal}"
    return rows.iloc[0]


def _pct(share):
    return round(100 * share)


# ----------------------------------------------------------------------------------------------- the registry
P4, P5, P6, P7 = ("plot_4_adult_inprocessing.py", "plot_5_zhu2022.py", "plot_6_budget2023.py",
                  "plot_7_blind_fair_regression.py")
README = "README.md"
SEX_DP, SEX_EO = "adult_inprocessing_sex_dp.csv", "adult_inprocessing_sex_eo.csv"
RACE_DP, RACE_EO = "adult_inprocessing_race_dp.csv", "adult_inprocessing_race_eo.csv"
RACE_DP_SUMMARY, RACE_EO_SUMMARY = "adult_inprocessing_race_dp_summary.csv", "adult_inprocessing_race_eo_summary.csv"
BLIND, BLIND_100 = "blind_fair_regression_summary.csv", "blind_fair_regression_summary_seeds100-149.csv"
BLIND_KERNELS = "blind_fair_regression_goal_per_kernel.csv"
BLIND_MARGIN0 = "blind_fair_regression_summary_noise_margin0.csv"
ZHU2, ZHU2_CHILDREN = "zhu2022_table2.csv", "zhu2022_table2_children_5_17.csv"


def _seed(frame, method, seed, epsilon=1.0):
    return _one(frame, method=method, epsilon=math.inf if method == "fairlearn" else epsilon, seed=seed)


def _fit(frame, method, seed, epsilon=1.0):
    row = _seed(frame, method, seed, epsilon)
    return row["accuracy"], row["violation"]


def _stat(summary, method, epsilon=1.0):
    row = _one(summary, method=method, epsilon=epsilon)
    return row["accuracy_mean"], row["accuracy_std"], row["violation_mean"], row["violation_std"]


def _range(frame, method, column, epsilon=1.0):
    values = _where(frame, method=method, epsilon=epsilon)[column]
    return values.min(), values.max()


def _goal(summary, mode="blind"):
    return _one(summary, mode=mode, epsilon=1.0, alpha=0.1)


def _blind_stated(summary, mode="blind"):
    row = _goal(summary, mode)
    return row["ks_mean"], row["ks_std"]


def _seeds(per_kernel, first_seed, mode="blind"):
    """The rows of one 50-seed set (``first_seed``, ..., ``first_seed + 49``) of the per-kernel goal runs."""
    rows = _where(per_kernel, mode=mode)
    return rows[rows["seed"].between(first_seed, first_seed + 49)]


def _kernel_shares(per_kernel, first_seed, mode="blind"):
    """The share of seeds above the goal per BLAS kernel, as whole percents: (lowest, highest)."""
    rows = _seeds(per_kernel, first_seed, mode)
    shares = rows.groupby("blas_kernel")["ks"].apply(lambda ks: _pct((ks > 0.15).mean()))
    return shares.min(), shares.max()


def _kernel_means(per_kernel, first_seed):
    means = _seeds(per_kernel, first_seed).groupby("blas_kernel")["ks"].mean()
    return means.min(), means.max()


def _kernel_names(per_kernel):
    return (", ".join(sorted(per_kernel["blas_kernel"].unique())),)


def _summary_kernel(summary, per_kernel):
    """The kernel whose goal run on seeds 0-49 gives the committed summary's blind KS mean (to round-off)."""
    means = _seeds(per_kernel, 0).groupby("blas_kernel")["ks"].mean()
    match = means[(means - _goal(summary)["ks_mean"]).abs() < 1e-12]
    assert len(match) >= 1, f"no committed kernel run gives the summary's mean {_goal(summary)['ks_mean']}"
    return (" / ".join(match.index),)


def _xian_max_z():
    """The largest |z| (as printed, one decimal) of the table the Xian page renders from the committed summary."""
    from fairdp_adapters._checkout import load_example

    table = load_example("xian2024_reproduce.py").render_readme_table(IMG / "xian2024_summary.csv")
    rows = [[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in table.splitlines()]
    z_columns = [i for i, name in enumerate(rows[0]) if name == "z"]
    return max(abs(float(row[i])) for row in rows[2:] for i in z_columns if row[i] not in ("–", ""))


def _zhu_ratio(frame):
    cells = pd.concat([frame["alpha"] / frame["paper_alpha"], frame["cost_share"] / frame["paper_cost_share"]])
    return cells.min(), cells.max()


FIGURES = [
    # --- plot_4: Adult, the statistics game (per-seed files: the script's adult_inprocessing_<stem>.csv)
    Figure(P4, "**test accuracy {:.3f}, DP difference {:.3f}** at ε = 1", (SEX_DP,),
           lambda f: _fit(f, "statistics", 0)),
    Figure(P4, "(Fairlearn's non-private ``ExponentiatedGradient``: {:.3f} / {:.3f}; the majority class: {:.3f})",
           (SEX_DP,), lambda f: (*_fit(f, "fairlearn", 0), _seed(f, "fairlearn", 0)["majority"])),
    Figure(P4, "meets the goal at ε = 1: accuracy {:.3f}–{:.3f}, DP difference {:.3f}–{:.3f}", (SEX_DP,),
           lambda f: (*_range(f, "statistics", "accuracy"), *_range(f, "statistics", "violation"))),
    Figure(P4, "At ε = 1, {} of the 10 seeds are within the goal's 0.06 (seed 0: {:.3f} / {:.3f}); the largest, "
               "seed {}, gives {:.3f}, where Fairlearn's non-private fit has {:.3f}", (SEX_EO,),
           lambda f: (int((_where(f, method="statistics", epsilon=1.0)["violation"] <= 0.06).sum()),
                      *_fit(f, "statistics", 0), *_eo_worst(f))),
    Figure(P4, "Fairlearn's non-private algorithm does not meet the 0.05 on these splits either ({:.3f} on average)",
           (RACE_DP_SUMMARY,), lambda s: (_stat(s, "fairlearn", math.inf)[2],)),
    Figure(P4, "The result is {:.3f} ± {:.3f} / {:.3f} ± {:.3f}", (RACE_DP_SUMMARY,),
           lambda s: _stat(s, "statistics")),
    Figure(P4, "Fairlearn's non-private fit, at {:.3f} less accuracy", (RACE_DP_SUMMARY,),
           lambda s: (_stat(s, "fairlearn", math.inf)[0] - _stat(s, "statistics")[0],)),
    Figure(P4, "Fairlearn's non-private fit gives {:.3f} on seed 0", (RACE_EO,),
           lambda f: (_fit(f, "fairlearn", 0)[1],)),
    Figure(P4, "Even Fairlearn's non-private fit has {:.3f} ± {:.3f}; the private fit's {:.3f} ± {:.3f}",
           (RACE_EO_SUMMARY,), lambda s: (*_stat(s, "fairlearn", math.inf)[2:], *_stat(s, "statistics")[2:])),
    Figure(P4, "at {:.3f} less accuracy", (RACE_EO_SUMMARY,),
           lambda s: (_stat(s, "fairlearn", math.inf)[0] - _stat(s, "statistics")[0],)),
    # --- plot_7 and the README: the attribute-blind post-processor on Law School
    Figure(P7, "On seeds 0-49 the blind map's test KS is {:.3f} ± {:.3f} and exceeds 0.15 on {:.0f}% of the seeds "
               "(worst {:.3f}); on seeds 100-149 it is {:.3f} ± {:.3f}, above 0.15 on {:.0f}% (worst {:.3f})",
           (BLIND, BLIND_100), lambda a, b: (*_blind_stated(a), _pct(_goal(a)["ks_above_goal"]), _goal(a)["ks_max"],
                                             *_blind_stated(b), _pct(_goal(b)["ks_above_goal"]),
                                             _goal(b)["ks_max"])),
    Figure(P7, "The share above 0.15 depends on the machine: {}–{}% of seeds 0-49 and {}–{}% of seeds 100-149 (mean "
               "test KS {:.3f}–{:.3f} and {:.3f}–{:.3f})", (BLIND_KERNELS,),
           lambda k: (*_kernel_shares(k, 0), *_kernel_shares(k, 100), *_kernel_means(k, 0), *_kernel_means(k, 100))),
    Figure(P7, "(OpenBLAS kernels {})", (BLIND_KERNELS,), _kernel_names),
    Figure(P7, "the tables on this page come from the {} kernel", (BLIND, BLIND_KERNELS), _summary_kernel),
    Figure(P7, "The aware map gives {:.3f} ± {:.3f} and {:.3f} ± {:.3f} (above 0.15 on {:.0f}% and {:.0f}% of the "
               "seeds), against {:.2f} without post-processing; its MSE is {:.3f}, the blind map's {:.3f}",
           (BLIND, BLIND_100), lambda a, b: (*_blind_stated(a, "aware"), *_blind_stated(b, "aware"),
                                             _pct(_goal(a, "aware")["ks_above_goal"]),
                                             _pct(_goal(b, "aware")["ks_above_goal"]),
                                             _one(a, mode="raw")["ks_mean"], _goal(a, "aware")["mse_mean"],
                                             _goal(a)["mse_mean"])),
    Figure(P7, "The spread over seeds (about {:.3f}) is close to that of the raw targets' own test KS ({:.3f})",
           (BLIND,), lambda a: (_goal(a)["ks_std"], _one(a, mode="raw")["ks_std"])),
    Figure(P7, "the same setting gives {:.3f} ± {:.3f} at MSE {:.4f} ({:.0f}% of the seeds above 0.15), and α = 0.05 "
               "gives {:.3f} ± {:.3f} at MSE {:.4f}", (BLIND_MARGIN0,),
           lambda m: (*_blind_stated(m), _goal(m)["mse_mean"], _pct(_goal(m)["ks_above_goal"]),
                      _one(m, mode="blind", epsilon=1.0, alpha=0.05)["ks_mean"],
                      _one(m, mode="blind", epsilon=1.0, alpha=0.05)["ks_std"],
                      _one(m, mode="blind", epsilon=1.0, alpha=0.05)["mse_mean"])),
    Figure(README, "seeds 0-49: test KS {:.2f} → {:.3f} ± {:.3f} blind, above the 0.15 goal on {}–{}% of the seeds by "
                   "BLAS kernel (seeds 100-149: {:.3f} ± {:.3f}, {}–{}%); {:.3f} ± {:.3f} aware ({:.0f}%); MSE {:.3f} "
                   "vs {:.3f}",
           (BLIND, BLIND_100, BLIND_KERNELS),
           lambda a, b, k: (_one(a, mode="raw")["ks_mean"], *_blind_stated(a), *_kernel_shares(k, 0),
                            *_blind_stated(b), *_kernel_shares(k, 100), *_blind_stated(a, "aware"),
                            _pct(_goal(a, "aware")["ks_above_goal"]), _goal(a)["mse_mean"],
                            _goal(a, "aware")["mse_mean"])),
    # --- Zhu et al.: ours / the paper's, cell by cell (the page prints the same from the same files)
    Figure(P5, "ours are {:.0f}x to {:.0f}x the paper's", (ZHU2,), _zhu_ratio),
    Figure(P5, "is between {:.2f}x and {:.1f}x the paper's", (ZHU2_CHILDREN,), _zhu_ratio),
    Figure(README, "every cell {:.2f}–{:.1f}x the paper's ({:.0f}–{:.0f}x with the children in poverty)",
           (ZHU2_CHILDREN, ZHU2), lambda c, p: (*_zhu_ratio(c), *_zhu_ratio(p))),
    # --- Xian et al.: the largest |z| of the table the page renders from the summary
    Figure("plot_1_xian2024.py", "every cell is within {:.1f} combined standard errors", ("xian2024_summary.csv",),
           lambda _: (_xian_max_z(),)),
    Figure(README, "every cell within {:.1f} combined standard errors", ("xian2024_summary.csv",),
           lambda _: (_xian_max_z(),)),
    # --- Jagielski et al. in-processing: the non-private game's in-sample violation at both ends of the gamma sweep
    Figure("jagielski2019_inprocessing.py", "(non-private, in-sample: violation {:.3f} at gamma = 0 and {:.3f} at "
           "gamma = 1;", ("jagielski2019_inprocessing_summary.csv",),
           lambda s: tuple(_one(s, setting="regression", epsilon=math.inf, gamma=g)["eo_violation_train_mean"]
                           for g in (0.0, 1.0))),
    # --- the budget-tailoring page: the pooled fit's group-1 MSPE without noise; the paper's DPNoSE group 1
    Figure(P6, "our pooled fit's group-1 MSPE is {:.2f}", ("budget2023_tables.csv",),
           lambda t: (_one(t, reading="pooled", dataset="synthetic", group="1", rho=2.0)["nonprivate_dpnose_mspe"],)),
    Figure(P6, "the paper's DPNoSE has group-1 MSPE {:.2f}-{:.2f}", ("budget2023_tables.csv",),
           lambda t: tuple(sorted(_where(t, reading="group_mean", dataset="synthetic", group="1")
                                  ["paper_dpnose_mspe"].dropna().agg(["min", "max"])))),
]


def _eo_worst(frame):
    """The seed with the largest equalized-odds difference at epsilon = 1, its value and Fairlearn's on it."""
    private = _where(frame, method="statistics", epsilon=1.0).set_index("seed")["violation"]
    seed = int(private.idxmax())
    return seed, private[seed], _fit(frame, "fairlearn", seed)[1]


# ------------------------------------------------------------------------------ numbers that are not run figures
PARAMETER, GOAL, GRID, PAPER = "a parameter of the run", "the goal set for the method", "the grid the run sweeps", \
    "the paper's published value"
TIMING = "a wall or CPU time, machine- and load-dependent, stated as an approximation"
ARITHMETIC = "arithmetic on stated public inputs, shown with its formula"
UNTIED = "UNTIED: a run figure with no committed source yet"

#: page -> [(an exact snippet of its prose, why its numbers are not run figures)]
ALLOWED = {
    "plot_1_xian2024.py": [
        ("``train_test_split(test_size=0.3, random_state=seed)``", PARAMETER),
        ("until ε = 0.1 (or ε = 0.5 with k = 180)", GRID),
        ("10 log-spaced values from 0.005 to 0.1, 12 evenly spaced values from 0.11 to 0.35, and 1, at ε ∈ {10, 5, 1,"
         " 0.5, 0.1}", GRID),
        ("At ε = 0.1 our lower envelope", GRID),
        ("(about ±0.002 KS): at MSE 0.002 / 0.005 / 0.01 / 0.02 / 0.03, ours has KS 0.268 / 0.217 / 0.178 / 0.135 / "
         "0.122 and theirs 0.278 / 0.221 / 0.182 / 0.136 / 0.120, a difference of −0.010 to +0.002 (with our former "
         "grid of 8 k × 10 α, ours sat 0.005–0.023 higher)",
         UNTIED + " (the 22-minute sweep's per-seed CSV is not committed; theirs digitised from the authors' PNG)"),
        ("dominated by k = 36 at ε = 0.1", GRID),
        ("has MSE 0.6772 (paper: 0.6772)", "a property of the data: a constant output's MSE on the targets, no fit"),
        ("(Law School, k = 180, ε = 0.1)", GRID),
    ],
    "plot_3_jagielski2019_inprocessing.py": [
        ("``racepctblack > 0.06``", PARAMETER), ("β = 0.05", PARAMETER), ("10x-upsampled", PARAMETER),
        ("+ 0.0: no \"-0.000\"", "a code comment about formatting"),
    ],
    P4: [
        ("DemographicParity(difference_bound=0.01)", PARAMETER), ("EqualizedOdds(difference_bound=0.01)", PARAMETER),
        ("--epsilons 0.5 1 inf", GRID), ("(accuracy ≥ 0.80 and DP difference ≤ 0.05)", GOAL),
        ("The 0.05 is below what this test split can measure", GOAL),
        ("whose selection rate is exactly 0.2 in every group's population", PARAMETER + " of a simulation"),
        ("shows a test DP difference of 0.056 on average (binomial simulation over seeds 0–9), above 0.05 in 56% of "
         "draws", UNTIED + " (a binomial simulation described in the sentence, not a run of the script)"),
        ("The unconstrained ``LogisticRegression`` gives 0.846 / 0.137", UNTIED + " (a fit outside the script)"),
        ("(equalized-odds difference ≤ 0.06)", GOAL),
        ("measured to about ±0.02", ARITHMETIC + " (a rate's binomial standard error over about 530 rows)"),
        ("seed 0 gives 0.055 instead of 0.044 with two OpenBLAS threads", UNTIED + " (the two-thread re-run of the "
         "slow leg, ADULT_TOLERANCE; the one-thread 0.044 is registered)"),
        ("(0.6 and 0.08, accuracy about 0.84)", PARAMETER + " of a simulation"),
        ("shows a test difference of 0.19 on average, at most 0.06 in 1.8% of 2,000 binomial draws",
         UNTIED + " (a binomial simulation described in the sentence, not a run of the script)"),
    ],
    P5: [("√(2 · 2λ²) / √runs = 0.02 (λ = 10)", ARITHMETIC)],
    P6: [
        ("ρ ∈ {0.005, 0.05, 2, 4.5, 8}", GRID), ("4.6 min measured on 2 cores", TIMING),
        ("≈ +25% for the largest group and −16% for each of the four smaller groups, at ρ = 2, 4.5 and 8", PAPER),
        ("(a factor 1.25 on that variance)", ARITHMETIC + " (1 / (1 - 0.2))"),
        ("a gain of only ~1.2 over uniform shares", UNTIED + " (an approximate ratio of noise variances)"),
        ("visible at ρ = 0.005", GRID), ("A ρ-independent 15-25% shift", PAPER),
        ("offsets of length 0, 0.4, 0.4, 2.8, 7.1 from the majority's, 200 paired seeds: DPSE's shares 0.13, 0.14, "
         "0.13, 0.24, 0.36 cut the total noise at ρ = 0.005-0.02", UNTIED + " (an earlier probe, not committed)"),
        ("at ρ ≤ 0.0005", UNTIED + " (the same earlier probe)"),
        ("(a few to ~30% per group with our slopes)", UNTIED + " (an approximate range over the tables' rows)"),
        ("(the paper: loses 25%) and group 2 loses (the paper: gains 16%)", PAPER),
        ("group 1's MSPE rises by 0.24-0.25 and every other group's falls by at least 2.79", PAPER),
        ("only if w_1 ≥ 0.918 (computed below)", ARITHMETIC + " (printed below from the paper's values)"),
        ("= 0.83 with the paper's largest group of 10,000 and smallest of 500 (0.54 with our sizes)", ARITHMETIC),
        ("at most 0.02 here", UNTIED + " (an upper bound read from the tables)"),
        ("with σ_e² = 1), which lowers the bound only to 0.91", ARITHMETIC),
        ("exact least squares' 2.05, the paper's baseline's 1.01-1.02", UNTIED + " and " + PAPER),
        ("the paper's −16%", PAPER), ("about 2 SE at ρ = 4.5 and 8", GRID), ("down to ρ = 0.05", GRID),
        ("(synthetic, ρ = 2, 4.5, 8: 15 cells per reading;", GRID), ("(synthetic, ρ = 0.005 and 0.05)", GRID),
    ],
    P7: [
        ("about 4.5 CPU-minutes", TIMING), ("Each seed gives 15% of the rows", PARAMETER),
        ("whose test KS exceeds 0.15;", GOAL), ("default ``noise_margin=1.0``", PARAMETER),
        ("(test KS ≤ 0.15 at ε = 1 and α = 0.1", GOAL), ("The goal setting (ε = 1, α = 0.1)", GOAL),
        ("(``tests/benchmarks/bench_blind.py``: 0.22 s)", TIMING + " (the README's benchmark table)"),
        ("at every ε for α = 0, 0.05 and 0.1", GRID), ("``--epsilons 1 --alphas 0.1``", PARAMETER),
        ("``--epsilons 1 --alphas 0.05 0.1 --noise-margin 0``", PARAMETER), ("seeds near 0.15 cross it", GOAL), ("α ∈ {0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 1}", GRID),
    ],
    "adult_inprocessing.py": [("difference_bound=0.01", PARAMETER)],
    "blind_fair_regression.py": [
        ("15% to fit the group estimator", PARAMETER), ("default ``noise_margin=1.0``", PARAMETER),
        ("at epsilon in {0.5, 1, inf}", GRID), ("exceeds the goal's 0.15", GOAL), ("about 4.5 CPU-minutes", TIMING),
        ("--epsilons 1 --alphas 0.05 0.1 --noise-margin 0", PARAMETER),
    ],
    "budget2023_group_budget.py": [
        ("Sections 4, 6, 6.1 and Appendix A", "a section number"), ("``tau = 0.2 rho``", PARAMETER),
        ("``mu = 0.8 rho``", PARAMETER), ("(Sec. 6.1,", "a section number"), ("the \"20x\" experiment", PAPER),
        ("beta_3 = beta_1 + (5.5, -5.5) = (6.5, -6.5) beta_4 = beta_1 - (5.5, -5.5) = (-4.5, 4.5)", PARAMETER),
        ("~ 17.7 (groups 2, 5) and ~ 21.2 (groups 3, 4)", ARITHMETIC + " (1 + |beta_k - beta_1|^2 / 3)"),
        ("(1.02; 18.7, 21.1, 21.4, 18.1)", PAPER), ("``learning_rate = 0.1``", PARAMETER),
        ("``stage1_fraction = 0.2``, rho in {0.005, 0.05, 2, 4.5, 8} (the paper's Tables 1-3 use 2, 4.5, 8; its Fig. 2"
         " sweep starts at 0.1^2 / 2 = 0.005)", GRID),
        ("(a factor 1.25", ARITHMETIC), ("only about 1.2:", UNTIED + " (an approximate ratio of noise variances)"),
        ("measurable at rho = 0.005", GRID), ("by < 0.1%", UNTIED + " (an upper bound read from the tables)"),
        ("shift of ~15%", PAPER), ("(+0.25 for group 1, at least -2.79 for every other group)", PAPER),
        ("``w_1 >= 0.918``", ARITHMETIC), ("``w_1 = n_1 / n <= 0.83``", ARITHMETIC), ("(0.54 here)", ARITHMETIC),
        ("within 0.003 of the equal-group-weight least-squares fit; 0.3 already oscillates",
         UNTIED + " (a convergence check of the learning rate)"),
        ("times 1.5^2", ARITHMETIC), ("# 50 seeds, rho in {0.005, 0.05, 2, 4.5, 8}", GRID),
    ],
    "jagielski2019_inprocessing.py": [
        ("(0.28 on the donors' [0, 1] scale;", "a property of the data (the label's threshold)"),
        ("``a = 1[racepctblack > 0.06]``", PARAMETER), ("test_size=0.3", PARAMETER), ("beta=0.05", PARAMETER),
        ("with 10% of epsilon", PARAMETER), ("T ~ 0.075 epsilon", ARITHMETIC + " (Algorithm 3's formula for T)"),
        ("``(0.9 epsilon) / 200``", ARITHMETIC), ("10x-upsampled", PARAMETER),
    ],
    "quickstart.py": [("[--epsilon 1.0] [--alpha 0.0]", PARAMETER)],
    "xian2024_reproduce.py": [
        ("test_size=0.3", PARAMETER), ("Def. 2.2", "a definition number"),
        ("epsilon in {inf, 10, 5, 1, 0.5, 0.1}", GRID), ("``fig3_law_school_eps0.1.csv`` / ``fig3_law_school_eps0.1.png``",
                                                          "a file name"),
        ("epsilon = 0.1, the authors'", GRID), ("every epsilon in {10, 5, 1, 0.5, 0.1}", GRID),
        ("MSE ~ 0.68 on Law School", "a property of the data: a constant output's MSE on the targets, no fit"),
        ("(0.6772, 0)", PAPER),
    ],
    "zhu2022_allocation.py": [
        ("``epsilon = 2 / 10 = 0.2``", ARITHMETIC), ("in {0.1, 0.01, 0.001}", GRID), ("``epsilon = 0.01``", GRID),
        ("``report_eps0.01_by_state.csv`` / ``report_eps0.01_by_size_decile.csv``", "a file name"),
        ("at epsilon = 0.01", GRID),
    ],
    README: [
        ("at ε ≤ 1 most fits' constraints", GRID), ("Law School, ε = 1, α = 0.1,", GOAL),
    ],
}

#: the pages whose prose this module checks (their file, found by name)
PAGES = {**{path.name: path for path in sorted(GALLERY.glob("plot_*.py"))
            if path.name != "plot_2_jagielski2019_postprocessing.py"},
         **{path.name: path for path in sorted(EXAMPLES.glob("*.py")) if path.name != "jagielski2019_postprocessing.py"},
         README: ROOT / README}


def check(page, text, read=_read):
    """The problems of one page's prose ``text``: registered figures that do not match their files, allowed
    snippets no longer on the page, and numbers that are neither."""
    problems, covered = [], []
    for figure in (f for f in FIGURES if f.page == page):
        try:
            expected = figure.render(read)
        except (AssertionError, FileNotFoundError, KeyError) as error:
            problems.append(f"{page}: cannot recompute {figure.template!r} from {figure.sources}: {error}")
            continue
        spans = [(m.start(), m.end()) for m in re.finditer(re.escape(expected), text)]
        if not spans:
            problems.append(f"{page}: {', '.join(figure.sources)} gives {expected!r}, not on the page")
        covered += spans
    for snippet, _reason in ALLOWED.get(page, []):
        spans = [(m.start(), m.end()) for m in re.finditer(re.escape(_normalise(snippet)), text)]
        if not spans:
            problems.append(f"{page}: allowed snippet {snippet!r} is no longer on the page: remove it from ALLOWED")
        covered += spans
    for match in NUMBER.finditer(text):
        if not any(start <= match.start() and match.end() <= end for start, end in covered):
            context = text[max(0, match.start() - 60):match.end() + 30]
            problems.append(f"{page}: {match.group()!r} is neither a registered figure nor allowed: ...{context}...")
    return problems


# ---------------------------------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_number_on_the_page_is_a_registered_figure_or_allowed(page):
    problems = check(page, prose(PAGES[page]))
    assert not problems, "\n".join(problems)


def test_every_figure_and_snippet_names_a_checked_page_and_a_committed_file():
    for figure in FIGURES:
        assert figure.page in PAGES, figure
        for name in figure.sources:
            assert (IMG / name).is_file(), f"{name} is not committed in docs/img"
    assert set(ALLOWED) <= set(PAGES)


def test_untied_figures_are_few():
    """Run figures on the pages with no committed source yet: pinned, so that none is added silently."""
    untied = [(page, snippet) for page, entries in ALLOWED.items() for snippet, reason in entries
              if reason.startswith("UNTIED")]
    assert len(untied) == 14, "\n".join(f"{page}: {snippet}" for page, snippet in untied)


#: the sentence of plot_4_adult_inprocessing.py at f0b91bf, before the statistics-game CSVs were regenerated
OLD_ADULT_SENTENCE = """\
Expected on Adult (``examples/adult_inprocessing.py``: 70/30 split, seed 0; one-hot over the public codebook
``fairlearn_dp.datasets.adult_categories()``, numeric features scaled to public bounds; demographic parity by sex): \
**test accuracy 0.828, DP difference 0.013** at ε = 1
(Fairlearn's non-private ``ExponentiatedGradient``: 0.832 / 0.016; the majority class: 0.764)."""


def test_the_check_reports_the_old_adult_page():
    """The check fails on the page as it was: its seed-0 sentence no longer matches the regenerated per-seed file,
    and its old numbers are not registered."""
    problems = check(P4, _normalise(OLD_ADULT_SENTENCE))
    stale = [p for p in problems if "**test accuracy" in p and "not on the page" in p]
    assert stale, problems
    assert any("'0.828' is neither" in p for p in problems)
    assert any("'0.013' is neither" in p for p in problems)


def test_the_check_reports_an_unregistered_number():
    problems = check(P7, "The blind map exceeds the goal on 31% of the seeds.")
    assert any("'31%' is neither" in p for p in problems)


# ------------------------------------------------------------------------------------- the slow leg (-m slow)
#: (per-seed file, sensitive, constraint, OpenBLAS threads of the committed run, on the SkylakeX kernel): seed 0 of
#: the statistics game at epsilon = 1 is re-run for each, with the committed run's thread count.
ADULT_RUNS = [(SEX_DP, "sex", "dp", 2), (SEX_EO, "sex", "eo", 1), (RACE_DP, "race", "dp", 1),
              (RACE_EO, "race", "eo", 2)]

#: How far a re-run of a committed Adult fit may move on another machine. The release noise is a seeded draw
#: (bit-identical everywhere), but each best response is a LogisticRegression fit whose lbfgs iterate (tol 1e-4)
#: depends on the BLAS round-off, and the game's later rounds follow it. Measured: seed 0 of equalized odds by sex
#: gives an equalized-odds difference of 0.044 with one OpenBLAS thread and 0.055 with two (same kernel), accuracy
#: within 0.002 (~30 of the ~14,650 test rows). Hence 0.002 and 0.015; the statistics-game change moved seed 0 of
#: demographic parity by sex by 0.003 in accuracy, which this catches; a change of the equalized-odds difference
#: alone below 0.015 it does not (the fast test still ties the page to the committed files).
ADULT_TOLERANCE = {"accuracy": 0.002, "violation": 0.015}


@pytest.mark.slow  # four fits of the statistics game on Adult (about 30 s on 2 cores): CI runs it (-m slow)
@pytest.mark.parametrize("name, sensitive, constraint, threads", ADULT_RUNS)
def test_adult_seed_0_reproduces_the_committed_row(name, sensitive, constraint, threads):
    from fairdp_adapters._checkout import load_example
    from threadpoolctl import threadpool_limits

    script = load_example("adult_inprocessing.py")
    with threadpool_limits(limits=threads, user_api="blas"):
        row = script.fit_one("statistics", 1.0, 0, sensitive, constraint)
    committed = _seed(_read(name), "statistics", 0)
    for column, tolerance in ADULT_TOLERANCE.items():
        assert row[column] == pytest.approx(committed[column], rel=0, abs=tolerance), (
            f"{name}: seed 0 {column} {row[column]:.4f} vs committed {committed[column]:.4f}: re-run the page's "
            "command and commit its CSVs (module docstring)")


@pytest.mark.slow  # five seeds of the blind goal setting (about 10 s on 2 cores): CI runs it (-m slow)
def test_blind_goal_seeds_reproduce_the_committed_kernel_rows():
    """Seeds 0-4 of the goal setting re-run under the active BLAS lie within the committed kernels' rows, widened by
    the largest spread the kernels showed on any of these seeds (measured machine dependence: the group estimator's
    lbfgs iterate moves with the round-off, and a row that changes posterior bucket moves KS and MSE). No bit
    equality: the same kernel name on another CPU, thread count or OpenBLAS release need not give the same bits."""
    from fairdp_adapters._checkout import load_example

    script = load_example("blind_fair_regression.py")
    committed = _seeds(_read(BLIND_KERNELS), 0)
    first = committed[committed["seed"] < 5]
    allowance = {metric: float(first.groupby("seed")[metric].agg(lambda v: v.max() - v.min()).max())
                 for metric in ("ks", "mse")}
    for seed in range(5):
        rerun = _one(pd.DataFrame(script.run_seed(seed, (1.0,), (0.1,))), mode="blind")
        rows = _where(committed, seed=seed)
        for metric, width in allowance.items():
            low, high = rows[metric].min() - width - 1e-9, rows[metric].max() + width + 1e-9
            assert low <= rerun[metric] <= high, (seed, metric, rerun[metric], low, high)


def test_the_aware_map_is_the_same_on_every_committed_kernel():
    """The blind page says the kernel moves the blind map only: the aware one fits no group estimator."""
    aware = _where(_read(BLIND_KERNELS), mode="aware")
    spread = aware.groupby("seed")["ks"].agg(lambda ks: ks.max() - ks.min())
    assert aware["blas_kernel"].nunique() >= 3 and (spread <= 1e-12).all()
