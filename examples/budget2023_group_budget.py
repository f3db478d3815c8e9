"""Reproduce the experiments of the budget-tailoring paper (group-aware DP regression) with fairdp.
================================================================================================

"Budget tailoring for group-aware differentially private regression" (Sections 4, 6, 6.1 and Appendix A) compares
its two-stage scheme DPSE (stage 1 spends ``tau = 0.2 rho`` on private per-group standard errors ``s_k``; stage 2
gives group k the share ``s_k^2`` of every DP gradient-descent step's budget ``mu = 0.8 rho``) with DPNoSE,
"standard linear regression computed via DPGD (budget of rho) but with no group aware budget allocation" (Sec. 6).
Both are :class:`fairlearn_dp.reductions.DPGroupBudgetRegressor` (``budget_allocation="standard_errors"`` /
``"uniform"``). Every seed fits all methods on the *same* data with the same ``random_state`` (only the noise
draws differ), so the per-group differences DPNoSE - DPSE are paired.

Readings (``--reading``, default all; each is a pair of fits, a fit shared by readings is computed once):

- ``group_mean`` (A): DPNoSE and DPSE both minimise the sum of the group *mean* losses (``objective="group_mean"``,
  the paper's Alg. 2: line 10 averages each group's clipped gradients, ``f = sum``); they differ only in the
  budget split.
- ``pooled_dpnose`` (B): DPNoSE is standard pooled-loss DPGD (``objective="pooled"``: the sum of all per-example
  gradients, Alg. 3 with uniform shares); DPSE is the paper's group-aware scheme, Alg. 1 + Alg. 2 (group means).
  The two methods then minimise different objectives, and the difference does not vanish as rho grows.
- ``pooled`` (C): both pooled (Alg. 1 + Alg. 3, the appendix's variant "with no fairness constraints"); again only
  the budget split differs.
- ``bgl`` (F, the fairness setting): both with bounded group loss as in Sec. 6, ``f(l) = sum_i l_i`` and ``g(l) =
  max_i l_i``, i.e. ``bounded_group_loss = eta = 0`` (the constraint max_k L_k <= 0 is always violated, so the
  worst group's gradient is always added), multiplier ``G = 1`` (the paper gives none; the estimator's default).
- ``bgl_pooled_dpnose`` (FB): DPNoSE as in B, DPSE = Alg. 1 + Alg. 2 with the bounded-group-loss term of F.

The pooled objective's direction is a sum over all n rows, so its step is ``learning_rate * K / n`` (public
sizes): the same step on a mean gradient as the group-mean objective's (both converge in T = 200 non-private
iterations, see the printed drift). The bounded-group-loss fits do not settle (the worst group switches), which
is the method's behaviour with ``eta = 0``.

1. Synthetic, K = 5 (Sec. 6.1, Tables 1-3; outputs ``synthetic_*``)
   Group sizes 10,000 / 5,000 / 2,000 / 1,000 / 500 (the "20x" experiment); ``X ~ U[-1, 1]^2`` (P = 2), ``y = X
   beta_k + N(0, sigma_e^2)``, ``sigma_e = 1``, no intercept (the paper's model has none, so
   ``fit_intercept=False``). The paper does not list its K = 5 slopes; we use (our choice)

       beta_1 = (1, -1)                       (majority)
       beta_2 = beta_1 + (5, 5)    = (6, 4)   beta_5 = beta_1 - (5, 5)    = (-4, -6)
       beta_3 = beta_1 + (5.5, -5.5) = (6.5, -6.5)   beta_4 = beta_1 - (5.5, -5.5) = (-4.5, 4.5)

   The minority slopes sit in symmetric pairs around beta_1, so the equal-weight (``group_mean``) objective is
   minimised at beta_1: the majority gets MSPE ~ sigma_e^2 = 1 and the minorities ``1 + |beta_k - beta_1|^2 / 3`` ~
   17.7 (groups 2, 5) and ~ 21.2 (groups 3, 4), the pattern of the paper's Table 1 (1.02; 18.7, 21.1, 21.4, 18.1).
   ``data_bound = 1`` for the features and ``target_bound = 16`` for y (``|X beta_k| <= 13``, so y is clipped only
   beyond a > 3 sigma_e noise draw at a corner; the clipped fraction is measured and printed), ``coef_bound = 5``
   (C_P = [-5, 5]^2), ``clip = 2`` (the paper's Delta), ``n_iter = 200``, ``learning_rate = 0.1`` (the non-private
   fit, rho = 1e9, converges: its last 20 iterates agree to < 1e-6), ``stage1_fraction = 0.2``, rho in {0.005,
   0.05, 2, 4.5, 8} (the paper's Tables 1-3 use 2, 4.5, 8; its Fig. 2 sweep starts at 0.1^2 / 2 = 0.005). MSPE
   per group on fresh test data drawn from the same model with the same group sizes.

   Paired design: at each (seed, rho) DPSE and DPNoSE are fitted on the same data with the same
   ``random_state``; the estimator draws each stage's noise from its own stream, so both share their stage-2
   standard normal draws (common random numbers) and the paired difference isolates the budget allocation.

   What to expect in readings A, C and F (why a budget split alone cannot give the paper's Tables 1-3): the
   model is one linear predictor, so
   every group's noisy gradient adds isotropic noise to the same coefficients; an allocation can only change the
   *total* noise variance, proportional to ``sum_k 1 / (n_k^2 w_k) / mu`` for shares ``w_k`` (the group-mean
   gradient of group k has sensitivity ``2 clip / n_k``). DPSE pays ``tau = 0.2 rho`` for stage 1 (a factor 1.25
   on the variance) and moves the shares towards the groups with large residuals; here every minority has a
   similar residual, so the gain of its shares over uniform ones is only about 1.2: DPSE adds slightly *more*
   noise than DPNoSE, for every group. The effect is measurable at rho = 0.005 and shrinks like 1/rho; at the
   paper's rho >= 2 the correctly calibrated noise changes the MSPE by < 0.1%. The paper's Tables show a
   rho-independent shift of ~15% from the majority to the minorities, which no noise allocation can cause;
   its Alg. 2 also adds noise of scale ``clip`` to the group *mean* gradient (n_k times more than its
   sensitivity needs). In readings B and FB the two methods have different optima (pooled: groups weigh by size;
   group means: equally), so their MSPEs differ by a rho-independent bias. Its sign per group is set by the slopes
   (with ours DPSE is better for groups 1, 4 and 5 and worse for groups 2 and 3; with the four minority slopes on
   one side of the majority's, all five signs are the paper's: group 1 loses, every minority gains). Its size
   cannot be the paper's for any slopes: for a least-squares baseline with group weights ``w_k`` (pooled: ``n_k /
   n``) and one covariate distribution (covariance Sigma), ``sum_k w_k (MSPE_k(DPSE) - MSPE_k(DPNoSE)) =
   ||theta_DPSE - theta_DPNoSE||^2_Sigma >= 0``; the paper's changes (+0.25 for group 1, at least -2.79 for every
   other group) allow that only if ``w_1 >= 0.918``, while pooled least squares has ``w_1 = n_1 / n <= 0.83``
   with groups of 10,000 down to 500 (0.54 here). The gallery page states the argument in full.

2. Law School (Appendix A, Figure 5; outputs ``law_school_*``)
   ``fetch_law_school()`` restricted to race white vs black (the two groups of the paper; asian and hisp rows are
   dropped, see the printed row counts), target ``ugpa`` mapped from its public bounds ``LAW_SCHOOL_BOUNDS = (1,
   4)`` to [-1, 1]; features ``lsat`` mapped from the public range of the LSAT scale of the Bar Passage Study
   cohort, 10-48 (the 1982-1991 LSAT scale; the data span 11-48), and ``pass_bar`` (0/1, mapped to -1/+1), both
   into [-1, 1] with data-independent bounds; ``data_bound = 1``, with intercept. 70/30 train/test split per seed
   (stratified by group, ``random_state=seed``), the same rho values, otherwise the synthetic settings
   (``learning_rate = 0.1`` also converges here: the non-private coefficients are within 0.003 of the
   equal-group-weight least-squares fit; 0.3 already oscillates). MSPE per group on
   the test split, in original GPA units (the [-1, 1] MSPE times 1.5^2).

Outputs (under ``--out``): ``{synthetic,law_school}_per_fit.csv`` (one row per seed, rho, fit and group: every
fit of every reading), ``..._per_seed.csv`` and ``..._summary.csv`` (reading ``group_mean``, the file names of the
one-reading version), ``..._summary_<reading>.csv`` (mean, standard error over seeds, paired difference DPNoSE -
DPSE and its standard error, mean budget share ``s_k^2``, stage-1 fallback rate), ``tables.csv`` (all readings,
rows reading x dataset x rho x group, with the paper's Tables 1-3 values and relative changes DPSE / DPNoSE - 1
beside ours), ``readings.csv`` (what DPNoSE and DPSE are in each reading), ``verdict.csv`` (per reading: signs
matching the paper's, largest gap, the smallest group's change and paired z), ``mspe_vs_rho.png`` (reading
``group_mean``: MSPE per group vs rho for both methods, and the paired relative difference) and
``readings_vs_rho.png`` (relative difference per reading, the paper's values as crosses). Markdown tables shaped
like the paper's Tables 1-3 are printed. The documentation's copies are ``docs/img/budget2023_*``.

Usage::

    python examples/budget2023_group_budget.py                 # 50 seeds, rho in {0.005, 0.05, 2, 4.5, 8}
    python examples/budget2023_group_budget.py --quick         # 3 seeds, rho = 2 (smoke test)
    python examples/budget2023_group_budget.py --reading pooled_dpnose bgl
    python examples/budget2023_group_budget.py --n-jobs 2 --out /tmp/budget2023
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from fairdp_adapters._checkout import parse_seeded_args  # noqa: E402
from joblib import Parallel, delayed  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402

from fairlearn_dp.datasets import LAW_SCHOOL_BOUNDS, fetch_law_school  # noqa: E402
from fairlearn_dp.reductions import DPGroupBudgetRegressor  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parent / "output" / "budget2023"
DEFAULT_SEEDS = 50
QUICK_SEEDS = 3
RHOS = (0.005, 0.05, 2.0, 4.5, 8.0)     # the paper's Tables 1-3 (2, 4.5, 8) and the low end of its Fig. 2 sweep
QUICK_RHOS = (2.0,)
NONPRIVATE_RHO = 1e9
METHODS = ("DPNoSE", "DPSE")
DATASET_ORDER = ("synthetic", "law_school")

# The fits computed at every (seed, rho): name -> (objective, budget_allocation, bounded_group_loss). Every reading
# below compares two of them; a fit shared by several readings is computed once.
FITS = {
    "group_mean/uniform": ("group_mean", "uniform", None),
    "group_mean/SE": ("group_mean", "standard_errors", None),
    "pooled/uniform": ("pooled", "uniform", None),
    "pooled/SE": ("pooled", "standard_errors", None),
    "bgl/uniform": ("group_mean", "uniform", "eta"),
    "bgl/SE": ("group_mean", "standard_errors", "eta"),
}
# Non-private reference (rho = 1e9, uniform shares) of each objective.
NONPRIVATE_FITS = {"group_mean": "group_mean/uniform", "pooled": "pooled/uniform", "bgl": "bgl/uniform"}

# Bounded group loss as in the paper's Section 6 ("f(l) = sum_i l_i and g(l) = max_i l_i"): the constraint g <= 0
# is max_k L_k <= 0, i.e. eta = 0 (the penalty is always active); the paper gives no value of the multiplier G,
# we use the estimator's default 1.
BGL_ETA = 0.0
BGL_G = 1.0

# Readings of "DPNoSE" and "DPSE": which fit each is. The paper (Sec. 6) calls DPNoSE "standard linear regression
# computed via DPGD (budget of rho) but with no group aware budget allocation"; its DPSE is Alg. 1 + Alg. 2, whose
# stage 2 sums the groups' *mean* gradients (Alg. 2 line 10: 1 / n_k; f = sum of the group losses), i.e.
# objective="group_mean"; its Alg. 3 (Appendix B, "a variation of Algorithm 2 with no fairness constraints") sums
# the raw per-example gradients, i.e. objective="pooled".
READINGS = {
    "group_mean": {"DPNoSE": "group_mean/uniform", "DPSE": "group_mean/SE",
                   "label": "A: both group-mean objective (Alg. 2), budget split only"},
    "pooled_dpnose": {"DPNoSE": "pooled/uniform", "DPSE": "group_mean/SE",
                      "label": "B: DPNoSE = standard pooled-loss DPGD, DPSE = Alg. 1 + Alg. 2 (group means)"},
    "pooled": {"DPNoSE": "pooled/uniform", "DPSE": "pooled/SE",
               "label": "C: both pooled objective (Alg. 1 + Alg. 3), budget split only"},
    "bgl": {"DPNoSE": "bgl/uniform", "DPSE": "bgl/SE",
            "label": f"F: both bounded group loss (Alg. 2, eta = {BGL_ETA:g}, G = {BGL_G:g}), budget split only"},
    "bgl_pooled_dpnose": {"DPNoSE": "pooled/uniform", "DPSE": "bgl/SE",
                          "label": f"FB: DPNoSE = standard pooled-loss DPGD, DPSE = Alg. 1 + Alg. 2 with bounded "
                                   f"group loss (eta = {BGL_ETA:g}, G = {BGL_G:g})"},
}
READING_ORDER = tuple(READINGS)
PRIMARY_READING = "group_mean"        # the reading of the files without a reading suffix and of mspe_vs_rho.png

# The paper's published MSPEs (synthetic K = 5, sizes 10,000 / 5,000 / 2,000 / 1,000 / 500, "20x"), groups 1-5:
# Table 1 (rho = 2), Table 2 (rho = 4.5), Table 3 (rho = 8), Section 6.1 (p. 10-11; our text copy has no page
# breaks, the pages are those of the reference list's back-links around it).
PAPER_TABLES = {
    2.0: {"DPNoSE": (1.02, 18.71, 21.09, 21.35, 18.11), "DPSE": (1.27, 15.75, 17.75, 17.94, 15.29)},   # Table 1
    4.5: {"DPNoSE": (1.01, 18.69, 21.07, 21.34, 18.09), "DPSE": (1.26, 15.73, 17.73, 17.93, 15.28)},   # Table 2
    8.0: {"DPNoSE": (1.01, 18.64, 21.02, 21.29, 18.05), "DPSE": (1.25, 15.71, 17.71, 17.91, 15.26)},   # Table 3
}

# Shared DPGroupBudgetRegressor settings (the paper's: Delta = 2, C_P = [-5, 5]^P, T = 200, tau = 0.2 rho).
STAGE1_FRACTION = 0.2
N_ITER = 200
LEARNING_RATE = 0.1
CLIP = 2.0
COEF_BOUND = 5.0

# Synthetic K = 5, "20x" (Sec. 6.1).
SYN_SIZES = (10_000, 5_000, 2_000, 1_000, 500)
SYN_P = 2
SIGMA_E = 1.0
SYN_BETA_1 = np.array([1.0, -1.0])
SYN_OFFSETS = (np.zeros(2), np.array([5.0, 5.0]), np.array([5.5, -5.5]), np.array([-5.5, 5.5]),
               np.array([-5.0, -5.0]))
SYN_BETAS = tuple(SYN_BETA_1 + d for d in SYN_OFFSETS)
SYN_DATA_BOUND = 1.0            # features: X ~ U[-1, 1]^2
SYN_TARGET_BOUND = 16.0         # targets: |X beta_k| <= 13 plus N(0, 1) noise
SYN_GROUPS = (1, 2, 3, 4, 5)

# Law School (Appendix A, Figure 5).
LAW_GROUPS = ("white", "black")
LSAT_BOUNDS = (10.0, 48.0)      # public LSAT score scale of the Bar Passage Study cohort (1982-1991 scale)
LAW_TEST_SIZE = 0.3
LAW_DATA_BOUND = 1.0
GPA_SCALE = (LAW_SCHOOL_BOUNDS[1] - LAW_SCHOOL_BOUNDS[0]) / 2     # [-1, 1] -> GPA units


# ---------------------------------------------------------------------------------------------------- data
def make_synthetic(rng):
    """One draw of the K = 5 synthetic data: ``(X, y, group)`` with group labels 1..5."""
    X, y, a = [], [], []
    for label, n, beta in zip(SYN_GROUPS, SYN_SIZES, SYN_BETAS, strict=False):
        x = rng.uniform(-1.0, 1.0, size=(n, SYN_P))
        X.append(x)
        y.append(x @ beta + rng.normal(0.0, SIGMA_E, size=n))
        a.append(np.full(n, label))
    return np.vstack(X), np.concatenate(y), np.concatenate(a)


def _to_unit(values, low, high):
    return 2.0 * (np.asarray(values, dtype=float) - low) / (high - low) - 1.0


def load_law_school():
    """White and black students of ``fetch_law_school()``, features and target in [-1, 1] via public bounds.

    Returns ``(X, y, a, info)``; ``y`` is in [-1, 1] (multiply squared errors by ``GPA_SCALE ** 2``).
    """
    bunch = fetch_law_school(as_frame=True)
    frame, groups = bunch.data, bunch.sensitive_features
    keep = groups.isin(LAW_GROUPS).to_numpy()
    lsat = frame["lsat"].to_numpy(dtype=float)[keep]
    pass_bar = frame["pass_bar"].to_numpy(dtype=float)[keep]
    X = np.column_stack([_to_unit(lsat, *LSAT_BOUNDS), 2.0 * pass_bar - 1.0])
    y = _to_unit(bunch.target.to_numpy(dtype=float)[keep], *LAW_SCHOOL_BOUNDS)
    a = groups.to_numpy()[keep]
    info = {"n_rows_loaded": int(len(groups)), "n_rows_kept": int(keep.sum()),
            "n_rows_dropped": int((~keep).sum()),
            "group_counts": {g: int((a == g).sum()) for g in LAW_GROUPS},
            "lsat_range": (float(lsat.min()), float(lsat.max()))}
    return X, y, a, info


# ---------------------------------------------------------------------------------------------- one seed
def pooled_learning_rate(n_rows, n_groups):
    """Step size of the pooled objective: its direction is the *sum* of the clipped per-example gradients (Alg. 3),
    n / K times the size of the group-mean direction for equal groups, so the step is scaled by K / n (the sizes
    are public). Both objectives then take the same step on a mean gradient and converge in T = 200 iterations."""
    return LEARNING_RATE * n_groups / n_rows


def _fit(X, y, a, *, rho, fit, data_bound, target_bound, fit_intercept, groups, random_state):
    objective, allocation, bgl = FITS[fit]
    learning_rate = LEARNING_RATE if objective == "group_mean" else pooled_learning_rate(len(y), len(groups))
    model = DPGroupBudgetRegressor(
        rho=rho, budget_allocation=allocation, objective=objective,
        bounded_group_loss=None if bgl is None else BGL_ETA, lagrange_multiplier=BGL_G,
        stage1_fraction=STAGE1_FRACTION, data_bound=data_bound, target_bound=target_bound, clip=CLIP,
        n_iter=N_ITER, learning_rate=learning_rate, coef_bound=COEF_BOUND, fit_intercept=fit_intercept,
        groups=list(groups), random_state=random_state)
    with warnings.catch_warnings():
        # Synthetic: a handful of y beyond data_bound are clipped (counted separately).
        warnings.filterwarnings("ignore", message="Some targets exceed target_bound")
        model.fit(X, y, sensitive_features=a)
    return model


def fits_for(readings):
    """The fits the readings need, in FITS order, and the non-private references of their objectives."""
    needed = {READINGS[r][m] for r in readings for m in METHODS}
    fits = [name for name in FITS if name in needed]
    nonprivate = [NONPRIVATE_FITS[name.split("/")[0]] for name in fits]
    return fits, list(dict.fromkeys(nonprivate))


def _evaluate(X_train, y_train, a_train, X_test, y_test, a_test, *, dataset, seed, rhos, groups, data_bound,
              target_bound, fit_intercept, error_scale, readings=READING_ORDER):
    """Non-private fits plus every private fit the readings need at every rho; one row per (rho, fit, group)."""
    fits, nonprivate = fits_for(readings)
    configs = [(NONPRIVATE_RHO, name) for name in nonprivate]
    configs += [(rho, name) for rho in rhos for name in fits]
    rows = []
    for rho, fit in configs:
        # Every fit at the same (seed, rho) shares random_state, hence its stage-2 standard normal draws (common
        # random numbers): the paired differences then measure the allocation / objective, not two noise draws.
        model = _fit(X_train, y_train, a_train, rho=rho, fit=fit, data_bound=data_bound,
                     target_bound=target_bound, fit_intercept=fit_intercept, groups=groups,
                     random_state=seed * 1000 + (0 if rho == NONPRIVATE_RHO else 1 + list(rhos).index(rho)))
        residual2 = (model.predict(X_test) - y_test) ** 2 * error_scale
        objective, allocation, bgl = FITS[fit]
        fallback = getattr(model, "stage1_fallback_", None) if allocation == "standard_errors" else None
        theta = model.history_["theta"]
        drift = float(np.abs(theta[-1] - theta[-20]).max())      # convergence check (meaningful when non-private)
        for k, group in enumerate(groups):
            rows.append({"dataset": dataset, "seed": seed, "rho": rho, "fit": fit,
                         "nonprivate": rho == NONPRIVATE_RHO, "objective": objective, "allocation": allocation,
                         "bounded_group_loss": np.nan if bgl is None else BGL_ETA, "group": group,
                         "n_train": int(np.sum(a_train == group)), "n_test": int(np.sum(a_test == group)),
                         "mspe": float(residual2[a_test == group].mean()),
                         "share": float(model.budget_shares_[k]),
                         "stage1_fallback": int(fallback is not None),
                         "rho_spent": float(model.rho_spent_), "last20_drift": drift})
    return rows


def run_synthetic_seed(seed, rhos, readings=READING_ORDER):
    rng = np.random.default_rng([seed, 0])
    X, y, a = make_synthetic(rng)
    X_test, y_test, a_test = make_synthetic(np.random.default_rng([seed, 1]))
    clipped = float(np.mean(np.abs(y) > SYN_TARGET_BOUND))
    rows = _evaluate(X, y, a, X_test, y_test, a_test, dataset="synthetic", seed=seed, rhos=rhos,
                     groups=SYN_GROUPS, data_bound=SYN_DATA_BOUND, target_bound=SYN_TARGET_BOUND,
                     fit_intercept=False, error_scale=1.0, readings=readings)
    for row in rows:
        row["y_clipped_fraction"] = clipped
    return rows


def run_law_seed(seed, rhos, X, y, a, readings=READING_ORDER):
    X_train, X_test, y_train, y_test, a_train, a_test = train_test_split(
        X, y, a, test_size=LAW_TEST_SIZE, random_state=seed, stratify=a)
    rows = _evaluate(X_train, y_train, a_train, X_test, y_test, a_test, dataset="law_school", seed=seed,
                     rhos=rhos, groups=LAW_GROUPS, data_bound=LAW_DATA_BOUND, target_bound=LAW_DATA_BOUND,
                     fit_intercept=True, error_scale=GPA_SCALE ** 2, readings=readings)
    for row in rows:
        row["y_clipped_fraction"] = 0.0          # public bounds (1, 4) contain every GPA of the data
    return rows


def run_all(n_seeds, rhos, n_jobs=1, readings=READING_ORDER):
    """Every fit the readings need, for every seed and rho; returns ``(per_fit, law_info)`` (one row per dataset,
    seed, rho, fit and group)."""
    X, y, a, law_info = load_law_school()
    tasks = [delayed(run_synthetic_seed)(seed, rhos, readings) for seed in range(n_seeds)]
    tasks += [delayed(run_law_seed)(seed, rhos, X, y, a, readings) for seed in range(n_seeds)]
    results = Parallel(n_jobs=n_jobs)(tasks)
    per_fit = pd.DataFrame([row for rows in results for row in rows])
    per_fit = per_fit.sort_values(["dataset", "rho", "fit", "group", "seed"], ignore_index=True,
                                  key=lambda s: s.astype(str) if s.name == "group" else s)
    return per_fit, law_info


def reading_per_seed(per_fit, reading):
    """The rows of one reading, labelled by method: "DPNoSE", "DPSE", "non-private" (the non-private fit of DPSE's
    objective) and "non-private DPNoSE" (that of DPNoSE's objective)."""
    spec = READINGS[reading]
    parts = []
    for method in METHODS:
        part = per_fit[(per_fit["fit"] == spec[method]) & ~per_fit["nonprivate"]].copy()
        part["method"] = method
        parts.append(part)
    reference = {source: NONPRIVATE_FITS[spec[source].split("/")[0]] for source in METHODS}
    labels = [("non-private", "DPSE")]
    if reference["DPNoSE"] != reference["DPSE"]:
        labels.append(("non-private DPNoSE", "DPNoSE"))
    for method, source in labels:
        part = per_fit[(per_fit["fit"] == reference[source]) & per_fit["nonprivate"]].copy()
        part["method"] = method
        parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    frame.insert(0, "reading", reading)
    return frame.sort_values(["dataset", "rho", "method", "group", "seed"], ignore_index=True,
                             key=lambda s: s.astype(str) if s.name == "group" else s)
# ---------------------------------------------------------------------------------------------- analysis
def _se(values):
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size)) if values.size > 1 else float("nan")


