"""Benchmark: time and memory of ``DPFairRegressionPostprocessor.fit`` at large numbers of bins, vs today's main.

What is measured
----------------
``DPFairRegressionPostprocessor.fit`` (Xian et al. 2024, Alg. 1, ``solver="exact"``) on synthetic data: ``n =
200,000`` regressor outputs in 4 groups (shares 0.4 / 0.3 / 0.2 / 0.1, group ``a`` ~ N(0.35 + 0.1 a, 0.12 +
0.02 a) clipped to the public ``bounds=(0, 1)``), ``estimator=None``, ``epsilon=1``, ``alpha=0`` (``--alpha``),
declared groups, a fresh ``diffprivlib.BudgetAccountant`` and a fixed ``random_state`` per fit. Two versions of
the package are run, each in its own fresh Python process per number of bins ``k`` (so that one measurement's
memory cannot leak into another's):

- "new": the working tree (sparse couplings: the fitted object holds ``O(|A| k)`` values);
- "main": the package as of git commit ``HEAD``, extracted read-only with ``git archive HEAD fairlearn_dp`` into
  a temporary folder put first on ``PYTHONPATH`` (``--baseline modules`` instead copies the working tree and
  replaces only ``_fair_regression.py`` and ``_barycenter.py`` by their ``HEAD`` versions, isolating this change
  from any other uncommitted one). main caps ``n_bins`` at ``MAX_N_BINS = 2000`` for memory; the measuring
  process raises that module constant so that main can be timed at ``k = 5,000``, where it needs ~3 GB. It is
  not run at ``k >= 10^4`` by default (~6 GB and a minute at ``10^4``; ``--main-bins`` to change).

In each process: one untimed warm-up fit at ``k = 36``; then ``--repeats`` timed fits (median reported; main:
``--main-repeats``), the previous fitted object dropped before the next fit; then one more fit under
``tracemalloc``. Memory is reported three ways:

- peak RSS of the fits: ``VmHWM`` of ``/proc/self/status``, reset with ``/proc/self/clear_refs`` just before the
  timed fits (if the kernel refuses, the process's whole high-water mark), minus ``VmRSS`` before them (imports,
  data, warm-up: printed as "baseline RSS"). ``getrusage().ru_maxrss`` is not used: it cannot be reset, and for a
  process started by ``subprocess`` it includes the launcher's image;
- ``tracemalloc`` peak of the traced fit (numpy's allocations are traced), slower than the timed fits;
- memory held by the fitted object: ``tracemalloc``'s current size right after the traced fit, while the object
  is alive, and the size of ``pickle.dumps(fitted)``.

Also reported: the largest number of non-zeros of a group's coupling ``transport_plans_[a]`` (at most ``2k - 1``
for monotone couplings; main stores them dense), ``objective_``, and ``predict`` on the 200,000 fitting rows with
``random_state=PREDICT_SEED`` (time, and a SHA-256 of the outputs: main and new must give identical outputs).

A second table gives the evidence for the threshold optimizer's score bins: ``DPThresholdOptimizer.fit``
(``constraints="equalized_odds"``, ``flip=True``, ``predict_method="predict_proba"``, ``epsilon=1``) on synthetic
scores of 200,000 labelled rows, working tree only, at ``n_score_bins`` ``B`` in {1,000, 10,000} and 4 or 10
groups: fit time (one fit after a warm-up) and ``tracemalloc`` peak of a second fit.

Goals (issue 14): at ``k = 10^4`` bins and 4 groups, fit in < 1 s with < 300 MB peak memory (checked on the fits'
RSS peak above the baseline; the process's absolute peak is printed too); at ``k = 10^5``, fit in < 10 s. Checks:
main and new give the same ``objective_`` (relative difference <= 1e-12) and identical predictions at every ``k``
both ran; every coupling has at most ``2k - 1`` non-zeros; the threshold optimizer's peak grows less than
``10x`` from ``B = 10^3`` to ``10^4`` (a ``B^2`` structure would give about 100x).

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_fair_regression_memory.py            # full run, about 3 minutes
    .venv/bin/python tests/benchmarks/bench_fair_regression_memory.py --quick    # smoke run, no file

The full run prints GitHub-markdown tables and writes them to
``tests/benchmarks/results/bench_fair_regression_memory.md``; ``--quick`` (new at k in {2,000, 10^4}, main at
2,000, one repeat, threshold at 4 groups only) only prints unless ``--output`` is given. The exit status is
non-zero if a goal or a check fails.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import io
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)

N_ROWS = 200_000
GROUP_SHARES = (0.4, 0.3, 0.2, 0.1)
DATA_SEED = 14
FIT_SEED = 20240721
PREDICT_SEED = 7
EPSILON = 1.0
NEW_BINS_FULL = (2_000, 5_000, 10_000, 100_000)
MAIN_BINS_FULL = (2_000, 5_000)
NEW_BINS_QUICK = (2_000, 10_000)
MAIN_BINS_QUICK = (2_000,)
THRESHOLD_CASES_FULL = ((1_000, 4), (10_000, 4), (1_000, 10), (10_000, 10))   # (n_score_bins, n_groups)
THRESHOLD_CASES_QUICK = ((1_000, 4), (10_000, 4))
GOALS = {10_000: (1.0, 300.0), 100_000: (10.0, None)}       # k -> (max median fit s, max fit peak RSS MiB or None)
OBJECTIVE_TOLERANCE = 1e-12
THRESHOLD_GROWTH_LIMIT = 10.0
CHANGED_MODULES = ("fairlearn_dp/postprocessing/_fair_regression.py", "fairlearn_dp/postprocessing/_barycenter.py")
CHILD_MARKER = "BENCH-CHILD-RESULT "
MIB = 2**20
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_fair_regression_memory.md"
REPOSITORY = _common.REPOSITORY


# ------------------------------------------------------------------------------------------- measuring process
def _status_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"{field} not found in /proc/self/status")


def _reset_peak_rss():
    """Reset ``VmHWM`` to the current RSS (Linux >= 4.0); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
        return True
    except OSError:
        return False


