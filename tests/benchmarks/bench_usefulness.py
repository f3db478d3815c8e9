"""Benchmark: is each private classifier at least as useful as the constant classifier, across datasets and regimes?

What is measured
----------------
Issue 36, item 2. For each **setting** (a dataset, a sensitive feature and, for synthetic data, a regime), each seed
(a 70/30 split, ``train_test_split(..., test_size=0.3, random_state=seed)``; the same seed seeds every fit) and each
``epsilon`` in {0.5, 1, 2}, the test accuracy and the test demographic-parity difference
(``fairlearn.metrics.demographic_parity_difference``, exact, of one randomised prediction with ``random_state=seed``)
of:

- **constant**: the majority class of the training labels (non-private reference);
- **Fairlearn**: ``ExponentiatedGradient(LogisticRegression(), DemographicParity())``, non-private;
- **DPEG attribute**: ``DPExponentiatedGradient(LogisticRegression(), DemographicParity(), epsilon=eps,
  groups=groups, random_state=seed)`` (``privacy_unit="sensitive_attribute"``, the default);
- **DPEG record**: the same with ``privacy_unit="record"`` and ``row_norm_bound`` the L2 bound of the setting's
  declared column layout (``sqrt`` of the sum of each column's largest square: every feature lies in [0, 1] by a
  public range, one-hot blocks count 1 each);
- **EMFC**: ``ExponentialMechanismFairClassifier(linear_threshold_hypotheses(d, n_directions=64, n_thresholds=16,
  random_state=0), epsilon=eps, groups=groups, random_state=seed)`` on the first 3,500 training rows (a subsample:
  the class scores every hypothesis on every row);
- **GerryFair**: ``DPGerryFairClassifier(C=10, gamma=0.01, max_iters=10, epsilon=eps, feature_norm_bound=<the
  layout's L1 bound>, sensitive_values=groups, random_state=seed)`` (its default ``fairness_def="FP"``: it is
  scored on demographic parity like the others, which it does not target);
- **GroupBudget**: ``DPGroupBudgetClassifier(epsilon=eps, groups=groups, random_state=seed)`` (``data_bound=1``:
  features in [0, 1]);
- **dpl LR + DPTO**: the private two-step baseline, diffprivlib's logistic regression as
  :class:`fairlearn_dp.reductions.DPLogisticRegression` (``epsilon=eps/2, data_norm=<the L2 bound>``; diffprivlib's
  ``fit`` unchanged, a constructor that works on scikit-learn 1.6-1.9), then
  ``DPThresholdOptimizer(prefit=True, predict_method="predict_proba", privacy_unit="record", epsilon=eps/2,
  constraints="demographic_parity")``.

Settings: **Adult** by sex and by race (:func:`fairlearn_dp.datasets.adult_features`, 104 features, L2 bound
sqrt(11)); **Law School** (label ``pass_bar``, group ``race``, 4 groups; features ``lsat`` scaled by its public range
[10, 48] and ``ugpa`` by [1, 4]; L2 bound sqrt(2)); **Communities and Crime** binarised (label
``ViolentCrimesPerPop > 0.2``, a public threshold on the donors' [0, 1] scale; group ``black`` as
:func:`fairlearn_dp.datasets.fetch_communities_crime` defines it; 99 features in [0, 1], L2 bound sqrt(99)); and
**synthetic** data, a one-factor-at-a-time sweep around a centre point (10,000 rows, 20 features, smallest group
20%, coefficient norm 3): rows in {1,000, 3,000, 30,000, 100,000}, features in {5, 100}, smallest group's share in
{2%, 50%}, coefficient norm in {0 (no signal), 1, 10}. Synthetic rows: features uniform on [0, 1], the first one
shifted by +0.25 (clipped to 1) in the minority group; label Bernoulli(sigmoid(w . (x - 1/2) + logit(0.3))) with
``w`` of the stated norm spread equally over all features (so the group's base rate differs through feature 0).

Per setting and epsilon the report gives, for each method, mean +- sd of the accuracy and of the DP difference over
the seeds, the stated selection error (``constant_choice_.error_bound`` when the estimator has it; otherwise, marked
†, ``selection_error_bound(n_fit, 0.1 * eps_estimator)``, or 0 under the attribute unit, where the choice is exact),
**pass** when the mean accuracy is at least the constant's minus that error, and the fits that warned (any fairdp
warning or diffprivlib's ``PrivacyLeakWarning``), chose a constant (``constant_choice_``) or predicted one label for
every test row. Then the **frontier** (for each method and epsilon, the rows of the rows sweep at which the mean
accuracy beats the constant's), the **defaults** of the record unit (``statistics_fraction`` in {0.3, 0.5, 0.7};
the final choice's share of epsilon, ``SELECTION_SHARE`` (privacy._selection), in {0.05, 0.1, 0.2}, set for the fit;
``JagielskiExponentiatedGradient(oracle="regression", bound_B=10)``; and "centred": the default with the bounded
numeric columns moved to the midpoint of their public range, ``X - 1/2`` on those columns, one-hot blocks
unchanged, and the layout's L2 bound recomputed, 1/4 per numeric column and 1 per one-hot block, e.g. Adult sqrt(5/4 + 6) instead of sqrt(11); at
epsilon = 1, average accuracy rank over the settings), the most accurate private classifier per setting, and the
**goals of item 4** per seed on Adult by race at epsilon = 1 with the constructor's defaults.

Run (from this folder, ``tests/benchmarks``; the full mode took 11-17 minutes on 2 workers, 19-28 CPU-minutes of
fits, on a shared 2-CPU machine; the quick mode about 10 seconds)::

    nice -n 10 ../../.venv/bin/python bench_usefulness.py --n-jobs 2   # full: 16 settings, 5 seeds, md + csv
    ../../.venv/bin/python bench_usefulness.py --quick                  # smoke: 3 small settings, seed 0, no file
    nice -n 10 ../../.venv/bin/python bench_usefulness.py --goals --n-jobs 2   # item 4's table only (3-7 min), no file

Every fit runs under ``threadpoolctl.threadpool_limits(1)``; the exit status is non-zero only when a fit fails.
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
GOAL_EPSILON = 1.0
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_usefulness.md"
PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "fairlearn", "diffprivlib", "joblib")
TIMED_SOURCES = ("fairlearn_dp/privacy/_selection.py", "fairlearn_dp/reductions/_exponentiated_gradient.py",
                 "fairlearn_dp/reductions/_exponential_mechanism_classifier.py", "fairlearn_dp/reductions/_gerryfair.py",
                 "fairlearn_dp/reductions/_group_budget.py", "fairlearn_dp/postprocessing/_threshold_optimizer.py")
PRIVATE = ("DPEG attribute", "DPEG record", "EMFC", "GerryFair", "GroupBudget", "dpl LR + DPTO")
REFERENCE = ("constant", "Fairlearn")
DEFAULT_VARIANTS = ("fraction 0.3", "fraction 0.7", "share 0.05", "share 0.2", "paper regression",
                    "centred")  # "fraction 0.5", share 0.1: DPEG record
EMFC_ROWS = 3_500
CENTRE = {"n": 10_000, "d": 20, "share": 0.2, "signal": 3.0}
SWEEP = {"n": (1_000, 3_000, 30_000, 100_000), "d": (5, 100), "share": (0.02, 0.5), "signal": (0.0, 1.0, 10.0)}
CC_THRESHOLD = 0.2
QUICK_SETTINGS = ("communities_crime", "synthetic n=1000", "synthetic signal=0")


def synthetic_name(**change):
    """``"synthetic centre"`` or ``"synthetic <factor>=<value>"`` (one factor changed from the centre)."""
    if not change:
        return "synthetic centre"
    (factor, value), = change.items()
    return f"synthetic {factor}={value:g}"


def setting_names():
    """Every setting of the full run: the real datasets, then the synthetic centre and its one-factor sweep."""
    names = ["adult sex", "adult race", "law_school", "communities_crime", synthetic_name()]
    return names + [synthetic_name(**{factor: value}) for factor, values in SWEEP.items() for value in values]


# ------------------------------------------------------------------------------------------------------ data
def _adult(sensitive):
    from fairlearn_dp.datasets import adult_categories, adult_features

    X, y, a = adult_features(sensitive)
    return X.to_numpy(float), np.asarray(y, int), np.asarray(a), sorted(adult_categories()[sensitive])


def _law_school():
    """Label pass_bar; features lsat and ugpa scaled to [0, 1] by their public ranges; group race (4 groups)."""
    from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school

    bunch = fetch_law_school()
    low, high = LAW_SCHOOL_BOUNDS
    X = np.column_stack([(bunch.data["lsat"].to_numpy(float) - 10.0) / 38.0,
                         (bunch.target.to_numpy(float) - low) / (high - low)])
    return X, bunch.data["pass_bar"].to_numpy(int), bunch.sensitive_features.to_numpy(), ["asian", "black", "hisp",
                                                                                          "white"]


def _communities_crime():
    """Label ViolentCrimesPerPop > CC_THRESHOLD; the 99 features in [0, 1]; group black (0/1)."""
    from fairlearn_dp.datasets import fetch_communities_crime

    bunch = fetch_communities_crime()
    y = (bunch.target.to_numpy(float) > CC_THRESHOLD).astype(int)
    return bunch.data.to_numpy(float), y, bunch.sensitive_features.to_numpy(), [0, 1]


def _synthetic(n, d, share, signal):
    """Features uniform on [0, 1]; feature 0 shifted by 0.25 in the minority group; a logistic label (see above)."""
    rng = np.random.default_rng([int(n), int(d), int(round(share * 1000)), int(round(signal * 10))])
    a = (rng.random(n) < share).astype(int)
    X = rng.random((n, d))
    X[:, 0] = np.minimum(X[:, 0] + 0.25 * a, 1.0)
    w = np.full(d, signal / math.sqrt(d))
    logit = (X - 0.5) @ w + math.log(0.3 / 0.7)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(int)
    return X, y, a, [0, 1]


def load(name):
    """``(X, y, a, groups, l2_bound, l1_bound, k)`` of a setting; the bounds come from the public layout (each
    feature in [0, 1]; Adult: 5 bounded numeric columns and 6 one-hot blocks); the first ``k`` columns are the
    bounded numeric ones (the others one-hot). Cached per process (a plain
    dict: joblib's workers cannot unpickle an ``lru_cache`` wrapper defined in ``__main__``)."""
    if name not in _LOADED:
        _LOADED.clear()                              # one setting at a time: the batches are per setting
        _LOADED[name] = _load(name)
    return _LOADED[name]


_LOADED = {}


def _load(name):
    if name.startswith("adult"):
        X, y, a, groups = _adult(name.split()[1])
        return X, y, a, groups, math.sqrt(11.0), 11.0, 5
    if name == "law_school":
        X, y, a, groups = _law_school()
    elif name == "communities_crime":
        X, y, a, groups = _communities_crime()
    else:
        params = dict(CENTRE)
        if name != synthetic_name():
            factor, value = name.split()[1].split("=")
            params[factor] = type(CENTRE[factor])(float(value))
        X, y, a, groups = _synthetic(**params)
    return X, y, a, groups, math.sqrt(X.shape[1]), float(X.shape[1]), X.shape[1]


def split(name, seed):
    from sklearn.model_selection import train_test_split

    X, y, a, groups, l2, l1, numeric = load(name)
    X_train, X_test, y_train, y_test, a_train, a_test = train_test_split(X, y, a, test_size=0.3, random_state=seed)
    return {"X_train": X_train, "X_test": X_test, "y_train": y_train, "y_test": y_test, "a_train": a_train, "a_test": a_test,
                "groups": groups, "l2": l2, "l1": l1, "numeric": numeric}


def centred(data):
    """The split with its numeric columns moved to the midpoint of their public range [0, 1] (a public map: X - 1/2
    there), and the layout's L2 bound recomputed: 1/4 per numeric column, 1 per one-hot block (``l2^2 - k``
    counts the blocks, since the uncentred bound counts 1 for each numeric column and each block)."""
    k = data["numeric"]
    shift = np.zeros(data["X_train"].shape[1])
    shift[:k] = 0.5
    return dict(data, X_train=data["X_train"] - shift, X_test=data["X_test"] - shift,
                l2=math.sqrt(data["l2"] ** 2 - k + k / 4))


# ----------------------------------------------------------------------------------------------------- fits
def _dpeg(data, job, accountant, **params):
    from fairlearn.reductions import DemographicParity
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.reductions import DPExponentiatedGradient, JagielskiExponentiatedGradient

    unit = "sensitive_attribute" if job["method"] == "DPEG attribute" else "record"
    X_train, X_test = data["X_train"], data["X_test"]
    common = {"epsilon": job["epsilon"], "groups": data["groups"], "privacy_unit": unit, "random_state": job["seed"],
                  "accountant": accountant}
    if params.pop("algorithm3", False):             # Jagielski et al.'s Algorithm 3 (its regression oracle)
        model = JagielskiExponentiatedGradient(DemographicParity(), **common, **params)
    else:
        if unit == "record":
            params.setdefault("row_norm_bound", data["l2"])
        model = DPExponentiatedGradient(LogisticRegression(), DemographicParity(), **common, **params)
    model.fit(X_train, data["y_train"], sensitive_features=data["a_train"])
    return model.predict(X_test, random_state=job["seed"]), model, len(X_train), job["epsilon"]


def _dpeg_variant(data, job, accountant):
    """The record unit's Learner and budget split candidates (the defaults section)."""
    variant = job["method"]
    if variant == "centred":
        return _dpeg(centred(data), dict(job, method="DPEG record"), accountant)
    if variant.startswith("share"):
        # The final choice's share of epsilon, a documented module constant rather than a parameter: set for this
        # fit only (each joblib worker runs one fit at a time).
        from fairlearn_dp.privacy import _selection

        saved, _selection.SELECTION_SHARE = _selection.SELECTION_SHARE, float(variant.split()[1])
        try:
            return _dpeg(data, dict(job, method="DPEG record"), accountant)
        finally:
            _selection.SELECTION_SHARE = saved
    if variant.startswith("fraction"):
        from fairlearn_dp.reductions import StatisticsGameOptions

        params = {"options": StatisticsGameOptions(statistics_fraction=float(variant.split()[1]))}
    else:
        params = {"algorithm3": True, "oracle": "regression", "bound_B": 10.0}
    return _dpeg(data, dict(job, method="DPEG record"), accountant, **params)


def _emfc(data, job, accountant):
    from fairlearn_dp.reductions import ExponentialMechanismFairClassifier
    from fairlearn_dp.reductions._hypotheses import linear_threshold_hypotheses

    X, y, a = data["X_train"][:EMFC_ROWS], data["y_train"][:EMFC_ROWS], data["a_train"][:EMFC_ROWS]
    hypotheses = linear_threshold_hypotheses(X.shape[1], n_directions=64, n_thresholds=16, random_state=0)
    model = ExponentialMechanismFairClassifier(hypotheses, epsilon=job["epsilon"], groups=data["groups"],
                                               random_state=job["seed"], accountant=accountant)
    model.fit(X, y, sensitive_features=a)
    return model.predict(data["X_test"]), model, len(X), job["epsilon"]


def _gerryfair(data, job, accountant):
    from fairlearn_dp.reductions import DPGerryFairClassifier

    X, y, a = data["X_train"], data["y_train"], data["a_train"]
    model = DPGerryFairClassifier(C=10, gamma=0.01, max_iters=10, epsilon=job["epsilon"],
                                  feature_norm_bound=data["l1"], sensitive_values=list(data["groups"]),
                                  random_state=job["seed"], accountant=accountant)
    model.fit(X, y, sensitive_features=a)
    return model.predict(data["X_test"], random_state=job["seed"]), model, len(X), job["epsilon"]


def _group_budget(data, job, accountant):
    from fairlearn_dp.reductions import DPGroupBudgetClassifier

    model = DPGroupBudgetClassifier(epsilon=job["epsilon"], groups=data["groups"], random_state=job["seed"],
                                    accountant=accountant)
    model.fit(data["X_train"], data["y_train"], sensitive_features=data["a_train"])
    return model.predict(data["X_test"]), model, len(data["X_train"]), job["epsilon"]


def _two_step(data, job, accountant):
    from fairlearn_dp.postprocessing import DPThresholdOptimizer
    from fairlearn_dp.reductions import DPLogisticRegression

    half = job["epsilon"] / 2
    lr = DPLogisticRegression(epsilon=half, data_norm=data["l2"], random_state=job["seed"], accountant=accountant)
    lr.fit(data["X_train"], data["y_train"])
    post = DPThresholdOptimizer(estimator=lr, constraints="demographic_parity", prefit=True,
                                predict_method="predict_proba", epsilon=half, groups=data["groups"],
                                privacy_unit="record", random_state=job["seed"], accountant=accountant)
    post.fit(data["X_train"], data["y_train"], sensitive_features=data["a_train"])
    pred = post.predict(data["X_test"], sensitive_features=data["a_test"], random_state=job["seed"])
    return pred, post, len(data["X_train"]), half


def _constant(data, job, accountant):
    return np.full(len(data["X_test"]), int(np.mean(data["y_train"]) >= 0.5)), None, len(data["X_train"]), math.inf


def _fairlearn(data, job, accountant):
    from fairlearn.reductions import DemographicParity, ExponentiatedGradient
    from sklearn.linear_model import LogisticRegression

    model = ExponentiatedGradient(LogisticRegression(), DemographicParity())
    model.fit(data["X_train"], data["y_train"], sensitive_features=data["a_train"])
    return model.predict(data["X_test"], random_state=job["seed"]), None, len(data["X_train"]), math.inf


FITS = {"constant": _constant, "Fairlearn": _fairlearn, "DPEG attribute": _dpeg, "DPEG record": _dpeg,
        "EMFC": _emfc, "GerryFair": _gerryfair, "GroupBudget": _group_budget, "dpl LR + DPTO": _two_step,
        **dict.fromkeys(DEFAULT_VARIANTS, _dpeg_variant)}


def _warned(caught):
    from diffprivlib.utils import PrivacyLeakWarning

    from fairlearn_dp.exceptions import FairdpWarning

    return any(issubclass(w.category, (FairdpWarning, PrivacyLeakWarning)) for w in caught)


def _selection(model, method, n_fit, epsilon):
    """``(chose a constant or None, error bound, whether the bound is the script's fallback)``."""
    from fairlearn_dp.privacy._selection import SELECTION_SHARE, selection_error_bound

    choice = getattr(model, "constant_choice_", None)
    if choice is not None:
        bound = 0.0 if math.isinf(choice.epsilon) else float(choice.error_bound)
        return bool(choice.is_constant), bound, False
    if model is None:
        return None, 0.0, False
    if method == "DPEG attribute":           # the released LR plays do not read the attribute: an exact choice
        return None, 0.0, True
    return None, selection_error_bound(n_fit, SELECTION_SHARE * epsilon), True


def fit_predict(data, method, setting, seed, epsilon=math.inf):
    """One fit on a seed's split ``data`` (:func:`split`); returns a result row."""
    from fairlearn.metrics import demographic_parity_difference
    from threadpoolctl import threadpool_limits

    from fairlearn_dp.privacy import BudgetAccountant

    job = {"method": method, "seed": seed, "epsilon": epsilon}
    start = time.perf_counter()
    error = ""
    with threadpool_limits(1), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            pred, model, n_fit, eps_estimator = FITS[method](data, job, BudgetAccountant())
        except Exception as exc:                     # reported as a failed fit, the run goes on
            error = f"{type(exc).__name__}: {exc}"[:200]
    row = {"setting": setting, "method": method, "seed": seed, "epsilon": epsilon, "seconds": time.perf_counter() - start,
               "n_train": len(data["X_train"]), "error": error}
    if error:
        return row
    pred = np.asarray(pred).astype(int)
    chose, bound, fallback = _selection(model, method, n_fit, eps_estimator)
    return dict(row, n_fit=n_fit, accuracy=float(np.mean(pred == data["y_test"])),
                difference=float(demographic_parity_difference(data["y_test"], pred,
                                                               sensitive_features=data["a_test"])),
                warned=_warned(caught), chose_constant=chose, constant_output=bool(np.all(pred == pred[0])),
                error_bound=bound, bound_fallback=fallback)


# ------------------------------------------------------------------------------------------------------ jobs
def make_jobs(settings, seeds, epsilons, defaults=True):
    """Every fit, as keyword arguments of :func:`fit_predict` (without the data)."""
    jobs = []
    for setting in settings:
        for seed in seeds:
            jobs += [{"method": m, "setting": setting, "seed": seed} for m in REFERENCE]
            for epsilon in epsilons:
                jobs += [{"method": m, "setting": setting, "seed": seed, "epsilon": epsilon} for m in PRIVATE]
            if defaults and GOAL_EPSILON in epsilons:
                jobs += [{"method": m, "setting": setting, "seed": seed, "epsilon": GOAL_EPSILON} for m in DEFAULT_VARIANTS]
    return jobs


def run_batch(jobs):
    """The jobs of one (setting, seed), on one split."""
    data = split(jobs[0]["setting"], jobs[0]["seed"])
    return [fit_predict(data, **job) for job in jobs]


def run_jobs(jobs, n_jobs):
    """All jobs, batched by (setting, seed) over ``n_jobs`` workers; rows in the order of ``jobs``."""
    return _common.run_batched(jobs, lambda job: (job["setting"], job["seed"]), run_batch, n_jobs)


# ------------------------------------------------------------------------------------------------ reporting
_mean_sd = _common.mean_sd


def _count(values):
    """``k`` of the fits where a flag is True; ``n/a`` when no fit has the flag (an estimator without it)."""
    known = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return str(int(sum(bool(v) for v in known))) if known else "n/a"


def summarise(frame):
    """Mean, sd and counts per (setting, method, epsilon), with the constant's mean accuracy and the verdict."""
    ok = frame[frame.error == ""]
    constant = ok[ok.method == "constant"].groupby("setting").accuracy.mean()
    out = []
    for (setting, method, epsilon), group in ok.groupby(["setting", "method", "epsilon"], sort=False):
        bound = float(group.error_bound.mean())
        verdict = ""
        if method in PRIVATE:
            verdict = "pass" if group.accuracy.mean() >= constant[setting] - bound else "FAIL"
        out.append({"setting": setting, "method": method, "epsilon": epsilon, "accuracy": _mean_sd(group.accuracy),
                        "difference": _mean_sd(group.difference), "accuracy_mean": group.accuracy.mean(),
                        "difference_mean": group.difference.mean(), "constant_mean": constant[setting], "bound": bound,
                        "fallback": bool(group.bound_fallback.any()), "verdict": verdict, "fits": len(group),
                        "warned": int(group.warned.sum()), "chose": _count(group.chose_constant),
                        "constant_output": int(group.constant_output.sum()), "seconds": group.seconds.mean()})
    return pd.DataFrame(out)


def setting_tables(summary, settings, epsilons):
    """One markdown table per setting: the references, then every private classifier at every epsilon."""
    lines = []
    for setting in settings:
        part = summary[summary.setting == setting]
        if part.empty:
            continue
        lines += [f"### {setting}", "",
                  "| ε | method | accuracy | DP difference | selection error | ≥ constant − error | warned | "
                  "chose constant | constant output |", "|---|---|---|---|---|---|---|---|---|"]
        order = [(math.inf, m) for m in REFERENCE] + [(e, m) for e in epsilons for m in PRIVATE]
        for epsilon, method in order:
            row = part[(part.method == method) & (part.epsilon == epsilon)]
            if row.empty:
                continue
            row = row.iloc[0]
            bound = "" if method in REFERENCE else f"{row.bound:.4f}{' †' if row.fallback else ''}"
            eps_text = "—" if math.isinf(epsilon) else f"{epsilon:g}"
            lines.append(f"| {eps_text} | {method} | {row.accuracy} | {row.difference} | {bound} | {row.verdict} | "
                         f"{row.warned} of {row.fits} | {row.chose} | {row.constant_output} |")
        lines.append("")
    return lines


def acceptance_lines(summary, frame):
    """The pass count of each private classifier over (setting, epsilon), and every failing cell."""
    private = summary[summary.method.isin(PRIVATE)]
    lines = ["| method | settings × ε passing | fits that warned | fits that chose a constant | "
             "fits with a constant output |", "|---|---|---|---|---|"]
    for method in PRIVATE:
        part = private[private.method == method]
        lines.append(f"| {method} | {int((part.verdict == 'pass').sum())} of {len(part)} | {part.warned.sum()} | "
                     f"{_count_total(part.chose)} | {part.constant_output.sum()} |")
    lines.append("")
    failing = private[private.verdict == "FAIL"]
    lines += [f"- FAIL: {r.setting}, ε = {r.epsilon:g}, {r.method}: {r.accuracy_mean:.3f} < constant "
              f"{r.constant_mean:.3f} − {r.bound:.4f}" for r in failing.itertuples()]
    errors = frame[frame.error != ""]
    lines += [f"- ERROR: {r.setting}, seed {r.seed}, ε = {r.epsilon:g}, {r.method}: {r.error}"
              for r in errors.itertuples()]
    return lines + [""]


def _count_total(values):
    known = [int(v) for v in values if v != "n/a"]
    return str(sum(known)) if known else "n/a"


def frontier_lines(summary, epsilons):
    """For each method and epsilon, the rows of the rows sweep at which its mean accuracy beats the constant's."""
    sweep = {CENTRE["n"]: synthetic_name(), **{n: synthetic_name(n=n) for n in SWEEP["n"]}}
    sizes = sorted(n for n, name in sweep.items() if (summary.setting == name).any())
    if len(sizes) < 2:
        return []
    lines = ["| method | ε | " + " | ".join(f"n = {n:,}" for n in sizes) + " |", "|---|---|" + "---|" * len(sizes)]
    for method in ("Fairlearn", *PRIVATE):
        for epsilon in ([math.inf] if method == "Fairlearn" else epsilons):
            cells = []
            for n in sizes:
                row = summary[(summary.setting == sweep[n]) & (summary.method == method)
                              & (summary.epsilon == epsilon)]
                beats = not row.empty and row.iloc[0].accuracy_mean > row.iloc[0].constant_mean
                cells.append(f"{row.iloc[0].accuracy_mean:.3f} ✓" if beats else
                             (f"{row.iloc[0].accuracy_mean:.3f} ·" if not row.empty else "—"))
            lines.append(f"| {method} | {'—' if math.isinf(epsilon) else f'{epsilon:g}'} | " + " | ".join(cells) + " |")
    constant = [summary[(summary.setting == sweep[n]) & (summary.method == "constant")].iloc[0].accuracy_mean
                for n in sizes]
    lines.append("| constant | — | " + " | ".join(f"{c:.3f}" for c in constant) + " |")
    return lines + ["", "✓: mean test accuracy above the constant's; ·: not above."]


def best_lines(summary, settings, epsilons):
    """Per setting and epsilon: the most accurate private classifier (mean over the seeds), against the record
    unit's DPEG and the two-step baseline (cells: accuracy / DP difference)."""
    private = summary[summary.method.isin(PRIVATE)]
    lines = ["| setting | constant | Fairlearn | ε | most accurate private | DPEG record | dpl LR + DPTO |",
             "|---|---|---|---|---|---|---|"]
    for setting in settings:
        part = private[private.setting == setting]
        reference = summary[summary.setting == setting].set_index("method")
        for epsilon in epsilons:
            rows = part[part.epsilon == epsilon].set_index("method")
            if rows.empty or "Fairlearn" not in reference.index:
                continue
            best = rows.accuracy_mean.idxmax()
            cell = {m: (f"{rows.accuracy_mean[m]:.3f} / {rows.difference_mean[m]:.3f}" if m in rows.index else "—")
                    for m in (best, "DPEG record", "dpl LR + DPTO")}
            lines.append(f"| {setting} | {reference.accuracy_mean['constant']:.3f} | "
                         f"{reference.accuracy_mean['Fairlearn']:.3f} / {reference.difference_mean['Fairlearn']:.3f} | "
                         f"{epsilon:g} | {best}: {cell[best]} | {cell['DPEG record']} | {cell['dpl LR + DPTO']} |")
    return lines + ["", "Cells: mean test accuracy / mean DP difference over the seeds."]


def defaults_lines(summary, settings):
    """The record unit's candidate defaults at epsilon = 1: accuracy (DP difference) per setting, average rank."""
    variants = {"fraction 0.3": "fraction 0.3", "DPEG record": "fraction 0.5, choice share 0.1 (default)",
                "fraction 0.7": "fraction 0.7", "share 0.05": "choice share 0.05", "share 0.2": "choice share 0.2",
                "paper regression": "paper regression", "centred": "fraction 0.5, numeric columns centred"}
    part = summary[(summary.epsilon == GOAL_EPSILON) & summary.method.isin(variants)]
    if part.empty:
        return []
    lines = ["| setting | " + " | ".join(variants.values()) + " |", "|---|" + "---|" * len(variants)]
    ranks = {v: [] for v in variants}
    for setting in settings:
        rows = part[part.setting == setting].set_index("method")
        if len(rows) < len(variants):
            continue
        accuracy = rows.accuracy_mean.reindex(list(variants))
        for variant, rank in accuracy.rank(ascending=False).items():
            ranks[variant].append(rank)
        lines.append(f"| {setting} | " + " | ".join(f"{rows.accuracy_mean[v]:.3f} ({rows.difference_mean[v]:.3f})"
                                                     for v in variants) + " |")
    average = {v: float(np.mean(r)) for v, r in ranks.items() if r}
    lines.append("| **average accuracy rank** | " + " | ".join(f"{average.get(v, math.nan):.2f}" for v in variants)
                 + " |")
    means = part[part.setting.isin(settings)].groupby("method")[["accuracy_mean", "difference_mean"]].mean()
    lines.append("| **mean over the settings** | " + " | ".join(
        f"{means.accuracy_mean.get(v, math.nan):.3f} ({means.difference_mean.get(v, math.nan):.3f})"
        for v in variants) + " |")
    if average:
        best = min(average, key=average.get)
        lines += ["", f"Cells: mean test accuracy (mean DP difference) over the seeds. Best average rank (1 = most "
                      f"accurate): **{variants[best]}** ({average[best]:.2f})."]
    return lines


def goal_lines(frame):
    """Item 4's goals per seed on Adult by race at epsilon = 1 (the constructor's defaults)."""
    ok = frame[(frame.setting == "adult race") & (frame.error == "")]
    fairlearn = ok[ok.method == "Fairlearn"].set_index("seed").accuracy
    fairlearn_difference = ok[ok.method == "Fairlearn"].set_index("seed").difference
    lines = ["| seed | Fairlearn accuracy / DP difference | attribute: accuracy / DP difference | met | record: "
             "accuracy / DP difference | met |", "|---|---|---|---|---|---|"]
    met = {"attribute": 0, "record": 0}
    seeds = sorted(ok.seed.unique())
    for seed in seeds:
        cells = [f"{fairlearn.get(seed, math.nan):.3f} / {fairlearn_difference.get(seed, math.nan):.3f}"]
        for unit in met:
            row = ok[(ok.method == f"DPEG {unit}") & (ok.epsilon == GOAL_EPSILON) & (ok.seed == seed)]
            if row.empty:
                cells += ["—", ""]
                continue
            row = row.iloc[0]
            if unit == "attribute":
                good = row.difference <= 0.08 and row.accuracy >= fairlearn.get(seed, math.inf) - 0.01
            else:
                good = row.accuracy >= 0.80 and row.difference <= 0.08
            met[unit] += int(good)
            cells += [f"{row.accuracy:.3f} / {row.difference:.3f}", "yes" if good else "no"]
        lines.append(f"| {seed} | " + " | ".join(cells) + " |")
    return lines + ["", f"Seeds meeting the attribute-unit goal (DP difference ≤ 0.08, accuracy ≥ Fairlearn's − 0.01 "
                        f"on the same split): **{met['attribute']} of {len(seeds)}**; the record-unit goal (accuracy "
                        f"≥ 0.80, DP difference ≤ 0.08): **{met['record']} of {len(seeds)}** (goal: at least 4 of 5). "
                        f"Non-private Fairlearn has DP difference ≤ 0.08 on "
                        f"{int((fairlearn_difference.reindex(seeds) <= 0.08).sum())} of {len(seeds)} of these test "
                        "splits (the smallest race groups have about 120-140 test rows each)."]


# ----------------------------------------------------------------------------------------------------- main
def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: settings {', '.join(QUICK_SETTINGS)}; seed 0, epsilon 1, no file")
    parser.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default 5, or 1 with --quick)")
    parser.add_argument("--settings", nargs="+", default=None, help="run only these settings (names as printed)")
    parser.add_argument("--goals", action="store_true",
                        help="only item 4's table: Adult by race, epsilon 1, Fairlearn and DPEG (both units); no file")
    parser.add_argument("--n-jobs", type=int, default=1, help="joblib workers (default 1)")
    parser.add_argument("--output", type=Path, default=None,
                        help=f"markdown file to write, with the per-seed CSV beside it (default {DEFAULT_OUTPUT}; "
                             "none with --quick)")
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = 1 if args.quick else 5
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    known = setting_names()
    if args.goals:
        if args.quick or args.settings is not None:
            parser.error("--goals runs Adult by race only: not with --quick or --settings")
        args.settings = ["adult race"]
    if args.settings is None:
        args.settings = list(QUICK_SETTINGS) if args.quick else known
    unknown = [s for s in args.settings if s not in known]
    if unknown:
        parser.error(f"unknown settings {unknown}; known: {known}")
    if args.output is None and not (args.quick or args.goals):
        args.output = DEFAULT_OUTPUT
    return args


