"""AIF360 faces of the DP score post-processors: calibrated equalized odds and reject option classification."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from aif360.metrics import utils as aif360_utils

from fairlearn_dp._utils import atomic_fit, check_dataset_features, check_real, check_seed, set_dataset_features
from fairlearn_dp._utils import validate_params as _validate
from fairlearn_dp.postprocessing._calibrated_eq_odds import DPCalibratedEqualizedOdds
from fairlearn_dp.postprocessing._reject_option import DPRejectOptionClassifier
from fairlearn_dp.privacy._random import check_random_state

from ..._glue import predict_seed
from ._dp_eq_odds import DPEqOddsPostprocessing

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset

__all__ = ["DPCalibratedEqOddsPostprocessing", "DPRejectOptionClassification"]

_PRIVILEGED, _UNPRIVILEGED = 0, 1


def _as_list(definition):
    """AIF360 accepts one ``{attribute: value}`` dict for a list of one."""
    return [definition] if isinstance(definition, dict) else definition


class _TwoGroupFace(Transformer):
    """The two-group reading of the faces (group definitions, schema, labels), as ``DPEqOddsPostprocessing``'s."""

    _favorable = staticmethod(DPEqOddsPostprocessing._favorable)

    def _check_schema(self, *datasets, names=("dataset_true", "dataset_pred")):
        DPEqOddsPostprocessing._check_schema(self._definitions(), *datasets, names=names)

    def _definitions(self):
        """The group definitions as lists, in the shape ``DPEqOddsPostprocessing``'s checks read."""
        return SimpleNamespace(privileged_groups=_as_list(self.privileged_groups),
                               unprivileged_groups=_as_list(self.unprivileged_groups))

    def _conditions(self, dataset):
        groups = self._definitions()
        privileged = aif360_utils.compute_boolean_conditioning_vector(
            dataset.protected_attributes, dataset.protected_attribute_names, groups.privileged_groups)
        unprivileged = aif360_utils.compute_boolean_conditioning_vector(
            dataset.protected_attributes, dataset.protected_attribute_names, groups.unprivileged_groups)
        return privileged, unprivileged

    def _check_public(self, model, dataset_true, dataset_pred):
        """The order of the faces: the group format, the engine's parameters, the datasets' schema, disjoint
        groups, the datasets' layout (row counts, one score column), then the budget; all before any row is read.
        """
        groups = self._definitions()
        DPEqOddsPostprocessing._check_group_format(groups)
        model.check_public_inputs(check_budget=False)
        self._check_schema(dataset_true, dataset_pred)
        DPEqOddsPostprocessing._check_disjoint_groups(groups)
        if dataset_true.labels.shape != dataset_pred.labels.shape:
            raise ValueError("dataset_true and dataset_pred must have the same number of instances.")
        if np.ndim(dataset_pred.scores) != 2 or np.shape(dataset_pred.scores)[1] != 1:
            raise ValueError("dataset_pred.scores must have one column.")
        model.check_public_inputs()

    def _read(self, dataset_true, dataset_pred):
        """``(scores, favorable labels, group indices)`` of the fitting rows (domain checks only)."""
        for name, dataset in (("dataset_true", dataset_true), ("dataset_pred", dataset_pred)):
            if not np.all(np.asarray(dataset.instance_weights) == 1):
                raise ValueError(f"{name}.instance_weights must all be 1 (a row's weight is not bounded).")
        privileged, unprivileged = self._conditions(dataset_pred)
        if not np.all(privileged | unprivileged):
            raise ValueError("Some rows belong to neither privileged_groups nor unprivileged_groups.")
        scores = np.asarray(dataset_pred.scores, dtype=float)
        return (scores[:, 0], self._favorable(dataset_true, "dataset_true"),
                np.where(privileged, _PRIVILEGED, _UNPRIVILEGED))


