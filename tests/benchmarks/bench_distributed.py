"""Benchmark: out-of-core fits and lazy predictions of the post-processors on a Dask LocalCluster (2 workers), up
to 10^8 rows.

What is measured
----------------
Rows are generated lazily, block by block, on the workers: ``dask.array.map_blocks`` of :func:`generate_block`,
``CHUNK_ROWS`` rows a block, each block from its own ``numpy.random.default_rng([SEED, block])``, so no process
ever holds the data set. A block holds ``N_FEATURES`` standard normal features (the first shifted by 0.3 x group),
the group (one of ``GROUPS``, uniform) and a 0/1 label drawn from a logistic model of the features. ``X``, the
groups and the labels are column slices of that one lazy array (each block is generated once per fit).

The base models are prefit on 20,000 rows generated apart (another seed) and cheap to evaluate, as the issue asks:
a ``LinearRegression`` (regressing the logistic model's linear score) for ``DPFairRegressionPostprocessor`` and a
``LogisticRegression`` for ``DPThresholdOptimizer``. For each size ``n`` (``--rows``), on a fresh
``dask.distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``, after an untimed warm-up
fit on 10^4 rows (imports on the workers), the script times, once each:

1. ``generate``: ``src.sum(axis=0)`` of the lazy array -- producing the rows and nothing else, the floor of any
   pass over them;
2. ``DPFairRegressionPostprocessor(estimator=LinearRegression, prefit=True, bounds=(-4, 5), n_bins=36,
   groups=GROUPS, epsilon=1).fit(X, sensitive_features=groups)``: the prefit model's ``predict`` and the (group,
   bin) counts per block on the workers, the tree sum, one release and the barycenter on the client;
3. ``DPThresholdOptimizer(estimator=LogisticRegression, prefit=True, predict_method="predict_proba",
   constraints="equalized_odds", options=ThresholdOptimizerOptions(n_score_bins=10), groups=GROUPS,
   epsilon=1).fit(X, labels,
   sensitive_features=groups)``;
4. ``predict(X, sensitive_features=groups, random_state=0)`` of the fitted regression post-processor -- a lazy Dask
   array: the prefit model, the binning and the random transport run partition by partition on the workers --
   reduced there to its mean, so that no per-row result reaches the client;
5. the same for the fitted threshold optimizer, reduced to its accuracy ``(predictions == labels).mean()``.

Reported per run: wall time (from the call to the result), rows per second, the peak resident memory of each worker
process during that run (``VmHWM`` of ``/proc/<pid>/status``, reset before the run by writing ``5`` to the
worker's ``/proc/self/clear_refs``; where that is refused, the high-water mark over the worker's life on that
cluster, said so in the report), the client's own ``VmHWM``, and the cores used by our processes and by all others
meanwhile (``psutil``; other processes above 0.25 cores give a WARNING: the timing is then pessimistic). For the
predictions also: how long ``predict`` itself took to return the lazy array, and the in-memory ``predict`` of the
same post-processors (fitted in memory on the first ``IN_MEMORY_PREDICT_ROWS`` rows, numpy inputs, in this process,
the same reductions) as the baseline of the rows-per-second ratio.

Checks: at ``CHECK_ROWS`` rows (computed in memory as well) the Dask fits release exactly the in-memory fits'
statistics (``noisy_joint_pmf_`` / ``noisy_table_``, same ``random_state``) and give the same fitted attributes;
the Dask ``predict`` on the cluster (8 partitions) gives exactly the in-memory ``predict`` of the same fitted
object (same ``random_state``); every worker's peak stays below ``MEMORY_GOAL_BYTES`` (1 GB, the issue's goal) at
every size, and no worker was restarted (the workers run under Dask's ``memory_limit="1GiB"``, whose nanny restarts
a worker above 95% of it). Sizes that were not run (``--rows``) are extrapolated from the largest one run, linearly, and marked as
such.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_distributed.py            # 10^6 check, 10^7, 10^8: about 2 minutes
    .venv/bin/python tests/benchmarks/bench_distributed.py --quick    # 10^6 rows only, no file

Needs the [dask] extra (``pip install -e ".[dask]"``). The full run prints GitHub-markdown tables and writes
them to ``tests/benchmarks/results/bench_distributed.md``; ``--quick`` only prints unless ``--output`` is given.
The exit status is non-zero if a goal or a check fails.
"""