def _regression_data():
    import numpy as np

    rng = np.random.default_rng(DATA_SEED)
    groups = rng.choice(len(GROUP_SHARES), size=N_ROWS, p=GROUP_SHARES)
    outputs = np.clip(rng.normal(0.35 + 0.1 * groups, 0.12 + 0.02 * groups), 0.0, 1.0)
    return outputs[:, None], groups


def _fit_regression(module, X, groups, n_bins, alpha):
    from diffprivlib import BudgetAccountant

    model = module.DPFairRegressionPostprocessor(
        epsilon=EPSILON, bounds=(0.0, 1.0), n_bins=n_bins, alpha=alpha, groups=list(range(len(GROUP_SHARES))),
        accountant=BudgetAccountant(), random_state=FIT_SEED)
    return model.fit(X, sensitive_features=groups)


def regression_child(n_bins, repeats, alpha, expected_root):
    """One (version, k) measurement in this fresh process; prints one JSON line after ``CHILD_MARKER``."""
    import numpy as np

    import fairlearn_dp
    import fairlearn_dp.postprocessing._fair_regression as module

    root = Path(fairlearn_dp.__file__).resolve().parents[1]
    if root != Path(expected_root).resolve():
        raise RuntimeError(f"imported fairlearn_dp from {root}, expected {expected_root}")
    module.MAX_N_BINS = max(module.MAX_N_BINS, n_bins)    # main caps n_bins at 2,000 (memory); lift it to time it
    X, groups = _regression_data()
    _fit_regression(module, X, groups, 36, alpha)           # warm-up
    gc.collect()
    baseline_kib = _status_kib("VmRSS")
    reset = _reset_peak_rss()
    times, fitted = [], None
    for _ in range(repeats):
        fitted = None
        gc.collect()
        start = time.perf_counter()
        fitted = _fit_regression(module, X, groups, n_bins, alpha)
        times.append(time.perf_counter() - start)
    peak_kib = _status_kib("VmHWM")
    start = time.perf_counter()
    predicted = fitted.predict(X, sensitive_features=groups, random_state=PREDICT_SEED)
    predict_s = time.perf_counter() - start
    plans = fitted.transport_plans_
    nnz = [int(plan.nnz) if hasattr(plan, "nnz") else int(np.count_nonzero(plan)) for plan in plans]
    pickled = len(pickle.dumps(fitted, protocol=pickle.HIGHEST_PROTOCOL))
    objective = float(fitted.objective_)
    fitted = plans = None
    gc.collect()
    tracemalloc.start()
    fitted = _fit_regression(module, X, groups, n_bins, alpha)
    held, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(CHILD_MARKER + json.dumps({
        "k": n_bins, "repeats": repeats, "fit_s": statistics.median(times), "fit_times": times, "baseline_kib": baseline_kib,
        "peak_kib": peak_kib, "peak_reset": reset, "traced_peak": traced_peak, "held": held, "pickled": pickled, "max_nnz": max(nnz),
        "objective": objective, "predict_s": predict_s,
        "predict_sha": hashlib.sha256(np.ascontiguousarray(predicted).tobytes()).hexdigest()}), flush=True)


