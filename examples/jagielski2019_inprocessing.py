"""Reproduce Figure 1 (left panel) of Jagielski et al. (ICML 2019): DP-oracle-learner on Communities & Crime.
==========================================================================================================

"Differentially Private Fair Learning" evaluates its Algorithm 3 (DP-oracle-learner: the Agarwal et al. 2018
Learner/Auditor game with Laplace noise on the Auditor's violations and a private cost-sensitive oracle for the
Learner, private in the sensitive attribute only) by the Pareto frontier of error against equalized-odds violation
on the UCI Communities and Crime data (m ~ 2K), one curve per privacy level, "for unreasonable levels of epsilon",
plus the claim that on the data upsampled 10 times (m ~ 20K) the same curve is obtained with epsilon' = epsilon/10.
This script repeats that experiment with :class:`fairlearn_dp.reductions.JagielskiExponentiatedGradient`. It is the
sibling of ``jagielski2019_postprocessing.py`` (Fig. 1 right) and uses the same data, split, metrics and
conventions.

Data (``load_data``), the same rows, label and group as the sibling script:

- the bundled UCI Communities & Crime (``fetch_communities_crime``: 1,994 communities, identifiers and columns with
  missing values removed);
- label ``y = 1[ViolentCrimesPerPop > its 70th percentile]`` (0.28 on the donors' [0, 1] scale; 583 positives),
  the binarisation of Kearns et al. (2018a), whose cleaning the paper follows. The quantile is computed on the data:
  under the paper's neighbouring relation (one person's sensitive attribute changes; X and y are public) it is a
  public quantity, as is everything computed from (X, y) alone;
- sensitive attribute ``a = 1[racepctblack > 0.06]``, the loader's ``sensitive_features`` (a public threshold, the
  median of ``racepctblack``: 970 communities with a = 1). The paper does not say which binary group it used; this
  is the group of the sibling script and of Xian et al. (2024);
- features: the loader's 99 numeric columns minus ``racepctblack`` (so the hypotheses are "A-blind", as Algorithm 3
  requires), 98 columns. The UCI donors normalised every column to [0, 1] (a public range), so ``2 x - 1`` puts them
  in [-1, 1] with the public bound ``feature_bound = 1`` (nothing is clipped).

Per seed in ``range(n_seeds)``: a 70/30 split ``train_test_split(..., test_size=0.3, random_state=seed,
stratify=y)`` (m = 1,395 training rows); then for every setting below and every gamma in ``GAMMAS`` (a subset of
[0, 1] starting at 0, as the paper's sweep) one fit of ``JagielskiExponentiatedGradient(constraints=
EqualizedOdds(difference_bound=gamma), epsilon=epsilon, delta=1e-7, beta=0.05, bound_B=10, max_iter=100,
min_count=None, groups=[0, 1], privacy_unit="sensitive_attribute", random_state=seed)`` on the training rows with
a fresh ``diffprivlib.BudgetAccountant`` (``min_count=None``: the smallest (group, label) cell count is estimated
privately with 10% of epsilon; ``epsilon = inf`` is the non-private game, no noise):

``regression``
    ``oracle="regression"``, the paper's experimental oracle (Kearns et al. 2018a; Smith et al. 2017): a linear
    regression of the per-record cost difference on ``[x, 1]``, ``(X^T X)^{-1} noisy(X^T c)``; X^T X is not noised
    since the relation protects A only. The hypotheses are linear threshold functions, as in the paper. Epsilons in
    ``EPSILONS_REGRESSION``.
``regression_upsampled10``
    the same on 10 copies of the training rows (m = 13,950) at ``epsilon' = epsilon / 10`` for the epsilons 1e7,
    3e6 and 1e6 of the regression grid, where the private curve differs from the non-private one
    (``EPSILONS_UPSAMPLED``). The paper *labels* its curves with this epsilon' (its text argues, in the
    conditional, that the upsampled run would give the same curve); here the upsampled fit is run, so the claim is
    tested: every cell count, hence every sensitivity ``~ 1/(N - 1)``, is 10 times larger,
    and the cost vector is an average (``1/m`` scaling), so the Laplace noise relative to the signal is the same at
    epsilon/10, and the in-sample metrics of a classifier are the same on the copies as on the original rows.
    **This is a thought experiment about dataset size, not a privacy guarantee for these people**: upsampling
    copies records, so one community's attribute appears in 10 rows, and the run at epsilon' protects it only by
    group privacy, at 10 epsilon' = epsilon (pure DP; the delta grows too). epsilon' is the guarantee the same
    algorithm would give on 13,950 *distinct* communities whose data looked like this.
``exponential``
    ``oracle="exponential"`` over a finite, public class of linear threshold functions
    (``linear_threshold_hypotheses(98, n_directions=32, n_thresholds=16, random_state=0)``: the 196 signed axes and
    32 random directions, 16 thresholds each, plus the two constants: 3,650 hypotheses), i.e. Subroutine 2 exactly
    as the paper analyses it. Not in the paper's figure; shown for contrast (its sensitivity does not grow with the
    number of features, but its class is much weaker than the regression oracle's). Epsilons in
    ``EPSILONS_EXPONENTIAL``.

Metrics (as in the sibling): on the train split (in-sample, what the paper reports) and on the test split, the
error and the equalized-odds violation ``max(|FPR_1 - FPR_0|, |TPR_1 - TPR_0|)`` of the randomized classifier, computed
exactly from ``_pmf_predict`` (expected rates), plus the "realised" error / violation of one seeded ``predict``
draw. Each point of the figure is the mean over seeds of one (setting, epsilon, gamma); each line is the Pareto
front of those points for one epsilon. Within a seed all fits share ``random_state=seed``.

The number of rounds T: Algorithm 3 sets ``T = B sqrt(ln(4|A| - 3)) m epsilon / (2 (2|A| B + 1) sqrt(ln(1/delta))
(d_H ln m + ln(2/beta)))`` (``paper_rounds``, also the library's default when ``max_iter=None``). With
d_H = 99 (halfspaces in R^98), m = 1,395 and B = 10 this is T ~ 0.075 epsilon: T grows linearly with epsilon, so
the per-round budget epsilon / (2T) stays near 7 for every epsilon, and more epsilon only buys more rounds of
equally noisy plays. That suits the exponential mechanism, whose noise the formula was derived for; for the
regression oracle, whose Laplace noise on the 99-vector ``X^T c`` has L1 sensitivity ``2 d B / (N - 1)`` (d = 98,
N ~ 70 the smallest cell) and is then multiplied by the inverse of the ill-conditioned ``X^T X`` (98 correlated
census features), a per-round epsilon of ~7 gives plays no better than chance at any epsilon (so does 450, at
epsilon = 1e5 with T = 100), and at epsilon = 1e7 the formula asks for ~750,000 rounds. So ``max_iter = 100`` is fixed for every fit (the non-private game included,
so that the curves differ by privacy only): T = 100 rounds are enough for the uniform average of Algorithm 3 to show
the shape of the trade-off (non-private, in-sample: violation 0.031 at gamma = 0 and 0.075 at gamma = 1; more
rounds widen the range slowly, since the average's duality gap shrinks like 1/sqrt(T)), and the per-round epsilon
is then about ``(0.9 epsilon) / 200`` (basic composition; advanced composition does slightly better only at
epsilon = 100). The CSV records what the paper's formula would have given (``T_paper_formula``).

Outputs (under ``--out``): ``per_seed.csv`` (one row per seed, setting, epsilon, gamma: metrics, T, per-round
epsilon, the private cell-count bound ``min_count_``, noise scale, the size of the exponential oracle's class
``n_hypotheses``, fit time, warnings), ``summary.csv`` (mean and std over seeds), ``pareto_fronts.csv`` and
``fig1_left_inprocessing.png`` (columns: regression oracle, its 10x-upsampled run with the original curves dotted,
exponential oracle; rows: train and test).

Usage::

    python examples/jagielski2019_inprocessing.py --n-jobs 2      # 10 seeds, 10 gammas (~4 min on 2 busy cores)
    python examples/jagielski2019_inprocessing.py --quick         # 2 seeds, 3 gammas, 5 settings (seconds)
    python examples/jagielski2019_inprocessing.py --seeds 20 --out /tmp/jagielski_left
"""

