"""The two stages of the group-aware budget allocation (the budget-tailoring paper, Algorithms 1-3) and their ledger.

:class:`_GroupBudgetStages` holds stage 1 (a precursor DP OLS fit and per-group standard errors, Alg. 1) and stage 2
(projected DP gradient descent with per-group budget shares, Alg. 2 / Alg. 3), which
:class:`~fairlearn_dp.reductions.DPGroupBudgetRegressor` and :class:`~fairlearn_dp.reductions.DPGroupBudgetClassifier`
inherit. Every release goes through a ``ZCDPLedger`` (:mod:`fairlearn_dp.privacy._zcdp_ledger`), and the budget
splits are the privacy core's (:func:`~fairlearn_dp.privacy._budget_split.group_budget_stage1_split`,
:func:`~fairlearn_dp.privacy._budget_split.group_budget_stage2_split`). Sensitivities and budget splits are derived in
docs/privacy_analysis/group_budget.md.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy._budget_split import group_budget_stage1_split, group_budget_stage2_split
from ..privacy._selection import choose_against_constants, no_choice
from ..privacy._zcdp import zcdp_gaussian_sigma

__all__ = ["gram_upper_sensitivity"]


def gram_upper_sensitivity(d: int, bound: float) -> float:
    """Tight L2 sensitivity of the upper triangle (diagonal included) of ``x x^T`` under substitution of one row.

    Rows ``x, x'`` in the box ``[-U, U]^d`` (``U = bound``), an intercept column fixed at ``U`` allowed: the
    largest ``||triu(x x^T - x' x'^T)||_2`` is ``U^2 sqrt(d^2 - (d mod 2))`` for ``d >= 2``, i.e. ``2 U^2 sqrt(m (d
    - m))`` with ``m = floor(d / 2)``, attained by ``x = U (1, ..., 1)`` and ``x'`` equal to it with ``m`` feature
    entries negated (each of the ``m (d - m)`` mixed off-diagonal entries moves by ``2 U^2``, nothing else moves).
    ``d = 1``: ``U^2`` (``x = U``, ``x' = 0``); for an intercept-only design the one entry ``n U^2`` is public and
    ``U^2`` is valid but not tight. Proof: docs/privacy_analysis/group_budget.md.

    Parameters
    ----------
    d : int
        Columns of the design (the intercept included), >= 1.
    bound : float
        The public bound ``U`` on every design entry.

    Returns
    -------
    float
    """
    return float(bound) ** 2 * math.sqrt(max(d * d - d % 2, 1))


class _GroupBudgetStages:
    """Stage 1 (per-group standard errors) and stage 2 (DP gradient descent) of a group-budget fit.

    A mixin of the estimators' shared base: the stages read the estimator's public parameters (``data_bound``,
    ``clip``, ``n_iter``, ...) and its loss (``_gradient_scalars``, ``_losses_from_margin``, ``_target_bound``).
    """

    #: Share of ``rho`` for the final private choice against the constant classifiers (0: none, the regressor).
    _choice_share = 0.0

    def _choice_split(self, rho):
        """``(rho_fit, rho_choice)``: ``_choice_share`` of ``rho`` for the final choice. The exponential mechanism
        with ``epsilon_c`` is ``epsilon_c``-DP, hence ``epsilon_c^2 / 2``-zCDP (Bun & Steinke 2016, Prop. 1.4), so
        it gets ``epsilon_c = sqrt(2 rho_c)`` and the zCDP total, hence the charge, stays ``rho``.
        """
        if math.isinf(rho) or not self._choice_share:
            return rho, 0.0
        return rho - self._choice_share * rho, self._choice_share * rho

    def _final_choice(self, design, target, coef, rho, random_state):
        """The private choice between the fitted model's training predictions and the constants 0 and 1 (record
        unit: the labels, coded -1/+1, are private, so the exponential mechanism; substituting one record moves each
        error count by at most 1). None for the regressor; no choice for the non-private baseline.
        """
        if not self._choice_share:
            return None
        if rho == 0:
            return no_choice()
        return choose_against_constants(design @ coef > 0, target > 0, epsilon=math.sqrt(2.0 * rho),
                                        random_state=random_state)

    def _stage1_standard_errors(self, design, target, group_index, sizes, tau, ledger, rng):
        """Algorithm 1: tau-zCDP per-group standard errors of a precursor DP OLS fit; returns ``(s_k^2, fallback,
        released)``, ``released`` the noisy ``X^T X`` (mirrored), ``X^T y`` and residual sums (None if not released).

        Budget: ``tau_k = tau / (K_e + 1)`` with ``K_e`` the number of groups with at least ``d + 1`` rows (the
        groups that get a standard error; all ``K`` groups in the usual case); ``tau_k / 2`` each for ``X^T X`` and
        ``X^T y`` (Analyze Gauss), and ``tau_k`` for each such group's clipped residual sum ``S_k``. Sensitivities
        under substitution of one record with design entries bounded by ``U = data_bound`` (the intercept column at
        ``U``) and ``|y| <= V = target_bound``, each tight: :func:`gram_upper_sensitivity` for the upper triangle of
        ``X^T X`` (``U^2 sqrt(d^2 - (d mod 2))``, about half the ``||x||^2 + ||x'||^2 <= 2 d U^2`` of the
        Frobenius bound), ``2 sqrt(d) U V`` for ``X^T y``; a clipped squared residual lies in ``[0, clip^2]``, so
        ``S_k`` moves by at most ``clip^2``.

        Degraded cases (they depend on the public sizes or on released values only): a group with ``1 <= n_k <=
        d`` rows is too small for a standard error and gets the default share ``1 / K'`` (``K'``: groups with
        rows); the others split the rest in proportion to ``s_k^2``; an empty group gets share 0. Fallbacks of the
        paper: a non-positive-definite noisy ``X^T X`` or a non-positive noisy ``S_k`` give equal shares ``1 / K'``.
        """
        n_groups = sizes.size
        d = design.shape[1]
        bound = float(self.data_bound)
        target_bound = self._target_bound()
        present = sizes > 0
        uniform = present / present.sum()
        estimable = np.flatnonzero(sizes >= d + 1)
        rho_moments, rho_residual = group_budget_stage1_split(tau, estimable.size)
        upper = np.triu_indices(d)
        gram = design.T @ design
        noisy_upper = ledger.release(gram[upper], stage="stage1", l2_sensitivity=gram_upper_sensitivity(d, bound),
                                     rho=rho_moments, random_state=rng)
        noisy_gram = np.zeros((d, d))
        noisy_gram[upper] = noisy_upper
        noisy_gram = noisy_gram + np.triu(noisy_gram, 1).T
        moment = ledger.release(design.T @ np.clip(target, -target_bound, target_bound), stage="stage1",
                                l2_sensitivity=2 * math.sqrt(d) * bound * target_bound, rho=rho_moments,
                                random_state=rng)
        residual_clip = float(self.clip) ** 2
        released = {"gram": noisy_gram, "moments": moment, "residual_sums": None}
        if np.linalg.eigvalsh(noisy_gram).min() <= 0:
            return uniform, "X^T X not positive definite", released     # the residual sums are then not released
        beta = np.linalg.solve(noisy_gram, moment)
        with np.errstate(all="ignore"):       # beta is released; an overflow must not surface as a warning
            squared_residuals = (target - design @ beta) ** 2
        # Each clipped squared residual lies in [0, clip^2] (one that overflowed counts as clip^2).
        residuals = np.where(np.isfinite(squared_residuals), np.clip(squared_residuals, 0.0, residual_clip),
                             residual_clip)
        sums = np.bincount(group_index, weights=residuals, minlength=n_groups)
        noisy_sums = np.array([ledger.release(sums[k], stage="stage1", l2_sensitivity=residual_clip, rho=rho_residual,
                                              random_state=rng) for k in estimable])
        released["residual_sums"] = noisy_sums
        if np.any(noisy_sums <= 0):
            return uniform, "a noisy residual sum <= 0", released
        squared = noisy_sums / sizes[estimable]
        small = present.copy()
        small[estimable] = False                       # groups with 1..d rows: the default share 1 / K'
        shares = np.where(small, uniform, 0.0)
        shares[estimable] = (1.0 - shares.sum()) * (squared / squared.sum())
        return shares, None, released

    def _stage2_gradient_descent(self, design, target, group_index, sizes, mu, shares, ledger, rng):
        """Algorithm 2 (``objective="group_mean"``, optional BGL) or Algorithm 3 (``"pooled"``): mu-zCDP projected
        DP gradient descent; group k gets ``mu s_k^2 / T`` per iteration (half for its loss when BGL is on).

        Per-example gradients are clipped to L2 norm ``clip``; under substitution within group k the clipped sum
        moves by at most ``2 clip`` (the mean by ``2 clip / n_k``); per-example losses are clipped to ``[0,
        clip^2]`` (the mean moves by ``clip^2 / n_k``). The iterate is projected onto ``[-coef_bound,
        coef_bound]^P``. A group without rows (share 0, public) contributes nothing and releases nothing: its
        gradient is recorded as 0, its loss and sigma as NaN.
        """
        n_groups = sizes.size
        T = int(self.n_iter)
        d = design.shape[1]
        clip = float(self.clip)
        use_bgl = self.bounded_group_loss is not None
        theta = np.zeros(d)
        history = {"theta": [], "noisy_gradients": [], "noisy_losses": [], "sigma_gradient": None}
        sigma_gradient = np.full(n_groups, np.nan)
        # Split the data by group once. Every per-example gradient is a scalar times x_i (2 r_i x_i for the squared
        # loss), so its norm is |scalar| ||x_i||: the clipped mean is X_k^T (scalar * clip factor) / n_k, one
        # matrix-vector product per group and iteration instead of an (n_k, d) array.
        blocks = []
        for k in range(n_groups):
            rows = np.flatnonzero(group_index == k)
            X_k = design[rows]
            blocks.append((X_k, target[rows], np.linalg.norm(X_k, axis=1)))
        for _ in range(T):
            gradients = np.zeros((n_groups, d))
            losses = np.full(n_groups, np.nan)
            history["theta"].append(theta.copy())
            for k, (X_k, y_k, row_norms) in enumerate(blocks):
                if sizes[k] == 0:
                    continue
                gradient_budget, loss_budget = group_budget_stage2_split(mu, shares[k], T, bounded_group_loss=use_bgl)
                margin = X_k @ theta
                with np.errstate(over="ignore"):      # exp overflow (the limit is exact) must not warn
                    scale = self._gradient_scalars(margin, y_k)
                factor = 1.0 / np.maximum(1.0, np.abs(scale) * row_norms / clip)     # per-example L2 clipping
                clipped_sum = X_k.T @ (scale * factor)
                if self.objective == "group_mean":
                    value, sensitivity = clipped_sum / sizes[k], 2 * clip / sizes[k]
                else:
                    value, sensitivity = clipped_sum, 2 * clip
                gradients[k] = ledger.release(value, stage="stage2", l2_sensitivity=sensitivity,
                                              rho=gradient_budget, random_state=rng)
                sigma_gradient[k] = (0.0 if math.isinf(gradient_budget)
                                     else zcdp_gaussian_sigma(sensitivity, gradient_budget))
                if use_bgl:
                    loss = np.clip(self._losses_from_margin(margin, y_k), 0, clip ** 2)
                    losses[k] = ledger.release(loss.mean(), stage="stage2", l2_sensitivity=clip ** 2 / sizes[k],
                                               rho=loss_budget, random_state=rng)
            direction = gradients.sum(axis=0)
            if use_bgl:
                worst = int(np.nanargmax(losses))
                if losses[worst] - float(self.bounded_group_loss) >= 0:
                    direction = direction + float(self.lagrange_multiplier) * gradients[worst]
            theta = np.clip(theta - float(self.learning_rate) * direction, -self.coef_bound, self.coef_bound)
            history["noisy_gradients"].append(gradients)
            history["noisy_losses"].append(losses)
        history["sigma_gradient"] = sigma_gradient
        history = {key: (np.array(value) if isinstance(value, list) else value) for key, value in history.items()}
        return theta, history
