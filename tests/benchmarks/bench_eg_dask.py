"""Benchmark: DPExponentiatedGradient on Dask inputs (issue 41 item 1) against the in-memory fit, up to 10^8 rows.

What is measured
----------------
The rows are :mod:`bench_distributed`'s: ``CHUNK_ROWS`` rows a partition, each generated from its own
``numpy.random.default_rng([SEED, block])`` (4 standard normal features, the first shifted by 0.3 x group, one of
4 groups, as int64, a 0/1 label from a logistic model). The fit is the record unit's (the whole record private), the
least-squares Learner, demographic parity::

    DPExponentiatedGradient(None, DemographicParity(difference_bound=0.02), privacy_unit="record",
                            row_norm_bound=3.0, groups=[0, 1, 2, 3], max_iter=10, epsilon=1, random_state=0)

It reads the rows ``n_iter_ + 2`` times (the statistics, one pass per round, the choice against the constants).
Every Dask run is on ``LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB")``
(bench_distributed's), after an untimed warm-up fit on 10^4 rows.

1. **In memory vs Dask, the same data** (``--rows``, default 10^6 and 10^7): the rows generated in this process
   (numpy) for the in-memory fit -- the named baseline -- and the same rows persisted on the workers for the Dask
   fit, so that neither fit generates data while timed. The two fits alternate (``--repeats`` each, default 3;
   2 at 10^7), so that the machine's load falls on both; the report gives each median and the ratio Dask /
   in memory of the medians. Check: every pair releases the same statistics, Gram matrix and round sums, bit for
   bit, and chooses the same constant.
2. **10^8 rows on Dask** (``--lazy-rows``, default 10^8): generated lazily on the workers (``dask.array.map_blocks``;
   no process holds the data set), one fit, timed once, with a "generate only" pass (``X.sum(axis=0)``) as the
   floor of one pass. The in-memory fit would need about 5 GB for the rows alone and is not run: its time is
   extrapolated linearly from the largest comparison size, and marked as such.

Reported: wall times, peak resident memory of each worker during each Dask run (``VmHWM``, reset before it), the
client's peak, the cores used by our processes and by others (``psutil``) and the load average.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_eg_dask.py           # 10^6 and 10^7 compared, 10^8 on Dask
    .venv/bin/python tests/benchmarks/bench_eg_dask.py --quick   # 10^5 compared, 10^6 on Dask, no file

Needs the [dask] extra. The full run writes ``tests/benchmarks/results/bench_eg_dask.md``. The exit status is
non-zero if a check fails (a release differs, or a worker went above 1 GiB and was restarted).
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
import numpy as np
from bench_distributed import (
    CHUNK_ROWS,
    CpuShare,
    in_memory_rows,
    lazy_rows,
    mib,
    reset_peaks,
    start_cluster,
    vm_hwm_bytes,
)
from fairlearn.reductions import DemographicParity

from fairlearn_dp.privacy import BudgetAccountant
from fairlearn_dp.reductions import DPExponentiatedGradient

GROUPS = [0, 1, 2, 3]
ROUNDS = 10
ROW_NORM_BOUND = 3.0
COMPARE_ROWS = (1_000_000, 10_000_000)
LAZY_ROWS = 100_000_000
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_eg_dask.md"
TIMED_SOURCES = ("fairlearn_dp/reductions/_game_rows.py", "fairlearn_dp/reductions/_statistics_game.py",
                 "fairlearn_dp/reductions/_exponentiated_gradient.py", "fairlearn_dp/postprocessing/_distributed.py",
                 "fairlearn_dp/_utils/_dask.py")
RELEASES = ("statistics", "gram", "round_sums")


def model():
    return DPExponentiatedGradient(None, DemographicParity(difference_bound=0.02), privacy_unit="record",
                                   row_norm_bound=ROW_NORM_BOUND, groups=GROUPS, max_iter=ROUNDS, epsilon=1.0,
                                   random_state=0, accountant=BudgetAccountant())


def fit(X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the fit's warnings (none expected at these sizes)
        return model().fit(X, y, sensitive_features=groups)


def timed_fit(X, y, groups, client=None, pids=()):
    """``(seconds, fitted, worker peaks or None, cores)``: one fit, with each worker's peak RSS during it."""
    per_run = reset_peaks(client) if client is not None else None
    share = CpuShare([os.getpid(), *pids]).start()
    start = time.perf_counter()
    fitted = fit(X, y, groups)
    seconds = time.perf_counter() - start
    peaks = [vm_hwm_bytes(pid) for pid in pids] if client is not None else None
    return seconds, fitted, (peaks, per_run), share.stop()


