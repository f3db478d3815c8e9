"""Reproduce the experiments of Xian, Li, Kamath & Zhao (ICML 2024), Section 4, with fairdp.
=========================================================================================

"Differentially Private Post-Processing for Fair Regression" evaluates its Algorithm 1 by post-processing the
*true* targets (``f = Id``, ``X = Y``), so that the measured error is the cost of fairness + privacy +
discretisation alone. This script repeats that setting with
:class:`fairlearn_dp.postprocessing.DPFairRegressionPostprocessor`:

- datasets: Law School (target ``ugpa`` in ``LAW_SCHOOL_BOUNDS = (1, 4)``, four race groups) and Communities &
  Crime (target in ``(0, 1)``, groups ``black`` 0/1), both bundled with fairdp;
- for every seed in ``range(first_seed, first_seed + n_seeds)`` (default 33-82, the authors' seeds in their
  published notebooks, https://github.com/rxian/fair-regression; ``--first-seed 0`` gives our former 0-49): a 70/30
  split with ``train_test_split(..., test_size=0.3, random_state=seed)``; ``fit`` on the train split with ``random_state=seed`` and a fresh
  ``diffprivlib.BudgetAccountant``; ``predict`` on the test split with ``random_state=seed``; test MSE against
  the true test targets and test KS statistical parity (largest pairwise two-sample KS distance, Def. 2.2);
- outputs (under ``--out``):

  ``main_table_per_seed.csv`` / ``main_table_summary.csv`` / ``main_table.md``
      alpha = 0, k = 36 (Law School) / 12 (Communities & Crime), epsilon in {inf, 10, 5, 1, 0.5, 0.1}, plus the
      "no post-processing" reference row (raw test targets: MSE 0 and the data's own KS) and the "binning only"
      row (alpha = 1, epsilon = inf). Mean and population std (ddof = 0, as the authors' ``np.std``) over the
      seeds; ``main_table.md`` sets them next to the authors' published values (``AUTHORS_TABLE``) with
      z = (ours - theirs) / combined standard error.
  ``fig2_tradeoffs.csv`` / ``fig2_tradeoffs.png``
      Figure 2: MSE vs KS from sweeping alpha, one line per epsilon, panels Communities & Crime k = 12, 60 and
      Law School k = 36, 180; the authors' alpha grids (24 values on Law School, 28 on Communities & Crime).
  ``fig3_law_school_eps0.1.csv`` / ``fig3_law_school_eps0.1.png``
      Figure 3: Law School, epsilon = 0.1, the authors' 31 k x 24 alpha grid (k in 1-22, 24, 26, 28, 30, 36, 42,
      48, 54, 60), curves for k in {7, 8, 11, 24, 36, 48, 60} highlighted, plus the lower envelope.
  ``fig4_envelopes.csv`` / ``fig4_law_school_envelopes.png``
      Figure 4: the lower envelope over the same (alpha, k) grid for every epsilon in {10, 5, 1, 0.5, 0.1}.
  ``sweep_per_seed.csv``
      Every (dataset, epsilon, k, alpha, seed) result behind the figures.

As in the paper, the envelopes also contain the k = 1 points (a constant output: KS = 0, MSE ~ 0.68 on Law
School), which is where the paper's envelopes "end on the right at (0.6772, 0)", outside the cropped axes.

``--quick`` keeps the figures' structure with 5 seeds, 4 alphas and, for Figures 3-4, only the 7 highlighted k
(plus k = 1). ``--publish`` copies the summary CSV and the three figures to ``docs/img/`` (the documentation's table is
rendered from ``docs/img/xian2024_summary.csv`` by ``render_readme_table()``, and a test checks it).

Every fit and every prediction is seeded, so the results do not depend on ``--n-jobs``.

Usage::

    python examples/xian2024_reproduce.py                 # seeds 33-82, the authors' grids (~22 min, 2 jobs)
    python examples/xian2024_reproduce.py --quick         # 5 seeds, 4 alphas (smoke test, seconds)
    python examples/xian2024_reproduce.py --n-jobs 2 --out /tmp/xian
    python examples/xian2024_reproduce.py --n-jobs 2 --publish      # also refresh docs/img/xian2024_*
"""

