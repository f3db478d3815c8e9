"""Benchmark: DPMetricFrame (one DP release of per-group confusion counts) against Fairlearn's MetricFrame.

What is measured
----------------
Predictions: the README "Example" exactly -- ``adult_features("sex")``, ``train_test_split(X, y, sex,
test_size=0.3, random_state=0)``, ``DPThresholdOptimizer(estimator=LogisticRegression(max_iter=1000),
constraints="demographic_parity", predict_method="predict_proba", epsilon=1.0, groups=["Female", "Male"],
random_state=0)`` fitted on the training part, ``predict(X_test, sensitive_features=sex_test, random_state=0)``:
14,653 test rows (checked against the README's printed table). ``race`` comes from ``adult_features("race")`` (the
same rows and features) and is split by the same call, so the race-by-race audit (b) reuses these predictions (a
model post-processed for sex, audited by race) rather than refitting the post-processor on race.

Metrics: ``accuracy_score``, ``selection_rate``, ``true_positive_rate``, ``false_positive_rate``. Every frame gets
epsilon = 1, delta = 0, the public group list, a fresh ``diffprivlib.BudgetAccountant`` and ``random_state=seed``
for seed = 0 .. S-1 (S = 200, 20 with ``--quick``); the exact values are Fairlearn's ``MetricFrame`` on the same
rows.

(a) Adult / sex (2 groups): fraction of seeds in which every by-group value is within 0.01 of the exact value
    (all 4 metrics, and per metric), and in which ``dp_demographic_parity_difference`` is within 0.01 of
    Fairlearn's ``demographic_parity_difference``. Goals (privacy_unit="sensitive_attribute"): >= 95% each.
    ``privacy_unit="record"`` is reported, without a goal.
(b) Adult / race (5 groups): empirical coverage of the exact in-sample values by the 95% ``by_group_ci`` per
    (group, metric), and by ``difference_ci()`` (between groups; ``to_overall`` reported) per metric. Goal: >= 93%
    in every cell. How often ``unreadable_`` flags each (group, metric).
(c) Timing, median of ``--repeats`` (default 9, 7 with ``--quick``) alternating calls after a warm-up of each:
    ``DPMetricFrame`` (default n_boot=1000, random_state=None: the secure path users run) vs ``MetricFrame`` on the
    Adult test split; goal ratio <= 1.5x for sex (race reported). Then 10^7 rows x 10 groups (int8 0/1 labels, int64
    group codes, ``groups=list(range(10))``; and the same codes as a pandas categorical Series): median of 5 calls
    (3 with --quick) after one untimed first call (reported: it includes first-touch page faults); goal < 2 s.
    Fairlearn's MetricFrame on the 10^7 rows is timed once (full run only; about 2 minutes) for reference.
(d) The same 10^7 rows as Dask arrays (``dask.array.from_array``, chunks of 10^6): scheduler "threads", and a
    ``LocalCluster(n_workers=2, threads_per_worker=1)`` with the arrays persisted on the workers (transfer
    untimed); median of the same number of calls; ``by_group`` and ``released_counts_`` must equal the in-memory
    frame's at the same ``random_state``.

The exit status is non-zero if a goal or a check fails (FAIL lines). Timing goals depend on the machine's load.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_metric_frame.py            # full run, about 2 minutes (2 cores)
    .venv/bin/python tests/benchmarks/bench_metric_frame.py --quick    # smoke run: 20 seeds, no file

The full run prints GitHub-markdown tables and writes them to ``tests/benchmarks/results/bench_metric_frame.md``;
``--quick`` only prints unless ``--output`` is given.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
import pandas as pd
from diffprivlib import BudgetAccountant
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
from sklearn.model_selection import train_test_split

import fairlearn_dp  # noqa: F401  (first: makes diffprivlib importable on scikit-learn 1.9)
from fairlearn_dp.datasets import adult_categories, adult_features
from fairlearn_dp.metrics import DPMetricFrame, dp_demographic_parity_difference
from fairlearn_dp.postprocessing import DPThresholdOptimizer

EPSILON = 1.0
SEX_GROUPS = ["Female", "Male"]
RACE_GROUPS = sorted(adult_categories()["race"])          # the public codebook, not the data
METRICS = {"accuracy": accuracy_score, "selection_rate": selection_rate, "tpr": true_positive_rate,
           "fpr": false_positive_rate}
TOLERANCE = 0.01
GOAL_WITHIN = 0.95
GOAL_COVERAGE = 0.93
GOAL_RATIO = 1.5
GOAL_LARGE_SECONDS = 2.0
LARGE_ROWS = 10 ** 7
LARGE_GROUPS = 10
CHUNK_ROWS = 10 ** 6
SEED = 20240721
README_TABLE = {("Female", "accuracy"): 0.883, ("Female", "selection rate"): 0.184,
                ("Male", "accuracy"): 0.799, ("Male", "selection rate"): 0.183}
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_metric_frame.md"
TIMED_SOURCES = ("fairlearn_dp/metrics/_dp_metric_frame.py", "fairlearn_dp/metrics/_frame_checks.py",
                 "fairlearn_dp/metrics/_frame_release.py",
                 "fairlearn_dp/metrics/_frame_counting.py", "fairlearn_dp/metrics/_frame_inputs.py",
                 "fairlearn_dp/metrics/_count_metrics.py", "fairlearn_dp/metrics/_dp_aggregates.py",
                 "fairlearn_dp/privacy/_projection.py", "fairlearn_dp/privacy/_release.py")


def log(message):
    print(f"  {message}", file=sys.stderr, flush=True)


def markdown_table(header, rows):
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)])


def verdict(ok):
    return "PASS" if ok else "FAIL"


def pct(value):
    return f"{100 * value:.1f}%"


def dp_frame(y_true, y_pred, sensitive, groups, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)          # "unreadable group" (reported from unreadable_)
        return DPMetricFrame(metrics=METRICS, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive,
                             groups=groups, epsilon=EPSILON, accountant=BudgetAccountant(), **kwargs)


# ---------------------------------------------------------------------------------------------------- the data
def readme_predictions():
    """The README example's test rows and predictions, with race split alongside (same permutation)."""
    X, y, sex = adult_features("sex")
    X_race, y_race, race = adult_features("race")
    assert X_race.equals(X) and np.array_equal(y_race, y), "adult_features('race') has other rows than ('sex')"
    X_train, X_test, y_train, y_test, sex_train, sex_test, _, race_test = train_test_split(
        X, y, sex, race, test_size=0.3, random_state=0)
    fair = DPThresholdOptimizer(estimator=LogisticRegression(max_iter=1000), constraints="demographic_parity",
                                predict_method="predict_proba", epsilon=1.0, groups=SEX_GROUPS, random_state=0,
                                accountant=BudgetAccountant())
    fair.fit(X_train, y_train, sensitive_features=sex_train)
    y_pred = fair.predict(X_test, sensitive_features=sex_test, random_state=0)
    report = MetricFrame(metrics={"accuracy": accuracy_score, "selection rate": selection_rate}, y_true=y_test,
                         y_pred=y_pred, sensitive_features={"sex": sex_test})
    got = {(group, name): round(float(report.by_group.loc[group, name]), 3) for group, name in README_TABLE}
    return np.asarray(y_test), np.asarray(y_pred), np.asarray(sex_test), np.asarray(race_test), got


