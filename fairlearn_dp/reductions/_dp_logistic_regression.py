"""diffprivlib's ``LogisticRegression``, constructible on every supported scikit-learn (1.6-1.9).

diffprivlib 0.6.6's constructor passes ``multi_class='ovr'`` to scikit-learn's, which scikit-learn 1.8 removed, so
``diffprivlib.models.LogisticRegression()`` raises ``TypeError: ... unexpected keyword argument 'multi_class'``
there. The subclass below stores its parameters itself (the scikit-learn rule) and keeps diffprivlib's ``fit``
unchanged: the objective perturbation of Chaudhuri, Monteleoni and Sarwate (2011) with diffprivlib's ``Vector``
mechanism, rows clipped to ``data_norm``, the accountant charged ``epsilon`` once; ``random_state=None`` draws from
diffprivlib's secure source (its ``Vector`` mechanism turns numpy's global generator into ``secrets.SystemRandom``).
``clone`` keeps the ``accountant`` object, as fairdp's estimators do. ``predict_proba`` is the one-vs-rest
normalisation diffprivlib's models had (for two classes, the logistic of the decision function; scikit-learn 1.8
would take a softmax for more classes). Nothing of diffprivlib is patched.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from diffprivlib.models import LogisticRegression as _DiffprivlibLogisticRegression
from numpy.typing import ArrayLike
from scipy.special import expit

from .._utils._fit_support import SharedAccountantCloneMixin

__all__ = ["DPLogisticRegression"]


# diffprivlib 0.6.6 passes L-BFGS-B's ``iprint`` option, which SciPy 1.16+ deprecates: a warning about diffprivlib's
# code that the user cannot act on, silenced during its fit only.
_SCIPY_IPRINT = "scipy.optimize: The `disp` and `iprint` options of the L-BFGS-B solver are deprecated"


class DPLogisticRegression(SharedAccountantCloneMixin, _DiffprivlibLogisticRegression):
    """diffprivlib's ε-DP logistic regression, usable on scikit-learn 1.6-1.9.

    The same estimator as ``diffprivlib.models.LogisticRegression`` (same parameters, same ``fit``, same
    guarantee), whose constructor fails on scikit-learn >= 1.8. Use it as the private base model of a two-step
    pipeline under ``privacy_unit="record"``: fit it at ``ε/2``, then
    :class:`~fairlearn_dp.postprocessing.DPThresholdOptimizer` with ``prefit=True`` at ``ε/2`` (sequential
    composition: ε-DP for each record).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy parameter of the fit.
    data_norm : float or None, default=None
        Public bound on the L2 norm of a row of ``X`` (rows beyond it are scaled onto it). None makes diffprivlib read
        it off the data, which leaks (diffprivlib warns): pass the public bound, e.g. from
        :func:`~fairlearn_dp.reductions.layout_row_norm_bound`.
    tol, C, fit_intercept, max_iter, verbose, warm_start, n_jobs : see diffprivlib
        As in ``diffprivlib.models.LogisticRegression``.
    random_state : None, int or RandomState, default=None
        Seed of the noise; None: diffprivlib's secure source.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``epsilon`` by ``fit``; None: diffprivlib's default accountant.

    Privacy
    -------
    Neighbouring relation: one record (x, y) substituted, ``||x|| <= data_norm``. Release: the coefficients, by
    objective perturbation (diffprivlib's ``Vector`` mechanism), ``epsilon``-DP, ``delta = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from fairlearn_dp.reductions import DPLogisticRegression
    >>> X = np.random.default_rng(0).uniform(0, 1, size=(500, 2))
    >>> y = (X[:, 0] > 0.5).astype(int)
    >>> model = DPLogisticRegression(epsilon=1.0, data_norm=np.sqrt(2), random_state=0).fit(X, y)
    >>> model.predict_proba(X).shape
    (500, 2)
    """

    def __init__(self, *, epsilon: float = 1.0, data_norm: float | None = None, tol: float = 1e-4, C: float = 1.0,
                 fit_intercept: bool = True, max_iter: int = 100, verbose: int = 0, warm_start: bool = False,
                 n_jobs: int | None = None, random_state: Any = None, accountant: Any = None):
        # scikit-learn's LogisticRegression attributes that diffprivlib fixes; no scikit-learn constructor is called
        # (its signature changes across 1.6-1.9), and multi_class only steers predict_proba before 1.8.
        self.penalty, self.dual, self.intercept_scaling, self.class_weight = "l2", False, 1.0, None
        self.solver, self.l1_ratio, self.multi_class = "lbfgs", None, "ovr"
        self.tol, self.C, self.fit_intercept, self.max_iter = tol, C, fit_intercept, max_iter
        self.verbose, self.warm_start, self.n_jobs, self.random_state = verbose, warm_start, n_jobs, random_state
        self.epsilon, self.data_norm, self.accountant = epsilon, data_norm, accountant

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> DPLogisticRegression:
        """Fit with diffprivlib's ``fit`` (objective perturbation), charging ``accountant`` ``epsilon``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features; rows are clipped to ``data_norm``.
        y : array-like of shape (n_samples,)
            Labels.
        sample_weight : None
            Ignored, as by diffprivlib (which warns).

        Returns
        -------
        self : DPLogisticRegression
        """
        from diffprivlib import BudgetAccountant

        given = self.accountant
        self.accountant = BudgetAccountant.load_default(given)
        try:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_SCIPY_IPRINT, category=DeprecationWarning)
                return super().fit(X, y, sample_weight=sample_weight)
        finally:
            self.accountant = given                 # the parameter stays as given (clone keeps None or the object)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """One-vs-rest probabilities (two classes: ``[1 - p, p]`` with ``p`` the logistic of the decision).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_classes)
        """
        scores = expit(np.asarray(self.decision_function(X), dtype=float))
        if scores.ndim == 1:
            return np.column_stack([1.0 - scores, scores])
        return scores / scores.sum(axis=1, keepdims=True)
