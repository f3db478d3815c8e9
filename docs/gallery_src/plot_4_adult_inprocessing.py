r"""
DPExponentiatedGradient on Adult (the statistics game)
======================================================

Stored results of ``examples/adult_inprocessing.py`` (the full run takes minutes on 2 cores and is not executed
when the documentation is built). Every table on this page is rendered at build time by the script's own
``markdown()`` from the summary CSVs of its full runs, committed in ``docs/img/`` with their per-seed rows
(``adult_inprocessing_<sensitive>_<constraint>.csv``), from which every figure stated in the text is taken
(``tests/test_stated_figures.py`` recomputes each one).

Expected on Adult (``examples/adult_inprocessing.py``: 70/30 split, seed 0; one-hot over the public codebook
``fairlearn_dp.datasets.adult_categories()``, numeric features scaled to public bounds; demographic parity by sex): **test accuracy 0.831, DP difference 0.017** at ε = 1
(Fairlearn's non-private ``ExponentiatedGradient``: 0.832 / 0.016; the majority class: 0.764). Ten seeds, every ε,
and the paper's Algorithm 3 for comparison are in the first table.

``python examples/adult_inprocessing.py --seeds 10 --n-jobs 2`` (about 8 minutes on 2 cores; ``--quick`` 20 s). Mean ± std
over seeds 0–9 (each seed is its own 70/30 split), test set, δ = 1e-5. "statistics" is the drop-in line above
(at ε = ∞ it runs Fairlearn's own algorithm). "paper" is Algorithm 3 with its regression oracle, B = 10 and T
from its formula (50 at ε = ∞). The fit times were measured on a 2-core machine shared with other jobs (load average
about 9), several times an idle machine's.

.. image:: /img/adult_inprocessing_sex_dp.png
   :alt: Accuracy and DP difference against epsilon on Adult
"""

# sphinx_gallery_thumbnail_path = 'img/adult_inprocessing_sex_dp.png'

# %%
# Demographic parity by sex, ``DemographicParity(difference_bound=0.01)``:

import importlib.util
import sys
from pathlib import Path

import pandas as pd

# the repository root (sphinx-gallery runs this file from docs/gallery_src/)
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "examples").is_dir() and (p / "docs").is_dir())
spec = importlib.util.spec_from_file_location("adult_inprocessing", ROOT / "examples" / "adult_inprocessing.py")
script = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = script
spec.loader.exec_module(script)                    # defines functions only; the experiment runs under main()
_, _, _, y_test, _, _ = script.load_adult_features("sex", seed=0)
majority = float(max(y_test.mean(), 1 - y_test.mean()))     # the script's majority row: seed 0's test split


def table(name, constraint):
    """The script's markdown() table of docs/img/adult_inprocessing_<name>_summary.csv, as a DataFrame."""
    summary = pd.read_csv(ROOT / "docs" / "img" / f"adult_inprocessing_{name}_summary.csv")
    lines = script.markdown(summary, majority, constraint).splitlines()
    rows = [[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in lines]
    return pd.DataFrame(rows[2:], columns=rows[0])


table("sex_dp", "dp")

# %%
# Every one of the 10 seeds meets the goal at ε = 1: accuracy 0.823–0.832, DP difference 0.005–0.031.
# The same command with ``--constraint eo --epsilons 0.5 1 inf`` and with ``--sensitive race --epsilons 0.5 1 inf``:
#
# Equalized odds by sex, ``EqualizedOdds(difference_bound=0.01)``:

table("sex_eo", "eo")

# %%
# At ε = 1, 9 of the 10 seeds are within the goal's 0.06 (seed 0: 0.840 / 0.044); the largest, seed 5, gives 0.072, where Fairlearn's non-private fit has 0.056. These figures depend on the machine: the fits follow the BLAS round-off, and seed 0 gives 0.055 instead of 0.044 with two OpenBLAS threads instead of one (same kernel, SkylakeX); the committed runs used one thread here, two for demographic parity by sex. The test difference is noisy itself: about 530 women with income > 50K are in each test split, so a true-positive rate is measured to about ±0.02.
#
# Demographic parity by race (5 groups; the two smallest have about 300 training rows each):

table("race_dp", "dp")

# %%
# The race goal (accuracy ≥ 0.80 and DP difference ≤ 0.05) is **not met**. Fairlearn's non-private algorithm does not meet the 0.05 on these splits either (0.069 on average). The 0.05 is below what this test split can measure: its two smallest groups have 131 and 112 test rows, so a classifier whose selection rate is exactly 0.2 in every group's population shows a test DP difference of 0.056 on average (binomial simulation over seeds 0–9), above 0.05 in 56% of draws. The unconstrained ``LogisticRegression`` gives 0.846 / 0.137. At ε = 1 the release noise on a 300-person group's cell sums is about as large as the group's own signal. The class then warns that the features cannot tell those members apart (``proxy_reliability_`` = 0), and it corrects the groups it can measure. The result is 0.778 ± 0.014 / 0.057 ± 0.038: below the DP difference of Fairlearn's non-private fit, at 0.027 less accuracy.
#
# Equalized odds by race (``--sensitive race --constraint eo --epsilons 0.5 1 inf``):

table("race_eo", "eo")

# %%
# Here the test difference is dominated by the smallest cells: a few dozen positives per small group in the test split. Even Fairlearn's non-private fit has 0.161 ± 0.061; the private fit's 0.176 ± 0.080 is above it, at 0.015 less accuracy. The goal (equalized-odds difference ≤ 0.06) is beyond what this split can measure: on seed 0 the two smallest groups have 15 positives each in the test split, and a classifier with exactly the same true- and false-positive rates (0.6 and 0.08, accuracy about 0.84) in every group's population shows a test difference of 0.19 on average, at most 0.06 in 1.8% of 2,000 binomial draws. Fairlearn's non-private fit gives 0.081 on seed 0.