def exact_frame(y_true, y_pred, sensitive, groups):
    frame = MetricFrame(metrics=METRICS, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive)
    return frame, frame.by_group.loc[groups, list(METRICS)]


# ---------------------------------------------------------------------------------------------------- (a)
def goal_a(y_true, y_pred, sex, seeds, unit):
    _, exact = exact_frame(y_true, y_pred, sex, SEX_GROUPS)
    exact_dpd = demographic_parity_difference(y_true, y_pred, sensitive_features=sex)
    errors = np.empty((seeds, len(METRICS)))       # per seed, per metric: max over groups of |dp - exact|
    dpd_errors = np.empty(seeds)
    noise_error = np.zeros((len(SEX_GROUPS), len(METRICS)))
    same_as_frame = 0
    for seed in range(seeds):
        frame = dp_frame(y_true, y_pred, sex, SEX_GROUPS, random_state=seed, privacy_unit=unit)
        by_group = frame.by_group.loc[SEX_GROUPS, list(METRICS)].to_numpy()
        errors[seed] = np.abs(by_group - exact.to_numpy()).max(axis=0)
        noise_error += frame.noise_error_.loc[SEX_GROUPS, list(METRICS)].to_numpy() / seeds
        value = dp_demographic_parity_difference(y_true, y_pred, sensitive_features=sex, epsilon=EPSILON,
                                                 groups=SEX_GROUPS, random_state=seed, privacy_unit=unit,
                                                 accountant=BudgetAccountant())
        dpd_errors[seed] = abs(value - exact_dpd)
        same_as_frame += value == frame.difference()["selection_rate"]
    within = errors <= TOLERANCE
    return {"exact": exact, "exact_dpd": exact_dpd, "per_metric": within.mean(axis=0), "all": within.all(axis=1).mean(),
                "p95": np.quantile(errors, 0.95, axis=0), "worst": errors.max(axis=0), "noise_error": noise_error,
                "dpd": (dpd_errors <= TOLERANCE).mean(), "dpd_p95": np.quantile(dpd_errors, 0.95),
                "dpd_worst": dpd_errors.max(), "same_as_frame": same_as_frame, "seeds": seeds}


