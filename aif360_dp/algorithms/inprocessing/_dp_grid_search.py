"""AIF360 face of the DP grid-search reduction (Fairlearn's GridSearch on the statistics game's releases)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from fairlearn import reductions as fl_reductions

from fairlearn_dp._utils import (
    atomic_fit,
    check_bool,
    check_choice,
    check_dataset_features,
    check_seed,
    set_dataset_features,
    validate_params,
)
from fairlearn_dp.reductions import DPGridSearch

from ..._glue import joint_declared_groups, protected_attributes, protected_frame
from ._dp_exponentiated_gradient import DPExponentiatedGradientReduction, _binary_labels, _engine_input

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import Moment

__all__ = ["DPGridSearchReduction"]

_MOMENTS = ("DemographicParity", "EqualizedOdds", "TruePositiveRateParity", "FalsePositiveRateParity",
            "ErrorRateParity")
_LOSSES = ("ZeroOne", "Square", "Absolute")
# The face's own parameters (the engine checks the others, before the budget too).
_PARAMETER_CHECKS = {"drop_prot_attr": check_bool, "seed": check_seed,
                     "loss": functools.partial(check_choice, options=_LOSSES)}


class DPGridSearchReduction(Transformer):
    """Differentially private grid search reduction for fair classification (AIF360 face).

    Mirrors :class:`aif360.algorithms.inprocessing.GridSearchReduction` (``fit(dataset)``, ``predict(dataset)``
    returning a new dataset with labels and favorable-label scores) and delegates to
    :class:`fairlearn_dp.reductions.DPGridSearch`: at a finite epsilon, one Gaussian release of sufficient statistics,
    the best response to each multiplier vector of Fairlearn's grid computed from it, one Gaussian release per grid
    point of its cell sums, Fairlearn's selection rule on the released values and the private choice against the fair
    constants. With ``epsilon=numpy.inf`` and an ``estimator`` it computes what AIF360's class computes (Fairlearn's
    ``GridSearch`` with AIF360's moments and the protected attribute columns as ``sensitive_features``).

    Args:
        estimator: base classifier (the best response; fitted on the public features under
            ``privacy_unit="sensitive_attribute"``); None for the least-squares oracle.
        constraints (str or fairlearn.reductions.Moment): ``"DemographicParity"``, ``"EqualizedOdds"``,
            ``"TruePositiveRateParity"``, ``"FalsePositiveRateParity"``, ``"ErrorRateParity"`` (AIF360's moments with
            their default bound) or a Moment (any Moment, ``"BoundedGroupLoss"`` too, at ``epsilon=inf``).
        prot_attr (str or list of str, optional): the protected attribute(s) defining the groups (None: all of the
            dataset's, their combinations being the groups, declared from the dataset's privileged/unprivileged
            metadata, as :class:`DPExponentiatedGradientReduction`).
        constraint_weight, grid_size, grid_limit, grid: AIF360's (Fairlearn's) grid-search arguments.
        drop_prot_attr (bool): drop the protected attributes from the features (default True; needed for the
            ``sensitive_attribute`` guarantee, else a ``PrivacyWarning`` before the budget check).
        loss, min_val, max_val: AIF360's loss for ``"BoundedGroupLoss"`` (``epsilon=inf`` only).
        epsilon, delta (float): total privacy budget of ``fit``.
        privacy_unit (str): ``"sensitive_attribute"`` or ``"record"``.
        row_norm_bound (float, optional): ``"record"``: public bound on the L2 norm of a feature row.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``.
        seed (int, optional): seeds the privacy noise (experiments only). None: a secure source.

    Privacy: as :class:`fairlearn_dp.reductions.DPGridSearch` (relation, releases, sensitivities, composition:
    docs/privacy_analysis/grid_search.md): ``(epsilon, delta)``-DP for the dataset passed to ``fit``, charged once.
    Public: the number of rows, the dataset's schema (feature and protected attribute names, the declared groups,
    favorable/unfavorable labels) and the parameters; the budget is checked before any row is read.

    Attributes (after ``fit``): ``model_`` (the engine), ``privacy_spent_``, ``feature_names_``,
    ``protected_attribute_names_`` and ``constant_choice_`` (the engine's choice against the fair constants).

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from aif360.datasets import BinaryLabelDataset
        >>> from diffprivlib import BudgetAccountant
        >>> rng = np.random.default_rng(0)
        >>> a = (rng.random(2000) < 0.5).astype(float)
        >>> x = 0.6 * rng.uniform(-1, 1, (2000, 2)) + 0.4 * a[:, None]       # in [-1, 1]; the features carry the group
        >>> y = (x[:, 0] + 0.5 * x[:, 1] + 0.3 * a + 0.3 * rng.standard_normal(2000) > 0.2).astype(float)
        >>> frame = pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "a": a, "y": y})
        >>> data = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])
        >>> grid = DPGridSearchReduction(constraints="DemographicParity", prot_attr="a", grid_size=5, epsilon=1.0,
        ...                              accountant=BudgetAccountant(), seed=0).fit(data)
        >>> grid.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=1e-07, rho=None)
        >>> out = grid.predict(data)
        >>> out.labels.shape, bool(np.mean(out.labels.ravel() == y) > 0.75)     # the majority rate is 0.63
        ((2000, 1), True)
    """

    def __init__(self, estimator: Any = None, constraints: str | Moment = "DemographicParity",
                 prot_attr: str | Sequence[str] | None = None, constraint_weight: float = 0.5, grid_size: int = 10,
                 grid_limit: float = 2.0, grid: pd.DataFrame | None = None, drop_prot_attr: bool = True,
                 loss: str = "ZeroOne", min_val: float | None = None, max_val: float | None = None, *,
                 epsilon: float = 1.0, delta: float = 1e-7, privacy_unit: str = "sensitive_attribute",
                 row_norm_bound: float | None = None, accountant: BudgetAccountant | None = None,
                 seed: int | None = None) -> None:
        super().__init__(estimator=estimator, constraints=constraints, prot_attr=prot_attr,
                         constraint_weight=constraint_weight, grid_size=grid_size, grid_limit=grid_limit, grid=grid,
                         drop_prot_attr=drop_prot_attr, loss=loss, min_val=min_val, max_val=max_val,
                         epsilon=epsilon, delta=delta, privacy_unit=privacy_unit, row_norm_bound=row_norm_bound,
                         accountant=accountant, seed=seed)
        self.estimator = estimator
        self.constraints = constraints
        self.prot_attr = prot_attr
        self.constraint_weight = constraint_weight
        self.grid_size = grid_size
        self.grid_limit = grid_limit
        self.grid = grid
        self.drop_prot_attr = drop_prot_attr
        self.loss = loss
        self.min_val = min_val
        self.max_val = max_val
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.row_norm_bound = row_norm_bound
        self.accountant = accountant
        self.seed = seed

    # The drop_prot_attr warning: the exponentiated-gradient face's.
    _check_features_public = DPExponentiatedGradientReduction._check_features_public

    def _features(self, dataset):
        """The features the model reads: as AIF360's ``GridSearchReduction``, without the grouped attributes
        (``prot_attr``, or all the dataset's protected attributes) when ``drop_prot_attr``.
        """
        frame = pd.DataFrame(dataset.features, columns=dataset.feature_names)
        if self.drop_prot_attr:
            names = protected_attributes(dataset, self.prot_attr, name="prot_attr")
            frame = frame.drop(columns=[name for name in names if name in frame.columns])
        if frame.shape[1] == 0:
            raise ValueError("dataset has no feature left once the protected attributes are dropped.")
        return frame

    def _moment(self):
        """AIF360's moment for a string (its default bound), or the given Moment."""
        if isinstance(self.constraints, str):
            if self.constraints == "BoundedGroupLoss":     # AIF360's regression moment: Fairlearn's path only
                losses = {"ZeroOne": fl_reductions.ZeroOneLoss, "Square": fl_reductions.SquareLoss,
                          "Absolute": fl_reductions.AbsoluteLoss}
                loss = (losses[self.loss]() if self.loss == "ZeroOne"
                        else losses[self.loss](self.min_val, self.max_val))
                return fl_reductions.BoundedGroupLoss(loss=loss)
            if self.constraints not in _MOMENTS:
                raise ValueError(f"constraints must be one of {_MOMENTS} or a Fairlearn Moment, got "
                                 f"{self.constraints!r}.")
            return getattr(fl_reductions, self.constraints)()
        return self.constraints

    @atomic_fit
    def fit(self, dataset: BinaryLabelDataset) -> DPGridSearchReduction:
        """Train the DP grid-search classifier on ``dataset`` (a BinaryLabelDataset with true labels).

        The parameters are validated and the budget is checked (through the engine) before the dataset's rows are
        read; only its schema is read before. A fit that raises leaves the transformer as it was.

        Returns:
            self.
        """
        validate_params(self, _PARAMETER_CHECKS)
        model = DPGridSearch(
            self.estimator, self._moment(), constraint_weight=self.constraint_weight, grid_size=self.grid_size,
            grid_limit=self.grid_limit, grid=self.grid, epsilon=self.epsilon, delta=self.delta,
            privacy_unit=self.privacy_unit, row_norm_bound=self.row_norm_bound, accountant=self.accountant,
            random_state=self.seed)
        model.check_public_inputs(check_budget=False)   # every public parameter, before the dataset is looked at
        if not (hasattr(dataset, "favorable_label") and hasattr(dataset, "unfavorable_label")):
            raise TypeError(f"dataset must be an AIF360 BinaryLabelDataset, got {type(dataset).__name__}.")
        names = protected_attributes(dataset, self.prot_attr, name="prot_attr")
        model.set_params(groups=joint_declared_groups(dataset, names))     # the schema's groups (public)
        self._check_features_public(dataset, names)
        oracle = model.check_public_inputs()[2]     # public parameters, then the budget: before any row is read
        X = self._features(dataset)
        model.fit(_engine_input(X, oracle), _binary_labels(dataset), sensitive_features=protected_frame(dataset, names))
        self.model_ = model
        self.feature_names_ = list(X.columns)
        set_dataset_features(self, X.columns)
        self.protected_attribute_names_ = names
        self.privacy_spent_ = model.privacy_spent_
        self.constant_choice_ = model.constant_choice_
        return self

    def predict(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """Return a copy of ``dataset`` with the selected model's labels and favorable-label probabilities."""
        if not hasattr(self, "model_"):
            raise NotFittedError(f"{type(self).__name__} must be fitted before predict.")
        frame = self._features(dataset)
        check_dataset_features(self, frame.columns)
        X = _engine_input(frame, getattr(self.model_, "oracle_", None))
        favorable = np.asarray(self.model_.predict(X)).ravel() == 1
        out = dataset.copy(deepcopy=True)
        out.labels = np.where(favorable, dataset.favorable_label, dataset.unfavorable_label).astype(float)[:, None]
        with contextlib.suppress(AttributeError, NotImplementedError):   # as AIF360: no predict_proba, no scores
            out.scores = np.asarray(self.model_.predict_proba(X))[:, 1].reshape(-1, 1)
        return out