def summarise(per_seed):
    """Per (dataset, rho, group): mean MSPE ± SE of each method, the paired difference DPNoSE - DPSE ± SE,
    DPSE's relative change, its mean share ``s_k^2``, its stage-1 fallback rate and the non-private MSPE (of DPSE's
    objective; ``nonprivate_dpnose_mspe``: of DPNoSE's, when a reading gives the two methods different objectives).
    """
    rows = []
    for dataset, data in per_seed.groupby("dataset", sort=True):
        nonprivate = data[data["method"] == "non-private"].groupby("group")["mspe"]
        np_mean, np_se = nonprivate.mean(), nonprivate.agg(_se)
        np_dpnose = data[data["method"] == "non-private DPNoSE"].groupby("group")["mspe"].mean()
        if np_dpnose.empty:
            np_dpnose = np_mean
        private = data[data["method"].isin(METHODS)]
        for (rho, group), part in private.groupby(["rho", "group"], sort=True):
            wide = part.pivot(index="seed", columns="method", values="mspe")
            dpse = part[part["method"] == "DPSE"]
            diff = wide["DPNoSE"] - wide["DPSE"]
            rows.append({"dataset": dataset, "rho": rho, "group": group,
                         "n_train": int(part["n_train"].iloc[0]), "n_test": int(part["n_test"].iloc[0]),
                         "nonprivate_mspe": float(np_mean[group]), "nonprivate_se": float(np_se[group]),
                         "nonprivate_dpnose_mspe": float(np_dpnose[group]),
                         "dpnose_mspe": float(wide["DPNoSE"].mean()), "dpnose_se": _se(wide["DPNoSE"]),
                         "dpse_mspe": float(wide["DPSE"].mean()), "dpse_se": _se(wide["DPSE"]),
                         "diff_mean": float(diff.mean()), "diff_se": _se(diff),
                         "diff_z": float(diff.mean() / _se(diff)) if diff.size > 1 and _se(diff) > 0 else np.nan,
                         "relative_change": float(wide["DPSE"].mean() / wide["DPNoSE"].mean() - 1.0),
                         "relative_change_se": _se(diff) / float(wide["DPNoSE"].mean()),
                         "dpse_share": float(dpse["share"].mean()),
                         "stage1_fallback_rate": float(dpse["stage1_fallback"].mean()),
                         "n_seeds": int(diff.size)})
    summary = pd.DataFrame(rows)
    order = {g: i for i, g in enumerate((*SYN_GROUPS, *LAW_GROUPS))}
    summary["_order"] = summary["group"].map(order)
    return summary.sort_values(["dataset", "rho", "_order"], ignore_index=True).drop(columns="_order")


