"""Benchmark: the exact 1-D barycenter solver against the paper's LP as a plain one-shot cvxpy problem.

What is measured
----------------
``DPFairRegressionPostprocessor.fit`` (Xian et al. 2024, Alg. 1) on the bundled Law School data in the paper's
setting: the true targets ``ugpa`` are post-processed (``estimator=None``, fitted on ``y[:, None]``), the
sensitive feature is ``race`` (4 groups), ``epsilon=1``, bounds ``LAW_SCHOOL_BOUNDS``. For each number of bins
``k`` and KS tolerance ``alpha`` the script times the whole ``fit`` (discretise, private histogram release,
re-normalisation, barycenter LP, transport kernels) with

- ``solver="exact"`` (the default): the structure-exploiting solver of ``fairlearn_dp/postprocessing/
  _barycenter.py``. For a squared cost on a line the optimal couplings are monotone, so the LP reduces to a
  problem separable over grid points that is solved by bisection in ``O(|A| k log(|A| k))``; see that module's
  docstring for the derivation;
- ``solver="HIGHS"``: the LP of the paper written verbatim in cvxpy (``O(|A| k^2)`` variables) and solved by
  HiGHS, i.e. what one would write without exploiting the 1-D structure;
- optionally (``--clarabel``) cvxpy's default LP solver CLARABEL, for ``k <= 180`` only (it needs minutes at
  ``k = 500`` and is known to be inaccurate there; see docs/performance.md). Its objective difference is
  reported but not checked.

Both fits in a row use the same ``random_state``, hence the same released histogram (checked), so their LP optima
``objective_`` must agree: the script fails if the relative difference exceeds 1e-6. It also checks the speed
goals of the exact solver: median fit under 1 s at ``k = 180`` and under 10 s at ``k = 500``. Every fit gets a
fresh ``diffprivlib.BudgetAccountant``. One untimed warm-up fit per solver precedes the timings (imports and
cvxpy's first-call overhead). Timings are medians of 5 fits, except the plain LP at ``k = 500``, where one solve
takes tens of seconds to a minute: 1 fit by default (``--repeats-large``).

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_barycenter.py              # full run, a few minutes
    .venv/bin/python tests/benchmarks/bench_barycenter.py --quick      # smoke run, k in {36, 180}

The full run prints a GitHub-markdown table and writes it to ``tests/benchmarks/results/bench_barycenter.md``;
``--quick`` only prints unless ``--output`` is given. The exit status is non-zero if a check fails.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import BudgetAccountant

EPSILON = 1.0
RANDOM_STATE = 20240721
GROUPS = ("asian", "black", "hisp", "white")  # public group list of the paper
ALPHAS = (0.0, 0.05)
BINS_FULL = (36, 180, 500)
BINS_QUICK = (36, 180)
LARGE_K = 500                      # plain LP takes tens of seconds per solve here: fewer repeats
CLARABEL_MAX_K = 180
OBJECTIVE_TOLERANCE = 1e-6         # relative difference of objective_ between exact and HiGHS
SPEED_GOALS = {180: 1.0, 500: 10.0}  # k -> maximum median exact fit time in seconds
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_barycenter.md"


def load_law_school():
    """Targets ``ugpa`` as one column (the regressor outputs to post-process), race labels, the public groups."""
    data = fetch_law_school(as_frame=False)
    return data.target[:, None], data.sensitive_features, list(GROUPS)


def fit_once(X, race, groups, *, n_bins, alpha, solver):
    """One timed fit with a fresh accountant; returns (seconds, fitted post-processor)."""
    postprocessor = DPFairRegressionPostprocessor(
        estimator=None, epsilon=EPSILON, bounds=LAW_SCHOOL_BOUNDS, n_bins=n_bins, alpha=alpha, groups=groups,
        accountant=BudgetAccountant(), random_state=RANDOM_STATE, solver=solver)
    start = time.perf_counter()
    postprocessor.fit(X, sensitive_features=race)
    return time.perf_counter() - start, postprocessor


def median_fit(X, race, groups, *, n_bins, alpha, solver, repeats):
    """Median fit time over ``repeats`` fits, and the last fitted post-processor."""
    times = []
    for _ in range(repeats):
        seconds, fitted = fit_once(X, race, groups, n_bins=n_bins, alpha=alpha, solver=solver)
        times.append(seconds)
    return statistics.median(times), fitted


def relative_difference(value, reference):
    scale = max(abs(value), abs(reference))
    return 0.0 if scale == 0 else abs(value - reference) / scale


def benchmark_row(X, race, groups, *, n_bins, alpha, repeats, plain_repeats, clarabel):
    """Time exact and plain-LP fits on the same released histogram and compare their optima."""
    exact_s, exact = median_fit(X, race, groups, n_bins=n_bins, alpha=alpha, solver="exact", repeats=repeats)
    highs_s, highs = median_fit(X, race, groups, n_bins=n_bins, alpha=alpha, solver="HIGHS", repeats=plain_repeats)
    if not np.array_equal(exact.noisy_joint_pmf_, highs.noisy_joint_pmf_):
        raise RuntimeError(f"k={n_bins}, alpha={alpha}: the two fits released different histograms although they "
                           f"share random_state={RANDOM_STATE}; their optima are not comparable.")
    row = {"k": n_bins, "alpha": alpha, "repeats": repeats, "plain_repeats": plain_repeats, "exact_s": exact_s, "highs_s": highs_s,
               "objective": exact.objective_, "rel_diff": relative_difference(highs.objective_, exact.objective_)}
    if clarabel and n_bins <= CLARABEL_MAX_K:
        try:
            row["clarabel_s"], fitted = median_fit(X, race, groups, n_bins=n_bins, alpha=alpha, solver="CLARABEL",
                                                   repeats=plain_repeats)
            row["clarabel_rel_diff"] = relative_difference(fitted.objective_, exact.objective_)
        except RuntimeError as error:      # CLARABEL may stop short of "optimal"; report, do not fail
            row["clarabel_error"] = str(error)
    return row


def machine_header(mode):
    return _common.machine_header(("numpy", "cvxpy", "highspy"), mode)


def markdown_table(rows, clarabel):
    header = ["k", "alpha", "exact fit median (s)", "plain cvxpy HiGHS median (s)", "speed-up (plain / exact)",
              "rel. diff objective_", "objective_ (exact)"]
    if clarabel:
        header += ["plain cvxpy CLARABEL median (s)", "CLARABEL rel. diff"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [str(row["k"]), f"{row['alpha']:g}", f"{row['exact_s']:.4f} (n={row['repeats']})",
                 f"{row['highs_s']:.3f} (n={row['plain_repeats']})", f"{row['highs_s'] / row['exact_s']:,.0f}x",
                 f"{row['rel_diff']:.1e}", f"{row['objective']:.6e}"]
        if clarabel:
            if "clarabel_s" in row:
                cells += [f"{row['clarabel_s']:.3f} (n={row['plain_repeats']})", f"{row['clarabel_rel_diff']:.1e}"]
            elif "clarabel_error" in row:
                cells += ["error", row["clarabel_error"].replace("|", "/")]
            else:
                cells += ["not run", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_results(rows, bins):
    """PASS/FAIL lines and whether everything passed."""
    lines, ok = [], True
    worst = max(rows, key=lambda row: row["rel_diff"])
    passed = worst["rel_diff"] <= OBJECTIVE_TOLERANCE
    ok &= passed
    lines.append(f"- {'PASS' if passed else 'FAIL'}: |objective_ exact - HiGHS| / max <= {OBJECTIVE_TOLERANCE:g} in "
                 f"every row (worst {worst['rel_diff']:.1e} at k={worst['k']}, alpha={worst['alpha']:g})")
    for k, limit in SPEED_GOALS.items():
        if k not in bins:
            lines.append(f"- SKIP: exact fit at k={k} under {limit:g} s (k={k} not run)")
            continue
        slowest = max(row["exact_s"] for row in rows if row["k"] == k)
        passed = slowest < limit
        ok &= passed
        lines.append(f"- {'PASS' if passed else 'FAIL'}: exact fit at k={k} under {limit:g} s "
                     f"(slowest median over alphas: {slowest:.4f} s)")
    return lines, ok


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=3, unit="fits",
                                quick_extra="k in {36, 180}, ")
    parser.add_argument("--repeats-large", type=int, default=1,
                        help=f"plain-LP fits per median at k={LARGE_K}, where one solve takes tens of seconds to "
                             "a minute (default 1)")
    parser.add_argument("--clarabel", action="store_true", help=f"also time CLARABEL for k <= {CLARABEL_MAX_K}")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=3)
    if args.repeats_large < 1:
        parser.error("--repeats-large must be at least 1")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    bins = BINS_QUICK if args.quick else BINS_FULL
    X, race, groups = load_law_school()
    for solver in ("exact", "HIGHS"):                       # untimed warm-up
        fit_once(X, race, groups, n_bins=bins[0], alpha=0.0, solver=solver)

    rows = []
    for k in bins:
        plain_repeats = args.repeats_large if k == LARGE_K else args.repeats
        for alpha in ALPHAS:
            print(f"k={k}, alpha={alpha:g}: {args.repeats} exact and {plain_repeats} plain-LP fit(s) ...",
                  file=sys.stderr, flush=True)
            rows.append(benchmark_row(X, race, groups, n_bins=k, alpha=alpha, repeats=args.repeats,
                                      plain_repeats=plain_repeats, clarabel=args.clarabel))

    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    check_lines, ok = check_results(rows, bins)
    notes = [f"Law School (n={X.shape[0]}, target ugpa, 4 race groups), estimator=None, epsilon={EPSILON:g}, "
             f"random_state={RANDOM_STATE}; time of the whole `DPFairRegressionPostprocessor.fit`, median of n fits "
             f"(n={args.repeats}" + (f"; plain LP n={args.repeats_large} at k={LARGE_K}, where one solve takes "
                                     f"tens of seconds: see --repeats-large" if LARGE_K in bins else "") + ").",
             "Both solvers of a row fit the same released histogram; rel. diff = |obj_HiGHS - obj_exact| / max(|.|)."]
    if args.clarabel:
        notes.append(f"CLARABEL is run for k <= {CLARABEL_MAX_K} only; its difference is informational.")
    report = "\n".join(["# bench_barycenter: exact 1-D solver vs plain cvxpy LP", "", machine_header(mode), "",
                        markdown_table(rows, args.clarabel), "", *notes, "", "Checks:", *check_lines, ""])
    return _common.finish(report, args.output, "bench_barycenter", ok, "see the FAIL lines above (objective "
                          f"mismatch above {OBJECTIVE_TOLERANCE:g} or a speed goal missed).")


if __name__ == "__main__":
    sys.exit(main())
