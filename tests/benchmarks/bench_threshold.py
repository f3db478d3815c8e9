"""Benchmark: DPThresholdOptimizer / DPEqOddsPostprocessing against Fairlearn's and AIF360's post-processors.

What is measured
----------------
On UCI Adult (``fetch_adult()``, label ``class == '>50K'``) a scikit-learn ``Pipeline`` (one-hot encoding of the
categorical features, missing values as their own category, standardised numeric features, then a
``LogisticRegression``) is trained once on a separate third of the rows (``sex``, ``race`` and ``fnlwgt`` are not
model features). The post-processors then use it prefit: they are fitted on a second third and predict on the
last third. All splits are stratified on (sex, race, label) with a fixed seed. In the same run the script times

1. Fairlearn's ``ThresholdOptimizer(estimator=pipe, prefit=True, predict_method="predict_proba", constraints=c,
   objective="accuracy_score")`` for ``c`` in {"demographic_parity", "equalized_odds"}, with the sensitive
   features (a) ``sex`` (2 groups), (b) ``race`` (5 groups) and (c) ``sex`` and ``race`` as a two-column DataFrame
   (10 groups);
2. ``fairlearn_dp.postprocessing.DPThresholdOptimizer`` with the same arguments plus ``epsilon=1``, a fresh
   ``diffprivlib.BudgetAccountant`` per fit, the public group lists ``SEX_GROUPS`` / ``RACE_GROUPS`` /
   ``SEX_RACE_GROUPS`` below (checked against the labels found in the data) and the default ``n_score_bins``; the
   fit noise uses the default ``random_state=None`` (diffprivlib's secure generator), the path users run;
3. AIF360's ``EqOddsPostprocessing`` against ``aif360_dp.algorithms.postprocessing.DPEqOddsPostprocessing
   (epsilon=1)`` on ``aif360_dp.datasets.AdultDataset(protected_attribute_names=['sex'], privileged_classes=
   [['Male']])`` (``race`` added to the one-hot encoded columns, since it is no longer a protected attribute and
   AIF360 needs numeric features). The AIF360 rows are the Adult rows of the fit / predict thirds that AIF360 keeps
   (it drops the rows with a missing value); the predicted dataset is a copy whose labels are the pipeline's binary
   predictions. Both transformers get ``seed=SEED``; the DP one also a fresh accountant per fit.

Every timing is the median of 5 calls (3 with ``--quick``) after one untimed warm-up call of each estimator
(imports, cvxpy's first-call overhead); fits of the two toolkits alternate so that drift in machine load hits both.
``predict`` is timed on the fitted object of the last fit, with a fixed ``random_state`` / ``seed``.

Goal (from the issue): the DP fit takes at most 1.5x the non-private fit (Fairlearn's, resp. AIF360's) in every
row. Predict ratios are reported, not checked.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_threshold.py            # full run, about 20 s
    .venv/bin/python tests/benchmarks/bench_threshold.py --quick    # smoke run: 3 repeats, no file

The full run prints a GitHub-markdown table and writes it to ``tests/benchmarks/results/bench_threshold.md``;
``--quick`` only prints unless ``--output`` is given. The exit status is non-zero if a goal fails (the failing
rows are printed).
"""

from __future__ import annotations

import logging
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from fairlearn_dp.privacy import BudgetAccountant

logging.getLogger().setLevel(logging.ERROR)     # AIF360 logs optional-extra warnings on the root logger at import

import _common  # noqa: E402  (tests/benchmarks/_common.py; scripts run from this folder)
from aif360.algorithms.postprocessing import EqOddsPostprocessing  # noqa: E402
from fairlearn.postprocessing import ThresholdOptimizer  # noqa: E402

from aif360_dp.algorithms.postprocessing import DPEqOddsPostprocessing  # noqa: E402
from aif360_dp.datasets import AdultDataset  # noqa: E402
from fairlearn_dp.datasets import fetch_adult  # noqa: E402
from fairlearn_dp.postprocessing import DPThresholdOptimizer  # noqa: E402

EPSILON = 1.0
SEED = 20240721                 # splits, the pipeline, predict randomisation, AIF360 seeds
GOAL_RATIO = 1.5                # DP fit / non-private fit
CONSTRAINTS = ("demographic_parity", "equalized_odds")
OBJECTIVE = "accuracy_score"
# Public group lists (the labels present in Adult); the first group is the DP LP's anchor group.
SEX_GROUPS = ("Male", "Female")
RACE_GROUPS = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other")
SEX_RACE_GROUPS = tuple(f"{sex},{race}" for sex in SEX_GROUPS for race in RACE_GROUPS)  # "sex,race", as combined
SETTINGS = (("sex", ("sex",), SEX_GROUPS), ("race", ("race",), RACE_GROUPS),
            ("sex+race", ("sex", "race"), SEX_RACE_GROUPS))
