"""AIF360 face of the private Fair No-Regret dynamics for rich-subgroup fairness (Cummings et al. 2019, Sec. 5)."""

from __future__ import annotations

import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from sklearn.linear_model import LinearRegression

from fairdp_adapters.aif360 import arrays_to_dataset, dataset_to_arrays
from fairlearn_dp.reductions._gerryfair import DPGerryFairClassifier as _Engine
from fairlearn_dp.utils._validation import atomic_fit

__all__ = ["DPGerryFairClassifier"]


class DPGerryFairClassifier(Transformer):
    """Differentially private rich-subgroup fair classifier, a drop-in for AIF360's ``GerryFairClassifier``.

    Plays the same fair learning game as AIF360's ``GerryFairClassifier`` (Kearns et al. 2018: a Learner with a
    linear-regression cost-sensitive oracle against an Auditor that searches halfspaces of the protected
    attributes for the subgroup with the largest weighted false-positive / false-negative disparity), with both
    players' oracles run on differentially private statistics, fresh noise every round (Cummings et al. 2019,
    Sec. 5). The computation is delegated to :class:`fairlearn_dp.reductions._gerryfair.DPGerryFairClassifier`
    (``model_``): the Learner sees ``dataset.features`` (which, as in AIF360, include the protected attributes),
    the Auditor ``dataset.protected_attributes`` (all of them), the labels are ``dataset.labels`` (0/1, as AIF360
    reads them). With ``epsilon=numpy.inf`` the first round is AIF360's exactly and the later ones differ only
    where AIF360's ``Auditor.update_costs`` gives every audited row the first audited row's subgroup cost (see the
    engine's Notes).

    Args:
        C (float): maximum L1 norm of the dual variables.
        printflag (bool): print the released error and violation of every round.
        heatmapflag (bool): not supported (``True`` raises ``ValueError`` in ``fit``: the heatmap plots raw data).
        heatmap_iter (int): unused (AIF360 compatibility).
        heatmap_path (str): unused (AIF360 compatibility).
        max_iters (int): time horizon; ``max_iters - 1`` rounds are played, as in AIF360.
        gamma (float): fairness approximation parameter.
        fairness_def (str): ``'FP'`` or ``'FN'``.
        predictor: ``LinearRegression`` or ``Ridge`` (only linear least squares runs on private statistics).
        epsilon (float): total privacy budget (> 0; ``numpy.inf`` for the non-private dynamics).
        delta (float): 0 for pure DP (Laplace), > 0 for the analytic Gaussian mechanism.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        random_state (int, optional): seeds the privacy noise (for experiments; a seeded release is not secure).
            None: diffprivlib's secure generator, never numpy's global one.
        feature_norm_bound, sensitive_norm_bound (float, optional): public bounds on the row norms of the features
            and of the protected attributes (L1 when ``delta == 0``, L2 otherwise); default: every entry in
            ``[-1, 1]``. AIF360's raw features (e.g. ``AdultDataset``'s ages) must be scaled with public ranges
            first, or larger rows are scaled onto the ball (silently: a warning would depend on the data).
        composition (str): ``'auto'``, ``'basic'`` or ``'advanced'`` (see the engine).

    Privacy: as the engine (see its Privacy section): ``(epsilon, delta)``-DP for the substitution of one record
    (features, protected attributes, label) of the dataset passed to ``fit``; ``2 + 4 (max_iters - 1)`` releases
    (two Gram matrices once; per round the Learner's and the Auditor's regression statistics, the subgroup's
    disparity and the error), each with an equal share of the budget under basic or advanced composition. After
    ``fit``, ``privacy_spent_`` holds the charge; ``classifiers``, ``errors`` and ``fairness_violations`` are
    AIF360's attributes (the errors and violations are the released, noisy values). Public: the number of rows,
    the dataset's schema (feature and protected attribute names), the norm bounds and the parameters. The budget
    is checked before any row is read, errors after it are domain errors without counts, and a failed ``fit``
    leaves the transformer as it was.
    """

    def __init__(self, C=10, printflag=False, heatmapflag=False, heatmap_iter=10, heatmap_path=".", max_iters=10,
                 gamma=0.01, fairness_def="FP", predictor=LinearRegression(), *, epsilon=1.0, delta=0.0,
                 accountant=None, random_state=None, feature_norm_bound=None, sensitive_norm_bound=None,
                 composition="auto"):
        super().__init__(C=C, printflag=printflag, heatmapflag=heatmapflag, heatmap_iter=heatmap_iter,
                         heatmap_path=heatmap_path, max_iters=max_iters, gamma=gamma, fairness_def=fairness_def,
                         predictor=predictor, epsilon=epsilon, delta=delta, accountant=accountant,
                         random_state=random_state, feature_norm_bound=feature_norm_bound,
                         sensitive_norm_bound=sensitive_norm_bound, composition=composition)
        self.C = C
        self.printflag = printflag
        self.heatmapflag = heatmapflag
        self.heatmap_iter = heatmap_iter
        self.heatmap_path = heatmap_path
        self.max_iters = max_iters
        self.gamma = gamma
        self.fairness_def = fairness_def
        self.predictor = predictor
        self.epsilon = epsilon
        self.delta = delta
        self.accountant = accountant
        self.random_state = random_state
        self.feature_norm_bound = feature_norm_bound
        self.sensitive_norm_bound = sensitive_norm_bound
        self.composition = composition
        self.classifiers = None
        self.errors = None
        self.fairness_violations = None

    @atomic_fit
    def fit(self, dataset, early_termination=True):
        """Run the private fair learning dynamics on ``dataset``.

        The parameters are validated and the budget is checked before the dataset's rows are read; a fit that
        raises leaves the transformer as it was (unfitted if it was).

        Args:
            dataset (BinaryLabelDataset): training data; labels in {0, 1}.
            early_termination (bool): AIF360's early-termination rule, applied to the released values.

        Returns:
            DPGerryFairClassifier: self.
        """
        model = _Engine(
            C=self.C, printflag=self.printflag, heatmapflag=self.heatmapflag, heatmap_iter=self.heatmap_iter,
            heatmap_path=self.heatmap_path, max_iters=self.max_iters, gamma=self.gamma,
            fairness_def=self.fairness_def, predictor=self.predictor, early_termination=early_termination,
            feature_norm_bound=self.feature_norm_bound, sensitive_norm_bound=self.sensitive_norm_bound,
            composition=self.composition, epsilon=self.epsilon, delta=self.delta, accountant=self.accountant,
            random_state=self.random_state)
        model._check_public()                       # public parameters, then the budget: before any row is read
        arrays = dataset_to_arrays(dataset)
        protected = pd.DataFrame(dataset.protected_attributes, columns=list(dataset.protected_attribute_names),
                                 index=arrays.X.index)
        model.fit(arrays.X, arrays.y, sensitive_features=protected)
        self.model_ = model
        self.classifiers = self.model_.predictors_
        self.errors = self.model_.errors_
        self.fairness_violations = self.model_.fairness_violations_
        self.privacy_spent_ = self.model_.privacy_spent_
        return self

    def predict(self, dataset, threshold=.5):
        """Return a copy of ``dataset`` whose labels are the fitted model's predictions (AIF360's rule).

        The soft prediction of a row is the average of the Learner's plays on it; the label is 1 when it is at
        least ``threshold`` (the soft prediction itself when ``threshold`` is falsy, as in AIF360). ``scores``
        holds the soft predictions. Deterministic; no sensitive attribute is used beyond the features.

        Args:
            dataset (BinaryLabelDataset): dataset to label (same features as in ``fit``).
            threshold (float): positive prediction cutoff for the soft classifier.

        Returns:
            BinaryLabelDataset: transformed dataset.
        """
        if self.classifiers is None:
            raise NotFittedError("DPGerryFairClassifier must be fitted before predict.")
        soft = self.model_.predict_proba(dataset_to_arrays(dataset).X)[:, 1]
        labels = (soft >= threshold).astype(float) if threshold else soft
        out = arrays_to_dataset(dataset, labels)
        out.scores = soft.reshape(-1, 1)
        return out