from __future__ import annotations

import math
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fairdp_adapters._checkout import load_example, parse_seeded_args  # noqa: E402
from fairlearn.reductions import EqualizedOdds  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from fairlearn_dp.privacy import BudgetAccountant  # noqa: E402
from fairlearn_dp.reductions import JagielskiExponentiatedGradient, linear_threshold_hypotheses  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "jagielski2019_inprocessing"
DEFAULT_SEEDS = 10
QUICK_SEEDS = 2

#: Source column of the sensitive attribute (dropped from the features: A-blind hypotheses).
GROUP_SOURCE = "racepctblack"
GROUPS = (0, 1)

#: The paper's parameters (Section 5): beta = 0.05, delta = 1e-7. B is not stated: the library default.
BETA = 0.05
DELTA = 1e-7
BOUND_B = 10.0
#: Rounds T of every fit (see the module docstring for why not Algorithm 3's formula).
MAX_ITER = 100
#: Public bound on |x_j| after the 2x - 1 scaling.
FEATURE_BOUND = 1.0
#: Copies of the training rows in the upsampled run, and the paper's epsilon' = epsilon / UPSAMPLE.
UPSAMPLE = 10
#: Seed of the public hypothesis class of the exponential oracle.
HYPOTHESIS_SEED = 0

#: Privacy budgets of the regression oracle (inf: the non-private game). "Unreasonable" values, as in the paper.
EPSILONS_REGRESSION = (math.inf, 1e8, 1e7, 3e6, 1e6, 1e5, 1e2)
#: epsilon' = epsilon / 10 of the upsampled run (the original-scale epsilon is 10 times this).
EPSILONS_UPSAMPLED = (1e6, 3e5, 1e5)
#: Privacy budgets of the exponential-mechanism oracle.
EPSILONS_EXPONENTIAL = (math.inf, 1e4, 1e3, 1e2)
#: Fairness tolerances gamma swept for the trade-off curves (the paper: "a rich pre-specified subset of [0, 1]").
GAMMAS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)
QUICK_GAMMAS = (0.0, 0.2, 1.0)
#: The gammas reported in the printed table (in both grids).
TABLE_GAMMAS = (0.0, 0.2, 1.0)