NUMERIC = ("age", "education-num", "capital-gain", "capital-loss", "hours-per-week")
CATEGORICAL = ("workclass", "education", "marital-status", "occupation", "relationship", "native-country")
AIF360_CATEGORICAL = [*CATEGORICAL, "race"]
AIF360_N_TRAIN, AIF360_N_TEST = 32_561, 16_281   # AdultDataset puts adult.test first: instance i -> fetch_adult row
DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_threshold.md"
REPOSITORY = Path(__file__).resolve().parents[2]
TIMED_SOURCES = ("fairlearn_dp/postprocessing/_threshold_optimizer.py",
                 "aif360_dp/algorithms/postprocessing/_dp_eq_odds.py", "fairlearn_dp/privacy/_release.py",
                 "fairlearn_dp/_utils/_validation.py", "fairlearn_dp/postprocessing/_mixing_lp.py", "fairlearn_dp/postprocessing/_threshold_params.py")


# ------------------------------------------------------------------------------------------------------ data
def load_adult():
    """Adult features, 0/1 labels, sensitive features and the three stratified splits (estimator, fit, predict)."""
    data = fetch_adult(as_frame=True)
    X = data.data
    y = (data.target.astype(str) == ">50K").astype(int).to_numpy()
    sensitive = data.sensitive_features
    strata = sensitive["sex"].astype(str) + "|" + sensitive["race"].astype(str) + "|" + pd.Series(y).astype(str)
    rows = np.arange(len(X))
    train, rest = train_test_split(rows, train_size=1 / 3, stratify=strata, random_state=SEED)
    fit, predict = train_test_split(rest, train_size=0.5, stratify=strata.iloc[rest], random_state=SEED)
    return X, y, sensitive, {"train": train, "fit": fit, "predict": predict}


def train_pipeline(X, y):
    """The base classifier, trained once; the post-processors use it prefit."""
    encode = ColumnTransformer([
        ("categorical", OneHotEncoder(handle_unknown="ignore"), list(CATEGORICAL)),
        ("numeric", StandardScaler(), list(NUMERIC)),
    ])
    return Pipeline([("encode", encode), ("classify", LogisticRegression(max_iter=1000))]).fit(X, y)


def sensitive_frame(sensitive, columns, rows):
    """A Series for one column, a two-column DataFrame for ``sex`` and ``race``."""
    part = sensitive.iloc[rows][list(columns)].astype(str).reset_index(drop=True)
    return part.iloc[:, 0] if len(columns) == 1 else part


def check_groups(sensitive, columns, groups):
    """The public constants must be exactly the groups present (in the combined "a,b" form for two columns)."""
    found = set(sensitive[list(columns)].astype(str).agg(",".join, axis=1))
    if found != set(groups):
        raise RuntimeError(f"{'+'.join(columns)}: groups in the data {sorted(found)} differ from the public "
                           f"constant {sorted(groups)}; update the constants.")


def aif360_datasets(pipe, X, splits):
    """AIF360 (true, predicted) dataset pairs for the fit and predict rows; predicted labels from ``pipe``."""
    full = AdultDataset(protected_attribute_names=["sex"], privileged_classes=[["Male"]],
                        categorical_features=AIF360_CATEGORICAL)
    instance = np.asarray(full.instance_names, dtype=int)
    source_row = np.where(instance < AIF360_N_TEST, instance + AIF360_N_TRAIN, instance - AIF360_N_TEST)
    pairs = {}
    for name in ("fit", "predict"):
        positions = np.flatnonzero(np.isin(source_row, splits[name]))
        true = full.subset(positions)
        predicted = true.copy(deepcopy=True)
        hard = pipe.predict(X.iloc[source_row[positions]])
        predicted.labels = np.where(hard == 1, true.favorable_label, true.unfavorable_label).reshape(-1, 1)
        pairs[name] = (true, predicted)
    return pairs


# ---------------------------------------------------------------------------------------------------- timing
def timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def time_pair(make_reference, make_dp, fit_reference, fit_dp, predict_reference, predict_dp, repeats):
    """Median fit and predict times of the reference and the DP estimator; fits alternate between the two."""
    for make, fit, predict in ((make_reference, fit_reference, predict_reference), (make_dp, fit_dp, predict_dp)):
        predict(fit(make()))                                     # untimed warm-up of both calls
    fit_times = {"reference": [], "dp": []}
    fitted = {}
    for _ in range(repeats):
        for key, make, fit in (("reference", make_reference, fit_reference), ("dp", make_dp, fit_dp)):
            estimator = make()                                   # construction (and a fresh accountant) not timed
            seconds, fitted[key] = timed(lambda: fit(estimator))
            fit_times[key].append(seconds)
    predict_times = {"reference": [], "dp": []}
    outputs = {}
    for _ in range(repeats):
        for key, predict in (("reference", predict_reference), ("dp", predict_dp)):
            seconds, outputs[key] = timed(lambda: predict(fitted[key]))
            predict_times[key].append(seconds)
    return ({key: statistics.median(values) for key, values in fit_times.items()},
            {key: statistics.median(values) for key, values in predict_times.items()}, fitted, outputs)