from __future__ import annotations

import math
import shutil
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fairdp_adapters._checkout import parse_seeded_args  # noqa: E402
from fairdp_adapters._sweeps import pareto_front  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from fairlearn_dp.datasets import (  # noqa: E402
    COMMUNITIES_CRIME_BOUNDS,
    LAW_SCHOOL_BOUNDS,
    fetch_communities_crime,
    fetch_law_school,
)
from fairlearn_dp.metrics import ks_statistical_parity  # noqa: E402
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor  # noqa: E402
from fairlearn_dp.privacy import BudgetAccountant  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "xian2024"
DOCS_IMG = Path(__file__).resolve().parents[1] / "docs" / "img"
#: The committed copy of ``main_table_summary.csv`` that the documentation's table is rendered from.
PUBLISHED_SUMMARY = DOCS_IMG / "xian2024_summary.csv"
DEFAULT_SEEDS = 50
#: The authors' notebooks use ``seeds = range(33, 83)``; ``--first-seed 0`` gives our former seeds 0-49.
DEFAULT_FIRST_SEED = 33
QUICK_SEEDS = 5
#: Standard deviations over seeds: population std, as the authors' ``np.std`` (``--ddof 1`` for the sample std).
DEFAULT_DDOF = 0
TEST_SIZE = 0.3

#: Privacy budgets of the paper (``inf`` is the non-private "binning + fair" baseline).
EPSILONS = (math.inf, 10.0, 5.0, 1.0, 0.5, 0.1)


def _alpha_grid(log_high, n_log, lin_low, lin_high, n_lin):
    """0, ``n_log`` log-spaced values from 0.005 to ``log_high``, ``n_lin`` evenly spaced values, then 1."""
    log_part = np.exp(np.linspace(np.log(0.005), np.log(log_high), n_log))
    return tuple(float(a) for a in np.concatenate([[0.0], log_part, np.linspace(lin_low, lin_high, n_lin), [1.0]]))


#: KS tolerances swept for the trade-off curves, the authors' grids (alpha = 1 leaves the binned outputs
#: unchanged): 24 values on Law School, 28 on Communities & Crime.
LAW_SCHOOL_ALPHAS = _alpha_grid(0.1, 10, 0.11, 0.35, 12)
COMMUNITIES_CRIME_ALPHAS = _alpha_grid(0.12, 14, 0.13, 0.44, 12)
QUICK_ALPHAS = (0.0, 0.05, 0.2, 1.0)
#: Figures 3-4 (Law School): the authors' 31 numbers of bins (swept with the 24 Law School alphas) ...
FIG34_N_BINS = tuple(range(1, 23)) + (24, 26, 28, 30, 36, 42, 48, 54, 60)
#: ... of which the paper's Figure 3 labels these (the others are drawn in grey); --quick runs these only.
FIG3_N_BINS = (7, 8, 11, 24, 36, 48, 60)
FIG3_EPSILON = 0.1
FIG4_EPSILONS = (10.0, 5.0, 1.0, 0.5, 0.1)
#: k = 1 (constant output, exactly fair) closes the envelopes on the right, as in the paper.
ENVELOPE_ENDPOINT_N_BINS = 1


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset of the paper's Section 4 and the settings it is run with."""

    name: str
    label: str
    bounds: tuple
    groups: tuple
    main_n_bins: int
    fig2_n_bins: tuple
    fig34: bool
    alphas: tuple


LAW_SCHOOL = DatasetSpec(name="law_school", label="Law School", bounds=tuple(LAW_SCHOOL_BOUNDS),
                         groups=("asian", "black", "hisp", "white"), main_n_bins=36, fig2_n_bins=(36, 180),
                         fig34=True, alphas=LAW_SCHOOL_ALPHAS)
COMMUNITIES_CRIME = DatasetSpec(name="communities_crime", label="Communities & Crime",
                                bounds=tuple(COMMUNITIES_CRIME_BOUNDS), groups=(0, 1), main_n_bins=12,
                                fig2_n_bins=(12, 60), fig34=False, alphas=COMMUNITIES_CRIME_ALPHAS)
