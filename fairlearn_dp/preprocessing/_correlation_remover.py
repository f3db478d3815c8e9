"""A differentially private version of Fairlearn's ``CorrelationRemover``: one release of bounded sufficient
statistics, the projection solved from the released values (``_correlation_statistics.py``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any, NamedTuple

import narwhals.stable.v1 as nw
import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from .._utils._features import check_predict_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin, SharedAccountantCloneMixin, atomic_fit
from .._utils._rows import clip_rows
from .._utils._validation import (
    _bound_side,
    check_alpha,
    check_bool,
    check_choice,
    check_delta,
    check_epsilon,
    check_real,
    check_seed,
    check_X,
)
from ..exceptions import UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._accountant import charge
from ..privacy._release import noise_scale, noise_sd, release_gaussian, release_laplace
from ._correlation_statistics import Layout, sensitivities, solve_projection, sufficient_statistics

__all__ = ["DPCorrelationRemover"]

_PRIVACY_UNITS = ("sensitive_attribute", "record")


def _check_ids(ids, name="sensitive_feature_ids"):
    """Fairlearn's reading (``list(ids)``: a string is its characters), refusing what is not iterable."""
    if not isinstance(ids, Iterable):
        raise TypeError(f"{name} must be a list of column indices or names, got {type(ids).__name__}.")
    ids = list(ids)
    if any(isinstance(i, (bool, np.bool_)) or not isinstance(i, (numbers.Integral, str)) for i in ids):
        raise TypeError(f"{name} must hold column indices (int) or column names (str), got {ids!r}.")
    return ids


def _check_bounds(bounds, name="bounds"):
    """None, or a pair ``(lower, upper)`` of numbers or 1-D per-column arrays with ``lower < upper``."""
    if bounds is None:
        return None
    if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2):
        raise TypeError(f"{name} must be a pair (lower, upper) of numbers or per-column arrays, got {bounds!r}.")
    lower, upper = (_bound_side(side, name) for side in bounds)
    if lower.ndim == upper.ndim == 1 and lower.size != upper.size:
        raise ValueError(f"{name}: lower has {lower.size} entries and upper {upper.size}.")
    if not np.all(lower < upper):
        raise ValueError(f"{name} must have lower < upper for every column, got {bounds!r}.")
    return lower, upper


def _refuse_missing(ids, found):
    """Fairlearn's ``ValueError`` (and message) for sensitive ids that are not among the columns ``found``."""
    missing = [i for i in ids if i not in found]
    if missing:
        raise ValueError(f"0 feature(s) (shape=({len(missing)}, 0)) while a minimum of {len(missing)} is "
                         f"required. Columns {missing} not found in the input data. Check sensitive_feature_ids.")


class _Public(NamedTuple):
    epsilon: float
    delta: float
    alpha: float
    privacy_unit: str
    ids: list
    bounds: tuple | None
    row_bound: float | None = None
    columns: list | None = None
    sensitive: list | None = None
    n: int | None = None


