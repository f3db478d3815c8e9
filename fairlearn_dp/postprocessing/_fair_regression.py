"""DP fair-regression post-processing by optimal transport to a Wasserstein barycenter (Xian et al. 2024, Alg. 1)."""

from __future__ import annotations

import functools
import inspect
import math
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.utils.validation import check_is_fitted

from .._utils._features import check_fit_features, set_fit_features
from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit
from .._utils._validation import (
    as_1d_float,
    as_group_vector,
    check_alpha,
    check_bool,
    check_delta,
    check_epsilon,
    check_estimator,
    check_n_bins,
    check_positive_int,
    check_real,
    check_rows_alike,
    check_seed,
    check_solver,
    check_string,
    encode_groups,
    resolve_groups,
    validate_params,
)
from .._utils._withheld import call_total_on_private_rows
from ..exceptions import UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._random import check_random_state
from ._barycenter import _TABULATED_GROUPS, solve_barycenter
from ._blind import n_posterior_cells
from ._blind_fit import _AttributeBlindFit
from ._counting import (
    check_layout,
    counting_backend,
    is_dask_input,
    release_counts,
    require_declared_groups,
    require_prefit_or_none,
)
from ._dask_predict import pmf_predict_dask, predict_dask
from ._inputs import check_target_rows, encode_group_index, light_copy
from ._regressor_contract import _RegressorContract, check_public_bounds, fit_here, outputs_range
from ._transport import _shifted_kernel_cdfs, _transport_kernels, private_group_estimates

__all__ = ["DPFairRegressionPostprocessor", "MAX_N_BINS", "MAX_FIT_MEMORY_BYTES", "fit_memory_estimate"]

# Memory is linear in k: the fitted object holds sparse couplings and kernels (at most 3k non-zeros per group) and
# the exact solver's temporaries are O(|A|^2 k) (see _barycenter.py); no k x k array is built. Time grows as
# |A| k log(|A| k). Checked before any work, so a far too large k fails fast. (solver=<cvxpy name> still builds the
# LP's |A| k^2 variables.)
MAX_N_BINS = 1_000_000
# The fit's peak memory per released histogram cell (n_groups x n_bins, x the posterior buckets in attribute-blind
# mode), an upper bound from tracemalloc peaks of the post-release steps with every CDF value distinct (the solver's
# worst case) at 2-32 groups: 180-230 B/cell up to 8 groups, under 200 beyond
# (tests/benchmarks/bench_fair_regression_bins.py, docs/performance.md). The group term is the exact solver's table
# of the counts N_a at each of its up to 2|A|k breakpoints: two int32 per group and breakpoint, 16 |A| bytes per
# cell, tabulated up to _TABULATED_GROUPS = 8 groups only (searched beyond), so memory is linear in cells.
FIT_BYTES_PER_CELL = 256
FIT_BYTES_PER_CELL_PER_GROUP = 16
FIT_TABULATED_GROUPS = _TABULATED_GROUPS
# A fit whose estimated peak exceeds this budget is refused before the budget check (or, with groups read from the
# data, before the release): 4 x 10^6 cells at 4 groups need 1.28 GB; k = 10^6 passes with up to 11 groups.
MAX_FIT_MEMORY_BYTES = 4 * 2**30


def fit_memory_estimate(n_groups: int, n_cells: int) -> int:
    """Upper bound, in bytes, of the peak memory of a fit whose released histogram has ``n_cells`` cells.

    Parameters
    ----------
    n_groups : int
        Number of groups ``|A|``.
    n_cells : int
        Cells of the released histogram: ``n_groups * n_bins`` (times the posterior buckets when blind).

    Returns
    -------
    int
        ``n_cells * (FIT_BYTES_PER_CELL + FIT_BYTES_PER_CELL_PER_GROUP * min(n_groups, 8))``: at most 384 bytes
        per cell, whatever the number of groups.
    """
    return int(n_cells) * (FIT_BYTES_PER_CELL + FIT_BYTES_PER_CELL_PER_GROUP * min(int(n_groups),
                                                                                    FIT_TABULATED_GROUPS))


