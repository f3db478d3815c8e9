"""Benchmark: DPGroupBudgetRegressor fit time against diffprivlib's LinearRegression, and the share spent on noise.

What is measured
----------------
Synthetic data (fixed seed): n = 50,000 rows x 10 features uniform in [-1, 1], K = 5 groups of 20,000 / 15,000 /
8,000 / 5,000 / 2,000 rows (labels "A".."E", shuffled), ``y = X beta_k + N(0, 1)`` with ``beta_k`` uniform in
[-1, 1]^10. Public bounds ``data_bound = 1``, ``target_bound = 10`` (checked to cover y: nothing is clipped). Timed:

1. ``DPGroupBudgetRegressor(epsilon=1, delta=1e-6, data_bound=1, target_bound=10, n_iter=200, groups=[public
   list], random_state=SEED)`` with ``budget_allocation="standard_errors"`` (DPSE), ``"uniform"`` (DPNoSE, no
   stage 1) and DPSE with ``bounded_group_loss=1.0`` (BGL: one more release per group and iteration);
2. the baseline ``diffprivlib.models.LinearRegression(epsilon=1, bounds_X=([-1]*10, [1]*10), bounds_y=(-10, 10),
   random_state=SEED)`` (pure epsilon-DP: comparable to, not identical with, the (1, 1e-6) of the zCDP estimator);
3. for context only, scikit-learn's non-private ``LinearRegression``.

All with ``fit_intercept=True`` and a fresh ``BudgetAccountant`` per fit (construction not timed). One untimed
warm-up fit each, then ``--repeats`` rounds fitting them in turn (load drift hits all); median, minimum, median
ratio to diffprivlib and, for DPGroupBudgetRegressor, ms per iteration (median / T, stage 1 included).

Noise vs the rest: three more fits per setting (the one of median time is shown) with ``ZCDPLedger.release`` (every
Gaussian release: one ``randomise_vector`` call for all its coordinates plus the ledger entry) wrapped in a
``perf_counter`` timer. ``--profile`` appends a cProfile of one DPSE fit (top 10 by cumulative and by own time; the
profiler inflates call-heavy code, so the timer split is the unbiased one).
No speed goal. Checks: no warning in a timed fit, ``rho_spent_`` equals the budget; the MSE of every model on the
data is printed as a sanity check. The load average is recorded at the start and the end.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_group_budget.py              # full run, about 15 s
    .venv/bin/python tests/benchmarks/bench_group_budget.py --profile    # plus the cProfile
    .venv/bin/python tests/benchmarks/bench_group_budget.py --quick      # smoke run: 2 repeats, no file

The full run prints GitHub-markdown tables and writes them to ``tests/benchmarks/results/bench_group_budget.md``;
``--quick`` only prints unless ``--output`` is given. Exit status non-zero if a check fails.
"""

from __future__ import annotations

import cProfile
import io
import math
import os
import pstats
import statistics
import sys
import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
from diffprivlib.models import LinearRegression as DiffprivlibLinearRegression
from sklearn.linear_model import LinearRegression as SklearnLinearRegression

from fairlearn_dp.privacy import BudgetAccountant  # first: makes diffprivlib importable on scikit-learn 1.9
from fairlearn_dp.privacy._zcdp_ledger import ZCDPLedger
from fairlearn_dp.reductions import DPGroupBudgetRegressor

SEED = 20240721                      # data, and random_state of every fit
EPSILON = 1.0
DELTA = 1e-6                         # DPGroupBudgetRegressor's (epsilon, delta) report; diffprivlib is pure epsilon-DP
GROUP_SIZES = (20_000, 15_000, 8_000, 5_000, 2_000)
GROUPS = ("A", "B", "C", "D", "E")   # public group list
N_FEATURES = 10
DATA_BOUND = 1.0
TARGET_BOUND = 10.0                  # >= max |y| for this seed (checked at run time)
N_ITER = 200
BGL_THRESHOLD = 1.0
INSTRUMENTED_FITS = 3                # per setting; the one of median fit time is reported
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_group_budget.md"
TIMED_SOURCES = ("fairlearn_dp/reductions/_group_budget.py", "fairlearn_dp/privacy/_zcdp.py",
                 "fairlearn_dp/privacy/_vector.py", "fairlearn_dp/_utils/_validation.py", "fairlearn_dp/reductions/_group_budget_stages.py")
BASELINE = "diffprivlib LinearRegression"
SETTINGS = (  # name, DPGroupBudgetRegressor keyword arguments
    ("DPSE (standard_errors)", {"budget_allocation": "standard_errors"}),
    ("DPNoSE (uniform)", {"budget_allocation": "uniform"}),
    (f"DPSE + BGL (bounded_group_loss={BGL_THRESHOLD:g})",
     {"budget_allocation": "standard_errors", "bounded_group_loss": BGL_THRESHOLD}),
)