from __future__ import annotations

import logging
import os
import sys
import time
import warnings
from pathlib import Path

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
import numpy as np

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy import BudgetAccountant

SEED = 20240721
MODEL_SEED = 7
N_FEATURES = 4
COEF = np.array([0.8, -0.5, 0.4, 0.3])
GROUPS = [0, 1, 2, 3]
CHUNK_ROWS = 1_000_000
N_WORKERS = 2
EPSILON = 1.0
BOUNDS = (-4.0, 5.0)
N_BINS = 36
N_SCORE_BINS = 10
CHECK_ROWS = 1_000_000
IN_MEMORY_PREDICT_ROWS = 10_000_000
WARMUP_ROWS = 10_000
FULL_ROWS = (10_000_000, 100_000_000)
TARGET_ROWS = 100_000_000
MEMORY_GOAL_BYTES = 1e9
# Dask's own limit per worker: its nanny pauses a worker above 80% of it and restarts one above 95%.
WORKER_MEMORY_LIMIT = "1GiB"
CONTENTION_CORES = 0.25
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_distributed.md"
TIMED_SOURCES = ("fairlearn_dp/postprocessing/_distributed.py", "fairlearn_dp/postprocessing/_dask_predict.py",
                 "fairlearn_dp/postprocessing/_counting.py", "fairlearn_dp/postprocessing/_inputs.py",
                 "fairlearn_dp/postprocessing/_fair_regression.py",
                 "fairlearn_dp/postprocessing/_threshold_optimizer.py", "fairlearn_dp/privacy/_release.py",
                 "fairlearn_dp/privacy/_random.py")
RUN_LABELS = ("generate only (`src.sum(axis=0)`)", "DPFairRegressionPostprocessor.fit", "DPThresholdOptimizer.fit",
              "DPFairRegressionPostprocessor.predict + mean", "DPThresholdOptimizer.predict + accuracy")


# ------------------------------------------------------------------------------------------------------- data
def generate_block(block_id=None, rows=CHUNK_ROWS, seed=SEED):
    """One block of rows: features, group, label (float64 columns); deterministic in (seed, block index)."""
    rng = np.random.default_rng([seed, block_id[0]])
    out = np.empty((rows, N_FEATURES + 2))
    group = rng.integers(0, len(GROUPS), rows)
    out[:, :N_FEATURES] = rng.standard_normal((rows, N_FEATURES))
    out[:, 0] += 0.3 * group
    out[:, N_FEATURES] = group
    score = out[:, :N_FEATURES] @ COEF
    out[:, N_FEATURES + 1] = rng.random(rows) < 1.0 / (1.0 + np.exp(-score))
    return out


