"""AIF360's ``ClassificationMetric``, answered from one private release of per-intersection confusion counts.

The release (see :class:`DPClassificationMetric`'s Privacy section and :mod:`._inequality`) has one cell per
declared intersection of protected-attribute values (AIF360's ``between_all_groups`` groups, which cover every row
of a valid AIF360 dataset); each cell holds the confusion counts and, with ``bounded_scores=True``, the sums of the
scores over its unfavorable and favorable rows. The per-condition table every count metric reads is the sum of
its cells; the entropy indices and generalized rates are post-processing of the same release.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset
from aif360.datasets.multiclass_label_dataset import MulticlassLabelDataset
from diffprivlib import BudgetAccountant

from fairlearn_dp._utils import check_bool
from fairlearn_dp.metrics._frame_release import CONFUSION_COLUMNS, count_cells, release_table
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._post_release import issue_warnings_after_release

from ._checks import (
    _binary_labels,
    _bounded_scores,
    _check_disjoint,
    _check_groups,
    _check_same_rows,
    _check_schema,
    _division,
    _row_weights,
    _share,
)
from ._dp_dataset_metrics import DPBinaryLabelDatasetMetric
from ._inequality import (
    benefit_distribution,
    between_group_distribution,
    check_alpha,
    declared_intersections,
    generalized_entropy,
    intersection_index,
    require_declared_cells,
    smoothed_differential_fairness,
)
from ._threshold_report import DPThresholdReport

__all__ = ["DPClassificationMetric"]

#: A view's arguments that belong to the release, with the value a view must leave them at.
_VIEW_DEFAULTS = {"delta": 0.0, "privacy_unit": "sensitive_attribute", "public_predictions": False, "bounded_scores": False,
                      "intersections": True, "accountant": None, "random_state": None, "weight_bound": None}


class DPClassificationMetric(DPBinaryLabelDatasetMetric):
    """AIF360's :class:`~aif360.metrics.ClassificationMetric`, answered from one differentially private release.

    The constructor releases, once, the confusion counts (true label x predicted label) of each declared
    intersection of protected-attribute values (see Privacy), and every method answers
    from that released table, with AIF360's names, signatures and definitions: the dataset methods
    (``num_positives``, ``base_rate``, ...) on the true labels of ``dataset``; ``selection_rate``,
    ``disparate_impact``, ``statistical_parity_difference`` (and ``mean_difference``) on the predictions, as
    AIF360's class does; differences are unprivileged minus privileged, ratios unprivileged over privileged. The
    entropy indices (``generalized_entropy_index``, ``theil_index``, ``coefficient_of_variation`` and their
    ``between_group_*`` and ``between_all_groups_*`` versions) are functions of these counts; the generalized,
    score-based counts and rates need ``bounded_scores=True``; ``smoothed_empirical_differential_fairness`` and
    ``differential_fairness_bias_amplification`` read the intersections with a positive released count. Not
    available (they need more than counts and bounded sums; ``NotImplementedError``): ``consistency`` (the
    features), ``rich_subgroup`` (an auditor fit on the rows).

    Parameters
    ----------
    dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
        The true labels (its ``favorable_label`` / ``unfavorable_label`` values only; a multiclass dataset's
        favorable values are one class, as in AIF360); ``instance_weights`` all 1, or each in ``[0, weight_bound]``.
    classified_dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
        The same instances (same protected attributes and label metadata) with the predicted labels (and scores).
    unprivileged_groups, privileged_groups : list of dict, optional
        AIF360's group definitions, disjoint by definition (see :class:`DPBinaryLabelDatasetMetric`).
    epsilon : float, default=1.0
        Privacy budget of the release (``numpy.inf``: exact counts, no noise, charged ``(inf, 0)``).
    delta : float, default=0.0
        0: Laplace noise (pure DP); > 0: analytic Gaussian noise.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        What neighbouring datasets differ in (see Privacy).
    public_predictions : bool, default=False
        True declares that the predicted labels do not depend on the protected attributes, so their totals
        are public under ``"sensitive_attribute"`` (see Privacy).
    bounded_scores : bool, default=False
        True declares ``classified_dataset.scores`` in ``[0, 1]`` (AIF360's convention; a score outside is clipped)
        and releases their sums with the counts, for the generalized counts and rates; the sensitivity doubles.
    intersections : bool, default=True
        True releases the counts per declared intersection of protected-attribute values (every method available);
        False per condition class (less noise on a condition that spans several intersections; the
        ``between_all_groups_*`` methods then raise ``ValueError``).
    accountant : diffprivlib.BudgetAccountant, optional
        Charged ``(epsilon, delta)`` once (diffprivlib's default accountant when None).
    random_state : None, int or numpy.random.RandomState
        Seeds the release (experiments only). None: a secure source.
    weight_bound : float, optional
        The public bound ``B`` of ``instance_weights`` (a reweighted dataset, e.g. after AIF360's ``Reweighing``):
        a weight above ``B`` is clipped to it (a negative one is refused before the release), each row adds its weight
        to its cell as AIF360's metrics do, and the sensitivity is multiplied by ``B``; the weighted totals are not
        public, so nothing is kept exact. None: the weights must all be 1.
    release : DPThresholdReport, optional
        Read the counts from this report's release instead of releasing (no charge): ``dataset`` and
        ``classified_dataset`` must be the very objects the report was built from (object identity: their rows,
        labels and scores are not read), and ``threshold`` names the view. The release's own arguments
        (``epsilon`` other than the report's, ``delta``, ``privacy_unit``, ``public_predictions``,
        ``bounded_scores``, ``intersections=False``, ``accountant``, ``random_state``, ``weight_bound``) are
        refused. The view answers for the predictions ``classified_dataset.scores > threshold`` of the rows as they
        were at the report's release, whatever ``classified_dataset.labels`` hold now.
    threshold : float, optional
        With ``release``: the view's threshold, exactly one of the report's ``thresholds_``.

    Attributes
    ----------
    released_counts_ : pandas.DataFrame
        The post-processed per-condition table the count metrics read: one row per condition class, the columns
        ``tn, fp, fn, tp``.
    released_cell_counts_ : pandas.DataFrame
        The post-processed release, one row per declared intersection (index: its condition and its
        protected-attribute values; per condition with ``intersections=False``), the columns ``tn, fp, fn, tp``
        (and ``gfp, gtp``, the score sums over the unfavorable and favorable rows, with ``bounded_scores=True``).
    privacy_spent_ : fairlearn_dp.privacy.PrivacySpend
        What the release charged.
    noise_scale_, noise_sd_ : float
        The mechanism's scale (Laplace ``b = 2 / epsilon``, ``4 / epsilon`` with scores, or the Gaussian's
        ``sigma``) and the noise's standard deviation per cell value (0 at ``epsilon = inf``). A view of a report:
        the report's scale per histogram bin, and the largest standard deviation of the view's counts before
        post-processing (a count sums ``m`` bins, ``m = k + 1`` below the ``k``-th threshold or ``T - k`` above
        it: ``sqrt(m)`` times a bin's; its law is the sum of ``m`` Laplace draws, not a Laplace).
    release_, threshold : DPThresholdReport, float
        A view's report and threshold (set on views only; a view's ``privacy_spent_`` is ``(0, 0)``).
    privileged_groups, unprivileged_groups : list of dict or None
        The group definitions.

    Privacy
    -------
    - Relation: ``"sensitive_attribute"`` -- one person's protected attributes changed (and with them, possibly,
      their predicted label and score); ``"record"`` -- one row substituted, with its labels and score (the number
      of rows public).
    - Released: the table of cells (each declared intersection of the protected attributes' privileged and
      unprivileged values, from the dataset metadata; a row with an undeclared value is refused, as AIF360's
      datasets do) x (confusion bin [, score sums]); nothing else is computed from the data. A condition's counts
      are the sums of its cells (more noise than a per-condition release when a condition spans several cells:
      ``intersections=False`` releases per condition).
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, one charge of ``(epsilon, delta)``.
    - Sensitivity: each row adds to its cell the one-hot vector of its confusion bin (and, with scores, its score
      ``s`` in ``[0, 1]`` in the column of its true label: L1 norm <= 2, L2 <= ``sqrt(2)``); a changed row
      removes its vector from one cell and adds its new vector to one cell: L1 2, L2 ``sqrt(2)`` (scores: L1 4,
      L2 2). Derivation: ``docs/privacy_analysis/aif360_metrics.md``.
    - Public inputs: the group definitions, the schema and metadata of the datasets (with the declared
      privileged and unprivileged values of every protected attribute, which AIF360 infers from the data when
      they are not given: declare them), the number of rows; under ``"sensitive_attribute"`` also the true labels
      (their totals are kept exactly), and the predictions with ``public_predictions=True`` (then every confusion
      bin's total and the ``privileged=None`` values are exact). Leave it False when the predictions depend on
      the protected attributes (e.g. AIF360's ``EqOddsPostprocessing``, or fairdp's ``DPEqOddsPostprocessing``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from aif360.datasets import BinaryLabelDataset
    >>> from diffprivlib import BudgetAccountant
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(1000) < 0.5).astype(float)
    >>> y = (rng.random(1000) < 0.3 + 0.2 * a).astype(float)
    >>> data = BinaryLabelDataset(df=pd.DataFrame({"a": a, "y": y}), label_names=["y"],
    ...                           protected_attribute_names=["a"])
    >>> predicted = data.copy()
    >>> predicted.labels = np.where(rng.random(1000) < 0.8, y, 1 - y).reshape(-1, 1)
    >>> metric = DPClassificationMetric(data, predicted, [{"a": 0}], [{"a": 1}], epsilon=1.0,
    ...                                 accountant=BudgetAccountant(), random_state=0)
    >>> metric.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> bool(abs(metric.accuracy() - np.mean(predicted.labels.ravel() == y)) < 0.05)
    True
    >>> list(metric.released_counts_.columns)
    ['tn', 'fp', 'fn', 'tp']
    """

    _COLUMNS = CONFUSION_COLUMNS
    _NEGATIVES, _POSITIVES = (0, 1), (2, 3)              # true label: (tn, fp) unfavorable, (fn, tp) favorable

    @issue_warnings_after_release(result="self")
    def __init__(self, dataset: BinaryLabelDataset | MulticlassLabelDataset,
                 classified_dataset: BinaryLabelDataset | MulticlassLabelDataset,
                 unprivileged_groups: list[dict] | None = None, privileged_groups: list[dict] | None = None, *,
                 epsilon: float = 1.0, delta: float = 0.0, privacy_unit: str = "sensitive_attribute",
                 public_predictions: bool = False, bounded_scores: bool = False, intersections: bool = True,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None, weight_bound: float | None = None,
                 release: DPThresholdReport | None = None, threshold: float | None = None) -> None:
        self.intersections = check_bool(intersections, "intersections")        # public: before the budget
        if release is not None or threshold is not None:
            given = {"delta": delta, "privacy_unit": privacy_unit, "public_predictions": public_predictions,
                         "bounded_scores": bounded_scores, "intersections": intersections, "accountant": accountant,
                         "random_state": random_state, "weight_bound": weight_bound}
            self._view(release, threshold, dataset, classified_dataset, unprivileged_groups, privileged_groups,
                       epsilon=epsilon, given=given)
        else:
            self._release(dataset, classified_dataset, unprivileged_groups, privileged_groups, epsilon=epsilon,
                          delta=delta, privacy_unit=privacy_unit, accountant=accountant, random_state=random_state,
                          public_columns=public_predictions, bounded_scores=bounded_scores, weight_bound=weight_bound)
        self.bounded_scores = self._bounded_scores
        self.released_cell_counts_ = pd.DataFrame(
            self._cell_table, index=self._cell_index,
            columns=list(self._COLUMNS) + (["gfp", "gtp"] if self._bounded_scores else []))

    # ------------------------------------------------------------------------------------------------ release
    def _view(self, release, threshold, dataset, classified_dataset, unprivileged_groups, privileged_groups, *,
              epsilon, given):
        """A view of a :class:`DPThresholdReport` at ``threshold`` (no charge); every check is on public inputs and
        comes before anything is read: the release's own arguments left at their defaults, the group definitions,
        the schema, and (in :meth:`DPThresholdReport.threshold_counts`) the dataset objects and the threshold.
        """
        if not isinstance(release, DPThresholdReport):
            raise (ValueError("threshold is given without release: a threshold selects a view of a "
                              "DPThresholdReport (release=report).") if release is None else
                   TypeError(f"release must be a DPThresholdReport, got {type(release).__name__}."))
        changed = [name for name, value in given.items() if value is not _VIEW_DEFAULTS[name]
                   and not (isinstance(value, (bool, str, float)) and value == _VIEW_DEFAULTS[name])]
        if isinstance(epsilon, bool) or epsilon not in (1.0, release.epsilon):
            changed.insert(0, "epsilon")
        if changed:
            raise ValueError(f"release: {changed} belong to the release (DPThresholdReport); leave them out of a "
                             "view of it.")
        groups = {"privileged_groups": _check_groups(privileged_groups, "privileged_groups"),
                  "unprivileged_groups": _check_groups(unprivileged_groups, "unprivileged_groups")}
        _check_schema(dataset, classified_dataset, groups)
        _check_disjoint(groups["privileged_groups"], groups["unprivileged_groups"])
        view = release.threshold_counts(dataset, classified_dataset, threshold)
        self.privileged_groups, self.unprivileged_groups = (groups["privileged_groups"],
                                                            groups["unprivileged_groups"])
        self._conditions = tuple(c for c in ("privileged", "unprivileged", "neither")
                                 if c == "neither" or groups[f"{c}_groups"] is not None)
        self.intersections, self._bounded_scores, self.weight_bound = True, False, None
        self._layout(dataset)                                       # public metadata: the report's intersections
        self._cell_table, self._noisy = view.counts, view.raw
        self._table = np.zeros((len(self._conditions), 4))
        np.add.at(self._table, self._cell_condition, view.counts)
        self._score_table = np.zeros((len(self._conditions), 0))
        self.privacy_unit, self.privacy_spent_, self.release_ = release.privacy_unit, PrivacySpend(0.0, 0.0), release
        self.threshold, self.noise_scale_, self.noise_sd_ = view.threshold, release.noise_scale_, view.noise_sd
        self.released_counts_ = pd.DataFrame(self._table, index=pd.Index(self._conditions, name="condition"),
                                             columns=list(self._COLUMNS))

    def _layout(self, dataset):
        """The release's cells, from public inputs only: the declared intersections, each with its condition (or,
        with ``intersections=False``, the condition classes).
        """
        names = list(dataset.protected_attribute_names)
        if not self.intersections:
            self._cell_condition = np.arange(len(self._conditions))
            self._cell_index = pd.Index(self._conditions, name="condition")
            return
        self._intersections = declared_intersections(dataset)
        self._cell_condition = self._cells(self._intersections, names)
        columns = [[self._conditions[c] for c in self._cell_condition]] + list(self._intersections.T)
        self._cell_index = pd.MultiIndex.from_arrays(columns, names=["condition"] + names)    # also with no cell

    def _count(self, dataset, classified_dataset):
        """The exact ``(cells, (tn, fp, fn, tp[, gfp, gtp]))`` table."""
        _check_same_rows(dataset, classified_dataset)
        y_true = _binary_labels(dataset, "dataset")
        y_pred = _binary_labels(classified_dataset, "classified_dataset")
        weights = _row_weights(dataset, "dataset", self.weight_bound, classified_dataset)
        scores = _bounded_scores(classified_dataset) if self._bounded_scores else None
        self._layout(dataset)
        if not self.intersections:
            cells = self._cells(dataset.protected_attributes, dataset.protected_attribute_names)
        else:
            cells = intersection_index(dataset.protected_attributes, dataset.protected_attribute_names,
                                       self._intersections)
        require_declared_cells(cells)
        n_cells = len(self._cell_condition)
        table = count_cells(cells, n_cells, labels=(y_true, y_pred), weights=weights)
        if scores is None:
            return table
        if weights is not None:
            scores = scores * weights                       # AIF360's generalized counts weight each score too
        sums = [np.bincount(cells, weights=scores * (y_true == label), minlength=n_cells) for label in (0, 1)]
        return np.column_stack([table] + sums)

    def _randomise(self, exact, epsilon, delta, seed):
        """One release of the cell table: L1 2 and L2 ``sqrt(2)``, or L1 4 and L2 2 with the score sums; times
        ``weight_bound`` for weighted rows.
        """
        l1, l2 = (4.0, 2.0) if self._bounded_scores else (2.0, math.sqrt(2.0))
        l1, l2 = (l1 * (self.weight_bound or 1.0), l2 * (self.weight_bound or 1.0))
        return release_table(exact, l1=l1, l2=l2, epsilon=epsilon, delta=delta, random_state=seed)

    def _post_process(self, noisy, exact, unit, public_columns):
        """Counts per cell as the dataset metric post-processes its table; score sums clipped into ``[0, count]`` of
        their true label's rows in the cell; the per-condition tables are sums of cells.
        """
        counts = super()._post_process(noisy[:, :4], exact[:, :4], unit, public_columns)
        cells = counts
        if self._bounded_scores:
            rows = np.column_stack([counts[:, :2].sum(axis=1), counts[:, 2:].sum(axis=1)])
            cells = np.column_stack([counts, np.clip(noisy[:, 4:], 0.0, rows)])
        self._cell_table = cells
        table = np.zeros((len(self._conditions), cells.shape[1]))
        np.add.at(table, self._cell_condition, cells)
        self._score_table = table[:, 4:]
        return table[:, :4]

    # ------------------------------------------------------------------------------------------------ counts
    def binary_confusion_matrix(self, privileged: bool | None = None) -> dict:
        """``{"TP", "FP", "TN", "FN"}`` counts, optionally conditioned."""
        tn, fp, fn, tp = (np.float64(value) for value in self._counts(privileged))
        return {"TP": tp, "FP": fp, "TN": tn, "FN": fn}

    def num_true_positives(self, privileged: bool | None = None) -> float:
        return self.binary_confusion_matrix(privileged=privileged)["TP"]

    def num_false_positives(self, privileged: bool | None = None) -> float:
        return self.binary_confusion_matrix(privileged=privileged)["FP"]

    def num_false_negatives(self, privileged: bool | None = None) -> float:
        return self.binary_confusion_matrix(privileged=privileged)["FN"]

    def num_true_negatives(self, privileged: bool | None = None) -> float:
        return self.binary_confusion_matrix(privileged=privileged)["TN"]

    def num_pred_positives(self, privileged: bool | None = None) -> float:
        """Number of instances predicted favorable (``TP + FP``)."""
        return self._sum(privileged, (1, 3))

    def num_pred_negatives(self, privileged: bool | None = None) -> float:
        """Number of instances predicted unfavorable (``TN + FN``)."""
        return self._sum(privileged, (0, 2))

    def power(self, privileged: bool | None = None) -> float:
        """Alias of ``num_true_positives``."""
        return self.num_true_positives(privileged=privileged)

    # ------------------------------------------------------------------------------------------------ generalized
    def generalized_binary_confusion_matrix(self, privileged: bool | None = None) -> dict:
        """``{"GTP", "GFP", "GTN", "GFN"}``: sums of the scores (``GTP``, ``GFP``) and of one minus the scores
        (``GFN``, ``GTN``) over the favorable / unfavorable rows; ``GFN = P - GTP`` and ``GTN = N - GFP``.
        Needs ``bounded_scores=True``.
        """
        if not self._bounded_scores:
            raise ValueError("The generalized counts and rates are sums of classified_dataset.scores, which are "
                             "released only with bounded_scores=True (declaring the scores in [0, 1]): construct "
                             f"{type(self).__name__} with bounded_scores=True.")
        gfp, gtp = (np.float64(value) for value in self._scores(privileged))
        return {"GTP": gtp, "GFP": gfp, "GTN": self.num_negatives(privileged=privileged) - gfp,
                    "GFN": self.num_positives(privileged=privileged) - gtp}

    def _scores(self, privileged):
        """The released score sums ``(gfp, gtp)`` of a condition (the ``_counts`` conventions)."""
        if privileged is None:
            return self._score_table.sum(axis=0)
        self._counts(privileged)                          # AIF360's AttributeError for a missing condition
        return self._score_table[self._conditions.index("privileged" if privileged else "unprivileged")]

    def num_generalized_true_positives(self, privileged: bool | None = None) -> float:
        return self.generalized_binary_confusion_matrix(privileged=privileged)["GTP"]

    def num_generalized_false_positives(self, privileged: bool | None = None) -> float:
        return self.generalized_binary_confusion_matrix(privileged=privileged)["GFP"]

    def num_generalized_false_negatives(self, privileged: bool | None = None) -> float:
        return self.generalized_binary_confusion_matrix(privileged=privileged)["GFN"]

    def num_generalized_true_negatives(self, privileged: bool | None = None) -> float:
        return self.generalized_binary_confusion_matrix(privileged=privileged)["GTN"]

    def generalized_true_positive_rate(self, privileged: bool | None = None) -> float:
        """``GTP / P``."""
        return _division(self.num_generalized_true_positives(privileged), self.num_positives(privileged))

    def generalized_false_positive_rate(self, privileged: bool | None = None) -> float:
        """``GFP / N``."""
        return _division(self.num_generalized_false_positives(privileged), self.num_negatives(privileged))

    def generalized_false_negative_rate(self, privileged: bool | None = None) -> float:
        """``GFN / P``."""
        return _division(self.num_generalized_false_negatives(privileged), self.num_positives(privileged))

    def generalized_true_negative_rate(self, privileged: bool | None = None) -> float:
        """``GTN / N``."""
        return _division(self.num_generalized_true_negatives(privileged), self.num_negatives(privileged))

    def generalized_equalized_odds_difference(self) -> float:
        """``max(|GFPR_u - GFPR_p|, |GTPR_u - GTPR_p|)``."""
        return max(np.abs(self.difference(self.generalized_false_positive_rate)),
                   np.abs(self.difference(self.generalized_true_positive_rate)))

    # ------------------------------------------------------------------------------------------------ rates
    def performance_measures(self, privileged: bool | None = None) -> dict:
        """``TPR, TNR, FPR, FNR, PPV, NPV, FDR, FOR, ACC`` (AIF360's definitions), with AIF360's generalized
        ``GTPR, GTNR, GFPR, GFNR`` after ``FNR`` when the scores were released (``bounded_scores=True``).
        """
        counts = self.binary_confusion_matrix(privileged=privileged)
        tp, fp, tn, fn = counts["TP"], counts["FP"], counts["TN"], counts["FN"]
        positives, negatives = tp + fn, tn + fp
        rates = {"TPR": _division(tp, positives), "TNR": _division(tn, negatives), "FPR": _division(fp, negatives),
                     "FNR": _division(fn, positives)}
        if self._bounded_scores:
            general = self.generalized_binary_confusion_matrix(privileged=privileged)
            rates.update(GTPR=_division(general["GTP"], positives), GTNR=_division(general["GTN"], negatives),
                         GFPR=_division(general["GFP"], negatives), GFNR=_division(general["GFN"], positives))
        return dict(rates, PPV=_share(tp, tp + fp), NPV=_share(tn, tn + fn), FDR=_share(fp, fp + tp),
                    FOR=_share(fn, fn + tn), ACC=_share(tp + tn, positives + negatives))

    def true_positive_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["TPR"]

    def false_positive_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["FPR"]

    def false_negative_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["FNR"]

    def true_negative_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["TNR"]

    def positive_predictive_value(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["PPV"]

    def false_discovery_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["FDR"]

    def false_omission_rate(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["FOR"]

    def negative_predictive_value(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["NPV"]

    def accuracy(self, privileged: bool | None = None) -> float:
        return self.performance_measures(privileged=privileged)["ACC"]

    def error_rate(self, privileged: bool | None = None) -> float:
        return 1.0 - self.accuracy(privileged=privileged)

    def precision(self, privileged: bool | None = None) -> float:
        return self.positive_predictive_value(privileged=privileged)

    def recall(self, privileged: bool | None = None) -> float:
        return self.true_positive_rate(privileged=privileged)

    def sensitivity(self, privileged: bool | None = None) -> float:
        return self.true_positive_rate(privileged=privileged)

    def specificity(self, privileged: bool | None = None) -> float:
        return self.true_negative_rate(privileged=privileged)

    def selection_rate(self, privileged: bool | None = None) -> float:
        """``Pr(Y_hat = favorable)``, optionally conditioned."""
        return _division(self.num_pred_positives(privileged=privileged), self.num_instances(privileged=privileged))

    # ------------------------------------------------------------------------------------------------ group fairness
    def disparate_impact(self) -> float:
        """``Pr(Y_hat = 1 | unprivileged) / Pr(Y_hat = 1 | privileged)`` (on the predictions)."""
        return self.ratio(self.selection_rate)

    def statistical_parity_difference(self) -> float:
        """``Pr(Y_hat = 1 | unprivileged) - Pr(Y_hat = 1 | privileged)`` (on the predictions)."""
        return self.difference(self.selection_rate)

    def true_positive_rate_difference(self) -> float:
        return self.difference(self.true_positive_rate)

    def equal_opportunity_difference(self) -> float:
        """Alias of ``true_positive_rate_difference``."""
        return self.true_positive_rate_difference()

    def false_positive_rate_difference(self) -> float:
        return self.difference(self.false_positive_rate)

    def false_negative_rate_difference(self) -> float:
        return self.difference(self.false_negative_rate)

    def false_omission_rate_difference(self) -> float:
        return self.difference(self.false_omission_rate)

    def false_discovery_rate_difference(self) -> float:
        return self.difference(self.false_discovery_rate)

    def false_positive_rate_ratio(self) -> float:
        return self.ratio(self.false_positive_rate)

    def false_negative_rate_ratio(self) -> float:
        return self.ratio(self.false_negative_rate)

    def false_omission_rate_ratio(self) -> float:
        return self.ratio(self.false_omission_rate)

    def false_discovery_rate_ratio(self) -> float:
        return self.ratio(self.false_discovery_rate)

    def error_rate_difference(self) -> float:
        return self.difference(self.error_rate)

    def error_rate_ratio(self) -> float:
        return self.ratio(self.error_rate)

    def average_odds_difference(self) -> float:
        """``((FPR_u - FPR_p) + (TPR_u - TPR_p)) / 2``."""
        return 0.5 * (self.difference(self.false_positive_rate) + self.difference(self.true_positive_rate))

    def average_abs_odds_difference(self) -> float:
        """``(|FPR_u - FPR_p| + |TPR_u - TPR_p|) / 2``."""
        return 0.5 * (np.abs(self.difference(self.false_positive_rate))
                      + np.abs(self.difference(self.true_positive_rate)))

    def average_predictive_value_difference(self) -> float:
        """``((PPV_u - PPV_p) + (FOR_u - FOR_p)) / 2``."""
        return 0.5 * (self.difference(self.positive_predictive_value) + self.difference(self.false_omission_rate))

    def equalized_odds_difference(self) -> float:
        """``max(|FPR_u - FPR_p|, |TPR_u - TPR_p|)``."""
        return max(np.abs(self.difference(self.false_positive_rate)),
                   np.abs(self.difference(self.true_positive_rate)))

    # ------------------------------------------------------------------------------------------------ inequality
    def _check_unweighted(self, name):
        """AIF360's entropy indices count rows, ignoring ``instance_weights``; a weighted release has no row counts."""
        if self.weight_bound is not None:
            raise NotImplementedError(
                f"{type(self).__name__}.{name} is not available with weight_bound: AIF360 computes it over rows, "
                "ignoring instance_weights, and this object released weighted counts only (no row counts). Build "
                "a second object without weight_bound (instance_weights all 1) for it.")

    def generalized_entropy_index(self, alpha: float = 2) -> float:
        """AIF360's generalized entropy index of the benefits ``b = y_pred - y_true + 1`` of all rows, from the
        confusion counts (``FN`` rows have benefit 0, ``TP`` and ``TN`` 1, ``FP`` 2).
        """
        self._check_unweighted("generalized_entropy_index")
        return generalized_entropy(*benefit_distribution(self._table.sum(axis=0)), check_alpha(alpha))

    def theil_index(self) -> float:
        """The generalized entropy index with ``alpha = 1``."""
        return self.generalized_entropy_index(alpha=1)

    def coefficient_of_variation(self) -> float:
        """``sqrt(2 * generalized_entropy_index(alpha=2))``."""
        return np.sqrt(2 * self.generalized_entropy_index(alpha=2))

    def between_group_generalized_entropy_index(self, alpha: float = 2) -> float:
        """The generalized entropy index when every row's benefit is replaced by its condition's mean benefit, for
        the unprivileged and the privileged groups (0 for the rows in neither, as in AIF360).
        """
        self._check_unweighted("between_group_generalized_entropy_index")
        alpha = check_alpha(alpha)
        groups = np.stack([self._counts(False), self._counts(True)])
        rest = self._table[self._conditions.index("neither")].sum()
        return generalized_entropy(*between_group_distribution(groups, rest), alpha)

    def between_all_groups_generalized_entropy_index(self, alpha: float = 2) -> float:
        """The same with every declared intersection of protected-attribute values as a group (AIF360's groups:
        every combination of each attribute's privileged and unprivileged values, which cover every row).
        """
        self._check_unweighted("between_all_groups_generalized_entropy_index")
        alpha = check_alpha(alpha)
        if not self.intersections:
            self._observed_intersections("between_all_groups_*")                   # refuses, naming the option
        return generalized_entropy(*between_group_distribution(self._cell_table[:, :4], 0.0), alpha)

    def between_group_theil_index(self) -> float:
        """:meth:`between_group_generalized_entropy_index` with ``alpha = 1``."""
        return self.between_group_generalized_entropy_index(alpha=1)

    def between_group_coefficient_of_variation(self) -> float:
        """``sqrt(2 * between_group_generalized_entropy_index(alpha=2))``."""
        return np.sqrt(2 * self.between_group_generalized_entropy_index(alpha=2))

    def between_all_groups_theil_index(self) -> float:
        """:meth:`between_all_groups_generalized_entropy_index` with ``alpha = 1``."""
        return self.between_all_groups_generalized_entropy_index(alpha=1)

    def between_all_groups_coefficient_of_variation(self) -> float:
        """``sqrt(2 * between_all_groups_generalized_entropy_index(alpha=2))``."""
        return np.sqrt(2 * self.between_all_groups_generalized_entropy_index(alpha=2))

    # ------------------------------------------------------------------------------------------------ intersections
    def _observed_intersections(self, name):
        """The cells with released rows, in AIF360's order (its ``np.unique`` of the rows' protected attributes):
        AIF360's intersecting groups are those present in the data, here those with a positive released count.
        """
        if not self.intersections:
            raise ValueError(f"{name} needs the counts of every declared intersection of the protected attributes, "
                             "released only with intersections=True (the default): construct "
                             f"{type(self).__name__} with intersections=True.")
        order = np.lexsort(self._intersections.T[::-1])
        cells = self._cell_table[order, :4]
        return cells[cells.sum(axis=1) > 0]

    def smoothed_empirical_differential_fairness(self, concentration: float = 1.0) -> float:
        """AIF360's smoothed EDF of the true labels over the intersections with rows (Dirichlet smoothing)."""
        cells = self._observed_intersections("smoothed_empirical_differential_fairness")
        return smoothed_differential_fairness(cells[:, 2:].sum(axis=1), cells.sum(axis=1), concentration)

    def differential_fairness_bias_amplification(self, concentration: float = 1.0) -> float:
        """The smoothed EDF of the predictions minus that of the true labels (AIF360's definition)."""
        cells = self._observed_intersections("differential_fairness_bias_amplification")
        totals = cells.sum(axis=1)
        return (smoothed_differential_fairness(cells[:, [1, 3]].sum(axis=1), totals, concentration)
                - smoothed_differential_fairness(cells[:, 2:].sum(axis=1), totals, concentration))
