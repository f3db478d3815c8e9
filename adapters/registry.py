"""One table: each DP class <-> its non-private counterpart <-> toolkit, with its privacy unit and guarantee.

Docs, tests and reports read this table; a new DP estimator joins fairdp's tests and reports by adding a row.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:                                       # pandas is imported by entries(as_frame=True) only
    import pandas as pd

__all__ = ["entries", "get"]


@dataclass(frozen=True)
class RegistryEntry:
    """One DP estimator.

    Attributes
    ----------
    name : str
        Class name, unique in the registry. When the other face already has a row for a class of the same name
        (``DPGerryFairClassifier``), the row's name is the class's dotted import path instead.
    dp_class : str
        Dotted import path of the DP class.
    counterpart : str
        Dotted import path of the non-private class it replaces, or a description when neither toolkit has one.
    toolkit : {"fairlearn", "aif360"}
        The face the class belongs to.
    task : str
        "regression" or "classification" (or "allocation"), "preprocessing" (a transformer: weights, repaired or
        decorrelated features), or "reporting" for a private report (built from
        evaluation data, not fitted: its audit case wraps it so that the data arrive at ``fit``).
    neighbouring : str
        The neighbouring relation the guarantee protects.
    guarantee : str
        Type of guarantee (pure / approximate DP, zCDP ...).
    paper : str
        Where the algorithm comes from.
    public_inputs : str
        Everything the guarantee treats as public: the only inputs besides released (noisy) values that a fit's
        success, its errors and warnings, and its fitted attributes may depend on (docs/user_guide/failure_paths.rst).
    """

    name: str
    dp_class: str
    counterpart: str
    toolkit: str
    task: str
    neighbouring: str
    guarantee: str
    paper: str
    public_inputs: str

    def load(self) -> type:
        """Import and return the row's DP class."""
        module, _, cls = self.dp_class.rpartition(".")
        return getattr(importlib.import_module(module), cls)


_XIAN_NEIGHBOURING = "substitution of one fitting record (x, a); n public"
_GUARANTEE = "epsilon-DP (Laplace); (epsilon, delta)-DP with delta > 0 (analytic Gaussian)"

_JAGIELSKI_NEIGHBOURING = ("one person's sensitive attribute changed (privacy_unit='sensitive_attribute', default) "
                           "or one whole record substituted (privacy_unit='record'); m public")

_STATISTICS_GAME_GUARANTEE = ("(epsilon, delta)-DP: one Gaussian release of sufficient statistics plus one per "
                               "round, zCDP composition")
_STATISTICS_GAME_PAPER = "Agarwal et al. 2018 reduction on released statistics (fairdp)"
_GRID_SEARCH_GUARANTEE = ("(epsilon, delta)-DP: one Gaussian release of sufficient statistics plus one per grid "
                          "point, zCDP composition; the selection is post-processing")
_GRID_SEARCH_PAPER = "Agarwal et al. 2018, Sec. 3.4 (grid search) on released statistics (fairdp)"
_ALGORITHM3_GUARANTEE = ("(epsilon, delta)-DP: Laplace auditor and exponential-mechanism / Laplace-regression "
                         "learner, advanced composition over 2T rounds")
_ALGORITHM3_PAPER = "Jagielski et al. 2019, Alg. 3"

_REPORT_NEIGHBOURING = ("one person's sensitive attribute changed (privacy_unit='sensitive_attribute', default) "
                        "or one evaluation row substituted (privacy_unit='record'); n public")
_REPORT_PUBLIC = ("n (number of evaluation rows); the metrics; groups (sensitive and control columns); bounds; "
                  "options; with "
                  "privacy_unit='sensitive_attribute' (default) also y_true, y_pred and the control features")

_CUMMINGS_NEIGHBOURING = "substitution of one record (x, a, y); n public"
_GERRYFAIR_GUARANTEE = ("epsilon-DP (Laplace) or (epsilon, delta)-DP (Gaussian; zCDP, advanced or basic "
                        "composition over all releases)")
_GERRYFAIR_PAPER = "Cummings et al. 2019, Sec. 5 (private FairNR; Kearns et al. 2018 fair learning game)"

