"""The ``fairdp`` command line: reproduce the papers' experiments, sweep an estimator, audit a DP estimator.

    fairdp reproduce {xian2024,jagielski2019,jagielski2019-inprocessing,zhu2022,budget2023} [--dataset NAME] [--out DIR] [--quick] ...
    fairdp sweep --estimator NAME --dataset NAME --epsilon E [E ...] [--param k=v,...] [--seeds N] [--out DIR]
    fairdp audit NAME [--runs N] [--seed S] [--out DIR]

Each command writes CSV (and PNG where there is a plot) and prints a short table. Bad arguments end with a
one-line message and exit code 2; a failed audit exits with 1.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path

__all__ = ["main", "load_example", "parse_seeded_args"]

_REPRODUCTIONS = {
    "xian2024": ("xian2024_reproduce.py", "Xian et al. 2024: DP fair regression post-processing (Sec. 4, Figs 2-4)"),
    "jagielski2019": ("jagielski2019_postprocessing.py",
                      "Jagielski et al. 2019: DP post-processing for classification (Fig. 1 right)"),
    "zhu2022": ("zhu2022_allocation.py", "Zhu et al. 2022: census release and allocation (Tables 1-2, Fig. 4)"),
    "jagielski2019-inprocessing": ("jagielski2019_inprocessing.py",
                                   "Jagielski et al. 2019: DP-oracle-learner, DP exponentiated gradient (Fig. 1 left)"),
    "budget2023": ("budget2023_group_budget.py",
                   "budget-tailoring paper: group-aware zCDP budget allocation, DPSE vs DPNoSE (Sec. 6.1, App. A)"),
}
_SWEEP_DATASETS = ("law_school", "communities_crime", "adult")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error message (and exit code 2)."""

    def error(self, message):
        self.exit(2, f"fairdp: error: {message}\n")


def _examples_dir():
    return Path(__file__).resolve().parents[1] / "examples"


def load_example(filename):
    """Import a reproduction script from the source checkout's ``examples/`` folder as a module."""
    path = _examples_dir() / filename
    if not path.is_file():
        raise SystemExit(f"fairdp: error: {path} not found: the reproductions run from a source checkout of fairdp")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # joblib's worker processes cannot import a module loaded from a file path: send its functions by value.
    try:
        import cloudpickle                                    # joblib >= 1.6 depends on it
    except ImportError:                                       # older joblib vendors it
        from joblib.externals import cloudpickle
    cloudpickle.register_pickle_by_value(module)
    return module


def parse_seeded_args(argv, *, doc, default_out, default_seeds, quick_seeds, quick_help, extra=None):
    """The common CLI of the seeded reproduction scripts: ``--out``, ``--seeds``, ``--quick``, ``--n-jobs``.

    ``extra(parser)`` may add script-specific options. ``--seeds`` defaults to ``default_seeds`` (``quick_seeds``
    with ``--quick``) and must be >= 1.
    """
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=default_out, help=f"output directory (default {default_out})")
    parser.add_argument("--seeds", type=int, default=None,
                        help=f"number of seeds (default {default_seeds}, or {quick_seeds} with --quick)")
    parser.add_argument("--quick", action="store_true", help=f"smoke test: {quick_seeds} seeds and {quick_help}")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers over seeds (default 1)")
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = quick_seeds if args.quick else default_seeds
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    return args


def _reproduce(args):
    filename, _ = _REPRODUCTIONS[args.name]
    if args.dataset is not None and args.name != "xian2024":
        raise SystemExit(f"fairdp: error: --dataset applies to xian2024 only, not {args.name}")
    argv = []
    if args.out is not None:
        argv += ["--out", str(args.out)]
    if args.quick:
        argv.append("--quick")
    if args.n_jobs is not None:
        argv += ["--n-jobs", str(args.n_jobs)]
    if args.seeds is not None:
        if args.name == "zhu2022":
            raise SystemExit("fairdp: error: --seeds does not apply to zhu2022 (it uses Monte-Carlo draws)")
        argv += ["--seeds", str(args.seeds)]
    if args.dataset is not None:
        argv += ["--dataset", args.dataset]
    load_example(filename).main(argv)
    return 0


def _parse_params(pairs):
    params = {}
    for chunk in pairs or []:
        for item in chunk.split(","):
            if not item:
                continue
            if "=" not in item:
                raise SystemExit(f"fairdp: error: --param expects k=v pairs, got {item!r}")
            key, value = item.split("=", 1)
            values = []
            for text in value.split("|"):
                try:
                    number = float(text)
                    values.append(int(number) if number.is_integer() and "." not in text and "e" not in text
                                  else number)
                except ValueError:
                    values.append(text)
            params[key.strip()] = values
    return params