def table_a(results):
    rows = []
    for unit, r in results.items():
        goal = unit == "sensitive_attribute"
        for i, name in enumerate(METRICS):
            rows.append([unit, name, " / ".join(f"{v:.4f}" for v in r["exact"][name]),
                         " / ".join(f"{v:.4f}" for v in r["noise_error"][:, i]), pct(r["per_metric"][i]),
                         f"{r['p95'][i]:.4f}", f"{r['worst'][i]:.4f}",
                         verdict(r["per_metric"][i] >= GOAL_WITHIN) if goal else "(report)"])
        rows.append([unit, "**all 4 metrics, every group**", "", "", f"**{pct(r['all'])}**", "", "",
                     verdict(r["all"] >= GOAL_WITHIN) if goal else "(report)"])
        rows.append([unit, "dp_demographic_parity_difference", f"{r['exact_dpd']:.4f}", "", f"**{pct(r['dpd'])}**",
                     f"{r['dpd_p95']:.4f}", f"{r['dpd_worst']:.4f}",
                     verdict(r["dpd"] >= GOAL_WITHIN) if goal else "(report)"])
    return markdown_table(["privacy_unit", "metric", "exact Female / Male", "mean noise_error_ F / M",
                           f"seeds within {TOLERANCE} (every group)", "95th pct of max error", "worst max error",
                           f"goal >= {pct(GOAL_WITHIN)}"], rows)


# ---------------------------------------------------------------------------------------------------- (b)
def goal_b(y_true, y_pred, race, seeds):
    frame, exact = exact_frame(y_true, y_pred, race, RACE_GROUPS)
    exact_difference = {method: frame.difference(method=method)[list(METRICS)].to_numpy()
                        for method in ("between_groups", "to_overall")}
    covered = np.zeros((len(RACE_GROUPS), len(METRICS)))
    unreadable = np.zeros((len(RACE_GROUPS), len(METRICS)))
    out_of_range = 0
    width = np.zeros((len(RACE_GROUPS), len(METRICS)))
    diff_covered = {method: np.zeros(len(METRICS)) for method in exact_difference}
    for seed in range(seeds):
        released = dp_frame(y_true, y_pred, race, RACE_GROUPS, random_state=seed)
        low, high = (t.loc[RACE_GROUPS, list(METRICS)].to_numpy() for t in released.by_group_ci)
        covered += (low <= exact.to_numpy()) & (exact.to_numpy() <= high)
        width += (high - low) / seeds
        out_of_range += int(((low < 0) | (high > 1)).sum())
        unreadable += released.unreadable_.loc[RACE_GROUPS, list(METRICS)].to_numpy()
        for method, value in exact_difference.items():
            d_low, d_high = (t[list(METRICS)].to_numpy() for t in released.difference_ci(method))
            diff_covered[method] += (d_low <= value) & (value <= d_high)
    sizes = pd.Series(race).value_counts().reindex(RACE_GROUPS).fillna(0).astype(int)
    positives = pd.Series(y_true).groupby(race).sum().reindex(RACE_GROUPS)
    return {"exact": exact, "sizes": sizes, "positives": positives, "coverage": covered / seeds,
                "unreadable": unreadable / seeds, "width": width, "out_of_range": out_of_range, "seeds": seeds,
                "exact_difference": exact_difference,
                "difference": ({method: v / seeds for method, v in diff_covered.items()})}


