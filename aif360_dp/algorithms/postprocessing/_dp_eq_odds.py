"""AIF360 face of the DP equalized-odds post-processor (Jagielski et al. 2019, Alg. 1)."""

from __future__ import annotations

import functools
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from aif360.metrics import utils as aif360_utils

from fairlearn_dp._utils import (
    atomic_fit,
    check_dataset_features,
    check_real,
    check_seed,
    set_dataset_features,
    validate_params,
)
from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions
from fairlearn_dp.privacy._accountant import validate_epsilon_delta

from ..._glue import check_group_attributes, predict_seed

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset

__all__ = ["DPEqOddsPostprocessing"]

_PRIVILEGED, _UNPRIVILEGED = 0, 1      # group indices in the engine; the privileged group is the LP's anchor


class DPEqOddsPostprocessing(Transformer):
    """Differentially private equalized-odds post-processing, a drop-in for AIF360's ``EqOddsPostprocessing``.

    Solves the same linear program as AIF360's ``EqOddsPostprocessing`` (mixing probabilities
    ``P(y_tilde = 1 | y_hat, group)`` for the privileged and unprivileged groups, minimising ``sum_g (FPR_g -
    TPR_g)`` under equal odds) but on Laplace-noised statistics, as Jagielski et al. (2019), Alg. 1, with equal odds
    enforced on the released statistics (without the paper's confidence slack, ``DPThresholdOptimizer``'s default),
    so that the fitted mixing rates are epsilon-DP. With ``epsilon=numpy.inf`` (and
    ``gamma=0``) the mixing rates equal AIF360's on the same data. The computation is delegated to
    :class:`fairlearn_dp.postprocessing.DPThresholdOptimizer` (binary predictions, ``flip=True``).

    Args:
        unprivileged_groups (list(dict)): representation for the unprivileged group, as in AIF360.
        privileged_groups (list(dict)): representation for the privileged group, as in AIF360.
        seed (int, optional): seeds the privacy noise of ``fit`` and, through a separate stream, the flips of
            ``predict`` (for experiments; a seeded release is not secure).
        epsilon (float): privacy budget (> 0; ``numpy.inf`` for AIF360's non-private result).
        delta (float): 0 for pure DP (Laplace); > 0 for the analytic Gaussian mechanism.
        gamma (float): fairness tolerance on the FPR and TPR gaps (AIF360 asks exact equality: 0).
        privacy_unit (str): "sensitive_attribute" (one person's protected attribute changes; labels and
            predictions public) or "record" (one whole record changes).
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        options (fairlearn_dp.postprocessing.ThresholdOptimizerOptions, optional): the engine's expert settings
            (the confidence ``beta`` in (0, 1) of the noise bounds on the private rates, ``model_.rate_error_``;
            Jagielski et al.'s ``privacy_slack`` on the constraints; the mixing LP's ``solver``); None: defaults.

    Privacy: as :class:`fairlearn_dp.postprocessing.DPThresholdOptimizer`: the released statistic is the joint
    table of (predicted label, group, true label) over the rows of the two groups, L1 sensitivity 2/m, Laplace
    noise of scale 2/(m epsilon) per cell; everything else is post-processing. Rows that belong to neither group
    are rejected (AIF360 silently ignores them). After ``fit``, ``privacy_spent_`` holds the charge and
    ``disparity_bound_`` how wide the guarantee is: for "fpr" and "tpr", a ``GuaranteeBound(bound, groups, beta)``
    (the engine's ``disparity_bound_``, groups named "privileged" and "unprivileged"): with probability >= 1 - beta
    the fitted post-processor's gap on the fitting data is at most ``bound``. It is an attribute, not a warning;
    ``fit`` warns (``fairlearn_dp.exceptions.FairnessWarning``) only when the constraint cannot bind.
    ``constant_choice_`` (the engine's) records the final choice against the constant classifiers, which the LP
    makes on the released table at no extra cost (its feasible set holds them); a constant rule is warned
    (``UtilityWarning``).

    Failure paths: the parameters, then the datasets' schema (AIF360 datasets that have every attribute the group
    definitions name), then the accountant's budget are checked before any row is read; the data checks are domain
    checks (labels other than the favorable/unfavorable ones, rows in neither declared group) without
    counts or values; a group without rows or without one label fits; a fit that raises leaves the transformer as
    it was.

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
        >>> eop = DPEqOddsPostprocessing([{"a": 0}], [{"a": 1}], seed=0, epsilon=1.0,
        ...                              accountant=BudgetAccountant()).fit(true, pred)
        >>> eop.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
        >>> out = eop.predict(pred)
        >>> out.labels.shape, bool(np.isin(out.labels, [0.0, 1.0]).all())
        ((2000, 1), True)
    """

    def __init__(self, unprivileged_groups: list[dict], privileged_groups: list[dict], seed: int | None = None, *,
                 epsilon: float = 1.0, delta: float = 0.0, gamma: float = 0.0,
                 privacy_unit: str = "sensitive_attribute", accountant: Any = None,
                 options: ThresholdOptimizerOptions | None = None) -> None:
        super().__init__(unprivileged_groups=unprivileged_groups, privileged_groups=privileged_groups, seed=seed,
                         epsilon=epsilon, delta=delta, gamma=gamma, privacy_unit=privacy_unit,
                         accountant=accountant, options=options)
        self.unprivileged_groups = unprivileged_groups
        self.privileged_groups = privileged_groups
        self.seed = seed
        self.epsilon = epsilon
        self.delta = delta
        self.gamma = gamma
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.options = options
        self.model_params = None

    def _groups(self, dataset):
        privileged = aif360_utils.compute_boolean_conditioning_vector(
            dataset.protected_attributes, dataset.protected_attribute_names, self.privileged_groups)
        unprivileged = aif360_utils.compute_boolean_conditioning_vector(
            dataset.protected_attributes, dataset.protected_attribute_names, self.unprivileged_groups)
        if not np.all(privileged | unprivileged):
            raise ValueError("Some rows belong to neither privileged_groups nor unprivileged_groups.")
        return np.where(privileged, _PRIVILEGED, _UNPRIVILEGED)

    def _check_group_format(self):
        """Both group definitions are AIF360's non-empty lists of non-empty ``{attribute: value}`` dicts."""
        for name, definition in (("privileged_groups", self.privileged_groups),
                                 ("unprivileged_groups", self.unprivileged_groups)):
            if (not isinstance(definition, (list, tuple)) or not definition
                    or not all(isinstance(d, dict) and d for d in definition)):
                raise ValueError(f"{name} must be a non-empty list of non-empty dicts {{attribute: value}}, got "
                                 f"{definition!r}.")

    def _check_disjoint_groups(self):
        """Refuse group definitions that can overlap, from the definitions alone (public, before any row is read).

        AIF360 puts a row in a group when it matches any of the group's dicts (all of a dict's attribute values).
        A privileged and an unprivileged dict can both match one row unless they require different values of some
        attribute they share; such a pair is a misconfiguration whatever the data. (Checking the rows instead would
        make the error depend on whether some person happens to fall in the overlap.) Run after the schema check,
        so that an attribute missing from the datasets is reported as such, not as an overlap.
        """
        for privileged in self.privileged_groups:
            for unprivileged in self.unprivileged_groups:
                shared = set(privileged) & set(unprivileged)
                if all(privileged[key] == unprivileged[key] for key in shared):
                    raise ValueError(f"privileged_groups and unprivileged_groups overlap: a row matching "
                                     f"{privileged!r} can also match {unprivileged!r} (no shared attribute with "
                                     "different values). Declare disjoint groups.")

    def _check_schema(self, *datasets, names=("dataset_true", "dataset_pred")):
        """Both datasets are AIF360 datasets with every attribute the group definitions name (public schema)."""
        for dataset, dataset_name in zip(datasets, names, strict=False):
            for groups_name in ("privileged_groups", "unprivileged_groups"):
                check_group_attributes(dataset, getattr(self, groups_name), groups_name, dataset_name)

    @staticmethod
    def _favorable(dataset, name):
        labels = dataset.labels.ravel()
        known = np.isin(labels, (dataset.favorable_label, dataset.unfavorable_label))
        if not known.all():
            if np.isnan(labels.astype(float)).any():
                raise ValueError(f"{name} has missing labels (NaN).")
            raise ValueError(f"{name} has labels other than its favorable/unfavorable labels (non-binary).")
        return (labels == dataset.favorable_label).astype(int)

    @atomic_fit
    def fit(self, dataset_true: BinaryLabelDataset, dataset_pred: BinaryLabelDataset) -> DPEqOddsPostprocessing:
        """Compute private mixing rates from true and predicted labels.

        Args:
            dataset_true (BinaryLabelDataset): dataset with true labels.
            dataset_pred (BinaryLabelDataset): the same instances with predicted labels.

        Returns:
            DPEqOddsPostprocessing: self.
        """
        # The face's own names (the engine's random_state and tol would name those): checked first.
        validate_params(self, {"seed": check_seed, "gamma": functools.partial(check_real, low=0.0, high=1.0)})
        model = DPThresholdOptimizer(
            constraints="equalized_odds", objective="sum_of_group_tpr_minus_fpr", flip=True,
            predict_method="predict", tol=self.gamma, epsilon=self.epsilon, delta=self.delta,
            groups=[_PRIVILEGED, _UNPRIVILEGED], privacy_unit=self.privacy_unit, accountant=self.accountant,
            random_state=self.seed, options=self.options)
        self._check_group_format()              # public: the group definitions' format
        validate_epsilon_delta(self.epsilon, self.delta)
        model.check_public_inputs(check_budget=False)    # the parameters first, then the datasets' schema
        self._check_schema(dataset_true, dataset_pred)
        self._check_disjoint_groups()           # on attributes the datasets have (a missing one is named above)
        model.check_public_inputs()             # parameters and the whole budget: before the rows
        if dataset_true.labels.shape != dataset_pred.labels.shape:
            raise ValueError("dataset_true and dataset_pred must have the same number of instances.")
        groups = self._groups(dataset_pred)
        self.model_ = model
        self.model_.fit(self._favorable(dataset_pred, "dataset_pred")[:, None],
                        self._favorable(dataset_true, "dataset_true"), sensitive_features=groups)
        rates = self.model_.mixing_rates_
        # AIF360's order: [sp2p, sn2p, op2p, on2p] = P(1 | y_hat = 1 / 0) for privileged, then unprivileged.
        self.model_params = SimpleNamespace(x=np.array([rates[_PRIVILEGED, 1], rates[_PRIVILEGED, 0],
                                                        rates[_UNPRIVILEGED, 1], rates[_UNPRIVILEGED, 0]]))
        set_dataset_features(self, dataset_pred.feature_names)    # predict refuses other feature_names, as scikit-learn does
        self.privacy_spent_ = self.model_.privacy_spent_
        self.constant_choice_ = self.model_.constant_choice_
        names = {_PRIVILEGED: "privileged", _UNPRIVILEGED: "unprivileged"}
        self.disparity_bound_ = {rate: type(item)(item.bound, tuple(names[g] for g in item.groups), item.beta)
                                 for rate, item in self.model_.disparity_bound_.items()}
        return self

    def predict(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """Flip predicted labels with the private mixing rates (AIF360's procedure: in each group and predicted
        label, a shuffled fraction of exactly ``int(count * rate)`` rows is flipped).

        Args:
            dataset (BinaryLabelDataset): dataset whose labels are the predictions to transform.

        Returns:
            BinaryLabelDataset: transformed dataset.
        """
        if self.model_params is None:
            raise NotFittedError("DPEqOddsPostprocessing must be fitted before predict.")
        self._check_schema(dataset, names=("dataset",))
        check_dataset_features(self, dataset.feature_names)
        groups = self._groups(dataset)
        predicted = self._favorable(dataset, "dataset")
        rng = np.random.RandomState(predict_seed(self.seed))
        new = dataset.labels.copy()
        sp2p, sn2p, op2p, on2p = self.model_params.x
        for group, keep_positive, negative_to_positive in ((_PRIVILEGED, sp2p, sn2p), (_UNPRIVILEGED, op2p, on2p)):
            rows = np.flatnonzero(groups == group)
            positives = rows[predicted[rows] == 1]
            negatives = rows[predicted[rows] == 0]
            rng.shuffle(positives)
            rng.shuffle(negatives)
            new[negatives[:int(len(negatives) * negative_to_positive)]] = dataset.favorable_label
            new[positives[:int(len(positives) * (1 - keep_positive))]] = dataset.unfavorable_label
        out = dataset.copy()
        out.labels = new
        return out

    def fit_predict(self, dataset_true: BinaryLabelDataset, dataset_pred: BinaryLabelDataset) -> BinaryLabelDataset:
        """``fit`` then ``predict`` on ``dataset_pred``."""
        return self.fit(dataset_true, dataset_pred).predict(dataset_pred)

