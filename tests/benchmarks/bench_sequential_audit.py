"""Benchmark: the long audits in looks (tests/sequential_audit.py) against the fixed 5,000-run audit (issue 41, item 5).

What is measured
----------------
**Design** (no fits): for every registry row's default event ``(p, p')`` (``tests/audit_cases.py``), the design
alternative ``Delta`` (the excess loss the fixed 5,000-run test detects with probability 0.98), the fixed test's
exact power there and the sequential test's (simulated, 20,000 draws of the binomial counts), both tests'
false-violation rate for the exact mechanism, and the runs per neighbour the sequential test takes on average for the
exact mechanism, as a ratio to 5,000 (the named baseline). Check: the sequential test's power at ``Delta`` within
``TOTAL_EARLY_BETA = 0.01`` of the fixed test's, its false-violation rate at most 0.05 (+ four Monte Carlo standard
errors).

**Audits** (fits): every row's long audit as ``test_every_registry_row_passes_a_long_audit`` runs it (seed 11): the
look it stopped at, its decision and its wall time; and, in the same run, the fixed 5,000-run audit of the rows named
in ``--fixed`` (the baseline), with the ratio of their times.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_sequential_audit.py            # design + every row's audit: ~30 min
    .venv/bin/python tests/benchmarks/bench_sequential_audit.py --quick    # design of 3 rows, 2,000 draws, no fits

The full run writes ``tests/benchmarks/results/bench_sequential_audit.md``.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
from fairdp_adapters import registry

import aif360_dp  # noqa: F401  (the packages before tests/ joins the path: its folders of the same names are none)
import fairlearn_dp.audit  # noqa: F401

sys.path.append(str(_common.REPOSITORY / "tests"))

import sequential_audit as design  # noqa: E402
from audit_cases import audit_registered, default_audit_case  # noqa: E402

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_sequential_audit.md"


def markdown_table(header, rows):
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(row) + " |" for row in rows])


def design_rows(names, n_sim):
    rows, ok = [], True
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            case = default_audit_case(name)
        p, p_prime = case.event.expected_probabilities
        epsilon, delta, minimum = case.declared_epsilon, case.declared_delta, design.long_audit_minimum(name)
        excess = design.design_alternative(p, p_prime, epsilon=epsilon, delta=delta)
        alternative = design._alternative(p, p_prime, epsilon, delta, excess)
        fixed_power = design.fixed_power(*alternative, epsilon=epsilon, delta=delta)
        _, sequential_power, _ = design.simulate(*alternative, epsilon=epsilon, delta=delta, design_delta=excess,
                                                 minimum=minimum, n_sim=n_sim)
        fixed_null = design.fixed_power(p, p_prime, epsilon=epsilon, delta=delta)
        _, sequential_null, runs = design.simulate(p, p_prime, epsilon=epsilon, delta=delta, design_delta=excess,
                                                   minimum=minimum, n_sim=n_sim)
        tolerance = 4 * math.sqrt(design.ALPHA * (1 - design.ALPHA) / n_sim)
        row_ok = sequential_power >= fixed_power - design.TOTAL_EARLY_BETA - 4 * math.sqrt(0.02 / n_sim) and \
            sequential_null <= design.ALPHA + tolerance
        ok &= row_ok
        rows.append([name, f"{p:.4f} / {p_prime:.4f}", f"{epsilon:.3f}", f"{delta:.3g}",
                     "-" if minimum is None else f"{minimum:.1f}", f"{excess:.3f}", f"{fixed_power:.4f}",
                     f"{sequential_power:.4f}", f"{fixed_null:.4f}", f"{sequential_null:.4f}", f"{runs:,.0f}",
                     f"**{runs / design.LOOKS[-1]:.2f}x**", "PASS" if row_ok else "FAIL"])
    return rows, ok


def audit_rows(names, fixed_names):
    rows, total_sequential, total_fixed = [], 0.0, {}
    for name in names:
        start = time.perf_counter()
        result = design.sequential_audit(default_audit_case(name), random_state=11,
                                         minimum=design.long_audit_minimum(name))
        seconds = time.perf_counter() - start
        total_sequential += seconds
        fixed = ""
        if name in fixed_names:
            start = time.perf_counter()
            baseline = audit_registered(name, n_runs=design.LOOKS[-1], random_state=11)
            total_fixed[name] = (time.perf_counter() - start, seconds)
            fixed = (f"{total_fixed[name][0]:.1f} s ({'passed' if baseline.passed else 'FAILED'}); ratio "
                     f"**{seconds / total_fixed[name][0]:.2f}x**")
        rows.append([name, f"{result.n_runs:,}", "passed" if result.passed else "VIOLATION",
                     f"{result.epsilon_lower_bound:.3f}", f"{result.loss_upper_bound:.3f}", f"{seconds:.1f}", fixed])
        print(f"  {name}: {result.n_runs} runs, {seconds:.1f} s {fixed}", file=sys.stderr, flush=True)
    return rows, total_sequential, total_fixed


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="runs",
                                quick_extra="the design of three rows with 2,000 draws, no fits; ")
    parser.add_argument("--fixed", default="DPThresholdOptimizer,DPExponentiatedGradient",
                        help="rows whose fixed 5,000-run audit is timed in the same run (comma-separated)")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=1)
    names = [entry.name for entry in registry.entries()]
    if args.quick:
        names = ["DPThresholdOptimizer", "DPExponentiatedGradient", "DPGridSearch"]
    n_sim = 2000 if args.quick else 20000
    lines = ["# Long audits in looks against the fixed 5,000-run audit", "",
             _common.machine_header(["numpy", "scipy", "scikit-learn", "diffprivlib"], "quick" if args.quick else "full"),
             _common.source_state(["tests/sequential_audit.py", "fairlearn_dp/audit/_audit.py",
                                   "fairlearn_dp/audit/_bounds.py"]), "",
             f"Looks {', '.join(f'{n:,}' for n in design.LOOKS)} runs per neighbour; level {design.ALPHA} "
             f"(early looks {design.EARLY_ALPHA} each); early pass at most {design.TOTAL_EARLY_BETA} for a violation of "
             f"Delta or more; Delta: the fixed test's power {design.DESIGN_POWER}. {n_sim:,} simulated draws.", "",
             "## Design (binomial counts, no fits)", ""]
    rows, ok = design_rows(names, n_sim)
    lines += markdown_table(
        ["row", "p / p'", "epsilon", "delta", "minimum", "Delta", "power, fixed (exact)", "power, in looks",
         "false violation, fixed (exact)", "false violation, in looks", "runs, exact mechanism",
         "runs / 5,000 (baseline)", "check"], rows).splitlines()
    if not args.quick:
        fixed_names = [name for name in args.fixed.split(",") if name]
        audit_table, total, fixed = audit_rows(names, fixed_names)
        lines += ["", "## Audits (fits, seed 11)", ""]
        lines += markdown_table(["row", "runs per neighbour", "decision", "lower bound", "upper bound",
                                         "wall (s)", "fixed 5,000-run audit, same run"], audit_table).splitlines()
        lines += ["", f"All rows in looks: {total:.0f} s. Rows timed both ways: " + "; ".join(
            f"{name} {pair[1]:.1f} s against {pair[0]:.1f} s" for name, pair in fixed.items()) + "."]
        ok &= all(row[2] == "passed" for row in audit_table)
    report = "\n".join(lines) + "\n"
    return _common.finish(report, None if args.quick else args.output, "bench_sequential_audit", ok)


if __name__ == "__main__":
    sys.exit(main())
