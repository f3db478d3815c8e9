"""scikit-learn's regressor contract of :class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor`, as a
mixin: its tags, ``predict``'s check of the feature layout recorded by ``fit`` (``n_features_in_``,
``feature_names_in_``: the helpers of ``_utils/_features.py``, as every estimator), ``score``, and the bins' range at
``epsilon=inf`` without ``bounds``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import RegressorMixin, clone
from sklearn.metrics import r2_score
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from .._utils._features import check_predict_features
from .._utils._validation import check_bounds
from ..exceptions import PrivacyWarning, warn

__all__ = ["check_public_bounds", "fit_here", "outputs_range"]

def check_public_bounds(bounds: Any, epsilon: float, *, pending: bool = False) -> tuple[float, float] | None:
    """``bounds`` checked; None only at ``epsilon=inf`` (``fit`` then spans the outputs, :func:`outputs_range`) or
    while ``pending`` (a wrapper that reads them from a dataset's schema next). At a finite epsilon they are
    required before the budget check, whatever the data.
    """
    if bounds is not None:
        return check_bounds(bounds)
    if pending or math.isinf(epsilon):
        return None
    raise ValueError("bounds=(s, t) is required at a finite epsilon: the public interval of the regressor's outputs "
                     "that the bins divide, a public input needed for privacy. It must not be computed from the "
                     "private data (the outputs' own range would reveal their extreme values): choose it from domain "
                     "knowledge. Only at epsilon=inf (nothing private) may it be omitted.")


def outputs_range(outputs: np.ndarray) -> tuple[float, float]:
    """The bins' range at ``epsilon=inf`` without ``bounds`` (nothing is private): ``(min, max)`` of the fitting
    rows' regressor outputs (finite, non-empty), so that no output is clipped in ``fit``; a constant output ``v``
    gives ``(v - 0.5, v + 0.5)``. Never called at a finite epsilon (``bounds`` is then required, before the budget
    check).
    """
    lower, upper = float(np.min(outputs)), float(np.max(outputs))
    if lower == upper:
        lower, upper = lower - 0.5, upper + 0.5
    if not math.isfinite(upper - lower):
        raise ValueError("The regressor's outputs span more than the float range: pass bounds=(s, t).")
    return lower, upper


def _is_vector(X: Any) -> bool:
    """Whether ``X`` is 1-D, from its ``ndim`` (or a list's first entry): no value of a Dask collection is read."""
    if hasattr(X, "ndim"):
        return X.ndim == 1
    return isinstance(X, (list, tuple)) and len(X) > 0 and np.ndim(X[0]) == 0


def _input_tag(estimator: Any, name: str) -> bool:
    """The wrapped model's input tag ``name`` (False for an object without scikit-learn tags)."""
    if not hasattr(estimator, "__sklearn_tags__"):
        return False
    return bool(getattr(get_tags(estimator).input_tags, name))


class _RegressorContract(RegressorMixin):
    """The scikit-learn regressor face of ``DPFairRegressionPostprocessor`` (a mixin: it reads the estimator's
    parameters ``estimator``, ``group_estimator``, ``prefit`` and its ``predict``).
    """

    def __sklearn_tags__(self) -> Any:
        """A regressor's tags; sparse or NaN input is accepted when every wrapped model that reads ``X`` accepts it
        (with ``estimator=None``, ``X`` holds the outputs: dense and finite); ``y`` is needed only to fit
        ``estimator`` here; ``predict`` draws at random (``non_deterministic``).
        """
        tags = super().__sklearn_tags__()
        readers = [model for model in (self.estimator, self.group_estimator) if model is not None]
        for name in ("sparse", "allow_nan"):
            setattr(tags.input_tags, name, self.estimator is not None and all(_input_tag(m, name) for m in readers))
        tags.target_tags.required = self.estimator is not None and not self.prefit
        tags.non_deterministic = True
        return tags

    def score(self, X: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None, random_state: Any = None) -> float:
        """Coefficient of determination R^2 of ``predict(X, sensitive_features=...)`` against ``y``.

        Scoring reads the given rows exactly: it is **not** private (no noise, nothing charged to the accountant).
        Score on rows whose privacy need not be protected (e.g. a held-out test split).

        Parameters
        ----------
        X : array-like
            As in ``predict``.
        y : array-like of shape (n_samples,)
            True targets.
        sensitive_features : array-like or None, default=None
            As in ``predict``: required, except in attribute-blind mode, where it must not be passed.
        sample_weight : array-like of shape (n_samples,) or None, default=None
            Weights of the rows in R^2.
        random_state : None, int or numpy.random.RandomState, default=None
            Seeds ``predict``'s randomised transport (None: a secure source, so the score varies between calls).

        Returns
        -------
        float
            ``sklearn.metrics.r2_score(y, predict(X, ...), sample_weight=sample_weight)``.
        """
        predictions = self.predict(X, sensitive_features=sensitive_features, random_state=random_state)
        return float(r2_score(y, predictions, sample_weight=sample_weight))

    def _check_fit_target(self, y: Any) -> None:
        """``fit``'s public layout (before the budget check): ``y`` is given when the estimator is fitted here
        (``X``'s feature layout is checked by the fit order's common step, ``_utils/_features.py``).
        """
        if y is None and self.estimator is not None and not self.prefit:
            raise ValueError(f"y is required to fit the estimator (prefit=False): {type(self).__name__} requires y to "
                             "be passed, but the target y is None.")

    def _check_features(self, X: Any) -> None:
        """At ``predict``: fitted, and ``X``'s layout that of ``fit`` (scikit-learn's messages; no value read). With
        ``estimator=None`` a 1-D ``X`` is the outputs' column, as in ``fit``; else a 1-D ``X`` is refused with
        ``check_array``'s advice.
        """
        check_is_fitted(self, "bin_centers_")
        n_features = getattr(self, "n_features_in_", None)
        if n_features is not None and _is_vector(X):
            if self.estimator_ is None and n_features == 1:
                return
            raise ValueError(f"X is 1-D, but {type(self).__name__} was fitted on {n_features} features. Reshape your "
                             "data using X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample.")
        check_predict_features(self, X)


def fit_here(estimator, X, y, what, trust_diffprivlib=True, private=True, **kwargs):
    """``clone(estimator).fit(X, y)`` on the fitting data, with a :class:`PrivacyWarning` unless it is a diffprivlib
    model and ``trust_diffprivlib``, or the fit is not ``private`` (``epsilon=inf``: nothing is promised, so there is
    nothing to warn about): ``what`` says which model (the warning depends on the parameters only).
    """
    if private and not (trust_diffprivlib and type(estimator).__module__.startswith("diffprivlib")):
        warn(f"{what}: the post-processed model as a whole is then NOT differentially private. Use a prefit model "
             "trained on other data, or a DP model (e.g. from diffprivlib).", PrivacyWarning)
    return clone(estimator).fit(X, y, **kwargs)
