"""Benchmark: DPCalibratedEqOddsPostprocessing and DPRejectOptionClassification on Adult (issue 40).

What is measured
----------------
AIF360's Adult (``aif360_dp.datasets.AdultDataset()``, the bundled copy of AIF360's default features), by sex and
by race (privileged 1, unprivileged 0), split 60/20/20 into train, validation and test after ``numpy.random.seed(0)``
(AIF360's ``split`` shuffles with numpy's global generator), as AIF360's calibrated equalized-odds demo does.
``LogisticRegression(max_iter=1000)`` on standardised train features scores the validation and test rows; each
post-processor is fitted on the validation rows and evaluated on the test rows:

- ``DPCalibratedEqOddsPostprocessing(cost_constraint="fnr")`` (the demo's setting; ``predict`` with the seed's
  draws) against AIF360's ``CalibratedEqOddsPostprocessing`` (seed 0): test accuracy and the test difference in
  generalized false negative rates (unprivileged - privileged), the metric it targets;
- ``DPRejectOptionClassification`` (AIF360's defaults: 100 x 50 grid, statistical parity in [-0.05, 0.05]) against
  AIF360's ``RejectOptionClassification``: test accuracy and test statistical parity difference;
- the constant classifier (the validation majority label for everyone): its test accuracy (its metric is 0).

For epsilon in {0.5, 1, 2} and seeds 0 .. S-1 (S = 5), each with a fresh ``BudgetAccountant``: mean ± sd over the
seeds, and how often the private choice took a constant. Check: every DP row's mean test accuracy is at least the
constant's minus 0.01 (the private choice against the constants; 0.01 covers the validation-to-test shift).

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_aif360_postprocessing.py            # full run, a few minutes (2 cores)
    .venv/bin/python tests/benchmarks/bench_aif360_postprocessing.py --quick    # 1 seed, 20 x 10 grid, no file

The full run writes ``tests/benchmarks/results/bench_aif360_postprocessing.md``.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import _common  # tests/benchmarks/_common.py (scripts run from this folder)
import numpy as np
from aif360.algorithms.postprocessing import CalibratedEqOddsPostprocessing, RejectOptionClassification
from aif360.metrics import BinaryLabelDatasetMetric, ClassificationMetric
from diffprivlib import BudgetAccountant
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from aif360_dp.algorithms.postprocessing import DPCalibratedEqOddsPostprocessing, DPRejectOptionClassification
from aif360_dp.datasets import AdultDataset

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "bench_aif360_postprocessing.md"
EPSILONS = (0.5, 1.0, 2.0)
SLACK = 0.01


def splits(attribute):
    """``(validation, scored validation, test, scored test, groups)`` for one protected attribute."""
    data = AdultDataset()
    np.random.seed(0)
    train, rest = data.split([0.6], shuffle=True)
    valid, test = rest.split([0.5], shuffle=True)
    scaler = StandardScaler().fit(train.features)
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(train.features), train.labels.ravel())

    def scored(dataset):
        pred = dataset.copy(deepcopy=True)
        pred.scores = model.predict_proba(scaler.transform(dataset.features))[:, 1].reshape(-1, 1)
        pred.labels = np.where(pred.scores >= 0.5, dataset.favorable_label, dataset.unfavorable_label)
        return pred

    groups = {"unprivileged_groups": [{attribute: 0}], "privileged_groups": [{attribute: 1}]}
    return valid, scored(valid), test, scored(test), groups


def evaluate(test, predicted, groups, kind):
    """``(test accuracy, the targeted metric)`` of predicted labels."""
    metric = ClassificationMetric(test, predicted, **groups)
    if kind == "calibrated":
        return metric.accuracy(), metric.difference(metric.generalized_false_negative_rate)
    return metric.accuracy(), BinaryLabelDatasetMetric(predicted, **groups).mean_difference()


def make(kind, groups, epsilon, seed, grid):
    if kind == "calibrated":
        return DPCalibratedEqOddsPostprocessing(**groups, cost_constraint="fnr", seed=seed, epsilon=epsilon,
                                                accountant=BudgetAccountant())
    return DPRejectOptionClassification(**groups, num_class_thresh=grid[0], num_ROC_margin=grid[1], epsilon=epsilon,
                                        seed=seed, accountant=BudgetAccountant())


def baseline(kind, groups, grid):
    if kind == "calibrated":
        return CalibratedEqOddsPostprocessing(**groups, cost_constraint="fnr", seed=0)
    return RejectOptionClassification(**groups, num_class_thresh=grid[0], num_ROC_margin=grid[1])


def measure(attribute, seeds, grid):
    """Report lines and checks for one protected attribute."""
    valid, valid_pred, test, test_pred, groups = splits(attribute)
    majority = float(np.mean(valid.labels == valid.favorable_label) >= 0.5)
    constant = test_pred.copy(deepcopy=True)
    constant.labels[:] = valid.favorable_label if majority else valid.unfavorable_label
    constant.scores[:] = majority
    constant_accuracy = evaluate(test, constant, groups, "calibrated")[0]
    lines, checks = [], []
    for kind, target in (("calibrated", "test GFNR difference"), ("reject option", "test SPD")):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exact = baseline(kind, groups, grid).fit(valid, valid_pred)
        seconds = time.perf_counter() - start
        accuracy, metric = evaluate(test, exact.predict(test_pred), groups, kind)
        lines += [f"### {attribute}: {kind}", "", f"| estimator | epsilon | test accuracy | {target} | constant chosen |",
                  "|---|---|---|---|---|",
                  f"| AIF360 (non-private, fit {seconds:.1f} s) | inf | {accuracy:.3f} | {metric:+.3f} | - |",
                  f"| constant (validation majority) | - | {constant_accuracy:.3f} | +0.000 | - |"]
        for epsilon in EPSILONS:
            rows, constants = [], 0
            for seed in range(seeds):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make(kind, groups, epsilon, seed, grid).fit(valid, valid_pred)
                constants += model.constant_choice_.is_constant
                rows.append(evaluate(test, model.predict(test_pred), groups, kind))
            rows = np.array(rows)
            lines.append(f"| DP | {epsilon:g} | {_common.mean_sd(rows[:, 0])} | {_common.mean_sd(rows[:, 1])} | "
                         f"{constants}/{seeds} |")
            ok = rows[:, 0].mean() >= constant_accuracy - SLACK
            checks.append(ok)
            if not ok:
                lines.append(f"FAIL: {attribute} {kind} at epsilon {epsilon:g}: mean test accuracy "
                             f"{rows[:, 0].mean():.3f} below the constant's {constant_accuracy:.3f} - {SLACK}")
        lines.append("")
    return lines, checks


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=DEFAULT_OUTPUT, quick_repeats=1, unit="seeds",
                                quick_extra="a 20 x 10 grid, ")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=DEFAULT_OUTPUT,
                                       quick_repeats=1)
    grid = (20, 10) if args.quick else (100, 50)
    lines = ["# bench_aif360_postprocessing", "",
             _common.machine_header(("numpy", "aif360", "diffprivlib"), "quick" if args.quick else "full",
                                    f" Seeds: {args.repeats}; grid {grid[0]} x {grid[1]}."),
             _common.source_state(["fairlearn_dp/postprocessing/_calibrated_eq_odds.py",
                                   "fairlearn_dp/postprocessing/_reject_option.py"]), ""]
    checks = []
    for attribute in ("sex", "race"):
        more, ok = measure(attribute, args.repeats, grid)
        lines += more
        checks += ok
    return _common.finish("\n".join(lines) + "\n", args.output, "bench_aif360_postprocessing", all(checks))


if __name__ == "__main__":
    raise SystemExit(main())