TABLE_COLUMNS = ("reading", "dataset", "rho", "group", "n_train", "dpnose_mspe", "dpnose_se", "dpse_mspe",
                 "dpse_se", "diff_mean", "diff_se", "diff_z", "relative_change", "relative_change_se",
                 "paper_dpnose_mspe", "paper_dpse_mspe", "paper_relative_change", "nonprivate_dpnose_mspe",
                 "nonprivate_mspe", "dpse_share", "stage1_fallback_rate", "n_seeds")


def paper_values(dataset, rho, group):
    """The paper's ``(DPNoSE, DPSE)`` MSPE for a synthetic row at rho 2, 4.5 or 8 (Tables 1-3), else NaNs."""
    table = PAPER_TABLES.get(float(rho)) if dataset == "synthetic" else None
    if table is None or group not in SYN_GROUPS:
        return np.nan, np.nan
    k = SYN_GROUPS.index(group)
    return table["DPNoSE"][k], table["DPSE"][k]


def tables(summaries):
    """All readings in one frame (rows: reading x dataset x rho x group), ours beside the paper's Tables 1-3.

    ``relative_change`` is DPSE / DPNoSE - 1 (negative: DPSE better), ``relative_change_se`` the paired SE of
    DPNoSE - DPSE divided by DPNoSE's mean; ``paper_relative_change`` the same ratio of the published values.
    """
    frames = []
    for reading, summary in summaries.items():
        frame = summary.copy()
        frame.insert(0, "reading", reading)
        paper = [paper_values(d, r, g) for d, r, g in zip(frame["dataset"], frame["rho"], frame["group"], strict=False)]
        frame["paper_dpnose_mspe"] = [p[0] for p in paper]
        frame["paper_dpse_mspe"] = [p[1] for p in paper]
        frame["paper_relative_change"] = frame["paper_dpse_mspe"] / frame["paper_dpnose_mspe"] - 1.0
        frames.append(frame)
    combined = pd.concat(frames, ignore_index=True)
    combined["group"] = combined["group"].astype(str)
    order = {"reading": {r: i for i, r in enumerate(READING_ORDER)},
             "dataset": {d: i for i, d in enumerate(DATASET_ORDER)},
             "group": {str(g): i for i, g in enumerate((*SYN_GROUPS, *LAW_GROUPS))}}
    combined = combined.sort_values(["reading", "dataset", "rho", "group"], ignore_index=True,
                                    key=lambda s: s.map(order[s.name]) if s.name in order else s)
    return combined[list(TABLE_COLUMNS)]