def tables_b(r):
    sizes = markdown_table(
        ["group", "test rows", "positives (y=1)", *(f"exact {m}" for m in METRICS)],
        [[g, f"{r['sizes'][g]:,}", int(r["positives"][g]), *(f"{r['exact'].loc[g, m]:.4f}" for m in METRICS)]
         for g in RACE_GROUPS])
    coverage_rows = []
    for i, group in enumerate(RACE_GROUPS):
        cells = [f"{pct(r['coverage'][i, j])} ({r['width'][i, j]:.3f})" for j in range(len(METRICS))]
        coverage_rows.append([group, *cells, verdict((r["coverage"][i] >= GOAL_COVERAGE).all())])
    coverage = markdown_table(["group", *(f"{m}: coverage (mean width)" for m in METRICS),
                               f"goal >= {pct(GOAL_COVERAGE)}"], coverage_rows)
    difference_rows = []
    for method, values in r["difference"].items():
        goal = method == "between_groups"
        difference_rows.append([f"difference_ci({method!r})",
                                *(f"{pct(v)} (exact {e:.4f})" for v, e in zip(values, r["exact_difference"][method], strict=False)),
                                verdict((values >= GOAL_COVERAGE).all()) if goal else "(report)"])
    difference = markdown_table(["interval", *METRICS, f"goal >= {pct(GOAL_COVERAGE)}"], difference_rows)
    unreadable = markdown_table(
        ["group", *(f"unreadable_ {m}" for m in METRICS)],
        [[g, *(pct(r["unreadable"][i, j]) for j in range(len(METRICS)))] for i, g in enumerate(RACE_GROUPS)])
    return sizes, coverage, difference, unreadable


# ---------------------------------------------------------------------------------------------------- (c), (d)
def alternate(calls, repeats):
    """``{name: [seconds]}``: one untimed warm-up of each call, then ``repeats`` rounds calling each in turn."""
    for call in calls.values():
        call()
    times = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return times


def adult_timing(y_true, y_pred, sex, race, repeats):
    rows = []
    for label, sensitive, groups, goal in [("sex (2 groups)", sex, SEX_GROUPS, True),
                                           ("race (5 groups)", race, RACE_GROUPS, False)]:
        times = alternate({
            "MetricFrame": lambda: MetricFrame(metrics=METRICS, y_true=y_true, y_pred=y_pred,
                                               sensitive_features=sensitive),
            "DPMetricFrame": lambda: dp_frame(y_true, y_pred, sensitive, groups)}, repeats)
        base, dp = statistics.median(times["MetricFrame"]), statistics.median(times["DPMetricFrame"])
        ratio = dp / base
        rows.append({"label": label, "base": base, "dp": dp, "ratio": ratio, "goal": goal, "ok": ratio <= GOAL_RATIO,
                         "base_range": (min(times["MetricFrame"]), max(times["MetricFrame"])),
                         "dp_range": (min(times["DPMetricFrame"]), max(times["DPMetricFrame"]))})
    return rows


def table_adult_timing(rows):
    return markdown_table(
        ["Adult test split (14,653 rows), 4 metrics", "MetricFrame median (s) [min-max]",
         "DPMetricFrame median (s) [min-max]", "ratio DP / MetricFrame", f"goal <= {GOAL_RATIO}x"],
        [[r["label"], f"{r['base']:.4f} [{r['base_range'][0]:.4f}-{r['base_range'][1]:.4f}]",
          f"{r['dp']:.4f} [{r['dp_range'][0]:.4f}-{r['dp_range'][1]:.4f}]", f"**{r['ratio']:.2f}x**",
          verdict(r["ok"]) if r["goal"] else "(report)"] for r in rows])


def large_data(rows):
    rng = np.random.default_rng(SEED)
    y_true = rng.integers(0, 2, rows, dtype=np.int8)
    y_pred = (y_true ^ (rng.random(rows) < 0.2)).astype(np.int8)      # 80% accurate predictions
    codes = rng.integers(0, LARGE_GROUPS, rows)                           # int64 group codes
    return y_true, y_pred, codes


