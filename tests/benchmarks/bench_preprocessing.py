"""Benchmark: the DP pre-processors (DPReweighing, DPDisparateImpactRemover) on Adult by sex and by race.

What is measured
----------------
Issue 40. AIF360's disparate-impact demo data: ``AdultDataset(protected_attribute_names=[attribute],
privileged_classes=..., categorical_features=[], features_to_keep=[age, education-num, capital-gain, capital-loss,
hours-per-week])`` (the bundled Adult files; sex: Male privileged, race: White privileged), split 70/30 with numpy's
generator seeded 0 (as AIF360's demos split). A ``LogisticRegression`` (on standardised features) is trained

- **reweighing**: on all features with the training set's weights from ``Reweighing`` (AIF360, non-private) or
  ``DPReweighing(epsilon=e, seed=s)``, as ``demo_reweighing_preproc`` does;
- **remover**: on the repaired features without the protected attribute, as ``demo_disparate_impact_remover`` does
  (``repair_level=1``). AIF360's ``DisparateImpactRemover`` (needs BlackBoxAuditing; the row is skipped without it)
  repairs the test split with its own ``fit_transform`` (it cannot apply a fitted repair to other data);
  ``DPDisparateImpactRemover(epsilon=e, seed=s)`` is fitted once on the training split (one release) and
  ``transform`` repairs both splits. Public ranges: age 17-90, education-num 1-16 and hours-per-week 1-99 one value
  per bin; capital-gain [0, 99999] and capital-loss [0, 4356] in 100 bins each.

Rows: no mitigation; the non-private AIF360 class; the constant classifier (the test share of the majority label,
demographic-parity difference 0); the DP remover at epsilon = inf (its bins and its one fitted map, without noise:
what separates it from AIF360's row besides the noise); each DP class at epsilon 0.5, 1 and 2, mean ± sd over seeds 0 .. S-1 (default 5).
Columns: test accuracy and the demographic-parity difference (``fairlearn.metrics.demographic_parity_difference``
over the attribute's two groups) of the test predictions. No goal: the script measures.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_preprocessing.py              # about 1 minute (2 cores)
    .venv/bin/python tests/benchmarks/bench_preprocessing.py --quick      # epsilon 1, 2 seeds, no AIF360 remover, no file

It writes ``tests/benchmarks/results/bench_preprocessing.md``.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py; scripts run from this folder
import numpy as np
from aif360.algorithms.preprocessing import Reweighing
from fairlearn.metrics import demographic_parity_difference
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from aif360_dp.algorithms.preprocessing import DPDisparateImpactRemover, DPReweighing
from aif360_dp.datasets import AdultDataset
from fairlearn_dp.privacy import BudgetAccountant

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_preprocessing.md"
TIMED_SOURCES = ["fairlearn_dp/preprocessing/_reweighing.py", "fairlearn_dp/preprocessing/_disparate_impact.py"]
FEATURES = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
PRIVILEGED = {"sex": [["Male"]], "race": [["White"]]}
RANGES = {"age": (16.5, 90.5), "education-num": (0.5, 16.5), "hours-per-week": (0.5, 99.5),
          "capital-gain": (0.0, 99999.0), "capital-loss": (0.0, 4356.0)}
BINS = {"age": 74, "education-num": 16, "hours-per-week": 99, "capital-gain": 100, "capital-loss": 100}
EPSILONS = (0.5, 1.0, 2.0)


def split(attribute):
    """The data with ``attribute`` protected, split 70/30 (numpy's global generator restored afterwards)."""
    data = AdultDataset(protected_attribute_names=[attribute], privileged_classes=PRIVILEGED[attribute],
                        categorical_features=[], features_to_keep=FEATURES)
    state = np.random.get_state()
    try:
        np.random.seed(0)
        return data.split([0.7], shuffle=True)
    finally:
        np.random.set_state(state)


def scores(train, test, attribute, *, weights=None, drop=False, test_features=None):
    """Test accuracy and demographic-parity difference of a logistic regression fitted on ``train``."""
    column = train.feature_names.index(attribute)
    X_train, X_test = train.features, test.features if test_features is None else test_features
    if drop:
        X_train, X_test = np.delete(X_train, column, axis=1), np.delete(X_test, column, axis=1)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit(X_train, train.labels.ravel(), logisticregression__sample_weight=weights)
    predicted = model.predict(X_test)
    y = test.labels.ravel()
    groups = test.protected_attributes[:, 0]
    return float(np.mean(predicted == y)), float(demographic_parity_difference(y, predicted,
                                                                               sensitive_features=groups))


def reweighing_rows(train, test, attribute, epsilons, seeds):
    groups = ([{attribute: 0.0}], [{attribute: 1.0}])
    reference = Reweighing(*groups).fit_transform(train)
    rows = [("reweighing: AIF360 Reweighing", [scores(train, test, attribute,
                                                       weights=reference.instance_weights)])]
    for epsilon in epsilons:
        cells = []
        for seed in seeds:
            weighted = DPReweighing(*groups, epsilon=epsilon, seed=seed,
                                    accountant=BudgetAccountant()).fit_transform(train)
            cells.append(scores(train, test, attribute, weights=weighted.instance_weights))
        rows.append((f"reweighing: DPReweighing, epsilon {epsilon:g}", cells))
    return rows


def remover_rows(train, test, attribute, epsilons, seeds, with_aif360):
    rows = []
    if with_aif360:
        from aif360.algorithms.preprocessing import DisparateImpactRemover

        remover = DisparateImpactRemover(repair_level=1.0)
        rows.append(("remover: AIF360 DisparateImpactRemover", [scores(
            remover.fit_transform(train), remover.fit_transform(test), attribute, drop=True)]))
    for epsilon in (math.inf, *epsilons):      # inf: the binning and the one fitted map, without noise
        cells = []
        for seed in seeds[:1] if math.isinf(epsilon) else seeds:
            remover = DPDisparateImpactRemover(repair_level=1.0, epsilon=epsilon, feature_ranges=RANGES,
                                               n_bins=BINS, seed=seed, accountant=BudgetAccountant()).fit(train)
            cells.append(scores(remover.transform(train), remover.transform(test), attribute, drop=True))
        rows.append((f"remover: DPDisparateImpactRemover, epsilon {epsilon:g}", cells))
    return rows


def table(attribute, epsilons, seeds, with_aif360):
    train, test = split(attribute)
    y = test.labels.ravel()
    rows = [("no mitigation", [scores(train, test, attribute)]),
            ("constant classifier", [(max(np.mean(y), 1 - np.mean(y)), 0.0)])]
    rows += reweighing_rows(train, test, attribute, epsilons, seeds)
    rows += remover_rows(train, test, attribute, epsilons, seeds, with_aif360)
    lines = [f"### Adult by {attribute} ({train.features.shape[0]} training, {test.features.shape[0]} test rows)", "",
             "| row | test accuracy | demographic-parity difference |", "|---|---|---|"]
    for name, cells in rows:
        accuracy, difference = zip(*cells, strict=True)
        lines.append(f"| {name} | {_common.mean_sd(accuracy)} | {_common.mean_sd(difference)} |")
    return lines + [""]


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=2, unit="seeds")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=2)
    seeds = range(args.repeats)
    epsilons = (1.0,) if args.quick else EPSILONS
    with_aif360 = not args.quick and importlib.util.find_spec("BlackBoxAuditing") is not None
    source = _common.source_state(TIMED_SOURCES)
    warnings.simplefilter("ignore")             # the fits' UtilityWarnings and AIF360's notices are not news here
    with threadpool_limits(1):
        lines = [line for attribute in ("sex", "race") for line in table(attribute, epsilons, seeds, with_aif360)]
    mode = "quick" if args.quick else f"full ({len(seeds)} seeds)"
    extra = f" Load average at the start: {os.getloadavg()[0]:.1f} (shared machine)."
    extra += "" if with_aif360 else " BlackBoxAuditing not installed or quick mode: no AIF360 remover row."
    report = "\n".join([
        "# bench_preprocessing: DPReweighing and DPDisparateImpactRemover on Adult", "",
        _common.machine_header(("numpy", "scikit-learn", "fairlearn", "aif360", "diffprivlib"), mode, extra), source,
        "", "Mean ± sd over the noise seeds (one value for the deterministic rows).", "", *lines])
    return _common.finish(report, args.output, "bench_preprocessing", True)


if __name__ == "__main__":
    sys.exit(main())