class DPCalibratedEqOddsPostprocessing(_TwoGroupFace):
    """Differentially private calibrated equalized odds, a drop-in for AIF360's ``CalibratedEqOddsPostprocessing``.

    Fits the two mixing rates of Pleiss et al. (2017) from one release of the per-(group, true label) row counts
    and score sums (the statistics behind AIF360's base rates and generalized FPR/FNR), then makes the private
    choice against the constant classifiers. With ``epsilon=numpy.inf`` the rates, scores and labels are AIF360's
    for the same ``seed``. The computation is delegated to the engine
    ``fairlearn_dp.postprocessing._calibrated_eq_odds.DPCalibratedEqualizedOdds``.

    Args:
        unprivileged_groups (dict or list(dict)): representation for the unprivileged group, as in AIF360.
        privileged_groups (dict or list(dict)): representation for the privileged group, as in AIF360.
        cost_constraint (str): "fpr", "fnr" or "weighted" (AIF360's).
        seed (int, optional): as AIF360's, seeds ``predict``'s draws (the same draws as AIF360's, from a private
            ``RandomState``, not numpy's global generator); a stream derived from it
            (``aif360_dp._glue.predict_seed``) seeds the release and the final choice. None: secure sources.
        epsilon (float): privacy budget (``numpy.inf`` for AIF360's result).
        delta (float): 0 for Laplace; > 0 for the analytic Gaussian.
        privacy_unit (str): "sensitive_attribute" (one person's group changes; scores and labels public, so the
            scores must not read the protected attribute) or "record" (one row substituted).
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``.

    Privacy: as the engine's: one release of the eight (group, label, {count, score sum}) sums, scores clipped to
    [0, 1], L1 sensitivity 4 (Laplace scale ``4 / epsilon_fit``), then the exponential-mechanism choice against
    the constants at ``epsilon_choice``; ``privacy_spent_`` holds the charge, ``constant_choice_`` the choice (a
    constant is warned, ``UtilityWarning``, and ``predict`` then returns it). Rows in neither group and weights
    other than 1 are refused. Derivation: docs/privacy_analysis/score_postprocessing.md.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from aif360.datasets import BinaryLabelDataset
        >>> from diffprivlib import BudgetAccountant
        >>> rng = np.random.default_rng(0)
        >>> a = (rng.random(2000) < 0.5).astype(float)
        >>> y = (rng.random(2000) < 0.3 + 0.3 * a).astype(float)
        >>> true = BinaryLabelDataset(df=pd.DataFrame({"a": a, "y": y}), label_names=["y"],
        ...                           protected_attribute_names=["a"])
        >>> pred = true.copy()
        >>> pred.scores = np.clip(0.25 + 0.5 * y + 0.3 * rng.standard_normal(2000), 0, 1).reshape(-1, 1)
        >>> pred.labels = (pred.scores > 0.5).astype(float)
        >>> cpp = DPCalibratedEqOddsPostprocessing([{"a": 0}], [{"a": 1}], cost_constraint="fnr", seed=0, epsilon=1.0,
        ...                                        accountant=BudgetAccountant()).fit(true, pred)
        >>> cpp.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
        >>> out = cpp.predict(pred)
        >>> out.scores.shape, bool(((out.scores >= 0) & (out.scores <= 1)).all())
        ((2000, 1), True)
    """

    def __init__(self, unprivileged_groups: list[dict] | dict, privileged_groups: list[dict] | dict,
                 cost_constraint: str = "weighted", seed: int | None = None, *, epsilon: float = 1.0,
                 delta: float = 0.0, privacy_unit: str = "sensitive_attribute", accountant: Any = None) -> None:
        super().__init__(unprivileged_groups=unprivileged_groups, privileged_groups=privileged_groups,
                         cost_constraint=cost_constraint, seed=seed, epsilon=epsilon, delta=delta,
                         privacy_unit=privacy_unit, accountant=accountant)
        self.unprivileged_groups = unprivileged_groups
        self.privileged_groups = privileged_groups
        self.cost_constraint = cost_constraint
        self.seed = seed
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.model_ = None

    @atomic_fit
    def fit(self, dataset_true: BinaryLabelDataset,
            dataset_pred: BinaryLabelDataset) -> DPCalibratedEqOddsPostprocessing:
        """Compute private mixing rates from the true labels and the predicted scores.

        Args:
            dataset_true (BinaryLabelDataset): dataset with the true labels.
            dataset_pred (BinaryLabelDataset): the same instances with the predicted ``scores``.

        Returns:
            DPCalibratedEqOddsPostprocessing: self.
        """
        _validate(self, {"seed": check_seed})
        model = DPCalibratedEqualizedOdds(self.cost_constraint, epsilon=self.epsilon, delta=self.delta,
                                          privacy_unit=self.privacy_unit, accountant=self.accountant,
                                          random_state=predict_seed(self.seed))
        self._check_public(model, dataset_true, dataset_pred)
        scores, labels, groups = self._read(dataset_true, dataset_pred)
        self.model_ = model.fit(scores, labels, sensitive_features=groups)
        self.priv_mix_rate, self.unpriv_mix_rate = (float(r) for r in model.mix_rates_)
        self.base_rate_priv, self.base_rate_unpriv = (float(r) for r in model.base_rates_)
        self.privacy_spent_ = model.privacy_spent_
        self.constant_choice_ = model.constant_choice_
        set_dataset_features(self, dataset_pred.feature_names)
        return self

    def predict(self, dataset: BinaryLabelDataset, threshold: float = 0.5) -> BinaryLabelDataset:
        """AIF360's procedure: in each group a row's score is replaced by the group's base rate with probability
        the group's mixing rate; labels are ``score >= threshold`` (rows in neither group get score 0, as in
        AIF360). When the constant was chosen, every score is that constant.

        Args:
            dataset (BinaryLabelDataset): dataset with the ``scores`` to transform.
            threshold (float): threshold from scores to labels (default 0.5).

        Returns:
            BinaryLabelDataset: transformed dataset.
        """
        if self.model_ is None:
            raise NotFittedError("DPCalibratedEqOddsPostprocessing must be fitted before predict.")
        check_real(threshold, "threshold")
        self._check_schema(dataset, names=("dataset",))
        check_dataset_features(self, dataset.feature_names)
        rng = np.random.RandomState(self.seed) if self.seed is not None else check_random_state(None)
        privileged, unprivileged = self._conditions(dataset)
        new = dataset.copy(deepcopy=True)
        new.scores = np.zeros_like(dataset.scores, dtype=np.float64)
        for condition, rate, base in ((unprivileged, self.unpriv_mix_rate, self.base_rate_unpriv),
                                      (privileged, self.priv_mix_rate, self.base_rate_priv)):
            replaced = rng.random_sample(int(np.sum(condition))) <= rate       # AIF360's draws, in its order
            scores = dataset.scores[condition].copy()
            scores[replaced] = base
            new.scores[condition] = scores
        if self.constant_choice_.is_constant:
            new.scores[:] = self.constant_choice_.constant
        new.labels = np.where(new.scores >= threshold, new.favorable_label, new.unfavorable_label)
        return new

    def fit_predict(self, dataset_true: BinaryLabelDataset, dataset_pred: BinaryLabelDataset,
                    threshold: float = 0.5) -> BinaryLabelDataset:
        """``fit`` then ``predict`` on ``dataset_pred``."""
        return self.fit(dataset_true, dataset_pred).predict(dataset_pred, threshold=threshold)


