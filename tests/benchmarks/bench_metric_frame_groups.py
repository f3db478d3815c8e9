"""Benchmark: DPMetricFrame over many groups (issue 41.3) against Fairlearn's MetricFrame, and against the code
before the speed-up.

What is measured
----------------
10^6 rows (int8 0/1 labels, about 80% accurate; int64 group codes drawn uniformly), G = 100, 1,000 and 10,000
declared groups (``groups=list(range(G))``), the README example's metrics ``accuracy_score`` and
``selection_rate``, epsilon = 1, the default ``n_boot=1000``, ``random_state=0``. Per G, median of ``--repeats``
calls after one untimed warm-up call, the variants interleaved so that the machine's load cancels in the ratios:

- ``DPMetricFrame``: the constructor (the release and the values; the Monte-Carlo draws are made when read);
- ``+ intervals``: the constructor and ``by_group_ci`` and ``difference_ci()`` read; also its CPU time (this
  process's; the simulation is single-threaded, so this is about the wall time of an idle machine, and it
  moves less with the load than the wall time does);
- ``+ noise_error_``: the same and ``noise_error_`` read (all the draws);
- ``before``: the same as ``+ noise_error_`` on the code of ``--before`` (default c349f87, main before the
  vectorised interval simulation), checked out with ``git archive`` into a temporary folder and timed in a child
  process (one call per repeat, after that repeat's other calls: interleaved);
- ``MetricFrame``: Fairlearn's ``MetricFrame`` on the same rows, no bootstrap (the named baseline of the ratios).

The child's frame must give the same release as this run's (same seed): ``by_group`` bit for bit, a FAIL line
otherwise. Its intervals come from other Monte-Carlo draws (the interval simulation was vectorised after c349f87): the
table gives the median over the bounds of ``by_group_ci`` and ``difference_ci()`` of ``|new - old|`` in units of the
old interval's width (about 0.02 from the Monte-Carlo error of two sets of 1,000 draws). The goal (issue 41.3): G = 10,000
``+ intervals`` under 3 s on an idle 2-core machine; the load average is printed next to each row.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_metric_frame_groups.py            # full run, about 15 minutes at load 5-8
    .venv/bin/python tests/benchmarks/bench_metric_frame_groups.py --quick    # 100 and 1,000 groups, no file
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np

N_ROWS = 10 ** 6
GROUP_COUNTS = (100, 1_000, 10_000)
OUTPUT = _common.REPOSITORY / "tests" / "benchmarks" / "results" / "bench_metric_frame_groups.md"
TIMED = ["fairlearn_dp/metrics/_dp_metric_frame.py", "fairlearn_dp/metrics/_frame_release.py",
         "fairlearn_dp/metrics/_frame_intervals.py", "fairlearn_dp/metrics/_frame_quantiles.py"]


def _data(n_groups):
    rng = np.random.default_rng(41)
    y_true = (rng.random(N_ROWS) < 0.4).astype(np.int8)
    y_pred = np.where(rng.random(N_ROWS) < 0.8, y_true, 1 - y_true).astype(np.int8)
    return y_true, y_pred, rng.integers(0, n_groups, N_ROWS)


def _metrics():
    from fairlearn.metrics import selection_rate
    from sklearn.metrics import accuracy_score
    return {"accuracy": accuracy_score, "selection_rate": selection_rate}


def _private(data, n_groups, intervals):
    from diffprivlib import BudgetAccountant

    from fairlearn_dp.metrics import DPMetricFrame
    y_true, y_pred, groups = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = DPMetricFrame(metrics=_metrics(), y_true=y_true, y_pred=y_pred, sensitive_features=groups,
                              epsilon=1.0, groups=list(range(n_groups)), random_state=0,
                              accountant=BudgetAccountant())
        out = None
        if intervals == "all":
            frame.noise_error_
        if intervals:
            out = {"by_group": frame.by_group.to_numpy().tolist(),
                   "by_group_ci": [v.to_numpy().tolist() for v in frame.by_group_ci],
                   "difference_ci": [v.to_numpy().tolist() for v in frame.difference_ci()]}
    return out


def _exact(data):
    from fairlearn.metrics import MetricFrame
    y_true, y_pred, groups = data
    MetricFrame(metrics=_metrics(), y_true=y_true, y_pred=y_pred, sensitive_features=groups)


def _timed(call, cpu=None):
    """``(wall seconds, call())``; the CPU seconds of this process appended to ``cpu`` if given."""
    start, start_cpu = time.perf_counter(), time.process_time()
    out = call()
    if cpu is not None:
        cpu.append(time.process_time() - start_cpu)
    return time.perf_counter() - start, out


def _child(n_groups):
    """One ``before`` call: run in a process that imports the old package first on its path."""
    data = _data(n_groups)
    _private(data, n_groups, False)                                   # warm-up: imports, caches
    seconds, out = _timed(lambda: _private(data, n_groups, "all"))
    print(json.dumps({"seconds": seconds, "values": out}))


def _before(root, n_groups):
    env = dict(os.environ, PYTHONPATH=str(root))
    proc = subprocess.run([sys.executable, __file__, "--child", str(n_groups)],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _row(n_groups, repeats, root, exact_repeats):
    """Per repeat, each variant once, then one ``before`` call in a child process: interleaved."""
    data = _data(n_groups)
    _private(data, n_groups, False)                                           # warm-up
    _exact(data)
    new, with_ci, with_ci_cpu, every, exact, before, loads = [], [], [], [], [], [], []
    values = None
    for _ in range(repeats):
        new.append(_timed(lambda: _private(data, n_groups, False))[0])
        with_ci.append(_timed(lambda: _private(data, n_groups, True), with_ci_cpu)[0])
        seconds, values = _timed(lambda: _private(data, n_groups, "all"))
        every.append(seconds)
        if len(exact) < exact_repeats:
            exact.append(_timed(lambda: _exact(data))[0])
        if root is not None:
            before.append(_before(root, n_groups))
        loads.append(os.getloadavg()[0])
    same = None if root is None else all(b["values"]["by_group"] == values["by_group"] for b in before)
    moved = None if root is None else _bounds_moved(values, before[0]["values"])
    return {"groups": n_groups, "new": statistics.median(new), "with_ci": statistics.median(with_ci),
            "with_ci_cpu": statistics.median(with_ci_cpu),
            "every": statistics.median(every), "exact": statistics.median(exact),
            "before": None if root is None else statistics.median(b["seconds"] for b in before),
            "same": same, "moved": moved, "load": statistics.median(loads)}


def _bounds_moved(new, old):
    """Median over the interval bounds of ``|new - old|`` divided by the old interval's width."""
    ratios = []
    for key in ("by_group_ci", "difference_ci"):
        low, high = (np.asarray(bound, dtype=float) for bound in old[key])
        width = np.where(high > low, high - low, np.nan)
        for new_bound, old_bound in zip(new[key], old[key], strict=True):
            ratios.append((np.abs(np.asarray(new_bound, dtype=float) - np.asarray(old_bound, dtype=float))
                           / width).ravel())
    return float(np.nanmedian(np.concatenate(ratios)))