_BUDGET_NEIGHBOURING = "substitution of one record (x, a, y) within its group; group sizes public"
_BUDGET_GUARANTEE = "rho-zCDP, reported as (rho + 2 sqrt(rho ln(1/delta)), delta)-DP"
_BUDGET_PAPER = "budget-tailoring paper, Algs. 1-3"
_BUDGET_REGRESSION_COUNTERPART = ("fairlearn.reductions.ExponentiatedGradient with BoundedGroupLoss (non-private); "
                                  "sklearn LinearRegression without the fairness term")
_BUDGET_CLASSIFICATION_COUNTERPART = ("fairlearn.reductions.ExponentiatedGradient with BoundedGroupLoss (non-private); "
                                      "sklearn LogisticRegression without the fairness term")

_XIAN_PUBLIC = ("n (number of fitting rows); bounds; n_bins; alpha; groups; the regressor (prefit on other data, or "
                "DP); in attribute-blind mode also posterior_buckets, noise_margin and the group estimator (prefit on "
                "other data, or DP)")
_XIAN_AIF360_PUBLIC = _XIAN_PUBLIC + ("; the label bounds in original units (the dataset's "
                                      "metadata['label_bounds'], or bounds=)")
_JAGIELSKI_PUBLIC = ("m (number of rows); groups; constraints, objective, tol, flip; score_range, options "
                     "(n_score_bins, beta); the base classifier; with privacy_unit='sensitive_attribute' (default) also the features, labels "
                     "and base predictions (only the sensitive attribute is protected)")
_EQODDS_PUBLIC = ("m; the privileged and unprivileged group definitions; with privacy_unit='sensitive_attribute' "
                  "(default) also the labels and the classifier's predictions")
_SCORE_GUARANTEE = ("epsilon-DP (Laplace release, then the exponential-mechanism choice against the constants); "
                     "(epsilon, delta)-DP with delta > 0 (analytic Gaussian release)")
_CALIBRATED_PUBLIC = ("n; the privileged and unprivileged group definitions; cost_constraint; the score range [0, 1]; "
                      "with privacy_unit='sensitive_attribute' (default) also the labels and the scores (which must "
                      "not read the protected attribute)")
_REJECT_OPTION_PUBLIC = ("n; the privileged and unprivileged group definitions; the grid (low_class_thresh, "
                         "high_class_thresh, num_class_thresh, num_ROC_margin); metric_name, metric_ub, metric_lb; "
                         "with privacy_unit='sensitive_attribute' (default) also the labels and the scores (which "
                         "must not read the protected attribute)")
_STATISTICS_GAME_PUBLIC = ("m; groups; constraints, difference_bound; eps, max_iter, eta0; the estimator; "
                            "row_norm_bound (record); options; with privacy_unit='sensitive_attribute' (default) "
                            "also X and y")
_GRID_SEARCH_PUBLIC = ("m; groups; constraints and their bound; the grid (grid_size, grid_limit, grid_offset or "
                       "grid); constraint_weight; the estimator; row_norm_bound (record); with "
                       "privacy_unit='sensitive_attribute' (default) also X and y")
_ALGORITHM3_PUBLIC = ("m; groups; constraints; bound_B, max_iter, eta, beta; min_count when given, the hypothesis "
                      "class and the feature bound; with privacy_unit='sensitive_attribute' (default) also X and y")
_CUMMINGS_PUBLIC = "n; groups; the hypothesis class (fixed before seeing the data); delta"
_GERRYFAIR_PUBLIC = "n; C, gamma, max_iters; the feature and label bounds; the protected columns"
_BUDGET_PUBLIC = ("group sizes n_k; groups; data_bound, target_bound, clip; n_iter, learning rate, stage1_fraction; "
                  "the label set (classifier)")

_PREPROCESSING_NEIGHBOURING = ("one whole record substituted (privacy_unit='record', default) or one person's "
                               "sensitive attribute changed (privacy_unit='sensitive_attribute'); n public")
_REWEIGHING_PUBLIC = ("n; the privileged and unprivileged group definitions; weight_bound (the input weights' bound); "
                      "with privacy_unit='sensitive_attribute' also the labels and weights")
_DIR_PUBLIC = ("n; sensitive_attribute and its declared groups; feature_ranges, n_bins, min_count, repair_level; "
               "with privacy_unit='sensitive_attribute' also the features")
