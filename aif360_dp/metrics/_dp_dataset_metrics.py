"""AIF360's ``BinaryLabelDatasetMetric``, answered from one private release; the release both metric classes share.

Every count-based metric of AIF360 is a function of a small table: per condition class (``privileged``: the rows
matching ``privileged_groups``, ``unprivileged``: those matching ``unprivileged_groups``, ``neither``: the rest),
the number of rows per label (dataset metric) or per (true label, predicted label) bin (classification metric,
:mod:`._dp_classification_metric`, which releases it per intersection of protected-attribute values).
The constructor releases that table once with :mod:`fairlearn_dp.metrics._frame_release` (the engine of
:class:`~fairlearn_dp.metrics.DPMetricFrame`: diffprivlib noise, L1 sensitivity 2 and L2 ``sqrt(2)`` for a table to
which each row adds a one-hot vector), charges the accountant once and post-processes the table to non-negative
counts that add up to the public totals. Every method then reads that table only; metrics that need anything else
(features, intersections of attribute values) raise ``NotImplementedError``.

Order of the constructor (the project's privacy contract): public parameters, then the datasets' schema (types,
attribute names, label values declared in the metadata), then the budget, then the rows (domain checks only, with
messages that quote no count and no value), the counts, one release, one charge, post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from aif360.datasets import BinaryLabelDataset
from aif360.datasets.multiclass_label_dataset import MulticlassLabelDataset
from aif360.metrics import utils as aif360_utils
from diffprivlib import BudgetAccountant

from fairlearn_dp._utils import check_bool, check_choice, check_real, check_seed
from fairlearn_dp.metrics._frame_release import count_cells, post_process, public_totals, release_cells
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._accountant import charge, check_spend, resolve_accountant, validate_epsilon_delta
from fairlearn_dp.privacy._post_release import issue_warnings_after_release
from fairlearn_dp.privacy._random import release_seeds

from ._checks import (
    _binary_labels,
    _check_disjoint,
    _check_groups,
    _check_schema,
    _division,
    _row_weights,
    _unavailable,
)

__all__ = ["DPBinaryLabelDatasetMetric"]

_UNITS = ("sensitive_attribute", "record")
_CONDITIONS = ("privileged", "unprivileged", "neither")


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
    dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
        Labels equal to (one of) its ``favorable_label`` or ``unfavorable_label`` values (a multiclass dataset's
        favorable values are one class, as in AIF360); ``instance_weights`` all 1, or each in ``[0, weight_bound]``.
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
    weight_bound : float, optional
        The public bound ``B`` of ``instance_weights`` (a reweighted dataset, e.g. after AIF360's ``Reweighing``):
        a weight above ``B`` is clipped to it (a negative one is refused before the release), each row adds its weight
        to its cell as AIF360's metrics do, and the sensitivity is multiplied by ``B``; the weighted totals are not
        public, so nothing is kept exact. None: the weights must all be 1.

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
    >>> metric = DPBinaryLabelDatasetMetric(data, [{"a": 0}], [{"a": 1}], epsilon=1.0,
    ...                                     accountant=BudgetAccountant(), random_state=0)
    >>> metric.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> bool(metric.base_rate() == y.mean())          # the labels are public: the per-label totals are exact
    True
    >>> bool(abs(metric.statistical_parity_difference() - (y[a == 0].mean() - y[a == 1].mean())) < 0.05)
    True
    """

    _COLUMNS = ("negatives", "positives")
    _NEGATIVES, _POSITIVES = (0,), (1,)

    @issue_warnings_after_release(result="self")
    def __init__(self, dataset: BinaryLabelDataset | MulticlassLabelDataset,
                 unprivileged_groups: list[dict] | None = None, privileged_groups: list[dict] | None = None, *,
                 epsilon: float = 1.0, delta: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None, weight_bound: float | None = None) -> None:
        # The table's columns are the labels, public under "sensitive_attribute": every column total is public.
        self._release(dataset, None, unprivileged_groups, privileged_groups, epsilon=epsilon, delta=delta,
                      privacy_unit=privacy_unit, accountant=accountant, random_state=random_state,
                      public_columns=True, weight_bound=weight_bound)

    # ------------------------------------------------------------------------------------------------ release
    def _release(self, dataset, classified_dataset, unprivileged_groups, privileged_groups, *, epsilon, delta,
                 privacy_unit, accountant, random_state, public_columns, bounded_scores=False, weight_bound=None):
        # 1. public parameters (a typo never costs epsilon)
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        self.weight_bound = check_real(weight_bound, "weight_bound", low=0, low_open=True, allow_none=True)
        public_columns = check_bool(public_columns, "public_predictions")
        self._bounded_scores = check_bool(bounded_scores, "bounded_scores")
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
        noisy, self.noise_scale_, self.noise_sd_ = self._randomise(exact, epsilon, delta,
                                                                   release_seeds(random_state, 1)[0])
        self.privacy_spent_ = charge(accountant, spend)
        # 6. post-processing only from here: released values and public totals
        self._noisy = noisy                       # the raw release (before post-processing), for diagnostics
        self._table = self._post_process(noisy, exact, unit, public_columns)
        self.privacy_unit = unit
        self.released_counts_ = pd.DataFrame(self._table, index=pd.Index(self._conditions, name="condition"),
                                             columns=list(self._COLUMNS))

    def _randomise(self, exact, epsilon, delta, seed):
        """``(noisy table, noise scale, noise sd)``: the one release (L1 2, L2 ``sqrt(2)``: one-hot rows; times
        ``weight_bound`` for weighted rows).
        """
        return release_cells(exact, kind="classification", epsilon=epsilon, delta=delta, random_state=seed,
                             weight_bound=self.weight_bound or 1.0)

    def _post_process(self, noisy, exact, unit, public_columns):
        """The consistent per-condition table from the release and the public totals (only public sums of
        ``exact`` are read: see :func:`~fairlearn_dp.metrics._frame_release.public_totals`).
        """
        weighted = self.weight_bound is not None              # weighted totals are not public (see Privacy)
        totals = public_totals(exact[None], kind="classification", unit=unit, public_predictions=public_columns,
                               weighted=weighted)
        return post_process(noisy[None], kind="classification", unit=unit, totals=totals, n=exact.sum(),
                            public_predictions=public_columns, weighted=weighted)[0]

    def _cells(self, attributes, names):
        """Each row of ``attributes`` (protected attributes named ``names``): its condition class, as an index into
        ``self._conditions``.
        """
        cells = np.full(attributes.shape[0], self._conditions.index("neither"), dtype=np.int64)
        for condition, groups in (("privileged", self.privileged_groups),
                                  ("unprivileged", self.unprivileged_groups)):
            if groups is not None:
                mask = aif360_utils.compute_boolean_conditioning_vector(attributes, list(names), groups)
                cells[mask] = self._conditions.index(condition)
        return cells

    def _count(self, dataset, classified_dataset):
        """The exact ``(conditions, negatives / positives)`` table (one-hot per row)."""
        labels = _binary_labels(dataset, "dataset")
        weights = _row_weights(dataset, "dataset", self.weight_bound)
        cells = self._cells(dataset.protected_attributes, dataset.protected_attribute_names)
        table = count_cells(cells, len(self._conditions), labels=(labels, labels), weights=weights)
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
        "counts for every intersection of protected-attribute values, not only the two declared conditions "
        "(DPClassificationMetric(dataset, dataset, ...) releases them)")
    rich_subgroup = _unavailable("rich_subgroup", "per-row predictions and protected attributes (an auditor fit)")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(privileged_groups={self.privileged_groups!r}, unprivileged_groups="
                f"{self.unprivileged_groups!r}, privacy_unit={self.privacy_unit!r}, "
                f"privacy_spent={self.privacy_spent_})")