#: (setting, oracle, upsampling factor, epsilons) of the full and the quick run.
SETTINGS = (("regression", "regression", 1, EPSILONS_REGRESSION),
            ("regression_upsampled10", "regression", UPSAMPLE, EPSILONS_UPSAMPLED),
            ("exponential", "exponential", 1, EPSILONS_EXPONENTIAL))
QUICK_SETTINGS = (("regression", "regression", 1, (math.inf, 1e7, 1e5)),
                  ("regression_upsampled10", "regression", UPSAMPLE, (1e6,)),
                  ("exponential", "exponential", 1, (math.inf, 1e4)))

SPLITS = ("train", "test")
METRICS = ("error", "eo_violation", "fpr_gap", "tpr_gap", "realised_error", "realised_eo_violation")


# ---------------------------------------------------------------------------------------------------- data
# The sibling script (Fig. 1 right) defines the rows, label, group, split and metrics; both figures use them.
_SIBLING = load_example("jagielski2019_postprocessing.py")
split = _SIBLING.split
group_rates = _SIBLING.group_rates


def load_data():
    """The sibling's data with the features mapped to [-1, 1]: ``(X, y, a, feature_names)``.

    - ``y = 1[ViolentCrimesPerPop > its 70th percentile]`` (Kearns et al. 2018a; the threshold is 0.28);
    - ``a = 1[racepctblack > its median (0.06)]``;
    - ``X = 2 x - 1`` for the loader's features without ``racepctblack`` (all in the public range [0, 1]).
    """
    features, y, a = _SIBLING.load_data()
    return scale_features(features), y, a, list(features.columns)


def scale_features(frame):
    """Map features from their public range [0, 1] to [-1, 1] (``2 x - 1``); refuse values outside [0, 1]."""
    values = np.asarray(frame, dtype=float)
    if values.min() < 0.0 or values.max() > 1.0:
        raise ValueError("Communities & Crime features are expected in the donors' [0, 1] range.")
    return 2.0 * values - 1.0


def upsample(X, y, a, factor):
    """``factor`` copies of every row (the paper's "upsampled" dataset)."""
    return np.tile(X, (factor, 1)), np.tile(y, factor), np.tile(a, factor)


