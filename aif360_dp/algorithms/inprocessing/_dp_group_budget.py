"""AIF360 face of the group-aware DP regression and classification of the budget-tailoring paper (Algs. 1-3)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Self

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError

from fairlearn_dp._utils import (
    atomic_fit,
    check_bool,
    check_dataset_features,
    check_seed,
    set_dataset_features,
    validate_params,
)
from fairlearn_dp.reductions import DPGroupBudgetClassifier, DPGroupBudgetRegressor

from ..._glue import (
    arrays_to_dataset,
    dataset_to_arrays,
    declared_groups,
    protected_attribute,
    public_label_bounds,
)

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset, StructuredDataset
    from diffprivlib.accountant import BudgetAccountant

__all__ = ["DPGroupBudgetRegression", "DPGroupBudgetClassification"]

# Parameters passed unchanged to the Fairlearn-face estimator (``bounded_group_loss`` is converted by the
# regression face, see DPGroupBudgetRegression).
_ENGINE_PARAMS = ("rho", "epsilon", "delta", "stage1_fraction", "budget_allocation", "objective",
                  "lagrange_multiplier", "data_bound", "clip", "n_iter", "learning_rate", "coef_bound",
                  "fit_intercept")

_ARGS_DOC = """
        epsilon (float, optional): total budget as (epsilon, delta)-DP; the zCDP budget is then the largest rho
            whose conversion ``rho + 2 sqrt(rho ln(1/delta))`` equals epsilon. Give either epsilon or rho.
        delta (float): in (0, 1), for the (epsilon, delta) report of the zCDP spend.
        rho (float, optional): total zCDP budget (``tau + mu`` of the paper).
        stage1_fraction (float): ``tau / rho`` (stage 1, the private standard errors), in (0, 1).
        budget_allocation (str): ``"standard_errors"`` (DPSE, the paper's method) or ``"uniform"`` (DPNoSE: no
            stage 1, equal shares).
        objective (str): ``"group_mean"`` (sum of per-group mean losses, Alg. 2) or ``"pooled"`` (Alg. 3).
        lagrange_multiplier (float): ``G`` of the bounded-group-loss Lagrangian.
        data_bound (float): public bound ``U`` on the absolute value of every feature used; larger values are
            clipped (silently in ``fit``: a warning only when a value was clipped would depend on the data).
            1.0 suits AIF360's ``RegressionDataset`` (features min-max scaled to [0, 1]); other datasets (e.g.
            ``AdultDataset``'s raw ages) must be scaled with public ranges first.
        clip (float): per-example gradient clipping norm (losses are clipped to ``clip ** 2``).
        n_iter (int): gradient-descent iterations ``T``.
        learning_rate (float): step size.
        coef_bound (float): coefficients are projected onto ``[-coef_bound, coef_bound]``.
        fit_intercept (bool): add an intercept.
        protected_attribute_name (str, optional): attribute defining the groups; default the dataset's first.
            Its groups are the values declared in the dataset's privileged/unprivileged metadata (public), never
            read from the rows; rows with another value are rejected.
        drop_prot_attr (bool): drop all protected attributes from the features (as AIF360's
            ``ExponentiatedGradientReduction``); ``predict`` then does not use them.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        seed (int, optional): seeds the privacy noise of ``fit`` (for experiments; a seeded release is not
            secure). None: diffprivlib's cryptographically secure source, never numpy's global generator.
            ``predict`` is deterministic."""

_PRIVACY_DOC = """
    Privacy: as :class:`fairlearn_dp.reductions.DPGroupBudgetRegressor` (see its Privacy section): rho-zCDP, reported
    and charged once as ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP, for the substitution of one record (x, a, y)
    of the dataset passed to ``fit`` within its group; the group sizes are public, and so is the list of groups
    (from the dataset's metadata). Every release is a Gaussian mechanism: stage 1 the upper triangle of ``X^T X``,
    ``X^T y`` and the clipped residual sums per group; stage 2 each group's clipped gradient mean (L2 sensitivity
    ``2 clip / n_k``) and, with ``bounded_group_loss``, its clipped loss mean; the training sees only those. The
    guarantee covers the dataset as given: AIF360's ``RegressionDataset`` min-max scales its columns with their
    observed minimum and maximum, a data-dependent step outside the guarantee unless those ranges are public.
    After ``fit``, ``privacy_spent_`` holds the charge (with ``rho``) and ``model_`` the fitted estimator.

    Failure paths: ``fit`` validates the parameters and the dataset's public schema and checks the accountant for
    the whole budget before it reads a row (an exhausted budget is a ``BudgetError`` whatever the data); later
    errors concern the data's domain only (labels outside the declared favorable/unfavorable labels, a protected
    value not declared in the metadata, NaN) and carry no counts or values. Declared groups with few or no rows
    fit (see the engine's Privacy section). Given ``epsilon``, the charge never exceeds it. A fit that raises
    leaves the transformer as it was.
"""


class _GroupBudgetTransformer(Transformer):
    """Shared ``fit`` / ``predict`` plumbing; subclasses choose the engine and the label conversion."""

    _engine = None

    def __init__(self, **params):
        super().__init__(**params)
        for name, value in params.items():
            setattr(self, name, value)

    @atomic_fit
    def fit(self, dataset: StructuredDataset) -> Self:
        """Train the DP model on ``dataset`` (features, labels and the protected attribute's groups).

        The parameters, the dataset's public schema (protected attribute, declared groups, feature names, label
        bounds) and the accountant's budget are checked before any row is read; a fit that raises leaves the
        transformer as it was.

        Args:
            dataset (StructuredDataset): training data with true labels.

        Returns:
            self.
        """
        validate_params(self, {"seed": check_seed, "drop_prot_attr": check_bool})     # the face's own parameters
        probe = self._engine(**{key: getattr(self, key) for key in _ENGINE_PARAMS},
                             bounded_group_loss=self.bounded_group_loss, random_state=self.seed)
        probe.check_public_inputs(check_budget=False)    # the engine's parameters and budget size, before the dataset
        name = protected_attribute(dataset, self.protected_attribute_name)
        params, fitted = self._public_params(dataset)
        features = self._feature_names(dataset)
        model = self._engine(**{key: getattr(self, key) for key in _ENGINE_PARAMS}, **params,
                             groups=declared_groups(dataset, name), accountant=self.accountant,
                             random_state=self.seed)
        model.check_public_inputs()             # parameters, groups and the whole budget: before the rows
        arrays = dataset_to_arrays(dataset, protected_attribute_name=name)
        target = self._target(dataset, arrays.y)
        model.fit(arrays.X[features], target, sensitive_features=arrays.sensitive_features.to_numpy(dtype=float))
        for key, value in fitted.items():
            setattr(self, key, value)
        self.model_ = model
        self.protected_attribute_name_ = name
        self.feature_names_ = features
        set_dataset_features(self, features)     # predict refuses other feature_names, as scikit-learn does
        self.privacy_spent_ = model.privacy_spent_
        if hasattr(model, "constant_choice_"):          # the classifier's final choice against the constants
            self.constant_choice_ = model.constant_choice_
        return self

    def _feature_names(self, dataset):
        """The features used (the dataset's schema, without the protected attributes when ``drop_prot_attr``)."""
        names = list(dataset.feature_names)
        if self.drop_prot_attr:
            names = [n for n in names if n not in dataset.protected_attribute_names]
        if not names:
            raise ValueError("dataset has no feature left once the protected attributes are dropped "
                             "(drop_prot_attr=True).")
        return names

    def _predict_features(self, dataset):
        """The features the model was fitted on, by name (the protected attributes are not needed when dropped)."""
        if not hasattr(self, "model_"):
            raise NotFittedError(f"{type(self).__name__} must be fitted before predict.")
        check_dataset_features(self, self._feature_names(dataset))     # the fitted features, in the same order
        return pd.DataFrame(dataset.features, columns=dataset.feature_names)[self.feature_names_]


class DPGroupBudgetRegression(_GroupBudgetTransformer):
    # Assigned, not a bare literal: a docstring built with ``+`` would leave ``__doc__`` None.
    __doc__ = """DP linear regression with group-aware privacy budget allocation, for AIF360 regression datasets.

    The AIF360 face of :class:`fairlearn_dp.reductions.DPGroupBudgetRegressor` (the budget-tailoring paper, Algs.
    1-3): a precursor DP OLS fit estimates each group's prediction standard error privately, then DP gradient
    descent gives every group the share ``s_k^2`` of each iteration's budget, so the groups whose predictions are
    least certain (often the smallest) get less noise; optionally with a bounded-group-loss penalty. Works on
    ``RegressionDataset``-like datasets (e.g. :class:`aif360_dp.datasets.LawSchoolGPADataset`); ``predict``
    returns a copy of a dataset with the predicted labels, in the dataset's stored label units.

    Labels: the engine works on ``y`` in original units (read back with ``metadata['label_scale']`` when present)
    mapped affinely from the public interval ``bounds = (s, t)`` onto [-1, 1] (``target_bound=1``, so the noise
    does not grow with the label's offset); predictions are mapped back. ``bounds`` defaults to
    ``metadata['label_bounds']`` (fairdp's datasets record it); a dataset without them needs ``bounds``: a plain
    AIF360 ``RegressionDataset`` min-max scales its label with the data's own min and max, so bounds on the stored
    label would depend on the private data.

    Args:
        bounds (tuple, optional): public interval (s, t) of the labels in original units (see above); labels
            outside it are clipped, silently (the guarantee is for the clipped labels).
        bounded_group_loss (float, optional): threshold ``eta`` on a group's mean squared error, in the label's
            original units squared (converted to the engine's [-1, 1] scale as ``eta * (2 / (t - s)) ** 2``);
            None: no fairness term.""" + _ARGS_DOC + """

    Attributes:
        model_ (DPGroupBudgetRegressor): the fitted engine (coefficients on the [-1, 1] label scale).
        bounds_ (tuple): the label bounds used.
        privacy_spent_ (PrivacySpend): what ``fit`` charged.
        feature_names_ (list): the features the model uses.
""" + _PRIVACY_DOC + """
    Examples:
        >>> from diffprivlib import BudgetAccountant
        >>> from aif360_dp.datasets import LawSchoolGPADataset
        >>> data = LawSchoolGPADataset()            # features and label scaled to [0, 1]; groups by race
        >>> reg = DPGroupBudgetRegression(rho=0.05, accountant=BudgetAccountant(), seed=0).fit(data)
        >>> spent = reg.privacy_spent_           # rho-zCDP, charged as (rho + 2 sqrt(rho ln(1/delta)), delta)-DP
        >>> round(spent.rho, 12), round(spent.epsilon, 3), spent.delta
        (0.05, 1.712, 1e-06)
        >>> reg.predict(data).labels.shape
        (21983, 1)
    """

    _engine = DPGroupBudgetRegressor

    def __init__(self, *, epsilon: float | None = None, delta: float = 1e-6, rho: float | None = None,
                 bounds: tuple[float, float] | None = None, stage1_fraction: float = 0.2,
                 budget_allocation: str = "standard_errors", objective: str = "group_mean",
                 bounded_group_loss: float | None = None, lagrange_multiplier: float = 1.0, data_bound: float = 1.0,
                 clip: float = 2.0, n_iter: int = 200, learning_rate: float = 0.05, coef_bound: float = 5.0,
                 fit_intercept: bool = True, protected_attribute_name: str | None = None,
                 drop_prot_attr: bool = True, accountant: BudgetAccountant | None = None,
                 seed: int | np.random.RandomState | None = None) -> None:
        super().__init__(epsilon=epsilon, delta=delta, rho=rho, bounds=bounds, stage1_fraction=stage1_fraction,
                         budget_allocation=budget_allocation, objective=objective,
                         bounded_group_loss=bounded_group_loss, lagrange_multiplier=lagrange_multiplier,
                         data_bound=data_bound, clip=clip, n_iter=n_iter, learning_rate=learning_rate,
                         coef_bound=coef_bound, fit_intercept=fit_intercept,
                         protected_attribute_name=protected_attribute_name, drop_prot_attr=drop_prot_attr,
                         accountant=accountant, seed=seed)

    def _public_params(self, dataset):
        """Engine parameters and fitted attributes fixed by public inputs (the label bounds)."""
        low, high = self._bounds(dataset)
        eta = self.bounded_group_loss
        if isinstance(eta, numbers.Real) and not isinstance(eta, bool):     # else the engine rejects it
            eta = float(eta) * (2.0 / (high - low)) ** 2
        return {"target_bound": 1.0, "bounded_group_loss": eta}, {"bounds_": (low, high)}

    def _target(self, dataset, y):
        """``y`` (original units) mapped affinely from the public bounds onto [-1, 1] (the engine clips to it)."""
        low, high = self._bounds(dataset)
        return (2.0 * y - (low + high)) / (high - low)

    def _bounds(self, dataset):
        return public_label_bounds(dataset, self.bounds)

    def predict(self, dataset: StructuredDataset) -> StructuredDataset:
        """Return a copy of ``dataset`` whose labels are the DP model's predictions (in the dataset's label units).

        Args:
            dataset (StructuredDataset): instances to predict (its labels are not used; with
                ``drop_prot_attr=True`` neither are its protected attributes).

        Returns:
            StructuredDataset: transformed dataset; ``metadata`` records this transformer.
        """
        X = self._predict_features(dataset)
        scaled = self.model_.predict(X)
        low, high = self.bounds_
        return arrays_to_dataset(dataset, low + (scaled + 1.0) * (high - low) / 2.0)


class DPGroupBudgetClassification(_GroupBudgetTransformer):
    # Assigned, not a bare literal: a docstring built with ``+`` would leave ``__doc__`` None.
    __doc__ = """DP logistic regression with group-aware privacy budget allocation, for AIF360 binary-label datasets.

    The AIF360 face of :class:`fairlearn_dp.reductions.DPGroupBudgetClassifier` (the logistic-loss variant of the
    budget-tailoring paper, Appendix A): the same two stages as :class:`DPGroupBudgetRegression`, on the
    favorable label coded +1 and the unfavorable one -1. Works on ``BinaryLabelDataset`` objects (e.g.
    :class:`aif360_dp.datasets.AdultDataset`, whose numeric features must first be scaled into
    ``[-data_bound, data_bound]`` with public ranges); ``predict`` returns a copy with predicted labels and, in
    ``scores``, the model's probability of the favorable label.

    Args:
        bounded_group_loss (float, optional): threshold ``eta`` on a group's mean logistic loss; None: no
            fairness term.""" + _ARGS_DOC + """

    Attributes:
        model_ (DPGroupBudgetClassifier): the fitted engine (classes 0 = unfavorable, 1 = favorable).
        privacy_spent_ (PrivacySpend): what ``fit`` charged.
        constant_choice_: the engine's final private choice (a ``ConstantChoice``, ``0.1 rho``) between the model
            and the constant classifiers; when a constant wins (``UtilityWarning``), ``predict`` returns it.
        feature_names_ (list): the features the model uses.
""" + _PRIVACY_DOC + """
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
        >>> clf = DPGroupBudgetClassification(rho=0.05, accountant=BudgetAccountant(), seed=0).fit(data)
        >>> spent = clf.privacy_spent_           # rho-zCDP, charged as (rho + 2 sqrt(rho ln(1/delta)), delta)-DP
        >>> round(spent.rho, 12), round(spent.epsilon, 3), spent.delta
        (0.05, 1.712, 1e-06)
        >>> out = clf.predict(data)
        >>> out.labels.shape, bool(np.mean(out.labels.ravel() == y) > 0.75)     # the majority rate is 0.63
        ((2000, 1), True)
    """

    _engine = DPGroupBudgetClassifier

    def __init__(self, *, epsilon: float | None = None, delta: float = 1e-6, rho: float | None = None,
                 stage1_fraction: float = 0.2, budget_allocation: str = "standard_errors",
                 objective: str = "group_mean", bounded_group_loss: float | None = None,
                 lagrange_multiplier: float = 1.0, data_bound: float = 1.0, clip: float = 2.0, n_iter: int = 200,
                 learning_rate: float = 0.05, coef_bound: float = 5.0, fit_intercept: bool = True,
                 protected_attribute_name: str | None = None, drop_prot_attr: bool = True,
                 accountant: BudgetAccountant | None = None,
                 seed: int | np.random.RandomState | None = None) -> None:
        super().__init__(epsilon=epsilon, delta=delta, rho=rho, stage1_fraction=stage1_fraction,
                         budget_allocation=budget_allocation, objective=objective,
                         bounded_group_loss=bounded_group_loss, lagrange_multiplier=lagrange_multiplier,
                         data_bound=data_bound, clip=clip, n_iter=n_iter, learning_rate=learning_rate,
                         coef_bound=coef_bound, fit_intercept=fit_intercept,
                         protected_attribute_name=protected_attribute_name, drop_prot_attr=drop_prot_attr,
                         accountant=accountant, seed=seed)

    def _public_params(self, dataset):
        """Engine parameters fixed by public inputs; the dataset must declare its favorable/unfavorable labels."""
        _check_binary(dataset)
        return {"bounded_group_loss": self.bounded_group_loss}, {}

    def _target(self, dataset, y):
        """1 for the favorable label, 0 for the unfavorable one (the declared label set); others are an error."""
        labels = dataset.labels.ravel()
        if not np.isin(labels, (dataset.favorable_label, dataset.unfavorable_label)).all():
            if np.isnan(labels.astype(float)).any():
                raise ValueError("dataset has missing labels (NaN).")
            raise ValueError("dataset has labels other than its favorable/unfavorable labels (non-binary).")
        return (labels == dataset.favorable_label).astype(int)

    def predict(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """Return a copy of ``dataset`` with the DP model's predicted labels and favorable-label probabilities.

        Args:
            dataset (BinaryLabelDataset): instances to predict (its labels are not used; with
                ``drop_prot_attr=True`` neither are its protected attributes).

        Returns:
            BinaryLabelDataset: transformed dataset with ``labels`` and ``scores``; ``metadata`` records this
            transformer.
        """
        X = self._predict_features(dataset)
        _check_binary(dataset)
        favorable = self.model_.predict(X) == 1
        out = dataset.copy(deepcopy=True)
        out.labels = np.where(favorable, dataset.favorable_label, dataset.unfavorable_label).astype(float)[:, None]
        out.scores = self.model_.predict_proba(X)[:, 1].reshape(-1, 1)
        return out


def _check_binary(dataset):
    if not (hasattr(dataset, "favorable_label") and hasattr(dataset, "unfavorable_label")):
        raise TypeError(f"dataset must be an AIF360 BinaryLabelDataset (favorable/unfavorable labels), got "
                        f"{type(dataset).__name__}.")