# Parameters of attribute-blind mode only: without a group_estimator a value other than the default has no effect
# and is refused (the default passes, so get_params / clone / set_params round-trip).
_BLIND_ONLY = ("posterior_buckets", "noise_margin")
# The public parameters with a check of their own, in the order they are checked (the class's
# _public_parameter_checks; the joint rules follow in _check_params_together). posterior_buckets and noise_margin are
# checked in every mode, so that a bad value never passes unnoticed.
_PUBLIC_PARAMETER_CHECKS = {
    "epsilon": check_epsilon,
    "delta": check_delta,
    "n_bins": functools.partial(check_n_bins, maximum=MAX_N_BINS, reason=" (time and memory grow with n_bins)"),
    "alpha": lambda alpha, name: check_alpha(alpha),
    "prefit": check_bool,
    "predict_method": check_string,
    "random_state": check_seed,
    "solver": functools.partial(check_solver, own="exact"),
    "posterior_buckets": check_positive_int,
    "noise_margin": functools.partial(check_real, low=0.0),
}


class _Public(NamedTuple):
    """The resolved public inputs of a fit (``check_public_inputs``)."""

    epsilon: float
    delta: float
    bounds: tuple[float, float] | None
    n_bins: int
    alpha: float
    groups: list | None


class DPFairRegressionPostprocessor(SharedAccountantCloneMixin, PrivateFitMixin, _AttributeBlindFit, _RegressorContract,
                                    MetaEstimatorMixin, BaseEstimator):
    r"""Differentially private post-processing of a regressor for statistical parity.

    Remaps a regressor's outputs so that every group's output distribution lies within Kolmogorov-Smirnov distance
    ``alpha`` of every other group's, with minimum squared deviation, while the fitted remapping is differentially
    private with respect to its fitting data (Algorithm 1 of [Xian2024]_): bin the outputs (``_discretize``), count
    the (group, bin) cells in memory or on Dask workers (``_counting.py``, the only step that reads the data), release
    the joint histogram with noise (``_release_histogram``),
    estimate each group's PMF from it (``_estimate_distributions``), solve the barycenter LP (``_solve_barycenter``)
    and transport each group's outputs at random along its optimal coupling (``predict``).

    Parameters
    ----------
    estimator : object, default=None
        A regressor with ``fit``/``predict``; None post-processes ``X``, the one-column array of regressor outputs.
    epsilon : float, default=1.0
        Privacy budget, > 0; ``numpy.inf`` is the non-private "binning + fair" baseline (charged ``(inf, 0)``).
    delta : float, default=0.0
        0 for pure epsilon-DP (Laplace mechanism); > 0 uses the analytic Gaussian mechanism.
    bounds : tuple (s, t) or None, default=None
        Public interval of the outputs (clipped to it: silently in ``fit``, warned in ``predict``), required at a
        finite epsilon, never computed from the private data; at ``epsilon=inf`` None spans the fitting outputs.
    n_bins : int, default=36
        Number ``k`` of equal-width bins of ``bounds`` (outputs become bin midpoints; fewer bins favour fairness),
        in ``[1, MAX_N_BINS]`` (10^6). The cap is on memory: a fit is refused, before the budget check, when its
        estimated peak, ``256 + 16 min(|A|, 8)`` bytes per cell of the ``|A| k`` released cells (times ``B'`` when
        blind; ``fit_memory_estimate``), exceeds ``MAX_FIT_MEMORY_BYTES`` (4 GiB). k = 10^6 passes with up to 11 groups;
        4 groups x 10^6 bins take about 2 s (docs/performance.md).
    alpha : float, default=0.0
        KS tolerance in ``[0, 1]``: 0 asks for exact statistical parity, 1 leaves the binned outputs unchanged.
    groups : list or None, default=None
        Public list of group labels; None reads them from the data (a :class:`~fairlearn_dp.exceptions.PrivacyWarning`).
    prefit : bool, default=False
        If True, ``estimator`` (and ``group_estimator``) are already fitted and are not refitted.
    predict_method : str, default="predict"
        The estimator's method that produces the outputs to post-process.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``(epsilon, delta)`` once per ``fit``; None uses diffprivlib's default; ``clone`` keeps the object.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise of ``fit``; None uses a cryptographically secure generator (a seed is for experiments).
    solver : str, default="exact"
        ``"exact"`` (a structure-exploiting solver; HiGHS through SciPy in attribute-blind mode) or the name of an
        installed cvxpy solver (e.g. ``"HIGHS"``) for the LP as written; both give the same optimum (tested).
    group_estimator : classifier or None, default=None
        Attribute-blind mode: a classifier of the group with ``predict_proba`` and ``classes_`` equal to the
        (required) ``groups``, prefit on other rows or DP with its own budget (``prefit=False`` only at
        ``epsilon=inf``). ``predict`` then takes no ``sensitive_features``; with ``estimator=None`` column 0 of
        ``X`` holds the outputs and the group estimator reads the whole ``X``.
    posterior_buckets : int, default=10
        Attribute-blind mode: number ``B`` >= 1 of buckets of the predicted group posterior; the LP's ``n_bins^2``
        variables per bucket must not exceed ``MAX_BLIND_LP_VARIABLES`` (2 x 10^6) in all.
    noise_margin : float >= 0, default=1.0
        Attribute-blind mode: standard deviations of the release noise by which each group's KS constraint is
        tightened, so that ``alpha`` also bounds the fitting data's KS. With ``posterior_buckets``, refused at a
        value other than the default without a ``group_estimator``.

    Attributes
    ----------
    estimator_ : object or None
        The fitted regressor (None when ``estimator`` is None).
    groups_ : list
        Group labels; row ``a`` of every per-group attribute refers to ``groups_[a]``.
    n_features_in_, feature_names_in_ : int, ndarray of str
        The layout of ``fit``'s ``X``, as scikit-learn sets them (names only for string column names).
    bin_edges_ : ndarray of shape (n_bins + 1,)
    bin_centers_ : ndarray of shape (n_bins,)
        The support ``v`` of all distributions and of the post-processed outputs.
    noisy_joint_pmf_ : ndarray of shape (n_groups, n_bins)
        The released statistic ``p_check(a, v_j)`` (``n_bins * B'`` columns in attribute-blind mode).
    group_weights_ : ndarray of shape (n_groups,)
        Private group weights ``w_a = max(sum_j p_check(a, v_j), 0)``.
    group_pmfs_, target_pmfs_ : ndarray of shape (n_groups, n_bins)
        Private PMFs ``p_a`` of each group's binned outputs, and ``q_a``, each group's target distribution.
    barycenter_ : ndarray of shape (n_bins,)
        ``q``, the centre of the KS balls (the Wasserstein barycenter when ``alpha=0``).
    transport_plans_ : tuple of scipy.sparse.csr_array of shape (n_bins, n_bins)
        Optimal couplings ``pi_a`` of ``p_a`` (rows) and ``q_a`` (columns), one per group.
    objective_ : float
        The LP optimum ``sum_a w_a W_2^2(p_a, q_a)``; in attribute-blind mode the expected squared change.
    privacy_spent_ : PrivacySpend
        What ``fit`` charged to the accountant.
    group_estimator_ : object or None
        Attribute-blind mode: the group classifier (prefit, or fitted at ``epsilon=inf``); None otherwise.
    n_posterior_buckets_ : int
        Attribute-blind mode: the number ``B'`` of posterior buckets (``B`` for two groups, else ``|A| ceil(B/|A|)``).
    cell_pmfs_ : ndarray of shape (n_groups, n_bins * B')
        Attribute-blind mode: each group's private distribution over the cells (bin ``j``, bucket ``b``).
    remap_ : scipy.sparse.csr_array of shape (n_bins * B', n_bins)
        Attribute-blind mode: the randomised map from each cell to an output bin (rows sum to 1).
    cell_noise_sd_ : float
        Attribute-blind mode: the standard deviation of one released cell's noise (public; 0 at ``epsilon=inf``).
    ks_margins_ : ndarray of shape (n_groups,)
        Attribute-blind mode: each group's KS margin ``m_a`` (its half-width is ``max(alpha/2 - m_a, 0)``).

    Privacy
    -------
    - Neighbouring relation: fitting datasets of the same public size ``n`` differing in one record ``(x, a)``.
    - Released statistic: the joint PMF of (group, output bin) over all cells of the public grid (in attribute-blind
      mode, of (group, output bin, posterior bucket)); the rest is post-processing.
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, charged ``(epsilon, delta)`` once.
    - Sensitivity: ``2/n`` in L1 and ``sqrt(2)/n`` in L2 (Xian et al., Remark B.1).
    - Public inputs: ``bounds``, ``n_bins``, ``alpha``, ``groups``, and in attribute-blind mode
      ``posterior_buckets``, ``noise_margin`` and the group estimator; the regressor must not depend on the data.
    - Derivations: docs/privacy_analysis/fair_regression.md.

    References
    ----------
    .. [Xian2024] R. Xian, Q. Li, G. Kamath, H. Zhao. "Differentially Private Post-Processing for Fair
       Regression." ICML 2024.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 2000)
    >>> scores = np.clip(rng.normal(0.4 + 0.2 * a, 0.1), 0, 1)[:, None]
    >>> pp = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=10, groups=[0, 1],
    ...                                    accountant=BudgetAccountant(), random_state=0)
    >>> fair = pp.fit(scores, sensitive_features=a).predict(scores, sensitive_features=a, random_state=0)
    >>> pp.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    """

    _public_parameter_checks = _PUBLIC_PARAMETER_CHECKS

    def __init__(self, *, estimator: Any = None, epsilon: float = 1.0, delta: float = 0.0,
                 bounds: tuple[float, float] | None = None, n_bins: int = 36, alpha: float = 0.0,
                 groups: list | None = None, prefit: bool = False, predict_method: str = "predict",
                 accountant: Any = None, random_state: Any = None, solver: str = "exact", group_estimator: Any = None,
                 posterior_buckets: int = 10, noise_margin: float = 1.0) -> None:
        self.estimator = estimator
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.n_bins = n_bins
        self.alpha = alpha
        self.groups = groups
        self.prefit = prefit
        self.predict_method = predict_method
        self.accountant = accountant
        self.random_state = random_state
        self.solver = solver
        self.group_estimator = group_estimator
        self.posterior_buckets = posterior_buckets
        self.noise_margin = noise_margin

    # ------------------------------------------------------------------ fit
    def check_public_inputs(self, X: Any = None, y: Any = None, *, sensitive_features: Any = None,
                            check_budget: bool = True, **fit_kwargs: Any) -> Any:
        """Validate every public parameter (and, given ``fit``'s arguments, their public layout), then check that
        the accountant can pay ``(epsilon, delta)``; read no value of the data.

        What ``fit`` does first (``PrivateFitMixin.check_public_inputs``, in ``fairlearn_dp._utils``).
        With ``check_budget=False`` (a wrapper that reads ``bounds`` and ``groups`` from a dataset's schema before it
        checks the budget), ``bounds=None`` and ``groups=None`` pass, and the rules that need them wait for them.
        """
        if check_budget:
            return super().check_public_inputs(X, y, sensitive_features=sensitive_features, **fit_kwargs)
        resolved = self._check_params_together(validate_params(self, self._public_parameter_checks), pending=True)
        if X is not None:
            check_fit_features(X)                   # the column names: scikit-learn's rules (_utils/_features.py)
            resolved = self._check_public_layout(resolved, X, y, sensitive_features, fit_kwargs)
        return resolved

    def _check_params_together(self, checked, *, pending=False):
        """The joint rules, after the table: the estimator and its ``predict_method``, the attribute-blind
        parameters, ``bounds``, the declared groups and the histogram's size. Returns the resolved public inputs.
        ``pending``: ``bounds`` and ``groups`` may still be None (see ``check_public_inputs``).
        """
        self._check_estimator()
        if self.group_estimator is None:
            self._check_blind_only_defaults()
        bounds = check_public_bounds(self.bounds, checked["epsilon"], pending=pending)
        groups = None if self.groups is None else resolve_groups(self.groups, None,
                                                                 estimator_name=type(self).__name__)
        if not (pending and groups is None):
            if self.group_estimator is not None:
                self._check_blind_inputs(groups, checked["epsilon"])
            if groups is not None:
                self._check_histogram_size(len(groups), checked["n_bins"])
        return _Public(checked["epsilon"], checked["delta"], bounds, checked["n_bins"], checked["alpha"], groups)

    def _check_public_layout(self, resolved, X, y, sensitive_features, fit_kwargs):
        """Public checks of ``fit``'s arguments (no value read): ``X``'s feature layout, ``y`` if the estimator is
        fitted here, ``sensitive_features`` given and the rows alike; Dask: no group_estimator, groups and bounds
        declared, estimator prefit or None, aligned partitions.
        """
        self._check_fit_target(y)
        check_rows_alike([("X", X), ("y", y), ("sensitive_features", sensitive_features)],
                         required=("sensitive_features",))
        if is_dask_input(X, y, sensitive_features):
            if self.group_estimator is not None:
                raise ValueError("Dask inputs are not supported in attribute-blind mode (group_estimator given).")
            require_declared_groups(resolved.groups)
            if resolved.bounds is None:
                raise ValueError("bounds=(s, t) is required with Dask inputs, at epsilon=inf too.")
            require_prefit_or_none(self.estimator, self.prefit)
            check_layout(X, y, sensitive_features)
        return resolved

    def _planned_spend(self, resolved):
        """One release, charged ``(epsilon, delta)``."""
        return PrivacySpend(resolved.epsilon, resolved.delta)

    def _check_blind_only_defaults(self):
        """Without ``group_estimator``, ``posterior_buckets`` and ``noise_margin`` would be ignored: a value other
        than the default is refused (the default passes, so ``clone`` and ``get_params`` round-trip).
        """
        defaults = inspect.signature(DPFairRegressionPostprocessor.__init__).parameters
        for name in _BLIND_ONLY:
            value, default = getattr(self, name), defaults[name].default
            if value != default:
                raise ValueError(f"{name}={value!r} applies only in attribute-blind mode (with a group_estimator); "
                                 f"without one it would have no effect. Pass a group_estimator, or leave {name} at "
                                 f"its default {default!r}.")

    def _check_histogram_size(self, n_groups, n_bins):
        """Refuse a fit whose estimated peak memory exceeds ``MAX_FIT_MEMORY_BYTES`` (public sizes only: the
        released histogram's cells and the number of groups, :func:`fit_memory_estimate`).
        """
        per_group = n_bins * (1 if self.group_estimator is None
                              else n_posterior_cells(n_groups, int(self.posterior_buckets)))
        needed = fit_memory_estimate(n_groups, n_groups * per_group)
        if needed > MAX_FIT_MEMORY_BYTES:
            raise ValueError(f"n_bins={n_bins} with {n_groups} groups gives a histogram of {n_groups * per_group:,} "
                             f"cells (groups x n_bins{' x posterior buckets' if per_group != n_bins else ''}), whose "
                             f"fit needs about {needed / 2**30:.1f} GiB of memory ({needed // (n_groups * per_group)} bytes "
                             "per cell), above the memory budget "
                             f"MAX_FIT_MEMORY_BYTES={MAX_FIT_MEMORY_BYTES / 2**30:g} GiB: use fewer bins or groups.")

    def _check_estimator(self):
        """The regressor (public): None, one to fit here, or a fitted one with ``predict_method``."""
        if check_estimator(self.estimator, prefit=self.prefit) is None or not self.prefit:
            return
        if not callable(getattr(self.estimator, self.predict_method, None)):
            raise ValueError(f"predict_method={self.predict_method!r}: the prefit estimator "
                             f"{type(self.estimator).__name__} has no such method.")
        check_is_fitted(self.estimator)

    @atomic_fit
    def fit(self, X: ArrayLike, y: ArrayLike | None = None, *, sensitive_features: ArrayLike,
            **kwargs: Any) -> DPFairRegressionPostprocessor:
        """Fit the private post-processor.

        The one order of every private fit (``_utils/_fit_order.py``): the public parameters and the budget, the
        domain (regressor, groups, grid), the counts of the (group, bin) cells (in memory or on Dask workers,
        ``_counting.py``), one release, the barycenter LP on the release.

        Parameters
        ----------
        X : array-like
            Features for ``estimator``; with ``estimator=None``, the one-column array of regressor outputs.
            Dask arrays / DataFrames (``X``, ``y`` and ``sensitive_features`` alike, same partitions; ``groups``
            declared; estimator prefit or None) fit out of core: counts on the workers, one release here
            (``fairlearn_dp/postprocessing/_counting.py``).
        y : array-like or None, default=None
            Targets; used only to fit ``estimator`` when ``prefit=False``. Post-processing itself needs no labels.
        sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
            Group membership; several columns are combined into one group label per row.
        **kwargs
            Passed to ``estimator.fit``.

        Returns
        -------
        self
        """
        # 1-2. public parameters, the public layout of the arguments (_check_public_layout), budget
        public = self.check_public_inputs(X, y, sensitive_features=sensitive_features, **kwargs)
        epsilon, delta, bounds, n_bins, alpha, groups = public
        set_fit_features(self, X)           # n_features_in_ (and feature_names_in_); kept only if the fit succeeds
        if self.group_estimator is not None:
            return self._fit_blind(X, y, sensitive_features, kwargs, epsilon, delta, bounds, n_bins, alpha, groups)
        private = not math.isinf(epsilon)
        self.estimator_ = self._fit_estimator(X, y, private=private, **kwargs)     # 3. domain
        if groups is None or bounds is None:                       # in memory only (Dask: both declared)
            # bounds None only at epsilon=inf (not private): no default output is needed there
            outputs = self._outputs(X, private=private, default=None if bounds is None else bounds[0])
            check_target_rows(y, outputs.size)
            bounds = outputs_range(outputs) if bounds is None else bounds   # None: epsilon=inf only
        if groups is None:
            groups = resolve_groups(None, as_group_vector(sensitive_features, outputs.size), private=private,
                                    estimator_name=type(self).__name__)
            self._check_histogram_size(len(groups), n_bins)      # groups read from the data: before the release
        lower, upper = bounds
        # A declared group without rows is not an error: its cells are released with noise like any other.
        self.groups_ = groups
        self.bin_edges_ = np.linspace(lower, upper, n_bins + 1)
        self.bin_centers_ = lower + (np.arange(n_bins) + 0.5) * (upper - lower) / n_bins
        keep = set(self.get_params(deep=False)) | {"estimator_", "groups_", "bin_edges_", "bin_centers_"}
        cell_index = functools.partial(_regression_cells, light_copy(self, keep), list(groups), n_bins, private)
        counts, n = counting_backend(X, y, sensitive_features)(    # 4. count
            cell_index, len(groups) * n_bins, X, y, sensitive_features)
        # 5. release (Alg. 1, lines 3-4), the only step that reads the data; 6. post-process the release only.
        self.noisy_joint_pmf_, self.privacy_spent_ = self._release_histogram(
            counts.reshape(len(groups), n_bins), n, epsilon=epsilon, delta=delta)
        return self._solve_from_release(alpha, n_bins)

    def _fit_group_estimator(self, features, group_labels):
        if self.prefit:
            return self.group_estimator
        # Only at epsilon=inf (refused before the budget check otherwise: _check_blind_inputs). Always warned, a
        # diffprivlib classifier too: its fitted classes_ (and any error it raises, e.g. one group present) depend
        # on which groups the data hold, and its spend goes to its own accountant.
        return fit_here(self.group_estimator, features, group_labels, "The group estimator is fitted here, on the "
                         "sensitive attribute of the data that the post-processor is fitted on (its classes, errors "
                         "and spend are not covered by this estimator's guarantee)", trust_diffprivlib=False)

    def _forget_mode(self, *, blind):
        """Drop the fitted attributes of the other mode (a refit may switch between aware and blind)."""
        for name in (("barycenter_", "group_pmfs_", "transport_plans_") if blind else
                     ("n_posterior_buckets_", "cell_pmfs_", "remap_", "cell_noise_sd_", "ks_margins_")):
            self.__dict__.pop(name, None)
        if not blind:
            self.group_estimator_ = None

    def _solve_from_release(self, alpha, n_bins):
        """Alg. 1, lines 5-10 on ``noisy_joint_pmf_`` alone (shared by the in-memory and the Dask fit)."""
        self._forget_mode(blind=False)
        self.group_weights_, self.group_pmfs_ = self._estimate_distributions(self.noisy_joint_pmf_)
        solution = self._solve_barycenter(self.group_pmfs_, self.group_weights_, alpha)
        self.barycenter_ = solution.barycenter
        self.target_pmfs_ = solution.targets
        self.transport_plans_ = solution.couplings
        self.objective_ = solution.objective
        self._kernels = _transport_kernels(solution.couplings)
        self._shifted_cdfs, self._cdf_columns = _shifted_kernel_cdfs(self._kernels)
        return self

    def _fit_estimator(self, X, y, *, private=True, **kwargs):
        """The regressor: None, the prefit one, or fitted here (with a ``PrivacyWarning`` at a finite epsilon)."""
        if self.estimator is None:
            if kwargs:
                raise ValueError("fit keyword arguments are only passed to an estimator; estimator is None.")
            return None
        if not self.prefit:
            if y is None:
                raise ValueError("y is required to fit the estimator (prefit=False).")
            return fit_here(self.estimator, X, y, "The estimator is fitted non-privately on the same data that "
                             "the post-processor is fitted on", private=private, **kwargs)
        check_is_fitted(self.estimator)
        return self.estimator

    def _outputs(self, X, *, private=False, default=None):
        """The regressor's outputs; ``private``: X holds the private fitting rows, on which the regressor is made
        total: a row on which it raises or gives a non-finite output gets the public ``default`` (None: the lower
        end of ``bounds``, ``bin_edges_[0]``), so whether the fit succeeds depends on no record; the default is a
        function of the row alone, so the sensitivity is unchanged (:func:`call_total_on_private_rows`).
        """
        if self.estimator_ is None:
            return as_1d_float(X, "X")
        what = f"estimator.{self.predict_method}(X)"
        method = getattr(self.estimator_, self.predict_method)
        if not private:
            return as_1d_float(method(X), what)
        default = float(self.bin_edges_[0]) if default is None else float(default)
        return as_1d_float(call_total_on_private_rows(method, X, what, default=default, row_shape=lambda: ()), what)

    def _discretize(self, outputs, *, warn_clipped=True):
        """``h`` of Alg. 1, line 2: index of the nearest bin midpoint, after clipping to ``bounds``.

        ``fit`` clips silently (``warn_clipped=False``): whether a warning fires would depend on the private data.
        ``predict`` warns.
        """
        lower, upper = self.bin_edges_[0], self.bin_edges_[-1]
        if warn_clipped and np.any((outputs < lower) | (outputs > upper)):
            warn(f"Some outputs lie outside bounds=({lower}, {upper}) and were clipped to it.", UtilityWarning)
        n_bins = self.bin_centers_.size
        # Bins are [e_j, e_{j+1}); rounding to 9 decimals first sends values that sit on an edge up to
        # floating-point error (e.g. GPAs on a 0.1 grid with k = 180) consistently to the upper bin.
        position = np.round((np.clip(outputs, lower, upper) - lower) * n_bins / (upper - lower), 9)
        return np.clip(np.floor(position).astype(np.intp), 0, n_bins - 1)

    def _release_histogram(self, counts, n, *, epsilon, delta):
        """The one release of a fit: the private joint PMF ``counts / n``, charged once to the accountant."""
        return release_counts(counts, n, epsilon=epsilon, delta=delta, accountant=self.accountant,
                              random_state=self.random_state)

    @staticmethod
    def _estimate_distributions(noisy_joint_pmf):
        """Alg. 1, lines 5-9: private group weights and re-normalised group PMFs from the released PMF only."""
        return private_group_estimates(noisy_joint_pmf)

    def _solve_barycenter(self, group_pmfs, group_weights, alpha):
        """Alg. 1, line 10: barycenter and optimal couplings from the private estimates only.

        A group whose private weight is 0 does not enter the objective, so the LP would leave its target arbitrary
        within the constraints (and could move its outputs even at ``alpha = 1``). Weights are therefore floored
        at ``1e-9`` of their total, which breaks that tie toward moving such a group least while changing the
        optimum by a negligible amount.
        """
        floor = 1e-9 * max(float(group_weights.sum()), 1e-12)
        return solve_barycenter(group_pmfs, np.maximum(group_weights, floor), alpha, self.bin_centers_,
                                solver=self.solver)

    # -------------------------------------------------------------- predict
    def predict(self, X: ArrayLike, *, sensitive_features: ArrayLike | None = None, random_state: Any = None) -> Any:
        """Post-process: transport each output to its group's target distribution (Alg. 1, lines 11-13).

        Parameters
        ----------
        X : array-like
            As in ``fit``.
        sensitive_features : array-like or None
            Group membership of each row; every group must be one seen in ``fit``. Required, except in
            attribute-blind mode (``group_estimator`` given), where passing it is an error: the fitted map does
            not use the group.
        random_state : None, int or numpy.random.RandomState, default=None
            Seeds the randomised transport; the same seed gives the same predictions. None draws from a generator
            seeded by the operating system (never numpy's global generator).

        Returns
        -------
        ndarray of shape (n_samples,)
            Fair outputs, taking values in ``bin_centers_``. On Dask inputs (``X`` and ``sensitive_features`` Dask
            arrays, DataFrames or Series, partitioned alike) a lazy Dask array with one block per partition of
            ``X``, computed on the workers, and exactly the in-memory predictions of the computed inputs with the
            same ``random_state`` (``fairlearn_dp/postprocessing/_dask_predict.py``); a group not in ``groups_``
            then raises its ``ValueError`` when the result is computed.
        """
        self._check_features(X)
        if is_dask_input(X, sensitive_features):
            self._check_predict_mode(sensitive_features)
            return predict_dask(light_copy(self)._randomised_predict, X, sensitive_features, random_state,
                                dtype=float)
        row = self._kernel_rows(X, sensitive_features)
        return self._sample(row, check_random_state(random_state))

    def _randomised_predict(self, X, sensitive_features, generator):
        """``predict`` with the ``RandomState`` ``generator`` (a Dask partition passes the generator advanced by
        the rows before it).
        """
        return self._sample(self._kernel_rows(X, sensitive_features), generator)

    def _sample(self, row, generator):
        """One output per kernel row, drawn with one uniform of ``generator`` per row, in row order."""
        uniforms = generator.random_sample(row.size)
        # Inverse-CDF sampling from row r of the kernels: the first column whose CDF value is >= u. All rows' CDFs
        # are stored in one sorted array, row r shifted by 2r (each CDF lies in [0, 1]), so one searchsorted
        # serves every sample. Only the CDF's steps (the kernel's non-zeros) are stored, after a leading 0 at
        # column 0; a u above the row's last value (round-off) gives the last column.
        n_bins = self.bin_centers_.size
        position = np.searchsorted(self._shifted_cdfs, uniforms + 2.0 * row, side="left")
        row_end = self._kernels.indptr[row + 1] + row + 1          # one past row r's last stored CDF value
        column = self._cdf_columns[np.minimum(position, self._cdf_columns.size - 1)]
        return self.bin_centers_[np.where(position < row_end, column, n_bins - 1)]

    def _pmf_predict(self, X, *, sensitive_features=None):
        """Distribution of each row's post-processed output over ``bin_centers_``, dense of shape (n_samples,
        n_bins); on Dask inputs a lazy Dask array of that shape, as ``predict``.
        """
        self._check_features(X)
        if is_dask_input(X, sensitive_features):
            self._check_predict_mode(sensitive_features)
            return pmf_predict_dask(light_copy(self)._pmf_predict, X, sensitive_features,
                                    n_columns=self.bin_centers_.size)
        return self._kernels[self._kernel_rows(X, sensitive_features)].toarray()

    def _check_predict_mode(self, sensitive_features):
        """Fitted, and ``sensitive_features`` passed exactly when the fitted map uses the group (public checks,
        before any row is read). Returns True in attribute-blind mode.
        """
        check_is_fitted(self, "bin_centers_")
        if getattr(self, "group_estimator_", None) is not None:
            if sensitive_features is not None:
                raise ValueError("sensitive_features must not be passed to predict in attribute-blind mode "
                                 "(group_estimator given): the fitted map does not use the group.")
            return True
        if sensitive_features is None:
            raise ValueError("sensitive_features is required: this post-processor was fitted with the group as an "
                             "input (pass group_estimator for attribute-blind post-processing).")
        return False

    def _kernel_rows(self, X, sensitive_features):
        """Row of the fitted kernels for each row of ``X``: (group, bin) when aware, (bin, bucket) when blind."""
        if self._check_predict_mode(sensitive_features):
            regressor_input, features = self._blind_inputs(X)
            outputs = self._outputs(regressor_input)
            buckets = self._buckets(self.group_estimator_, features, self.groups_, outputs.size, warn=True)
            return self._discretize(outputs) * self.n_posterior_buckets_ + buckets
        group_index, bin_index = self._rows(X, sensitive_features)
        return group_index * self.bin_centers_.size + bin_index

    def _rows(self, X, sensitive_features):
        check_is_fitted(self, "transport_plans_")
        outputs = self._outputs(X)
        group_index = encode_groups(as_group_vector(sensitive_features, outputs.size, groups=self.groups_),
                                    self.groups_)
        return group_index, self._discretize(outputs)


def _regression_cells(template, groups, n_bins, private, x, y, sensitive_features):
    """``cell_index`` of :meth:`DPFairRegressionPostprocessor.fit`: cell ``a k + j`` of each row (group ``a``, bin
    ``j`` of its output), with fit's domain checks and messages; ``template`` is the estimator's light copy.
    """
    outputs = template._outputs(x, private=private)
    check_target_rows(y, outputs.size)
    group_index = encode_group_index(sensitive_features, outputs.size, groups)
    return group_index * n_bins + template._discretize(outputs, warn_clipped=False)