def readings_frame(readings=READING_ORDER):
    """One row per reading: what DPNoSE and DPSE are (objective, allocation, bounded group loss)."""
    rows = []
    for reading in readings:
        spec = READINGS[reading]
        row = {"reading": reading, "description": spec["label"]}
        for method in METHODS:
            objective, allocation, bgl = FITS[spec[method]]
            row[f"{method.lower()}_fit"] = (f"objective={objective}, budget_allocation={allocation}"
                                            + ("" if bgl is None else
                                               f", bounded_group_loss={BGL_ETA:g}, lagrange_multiplier={BGL_G:g}"))
        rows.append(row)
    return pd.DataFrame(rows)


# A reading "reproduces" Tables 1-3 when, in every group at rho = 2, 4.5 and 8, the sign of DPSE / DPNoSE - 1 is
# the paper's (a paired difference within 2 SE of 0 has no sign) and it is within 10 percentage points of the
# paper's value (the paper's own changes are +25% and -16%; its Monte-Carlo SE over 1000 trials is < 0.3%).
SIZE_TOLERANCE = 0.10


def reproduction_verdict(table, rhos=tuple(PAPER_TABLES), z=2.0):
    """Per reading, at the paper's rhos (synthetic): in how many (group, rho) cells the sign of DPSE / DPNoSE - 1
    matches the paper's (a paired difference within ``z`` SE of 0 counts as no sign), the largest and mean gap
    between our relative change and the paper's (percentage points), the smallest group's relative change and
    paired z, and whether the reading reproduces the Tables (every sign, every gap <= ``SIZE_TOLERANCE``)."""
    rows = []
    part = table[(table["dataset"] == "synthetic") & table["rho"].isin(rhos)]
    for reading, data in part.groupby("reading", sort=False):
        significant = np.abs(data["diff_z"].fillna(0.0)) > z
        ours = np.where(significant, np.sign(data["relative_change"]), 0.0)
        matches = ours == np.sign(data["paper_relative_change"])
        gap = np.abs(data["relative_change"] - data["paper_relative_change"])
        smallest = data[data["group"] == str(SYN_GROUPS[-1])]
        rows.append({"reading": reading, "groups_x_rhos": int(len(data)), "sign_matches": int(matches.sum()),
                     "max_abs_gap_pp": float(100 * gap.max()), "mean_abs_gap_pp": float(100 * gap.mean()),
                     "smallest_group_relative_change_min": float(smallest["relative_change"].min()),
                     "smallest_group_relative_change_max": float(smallest["relative_change"].max()),
                     "smallest_group_max_z": float((smallest["diff_z"]).max()),
                     "smallest_group_min_z": float((smallest["diff_z"]).min()),
                     "reproduces": bool(matches.all() and gap.max() <= SIZE_TOLERANCE)})
    return pd.DataFrame(rows)
