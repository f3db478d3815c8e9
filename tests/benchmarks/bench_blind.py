"""Benchmark: attribute-blind fair regression post-processing fit (k = 36 bins, 10 posterior buckets, Law School).

Times the whole ``DPFairRegressionPostprocessor(group_estimator=...).fit`` (release + the sparse LP solved by HiGHS
through SciPy, ``solver="exact"``, twice with the default noise margins) against, in the same run, the same fit with ``solver="HIGHS"`` (the LP as
written in cvxpy: every cell a kernel row, pairwise KS constraints; same seed, hence the same release) and the
attribute-aware fit. One untimed warm-up each, then ``--repeats`` rounds in turn; medians. Goal (issue 16): the
blind fit under 1 s. Check: the two blind optima agree within 1e-6 relative.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_blind.py            # full run, writes tests/benchmarks/results/bench_blind.md
    .venv/bin/python tests/benchmarks/bench_blind.py --quick    # smoke run: 1 repeat, no file
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import BudgetAccountant  # first: makes diffprivlib importable on scikit-learn 1.9

GROUPS = ["asian", "black", "hisp", "white"]
K, BUCKETS, ALPHA, GOAL_SECONDS, OBJECTIVE_TOLERANCE = 36, 10, 0.1, 1.0, 1e-6
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_blind.md"
TIMED_SOURCES = ["fairlearn_dp/postprocessing/_blind.py", "fairlearn_dp/postprocessing/_fair_regression.py", "fairlearn_dp/postprocessing/_blind_fit.py", "fairlearn_dp/postprocessing/_transport.py"]


def fits():
    """``{name: (make, fit arguments)}`` on a 15% group-estimator split and the 85% fitting rows (seed 0)."""
    data = fetch_law_school(as_frame=False)
    X, y, a = data.data, data.target, np.asarray(data.sensitive_features)
    X_g, X_f, y_g, y_f, a_g, a_f = train_test_split(X, y, a, test_size=0.85, random_state=0)
    group_estimator = LogisticRegression(max_iter=1000).fit(np.column_stack([y_g, X_g]), a_g)
    params = {"epsilon": 1.0, "bounds": LAW_SCHOOL_BOUNDS, "n_bins": K, "alpha": ALPHA, "groups": GROUPS, "random_state": 0}
    blind = dict(group_estimator=group_estimator, prefit=True, posterior_buckets=BUCKETS, **params)
    blind_args = ((np.column_stack([y_f, X_f]),), {"sensitive_features": a_f})
    return {"blind, sparse LP (SciPy HiGHS)": (lambda: DPFairRegressionPostprocessor(
                accountant=BudgetAccountant(), **blind), blind_args),
            "blind, LP as written (cvxpy + HiGHS)": (lambda: DPFairRegressionPostprocessor(
                accountant=BudgetAccountant(), solver="HIGHS", **blind), blind_args),
            "attribute-aware (exact solver)": (lambda: DPFairRegressionPostprocessor(
                accountant=BudgetAccountant(), **params), ((y_f[:, None],), {"sensitive_features": a_f}))}, len(y_f)


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="timed rounds")
    args = _common.resolve_run_options(parser, parser.parse_args(sys.argv[1:] if argv is None else list(argv)),
                                       default_output=DEFAULT_OUTPUT, quick_repeats=1)
    source = _common.source_state(TIMED_SOURCES)
    load = os.getloadavg()
    cases, n_rows = fits()
    times = {name: [] for name in cases}
    objectives = {}
    for round_ in range(args.repeats + 1):                  # round 0: warm-up, not timed
        for name, (make, (positional, keywords)) in cases.items():
            model = make()
            start = time.perf_counter()
            model.fit(*positional, **keywords)
            if round_:
                times[name].append(time.perf_counter() - start)
            objectives[name] = model.objective_
    median = {name: statistics.median(values) for name, values in times.items()}
    sparse_name, written_name, _ = cases
    gap = abs(objectives[sparse_name] - objectives[written_name]) / max(abs(objectives[written_name]), 1e-12)
    blind = median[sparse_name]
    checks = [f"{'ok' if blind < GOAL_SECONDS else 'FAIL'}: blind fit {blind:.3f} s (goal < {GOAL_SECONDS:g} s)",
              f"{'ok' if gap <= OBJECTIVE_TOLERANCE else 'FAIL'}: the two blind optima differ by {gap:.1e} relative "
              f"(tolerance {OBJECTIVE_TOLERANCE:g})"]
    rows = [f"| {name} | {median[name]:.4f} | {median[name] / blind:.2f}x |" for name in cases]
    report = "\n".join([
        "# bench_blind: attribute-blind DPFairRegressionPostprocessor.fit", "",
        _common.machine_header(["scipy", "cvxpy", "highspy"], "quick" if args.quick else "full",
                               f" Load average at start: {load[0]:.2f}."), source, "",
        f"Law School, {n_rows:,} fitting rows, 4 groups, k = {K}, posterior_buckets = {BUCKETS}, alpha = {ALPHA}, "
        f"epsilon = 1; medians of {args.repeats} timed rounds.", "",
        "| fit | median (s) | ratio to the blind fit |", "|---|---|---|", *rows, "", "Checks:", *checks, ""])
    ok = all(line.startswith("ok") for line in checks)
    return _common.finish(report, args.output, "bench_blind", ok)


if __name__ == "__main__":
    sys.exit(main())