def report_lines(frame, args, epsilons, elapsed, argv):
    summary = summarise(frame)
    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    seeds = sorted(frame.seed.unique())
    has_choice = frame.chose_constant.notna().any() if "chose_constant" in frame else False
    lines = ["# bench_usefulness: private classifiers against the constant classifier across datasets and regimes",
             "", _common.machine_header(PACKAGES, mode, extra=f" Seeds: {', '.join(map(str, seeds))}."),
             _common.source_state(TIMED_SOURCES), "",
             f"{len(frame)} fits in {elapsed / 60:.1f} min on {args.n_jobs} joblib worker(s) (threadpool_limits(1) "
             f"per fit; {frame.seconds.sum() / 60:.1f} CPU-minutes of fitting). What each method is and how the "
             "settings are built: the script's docstring. Demographic parity throughout.", "",
             "Selection error: the estimator's `constant_choice_.error_bound` (mean over the seeds); † marks the "
             "script's fallback for an estimator without `constant_choice_` (`selection_error_bound(n_fit, 0.1 · "
             "ε_estimator)` on its fitting rows, 0 for the attribute unit's exact choice). "
             + ("" if has_choice else "No estimator of this tree has `constant_choice_`: every bound is the "
                "fallback and 'chose constant' is n/a. ")
             + "Pass: mean test accuracy ≥ the constant's mean − that error.", "",
             "## Acceptance: each private classifier against the constant", "", *acceptance_lines(summary, frame)]
    lines += ["## The most accurate private classifier per setting", "",
              *best_lines(summary, args.settings, epsilons), ""]
    frontier = frontier_lines(summary, epsilons)
    if frontier:
        lines += ["## Frontier: the synthetic rows sweep (other factors at the centre point)", "", *frontier, ""]
    defaults = defaults_lines(summary, args.settings)
    if defaults:
        lines += [f"## Defaults of the record unit (DPExponentiatedGradient, ε = {GOAL_EPSILON:g})", "", *defaults, ""]
    if (frame.setting == "adult race").any():
        lines += [f"## Item 4 goals per seed: Adult by race, ε = {GOAL_EPSILON:g}, the constructor's defaults", "",
                  *goal_lines(frame), ""]
    return lines + ["## Per setting", "", *setting_tables(summary, args.settings, epsilons)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    warnings.simplefilter("ignore", FutureWarning)
    seeds = list(range(args.seeds))
    epsilons = (GOAL_EPSILON,) if args.quick else EPSILONS
    if args.goals:
        epsilons = (GOAL_EPSILON,)
        jobs = [dict(method=m, setting="adult race", seed=seed, **({} if m == "Fairlearn" else
                                                                      {"epsilon": GOAL_EPSILON}))
                for seed in seeds for m in ("Fairlearn", "DPEG attribute", "DPEG record")]
    else:
        jobs = make_jobs(args.settings, seeds, epsilons)
    print(f"bench_usefulness: {len(jobs)} fits on {args.n_jobs} worker(s) ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    frame = pd.DataFrame(run_jobs(jobs, args.n_jobs))
    elapsed = time.perf_counter() - start
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        frame.to_csv(args.output.with_suffix(".csv"), index=False, float_format="%.6g")
    report = "\n".join(goal_lines(frame) if args.goals else report_lines(frame, args, epsilons, elapsed, argv))
    failed = int((frame.error != "").sum())
    return _common.finish(report, args.output, "bench_usefulness", failed == 0, f"{failed} fit(s) raised an error.")


if __name__ == "__main__":
    sys.exit(main())
