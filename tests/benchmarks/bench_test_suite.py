"""Benchmark: the README's test command (``python -m pytest``, the default marker selection) on all cores against one
process, measured in the same run (issue 41 item 5).

What is measured
----------------
The default run as ``pyproject.toml``'s addopts configure it (pytest-xdist, ``-n auto --dist loadfile``: one worker
per core) and the baseline, the same tests in one process (``-n 0``: how the suite ran before), alternately
(baseline first), ``--repeats`` pairs. For each run: wall time, and CPU time (user + system of pytest and every
process it waited for: workers, fresh interpreters of the example and snippet tests), from ``resource.getrusage``
of the children; the load average before each run. The ratio is the default run's median over the baseline's.
Checks: both runs pass (exit 0). The goals of issue 41 (under 5 minutes of wall and under 10 minutes of CPU on an
idle 2-core machine) are printed against the medians but not checked: they hold on an idle machine only, and the
load average says how idle it was.

Run (from the repository root, with the [test] extra)::

    .venv/bin/python tests/benchmarks/bench_test_suite.py               # 1 pair (about 15 min on 2 cores)
    .venv/bin/python tests/benchmarks/bench_test_suite.py --quick       # tests/test_readme.py only, no file

The full run writes ``tests/benchmarks/results/bench_test_suite.md``.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import time

import _common  # tests/benchmarks/_common.py (scripts run from this folder)

DEFAULT_OUTPUT = _common.REPOSITORY / "tests" / "benchmarks" / "results" / "bench_test_suite.md"
#: The configurations compared: the named baseline first.
CONFIGURATIONS = {"baseline: one process (-n 0)": ["-n", "0"], "default: python -m pytest (-n auto)": []}
WALL_GOAL, CPU_GOAL = 300.0, 600.0          # seconds, idle 2-core machine (issue 41 item 5)


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(extra, quick):
    """``(wall s, CPU s, load average before, summary line, exit code)`` of one pytest run from the root."""
    targets = ["tests/test_readme.py"] if quick else []
    load = os.getloadavg()[0]
    cpu, start = _children_cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *extra, *targets], cwd=_common.REPOSITORY,
                          capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    lines = [line for line in proc.stdout.splitlines() if re.search(r"\d+ passed", line)]
    return wall, cpu, load, (lines[-1].strip("= ") if lines else proc.stdout[-300:]), proc.returncode


def _report(rows, args):
    lines = ["# The default test run on all cores against one process", "",
             _common.machine_header(["pytest", "pytest-xdist"], "quick" if args.quick else "full"),
             _common.source_state([]), "",
             "| run | configuration | load before | wall (s) | CPU (s) | exit | tests |", "|---|---|---|---|---|---|---|"]
    for index, (name, (wall, cpu, load, summary, code)) in enumerate(rows):
        lines.append(f"| {index // len(CONFIGURATIONS) + 1} | {name} | {load:.1f} | {wall:.0f} | {cpu:.0f} | {code} "
                     f"| {summary} |")
    medians = {name: (statistics.median(r[0] for n, r in rows if n == name),
                      statistics.median(r[1] for n, r in rows if n == name)) for name in CONFIGURATIONS}
    baseline, default = (medians[name] for name in CONFIGURATIONS)
    lines += ["", f"Medians: baseline {baseline[0]:.0f} s wall, {baseline[1]:.0f} s CPU; default {default[0]:.0f} s "
                  f"wall, {default[1]:.0f} s CPU. Ratio default / baseline: wall {default[0] / baseline[0]:.2f}x, "
                  f"CPU {default[1] / baseline[1]:.2f}x.",
              f"Issue 41 goals (idle 2-core machine, not checked here): wall under {WALL_GOAL:.0f} s "
              f"({default[0]:.0f} s), CPU under {CPU_GOAL:.0f} s ({default[1]:.0f} s)."]
    return "\n".join(lines) + "\n", all(r[4] == 0 for _, r in rows)


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="pairs of runs",
                                quick_extra="tests/test_readme.py only, ")
    args = parser.parse_args(argv)
    if args.repeats is None:
        args.repeats = 1                         # a pair takes about 15 minutes: one unless asked
    args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=1)
    rows = []
    for _ in range(args.repeats):
        for name, extra in CONFIGURATIONS.items():
            rows.append((name, _run(extra, args.quick)))
            print(f"{name}: {rows[-1][1][0]:.0f} s wall, {rows[-1][1][1]:.0f} s CPU", file=sys.stderr)
    report, ok = _report(rows, args)
    return _common.finish(report, args.output, "bench_test_suite", ok, "a test run failed (exit code above).")


if __name__ == "__main__":
    sys.exit(main())