def _sweep_problem(estimator_name, dataset):
    """Estimator, data and metrics of a sweep (public bounds and groups declared here, not read from data)."""
    import numpy as np
    from fairlearn.metrics import equalized_odds_difference
    from sklearn.metrics import mean_squared_error

    from fairlearn_dp import datasets as ds
    from fairlearn_dp.metrics import ks_statistical_parity
    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer

    from .sweeps import metric

    if estimator_name == "DPFairRegressionPostprocessor":
        if dataset == "law_school":
            bunch, bounds, groups = ds.fetch_law_school(), ds.LAW_SCHOOL_BOUNDS, ["asian", "black", "hisp", "white"]
        elif dataset == "communities_crime":
            bunch, bounds, groups = ds.fetch_communities_crime(), ds.COMMUNITIES_CRIME_BOUNDS, [0, 1]
        else:
            raise SystemExit(f"fairdp: error: DPFairRegressionPostprocessor sweeps law_school or communities_crime, "
                             f"not {dataset}")
        y = bunch.target.to_numpy(dtype=float)
        estimator = DPFairRegressionPostprocessor(bounds=bounds, groups=groups, n_bins=36)
        metrics = {"mse": metric(mean_squared_error), "ks_parity": metric(
            lambda yt, yp, sf: ks_statistical_parity(yt, yp, sensitive_features=sf), uses_groups=True)}
        return estimator, y[:, None], y, bunch.sensitive_features.to_numpy(), metrics, ("mse", "ks_parity")
    if estimator_name == "DPThresholdOptimizer":
        if dataset == "communities_crime":
            bunch = ds.fetch_communities_crime()
            X = bunch.data.drop(columns=["racepctblack"]).to_numpy(dtype=float)
            target = bunch.target.to_numpy(dtype=float)
            y = (target > np.quantile(target, 0.7)).astype(int)
            sf, groups = bunch.sensitive_features.to_numpy(), [0, 1]
        elif dataset == "adult":
            bunch = ds.fetch_adult()
            numeric = bunch.data.select_dtypes("number").drop(columns=["fnlwgt"])
            X = numeric.to_numpy(dtype=float)
            y = (bunch.target == ">50K").to_numpy().astype(int)
            sf, groups = bunch.sensitive_features["sex"].to_numpy(), ["Female", "Male"]
        else:
            raise SystemExit(f"fairdp: error: DPThresholdOptimizer sweeps communities_crime or adult, not {dataset}")
        from sklearn.linear_model import LogisticRegression
        from sklearn.model_selection import train_test_split
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        # The base classifier is trained on a separate third of the rows (never seen by the sweep) and prefit.
        X_base, X, y_base, y, _, sf = train_test_split(X, y, sf, test_size=2 / 3, random_state=0, stratify=y)
        base = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X_base, y_base)
        estimator = DPThresholdOptimizer(estimator=base, prefit=True, constraints="equalized_odds",
                                         predict_method="predict_proba", groups=groups)
        metrics = {"error": metric(lambda yt, yp: float(np.mean(yt != yp))), "eo_difference": metric(
            lambda yt, yp, g: equalized_odds_difference(yt, yp, sensitive_features=g), uses_groups=True)}
        return estimator, X, y, sf, metrics, ("error", "eo_difference")
    from .registry import entries

    names = [e.name for e in entries("fairlearn")]
    raise SystemExit(f"fairdp: error: --estimator must be one of {names}, got {estimator_name!r}")


