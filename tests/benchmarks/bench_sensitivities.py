"""Benchmark: the accuracy the tightened record-unit sensitivities of issue 37 buy, before and after.

What is measured
----------------
Issue 37 tightens the noise of four record-unit releases (the Gram release of ``DPExponentiatedGradient``'s statistics
game, stage 1 of the group-budget estimators, ``ExponentialMechanismFairClassifier``'s selection, GerryFair's early
stop and spend). This script measures the classifiers whose noise changes, on the same splits and seeds before and
after the change, with only public estimator APIs (so it runs unchanged on both trees):

- **constant** and **Fairlearn** (``ExponentiatedGradient(LogisticRegression(), DemographicParity())``): the
  non-private references, measured in the same run (they must not move between the two runs);
- **DPEG record**: ``DPExponentiatedGradient(LogisticRegression(), DemographicParity(), privacy_unit="record",
  row_norm_bound=C)``, ``C`` the setting's public L2 row bound;
- **EMFC**: ``ExponentialMechanismFairClassifier(linear_threshold_hypotheses(d, n_directions=64, n_thresholds=16,
  feature_bound=U, random_state=0))`` on the first 3,500 training rows, as ``bench_usefulness.py`` runs it (``U``
  the public bound on ``|x_j|``: 1 there, ``C / sqrt(d)`` in the scaled regimes, so the thresholds span the data);
- **GerryFair**: ``DPGerryFairClassifier(C=10, gamma=0.01, max_iters=10, feature_norm_bound=<the L1 bound>)``, as
  ``bench_usefulness.py`` runs it (scored on demographic parity, which it does not target);
- **GroupBudget**: ``DPGroupBudgetClassifier(epsilon=eps, data_bound=U)`` (the defaults otherwise), and in the
  small-n setting also **GroupBudget ρ=1** (``rho=1``, the issue's case; its ε column is the ``(ε, δ = 1e-6)``
  the accountant is charged, ``1 + 2 sqrt(ln 1e6)``). The column "stage 1 fell back" counts the fits whose
  ``stage1_fallback_`` is set (stage 1 gave equal shares).

Settings: **Adult** by sex (104 features, C = sqrt(11)), **Law School** (C = sqrt(2), d = 2), the **synthetic
centre** (10,000 rows, 20 features, C = sqrt(20)) and **synthetic rows=1000** of ``bench_usefulness.py`` (its
loaders, imported); two small-C regimes, the synthetic centre with every feature multiplied by the public factor
``C / sqrt(20)`` so that the row bound is **C = 0.5** and **C = 1** (x in [0, C/sqrt(d)]^d); and the **small-n**
setting of the group-budget issue: the synthetic generator (the centre's group share and signal) with 2 features and
172 rows, so that the 70/30 split fits on 120 rows, with 20 seeds (its test split has 52 rows). Two features, because
in a probe before issue 37 (120 generated rows, ρ = 1, seeds 0-19) stage 1 fell back in 7, 18 and 20 of 20 fits for
d = 1, 2 and 5 (and in 5, 14 and 20 of 20 at ρ = 4, i.e. with stage 1's noise halved): d = 2 is where a tighter Gram
bound can show. Each seed is a 70/30 ``train_test_split(random_state=seed)`` and seeds every fit; epsilon in
{0.5, 1, 2}; 5 seeds (0-4). No subsampling beyond EMFC's 3,500 rows.

Per setting, epsilon and method the report gives mean ± sd of the test accuracy and of the test demographic-parity
difference, the gain over the constant (accuracy − constant's accuracy, means over the seeds), that gain as a share
of Fairlearn's gain, the fits that chose a constant (``constant_choice_``), that fell back in stage 1 and that
warned. ``--compare`` reads ``bench_sensitivities_before.csv`` and ``_after.csv`` and writes
``bench_sensitivities.md``: per cell before, after and after − before with two standard errors, paired (the sd of
the per-seed changes over sqrt(seeds): both runs fit the same splits with the same seeds, and a run is bit-for-bit
reproducible) and unpaired (``sqrt(sd_b^2 / n_b + sd_a^2 / n_a)``); per method the mean accuracy change over the
cells, the cells where after exceeds before (or falls below it) by more than 2 paired SE (and by more than 2
unpaired SE), and the mean gain over the constant before and after.

Run (from this folder, ``tests/benchmarks``; the full mode, 720 fits, took 4 minutes on 1 worker of the shared
2-CPU machine, a third of it Fairlearn on Adult; the quick mode a few seconds)::

    nice -n 10 ../../.venv/bin/python bench_sensitivities.py --tag before --n-jobs 1   # main before issue 37
    nice -n 10 ../../.venv/bin/python bench_sensitivities.py --tag after --n-jobs 2    # after the merge
    ../../.venv/bin/python bench_sensitivities.py --compare                             # both CSVs -> the table
    ../../.venv/bin/python bench_sensitivities.py --quick                               # smoke: seed 0, no file

Every fit runs under ``threadpoolctl.threadpool_limits(1)``; the exit status is non-zero only when a fit fails (or,
with ``--compare``, when a results file is missing).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
import bench_usefulness as usefulness  # noqa: E402  (its loaders and fits, reused)
import numpy as np
import pandas as pd

EPSILONS = (0.5, 1.0, 2.0)
SEEDS = 5
SMALL_SEEDS = 20
RESULTS = Path(__file__).resolve().parent / "results"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "fairlearn", "diffprivlib", "joblib")
TIMED_SOURCES = ("fairlearn_dp/reductions/_statistics_game.py", "fairlearn_dp/reductions/_exponentiated_gradient.py",
                 "fairlearn_dp/reductions/_exponential_mechanism_classifier.py", "fairlearn_dp/reductions/_gerryfair.py",
                 "fairlearn_dp/reductions/_group_budget.py", "fairlearn_dp/privacy/_selection.py")
REFERENCE = ("constant", "Fairlearn")
PRIVATE = ("DPEG record", "EMFC", "GerryFair", "GroupBudget")
RHO_METHOD = "GroupBudget ρ=1"
RHO, RHO_DELTA = 1.0, 1e-6
RHO_EPSILON = RHO + 2 * math.sqrt(RHO * math.log(1 / RHO_DELTA))      # the (epsilon, delta) the accountant is charged
SCALED = {"synthetic centre C=0.5": 0.5, "synthetic centre C=1": 1.0}
SMALL = "synthetic n=120 d=2"
SMALL_PARAMS = {"n": 172, "d": 2, "share": 0.2, "signal": 3.0}              # 172 rows: the 70/30 split fits on 120
SETTINGS = ("adult sex", "law_school", "synthetic centre", "synthetic n=1000", *SCALED, SMALL)
QUICK_SETTINGS = ("synthetic n=1000", "synthetic centre C=1", SMALL)


# ------------------------------------------------------------------------------------------------------ data
def load(name):
    """``(X, y, a, groups, l2, l1, U)``: the L2 and L1 row bounds and the bound ``U`` on ``|x_j|`` (all public)."""
    if name in SCALED:
        X, y, a, groups, _, _, _ = usefulness.load(usefulness.synthetic_name())
        d = X.shape[1]
        factor = SCALED[name] / math.sqrt(d)                        # a public map: x in [0, C / sqrt(d)]^d
        return X * factor, y, a, groups, SCALED[name], d * factor, factor
    if name == SMALL:
        X, y, a, groups = usefulness._synthetic(**SMALL_PARAMS)
        return X, y, a, groups, math.sqrt(X.shape[1]), float(X.shape[1]), 1.0
    X, y, a, groups, l2, l1, _ = usefulness.load(name)
    return X, y, a, groups, l2, l1, 1.0


def split(name, seed):
    """A seed's 70/30 split of a setting, in the dict :mod:`bench_usefulness`'s fits read (plus ``bound``: U)."""
    from sklearn.model_selection import train_test_split

    X, y, a, groups, l2, l1, bound = load(name)
    X_train, X_test, y_train, y_test, a_train, a_test = train_test_split(X, y, a, test_size=0.3, random_state=seed)
    return {"X_train": X_train, "X_test": X_test, "y_train": y_train, "y_test": y_test, "a_train": a_train, "a_test": a_test,
                "groups": groups, "l2": l2, "l1": l1, "numeric": X.shape[1], "bound": bound}


# ----------------------------------------------------------------------------------------------------- fits
def _emfc(data, job, accountant):
    from fairlearn_dp.reductions import ExponentialMechanismFairClassifier, linear_threshold_hypotheses

    rows = usefulness.EMFC_ROWS
    X, y, a = data["X_train"][:rows], data["y_train"][:rows], data["a_train"][:rows]
    hypotheses = linear_threshold_hypotheses(X.shape[1], n_directions=64, n_thresholds=16,
                                             feature_bound=data["bound"], random_state=0)
    model = ExponentialMechanismFairClassifier(hypotheses, epsilon=job["epsilon"], groups=data["groups"],
                                               random_state=job["seed"], accountant=accountant)
    model.fit(X, y, sensitive_features=a)
    return model.predict(data["X_test"]), model, len(X), job["epsilon"]


def _group_budget(data, job, accountant):
    from fairlearn_dp.reductions import DPGroupBudgetClassifier

    budget = {"rho": RHO, "delta": RHO_DELTA} if job["method"] == RHO_METHOD else {"epsilon": job["epsilon"]}
    model = DPGroupBudgetClassifier(**budget, data_bound=data["bound"], groups=data["groups"],
                                    random_state=job["seed"], accountant=accountant)
    model.fit(data["X_train"], data["y_train"], sensitive_features=data["a_train"])
    return model.predict(data["X_test"]), model, len(data["X_train"]), job["epsilon"]


FITS = {"constant": usefulness._constant, "Fairlearn": usefulness._fairlearn, "DPEG record": usefulness._dpeg,
        "EMFC": _emfc, "GerryFair": usefulness._gerryfair, "GroupBudget": _group_budget, RHO_METHOD: _group_budget}


def _flag(model, name, test):
    """``test(model.<name>)`` as a bool, or None when the model (or its tree) has no such attribute."""
    if model is None or not hasattr(model, name):
        return None
    return bool(test(getattr(model, name)))


def fit_predict(data, method, setting, seed, epsilon=math.inf):
    """One fit on a seed's split; a result row (``error`` set, and no metrics, when the fit raised)."""
    from fairlearn.metrics import demographic_parity_difference
    from threadpoolctl import threadpool_limits

    from fairlearn_dp.privacy import BudgetAccountant

    job = {"method": method, "seed": seed, "epsilon": epsilon}
    start = time.perf_counter()
    error = ""
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            pred, model, n_fit, _ = FITS[method](data, job, BudgetAccountant())
        except Exception as exc:                     # reported as a failed fit, the run goes on
            error = f"{type(exc).__name__}: {exc}"[:200]
    row = {"setting": setting, "method": method, "seed": seed, "epsilon": epsilon, "seconds": time.perf_counter() - start,
               "n_train": len(data["X_train"]), "error": error}
    if error:
        return row
    pred = np.asarray(pred).astype(int)
    return dict(row, n_fit=n_fit, accuracy=float(np.mean(pred == data["y_test"])),
                difference=float(demographic_parity_difference(data["y_test"], pred,
                                                               sensitive_features=data["a_test"])),
                warned=usefulness._warned(caught), constant_output=bool(np.all(pred == pred[0])),
                chose_constant=_flag(model, "constant_choice_", lambda c: c.is_constant),
                fell_back=_flag(model, "stage1_fallback_", lambda f: f is not None))


