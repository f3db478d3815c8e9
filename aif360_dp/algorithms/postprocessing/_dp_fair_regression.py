"""AIF360 face of the DP fair-regression post-processor (Xian et al. 2024)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError

from fairlearn_dp._utils import atomic_fit, check_dataset_features, check_seed, set_dataset_features
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

from ..._glue import (
    arrays_to_dataset,
    check_dataset,
    dataset_to_arrays,
    declared_groups,
    predict_seed,
    protected_attribute,
    public_label_bounds,
)

if TYPE_CHECKING:
    from aif360.datasets import RegressionDataset

__all__ = ["DPFairRegressionPostprocessing"]


class DPFairRegressionPostprocessing(Transformer):
    """Differentially private statistical-parity post-processing of regression predictions, for AIF360 datasets.

    Fits :class:`fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` on the predicted labels of a
    ``RegressionDataset`` (or on its true labels, the setting of Xian et al.'s experiments) and returns datasets
    whose labels are remapped so that all groups of one protected attribute get the same output distribution
    (within KS distance ``alpha``).

    Args:
        epsilon (float): privacy budget (> 0; ``numpy.inf`` for the non-private baseline).
        delta (float): 0 for pure DP (Laplace); > 0 for the analytic Gaussian mechanism.
        bounds (tuple, optional): public interval (s, t) of the labels **in original units**. Default: the
            dataset's ``metadata['label_bounds']`` (fairdp's datasets record it). A dataset without them needs
            ``bounds``: AIF360 min-max scales a ``RegressionDataset``'s label with the data's own min and max, so
            bounds read from the stored label would depend on the private data.
        n_bins (int): number of histogram bins.
        alpha (float): KS tolerance in [0, 1].
        protected_attribute_name (str, optional): attribute defining the groups; default the dataset's first.
            Its groups are the values declared in the dataset's privileged/unprivileged metadata.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        seed (int, optional): seeds the privacy noise of ``fit`` and (through a separate stream derived from it,
            so ``predict``'s draws never replay the noise) the randomised transport of ``predict``. For
            experiments: a seeded release is not secure; leave it None for production.
        solver (str): ``"exact"`` or a cvxpy solver name, see the Fairlearn-face class.
        group_estimator (classifier, optional): attribute-blind mode: a *fitted* classifier (on other data, or DP)
            of the protected attribute from the label (the regressor output being post-processed) followed by the
            dataset's features **without the protected attributes' columns** (``feature_names`` order), with
            ``predict_proba`` and ``classes_`` equal to the declared groups.
            ``fit`` still uses the dataset's protected attribute, privately; ``predict`` then does not read it.
            See :class:`fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` (*Attribute-blind mode*).
        posterior_buckets (int): attribute-blind mode: number of buckets of the predicted group posterior (>= 1).
        noise_margin (float): attribute-blind mode: KS constraints tightened per group by this many standard
            deviations of the release noise's effect (default 1.0; 0 for none), see the Fairlearn-face class.

    Privacy: as :class:`fairlearn_dp.postprocessing.DPFairRegressionPostprocessor`: epsilon-DP (or (epsilon,
    delta)-DP) for the substitution of one record of the dataset passed to ``fit``; L1 sensitivity of the released
    joint histogram 2/n. The predictions being post-processed must come from a model that did not see this data,
    or from a DP model whose spend is accounted separately. After ``fit``, ``privacy_spent_`` holds the charge.

    Failure paths: the parameters (first, before the datasets are looked at), the dataset's public schema
    (protected attribute, declared groups, label bounds) and the accountant's budget are checked before any row is
    read; declared groups without rows fit; a fit that
    raises leaves the transformer as it was.

    Examples:
        >>> from diffprivlib import BudgetAccountant
        >>> from aif360_dp.datasets import CommunitiesCrimeDataset
        >>> data = CommunitiesCrimeDataset()                 # records the label's public bounds
        >>> post = DPFairRegressionPostprocessing(epsilon=1.0, n_bins=10, alpha=0.0, seed=0,
        ...                                       accountant=BudgetAccountant()).fit(data)
        >>> post.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
        >>> fair = post.predict(data)
        >>> fair.labels.shape, bool(((fair.labels >= 0) & (fair.labels <= 1)).all())
        ((1994, 1), True)
    """

    def __init__(self, epsilon: float = 1.0, delta: float = 0.0, bounds: tuple[float, float] | None = None,
                 n_bins: int = 36, alpha: float = 0.0, protected_attribute_name: str | None = None,
                 accountant: Any = None, seed: int | None = None, solver: str = "exact", group_estimator: Any = None,
                 posterior_buckets: int = 10, noise_margin: float = 1.0) -> None:
        super().__init__(epsilon=epsilon, delta=delta, bounds=bounds, n_bins=n_bins, alpha=alpha,
                         protected_attribute_name=protected_attribute_name, accountant=accountant, seed=seed,
                         solver=solver, group_estimator=group_estimator, posterior_buckets=posterior_buckets,
                         noise_margin=noise_margin)
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.n_bins = n_bins
        self.alpha = alpha
        self.protected_attribute_name = protected_attribute_name
        self.accountant = accountant
        self.seed = seed
        self.solver = solver
        self.group_estimator = group_estimator
        self.posterior_buckets = posterior_buckets
        self.noise_margin = noise_margin

    @atomic_fit
    def fit(self, dataset_true: RegressionDataset,
            dataset_pred: RegressionDataset | None = None) -> DPFairRegressionPostprocessing:
        """Fit on the predictions in ``dataset_pred`` (or on ``dataset_true``'s labels when it is None).

        Args:
            dataset_true (RegressionDataset): dataset with true labels (gives the groups when ``dataset_pred``
                is None; its labels are not otherwise used).
            dataset_pred (RegressionDataset, optional): same instances with predicted labels.

        Returns:
            DPFairRegressionPostprocessing: self.
        """
        check_seed(self.seed, "seed")               # the face's own name for the engine's random_state
        model = DPFairRegressionPostprocessor(
            epsilon=self.epsilon, delta=self.delta, bounds=self.bounds, n_bins=self.n_bins, alpha=self.alpha,
            accountant=self.accountant, random_state=self.seed, solver=self.solver,
            group_estimator=self.group_estimator, posterior_buckets=self.posterior_buckets,
            noise_margin=self.noise_margin, prefit=True)
        model.check_public_inputs(check_budget=False)    # the parameters first: before the datasets, even their schema
        check_dataset(dataset_true, "dataset_true")
        source = dataset_true
        if dataset_pred is not None:
            check_dataset(dataset_pred, "dataset_pred")
            if dataset_pred.labels.shape != dataset_true.labels.shape:
                raise ValueError("dataset_true and dataset_pred must have the same number of instances.")
            source = dataset_pred
        name = protected_attribute(source, self.protected_attribute_name)
        model.set_params(bounds=public_label_bounds(source, self.bounds), groups=declared_groups(source, name))
        model.check_public_inputs()             # with the schema's bounds and groups, and the whole budget
        arrays = dataset_to_arrays(source, protected_attribute_name=name)
        model.fit(self._model_input(source, arrays, self.group_estimator is not None),
                  sensitive_features=arrays.sensitive_features.to_numpy(dtype=float))
        self.model_ = model
        self.protected_attribute_name_ = name
        set_dataset_features(self, source.feature_names)      # predict refuses other feature_names, as scikit-learn does
        self.privacy_spent_ = self.model_.privacy_spent_
        return self

    def predict(self, dataset: RegressionDataset) -> RegressionDataset:
        """Return a copy of ``dataset`` whose labels are post-processed (in the dataset's label units).

        Args:
            dataset (RegressionDataset): predictions to post-process (labels = regressor outputs).

        Returns:
            RegressionDataset: transformed dataset; ``metadata`` records this transformer.
        """
        if not hasattr(self, "model_"):
            raise NotFittedError("DPFairRegressionPostprocessing must be fitted before predict.")
        check_dataset_features(self, getattr(dataset, "feature_names", None))
        arrays = dataset_to_arrays(dataset, protected_attribute_name=self.protected_attribute_name_)
        blind = self.model_.group_estimator_ is not None
        fair = self.model_.predict(self._model_input(dataset, arrays, blind),
                                   sensitive_features=(None if blind
                                                       else arrays.sensitive_features.to_numpy(dtype=float)),
                                   random_state=predict_seed(self.seed))
        return arrays_to_dataset(dataset, fair)

    @staticmethod
    def _model_input(dataset, arrays, blind):
        """The engine's ``X``: the labels (outputs) alone, or in attribute-blind mode the labels then the features
        without the protected attributes' columns (the whole array is the group estimator's input).
        """
        if not blind:
            return arrays.y[:, None]
        features = arrays.X.drop(columns=[c for c in dataset.protected_attribute_names if c in arrays.X.columns])
        return np.column_stack([arrays.y, features.to_numpy(dtype=float)])

    def fit_predict(self, dataset_true: RegressionDataset,
                    dataset_pred: RegressionDataset | None = None) -> RegressionDataset:
        """``fit`` then ``predict`` on ``dataset_pred`` (or ``dataset_true``)."""
        return self.fit(dataset_true, dataset_pred).predict(dataset_true if dataset_pred is None else dataset_pred)
