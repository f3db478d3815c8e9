"""Benchmark: DPExponentiatedGradient (Jagielski et al. 2019, Alg. 3) against Fairlearn's ExponentiatedGradient.

What is measured
----------------
On UCI Adult (``fetch_adult()``, label ``class == '>50K'``, sensitive feature ``sex``) a fixed subsample of
``N_ROWS`` rows (stratified on sex and label, seed ``SEED``) with 42 features: the numeric ``age``,
``education-num``, ``capital-gain``, ``capital-loss``, ``hours-per-week`` min-max scaled to [-1, 1] (bounds taken from
the full data: a benchmark, not a DP release) and one-hot ``workclass``, ``marital-status``, ``occupation``,
``relationship`` (missing values as their own category; 0/1 columns). ``sex`` and ``race`` are not features. In the
same run the script times

1. Fairlearn's ``ExponentiatedGradient(LogisticRegression(), c, eps=0.1, max_iter=50)`` (``B = 1/eps = 10``; default
   ``nu``, so it stops when its duality gap is small) for ``c`` in {``EqualizedOdds(difference_bound=0.02)``,
   ``DemographicParity(difference_bound=0.02)``};
2. ``DPExponentiatedGradient(LogisticRegression(), c, epsilon=inf, eps=0.1, max_iter=50,
   groups=["Female", "Male"])``: the same game with the same best response (Fairlearn's reduction to weighted
   classification), no noise;
3. the private oracles at ``epsilon=10, delta=1e-7`` (``min_count=None``: the private cell-count bound; at
   ``epsilon=1`` its margin of 322 rows makes the lower bound on the smallest equalized-odds cell, ~360 rows, fall
   below 2 in some fits, which then raise; the per-iteration time hardly depends on epsilon), ``max_iter=50``,
   a fresh ``diffprivlib.BudgetAccountant`` per fit and ``random_state=None`` (the secure generator users run):
   ``oracle="regression"`` (``feature_bound=1``) and ``oracle="exponential"`` over
   ``linear_threshold_hypotheses(42, n_directions=64, n_thresholds=16, random_state=0)`` (2,370 hypotheses).

Every fit runs under ``threadpoolctl.threadpool_limits(1)`` (both libraries): SciPy 1.17's L-BFGS-B calls BLAS on tiny
vectors, and a BLAS thread pool makes each ``LogisticRegression`` fit many times slower on a busy 2-core machine.
Every timing is the median of 5 fits (3 with ``--quick``) after one untimed warm-up fit of each estimator; the
Fairlearn and DP fits alternate so that drift in machine load hits both.

Per-iteration times
-------------------
- Fairlearn: fit time / ``n_oracle_calls_`` (**the goal's unit**). One iteration of Algorithm 3 makes exactly one
  best-response (oracle) call and nothing else; one Fairlearn iteration makes one best response for the play *plus*
  up to four more inside ``eval_gap`` (at multiples 1, 2, 5, 10 of the average multipliers) and a linear program, so
  ``fit / (last_iter_ + 1)`` would charge Fairlearn 3-4 oracle calls per "iteration" and flatter ours by that
  factor. Both are reported; ``fit / (last_iter_ + 1)`` is in the column "Fairlearn s / outer iteration".
- Ours, exact oracle (``epsilon=inf``): Fairlearn's own ``fit`` (our class subclasses it since the drop-in issue), so
  fit time / its own ``n_oracle_calls_``. Ours, private oracles: fit time / ``n_iter_`` (= T); the fit's one-off work (the moment's ``load_data``, the private
  cell count, the exponential oracle's prediction matrix) is included.

Goal (from the issue): our per-iteration time with ``oracle="estimator"`` at most 1.3x Fairlearn's time per oracle
call, in every row. The private oracles' per-iteration times are reported, not checked.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_reductions.py            # full run, about a minute
    .venv/bin/python tests/benchmarks/bench_reductions.py --quick    # smoke run: 3 repeats, no file

The full run prints a GitHub-markdown report and writes it to ``tests/benchmarks/results/bench_reductions.md``;
``--quick`` only prints unless ``--output`` is given. The exit status is non-zero if a goal fails.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
import warnings
from pathlib import Path

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
import numpy as np
import pandas as pd
from fairlearn.reductions import DemographicParity, EqualizedOdds, ExponentiatedGradient
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from fairlearn_dp.datasets import fetch_adult  # noqa: E402
from fairlearn_dp.privacy import BudgetAccountant
from fairlearn_dp.reductions import (  # noqa: E402
    DPExponentiatedGradient,
    JagielskiExponentiatedGradient,
    linear_threshold_hypotheses,
)

SEED = 20240721
N_ROWS = 10_000
GOAL_RATIO = 1.3                # ours s / iteration  vs  Fairlearn s / oracle call
MAX_ITER = 50
BOUND_B = 10.0                  # Fairlearn: eps = 1 / B
DIFFERENCE_BOUND = 0.02
EPSILON = 10.0                  # private oracles
DELTA = 1e-7
GROUPS = ["Female", "Male"]
CONSTRAINTS = (("equalized_odds", EqualizedOdds), ("demographic_parity", DemographicParity))
NUMERIC = ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL = ("workclass", "marital-status", "occupation", "relationship")
HYPOTHESES = {"n_directions": 64, "n_thresholds": 16, "random_state": 0}
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_reductions.md"
TIMED_SOURCES = ("fairlearn_dp/reductions/_exponentiated_gradient.py", "fairlearn_dp/reductions/_statistics_game.py", "fairlearn_dp/privacy/_exponential.py",
                 "fairlearn_dp/reductions/_hypotheses.py", "fairlearn_dp/privacy/_release.py",
                 "fairlearn_dp/privacy/_composition.py", "fairlearn_dp/_utils/_validation.py", "fairlearn_dp/reductions/_eg_params.py", "fairlearn_dp/reductions/_algorithm3.py", "fairlearn_dp/reductions/_game_mixture.py")


# ------------------------------------------------------------------------------------------------------ data
def load_adult(n_rows=N_ROWS):
    """Features in [-1, 1] (numeric min-max scaled, one-hot 0/1), 0/1 labels and ``sex``, on ``n_rows`` rows."""
    data = fetch_adult(as_frame=True)
    y = (data.target.astype(str) == ">50K").astype(int).to_numpy()
    sex = data.sensitive_features["sex"].astype(str).to_numpy()
    numeric = data.data[list(NUMERIC)].to_numpy(dtype=float)
    low, high = numeric.min(axis=0), numeric.max(axis=0)
    numeric = 2 * (numeric - low) / (high - low) - 1
    categorical = data.data[list(CATEGORICAL)].astype(str).fillna("missing")
    onehot = OneHotEncoder(sparse_output=False, dtype=float).fit_transform(categorical)
    X = np.hstack([numeric, onehot])
    if n_rows < len(y):
        strata = pd.Series(sex).astype(str) + "|" + pd.Series(y).astype(str)
        rows, _ = train_test_split(np.arange(len(y)), train_size=n_rows, stratify=strata, random_state=SEED)
        rows = np.sort(rows)
        X, y, sex = X[rows], y[rows], sex[rows]
    if set(np.unique(sex)) != set(GROUPS):
        raise RuntimeError(f"groups in the data {sorted(np.unique(sex))} differ from the public list {GROUPS}.")
    return X, y, sex


def min_cell(y, a):
    """Smallest (group, label) count: the cell that drives the equalized-odds sensitivities."""
    return int(min(np.sum((a == g) & (y == label)) for g in GROUPS for label in (0, 1)))


# ---------------------------------------------------------------------------------------------------- timing
def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def time_fits(makers, fit, repeats):
    """Median fit time per maker (fits alternate between makers, after one untimed warm-up each) and last fits."""
    with threadpool_limits(limits=1):
        for make in makers.values():
            fit(make())
        times = {key: [] for key in makers}
        fitted = {}
        for _ in range(repeats):
            for key, make in makers.items():
                estimator = make()                               # construction (and a fresh accountant) not timed
                seconds, fitted[key] = timed(lambda: fit(estimator))
                times[key].append(seconds)
    return {key: statistics.median(values) for key, values in times.items()}, times, fitted


def quality(model, X, y, a, events):
    """Training error and largest between-group gap of E[h | event] of a randomized classifier (a sanity check)."""
    p = np.asarray(model._pmf_predict(X))[:, 1]
    error = float(np.mean(np.where(y == 1, 1 - p, p)))
    gaps = []
    for label in events:
        mask = np.ones_like(y, dtype=bool) if label is None else (y == label)
        means = [p[mask & (a == g)].mean() for g in GROUPS]
        gaps.append(max(means) - min(means))
    return error, max(gaps)


def estimator_row(X, y, a, name, moment, repeats):
    """Fairlearn vs ours with the exact oracle (epsilon = inf), same base estimator and B."""
    makers = {
        "fairlearn": lambda: ExponentiatedGradient(LogisticRegression(), moment(difference_bound=DIFFERENCE_BOUND),
                                                   eps=1 / BOUND_B, max_iter=MAX_ITER),
        "ours": lambda: DPExponentiatedGradient(LogisticRegression(), moment(difference_bound=DIFFERENCE_BOUND),
                                                epsilon=math.inf, eps=1 / BOUND_B, max_iter=MAX_ITER, groups=GROUPS),
    }
    medians, raw, fitted = time_fits(makers, lambda model: model.fit(X, y, sensitive_features=a), repeats)
    reference, ours = fitted["fairlearn"], fitted["ours"]
    if ours.oracle_ != "estimator" or getattr(ours, "mode_", None) != "fairlearn":
        raise RuntimeError(f"{name}: expected Fairlearn's own algorithm at epsilon=inf, got {ours.oracle_}.")
    # At epsilon=inf with an estimator ours *is* Fairlearn's fit (a subclass running its code): it stops when
    # Fairlearn does, so its unit is also one best response (its own n_oracle_calls_).
    # Per-call and per-iteration times from the median fit and the (deterministic) call counts of the last fit.
    calls, iterations = reference.n_oracle_calls_, reference.last_iter_ + 1
    events = (0, 1) if moment is EqualizedOdds else (None,)
    return {"constraint": name, "n": len(y), "fit": medians, "raw": raw, "calls": calls, "iterations": iterations,
                "oracle_seconds": float(np.sum(reference.oracle_execution_times_)), "n_iter": ours.n_oracle_calls_,
                "per_call": medians["fairlearn"] / calls, "per_outer": medians["fairlearn"] / iterations,
                "per_iter": medians["ours"] / ours.n_oracle_calls_,
                "quality": {"fairlearn": quality(reference, X, y, a, events), "ours": quality(ours, X, y, a, events)}}


def private_rows(X, y, a, name, moment, repeats):
    """The private oracles at a finite epsilon with fixed T (per-iteration times; fresh accountant per fit)."""
    hypotheses = linear_threshold_hypotheses(X.shape[1], **HYPOTHESES)
    makers = {oracle: (lambda oracle=oracle: JagielskiExponentiatedGradient(
        moment(difference_bound=DIFFERENCE_BOUND), epsilon=EPSILON, delta=DELTA, bound_B=BOUND_B,
        max_iter=MAX_ITER, oracle=oracle, hypotheses=hypotheses if oracle == "exponential" else None,
        feature_bound=1.0, groups=GROUPS, accountant=BudgetAccountant()))
        for oracle in ("regression", "exponential")}
    medians, raw, fitted = time_fits(makers, lambda model: model.fit(X, y, sensitive_features=a), repeats)
    events = (0, 1) if moment is EqualizedOdds else (None,)
    rows = []
    for oracle, model in fitted.items():
        if model.n_iter_ != MAX_ITER or model.privacy_spent_.epsilon != EPSILON:
            raise RuntimeError(f"{name}/{oracle}: T = {model.n_iter_}, spent {model.privacy_spent_}.")
        rows.append({"constraint": name, "oracle": oracle, "fit": medians[oracle], "raw": raw[oracle], "n_iter": model.n_iter_,
                         "per_iter": medians[oracle] / model.n_iter_, "eps_round": model.epsilon_per_mechanism_,
                         "composition": model.composition_, "min_count": model.min_count_,
                         "n_hypotheses": len(hypotheses) if oracle == "exponential" else None,
                         "quality": quality(model, X, y, a, events)})
    return rows


WHOLE_FIT_GOAL = 1.5             # ours (statistics game, epsilon = 1) whole fit vs Fairlearn's, same T


def whole_fit_rows(X, y, a, name, moment, repeats):
    """Whole-fit time: Fairlearn's ExponentiatedGradient against the statistics game at epsilon=1 (the default
    private mode), same estimator, same B (Fairlearn's eps), same max_iter. Fairlearn stops when its duality gap
    is small; the game stops when its LP value on released values stalls (both count in the time)."""
    makers = {
        "fairlearn": lambda: ExponentiatedGradient(LogisticRegression(), moment(difference_bound=DIFFERENCE_BOUND),
                                                   eps=1 / BOUND_B, max_iter=MAX_ITER),
        "statistics": lambda: DPExponentiatedGradient(LogisticRegression(), moment(difference_bound=DIFFERENCE_BOUND),
                                                      eps=1 / BOUND_B, max_iter=MAX_ITER, epsilon=1.0, delta=1e-5,
                                                      groups=GROUPS, accountant=BudgetAccountant()),
    }
    fit = lambda model: model.fit(X, y, sensitive_features=a)                            # noqa: E731
    medians, raw, fitted = time_fits(makers, fit, repeats)
    events = (None,) if moment is DemographicParity else (0, 1)
    return {"constraint": name, "fairlearn": medians["fairlearn"], "ours": medians["statistics"],
                "ours_rounds": fitted["statistics"].n_iter_, "fairlearn_iterations": fitted["fairlearn"].last_iter_ + 1,
                "ratio": medians["statistics"] / medians["fairlearn"],
                "quality": {k: quality(m, X, y, a, events) for k, m in fitted.items()}}


def whole_fit_table(rows):
    header = ["constraint", "Fairlearn whole fit (s)", "Fairlearn outer iterations", "ours whole fit (s), ε=1",
              "ours rounds played (of T=50)", "ratio", f"goal <= {WHOLE_FIT_GOAL:g}x",
              "train error / violation Fairlearn", "train error / violation ours"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        q_ref, q_ours = row["quality"]["fairlearn"], row["quality"]["statistics"]
        lines.append("| " + " | ".join([
            row["constraint"], f"{row['fairlearn']:.3f}", str(row["fairlearn_iterations"]), f"{row['ours']:.3f}",
            str(row["ours_rounds"]), f"{row['ratio']:.2f}x", "PASS" if row["ratio"] <= WHOLE_FIT_GOAL else "**FAIL**",
            f"{q_ref[0]:.4f} / {q_ref[1]:.4f}", f"{q_ours[0]:.4f} / {q_ours[1]:.4f}"]) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------- report
def machine_header(mode):
    return _common.machine_header(("numpy", "scipy", "pandas", "scikit-learn", "fairlearn", "diffprivlib",
                                   "threadpoolctl"), mode)


def passed(row):
    return row["per_iter"] <= GOAL_RATIO * row["per_call"]


def estimator_table(rows):
    header = ["constraint", "Fairlearn fit (s)", "Fairlearn iterations (last_iter_+1)", "Fairlearn oracle calls",
              "Fairlearn s / oracle call", "of which LogisticRegression.fit", "Fairlearn s / outer iteration",
              "ours fit (s), T=50",
              "ours s / iteration", "ratio ours / Fairlearn per call", "ratio ours / Fairlearn per outer iteration",
              f"goal: <= {GOAL_RATIO:g}x per call", "train error / violation Fairlearn", "train error / violation ours"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        q_ref, q_ours = row["quality"]["fairlearn"], row["quality"]["ours"]
        cells = [row["constraint"], f"{row['fit']['fairlearn']:.3f}", str(row["iterations"]), str(row["calls"]),
                 f"{row['per_call']:.4f}", f"{row['oracle_seconds'] / row['calls']:.4f}",
                 f"{row['per_outer']:.4f}", f"{row['fit']['ours']:.3f}",
                 f"{row['per_iter']:.4f}", f"{row['per_iter'] / row['per_call']:.2f}x",
                 f"{row['per_iter'] / row['per_outer']:.2f}x", "PASS" if passed(row) else "**FAIL**",
                 f"{q_ref[0]:.4f} / {q_ref[1]:.4f}", f"{q_ours[0]:.4f} / {q_ours[1]:.4f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def private_table(rows, estimator_rows):
    by_constraint = {row["constraint"]: row for row in estimator_rows}
    header = ["constraint", "oracle", "fit (s), T=50", "s / iteration", "vs ours exact oracle per iteration",
              "vs Fairlearn per oracle call", "ε per round (rule)", "N (private min cell)",
              "train error / violation"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        reference = by_constraint[row["constraint"]]
        oracle = row["oracle"] + (f" ({row['n_hypotheses']:,} hypotheses)" if row["n_hypotheses"] else "")
        cells = [row["constraint"], oracle, f"{row['fit']:.3f}", f"{row['per_iter']:.4f}",
                 f"{row['per_iter'] / reference['per_iter']:.2f}x", f"{row['per_iter'] / reference['per_call']:.2f}x",
                 f"{row['eps_round']:.4g} ({row['composition']})", f"{row['min_count']:.0f}",
                 f"{row['quality'][0]:.4f} / {row['quality'][1]:.4f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=3, unit="fits")
    parser.add_argument("--n-rows", type=int, default=N_ROWS, help=f"Adult rows used (default {N_ROWS})")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=3)
    if args.n_rows < 100:
        parser.error("--n-rows must be at least 100")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    source = _common.source_state(TIMED_SOURCES)        # right after the imports: the code actually timed
    warnings.simplefilter("ignore", FutureWarning)      # library deprecation chatter; not part of what is timed
    X, y, a = load_adult(args.n_rows)

    estimator_rows, dp_rows, whole_rows = [], [], []
    for name, moment in CONSTRAINTS:
        print(f"Fairlearn vs ours (exact oracle): {name} ({args.repeats} repeats) ...", file=sys.stderr, flush=True)
        estimator_rows.append(estimator_row(X, y, a, name, moment, args.repeats))
        print(f"private oracles: {name} ({args.repeats} repeats) ...", file=sys.stderr, flush=True)
        dp_rows.extend(private_rows(X, y, a, name, moment, args.repeats))
        print(f"whole fits, statistics game: {name} ({args.repeats} repeats) ...", file=sys.stderr, flush=True)
        whole_rows.append(whole_fit_rows(X, y, a, name, moment, args.repeats))

    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    notes = [
        f"Adult (fetch_adult), {len(y)} rows stratified on sex x label (seed {SEED}), {X.shape[1]} features in "
        "[-1, 1] (5 numeric min-max scaled, 4 categoricals one-hot), sensitive feature sex; every fit under "
        f"threadpool_limits(1). Median of {args.repeats} fits after one untimed warm-up each; Fairlearn and DP fits "
        "alternate.",
        f"Exact-oracle rows: Fairlearn ExponentiatedGradient(LogisticRegression(), c(difference_bound="
        f"{DIFFERENCE_BOUND:g}), eps={1 / BOUND_B:g}, max_iter={MAX_ITER}) vs DPExponentiatedGradient(LogisticRegression(), "
        f"same c, epsilon=inf, bound_B={BOUND_B:g}, max_iter={MAX_ITER}). Fairlearn stops early "
        "when its duality gap is below nu; its oracle calls per outer iteration include the eval_gap best responses.",
        "Per-iteration units: ours = fit / n_iter_ (one oracle call per iteration, nothing else); Fairlearn = fit / "
        "n_oracle_calls_ (the goal's unit: one best response each) and, for reference, fit / (last_iter_ + 1). "
        "'of which LogisticRegression.fit' is Fairlearn's own oracle_execution_times_ per call (last fit): the "
        "part of an iteration both libraries spend in the same base-estimator fit.",
        f"Private rows: epsilon={EPSILON:g}, delta={DELTA:g}, min_count=None, max_iter={MAX_ITER}, fresh "
        "BudgetAccountant, random_state=None; exponential oracle over linear_threshold_hypotheses(42, "
        "n_directions=64, n_thresholds=16, random_state=0). Their fit includes the one-off setup (for the "
        "exponential oracle: the n x |H| prediction matrix and its per-constraint sums).",
        f"At epsilon={EPSILON:g} the private lower bound on the smallest (group, event) cell subtracts a margin of "
        f"(2 / (0.1 epsilon)) ln(1 / delta) = {(2 / (0.1 * EPSILON)) * math.log(1 / DELTA):.0f} rows from a noisy "
        f"count (smallest equalized-odds cell here: {min_cell(y, a)} rows, Female with >50K); with the 2T-fold "
        "composition the per-round noise is still large, so these fits are mostly noise as classifiers (see the "
        "error column): the rows are for timing.",
        "Train error / violation (exact, from _pmf_predict; violation = largest between-group gap of the moment's "
        "conditional means) is a sanity check, not a goal: Fairlearn returns its best LP/EG mixture, Algorithm 3 "
        "the uniform average of its T plays.",
    ]
    failures = [row for row in estimator_rows if not passed(row)]
    check_lines = [f"- {'PASS' if passed(row) else 'FAIL'}: {row['constraint']}: ours {row['per_iter']:.4f} s / "
                   f"iteration <= {GOAL_RATIO:g} x Fairlearn {row['per_call']:.4f} s / oracle call "
                   f"(ratio {row['per_iter'] / row['per_call']:.2f})" for row in estimator_rows]
    raw_lines = [f"- {row['constraint']}: Fairlearn fits {', '.join(f'{s:.3f}' for s in row['raw']['fairlearn'])} s; "
                 f"ours {', '.join(f'{s:.3f}' for s in row['raw']['ours'])} s" for row in estimator_rows]
    raw_lines += [f"- {row['constraint']} / {row['oracle']}: {', '.join(f'{s:.3f}' for s in row['raw'])} s"
                  for row in dp_rows]
    report = "\n".join(["# bench_reductions: DPExponentiatedGradient vs Fairlearn ExponentiatedGradient", "",
                        machine_header(mode), source, "",
                        "## Exact oracle (epsilon = inf): time per iteration", "", estimator_table(estimator_rows), "",
                        f"## Private oracles (epsilon = {EPSILON:g}, T = {MAX_ITER})", "",
                        private_table(dp_rows, estimator_rows), "",
                        f"## Whole fit: the statistics game (epsilon = 1, delta = 1e-5) against Fairlearn, T = "
                        f"{MAX_ITER}", "", whole_fit_table(whole_rows), "", *notes, "",
                        f"Goal: ours per iteration within {GOAL_RATIO:g}x of Fairlearn per oracle call, per row:",
                        *check_lines, "", "Raw fit times (s):", *raw_lines, ""])
    _common.publish(report, args.output)
    slow_whole = [row for row in whole_rows if row["ratio"] > WHOLE_FIT_GOAL]
    for row in whole_rows:
        print(f"whole fit {row['constraint']}: ours {row['ours']:.3f} s vs Fairlearn {row['fairlearn']:.3f} s "
              f"(ratio {row['ratio']:.2f}x; goal <= {WHOLE_FIT_GOAL:g}x: {'PASS' if row not in slow_whole else 'FAIL'})",
              file=sys.stderr)
    if failures:
        print(f"bench_reductions: FAILED - slower than {GOAL_RATIO:g}x Fairlearn per oracle call in "
              f"{len(failures)} row(s): " + "; ".join(f"{row['constraint']} "
                                                      f"({row['per_iter'] / row['per_call']:.2f}x)"
                                                      for row in failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