def threshold_row(pipe, X, y, sensitive, splits, *, setting, columns, groups, constraints, repeats):
    X_fit, y_fit = X.iloc[splits["fit"]], y[splits["fit"]]
    X_new = X.iloc[splits["predict"]]
    sf_fit = sensitive_frame(sensitive, columns, splits["fit"])
    sf_new = sensitive_frame(sensitive, columns, splits["predict"])
    common = {"estimator": pipe, "prefit": True, "predict_method": "predict_proba", "constraints": constraints,
                  "objective": OBJECTIVE}
    accountants = []

    def make_dp():
        accountants.append(BudgetAccountant())
        return DPThresholdOptimizer(**common, epsilon=EPSILON, groups=list(groups), accountant=accountants[-1])

    fit_s, predict_s, fitted, outputs = time_pair(
        lambda: ThresholdOptimizer(**common), make_dp,
        lambda model: model.fit(X_fit, y_fit, sensitive_features=sf_fit),
        lambda model: model.fit(X_fit, y_fit, sensitive_features=sf_fit),
        lambda model: model.predict(X_new, sensitive_features=sf_new, random_state=SEED),
        lambda model: model.predict(X_new, sensitive_features=sf_new, random_state=SEED), repeats)
    check_predictions(outputs, len(X_new), f"{setting}/{constraints}")
    check_charge(accountants[-1], fitted["dp"], f"{setting}/{constraints}")
    y_new = y[splits["predict"]]
    return {"toolkit": "Fairlearn", "setting": f"{setting} ({len(groups)} groups)", "constraint": constraints,
                "n_fit": len(X_fit), "n_predict": len(X_new), "fit": fit_s, "predict": predict_s,
                "accuracy": {key: float(np.mean(value == y_new)) for key, value in outputs.items()}}


def aif360_row(pairs, repeats):
    (fit_true, fit_pred), (new_true, new_pred) = pairs["fit"], pairs["predict"]
    groups = {"unprivileged_groups": [{"sex": 0.0}], "privileged_groups": [{"sex": 1.0}], "seed": SEED}
    accountants = []

    def make_dp():
        accountants.append(BudgetAccountant())
        return DPEqOddsPostprocessing(**groups, epsilon=EPSILON, accountant=accountants[-1])

    fit_s, predict_s, fitted, outputs = time_pair(
        lambda: EqOddsPostprocessing(**groups), make_dp,
        lambda model: model.fit(fit_true, fit_pred), lambda model: model.fit(fit_true, fit_pred),
        lambda model: model.predict(new_pred), lambda model: model.predict(new_pred), repeats)
    labels = {key: (value.labels.ravel() == value.favorable_label).astype(int) for key, value in outputs.items()}
    check_predictions(labels, new_pred.labels.shape[0], "AIF360")
    check_charge(accountants[-1], fitted["dp"], "AIF360")
    y_new = (new_true.labels.ravel() == new_true.favorable_label).astype(int)
    return {"toolkit": "AIF360", "setting": "sex (2 groups), AdultDataset", "constraint": "equalized odds (EqOdds)",
                "n_fit": fit_true.labels.shape[0], "n_predict": new_pred.labels.shape[0], "fit": fit_s, "predict": predict_s,
                "accuracy": {key: float(np.mean(value == y_new)) for key, value in labels.items()}}


def check_predictions(outputs, n_rows, where):
    for key, value in outputs.items():
        value = np.asarray(value)
        if value.shape != (n_rows,) or not np.all(np.isin(value, (0, 1))):
            raise RuntimeError(f"{where}: {key} predictions are not {n_rows} binary labels.")


def check_charge(accountant, fitted, where):
    """One fit charges the fresh accountant exactly (epsilon, 0) once."""
    spent_epsilon, spent_delta = accountant.total()
    if len(accountant.spent_budget) != 1 or not np.isclose(spent_epsilon, EPSILON) or spent_delta != 0:
        raise RuntimeError(f"{where}: the DP fit charged {accountant.spent_budget}, expected one ({EPSILON}, 0).")
    if not np.isclose(fitted.privacy_spent_.epsilon, EPSILON):
        raise RuntimeError(f"{where}: privacy_spent_ is {fitted.privacy_spent_}.")


# --------------------------------------------------------------------------------------------------- report
def machine_header(mode):
    return _common.machine_header(("numpy", "pandas", "scikit-learn", "fairlearn", "aif360", "diffprivlib", "cvxpy",
                                   "highspy"), mode)