def _old_package(commit, folder):
    archive = subprocess.run(["git", "archive", commit, "fairlearn_dp"], cwd=_common.REPOSITORY,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def _report(rows, args, mode):
    lines = [_common.machine_header(["numpy", "fairlearn"], mode), "", _common.source_state(TIMED), "",
             f"10^6 rows, accuracy and selection_rate, epsilon 1, n_boot 1000, median of {args.repeats} calls "
             f"(MetricFrame: of {args.exact_repeats}); before = commit {args.before}.", "",
             "| groups | DPMetricFrame (s) | + by_group_ci, difference_ci (s) | (CPU s) | + noise_error_ (s) | "
             "before (s) | "
             "MetricFrame (s) | with intervals / MetricFrame | before / after (all draws) | same release | "
             "bounds moved / width | load (1 min) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        before = "-" if r["before"] is None else f"{r['before']:.2f}"
        speedup = "-" if r["before"] is None else f"{r['before'] / r['every']:.1f}x"
        moved = "-" if r["moved"] is None else f"{r['moved']:.2f}"
        lines.append(f"| {r['groups']:,} | {r['new']:.2f} | {r['with_ci']:.2f} | {r['with_ci_cpu']:.2f} | "
                     f"{r['every']:.2f} | {before} | "
                     f"{r['exact']:.2f} | "
                     f"{r['with_ci'] / r['exact']:.2f}x | {speedup} | {r['same']} | {moved} | {r['load']:.1f} |")
    return "\n".join(lines) + "\n"


def main():
    parser = _common.run_parser(__doc__, default_output=OUTPUT, quick_repeats=1, unit="calls",
                                quick_extra="100 and 1,000 groups, ")
    parser.add_argument("--before", default="c349f87", help="the commit timed as 'before' ('' to skip)")
    parser.add_argument("--exact-repeats", type=int, default=1, help="MetricFrame calls per median")
    parser.add_argument("--child", type=int, default=None, help=argparse_suppress())
    args = parser.parse_args()
    if args.child is not None:
        _child(args.child)
        return 0
    args = _common.resolve_run_options(parser, args, default_output=OUTPUT, quick_repeats=1)
    counts = GROUP_COUNTS[:2] if args.quick else GROUP_COUNTS
    with tempfile.TemporaryDirectory() as folder:
        root = _old_package(args.before, Path(folder)) if args.before else None
        rows = []
        for n_groups in counts:
            rows.append(_row(n_groups, args.repeats, root, args.exact_repeats))
            print(rows[-1], file=sys.stderr)
    failed = [r["groups"] for r in rows if r["same"] is False]
    for n_groups in failed:
        print(f"FAIL: {n_groups} groups: the release differs from the before code's", file=sys.stderr)
    return _common.finish(_report(rows, args, "quick" if args.quick else "full"), args.output,
                          "bench_metric_frame_groups", not failed)


def argparse_suppress():
    import argparse
    return argparse.SUPPRESS


if __name__ == "__main__":
    sys.exit(main())