def hypothesis_class(n_features):
    """The exponential oracle's public class: linear thresholds on the signed axes and 32 random directions."""
    return linear_threshold_hypotheses(n_features, n_directions=32, n_thresholds=16, feature_bound=FEATURE_BOUND,
                                       random_state=HYPOTHESIS_SEED)


def paper_rounds(m, n_features, epsilon, *, bound_B=BOUND_B, n_groups=len(GROUPS), delta=DELTA, beta=BETA):
    """T of Algorithm 3 (Jagielski et al. 2019) with d_H = n_features + 1 (halfspaces), as a float.

    ``T = B sqrt(ln(4|A| - 3)) m eps / (2 (2|A| B + 1) sqrt(ln(1/delta)) (d_H ln m + ln(2/beta)))``.

    >>> round(paper_rounds(1395, 98, 1e4), 1)
    746.1
    >>> paper_rounds(1395, 98, math.inf)
    inf
    """
    d_h = n_features + 1
    numerator = bound_B * math.sqrt(math.log(4 * n_groups - 3)) * m * epsilon
    denominator = (2 * (2 * n_groups * bound_B + 1) * math.sqrt(math.log(1 / delta))
                   * (d_h * math.log(m) + math.log(2 / beta)))
    return numerator / denominator


# ------------------------------------------------------------------------------------------------ metrics
def evaluate(model, X, y, a, *, seed):
    """Exact (from ``_pmf_predict``) and realised (one seeded ``predict`` draw) metrics on one split."""
    exact = group_rates(model._pmf_predict(X)[:, 1], y, a)
    realised = group_rates(model.predict(X, random_state=seed), y, a)
    exact["realised_error"] = realised["error"]
    exact["realised_eo_violation"] = realised["eo_violation"]
    return exact


# ---------------------------------------------------------------------------------------------- one seed
def fit_inprocessor(X, y, a, *, oracle, epsilon, gamma, seed, hypotheses=None):
    """Algorithm 3 on ``(X, y, a)``: equalized odds with bound gamma, a fresh accountant, ``max_iter = MAX_ITER``.

    Returns the fitted estimator, the warnings raised while fitting and the fit time in seconds.
    """
    model = JagielskiExponentiatedGradient(
        constraints=EqualizedOdds(difference_bound=gamma), epsilon=epsilon, delta=DELTA, bound_B=BOUND_B,
        max_iter=MAX_ITER, oracle=oracle, hypotheses=hypotheses if oracle == "exponential" else None,
        feature_bound=FEATURE_BOUND, min_count=None, beta=BETA, privacy_unit="sensitive_attribute",
        groups=list(GROUPS), accountant=BudgetAccountant(), random_state=seed)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=a)
    return model, [f"{w.category.__name__}: {w.message}" for w in caught], time.perf_counter() - start


def _split_columns(metrics, split_name):
    return {f"{key}_{split_name}": value for key, value in metrics.items()}


def run_seed(X, y, a, seed, settings, gammas):
    """Split with ``seed`` and fit every (setting, epsilon, gamma) on the train split; returns a list of row dicts.

    BLAS is limited to one thread: the fits are many small linear-algebra calls (``lstsq`` on a 99 x 99 system per
    round), which a thread pool slows down several times on a busy machine.
    """
    X_tr, X_te, y_tr, y_te, a_tr, a_te = split(X, y, a, seed)
    evaluation = {"train": (X_tr, y_tr, a_tr), "test": (X_te, y_te, a_te)}
    hypotheses = hypothesis_class(X.shape[1])
    rows = []
    with threadpool_limits(limits=1):
        for setting, oracle, factor, epsilons in settings:
            X_fit, y_fit, a_fit = upsample(X_tr, y_tr, a_tr, factor) if factor > 1 else (X_tr, y_tr, a_tr)
            for epsilon in epsilons:
                for gamma in gammas:
                    row = {"seed": seed, "setting": setting, "oracle": oracle, "upsample": factor,
                           "epsilon": epsilon, "epsilon_original_scale": epsilon * factor, "gamma": gamma,
                           "m_fit": y_fit.size, "T": MAX_ITER,
                           "n_hypotheses": len(hypotheses) if oracle == "exponential" else np.nan,
                           "T_paper_formula": paper_rounds(y_fit.size, X.shape[1], epsilon)}
                    model, caught, seconds = fit_inprocessor(X_fit, y_fit, a_fit, oracle=oracle, epsilon=epsilon,
                                                             gamma=gamma, seed=seed, hypotheses=hypotheses)
                    for name, (X_s, y_s, a_s) in evaluation.items():
                        row.update(_split_columns(evaluate(model, X_s, y_s, a_s, seed=seed), name))
                    row.update({"epsilon_per_round": model.epsilon_per_mechanism_, "composition": model.composition_,
                                "min_count": model.min_count_, "auditor_noise_scale": model.history_["noise_scale"],
                                "n_distinct_plays": len(model.predictors_),
                                "privacy_spent_epsilon": model.privacy_spent_.epsilon,
                                "privacy_spent_delta": model.privacy_spent_.delta, "fit_seconds": seconds,
                                "warnings": " | ".join(sorted(set(caught)))})
                    rows.append(row)
    return rows