def source_state():
    return _common.source_state(TIMED_SOURCES)


def passed(row):
    return row["fit"]["dp"] <= GOAL_RATIO * row["fit"]["reference"]


def markdown_table(rows):
    header = ["toolkit", "setting", "constraint", "non-DP fit (s)", "DP fit (s)", "fit ratio DP / non-DP",
              "non-DP predict (s)", "DP predict (s)", "predict ratio", f"goal: DP fit <= {GOAL_RATIO:g}x",
              "accuracy non-DP / DP"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        fit, predict = row["fit"], row["predict"]
        cells = [row["toolkit"], row["setting"], row["constraint"], f"{fit['reference']:.4f}", f"{fit['dp']:.4f}",
                 f"{fit['dp'] / fit['reference']:.2f}x", f"{predict['reference']:.4f}", f"{predict['dp']:.4f}",
                 f"{predict['dp'] / predict['reference']:.2f}x", "PASS" if passed(row) else "**FAIL**",
                 f"{row['accuracy']['reference']:.3f} / {row['accuracy']['dp']:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_args(argv):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=3, unit="calls")
    return _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=3)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    source = source_state()                             # right after the imports: the code actually timed
    warnings.simplefilter("ignore", FutureWarning)      # library deprecation chatter; not part of what is timed
    X, y, sensitive, splits = load_adult()
    for _, columns, groups in SETTINGS:
        check_groups(sensitive, columns, groups)
    pipe = train_pipeline(X.iloc[splits["train"]], y[splits["train"]])

    rows = []
    for setting, columns, groups in SETTINGS:
        for constraints in CONSTRAINTS:
            print(f"Fairlearn vs DP: {setting}, {constraints} ({args.repeats} repeats) ...", file=sys.stderr,
                  flush=True)
            rows.append(threshold_row(pipe, X, y, sensitive, splits, setting=setting, columns=columns,
                                      groups=groups, constraints=constraints, repeats=args.repeats))
    print(f"AIF360 EqOdds vs DP ({args.repeats} repeats) ...", file=sys.stderr, flush=True)
    rows.append(aif360_row(aif360_datasets(pipe, X, splits), args.repeats))

    mode = ("quick" if args.quick else "full") + f" (arguments: {' '.join(argv) or 'none'})"
    first, last = rows[0], rows[-1]
    notes = [
        f"Adult (fetch_adult, n={len(X)}): LogisticRegression pipeline trained once on {len(splits['train'])} rows "
        f"(no sex/race/fnlwgt features), used prefit; post-processors fit on n={first['n_fit']} rows and predict "
        f"on n={first['n_predict']} (AIF360 rows: the {last['n_fit']} / {last['n_predict']} of them AIF360 keeps). "
        f"Median of {args.repeats} calls after one untimed warm-up each.",
        f"Fairlearn rows: ThresholdOptimizer(prefit=True, predict_method='predict_proba', objective='{OBJECTIVE}') "
        f"vs DPThresholdOptimizer(same, epsilon={EPSILON:g}, groups=public list, n_score_bins default, fresh "
        "BudgetAccountant, random_state=None); sex+race is passed as a 2-column DataFrame.",
        f"AIF360 row: EqOddsPostprocessing vs DPEqOddsPostprocessing(epsilon={EPSILON:g}, fresh BudgetAccountant), "
        f"seed={SEED} for both; fit(dataset_true, dataset_pred), predict(dataset_pred).",
        "Accuracy on the predict rows (one randomised prediction) is a sanity check, not a goal.",
    ]
    failures = [row for row in rows if not passed(row)]
    check_lines = [f"- {'PASS' if passed(row) else 'FAIL'}: {row['toolkit']} {row['setting']}, {row['constraint']}:"
                   f" DP fit {row['fit']['dp']:.4f} s <= {GOAL_RATIO:g} x {row['fit']['reference']:.4f} s "
                   f"(ratio {row['fit']['dp'] / row['fit']['reference']:.2f})" for row in rows]
    report = "\n".join(["# bench_threshold: DP post-processing for group fairness vs Fairlearn / AIF360", "",
                        machine_header(mode), source, "", markdown_table(rows), "", *notes, "",
                        f"Goal: DP fit within {GOAL_RATIO:g}x of the non-private fit, per row:", *check_lines, ""])
    _common.publish(report, args.output)
    if failures:
        print(f"bench_threshold: FAILED - DP fit slower than {GOAL_RATIO:g}x the non-private fit in "
              f"{len(failures)} row(s): " + "; ".join(f"{row['toolkit']} {row['setting']} {row['constraint']} "
                                                      f"({row['fit']['dp'] / row['fit']['reference']:.2f}x)"
                                                      for row in failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
