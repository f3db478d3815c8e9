"""Benchmark: DPGridSearch (issue 40) on Adult by sex and by race, against Fairlearn's GridSearch and the constant.

What is measured
----------------
``adult_features(attribute)`` (public feature set and scaling; sex and race are not features). For each seed
``s`` in 0 .. S-1 (S = 5): a public random split (seed ``s``) into ``--train`` training rows (default 6,000: a
subsample, so that the run stays under ~10 minutes on 2 shared cores) and ``--test`` test rows (default 10,000).
On it:

- **Fairlearn**: ``GridSearch(LogisticRegression(max_iter=1000), DemographicParity())`` (grid_size 10);
- **DP**: ``DPGridSearch`` with the same arguments, ``epsilon`` in {0.5, 1, 2}, ``delta = 1e-5``,
  ``privacy_unit="sensitive_attribute"`` (the default), the public group list, ``random_state=s``;
- **constant**: the better fair constant on the training rows (predict the majority label 0: demographic-parity
  difference 0), what the private choice against the constants falls back to.

Reported per attribute and method: test accuracy and test demographic-parity difference (Fairlearn's
``demographic_parity_difference``), mean ± sd over the seeds, and how often the DP fit chose a constant. Check:
the DP fit's mean test accuracy is at least the constant's minus 0.01 at every epsilon (the private choice against
the constants: never worse than the constant, up to the test split's noise).

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_grid_search.py            # full run: 18 min on 2 loaded shared cores
    .venv/bin/python tests/benchmarks/bench_grid_search.py --quick    # sex, epsilon 1, one seed, 2,000 rows

The full run writes ``tests/benchmarks/results/bench_grid_search.md``.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
from diffprivlib import BudgetAccountant
from fairlearn.metrics import demographic_parity_difference
from fairlearn.reductions import DemographicParity, GridSearch
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.datasets import adult_features
from fairlearn_dp.reductions import DPGridSearch

OUTPUT = Path(__file__).resolve().parent / "results" / "bench_grid_search.md"
EPSILONS = (0.5, 1.0, 2.0)


def _split(n_rows, train, test, seed):
    rows = np.random.default_rng(seed).permutation(n_rows)
    return rows[:train], rows[train:train + test]


def _scores(y, predictions, groups):
    predictions = np.asarray(predictions).ravel()
    return (float(np.mean(predictions == y)),
            float(demographic_parity_difference(y, predictions, sensitive_features=groups)))


def run_attribute(attribute, seeds, epsilons, train, test):
    """``{method: [(accuracy, dp difference, constant chosen), ...]}`` over the seeds."""
    X, y, a = adult_features(attribute)
    y, a = np.asarray(y), np.asarray(a)
    groups = sorted(np.unique(a).tolist())                 # the public codebook's values present in Adult
    results = {}
    for seed in seeds:
        fit_rows, test_rows = _split(len(y), train, test, seed)
        X_fit, X_test = X.iloc[fit_rows], X.iloc[test_rows]
        fairlearn = GridSearch(LogisticRegression(max_iter=1000), DemographicParity())
        fairlearn.fit(X_fit, y[fit_rows], sensitive_features=a[fit_rows])
        results.setdefault("Fairlearn GridSearch", []).append(
            (*_scores(y[test_rows], fairlearn.predict(X_test), a[test_rows]), False))
        constant = int(np.mean(y[fit_rows]) > 0.5)
        results.setdefault("constant", []).append(
            (*_scores(y[test_rows], np.full(len(test_rows), constant), a[test_rows]), True))
        for epsilon in epsilons:
            search = DPGridSearch(LogisticRegression(max_iter=1000), DemographicParity(), epsilon=epsilon,
                                  delta=1e-5, groups=groups, random_state=seed, accountant=BudgetAccountant())
            search.fit(X_fit, y[fit_rows], sensitive_features=a[fit_rows])
            results.setdefault(f"DPGridSearch, epsilon = {epsilon:g}", []).append(
                (*_scores(y[test_rows], search.predict(X_test), a[test_rows]), search.constant_choice_.is_constant))
    return results


def report(all_results, header, train, test, n_seeds, seconds):
    lines = ["# DPGridSearch on Adult (issue 40)", "", header, "",
             f"{train} training rows, {test} test rows per seed (public random split), {n_seeds} seed(s); "
             "LogisticRegression(max_iter=1000), DemographicParity(), grid_size 10; DP: delta = 1e-5, "
             f"privacy_unit='sensitive_attribute'. Wall time {seconds:.0f} s.", ""]
    ok = True
    for attribute, results in all_results.items():
        lines += [f"## Adult by {attribute}", "", "| method | test accuracy | DP difference | constant chosen |",
                  "|---|---|---|---|"]
        constant_accuracy = np.mean([row[0] for row in results["constant"]])
        for method, rows in results.items():
            rows = np.array(rows, dtype=float)
            chosen = f"{int(rows[:, 2].sum())}/{len(rows)}" if method.startswith("DP") else ""
            lines.append(f"| {method} | {_common.mean_sd(rows[:, 0])} | {_common.mean_sd(rows[:, 1])} | {chosen} |")
            if method.startswith("DP") and rows[:, 0].mean() < constant_accuracy - 0.01:
                ok = False
                lines.append(f"FAIL: {method} is below the constant's accuracy on Adult by {attribute}.")
        lines.append("")
    return "\n".join(lines), ok


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=OUTPUT, quick_repeats=1, unit="seeds",
                                quick_extra="sex, epsilon 1, 2,000 training rows, ")
    parser.add_argument("--train", type=int, default=None, help="training rows per seed (default 6000)")
    parser.add_argument("--test", type=int, default=10000, help="test rows per seed (default 10000)")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=OUTPUT, quick_repeats=1)
    train = args.train or (2000 if args.quick else 6000)
    attributes = ("sex",) if args.quick else ("sex", "race")
    epsilons = (1.0,) if args.quick else EPSILONS
    warnings.simplefilter("ignore")                      # UtilityWarning/FairnessWarning: counted in the table
    start = time.perf_counter()
    all_results = {attribute: run_attribute(attribute, range(args.repeats), epsilons, train, args.test)
                   for attribute in attributes}
    header = _common.machine_header(("fairlearn", "scikit-learn", "diffprivlib"), "quick" if args.quick else "full",
                                    " Machine shared with other sessions' jobs (2 cores).")
    text, ok = report(all_results, header, train, args.test, args.repeats, time.perf_counter() - start)
    return _common.finish(text, None if args.quick else args.output, "bench_grid_search", ok,
                          "a DP fit's accuracy is below the constant's.")


if __name__ == "__main__":
    raise SystemExit(main())