def make_data():
    """X (n, 10) uniform in [-1, 1], y = X beta_k + N(0, 1), group labels (shuffled)."""
    rng = np.random.default_rng(SEED)
    group_index = rng.permutation(np.repeat(np.arange(len(GROUP_SIZES)), GROUP_SIZES))
    X = rng.uniform(-DATA_BOUND, DATA_BOUND, size=(group_index.size, N_FEATURES))
    betas = rng.uniform(-1.0, 1.0, size=(len(GROUP_SIZES), N_FEATURES))
    y = np.einsum("ij,ij->i", X, betas[group_index]) + rng.normal(size=group_index.size)
    if np.abs(y).max() > TARGET_BOUND:
        raise RuntimeError(f"max |y| = {np.abs(y).max():.3f} exceeds TARGET_BOUND = {TARGET_BOUND:g}; raise it.")
    return X, y, np.asarray(GROUPS)[group_index]


def make_group_budget(**keywords):
    return DPGroupBudgetRegressor(epsilon=EPSILON, delta=DELTA, data_bound=DATA_BOUND, target_bound=TARGET_BOUND,
                                  fit_intercept=True, n_iter=N_ITER, groups=list(GROUPS),
                                  accountant=BudgetAccountant(), random_state=SEED, **keywords)


def make_diffprivlib():
    bounds_X = ([-DATA_BOUND] * N_FEATURES, [DATA_BOUND] * N_FEATURES)
    return DiffprivlibLinearRegression(epsilon=EPSILON, bounds_X=bounds_X, bounds_y=(-TARGET_BOUND, TARGET_BOUND),
                                       fit_intercept=True, random_state=SEED, accountant=BudgetAccountant())


def estimators():
    """name -> (make, fit(model, X, y, groups))."""
    table = {name: ((lambda keywords=keywords: make_group_budget(**keywords)),
                    (lambda model, X, y, g: model.fit(X, y, sensitive_features=g))) for name, keywords in SETTINGS}
    table[BASELINE] = (make_diffprivlib, lambda model, X, y, g: model.fit(X, y))
    table["scikit-learn LinearRegression (non-private)"] = (SklearnLinearRegression,
                                                            lambda model, X, y, g: model.fit(X, y))
    return table


def timed_fit(make, fit, X, y, groups):
    """Seconds of one fit (construction untimed), the fitted model and the warnings it raised."""
    model = make()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        fit(model, X, y, groups)
        seconds = time.perf_counter() - start
    return seconds, model, [f"{w.category.__name__}: {w.message}" for w in caught]


def time_all(X, y, groups, repeats):
    """Warm-up fit of each estimator, then ``repeats`` rounds fitting each in turn."""
    table = estimators()
    for make, fit in table.values():
        timed_fit(make, fit, X, y, groups)
    times, models, caught = {name: [] for name in table}, {}, {name: [] for name in table}
    for round_ in range(repeats):
        print(f"  round {round_ + 1}/{repeats} ...", file=sys.stderr, flush=True)
        for name, (make, fit) in table.items():
            seconds, models[name], raised = timed_fit(make, fit, X, y, groups)
            times[name].append(seconds)
            caught[name] += raised
    return times, models, caught


def noise_split(keywords, X, y, groups):
    """One fit with ``ZCDPLedger.release`` (class attribute, restored after) wrapped in a timer: the fit time, the
    time spent in releases, the number of releases and of noisy coordinates."""
    totals = {"release": 0.0, "releases": 0, "coordinates": 0}
    original = ZCDPLedger.release

    def release(self, values, **keywords_):
        start = time.perf_counter()
        try:
            return original(self, values, **keywords_)
        finally:
            totals["release"] += time.perf_counter() - start
            totals["releases"] += 1
            totals["coordinates"] += int(np.size(values))

    model = make_group_budget(**keywords)
    ZCDPLedger.release = release
    try:
        start = time.perf_counter()
        model.fit(X, y, sensitive_features=groups)
        totals["total"] = time.perf_counter() - start
    finally:
        ZCDPLedger.release = original
    return totals


def profile_fit(X, y, groups, keywords, limit=10):
    """cProfile of one fit: the top ``limit`` lines by cumulative and by own time."""
    model = make_group_budget(**keywords)
    profiler = cProfile.Profile()
    profiler.runcall(model.fit, X, y, sensitive_features=groups)
    listings = []
    for key in ("cumulative", "tottime"):
        stream = io.StringIO()
        pstats.Stats(profiler, stream=stream).strip_dirs().sort_stats(key).print_stats(limit)
        text = stream.getvalue()
        listings.append(text[text.find("   ncalls"):].rstrip())
    return listings


def markdown_table(header, rows):
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *("| " + " | ".join(row) + " |" for row in rows)])


def timing_table(times, models, X, y, groups):
    baseline = statistics.median(times[BASELINE])
    group_budget = {name for name, _ in SETTINGS}
    rows = []
    for name, values in times.items():
        median = statistics.median(values)
        errors = (models[name].predict(X) - y) ** 2
        worst = max(errors[groups == group].mean() for group in GROUPS)
        rows.append([f"**{name}** (baseline)" if name == BASELINE else name, f"{median:.4f}", f"{min(values):.4f}",
                     f"{median / baseline:.1f}x", f"{1e3 * median / N_ITER:.2f}" if name in group_budget else "-",
                     f"{errors.mean():.3f} / {worst:.3f}"])
    return markdown_table(["estimator", "median fit (s)", "min fit (s)", f"ratio to {BASELINE} (median)",
                  "per iteration (ms)", "MSE on the data (all / worst group)"], rows)


