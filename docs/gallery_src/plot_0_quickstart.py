"""
Quickstart: DP fair regression post-processing
==============================================

Make a GPA regressor's outputs fair across race groups (statistical parity) with
:class:`fairlearn_dp.postprocessing.DPFairRegressionPostprocessor`, the same steps as ``examples/quickstart.py``.

A regressor is trained on one part of the bundled Law School data (think: an existing model). The data holder then
fits the post-processor on its own records with a privacy budget epsilon; the fitted post-processor is epsilon-DP
with respect to those records (one record substituted). The output range ``LAW_SCHOOL_BOUNDS``, the number of bins
and the list of groups are public inputs.
"""

import warnings

import pandas as pd
from fairdp_adapters.reporting import before_after_report, plot_group_cdfs
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy import BudgetAccountant

data = fetch_law_school()
X, y, race = data.data, data.target, data.sensitive_features
# Three disjoint parts: the regressor's training data, the private records of the post-processor, a test split.
X_model, X_rest, y_model, y_rest, race_model, race_rest = train_test_split(
    X, y, race, test_size=0.6, random_state=0, stratify=race)
X_post, X_test, y_post, y_test, race_post, race_test = train_test_split(
    X_rest, y_rest, race_rest, test_size=0.5, random_state=0, stratify=race_rest)
regressor = make_pipeline(StandardScaler(), LinearRegression()).fit(X_model, y_model)

# %%
# Fit the DP post-processor (epsilon = 1, exact statistical parity ``alpha=0``, 36 bins) and predict.

accountant = BudgetAccountant()
fair = DPFairRegressionPostprocessor(
    estimator=regressor, prefit=True, epsilon=1.0, bounds=LAW_SCHOOL_BOUNDS, n_bins=36, alpha=0.0,
    groups=["asian", "black", "hisp", "white"], accountant=accountant, random_state=0)
with warnings.catch_warnings():
    warnings.simplefilter("error", UserWarning)          # no output outside the declared bounds here
    fair.fit(X_post, y_post, sensitive_features=race_post)
    y_fair = fair.predict(X_test, sensitive_features=race_test, random_state=0)
print(fair.privacy_spent_, accountant.total())

# %%
# Before and after, per group (a ``MetricFrame``-based report): the KS distance of each group's outputs to all
# outputs, and the largest pairwise KS distance (statistical parity).

before = regressor.predict(X_test)
table, _ = before_after_report(y_test, {"before": before, "after (DP)": y_fair}, sensitive_features=race_test)
pd.set_option("display.width", 160)
print(table.round(4).to_string())

# %%
# The groups' output distributions before and after.

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:                 # plot_group_cdfs writes a PNG; show it here
    path = plot_group_cdfs({"before": before, "after (epsilon=1, alpha=0)": y_fair}, sensitive_features=race_test,
                           path=Path(tmp) / "quickstart.png", title="Law School: predicted GPA by race, test split")
    image = plt.imread(path)
fig, ax = plt.subplots(figsize=(10, 4))
ax.imshow(image)
ax.set_axis_off()