def threshold_child(n_bins, n_groups):
    """Fit time and tracemalloc peak of DPThresholdOptimizer at ``n_bins`` score bins and ``n_groups`` groups."""
    import numpy as np
    from diffprivlib import BudgetAccountant

    from fairlearn_dp.exceptions import FairdpWarning
    from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions

    rng = np.random.default_rng(DATA_SEED)
    groups = rng.integers(0, n_groups, N_ROWS)
    labels = rng.integers(0, 2, N_ROWS)
    scores = np.clip(rng.normal(0.4 + 0.2 * labels + 0.02 * groups, 0.15), 0.0, 1.0)[:, None]

    def fit(bins):
        model = DPThresholdOptimizer(constraints="equalized_odds", predict_method="predict_proba", flip=True,
                                     options=ThresholdOptimizerOptions(n_score_bins=bins), epsilon=EPSILON, groups=list(range(n_groups)),
                                     accountant=BudgetAccountant(), random_state=FIT_SEED)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FairdpWarning)       # released-value warnings at large B: not measured
            return model.fit(scores, labels, sensitive_features=groups)

    fit(10)                                                      # warm-up
    gc.collect()
    start = time.perf_counter()
    fit(n_bins)
    fit_s = time.perf_counter() - start
    gc.collect()
    tracemalloc.start()
    fitted = fit(n_bins)
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(CHILD_MARKER + json.dumps({"B": n_bins, "groups": n_groups, "fit_s": fit_s, "traced_peak": traced_peak,
                                         "mixing_shape": list(fitted.mixing_rates_.shape)}), flush=True)


# ------------------------------------------------------------------------------------------------------ driver
def _git(*arguments, text=True):
    return subprocess.run(["git", *arguments], cwd=REPOSITORY, capture_output=True, text=text, check=True).stdout


def build_main_package(folder, baseline):
    """Put the HEAD package (``head``) or the working tree with HEAD's changed modules (``modules``) in ``folder``.

    Read-only git only (``archive``, ``show``, ``rev-parse``). Returns the HEAD commit."""
    if baseline == "head":
        with tarfile.open(fileobj=io.BytesIO(_git("archive", "--format=tar", "HEAD", "fairlearn_dp", text=False))) \
                as archive:
            archive.extractall(folder, filter="data")
    else:
        shutil.copytree(REPOSITORY / "fairlearn_dp", Path(folder) / "fairlearn_dp",
                        ignore=shutil.ignore_patterns("__pycache__"))
        for path in CHANGED_MODULES:
            (Path(folder) / path).write_text(_git("show", f"HEAD:{path}"))
    return _git("rev-parse", "--short", "HEAD").strip()


