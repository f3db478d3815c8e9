"""fairdp's engine: differentially private counterparts of Fairlearn's mitigation algorithms.

Subpackages: :mod:`fairlearn_dp.privacy` (budgets, accountant bridge, noisy releases built on diffprivlib),
:mod:`fairlearn_dp.postprocessing` (DP post-processors), :mod:`fairlearn_dp.metrics` (MetricFrame-ready fairness
metrics) and :mod:`fairlearn_dp.datasets` (bundled real data, loaded offline).
"""

from . import _compat  # noqa: F401  (before anything imports diffprivlib: scikit-learn 1.9 support)

__version__ = "0.1.0"
