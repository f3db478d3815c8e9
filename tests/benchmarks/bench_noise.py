"""Benchmark: release noise for 4x10^5 cells, per-cell diffprivlib ``randomise`` vs one ``randomise_vector`` call.

What is measured
----------------
One release of ``--cells`` cells (default 400,000; values 0) through each path, for four settings: diffprivlib's
``Laplace(epsilon=1, sensitivity=1)`` and ``GaussianAnalytic(epsilon=1, delta=1e-6, sensitivity=1)``, each with
``random_state=None`` (secure: diffprivlib's ``SystemRandom``) and seeded (a ``RandomState(SEED)`` made fresh for
every timed call, construction untimed):

1. old -- today's per-cell loop, as the four call sites had it before issue 14 (``noisy_vector``,
   ``noisy_vector_zcdp``, GerryFair's ``_Releaser``, ``ZCDPLedger.release``):
   ``np.fromiter((mechanism.randomise(float(v)) for v in flat), float, count=flat.size)``;
2. new -- ``fairlearn_dp.privacy._vector.randomise_vector(mechanism, values)``, what those call sites use now.

One untimed warm-up of each, then ``--repeats`` rounds timing old and new in turn (load drift hits both); median,
minimum and the median ratio old / new. Goal (issue 14): 4x10^5 cells in < 0.1 s (median of the new path).

Secure Gaussian vs secure Laplace (issue 23): the secure Gaussian evaluates the stdlib ``normalvariate`` in array form
on the same batched OS uniforms as the secure Laplace (``fairlearn_dp/privacy/_vector.py``). ``3 --repeats`` further
rounds time the two new secure paths in turn; the median of the per-round ratios Gaussian / Laplace is reported
against the goal < 1.5x. The goals are reported (PASS / MISS), not failures: timings depend on the machine's load.

Checks (exit status non-zero if one fails): the seeded new draw equals the seeded old draw bit for bit (same
seed); every draw's noise has the mechanism's scale (sample sd within 5 standard errors of ``sqrt(variance(0))``).
The load average is recorded at the start and the end.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_noise.py              # full run, about 2 minutes
    .venv/bin/python tests/benchmarks/bench_noise.py --quick      # smoke run: 1 repeat, no file

The full run prints a GitHub-markdown table and writes it to ``tests/benchmarks/results/bench_noise.md``;
``--quick`` only prints unless ``--output`` is given.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
from diffprivlib.mechanisms import GaussianAnalytic, Laplace

from fairlearn_dp.privacy._vector import randomise_vector  # first: makes diffprivlib importable on scikit-learn 1.9

SEED = 20240721
CELLS = 400_000
GOAL_SECONDS = 0.1
GOAL_GAUSSIAN_OVER_LAPLACE = 1.5
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_noise.md"
TIMED_SOURCES = ("fairlearn_dp/privacy/_vector.py",)
SETTINGS = (  # name, mechanism class, keyword arguments
    ("Laplace", Laplace, {"epsilon": 1.0, "sensitivity": 1.0}),
    ("GaussianAnalytic", GaussianAnalytic, {"epsilon": 1.0, "delta": 1e-6, "sensitivity": 1.0}),
)
SOURCES = ("secure (random_state=None)", "seeded (RandomState)")


def old_path(mechanism, values):
    """The per-cell loop the call sites used before issue 14."""
    flat = values.ravel()
    return np.fromiter((mechanism.randomise(float(v)) for v in flat), dtype=float, count=flat.size)


def new_path(mechanism, values):
    return randomise_vector(mechanism, values)


PATHS = {"old": old_path, "new": new_path}


def make_mechanism(cls, keywords, source):
    return cls(random_state=None if source == SOURCES[0] else np.random.RandomState(SEED), **keywords)


def timed(path, cls, keywords, source, values):
    mechanism = make_mechanism(cls, keywords, source)
    start = time.perf_counter()
    noisy = PATHS[path](mechanism, values)
    return time.perf_counter() - start, noisy, mechanism


def scale_ok(noisy, mechanism):
    """Sample sd within 5 standard errors of the mechanism's sd (se ~ sd sqrt((kurtosis - 1) / 4n): Laplace 6,
    Gaussian 3)."""
    sd = math.sqrt(mechanism.variance(0.0))
    kurtosis = 6.0 if isinstance(mechanism, Laplace) else 3.0
    return abs(noisy.std() - sd) < 5 * sd * math.sqrt((kurtosis - 1) / (4 * noisy.size)), noisy.std(), sd


def run(cells, repeats):
    values = np.zeros(cells)
    times, checks = {}, []
    for name, cls, keywords in SETTINGS:
        for source in SOURCES:
            key = (name, source)
            print(f"  {name}, {source}: warm-up + {repeats} rounds ...", file=sys.stderr, flush=True)
            draws = {path: timed(path, cls, keywords, source, values)[1:] for path in PATHS}
            times[key] = {path: [] for path in PATHS}
            for _ in range(repeats):
                for path in PATHS:
                    seconds, noisy, mechanism = timed(path, cls, keywords, source, values)
                    times[key][path].append(seconds)
            for path, (noisy, mechanism) in draws.items():
                ok, got, expected = scale_ok(noisy, mechanism)
                checks.append((ok, f"{name}, {source}, {path}: noise sd {got:.4f} vs mechanism {expected:.4f}"))
            if source == SOURCES[1]:
                same = bool(np.array_equal(draws["old"][0], draws["new"][0]))
                checks.append((same, f"{name}, seeded: new draw == old draw bit for bit (seed {SEED})"))
    return times, checks


def secure_pair_rounds(cells, repeats):
    """Per-round times of the new secure Laplace and the new secure Gaussian, timed in turn: ``{name: [s, ...]}``."""
    values = np.zeros(cells)
    times = {name: [] for name, _, _ in SETTINGS}
    for _ in range(repeats):
        for name, cls, keywords in SETTINGS:
            times[name].append(timed("new", cls, keywords, SOURCES[0], values)[0])
    return times


def pair_table(pair_times):
    laplace, gaussian = pair_times["Laplace"], pair_times["GaussianAnalytic"]
    ratios = [g / lap for g, lap in zip(gaussian, laplace, strict=True)]
    ratio = statistics.median(ratios)
    goal = "PASS" if ratio < GOAL_GAUSSIAN_OVER_LAPLACE else "MISS"
    row = [f"{statistics.median(laplace):.4f}", f"{statistics.median(gaussian):.4f}", f"**{ratio:.2f}x**",
           f"{min(ratios):.2f}x - {max(ratios):.2f}x", goal]
    return markdown_table(["secure Laplace, median (s)", "secure GaussianAnalytic, median (s)",
                           "ratio Gaussian / Laplace (median of rounds)", "range over rounds",
                           f"goal: < {GOAL_GAUSSIAN_OVER_LAPLACE:g}x"], [row])


def markdown_table(header, rows):
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *("| " + " | ".join(row) + " |" for row in rows)])


def timing_table(times, cells):
    rows = []
    for (name, source), by_path in times.items():
        old, new = statistics.median(by_path["old"]), statistics.median(by_path["new"])
        goal = "PASS" if new < GOAL_SECONDS * cells / CELLS else "MISS"
        rows.append([name, source, f"{old:.3f}", f"{min(by_path['old']):.3f}", f"{new:.4f}",
                     f"{min(by_path['new']):.4f}", f"**{old / new:.0f}x**", f"{1e6 * new / cells:.3f}", goal])
    return markdown_table(["mechanism", "source", "old per-cell loop, median (s)", "old min (s)",
                           "new randomise_vector, median (s)", "new min (s)", "ratio old / new", "new us per cell",
                           f"goal: < {GOAL_SECONDS * cells / CELLS:g} s for {cells:,} cells"], rows)


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="timed rounds")
    parser.add_argument("--cells", type=int, default=CELLS, help=f"cells per release (default {CELLS:,})")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=1)
    if args.cells < 1:
        parser.error("--cells must be at least 1")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    load = os.getloadavg()
    source_line = _common.source_state(TIMED_SOURCES)
    times, checks = run(args.cells, args.repeats)
    print(f"  secure Laplace vs secure Gaussian: {3 * args.repeats} paired rounds ...", file=sys.stderr, flush=True)
    pair_times = secure_pair_rounds(args.cells, 3 * args.repeats)
    load_after = os.getloadavg()
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    header = _common.machine_header(("numpy", "diffprivlib"), mode,
                                    f" Load average at start: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}.")
    notes = [
        f"One release of {args.cells:,} cells (values 0) per timed call; mechanism construction untimed (a fresh "
        f"RandomState({SEED}) per seeded call, so old and new draw from the same stream). Warm-up, then "
        f"{args.repeats} rounds alternating old and new; ratio = median old / median new.",
        "Old = np.fromiter over mechanism.randomise(float(v)) (the call sites before issue 14). New = "
        "randomise_vector: Laplace draws all uniforms at once (seeded: rng.random_sample(4m); secure: one "
        "os.urandom read per 65,536 cells, SystemRandom.random's 53-bit construction) and applies diffprivlib's "
        "_laplace_sampler elementwise; the seeded Gaussian draws rng.standard_normal(2m); the secure Gaussian "
        "evaluates the stdlib normalvariate (Kinderman-Monahan) in array form on the same batched os.urandom "
        "uniforms, pair by pair in stream order (bit-identical to the scalar sampler on the same uniforms: "
        "tests/fairlearn_dp/privacy/test_vector_normal.py).",
        f"Secure Gaussian vs secure Laplace: {3 * args.repeats} further rounds, each timing the new secure "
        "Laplace and then the new secure GaussianAnalytic on the same cells; ratio = median of the per-round "
        "ratios.",
        f"Load average at the end: {load_after[0]:.2f} / {load_after[1]:.2f} / {load_after[2]:.2f} (the script "
        f"keeps one core busy; on this {os.cpu_count()}-CPU machine a load above about 1 means other processes "
        "competed).",
    ]
    check_lines = [f"- {'PASS' if ok else 'FAIL'}: {text}" for ok, text in checks]
    report = "\n".join(["# bench_noise: release noise, per-cell randomise vs randomise_vector", "", header,
                        source_line, "", timing_table(times, args.cells), "",
                        "## Secure Gaussian vs secure Laplace (same run)", "", pair_table(pair_times), "",
                        "## Notes", "", *notes, "",
                        "Checks:", *check_lines, ""])
    return _common.finish(report, args.output, "bench_noise", all(ok for ok, _ in checks))


if __name__ == "__main__":
    sys.exit(main())