def run_all(n_seeds, settings, gammas, n_jobs=1):
    """Every seed through joblib; returns the per-seed DataFrame sorted by (setting, -epsilon, gamma, seed)."""
    X, y, a, _ = load_data()
    results = Parallel(n_jobs=n_jobs)(delayed(run_seed)(X, y, a, seed, settings, gammas) for seed in range(n_seeds))
    per_seed = pd.DataFrame([row for rows in results for row in rows])
    order = {name: i for i, (name, *_) in enumerate(settings)}
    per_seed = (per_seed.assign(_setting=per_seed["setting"].map(order), _eps=-per_seed["epsilon"])
                .sort_values(["_setting", "_eps", "gamma", "seed"], ignore_index=True)
                .drop(columns=["_setting", "_eps"]))
    return per_seed


# ---------------------------------------------------------------------------------------------- analysis
def pareto_front(points):
    """Non-dominated points of a cloud of (error, violation) points, sorted by increasing error.

    Same rule as the sibling script: along the returned front the error increases and the violation strictly
    decreases; duplicates are kept once.

    >>> pareto_front([(0.2, 0.0), (0.1, 0.3), (0.15, 0.1), (0.2, 0.05), (0.3, 0.0), (0.12, 0.3), (0.16, 0.2)])
    array([[0.1 , 0.3 ],
           [0.15, 0.1 ],
           [0.2 , 0.  ]])
    >>> pareto_front([(1, 1), (1, 1)])
    array([[1., 1.]])
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    if pts.shape[0] == 0:
        raise ValueError("pareto_front needs at least one point.")
    if not np.all(np.isfinite(pts)):
        raise ValueError("pareto_front needs finite points.")
    pts = np.unique(pts, axis=0)
    front, best = [], math.inf
    for point in pts:
        if point[1] < best:
            front.append(point)
            best = point[1]
    return np.array(front)


def summarise(per_seed):
    """Mean and std (ddof=1) over the seeds, per (setting, epsilon, gamma)."""
    frame = per_seed.copy()
    for column in [f"{m}_{s}" for s in SPLITS for m in METRICS] + ["epsilon_per_round", "min_count",
                                                                   "auditor_noise_scale", "n_distinct_plays",
                                                                   "fit_seconds"]:
        if column not in frame:
            frame[column] = np.nan
    aggregations = {}
    for split_name in SPLITS:
        for metric in METRICS:
            column = f"{metric}_{split_name}"
            aggregations[f"{column}_mean"] = (column, "mean")
            aggregations[f"{column}_std"] = (column, "std")
    for column in ("epsilon_per_round", "min_count", "auditor_noise_scale", "n_distinct_plays", "fit_seconds"):
        aggregations[f"{column}_mean"] = (column, "mean")
    for column in ("oracle", "upsample", "epsilon_original_scale", "m_fit", "T", "T_paper_formula", "n_hypotheses"):
        aggregations[column] = (column, "first")
    aggregations["n_seeds"] = ("seed", "nunique")
    aggregations["n_fits_with_warnings"] = ("warnings", lambda s: int((s.fillna("") != "").sum()))
    grouped = frame.groupby(["setting", "epsilon", "gamma"], sort=False)
    return grouped.agg(**aggregations).reset_index()


def pareto_fronts(summary):
    """Pareto fronts of the seed-averaged points per (setting, epsilon, split), with the gamma of each vertex."""
    rows = []
    for (setting, epsilon), frame in summary.groupby(["setting", "epsilon"], sort=False):
        for split_name in SPLITS:
            x, v = f"error_{split_name}_mean", f"eo_violation_{split_name}_mean"
            for vertex, (error, violation) in enumerate(pareto_front(frame[[x, v]].to_numpy())):
                hit = frame[(frame[x] == error) & (frame[v] == violation)].sort_values("gamma").iloc[0]
                rows.append({"setting": setting, "epsilon": epsilon,
                             "epsilon_original_scale": hit["epsilon_original_scale"], "split": split_name,
                             "vertex": vertex, "error_mean": error, "eo_violation_mean": violation,
                             "gamma": hit["gamma"]})
    return pd.DataFrame(rows)


def _eps_label(eps):
    return "∞ (no DP)" if math.isinf(eps) else f"{eps:.0e}".replace("e+0", "e")


def markdown_table(summary, gammas):
    """Seed means (± std) at the given gammas: error and EO violation (train, test), T, per-round epsilon, N."""
    header = ("| setting | ε used | ε original scale | γ | T (paper formula) | ε per round | N (min cell) | "
              "error train | EO viol. train | realised viol. train | error test | EO viol. test | seeds |")
    lines = [header, "|" + "---|" * (header.count("|") - 1)]

    def cell(row, column):
        return f"{getattr(row, column + '_mean'):.4f} ± {getattr(row, column + '_std'):.4f}"

    for row in summary.itertuples(index=False):
        if not any(math.isclose(row.gamma, g) for g in gammas):
            continue
        paper_t = "-" if math.isinf(row.T_paper_formula) else f"{row.T_paper_formula:,.0f}"
        lines.append(f"| {row.setting} | {_eps_label(row.epsilon)} | {_eps_label(row.epsilon_original_scale)} | "
                     f"{row.gamma:g} | {row.T} ({paper_t}) | {row.epsilon_per_round_mean:.3g} | "
                     f"{row.min_count_mean:.0f} | {cell(row, 'error_train')} | {cell(row, 'eo_violation_train')} | "
                     f"{cell(row, 'realised_eo_violation_train')} | {cell(row, 'error_test')} | "
                     f"{cell(row, 'eo_violation_test')} | {row.n_seeds} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- plots
def _colors(values):
    cmap = plt.get_cmap("tab10")
    finite = sorted((v for v in values if not math.isinf(v)), reverse=True)
    colors = {v: cmap(i % 10) for i, v in enumerate(finite)}
    colors[math.inf] = "black"
    return colors


def plot_figure(summary, fronts, settings, path):
    """Error vs EO violation, Pareto fronts per epsilon: one column per setting, rows train (paper) and test.

    Colours follow the original-scale epsilon, so an upsampled curve at epsilon' has the colour of the original
    curve at epsilon = 10 epsilon' (drawn dashed in the upsampled column for comparison).
    """
    scales = sorted(set(summary["epsilon_original_scale"]), reverse=True)
    colors = _colors(scales)
    names = [name for name, *_ in settings]
    fig, axes = plt.subplots(2, len(names), figsize=(5.0 * len(names), 8.2), squeeze=False)
    titles = {"regression": "regression oracle (paper), m ≈ 1.4K",
              "regression_upsampled10": f"regression oracle, data ×{UPSAMPLE} (m ≈ 14K): ε' = ε/{UPSAMPLE}",
              "exponential": "exponential-mechanism oracle, m ≈ 1.4K"}
    for col, name in enumerate(names):
        for row_index, split_name in enumerate(SPLITS):
            ax = axes[row_index, col]
            x, v = f"error_{split_name}_mean", f"eo_violation_{split_name}_mean"
            part = summary[summary["setting"] == name]
            for eps in sorted(set(part["epsilon"]), reverse=True):
                points = part[part["epsilon"] == eps]
                scale = points["epsilon_original_scale"].iloc[0]
                ax.scatter(points[x], points[v], s=9, color=colors[scale], alpha=0.35, zorder=2)
                front = fronts[(fronts["setting"] == name) & (fronts["epsilon"] == eps)
                               & (fronts["split"] == split_name)]
                if name == "regression_upsampled10":
                    label = f"ε' = {_eps_label(eps)} (≡ ε = {_eps_label(scale)})"
                else:
                    label = f"ε = {_eps_label(eps)}"
                ax.plot(front["error_mean"], front["eo_violation_mean"], marker="o", ms=3, lw=1.5,
                        color=colors[scale], ls="--" if math.isinf(eps) else "-", label=label,
                        zorder=4 if math.isinf(eps) else 3)
                if name == "regression_upsampled10":   # the original run at the matching epsilon, dashed
                    reference = fronts[(fronts["setting"] == "regression") & (fronts["split"] == split_name)
                                       & (fronts["epsilon"] == scale)]
                    if len(reference):
                        ax.plot(reference["error_mean"], reference["eo_violation_mean"], lw=1.0, ls=":",
                                color=colors[scale], alpha=0.9, zorder=2)
            if name == "regression_upsampled10":
                reference = fronts[(fronts["setting"] == "regression") & (fronts["split"] == split_name)
                                   & np.isinf(fronts["epsilon"])]
                if len(reference):
                    ax.plot(reference["error_mean"], reference["eo_violation_mean"], lw=1.2, ls="--", color="black",
                            label="ε = ∞ (original data)", zorder=4)
                ax.plot([], [], ls=":", color="gray", label="original data at ε = 10 ε' (dotted)")
            where = "in-sample (train), as in the paper" if split_name == "train" else "held-out (test)"
            ax.set_title(f"{titles.get(name, name)}\n{where}", fontsize=9)
            ax.set_xlabel("Error (1 - accuracy)")
            ax.set_ylabel("EO violation max(|ΔFPR|, |ΔTPR|)")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="best")
    fig.suptitle("Jagielski et al. (2019), Fig. 1 (left): DP-oracle-learner (Alg. 3) on Communities & Crime, "
                 f"Pareto fronts over γ, T = {MAX_ITER}, B = {BOUND_B:g}, δ = {DELTA:g}, mean over seeds",
                 fontsize=10.5)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# -------------------------------------------------------------------------------------------------- main
def parse_args(argv=None):
    return parse_seeded_args(argv, doc=__doc__, default_out=DEFAULT_OUT, default_seeds=DEFAULT_SEEDS,
                             quick_seeds=QUICK_SEEDS,
                             quick_help=f"gammas {QUICK_GAMMAS} and {sum(len(s[3]) for s in QUICK_SETTINGS)} "
                                        "(setting, epsilon) pairs")


def main(argv=None):
    """Run the reproduction; returns a dict with the summary DataFrames, the per-seed rows, paths and run time."""
    args = parse_args(argv)
    gammas = QUICK_GAMMAS if args.quick else GAMMAS
    settings = QUICK_SETTINGS if args.quick else SETTINGS
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    per_seed = run_all(args.seeds, settings, gammas, n_jobs=args.n_jobs)
    elapsed_runs = time.perf_counter() - start

    summary = summarise(per_seed)
    fronts = pareto_fronts(summary)
    paths = {"per_seed": out / "per_seed.csv", "summary": out / "summary.csv",
             "pareto_fronts": out / "pareto_fronts.csv", "figure": out / "fig1_left_inprocessing.png"}
    per_seed.to_csv(paths["per_seed"], index=False)
    summary.to_csv(paths["summary"], index=False)
    fronts.to_csv(paths["pareto_fronts"], index=False)
    plot_figure(summary, fronts, settings, paths["figure"])
    elapsed = time.perf_counter() - start

    table = markdown_table(summary, TABLE_GAMMAS)
    n_warned = int((per_seed["warnings"].fillna("") != "").sum())
    print(f"Jagielski et al. (2019) Fig. 1 left: {args.seeds} seeds, gammas {list(gammas)}, T = {MAX_ITER}, "
          f"B = {BOUND_B:g}, delta = {DELTA:g}, n_jobs={args.n_jobs}")
    print(f"{len(per_seed)} fits ({per_seed['fit_seconds'].sum():.0f} s of fitting), {n_warned} with warnings")
    print()
    print(table)
    print(f"\nFits: {elapsed_runs:.1f} s; total with CSVs and plot: {elapsed:.1f} s")
    print("Files:")
    for path in paths.values():
        print(f"  {path}")
    return {"summary": summary, "pareto_fronts": fronts, "per_seed": per_seed, "markdown": table, "paths": paths,
            "elapsed": elapsed}


if __name__ == "__main__":
    main()
