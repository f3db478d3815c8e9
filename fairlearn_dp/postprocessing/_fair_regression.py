"""DP fair-regression post-processing by optimal transport to a Wasserstein barycenter (Xian et al. 2024, Alg. 1)."""

from __future__ import annotations

import functools
import inspect
import math
import warnings

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils.validation import check_is_fitted

from ..privacy import PrivacySpend, PrivacyWarning, check_spend, private_joint_histogram, validate_epsilon_delta
from ..privacy._release import joint_histogram_sensitivity, noise_scale, noise_sd
from ..utils._random import check_random_state
from ..utils._validation import (
    SharedAccountantCloneMixin,
    as_1d_float,
    as_group_vector,
    atomic_fit,
    call_on_private_rows,
    check_alpha,
    check_bounds,
    check_bool,
    check_estimator,
    check_n_bins,
    check_positive_int,
    check_real,
    check_seed,
    check_solver,
    check_string,
    encode_groups,
    resolve_groups,
    validate_params,
)
from ._barycenter import solve_barycenter
from ._blind import cell_distributions, n_posterior_cells, noise_margins, posterior_buckets, solve_blind_remap
from ._dask_predict import pmf_predict_dask, predict_dask
from ._distributed import is_dask_input

__all__ = ["DPFairRegressionPostprocessor", "MAX_N_BINS", "MAX_HISTOGRAM_CELLS"]

# Memory is linear in k: the fitted object holds sparse couplings and kernels (at most 3k non-zeros per group) and
# the exact solver's temporaries are O(|A|^2 k) (see _barycenter.py); no k x k array is built. Time grows as
# |A| k log(|A| k); a 4-group fit at k = 10^6 peaks near 0.8 GB (tests/benchmarks/bench_fair_regression_memory.py
# measures k up to 10^5). Checked before any work, so a far too large k fails fast. (solver=<cvxpy name> still builds
# the LP's |A| k^2 variables.)
MAX_N_BINS = 1_000_000
# Attribute-blind mode solves an LP with n_bins^2 * (posterior buckets) kernel variables (``_blind.py``), twice
# with noise margins: 0.2 s for the whole fit at 36^2 * 12 on Law School (bench_blind), seconds to minutes in the
# hundreds of thousands. Larger problems are refused up front.
MAX_BLIND_LP_VARIABLES = 2_000_000
# Time grows with the released histogram's cells, n_groups x n_bins (x the posterior buckets in attribute-blind
# mode): about 1.5 us per cell for the whole fit (release, isotonic fits, barycenter, kernels), measured on a 2-core
# machine with the exact solver and a seed: 2 groups x 10^6 bins 2.8 s, 8 x 250,000 3.1 s, 4 x 10^6 6.1 s, 8 x 10^6
# 17 s (1.6 GB). Beyond this the fit is refused before the budget check (or, with groups read from the data, before
# the release).
MAX_HISTOGRAM_CELLS = 2_000_000
# Parameters of attribute-blind mode only: without a group_estimator a value other than the default has no effect
# and is refused (the default passes, so get_params / clone / set_params round-trip).
_BLIND_ONLY = ("posterior_buckets", "noise_margin")
# The public parameters checked by these generic checks, in the one validation step before the budget check (the
# others have checks of their own in _check_public_inputs). posterior_buckets and noise_margin are checked in every
# mode, so that a bad value never passes unnoticed.
_PARAMETER_CHECKS = {
    "prefit": check_bool,
    "predict_method": check_string,
    "random_state": check_seed,
    "solver": functools.partial(check_solver, own="exact"),
    "posterior_buckets": check_positive_int,
    "noise_margin": functools.partial(check_real, low=0.0),
}


