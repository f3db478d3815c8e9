"""The mixing LP of ``DPThresholdOptimizer`` (the private rates of the released table, ``_solve_mixing_lp``), the
error bounds of the private rates, the privacy slack, and what the released values say about the LP's solution.

Everything here is a function of the released table (through the clipped masses and rates of ``_Rates``) and of
public inputs (``m``, ``epsilon``, ``delta``, ``beta``, the grid, the groups), so it may be published, warned
about or used to fit.

**Rate errors.** A private rate of a slice (the ``B`` cells of one group and label, or the ``2B`` cells of one group
for a selection rate) at threshold ``j`` is ``T~_j / S~``, the clipped mass of the bins ``>= j`` over the slice's
clipped mass. With ``d_T``, ``d_R`` the errors of the two parts, ``T~/S~ - T/S = (d_T (1 - R) - R d_R) / S~``, so
the rate errs by at most ``max(|d_T|, |d_R|) / S~``. Clipping a cell at 0 turns its noise ``e`` into ``d = max(e,
-c) in [e, max(e, 0)]``, so every part's error lies between the signed noise sum of its cells and the sum of the
positive parts of the slice's noise. Hence, over all thresholds at once, the error is at most ``Z / S~`` with

    ``Z = max(sum of the slice's positive parts, max_j |partial noise sums from either end|)``.

The noise is independent and symmetric, so Levy's maximal inequality bounds each end's partial sums by twice the
tail of the full sum: ``P(Z > t) <= P(sum (e)^+ > t) + 8 P(sum e > t)``. For Laplace noise of
scale ``b`` both tails are exact finite sums (``laplace_sum_sf``, ``positive_part_sum_sf``); for Gaussian noise the
full sum is Gaussian and the positive parts are bounded by ``sqrt(cells) ||e||_2``. ``E`` is the smallest ``t``
with ``n_slices`` times that tail at most ``beta`` (a union bound over the slices the constraints use). With binary
predictions and Laplace noise (two bins) the only threshold with an error is "predict 1 iff bin 1": ``T`` is the
slice's bin-1 cells and ``R`` its bin-0 cells, ``cells / 2`` cells each, and ``|d| <= |e|`` per cell, so ``E =
(cells / 2) t`` with ``t`` the paper's per-cell bound of Lemma B.2 on all ``4|A|`` cells at once: ``t`` for an FPR
or TPR (Algorithm 1's slack is reproduced exactly), ``2t`` for a selection rate.

**Guarantee.** On the event above, each group's true rate of the fitted post-processor on the fitting data is
within ``s_a`` of its released rate ``r~_a`` (a mixture of thresholds, possibly flipped, errs by at most the
largest error of its thresholds), so for every pair of groups ``|r_a - r_b| <= |r~_a - r~_b| + s_a + s_b``
(``disparity_bounds``). The LP constrains the gap of every group to the anchor group 0 to ``gamma`` plus its
slack and, with ``gamma > 0``, the gap of every other pair to ``gamma`` plus both slacks (``_constrained_pairs``):
without slack the released rates' range is at most ``gamma``, Fairlearn's meaning of ``tol``. The bound uses the
released gaps themselves. The largest of them per rate is the fitted ``disparity_bound_``: an attribute shown in
the estimator's repr, not a warning (a wide bound is what the epsilon buys, not a sign that the fit failed).

**Slack.** ``rate_errors`` gives each group's own bound ``s_a = E / q~_a``. The non-private optimum's released gap
to group 0 is then at most ``gamma + s_a + s_0`` (triangle inequality), which is the slack used with score bins;
with binary predictions and Laplace noise the paper's ``2 E / min(q~_a, q~_0)`` (LP~ (1), never smaller).

**Why no slack by default.** Dropping the slack keeps every constraint at ``gamma`` on the released rates. The
slack keeps the non-private optimum feasible, but what it buys is small and paid for by the small groups. For
demographic parity with the accuracy objective: take the slack-LP's solution and mix each group's rule with the
all-1 or all-0 rule (whose released selection rates are exactly 1 and 0) until its released rate is within
``gamma`` of the anchor's; that moves it by at most ``slack_a`` and changes at most a ``slack_a`` share of the
group's released predictions, so it changes the released accuracy by at most ``share_a slack_a``. The LP without
slack therefore reaches the slack-LP's released objective minus ``sum_a share_a slack_a`` (about ``2 |A| E``, the
order of the objective's own noise), while the slack lets each group's rate drift by ``slack_a``, which grows as
``1 / q~_a``: a small group pays for the accuracy of the others.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import FairnessWarning, UtilityWarning, warn
from ..privacy._selection import ConstantChoice, no_choice

__all__ = ["RATE_LABELS", "rate_error_budget", "rate_errors", "constraint_slack", "released_rates",
           "disparity_bounds", "warn_if_unenforced", "warn_if_constant", "laplace_sum_sf", "positive_part_sum_sf",
           "lp_constant_choice"]

# The labels whose cells a rate's slice sums: FPR over the negatives, TPR over the positives, selection over both.
RATE_LABELS = {"fpr": (0,), "tpr": (1,), "selection": (0, 1)}
# A released gap counts as above a bound only beyond the LP's own round-off (HiGHS's feasibility tolerance, 1e-7).
_LP_TOLERANCE = 1e-6


def laplace_sum_sf(t: float, n: int) -> float:
    """``P(e_1 + ... + e_n > t)`` for ``n`` iid Laplace(1) variables (exact).

    The sum is ``G - G'`` with ``G, G'`` iid Gamma(n, 1); its density on ``x > 0`` is ``sum_{j<n} NB(j; n, 1/2)
    x^(n-1-j) e^-x / (n-1-j)!``, so its tail is the negative-binomial mixture of Gamma(n - j) tails below.
    """
    from scipy import stats

    if t < 0:
        return 1.0 - laplace_sum_sf(-t, n)
    j = np.arange(n)
    return float(np.sum(stats.nbinom.pmf(j, n, 0.5) * stats.gamma.sf(t, n - j)))


def positive_part_sum_sf(t: float, n: int) -> float:
    """``P(max(e_1, 0) + ... + max(e_n, 0) > t)`` for ``n`` iid Laplace(1) variables, ``t >= 0`` (exact): ``K ~
    Binomial(n, 1/2)`` of them are positive, each then Exponential(1), so the sum is Gamma(K, 1) given ``K``.
    """
    from scipy import stats

    k = np.arange(1, n + 1)
    return float(np.sum(stats.binom.pmf(k, n, 0.5) * stats.gamma.sf(t, k)))


def _tail(t, *, cells, laplace_scale, gaussian_sd):
    """``P(positive parts > t) + 8 P(full sum > t)`` for one slice of ``cells`` cells (module docstring)."""
    from scipy import stats

    if gaussian_sd is None:
        u = t / laplace_scale
        return positive_part_sum_sf(u, cells) + 8.0 * laplace_sum_sf(u, cells)
    spread = gaussian_sd * math.sqrt(cells)
    return float(stats.chi2.sf((t / spread) ** 2, df=cells) + 8.0 * stats.norm.sf(t / spread))


def rate_error_budget(*, n_rows, epsilon, delta, beta, n_groups, n_bins, cells, n_slices):
    """``E`` such that, with probability >= 1 - beta, every private rate of every one of ``n_slices`` slices (of
    ``cells`` cells each) errs by at most ``E / q~`` (``q~`` the slice's clipped mass); 0 at ``epsilon = inf``.

    Binary predictions with Laplace noise (``n_bins == 2``, ``delta == 0``): ``E = (cells / 2) t`` (``t`` for an FPR or
    TPR, the paper's bound; ``2t`` for a selection rate), ``t = 2 ln(4|A|/beta) / (m epsilon)`` bounding all ``4|A|``
    cells at once (Lemma B.2; the one erring threshold sums ``cells / 2`` cells on each side). Otherwise the smallest
    ``E`` with ``n_slices * (P(positive parts > E) + 8 P(noise sum > E)) <= beta`` (module docstring).
    """
    from scipy import optimize

    if math.isinf(epsilon):
        return 0.0
    laplace_scale = 2.0 / (n_rows * epsilon)
    if delta == 0 and n_bins == 2:
        return (cells // 2) * math.log(2 * n_groups * n_bins / beta) * laplace_scale
    gaussian_sd = None
    if delta > 0:
        from ..privacy._release import noise_scale

        gaussian_sd = noise_scale(epsilon, delta, None, math.sqrt(2.0) / n_rows)     # the analytic Gaussian's sigma
    scale = laplace_scale if gaussian_sd is None else gaussian_sd

    def excess(t):
        return n_slices * _tail(t, cells=cells, laplace_scale=laplace_scale, gaussian_sd=gaussian_sd) - beta

    high = scale * (cells + 10.0)
    while excess(high) > 0:
        high *= 2.0
    return float(optimize.brentq(excess, 0.0, high, xtol=1e-12 * scale, rtol=1e-10))


def _slice_mass(mass, rate):
    """``q~`` of each group's slice for ``rate`` (clipped, not renormalised), shape (n_groups,)."""
    return mass[:, list(RATE_LABELS[rate])].sum(axis=1)


def rate_errors(mass, *, n_rows, epsilon, delta, beta, n_bins, rates):
    """Each group's bound ``s_a = E / q~_a`` on the error of its private ``rate`` (every threshold and mixture), for
    every constrained rate; ``inf`` where the slice's noisy mass is 0. All hold at once with probability >= 1 - beta.
    """
    n_groups = mass.shape[0]
    errors = {}
    for rate in rates:
        budget = rate_error_budget(n_rows=n_rows, epsilon=epsilon, delta=delta, beta=beta, n_groups=n_groups,
                                   n_bins=n_bins, cells=len(RATE_LABELS[rate]) * n_bins,
                                   n_slices=n_groups * len(rates))
        base = _slice_mass(mass, rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            errors[rate] = np.where(base > 0, budget / np.where(base > 0, base, 1.0), np.inf)
    return errors


def constraint_slack(errors, *, enabled, paper):
    """The slack added to ``gamma`` on each group's constraint (0 for the anchor group 0; ``inf``, the constraint
    dropped, when the group's or the anchor's slice has no released mass).

    ``enabled=False``: 0. ``paper`` (binary predictions, Laplace noise): LP~ (1) of Jagielski et al., ``2 E /
    min(q~_a, q~_0) = 2 max(s_a, s_0)``; otherwise ``s_a + s_0``, the least slack that keeps the non-private optimum
    feasible under the same event.
    """
    slack = {}
    for rate, own in errors.items():
        if not enabled:
            values = np.where(np.isinf(own) | np.isinf(own[0]), np.inf, 0.0)
        else:
            values = 2.0 * np.maximum(own, own[0]) if paper else own + own[0]
        values = np.array(values, dtype=float)
        values[0] = 0.0
        slack[rate] = values
    return slack


def released_rates(table, mixing_rates, rate):
    """Each group's ``rate`` of the fitted post-processor on the released (clipped, renormalised) table; NaN for a
    group whose slice has no released mass.
    """
    cells = table[:, :, list(RATE_LABELS[rate])].sum(axis=2)            # (n_groups, n_bins)
    total = cells.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, (mixing_rates * cells).sum(axis=1) / np.where(total > 0, total, 1.0), np.nan)


def _unbound_groups(rates_a, slack, gamma):
    """Indices of the groups whose constraint does not bind at the solution although their released gap to the anchor
    exceeds ``gamma``: the slack, not the fairness constraint, set their rate. Up to the LP's round-off; the anchor
    and dropped constraints (``inf`` slack) are not counted.
    """
    with np.errstate(invalid="ignore"):
        gap = np.abs(rates_a - rates_a[0])
        loose = (gap > gamma + _LP_TOLERANCE) & (gap < gamma + slack - _LP_TOLERANCE) & np.isfinite(slack)
    loose[0] = False
    return np.flatnonzero(loose), gap


def warn_if_unenforced(*, table, mixing_rates, slack, gamma, groups):
    """Warn when the released values show that the fairness constraint is not enforced (all inputs released/public),
    in :class:`~fairlearn_dp.exceptions.FairnessWarning`.

    - Some slack is >= 1: that constraint can never bind.
    - Some group's constraint does not bind although its released gap to the anchor exceeds ``tol``: its slack is
      larger than its disparity, so the fit leaves that group where accuracy alone puts it (only with the privacy
      slack; a binding constraint is the slack working as stated, a gap of at most ``tol + slack_``).

    How wide the guarantee is (``disparity_bounds``) is not a warning: the estimator stores it as
    ``disparity_bound_`` and shows it in its repr.
    """
    # a dropped constraint (inf: no released mass) is warned about where it is dropped (_private_rates)
    vacuous_slack = [rate for rate, values in slack.items() if np.any(np.isfinite(values[1:]) & (values[1:] >= 1.0))]
    if vacuous_slack:
        warn(f"The privacy slack is >= 1 for some group on {vacuous_slack}: those constraints cannot bind, so fairness "
             "is not enforced at this epsilon (Thm. 3.1 of Jagielski et al. needs a larger epsilon * m). Use a "
             "larger epsilon, fewer score bins, or options.privacy_slack=False.", FairnessWarning)
    for rate in slack:
        if rate not in vacuous_slack:
            _warn_if_unbound(rate, released_rates(table, mixing_rates, rate), slack[rate], gamma, groups)


def warn_if_constant(mixing_rates, groups):
    """Warn (:class:`~fairlearn_dp.exceptions.UtilityWarning`) when the fitted rule ignores the base classifier's
    output in every group (each group's ``P(Y~ = 1 | bin)`` the same for every bin): its predictions are then a
    constant, or a coin flip, per group. A function of the released mixing rates only.
    """
    spread = np.ptp(mixing_rates, axis=1)
    if mixing_rates.shape[1] > 1 and np.all(spread <= _LP_TOLERANCE):
        per_group = {groups[a]: round(float(rate), 3) for a, rate in enumerate(mixing_rates[:, 0])}
        warn(f"The fitted post-processor ignores the base classifier's output: each group's probability of "
             f"predicting 1 is the same in every bin ({per_group}), so its predictions are a constant or a coin "
             "flip per group: under this constraint and tol, no rule that uses the scores does better on the released "
             "statistics.", UtilityWarning)


def lp_constant_choice(mixing_rates, *, n_rows=1, epsilon=math.inf, delta=0.0, beta=0.05,
                       objective="accuracy_score"):
    """The final choice against the constant classifiers, as the mixing LP made it (``constant_choice_``).

    The LP's feasible set holds the constants: "predict 1 iff bin >= 0" (all 1) and "iff bin >= B" (all 0) in every
    group have released rates exactly 1 or 0 in every group, so they meet every constraint with no gap; and its
    objective is evaluated on the released table only. So the LP's rule is at least as good as both constants on
    the released objective: the choice is post-processing of the one release and spends nothing more (``epsilon``
    0). ``chosen`` is "constant" when the fitted rule predicts the same probability ``0`` or ``1`` in every group
    and bin (``warn_if_constant`` warns then). ``error_bound``, for ``objective="accuracy_score"``: the released
    table ``w~`` (clipped, renormalised) errs from the true one by ``||w~ - w||_1 <= 2 ||e||_1`` (``e`` the noise),
    and two rules' accuracies differ by ``sum_c w_c (g_c - g'_c)`` with ``|g_c - g'_c| <= 1``, so the LP's rule's
    training error exceeds the better constant's by at most ``2 ||e||_1``; ``||e||_1`` is at most its ``1 - beta``
    quantile with probability ``1 - beta`` (Laplace of scale ``b = 2 / (n epsilon)`` on ``K`` cells: Gamma(K, b);
    Gaussian of sd ``sigma``: ``sqrt(K) sigma sqrt(chi2_K)``). ``nan`` for another objective (the LP does not
    minimise the error then). ``None`` for ``mixing_rates`` or ``epsilon = inf``: no choice (:func:`no_choice`).
    """
    from scipy import stats

    if mixing_rates is None or math.isinf(epsilon):
        return no_choice()
    rates = np.asarray(mixing_rates, dtype=float)
    cells = 2 * rates.size
    if not (isinstance(objective, str) and objective == "accuracy_score"):
        bound = math.nan
    elif delta == 0:
        bound = 2.0 * float(stats.gamma.ppf(1.0 - beta, cells, scale=2.0 / (n_rows * epsilon)))
    else:
        from ..privacy._release import noise_scale

        sigma = noise_scale(epsilon, delta, None, math.sqrt(2.0) / n_rows)
        bound = 2.0 * math.sqrt(cells) * sigma * math.sqrt(float(stats.chi2.ppf(1.0 - beta, cells)))
    candidates = ("fitted", "constant 0", "constant 1")
    for constant in (0.0, 1.0):
        if np.all(np.abs(rates - constant) <= _LP_TOLERANCE):
            return ConstantChoice("constant", constant, 0.0, bound, beta, candidates)
    return ConstantChoice("fitted", None, 0.0, bound, beta, candidates)


def disparity_bounds(table, mixing_rates, errors):
    """For each rate, ``(max_{a<b} |r~_a - r~_b| + s_a + s_b, (a, b))``: with probability >= 1 - beta, no two groups'
    true rates of the fitted post-processor on the fitting data differ by more (module docstring, "Guarantee").
    Groups with an infinite bound (no released mass; their constraint is dropped) are left out; ``(0.0, (0, 0))``
    when fewer than two groups remain. A function of released values only.
    """
    bounds = {}
    for rate, own in errors.items():
        rates_a = released_rates(table, mixing_rates, rate)
        kept = np.flatnonzero(np.isfinite(own) & np.isfinite(rates_a))
        pairs = [(0.0, (0, 0))] + [(abs(rates_a[a] - rates_a[b]) + own[a] + own[b], (int(a), int(b)))
                                   for i, a in enumerate(kept) for b in kept[i + 1:]]
        bounds[rate] = max(pairs, key=lambda pair: pair[0])
    return bounds


def _warn_if_unbound(rate, rates_a, slack, gamma, groups):
    unbound, gap = _unbound_groups(rates_a, slack, gamma)
    if unbound.size:
        warn(f"The {rate} constraint does not bind for groups {[groups[a] for a in unbound]}: their released gaps to "
             f"{groups[0]!r} (up to {np.max(gap[unbound]):.3g}) exceed tol={gamma:g} but are below tol plus the "
             f"privacy slack (slack_, up to {np.max(slack[unbound]):.3g}), so fairness is not enforced for them at "
             "this epsilon. options.privacy_slack=False enforces tol on the released statistics.", FairnessWarning)


# ------------------------------------------------------------------------------------------------ the mixing LP
# Fairlearn's constraint names -> the group rates they equalise.
_CONSTRAINT_RATES = {
    "equalized_odds": ("fpr", "tpr"),
    "true_positive_rate_parity": ("tpr",),
    "false_negative_rate_parity": ("tpr",),
    "false_positive_rate_parity": ("fpr",),
    "true_negative_rate_parity": ("fpr",),
    "demographic_parity": ("selection",),
    "selection_rate_parity": ("selection",),
}
# AIF360's EqOddsPostprocessing minimises sum_g (FPR_g - TPR_g) over its two groups; kept for the AIF360 face.
_AIF360_OBJECTIVE = "sum_of_group_tpr_minus_fpr"


class _Rates:
    """Private statistics the LP needs, from the clipped table (Alg. 1's q~ with negative cells set to 0)."""

    def __init__(self, table, mass):
        self.table = table                          # (A, B, 2), renormalised
        self.mass = mass                            # (A, 2) clipped q~_{ay}, not renormalised (for the slack)
        slice_mass = table.sum(axis=1)              # (A, 2)
        defined = slice_mass > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            tail = np.cumsum(table[:, ::-1, :], axis=1)[:, ::-1, :]        # sum_{b >= j}, j = 0..B-1
            tail = np.concatenate([tail, np.zeros_like(tail[:, :1, :])], axis=1)   # j = B: never positive
            roc = np.where(defined[:, None, :], tail / np.where(defined, slice_mass, 1.0)[:, None, :], 0.5)
        self.fpr_at = roc[:, :, 0]                  # (A, B + 1): FPR of "predict 1 iff bin >= j"
        self.tpr_at = roc[:, :, 1]
        self.weight = slice_mass                    # q~_{ay}, renormalised


def _private_rates(noisy_table):
    """``_Rates`` of the released table: negative cells clipped to 0, renormalised; a (group, label) slice without
    noisy mass is warned about (its constraint is then dropped).
    """
    noisy = np.asarray(noisy_table, dtype=float)
    clipped = np.maximum(noisy, 0.0)
    mass = clipped.sum(axis=1)
    total = clipped.sum()
    if total <= 0:
        raise ValueError("Every noisy cell is <= 0: the privacy budget is too small for this dataset.")
    empty = np.argwhere(mass <= 0)
    for a, label in empty:
        warn(f"The noisy mass of group index {a} with label {label} is 0 after clipping; its rate for that label "
             "is undefined and its constraint on it is dropped.", FairnessWarning)
    return _Rates(clipped / total, mass)


def _solve_mixing_lp(rates, *, gamma, slack, constraints, objective, flip, solver):
    """Hardt et al.'s LP over mixtures of (flipped) thresholds, on private rates. Returns (mixing rates, value).

    Variables ``z = [lambda (n_groups x (B + 1)), mu (same, only with flip)]``: ``lambda_{a,j}`` is the weight of
    "predict 1 iff bin >= j" and ``mu_{a,j}`` of "predict 1 iff bin < j"; each group's weights sum to 1. Every
    group rate is linear in ``z``, so the LP is ``max c.z`` s.t. ``A_eq z = 1``, ``A_ub z <= b_ub``, ``z >= 0``.
    """
    n_groups, n_points = rates.fpr_at.shape
    blocks = 2 if flip else 1
    n_var = blocks * n_groups * n_points
    group_rate = _group_rate_rows(rates, flip)
    a_eq = _weights_sum_to_one(n_groups, n_points, blocks)
    a_ub, b_ub = _constraint_rows(group_rate, constraints=constraints, slack=slack, gamma=gamma)
    c, constant = _objective_row(objective, rates.weight, group_rate["fpr"], group_rate["tpr"])
    a_ub = np.array(a_ub).reshape(-1, n_var)
    b_ub = np.array(b_ub)
    if solver == "linprog":
        ok, z, value, status = _solve_with_linprog(c, a_ub, b_ub, a_eq)
    else:
        ok, z, value, status = _solve_with_cvxpy(c, a_ub, b_ub, a_eq, solver)
    if not ok:
        raise RuntimeError(f"The mixing LP has no optimal solution ({status}); a constant predictor is always "
                           "feasible, so this points to a numerical problem.")
    return _positive_rates(z, (blocks, n_groups, n_points), flip), float(value + constant)


def _rate_rows(at, flip):
    """(n_groups, n_var): each group's rate as a linear function of ``z``, from its rate ``at`` each threshold."""
    n_groups, n_points = at.shape
    blocks = 2 if flip else 1
    rows = np.zeros((n_groups, blocks, n_groups, n_points))
    for a in range(n_groups):
        rows[a, 0, a] = at[a]
        if flip:
            rows[a, 1, a] = 1.0 - at[a]
    return rows.reshape(n_groups, blocks * n_groups * n_points)


def _group_rate_rows(rates, flip):
    """``{"fpr", "tpr", "selection"}``: each group's rate as rows of a (n_groups, n_var) array (linear in ``z``)."""
    weight = rates.weight
    fpr, tpr = _rate_rows(rates.fpr_at, flip), _rate_rows(rates.tpr_at, flip)
    group_mass = weight.sum(axis=1)
    selection = (weight[:, :1] * fpr + weight[:, 1:] * tpr) / np.where(group_mass > 0, group_mass, 1.0)[:, None]
    return {"fpr": fpr, "tpr": tpr, "selection": selection}


def _weights_sum_to_one(n_groups, n_points, blocks):
    """``A_eq`` (n_groups, n_var): each group's threshold weights (both blocks) sum to 1."""
    a_eq = np.zeros((n_groups, blocks, n_groups, n_points))
    for a in range(n_groups):
        a_eq[a, :, a, :] = 1.0
    return a_eq.reshape(n_groups, blocks * n_groups * n_points)


def _constrained_pairs(slack, gamma):
    """``(a, b, bound)`` for every pair whose gap the LP constrains: each group ``a`` to the anchor 0 within ``gamma +
    slack[a]``; with ``gamma > 0`` also each pair of other groups within ``gamma + slack[a] + slack[b]``, so that
    the released rates' range is at most ``gamma`` without slack, as Fairlearn's ``tol`` bounds the range. (With
    ``gamma = 0`` those rows follow from the anchor rows by the triangle inequality.) A group with an infinite slack
    (no released mass) is left out.
    """
    kept = [a for a in range(1, len(slack)) if np.isfinite(slack[a])]
    pairs = [(a, 0, gamma + slack[a]) for a in kept]
    if gamma > 0:
        pairs += [(a, b, gamma + slack[a] + slack[b]) for i, a in enumerate(kept) for b in kept[i + 1:]]
    return pairs


def _constraint_rows(group_rate, *, constraints, slack, gamma):
    """``(A_ub, b_ub)`` as lists: each constrained pair's gap (``_constrained_pairs``) within its bound, both ways."""
    a_ub, b_ub = [], []
    for rate in _CONSTRAINT_RATES[constraints]:
        for a, b, bound in _constrained_pairs(slack[rate], gamma):
            gap = group_rate[rate][a] - group_rate[rate][b]
            a_ub += [gap, -gap]
            b_ub += [bound] * 2
    return a_ub, b_ub


def _objective_row(objective, weight, fpr, tpr):
    """``(c, constant)``: the objective on the released table is ``c.z + constant``."""
    positives, negatives = weight[:, 1], weight[:, 0]
    if objective == "accuracy_score":
        return positives @ tpr - negatives @ fpr, negatives.sum()
    if objective == "balanced_accuracy_score":
        return 0.5 * (positives @ tpr / positives.sum() - negatives @ fpr / negatives.sum()), 0.5
    if objective == "selection_rate":
        return positives @ tpr + negatives @ fpr, 0.0
    if objective == "true_positive_rate":
        return positives @ tpr / positives.sum(), 0.0
    if objective == "true_negative_rate":
        return -negatives @ fpr / negatives.sum(), 1.0
    return (tpr - fpr).sum(axis=0), 0.0             # _AIF360_OBJECTIVE: sum_g (TPR_g - FPR_g)


def _solve_with_linprog(c, a_ub, b_ub, a_eq):
    """``max c.z`` by SciPy's HiGHS: ``(optimal, z, value, status message)``."""
    from scipy.optimize import linprog

    result = linprog(-c, A_ub=a_ub if a_ub.size else None, b_ub=b_ub if b_ub.size else None, A_eq=a_eq,
                     b_eq=np.ones(a_eq.shape[0]), bounds=(0, None), method="highs")
    return result.status == 0, result.x, (-result.fun if result.status == 0 else None), result.message


def _solve_with_cvxpy(c, a_ub, b_ub, a_eq, solver):
    """``max c.z`` by the installed cvxpy ``solver``: ``(optimal, z, value, status)``."""
    import cvxpy as cp

    if solver not in cp.installed_solvers():
        raise ValueError(f"solver must be 'linprog' or an installed cvxpy solver {cp.installed_solvers()}, "
                         f"got {solver!r}.")
    variable = cp.Variable(a_eq.shape[1], nonneg=True)
    cons = [a_eq @ variable == 1] + ([a_ub @ variable <= b_ub] if a_ub.size else [])
    problem = cp.Problem(cp.Maximize(c @ variable), cons)
    problem.solve(solver=solver)
    return problem.status == cp.OPTIMAL, variable.value, problem.value, problem.status


def _positive_rates(z, shape, flip):
    """``P(1 | bin b) = sum_{j <= b} lambda_j + sum_{j > b} mu_j`` per group, from the solution ``z`` (solver
    round-off clipped into [0, 1]); ``shape`` is ``(blocks, n_groups, n_points)``.
    """
    z = np.clip(np.asarray(z, dtype=float), 0.0, None).reshape(shape)
    positive = np.cumsum(z[0], axis=1)[:, :-1]
    if flip:
        positive = positive + np.cumsum(z[1][:, ::-1], axis=1)[:, ::-1][:, 1:]
    return np.clip(positive, 0.0, 1.0)
