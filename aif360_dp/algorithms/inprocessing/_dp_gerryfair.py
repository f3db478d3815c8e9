"""AIF360 face of the private Fair No-Regret dynamics for rich-subgroup fairness (Cummings et al. 2019, Sec. 5)."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from aif360.algorithms import Transformer
from aif360.algorithms.inprocessing.gerryfair_classifier import GerryFairClassifier as _AIF360GerryFair
from aif360.algorithms.transformer import NotFittedError
from sklearn.linear_model import LinearRegression

from fairlearn_dp._utils import atomic_fit, check_dataset_features, check_real, set_dataset_features, value_errors
from fairlearn_dp.exceptions import PrivacyWarning, warn
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._accountant import charge, check_spend, validate_epsilon_delta
from fairlearn_dp.privacy._post_release import issue_warnings_after_release
from fairlearn_dp.privacy._random import release_seeds
from fairlearn_dp.reductions import DPGerryFairClassifier as _Engine
from fairlearn_dp.reductions._gerryfair import private_fn_fp_audit

from ..._glue import arrays_to_dataset, dataset_to_arrays

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset
    from diffprivlib import BudgetAccountant

__all__ = ["DPGerryFairClassifier"]

# Each gamma of pareto's gamma_list: a finite number >= 0 (a ValueError naming gamma_list for any bad value).
_GAMMA = value_errors(functools.partial(check_real, low=0.0))


class DPGerryFairClassifier(Transformer):
    """Differentially private rich-subgroup fair classifier, a drop-in for AIF360's ``GerryFairClassifier``.

    Plays the same fair learning game as AIF360's ``GerryFairClassifier`` (Kearns et al. 2018: a Learner with a
    linear-regression cost-sensitive oracle against an Auditor that searches halfspaces of the protected
    attributes for the subgroup with the largest weighted false-positive / false-negative disparity), with both
    players' oracles run on differentially private statistics, fresh noise every round (Cummings et al. 2019,
    Sec. 5). The computation is delegated to :class:`fairlearn_dp.reductions._gerryfair.DPGerryFairClassifier`
    (``model_``): the Learner sees ``dataset.features`` (which, as in AIF360, include the protected attributes),
    the Auditor ``dataset.protected_attributes`` (all of them), the labels are ``dataset.labels`` (0/1, as AIF360
    reads them). With ``epsilon=numpy.inf`` (and the default ``cost_update='auto'``) it is AIF360's algorithm: the
    same plays, ``errors`` and ``fairness_violations`` round for round, up to floating-point round-off (a test runs
    AIF360's demo data through both), including AIF360 0.6.1's ``Auditor.update_costs``, which gives every
    audited row the first audited row's subgroup cost. A finite epsilon plays Kearns et al.'s Lagrangian instead
    (each row its own cost: AIF360's update reads one record and cannot be private), so as epsilon grows the
    private fit tends to ``cost_update='lagrangian'`` at ``epsilon=numpy.inf``, not to AIF360's trajectory (see
    the engine's Notes).

    Args:
        C (float): maximum L1 norm of the dual variables.
        printflag (bool): print the released error and violation of every round.
        heatmapflag (bool): save AIF360's heatmap every ``heatmap_iter`` rounds of ``fit``; only with
            ``epsilon=numpy.inf`` (``True`` with a finite epsilon raises ``ValueError`` in ``fit``: the heatmap
            plots the raw training data).
        heatmap_iter (int): rounds between two heatmaps.
        heatmap_path (str): where heatmaps are saved (``generate_heatmap`` saves ``<heatmap_path>.png``).
        max_iters (int): time horizon; ``max_iters - 1`` rounds are played, as in AIF360 (at most 2,000,
            ``MAX_ITERS`` of the engine).
        gamma (float): fairness approximation parameter.
        fairness_def (str): ``'FP'`` or ``'FN'``.
        predictor: the Learner's scikit-learn regressor. With a finite epsilon, ``LinearRegression`` or ``Ridge``
            only (linear least squares is what runs on the released statistics; any other predictor is a
            ``ValueError`` naming ``predictor``, raised before the data are read). With ``epsilon=numpy.inf`` any
            regressor AIF360 accepts (``LinearSVR``, ``DecisionTreeRegressor``, ``KernelRidge``, ...), fitted on
            AIF360's costs each round, as AIF360 does.
        epsilon (float): total privacy budget (> 0; ``numpy.inf`` for the non-private dynamics).
        delta (float): 0 for pure DP (Laplace), > 0 for the analytic Gaussian mechanism.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        random_state (int, optional): seeds the privacy noise (for experiments; a seeded release is not secure).
            None: diffprivlib's secure generator, never numpy's global one.
        feature_norm_bound, sensitive_norm_bound (float, optional): public bounds on the row norms of the features
            and of the protected attributes (L1 when ``delta == 0``, L2 otherwise); default: every entry in
            ``[-1, 1]``. AIF360's raw features (e.g. ``AdultDataset``'s ages) must be scaled with public ranges
            first, or larger rows are scaled onto the ball (silently: a warning would depend on the data). With
            ``epsilon=numpy.inf`` and None, no bound applies: the rows as given, as AIF360.
        composition (str): ``'auto'``, ``'basic'``, ``'advanced'`` or ``'zcdp'`` (see the engine; with ``delta > 0``
            'auto' picks zCDP composition of the Gaussian releases in practice).
        cost_update (str): ``'auto'`` (AIF360's update at ``epsilon=numpy.inf``, the Lagrangian otherwise),
            ``'aif360'`` (``epsilon=numpy.inf`` only) or ``'lagrangian'`` (each audited row its own subgroup cost,
            the non-private counterpart of the private dynamics); see the engine's ``cost_update``.

    Privacy: as the engine (see its Privacy section): ``(epsilon, delta)``-DP for the substitution of one record
    (features, protected attributes, label) of the dataset passed to ``fit``; ``2 + 4 (max_iters - 1)`` releases
    (two Gram matrices once; per round the Learner's and the Auditor's regression statistics, the subgroup's
    disparity and the error), each with an equal share of ``0.9 epsilon`` under basic, advanced or zCDP
    composition, and a final private choice (``0.1 epsilon``) between the fitted mixture and the constant
    classifiers, which ``predict`` then returns for every row (with a ``UtilityWarning``; ``constant_choice_``). After
    ``fit``, ``privacy_spent_`` holds the charge; ``classifiers``, ``errors`` and ``fairness_violations`` are
    AIF360's attributes (released, noisy values, clipped to their feasible ranges ``[0, 1]`` and ``[0, 1/4]``:
    post-processing; ``model_.history_`` keeps the raw ones). Public: the number of rows,
    the dataset's schema (feature and protected attribute names), the norm bounds and the parameters. The budget
    is checked before any row is read, errors after it are domain errors without counts, and a failed ``fit``
    leaves the transformer as it was.

    Methods beyond ``fit``/``predict``, as AIF360's: ``pareto`` (one fit per gamma, each a separate DP release
    charged on its own, plus a private audit per gamma; see its docstring), ``generate_heatmap``,
    ``save_heatmap`` and ``print_outputs`` (AIF360's plotting / printing helpers, which read the dataset they are
    given directly and are therefore not differentially private: a ``PrivacyWarning`` says so when ``epsilon``
    is finite).

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
        >>> gerry = DPGerryFairClassifier(max_iters=5, gamma=0.01, epsilon=1.0, accountant=BudgetAccountant(),
        ...                               random_state=0).fit(data)
        >>> gerry.privacy_spent_
        PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
        >>> out = gerry.predict(data, threshold=0.5)
        >>> out.labels.shape, bool(np.isin(out.labels, [0.0, 1.0]).all())
        ((2000, 1), True)
    """

    def __init__(self, C: float = 10, printflag: bool = False, heatmapflag: bool = False, heatmap_iter: int = 10,
                 heatmap_path: str | os.PathLike = ".", max_iters: int = 10, gamma: float = 0.01,
                 fairness_def: str = "FP", predictor: Any = LinearRegression(), *,  # noqa: B008
                 epsilon: float = 1.0, delta: float = 0.0, accountant: BudgetAccountant | None = None,
                 random_state: int | None = None, feature_norm_bound: float | None = None,
                 sensitive_norm_bound: float | None = None, composition: str = "auto",
                 cost_update: str = "auto") -> None:
        super().__init__(C=C, printflag=printflag, heatmapflag=heatmapflag, heatmap_iter=heatmap_iter,
                         heatmap_path=heatmap_path, max_iters=max_iters, gamma=gamma, fairness_def=fairness_def,
                         predictor=predictor, epsilon=epsilon, delta=delta, accountant=accountant,
                         random_state=random_state, feature_norm_bound=feature_norm_bound,
                         sensitive_norm_bound=sensitive_norm_bound, composition=composition,
                         cost_update=cost_update)
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
        self.cost_update = cost_update
        self.classifiers = None
        self.errors = None
        self.fairness_violations = None

    @atomic_fit
    def fit(self, dataset: BinaryLabelDataset, early_termination: bool = True) -> DPGerryFairClassifier:
        """Run the private fair learning dynamics on ``dataset``.

        The parameters are validated and the budget is checked before the dataset's rows are read; a fit that
        raises leaves the transformer as it was (unfitted if it was).

        Args:
            dataset (BinaryLabelDataset): training data; labels in {0, 1}.
            early_termination (bool): AIF360's early-termination rule, applied to the released values: two
                released values count as equal when they differ by less than the 99% quantile of their noise
                difference (exactly AIF360's equality at ``epsilon=numpy.inf``; see the engine's analysis page).

        Returns:
            DPGerryFairClassifier: self.
        """
        model = self._engine(early_termination=early_termination, gamma=self.gamma)
        arrays = dataset_to_arrays(dataset)
        protected = pd.DataFrame(dataset.protected_attributes, columns=list(dataset.protected_attribute_names),
                                 index=arrays.X.index)
        model.fit(arrays.X, arrays.y, sensitive_features=protected)
        self.model_ = model
        set_dataset_features(self, dataset.feature_names)     # predict refuses other feature_names, as scikit-learn does
        self.classifiers = self.model_.predictors_
        self.errors = self.model_.errors_
        self.fairness_violations = self.model_.fairness_violations_
        self.constant_choice_ = self.model_.constant_choice_
        self.privacy_spent_ = self.model_.privacy_spent_
        return self

    def _engine(self, *, early_termination, gamma, check_budget=True):
        """The engine for these parameters, its public parameters validated and (``check_budget``) the budget
        checked: before any row is read.
        """
        model = _Engine(
            C=self.C, printflag=self.printflag, heatmapflag=self.heatmapflag, heatmap_iter=self.heatmap_iter,
            heatmap_path=self.heatmap_path, max_iters=self.max_iters, gamma=gamma,
            fairness_def=self.fairness_def, predictor=self.predictor, early_termination=early_termination,
            feature_norm_bound=self.feature_norm_bound, sensitive_norm_bound=self.sensitive_norm_bound,
            composition=self.composition, cost_update=self._engine_cost_update(), epsilon=self.epsilon,
            delta=self.delta, accountant=self.accountant, random_state=self.random_state)
        model.check_public_inputs(check_budget=check_budget)
        return model

    def _engine_cost_update(self):
        """The engine's ``cost_update``: ``'auto'`` is AIF360's update at ``epsilon=numpy.inf``, else the
        Lagrangian (a bad epsilon is left to the engine's check, which names it).
        """
        if not (isinstance(self.cost_update, str) and self.cost_update in ("auto", "lagrangian", "aif360")):
            raise ValueError(f"cost_update must be 'auto', 'lagrangian' or 'aif360', got {self.cost_update!r}.")
        if self.cost_update != "auto":
            return self.cost_update
        try:
            infinite = math.isinf(float(self.epsilon))
        except (TypeError, ValueError):
            infinite = False
        return "aif360" if infinite else "lagrangian"

    def predict(self, dataset: BinaryLabelDataset, threshold: float = .5) -> BinaryLabelDataset:
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
        check_dataset_features(self, getattr(dataset, "feature_names", None))
        soft = self.model_.predict_proba(dataset_to_arrays(dataset).X)[:, 1]
        labels = (soft >= threshold).astype(float) if threshold else soft
        out = arrays_to_dataset(dataset, labels)
        out.scores = soft.reshape(-1, 1)
        return out

    # ------------------------------------------------------------------ AIF360's other methods
    @issue_warnings_after_release()        # the fits' warnings after the whole list: none of it is lost
    def pareto(self, dataset: BinaryLabelDataset, gamma_list: Sequence[float], *, audit_epsilon: float | None = None,
               audit_delta: float | None = None) -> tuple[list[float], list[float], list[float]]:
        """Fit once per gamma; return AIF360's ``(errors, fp_violations, fn_violations)``, one entry per gamma.

        As AIF360's ``GerryFairClassifier.pareto``: for each ``g`` in ``gamma_list``, ``self.gamma = g`` and the
        model is fitted with early termination (the transformer stays fitted with the last gamma); the entries are
        the last round's error and fairness violation of the fit (``fairness_def``'s violation: AIF360 assumes
        'FP') and the FN violation of the fitted model's 0/1 predictions (threshold 0.5) found by an audit.

        Privacy: with a finite ``epsilon`` every fit is a separate DP release of the dataset and charges the
        accountant ``(epsilon, delta)`` on its own, and every FN audit is another release (the Auditor's three
        statistics on the predictions of the released model, ``(audit_epsilon, audit_delta)`` split equally over
        them, basic composition) charged on its own: ``len(gamma_list)`` charges of ``(epsilon, delta)`` and
        ``len(gamma_list)`` of ``(audit_epsilon, audit_delta)``, which the accountant composes. Before the dataset
        is read, the parameters, every gamma and the whole spend (the sum of all these charges) are checked.
        The errors and violations returned are released values. With ``epsilon=numpy.inf`` nothing is private and
        the audit is AIF360's ``Auditor(dataset, 'FN').audit`` exactly.

        Args:
            dataset (BinaryLabelDataset): training data.
            gamma_list (list of float): the gammas (each finite and >= 0).
            audit_epsilon (float, optional): budget of each FN audit; default ``epsilon``.
            audit_delta (float, optional): delta of each FN audit; default ``delta``.

        Returns:
            tuple: (list of errors, list of fp violations, list of fn violations).
        """
        gammas = _check_gammas(gamma_list)
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        private = not math.isinf(epsilon)
        audit_spend = None
        if private:
            audit_epsilon, audit_delta = validate_epsilon_delta(
                epsilon if audit_epsilon is None else audit_epsilon, delta if audit_delta is None else audit_delta,
                allow_inf=False)
            audit_spend = PrivacySpend(audit_epsilon, audit_delta)
        for g in gammas:                     # every fit's public parameters, without reading or charging anything
            self._engine(early_termination=True, gamma=g, check_budget=False)
        audit_seeds = fit_seeds = None
        if private:
            audit_seeds, fit_seeds = self._pareto_budget(len(gammas), epsilon, delta, audit_spend)

        all_errors, all_fp_violations, all_fn_violations = [], [], []
        aif360_auditor = []                  # AIF360's Auditor, built once at epsilon = inf
        for index, g in enumerate(gammas):
            self._pareto_fit(dataset, g, None if fit_seeds is None else fit_seeds[index])
            labels = self.predict(dataset).labels
            if private:
                fn_violation = self._private_fn_audit(dataset, labels, audit_spend, audit_seeds[index])
            else:
                fn_violation = _aif360_fn_audit(dataset, labels, aif360_auditor)
            all_errors.append(self.errors[-1])
            all_fp_violations.append(self.fairness_violations[-1])
            all_fn_violations.append(float(fn_violation))
        return all_errors, all_fp_violations, all_fn_violations

    def _pareto_budget(self, k, epsilon, delta, audit_spend):
        """Check the sweep's whole spend; ``(audit seeds, fit seeds)``, one stream per release."""
        total_delta = k * (delta + audit_spend.delta)
        if total_delta >= 1:
            raise ValueError("pareto: the total delta of the sweep, len(gamma_list) * (delta + audit_delta), "
                             "must be < 1.")
        check_spend(self.accountant, PrivacySpend(k * (epsilon + audit_spend.epsilon), total_delta))
        # One stream per release: the audits keep seeds 1..k of the derived sequence, each gamma's fit gets its
        # own (k+1..2k), so a seeded sweep does not add the same noise draws to every fit's statistics.
        streams = release_seeds(self.random_state, 2 * k + 1)
        return streams[1:k + 1], streams[k + 1:]

    def _pareto_fit(self, dataset, gamma, seed):
        """One gamma's fit (with its own noise stream when private); the user's random_state is kept."""
        self.gamma = gamma
        user_random_state = self.random_state
        if seed is not None:
            self.random_state = seed
        try:
            self.fit(dataset, early_termination=True)
        finally:
            self.random_state = user_random_state

    def _private_fn_audit(self, dataset, labels, audit_spend, seed):
        """The FN violation of the fitted model's labels, by the private Auditor; charged ``audit_spend``."""
        arrays = dataset_to_arrays(dataset)
        fn_violation = private_fn_fp_audit(
            dataset.protected_attributes, np.asarray(arrays.y, dtype=float), labels, "FN",
            epsilon=audit_spend.epsilon, delta=audit_spend.delta, sensitive_norm_bound=self.sensitive_norm_bound,
            random_state=seed)
        charge(self.accountant, audit_spend)
        return fn_violation

    def _warn_not_private(self, method):
        try:
            finite = not math.isinf(float(self.epsilon))
        except (TypeError, ValueError):
            finite = True
        if finite:
            warn(f"DPGerryFairClassifier.{method} reads the dataset it is given directly (AIF360's "
                 "plotting/auditing code): its output is not differentially private.", PrivacyWarning)

    def generate_heatmap(self, dataset: BinaryLabelDataset, predictions: Any, vmin: float | None = None,
                         vmax: float | None = None, cols_index: list[int] = [0, 1],  # noqa: B006
                         eta: float = .1) -> Any:
        """AIF360's ``generate_heatmap``: the weighted disparity of ``predictions`` over a grid of halfspaces of
        two protected attributes (``cols_index``), saved to ``<heatmap_path>.png``.

        Delegates to AIF360's code. Not a DP release: it reads the dataset's labels and protected attributes
        directly (a ``PrivacyWarning`` says so when ``epsilon`` is finite).
        """
        self._warn_not_private("generate_heatmap")
        return _AIF360GerryFair.generate_heatmap(self, dataset, predictions, vmin=vmin, vmax=vmax,
                                                 cols_index=cols_index, eta=eta)

    def save_heatmap(self, iteration: int, dataset: BinaryLabelDataset, predictions: Any, vmin: float | None,
                     vmax: float | None) -> Any:
        """AIF360's ``save_heatmap`` helper (when ``heatmapflag`` and ``iteration % heatmap_iter == 0``); not DP."""
        if self.heatmapflag and iteration % self.heatmap_iter == 0:
            self._warn_not_private("save_heatmap")
        return _AIF360GerryFair.save_heatmap(self, iteration, dataset, predictions, vmin, vmax)

    def print_outputs(self, iteration: int, error: float, group: Any) -> None:
        """AIF360's ``print_outputs`` helper: print a round's error and an AIF360 ``Group`` when ``printflag``."""
        return _AIF360GerryFair.print_outputs(self, iteration, error, group)


def _check_gammas(gamma_list):
    """``gamma_list`` as a non-empty list of finite numbers >= 0 (public: checked before anything is read)."""
    if isinstance(gamma_list, (str, bytes)) or not hasattr(gamma_list, "__iter__"):
        raise ValueError("gamma_list must be a list of numbers.")
    gammas = list(gamma_list)
    if not gammas:
        raise ValueError("gamma_list must not be empty.")
    for g in gammas:
        _GAMMA(g, "gamma_list")
    return gammas


def _aif360_fn_audit(dataset, labels, cache):
    """AIF360's ``Auditor(dataset, 'FN').audit`` of the labels (``epsilon = inf``); the Auditor is built once."""
    from aif360.algorithms.inprocessing.gerryfair.auditor import Auditor
    from aif360.algorithms.inprocessing.gerryfair.clean import array_to_tuple

    if not cache:
        cache.append(Auditor(dataset, "FN"))
    _, fn_violation = cache[0].audit(array_to_tuple(labels))
    return fn_violation
