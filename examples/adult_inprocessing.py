"""DP in-processing on Adult: the statistics game against the paper's Algorithm 3 and Fairlearn, across epsilon.
=============================================================================================================

The drop-in swap of the issue, untuned: ``DPExponentiatedGradient(LogisticRegression(), DemographicParity(
difference_bound=0.01), epsilon=eps, delta=1e-5)`` (the statistics game) against

- the paper's Algorithm 3 (``JagielskiExponentiatedGradient``, its regression oracle, T from its formula;
  ``bound_B=10``), and
- Fairlearn's non-private ``ExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.01))``,

on UCI Adult (bundled): a 70/30 split (``random_state=seed``), label ``class == '>50K'``, sensitive feature ``sex``
(or ``--sensitive race``), features one-hot over the public codebook of ``adult.names`` (plus a missing-value
indicator per attribute) and the five numeric attributes
scaled to public bounds (``fairlearn_dp.datasets.ADULT_PUBLIC_BOUNDS``: age 17-90, education-num 1-16, hours 1-99, capital gain/loss
``log1p`` over ``log1p`` of the top code); ``sex``, ``race`` and ``fnlwgt`` are not features. Test accuracy and
the fairness violation (demographic-parity difference, or equalized-odds difference with ``--constraint eo``) are
reported as mean +- std over the seeds, with the majority-class accuracy.

    python examples/adult_inprocessing.py --quick               # 1 seed, epsilon in {1, inf} (about a minute)
    python examples/adult_inprocessing.py --seeds 10 --n-jobs 2 # the README's table and figure
    python examples/adult_inprocessing.py --methods paper --update  # re-run one method, keep the other rows

Writes ``adult_inprocessing.csv`` (one row per fit), ``adult_inprocessing_summary.csv`` and
``adult_inprocessing.png`` to ``--out`` (default ``examples/output``).
"""

from __future__ import annotations

import argparse
import math
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

EPSILONS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, math.inf)
DELTA = 1e-5


def public_groups(sensitive):
    """The declared groups: the attribute's values in the public codebook (``adult.names``), sorted."""
    from fairlearn_dp.datasets import adult_categories

    return sorted(adult_categories()[sensitive])


def load_adult_features(sensitive="sex", seed=0):
    """``(X_train, X_test, y_train, y_test, a_train, a_test)``: the issue's Adult setting (see the module doc).

    :func:`fairlearn_dp.datasets.adult_features` (one-hot over the public codebook, numeric attributes scaled to
    public bounds), split 70/30 with ``random_state=seed``.
    """
    from fairlearn_dp.datasets import adult_features

    X, y, a = adult_features(sensitive)
    return train_test_split(X, y, a, test_size=0.3, random_state=seed)


def violation(pred, y, a, constraint):
    """Fairlearn's ``demographic_parity_difference`` or ``equalized_odds_difference`` of the predictions."""
    from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference

    metric = demographic_parity_difference if constraint == "dp" else equalized_odds_difference
    return float(metric(y, pred, sensitive_features=a))


def _moment(constraint):
    from fairlearn.reductions import DemographicParity, EqualizedOdds

    return (DemographicParity if constraint == "dp" else EqualizedOdds)(difference_bound=0.01)


def fit_one(method, epsilon, seed, sensitive, constraint, **extra):
    """One fit; returns a result row."""
    from fairlearn.reductions import ExponentiatedGradient

    from fairlearn_dp.privacy import BudgetAccountant
    from fairlearn_dp.reductions import DPExponentiatedGradient, JagielskiExponentiatedGradient

    X_train, X_test, y_train, y_test, a_train, a_test = load_adult_features(sensitive, seed)
    groups = public_groups(sensitive)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "fairlearn":
            model = ExponentiatedGradient(LogisticRegression(), _moment(constraint)).fit(
                X_train, y_train, sensitive_features=a_train)
        elif method == "statistics":
            model = DPExponentiatedGradient(LogisticRegression(), _moment(constraint), epsilon=epsilon, delta=DELTA,
                                            groups=groups, accountant=BudgetAccountant(), random_state=seed, **extra)
            model.fit(X_train, y_train, sensitive_features=a_train)
        else:                                      # the paper's Algorithm 3, its regression oracle
            model = JagielskiExponentiatedGradient(_moment(constraint), epsilon=epsilon, delta=DELTA,
                                            oracle="regression", bound_B=10.0, groups=groups,
                                            accountant=BudgetAccountant(), random_state=seed,
                                            max_iter=None if math.isfinite(epsilon) else 50)
            model.fit(X_train.to_numpy(), y_train, sensitive_features=a_train)
    seconds = time.perf_counter() - start
    features = X_test if method != "paper" else X_test.to_numpy()
    pred = np.asarray(model.predict(features, random_state=seed))
    return {"method": method, "epsilon": epsilon, "seed": seed, "accuracy": float(np.mean(pred == y_test)),
            "violation": violation(pred, y_test, a_test, constraint),
            "majority": float(max(np.mean(y_test), 1 - np.mean(y_test))), "fit_seconds": seconds,
            "rounds": int(getattr(model, "n_iter_", getattr(model, "last_iter_", -1)))}


