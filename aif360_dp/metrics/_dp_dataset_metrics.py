"""AIF360's ``BinaryLabelDatasetMetric`` and ``ClassificationMetric``, answered from one private release.

Every count-based metric of AIF360 is a function of a small table: per condition class (``privileged``: the rows
matching ``privileged_groups``, ``unprivileged``: those matching ``unprivileged_groups``, ``neither``: the rest),
the number of rows per label (dataset metric) or per (true label, predicted label) bin (classification metric).
The constructor releases that table once with :mod:`fairlearn_dp.metrics._frame_release` (the engine of
:class:`~fairlearn_dp.metrics.DPMetricFrame`: diffprivlib noise, L1 sensitivity 2 and L2 ``sqrt(2)`` for a table to
which each row adds a one-hot vector), charges the accountant once and post-processes the table to non-negative
counts that add up to the public totals. Every method then reads that table only; metrics that need anything else
(features, scores, per-row benefits, intersections of attribute values) raise ``NotImplementedError``.

Order of the constructor (the project's privacy contract): public parameters, then the datasets' schema (types,
attribute names, label values declared in the metadata), then the budget, then the rows (domain checks only, with
messages that quote no count and no value), the counts, one release, one charge, post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset
from aif360.metrics import utils as aif360_utils
from diffprivlib import BudgetAccountant

from .._glue import check_group_attributes
from fairlearn_dp.metrics._frame_release import (
    CONFUSION_COLUMNS,
    count_cells,
    post_process,
    public_totals,
    release_cells,
)
from fairlearn_dp.privacy import PrivacySpend, charge, check_spend, resolve_accountant, validate_epsilon_delta
from fairlearn_dp.privacy import issue_warnings_after_release, release_seeds
from fairlearn_dp.utils import check_bool, check_choice, check_seed

__all__ = ["DPBinaryLabelDatasetMetric", "DPClassificationMetric"]

_UNITS = ("sensitive_attribute", "record")
_CONDITIONS = ("privileged", "unprivileged", "neither")


# ---------------------------------------------------------------------------------------------------- checks
def _check_groups(groups, name):
    """``groups`` as a list of dicts (AIF360's format), or None; a ``ValueError``/``TypeError`` naming ``name``."""
    if groups is None:
        return None
    if isinstance(groups, dict):
        raise TypeError(f"{name} must be a list of dicts {{attribute: value}} (AIF360's format), got a dict: wrap "
                        "it in a list.")
    if not isinstance(groups, (list, tuple)) or not groups:
        raise ValueError(f"{name} must be None or a non-empty list of non-empty dicts {{attribute: value}}, got "
                         f"{groups!r}.")
    for group in groups:
        if not isinstance(group, dict) or not group or not all(isinstance(key, str) for key in group):
            raise ValueError(f"{name} must be a list of non-empty dicts {{attribute name: value}}, got {group!r} "
                             "in it.")
    return [dict(group) for group in groups]


def _check_disjoint(privileged, unprivileged):
    """Refuse definitions under which one row could match both conditions, from the definitions alone (public).

    A row matches a condition when it matches all of the attribute values of one of its dicts (AIF360's
    :func:`~aif360.metrics.utils.compute_boolean_conditioning_vector`). A privileged and an unprivileged dict can
    both match one row unless some attribute they share has different values in them.
    """
    if privileged is None or unprivileged is None:
        return
    for first in privileged:
        for second in unprivileged:
            if all(first[key] == second[key] for key in set(first) & set(second)):
                raise ValueError(f"privileged_groups and unprivileged_groups overlap: a row matching {first!r} can "
                                 f"also match {second!r} (they share no attribute with different values). Declare "
                                 "disjoint groups.")


def _check_dataset_type(dataset, name):
    if not isinstance(dataset, BinaryLabelDataset):
        raise TypeError(f"{name} must be an AIF360 BinaryLabelDataset, got {type(dataset).__name__}.")


def _check_schema(dataset, classified_dataset, groups):
    """The public schema: dataset types, the attributes the groups name, matching metadata of the two datasets."""
    _check_dataset_type(dataset, "dataset")
    for name, definition in groups.items():
        if definition is not None:
            check_group_attributes(dataset, definition, name, "dataset")
    if classified_dataset is None:
        return
    _check_dataset_type(classified_dataset, "classified_dataset")
    if list(classified_dataset.protected_attribute_names) != list(dataset.protected_attribute_names):
        raise ValueError("dataset and classified_dataset must have the same protected_attribute_names (they may "
                         "differ only in labels or scores).")
    for label in ("favorable_label", "unfavorable_label"):
        if getattr(classified_dataset, label) != getattr(dataset, label):
            raise ValueError(f"dataset and classified_dataset must have the same {label}.")


def _binary_labels(dataset, name):
    """The 0/1 vector ``label == favorable_label``; a domain error (no value quoted) for any other label."""
    labels = np.asarray(dataset.labels).ravel()
    favorable = labels == dataset.favorable_label
    if not np.all(favorable | (labels == dataset.unfavorable_label)):
        if np.isnan(labels.astype(float)).any():
            raise ValueError(f"{name} has missing labels (NaN).")
        raise ValueError(f"{name} has labels other than its favorable_label and unfavorable_label (binary labels "
                         "only).")
    return favorable.astype(np.int64)


def _check_unit_weights(dataset, name):
    if not np.all(np.asarray(dataset.instance_weights) == 1):
        raise ValueError(f"{name}.instance_weights must all be 1: one row must add one count to the released table "
                         "(weighted counts have no bounded sensitivity).")


def _check_same_rows(dataset, classified_dataset):
    """Both datasets describe the same instances: as many rows, the same protected attributes."""
    if (np.asarray(classified_dataset.labels).shape[0] != np.asarray(dataset.labels).shape[0]
            or classified_dataset.protected_attributes.shape != dataset.protected_attributes.shape):
        raise ValueError("dataset and classified_dataset must have the same number of instances.")
    if not np.array_equal(classified_dataset.protected_attributes, dataset.protected_attributes, equal_nan=True):
        raise ValueError("dataset and classified_dataset must have the same protected attributes (they may differ "
                         "only in labels or scores).")


def _division(numerator, denominator):
    """``numerator / denominator`` as AIF360 computes it (numpy floats: ``nan`` or ``inf`` when dividing by 0),
    without the warning.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float64(numerator) / np.float64(denominator)


def _share(numerator, denominator):
    """AIF360's convention for PPV, NPV, FDR, FOR and ACC: 0 when the denominator is not positive."""
    return _division(numerator, denominator) if denominator > 0.0 else np.float64(0.0)


def _unavailable(name, needs):
    """A method that refuses with ``NotImplementedError``: it needs more than the released table."""

    def method(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(
            f"{type(self).__name__}.{name} is not available: it needs {needs}, which the one differentially private "
            "release this object answers from (per-condition counts) does not contain, and it is never computed "
            "on the raw data.")

    method.__name__ = name
    method.__doc__ = f"Not available: needs {needs} (raises ``NotImplementedError``)."
    return method


# ---------------------------------------------------------------------------------------------------- dataset
class DPBinaryLabelDatasetMetric:
    """AIF360's :class:`~aif360.metrics.BinaryLabelDatasetMetric`, answered from one differentially private release.

    The constructor releases, once, the number of rows with each label in each condition class (``privileged``,
    ``unprivileged``, ``neither``), and every method answers from that released table, with AIF360's names,
    signatures and definitions (``privileged=None`` is the whole dataset, ``True`` the privileged groups, ``False``
    the unprivileged ones; differences are unprivileged minus privileged, ratios unprivileged over privileged).
    Metrics that are not functions of these counts (``consistency``, ``smoothed_empirical_differential_fairness``,
    ``rich_subgroup``) raise ``NotImplementedError``. Not a subclass of AIF360's class (whose inherited methods
    would read the raw data); the dataset itself is not kept.

    Parameters
    ----------
    dataset : aif360.datasets.BinaryLabelDataset
        Labels equal to its ``favorable_label`` or ``unfavorable_label``; ``instance_weights`` all 1.
    unprivileged_groups, privileged_groups : list of dict, optional
        AIF360's group definitions: a row matches when it has all the values of one of the dicts. They must be
        disjoint by definition (some shared attribute with different values in every pair of dicts). None: no such
        condition (then ``privileged=False``/``True`` raises ``AttributeError``, as in AIF360).
    epsilon : float, default=1.0
        Privacy budget of the release (``numpy.inf``: exact counts, no noise, charged ``(inf, 0)``).
    delta : float, default=0.0
        0: Laplace noise (pure DP); > 0: analytic Gaussian noise.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        What neighbouring datasets differ in (see Privacy).
    accountant : diffprivlib.BudgetAccountant, optional
        Charged ``(epsilon, delta)`` once (diffprivlib's default accountant when None).
    random_state : None, int or numpy.random.RandomState
        Seeds the release (experiments only). None: a secure source.

    Attributes
    ----------
    released_counts_ : pandas.DataFrame
        The post-processed table every method reads: one row per condition class, the columns ``negatives``,
        ``positives`` (the classification metric: ``tn, fp, fn, tp``).
    privacy_spent_ : fairlearn_dp.privacy.PrivacySpend
        What the release charged.
    noise_scale_, noise_sd_ : float
        The mechanism's scale (Laplace ``b = 2 / epsilon`` or the Gaussian's ``sigma``) and the noise's standard
        deviation per count (0 at ``epsilon = inf``).
    privileged_groups, unprivileged_groups : list of dict or None
        The group definitions.

    Privacy
    -------
    - Relation: ``"sensitive_attribute"`` -- one person's protected attributes changed (labels public);
      ``"record"`` -- one row substituted (the number of rows public).
    - Released: the (condition class x label) table of counts; nothing else is computed from the data.
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, one charge of ``(epsilon, delta)``.
    - Sensitivity: each row adds a one-hot vector to the table, so a changed row moves one count from one cell to
      another: L1 2, L2 ``sqrt(2)`` (Laplace scale ``2 / epsilon`` per count). Derivation:
      ``fairlearn_dp/metrics/_frame_release.py``.
    - Public inputs: the group definitions, the schema and label metadata of the dataset, the number of rows; under
      ``"sensitive_attribute"`` also the labels, so the per-label totals are exact and ``privileged=None`` values
      are exact.
    """

    _COLUMNS = ("negatives", "positives")
    _NEGATIVES, _POSITIVES = (0,), (1,)

    @issue_warnings_after_release(result="self")
    def __init__(self, dataset: BinaryLabelDataset, unprivileged_groups: list[dict] | None = None,
                 privileged_groups: list[dict] | None = None, *, epsilon: float = 1.0, delta: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        # The table's columns are the labels, public under "sensitive_attribute": every column total is public.
        self._release(dataset, None, unprivileged_groups, privileged_groups, epsilon=epsilon, delta=delta,
                      privacy_unit=privacy_unit, accountant=accountant, random_state=random_state,
                      public_columns=True)

    # ------------------------------------------------------------------------------------------------ release
    def _release(self, dataset, classified_dataset, unprivileged_groups, privileged_groups, *, epsilon, delta,
                 privacy_unit, accountant, random_state, public_columns):
        # 1. public parameters (a typo never costs epsilon)
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        public_columns = check_bool(public_columns, "public_predictions")
        unit = check_choice(privacy_unit, "privacy_unit", _UNITS)
        check_seed(random_state)
        accountant = resolve_accountant(accountant)
        groups = {"privileged_groups": _check_groups(privileged_groups, "privileged_groups"),
                  "unprivileged_groups": _check_groups(unprivileged_groups, "unprivileged_groups")}
        _check_schema(dataset, classified_dataset, groups)          # public schema: types, names, label metadata
        _check_disjoint(groups["privileged_groups"], groups["unprivileged_groups"])    # after: names a missing one
        # 2. the budget, before any row is read
        spend = PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)
        check_spend(accountant, spend)
        # 3. the rows (domain checks only) and 4. the counts
        self.privileged_groups = groups["privileged_groups"]
        self.unprivileged_groups = groups["unprivileged_groups"]
        self._conditions = tuple(c for c in _CONDITIONS if c == "neither" or groups[f"{c}_groups"] is not None)
        exact = self._count(dataset, classified_dataset)
        # 5. one release, one charge
        noisy, self.noise_scale_, self.noise_sd_ = release_cells(
            exact, kind="classification", epsilon=epsilon, delta=delta,
            random_state=release_seeds(random_state, 1)[0])
        self.privacy_spent_ = charge(accountant, spend)
        # 6. post-processing only from here: released values and public totals
        self._noisy = noisy                       # the raw release (before post-processing), for diagnostics
        totals = public_totals(exact[None], kind="classification", unit=unit, public_predictions=public_columns)
        self._table = post_process(noisy[None], kind="classification", unit=unit, totals=totals, n=exact.sum(),
                                   public_predictions=public_columns)[0]
        self.privacy_unit = unit
        self.released_counts_ = pd.DataFrame(self._table, index=pd.Index(self._conditions, name="condition"),
                                             columns=list(self._COLUMNS))

    def _cells(self, dataset):
        """Each row's condition class, as an index into ``self._conditions``."""
        attributes, names = dataset.protected_attributes, list(dataset.protected_attribute_names)
        cells = np.full(attributes.shape[0], self._conditions.index("neither"), dtype=np.int64)
        for condition, groups in (("privileged", self.privileged_groups),
                                  ("unprivileged", self.unprivileged_groups)):
            if groups is not None:
                mask = aif360_utils.compute_boolean_conditioning_vector(attributes, names, groups)
                cells[mask] = self._conditions.index(condition)
        return cells

    def _count(self, dataset, classified_dataset):
        """The exact ``(conditions, negatives / positives)`` table (one-hot per row)."""
        labels = _binary_labels(dataset, "dataset")
        _check_unit_weights(dataset, "dataset")
        table = count_cells(self._cells(dataset), len(self._conditions), labels=(labels, labels))
        return table[:, [0, 3]]                    # (tn, tp) of y_pred := y_true: negatives, positives

    # ------------------------------------------------------------------------------------------------ reading
    def _counts(self, privileged):
        """The released counts of a condition: all rows (None), the privileged (True) or unprivileged (False)."""
        if privileged is None:
            return self._table.sum(axis=0)
        condition = "privileged" if privileged else "unprivileged"
        if condition not in self._conditions:
            raise AttributeError(f"'{condition}_groups' was not provided when this object was initialized.")
        return self._table[self._conditions.index(condition)]

    def _sum(self, privileged, columns):
        return np.float64(self._counts(privileged)[list(columns)].sum())

    def difference(self, metric_fun: Callable[..., float]) -> float:
        """``metric_fun(privileged=False) - metric_fun(privileged=True)``."""
        return metric_fun(privileged=False) - metric_fun(privileged=True)

    def ratio(self, metric_fun: Callable[..., float]) -> float:
        """``metric_fun(privileged=False) / metric_fun(privileged=True)``."""
        return _division(metric_fun(privileged=False), metric_fun(privileged=True))

    def num_instances(self, privileged: bool | None = None) -> float:
        """Number of instances, optionally conditioned on the privileged (True) or unprivileged (False) groups."""
        return np.float64(self._counts(privileged).sum())

    def num_positives(self, privileged: bool | None = None) -> float:
        """Number of instances whose (true) label is the favorable one."""
        return self._sum(privileged, self._POSITIVES)

    def num_negatives(self, privileged: bool | None = None) -> float:
        """Number of instances whose (true) label is the unfavorable one."""
        return self._sum(privileged, self._NEGATIVES)

    def base_rate(self, privileged: bool | None = None) -> float:
        """``Pr(Y = 1) = P / (P + N)``, optionally conditioned."""
        return _division(self.num_positives(privileged=privileged), self.num_instances(privileged=privileged))

    def disparate_impact(self) -> float:
        """``Pr(Y = 1 | unprivileged) / Pr(Y = 1 | privileged)``."""
        return self.ratio(self.base_rate)

    def statistical_parity_difference(self) -> float:
        """``Pr(Y = 1 | unprivileged) - Pr(Y = 1 | privileged)``."""
        return self.difference(self.base_rate)

    def mean_difference(self) -> float:
        """Alias of :meth:`statistical_parity_difference` (as in AIF360)."""
        return self.statistical_parity_difference()

    consistency = _unavailable("consistency", "the features of every row (nearest neighbours)")
    smoothed_empirical_differential_fairness = _unavailable(
        "smoothed_empirical_differential_fairness",
        "counts for every intersection of protected-attribute values, not only the two declared conditions")
    rich_subgroup = _unavailable("rich_subgroup", "per-row predictions and protected attributes (an auditor fit)")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(privileged_groups={self.privileged_groups!r}, unprivileged_groups="
                f"{self.unprivileged_groups!r}, privacy_unit={self.privacy_unit!r}, "
                f"privacy_spent={self.privacy_spent_})")


# ---------------------------------------------------------------------------------------------------- classification
class DPClassificationMetric(DPBinaryLabelDatasetMetric):
    """AIF360's :class:`~aif360.metrics.ClassificationMetric`, answered from one differentially private release.

    The constructor releases, once, the confusion counts (true label x predicted label) of each condition class
    (``privileged``, ``unprivileged``, ``neither``), and every method answers from that released table, with
    AIF360's names, signatures and definitions: the dataset methods (``num_positives``, ``base_rate``, ...) on the
    true labels of ``dataset``; ``selection_rate``, ``disparate_impact``, ``statistical_parity_difference`` (and
    ``mean_difference``) on the predictions, as AIF360's class does; differences are unprivileged minus privileged,
    ratios unprivileged over privileged. Metrics that are not functions of these counts (the generalized,
    score-based ones, the entropy indices, ``differential_fairness_bias_amplification``, ``consistency``, ...)
    raise ``NotImplementedError``.

    Parameters
    ----------
    dataset : aif360.datasets.BinaryLabelDataset
        The true labels (its ``favorable_label`` / ``unfavorable_label`` only); ``instance_weights`` all 1.
    classified_dataset : aif360.datasets.BinaryLabelDataset
        The same instances (same protected attributes and label metadata) with the predicted labels.
    unprivileged_groups, privileged_groups : list of dict, optional
        AIF360's group definitions, disjoint by definition (see :class:`DPBinaryLabelDatasetMetric`).
    epsilon : float, default=1.0
        Privacy budget of the release (``numpy.inf``: exact counts, no noise, charged ``(inf, 0)``).
    delta : float, default=0.0
        0: Laplace noise (pure DP); > 0: analytic Gaussian noise.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
    public_predictions : bool, default=False
        True declares that the predicted labels do not depend on the protected attributes, so their totals
        are public under ``"sensitive_attribute"`` (see Privacy).
        What neighbouring datasets differ in (see Privacy).
    accountant : diffprivlib.BudgetAccountant, optional
        Charged ``(epsilon, delta)`` once (diffprivlib's default accountant when None).
    random_state : None, int or numpy.random.RandomState
        Seeds the release (experiments only). None: a secure source.

    Attributes
    ----------
    released_counts_ : pandas.DataFrame
        The post-processed table every method reads: one row per condition class, the columns ``tn, fp, fn, tp``.
    privacy_spent_ : fairlearn_dp.privacy.PrivacySpend
        What the release charged.
    noise_scale_, noise_sd_ : float
        The mechanism's scale (Laplace ``b = 2 / epsilon`` or the Gaussian's ``sigma``) and the noise's standard
        deviation per count (0 at ``epsilon = inf``).
    privileged_groups, unprivileged_groups : list of dict or None
        The group definitions.

    Privacy
    -------
    - Relation: ``"sensitive_attribute"`` -- one person's protected attributes changed (and with them, possibly,
      their predicted label); ``"record"`` -- one row substituted, with its true and predicted label (the number of rows public).
    - Released: the (condition class x confusion bin) table of counts; nothing else is computed from the data.
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, one charge of ``(epsilon, delta)``.
    - Sensitivity: each row adds the one-hot vector of its confusion bin to its condition class, so a changed row
      moves one count from one cell to another: L1 2, L2 ``sqrt(2)`` (Laplace scale ``2 / epsilon`` per count).
      Derivation: ``fairlearn_dp/metrics/_frame_release.py``.
    - Public inputs: the group definitions, the schema and label metadata of the datasets, the number of rows;
      under ``"sensitive_attribute"`` also the true labels (their totals are kept exactly), and the predictions
      with ``public_predictions=True`` (then every confusion bin's total and the ``privileged=None`` values are
      exact). Leave it False when the predictions depend on the protected attributes (e.g. AIF360's
      ``EqOddsPostprocessing``, or fairdp's ``DPEqOddsPostprocessing``).
    """

    _COLUMNS = CONFUSION_COLUMNS
    _NEGATIVES, _POSITIVES = (0, 1), (2, 3)              # true label: (tn, fp) unfavorable, (fn, tp) favorable

    @issue_warnings_after_release(result="self")
    def __init__(self, dataset: BinaryLabelDataset, classified_dataset: BinaryLabelDataset,
                 unprivileged_groups: list[dict] | None = None, privileged_groups: list[dict] | None = None, *,
                 epsilon: float = 1.0, delta: float = 0.0, privacy_unit: str = "sensitive_attribute",
                 public_predictions: bool = False, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self._release(dataset, classified_dataset, unprivileged_groups, privileged_groups, epsilon=epsilon,
                      delta=delta, privacy_unit=privacy_unit, accountant=accountant, random_state=random_state,
                      public_columns=public_predictions)

    def _count(self, dataset, classified_dataset):
        """The exact ``(conditions, (tn, fp, fn, tp))`` table."""
        _check_same_rows(dataset, classified_dataset)
        y_true = _binary_labels(dataset, "dataset")
        y_pred = _binary_labels(classified_dataset, "classified_dataset")
        _check_unit_weights(dataset, "dataset")
        _check_unit_weights(classified_dataset, "classified_dataset")
        return count_cells(self._cells(dataset), len(self._conditions), labels=(y_true, y_pred))

    # ------------------------------------------------------------------------------------------------ counts
    def binary_confusion_matrix(self, privileged: bool | None = None) -> dict:
        """``{"TP", "FP", "TN", "FN"}`` counts, optionally conditioned."""
        tn, fp, fn, tp = (np.float64(value) for value in self._counts(privileged))
        return dict(TP=tp, FP=fp, TN=tn, FN=fn)

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

    # ------------------------------------------------------------------------------------------------ rates
    def performance_measures(self, privileged: bool | None = None) -> dict:
        """``TPR, TNR, FPR, FNR, PPV, NPV, FDR, FOR, ACC`` (AIF360's definitions; its generalized, score-based
        measures are not available).
        """
        counts = self.binary_confusion_matrix(privileged=privileged)
        tp, fp, tn, fn = counts["TP"], counts["FP"], counts["TN"], counts["FN"]
        positives, negatives = tp + fn, tn + fp
        return dict(TPR=_division(tp, positives), TNR=_division(tn, negatives), FPR=_division(fp, negatives),
                    FNR=_division(fn, positives), PPV=_share(tp, tp + fp), NPV=_share(tn, tn + fn),
                    FDR=_share(fp, fp + tp), FOR=_share(fn, fn + tn), ACC=_share(tp + tn, positives + negatives))

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


_SCORES = "the scores of classified_dataset (generalized confusion counts)"
_BENEFITS = "every row's benefit (its true and predicted label, row by row)"
for _name, _needs in (
        ("generalized_binary_confusion_matrix", _SCORES), ("num_generalized_true_positives", _SCORES),
        ("num_generalized_false_positives", _SCORES), ("num_generalized_false_negatives", _SCORES),
        ("num_generalized_true_negatives", _SCORES), ("generalized_true_positive_rate", _SCORES),
        ("generalized_false_positive_rate", _SCORES), ("generalized_false_negative_rate", _SCORES),
        ("generalized_true_negative_rate", _SCORES), ("generalized_equalized_odds_difference", _SCORES),
        ("generalized_entropy_index", _BENEFITS), ("theil_index", _BENEFITS),
        ("coefficient_of_variation", _BENEFITS), ("between_group_generalized_entropy_index", _BENEFITS),
        ("between_all_groups_generalized_entropy_index", _BENEFITS), ("between_group_theil_index", _BENEFITS),
        ("between_group_coefficient_of_variation", _BENEFITS), ("between_all_groups_theil_index", _BENEFITS),
        ("between_all_groups_coefficient_of_variation", _BENEFITS),
        ("differential_fairness_bias_amplification",
         "counts for every intersection of protected-attribute values, for labels and predictions")):
    setattr(DPClassificationMetric, _name, _unavailable(_name, _needs))
del _name, _needs
