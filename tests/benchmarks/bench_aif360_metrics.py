"""Benchmark: accuracy of ``DPClassificationMetric``'s entropy indices and generalized rates on Adult at epsilon = 1.

What is measured
----------------
Adult (the bundled copy, ``aif360_dp.datasets.AdultDataset``), split 70/30 with AIF360's ``split([0.7],
shuffle=True, seed=0)``; a scikit-learn logistic regression fitted on the training split gives the test split's
``scores`` (the favorable label's probability) and labels (score >= 0.5). Groups by sex; the protected attributes
are race and sex, so each sex spans two declared intersections.

1. ``--seeds`` objects ``DPClassificationMetric(..., epsilon=1, bounded_scores=True, random_state=seed)``: the exact
   value (AIF360's ``ClassificationMetric``) and the RMSE and largest error of the entropy indices, the between-group
   indices and the generalized rates.
2. The cost of releasing per intersection: the RMSE of the privileged true-positive count and of
   ``equal_opportunity_difference`` with ``intersections=True`` (the default) and ``intersections=False`` (one cell
   per condition), scores not released, the same seeds.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_aif360_metrics.py             # 200 seeds, about a minute
    .venv/bin/python tests/benchmarks/bench_aif360_metrics.py --quick     # 10 seeds, no file

The full run prints a GitHub-markdown table and writes it to ``tests/benchmarks/results/bench_aif360_metrics.md``.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "bench_aif360_metrics.md"
INDICES = ["theil_index", "coefficient_of_variation", "between_group_theil_index", "between_all_groups_theil_index",
           "generalized_equalized_odds_difference"]


def _data():
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from aif360_dp.datasets import AdultDataset

    train, test = AdultDataset().split([0.7], shuffle=True, seed=0)
    scaler = StandardScaler().fit(train.features)
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(train.features), train.labels.ravel())
    classified = test.copy(deepcopy=True)
    classified.scores = model.predict_proba(scaler.transform(test.features))[:, [1]]
    classified.labels = np.where(classified.scores >= 0.5, test.favorable_label, test.unfavorable_label)
    return test, classified


def _measures(metric):
    values = {name: getattr(metric, name)() for name in INDICES}
    values["generalized_true_positive_rate(privileged=True)"] = metric.generalized_true_positive_rate(True)
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="10 seeds, no file")
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    seeds = 10 if args.quick else args.seeds
    warnings.filterwarnings("ignore")
    from aif360.metrics import ClassificationMetric
    from diffprivlib import BudgetAccountant

    from aif360_dp.metrics import DPClassificationMetric

    truth, classified = _data()
    groups = {"unprivileged_groups": [{"sex": 0}], "privileged_groups": [{"sex": 1}]}
    exact = _measures(ClassificationMetric(truth, classified, **groups))
    draws = {name: [] for name in exact}
    costs = {True: ([], []), False: ([], [])}
    reference = ClassificationMetric(truth, classified, **groups)
    for seed in range(seeds):
        metric = DPClassificationMetric(truth, classified, **groups, epsilon=1.0, bounded_scores=True,
                                        random_state=seed, accountant=BudgetAccountant())
        for name, value in _measures(metric).items():
            draws[name].append(value)
        for intersections, (tp, eod) in costs.items():
            plain = DPClassificationMetric(truth, classified, **groups, epsilon=1.0, intersections=intersections,
                                           random_state=seed, accountant=BudgetAccountant())
            tp.append(plain.num_true_positives(True))
            eod.append(plain.equal_opportunity_difference())
    lines = [f"Adult test split ({len(truth.labels)} rows), groups by sex, epsilon = 1, {seeds} seeds.", "",
             "| method (bounded_scores=True) | exact | RMSE | largest error |", "|---|---|---|---|"]
    for name, values in draws.items():
        errors = np.asarray(values) - exact[name]
        lines.append(f"| `{name}` | {exact[name]:.4g} | {np.sqrt(np.mean(errors ** 2)):.2g} | "
                     f"{np.max(np.abs(errors)):.2g} |")
    lines += ["", "| release | RMSE of the privileged TP count | RMSE of `equal_opportunity_difference` |",
              "|---|---|---|"]
    for intersections, (tp, eod) in costs.items():
        rmse_tp = np.sqrt(np.mean((np.asarray(tp) - reference.num_true_positives(True)) ** 2))
        rmse_eod = np.sqrt(np.mean((np.asarray(eod) - reference.equal_opportunity_difference()) ** 2))
        lines.append(f"| `intersections={intersections}` | {rmse_tp:.3g} | {rmse_eod:.2g} |")
    text = "\n".join(lines) + "\n"
    print(text)
    output = args.output or (None if args.quick else RESULTS)
    if output is not None:
        output.write_text(text)


if __name__ == "__main__":
    main()
