"""Reproduce the experiments of the budget-tailoring paper (group-aware DP regression) with fairdp.

"Budget tailoring for group-aware differentially private regression" (Sections 4, 6, 6.1 and Appendix A) compares
its two-stage scheme DPSE (stage 1 spends ``tau = 0.2 rho`` on private per-group standard errors ``s_k``; stage 2
gives group k the share ``s_k^2`` of every DP gradient-descent step's budget ``mu = 0.8 rho``) with DPNoSE (the
same DP gradient descent with budget ``rho`` split equally over the groups). Both are
:class:`fairlearn_dp.reductions.DPGroupBudgetRegressor` (``budget_allocation="standard_errors"`` / ``"uniform"``,
``objective="group_mean"``, no bounded-group-loss term). Every seed fits DPSE and DPNoSE on the *same* data (only the
noise draws differ, through ``random_state``), so the per-group differences DPNoSE - DPSE are paired.

1. Synthetic, K = 5 (Sec. 6.1, Tables 1-3; outputs ``synthetic_*``)
   Group sizes 10,000 / 5,000 / 2,000 / 1,000 / 500 (the "20x" experiment); ``X ~ U[-1, 1]^2`` (P = 2), ``y = X
   beta_k + N(0, sigma_e^2)``, ``sigma_e = 1``, no intercept (the paper's model has none, so
   ``fit_intercept=False``). The paper does not list its K = 5 slopes; we use (our choice)

       beta_1 = (1, -1)                       (majority)
       beta_2 = beta_1 + (5, 5)    = (6, 4)   beta_5 = beta_1 - (5, 5)    = (-4, -6)
       beta_3 = beta_1 + (5.5, -5.5) = (6.5, -6.5)   beta_4 = beta_1 - (5.5, -5.5) = (-4.5, 4.5)

   The minority slopes sit in symmetric pairs around beta_1, so the equal-weight (``group_mean``) objective is
   minimised at beta_1: the majority gets MSPE ~ sigma_e^2 = 1 and the minorities 1 + |beta_k - beta_1|^2 / 3 ~
   17.7 (groups 2, 5) and ~ 21.2 (groups 3, 4), the pattern of the paper's Table 1 (1.02; 18.7, 21.1, 21.4, 18.1).
   ``data_bound = 1`` for the features and ``target_bound = 16`` for y (|X beta_k| <= 13, so y is clipped only
   beyond a > 3 sigma_e noise draw at a corner; the clipped fraction is measured and printed), ``coef_bound = 5``
   (C_P = [-5, 5]^2), ``clip = 2`` (the paper's Delta), ``n_iter = 200``, ``learning_rate = 0.1`` (the non-private
   fit, rho = 1e9, converges: its last 20 iterates agree to < 1e-6), ``stage1_fraction = 0.2``, rho in {0.005,
   0.05, 2, 4.5, 8} (the paper's Tables 1-3 use 2, 4.5, 8; its Fig. 2 sweep starts at 0.1^2 / 2 = 0.005). MSPE
   per group on fresh test data drawn from the same model with the same group sizes.

   Paired design: at each (seed, rho) DPSE and DPNoSE are fitted on the same data with the same
   ``random_state``; the estimator draws each stage's noise from its own stream, so both share their stage-2
   standard normal draws (common random numbers) and the paired difference isolates the budget allocation.

   What to expect (and why the paper's Tables 1-3 are not reproduced): the model is one linear predictor, so
   every group's noisy gradient adds isotropic noise to the same coefficients; an allocation can only change the
   *total* noise variance, proportional to ``sum_k 1 / (n_k^2 w_k) / mu`` for shares ``w_k`` (the group-mean
   gradient of group k has sensitivity ``2 clip / n_k``). DPSE pays ``tau = 0.2 rho`` for stage 1 (a factor 1.25
   on the variance) and moves the shares towards the groups with large residuals; here every minority has a
   similar residual, so the gain of its shares over uniform ones is only about 1.2: DPSE adds slightly *more*
   noise than DPNoSE, for every group. The effect is measurable at rho = 0.005 and shrinks like 1/rho; at the
   paper's rho >= 2 the correctly calibrated noise changes the MSPE by < 0.1%. The paper's Tables show a
   rho-independent shift of ~15% from the majority to the minorities, which no noise allocation can cause;
   its Alg. 2 also adds noise of scale ``clip`` to the group *mean* gradient (n_k times more than its
   sensitivity needs).

2. Law School (Appendix A, Figure 5; outputs ``law_school_*``)
   ``fetch_law_school()`` restricted to race white vs black (the two groups of the paper; asian and hisp rows are
   dropped, see the printed row counts), target ``ugpa`` mapped from its public bounds ``LAW_SCHOOL_BOUNDS = (1,
   4)`` to [-1, 1]; features ``lsat`` mapped from the public range of the LSAT scale of the Bar Passage Study
   cohort, 10-48 (the 1982-1991 LSAT scale; the data span 11-48), and ``pass_bar`` (0/1, mapped to -1/+1), both
   into [-1, 1] with data-independent bounds; ``data_bound = 1``, with intercept. 70/30 train/test split per seed
   (stratified by group, ``random_state=seed``), the same rho values, otherwise the synthetic settings
   (``learning_rate = 0.1`` also converges here: the non-private coefficients are within 0.003 of the
   equal-group-weight least-squares fit; 0.3 already oscillates). MSPE per group on
   the test split, in original GPA units (the [-1, 1] MSPE times 1.5^2).

Outputs (under ``--out``): ``{synthetic,law_school}_per_seed.csv`` (one row per seed, rho, method, group),
``..._summary.csv`` (mean, standard error over seeds, paired difference DPNoSE - DPSE and its standard error,
mean budget share ``s_k^2``, stage-1 fallback rate), ``mspe_vs_rho.png`` (MSPE per group vs rho for both methods,
and the paired relative difference). Markdown tables shaped like the paper's Tables 1-3 are printed.

Usage::

    python examples/budget2023_group_budget.py                 # 50 seeds, rho in {2, 4.5, 8}
    python examples/budget2023_group_budget.py --quick         # 3 seeds, rho = 2 (smoke test)
    python examples/budget2023_group_budget.py --n-jobs 2 --out /tmp/budget2023
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from fairdp_adapters.cli import parse_seeded_args  # noqa: E402
from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school  # noqa: E402
from fairlearn_dp.reductions import DPGroupBudgetRegressor  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "budget2023"
DEFAULT_SEEDS = 50
QUICK_SEEDS = 3
RHOS = (0.005, 0.05, 2.0, 4.5, 8.0)     # the paper's Tables 1-3 (2, 4.5, 8) and the low end of its Fig. 2 sweep
QUICK_RHOS = (2.0,)
NONPRIVATE_RHO = 1e9
METHODS = {"DPNoSE": "uniform", "DPSE": "standard_errors"}
DATASET_ORDER = ("synthetic", "law_school")

# Shared DPGroupBudgetRegressor settings (the paper's: Delta = 2, C_P = [-5, 5]^P, T = 200, tau = 0.2 rho).
STAGE1_FRACTION = 0.2
N_ITER = 200
LEARNING_RATE = 0.1
CLIP = 2.0
COEF_BOUND = 5.0

# Synthetic K = 5, "20x" (Sec. 6.1).
SYN_SIZES = (10_000, 5_000, 2_000, 1_000, 500)
SYN_P = 2
SIGMA_E = 1.0
SYN_BETA_1 = np.array([1.0, -1.0])
SYN_OFFSETS = (np.zeros(2), np.array([5.0, 5.0]), np.array([5.5, -5.5]), np.array([-5.5, 5.5]),
               np.array([-5.0, -5.0]))
SYN_BETAS = tuple(SYN_BETA_1 + d for d in SYN_OFFSETS)
SYN_DATA_BOUND = 1.0            # features: X ~ U[-1, 1]^2
SYN_TARGET_BOUND = 16.0         # targets: |X beta_k| <= 13 plus N(0, 1) noise
SYN_GROUPS = (1, 2, 3, 4, 5)

# Law School (Appendix A, Figure 5).
LAW_GROUPS = ("white", "black")
LSAT_BOUNDS = (10.0, 48.0)      # public LSAT score scale of the Bar Passage Study cohort (1982-1991 scale)
LAW_TEST_SIZE = 0.3
LAW_DATA_BOUND = 1.0
GPA_SCALE = (LAW_SCHOOL_BOUNDS[1] - LAW_SCHOOL_BOUNDS[0]) / 2     # [-1, 1] -> GPA units


# ---------------------------------------------------------------------------------------------------- data
def make_synthetic(rng):
    """One draw of the K = 5 synthetic data: ``(X, y, group)`` with group labels 1..5."""
    X, y, a = [], [], []
    for label, n, beta in zip(SYN_GROUPS, SYN_SIZES, SYN_BETAS):
        x = rng.uniform(-1.0, 1.0, size=(n, SYN_P))
        X.append(x)
        y.append(x @ beta + rng.normal(0.0, SIGMA_E, size=n))
        a.append(np.full(n, label))
    return np.vstack(X), np.concatenate(y), np.concatenate(a)


def _to_unit(values, low, high):
    return 2.0 * (np.asarray(values, dtype=float) - low) / (high - low) - 1.0


def load_law_school():
    """White and black students of ``fetch_law_school()``, features and target in [-1, 1] via public bounds.

    Returns ``(X, y, a, info)``; ``y`` is in [-1, 1] (multiply squared errors by ``GPA_SCALE ** 2``).
    """
    bunch = fetch_law_school(as_frame=True)
    frame, groups = bunch.data, bunch.sensitive_features
    keep = groups.isin(LAW_GROUPS).to_numpy()
    lsat = frame["lsat"].to_numpy(dtype=float)[keep]
    pass_bar = frame["pass_bar"].to_numpy(dtype=float)[keep]
    X = np.column_stack([_to_unit(lsat, *LSAT_BOUNDS), 2.0 * pass_bar - 1.0])
    y = _to_unit(bunch.target.to_numpy(dtype=float)[keep], *LAW_SCHOOL_BOUNDS)
    a = groups.to_numpy()[keep]
    info = {"n_rows_loaded": int(len(groups)), "n_rows_kept": int(keep.sum()),
            "n_rows_dropped": int((~keep).sum()),
            "group_counts": {g: int((a == g).sum()) for g in LAW_GROUPS},
            "lsat_range": (float(lsat.min()), float(lsat.max()))}
    return X, y, a, info


# ---------------------------------------------------------------------------------------------- one seed
def _fit(X, y, a, *, rho, allocation, data_bound, target_bound, fit_intercept, groups, random_state):
    model = DPGroupBudgetRegressor(
        rho=rho, budget_allocation=allocation, stage1_fraction=STAGE1_FRACTION, data_bound=data_bound,
        target_bound=target_bound, clip=CLIP, n_iter=N_ITER, learning_rate=LEARNING_RATE, coef_bound=COEF_BOUND,
        fit_intercept=fit_intercept, groups=list(groups), random_state=random_state)
    with warnings.catch_warnings():
        # Synthetic: a handful of y beyond data_bound are clipped (counted separately).
        warnings.filterwarnings("ignore", message="Some targets exceed target_bound")
        model.fit(X, y, sensitive_features=a)
    return model


def _evaluate(X_train, y_train, a_train, X_test, y_test, a_test, *, dataset, seed, rhos, groups, data_bound,
              target_bound, fit_intercept, error_scale):
    """Non-private fit plus DPNoSE and DPSE at every rho; one row per (rho, method, group)."""
    configs = [(NONPRIVATE_RHO, "non-private", "uniform")]
    configs += [(rho, method, allocation) for rho in rhos for method, allocation in METHODS.items()]
    rows = []
    for rho, method, allocation in configs:
        # DPSE and DPNoSE at the same (seed, rho) share random_state, hence their stage-2 standard normal draws
        # (common random numbers): the paired difference then measures the allocation, not two noise draws.
        model = _fit(X_train, y_train, a_train, rho=rho, allocation=allocation, data_bound=data_bound,
                     target_bound=target_bound, fit_intercept=fit_intercept, groups=groups,
                     random_state=seed * 1000 + (0 if method == "non-private" else 1 + list(rhos).index(rho)))
        residual2 = (model.predict(X_test) - y_test) ** 2 * error_scale
        fallback = getattr(model, "stage1_fallback_", None) if allocation == "standard_errors" else None
        for k, group in enumerate(groups):
            rows.append({"dataset": dataset, "seed": seed, "rho": rho, "method": method, "group": group,
                         "n_train": int(np.sum(a_train == group)), "n_test": int(np.sum(a_test == group)),
                         "mspe": float(residual2[a_test == group].mean()),
                         "share": float(model.budget_shares_[k]),
                         "stage1_fallback": int(fallback is not None),
                         "rho_spent": float(model.rho_spent_)})
    return rows


def run_synthetic_seed(seed, rhos):
    rng = np.random.default_rng([seed, 0])
    X, y, a = make_synthetic(rng)
    X_test, y_test, a_test = make_synthetic(np.random.default_rng([seed, 1]))
    clipped = float(np.mean(np.abs(y) > SYN_TARGET_BOUND))
    rows = _evaluate(X, y, a, X_test, y_test, a_test, dataset="synthetic", seed=seed, rhos=rhos,
                     groups=SYN_GROUPS, data_bound=SYN_DATA_BOUND, target_bound=SYN_TARGET_BOUND,
                     fit_intercept=False, error_scale=1.0)
    for row in rows:
        row["y_clipped_fraction"] = clipped
    return rows


def run_law_seed(seed, rhos, X, y, a):
    X_train, X_test, y_train, y_test, a_train, a_test = train_test_split(
        X, y, a, test_size=LAW_TEST_SIZE, random_state=seed, stratify=a)
    rows = _evaluate(X_train, y_train, a_train, X_test, y_test, a_test, dataset="law_school", seed=seed,
                     rhos=rhos, groups=LAW_GROUPS, data_bound=LAW_DATA_BOUND, target_bound=LAW_DATA_BOUND,
                     fit_intercept=True,
                     error_scale=GPA_SCALE ** 2)
    for row in rows:
        row["y_clipped_fraction"] = 0.0          # public bounds (1, 4) contain every GPA of the data
    return rows


def run_all(n_seeds, rhos, n_jobs=1):
    X, y, a, law_info = load_law_school()
    tasks = [delayed(run_synthetic_seed)(seed, rhos) for seed in range(n_seeds)]
    tasks += [delayed(run_law_seed)(seed, rhos, X, y, a) for seed in range(n_seeds)]
    results = Parallel(n_jobs=n_jobs)(tasks)
    per_seed = pd.DataFrame([row for rows in results for row in rows])
    per_seed = per_seed.sort_values(["dataset", "rho", "method", "group", "seed"], ignore_index=True,
                                    key=lambda s: s.astype(str) if s.name == "group" else s)
    return per_seed, law_info


# ---------------------------------------------------------------------------------------------- analysis
def _se(values):
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else float("nan")


def summarise(per_seed):
    """Per (dataset, rho, group): mean MSPE ± SE of each method, the paired difference DPNoSE - DPSE ± SE,
    DPSE's relative change, its mean share ``s_k^2``, its stage-1 fallback rate and the non-private MSPE."""
    rows = []
    for dataset, data in per_seed.groupby("dataset", sort=True):
        nonprivate = data[data["method"] == "non-private"].groupby("group")["mspe"]
        np_mean, np_se = nonprivate.mean(), nonprivate.agg(_se)
        for (rho, group), part in data[data["method"] != "non-private"].groupby(["rho", "group"], sort=True):
            wide = part.pivot(index="seed", columns="method", values="mspe")
            dpse = part[part["method"] == "DPSE"]
            diff = wide["DPNoSE"] - wide["DPSE"]
            rows.append({"dataset": dataset, "rho": rho, "group": group,
                         "n_train": int(part["n_train"].iloc[0]), "n_test": int(part["n_test"].iloc[0]),
                         "nonprivate_mspe": float(np_mean[group]), "nonprivate_se": float(np_se[group]),
                         "dpnose_mspe": float(wide["DPNoSE"].mean()), "dpnose_se": _se(wide["DPNoSE"]),
                         "dpse_mspe": float(wide["DPSE"].mean()), "dpse_se": _se(wide["DPSE"]),
                         "diff_mean": float(diff.mean()), "diff_se": _se(diff),
                         "diff_z": float(diff.mean() / _se(diff)) if diff.size > 1 and _se(diff) > 0 else np.nan,
                         "relative_change": float(wide["DPSE"].mean() / wide["DPNoSE"].mean() - 1.0),
                         "dpse_share": float(dpse["share"].mean()),
                         "stage1_fallback_rate": float(dpse["stage1_fallback"].mean()),
                         "n_seeds": int(diff.size)})
    summary = pd.DataFrame(rows)
    order = {g: i for i, g in enumerate((*SYN_GROUPS, *LAW_GROUPS))}
    summary["_order"] = summary["group"].map(order)
    return summary.sort_values(["dataset", "rho", "_order"], ignore_index=True).drop(columns="_order")


