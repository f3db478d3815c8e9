r"""
Attribute-blind fair regression post-processing (Law School)
============================================================

``python examples/blind_fair_regression.py --n-jobs 2 --publish`` (seeds 0-49; about 4.5 CPU-minutes) compares
the attribute-blind post-processor (``DPFairRegressionPostprocessor(..., group_estimator=...)``: ``predict`` takes no
sensitive attribute) with the attribute-aware one of Xian et al. (2024) on Law School: the true targets ``ugpa`` are
post-processed on k = 36 bins of (1, 4), groups are the four race groups. Each seed gives 15% of the rows to the
group estimator (a multinomial ``LogisticRegression`` of race from ``[ugpa, lsat, pass_bar]``, public to the
post-processor), and splits the rest 70/30 into the post-processor's private fitting rows and a test split. KS
statistical parity is measured on the test split with the **true** groups; MSE against the true targets. Mean ±
std (ddof = 0) over seeds 0-49, and the share of seeds whose test KS exceeds 0.15; the same run on the independent
seeds 100-149 (``--first-seed 100``) gives the spread on seeds the first run never saw. The tables and the figure
are read from the committed ``docs/img/`` copies of the script's outputs when this page is built; nothing is
re-run.

What to read from it: the blind map reaches KS parity on the released distributions exactly, as the aware one does,
but on held-out data both overshoot ``alpha`` by the estimation error of small groups (the smallest test group has
about 190 rows). The blind map estimates each group's distribution over ``k B`` cells (output bin × posterior
bucket) instead of ``k`` bins, so the release noise moves its in-sample KS more; its default ``noise_margin=1.0``
tightens each group's constraint by one standard deviation of that effect (computed from the release and its public
noise scale). It also pays in MSE, since without the group it can only move outputs by what the posterior reveals,
and the margins add to that.

The goal set for this mode (test KS ≤ 0.15 at ε = 1 and α = 0.1, first table) is met on average, not on every
seed. On seeds 0-49 the blind map's test KS is 0.129 ± 0.026 and exceeds 0.15 on 26% of the seeds (worst 0.199);
on seeds 100-149 it is 0.133 ± 0.027, above 0.15 on 22% (worst 0.192); the tables on this page come from the Haswell
kernel. The share above 0.15 depends on the machine: 22–26% of seeds 0-49 and 22–32% of seeds 100-149 (mean test KS
0.129–0.130 and 0.133–0.134), measured by ``--epsilons 1 --alphas 0.1`` runs (and ``--first-seed 100``) with one
thread under ``OPENBLAS_CORETYPE=Haswell``, ``Prescott`` and ``SkylakeX`` (OpenBLAS kernels Haswell, Katmai,
SkylakeX), whose ``per_seed.csv`` files are concatenated in ``docs/img/blind_fair_regression_goal_per_kernel.csv``. The
group estimator's lbfgs fit stops at another iterate on another kernel, some rows change posterior bucket, and seeds
near 0.15 cross it; the aware map, which has no group estimator, gives the same figures on every kernel. The aware
map gives 0.147 ± 0.025 and
0.150 ± 0.023 (above 0.15 on 42% and 54% of the seeds), against 0.35 without post-processing; its MSE is 0.004,
the blind map's 0.024. The spread over seeds (about 0.026) is close to that of the raw targets' own test KS
(0.021), which involves no fit at all: most of it is the sampling of small test groups (about 190 rows in the
smallest). With ``noise_margin=0`` (the LP on the released distributions as they are; the same splits of seeds
0-49 on the Haswell kernel, ``--epsilons 1 --alphas 0.05 0.1 --noise-margin 0``, summary in
``docs/img/blind_fair_regression_summary_noise_margin0.csv``) the same setting gives 0.171 ± 0.026 at MSE 0.0151 (76% of the seeds above 0.15), and
α = 0.05 gives 0.132 ± 0.026 at MSE 0.0230. So the margins move the operating point for a given
α (α then bounds the in-sample KS of the data up to the noise, not only that of the noisy release); they do not
improve the MSE-KS front, which is about the same (slightly worse with them).
"""

# sphinx_gallery_thumbnail_path = 'img/blind_fair_regression_fronts.png'

# %%
# The goal setting (ε = 1, α = 0.1), both modes, and the raw targets. ``ks_max`` is the worst seed,
# ``ks_above_goal`` the share of seeds whose test KS exceeds 0.15; ``fit_seconds_median`` is the whole ``fit``
# (k = 36, 10 posterior buckets), timed on a 2-core machine shared with other jobs (load average about 12), so
# several times the unloaded fit time (``tests/benchmarks/bench_blind.py``: 0.22 s).

from pathlib import Path

import pandas as pd

# the repository root (sphinx-gallery runs this file from docs/gallery_src/)
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "examples").is_dir() and (p / "docs").is_dir())
summary = pd.read_csv(ROOT / "docs" / "img" / "blind_fair_regression_summary.csv")
goal = summary[(summary["mode"] == "raw") | ((summary["epsilon"] == 1.0) & (summary["alpha"] == 0.1))]
goal.round(4)

# %%
# The goal setting on both seed sets (the second is ``--first-seed 100``):

independent = pd.read_csv(ROOT / "docs" / "img" / "blind_fair_regression_summary_seeds100-149.csv")
for frame in (summary, independent):
    rows = frame[(frame["mode"] == "raw") | ((frame["epsilon"] == 1.0) & (frame["alpha"] == 0.1))]
    for r in rows.itertuples(index=False):
        print(f"seeds {r.first_seed}-{r.first_seed + r.n_seeds - 1}, {r.mode:5}: test KS {r.ks_mean:.3f} ± "
              f"{r.ks_std:.3f}, above 0.15 on {100 * r.ks_above_goal:.0f}% of the seeds (worst {r.ks_max:.3f}); "
              f"MSE {r.mse_mean:.4f}")

# %%
# The same at every ε for α = 0, 0.05 and 0.1:

summary[summary["alpha"].isin([0.0, 0.05, 0.1])].sort_values(["alpha", "epsilon", "mode"]).round(4)

# %%
# MSE-KS fronts over α ∈ {0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 1} (the right end of each line is α = 0):
#
# .. image:: /img/blind_fair_regression_fronts.png
#    :alt: MSE-KS fronts, attribute-aware and attribute-blind, at three epsilons