def same_releases(a, b):
    return all(np.array_equal(a.history_[name], b.history_[name]) for name in RELEASES) and \
        a.constant_choice_ == b.constant_choice_ and a.n_iter_ == b.n_iter_


def compare(n_rows, repeats, client, pids):
    """In-memory fits (numpy, this process) and Dask fits (the same rows persisted on the workers), alternating."""
    from distributed import wait

    X, groups, y = in_memory_rows(n_rows)
    groups = groups.astype(np.int64)
    source, _, _, _ = lazy_rows(n_rows)
    source = source.persist()
    wait(source)
    Xd, groups_d, y_d = source[:, :4], source[:, 4].astype(np.int64), source[:, 5]
    memory, dask_runs, same = [], [], True
    for _ in range(repeats):
        seconds, in_memory, _, cores = timed_fit(X, y, groups)
        memory.append((seconds, cores))
        seconds, on_dask, peaks, cores = timed_fit(Xd, y_d, groups_d, client, pids)
        dask_runs.append((seconds, peaks, cores))
        same &= same_releases(in_memory, on_dask)
    del source
    return {"rows": n_rows, "memory": memory, "dask": dask_runs, "same": same, "passes": on_dask.n_iter_ + 2}


def lazy(n_rows, client, pids):
    """One Dask fit of ``n_rows`` lazily generated rows, and one pass that only generates them."""
    import dask

    _, Xd, groups_d, y_d = lazy_rows(n_rows)
    groups_d = groups_d.astype(np.int64)
    reset_peaks(client)
    start = time.perf_counter()
    dask.compute(Xd.sum(axis=0))
    generate = time.perf_counter() - start
    seconds, fitted, peaks, cores = timed_fit(Xd, y_d, groups_d, client, pids)
    return {"rows": n_rows, "seconds": seconds, "generate": generate, "peaks": peaks, "cores": cores,
            "passes": fitted.n_iter_ + 2}


def median(values):
    return statistics.median(values)


def compare_table(results):
    lines = ["| rows | in-memory fit (s), median | Dask fit (s), median | ratio Dask / in memory | runs each | "
             "peak RSS per worker, Dask (MiB) | cores used during Dask fits: ours / others |",
             "|---|---|---|---|---|---|---|"]
    for result in results:
        in_memory = median([seconds for seconds, _ in result["memory"]])
        on_dask = median([seconds for seconds, _, _ in result["dask"]])
        peaks = [max(run[1][0][i] for run in result["dask"]) for i in range(len(result["dask"][0][1][0]))]
        cores = result["dask"][-1][2]
        lines.append(f"| {result['rows']:,} | {in_memory:.2f} | {on_dask:.2f} | **{on_dask / in_memory:.1f}** | "
                     f"{len(result['memory'])} | {' / '.join(mib(p) for p in peaks)} | "
                     f"{cores['ours']:.2f} / {cores['others']:.2f} |")
    return "\n".join(lines)