def run_child(arguments, pythonpath=None):
    environment = dict(os.environ)
    if pythonpath is not None:
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pythonpath), environment.get("PYTHONPATH")]))
    completed = subprocess.run([sys.executable, str(Path(__file__).resolve()), *arguments], cwd=Path(__file__).parent,
                               env=environment, stdout=subprocess.PIPE, text=True, check=False)
    lines = [line for line in completed.stdout.splitlines() if line.startswith(CHILD_MARKER)]
    if completed.returncode != 0 or not lines:
        raise RuntimeError(f"measuring process {arguments} failed (exit status {completed.returncode}); output:\n"
                           f"{completed.stdout}")
    return json.loads(lines[-1][len(CHILD_MARKER):])


def regression_rows(version, bins, repeats, alpha, root, pythonpath):
    rows = {}
    for k in bins:
        print(f"{version}: k={k:,}, {repeats} timed fit(s) + 1 traced ...", file=sys.stderr, flush=True)
        rows[k] = run_child(["--regression-child", str(k), "--child-repeats", str(repeats), "--alpha", str(alpha),
                             "--expected-root", str(root)], pythonpath)
    return rows


def mib(n_bytes):
    return f"{n_bytes / MIB:,.1f}"


def fit_peak_mib(row):
    return (row["peak_kib"] - row["baseline_kib"]) / 1024