def markdown_tables(summary, labels):
    """One table per (dataset, rho), shaped like the paper's Tables 1-3, with the paired difference added."""
    blocks = []
    for dataset in DATASET_ORDER:
        for rho, part in summary[summary["dataset"] == dataset].groupby("rho", sort=True):
            blocks.append(_markdown_block(dataset, rho, part, labels))
    return "\n\n".join(blocks)


def _markdown_block(dataset, rho, part, labels):
    """One (dataset, rho) table: the paper's columns plus the paired difference, shares and non-private."""
    fallback = part["stage1_fallback_rate"].iloc[0]
    lines = [f"**{labels[dataset]}, ρ = {rho:g}** ({part['n_seeds'].iloc[0]} seeds; DPSE stage 1 fell back to "
             f"uniform shares in {fallback:.0%} of the fits)", "",
             f"| group | n (train) | DPNoSE (ρ = {rho:g}) | DPSE (ρ = {rho:g}) | DPNoSE − DPSE (paired) ± SE | "
             "DPSE/DPNoSE − 1 | DPSE mean s_k² | non-private (ρ = 1e9) |",
             "|---|---|---|---|---|---|---|---|"]
    for row in part.itertuples(index=False):
        lines.append(f"| {row.group} | {row.n_train} | {row.dpnose_mspe:.4f} | {row.dpse_mspe:.4f} | "
                     f"{row.diff_mean:+.4f} ± {row.diff_se:.4f} | {row.relative_change:+.2%} | "
                     f"{row.dpse_share:.3f} | {row.nonprivate_mspe:.4f} |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------- plots
def plot_mspe(summary, labels, path):
    """Top: MSPE per group vs rho (DPSE solid, DPNoSE dashed, non-private dotted). Bottom: DPSE/DPNoSE - 1 with
    +-2 SE of the paired difference (relative to DPNoSE)."""
    datasets = [d for d in DATASET_ORDER if d in set(summary["dataset"])]
    fig, axes = plt.subplots(2, len(datasets), figsize=(5.6 * len(datasets), 8.0), squeeze=False)
    cmap = plt.get_cmap("tab10")
    for col, dataset in enumerate(datasets):
        data = summary[summary["dataset"] == dataset]
        top, bottom = axes[0, col], axes[1, col]
        for i, (group, part) in enumerate(data.groupby("group", sort=False)):
            part = part.sort_values("rho")
            color = cmap(i % 10)
            top.errorbar(part["rho"], part["dpse_mspe"], yerr=part["dpse_se"], color=color, marker="o", ms=4,
                         lw=1.5, capsize=2, label=f"group {group}: DPSE")
            top.errorbar(part["rho"], part["dpnose_mspe"], yerr=part["dpnose_se"], color=color, marker="s",
                         ms=4, lw=1.2, ls="--", capsize=2, label=f"group {group}: DPNoSE")
            top.axhline(part["nonprivate_mspe"].iloc[0], color=color, lw=0.8, ls=":")
            rel = -part["diff_mean"] / part["dpnose_mspe"]
            rel_se = part["diff_se"] / part["dpnose_mspe"]
            bottom.errorbar(part["rho"], 100 * rel, yerr=200 * rel_se, color=color, marker="o", ms=4, lw=1.3,
                            capsize=3, label=f"group {group}")
        top.set_yscale("log")
        top.set_xscale("log")          # rho spans 0.005-8: a linear axis piles the small budgets onto 0
        top.set_xlabel("ρ (zCDP, log scale)")
        top.set_ylabel("test MSPE" + (" (GPA²)" if dataset == "law_school" else ""))
        top.set_title(f"{labels[dataset]}\nMSPE per group (dotted: non-private)")
        top.grid(alpha=0.3, which="both")
        top.legend(fontsize=7, ncol=2)
        bottom.axhline(0.0, color="black", lw=0.8)
        bottom.set_xscale("log")
        bottom.set_xlabel("ρ (zCDP, log scale)")
        bottom.set_ylabel("DPSE / DPNoSE − 1 (%), ± 2 SE (paired)")
        bottom.set_title(f"{labels[dataset]}\nrelative MSPE change of DPSE vs DPNoSE")
        bottom.grid(alpha=0.3)
        bottom.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def plot_readings(table, labels, path):
    """DPSE / DPNoSE - 1 (%) vs rho per group, one column per reading, one row per dataset; the paper's Tables 1-3
    as crosses (synthetic). Error bars: ± 2 paired SE."""
    readings = list(dict.fromkeys(table["reading"]))
    datasets = [d for d in DATASET_ORDER if d in set(table["dataset"])]
    fig, axes = plt.subplots(len(datasets), len(readings), figsize=(3.9 * len(readings), 3.6 * len(datasets)),
                             squeeze=False, sharex=True)
    cmap = plt.get_cmap("tab10")
    for col, reading in enumerate(readings):
        for row, dataset in enumerate(datasets):
            ax = axes[row, col]
            data = table[(table["reading"] == reading) & (table["dataset"] == dataset)]
            for i, (group, part) in enumerate(data.groupby("group", sort=False)):
                part = part.sort_values("rho")
                color = cmap(i % 10)
                ax.errorbar(part["rho"], 100 * part["relative_change"], yerr=200 * part["relative_change_se"],
                            color=color, marker="o", ms=3.5, lw=1.2, capsize=2, label=f"group {group}")
                paper = part.dropna(subset=["paper_relative_change"])
                if len(paper):
                    ax.plot(paper["rho"], 100 * paper["paper_relative_change"], ls="none", marker="x", ms=7,
                            mew=1.6, color=color)
            ax.axhline(0.0, color="black", lw=0.8)
            ax.set_xscale("log")       # rho spans 0.005-8: a linear axis piles the small budgets onto 0
            ax.grid(alpha=0.3)
            if row == len(datasets) - 1:
                ax.set_xlabel("ρ (zCDP, log scale)")
            if col == 0:
                ax.set_ylabel(f"{labels[dataset]}\nDPSE / DPNoSE − 1 (%)")
            if row == 0:
                ax.set_title(f"reading {reading}", fontsize=10)
            ax.legend(fontsize=6, loc="best")
    fig.suptitle("Relative MSPE change of DPSE vs DPNoSE per reading (± 2 paired SE; ×: the paper's Tables 1-3)",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)


# -------------------------------------------------------------------------------------------------- main
def _add_reading(parser):
    parser.add_argument("--reading", choices=("all", *READING_ORDER), nargs="+", default=["all"],
                        help="which readings of DPNoSE / DPSE to run (default all: "
                             + "; ".join(f"{r} = {READINGS[r]['label']}" for r in READING_ORDER) + ")")


def parse_args(argv=None):
    return parse_seeded_args(argv, doc=__doc__, default_out=DEFAULT_OUT, default_seeds=DEFAULT_SEEDS,
                             quick_seeds=QUICK_SEEDS, quick_help=f"rho in {QUICK_RHOS}", extra=_add_reading)


def main(argv=None):
    """Run both experiments for the chosen readings; returns a dict with the output paths, the per-fit rows, the
    primary reading's per-seed rows and summary, every reading's summary, the combined table and timings."""
    args = parse_args(argv)
    rhos = QUICK_RHOS if args.quick else RHOS
    readings = READING_ORDER if "all" in args.reading else tuple(r for r in READING_ORDER if r in args.reading)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    start = time.perf_counter()
    per_fit, law_info = run_all(args.seeds, rhos, n_jobs=args.n_jobs, readings=readings)
    elapsed_runs = time.perf_counter() - start
    per_seeds = {reading: reading_per_seed(per_fit, reading) for reading in readings}
    summaries = {reading: summarise(frame) for reading, frame in per_seeds.items()}
    table = tables(summaries)
    verdict = reproduction_verdict(table)
    labels = {"synthetic": "Synthetic K = 5 (20x)", "law_school": "Law School (white vs black)"}
    primary = PRIMARY_READING if PRIMARY_READING in readings else readings[0]
    summary, per_seed = summaries[primary], per_seeds[primary]

    paths = {}
    for dataset in DATASET_ORDER:
        paths[f"{dataset}_per_fit"] = out / f"{dataset}_per_fit.csv"
        per_fit[per_fit["dataset"] == dataset].to_csv(paths[f"{dataset}_per_fit"], index=False)
        # The primary reading under the file names of the one-reading version of this script.
        paths[f"{dataset}_per_seed"] = out / f"{dataset}_per_seed.csv"
        paths[f"{dataset}_summary"] = out / f"{dataset}_summary.csv"
        per_seed[per_seed["dataset"] == dataset].to_csv(paths[f"{dataset}_per_seed"], index=False)
        summary[summary["dataset"] == dataset].to_csv(paths[f"{dataset}_summary"], index=False)
        for reading in readings:
            key = f"{dataset}_summary_{reading}"
            paths[key] = out / f"{key}.csv"
            part = summaries[reading]
            part[part["dataset"] == dataset].to_csv(paths[key], index=False)
    paths["tables"] = out / "tables.csv"
    table.to_csv(paths["tables"], index=False, float_format="%.6g")
    paths["readings"] = out / "readings.csv"
    readings_frame(readings).to_csv(paths["readings"], index=False)
    paths["verdict"] = out / "verdict.csv"
    verdict.to_csv(paths["verdict"], index=False, float_format="%.6g")
    paths["plot"] = out / "mspe_vs_rho.png"
    plot_mspe(summary, labels, paths["plot"])
    paths["readings_plot"] = out / "readings_vs_rho.png"
    plot_readings(table, labels, paths["readings_plot"])
    markdown = "\n\n".join(f"### Reading {reading}: {READINGS[reading]['label']}\n\n"
                           + markdown_tables(summaries[reading], labels) for reading in readings)
    elapsed = time.perf_counter() - start

    synthetic = per_fit[per_fit["dataset"] == "synthetic"]
    clipped = synthetic.drop_duplicates("seed")["y_clipped_fraction"]
    drift = per_fit[per_fit["nonprivate"]].groupby(["dataset", "fit"])["last20_drift"].max()
    slopes = ", ".join(f"β_{g} = ({b[0]:g}, {b[1]:g})" for g, b in zip(SYN_GROUPS, SYN_BETAS, strict=False))
    print(f"Budget-tailoring reproduction (DPGroupBudgetRegressor): {args.seeds} seeds, rho in {list(rhos)}, "
          f"readings {list(readings)}, n_jobs={args.n_jobs}")
    print(f"Settings: stage1_fraction={STAGE1_FRACTION}, n_iter={N_ITER}, learning_rate={LEARNING_RATE} "
          f"(pooled: {LEARNING_RATE} K / n), clip={CLIP}, coef_bound={COEF_BOUND}; bounded group loss eta="
          f"{BGL_ETA:g}, G={BGL_G:g}")
    print(f"Synthetic: sizes {SYN_SIZES}, X ~ U[-1, 1]^{SYN_P}, sigma_e = {SIGMA_E:g}, slopes {slopes}; "
          f"data_bound = {SYN_DATA_BOUND:g}, target_bound = {SYN_TARGET_BOUND:g}: y clipped in {clipped.mean():.2e} of training rows "
          f"(max over seeds {clipped.max():.2e})")
    print(f"Law School: {law_info['n_rows_loaded']} rows loaded, {law_info['n_rows_kept']} kept (white/black: "
          f"{law_info['group_counts']}), {law_info['n_rows_dropped']} asian/hisp rows dropped; lsat observed "
          f"{law_info['lsat_range']}, mapped from the public scale {LSAT_BOUNDS}; pass_bar 0/1 -> -1/+1; ugpa "
          f"from {tuple(LAW_SCHOOL_BOUNDS)}; {1 - LAW_TEST_SIZE:.0%}/{LAW_TEST_SIZE:.0%} split per seed; MSPE in "
          "GPA units")
    print("Non-private convergence (max |theta_T - theta_(T-20)| over seeds): "
          + ", ".join(f"{d}/{f}: {v:.1e}" for (d, f), v in drift.items()) + "\n")
    print(markdown)
    print("\nAgainst the paper's Tables 1-3 (synthetic, rho = 2, 4.5, 8):")
    print(verdict.to_string(index=False))
    print(f"\nFits: {elapsed_runs:.1f} s; total with CSVs and plots: {elapsed:.1f} s")
    print("Files:")
    for path in paths.values():
        print(f"  {path}")
    return {"paths": paths, "per_fit": per_fit, "per_seed": per_seed, "summary": summary,
            "per_seeds": per_seeds, "summaries": summaries, "table": table, "verdict": verdict,
            "readings": readings, "markdown": markdown, "law_info": law_info,
            "y_clipped_fraction": float(clipped.mean()), "elapsed": elapsed, "elapsed_runs": elapsed_runs}


if __name__ == "__main__":
    main()