_PREPROCESSING_PAPER = "fairdp (one histogram release; Kamiran & Calders 2012 weights / Feldman et al. 2015 repair)"
_CORRELATION_NEIGHBOURING = ("one person's sensitive attribute changed: the sensitive columns of one row "
                             "(privacy_unit='sensitive_attribute', default), or one whole row substituted "
                             "(privacy_unit='record'); n public")
_CORRELATION_PUBLIC = ("n; bounds (every column's interval); sensitive_feature_ids; alpha; the column layout; with "
                       "privacy_unit='sensitive_attribute' (default) also the non-sensitive columns and their sums")

_REGISTRY = (
    RegistryEntry(
        name="DPFairRegressionPostprocessor",
        dp_class="fairlearn_dp.postprocessing.DPFairRegressionPostprocessor",
        counterpart="same class with epsilon=inf (binning + Wasserstein-barycenter post-processing, Chzhen et al. "
                    "2020); Fairlearn has no fair-regression post-processor",
        toolkit="fairlearn", task="regression", neighbouring=_XIAN_NEIGHBOURING, guarantee=_GUARANTEE,
        paper="Xian et al. 2024, Alg. 1", public_inputs=_XIAN_PUBLIC),
    RegistryEntry(
        name="DPFairRegressionPostprocessing",
        dp_class="aif360_dp.algorithms.postprocessing.DPFairRegressionPostprocessing",
        counterpart="same class with epsilon=inf; AIF360 has no regression post-processor",
        toolkit="aif360", task="regression", neighbouring=_XIAN_NEIGHBOURING, guarantee=_GUARANTEE,
        paper="Xian et al. 2024, Alg. 1", public_inputs=_XIAN_AIF360_PUBLIC),
    RegistryEntry(
        name="DPThresholdOptimizer",
        dp_class="fairlearn_dp.postprocessing.DPThresholdOptimizer",
        counterpart="fairlearn.postprocessing.ThresholdOptimizer",
        toolkit="fairlearn", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_GUARANTEE, paper="Jagielski et al. 2019, Alg. 1 (Hardt et al. 2016 LP)",
        public_inputs=_JAGIELSKI_PUBLIC),
    RegistryEntry(
        name="DPEqOddsPostprocessing",
        dp_class="aif360_dp.algorithms.postprocessing.DPEqOddsPostprocessing",
        counterpart="aif360.algorithms.postprocessing.EqOddsPostprocessing",
        toolkit="aif360", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_GUARANTEE, paper="Jagielski et al. 2019, Alg. 1 (Hardt et al. 2016 LP)",
        public_inputs=_EQODDS_PUBLIC),
    RegistryEntry(
        name="DPCalibratedEqOddsPostprocessing",
        dp_class="aif360_dp.algorithms.postprocessing.DPCalibratedEqOddsPostprocessing",
        counterpart="aif360.algorithms.postprocessing.CalibratedEqOddsPostprocessing",
        toolkit="aif360", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING, guarantee=_SCORE_GUARANTEE,
        paper="Pleiss et al. 2017 on one release of (group, label) counts and score sums (fairdp)",
        public_inputs=_CALIBRATED_PUBLIC),
    RegistryEntry(
        name="DPRejectOptionClassification",
        dp_class="aif360_dp.algorithms.postprocessing.DPRejectOptionClassification",
        counterpart="aif360.algorithms.postprocessing.RejectOptionClassification",
        toolkit="aif360", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING, guarantee=_SCORE_GUARANTEE,
        paper="Kamiran et al. 2012 on one release of a (group, score interval, label) histogram (fairdp)",
        public_inputs=_REJECT_OPTION_PUBLIC),
    RegistryEntry(
        name="DPMetricFrame",
        dp_class="fairlearn_dp.metrics.DPMetricFrame",
        counterpart="fairlearn.metrics.MetricFrame",
        toolkit="fairlearn", task="reporting", neighbouring=_REPORT_NEIGHBOURING,
        guarantee=_GUARANTEE, paper="fairdp (private fairness reporting; one release of per-group confusion counts)",
        public_inputs=_REPORT_PUBLIC),
    RegistryEntry(
        name="DPCorrelationRemover",
        dp_class="fairlearn_dp.preprocessing.DPCorrelationRemover",
        counterpart="fairlearn.preprocessing.CorrelationRemover",
        toolkit="fairlearn", task="preprocessing", neighbouring=_CORRELATION_NEIGHBOURING, guarantee=_GUARANTEE,
        paper="fairdp (one release of bounded sufficient statistics; Fairlearn's least-squares projection)",
        public_inputs=_CORRELATION_PUBLIC),
    RegistryEntry(
        name="DPExponentiatedGradient",
        dp_class="fairlearn_dp.reductions.DPExponentiatedGradient",
        counterpart="fairlearn.reductions.ExponentiatedGradient",
        toolkit="fairlearn", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_STATISTICS_GAME_GUARANTEE, paper=_STATISTICS_GAME_PAPER,
        public_inputs=_STATISTICS_GAME_PUBLIC),
    RegistryEntry(
        name="JagielskiExponentiatedGradient",
        dp_class="fairlearn_dp.reductions.JagielskiExponentiatedGradient",
        counterpart="fairlearn.reductions.ExponentiatedGradient (the reduction it privatises; not a drop-in)",
        toolkit="fairlearn", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_ALGORITHM3_GUARANTEE, paper=_ALGORITHM3_PAPER, public_inputs=_ALGORITHM3_PUBLIC),
    RegistryEntry(
        name="DPExponentiatedGradientReduction",
        dp_class="aif360_dp.algorithms.inprocessing.DPExponentiatedGradientReduction",
        counterpart="aif360.algorithms.inprocessing.ExponentiatedGradientReduction",
        toolkit="aif360", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_STATISTICS_GAME_GUARANTEE, paper=_STATISTICS_GAME_PAPER,
        public_inputs=_STATISTICS_GAME_PUBLIC),
    RegistryEntry(
        name="DPGridSearch",
        dp_class="fairlearn_dp.reductions.DPGridSearch",
        counterpart="fairlearn.reductions.GridSearch",
        toolkit="fairlearn", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_GRID_SEARCH_GUARANTEE, paper=_GRID_SEARCH_PAPER, public_inputs=_GRID_SEARCH_PUBLIC),
    RegistryEntry(
        name="DPGridSearchReduction",
        dp_class="aif360_dp.algorithms.inprocessing.DPGridSearchReduction",
        counterpart="aif360.algorithms.inprocessing.GridSearchReduction",
        toolkit="aif360", task="classification", neighbouring=_JAGIELSKI_NEIGHBOURING,
        guarantee=_GRID_SEARCH_GUARANTEE, paper=_GRID_SEARCH_PAPER, public_inputs=_GRID_SEARCH_PUBLIC),
    RegistryEntry(
        name="ExponentialMechanismFairClassifier",
        dp_class="fairlearn_dp.reductions.ExponentialMechanismFairClassifier",
        counterpart="same class with epsilon=inf (argmin over a finite class); neither toolkit has one",
        toolkit="fairlearn", task="classification", neighbouring=_CUMMINGS_NEIGHBOURING,
        guarantee="(epsilon, delta)-DP, delta = exp(-sqrt(n)) by default", paper="Cummings et al. 2019, Alg. 1",
        public_inputs=_CUMMINGS_PUBLIC),
    RegistryEntry(
        name="DPGerryFairClassifier",
        dp_class="fairlearn_dp.reductions.DPGerryFairClassifier",
        counterpart="aif360.algorithms.inprocessing.GerryFairClassifier",
        toolkit="fairlearn", task="classification", neighbouring=_CUMMINGS_NEIGHBOURING,
        guarantee=_GERRYFAIR_GUARANTEE, paper=_GERRYFAIR_PAPER, public_inputs=_GERRYFAIR_PUBLIC),
    RegistryEntry(
        # The Fairlearn-face engine above has the same class name: this row is named by its import path.
        name="aif360_dp.algorithms.inprocessing.DPGerryFairClassifier",
        dp_class="aif360_dp.algorithms.inprocessing.DPGerryFairClassifier",
        counterpart="aif360.algorithms.inprocessing.GerryFairClassifier",
        toolkit="aif360", task="classification", neighbouring=_CUMMINGS_NEIGHBOURING,
        guarantee=_GERRYFAIR_GUARANTEE, paper=_GERRYFAIR_PAPER, public_inputs=_GERRYFAIR_PUBLIC),
    RegistryEntry(
        name="DPGroupBudgetRegressor",
        dp_class="fairlearn_dp.reductions.DPGroupBudgetRegressor",
        counterpart=_BUDGET_REGRESSION_COUNTERPART,
        toolkit="fairlearn", task="regression", neighbouring=_BUDGET_NEIGHBOURING, guarantee=_BUDGET_GUARANTEE,
        paper=_BUDGET_PAPER, public_inputs=_BUDGET_PUBLIC),
    RegistryEntry(
        name="DPGroupBudgetClassifier",
        dp_class="fairlearn_dp.reductions.DPGroupBudgetClassifier",
        counterpart=_BUDGET_CLASSIFICATION_COUNTERPART,
        toolkit="fairlearn", task="classification", neighbouring=_BUDGET_NEIGHBOURING,
        guarantee=_BUDGET_GUARANTEE, paper=_BUDGET_PAPER, public_inputs=_BUDGET_PUBLIC),
    RegistryEntry(
        name="DPGroupBudgetRegression",
        dp_class="aif360_dp.algorithms.inprocessing.DPGroupBudgetRegression",
        counterpart=("aif360.algorithms.inprocessing.GridSearchReduction with loss='Square' and BoundedGroupLoss "
                     "(non-private); sklearn LinearRegression without the fairness term"),
        toolkit="aif360", task="regression", neighbouring=_BUDGET_NEIGHBOURING, guarantee=_BUDGET_GUARANTEE,
        paper=_BUDGET_PAPER, public_inputs=_BUDGET_PUBLIC),
    RegistryEntry(
        name="DPGroupBudgetClassification",
        dp_class="aif360_dp.algorithms.inprocessing.DPGroupBudgetClassification",
        counterpart=("aif360.algorithms.inprocessing.ExponentiatedGradientReduction (non-private); sklearn "
                     "LogisticRegression without the fairness term"),
        toolkit="aif360", task="classification", neighbouring=_BUDGET_NEIGHBOURING,
        guarantee=_BUDGET_GUARANTEE, paper=_BUDGET_PAPER, public_inputs=_BUDGET_PUBLIC),
    RegistryEntry(
        name="DPReweighing",
        dp_class="aif360_dp.algorithms.preprocessing.DPReweighing",
        counterpart="aif360.algorithms.preprocessing.Reweighing",
        toolkit="aif360", task="preprocessing", neighbouring=_PREPROCESSING_NEIGHBOURING, guarantee=_GUARANTEE,
        paper=_PREPROCESSING_PAPER, public_inputs=_REWEIGHING_PUBLIC),
    RegistryEntry(
        name="DPDisparateImpactRemover",
        dp_class="aif360_dp.algorithms.preprocessing.DPDisparateImpactRemover",
        counterpart="aif360.algorithms.preprocessing.DisparateImpactRemover",
        toolkit="aif360", task="preprocessing", neighbouring=_PREPROCESSING_NEIGHBOURING, guarantee=_GUARANTEE,
        paper=_PREPROCESSING_PAPER, public_inputs=_DIR_PUBLIC),
)


def entries(toolkit: str | None = None, *, as_frame: bool = False) -> list[RegistryEntry] | pd.DataFrame:
    """All registry rows, optionally only those of one ``toolkit``.

    Each row is a ``RegistryEntry`` (a frozen dataclass; ``entry.load()`` imports its DP class); with
    ``as_frame=True`` the rows are returned as a pandas DataFrame (one row per DP class, one column per field).
    """
    if toolkit is not None and toolkit not in {"fairlearn", "aif360"}:
        raise ValueError(f"toolkit must be 'fairlearn', 'aif360' or None, got {toolkit!r}.")
    rows = [e for e in _REGISTRY if toolkit is None or e.toolkit == toolkit]
    if not as_frame:
        return rows
    import pandas as pd

    return pd.DataFrame([asdict(e) for e in rows])


def get(name: str) -> RegistryEntry:
    """The row for class ``name``: a row's name, or the dotted import path of a row's DP class."""
    for entry in _REGISTRY:
        if entry.name == name:
            return entry
    for entry in _REGISTRY:
        if entry.dp_class == name:
            return entry
    raise KeyError(f"No DP estimator named {name!r}; known: {[e.name for e in _REGISTRY]}.")