METHODS = ("fairlearn", "statistics", "paper")


def run(epsilons, seeds, sensitive="sex", constraint="dp", n_jobs=1, methods=METHODS):
    jobs = [("fairlearn", math.inf, s) for s in seeds if "fairlearn" in methods]
    jobs += [(method, eps, s) for method in ("statistics", "paper") if method in methods
             for eps in epsilons for s in seeds]
    rows = Parallel(n_jobs=n_jobs)(delayed(fit_one)(m, e, s, sensitive, constraint) for m, e, s in jobs)
    return pd.DataFrame(rows)


def summarise(results):
    return (results.groupby(["method", "epsilon"])
            .agg(accuracy_mean=("accuracy", "mean"), accuracy_std=("accuracy", lambda v: v.std(ddof=0)),
                 violation_mean=("violation", "mean"), violation_std=("violation", lambda v: v.std(ddof=0)),
                 fit_seconds=("fit_seconds", "median"), n_seeds=("seed", "nunique"))
            .reset_index())


def markdown(summary, majority, constraint):
    name = "DP difference" if constraint == "dp" else "EO difference"
    lines = [f"| method | ε | test accuracy | {name} | fit s (median) | seeds |", "|---|---|---|---|---|---|"]
    for row in summary.itertuples():
        eps = "∞" if math.isinf(row.epsilon) else f"{row.epsilon:g}"
        lines.append(f"| {row.method} | {eps} | {row.accuracy_mean:.3f} ± {row.accuracy_std:.3f} | "
                     f"{row.violation_mean:.3f} ± {row.violation_std:.3f} | {row.fit_seconds:.1f} | {row.n_seeds} |")
    lines.append(f"| majority class | – | {majority:.3f} | 0 | – | – |")
    return "\n".join(lines)


def plot(summary, majority, path, constraint):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    finite = [e for e in sorted(summary["epsilon"].unique()) if math.isfinite(e)]
    inf_x = (max(finite) * 2) if finite else 1.0
    for method, style in (("statistics", "o-"), ("paper", "s--")):
        part = summary[summary["method"] == method].sort_values("epsilon")
        x = [inf_x if math.isinf(e) else e for e in part["epsilon"]]
        for ax, column in zip(axes, ("accuracy", "violation"), strict=False):
            ax.errorbar(x, part[f"{column}_mean"], yerr=part[f"{column}_std"], fmt=style, capsize=3,
                        label={"statistics": "DPExponentiatedGradient (statistics game)",
                               "paper": "Algorithm 3 (JagielskiExponentiatedGradient)"}[method])
    reference = summary[summary["method"] == "fairlearn"].iloc[0]
    for ax, column in zip(axes, ("accuracy", "violation"), strict=False):
        ax.axhline(reference[f"{column}_mean"], color="k", ls=":", label="Fairlearn EG (non-private)")
        ax.set_xscale("log")
        ax.set_xlabel("epsilon (rightmost point: inf)")
    axes[0].axhline(majority, color="grey", ls="-.", label="majority class")
    axes[0].set_ylabel("test accuracy")
    axes[1].set_ylabel("DP difference" if constraint == "dp" else "EO difference")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="1 seed, epsilon in {1, inf}")
    parser.add_argument("--sensitive", choices=("sex", "race"), default="sex")
    parser.add_argument("--constraint", choices=("dp", "eo"), default="dp")
    parser.add_argument("--epsilons", type=float, nargs="+", default=None,
                        help="epsilon grid (default 0.25 0.5 1 2 4 8 inf)")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", default=str(Path(__file__).parent / "output"))
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS),
                        help="methods to run (default all)")
    parser.add_argument("--update", action="store_true",
                        help="replace only these methods' rows of the per-fit CSV already in --out (its epsilons "
                             "and seeds for each method), keeping the others, then rewrite the summary and figure")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"adult_inprocessing_{args.sensitive}_{args.constraint}"
    if args.update:
        previous = pd.read_csv(out / f"{stem}.csv")
        finite = previous[previous["method"] != "fairlearn"]
        epsilons = tuple(sorted(finite["epsilon"].unique()))
        seeds = sorted(previous["seed"].unique())
        fresh = run(epsilons, seeds, args.sensitive, args.constraint, args.n_jobs, args.methods)
        results = pd.concat([previous[~previous["method"].isin(args.methods)], fresh], ignore_index=True)
    else:
        epsilons = (1.0, math.inf) if args.quick else tuple(args.epsilons or EPSILONS)
        seeds = range(1 if args.quick else args.seeds)
        results = run(epsilons, seeds, args.sensitive, args.constraint, args.n_jobs, args.methods)
    summary = summarise(results)
    results.to_csv(out / f"{stem}.csv", index=False)
    summary.to_csv(out / f"{stem}_summary.csv", index=False)
    plot(summary, results["majority"].iloc[0], out / f"{stem}.png", args.constraint)
    print(markdown(summary, results["majority"].iloc[0], args.constraint))
    return summary


if __name__ == "__main__":
    main()