def split_table(splits):
    rows = [[name, f"{s['total']:.3f}", f"{s['release']:.3f}", f"{s['total'] - s['release']:.3f}",
             f"**{100 * s['release'] / s['total']:.0f}%**", f"{s['releases']:,} / {s['coordinates']:,}",
             f"{1e6 * s['release'] / s['coordinates']:.1f}"] for name, s in splits.items()]
    return markdown_table([f"setting (median of {INSTRUMENTED_FITS} timed fits)", "fit (s)", "ZCDPLedger.release (s)",
                  "rest of fit (s)", "release share", "releases / noisy coordinates", "release per coordinate (us)"],
                 rows)


def check_lines(models, caught):
    lines, ok = [], True
    for name, _ in SETTINGS:
        model = models[name]
        passed = bool(math.isclose(model.rho_spent_, model._total_rho(), rel_tol=1e-9)
                      or getattr(model, "stage1_fallback_", None))       # a stage-1 fallback skips releases
        ok &= passed
        lines.append(f"- {'PASS' if passed else 'FAIL'}: {name}: rho_spent_ {model.rho_spent_:.6g} == rho "
                     f"{model._total_rho():.6g}")
    raised = {name: sorted(set(messages)) for name, messages in caught.items() if messages}
    ok &= not raised
    lines.append(f"- {'FAIL' if raised else 'PASS'}: no warning raised in any timed fit"
                 + ("".join(f"; {name}: {messages}" for name, messages in raised.items())))
    return lines, ok


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=2, unit="timed rounds")
    parser.add_argument("--profile", action="store_true", help="append a cProfile of one DPSE fit (top 10)")
    return _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=2)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    load = os.getloadavg()
    source = _common.source_state(TIMED_SOURCES)
    X, y, groups = make_data()

    print(f"fit timings: warm-up + {args.repeats} rounds ...", file=sys.stderr, flush=True)
    times, models, caught = time_all(X, y, groups, args.repeats)
    print("noise split: release timer ...", file=sys.stderr, flush=True)
    splits = {name: sorted((noise_split(keywords, X, y, groups) for _ in range(INSTRUMENTED_FITS)),
                           key=lambda split: split["total"])[INSTRUMENTED_FITS // 2] for name, keywords in SETTINGS}
    profile = None
    if args.profile:
        print("cProfile: one DPSE fit ...", file=sys.stderr, flush=True)
        profile = profile_fit(X, y, groups, SETTINGS[0][1])
    load_after = os.getloadavg()

    checks, ok = check_lines(models, caught)
    dpse = models[SETTINGS[0][0]]
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    header = _common.machine_header(("numpy", "scipy", "scikit-learn", "diffprivlib"), mode,
                                    f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.")
    notes = [
        f"Data: n = {X.shape[0]:,} x {N_FEATURES}, {len(GROUPS)} groups, max |y| = {np.abs(y).max():.2f} <= "
        f"target_bound = {TARGET_BOUND:g}; seed {SEED} (the docstring gives the group sizes and coefficients).",
        f"DPGroupBudgetRegressor: rho = {dpse._total_rho():.5f} zCDP for (epsilon, delta) = ({EPSILON:g}, "
        f"{DELTA:g}); defaults clip={dpse.clip:g}, stage1_fraction={dpse.stage1_fraction:g}, learning_rate="
        f"{dpse.learning_rate:g}, T = {N_ITER}. Timings: warm-up, then {args.repeats} rounds; ratio = median / "
        f"median of {BASELINE}; per iteration = median fit / T. The MSE includes the DP noise and clipping.",
        "Noise split: ZCDPLedger.release wrapped in a perf_counter timer; it draws a release's noise with one "
        "randomise_vector call (diffprivlib's GaussianAnalytic, all coordinates at once). Rest = data checks, "
        "stage 1, clipped gradients.",
        f"Load average at the end: {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} (the script keeps "
        f"one core busy; on this {os.cpu_count()}-CPU machine a load above about 1 means other processes competed).",
    ]
    report = ["# bench_group_budget: DPGroupBudgetRegressor fit vs diffprivlib LinearRegression", "", header,
              source, "", "## Fit time", "", timing_table(times, models, X, y, groups), "",
              "## Noise release vs the rest of the fit", "", split_table(splits), "", "## Notes", "", *notes, "",
              "Checks:", *checks, ""]
    if profile is not None:
        report += ["## cProfile of one DPSE fit (top 10 by cumulative time)", "", "```", profile[0], "```", "",
                   "By own time:", "", "```", profile[1], "```", ""]
    report = "\n".join(report)
    return _common.finish(report, args.output, "bench_group_budget", ok)


if __name__ == "__main__":
    sys.exit(main())