def lazy_rows(n_rows, chunk_rows=CHUNK_ROWS):
    """``(X, groups, labels)``: column slices of one lazily generated Dask array of ``n_rows`` rows."""
    import dask.array as da

    sizes = (chunk_rows,) * (n_rows // chunk_rows) + ((n_rows % chunk_rows,) if n_rows % chunk_rows else ())
    source = da.map_blocks(lambda block_id=None: generate_block(block_id, rows=sizes[block_id[0]]),
                           chunks=(sizes, (N_FEATURES + 2,)), dtype=float)
    return source, source[:, :N_FEATURES], source[:, N_FEATURES], source[:, N_FEATURES + 1]


def in_memory_rows(n_rows, chunk_rows=CHUNK_ROWS):
    """The same rows as :func:`lazy_rows`, as numpy arrays."""
    sizes = (chunk_rows,) * (n_rows // chunk_rows) + ((n_rows % chunk_rows,) if n_rows % chunk_rows else ())
    data = np.concatenate([generate_block((i,), rows=size) for i, size in enumerate(sizes)])
    return data[:, :N_FEATURES], data[:, N_FEATURES], data[:, N_FEATURES + 1]


def prefit_models():
    from sklearn.linear_model import LinearRegression, LogisticRegression

    rows = generate_block((0,), rows=20_000, seed=MODEL_SEED)
    X, labels = rows[:, :N_FEATURES], rows[:, N_FEATURES + 1]
    return LinearRegression().fit(X, X @ COEF), LogisticRegression().fit(X, labels)


def regression(model, random_state=0):
    return DPFairRegressionPostprocessor(estimator=model, prefit=True, bounds=BOUNDS, n_bins=N_BINS, groups=GROUPS,
                                         epsilon=EPSILON, accountant=BudgetAccountant(), random_state=random_state)


def threshold(model, random_state=0):
    return DPThresholdOptimizer(estimator=model, prefit=True, predict_method="predict_proba",
                                constraints="equalized_odds", groups=GROUPS,
                                options=ThresholdOptimizerOptions(n_score_bins=N_SCORE_BINS),
                                epsilon=EPSILON, accountant=BudgetAccountant(), random_state=random_state)


# ---------------------------------------------------------------------------------------------- measurement
def vm_hwm_bytes(pid):
    """Peak RSS of process ``pid``; 0 if it is gone (a restarted worker: the report's restart check fails)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except FileNotFoundError:
        pass
    return 0


class CpuShare:
    """Cores used by ``pids`` (and their children) and by every other process between start and stop."""

    def __init__(self, pids):
        import psutil

        self.processes = [psutil.Process(pid) for pid in pids]

    def _ours(self):
        members = {}
        for process in self.processes:                             # each process once (workers are descendants)
            for member in [process, *process.children(recursive=True)]:
                members[member.pid] = member
        total = 0.0
        for member in members.values():
            try:
                times = member.cpu_times()
            except Exception:                                      # a child that ended meanwhile
                continue
            total += times.user + times.system
        return total

    @staticmethod
    def _machine():
        import psutil

        times = psutil.cpu_times()
        return sum(times) - times.idle - getattr(times, "iowait", 0.0)

    def start(self):
        self._wall, self._machine0, self._ours0 = time.perf_counter(), self._machine(), self._ours()
        return self

    def stop(self):
        wall = time.perf_counter() - self._wall
        ours = self._ours() - self._ours0
        return {"ours": ours / wall, "others": max(self._machine() - self._machine0 - ours, 0.0) / wall}


def reset_peaks(client):
    """Reset every worker's ``VmHWM`` to its current RSS (``5`` to ``/proc/self/clear_refs``); False if refused."""
    def reset():
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True

    try:
        return all(client.run(reset).values())
    except OSError:
        return False


def timed(label, n_rows, function, pids):
    share = CpuShare([os.getpid(), *pids]).start()
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    return {"run": label, "rows": n_rows, "seconds": seconds, "rate": n_rows / seconds, "cpu": share.stop()}, result


def start_cluster():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=N_WORKERS, threads_per_worker=1, processes=True, dashboard_address=None,
                           memory_limit=WORKER_MEMORY_LIMIT)
    client = Client(cluster)
    pids = sorted(client.run(os.getpid).values())
    return cluster, client, pids


def measure_size(n_rows, models):
    """Fresh cluster; warm-up; generate / fits / predicts once each, with each run's peak worker memory."""
    import dask

    cluster, client, pids = start_cluster()
    try:
        _, X, groups, labels = lazy_rows(WARMUP_ROWS, chunk_rows=WARMUP_ROWS // 2)
        warm = (regression(models[0]).fit(X, sensitive_features=groups),
                threshold(models[1]).fit(X, labels, sensitive_features=groups))
        dask.compute(*(model.predict(X, sensitive_features=groups, random_state=0).sum() for model in warm))
        source, X, groups, labels = lazy_rows(n_rows)
        fitted, call_seconds = {}, {}

        def fit(name, make, *arguments):
            fitted[name] = make().fit(*arguments, sensitive_features=groups)

        def predict(name, reduce):
            start = time.perf_counter()
            lazy = fitted[name].predict(X, sensitive_features=groups, random_state=0)
            call_seconds[name] = time.perf_counter() - start            # the call returns a lazy Dask array
            return dask.compute(reduce(lazy))

        functions = (lambda: dask.compute(source.sum(axis=0)),
                     lambda: fit("regression", lambda: regression(models[0]), X),
                     lambda: fit("threshold", lambda: threshold(models[1]), X, labels),
                     lambda: predict("regression", lambda lazy: lazy.mean()),
                     lambda: predict("threshold", lambda lazy: (lazy == labels).mean()))
        rows = []
        for label, function in zip(RUN_LABELS, functions, strict=False):
            per_run = reset_peaks(client)
            row, _ = timed(label, n_rows, function, pids)
            row.update(worker_peaks=[vm_hwm_bytes(pid) for pid in pids], per_run_peaks=per_run)
            rows.append(row)
        restarted = sorted(client.run(os.getpid).values()) != pids      # a worker killed for memory and restarted
    finally:
        client.close()
        cluster.close()
    for row in rows:
        row.update(partitions=-(-n_rows // CHUNK_ROWS), restarted=restarted)
    rows[3]["call_seconds"], rows[4]["call_seconds"] = call_seconds["regression"], call_seconds["threshold"]
    return rows


def in_memory_predict(models, n_rows):
    """The baseline: in-memory ``predict`` (numpy inputs, this process) of the post-processors fitted in memory on
    the same ``n_rows`` rows, with the same reductions; one timed run each."""
    X, groups, labels = in_memory_rows(n_rows)
    fitted = (regression(models[0]).fit(X, sensitive_features=groups),
              threshold(models[1]).fit(X, labels, sensitive_features=groups))
    runs = ((RUN_LABELS[3], lambda: fitted[0].predict(X, sensitive_features=groups, random_state=0).mean()),
            (RUN_LABELS[4], lambda: (fitted[1].predict(X, sensitive_features=groups, random_state=0)
                                     == labels).mean()))
    return {label: timed(label, n_rows, function, [])[0] for label, function in runs}


def check_same_release(models):
    """At CHECK_ROWS rows: Dask fits on the cluster release exactly what the in-memory fits release."""
    X_mem, groups_mem, labels_mem = in_memory_rows(CHECK_ROWS, chunk_rows=CHECK_ROWS // 8)
    cluster, client, _ = start_cluster()
    try:
        _, X, groups, labels = lazy_rows(CHECK_ROWS, chunk_rows=CHECK_ROWS // 8)
        pairs = [
            ("DPFairRegressionPostprocessor", "noisy_joint_pmf_",
             regression(models[0], random_state=3).fit(X_mem, sensitive_features=groups_mem),
             regression(models[0], random_state=3).fit(X, sensitive_features=groups),
             ("group_pmfs_", "barycenter_", "target_pmfs_", "objective_")),
            ("DPThresholdOptimizer", "noisy_table_",
             threshold(models[1], random_state=3).fit(X_mem, labels_mem, sensitive_features=groups_mem),
             threshold(models[1], random_state=3).fit(X, labels, sensitive_features=groups),
             ("table_", "mixing_rates_", "objective_value_")),
        ]
        # predict of one fitted object: lazily on the cluster (8 partitions) and in memory, same random_state
        predictions = [(name, in_memory.predict(X_mem, sensitive_features=groups_mem, random_state=5),
                        in_memory.predict(X, sensitive_features=groups, random_state=5).compute())
                       for name, _, in_memory, _, _ in pairs]
    finally:
        client.close()
        cluster.close()
    lines, ok = [], True
    for name, statistic, in_memory, out_of_core, others in pairs:
        same = np.array_equal(getattr(in_memory, statistic), getattr(out_of_core, statistic)) and all(
            np.array_equal(getattr(in_memory, other), getattr(out_of_core, other)) for other in others)
        ok &= same
        lines.append(f"- {'PASS' if same else 'FAIL'}: {name}: the Dask fit on the cluster ({CHECK_ROWS:,} lazily "
                     f"generated rows, 8 partitions) releases exactly the in-memory fit's `{statistic}` (same "
                     f"random_state) and gets the same {', '.join(others)}")
    for name, expected, got in predictions:
        same = np.array_equal(expected, got)
        ok &= same
        lines.append(f"- {'PASS' if same else 'FAIL'}: {name}.predict on the cluster ({CHECK_ROWS:,} rows, 8 "
                     f"partitions, a lazy Dask array) equals the in-memory predict of the same fitted object, same "
                     f"random_state: {int(np.sum(expected != got)):,} rows differ")
    return ok, lines


# ------------------------------------------------------------------------------------------------------ report
def mib(value):
    return f"{value / 2 ** 20:,.0f}"


def table(rows):
    lines = ["| run | rows | partitions | wall time (s) | rows / s | rows / s per worker | peak RSS per worker "
             "(MiB) | cores used: ours / other processes |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        peaks = " / ".join(mib(value) for value in row["worker_peaks"])
        lines.append(f"| {row['run']} | {row['rows']:,} | {row['partitions']} | {row['seconds']:.1f} | "
                     f"{row['rate']:,.0f} | {row['rate'] / N_WORKERS:,.0f} | {peaks} | "
                     f"{row['cpu']['ours']:.2f} / {row['cpu']['others']:.2f} |")
    return "\n".join(lines)


def predict_notes(rows, baseline):
    """How long ``predict`` took to return, and each Dask predict's rows / s against the in-memory baseline."""
    lines = []
    for row in rows:
        if row["run"] not in baseline:
            continue
        base = baseline[row["run"]]
        lines.append(f"- {row['run']} at {row['rows']:,} rows: `predict` returned its lazy array in "
                     f"{row['call_seconds'] * 1e3:.1f} ms; {row['rate']:,.0f} rows/s on the cluster against "
                     f"{base['rate']:,.0f} rows/s in memory ({base['rows']:,} rows, numpy inputs, one process, "
                     f"{base['seconds']:.2f} s): ratio {row['rate'] / base['rate']:.2f} (the cluster's time includes "
                     "generating the rows, see 'generate only'; the in-memory rows exist before the clock starts)")
    return lines


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="runs",
                                quick_extra=f"{CHECK_ROWS:,} rows only, ")
    parser.add_argument("--rows", type=float, nargs="+", default=None,
                        help="sizes to run, e.g. --rows 1e7 1e8 (default: 1e7 1e8; --quick: 1e6)")
    args = parser.parse_args(argv)
    args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=1)
    if args.rows is None:
        args.rows = [CHECK_ROWS] if args.quick else list(FULL_ROWS)
    args.rows = [int(value) for value in args.rows]
    if any(value < 1 for value in args.rows):
        parser.error("--rows must be positive")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    source = _common.source_state(TIMED_SOURCES)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", FutureWarning)
    load = os.getloadavg()
    models = prefit_models()

    print(f"check: Dask fit and predict vs in memory at {CHECK_ROWS:,} rows ...", file=sys.stderr, flush=True)
    same, check_lines = check_same_release(models)
    baseline_rows = min(IN_MEMORY_PREDICT_ROWS, max(args.rows))
    print(f"in-memory predict at {baseline_rows:,} rows (the baseline) ...", file=sys.stderr, flush=True)
    baseline = in_memory_predict(models, baseline_rows)
    rows = []
    for n_rows in args.rows:
        print(f"{n_rows:,} rows on a fresh LocalCluster({N_WORKERS} workers) ...", file=sys.stderr, flush=True)
        rows += measure_size(n_rows, models)
        for row in rows[-len(RUN_LABELS):]:
            print(f"  {row['run']}: {row['seconds']:.1f} s, {row['rate']:,.0f} rows/s, worker peaks "
                  f"{' / '.join(mib(v) for v in row['worker_peaks'])} MiB", file=sys.stderr, flush=True)

    largest = max(args.rows)
    extrapolated = []
    if largest < TARGET_ROWS:
        for row in rows:
            if row["rows"] == largest:
                extrapolated.append(f"- extrapolated to {TARGET_ROWS:,} rows (linear in rows, from {largest:,}): "
                                    f"{row['run']} {row['seconds'] * TARGET_ROWS / largest:,.0f} s (not measured)")
    memory_ok = all(max(row["worker_peaks"]) < MEMORY_GOAL_BYTES and not row["restarted"] for row in rows)
    client_peak = vm_hwm_bytes(os.getpid())
    checks = [*check_lines,
              f"- {'PASS' if memory_ok else 'FAIL'}: goal: peak memory per worker under 1 GB "
              f"({MEMORY_GOAL_BYTES / 2 ** 20:,.0f} MiB) at every size, no worker restarted (Dask's "
              f"memory_limit={WORKER_MEMORY_LIMIT!r} per worker): largest worker VmHWM "
              f"{mib(max(max(row['worker_peaks']) for row in rows))} MiB, workers restarted at "
              f"{sorted({row['rows'] for row in rows if row['restarted']}) or 'no size'}"]
    contention = [f"- WARNING: other processes used {row['cpu']['others']:.2f} cores during '{row['run']}' at "
                  f"{row['rows']:,} rows (> {CONTENTION_CORES}): that timing is pessimistic"
                  for row in rows if row["cpu"]["others"] > CONTENTION_CORES]
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    header = _common.machine_header(["numpy", "dask", "distributed", "scikit-learn"], mode,
                                    extra=f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.")
    per_run = all(row["per_run_peaks"] for row in rows)
    notes = [
        f"Data: lazily generated on the workers, {CHUNK_ROWS:,} rows a partition, {N_FEATURES} features + group "
        f"({len(GROUPS)} groups) + label, float64 (48 MB a partition). Cluster: LocalCluster(n_workers={N_WORKERS}, "
        f"threads_per_worker=1, processes=True, memory_limit={WORKER_MEMORY_LIMIT!r}), fresh for every size, one untimed warm-up fit and predict of each "
        f"class. Fits: epsilon={EPSILON:g}, Laplace, prefit LinearRegression (n_bins={N_BINS}, bounds={BOUNDS}) and "
        f"LogisticRegression (predict_proba, equalized_odds, n_score_bins={N_SCORE_BINS}); each timed once. "
        "Predictions: `predict(X, sensitive_features=groups, random_state=0)` of the post-processors just fitted, "
        "a lazy Dask array reduced on the workers (the regression's mean, the threshold optimizer's accuracy "
        "against the labels); each timed once, from the call to the reduced value.",
        ("Peak RSS per worker: VmHWM of each worker process during that run (reset before it through "
         "/proc/self/clear_refs)." if per_run else "Peak RSS per worker: VmHWM of each worker process after that "
         "run; resetting it was refused, so it is the high-water mark since the cluster started.")
        + f" Client process VmHWM at the end of the script (it held the in-memory check data of {CHECK_ROWS:,} "
        f"rows and the in-memory baseline's {baseline_rows:,} rows): {mib(client_peak)} MiB.",
        *predict_notes(rows, baseline),
    ]
    report = "\n".join(["# bench_distributed: out-of-core post-processing fits and lazy predictions on a Dask "
                        "LocalCluster", "", header,
                        source, "", table(rows), "", *notes, "", "Checks:", *checks, *contention, *extrapolated,
                        ""])
    return _common.finish(report, args.output, "bench_distributed", same and memory_ok)


if __name__ == "__main__":
    sys.exit(main())