def markdown_tables(summary, labels):
    """One table per (dataset, rho), shaped like the paper's Tables 1-3, with the paired difference added."""
    blocks = []
    for dataset in DATASET_ORDER:
        for rho, part in summary[summary["dataset"] == dataset].groupby("rho", sort=True):
            blocks.append(_markdown_block(dataset, rho, part, labels))
    return "\n\n".join(blocks)


def _markdown_block(dataset, rho, part, labels):
    """One (dataset, rho) table: the paper's columns plus the paired difference, shares and non-private."""
    fallback = part["stage1_fallback_rate"].iloc[0]
    lines = [f"**{labels[dataset]}, ρ = {rho:g}** ({part['n_seeds'].iloc[0]} seeds; DPSE stage 1 fell back to "
             f"uniform shares in {fallback:.0%} of the fits)", "",
             f"| group | n (train) | DPNoSE (ρ = {rho:g}) | DPSE (ρ = {rho:g}) | DPNoSE − DPSE (paired) ± SE | "
             "DPSE/DPNoSE − 1 | DPSE mean s_k² | non-private (ρ = 1e9) |",
             "|---|---|---|---|---|---|---|---|"]
    for row in part.itertuples(index=False):
        lines.append(f"| {row.group} | {row.n_train} | {row.dpnose_mspe:.4f} | {row.dpse_mspe:.4f} | "
                     f"{row.diff_mean:+.4f} ± {row.diff_se:.4f} | {row.relative_change:+.2%} | "
                     f"{row.dpse_share:.3f} | {row.nonprivate_mspe:.4f} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- plots
def plot_mspe(summary, labels, path):
    """Top: MSPE per group vs rho (DPSE solid, DPNoSE dashed, non-private dotted). Bottom: DPSE/DPNoSE - 1 with
    +-2 SE of the paired difference (relative to DPNoSE)."""
    datasets = [d for d in DATASET_ORDER if d in set(summary["dataset"])]
    fig, axes = plt.subplots(2, len(datasets), figsize=(5.6 * len(datasets), 8.0), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for col, dataset in enumerate(datasets):
        data = summary[summary["dataset"] == dataset]
        top, bottom = axes[0, col], axes[1, col]
        for i, (group, part) in enumerate(data.groupby("group", sort=False)):
            part = part.sort_values("rho")
            color = cmap(i % 10)
            top.errorbar(part["rho"], part["dpse_mspe"], yerr=part["dpse_se"], color=color, marker="o", ms=4,
                         lw=1.5, capsize=2, label=f"group {group}: DPSE")
            top.errorbar(part["rho"], part["dpnose_mspe"], yerr=part["dpnose_se"], color=color, marker="s",
                         ms=4, lw=1.2, ls="--", capsize=2, label=f"group {group}: DPNoSE")
            top.axhline(part["nonprivate_mspe"].iloc[0], color=color, lw=0.8, ls=":")
            rel = -part["diff_mean"] / part["dpnose_mspe"]
            rel_se = part["diff_se"] / part["dpnose_mspe"]
            bottom.errorbar(part["rho"], 100 * rel, yerr=200 * rel_se, color=color, marker="o", ms=4, lw=1.3,
                            capsize=3, label=f"group {group}")
        top.set_yscale("log")
        top.set_xscale("log")          # rho spans 0.005-8: a linear axis piles the small budgets onto 0
        top.set_xlabel("ρ (zCDP, log scale)")
        top.set_ylabel("test MSPE" + (" (GPA²)" if dataset == "law_school" else ""))
        top.set_title(f"{labels[dataset]}\nMSPE per group (dotted: non-private)")
        top.grid(alpha=0.3, which="both")
        top.legend(fontsize=7, ncol=2)
        bottom.axhline(0.0, color="black", lw=0.8)
        bottom.set_xscale("log")
        bottom.set_xlabel("ρ (zCDP, log scale)")
        bottom.set_ylabel("DPSE / DPNoSE − 1 (%), ± 2 SE (paired)")
        bottom.set_title(f"{labels[dataset]}\nrelative MSPE change of DPSE vs DPNoSE")
        bottom.grid(alpha=0.3)
        bottom.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


# -------------------------------------------------------------------------------------------------- main
def parse_args(argv=None):
    return parse_seeded_args(argv, doc=__doc__, default_out=DEFAULT_OUT, default_seeds=DEFAULT_SEEDS,
                             quick_seeds=QUICK_SEEDS, quick_help=f"rho in {QUICK_RHOS}")


def main(argv=None):
    """Run both experiments; returns a dict with the output paths, the per-seed rows, the summary and timings."""
    args = parse_args(argv)
    rhos = QUICK_RHOS if args.quick else RHOS
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    per_seed, law_info = run_all(args.seeds, rhos, n_jobs=args.n_jobs)
    elapsed_runs = time.perf_counter() - start
    summary = summarise(per_seed)
    labels = {"synthetic": "Synthetic K = 5 (20x)", "law_school": "Law School (white vs black)"}

    paths = {}
    for dataset in ("synthetic", "law_school"):
        paths[f"{dataset}_per_seed"] = out / f"{dataset}_per_seed.csv"
        paths[f"{dataset}_summary"] = out / f"{dataset}_summary.csv"
        per_seed[per_seed["dataset"] == dataset].to_csv(paths[f"{dataset}_per_seed"], index=False)
        summary[summary["dataset"] == dataset].to_csv(paths[f"{dataset}_summary"], index=False)
    paths["plot"] = out / "mspe_vs_rho.png"
    plot_mspe(summary, labels, paths["plot"])
    markdown = markdown_tables(summary, labels)
    elapsed = time.perf_counter() - start

    synthetic = per_seed[per_seed["dataset"] == "synthetic"]
    clipped = synthetic.drop_duplicates("seed")["y_clipped_fraction"]
    slopes = ", ".join(f"β_{g} = ({b[0]:g}, {b[1]:g})" for g, b in zip(SYN_GROUPS, SYN_BETAS))
    print(f"Budget-tailoring reproduction (DPGroupBudgetRegressor): {args.seeds} seeds, rho in {list(rhos)}, "
          f"n_jobs={args.n_jobs}")
    print(f"Settings: stage1_fraction={STAGE1_FRACTION}, n_iter={N_ITER}, learning_rate={LEARNING_RATE}, "
          f"clip={CLIP}, coef_bound={COEF_BOUND}, objective='group_mean'")
    print(f"Synthetic: sizes {SYN_SIZES}, X ~ U[-1, 1]^{SYN_P}, sigma_e = {SIGMA_E:g}, slopes {slopes}; "
          f"data_bound = {SYN_DATA_BOUND:g}, target_bound = {SYN_TARGET_BOUND:g}: y clipped in {clipped.mean():.2e} of training rows "
          f"(max over seeds {clipped.max():.2e})")
    print(f"Law School: {law_info['n_rows_loaded']} rows loaded, {law_info['n_rows_kept']} kept (white/black: "
          f"{law_info['group_counts']}), {law_info['n_rows_dropped']} asian/hisp rows dropped; lsat observed "
          f"{law_info['lsat_range']}, mapped from the public scale {LSAT_BOUNDS}; pass_bar 0/1 -> -1/+1; ugpa "
          f"from {tuple(LAW_SCHOOL_BOUNDS)}; {1 - LAW_TEST_SIZE:.0%}/{LAW_TEST_SIZE:.0%} split per seed; MSPE in "
          "GPA units\n")
    print(markdown)
    print(f"\nFits: {elapsed_runs:.1f} s; total with CSVs and plot: {elapsed:.1f} s")
    print("Files:")
    for path in paths.values():
        print(f"  {path}")
    return {"paths": paths, "per_seed": per_seed, "summary": summary, "markdown": markdown,
            "law_info": law_info, "y_clipped_fraction": float(clipped.mean()), "elapsed": elapsed,
            "elapsed_runs": elapsed_runs}


if __name__ == "__main__":
    main()
