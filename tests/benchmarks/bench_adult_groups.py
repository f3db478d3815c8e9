"""Benchmark: DPExponentiatedGradient on Adult by sex and by race, both privacy units, against the baselines.

What is measured
----------------
The acceptance table of issue 24: UCI Adult as :func:`fairlearn_dp.datasets.adult_features` gives it (one-hot
over the public codebook, numeric attributes scaled to public bounds; ``sex``, ``race`` and ``fnlwgt`` are not
features), a 70/30 split (``train_test_split(..., test_size=0.3, random_state=seed)``) for each seed, the
sensitive feature ``sex`` (2 groups) or ``race`` (5 groups, two of about 300 training rows), the groups declared
from the public codebook (``sorted(adult_categories()[sensitive])``). For each seed, constraint (demographic
parity, equalized odds) and sensitive feature:

- **constant**: the majority class of the training labels;
- **LR**: scikit-learn's ``LogisticRegression()``, non-private (a reference: public under the attribute unit);
- **Fairlearn**: ``ExponentiatedGradient(LogisticRegression(), DemographicParity())`` (or ``EqualizedOdds()``),
  non-private, Fairlearn's defaults;

and for each ``epsilon`` in {0.5, 1, 2} and privacy unit (``"sensitive_attribute"``, ``"record"``):

- **DPEG**: ``DPExponentiatedGradient(LogisticRegression(), DemographicParity(), epsilon=eps, groups=groups,
  privacy_unit=unit, random_state=seed, accountant=BudgetAccountant())``: Fairlearn's defaults otherwise, what a
  user gets. Under ``"record"`` the row-norm bound is the one ``adult_features`` publishes (``sqrt(11)``, read from
  ``X.attrs``); on a tree whose estimator does not read it yet, the script passes ``row_norm_bound=sqrt(11)``
  explicitly (the report says which);
- **dpl LR**: diffprivlib's ``LogisticRegression(epsilon=eps, data_norm=sqrt(11))`` alone (whole records private),
  with its default ``C=1``; its objective perturbation then leaves coefficients of norm about 350 and saturated
  probabilities;
- **dpl LR + DPTO**: diffprivlib's LR at ``eps/2``, then ``DPThresholdOptimizer(prefit=True,
  predict_method="predict_proba", epsilon=eps/2, privacy_unit=unit)`` with the same constraint (uses the
  sensitive feature at prediction time);
- **dpl LR (C=0.01)** and **dpl LR (C=0.01) + DPTO**: the same with ``C=0.01`` (stronger regularisation, less
  noise in the coefficients), a value chosen on seeds 0-1 of this split: a tuned reference, not a private choice;
- under ``"sensitive_attribute"`` also **LR + DPTO**: the non-private LR (X, y are public there) post-processed by
  ``DPThresholdOptimizer`` at the whole ``eps``.

Columns: test accuracy and the constraint's difference (``fairlearn.metrics.demographic_parity_difference`` or
``equalized_odds_difference`` on the test split, exact, of one randomised prediction with ``random_state=seed``),
mean +- sd over the seeds, and the number of fits that issued a warning (any fairdp category, ``PrivacyWarning``,
``FairnessWarning`` or ``UtilityWarning``, or diffprivlib's ``PrivacyLeakWarning``). Every fit runs under ``threadpoolctl.threadpool_limits(1)``.

Two more tables (full run only): the **frontier** of DPEG on race under ``"record"`` (epsilon in {1, 2, 4, 8} and,
at epsilon = 1, ``max_iter`` in {10, 20, 100}), and the **noise against signal** of each race group at epsilon in
{0.5, 1, 2}: the released statistics' noise sd, its size against a group's training count, and the reliability
``proxy_reliability_`` (the share of the group's direction, or proxy, that is signal) of both units.

Goals (issue 24, Adult by race at epsilon = 1, mean over the seeds): record-level DPEG accuracy >= 0.80 with DP
difference <= 0.08; attribute-level DPEG DP difference <= 0.08 with accuracy within 0.01 of Fairlearn's. They are
reported (MET / NOT MET), and seed by seed (issue 36, item 4: at least 4 of 5 seeds each, with Fairlearn's own
count under the same test as the reference); the exit status is non-zero only when a fit fails.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_adult_groups.py --n-jobs 2     # full run, 5 seeds
    .venv/bin/python tests/benchmarks/bench_adult_groups.py --quick        # smoke run: seed 0, epsilon 1, no file

The full run prints a GitHub-markdown report and writes it to ``tests/benchmarks/results/bench_adult_groups.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
import numpy as np
import pandas as pd

EPSILONS = (0.5, 1.0, 2.0)
UNITS = ("sensitive_attribute", "record")
CONSTRAINTS = ("demographic_parity", "equalized_odds")
SENSITIVE = ("sex", "race")
ADULT_ROW_NORM = math.sqrt(11.0)       # adult_features' public row bound (5 values in [0, 1], 6 one-hot blocks)
FRONTIER_EPSILONS = (1.0, 2.0, 4.0, 8.0)
FRONTIER_ROUNDS = (10, 20, 100)
NOISE_EPSILONS = (0.5, 1.0, 2.0)
GOAL_EPSILON = 1.0
PER_SEED_REQUIRED = 0.8                # issue 36, item 4: at least 4 of 5 seeds meet each goal
TUNED_C = 0.01                         # diffprivlib LR's C chosen on seeds 0-1 of this split (not a private choice)
DPL_METHODS = ("dpl LR", "dpl LR + DPTO", "dpl LR (C=0.01)", "dpl LR (C=0.01) + DPTO")
DPL_ALONE = ("dpl LR", "dpl LR (C=0.01)")
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_adult_groups.md"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "fairlearn", "diffprivlib", "joblib")
TIMED_SOURCES = ("fairlearn_dp/reductions/_exponentiated_gradient.py", "fairlearn_dp/reductions/_statistics_game.py",
                 "fairlearn_dp/reductions/_direction_reliability.py",
                 "fairlearn_dp/postprocessing/_threshold_optimizer.py", "fairlearn_dp/reductions/_eg_params.py", "fairlearn_dp/reductions/_game_mixture.py")


# ------------------------------------------------------------------------------------------------------ data
def split(seed, sensitive="race"):
    """``(X_train, X_test, y_train, y_test, a_train, a_test)`` and the public groups (the 70/30 split of a seed)."""
    from sklearn.model_selection import train_test_split

    from fairlearn_dp.datasets import adult_categories, adult_features

    X, y, a = adult_features(sensitive)
    return train_test_split(X, y, a, test_size=0.3, random_state=seed), sorted(adult_categories()[sensitive])


def published_row_bound():
    """True when ``DPExponentiatedGradient`` reads the bound ``adult_features`` publishes (H7's default)."""
    from fairlearn_dp.datasets import adult_features

    X, _, _ = adult_features("sex")
    return bool(getattr(X, "attrs", {}).get("row_norm_bound"))


# --------------------------------------------------------------------------------------------------- metrics
def difference(constraint, y, pred, a):
    from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference

    metric = demographic_parity_difference if constraint == "demographic_parity" else equalized_odds_difference
    return float(metric(y, pred, sensitive_features=a))


def moment(constraint):
    from fairlearn.reductions import DemographicParity, EqualizedOdds

    return DemographicParity() if constraint == "demographic_parity" else EqualizedOdds()


def privacy_warnings(caught):
    """The warnings among ``caught`` that fairdp or diffprivlib issue about the output: any fairdp category
    (``FairdpWarning``), diffprivlib's ``PrivacyLeakWarning``."""
    from diffprivlib.utils import PrivacyLeakWarning

    from fairlearn_dp.exceptions import FairdpWarning

    return [w for w in caught if issubclass(w.category, (FairdpWarning, PrivacyLeakWarning))]


# ----------------------------------------------------------------------------------------------------- fits
def _dp_lr_class():
    """diffprivlib's ``LogisticRegression``, or on scikit-learn >= 1.8 a subclass that can be constructed.

    diffprivlib 0.6.6's constructor passes ``multi_class='ovr'`` to scikit-learn's, which scikit-learn 1.8 removed
    (``TypeError``); for a binary label that argument changes nothing, so the subclass calls scikit-learn's
    constructor without it and keeps diffprivlib's ``fit`` (the objective perturbation of [CMS11]) unchanged.
    """
    from diffprivlib.models import LogisticRegression as DPLogisticRegression
    from sklearn import linear_model

    try:
        DPLogisticRegression()
        return DPLogisticRegression
    except TypeError:
        pass

    class Binary(DPLogisticRegression):
        def __init__(self, *, epsilon=1.0, data_norm=None, tol=1e-4, C=1.0, fit_intercept=True, max_iter=100,
                     verbose=0, warm_start=False, n_jobs=None, random_state=None, accountant=None):
            linear_model.LogisticRegression.__init__(
                self, penalty="l2", dual=False, tol=tol, C=C, fit_intercept=fit_intercept, intercept_scaling=1.0,
                class_weight=None, random_state=random_state, solver="lbfgs", max_iter=max_iter, verbose=verbose,
                warm_start=warm_start, n_jobs=n_jobs)
            self.epsilon, self.data_norm, self.accountant = epsilon, data_norm, accountant

    return Binary


def _dp_lr(X, y, epsilon, seed, accountant, method):
    """diffprivlib's LR with its default ``C=1`` (``"dpl LR"``), or ``C=TUNED_C`` (the ``"(C=0.01)"`` methods)."""
    C = TUNED_C if "C=" in method else 1.0
    return _dp_lr_class()(epsilon=epsilon, data_norm=ADULT_ROW_NORM, C=C, random_state=seed,
                          accountant=accountant).fit(X, y)


def _dpto(estimator, constraint, epsilon, unit, groups, seed, accountant):
    from fairlearn_dp.postprocessing import DPThresholdOptimizer

    return DPThresholdOptimizer(estimator=estimator, constraints=constraint, prefit=True,
                                predict_method="predict_proba", epsilon=epsilon, groups=groups, privacy_unit=unit,
                                random_state=seed, accountant=accountant)


def _constant(data, job, accountant):
    (X_train, X_test, y_train, *_), _ = data
    return np.full(len(X_test), int(np.mean(y_train) >= 0.5)), {}


def _lr(data, job, accountant):
    from sklearn.linear_model import LogisticRegression

    (X_train, X_test, y_train, *_), _ = data
    return LogisticRegression().fit(X_train, y_train).predict(X_test), {}


def _fairlearn(data, job, accountant):
    from fairlearn.reductions import ExponentiatedGradient
    from sklearn.linear_model import LogisticRegression

    (X_train, X_test, y_train, _, a_train, _), _ = data
    model = ExponentiatedGradient(LogisticRegression(), moment(job["constraint"]))
    return model.fit(X_train, y_train, sensitive_features=a_train).predict(X_test, random_state=job["seed"]), {}


def _dpeg(data, job, accountant):
    """DPExponentiatedGradient with Fairlearn's defaults; also returns its released diagnostics."""
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.reductions import DPExponentiatedGradient

    (X_train, X_test, y_train, _, a_train, _), groups = data
    params = dict(epsilon=job["epsilon"], groups=groups, privacy_unit=job["unit"], random_state=job["seed"],
                  accountant=accountant, **job["extra"])
    if job["unit"] == "record" and job["explicit_row_bound"]:
        params["row_norm_bound"] = ADULT_ROW_NORM
    model = DPExponentiatedGradient(LogisticRegression(), moment(job["constraint"]), **params)
    model.fit(X_train, y_train, sensitive_features=a_train)
    return model.predict(X_test, random_state=job["seed"]), {
        "kappa": model.proxy_reliability_, "sigma": model.noise_scale_, "ridge": model.ridge_,
        "rounds": model.n_iter_}


def _dpl_alone(data, job, accountant):
    (X_train, X_test, y_train, *_), _ = data
    return _dp_lr(X_train, y_train, job["epsilon"], job["seed"], accountant, job["method"]).predict(X_test), {}


def _post_processed(data, job, accountant):
    """A logistic regression (diffprivlib's at epsilon / 2, or the public one) then DPThresholdOptimizer."""
    from sklearn.linear_model import LogisticRegression

    (X_train, X_test, y_train, _, a_train, a_test), groups = data
    epsilon = job["epsilon"]
    if job["method"].startswith("dpl"):
        lr, epsilon = _dp_lr(X_train, y_train, epsilon / 2, job["seed"], accountant, job["method"]), epsilon / 2
    else:
        lr = LogisticRegression().fit(X_train, y_train)
    post = _dpto(lr, job["constraint"], epsilon, job["unit"], groups, job["seed"], accountant)
    post.fit(X_train, y_train, sensitive_features=a_train)
    return post.predict(X_test, sensitive_features=a_test, random_state=job["seed"]), {}


FITS = {"constant": _constant, "LR": _lr, "Fairlearn": _fairlearn, "DPEG": _dpeg, "dpl LR": _dpl_alone,
        "dpl LR (C=0.01)": _dpl_alone, "dpl LR + DPTO": _post_processed, "dpl LR (C=0.01) + DPTO": _post_processed,
        "LR + DPTO": _post_processed}


def fit_predict(data, method, constraint, sensitive, seed, epsilon=math.inf, unit="", explicit_row_bound=False,
                extra=None):
    """One fit on the seed's split ``data`` (:func:`split`); returns a result row (and the fit's released
    diagnostics)."""
    from threadpoolctl import threadpool_limits

    from fairlearn_dp.privacy import BudgetAccountant

    job = {"method": method, "constraint": constraint, "seed": seed, "epsilon": epsilon, "unit": unit,
               "explicit_row_bound": explicit_row_bound, "extra": extra or {}}
    (_, _, _, y_test, a_train, a_test), groups = data
    start = time.perf_counter()
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pred, diagnostics = FITS[method](data, job, BudgetAccountant())
    pred = np.asarray(pred).astype(int)
    return {"method": method, "constraint": constraint, "sensitive": sensitive, "seed": seed, "epsilon": epsilon,
            "unit": unit, "accuracy": float(np.mean(pred == y_test)),
            "difference": difference(constraint, y_test, pred, a_test),
            "warned": bool(privacy_warnings(caught)), "seconds": time.perf_counter() - start,
            "train_counts": pd.Series(a_train).value_counts().reindex(groups).to_numpy(), "groups": groups,
            **diagnostics}


# ------------------------------------------------------------------------------------------------------ jobs
def table_jobs(seeds, epsilons):
    """Every fit of the acceptance table, as keyword arguments of :func:`fit_predict`."""
    jobs = []
    for sensitive in SENSITIVE:
        for constraint in CONSTRAINTS:
            for seed in seeds:
                base = {"constraint": constraint, "sensitive": sensitive, "seed": seed}
                jobs += [dict(method=m, **base) for m in ("constant", "LR", "Fairlearn")]
                for epsilon in epsilons:
                    for unit in UNITS:
                        methods = ["DPEG", *DPL_METHODS] + (["LR + DPTO"] if unit != "record" else [])
                        jobs += [dict(method=m, epsilon=epsilon, unit=unit, **base) for m in methods]
    # diffprivlib's LR alone does not depend on the unit: fit it once per (epsilon, seed, constraint, sensitive).
    return [job for job in jobs if not (job["method"] in DPL_ALONE and job["unit"] == "sensitive_attribute")]


def frontier_jobs(seeds):
    jobs = []
    for constraint in CONSTRAINTS:
        for seed in seeds:
            base = {"method": "DPEG", "constraint": constraint, "sensitive": "race", "seed": seed, "unit": "record"}
            jobs += [dict(epsilon=epsilon, **base) for epsilon in FRONTIER_EPSILONS if epsilon not in EPSILONS]
            jobs += [dict(epsilon=GOAL_EPSILON, extra={"max_iter": rounds}, **base) for rounds in FRONTIER_ROUNDS]
    return jobs


def run_batch(jobs, explicit_row_bound):
    """The jobs of one (sensitive feature, seed), on one split loaded once."""
    data = split(jobs[0]["seed"], jobs[0]["sensitive"])
    return [fit_predict(data, **job, explicit_row_bound=explicit_row_bound) for job in jobs]


def run_jobs(jobs, n_jobs, explicit_row_bound):
    """All jobs, batched by (sensitive feature, seed) over ``n_jobs`` workers; rows in the order of ``jobs``."""
    return _common.run_batched(jobs, lambda job: (job["sensitive"], job["seed"]), run_batch, n_jobs,
                               explicit_row_bound)


# ------------------------------------------------------------------------------------------------ reporting
_mean_sd = _common.mean_sd


def summarise(rows):
    """Mean, sd and warning count per (sensitive, constraint, unit, method, epsilon[, max_iter])."""
    frame = pd.DataFrame(rows)
    frame["max_iter"] = frame.get("rounds_asked", pd.Series([None] * len(frame))).fillna(50)
    keys = ["sensitive", "constraint", "unit", "method", "epsilon", "max_iter"]
    out = []
    for key, group in frame.groupby(keys, sort=False, dropna=False):
        out.append(dict(zip(keys, key, strict=False), accuracy=_mean_sd(group["accuracy"]),
                        difference=_mean_sd(group["difference"]), accuracy_mean=group["accuracy"].mean(),
                        difference_mean=group["difference"].mean(), warned=int(group["warned"].sum()),
                        fits=len(group), seconds=group["seconds"].mean()))
    return pd.DataFrame(out)


def _epsilon_text(epsilon):
    return "—" if math.isinf(epsilon) else f"{epsilon:g}"


def acceptance_tables(summary):
    """One markdown table per (sensitive feature, constraint)."""
    lines = []
    label = {"demographic_parity": "DP difference", "equalized_odds": "EO difference"}
    unit_order = {"": 0, "sensitive_attribute": 1, "record": 2}
    method_order = {m: i for i, m in enumerate(("constant", "LR", "Fairlearn", "DPEG", *DPL_METHODS, "LR + DPTO"))}
    for sensitive in SENSITIVE:
        for constraint in CONSTRAINTS:
            part = summary[(summary.sensitive == sensitive) & (summary.constraint == constraint)
                           & (summary.max_iter == 50)].copy()
            part["order"] = [(unit_order[u], e, method_order[m]) for u, e, m in zip(part.unit, part.epsilon,
                                                                                      part.method, strict=False)]
            part = part.sort_values("order")
            lines += [f"### Adult by {sensitive}, {constraint.replace('_', ' ')}", "",
                      f"| privacy unit | method | ε | accuracy | {label[constraint]} | fits with a warning |",
                      "|---|---|---|---|---|---|"]
            for row in part.itertuples():
                unit = {"": "none (non-private)", "sensitive_attribute": "attribute"}.get(row.unit, row.unit)
                if row.method in DPL_ALONE:
                    unit = "record (any)"
                lines.append(f"| {unit} | {row.method} | {_epsilon_text(row.epsilon)} | {row.accuracy} | "
                             f"{row.difference} | {row.warned} of {row.fits} |")
            lines.append("")
    return lines


def frontier_table(summary):
    part = summary[(summary.sensitive == "race") & (summary.unit == "record") & (summary.method == "DPEG")]
    lines = ["### Frontier: DPEG on Adult by race under privacy_unit='record'", "",
             "| constraint | ε | max_iter | accuracy | difference | fits with a warning |",
             "|---|---|---|---|---|---|"]
    for row in part.sort_values(["constraint", "epsilon", "max_iter"]).itertuples():
        lines.append(f"| {row.constraint} | {row.epsilon:g} | {int(row.max_iter)} | {row.accuracy} | "
                     f"{row.difference} | {row.warned} of {row.fits} |")
    return lines + [""]


def _noise_fits(rows, unit, epsilon):
    return [r for r in rows if r["method"] == "DPEG" and r["sensitive"] == "race" and r["unit"] == unit
            and r["epsilon"] == epsilon and r["constraint"] == "demographic_parity" and "rounds_asked" not in r]


def _noise_rows(unit, epsilon, fits):
    """One line per race group: its training rows, the noise sd of its mean per coordinate, its kappa."""
    sigma = np.mean([r["sigma"]["statistics"] for r in fits])
    ridge = np.mean([r["ridge"] for r in fits])
    kappa = np.mean([np.asarray(r["kappa"])[0] for r in fits], axis=0)
    counts = np.mean([r["train_counts"] for r in fits], axis=0)
    # the group's label-summed feature sums carry sigma sqrt(2) per coordinate; its mean divides them by n_g
    return [f"| {unit} | {epsilon:g} | {sigma:.1f} | {ridge:,.0f} | {group} | {counts[g]:,.0f} | "
            f"{sigma * math.sqrt(2) / counts[g]:.3f} | {kappa[g]:.2f} |" for g, group in enumerate(fits[0]["groups"])]


def noise_table(rows):
    """Per race group: training count, the released statistics' noise sd against it, and the reliability kappa."""
    lines = ["### Noise against signal: Adult by race, demographic parity (means over the seeds)", "",
             "| privacy unit | ε | sigma of S (per coordinate) | ridge | group | training rows | "
             "noise sd of the group's mean (per coordinate) | reliability kappa |", "|---|---|---|---|---|---|---|---|"]
    for unit in UNITS:
        for epsilon in NOISE_EPSILONS:
            fits = _noise_fits(rows, unit, epsilon)
            lines += _noise_rows(unit, epsilon, fits) if fits else []
    return lines + [""]


def goal_lines(summary):
    def pick(unit, method):
        part = summary[(summary.sensitive == "race") & (summary.constraint == "demographic_parity")
                       & (summary.unit == unit) & (summary.method == method) & (summary.max_iter == 50)
                       & ((summary.epsilon == GOAL_EPSILON) | (unit == ""))]
        return None if part.empty else part.iloc[0]

    record, attribute, fairlearn = pick("record", "DPEG"), pick("sensitive_attribute", "DPEG"), pick("", "Fairlearn")
    lines = []
    if record is not None:
        met = record.accuracy_mean >= 0.80 and record.difference_mean <= 0.08
        lines.append(f"- {'MET' if met else 'NOT MET'}: record-level DPEG, race, DP, ε = 1: accuracy "
                     f"{record.accuracy_mean:.3f} (goal >= 0.80), DP difference {record.difference_mean:.3f} "
                     "(goal <= 0.08).")
    if attribute is not None and fairlearn is not None:
        met = (attribute.difference_mean <= 0.08 and attribute.accuracy_mean >= fairlearn.accuracy_mean - 0.01)
        lines.append(f"- {'MET' if met else 'NOT MET'}: attribute-level DPEG, race, DP, ε = 1: DP difference "
                     f"{attribute.difference_mean:.3f} (goal <= 0.08), accuracy {attribute.accuracy_mean:.3f} "
                     f"against Fairlearn's {fairlearn.accuracy_mean:.3f} (goal: at most 0.01 below).")
    return lines


def _goal_fits(rows, method, unit):
    """Per seed, the (accuracy, difference) of ``method`` on Adult by race, demographic parity (epsilon 1 for DPEG,
    its default ``max_iter``)."""
    return {row["seed"]: (row["accuracy"], row["difference"]) for row in rows
            if row["method"] == method and row["unit"] == unit and row["sensitive"] == "race"
            and row["constraint"] == "demographic_parity" and "rounds_asked" not in row
            and (unit == "" or row["epsilon"] == GOAL_EPSILON)}


def per_seed_goal_lines(rows):
    """Issue 36, item 4: the goals seed by seed (at least ``PER_SEED_REQUIRED`` of 5 seeds must meet each), with
    non-private Fairlearn's count under the same test as the reference: the two smallest race groups have about 130
    test rows, so a classifier fair on the training rows already varies by a few hundredths on the test rows."""
    fairlearn = _goal_fits(rows, "Fairlearn", "")
    goals = {"record": lambda acc, dp, seed: acc >= 0.80 and dp <= 0.08,
             "sensitive_attribute": lambda acc, dp, seed: dp <= 0.08 and acc >= fairlearn[seed][0] - 0.01}
    lines = []
    for unit, goal in goals.items():
        fits = _goal_fits(rows, "DPEG", unit)
        if not fits or not set(fits) <= set(fairlearn):
            continue
        met = [seed for seed, (acc, dp) in sorted(fits.items()) if goal(acc, dp, seed)]
        reference = [seed for seed, (acc, dp) in sorted(fairlearn.items()) if goal(acc, dp, seed)]
        required = math.ceil(PER_SEED_REQUIRED * len(fits))
        lines.append(f"- {'MET' if len(met) >= required else 'NOT MET'}: {unit} DPEG meets its goal on {len(met)} "
                     f"of {len(fits)} seeds (seeds {met or 'none'}; {required} required); non-private Fairlearn "
                     f"under the same test: {len(reference)} of {len(fairlearn)}.")
    return lines


# ----------------------------------------------------------------------------------------------------- main
def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: seed 0, epsilon 1, no file, no frontier")
    parser.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default 5, or 1 with --quick)")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    parser.add_argument("--output", type=Path, default=None,
                        help=f"markdown file to write (default {DEFAULT_OUTPUT}; none with --quick)")
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = 1 if args.quick else 5
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    if args.output is None and not args.quick:
        args.output = DEFAULT_OUTPUT
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    warnings.simplefilter("ignore", FutureWarning)
    seeds = list(range(args.seeds))
    epsilons = (GOAL_EPSILON,) if args.quick else EPSILONS
    explicit = not published_row_bound()
    start = time.perf_counter()
    jobs = table_jobs(seeds, epsilons)
    jobs += [] if args.quick else frontier_jobs(seeds)
    print(f"bench_adult_groups: {len(jobs)} fits on {args.n_jobs} worker(s) ...", file=sys.stderr, flush=True)
    rows = run_jobs(jobs, args.n_jobs, explicit)
    for row, job in zip(rows, jobs, strict=False):
        if "extra" in job:
            row["rounds_asked"] = job["extra"]["max_iter"]
    elapsed = time.perf_counter() - start
    summary = summarise(rows)
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    bound_note = ("row_norm_bound=sqrt(11) passed explicitly (this tree's estimator does not read the bound "
                  "adult_features publishes)" if explicit else
                  "row_norm_bound left at its default: the bound adult_features publishes, sqrt(11)")
    report = ["# bench_adult_groups: Adult by sex and by race, both privacy units, ε in "
              f"{{{', '.join(f'{e:g}' for e in epsilons)}}}", "",
              _common.machine_header(PACKAGES, mode, extra=f" Seeds: {', '.join(map(str, seeds))}."),
              _common.source_state(TIMED_SOURCES), "",
              f"{len(rows)} fits in {elapsed / 60:.1f} min on {args.n_jobs} joblib worker(s) (threadpool_limits(1) "
              f"per fit). DPEG under 'record': {bound_note}.", "",
              "Goals (Adult by race, ε = 1, mean over the seeds):", *goal_lines(summary), "",
              "Goals seed by seed (issue 36, item 4):", *per_seed_goal_lines(rows), "",
              *acceptance_tables(summary)]
    if not args.quick:
        report += [*frontier_table(summary), *noise_table(rows)]
    return _common.finish("\n".join(report), args.output, "bench_adult_groups", True)


if __name__ == "__main__":
    sys.exit(main())