def regression_table(new, main):
    header = ["k", "version", "fit median (s)", "fit peak RSS above baseline (MiB)", "process peak RSS (MiB)",
              "baseline RSS (MiB)", "tracemalloc peak of a fit (MiB)", "held by fitted object: traced (MiB)",
              "pickle (MiB)", "max nnz of a coupling", "predict (s)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for k in sorted(set(new) | set(main)):
        for version, rows in (("main (HEAD)", main), ("new", new)):
            if k not in rows:
                continue
            row = rows[k]
            lines.append("| " + " | ".join([
                f"{k:,}", version, f"{row['fit_s']:.3f} (n={row['repeats']})", f"{fit_peak_mib(row):,.0f}",
                f"{row['peak_kib'] / 1024:,.0f}", f"{row['baseline_kib'] / 1024:,.0f}", mib(row["traced_peak"]),
                mib(row["held"]), mib(row["pickled"]), f"{row['max_nnz']:,}", f"{row['predict_s']:.3f}"]) + " |")
    return "\n".join(lines)


def ratio_table(new, main):
    header = ["k", "fit time main / new", "fit peak RSS main / new", "tracemalloc peak main / new",
              "held by fitted object main / new", "rel. diff objective_", "predictions identical"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for k in sorted(set(new) & set(main)):
        n, m = new[k], main[k]
        lines.append("| " + " | ".join([
            f"{k:,}", f"{m['fit_s'] / n['fit_s']:,.0f}x", f"{fit_peak_mib(m) / max(fit_peak_mib(n), 1):,.0f}x",
            f"{m['traced_peak'] / n['traced_peak']:,.0f}x", f"{m['held'] / n['held']:,.0f}x",
            f"{relative_difference(n['objective'], m['objective']):.1e}",
            "yes" if n["predict_sha"] == m["predict_sha"] else "NO"]) + " |")
    return "\n".join(lines)


def threshold_table(rows):
    header = ["n_score_bins B", "groups", "fit (s)", "tracemalloc peak of a fit (MiB)", "mixing_rates_ shape"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        lines.append(f"| {row['B']:,} | {row['groups']} | {row['fit_s']:.3f} | {mib(row['traced_peak'])} | "
                     f"{tuple(row['mixing_shape'])} |")
    return "\n".join(lines)


def relative_difference(value, reference):
    scale = max(abs(value), abs(reference))
    return 0.0 if scale == 0 else abs(value - reference) / scale


def check_lines(new, main, threshold):
    lines, ok = [], True

    def check(passed, text):
        nonlocal ok
        ok &= bool(passed)
        lines.append(f"- {'PASS' if passed else 'FAIL'}: {text}")

    for k, (time_limit, memory_limit) in GOALS.items():
        if k not in new:
            lines.append(f"- SKIP: goal at k={k:,} (not run)")
            continue
        row = new[k]
        check(row["fit_s"] < time_limit, f"goal: fit at k={k:,}, 4 groups, under {time_limit:g} s (median "
                                         f"{row['fit_s']:.3f} s)")
        if memory_limit is not None:
            check(fit_peak_mib(row) < memory_limit,
                  f"goal: fit peak memory at k={k:,} under {memory_limit:g} MB (RSS peak above baseline "
                  f"{fit_peak_mib(row):,.0f} MiB; tracemalloc peak {mib(row['traced_peak'])} MiB; whole process "
                  f"{row['peak_kib'] / 1024:,.0f} MiB)")
    for k, row in sorted(new.items()):
        check(row["max_nnz"] <= 2 * k - 1, f"k={k:,}: every coupling has at most 2k - 1 = {2 * k - 1:,} non-zeros "
                                          f"(largest {row['max_nnz']:,})")
    for k in sorted(set(new) & set(main)):
        difference = relative_difference(new[k]["objective"], main[k]["objective"])
        check(difference <= OBJECTIVE_TOLERANCE and new[k]["predict_sha"] == main[k]["predict_sha"],
              f"k={k:,}: main and new agree (objective_ rel. diff {difference:.1e} <= {OBJECTIVE_TOLERANCE:g}; "
              f"predictions {'identical' if new[k]['predict_sha'] == main[k]['predict_sha'] else 'DIFFER'})")
    by_case = {(row["B"], row["groups"]): row for row in threshold}
    for groups in sorted({row["groups"] for row in threshold}):
        if (1_000, groups) in by_case and (10_000, groups) in by_case:
            growth = by_case[(10_000, groups)]["traced_peak"] / by_case[(1_000, groups)]["traced_peak"]
            check(growth < THRESHOLD_GROWTH_LIMIT,
                  f"threshold optimizer, {groups} groups: tracemalloc peak grows {growth:.1f}x from B=1,000 to "
                  f"10,000 (< {THRESHOLD_GROWTH_LIMIT:g}x: no B^2 structure)")
    return lines, ok


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="fits",
                                quick_extra="new at k in {2,000, 10^4}, main at 2,000, ")
    parser.add_argument("--main-repeats", type=int, default=None,
                        help="timed fits of main per k (default 3, or 1 with --quick): ~13 s and 3 GB each at 5,000")
    parser.add_argument("--main-bins", type=int, nargs="*", default=None,
                        help="k at which main is run (default 2000 5000; 10000 needs ~6 GB and a minute)")
    parser.add_argument("--new-bins", type=int, nargs="*", default=None, help="k at which new is run")
    parser.add_argument("--baseline", choices=("head", "modules"), default="head",
                        help="main = the HEAD package (default), or the working tree with HEAD's "
                             "_fair_regression.py and _barycenter.py")
    parser.add_argument("--alpha", type=float, default=0.0, help="KS tolerance of every fit (default 0)")
    parser.add_argument("--no-threshold", action="store_true", help="skip the threshold-optimizer table")
    # Internal: the measuring processes.
    parser.add_argument("--regression-child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--threshold-child", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-repeats", type=int, default=1, help=argparse.SUPPRESS)
    parser.add_argument("--expected-root", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.regression_child is None and args.threshold_child is None:
        args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=1)
        if args.main_repeats is None:
            args.main_repeats = 1 if args.quick else 3
        if args.main_repeats < 1:
            parser.error("--main-repeats must be at least 1")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.regression_child is not None:
        regression_child(args.regression_child, args.child_repeats, args.alpha, args.expected_root)
        return 0
    if args.threshold_child is not None:
        threshold_child(*args.threshold_child)
        return 0

    new_bins = tuple(args.new_bins) if args.new_bins is not None else (NEW_BINS_QUICK if args.quick
                                                                       else NEW_BINS_FULL)
    main_bins = tuple(args.main_bins) if args.main_bins is not None else (MAIN_BINS_QUICK if args.quick
                                                                          else MAIN_BINS_FULL)
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_fair_regression_main_") as folder:
        head = build_main_package(folder, args.baseline)
        main_rows = regression_rows("main", main_bins, args.main_repeats, args.alpha, folder, folder)
    new_rows = regression_rows("new", new_bins, args.repeats, args.alpha, REPOSITORY, None)
    threshold = []
    if not args.no_threshold:
        for n_bins, n_groups in (THRESHOLD_CASES_QUICK if args.quick else THRESHOLD_CASES_FULL):
            print(f"threshold optimizer: B={n_bins:,}, {n_groups} groups ...", file=sys.stderr, flush=True)
            threshold.append(run_child(["--threshold-child", str(n_bins), str(n_groups)]))

    changed = [path for path in _git("diff", "--name-only", "HEAD", "--", "fairlearn_dp").split() if path]
    untracked = _git("ls-files", "--others", "--exclude-standard", "--", "fairlearn_dp").split()
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    header = _common.machine_header(("numpy", "scipy", "diffprivlib"), mode,
                                    extra=f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.")
    baseline_text = (f"main = the package at commit {head} (`git archive HEAD fairlearn_dp`)" if args.baseline == "head"
                     else f"main = the working tree with {', '.join(CHANGED_MODULES)} as of commit {head}")
    notes = [
        f"Synthetic data: n={N_ROWS:,} outputs, {len(GROUP_SHARES)} groups (shares {GROUP_SHARES}), bounds (0, 1), "
        f"epsilon={EPSILON:g}, alpha={args.alpha:g}, random_state={FIT_SEED}, solver='exact'. Each (version, k) runs "
        f"in a fresh process: a warm-up fit at k=36, then n timed fits (median), then one fit under tracemalloc.",
        f"{baseline_text}; new = the working tree. " + _common.source_state(list(CHANGED_MODULES)) + " Files of "
        "fairlearn_dp differing from HEAD in the working tree (all in 'new'"
        + (", none in 'main'" if args.baseline == "head" else ", all but the two modules also in 'main'") + "): "
        + (", ".join(changed + [f"{path} (untracked)" for path in untracked]) or "none") + ".",
        "main caps n_bins at 2,000 (MAX_N_BINS, for memory); the measuring process lifts that constant to run main "
        "at 5,000. Fit peak RSS = VmHWM (reset before the timed fits) - VmRSS before them (baseline: imports, data, "
        "warm-up). 'held by fitted object' = tracemalloc's current size after the traced fit, object alive.",
        "Predictions: `predict` on the 200,000 fitting rows with random_state="
        f"{PREDICT_SEED}; 'identical' compares SHA-256 digests of the outputs.",
    ]
    if threshold:
        notes.append("Threshold optimizer (working tree): DPThresholdOptimizer(constraints='equalized_odds', "
                     "flip=True, predict_method='predict_proba', epsilon=1) on 200,000 synthetic labelled scores; "
                     "one timed fit after a warm-up, then one traced fit.")
    checks, ok = check_lines(new_rows, main_rows, threshold)
    sections = ["# bench_fair_regression_memory: DPFairRegressionPostprocessor.fit at large k, main vs new", "",
                header, "", regression_table(new_rows, main_rows), "", "Ratios where both ran:", "",
                ratio_table(new_rows, main_rows), ""]
    if threshold:
        sections += ["DPThresholdOptimizer (score bins, evidence for goal 2):", "", threshold_table(threshold), ""]
    report = "\n".join(sections + notes + ["", "Checks:", *checks, ""])
    return _common.finish(report, args.output, "bench_fair_regression_memory", ok)


if __name__ == "__main__":
    sys.exit(main())
