"""Benchmark: DPCorrelationRemover on Adult by sex and by race, against Fairlearn's CorrelationRemover and the constant.

What is measured
----------------
UCI Adult as :func:`fairlearn_dp.datasets.adult_features` gives it (103 features scaled into the public [0, 1];
``sex`` and ``race`` are not features), with the sensitive attribute one-hot encoded in front (sex: one column,
``sex_Male``; race: all five categories); a 70/30 split (``random_state=seed``) for each seed. Bounds: ``(0, 1)`` for
every column (public: the scaling's own bounds). For each seed and sensitive feature:

- **constant**: the majority class of the training labels;
- **LR**: ``LogisticRegression(max_iter=1000)`` on the features without the sensitive columns (no removal);
- **Fairlearn CR + LR**: Fairlearn's ``CorrelationRemover(sensitive_feature_ids=...)``, then the LR;

and for each epsilon in {0.5, 1, 2} and privacy unit: **DPCR + LR**, ``DPCorrelationRemover(sensitive_feature_ids=...,
epsilon=eps, bounds=(0, 1), privacy_unit=unit, random_state=seed)`` (Laplace, delta = 0), then the LR; and under the
default unit also with ``delta=1e-6`` (**DPCR Gaussian + LR**: the analytic Gaussian on the L2 sensitivity, about
5.2 here against an L1 sensitivity of 52.5, whose cross block grows with the sum of the other columns' half-widths).
Each of these settings is run again with ``row_norm_bound_l1=X.attrs["row_norm_bound_l1"]`` (**DPCR row bound**):
the public L1 bound 11 on a row of the frame (one per attribute: 6 one-hot blocks and 5 numeric columns in
[0, 1]), which replaces the sum of the half-widths (51.5) in the sensitivity: by sex L1 12 and L2 3.5 (against
52.5 and 5.2), by race L1 65 and L2 7.9 (against 267.5 and 11.7). The rows without the row bound are the releases
of the code before it (same seeds, bit-identical draws and released values:
``tests/fairlearn_dp/preprocessing/test_correlation_remover_row_bound.py``). **DPCR row bound shrink** adds
``shrink_coefficients=True`` (coefficients within 3 noise standard deviations of 0 set to 0: post-processing of the
same release).

The LR is fitted on the transformed training rows, as a user's pipeline does. ``transform`` reads each row's
sensitive columns, so that LR is not covered by the remover's guarantee (under ``"sensitive_attribute"`` the
features and labels are public but the transformed rows are not): the table measures the release's effect on
utility, not a private pipeline.

Columns, mean +- sd over the seeds, on the test split: accuracy; demographic-parity difference of the LR's
predictions (``fairlearn.metrics.demographic_parity_difference``, exact); and the **remaining correlation**, the
largest absolute Pearson correlation between a sensitive (one-hot) column and a transformed feature on the test rows
(0 for Fairlearn's remover on its own training rows; sampling error on the test rows). Features whose input column
is constant on the test rows (rare one-hot categories absent from the split) are left out: their output is
``-(s - mean) beta`` there, correlation 1 at any size of ``beta``. (A multiple correlation, the R^2 of ``s`` on all
the features, is no better: a one-hot block's columns sum to 1, so the sum of their outputs is ``1 - (s - mean)
sum(beta)``, an exact linear function of ``s`` whenever the block's coefficients do not sum to 0 exactly, which
noise, or round-off, makes them do.) The number of fits with a
``UtilityWarning`` (no direction above the noise) is counted.

Run (from the repository root)::

    .venv/bin/python tests/benchmarks/bench_correlation_remover.py            # 5 seeds, writes the results file
    .venv/bin/python tests/benchmarks/bench_correlation_remover.py --quick    # seed 0, epsilon 1, no file
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

EPSILONS = (0.5, 1.0, 2.0)
UNITS = ("sensitive_attribute", "record")
SENSITIVE = ("sex", "race")
GAUSSIAN_DELTA = 1e-6
OUTPUT = _common.REPOSITORY / "tests" / "benchmarks" / "results" / "bench_correlation_remover.md"


def _data(name):
    from fairlearn_dp.datasets import adult_features

    X, y, attribute = adult_features(name)
    row_bound = X.attrs["row_norm_bound_l1"]            # public: 11, one per attribute of the frame's layout
    codes = pd.get_dummies(pd.Series(attribute, name=name), prefix=name, dtype=float)
    if name == "sex":
        codes = codes[["sex_Male"]]
    X = pd.concat([codes.reset_index(drop=True), X.reset_index(drop=True)], axis=1)
    return X, np.asarray(y), np.asarray(attribute), list(codes.columns), row_bound


def _remaining_correlation(S, Z, varying):
    """The largest absolute Pearson correlation between a sensitive column and an output feature whose input column
    varies on these rows."""
    S, Z = np.asarray(S, dtype=float), np.asarray(Z, dtype=float)[:, varying]
    S, Z = S - S.mean(axis=0), Z - Z.mean(axis=0)
    norms = np.outer(np.linalg.norm(S, axis=0), np.linalg.norm(Z, axis=0))
    return float(np.abs((S.T @ Z) / norms).max())


def _score(transform, X_train, X_test, y_train, y_test, a_test, ids):
    from fairlearn.metrics import demographic_parity_difference
    from sklearn.linear_model import LogisticRegression

    Z_train, Z_test = transform(X_train, X_test)
    model = LogisticRegression(max_iter=1000).fit(Z_train, y_train)
    y_pred = model.predict(Z_test)
    return (float(np.mean(y_pred == y_test)), demographic_parity_difference(y_test, y_pred, sensitive_features=a_test),
            _remaining_correlation(X_test[ids], Z_test, X_test.drop(columns=ids).std().to_numpy() > 0))


def _run_seed(name, seed, epsilons, units):
    from diffprivlib import BudgetAccountant
    from fairlearn.preprocessing import CorrelationRemover
    from sklearn.model_selection import train_test_split

    from fairlearn_dp.exceptions import UtilityWarning
    from fairlearn_dp.preprocessing import DPCorrelationRemover

    X, y, attribute, ids, row_bound = _data(name)
    X_train, X_test, y_train, y_test, _, a_test = train_test_split(X, y, attribute, test_size=0.3, random_state=seed)
    rows = []
    majority = float(np.mean(y_train) >= 0.5)
    rows.append(("constant", "-", float(np.mean(y_test == majority)), 0.0, float("nan"), 0))
    others = [c for c in X.columns if c not in ids]
    rows.append(("LR", "-", *_score(lambda a, b: (a[others], b[others]), X_train, X_test, y_train, y_test, a_test,
                                    ids), 0))

    def fairlearn(a, b):
        remover = CorrelationRemover(sensitive_feature_ids=ids).fit(a)
        return remover.transform(a), remover.transform(b)
    rows.append(("Fairlearn CR + LR", "-", *_score(fairlearn, X_train, X_test, y_train, y_test, a_test, ids), 0))
    variants = ((None, False), (row_bound, False), (row_bound, True))
    settings = [(unit, 0.0, *variant) for variant in variants for unit in units]
    settings += [("sensitive_attribute", GAUSSIAN_DELTA, *variant) for variant in variants]
    for unit, delta, bound, shrink in settings:
        for epsilon in epsilons:
            def private(a, b, epsilon=epsilon, unit=unit, delta=delta, bound=bound, shrink=shrink):
                remover = DPCorrelationRemover(sensitive_feature_ids=ids, epsilon=epsilon, delta=delta,
                                               bounds=(0.0, 1.0), privacy_unit=unit, random_state=seed,
                                               row_norm_bound_l1=bound, shrink_coefficients=shrink,
                                               accountant=BudgetAccountant())
                return remover.fit(a).transform(a), remover.transform(b)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UtilityWarning)
                scores = _score(private, X_train, X_test, y_train, y_test, a_test, ids)
            warned = int(any(issubclass(w.category, UtilityWarning) for w in caught))
            method = f"DPCR{' row bound' if bound else ''}{' shrink' if shrink else ''}{' Gaussian' if delta else ''} + LR"
            rows.append((f"{method} (eps={epsilon:g})", unit, *scores, warned))
    return [(name, seed, *row) for row in rows]


def _table(records, name):
    frame = pd.DataFrame(records, columns=["sensitive", "seed", "method", "unit", "accuracy", "dp_difference",
                                           "remaining_correlation", "warned"])
    lines = [f"### Adult by {name}", "", "| method | privacy unit | accuracy | DP difference | remaining correlation "
             "| fits warned |", "|---|---|---|---|---|---|"]
    for (method, unit), group in frame[frame.sensitive == name].groupby(["method", "unit"], sort=False):
        cells = [f"{group[c].mean():.3f} +- {group[c].std(ddof=0):.3f}" if group[c].notna().all() else "-"
                 for c in ("accuracy", "dp_difference", "remaining_correlation")]
        lines.append(f"| {method} | {unit} | {' | '.join(cells)} | {int(group.warned.sum())}/{len(group)} |")
    return lines


def main(argv=None):
    parser = _common.run_parser(__doc__, default_output=OUTPUT, quick_repeats=1, unit="seeds",
                                quick_extra="epsilon 1, ")
    args = _common.resolve_run_options(parser, parser.parse_args(argv), default_output=OUTPUT, quick_repeats=1)
    epsilons = (1.0,) if args.quick else EPSILONS
    start = time.perf_counter()
    records = [row for name in SENSITIVE for seed in range(args.repeats)
               for row in _run_seed(name, seed, epsilons, UNITS)]
    elapsed = time.perf_counter() - start
    load = ", ".join(f"{v:.2f}" for v in __import__("os").getloadavg())
    header = _common.machine_header(["numpy", "scikit-learn", "fairlearn", "diffprivlib"],
                                    "quick" if args.quick else "full", extra=f" Load average at the end: {load}.")
    lines = ["## DPCorrelationRemover on Adult", "", header, _common.source_state(
        ["fairlearn_dp/preprocessing/_correlation_remover.py", "fairlearn_dp/preprocessing/_correlation_statistics.py"]),
        f"{args.repeats} seed(s), {elapsed:.0f} s.", ""]
    for name in SENSITIVE:
        lines += _table(records, name) + [""]
    _common.publish("\n".join(lines), None if args.quick else args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
