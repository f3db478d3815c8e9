"""Benchmark: the record unit's row bound from a declared Pipeline, and the two-step pipeline with DPLogisticRegression.

What is measured
----------------
(a) ``DPExponentiatedGradient(Pipeline, DemographicParity(difference_bound=0.01), epsilon=1, delta=1e-5,
    privacy_unit="record", random_state=seed)`` on data whose preprocessing is declared, with ``row_norm_bound=None``
    (the bound the Pipeline's declared preprocessing gives) and with ``row_norm_bound=sqrt(d)`` (what the fit fell
    back to before: ``feature_bound * sqrt(d)`` with the default ``feature_bound=1``, ``d`` output columns):
    - raw Adult (``fetch_adult``, sex and race not features), by sex and by race: the five numeric columns scaled
      onto [0, 1] by a ``MinMaxScaler(clip=True)`` fitted on ``ADULT_PUBLIC_BOUNDS`` (``FrozenEstimator``), the
      categorical ones one-hot over ``adult_categories()`` (derived bound sqrt(11));
    - Law School (``fetch_law_school``), label pass_bar, by race: lsat in [10, 48] and ugpa in ``LAW_SCHOOL_BOUNDS``
      scaled onto [0, 1] the same way, race one-hot (derived bound sqrt(3)).
(b) The two-step pipeline under ``privacy_unit="record"`` on ``adult_features("sex")``: ``DPLogisticRegression(
    epsilon=0.5, data_norm=sqrt(11), C=C)`` then ``DPThresholdOptimizer(prefit=True, constraints=
    "demographic_parity", predict_method="predict_proba", epsilon=0.5, privacy_unit="record")``, C in {1, 0.1,
    0.01} (the base model's own accuracy is reported too).

Seeds 0 .. S-1 (``--seeds``, default 5) set the 70/30 split and the noise; test accuracy and demographic-parity
difference, mean ± sd. The constant classifier's accuracy (the test share of the majority label) is reported per
setting. No goal: the script measures.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_row_bounds.py              # about 1 minute (2 cores)
    .venv/bin/python tests/benchmarks/bench_row_bounds.py --quick      # 2 seeds, no file

It writes ``tests/benchmarks/results/bench_row_bounds.md``.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py; scripts run from this folder
import numpy as np
import pandas as pd
from fairlearn.metrics import demographic_parity_difference
from fairlearn.reductions import DemographicParity
from sklearn.compose import ColumnTransformer
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder

from fairlearn_dp.datasets import (
    ADULT_PUBLIC_BOUNDS,
    LAW_SCHOOL_BOUNDS,
    adult_categories,
    adult_features,
    fetch_adult,
    fetch_law_school,
)
from fairlearn_dp.postprocessing import DPThresholdOptimizer
from fairlearn_dp.privacy import BudgetAccountant
from fairlearn_dp.reductions import DPExponentiatedGradient, DPLogisticRegression

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_row_bounds.md"
TIMED_SOURCES = ["fairlearn_dp/reductions/_pipeline_bounds.py", "fairlearn_dp/reductions/_dp_logistic_regression.py"]


def declared_pipeline(ranges, categories):
    """Numeric columns clip-scaled onto [0, 1] from their declared ranges; categorical ones one-hot, declared."""
    numeric = list(ranges)
    scaler = MinMaxScaler(clip=True).fit(pd.DataFrame({c: list(ranges[c]) for c in numeric}))
    encoder = OneHotEncoder(categories=[categories[c] for c in categories], handle_unknown="ignore")
    pre = ColumnTransformer([("num", FrozenEstimator(scaler), numeric), ("cat", encoder, list(categories))])
    width = len(numeric) + sum(len(v) for v in categories.values())
    return Pipeline([("pre", pre), ("clf", LogisticRegression())]), width


def adult_setting(attribute):
    adult = fetch_adult()
    codebook = adult_categories()
    categories = {c: codebook[c] for c in codebook if c not in ("sex", "race")}
    X = adult.data.drop(columns=["sex", "race"])
    y = (adult.target == ">50K").astype(int).to_numpy()
    return X, y, adult.sensitive_features[attribute], dict(ADULT_PUBLIC_BOUNDS), categories


def law_school_setting():
    law = fetch_law_school(as_frame=True)
    races = ["asian", "black", "hisp", "white"]
    X = law.frame[["lsat", "ugpa"]].assign(race=law.sensitive_features)
    return (X, law.frame["pass_bar"].to_numpy(), law.sensitive_features,
            {"lsat": (10.0, 48.0), "ugpa": tuple(LAW_SCHOOL_BOUNDS)}, {"race": races})


def summary(values):
    values = np.asarray(values, dtype=float)
    return f"{values.mean():.3f} ± {values.std():.3f}"


def record_rows(name, setting, seeds):
    X, y, a, ranges, categories = setting
    pipeline, width = declared_pipeline(ranges, categories)
    groups = sorted(pd.unique(a).tolist())
    rows = []
    for label, bound in (("declared Pipeline (row_norm_bound=None)", None), ("fallback sqrt(d)", math.sqrt(width))):
        accuracy, difference, constant, used = [], [], [], None
        for seed in seeds:
            X_train, X_test, y_train, y_test, a_train, a_test = train_test_split(X, y, a, test_size=0.3,
                                                                                 random_state=seed)
            model = DPExponentiatedGradient(pipeline, DemographicParity(difference_bound=0.01), epsilon=1.0,
                                            delta=1e-5, groups=groups, privacy_unit="record", random_state=seed,
                                            sample_weight_name="clf__sample_weight", row_norm_bound=bound,
                                            accountant=BudgetAccountant())
            model.fit(X_train, y_train, sensitive_features=a_train)
            predictions = model.predict(X_test, random_state=seed)
            accuracy.append(np.mean(predictions == y_test))
            difference.append(demographic_parity_difference(y_test, predictions, sensitive_features=a_test))
            constant.append(max(np.mean(y_test), 1 - np.mean(y_test)))
            used = model.row_norm_bound_
        rows.append((name, label, f"{used:.4f}", summary(accuracy), summary(difference), summary(constant)))
    return rows


def two_step_rows(seeds):
    X, y, sex = adult_features("sex")
    rows = []
    for C in (1.0, 0.1, 0.01):
        base_accuracy, accuracy, difference, constant = [], [], [], []
        for seed in seeds:
            X_train, X_test, y_train, y_test, s_train, s_test = train_test_split(X, y, sex, test_size=0.3,
                                                                                 random_state=seed)
            accountant = BudgetAccountant()
            base = DPLogisticRegression(epsilon=0.5, data_norm=X.attrs["row_norm_bound"], C=C, random_state=seed,
                                        accountant=accountant).fit(X_train, y_train)
            post = DPThresholdOptimizer(estimator=base, prefit=True, constraints="demographic_parity",
                                        predict_method="predict_proba", epsilon=0.5, groups=["Female", "Male"],
                                        privacy_unit="record", random_state=seed, accountant=accountant)
            post.fit(X_train, y_train, sensitive_features=s_train)
            predictions = post.predict(X_test, sensitive_features=s_test, random_state=seed)
            base_accuracy.append(np.mean(base.predict(X_test) == y_test))
            accuracy.append(np.mean(predictions == y_test))
            difference.append(demographic_parity_difference(y_test, predictions, sensitive_features=s_test))
            constant.append(max(np.mean(y_test), 1 - np.mean(y_test)))
        rows.append(("Adult, sex (adult_features)", f"DPLogisticRegression(C={C:g}) + DPThresholdOptimizer; "
                     f"base alone {summary(base_accuracy)}", f"{X.attrs['row_norm_bound']:.4f}", summary(accuracy),
                     summary(difference), summary(constant)))
    return rows


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=2, unit="seeds")
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 .. S-1 (default 5; 2 with --quick)")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=2)
    seeds = range(2 if args.quick else args.seeds)
    source = _common.source_state(TIMED_SOURCES)
    warnings.simplefilter("ignore")             # the fits' UtilityWarnings are the point of setting (a), not news
    rows = (record_rows("raw Adult, sex", adult_setting("sex"), seeds)
            + record_rows("raw Adult, race", adult_setting("race"), seeds)
            + record_rows("Law School, pass_bar, race", law_school_setting(), seeds) + two_step_rows(seeds))
    header = ("| setting | method | row bound | accuracy | DP difference | constant classifier |\n"
              "|---|---|---|---|---|---|")
    table = "\n".join([header] + ["| " + " | ".join(row) + " |" for row in rows])
    mode = "quick" if args.quick else f"full ({len(seeds)} seeds)"
    report = "\n".join([
        "# bench_row_bounds: the record unit's row bound from a declared Pipeline; the two-step pipeline", "",
        _common.machine_header(("numpy", "pandas", "scikit-learn", "fairlearn", "diffprivlib"), mode), source, "",
        table, "",
        f"epsilon = 1 (delta = 1e-5 for DPExponentiatedGradient), seeds 0-{len(seeds) - 1} (split and noise), "
        "70/30 splits, mean ± sd over seeds. 'fallback sqrt(d)' is the bound the fit took before it derived one "
        "from the declared preprocessing (feature_bound=1 times the square root of the number of output columns).",
        ""])
    return _common.finish(report, args.output, "bench_row_bounds", True)


if __name__ == "__main__":
    sys.exit(main())
