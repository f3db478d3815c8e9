"""Quickstart: make a GPA regressor's outputs fair across race groups with a DP post-processor.
============================================================================================

A regressor is trained on one part of the Law School data (think: an existing model). The data holder then fits
`DPFairRegressionPostprocessor` on its own records with a privacy budget epsilon; the fitted post-processor is
epsilon-DP with respect to those records. Prints a MetricFrame-based before/after table (MSE, mean output, KS
distance per group, KS statistical parity) and the privacy spent, and writes a plot of the groups' output CDFs.

    python examples/quickstart.py [--epsilon 1.0] [--alpha 0.0] [--n-bins 36] [--out examples/output]
"""

import argparse
import warnings
from pathlib import Path

import pandas as pd
from fairdp_adapters.reporting import before_after_report, plot_group_cdfs
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import BudgetAccountant


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0, help="privacy budget of the post-processor")
    parser.add_argument("--alpha", type=float, default=0.0, help="KS tolerance (0 = exact statistical parity)")
    parser.add_argument("--n-bins", type=int, default=36, help="histogram bins on the GPA range (1, 4)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "output"), help="folder for the plot")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    data = fetch_law_school()
    X, y, race = data.data, data.target, data.sensitive_features
    # Three disjoint parts: the regressor's training data, the private data the post-processor is fitted on, and
    # a test split for the report.
    X_model, X_rest, y_model, y_rest, race_model, race_rest = train_test_split(
        X, y, race, test_size=0.6, random_state=args.seed, stratify=race)
    X_post, X_test, y_post, y_test, race_post, race_test = train_test_split(
        X_rest, y_rest, race_rest, test_size=0.5, random_state=args.seed, stratify=race_rest)

    regressor = make_pipeline(StandardScaler(), LinearRegression()).fit(X_model, y_model)

    accountant = BudgetAccountant()
    postprocessor = DPFairRegressionPostprocessor(
        estimator=regressor, prefit=True, epsilon=args.epsilon, bounds=LAW_SCHOOL_BOUNDS, n_bins=args.n_bins,
        alpha=args.alpha, groups=["asian", "black", "hisp", "white"], accountant=accountant,
        random_state=args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)      # no output outside the declared bounds here
        postprocessor.fit(X_post, y_post, sensitive_features=race_post)
        fair = postprocessor.predict(X_test, sensitive_features=race_test, random_state=args.seed)
    before = regressor.predict(X_test)

    table, _ = before_after_report(y_test, {"before (regressor)": before, "after (DP post-processed)": fair},
                                   sensitive_features=race_test)
    pd.set_option("display.width", 160)
    print(f"Law School, target ugpa, {len(y_post)} private records for the post-processor, {len(y_test)} test rows")
    print(table.round(4).to_string())
    spent = postprocessor.privacy_spent_
    print(f"\nPrivacy spent by the post-processor: epsilon={spent.epsilon}, delta={spent.delta} "
          f"(accountant total: {accountant.total()})")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = plot_group_cdfs({"before": before, f"after (epsilon={args.epsilon}, alpha={args.alpha})": fair},
                           sensitive_features=race_test, path=out / "quickstart.png",
                           title="Law School: predicted GPA by race, test split")
    print(f"Plot written to {path}")


if __name__ == "__main__":
    main()
