"""Attribute-blind DP fair regression post-processing on Law School, against the attribute-aware post-processor.
=============================================================================================================

The setting of the Xian et al. (2024) reproduction (post-process the true targets ``ugpa`` on k = 36 bins of the
public range (1, 4); the four race groups), with one change: the deployed map must not take the group as an input.
Each seed splits the data three ways (``random_state=seed``): 15% to fit the group estimator (a multinomial
``LogisticRegression`` of race from ``[ugpa, lsat, pass_bar]``, public to the post-processor: it never sees the other
rows), then the rest 70/30 into the post-processor's private fitting rows and a test split. On the test split, with
the true groups: KS statistical parity and MSE against the true targets, for

- ``aware``: ``DPFairRegressionPostprocessor`` (Alg. 1 of Xian et al.; ``predict`` needs the group);
- ``blind``: the same class with ``group_estimator=`` and ``posterior_buckets=10`` (default ``noise_margin=1.0``;
  ``predict`` takes no group);
- ``raw``: the unprocessed targets.

at epsilon in {0.5, 1, inf} and alpha in ``ALPHAS``, mean +- std (population std, ddof = 0) over the seeds, the
worst seed and the fraction of seeds whose test KS exceeds the goal's 0.15; plus the median fit time of the blind
post-processor (k = 36 bins, 10 posterior buckets). The seeds are ``first_seed, ..., first_seed + n - 1``.

    python examples/blind_fair_regression.py --n-jobs 2            # seeds 0-49 (about 4.5 CPU-minutes)
    python examples/blind_fair_regression.py --first-seed 100      # seeds 100-149, an independent set
    python examples/blind_fair_regression.py --quick                # 2 seeds, 3 alphas (a few seconds)
    python examples/blind_fair_regression.py --publish              # also copy the CSVs and the figure to docs/img
    python examples/blind_fair_regression.py --epsilons 1 --alphas 0.05 0.1 --noise-margin 0   # a subset, no margin

Writes ``per_seed.csv``, ``summary.csv`` and ``fronts.png`` to ``--out`` (default
``examples/output/blind_fair_regression``). ``--publish`` copies the summary and the figure to
``docs/img/blind_fair_regression_*``; for seeds other than the default 0-49 only the summary, as
``blind_fair_regression_summary_seeds<first>-<last>.csv``. ``per_seed.csv`` records the BLAS kernel and thread count
of the run (``blas_kernel``, ``blas_threads``): the group estimator's lbfgs fit stops at another iterate under
another BLAS kernel (``OPENBLAS_CORETYPE=Haswell``, ...), so the seeds' test KS, and the share above the goal, vary
with the kernel.
"""

from __future__ import annotations

import math
import shutil
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

EPSILONS = (0.5, 1.0, math.inf)
ALPHAS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 1.0)
QUICK_ALPHAS = (0.0, 0.1, 1.0)
GROUPS = ["asian", "black", "hisp", "white"]
N_BINS = 36
POSTERIOR_BUCKETS = 10
GOAL = {"epsilon": 1.0, "alpha": 0.1, "ks": 0.15}
DEFAULT_SEEDS = 50
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "blind_fair_regression"
DOCS_IMG = ROOT / "docs" / "img"


def splits(seed):
    """``(group-estimator rows, fitting rows, test rows)`` as (X, y, a) triples: 15% / 59.5% / 25.5%."""
    from sklearn.model_selection import train_test_split

    from fairlearn_dp.datasets import fetch_law_school

    data = fetch_law_school(as_frame=False)
    X, y, a = data.data, data.target, np.asarray(data.sensitive_features)
    X_g, X_r, y_g, y_r, a_g, a_r = train_test_split(X, y, a, test_size=0.85, random_state=seed)
    X_f, X_t, y_f, y_t, a_f, a_t = train_test_split(X_r, y_r, a_r, test_size=0.3, random_state=seed)
    return (X_g, y_g, a_g), (X_f, y_f, a_f), (X_t, y_t, a_t)