class DPFairRegressionPostprocessor(SharedAccountantCloneMixin, MetaEstimatorMixin, BaseEstimator):
    r"""Differentially private post-processing of a regressor for statistical parity.

    Remaps a regressor's outputs so that every group's output distribution lies within Kolmogorov-Smirnov distance
    ``alpha`` of every other group's, with minimum squared deviation from the original outputs, while the fitted
    remapping is differentially private with respect to the data it was fitted on [Xian2024]_. The steps, each a
    method of this class, are Algorithm 1 of the paper: discretise the outputs onto ``n_bins`` bins of the public
    interval ``bounds`` (``_discretize``); release the joint (group, bin) histogram with noise
    (``_release_joint_histogram``, the only step that reads the data); re-normalise the noisy histogram into group
    weights and PMFs with an L-infinity isotonic regression of each CDF (``_estimate_distributions``); solve the
    barycenter LP with KS-ball tolerance (``_solve_barycenter``); and transport each group's outputs to its target
    distribution at random along the optimal coupling (``predict``).

    Parameters
    ----------
    estimator : object, default=None
        A regressor with ``fit``/``predict``. ``None`` post-processes the values passed in: ``X`` is then the
        one-column array of regressor outputs (the paper's experimental setting).
    epsilon : float, default=1.0
        Privacy budget, > 0. ``numpy.inf`` gives the non-private "binning + fair" baseline (no noise; the
        accountant is charged ``(inf, 0)``).
    delta : float, default=0.0
        0 for pure epsilon-DP with the Laplace mechanism; > 0 switches to the analytic Gaussian mechanism.
    bounds : tuple (s, t)
        Public interval that contains the outputs. Required; must not be computed from the private data. Outputs
        outside it are clipped to it: silently in ``fit`` (a warning there would tell whether the private data
        hold such an output; the guarantee is for the clipped outputs), with a warning in ``predict``.
    n_bins : int, default=36
        Number ``k`` of equal-width bins of ``bounds``, in ``[1, MAX_N_BINS]`` (10^6), and with ``|A| k`` (the
        histogram's cells; times the posterior buckets in attribute-blind mode) at most ``MAX_HISTOGRAM_CELLS``
        (2 x 10^6: the whole fit then takes about 3 s on a 2-core machine, e.g. 2 groups at 10^6 bins; larger is
        refused before the budget check). With ``solver="exact"`` time and memory grow about linearly in ``k``, the
        fitted object holding ``O(|A| k)`` values; the LP of a cvxpy solver has ``|A| k^2`` variables;
        outputs are rounded to bin midpoints. Fewer bins favour fairness at the expense of error (Xian et al.,
        Thm. 3.3).
    alpha : float, default=0.0
        KS tolerance in ``[0, 1]``: 0 asks for exact statistical parity, 1 leaves the binned outputs unchanged.
    groups : list or None, default=None
        Public list of group labels. If None, the groups found in ``sensitive_features`` are used and a
        :class:`~fairlearn_dp.privacy.PrivacyWarning` says so. A declared group with no fitting rows is fine: its
        cells are released with noise like any other.
    prefit : bool, default=False
        As in :class:`fairlearn.postprocessing.ThresholdOptimizer`: if True, ``estimator`` is already fitted and is
        not refitted.
    predict_method : str, default="predict"
        The estimator's method that produces the outputs to post-process.
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged ``(epsilon, delta)`` once per ``fit``; None uses diffprivlib's default accountant. ``clone`` keeps
        the same accountant object.
    random_state : None, int or numpy.random.RandomState, default=None
        Seeds the noise of ``fit``. None draws from a cryptographically secure generator; a seed makes results
        reproducible (for experiments; a seeded release is not secure).
    solver : str, default="exact"
        ``"exact"``: a structure-exploiting solver of the barycenter LP (one-dimensional optimal transport); or the
        name of an installed cvxpy solver (e.g. ``"HIGHS"``) to solve the LP as written in the paper. Both give the
        same optimum (tested). In attribute-blind mode ``"exact"`` is the sparse LP solved by HiGHS through SciPy,
        and a cvxpy solver name solves that LP as written in cvxpy (same optimum, tested).
    group_estimator : classifier or None, default=None
        **Attribute-blind mode** (beyond Xian et al.): a classifier of the group from the features, with
        ``predict_proba`` and ``classes_`` equal to the declared ``groups``. At a finite ``epsilon`` it must be
        prefit (``prefit=True``, which applies to ``estimator`` too): fitted beforehand on other rows than those
        passed to ``fit`` (a public sample or a disjoint split), or a DP classifier with its own budget;
        ``prefit=False`` is refused before the budget check (see Privacy). Only at ``epsilon=inf`` is it fitted
        here, on the fitting data's true groups. ``fit`` still uses the true groups, privately; ``predict(X)``
        then takes no ``sensitive_features``: the remapping depends only on the regressor's output bin and a
        bucket of the predicted group posterior. With ``estimator=None``, column 0 of ``X`` holds the outputs to
        post-process and the group estimator receives the whole ``X`` (the outputs and the other columns, the
        features); otherwise ``X`` feeds both estimators. ``groups`` must be declared. See *Attribute-blind mode* below.
    posterior_buckets : int, default=10
        Attribute-blind mode: number ``B`` (>= 1) of buckets of the predicted group posterior. Two groups: ``B``
        equal-width intervals of ``P(groups[1] | x)``; more groups: the most probable group and ``ceil(B / |A|)``
        geometric levels of its probability (``fairlearn_dp/postprocessing/_blind.py``). Each cell (output bin,
        bucket) is one histogram cell per group, so more buckets resolve the groups better and cost more noise.
        The LP has ``n_bins^2`` variables per bucket; beyond ``MAX_BLIND_LP_VARIABLES`` (2,000,000) in all, the
        fit is refused before anything is read or charged.
    noise_margin : float >= 0, default=1.0
        Attribute-blind mode: the KS constraints are tightened per group by this many standard deviations of the
        release noise's effect on the group's induced output CDF (``fairlearn_dp/postprocessing/_blind.py``, "Noise
        margins"), so that ``alpha`` bounds the KS of the fitting data's own distributions up to that noise rather
        than only the KS of the noisy released ones. The blind release spreads each group over ``n_bins * B``
        cells, so without it a small group's in-sample KS exceeds ``alpha`` by about the noise (Law School, epsilon
        = 1: 0.144 for ``alpha = 0.1``). 0 solves the LP on the released distributions as they are. Larger margins
        cost squared change (MSE); no margin at ``epsilon = inf``. Post-processing of the release.
        ``posterior_buckets`` and ``noise_margin`` apply only with ``group_estimator``: without one, a value other
        than the default is refused (``ValueError``) rather than ignored.

    Attributes
    ----------
    estimator_ : object or None
        The fitted regressor (None when ``estimator`` is None).
    groups_ : list
        Group labels; row ``a`` of every per-group attribute refers to ``groups_[a]``.
    bin_edges_ : ndarray of shape (n_bins + 1,)
    bin_centers_ : ndarray of shape (n_bins,)
        The support ``v`` of all distributions and of the post-processed outputs.
    noisy_joint_pmf_ : ndarray of shape (n_groups, n_bins)
        The released private statistic ``p_check(a, v_j)``. Everything below is computed from it alone.
    group_weights_ : ndarray of shape (n_groups,)
        Private group weights ``w_a = max(sum_j p_check(a, v_j), 0)``.
    group_pmfs_ : ndarray of shape (n_groups, n_bins)
        Private group-conditional PMFs ``p_a`` of the binned outputs.
    barycenter_ : ndarray of shape (n_bins,)
        ``q``, the centre of the KS balls (the Wasserstein barycenter when ``alpha=0``).
    target_pmfs_ : ndarray of shape (n_groups, n_bins)
        ``q_a``, each group's target output distribution.
    transport_plans_ : tuple of scipy.sparse.csr_array of shape (n_bins, n_bins)
        Optimal couplings ``pi_a`` of ``p_a`` (rows) and ``q_a`` (columns), one per group (``.toarray()`` for a
        dense matrix). With ``solver="exact"`` each is monotone with at most ``2 n_bins - 1`` non-zeros, so the
        fitted object's memory is linear in ``n_groups * n_bins``.
    objective_ : float
        The LP optimum ``sum_a w_a W_2^2(p_a, q_a)`` (an estimate of the excess squared error of fairness); in
        attribute-blind mode the expected squared change of the output.
    privacy_spent_ : PrivacySpend
        What ``fit`` charged to the accountant.
    group_estimator_ : object or None
        Attribute-blind mode: the (prefit or fitted) group classifier; None otherwise.
    n_posterior_buckets_ : int
        Attribute-blind mode: the number of posterior buckets (``B`` for two groups, ``|A| ceil(B / |A|)`` else).
    cell_pmfs_ : ndarray of shape (n_groups, n_bins * B')
        Attribute-blind mode: each group's private distribution over the cells ``(bin j, bucket b)`` (index
        ``j * B' + b`` with ``B' = n_posterior_buckets_``), from ``noisy_joint_pmf_`` (which has this shape in that
        mode) alone.
    remap_ : scipy.sparse.csr_array of shape (n_bins * B', n_bins)
        Attribute-blind mode: the randomised map from each cell to an output bin (rows sum to 1).
    cell_noise_sd_ : float
        Attribute-blind mode: the standard deviation of the noise of one cell of ``noisy_joint_pmf_`` (public: from
        ``n``, ``epsilon`` and ``delta``; 0 at ``epsilon = inf``).
    ks_margins_ : ndarray of shape (n_groups,)
        Attribute-blind mode: each group's KS margin ``m_a`` (0 with ``noise_margin=0``); group ``a``'s released
        output CDF lies within ``max(alpha/2 - m_a, 0)`` of a common CDF.

    Privacy
    -------
    - Neighbouring relation: two fitting datasets of the same size ``n`` that differ in one record ``(x, a)``
      (substitution; ``n`` is public). The guarantee covers both the features and the sensitive attribute.
    - Released statistic: the joint PMF ``p_hat(a, v_j) = #{i : a_i = a, h(f(x_i)) = v_j} / n`` over all
      ``n_groups x n_bins`` cells of the public grid. Substituting one record moves one unit of count between two
      cells, so its L1 sensitivity is ``2/n`` (L2: ``sqrt(2)/n``) (Xian et al., Remark B.1).
    - Mechanism: diffprivlib's Laplace with scale ``2/(n epsilon)`` per cell (``delta = 0``), or analytic Gaussian
      for L2 sensitivity ``sqrt(2)/n`` (``delta > 0``). Everything after the release (re-normalisation, barycenter,
      transport plans) reads only the released PMF, so the fitted object is (epsilon, delta)-DP by
      post-processing immunity. The whole budget goes to this one release; it is charged once per ``fit``.
    - ``predict`` samples the transport with its own ``random_state``; that randomness is not a privacy mechanism.
    - The regressor ``f`` must not depend on the fitting data for the guarantee to hold: pass a prefit regressor
      trained on other data, or a DP regressor (e.g. diffprivlib's) whose own spend composes with this one. With
      ``prefit=False`` and a non-DP estimator, a :class:`~fairlearn_dp.privacy.PrivacyWarning` is issued.
    - Attribute-blind mode: the group estimator is refused with ``prefit=False`` at a finite epsilon, before the
      budget check. Fitted here it would be a non-private function of the private groups (``group_estimator_``
      is published with the model), and whether its fit succeeds would depend on them: when the only member of a
      group moves to another group, a one-class fit fails on one neighbour and not on the other. Prefit on other
      rows, or a DP classifier whose own spend composes with this one, it is a public input.
    - Public inputs: ``bounds``, ``n_bins``, ``alpha``, ``groups`` (and in attribute-blind mode ``posterior_buckets``,
      ``noise_margin`` and the group estimator, prefit on other data or DP). Choosing ``alpha`` or ``n_bins`` by looking
      at results on the same data spends extra budget that this class does not account for (Xian et al., Sec. 3.4).
    - Failure paths (README, "Failure paths and what is public"): the parameters are validated and the accountant
      is checked for the whole spend before the data are read; the data checks are domain checks only (numeric,
      finite, matching lengths, every group declared, rows the prefit models can process) and their messages
      carry no counts or values: the regressor's and the group estimator's own errors and warnings on the fitting
      rows are withheld (``utils._validation.call_on_private_rows``). Inside the domain every dataset fits: declared groups without rows, outputs outside ``bounds`` (clipped silently) do
      not raise or warn. A fit that raises leaves the estimator as it was.

    Notes
    -----
    **Attribute-blind mode.** With ``group_estimator``, the released statistic is the joint PMF of (true group, output bin, posterior
    bucket) over all ``|A| k B`` cells of the public grid: substituting one record still moves one unit of count
    between two cells, so the L1 sensitivity stays ``2/n`` and the mechanism, spend and neighbouring relation are
    those above. From the release alone, each group's cell distribution is estimated (its noisy row projected onto
    the simplex) and an LP (HiGHS through SciPy's sparse interface) finds the randomised map from cells to output
    bins with the least expected squared change such that every group's induced output distribution is within
    KS distance ``alpha`` of every other's, each group's constraint tightened by its noise margin (``noise_margin``
    standard deviations of the release noise's effect on its induced CDF; ``ks_margins_``). *Guarantee*: KS parity
    holds exactly on the released distributions (pairwise KS ``<= r_a + r_a'`` with half-widths ``r = max(alpha/2 -
    margin, 0)``, hence ``<= alpha``); on
    the population it holds up to ``alpha + TV_a + TV_a'``, the total-variation errors of the released cell
    distributions of the two groups (sampling and noise, growing with ``k B`` and shrinking with the group sizes).
    The bound does not involve the calibration of ``group_estimator``: the cells' group composition is measured
    with the true groups, so a poor group classifier costs accuracy (a larger change is needed for parity), not
    fairness. Derivation: ``fairlearn_dp/postprocessing/_blind.py``.

    The post-processed outputs take values in ``bin_centers_``. A test point that falls in a bin whose private PMF
    is 0 keeps its binned value (Alg. 1, line 12); in attribute-blind mode, likewise a cell with no private mass.

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
    >>> scores = np.clip(rng.normal(0.4 + 0.2 * a, 0.1), 0, 1)
    >>> pp = DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=10, groups=[0, 1],
    ...                                    accountant=BudgetAccountant(), random_state=0)
    >>> fair = pp.fit(scores[:, None], sensitive_features=a).predict(scores[:, None], sensitive_features=a,
    ...                                                               random_state=0)
    >>> pp.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    """

    def __init__(self, *, estimator=None, epsilon=1.0, delta=0.0, bounds=None, n_bins=36, alpha=0.0, groups=None,
                 prefit=False, predict_method="predict", accountant=None, random_state=None, solver="exact",
                 group_estimator=None, posterior_buckets=10, noise_margin=1.0):
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
    def _check_public_inputs(self):
        """Validate the public parameters and check the budget, before anything reads the data.

        Returns ``(epsilon, delta, (lower, upper), n_bins, alpha, groups)``; ``groups`` is None when they are to
        be read from the data. Raises diffprivlib's ``BudgetError`` if the accountant cannot pay ``(epsilon,
        delta)``, whatever the data.
        """
        epsilon, delta, n_bins, alpha = self._check_params()
        lower, upper = check_bounds(self.bounds)
        groups = None if self.groups is None else resolve_groups(self.groups, None,
                                                                 estimator_name=type(self).__name__)
        if self.group_estimator is not None:
            self._check_blind_inputs(groups, epsilon)
        if groups is not None:
            self._check_histogram_size(len(groups), n_bins)
        check_spend(self.accountant, PrivacySpend(epsilon, delta))
        return epsilon, delta, (lower, upper), n_bins, alpha, groups

    def _check_params(self):
        """The parameters that need neither ``bounds`` nor ``groups`` (the AIF360 face checks them before it reads
        its dataset, which may supply those two). Returns ``(epsilon, delta, n_bins, alpha)``."""
        epsilon, delta = validate_epsilon_delta(self.epsilon, self.delta)
        n_bins = check_n_bins(self.n_bins, maximum=MAX_N_BINS, reason=" (time and memory grow with n_bins)")
        alpha = check_alpha(self.alpha)
        validate_params(self, _PARAMETER_CHECKS)
        self._check_estimator()
        if self.group_estimator is None:
            self._check_blind_only_defaults()
        return epsilon, delta, n_bins, alpha

    def _check_blind_only_defaults(self):
        """Without ``group_estimator``, ``posterior_buckets`` and ``noise_margin`` would be ignored: a value other
        than the default is refused (the default passes, so ``clone`` and ``get_params`` round-trip)."""
        defaults = inspect.signature(DPFairRegressionPostprocessor.__init__).parameters
        for name in _BLIND_ONLY:
            value, default = getattr(self, name), defaults[name].default
            if value != default:
                raise ValueError(f"{name}={value!r} applies only in attribute-blind mode (with a group_estimator); "
                                 f"without one it would have no effect. Pass a group_estimator, or leave {name} at "
                                 f"its default {default!r}.")

    def _check_histogram_size(self, n_groups, n_bins):
        """Refuse a released histogram of more than ``MAX_HISTOGRAM_CELLS`` cells (public sizes; fit time grows
        linearly with them)."""
        per_group = n_bins * (1 if self.group_estimator is None
                              else n_posterior_cells(n_groups, int(self.posterior_buckets)))
        if n_groups * per_group > MAX_HISTOGRAM_CELLS:
            raise ValueError(f"n_bins={n_bins} with {n_groups} groups gives a histogram of {n_groups * per_group:,} "
                             f"cells (groups x n_bins{' x posterior buckets' if per_group != n_bins else ''}), above "
                             f"MAX_HISTOGRAM_CELLS={MAX_HISTOGRAM_CELLS:,} (the fit takes about 1.5 us per cell): "
                             "use fewer bins.")

    def _check_estimator(self):
        """The regressor (public): None, one to fit here, or a fitted one with ``predict_method``."""
        if check_estimator(self.estimator, prefit=self.prefit) is None or not self.prefit:
            return
        if not callable(getattr(self.estimator, self.predict_method, None)):
            raise ValueError(f"predict_method={self.predict_method!r}: the prefit estimator "
                             f"{type(self.estimator).__name__} has no such method.")
        check_is_fitted(self.estimator)

    def _check_blind_inputs(self, groups, epsilon):
        """Attribute-blind mode's public checks (before the budget check): the group estimator and the buckets.

        A group estimator fitted here (``prefit=False``) is refused at a finite epsilon: it would be a non-private
        function of the private groups (kept in ``group_estimator_``), and whether it can be fitted at all depends
        on which groups the data hold (a group whose only member moves to another group leaves a one-class
        problem), so neither the fitted object nor the failure path would be differentially private.
        """
        if not hasattr(self.group_estimator, "predict_proba"):
            raise TypeError(f"group_estimator must have a predict_proba method (a classifier of the group), got "
                            f"{type(self.group_estimator).__name__}.")
        if not self.prefit and not math.isinf(epsilon):
            raise ValueError(
                "prefit=False with a group_estimator: the group estimator would be fitted here, without privacy, on "
                "the private groups of the fitting rows (its fitted model and whether its fit succeeds depend on "
                "them), which a finite epsilon cannot cover. Fit it beforehand on other rows than those passed to "
                "fit (a public sample, or a disjoint split whose privacy this estimator does not cover), or use a "
                "DP classifier fitted with its own budget, and pass prefit=True (which applies to `estimator` "
                "too: prefit it or pass estimator=None). It is fitted here only at epsilon=inf.")
        buckets = int(self.posterior_buckets)           # checked with the other parameters (_PARAMETER_CHECKS)
        if groups is None:
            raise ValueError("groups must be declared when group_estimator is given: they name the columns of the "
                             "group posterior (attribute-blind mode).")
        n_variables = int(self.n_bins) ** 2 * n_posterior_cells(len(groups), buckets)
        if n_variables > MAX_BLIND_LP_VARIABLES:
            raise ValueError(f"n_bins={self.n_bins} and posterior_buckets={buckets} give an attribute-blind LP with "
                             f"{n_variables:,} variables (n_bins^2 x buckets), above {MAX_BLIND_LP_VARIABLES:,}: use "
                             "fewer bins or buckets.")
        if self.prefit:
            check_is_fitted(self.group_estimator)
            self._posterior_columns(self.group_estimator, groups)

    @staticmethod
    def _posterior_columns(group_estimator, groups, *, strict=True):
        """Column of ``group_estimator.predict_proba`` for each declared group (-1: the estimator has no such
        class). ``strict``: the classes must be exactly the groups (a prefit estimator, checked up front)."""
        classes = list(getattr(group_estimator, "classes_", []))
        columns = [next((i for i, c in enumerate(classes) if c == group), -1) for group in groups]
        if strict and (-1 in columns or len(classes) != len(groups)):
            raise ValueError(f"group_estimator.classes_ {classes!r} do not match the declared groups {list(groups)!r} "
                             "(attribute-blind mode needs one posterior column per declared group).")
        return columns

    @atomic_fit
    def fit(self, X, y=None, *, sensitive_features, **kwargs):
        """Fit the private post-processor.

        Parameters
        ----------
        X : array-like
            Features for ``estimator``; with ``estimator=None``, the one-column array of regressor outputs.
            Dask arrays / DataFrames (``X``, ``y`` and ``sensitive_features`` alike, same partitions; ``groups``
            declared; estimator prefit or None) fit out of core: counts on the workers, one release here
            (``fairlearn_dp/postprocessing/_distributed.py``).
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
        epsilon, delta, (lower, upper), n_bins, alpha, groups = self._check_public_inputs()
        if self.group_estimator is not None:
            if is_dask_input(X, y, sensitive_features):
                raise ValueError("Dask inputs are not supported in attribute-blind mode (group_estimator given).")
            return self._fit_blind(X, y, sensitive_features, kwargs, epsilon, delta, lower, upper, n_bins, alpha,
                                   groups)
        if is_dask_input(X, y, sensitive_features):  # out-of-core: the histogram is summed on Dask workers
            from ._distributed import fit_regression_dask
            return fit_regression_dask(self, X, y, sensitive_features, kwargs, public=(
                epsilon, delta, (lower, upper), n_bins, alpha, groups))

        self.estimator_ = self._fit_estimator(X, y, **kwargs)
        outputs = self._outputs(X, private=not math.isinf(epsilon))
        if y is not None and len(y) != outputs.size:
            raise ValueError(f"y has {len(y)} rows but X has {outputs.size} (length mismatch).")
        group_vector = as_group_vector(sensitive_features, outputs.size, groups=groups)
        if groups is None:
            groups = resolve_groups(None, group_vector, estimator_name=type(self).__name__,
                                        private=not math.isinf(epsilon))
            self._check_histogram_size(len(groups), n_bins)      # groups read from the data: before the release
        group_index = encode_groups(group_vector, groups)
        # A declared group without rows is not an error: its cells are released with noise like any other.

        self.groups_ = groups
        self.bin_edges_ = np.linspace(lower, upper, n_bins + 1)
        self.bin_centers_ = lower + (np.arange(n_bins) + 0.5) * (upper - lower) / n_bins
        bin_index = self._discretize(outputs, warn_clipped=False)

        # Release (the only step that reads the data), then post-process the released statistic only.
        self.noisy_joint_pmf_, self.privacy_spent_ = self._release_joint_histogram(
            bin_index, group_index, n_groups=len(groups), n_bins=n_bins, epsilon=epsilon, delta=delta)
        return self._solve_from_release(alpha, n_bins)

    def _fit_blind(self, X, y, sensitive_features, kwargs, epsilon, delta, lower, upper, n_bins, alpha, groups):
        """Attribute-blind fit: release the (group, output bin, posterior bucket) PMF, then solve the remapping LP."""
        regressor_input, features = self._blind_inputs(X)
        self.estimator_ = self._fit_estimator(regressor_input, y, _stacklevel=6, **kwargs)
        outputs = self._outputs(regressor_input, private=not math.isinf(epsilon))
        if y is not None and len(y) != outputs.size:
            raise ValueError(f"y has {len(y)} rows but X has {outputs.size} (length mismatch).")
        group_vector = as_group_vector(sensitive_features, outputs.size, groups=groups)
        group_index = encode_groups(group_vector, groups)
        labels = np.asarray(groups)
        if any(label != group for label, group in zip(labels.tolist(), groups)):   # numpy coerced mixed types
            labels = np.asarray(groups, dtype=object)
        group_estimator = self._fit_group_estimator(features, labels[group_index])
        buckets = self._buckets(group_estimator, features, groups, outputs.size, private=not math.isinf(epsilon))

        self.groups_ = groups
        self.group_estimator_ = group_estimator
        self.n_posterior_buckets_ = n_posterior_cells(len(groups), self.posterior_buckets)
        self.bin_edges_ = np.linspace(lower, upper, n_bins + 1)
        self.bin_centers_ = lower + (np.arange(n_bins) + 0.5) * (upper - lower) / n_bins
        self.cell_noise_sd_ = _cell_noise_sd(outputs.size, epsilon, delta)
        cells = self._discretize(outputs, warn_clipped=False) * self.n_posterior_buckets_ + buckets
        # The only release: every (group, cell) count, L1 sensitivity 2/n under substitution (as the aware fit).
        self.noisy_joint_pmf_, self.privacy_spent_ = self._release_joint_histogram(
            cells, group_index, n_groups=len(groups), n_bins=n_bins * self.n_posterior_buckets_, epsilon=epsilon,
            delta=delta)
        return self._solve_blind_from_release(alpha)

    def _solve_blind_from_release(self, alpha):
        """The remapping LP on ``noisy_joint_pmf_`` alone (``_blind.py``)."""
        self._forget_mode(blind=True)
        self.group_weights_, self.cell_pmfs_, cell_weights = cell_distributions(self.noisy_joint_pmf_)
        n_bins = self.bin_centers_.size
        cell_bin = np.repeat(np.arange(n_bins), self.n_posterior_buckets_)
        solution = solve_blind_remap(self.cell_pmfs_, cell_weights, cell_bin, self.bin_centers_, alpha,
                                     solver=self.solver)
        # Noise margins (_blind.py): from the untightened solution, then one more solve with the tightened bounds.
        self.ks_margins_ = noise_margins(self.cell_pmfs_, self.group_weights_, solution.kernel, self.cell_noise_sd_,
                                         float(self.noise_margin))
        if np.any(self.ks_margins_ > 0):
            solution = solve_blind_remap(self.cell_pmfs_, cell_weights, cell_bin, self.bin_centers_, alpha,
                                         solver=self.solver, margins=self.ks_margins_)
        self.remap_ = solution.kernel
        self.target_pmfs_ = solution.targets
        self.objective_ = solution.objective
        self._kernels = solution.kernel
        self._shifted_cdfs, self._cdf_columns = _shifted_kernel_cdfs(solution.kernel)
        return self

    def _blind_inputs(self, X):
        """``(regressor input, group-estimator input)``: with ``estimator=None`` column 0 of ``X`` (the outputs) and
        the whole ``X`` (outputs and features: at prediction time the deployed model's output is available too);
        else ``X`` for both."""
        if self.estimator is not None:
            return X, X
        if hasattr(X, "iloc"):
            if X.ndim != 2 or X.shape[1] < 1:
                raise ValueError("With estimator=None and a group_estimator, X must be 2-D with the outputs in "
                                 "column 0 (and the group estimator's other features in further columns).")
            return X.iloc[:, 0].to_numpy(), X
        arr = np.asarray(X)
        if arr.ndim != 2 or arr.shape[1] < 1:
            raise ValueError("With estimator=None and a group_estimator, X must be 2-D with the outputs in column 0 "
                             "(and the group estimator's other features in further columns).")
        return arr[:, 0], arr

    def _fit_group_estimator(self, features, group_labels):
        if self.prefit:
            return self.group_estimator
        # Only at epsilon=inf (refused before the budget check otherwise: _check_blind_inputs). Always warned, a
        # diffprivlib classifier too: its fitted classes_ (and any error it raises, e.g. one group present) depend
        # on which groups the data hold, and its spend goes to its own accountant.
        return _fit_here(self.group_estimator, features, group_labels, "The group estimator is fitted here, on the "
                         "sensitive attribute of the data that the post-processor is fitted on (its classes, errors "
                         "and spend are not covered by this estimator's guarantee)", trust_diffprivlib=False,
                         _stacklevel=6)                    # called from _fit_blind

    def _buckets(self, group_estimator, features, groups, n_rows, *, warn=False, private=False):
        """Posterior bucket of each row. A declared group the (non-prefit) estimator never saw gets probability 0.

        A row whose posterior is not finite gets the uniform posterior: silently in ``fit`` (whether such a row
        exists is a property of the private data), with a warning in ``predict`` (``warn``). ``private``: the rows
        are the private fitting rows (``call_on_private_rows``)."""
        columns = self._posterior_columns(group_estimator, groups, strict=False)
        proba = (call_on_private_rows(group_estimator.predict_proba, features, "group_estimator.predict_proba(X)")
                 if private else group_estimator.predict_proba(features))
        proba = np.asarray(proba, dtype=float)
        if proba.ndim != 2 or proba.shape != (n_rows, len(group_estimator.classes_)):
            raise ValueError("group_estimator.predict_proba(X) must return one column per class in classes_ and "
                             "one row per row of X.")
        ordered = np.column_stack([proba[:, c] if c >= 0 else np.zeros(n_rows) for c in columns])
        invalid = ~np.all(np.isfinite(ordered), axis=1)
        if np.any(invalid):
            if warn:
                warnings.warn("group_estimator.predict_proba returned non-finite probabilities for some rows; they "
                              "were given the uniform posterior.", UserWarning, stacklevel=4)
            ordered[invalid] = 1.0 / len(groups)
        return posterior_buckets(np.clip(ordered, 0.0, 1.0), self.posterior_buckets)

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

    def _fit_estimator(self, X, y, *, _stacklevel=5, **kwargs):
        """The regressor: None, the prefit one, or fitted here (warned; ``_stacklevel`` points the warning at the
        caller of ``fit``: 5 from ``fit`` itself, 6 from ``_fit_blind``)."""
        if self.estimator is None:
            if kwargs:
                raise ValueError("fit keyword arguments are only passed to an estimator; estimator is None.")
            return None
        if not self.prefit:
            if y is None:
                raise ValueError("y is required to fit the estimator (prefit=False).")
            return _fit_here(self.estimator, X, y, "The estimator is fitted non-privately on the same data that "
                             "the post-processor is fitted on", _stacklevel=_stacklevel, **kwargs)
        check_is_fitted(self.estimator)
        return self.estimator

    def _outputs(self, X, *, private=False):
        """The regressor's outputs; ``private``: X holds the fitting rows (see :func:`call_on_private_rows`)."""
        if self.estimator_ is None:
            return as_1d_float(X, "X")
        what = f"estimator.{self.predict_method}(X)"
        method = getattr(self.estimator_, self.predict_method)
        return as_1d_float(call_on_private_rows(method, X, what) if private else method(X), what)

    def _discretize(self, outputs, *, warn_clipped=True):
        """``h`` of Alg. 1, line 2: index of the nearest bin midpoint, after clipping to ``bounds``.

        ``fit`` clips silently (``warn_clipped=False``): whether a warning fires would depend on the private data.
        ``predict`` warns.
        """
        lower, upper = self.bin_edges_[0], self.bin_edges_[-1]
        if warn_clipped and np.any((outputs < lower) | (outputs > upper)):
            warnings.warn(f"Some outputs lie outside bounds=({lower}, {upper}) and were clipped to it.",
                          UserWarning, stacklevel=3)
        n_bins = self.bin_centers_.size
        # Bins are [e_j, e_{j+1}); rounding to 9 decimals first sends values that sit on an edge up to
        # floating-point error (e.g. GPAs on a 0.1 grid with k = 180) consistently to the upper bin.
        position = np.round((np.clip(outputs, lower, upper) - lower) * n_bins / (upper - lower), 9)
        return np.clip(np.floor(position).astype(np.intp), 0, n_bins - 1)

    def _release_joint_histogram(self, bin_index, group_index, *, n_groups, n_bins, epsilon, delta):
        """Alg. 1, lines 3-4: the private joint PMF, charged once to the accountant."""
        return private_joint_histogram(bin_index, group_index, n_bins=n_bins, n_groups=n_groups, epsilon=epsilon,
                                       delta=delta, accountant=self.accountant, random_state=self.random_state)

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
    def predict(self, X, *, sensitive_features=None, random_state=None):
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
        if is_dask_input(X, sensitive_features):
            self._check_predict_mode(sensitive_features)
            return predict_dask(self, X, sensitive_features, random_state, dtype=float)
        row = self._kernel_rows(X, sensitive_features)
        return self._sample(row, check_random_state(random_state))

    def _randomised_predict(self, X, sensitive_features, generator):
        """``predict`` with the ``RandomState`` ``generator`` (a Dask partition passes the generator advanced by
        the rows before it)."""
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
        n_bins); on Dask inputs a lazy Dask array of that shape, as ``predict``."""
        if is_dask_input(X, sensitive_features):
            self._check_predict_mode(sensitive_features)
            return pmf_predict_dask(self, X, sensitive_features, n_columns=self.bin_centers_.size)
        return self._kernels[self._kernel_rows(X, sensitive_features)].toarray()

    def _check_predict_mode(self, sensitive_features):
        """Fitted, and ``sensitive_features`` passed exactly when the fitted map uses the group (public checks,
        before any row is read). Returns True in attribute-blind mode."""
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


def _fit_here(estimator, X, y, what, trust_diffprivlib=True, _stacklevel=5, **kwargs):
    """``clone(estimator).fit(X, y)`` on the fitting data, with a :class:`PrivacyWarning` unless it is a diffprivlib
    model and ``trust_diffprivlib``: ``what`` says which model (the warning depends on the parameters only)."""
    if not (trust_diffprivlib and type(estimator).__module__.startswith("diffprivlib")):
        warnings.warn(f"{what}: the post-processed model as a whole is then NOT differentially private. Use a "
                      "prefit model trained on other data, or a DP model (e.g. from diffprivlib).",
                      PrivacyWarning, stacklevel=_stacklevel)
    return clone(estimator).fit(X, y, **kwargs)


def private_group_estimates(noisy_joint_pmf):
    """Private group weights and PMFs from the noisy joint PMF (Xian et al. 2024, Alg. 1, lines 5-9).

    For each group ``a``: ``w_a = max(sum_j p_check(a, v_j), 0)`` (line 6); scaled partial sums ``F_check(v_j) =
    (1/w_a) sum_{l <= j} p_check(a, v_l)`` (line 7); L-infinity isotonic regression ``G_j = (max_{l <= j}
    F_check_l + min_{r >= j} F_check_r) / 2`` clipped to [0, 1], with ``G_k = 1`` (line 8); and ``p_a(v_j) = G_j -
    G_{j-1}`` (line 9). A group whose noisy weight is not positive gets a uniform PMF (its weight is 0, so it does
    not move the barycenter), with a warning: the paper's division by ``w_a`` is undefined there.

    Returns
    -------
    weights : ndarray of shape (n_groups,)
    pmfs : ndarray of shape (n_groups, n_bins)
    """
    noisy = np.atleast_2d(np.asarray(noisy_joint_pmf, dtype=float))
    n_groups, n_bins = noisy.shape
    totals = noisy.sum(axis=1)
    weights = np.maximum(totals, 0.0)
    pmfs = np.full((n_groups, n_bins), 1.0 / n_bins)
    for a in range(n_groups):
        if weights[a] <= 0:
            warnings.warn(f"The noisy weight of group index {a} is not positive; its PMF is set to uniform.",
                          RuntimeWarning, stacklevel=2)
            continue
        partial = np.cumsum(noisy[a]) / weights[a]
        isotonic = 0.5 * (np.maximum.accumulate(partial) + np.minimum.accumulate(partial[::-1])[::-1])
        cdf = np.clip(isotonic, 0.0, 1.0)
        cdf[-1] = 1.0
        pmfs[a] = np.diff(cdf, prepend=0.0)
    return weights, pmfs


def _transport_kernels(couplings):
    """Row-normalised couplings: ``K[a k + j, l] = P(g_a(v_j) = v_l)`` (Alg. 1, line 12), identity rows where
    ``p_a(v_j) = 0`` (row mass <= 1e-15).

    ``couplings`` are the ``|A|`` sparse (k, k) couplings; returns one CSR array of shape (|A| k, k) with at most
    ``nnz + |A| k`` non-zeros, in ``O(|A| k)`` memory. A row's mass is its non-zeros summed left to right.
    """
    k = couplings[0].shape[1]
    n_rows = len(couplings) * k
    plans = sparse.vstack(couplings, format="csr")
    indptr = plans.indptr.astype(np.int64)
    counts = np.diff(indptr)
    row_of = np.repeat(np.arange(n_rows), counts)
    cumulative = _row_cumsum(plans.data, indptr)
    row_mass = np.zeros(n_rows)
    row_mass[counts > 0] = cumulative[indptr[1:][counts > 0] - 1]
    identity = row_mass <= 1e-15
    new_counts = np.where(identity, 1, counts)
    new_indptr = np.concatenate([[0], np.cumsum(new_counts)])
    data = np.empty(new_indptr[-1])
    columns = np.empty(new_indptr[-1], dtype=np.int64)
    kept = ~identity[row_of]                                  # entries of rows that are normalised, not replaced
    target = new_indptr[row_of[kept]] + (np.arange(indptr[-1])[kept] - indptr[row_of[kept]])
    data[target] = plans.data[kept] / row_mass[row_of[kept]]
    columns[target] = plans.indices[kept]
    identity_rows = np.flatnonzero(identity)
    data[new_indptr[identity_rows]] = 1.0
    columns[new_indptr[identity_rows]] = identity_rows % k
    return sparse.csr_array((data, columns, new_indptr), shape=(n_rows, k))


def _shifted_kernel_cdfs(kernels):
    """The kernels' CDFs for ``predict``'s single ``searchsorted``: for row ``r``, the value ``2r`` at column 0,
    then ``F_r(l) + 2r`` at each non-zero column ``l``, where ``F_r`` is the row's cumulative sum (left to right,
    as ``numpy.cumsum`` of the dense row, whose zeros add nothing). Returns (values, columns), ``nnz + |A| k``
    each."""
    n_rows = kernels.shape[0]
    indptr = kernels.indptr.astype(np.int64)
    counts = np.diff(indptr)
    shift = 2.0 * np.arange(n_rows)
    starts = indptr[:-1] + np.arange(n_rows)                  # position of row r's leading entry
    values = np.empty(indptr[-1] + n_rows)
    columns = np.zeros(values.size, dtype=np.int64)
    values[starts] = shift
    steps = np.repeat(starts + 1, counts) + (np.arange(indptr[-1]) - np.repeat(indptr[:-1], counts))
    values[steps] = _row_cumsum(kernels.data, indptr) + np.repeat(shift, counts)
    columns[steps] = kernels.indices
    return values, columns


def _row_cumsum(values, indptr):
    """Cumulative sums of ``values`` restarting at every row of a CSR layout, each summed left to right.

    Rows of equal length are gathered into one 2-D block and summed with ``numpy.cumsum`` along its rows, so the
    result is bit-for-bit the sequential sum of each row, in ``O(nnz)`` work plus one step per distinct length.
    """
    result = np.empty(values.size)
    counts = np.diff(indptr)
    order = np.argsort(counts, kind="stable")
    sorted_counts = counts[order]
    bounds = np.flatnonzero(np.diff(sorted_counts)) + 1
    for group in np.split(order, bounds):
        length = counts[group[0]] if group.size else 0
        if length == 0:
            continue
        block = indptr[group][:, None] + np.arange(length)
        result[block] = np.cumsum(values[block], axis=1)
    return result


def _cell_noise_sd(n, epsilon, delta):
    """Standard deviation of one cell's noise in the released joint PMF (public: ``n``, epsilon, delta); 0 without
    noise. Laplace of scale ``b = (2/n) / epsilon``: ``sqrt(2) b``; analytic Gaussian: its sigma."""
    if math.isinf(epsilon):
        return 0.0
    l1, l2 = joint_histogram_sensitivity(n)
    return noise_sd(noise_scale(epsilon, delta, l1, l2), delta)