def timed_calls(call, repeats):
    """``(first call seconds, [seconds of the next repeats calls], last result)``."""
    start = time.perf_counter()
    result = call()
    first = time.perf_counter() - start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return first, times, result


def large_timing(rows, repeats, dask_modes, reference):
    y_true, y_pred, codes = large_data(rows)
    labels = [f"g{i}" for i in range(LARGE_GROUPS)]
    categorical = pd.Series(pd.Categorical.from_codes(codes.astype(np.int8), categories=labels), name="group")
    results, checks = [], []

    def dp(sensitive, groups, y=(y_true, y_pred), random_state=None):
        return lambda: dp_frame(y[0], y[1], sensitive, groups, random_state=random_state)

    log(f"{rows:,} rows x {LARGE_GROUPS} groups: int codes ...")
    first, times, _ = timed_calls(dp(codes, list(range(LARGE_GROUPS))), repeats)
    results.append(("DPMetricFrame, numpy int64 group codes", first, times, True))
    log("... pandas categorical ...")
    first, times, _ = timed_calls(dp(categorical, labels), repeats)
    results.append(("DPMetricFrame, pandas categorical Series", first, times, True))
    in_memory = dp_frame(y_true, y_pred, codes, list(range(LARGE_GROUPS)), random_state=SEED)
    as_categorical = dp_frame(y_true, y_pred, categorical, labels, random_state=SEED)
    checks.append((np.array_equal(in_memory.released_counts_.to_numpy(), as_categorical.released_counts_.to_numpy()),
                   "categorical sensitive feature: released_counts_ equal to the int-coded frame's (same seed)"))
    if dask_modes:
        import dask
        import dask.array as da
        lazy = [da.from_array(a, chunks=CHUNK_ROWS) for a in (y_true, y_pred, codes)]
        if "threads" in dask_modes:
            log("... dask arrays, threads scheduler ...")
            with dask.config.set(scheduler="threads"):
                first, times, _ = timed_calls(dp(lazy[2], list(range(LARGE_GROUPS)), y=lazy[:2]), repeats)
                same = dp_frame(lazy[0], lazy[1], lazy[2], list(range(LARGE_GROUPS)), random_state=SEED)
            results.append((f"DPMetricFrame, dask arrays (chunks {CHUNK_ROWS:,}), threads scheduler", first, times,
                            False))
            checks.append((equal_frames(same, in_memory), "dask (threads): by_group and released_counts_ equal to "
                                                          "the in-memory frame's (same random_state)"))
        if "cluster" in dask_modes:
            log("... dask arrays on a LocalCluster(2 workers) ...")
            try:
                first, times, same = cluster_run(lazy, repeats)
                results.append((f"DPMetricFrame, dask arrays (chunks {CHUNK_ROWS:,}) persisted on "
                                "LocalCluster(2 workers x 1 thread)", first, times, False))
                checks.append((equal_frames(same, in_memory), "dask (LocalCluster): by_group and released_counts_ "
                                                              "equal to the in-memory frame's (same random_state)"))
            except Exception as error:                       # report, do not hide: a failed cluster is a FAIL
                checks.append((False, f"dask LocalCluster run failed: {type(error).__name__}: {error}"))
    if reference:
        log("... Fairlearn MetricFrame, once (about 2 minutes) ...")
        start = time.perf_counter()
        exact = MetricFrame(metrics=METRICS, y_true=y_true, y_pred=y_pred, sensitive_features=codes).by_group
        results.append(("Fairlearn MetricFrame (reference, one call)", None, [time.perf_counter() - start], False))
        released = in_memory.by_group.loc[list(range(LARGE_GROUPS)), list(METRICS)].to_numpy()
        error = float(np.abs(released - exact.loc[list(range(LARGE_GROUPS)), list(METRICS)].to_numpy()).max())
        checks.append((error <= TOLERANCE, f"{rows:,} rows: largest |DPMetricFrame - MetricFrame| by-group error "
                                           f"{error:.2e} (<= {TOLERANCE})"))
    return results, checks