def make_jobs(settings, seeds, epsilons, small_seeds):
    """Every fit, as keyword arguments of :func:`fit_predict` (without the data)."""
    jobs = []
    for setting in settings:
        for seed in range(small_seeds if setting == SMALL else seeds):
            jobs += [{"method": m, "setting": setting, "seed": seed} for m in REFERENCE]
            jobs += [{"method": m, "setting": setting, "seed": seed, "epsilon": e} for e in epsilons for m in PRIVATE]
            if setting == SMALL:
                jobs.append({"method": RHO_METHOD, "setting": setting, "seed": seed, "epsilon": RHO_EPSILON})
    return jobs


def run_batch(jobs):
    """The jobs of one (setting, seed), on one split."""
    data = split(jobs[0]["setting"], jobs[0]["seed"])
    return [fit_predict(data, **job) for job in jobs]


def run_jobs(jobs, n_jobs):
    """All jobs, batched by (setting, seed) over ``n_jobs`` workers; rows in the order of ``jobs``."""
    return _common.run_batched(jobs, lambda job: (job["setting"], job["seed"]), run_batch, n_jobs)


# ------------------------------------------------------------------------------------------------ reporting
def _count(values):
    """``"k of n"`` of a flag over the fits, or ``n/a`` when no fit has the flag."""
    known = [bool(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return f"{sum(known)} of {len(known)}" if known else "n/a"


def summarise(frame):
    """Per (setting, method, epsilon): mean, sd and count of accuracy and DP difference, the gains and counts."""
    ok = frame[frame.error.fillna("") == ""]
    means = ok.groupby(["setting", "method"]).accuracy.mean()
    out = []
    for (setting, method, epsilon), group in ok.groupby(["setting", "method", "epsilon"], sort=False):
        constant = means.get((setting, "constant"), math.nan)
        gain = group.accuracy.mean() - constant
        reference = means.get((setting, "Fairlearn"), math.nan) - constant
        out.append({"setting": setting, "method": method, "epsilon": epsilon, "fits": len(group),
                        "accuracy_mean": group.accuracy.mean(), "accuracy_sd": _sd(group.accuracy),
                        "difference_mean": group.difference.mean(), "difference_sd": _sd(group.difference),
                        "gain": gain, "gain_share": gain / reference if reference > 0.005 else math.nan,
                        "chose": _count(group.chose_constant), "fell_back": _count(group.fell_back),
                        "warned": int(group.warned.astype(bool).sum()), "seconds": group.seconds.mean()})
    return pd.DataFrame(out)


def _sd(values):
    return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


def _eps(epsilon):
    if math.isinf(epsilon):
        return "—"
    return f"ρ = {RHO:g} (ε {epsilon:.2f})" if math.isclose(epsilon, RHO_EPSILON, rel_tol=1e-5) else f"{epsilon:g}"


def _order(part):
    """The rows of one setting: references first, then by epsilon and method."""
    rank = {m: i for i, m in enumerate((*REFERENCE, *PRIVATE, RHO_METHOD))}
    keys = part.assign(_e=part.epsilon.where(np.isfinite(part.epsilon), -1.0), _m=part.method.map(rank))
    return keys.sort_values(["_e", "_m"]).drop(columns=["_e", "_m"])


def setting_tables(summary):
    """One table per setting: every method at every epsilon."""
    lines = []
    for setting in [s for s in SETTINGS if (summary.setting == s).any()]:
        lines += [f"### {setting}", "", "| ε | method | accuracy | DP difference | accuracy − constant | share of "
                  "Fairlearn's gain | chose constant | stage 1 fell back | warned |", "|---|---|---|---|---|---|---|---|---|"]
        for r in _order(summary[summary.setting == setting]).itertuples():
            share = "" if math.isnan(r.gain_share) else f"{r.gain_share:.2f}"
            lines.append(f"| {_eps(r.epsilon)} | {r.method} | {r.accuracy_mean:.3f} ± {r.accuracy_sd:.3f} | "
                         f"{r.difference_mean:.3f} ± {r.difference_sd:.3f} | {r.gain:+.3f} | {share} | {r.chose} | "
                         f"{r.fell_back} | {r.warned} of {r.fits} |")
        lines.append("")
    return lines


def tag_report(frame, args, elapsed, argv):
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    summary = summarise(frame)
    errors = frame[frame.error.fillna("") != ""]
    sources = tuple(p for p in TIMED_SOURCES if (_common.REPOSITORY / p).exists())
    lines = [f"# bench_sensitivities ({args.tag or 'quick'}): the record-unit classifiers whose noise issue 37 "
             "tightens", "", _common.machine_header(PACKAGES, mode), _common.source_state(sources), "",
             f"{len(frame)} fits in {elapsed / 60:.1f} min on {args.n_jobs} joblib worker(s) (threadpool_limits(1) "
             f"per fit; {frame.seconds.sum() / 60:.1f} CPU-minutes of fitting). Seeds 0-{args.seeds - 1} "
             f"({args.small_seeds} in {SMALL}). Methods and settings: the script's docstring. Cells: mean ± sd "
             "over the seeds; accuracy − constant and the share of Fairlearn's gain from the means.", ""]
    lines += [f"- ERROR: {r.setting}, seed {r.seed}, ε = {r.epsilon:g}, {r.method}: {r.error}"
              for r in errors.itertuples()]
    return lines + ["", *setting_tables(summary)]


# --------------------------------------------------------------------------------------------------- compare
def compare(before, after):
    """Per cell: before and after summaries side by side, the change and its standard errors: unpaired (``se``)
    and paired over the seeds both runs share (``se_paired``, the sd of the per-seed changes over sqrt(pairs); the
    two runs fit the same splits with the same seeds, so the paired one is the sharper)."""
    keys = ["setting", "method", "epsilon"]
    merged = summarise(before).merge(summarise(after), on=keys, suffixes=("_b", "_a"))
    merged["change"] = merged.accuracy_mean_a - merged.accuracy_mean_b
    merged["se"] = np.sqrt(merged.accuracy_sd_b ** 2 / merged.fits_b + merged.accuracy_sd_a ** 2 / merged.fits_a)
    ok = [f[f.error.fillna("") == ""][[*keys, "seed", "accuracy"]] for f in (before, after)]
    pairs = ok[0].merge(ok[1], on=[*keys, "seed"], suffixes=("_b", "_a"))
    change = (pairs.accuracy_a - pairs.accuracy_b).groupby([pairs[k] for k in keys])
    paired = (change.std(ddof=1) / np.sqrt(change.count())).rename("se_paired").reset_index()
    return merged.merge(paired, on=keys, how="left")


def method_summary(merged):
    """Per method: cells, mean accuracy change, cells where after is above / below before by more than 2 paired SE,
    above by more than 2 unpaired SE, the mean gain over the constant before and after, and the mean change of the
    DP difference."""
    lines = ["| method | cells | mean accuracy change | after > before by > 2 SE | after < before by > 2 SE | "
             "after > before by > 2 unpaired SE | mean gain over constant before → after | mean DP-difference change |",
             "|---|---|---|---|---|---|---|---|"]
    for method in (*REFERENCE, *PRIVATE, RHO_METHOD):
        part = merged[merged.method == method]
        if part.empty:
            continue
        up, down = int((part.change > 2 * part.se_paired).sum()), int((part.change < -2 * part.se_paired).sum())
        unpaired = int((part.change > 2 * part.se).sum())
        dp = (part.difference_mean_a - part.difference_mean_b).mean()
        lines.append(f"| {method} | {len(part)} | {part.change.mean():+.4f} | {up} | {down} | {unpaired} | "
                     f"{part.gain_b.mean():+.4f} → {part.gain_a.mean():+.4f} | {dp:+.4f} |")
    return lines


def compare_lines(merged):
    lines = []
    for setting in [s for s in SETTINGS if (merged.setting == s).any()]:
        lines += [f"### {setting}", "", "| ε | method | accuracy before | after | after − before (SE paired / unpaired) | DP difference "
                  "before | after | gain over constant before / after | chose constant before / after | stage 1 fell back "
                  "before / after |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in _order(merged[merged.setting == setting]).itertuples():
            mark = " ↑" if r.change > 2 * r.se_paired else (" ↓" if r.change < -2 * r.se_paired else "")
            lines.append(f"| {_eps(r.epsilon)} | {r.method} | {r.accuracy_mean_b:.3f} ± {r.accuracy_sd_b:.3f} | "
                         f"{r.accuracy_mean_a:.3f} ± {r.accuracy_sd_a:.3f} | {r.change:+.3f} ({r.se_paired:.3f} / {r.se:.3f}){mark} | "
                         f"{r.difference_mean_b:.3f} | {r.difference_mean_a:.3f} | {r.gain_b:+.3f} / {r.gain_a:+.3f} | "
                         f"{r.chose_b} / {r.chose_a} | {r.fell_back_b} / {r.fell_back_a} |")
        lines.append("")
    return lines


def run_compare(results):
    paths = {tag: results / f"bench_sensitivities_{tag}.csv" for tag in ("before", "after")}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        print(f"bench_sensitivities: FAILED - missing {', '.join(missing)}", file=sys.stderr)
        return 1
    frames = {tag: pd.read_csv(path, dtype={"error": str}) for tag, path in paths.items()}
    for frame in frames.values():
        frame["error"] = frame["error"].fillna("")          # an empty cell: no error
    merged = compare(frames["before"], frames["after"])
    lines = ["# bench_sensitivities: accuracy before and after issue 37's tightened sensitivities", "",
             f"From `{paths['before'].name}` and `{paths['after'].name}` (their `.md` files give the machine, the "
             "commit and the run time). Change: after − before of the mean test accuracy. SE: paired, sd of the per-seed "
             "changes / sqrt(seeds) (both runs fit the same splits with the same seeds); unpaired, sqrt(sd_b²/n_b + "
             "sd_a²/n_a). ↑ / ↓: beyond 2 paired SE. The references (constant, Fairlearn) must not move.",
             "", "## Summary per method (over the settings × ε cells)", "", *method_summary(merged), "",
             "## Per setting", "", *compare_lines(merged)]
    return _common.finish("\n".join(lines), results / "bench_sensitivities.md", "bench_sensitivities", True)


# ----------------------------------------------------------------------------------------------------- main
def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tag", choices=("before", "after"), default=None,
                        help="write results/bench_sensitivities_<tag>.md and .csv")
    parser.add_argument("--compare", action="store_true",
                        help="read the before and after CSVs, write results/bench_sensitivities.md (no fits)")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {', '.join(QUICK_SETTINGS)}; seed 0, epsilon 1, no file")
    parser.add_argument("--seeds", type=int, default=None, help=f"seeds 0..N-1 (default {SEEDS}, 1 with --quick)")
    parser.add_argument("--settings", nargs="+", default=None, choices=SETTINGS, metavar="SETTING",
                        help=f"run only these settings (default all: {', '.join(SETTINGS)})")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"results folder (default {RESULTS})")
    args = parser.parse_args(argv)
    if not (args.compare or args.quick or args.tag):
        parser.error("give --tag before|after, --compare or --quick")
    if args.compare and (args.quick or args.tag):
        parser.error("--compare runs no fits: give it alone")
    if args.seeds is None:
        args.seeds = 1 if args.quick else SEEDS
    if args.seeds < 1 or args.n_jobs < 1:
        parser.error("--seeds and --n-jobs must be at least 1")
    args.small_seeds = args.seeds if args.quick else max(args.seeds, SMALL_SEEDS)
    if args.settings is None:
        args.settings = list(QUICK_SETTINGS if args.quick else SETTINGS)
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.compare:
        return run_compare(args.results)
    warnings.simplefilter("ignore", FutureWarning)
    epsilons = (1.0,) if args.quick else EPSILONS
    jobs = make_jobs(args.settings, args.seeds, epsilons, args.small_seeds)
    print(f"bench_sensitivities: {len(jobs)} fits on {args.n_jobs} worker(s) ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    frame = pd.DataFrame(run_jobs(jobs, args.n_jobs))
    elapsed = time.perf_counter() - start
    output = None
    if args.tag:
        output = args.results / f"bench_sensitivities_{args.tag}.md"
        output.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(output.with_suffix(".csv"), index=False, float_format="%.6g")
    report = "\n".join(tag_report(frame, args, elapsed, argv))
    failed = int((frame.error != "").sum())
    return _common.finish(report, output, "bench_sensitivities", failed == 0, f"{failed} fit(s) raised an error.")


if __name__ == "__main__":
    sys.exit(main())