DATASETS = (LAW_SCHOOL, COMMUNITIES_CRIME)


# ---------------------------------------------------------------------------------------------------- data
def load_dataset(spec):
    """Targets ``y`` (float) and sensitive features ``a`` of a dataset, as numpy arrays."""
    if spec.name == "law_school":
        bunch = fetch_law_school(as_frame=False)
    elif spec.name == "communities_crime":
        bunch = fetch_communities_crime(as_frame=False)
    else:  # pragma: no cover - only the two specs above exist
        raise ValueError(f"unknown dataset {spec.name!r}")
    return np.asarray(bunch.target, dtype=float), np.asarray(bunch.sensitive_features)


def sweep_grid(spec, quick=False):
    """``(alphas, fig34_n_bins)`` swept on a dataset: the authors' grids, or the small ``--quick`` ones."""
    alphas = QUICK_ALPHAS if quick else spec.alphas
    fig34_n_bins = (FIG3_N_BINS + (ENVELOPE_ENDPOINT_N_BINS,) if quick else FIG34_N_BINS) if spec.fig34 else ()
    return alphas, fig34_n_bins


def experiment_configs(spec, quick=False):
    """All ``(epsilon, n_bins, alpha)`` run on a dataset (the union of the table's and the figures' settings)."""
    alphas, fig34_n_bins = sweep_grid(spec, quick)
    configs = {(eps, spec.main_n_bins, 0.0) for eps in EPSILONS} | {(math.inf, spec.main_n_bins, 1.0)}
    configs |= {(eps, k, float(alpha)) for eps in EPSILONS for k in spec.fig2_n_bins for alpha in alphas}
    configs |= {(eps, k, float(alpha)) for eps in FIG4_EPSILONS for k in fig34_n_bins for alpha in alphas}
    if spec.fig34:
        configs |= {(eps, ENVELOPE_ENDPOINT_N_BINS, 0.0) for eps in FIG4_EPSILONS}
    return sorted(configs, key=lambda c: (-c[0], c[1], c[2]))