def equal_frames(a, b):
    return (a.by_group.index.equals(b.by_group.index) and np.array_equal(a.by_group.to_numpy(), b.by_group.to_numpy())
            and np.array_equal(a.released_counts_.to_numpy(), b.released_counts_.to_numpy()))


def cluster_run(lazy, repeats):
    from distributed import Client, LocalCluster, wait

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Sending large graph")   # from_array embeds the chunks once
            persisted = client.persist(lazy)
        wait(persisted)
        first, times, _ = timed_calls(
            lambda: dp_frame(persisted[0], persisted[1], persisted[2], list(range(LARGE_GROUPS))), repeats)
        same = dp_frame(persisted[0], persisted[1], persisted[2], list(range(LARGE_GROUPS)), random_state=SEED)
    return first, times, same


def table_large(results, rows):
    out = []
    for label, first, times, goal in results:
        median = statistics.median(times)
        out.append([label, "-" if first is None else f"{first:.3f}", f"**{median:.3f}**",
                    f"{min(times):.3f}-{max(times):.3f}" if len(times) > 1 else "-",
                    verdict(median < GOAL_LARGE_SECONDS) if goal else "(report)"])
    return markdown_table([f"{rows:,} rows x {LARGE_GROUPS} groups, 4 metrics", "first call (s)",
                           "median (s)", "range (s)", f"goal < {GOAL_LARGE_SECONDS:g} s"], out)


