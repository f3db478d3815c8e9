"""Attribute-blind mode of :class:`~fairlearn_dp.postprocessing.DPFairRegressionPostprocessor` (``group_estimator``
given): its public checks, its fit and its posterior buckets, as a mixin of the estimator.

The fit keeps the estimator's order: the public checks (``_check_blind_inputs``, before the budget check), then the
regressor's outputs and the posterior buckets of the fitting rows, one release of the (group, output bin, posterior
bucket) counts through the estimator's ``_release_histogram``, and the remapping LP on the release alone
(``_blind.py``). Privacy analysis: docs/privacy_analysis/fair_regression.md.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import exceptions
from .._utils._validation import as_group_vector, encode_groups
from .._utils._withheld import call_total_on_private_rows
from ..privacy._release import joint_histogram_sensitivity, noise_scale, noise_sd
from ._blind import cell_distributions, n_posterior_cells, noise_margins, posterior_buckets, solve_blind_remap
from ._inputs import check_target_rows
from ._regressor_contract import outputs_range
from ._transport import _shifted_kernel_cdfs

__all__ = ["MAX_BLIND_LP_VARIABLES"]

# Attribute-blind mode solves an LP with n_bins^2 * (posterior buckets) kernel variables (``_blind.py``), twice
# with noise margins: 0.2 s for the whole fit at 36^2 * 12 on Law School (bench_blind), seconds to minutes in the
# hundreds of thousands. Larger problems are refused up front.
MAX_BLIND_LP_VARIABLES = 2_000_000


class _AttributeBlindFit:
    """The attribute-blind methods of ``DPFairRegressionPostprocessor`` (a mixin: it uses the estimator's
    parameters and its ``_fit_estimator``, ``_outputs``, ``_discretize``, ``_release_histogram``,
    ``_fit_group_estimator`` and ``_forget_mode``).
    """

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
        buckets = int(self.posterior_buckets)           # checked with the other parameters (the class table)
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
        class). ``strict``: the classes must be exactly the groups (a prefit estimator, checked up front).
        """
        classes = list(getattr(group_estimator, "classes_", []))
        columns = [next((i for i, c in enumerate(classes) if c == group), -1) for group in groups]
        if strict and (-1 in columns or len(classes) != len(groups)):
            raise ValueError(f"group_estimator.classes_ {classes!r} do not match the declared groups {list(groups)!r} "
                             "(attribute-blind mode needs one posterior column per declared group).")
        return columns

    def _fit_blind(self, X, y, sensitive_features, kwargs, epsilon, delta, bounds, n_bins, alpha, groups):
        """Attribute-blind fit: release the (group, output bin, posterior bucket) PMF, then solve the remapping LP
        (``bounds`` None only at ``epsilon=inf``: the fitting outputs' range).
        """
        regressor_input, features = self._blind_inputs(X)
        self.estimator_ = self._fit_estimator(regressor_input, y, private=not math.isinf(epsilon), **kwargs)
        outputs = self._outputs(regressor_input, private=not math.isinf(epsilon),
                                default=None if bounds is None else bounds[0])   # None: epsilon=inf only
        check_target_rows(y, outputs.size)
        group_vector = as_group_vector(sensitive_features, outputs.size, groups=groups)
        group_index = encode_groups(group_vector, groups)
        labels = np.asarray(groups)
        if any(label != group for label, group in zip(labels.tolist(), groups, strict=False)):   # numpy coerced mixed types
            labels = np.asarray(groups, dtype=object)
        group_estimator = self._fit_group_estimator(features, labels[group_index])
        buckets = self._buckets(group_estimator, features, groups, outputs.size, private=not math.isinf(epsilon))

        lower, upper = outputs_range(outputs) if bounds is None else bounds
        self.groups_ = groups
        self.group_estimator_ = group_estimator
        self.n_posterior_buckets_ = n_posterior_cells(len(groups), self.posterior_buckets)
        self.bin_edges_ = np.linspace(lower, upper, n_bins + 1)
        self.bin_centers_ = lower + (np.arange(n_bins) + 0.5) * (upper - lower) / n_bins
        self.cell_noise_sd_ = _cell_noise_sd(outputs.size, epsilon, delta)
        width = n_bins * self.n_posterior_buckets_
        cells = self._discretize(outputs, warn_clipped=False) * self.n_posterior_buckets_ + buckets
        counts = np.bincount(group_index * width + cells, minlength=len(groups) * width)    # in memory only
        # The only release: every (group, cell) count, L1 sensitivity 2/n under substitution (as the aware fit).
        self.noisy_joint_pmf_, self.privacy_spent_ = self._release_histogram(
            counts.reshape(len(groups), width), outputs.size, epsilon=epsilon, delta=delta)
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
        else ``X`` for both.
        """
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

    def _buckets(self, group_estimator, features, groups, n_rows, *, warn=False, private=False):
        """Posterior bucket of each row. A declared group the (non-prefit) estimator never saw gets probability 0.

        A row whose posterior is not finite gets the uniform posterior: silently in ``fit`` (whether such a row
        exists is a property of the private data), with a warning in ``predict`` (``warn``). ``private``: the rows
        are the private fitting rows, on which the estimator is made total: a row on which it raises gets the uniform
        posterior too (:func:`call_total_on_private_rows`; a function of the row alone, the sensitivity is
        unchanged).
        """
        columns = self._posterior_columns(group_estimator, groups, strict=False)
        if private:     # total: a row on which it raises or gives a non-finite row gets the uniform posterior
            n_classes = len(group_estimator.classes_)
            proba = call_total_on_private_rows(group_estimator.predict_proba, features,
                                               "group_estimator.predict_proba(X)", default=1.0 / n_classes,
                                               row_shape=lambda: (n_classes,))
        else:
            proba = group_estimator.predict_proba(features)
        proba = np.asarray(proba, dtype=float)
        if proba.ndim != 2 or proba.shape != (n_rows, len(group_estimator.classes_)):
            raise ValueError("group_estimator.predict_proba(X) must return one column per class in classes_ and "
                             "one row per row of X.")
        ordered = np.column_stack([proba[:, c] if c >= 0 else np.zeros(n_rows) for c in columns])
        invalid = ~np.all(np.isfinite(ordered), axis=1)
        if np.any(invalid):
            if warn:
                exceptions.warn("group_estimator.predict_proba returned non-finite probabilities for some rows; they "
                                "were given the uniform posterior.", exceptions.UtilityWarning)
            ordered[invalid] = 1.0 / len(groups)
        return posterior_buckets(np.clip(ordered, 0.0, 1.0), self.posterior_buckets)


def _cell_noise_sd(n, epsilon, delta):
    """Standard deviation of one cell's noise in the released joint PMF (public: ``n``, epsilon, delta); 0 without
    noise. Laplace of scale ``b = (2/n) / epsilon``: ``sqrt(2) b``; analytic Gaussian: its sigma.
    """
    if math.isinf(epsilon):
        return 0.0
    l1, l2 = joint_histogram_sensitivity(n)
    return noise_sd(noise_scale(epsilon, delta, l1, l2), delta)