# ---------------------------------------------------------------------------------------------- one seed
def fit_predict(y_train, a_train, y_test, a_test, *, spec, epsilon, n_bins, alpha, seed):
    """Fit Algorithm 1 on the true train targets and post-process the true test targets (the paper's setting).

    Returns the test predictions, the fitted post-processor and the warnings raised during fit/predict.
    """
    postprocessor = DPFairRegressionPostprocessor(
        estimator=None, epsilon=epsilon, bounds=spec.bounds, n_bins=n_bins, alpha=alpha,
        groups=list(spec.groups), accountant=BudgetAccountant(), random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        postprocessor.fit(y_train[:, None], sensitive_features=a_train)
        y_pred = postprocessor.predict(y_test[:, None], sensitive_features=a_test, random_state=seed)
    return y_pred, postprocessor, [f"{w.category.__name__}: {w.message}" for w in caught]


def run_seed(spec, y, a, seed, configs):
    """Split once with ``seed`` and run every configuration on that split.

    Returns ``(rows, raw_row)``: one dict per configuration and the "no post-processing" reference row.
    """
    y_train, y_test, a_train, a_test = train_test_split(y, a, test_size=TEST_SIZE, random_state=seed)
    raw_ks = ks_statistical_parity(y_test, y_test, sensitive_features=a_test)
    raw_row = {"dataset": spec.name, "method": "no post-processing", "epsilon": np.nan, "n_bins": np.nan,
               "alpha": np.nan, "seed": seed, "mse": 0.0, "ks": raw_ks,
               "objective": np.nan, "warnings": ""}
    rows = []
    for epsilon, n_bins, alpha in configs:
        y_pred, fitted, caught = fit_predict(y_train, a_train, y_test, a_test, spec=spec, epsilon=epsilon,
                                             n_bins=n_bins, alpha=alpha, seed=seed)
        ks = ks_statistical_parity(y_test, y_pred, sensitive_features=a_test)
        row = {"dataset": spec.name, "method": "dp fair post-processing", "epsilon": epsilon, "n_bins": n_bins,
               "alpha": alpha, "seed": seed, "mse": float(np.mean((y_pred - y_test) ** 2)), "ks": ks,
               "objective": float(fitted.objective_),
               "warnings": " | ".join(sorted(set(caught)))}
        rows.append(row)
    return rows, raw_row


def run_all(datasets, seeds, quick=False, n_jobs=1):
    """Every dataset x seed task, through joblib; returns ``(sweep, raw)`` DataFrames sorted by their keys."""
    loaded = {spec.name: load_dataset(spec) for spec in datasets}
    tasks = [(spec, seed, experiment_configs(spec, quick)) for spec in datasets for seed in seeds]
    results = Parallel(n_jobs=n_jobs)(
        delayed(run_seed)(spec, *loaded[spec.name], seed, configs) for spec, seed, configs in tasks)
    sweep = pd.DataFrame([row for rows, _ in results for row in rows])
    raw = pd.DataFrame([raw_row for _, raw_row in results])
    sweep = sweep.sort_values(["dataset", "epsilon", "n_bins", "alpha", "seed"],
                              ascending=[True, False, True, True, True], ignore_index=True)
    raw = raw.sort_values(["dataset", "seed"], ignore_index=True)
    return sweep, raw


# ---------------------------------------------------------------------------------------------- analysis
def lower_envelope(points):
    """Lower-left convex envelope of a cloud of (MSE, KS) points: the convex hull of its Pareto front.

    Returns the vertices, ordered by increasing first coordinate, of the lower convex hull between the point with
    the smallest first coordinate (lowest second coordinate among ties) and the first point with the smallest
    second coordinate; the rest of the lower hull rises again and is dominated. Segments between vertices are
    trade-offs reachable by randomising between two post-processors (Xian et al., Sec. 4.1).

    Parameters
    ----------
    points : array-like of shape (n_points, 2)

    Returns
    -------
    ndarray of shape (n_vertices, 2)

    Examples
    --------
    >>> lower_envelope([(0, 3), (1, 1), (2, 2), (3, 0), (1, 3), (4, 0), (5, 1), (2, 0.9)])
    array([[0., 3.],
           [1., 1.],
           [3., 0.]])
    >>> lower_envelope([(1, 1)])
    array([[1., 1.]])
    >>> lower_envelope([(0, 1), (1, 0), (2, 0)])   # collinear / tied points add no vertex
    array([[0., 1.],
           [1., 0.]])
    """
    return pareto_front(points)


def summarise(frame, keys, ddof=DEFAULT_DDOF):
    """Mean and std (population std by default, ``ddof=0``, as the authors) of MSE and KS over the seeds."""
    grouped = frame.groupby(keys, sort=False, dropna=False)

    def std(values):
        return float(np.std(values, ddof=ddof)) if len(values) > ddof else np.nan

    out = grouped.agg(mse_mean=("mse", "mean"), mse_std=("mse", std), ks_mean=("ks", "mean"),
                      ks_std=("ks", std), objective_mean=("objective", "mean"), n_seeds=("seed", "nunique"),
                      n_fits_with_warnings=("warnings", lambda s: int((s != "").sum())))
    return out.reset_index()


#: The authors' published main tables (their notebooks' outputs, ``law.ipynb`` / ``communities.ipynb`` at
#: https://github.com/rxian/fair-regression, commit 1b51ad7, seeds 33-82, ``np.std`` i.e. ddof = 0):
#: ``setting -> (mse_mean, mse_std, ks_mean, ks_std)``; setting is "raw", "binning" (alpha = 1) or epsilon.
#: Their "Chzhen et al. (2020)" row (no binning) has no counterpart here and is left out.
AUTHORS_SEEDS = 50
AUTHORS_TABLE = {
    "law_school": {
        "raw": (0.000000, 0.000000, 0.349900, 0.018699),
        "binning": (0.000610, 0.000005, 0.349900, 0.018699),
        math.inf: (0.010439, 0.000494, 0.085150, 0.023165),
        10.0: (0.010451, 0.000481, 0.085540, 0.023160),
        5.0: (0.010466, 0.000470, 0.086038, 0.023252),
        1.0: (0.010634, 0.000645, 0.091368, 0.024884),
        0.5: (0.010909, 0.001103, 0.104694, 0.032631),
        0.1: (0.013972, 0.005009, 0.280689, 0.090332),
    },
    "communities_crime": {
        "raw": (0.000000, 0.000000, 0.457663, 0.033567),
        "binning": (0.000562, 0.000016, 0.449961, 0.035186),
        math.inf: (0.018486, 0.001028, 0.064075, 0.024100),
        10.0: (0.018441, 0.001079, 0.064352, 0.024214),
        5.0: (0.018396, 0.001102, 0.064654, 0.025137),
        1.0: (0.018106, 0.001894, 0.068496, 0.026381),
        0.5: (0.017691, 0.003149, 0.075991, 0.031572),
        0.1: (0.015489, 0.008970, 0.162784, 0.094371),
    },
}


def main_table(sweep, raw, datasets, ddof=DEFAULT_DDOF):
    """Per-seed rows and the summary of the main table: per dataset the raw data, binning only (alpha = 1,
    epsilon = inf) and alpha = 0 at every epsilon, all at the dataset's k."""
    parts = []
    for spec in datasets:
        parts.append(raw[raw["dataset"] == spec.name])
        at_k = sweep[(sweep["dataset"] == spec.name) & (sweep["n_bins"] == spec.main_n_bins)]
        parts.append(at_k[(at_k["alpha"] == 1.0) & np.isinf(at_k["epsilon"])])
        parts.append(at_k[at_k["alpha"] == 0.0])
    per_seed = pd.concat(parts, ignore_index=True)
    summary = summarise(per_seed, ["dataset", "method", "epsilon", "n_bins", "alpha"], ddof=ddof)
    return per_seed, summary


def _setting_key(row):
    if row.method == "no post-processing":
        return "raw"
    if row.alpha == 1.0:
        return "binning"
    return float(row.epsilon)


def _z(ours_mean, ours_std, ours_n, theirs_mean, theirs_std, theirs_n):
    """(ours - theirs) / combined standard error, or "-" where both spreads are 0."""
    se = math.sqrt(ours_std ** 2 / ours_n + theirs_std ** 2 / theirs_n)
    if se == 0:
        return "0" if ours_mean == theirs_mean else "-"
    return f"{(ours_mean - theirs_mean) / se:+.1f}"


def markdown_table(summary, datasets=DATASETS):
    """The main-table summary as a markdown table (mean ± std over seeds), next to the authors' published values.

    ``z`` is (ours - authors') / combined standard error, sqrt(std_ours² / n_ours + std_authors² / n_authors).
    """
    labels = {spec.name: spec.label for spec in datasets}
    lines = ["| dataset | setting | k | test MSE | authors' MSE | z | test KS parity | authors' KS | z | seeds |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in summary.itertuples(index=False):
        key = _setting_key(row)
        if key == "raw":
            setting, k, mse = "no post-processing", "–", "0"
        else:
            setting = ("binning only (ε = ∞, α = 1)" if key == "binning" else
                       "ε = ∞ (binning + fair baseline)" if math.isinf(key) else f"ε = {key:g}")
            k, mse = f"{row.n_bins:.0f}", f"{row.mse_mean:.6f} ± {row.mse_std:.6f}"
        ks = f"{row.ks_mean:.6f} ± {row.ks_std:.6f}"
        theirs = AUTHORS_TABLE.get(row.dataset, {}).get(key)
        if theirs is None:
            their_mse = their_ks = z_mse = z_ks = "n/a"
        else:
            their_mse = "0" if key == "raw" else f"{theirs[0]:.6f} ± {theirs[1]:.6f}"
            their_ks = f"{theirs[2]:.6f} ± {theirs[3]:.6f}"
            n = int(row.n_seeds)
            z_mse = "–" if key == "raw" else _z(row.mse_mean, row.mse_std, n, theirs[0], theirs[1], AUTHORS_SEEDS)
            z_ks = _z(row.ks_mean, row.ks_std, n, theirs[2], theirs[3], AUTHORS_SEEDS)
        lines.append(f"| {labels[row.dataset]} | {setting} | {k} | {mse} | {their_mse} | {z_mse} | {ks} | "
                     f"{their_ks} | {z_ks} | {row.n_seeds} |")
    return "\n".join(lines)


def render_readme_table(summary_csv=PUBLISHED_SUMMARY):
    """The documentation's table (gallery page plot_1_xian2024), rendered from a ``main_table_summary.csv`` (by default the committed copy)."""
    return markdown_table(pd.read_csv(summary_csv))


def envelopes(fig34):
    """Lower envelope of the seed-averaged (MSE, KS) points over (alpha, k), for every epsilon of Figure 4."""
    rows = []
    for eps, frame in fig34.groupby("epsilon", sort=False):
        vertices = lower_envelope(frame[["mse_mean", "ks_mean"]].to_numpy())
        for order, (mse, ks) in enumerate(vertices):
            hit = frame[(frame["mse_mean"] == mse) & (frame["ks_mean"] == ks)].iloc[0]
            rows.append({"epsilon": eps, "vertex": order, "mse_mean": mse, "ks_mean": ks,
                         "n_bins": int(hit["n_bins"]), "alpha": hit["alpha"]})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------------------- plots
def _eps_label(eps):
    return "∞ (no DP)" if math.isinf(eps) else f"{eps:g}"


def _eps_colors():
    cmap = plt.get_cmap("viridis")
    finite = [e for e in EPSILONS if not math.isinf(e)]
    colors = {e: cmap(i / max(len(finite) - 1, 1)) for i, e in enumerate(finite)}
    colors[math.inf] = "black"
    return colors


def plot_fig2(fig2, raw_summary, datasets, path):
    """Figure 2: one panel per (dataset, k), MSE vs KS from sweeping alpha, one line per epsilon."""
    specs = {spec.name: spec for spec in datasets}
    panels = [(name, specs[name].fig2_n_bins[row]) for row in range(2) for name in
              ("communities_crime", "law_school") if name in specs]
    n_cols = 2 if len(specs) == 2 else 1
    fig, axes = plt.subplots(len(panels) // n_cols, n_cols, figsize=(5.2 * n_cols, 4.0 * len(panels) // n_cols),
                             squeeze=False)
    colors = _eps_colors()
    for ax, (name, k) in zip(axes.ravel(), panels, strict=False):
        data = fig2[(fig2["dataset"] == name) & (fig2["n_bins"] == k)]
        for eps in EPSILONS:
            line = data[data["epsilon"] == eps].sort_values("alpha")
            ax.plot(line["mse_mean"], line["ks_mean"], marker="o", ms=3, lw=1.3, color=colors[eps],
                    ls="--" if math.isinf(eps) else "-", zorder=4 if math.isinf(eps) else 2,
                    label=_eps_label(eps))
        raw_ks = raw_summary.loc[raw_summary["dataset"] == name, "ks_mean"].iloc[0]
        ax.scatter([0.0], [raw_ks], marker="*", s=80, color="red", zorder=5, label="raw data")
        ax.set_title(f"{specs[name].label} (k = {k})")
        ax.set_xlabel("Mean squared error")
        ax.set_ylabel("Fairness violation (KS)")
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    axes.ravel()[0].legend(title="ε", fontsize=8)
    fig.suptitle("Error-privacy-fairness trade-offs, sweeping α (right end of each line: α = 0)")
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


#: The paper's Figures 3-4 crop the MSE axis at 0.03 (the authors' notebook: ``plt.xlim(-0.0005, 0.0305)``).
FIG34_XLIM = 0.0305


def plot_fig3(fig34, envelope, path):
    """Figure 3: Law School, epsilon = 0.1, one curve per k (the labelled ones in colour) plus the lower envelope."""
    data = fig34[fig34["epsilon"] == FIG3_EPSILON]
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for k in sorted(set(data["n_bins"]) - set(FIG3_N_BINS) - {ENVELOPE_ENDPOINT_N_BINS}):
        line = data[data["n_bins"] == k].sort_values("alpha")
        ax.plot(line["mse_mean"], line["ks_mean"], lw=0.8, color="grey", alpha=0.35, zorder=1)
    cmap = plt.get_cmap("plasma")
    for i, k in enumerate(sorted(FIG3_N_BINS, reverse=True)):
        line = data[data["n_bins"] == k].sort_values("alpha")
        ax.plot(line["mse_mean"], line["ks_mean"], marker="o", ms=3, lw=1.2, color=cmap(i / len(FIG3_N_BINS)),
                label=str(k))
    env = envelope[envelope["epsilon"] == FIG3_EPSILON]
    ax.plot(env["mse_mean"], env["ks_mean"], color="black", lw=2.2, label="lower envelope")
    ax.set_xlim(0, FIG34_XLIM)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Mean squared error")
    ax.set_ylabel("Fairness violation (KS)")
    ax.set_title(f"Law School (ε = {FIG3_EPSILON:g}): sweeping α and k")
    ax.legend(title="k", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot_fig4(fig34, envelope, path):
    """Figure 4: Law School lower envelopes over (alpha, k), one per epsilon."""
    colors = _eps_colors()
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for eps in FIG4_EPSILONS:
        env = envelope[envelope["epsilon"] == eps]
        ax.plot(env["mse_mean"], env["ks_mean"], marker="o", ms=3, lw=1.6, color=colors[eps], label=f"{eps:g}")
    ax.set_xlim(0, FIG34_XLIM)
    ax.set_ylim(bottom=0)
    ax.set_xlabel("Mean squared error")
    ax.set_ylabel("Fairness violation (KS)")
    ax.set_title("Law School: lower envelopes over (α, k)")
    ax.legend(title="ε", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


# -------------------------------------------------------------------------------------------------- main
def _script_options(parser):
    parser.add_argument("--dataset", choices=["all"] + [spec.name for spec in DATASETS], default="all",
                        help="run one dataset only (Figures 3-4 need law_school; default: all)")
    parser.add_argument("--ddof", type=int, choices=(0, 1), default=DEFAULT_DDOF,
                        help=f"delta degrees of freedom of the stds over seeds (default {DEFAULT_DDOF}, as the authors)")
    parser.add_argument("--publish", action="store_true",
                        help=f"copy the summary CSV and the figures to {DOCS_IMG} (the documentation's sources)")


def parse_args(argv=None):
    return parse_seeded_args(argv, doc=__doc__, default_out=DEFAULT_OUT, default_seeds=DEFAULT_SEEDS,
                             quick_seeds=QUICK_SEEDS,
                             quick_help=f"alphas {QUICK_ALPHAS}, Figures 3-4 at k in {FIG3_N_BINS} and 1",
                             extra=_script_options, first_seed=DEFAULT_FIRST_SEED)   # 33: the authors' 33-82


def main(argv=None):
    """Run the reproduction; returns a dict with the output paths, the summary table and the run time."""
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    datasets = tuple(spec for spec in DATASETS if args.dataset in ("all", spec.name))
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    start = time.perf_counter()
    sweep, raw = run_all(datasets, seeds, quick=args.quick, n_jobs=args.n_jobs)
    elapsed_runs = time.perf_counter() - start

    paths = {}
    per_seed, summary = main_table(sweep, raw, datasets, ddof=args.ddof)
    paths["main_table_per_seed"] = out / "main_table_per_seed.csv"
    paths["main_table_summary"] = out / "main_table_summary.csv"
    paths["main_table_md"] = out / "main_table.md"
    per_seed.to_csv(paths["main_table_per_seed"], index=False)
    summary.to_csv(paths["main_table_summary"], index=False)
    # Rendered from the CSV just written, exactly as the documentation's table is rendered from its committed copy.
    table = render_readme_table(paths["main_table_summary"]) if len(datasets) == len(DATASETS) else \
        markdown_table(summary, datasets)
    paths["main_table_md"].write_text(table + "\n")

    paths["sweep_per_seed"] = out / "sweep_per_seed.csv"
    sweep.to_csv(paths["sweep_per_seed"], index=False)

    fig2_mask = pd.Series(False, index=sweep.index)
    for spec in datasets:
        alphas = sweep_grid(spec, args.quick)[0]
        fig2_mask |= ((sweep["dataset"] == spec.name) & sweep["n_bins"].isin(spec.fig2_n_bins)
                      & sweep["alpha"].isin(alphas))
    fig2 = summarise(sweep[fig2_mask], ["dataset", "n_bins", "epsilon", "alpha"], ddof=args.ddof)
    paths["fig2_csv"] = out / "fig2_tradeoffs.csv"
    paths["fig2_png"] = out / "fig2_tradeoffs.png"
    fig2.to_csv(paths["fig2_csv"], index=False)
    raw_summary = summary[summary["method"] == "no post-processing"]
    plot_fig2(fig2, raw_summary, datasets, paths["fig2_png"])

    fig34 = envelope = None
    if LAW_SCHOOL in datasets:
        fig34, envelope = _figures_3_4(sweep, out, paths, args)
    if args.publish:
        _publish(paths, datasets)
    elapsed = time.perf_counter() - start
    return _report(args, seeds, table, sweep, raw, summary, paths, fig2, fig34, envelope, elapsed_runs, elapsed)


def _figures_3_4(sweep, out, paths, args):
    """Figures 3-4 (Law School): sweeping alpha and k, lower envelopes per epsilon."""
    alphas, fig34_n_bins = sweep_grid(LAW_SCHOOL, args.quick)
    law = sweep[(sweep["dataset"] == LAW_SCHOOL.name) & sweep["epsilon"].isin(FIG4_EPSILONS)
                & (sweep["n_bins"].isin(fig34_n_bins) & sweep["alpha"].isin(alphas)
                   | (sweep["n_bins"] == ENVELOPE_ENDPOINT_N_BINS))]
    fig34 = summarise(law, ["epsilon", "n_bins", "alpha"], ddof=args.ddof)
    envelope = envelopes(fig34)
    paths["fig3_csv"] = out / "fig3_law_school_eps0.1.csv"
    paths["fig3_png"] = out / "fig3_law_school_eps0.1.png"
    paths["fig4_csv"] = out / "fig4_envelopes.csv"
    paths["fig4_png"] = out / "fig4_law_school_envelopes.png"
    fig34[fig34["epsilon"] == FIG3_EPSILON].to_csv(paths["fig3_csv"], index=False)
    envelope.to_csv(paths["fig4_csv"], index=False)
    plot_fig3(fig34, envelope, paths["fig3_png"])
    plot_fig4(fig34, envelope, paths["fig4_png"])
    return fig34, envelope


def _publish(paths, datasets):
    """Copy the documentation's sources (summary CSV and figures) to docs/img/."""
    if len(datasets) != len(DATASETS) or "fig4_png" not in paths:
        raise SystemExit("--publish needs every dataset (no --dataset)")
    DOCS_IMG.mkdir(parents=True, exist_ok=True)
    for key, name in (("main_table_summary", PUBLISHED_SUMMARY.name), ("fig2_png", "xian2024_fig2_tradeoffs.png"),
                      ("fig3_png", "xian2024_fig3_law_school_eps0.1.png"),
                      ("fig4_png", "xian2024_fig4_envelopes.png")):
        shutil.copyfile(paths[key], DOCS_IMG / name)
        paths[f"published_{key}"] = DOCS_IMG / name


def _report(args, seeds, table, sweep, raw, summary, paths, fig2, fig34, envelope, elapsed_runs, elapsed):
    n_warned = int((sweep["warnings"] != "").sum())
    grid = "quick grid" if args.quick else "the authors' grids"
    print(f"Xian et al. (2024) reproduction: seeds {seeds.start}-{seeds.stop - 1}, {grid}, std ddof={args.ddof}, "
          f"n_jobs={args.n_jobs}")
    print(f"{len(sweep)} fits ({len(sweep) // args.seeds} configurations x {args.seeds} seeds), "
          f"{n_warned} with warnings\n")
    print(table)
    print(f"\nFits: {elapsed_runs:.1f} s; total with CSVs and plots: {elapsed:.1f} s")
    print("Files:")
    for path in paths.values():
        print(f"  {path}")
    return {"paths": paths, "summary": summary, "fig2": fig2, "fig34": fig34, "envelope": envelope,
            "sweep": sweep, "raw": raw, "markdown": table, "elapsed": elapsed}


if __name__ == "__main__":
    main()