def lazy_lines(result, results):
    peaks = " / ".join(mib(p) for p in result["peaks"][0])
    largest = max(results, key=lambda r: r["rows"]) if results else None
    lines = [f"- {result['rows']:,} rows generated lazily ({-(-result['rows'] // CHUNK_ROWS)} partitions): the Dask "
             f"fit took **{result['seconds']:.1f} s** ({result['passes']} passes over the rows, "
             f"{result['seconds'] / result['passes']:.1f} s a pass; generating the rows alone took "
             f"{result['generate']:.1f} s a pass), peak RSS per worker {peaks} MiB, cores used: ours "
             f"{result['cores']['ours']:.2f} / others {result['cores']['others']:.2f}."]
    if largest is not None:
        base = median([seconds for seconds, _ in largest["memory"]]) * result["rows"] / largest["rows"]
        lines.append(f"- In-memory fit of {result['rows']:,} rows: not run (about {result['rows'] * 48 / 1e9:.0f} GB "
                     f"of rows); extrapolated linearly from {largest['rows']:,} rows: {base:.0f} s (not measured), "
                     f"ratio Dask / in memory {result['seconds'] / base:.1f} (extrapolated).")
    return lines


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="fits",
                                quick_extra="10^5 rows compared and 10^6 on Dask, ")
    parser.add_argument("--rows", type=float, nargs="*", default=None, help="sizes compared in memory and on Dask")
    parser.add_argument("--lazy-rows", type=float, default=None, help="size fitted on Dask only (0: none)")
    args = parser.parse_args(argv)
    explicit_repeats = args.repeats is not None
    args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=1)
    if not explicit_repeats and not args.quick:
        args.repeats = 3
    args.rows = [int(v) for v in (args.rows if args.rows is not None else
                                  ([100_000] if args.quick else list(COMPARE_ROWS)))]
    args.lazy_rows = int(args.lazy_rows if args.lazy_rows is not None else (1_000_000 if args.quick else LAZY_ROWS))
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    source_state = _common.source_state(TIMED_SOURCES)
    logging.getLogger("distributed").setLevel(logging.ERROR)
    warnings.simplefilter("ignore", FutureWarning)
    load = os.getloadavg()
    cluster, client, pids = start_cluster()
    try:
        _, Xw, groups_w, y_w = lazy_rows(10_000, chunk_rows=5_000)
        fit(Xw, y_w, groups_w)                                          # warm-up: imports on the workers
        results = []
        for n_rows in args.rows:
            repeats = min(args.repeats, 2) if n_rows >= 10_000_000 else args.repeats
            print(f"{n_rows:,} rows: in memory vs Dask, {repeats} fits each ...", file=sys.stderr, flush=True)
            results.append(compare(n_rows, repeats, client, pids))
        lazy_result = None
        if args.lazy_rows:
            print(f"{args.lazy_rows:,} rows generated lazily, on Dask ...", file=sys.stderr, flush=True)
            lazy_result = lazy(args.lazy_rows, client, pids)
        restarted = sorted(client.run(os.getpid).values()) != pids
    finally:
        client.close()
        cluster.close()
    end_load = os.getloadavg()
    same = all(result["same"] for result in results)
    checks = [f"- {'PASS' if result['same'] else 'FAIL'}: {result['rows']:,} rows: every Dask fit released exactly "
              f"the in-memory fit's statistics, Gram matrix and round sums and chose the same constant"
              for result in results]
    checks.append(f"- {'PASS' if not restarted else 'FAIL'}: no worker was restarted (memory_limit='1GiB')")
    header = _common.machine_header(["numpy", "dask", "distributed", "scikit-learn"],
                                    ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})",
                                    extra=f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; "
                                          f"at the end: {end_load[0]:.2f} / {end_load[1]:.2f} / {end_load[2]:.2f}.")
    notes = [f"Fit: record unit, least-squares Learner, demographic parity, max_iter={ROUNDS}, epsilon=1, "
             f"row_norm_bound={ROW_NORM_BOUND}; {CHUNK_ROWS:,} rows a partition. Baseline: the in-memory fit "
             "(numpy inputs, this process), alternating with the Dask fit on the same rows persisted on the "
             "workers. Client peak RSS at the end: "
             f"{mib(vm_hwm_bytes(os.getpid()))} MiB (it held the in-memory rows)."]
    report = "\n".join(["# bench_eg_dask: DPExponentiatedGradient on Dask inputs vs in memory", "", header,
                        source_state, "", compare_table(results) if results else "", "",
                        *(lazy_lines(lazy_result, results) if lazy_result else []), "", *notes, "", "Checks:",
                        *checks, ""])
    return _common.finish(report, args.output, "bench_eg_dask", same and not restarted)


if __name__ == "__main__":
    sys.exit(main())
