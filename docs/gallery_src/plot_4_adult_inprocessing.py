r"""
DPExponentiatedGradient on Adult (the statistics game)
======================================================

Stored results of ``examples/adult_inprocessing.py`` (the full run takes minutes on 2 cores and is not executed
when the documentation is built; the code at the bottom of this page prints the script's docstring: its usage).

Expected on Adult (``examples/adult_inprocessing.py``: 70/30 split, seed 0; one-hot over the public codebook
``fairlearn_dp.datasets.adult_categories()``, numeric features scaled to public bounds; demographic parity by sex): **test accuracy 0.828, DP difference 0.013** at ε = 1
(Fairlearn's non-private ``ExponentiatedGradient``: 0.832 / 0.016; the majority class: 0.764). Ten seeds, every ε,
and the paper's Algorithm 3 for comparison are in the table below.

``python examples/adult_inprocessing.py --seeds 10 --n-jobs 2`` (about 8 minutes on 2 cores; ``--quick`` 20 s). Mean ± std
over seeds 0–9 (each seed is its own 70/30 split), test set, δ = 1e-5. "statistics" is the drop-in line above
(at ε = ∞ it runs Fairlearn's own algorithm). "paper" is Algorithm 3 with its regression oracle, B = 10 and T
from its formula (50 at ε = ∞).

.. image:: /img/adult_inprocessing_sex_dp.png
   :alt: Accuracy and DP difference against epsilon on Adult


.. csv-table::
   :header-rows: 1

   "method", "ε", "test accuracy", "DP difference", "fit s (median)", "seeds"
   "fairlearn", "∞", "0.828 ± 0.004", "0.017 ± 0.008", "9.7", "10"
   "paper", "0.25", "0.512 ± 0.033", "0.068 ± 0.050", "0.0", "10"
   "paper", "0.5", "0.516 ± 0.032", "0.070 ± 0.051", "0.1", "10"
   "paper", "1", "0.524 ± 0.032", "0.073 ± 0.052", "0.1", "10"
   "paper", "2", "0.521 ± 0.026", "0.057 ± 0.029", "0.1", "10"
   "paper", "4", "0.514 ± 0.014", "0.031 ± 0.018", "0.1", "10"
   "paper", "8", "0.508 ± 0.008", "0.014 ± 0.010", "0.1", "10"
   "paper", "∞", "0.827 ± 0.003", "0.016 ± 0.006", "0.2", "10"
   "statistics", "0.25", "0.824 ± 0.004", "0.017 ± 0.011", "4.2", "10"
   "statistics", "0.5", "0.826 ± 0.003", "0.016 ± 0.008", "3.9", "10"
   "statistics", "1", "0.826 ± 0.003", "0.016 ± 0.007", "3.3", "10"
   "statistics", "2", "0.826 ± 0.003", "0.015 ± 0.007", "2.9", "10"
   "statistics", "4", "0.826 ± 0.003", "0.015 ± 0.006", "3.0", "10"
   "statistics", "8", "0.826 ± 0.003", "0.015 ± 0.006", "2.5", "10"
   "statistics", "∞", "0.828 ± 0.004", "0.017 ± 0.008", "7.7", "10"
   "majority class", "–", "0.764", "0", "–", "–"


Every one of the 10 seeds meets the goal at ε = 1: accuracy 0.820–0.829, DP difference 0.004–0.026.
The same command with ``--constraint eo --epsilons 0.5 1 inf`` and with ``--sensitive race --epsilons 0.5 1 inf``:

Equalized odds by sex, ``EqualizedOdds(difference_bound=0.01)``:

.. csv-table::
   :header-rows: 1

   "method", "ε", "test accuracy", "EO difference", "fit s (median)", "seeds"
   "fairlearn", "∞", "0.835 ± 0.003", "0.029 ± 0.011", "13.8", "10"
   "paper", "0.5", "0.516 ± 0.029", "0.170 ± 0.104", "0.1", "10"
   "paper", "1", "0.517 ± 0.029", "0.170 ± 0.104", "0.1", "10"
   "paper", "∞", "0.839 ± 0.003", "0.044 ± 0.015", "0.2", "10"
   "statistics", "0.5", "0.840 ± 0.004", "0.042 ± 0.012", "9.5", "10"
   "statistics", "1", "0.837 ± 0.004", "0.038 ± 0.012", "11.1", "10"
   "statistics", "∞", "0.835 ± 0.003", "0.029 ± 0.011", "13.9", "10"
   "majority class", "–", "0.764", "0", "–", "–"


At ε = 1, 9 of the 10 seeds are within the goal's 0.06 (seed 0: 0.840 / 0.040); seed 5 gives 0.065, where Fairlearn's non-private fit also has 0.056. The test difference is noisy itself: about 530 women with income > 50K are in each test split, so a true-positive rate is measured to about ±0.02. Before the uniform average (``run_linprog_step="auto"``) the LP mixture gave 0.052 ± 0.028 and 7 of 10 seeds.

Demographic parity by race (5 groups; the two smallest have about 300 training rows each):

.. csv-table::
   :header-rows: 1

   "method", "ε", "test accuracy", "DP difference", "fit s (median)", "seeds"
   "fairlearn", "∞", "0.805 ± 0.004", "0.069 ± 0.038", "25.1", "10"
   "paper", "0.5", "0.539 ± 0.026", "0.149 ± 0.044", "0.2", "10"
   "paper", "1", "0.539 ± 0.026", "0.149 ± 0.044", "0.3", "10"
   "paper", "∞", "0.811 ± 0.005", "0.070 ± 0.036", "0.6", "10"
   "statistics", "0.5", "0.797 ± 0.040", "0.116 ± 0.040", "8.9", "10"
   "statistics", "1", "0.799 ± 0.023", "0.090 ± 0.032", "4.5", "10"
   "statistics", "∞", "0.805 ± 0.004", "0.069 ± 0.038", "36.5", "10"
   "majority class", "–", "0.764", "0", "–", "–"


The race goal (accuracy ≥ 0.80 and DP difference ≤ 0.05) is **not met**. Fairlearn's non-private algorithm does not meet the 0.05 on this split either (0.069). The 0.05 is below what this test split can measure: its two smallest groups have 131 and 112 test rows, so a classifier whose selection rate is exactly 0.2 in every group's population shows a test DP difference of 0.056 on average (binomial simulation over seeds 0–9), above 0.05 in 56% of draws. The unconstrained ``LogisticRegression`` gives 0.846 / 0.137. At ε = 1 the release noise on a 300-person group's cell sums is about as large as the group's own signal. The class then warns that the features cannot tell those members apart (``proxy_reliability_`` = 0), and it corrects the groups it can measure. The result is 0.799 ± 0.023 / 0.090 ± 0.032: the DP difference lies between the unconstrained and the non-private figures, at an accuracy just below both.

Equalized odds by race (``--sensitive race --constraint eo --epsilons 0.5 1 inf``):

.. csv-table::
   :header-rows: 1

   "method", "ε", "test accuracy", "EO difference", "fit s (median)", "seeds"
   "fairlearn", "∞", "0.830 ± 0.004", "0.161 ± 0.061", "72.4", "10"
   "paper", "0.5", "0.482 ± 0.025", "0.232 ± 0.080", "0.3", "10"
   "paper", "1", "0.482 ± 0.025", "0.232 ± 0.080", "0.2", "10"
   "paper", "∞", "0.825 ± 0.004", "0.168 ± 0.060", "0.5", "10"
   "statistics", "0.5", "0.780 ± 0.025", "0.179 ± 0.059", "13.8", "10"
   "statistics", "1", "0.787 ± 0.016", "0.133 ± 0.047", "13.4", "10"
   "statistics", "∞", "0.830 ± 0.004", "0.161 ± 0.061", "78.5", "10"
   "majority class", "–", "0.764", "0", "–", "–"


Here the test difference is dominated by the smallest cells: a few dozen positives per small group in the test split. Even Fairlearn's non-private fit has 0.161 ± 0.061; the private fit's 0.133 ± 0.047 is below it, at 0.043 less accuracy.

"""

# sphinx_gallery_thumbnail_path = 'img/adult_inprocessing_sex_dp.png'

# %%
# The script and its options (``python examples/adult_inprocessing.py --help``); ``--quick`` is its smoke-test mode.

import ast
from pathlib import Path

# the repository root (sphinx-gallery runs this file from docs/gallery_src/)
ROOT = next(p for p in [Path.cwd(), *Path.cwd().parents] if (p / "examples").is_dir() and (p / "docs").is_dir())
script = ROOT / "examples" / "adult_inprocessing.py"
print(ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))))      # read, not run

# %%
# The stored summary the figure is drawn from (demographic parity by sex; ``docs/img``).

import pandas as pd

summary = pd.read_csv(ROOT / "docs" / "img" / "adult_inprocessing_sex_dp_summary.csv")
print(summary.to_string(index=False))