class DPRejectOptionClassification(_TwoGroupFace):
    """Differentially private reject option classification, a drop-in for AIF360's ``RejectOptionClassification``.

    Evaluates AIF360's grid of (classification threshold, ROC margin) settings, by balanced accuracy and the
    fairness metric, on one release of the (group, score interval, true label) histogram whose intervals are cut
    at every ``t + m`` and ``t - m``; chooses the setting by AIF360's rule on the released values; then makes the
    private choice against the constant classifiers. With ``epsilon=numpy.inf`` the chosen threshold and margin
    (hence the labels) are AIF360's. Delegates to
    ``fairlearn_dp.postprocessing._reject_option.DPRejectOptionClassifier``.

    Args:
        unprivileged_groups (list(dict)): representation for the unprivileged group, as in AIF360.
        privileged_groups (list(dict)): representation for the privileged group, as in AIF360.
        low_class_thresh (float): smallest classification threshold of the grid (AIF360's).
        high_class_thresh (float): largest classification threshold of the grid (AIF360's).
        num_class_thresh (int): number of thresholds (AIF360's).
        num_ROC_margin (int): number of ROC margins per threshold (AIF360's).
        metric_name (str): "Statistical parity difference", "Average odds difference" or "Equal opportunity
            difference".
        metric_ub (float): upper bound of the fairness constraint.
        metric_lb (float): lower bound of the fairness constraint (all checked in ``fit``, before the budget).
        epsilon (float): privacy budget (``numpy.inf`` for AIF360's result).
        delta (float): 0 for Laplace; > 0 for the analytic Gaussian.
        privacy_unit (str): "sensitive_attribute" (scores and labels public) or "record".
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``.
        seed (int, optional): seeds the release and the final choice (experiments only; AIF360's class has no
            randomness). None: a secure source.

    Privacy: as the engine's: one release of the histogram, L1 sensitivity 2 whatever the grid (Laplace scale
    ``2 / epsilon_fit`` per bin), every setting's metrics and the chosen setting post-processing, then the
    exponential-mechanism choice against the constants at ``epsilon_choice``. ``privacy_spent_`` holds the
    charge, ``constant_choice_`` the choice (a constant is warned, ``UtilityWarning``, and ``predict`` returns
    it). Derivation: docs/privacy_analysis/score_postprocessing.md.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from aif360.datasets import BinaryLabelDataset
        >>> from diffprivlib import BudgetAccountant
        >>> rng = np.random.default_rng(0)
        >>> a = (rng.random(2000) < 0.5).astype(float)
        >>> y = (rng.random(2000) < 0.3 + 0.3 * a).astype(float)
        >>> true = BinaryLabelDataset(df=pd.DataFrame({"a": a, "y": y}), label_names=["y"],
        ...                           protected_attribute_names=["a"])
        >>> pred = true.copy()
        >>> pred.scores = np.clip(0.25 + 0.5 * y + 0.3 * rng.standard_normal(2000), 0, 1).reshape(-1, 1)
        >>> pred.labels = (pred.scores > 0.5).astype(float)
        >>> roc = DPRejectOptionClassification([{"a": 0}], [{"a": 1}], num_class_thresh=20, num_ROC_margin=10,
        ...                                    epsilon=1.0, accountant=BudgetAccountant(), seed=0).fit(true, pred)
        >>> roc.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
        >>> bool(0.01 <= roc.classification_threshold <= 0.99), roc.predict(pred).labels.shape
        (True, (2000, 1))
    """

    def __init__(self, unprivileged_groups: list[dict], privileged_groups: list[dict],
                 low_class_thresh: float = 0.01, high_class_thresh: float = 0.99, num_class_thresh: int = 100,
                 num_ROC_margin: int = 50, metric_name: str = "Statistical parity difference",
                 metric_ub: float = 0.05, metric_lb: float = -0.05, *, epsilon: float = 1.0, delta: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(unprivileged_groups=unprivileged_groups, privileged_groups=privileged_groups,
                         low_class_thresh=low_class_thresh, high_class_thresh=high_class_thresh,
                         num_class_thresh=num_class_thresh, num_ROC_margin=num_ROC_margin, metric_name=metric_name,
                         epsilon=epsilon, delta=delta, privacy_unit=privacy_unit, accountant=accountant, seed=seed)
        self.unprivileged_groups = unprivileged_groups
        self.privileged_groups = privileged_groups
        self.low_class_thresh = low_class_thresh
        self.high_class_thresh = high_class_thresh
        self.num_class_thresh = num_class_thresh
        self.num_ROC_margin = num_ROC_margin
        self.metric_name = metric_name
        self.metric_ub = metric_ub
        self.metric_lb = metric_lb
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.seed = seed
        self.classification_threshold = None
        self.ROC_margin = None
        self.model_ = None

    @atomic_fit
    def fit(self, dataset_true: BinaryLabelDataset, dataset_pred: BinaryLabelDataset) -> DPRejectOptionClassification:
        """Choose the threshold and margin from one release.

        Args:
            dataset_true (BinaryLabelDataset): validation dataset with the true labels.
            dataset_pred (BinaryLabelDataset): the same instances with the predicted ``scores``.

        Returns:
            DPRejectOptionClassification: self.
        """
        _validate(self, {"seed": check_seed})
        names = ("low_class_thresh", "high_class_thresh", "num_class_thresh", "num_ROC_margin", "metric_name",
                 "metric_ub", "metric_lb", "epsilon", "delta", "privacy_unit", "accountant")
        model = DPRejectOptionClassifier(**{name: getattr(self, name) for name in names}, random_state=self.seed)
        self._check_public(model, dataset_true, dataset_pred)
        scores, labels, groups = self._read(dataset_true, dataset_pred)
        self.model_ = model.fit(scores, labels, sensitive_features=groups)
        self.classification_threshold = model.classification_threshold_
        self.ROC_margin = model.ROC_margin_
        self.privacy_spent_ = model.privacy_spent_
        self.constant_choice_ = model.constant_choice_
        set_dataset_features(self, dataset_pred.feature_names)
        return self

    def predict(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """AIF360's rule: favorable above the threshold, then in the critical region ``(t - m, t + m]`` the
        privileged rows unfavorable and the unprivileged ones favorable (every row the constant, when chosen).

        Args:
            dataset (BinaryLabelDataset): dataset with the ``scores``.

        Returns:
            BinaryLabelDataset: dataset with the new labels.
        """
        if self.model_ is None:
            raise NotFittedError("DPRejectOptionClassification must be fitted before predict.")
        self._check_schema(dataset, names=("dataset",))
        check_dataset_features(self, dataset.feature_names)
        t, m = self.classification_threshold, self.ROC_margin
        new = dataset.copy(deepcopy=False)
        labels = np.where(dataset.scores > t, dataset.favorable_label, dataset.unfavorable_label).astype(float)
        critical = (dataset.scores <= t + m) & (dataset.scores > t - m)
        privileged, unprivileged = self._conditions(dataset)
        labels[critical & privileged.reshape(-1, 1)] = dataset.unfavorable_label
        labels[critical & unprivileged.reshape(-1, 1)] = dataset.favorable_label
        if self.constant_choice_.is_constant:
            labels[:] = dataset.favorable_label if self.constant_choice_.constant >= 0.5 else dataset.unfavorable_label
        new.labels = labels
        return new

    def fit_predict(self, dataset_true: BinaryLabelDataset, dataset_pred: BinaryLabelDataset) -> BinaryLabelDataset:
        """``fit`` then ``predict`` on ``dataset_pred``."""
        return self.fit(dataset_true, dataset_pred).predict(dataset_pred)