def _sweep(args):
    from .sweeps import plot_tradeoff, privacy_fairness_sweep

    estimator, X, y, sf, metrics, (x_metric, y_metric) = _sweep_problem(args.estimator, args.dataset)
    grid = {"epsilon": [math.inf if e == "inf" else float(e) for e in args.epsilon]}
    grid.update(_parse_params(args.param))
    result = privacy_fairness_sweep(estimator, grid, X, y, sensitive_features=sf, metrics=metrics,
                                    n_seeds=args.seeds, n_jobs=args.n_jobs, random_state=args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    result.table.to_csv(out / "sweep.csv", index=False)
    result.summary.to_csv(out / "summary.csv", index=False)
    plot_tradeoff(result.summary, x=x_metric, y=y_metric, by="epsilon", path=out / "tradeoff.png",
                  title=f"{args.estimator} on {args.dataset}")
    print(result.summary.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"\nWritten: {out / 'sweep.csv'}, {out / 'summary.csv'}, {out / 'tradeoff.png'}")
    return 0


def _audit(args):
    from fairlearn_dp.audit import audit_registered

    result = audit_registered(args.name, n_runs=args.runs, random_state=args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    row = {"estimator": args.name, "declared_epsilon": result.declared_epsilon,
           "epsilon_lower_bound": result.epsilon_lower_bound, "passed": result.passed, "n_runs": result.n_runs}
    pd.DataFrame([row]).to_csv(out / f"audit_{args.name}.csv", index=False)
    _plot_audit(result, args.name, out / f"audit_{args.name}.png")
    print(f"{args.name}: declared epsilon {result.declared_epsilon:g}, empirical lower bound "
          f"{result.epsilon_lower_bound:.4f} over {result.n_runs} runs per dataset -> "
          f"{'PASS' if result.passed else 'FAIL: the lower bound exceeds the declared epsilon'}")
    print(f"Written: {out / f'audit_{args.name}.csv'}, {out / f'audit_{args.name}.png'}")
    return 0 if result.passed else 1


def _plot_audit(result, name, path):
    """Event frequencies on the two neighbouring datasets, and the lower bound against the declared epsilon."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2))
    left.bar(["D", "D'"], [h / result.n_runs for h in result.hits], color=["tab:blue", "tab:orange"])
    left.set_ylabel("P[event] (empirical)")
    left.set_title(f"{result.n_runs} runs per dataset", fontsize=9)
    right.bar(["declared", "lower bound"], [result.declared_epsilon, result.epsilon_lower_bound],
              color=["tab:gray", "tab:green" if result.passed else "tab:red"])
    right.set_ylabel("epsilon")
    right.set_title("PASS" if result.passed else "FAIL", fontsize=9)
    fig.suptitle(f"Privacy audit: {name}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _build_parser():
    parser = _Parser(prog="fairdp", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Run 'fairdp COMMAND --help' for a command's options.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    reproduce = commands.add_parser("reproduce", help="run a paper's reproduction (CSV + PNG + table)",
                                    description="Reproductions: " + "; ".join(
                                        f"{k}: {v[1]}" for k, v in _REPRODUCTIONS.items()))
    reproduce.add_argument("name", choices=sorted(_REPRODUCTIONS), help="which paper")
    reproduce.add_argument("--dataset", choices=["law_school", "communities_crime"],
                           help="xian2024 only: run one dataset")
    reproduce.add_argument("--out", type=Path, help="output directory (default: examples/output/<paper>)")
    reproduce.add_argument("--quick", action="store_true", help="few seeds / draws: a smoke run in seconds")
    reproduce.add_argument("--n-jobs", type=int, help="joblib workers")
    reproduce.add_argument("--seeds", type=int, help="number of seeds (xian2024, jagielski2019, budget2023)")
    reproduce.set_defaults(handler=_reproduce)

    sweep = commands.add_parser("sweep", help="privacy-fairness-accuracy sweep of a DP estimator",
                                description="Sweep epsilon (and other parameters) of a Fairlearn-face DP "
                                            "estimator on a bundled dataset; writes sweep.csv, summary.csv and "
                                            "tradeoff.png (Pareto fronts per epsilon).")
    sweep.add_argument("--estimator", required=True,
                       help="DPFairRegressionPostprocessor (law_school, communities_crime) or DPThresholdOptimizer "
                            "(communities_crime, adult)")
    sweep.add_argument("--dataset", required=True, choices=_SWEEP_DATASETS)
    sweep.add_argument("--epsilon", required=True, nargs="+", help="privacy budgets, e.g. 0.1 1 inf")
    sweep.add_argument("--param", action="append",
                       help="extra grid, k=v1|v2,k2=v (e.g. alpha=0|0.05, n_bins=12|36; tol=0|0.05)")
    sweep.add_argument("--seeds", type=int, default=5, help="seeds per setting (default 5)")
    sweep.add_argument("--seed", type=int, default=0, help="random_state of the sweep (default 0)")
    sweep.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    sweep.add_argument("--out", type=Path, default=Path("fairdp_sweep"), help="output directory")
    sweep.set_defaults(handler=_sweep)

    audit = commands.add_parser("audit", help="empirical privacy audit of a registered DP estimator",
                                description="Run the estimator many times on two neighbouring datasets (its "
                                            "declared neighbouring relation) and report a Clopper-Pearson lower "
                                            "bound on epsilon; exit 1 if it exceeds the declared epsilon.")
    audit.add_argument("name", help="registry name, e.g. DPFairRegressionPostprocessor")
    audit.add_argument("--runs", type=int, default=5000, help="runs per dataset (default 5000)")
    audit.add_argument("--seed", type=int, default=0)
    audit.add_argument("--out", type=Path, default=Path("fairdp_audit"), help="output directory")
    audit.set_defaults(handler=_audit)
    return parser


def main(argv=None):
    """Entry point of the ``fairdp`` console script; returns the exit code."""
    args = _build_parser().parse_args(argv)
    for name in ("n_jobs", "seeds", "runs"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise SystemExit(f"fairdp: error: --{name.replace('_', '-')} must be >= 1")
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
