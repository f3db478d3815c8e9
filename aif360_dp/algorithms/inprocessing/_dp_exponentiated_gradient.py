"""AIF360 face of the DP exponentiated-gradient reduction (the statistics game)."""

from __future__ import annotations

import functools
import math
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
    check_dataset_features,
    check_real,
    check_seed,
    set_dataset_features,
    validate_params,
    warn_sensitive_columns,
)
from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions

from ..._glue import joint_declared_groups, predict_seed, protected_attributes, protected_frame

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset
    from diffprivlib import BudgetAccountant
    from fairlearn.reductions import Moment

__all__ = ["DPExponentiatedGradientReduction"]

_MOMENTS = ("DemographicParity", "EqualizedOdds", "TruePositiveRateParity", "FalsePositiveRateParity",
            "ErrorRateParity")
# The face's own parameters (the engine checks the others, before the budget too).
_PARAMETER_CHECKS = {"difference_bound": functools.partial(check_real, low=0.0), "drop_prot_attr": check_bool,
                     "seed": check_seed}


class DPExponentiatedGradientReduction(Transformer):
    """Differentially private exponentiated gradient reduction for fair classification (AIF360 face).

    Mirrors :class:`aif360.algorithms.inprocessing.ExponentiatedGradientReduction` (``fit(dataset)``,
    ``predict(dataset)`` returning a new dataset with labels and favorable-label scores) and delegates to
    :class:`fairlearn_dp.reductions.DPExponentiatedGradient`. At a finite epsilon that is the statistics game: one
    Gaussian release of sufficient statistics, your ``estimator`` as the Learner, one small Gaussian release per
    round for the Auditor, and Fairlearn's LP mixture of the plays. The classifier does not use the protected
    attribute at prediction time
    (``drop_prot_attr=True``). As AIF360's, it groups by every protected attribute of the dataset (the combinations
    of their values; ``protected_attribute_name`` selects some). With ``epsilon=numpy.inf`` and an ``estimator`` it
    computes what AIF360's class computes: Fairlearn's ``ExponentiatedGradient`` with AIF360's defaults (``eps``,
    50 rounds, the LP step) and the protected attribute columns as ``sensitive_features``.

    Args:
        estimator: base classifier, as AIF360's first argument: the Learner of the statistics game (fitted on the
            public features and labels with weights derived from released statistics) and of Fairlearn's path at
            ``epsilon=inf``; None for the least-squares oracle.
        constraints (str or fairlearn.reductions.Moment): ``"DemographicParity"``, ``"EqualizedOdds"``,
            ``"TruePositiveRateParity"``, ``"FalsePositiveRateParity"``, ``"ErrorRateParity"`` or a Moment object
            (any Fairlearn Moment on Fairlearn's path, ``epsilon=inf`` with an estimator).
        difference_bound (float): fairness tolerance gamma when ``constraints`` is a string.
        epsilon, delta (float): total privacy budget of ``fit``.
        row_norm_bound (float, optional): public bound on the L2 norm of a feature row. None under
            ``privacy_unit="record"``: the tight bound of the ``options.feature_bound`` box (an AIF360 dataset
            publishes no row bound), with a warning when that is the loose ``feature_bound * sqrt(d)``.
        eps, nu, eta0, run_linprog_step: AIF360's (Fairlearn's) arguments, passed to the engine: used as AIF360
            does on Fairlearn's path (``epsilon=inf`` with an estimator); for the private algorithm see
            :class:`~fairlearn_dp.reductions.DPExponentiatedGradient` (``nu`` must be None). ``run_linprog_step``
            (default ``"auto"``): AIF360's True on Fairlearn's path; privately the engine's ``"auto"`` (its
            docstring says why); True forces the LP on released values.
        max_iter (int, optional): rounds T (None: Fairlearn's 50).
        privacy_unit (str): ``"sensitive_attribute"`` (the paper's) or ``"record"``.
        protected_attribute_name (str or list of str, optional): the protected attribute(s) defining the groups.
            None (the default, as AIF360): all of ``dataset.protected_attribute_names``, each row's group being its
            combination of their values (e.g. sex x race on ``load_preproc_data_adult()``). The groups are public:
            each attribute's values declared in the dataset (``privileged_protected_attributes`` then
            ``unprivileged_protected_attributes``; for a ``StandardDataset`` these are the 1.0 / 0.0 its
            ``privileged_classes`` map to), and with several attributes every combination of them, labelled
            ``"v1,v2,..."`` (each value's text, e.g. ``"1.0,0.0"``), declared even if no row falls in it
            (``joint_declared_groups`` of ``aif360_dp._glue``). A dataset built without those lists gets them
            from AIF360, which reads them from its rows: pass them when building it if the set of values is
            private. A row whose value is not declared is a ``ValueError`` (unseen group).
        drop_prot_attr (bool): drop the protected attributes from the features (default True). Needed for the
            ``sensitive_attribute`` guarantee, under which the features are public (the Learner is fitted on them):
            at a finite epsilon ``drop_prot_attr=False`` with a grouped attribute among the features gives a
            ``PrivacyWarning`` before the budget check (the model may then reveal the attribute). Under
            ``privacy_unit="record"`` the whole row is private. AIF360's demo notebook passes False: it runs
            (with the warning); keep the default, or add ``privacy_unit="record"`` to protect the attributes
            (docs/user_guide/inprocessing.md measures the ways).
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``.
        seed (int, optional): seeds the privacy noise of ``fit`` and, through a separate stream, the randomized
            predictions (experiments only: a seeded release is not secure). None: a secure source for the noise
            and OS entropy for the predictions, never numpy's global generator.
        objective, sample_weight_name, options: the engine's parameters of the same names, forwarded unchanged
            (see :class:`~fairlearn_dp.reductions.DPExponentiatedGradient`; ``options`` holds the statistics game's
            expert settings, e.g. ``options.feature_bound``, the public bound on the features the model reads).

    Privacy: as :class:`fairlearn_dp.reductions.DPExponentiatedGradient` (its Privacy section gives the
    neighbouring relation, the sensitivities and the composition): ``(epsilon, delta)``-DP for the dataset passed
    to ``fit``, charged once; ``privacy_spent_`` holds the charge and ``model_`` the fitted estimator. Public:
    the number of rows, the dataset's schema (feature and protected attribute names, the groups declared in its
    privileged/unprivileged metadata, favorable/unfavorable labels) and the parameters. The budget is checked
    before any row is read; a declared group without rows fits (see the engine's floored moments); errors after
    the budget check are domain errors without counts. A failed ``fit`` leaves
    the transformer as it was. The joint groups of several attributes are one sensitive attribute for the
    neighbouring relation (``"sensitive_attribute"``: one person's values of all of them may change).

    Attributes (after ``fit``): ``model_`` (the engine), ``privacy_spent_``, ``feature_names_`` (the features the
    model reads), ``protected_attribute_names_`` (the attributes grouped by) and ``constant_choice_`` (the engine's
    private choice between the fitted mixture and the exactly fair constants: when a constant is chosen,
    ``predict`` returns it for every row, with one ``UtilityWarning`` at ``fit``; docs/privacy_analysis/
    constant_fallback.md).

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
        >>> reduction = DPExponentiatedGradientReduction(constraints="DemographicParity", epsilon=1.0, max_iter=10,
        ...                                              accountant=BudgetAccountant(), seed=0).fit(data)
        >>> reduction.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=1e-07, rho=None)
        >>> out = reduction.predict(data)
        >>> out.labels.shape, bool(((out.scores >= 0) & (out.scores <= 1)).all())
        ((2000, 1), True)
    """

    def __init__(self, estimator: Any = None, constraints: str | Moment = "EqualizedOdds", *, eps: float = 0.01,
                 max_iter: int | None = None, nu: float | None = None, eta0: float = 2.0,
                 run_linprog_step: bool | str = "auto", difference_bound: float = 0.01, epsilon: float = 1.0,
                 delta: float = 1e-7, row_norm_bound: float | None = None, privacy_unit: str = "sensitive_attribute",
                 protected_attribute_name: str | Sequence[str] | None = None, drop_prot_attr: bool = True,
                 accountant: BudgetAccountant | None = None, seed: int | None = None,
                 objective: Moment | None = None, sample_weight_name: str = "sample_weight",
                 options: StatisticsGameOptions | None = None) -> None:
        super().__init__(estimator=estimator, constraints=constraints, eps=eps, nu=nu, eta0=eta0,
                         run_linprog_step=run_linprog_step, difference_bound=difference_bound,
                         epsilon=epsilon, delta=delta, row_norm_bound=row_norm_bound, max_iter=max_iter,
                         privacy_unit=privacy_unit, protected_attribute_name=protected_attribute_name,
                         drop_prot_attr=drop_prot_attr, accountant=accountant, seed=seed, objective=objective,
                         sample_weight_name=sample_weight_name, options=options)
        self.estimator = estimator
        self.constraints = constraints
        self.objective = objective
        self.sample_weight_name = sample_weight_name
        self.options = options
        self.eps = eps
        self.nu = nu
        self.eta0 = eta0
        self.run_linprog_step = run_linprog_step
        self.difference_bound = difference_bound
        self.epsilon = epsilon
        self.delta = delta
        self.row_norm_bound = row_norm_bound
        self.max_iter = max_iter
        self.privacy_unit = privacy_unit
        self.protected_attribute_name = protected_attribute_name
        self.drop_prot_attr = drop_prot_attr
        self.accountant = accountant
        self.seed = seed

    def _moment(self):
        if isinstance(self.constraints, str):
            if self.constraints not in _MOMENTS:
                raise ValueError(f"constraints must be one of {_MOMENTS} or a Fairlearn Moment, got "
                                 f"{self.constraints!r}.")
            return getattr(fl_reductions, self.constraints)(difference_bound=self.difference_bound)
        return self.constraints

    def _features(self, dataset):
        frame = pd.DataFrame(dataset.features, columns=dataset.feature_names)
        if self.drop_prot_attr:
            frame = frame.drop(columns=[n for n in dataset.protected_attribute_names if n in frame.columns])
        if frame.shape[1] == 0:
            raise ValueError("dataset has no feature left once the protected attributes are dropped.")
        return frame

    def _check_features_public(self, dataset, names):
        """Warn for ``drop_prot_attr=False`` with the grouped attributes among the features under
        ``privacy_unit="sensitive_attribute"`` at a finite epsilon: that unit treats the features as public (the
        Learner is fitted on them, the final choice reads their exact training error), so the model may reveal the
        attributes and the guarantee protects nothing the features show. Public schema only (feature and attribute
        names), before the budget check.
        """
        if self.privacy_unit != "sensitive_attribute" or self.drop_prot_attr or math.isinf(float(self.epsilon)):
            return
        warn_sensitive_columns([name for name in names if name in list(dataset.feature_names)],
                               where="drop_prot_attr=False: the features",
                               remedy="To protect them, pass drop_prot_attr=True (the default), or "
                                      "privacy_unit='record' to protect whole rows.")

    @atomic_fit
    def fit(self, dataset: BinaryLabelDataset) -> DPExponentiatedGradientReduction:
        """Train the DP randomized classifier on ``dataset`` (a BinaryLabelDataset with true labels).

        Order: the parameters are validated and the budget is checked (through the engine) before the dataset's
        rows are read; only its schema (protected attribute names, declared groups) is read before. A fit that
        raises leaves the transformer as it was.

        Returns:
            self.
        """
        validate_params(self, _PARAMETER_CHECKS)     # the face's own parameters
        model = DPExponentiatedGradient(
            self.estimator, self._moment(), eps=self.eps, nu=self.nu, eta0=self.eta0,
            run_linprog_step=self.run_linprog_step, epsilon=self.epsilon, delta=self.delta,
            row_norm_bound=self.row_norm_bound, max_iter=self.max_iter, privacy_unit=self.privacy_unit,
            accountant=self.accountant, random_state=self.seed, objective=self.objective,
            sample_weight_name=self.sample_weight_name, options=self.options)
        model.check_public_inputs(check_budget=False)   # every public parameter, before the dataset is looked at
        if not (hasattr(dataset, "favorable_label") and hasattr(dataset, "unfavorable_label")):
            raise TypeError(f"dataset must be an AIF360 BinaryLabelDataset, got {type(dataset).__name__}.")
        names = protected_attributes(dataset, self.protected_attribute_name)    # the public schema, before the budget
        model.set_params(groups=joint_declared_groups(dataset, names))     # the schema's groups (public)
        self._check_features_public(dataset, names)     # the schema: before the budget
        oracle = model.check_public_inputs()[2]     # public parameters, then the budget: before any row is read
        X = self._features(dataset)
        model.fit(_engine_input(X, oracle), _binary_labels(dataset), sensitive_features=protected_frame(dataset, names))
        self.model_ = model
        self.feature_names_ = list(X.columns)
        set_dataset_features(self, X.columns)     # predict refuses other feature_names, as scikit-learn does
        self.protected_attribute_names_ = names
        self.privacy_spent_ = model.privacy_spent_
        self.constant_choice_ = model.constant_choice_     # the engine warned once if a constant was chosen
        return self

    def predict(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """Return a copy of ``dataset`` with randomized predicted labels and favorable-label probabilities.

        The labels are drawn from the randomized classifier (seeded from ``seed`` through a stream separate from
        the privacy noise); ``scores`` holds the probability of the favorable label.
        """
        if not hasattr(self, "model_"):
            raise NotFittedError(f"{type(self).__name__} must be fitted before predict.")
        frame = self._features(dataset)
        check_dataset_features(self, frame.columns)     # the fitted features, in the same order
        X = _engine_input(frame, getattr(self.model_, "oracle_", None))
        favorable = self.model_.predict(X, random_state=predict_seed(self.seed)) == 1
        out = dataset.copy(deepcopy=True)
        out.labels = np.where(favorable, dataset.favorable_label, dataset.unfavorable_label).astype(float)[:, None]
        out.scores = self.model_._pmf_predict(X)[:, 1].reshape(-1, 1)
        return out


def _binary_labels(dataset):
    """The dataset's labels as 0/1 (1 = its favorable label); a ``ValueError`` for any other label."""
    if dataset.labels.ndim != 2 or dataset.labels.shape[1] != 1:
        raise ValueError("dataset must have exactly one label column.")
    labels = dataset.labels.ravel()
    if not np.isin(labels, (dataset.favorable_label, dataset.unfavorable_label)).all():
        if np.isnan(labels.astype(float)).any():
            raise ValueError("dataset has missing labels (NaN).")
        raise ValueError("dataset has labels other than its favorable/unfavorable labels (non-binary).")
    return (labels == dataset.favorable_label).astype(int)


def _engine_input(frame, oracle):
    """The features as the engine gets them: on Fairlearn's path (``oracle == "estimator"``, ``epsilon=inf``) the
    DataFrame AIF360 passes to Fairlearn (so the estimator sees what it sees under AIF360), else floats.
    """
    return frame if oracle == "estimator" else frame.to_numpy(dtype=float)
