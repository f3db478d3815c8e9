"""Benchmark: the time of one fit of the registry's audit cases, this tree against a baseline commit (issue 41, item 5).

What is measured
----------------
The long audits fit one small estimator thousands of times (``default_audit_case(name).factory(seed).fit(
**case.dataset)``, ``tests/audit_cases.py``), so a fixed cost per fit is most of the slow leg's audit time. For each
row named in ``--rows``, the median time of one fit over ``--fits`` fits (seeds 0, 1, ...; three warm-up fits first),
in a fresh interpreter for the working tree and one for the baseline (``--baseline``, default ``HEAD``, checked out
into a temporary ``git worktree`` and put first on ``PYTHONPATH``), the two alternating ``--repeats`` times; the
report gives the medians over the repeats and the ratio this tree / baseline, with the load average before each
process. Seeded fits must be unchanged: each process also prints a SHA-256 of the released attribute the row's
audit event reads, for seed 0, and the two must agree.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_audit_fits.py --baseline 67b4fc9   # 3 repeats of 60 fits: ~5 min
    .venv/bin/python tests/benchmarks/bench_audit_fits.py --quick              # 1 repeat of 5 fits, 2 rows, no file

The full run writes ``tests/benchmarks/results/bench_audit_fits.md``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_audit_fits.md"
DEFAULT_ROWS = ("DPGridSearch,DPGridSearchReduction,DPExponentiatedGradient,DPGroupBudgetClassification,"
                "DPGroupBudgetRegressor,DPFairRegressionPostprocessing,DPThresholdOptimizer")

_CHILD = r"""
import hashlib, json, sys, time, warnings
root, rows, fits = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
import fairlearn_dp.audit  # noqa: F401  (the package first: tests/fairlearn_dp is no package)
sys.path.append(root + "/tests")
warnings.simplefilter("ignore")
import numpy as np
from audit_cases import default_audit_case
from fairlearn_dp.audit._events import released_attribute
out = {"source": fairlearn_dp.__file__}
for name in rows:
    case = default_audit_case(name)
    for seed in range(3):
        case.factory(seed).fit(**case.dataset)
    times = []
    for seed in range(fits):
        start = time.perf_counter()
        fitted = case.factory(seed).fit(**case.dataset)
        times.append(time.perf_counter() - start)
        if seed == 0:
            value = released_attribute(fitted, case.event.attribute) if hasattr(case.event, "attribute") else None
            digest = hashlib.sha256(np.asarray(value, dtype=float).tobytes()).hexdigest()[:16] if value is not None \
                else "-"
    out[name] = {"median_ms": 1000 * sorted(times)[len(times) // 2], "digest": digest}
print(json.dumps(out))
"""


def run_child(source_root, rows, fits):
    env = {**os.environ, "PYTHONPATH": str(source_root), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    load = os.getloadavg()[0]
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(source_root), ",".join(rows), str(fits)],
                          cwd=source_root, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    if not Path(result["source"]).resolve().is_relative_to(Path(source_root).resolve()):
        raise RuntimeError(f"the child imported fairlearn_dp from {result['source']}, not from {source_root}")
    result["load"] = load
    return result


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="alternations",
                                quick_extra="5 fits of two rows, ")
    parser.add_argument("--baseline", default="HEAD", help="git revision of the baseline (default HEAD)")
    parser.add_argument("--rows", default=DEFAULT_ROWS, help="registry rows (comma-separated)")
    parser.add_argument("--fits", type=int, default=60, help="fits per row and process (default 60)")
    args = parser.parse_args(argv)
    if args.repeats is None and not args.quick:
        args.repeats = 3
    args = _common.resolve_run_options(parser, args, default_output=DEFAULT_OUTPUT, quick_repeats=1)
    if args.fits < 1:
        parser.error("--fits must be at least 1")
    rows = args.rows.split(",") if not args.quick else ["DPThresholdOptimizer", "DPGroupBudgetRegressor"]
    fits = 5 if args.quick else args.fits
    repository = _common.REPOSITORY
    revision = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=repository, capture_output=True,
                              text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        baseline_root = Path(scratch) / "baseline"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(baseline_root), revision], cwd=repository,
                       check=True)
        try:
            runs = {"current": [], "baseline": []}
            for _ in range(args.repeats):
                runs["baseline"].append(run_child(baseline_root, rows, fits))
                runs["current"].append(run_child(repository, rows, fits))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(baseline_root)], cwd=repository, check=False)
    ok = True
    table = ["| audit case | baseline (ms) | this tree (ms) | this tree / baseline | seeded release equal |",
             "|---|---|---|---|---|"]
    for name in rows:
        before = statistics.median(run[name]["median_ms"] for run in runs["baseline"])
        after = statistics.median(run[name]["median_ms"] for run in runs["current"])
        digests = {run[name]["digest"] for side in runs.values() for run in side}
        equal = len(digests) == 1
        ok &= equal
        table.append(f"| {name} | {before:.1f} | {after:.1f} | **{after / before:.2f}x** | "
                     f"{'yes' if equal else 'NO: ' + ', '.join(sorted(digests))} |")
    loads = ", ".join(f"{run['load']:.1f}" for pair in zip(runs["baseline"], runs["current"], strict=True)
                      for run in pair)
    report = "\n".join([
        "# One audit-case fit: this tree against the baseline", "",
        _common.machine_header(["numpy", "scipy", "scikit-learn", "diffprivlib", "fairlearn"],
                               "quick" if args.quick else "full"),
        _common.source_state(["fairlearn_dp/privacy/_vector.py", "fairlearn_dp/privacy/_release.py",
                              "fairlearn_dp/privacy/_zcdp.py", "fairlearn_dp/reductions/_grid_search.py"]),
        "", f"Baseline: {args.baseline} ({revision}). {fits} fits per row and process (median), {args.repeats} "
            f"alternations of fresh processes (baseline first); medians over them. One BLAS thread. Load average "
            f"before each process: {loads}.", "", *table, ""])
    return _common.finish(report, None if args.quick else args.output, "bench_audit_fits", ok,
                          "a seeded release differs from the baseline's.")


if __name__ == "__main__":
    sys.exit(main())