class DPCorrelationRemover(SharedAccountantCloneMixin, PrivateFitMixin, TransformerMixin, BaseEstimator):
    r"""Differentially private version of Fairlearn's ``CorrelationRemover``.

    Removes from the non-sensitive columns ``z`` of ``X`` their linear projection on the centred sensitive columns
    ``s`` (``z - (s - mean(s)) beta``, ``beta`` the least-squares coefficients), blended with the original columns
    by ``alpha``, and drops the sensitive columns, as Fairlearn's ``CorrelationRemover`` does. What ``fit`` reads
    of the data is one vector of sufficient statistics (the sums of ``s`` and ``z``, ``s s^T`` and ``s z^T`` of the
    rows clipped to the public ``bounds``), released once with noise; ``beta`` and the mean of ``s`` are solved
    from the released values. ``transform`` on any data is post-processing. At ``epsilon=inf`` the output equals
    Fairlearn's up to round-off.

    Parameters
    ----------
    sensitive_feature_ids : list, default=()
        The sensitive columns of ``X``: indices for an array, names for a DataFrame (Fairlearn's parameter).
    alpha : float, default=1
        How much to filter, in ``[0, 1]``: 1 removes the whole projection, 0 leaves ``z`` unchanged.
    epsilon : float, default=1.0
        Privacy budget, > 0; ``numpy.inf`` adds no noise (charged ``(inf, delta)``).
    delta : float, default=0.0
        0: Laplace mechanism (epsilon-DP); > 0: analytic Gaussian ((epsilon, delta)-DP).
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        What is protected: one row's sensitive columns (the other columns are public) or one whole row.
    bounds : tuple (lower, upper) or None, default=None
        Public interval of every column of ``X``, each side a number or an array with one entry per column;
        required at a finite epsilon, never computed from the data. Values outside are clipped silently in ``fit``.
    row_norm_bound_l1 : float or None, default=None
        Public bound on the L1 norm of a row's non-sensitive columns (as given, not shifted), e.g. the number of
        categorical attributes of a one-hot frame (``X.attrs["row_norm_bound_l1"]`` of the
        :mod:`fairlearn_dp.datasets` loaders, or ``layout_row_norm_bound``); never computed from the data. With it,
        those columns are not centred, rows above it are scaled onto it silently in ``fit``, and the sensitivity
        grows with the bound instead of with the summed half-widths of the columns: on sparse one-hot data much
        less noise. None (default): the columns' ``bounds`` alone.
    shrink_coefficients : bool, default=False
        Set to 0 every coefficient of ``beta_`` within 3 of its noise standard deviations of 0 (estimated from the
        released noise scale and the released covariance: post-processing), so that noise does not inject the
        sensitive columns into columns they barely correlate with (rare one-hot categories). Nothing changes at
        ``epsilon=inf``.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``(epsilon, delta)`` once per ``fit``; None uses diffprivlib's default; ``clone`` keeps it.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise; None uses a cryptographically secure generator (a seed is for experiments only).

    Attributes
    ----------
    sensitive_mean_ : ndarray of shape (n_sensitive,)
        The released mean of the sensitive columns.
    beta_ : ndarray of shape (n_sensitive, n_features - n_sensitive)
        The projection's coefficients, solved from the released statistics.
    lookup_ : dict
        Column id -> position in ``X`` (Fairlearn's attribute).
    noisy_statistics_ : ndarray
        The released vector (layout: ``fairlearn_dp/preprocessing/_correlation_statistics.py``).
    sensitivity_ : dict
        ``{"l1": ..., "l2": ...}``: the sensitivities the noise is calibrated to.
    noise_sd_ : float
        Standard deviation of one released entry's noise (public; 0 at ``epsilon=inf``).
    n_directions_ : int
        Eigen-directions of the released covariance of the sensitive columns kept above the noise.
    privacy_spent_ : PrivacySpend
        What ``fit`` charged.
    n_features_in_, feature_names_in_ : int, ndarray of str
        The layout of ``fit``'s ``X``, as scikit-learn sets them.

    Privacy
    -------
    - Neighbouring relation: datasets of the same public size ``n`` differing in one row's sensitive columns
      (``privacy_unit="sensitive_attribute"``; the other columns and their sums are public) or in one whole row
      (``"record"``).
    - Released statistic: the sums of ``s`` (and of ``z`` under ``"record"``), of ``s s^T`` (upper triangle) and
      of ``s z^T``, on the rows clipped to ``bounds`` and centred at the bounds' midpoints.
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, charged ``(epsilon, delta)`` once.
    - Sensitivity: from the bounds' half-widths ``r`` (sensitive) and ``R`` (other columns), derived per unit; with
      ``row_norm_bound_l1``, from ``r`` and the row bound instead of the sum of ``R`` (much smaller on one-hot data).
    - Post-processing: the solve, and with ``shrink_coefficients`` the zeroing of coefficients within the noise.
    - Public inputs: ``n``, ``bounds``, ``row_norm_bound_l1``, ``sensitive_feature_ids``, ``alpha``, the column layout; under
      ``"sensitive_attribute"`` also the non-sensitive columns.
    - Not covered: ``transform`` reads the sensitive columns of the rows it transforms, so its output on the
      fitting rows (``fit_transform``), and a model trained on it, depend on each row's own sensitive values.
    - Derivations: docs/privacy_analysis/correlation_remover.md.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.preprocessing import DPCorrelationRemover
    >>> rng = np.random.default_rng(0)
    >>> s = rng.integers(0, 2, 5000)
    >>> X = np.c_[s, s + rng.normal(0, 1, 5000).clip(-3, 3)]
    >>> remover = DPCorrelationRemover(sensitive_feature_ids=[0], epsilon=1.0, bounds=([0, -3], [1, 4]),
    ...                                accountant=BudgetAccountant(), random_state=0)
    >>> Z = remover.fit_transform(X)
    >>> bool(abs(np.corrcoef(s, Z[:, 0])[0, 1]) < 0.05), remover.privacy_spent_
    (True, PrivacySpend(epsilon=1.0, delta=0.0, rho=None))
    """

    _public_parameter_checks = {
        "sensitive_feature_ids": _check_ids,
        "alpha": lambda alpha, name: check_alpha(alpha),
        "epsilon": check_epsilon,
        "delta": check_delta,
        "privacy_unit": lambda unit, name: check_choice(unit, name, _PRIVACY_UNITS),
        "bounds": _check_bounds,
        "row_norm_bound_l1": lambda bound, name: check_real(bound, name, low=0.0, low_open=True, allow_none=True),
        "shrink_coefficients": check_bool,
        "random_state": check_seed,
    }

    def __init__(self, *, sensitive_feature_ids: Iterable = (), alpha: float = 1, epsilon: float = 1.0,
                 delta: float = 0.0, privacy_unit: str = "sensitive_attribute",
                 bounds: tuple[ArrayLike, ArrayLike] | None = None, row_norm_bound_l1: float | None = None,
                 shrink_coefficients: bool = False, accountant: Any = None, random_state: int | np.random.RandomState | None = None) -> None:
        self.sensitive_feature_ids = sensitive_feature_ids
        self.alpha = alpha
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.bounds = bounds
        self.row_norm_bound_l1 = row_norm_bound_l1
        self.shrink_coefficients = shrink_coefficients
        self.accountant = accountant
        self.random_state = random_state

    def _check_params_together(self, checked):
        if checked["bounds"] is None and not math.isinf(checked["epsilon"]):
            raise ValueError("bounds=(lower, upper) is required at a finite epsilon: a public interval for every "
                             "column of X, not computed from the private data.")
        return _Public(checked["epsilon"], checked["delta"], checked["alpha"], checked["privacy_unit"],
                       checked["sensitive_feature_ids"], checked["bounds"], checked["row_norm_bound_l1"])

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """The columns of ``X`` (names or count) hold every sensitive id, and per-column bounds have one entry per
        column; the number of rows is public. No value is read.
        """
        frame = nw.from_native(X, pass_through=True, eager_only=True)
        columns = list(frame.columns) if isinstance(frame, nw.DataFrame) else None
        shape = frame.shape if columns is not None else getattr(X, "shape", None) or np.asarray(X).shape
        n_columns = shape[1] if len(shape) == 2 else 1
        found = columns if columns is not None else range(n_columns)
        _refuse_missing(resolved.ids, found)
        if resolved.bounds is not None and any(side.ndim == 1 and side.size != n_columns for side in resolved.bounds):
            raise ValueError(f"bounds has per-column arrays of another length than X's {n_columns} columns.")
        lookup = {c: i for i, c in enumerate(found)}
        return _Public(*resolved[:7], columns=columns, sensitive=[lookup[i] for i in resolved.ids], n=shape[0])

    def _planned_spend(self, resolved):
        """One release, charged ``(epsilon, delta)``."""
        return PrivacySpend(resolved.epsilon, resolved.delta)

    @atomic_fit
    def fit(self, X: ArrayLike, y: Any = None) -> DPCorrelationRemover:
        """Release the sufficient statistics of ``X`` once and solve the projection from them.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The data, the sensitive columns included.
        y : ignored
            Not used; present for scikit-learn's API.

        Returns
        -------
        self : DPCorrelationRemover
        """
        public = self.check_public_inputs(X)
        data = self._read(X, public)
        layout, S, Z, centres = self._clipped(data, public)
        exact, sums_z = sufficient_statistics(S, Z, layout)
        released, sd = self._release(exact, layout, public)
        mean_s, self.beta_, self.n_directions_ = solve_projection(released, sums_z, public.n, layout, sd,
                                                                  shrink=self.shrink_coefficients)
        self.sensitive_mean_ = mean_s + centres[public.sensitive]
        self.noisy_statistics_, self.noise_sd_ = released, sd
        self.lookup_ = {c: i for i, c in enumerate(public.columns if public.columns is not None
                                                   else range(data.shape[1]))}
        self._columns_in_, self._sensitive_ = public.columns, public.sensitive
        set_fit_features(self, X)
        if layout.p and not self.n_directions_:
            warn("No direction of the released covariance of the sensitive columns stands above the noise at this "
                 "epsilon: transform removes nothing (raise epsilon, or tighten bounds).", UtilityWarning)
        return self

    def _read(self, X, public):
        """``X`` as a 2-D float array: scikit-learn's checks and messages at ``epsilon=inf`` (Fairlearn's), the
        withheld-value messages of :func:`check_X` otherwise.
        """
        frame = nw.from_native(X, pass_through=True, eager_only=True)
        values = frame.to_numpy() if isinstance(frame, nw.DataFrame) else X
        if math.isinf(public.epsilon):
            return check_array(values, dtype="numeric").astype(float)
        return check_X(values)[0]

    def _clipped(self, data, public):
        """The centred, clipped sensitive and other columns, their layout and the public centres."""
        n_columns = data.shape[1]
        if public.bounds is None:                      # epsilon=inf only: no clipping, centre 0
            centres, half = np.zeros(n_columns), None
            clipped = data
        else:
            lower, upper = (np.broadcast_to(side, (n_columns,)) for side in public.bounds)
            centres, half = (lower + upper) / 2.0, (upper - lower) / 2.0
            clipped = np.clip(data, lower, upper)
        others = [i for i in range(n_columns) if i not in public.sensitive]
        if public.row_bound is not None:             # the other columns not shifted: their rows' norm is bounded
            centres = centres.copy()
            centres[others] = 0.0
        S = clipped[:, public.sensitive] - centres[public.sensitive]
        Z = clipped[:, others] - centres[others]
        if public.row_bound is not None:
            Z = clip_rows(Z, public.row_bound, norm_ord=1)
        self.sensitivity_ = None if half is None else self._sensitivities(public, half, others)
        return Layout(S.shape[1], Z.shape[1], public.privacy_unit == "record"), S, Z, centres

    def _sensitivities(self, public, half, others):
        """``{"l1", "l2"}`` from the public bounds (and row bound): Lemmas 1 to 3 of the privacy-analysis page."""
        r = half[public.sensitive]
        if public.row_bound is None:
            values = sensitivities(r, half[others], public.privacy_unit)
        else:                                        # z unshifted, then scaled towards 0: |z_k| <= reach_k
            lower, upper = (np.broadcast_to(side, half.shape)[others] for side in public.bounds)
            reach = np.maximum(np.abs(lower), np.abs(upper))
            spread = (np.maximum(upper, 0.0) - np.minimum(lower, 0.0)) / 2.0
            values = sensitivities(r, spread, public.privacy_unit, row_bound=public.row_bound, reach=reach)
        return dict(zip(("l1", "l2"), values, strict=True))

    def _release(self, exact, layout, public):
        """The one release (Laplace on L1, or the analytic Gaussian on L2), charged once; ``(released, noise sd)``."""
        spend = PrivacySpend(public.epsilon, public.delta)
        released, sd = exact, 0.0
        if not math.isinf(public.epsilon) and exact.size:
            l1, l2 = self.sensitivity_["l1"], self.sensitivity_["l2"]
            sd = noise_sd(noise_scale(public.epsilon, public.delta, l1, l2), public.delta)
            if public.delta == 0:
                released = release_laplace(exact, epsilon=public.epsilon, l1_sensitivity=l1,
                                           random_state=self.random_state)
            else:
                released = release_gaussian(exact, l2_sensitivity=l2, epsilon=public.epsilon, delta=public.delta,
                                            random_state=self.random_state)
        self.privacy_spent_ = charge(self.accountant, spend)
        return released, sd

    def transform(self, X: ArrayLike) -> np.ndarray:
        """Remove the fitted projection from ``X``'s non-sensitive columns (post-processing; any rows).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            With the columns seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_features - n_sensitive)
            ``alpha (z - (s - sensitive_mean_) beta_) + (1 - alpha) z``.
        """
        check_is_fitted(self, ["beta_", "sensitive_mean_"])
        frame = nw.from_native(X, pass_through=True, eager_only=True)
        values = frame.to_numpy() if isinstance(frame, nw.DataFrame) else X
        data = check_array(values, dtype="numeric").astype(float)
        check_predict_features(self, X)
        if data.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {data.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input")
        others = [i for i in range(data.shape[1]) if i not in self._sensitive_]
        Z = data[:, others]
        filtered = Z - (data[:, self._sensitive_] - self.sensitive_mean_) @ self.beta_
        return self.alpha * filtered + (1 - self.alpha) * Z

    def _check_sensitive_features_in_X(self, X: ArrayLike) -> None:
        """Fairlearn's check of ``sensitive_feature_ids`` against ``X``'s columns (its own tests call it); a 1-D
        ``X`` passes, as in Fairlearn.
        """
        frame = nw.from_native(X, pass_through=True, eager_only=True)
        if isinstance(frame, nw.DataFrame):
            _refuse_missing(self.sensitive_feature_ids, list(frame.columns))
            return
        values = check_array(X, ensure_2d=False, ensure_min_samples=0)
        if values.ndim == 2:
            _refuse_missing(self.sensitive_feature_ids, range(values.shape[1]))

    def get_feature_names_out(self, input_features: ArrayLike | None = None) -> np.ndarray:
        """The names of the output columns: the input's without the sensitive ones.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Must equal the names seen in ``fit`` when given; None uses them (or ``x0, x1, ...``).

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, ["beta_"])
        if input_features is None:
            names = getattr(self, "feature_names_in_", None)
            names = list(names) if names is not None else [f"x{i}" for i in range(self.n_features_in_)]
        else:
            names = list(input_features)
            if len(names) != self.n_features_in_ or (hasattr(self, "feature_names_in_")
                                                     and names != list(self.feature_names_in_)):
                raise ValueError("input_features is not equal to the column names seen during fit.")
        return np.asarray([name for i, name in enumerate(names) if i not in self._sensitive_], dtype=object)