def run_seed(seed, epsilons, alphas, noise_margin=1.0):
    """Every (mode, epsilon, alpha) fit of one seed: rows of the per-seed table."""
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS
    from fairlearn_dp.metrics import ks_statistical_parity
    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
    from fairlearn_dp.privacy import BudgetAccountant

    (X_g, y_g, a_g), (X_f, y_f, a_f), (X_t, y_t, a_t) = splits(seed)
    group_estimator = LogisticRegression(max_iter=1000).fit(np.column_stack([y_g, X_g]), a_g)
    fit_X, test_X = np.column_stack([y_f, X_f]), np.column_stack([y_t, X_t])
    rows = [{"seed": seed, "mode": "raw", "epsilon": math.nan, "alpha": math.nan, "mse": 0.0,
             "ks": ks_statistical_parity(y_t, y_t, sensitive_features=a_t), "fit_seconds": math.nan}]
    for epsilon in epsilons:
        for alpha in alphas:
            for mode in ("aware", "blind"):
                params = {"epsilon": epsilon, "bounds": LAW_SCHOOL_BOUNDS, "n_bins": N_BINS, "alpha": alpha, "groups": GROUPS,
                              "accountant": BudgetAccountant(), "random_state": seed}
                if mode == "blind":
                    model = DPFairRegressionPostprocessor(group_estimator=group_estimator, prefit=True,
                                                          posterior_buckets=POSTERIOR_BUCKETS,
                                                          noise_margin=noise_margin, **params)
                    start = time.perf_counter()
                    model.fit(fit_X, sensitive_features=a_f)
                    seconds = time.perf_counter() - start
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UserWarning)     # none expected: targets lie in bounds
                        out = model.predict(test_X, random_state=seed)
                else:
                    model = DPFairRegressionPostprocessor(**params)
                    start = time.perf_counter()
                    model.fit(y_f[:, None], sensitive_features=a_f)
                    seconds = time.perf_counter() - start
                    out = model.predict(y_t[:, None], sensitive_features=a_t, random_state=seed)
                rows.append({"seed": seed, "mode": mode, "epsilon": epsilon, "alpha": alpha,
                             "mse": float(np.mean((out - y_t) ** 2)),
                             "ks": ks_statistical_parity(y_t, out, sensitive_features=a_t),
                             "fit_seconds": seconds})
    return rows


def summarise(per_seed):
    keys = ["mode", "epsilon", "alpha"]
    frame = per_seed.fillna({"epsilon": -1.0, "alpha": -1.0})
    summary = (frame.groupby(keys, sort=False)
               .agg(mse_mean=("mse", "mean"), mse_std=("mse", lambda v: v.std(ddof=0)),
                    ks_mean=("ks", "mean"), ks_std=("ks", lambda v: v.std(ddof=0)), ks_max=("ks", "max"),
                    ks_above_goal=("ks", lambda v: float(np.mean(v > GOAL["ks"]))),
                    fit_seconds_median=("fit_seconds", "median"), n_seeds=("seed", "nunique"),
                    first_seed=("seed", "min"))
               .reset_index())
    summary[["epsilon", "alpha"]] = summary[["epsilon", "alpha"]].replace(-1.0, math.nan)
    return summary


def _blas():
    """The active BLAS's kernel (OpenBLAS's ``architecture``) and thread count, as threadpoolctl reports them."""
    from threadpoolctl import threadpool_info

    blas = [info for info in threadpool_info() if info["user_api"] == "blas"]
    return (blas[0].get("architecture") or blas[0]["internal_api"], blas[0]["num_threads"]) if blas else ("", 0)


def goal_table(summary):
    """The issue's goal row (epsilon = 1, alpha = 0.1) for both modes and the raw targets."""
    rows = summary[(summary["mode"] == "raw") | ((summary["epsilon"] == GOAL["epsilon"])
                                                  & (summary["alpha"] == GOAL["alpha"]))]
    return rows[["mode", "epsilon", "alpha", "mse_mean", "mse_std", "ks_mean", "ks_std", "ks_max", "ks_above_goal",
                 "fit_seconds_median", "n_seeds", "first_seed"]]