# ---------------------------------------------------------------------------------------------------- main
def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=7, unit="timed calls")
    parser.add_argument("--seeds", type=int, default=None, help="releases per experiment (default 200, 20 --quick)")
    parser.add_argument("--rows", type=int, default=LARGE_ROWS,
                        help=f"rows of the large timing (default {LARGE_ROWS:,})")
    parser.add_argument("--no-dask", action="store_true", help="skip (d)")
    parser.add_argument("--no-cluster", action="store_true", help="skip the LocalCluster part of (d)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip Fairlearn's MetricFrame on the large data (skipped anyway with --quick)")
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 7 if args.quick else 9
    args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=7)
    if args.seeds is None:
        args.seeds = 20 if args.quick else 200
    if args.seeds < 1 or args.rows < LARGE_GROUPS:
        parser.error("--seeds must be >= 1 and --rows >= the number of groups")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    started = time.perf_counter()
    load = os.getloadavg()
    source_line = _common.source_state(TIMED_SOURCES)
    checks = []

    log("README predictions ...")
    y_true, y_pred, sex, race, readme = readme_predictions()
    checks.append((len(y_true) == 14_653 and readme == README_TABLE,
                   f"README example reproduced: {len(y_true):,} test rows, by_group {readme}"))

    log(f"(a) Adult / sex, {args.seeds} seeds x 2 privacy units ...")
    a = {unit: goal_a(y_true, y_pred, sex, args.seeds, unit) for unit in ("sensitive_attribute", "record")}
    goals = [(a["sensitive_attribute"]["all"] >= GOAL_WITHIN, "(a) every by-group value within 0.01 in >= 95% "
              f"of seeds: {pct(a['sensitive_attribute']['all'])}"),
             (a["sensitive_attribute"]["dpd"] >= GOAL_WITHIN, "(a) dp_demographic_parity_difference within 0.01 in "
              f">= 95% of seeds: {pct(a['sensitive_attribute']['dpd'])}")]
    for unit, r in a.items():
        checks.append((r["same_as_frame"] == r["seeds"], f"({unit}) dp_demographic_parity_difference equals "
                       f"DPMetricFrame.difference()['selection_rate'] at the same seed in {r['same_as_frame']}/"
                       f"{r['seeds']} seeds"))

    log(f"(b) Adult / race, {args.seeds} seeds ...")
    b = goal_b(y_true, y_pred, race, args.seeds)
    worst = np.unravel_index(np.argmin(b["coverage"]), b["coverage"].shape)
    goals.append(((b["coverage"] >= GOAL_COVERAGE).all(), "(b) by_group_ci coverage >= 93% in every (group, "
                  f"metric): lowest {pct(b['coverage'][worst])} ({RACE_GROUPS[worst[0]]}, {list(METRICS)[worst[1]]})"))
    between = b["difference"]["between_groups"]
    goals.append(((between >= GOAL_COVERAGE).all(), "(b) difference_ci coverage >= 93% for every metric: "
                  + ", ".join(f"{m} {pct(v)}" for m, v in zip(METRICS, between, strict=False))))

    log(f"(c) timing on Adult, {args.repeats} alternating rounds ...")
    adult = adult_timing(y_true, y_pred, sex, race, args.repeats)
    goals.append((adult[0]["ok"], f"(c) DPMetricFrame / MetricFrame on Adult (sex) <= {GOAL_RATIO}x: "
                  f"{adult[0]['ratio']:.2f}x"))
    dask_modes = () if args.no_dask else (("threads",) if args.no_cluster else ("threads", "cluster"))
    large_repeats = 3 if args.quick else 5
    large, large_checks = large_timing(args.rows, large_repeats, dask_modes,
                                       reference=not (args.quick or args.no_reference))
    checks += large_checks
    for label, _, times, goal in large:
        if goal:
            goals.append((statistics.median(times) < GOAL_LARGE_SECONDS,
                          f"(c) {args.rows:,} rows x {LARGE_GROUPS} groups, {label}: median "
                          f"{statistics.median(times):.3f} s < {GOAL_LARGE_SECONDS:g} s"))

    load_after = os.getloadavg()
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    header = _common.machine_header(("numpy", "pandas", "fairlearn", "diffprivlib", "dask"), mode,
                                    f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.")
    sizes_b, coverage_b, difference_b, unreadable_b = tables_b(b)
    report = "\n".join([
        "# bench_metric_frame: DPMetricFrame vs Fairlearn's MetricFrame", "",
        "Command: `" + " ".join([".venv/bin/python tests/benchmarks/bench_metric_frame.py", *argv]) + "`",
        "", header, source_line,
        f"Machine note: {os.cpu_count()} cores (the LocalCluster uses both). Total wall time "
        f"{time.perf_counter() - started:.0f} s. Load average at the end: {load_after[0]:.2f} / {load_after[1]:.2f} / "
        f"{load_after[2]:.2f}.", "",
        "## Goals", "", *(f"- {verdict(ok)}: {text}" for ok, text in goals), "",
        "## Checks", "", *(f"- {verdict(ok)}: {text}" for ok, text in checks), "",
        f"## (a) Adult / sex: {args.seeds} releases at epsilon = {EPSILON:g} vs the exact MetricFrame", "",
        "The README example's predictions (14,653 test rows). Error = largest |DPMetricFrame.by_group - "
        "MetricFrame.by_group| over the 2 groups, per seed.", "", table_a(a), "",
        f"## (b) Adult / race: interval coverage of the exact in-sample values, {args.seeds} releases", "",
        "The same predictions (the README's post-processor, fitted for sex) audited by race; groups from the "
        "codebook. The exact values are in-sample (MetricFrame on these rows); the intervals also carry the "
        "sampling error of the rows, so in-sample coverage can exceed 95%.", "", sizes_b, "", coverage_b, "",
        f"by_group_ci bounds outside [0, 1]: {b['out_of_range']} of {args.seeds * len(RACE_GROUPS) * len(METRICS)} "
        "intervals.", "", difference_b, "",
        "How often `unreadable_` flags a (group, metric) (max_noise_error=0.02):", "", unreadable_b, "",
        "## (c) Timing", "", table_adult_timing(adult), "",
        f"Medians of {args.repeats} alternating calls after one warm-up call each; DPMetricFrame with n_boot=1000 "
        "and random_state=None (diffprivlib's secure noise), a fresh BudgetAccountant per call.", "",
        table_large(large, args.rows), "",
        f"Large data: int8 0/1 labels, int64 codes (or the same codes as a categorical of 10 string labels), "
        f"groups declared; median of {large_repeats} calls after the first (untimed for the median, shown apart). "
        "Dask rows ((d), no goal): the arrays are `dask.array.from_array(..., chunks=10**6)`; on the LocalCluster "
        "they are persisted on the workers before timing.", ""])
    ok = all(flag for flag, _ in goals + checks)
    return _common.finish(report, args.output, "bench_metric_frame", ok)


if __name__ == "__main__":
    sys.exit(main())