def plot(summary, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epsilons = list(summary["epsilon"].dropna().unique())
    fig, axes = plt.subplots(1, len(epsilons), figsize=(4.6 * len(epsilons), 4.0), sharey=True, squeeze=False)
    raw = summary[summary["mode"] == "raw"].iloc[0]
    for ax, epsilon in zip(axes[0], epsilons, strict=False):
        for mode, style in (("aware", "o-"), ("blind", "s--")):
            part = summary[(summary["mode"] == mode) & (summary["epsilon"] == epsilon)].sort_values("alpha")
            part = part[part["mse_mean"] > 0]
            ax.errorbar(part["mse_mean"], part["ks_mean"], xerr=part["mse_std"], yerr=part["ks_std"], fmt=style,
                        capsize=2, label={"aware": "attribute-aware (predict needs A)",
                                          "blind": f"attribute-blind (B = {POSTERIOR_BUCKETS})"}[mode])
        ax.axhline(raw["ks_mean"], color="grey", ls=":", label="no post-processing")
        ax.axhline(GOAL["ks"], color="red", ls="-.", lw=0.8, label=f"goal KS {GOAL['ks']} (alpha = 0.1, eps = 1)")
        ax.set_title("ε = ∞ (no DP)" if math.isinf(epsilon) else f"ε = {epsilon:g}")
        ax.set_xlabel("test MSE (GPA²)")
        ax.set_xscale("log")                     # the raw targets (MSE 0) are the dotted line
    axes[0][0].set_ylabel("test KS statistical parity (true groups)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Law School: MSE-KS fronts over alpha, mean ± std over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=140)
    plt.close(fig)
    return path


def main(argv=None):
    from fairdp_adapters._checkout import parse_seeded_args

    def publish_option(parser):
        parser.add_argument("--publish", action="store_true", help=f"copy the CSVs and the figure to {DOCS_IMG}")
        parser.add_argument("--epsilons", type=float, nargs="+", default=None,
                            help=f"epsilon grid (default {' '.join(f'{e:g}' for e in EPSILONS)})")
        parser.add_argument("--alphas", type=float, nargs="+", default=None,
                            help=f"alpha grid (default {' '.join(f'{a:g}' for a in ALPHAS)})")
        parser.add_argument("--noise-margin", type=float, default=1.0,
                            help="the blind post-processor's noise_margin (default 1.0)")

    args = parse_seeded_args(argv, doc=__doc__, default_out=DEFAULT_OUT, default_seeds=DEFAULT_SEEDS,
                             quick_seeds=2, quick_help="3 alphas", extra=publish_option, first_seed=0)
    if args.publish and (args.quick or args.epsilons or args.alphas or args.noise_margin != 1.0):
        raise SystemExit("--publish copies the full run only: drop --quick, --epsilons, --alphas and --noise-margin")
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    alphas = tuple(args.alphas or (QUICK_ALPHAS if args.quick else ALPHAS))
    epsilons = tuple(args.epsilons or EPSILONS)
    start = time.perf_counter()
    results = Parallel(n_jobs=args.n_jobs)(delayed(run_seed)(seed, epsilons, alphas, args.noise_margin)
                                           for seed in seeds)
    per_seed = pd.DataFrame([row for rows in results for row in rows])
    per_seed["blas_kernel"], per_seed["blas_threads"] = _blas()
    summary = summarise(per_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    paths = {"per_seed": args.out / "per_seed.csv", "summary": args.out / "summary.csv",
             "fronts": args.out / "fronts.png"}
    per_seed.to_csv(paths["per_seed"], index=False)
    summary.to_csv(paths["summary"], index=False)
    plot(summary, paths["fronts"])
    pd.set_option("display.width", 160)
    print(goal_table(summary).round(4).to_string(index=False))
    print(f"{len(per_seed) - len(seeds)} fits in {time.perf_counter() - start:.0f} s; outputs in {args.out}")
    if args.publish:
        publish(paths, seeds)
    return summary


def publish(paths, seeds):
    """Copy what the documentation reads to ``docs/img``: the summary and, for the default seeds, the figure; the
    summary of another seed set is named ``blind_fair_regression_summary_seeds<first>-<last>.csv``."""
    suffix = "" if seeds == range(DEFAULT_SEEDS) else f"_seeds{seeds[0]}-{seeds[-1]}"
    shutil.copy(paths["summary"], DOCS_IMG / f"blind_fair_regression_summary{suffix}.csv")
    if not suffix:
        shutil.copy(paths["fronts"], DOCS_IMG / "blind_fair_regression_fronts.png")


if __name__ == "__main__":
    main()
