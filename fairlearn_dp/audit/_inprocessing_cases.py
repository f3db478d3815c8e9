"""Default audit cases of the in-processing rows: one release of a multi-release mechanism, audited against the
budget the class declares for that release.

The DP exponentiated gradient (Jagielski et al. 2019, Alg. 3), the exponential-mechanism learner (Cummings et al.
2019, Alg. 1) and private FairNR (Cummings et al. 2019, Sec. 5) each release several statistics and compose their
budgets. An audit of the whole output against the total budget would be hopelessly loose, so each case fixes a
configuration in which the event reads one release whose distribution differs between ``D`` and ``D'``, every other
release it depends on having the same distribution on both, and compares the lower bound with the epsilon the fitted
object declares for that release (``epsilon_per_mechanism_``, ``exponential_mechanism_epsilon_``,
``per_release_spend_``). The factories give the estimator a total budget of (number of equal shares) x
``epsilon``, so that the audited release gets exactly ``epsilon`` (1 by default) as in the single-release rows; the
case checks that the fitted object declares that value. Per row:

- ``DPExponentiatedGradient`` / ``DPExponentiatedGradientReduction`` (neighbours: one person's sensitive attribute
  changed): ``max_iter=1``, ``DemographicParity``, ``delta=0`` with a public ``min_count`` (basic composition over
  the 2T = 2 mechanisms: each gets ``epsilon_total / 2``) and a one-hypothesis class, so the Learner's exponential
  mechanism is data-independent and the only data-dependent release is the Auditor's Laplace-noised violation vector
  ``history_["noisy_gamma"]`` (L1 sensitivity ``4 / (N - 1)``, scale ``history_["noise_scale"]``). Person 0, the
  only one the hypothesis labels 1, moves from group 0 to group 1: group 0's mean prediction drops from ``1/n_0`` to
  0 and group 1's rises from 0 to ``1/(n_1 + 1)``, moving all four coordinates (each group's ``+`` and ``-``
  constraint) by ``2/n_0 + 2/(n_1 + 1)`` in L1 -- about 0.88 of the declared sensitivity at ``n = 40`` (``N = 19``),
  the most one attribute change can move them with these group sizes. The event is the orthant of the four moved
  coordinates beyond their true values on ``D`` (probabilities ``1/16`` and ``e^{-0.88 epsilon} / 16``). A
  two-hypothesis class would not make the Learner's release auditable here: in round 1 the multipliers are uniform,
  so the ``+`` and ``-`` violations cancel in every hypothesis' cost, which then does not depend on the sensitive
  attribute at all.
- ``ExponentialMechanismFairClassifier`` (substitution of one record; ``n = 58`` records by default, see
  :func:`exponential_mechanism_default_n`, so that the fit's refusal when its noisy group size is <= 1 has
  probability < 1e-9 per fit): two hypotheses ``1[x_1 >= 1/2]`` and ``1[x_2 >= 1/2]`` with equal utility losses on
  ``D``; ``D'`` substitutes record 0's features ``(1, 0)`` by ``(0, 1)``. Every group's positive count is unchanged,
  so the Laplace release ``M`` has the same distribution on both, and the exponential mechanism's choice is the
  audited release (``exponential_mechanism_epsilon_``, with the class's ``delta_``, the probability that ``M``
  overshoots and the sensitivity is too small). The first hypothesis' loss rises by ``1/m + 1/n`` (its true positive
  rate in group 0 falls by ``1/m`` below group 1's, and it errs on record 0), the second's falls by as much. The
  event "the first hypothesis is selected" has probability exactly ``1/2`` on ``D`` whatever the mechanism's scale,
  so a mechanism with far too little noise is caught; on ``D'`` its probability is the exponential mechanism's
  averaged over ``M`` (computed by quadrature). The bound stays well below epsilon even for a correct mechanism: one
  substitution moves a loss by ``1/m + 1/n``, about half of Lemma 2's worst case ``2/m + 1/n``, and the declared
  sensitivity ``2/(M - 1) + 1/n`` is larger still since ``M`` is biased down by ``ln(1/delta) / epsilon_size``.
- ``DPGerryFairClassifier`` (both faces; substitution of one record): ``max_iters=2`` (one round, ``K = 6`` releases
  of ``epsilon_total / 6`` each, Laplace with ``delta = 0``), a Learner without intercept, and record 0 with ``x =
  0`` (its protected attribute too, which AIF360's features include) and label 1, substituted by the same record
  with label 0. Its design row is zero, so the Learner's statistics (``G_X``, ``b_1``) and hence its play ``h_1``
  have the same distribution on ``D`` and ``D'`` and ``h_1(x_0) = 0``; the Auditor's releases (``G_A``, ``S_1``,
  ``U_1``) do change, but the event does not read them and ``E_1`` does not depend on them. The audited release is
  the error statistic ``E_1 = sum_i |h_1(x_i) - y_i|`` (``history_[0]["error_statistic"]``, sensitivity 1, scale ``K
  / epsilon_total``, as its author suggested); ``D'`` lowers it by exactly 1 for every play. The event thresholds it
  at its true value on ``D`` for the released play: probabilities ``1/2`` and ``e^{-epsilon} / 2``. (The true
  ``E_1`` alone is not a fixed number: it depends on ``h_1``, hence on the noise of the Learner's releases.)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..privacy import PrivacySpend
from ._events import _attribute, _OrthantEvent, _PlayErrorEvent, _SelectionEvent

__all__ = []


def _accountant():
    from diffprivlib import BudgetAccountant

    return BudgetAccountant()


def _check_share(name, declared, epsilon, what):
    """The factory's total budget must give the audited release exactly ``epsilon``."""
    if not math.isclose(declared, epsilon, rel_tol=1e-9):
        raise RuntimeError(f"The default case of {name!r} expects {what} = {epsilon:g} for the audited release, but "
                           f"the fitted object declares {declared!r}: update the case's share of the budget.")


# ------------------------------------------------------------------------------- DP exponentiated gradient
_EG_SHARES = 2                 # 2T mechanisms with T = max_iter = 1, basic composition (delta = 0)


def _eg_estimator_params(epsilon, min_count):
    from ..reductions import LinearThresholdClassifier

    return dict(epsilon=_EG_SHARES * epsilon, delta=0.0, max_iter=1, oracle="exponential",
                hypotheses=[LinearThresholdClassifier([1.0], 0.5)], min_count=min_count,
                accountant=_accountant())


def _make_exponentiated_gradient(epsilon, seed, *, min_count):
    from fairlearn.reductions import DemographicParity

    from ..reductions import DPExponentiatedGradient

    return DPExponentiatedGradient(constraints=DemographicParity(difference_bound=0.05),
                                   **_eg_estimator_params(epsilon, min_count), groups=[0, 1], random_state=seed)


def _make_aif360_exponentiated_gradient(epsilon, seed, *, min_count):
    from aif360_dp.algorithms.inprocessing import DPExponentiatedGradientReduction

    return DPExponentiatedGradientReduction(constraints="DemographicParity", difference_bound=0.05,
                                            **_eg_estimator_params(epsilon, min_count), seed=seed)


def _attribute_change_records(n):
    """One public feature, 1 for person 0 and 0 for everyone else (the hypothesis ``1[x >= 1/2]`` labels only person
    0 with 1); groups 0/1 alternating; ``D'`` moves person 0 from group 0 to group 1. ``min_count`` is the smallest
    group on either dataset (the DemographicParity cells are the groups)."""
    groups = np.arange(n) % 2
    x = np.zeros(n)
    x[0] = 1.0
    labels = (np.arange(n) // 2) % 2
    groups_prime = groups.copy()
    groups_prime[0] = 1
    min_count = int(min(np.bincount(groups, minlength=2).min(), np.bincount(groups_prime, minlength=2).min()))
    return x, labels, groups, groups_prime, min_count


def _exponentiated_gradient_case(n, epsilon):
    x, labels, groups, groups_prime, min_count = _attribute_change_records(n)
    make = functools.partial(_make_exponentiated_gradient, min_count=min_count)
    dataset = {"X": x[:, None], "y": labels, "sensitive_features": groups}
    neighbour = {"X": x[:, None], "y": labels, "sensitive_features": groups_prime}
    return (make, dataset, neighbour, *_orthant_event(make, dataset, neighbour, "", "DPExponentiatedGradient",
                                                      epsilon=epsilon))


def _aif360_exponentiated_gradient_case(n, epsilon):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    x, labels, groups, groups_prime, min_count = _attribute_change_records(n)

    def dataset(a):
        frame = pd.DataFrame({"a": a.astype(float), "x": x, "y": labels.astype(float)})
        return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}

    make = functools.partial(_make_aif360_exponentiated_gradient, min_count=min_count)
    data, neighbour = dataset(groups), dataset(groups_prime)
    return (make, data, neighbour, *_orthant_event(make, data, neighbour, "model_.",
                                                   "DPExponentiatedGradientReduction", epsilon=epsilon))


def _orthant_event(make, dataset, neighbour, prefix, name, *, epsilon):
    """The orthant event on the Auditor's violation vector and the declared spend of that release."""
    attribute = prefix + "history_.noisy_gamma"
    truth = np.asarray(_attribute(make(math.inf, 0).fit(**dataset), attribute), dtype=float)
    truth_prime = np.asarray(_attribute(make(math.inf, 0).fit(**neighbour), attribute), dtype=float)
    change = truth_prime - truth
    lowered = [tuple(c) for c in np.argwhere(change < -1e-12)]
    raised = [tuple(c) for c in np.argwhere(change > 1e-12)]
    if not lowered or not raised:
        raise RuntimeError(f"The default neighbours of {name!r} do not move {attribute} both ways.")
    declared = make(epsilon, 0).fit(**dataset)
    release_epsilon = float(_attribute(declared, prefix + "epsilon_per_mechanism_"))
    _check_share(name, release_epsilon, epsilon, "epsilon_per_mechanism_")
    scale = float(_attribute(declared, prefix + "history_.noise_scale"))
    sensitivity = float(_attribute(declared, prefix + "sensitivity_")["auditor_l1"])
    if not math.isclose(scale, sensitivity / release_epsilon, rel_tol=1e-9):
        raise RuntimeError(f"{name!r} declares a Laplace scale {scale!r} that is not its sensitivity over its "
                           "epsilon_per_mechanism_.")
    moved = len(lowered) + len(raised)
    l1 = float(np.abs(change).sum())
    expected = (0.5 ** moved, 0.5 ** moved * math.exp(-l1 / scale))
    event = _OrthantEvent(attribute, lowered, raised, [truth[c] for c in lowered], [truth[c] for c in raised],
                          expected)
    return event, PrivacySpend(release_epsilon, 0.0)


# ------------------------------------------------------------------------- exponential-mechanism learner
def _selection_hypotheses():
    from ..reductions import LinearThresholdClassifier

    return [LinearThresholdClassifier([1.0, 0.0], 0.5), LinearThresholdClassifier([0.0, 1.0], 0.5)]


def _em_total(epsilon):
    from ..reductions._exponential_mechanism_classifier import _MIN_GROUP_SIZE_SHARE

    return epsilon / (1.0 - _MIN_GROUP_SIZE_SHARE)


def _make_exponential_mechanism_classifier(epsilon, seed):
    from ..reductions import ExponentialMechanismFairClassifier

    return ExponentialMechanismFairClassifier(_selection_hypotheses(), epsilon=_em_total(epsilon), groups=[0, 1],
                                              accountant=_accountant(), random_state=seed)


# The fit refuses (raises) when the noisy group size M falls to <= 1; the case keeps that below this per-fit
# probability, so that audits of tens of thousands of fits do not stop on it.
_MAX_REFUSAL_PROBABILITY = 1e-9


def _refusal_probability(n, epsilon):
    """``P(M <= 1)`` for the case's data (``m = n / 2`` positives per group) at the default ``delta = exp(-sqrt(n))``:
    ``M = m - ln(1/delta) / epsilon_size + Y`` with ``Y ~ Laplace(1 / epsilon_size)``, ``epsilon_size = epsilon``."""
    from ..reductions._exponential_mechanism_classifier import _margin

    size_epsilon = _em_total(epsilon) - epsilon
    offset = n // 2 - _margin(math.exp(-math.sqrt(n)), size_epsilon)
    tail = 0.5 * math.exp(-abs(1.0 - offset) * size_epsilon)         # Laplace CDF at 1 - offset
    return tail if offset >= 1 else 1.0 - tail


def exponential_mechanism_default_n(epsilon):
    """The smallest even ``n >= 40`` at which the case's fits practically never refuse (58 at ``epsilon = 1``)."""
    n = 40
    while _refusal_probability(n, epsilon) > _MAX_REFUSAL_PROBABILITY:
        n += 2
    return n


def _selection_records(n):
    """All labels 1, groups 0/1 alternating (``g = n/2`` positives each), features ``(x_1, x_2)`` in {0, 1}^2.

    With ``a = g // 2``: ``x_1 = 1`` on ``a`` rows of each group (record 0 among them), ``x_2 = 1`` on ``a + 1`` rows
    of group 0 (not record 0) and ``a + 3`` of group 1. ``h_1 = 1[x_1 >= 1/2]`` has equal true positive rates and
    error ``1 - 2a/n``; ``h_2 = 1[x_2 >= 1/2]`` a rate gap ``2/g = 4/n`` and error ``1 - (2a + 4)/n``: equal losses
    ``1 - 2a/n``. ``D'`` substitutes record 0's features by ``(0, 1)``.
    """
    if n % 2 or n < 12:
        raise ValueError(f"The default case of 'ExponentialMechanismFairClassifier' needs an even n >= 12, got {n}.")
    g = n // 2
    a = g // 2
    index = np.arange(n)
    groups = index % 2
    group0, group1 = index[groups == 0], index[groups == 1]
    X = np.zeros((n, 2))
    X[group0[:a], 0] = 1.0
    X[group0[1:a + 2], 1] = 1.0
    X[group1[:a], 0] = 1.0
    X[group1[:a + 3], 1] = 1.0
    X_prime = X.copy()
    X_prime[0] = (0.0, 1.0)
    return X, X_prime, np.ones(n, dtype=int), groups


def _exponential_mechanism_case(n, epsilon):
    from scipy import integrate
    from scipy.stats import laplace

    from ..reductions import ExponentialMechanismFairClassifier
    from ..reductions._exponential_mechanism_classifier import _margin, _sensitivity

    name = "ExponentialMechanismFairClassifier"
    X, X_prime, labels, groups = _selection_records(n)
    if _refusal_probability(n, epsilon) > _MAX_REFUSAL_PROBABILITY:
        raise ValueError(f"n={n} is too small for the default case of {name!r} at epsilon={epsilon:g}: its fits would "
                         f"refuse (noisy group size M <= 1) with probability {_refusal_probability(n, epsilon):.2g} "
                         f"each; use n >= {exponential_mechanism_default_n(epsilon)} (n=None chooses it).")
    make = _make_exponential_mechanism_classifier
    dataset = {"X": X, "y": labels, "sensitive_features": groups}
    neighbour = {"X": X_prime, "y": labels, "sensitive_features": groups}
    declared = make(epsilon, 0).fit(**dataset)
    release_epsilon = float(declared.exponential_mechanism_epsilon_)
    _check_share(name, release_epsilon, epsilon, "exponential_mechanism_epsilon_")
    weight = float(declared.fairness_weight)
    hypotheses = _selection_hypotheses()

    def losses(features):
        return ExponentialMechanismFairClassifier._utility_losses(hypotheses, features, labels, groups, 2, weight)

    loss, loss_prime = losses(X), losses(X_prime)
    change = loss_prime - loss
    raised = int(np.argmax(change))
    positives = np.bincount(groups[labels == 1], minlength=2)
    m = int(positives.min())
    if not (math.isclose(loss[0], loss[1], abs_tol=1e-12) and change[raised] > 0 > change[1 - raised]
            and np.max(np.abs(change)) <= 2 * weight / m + 1 / n + 1e-12):
        raise RuntimeError(f"The default neighbours of {name!r} do not move the two utility losses apart from equal "
                           "values within the declared sensitivity.")
    # D' keeps every group's positive count, so the Laplace release M has one distribution on both datasets; given M
    # the choice is the exponential mechanism at the declared sensitivity 2 w / (M - 1) + 1 / n.
    gap = float(loss_prime[raised] - loss_prime[1 - raised])
    size_epsilon = float(declared.min_group_size_epsilon_)
    delta = float(declared.delta_)
    offset = m - _margin(delta, size_epsilon)            # M = offset + Y, Y ~ Laplace(1 / size_epsilon)
    noise = laplace(scale=1.0 / size_epsilon)
    lowest = 1.0 - offset                                # fit refuses M <= 1 (probability ~ e^{-offset}/2)

    def chosen_on_d_prime(y):
        return noise.pdf(y) / (1.0 + math.exp(min(700.0, release_epsilon * gap
                                                  / (2.0 * _sensitivity(offset + y, n, weight)))))

    p_prime = integrate.quad(chosen_on_d_prime, lowest, math.inf, limit=200)[0] / noise.sf(lowest)
    event = _SelectionEvent("hypothesis_index_", raised, (0.5, p_prime))
    return make, dataset, neighbour, event, PrivacySpend(release_epsilon, delta)


# ---------------------------------------------------------------------------------------- private FairNR
_GERRYFAIR_MAX_ITERS = 2                                     # one round
_GERRYFAIR_RELEASES = 2 + 4 * (_GERRYFAIR_MAX_ITERS - 1)     # two Gram matrices, four statistics per round


def _gerryfair_params(epsilon, seed):
    from sklearn.linear_model import LinearRegression

    return dict(max_iters=_GERRYFAIR_MAX_ITERS, predictor=LinearRegression(fit_intercept=False),
                epsilon=_GERRYFAIR_RELEASES * epsilon, delta=0.0, accountant=_accountant(), random_state=seed)


def _make_gerryfair(epsilon, seed):
    from ..reductions import DPGerryFairClassifier

    return DPGerryFairClassifier(**_gerryfair_params(epsilon, seed))


def _make_aif360_gerryfair(epsilon, seed):
    from aif360_dp.algorithms.inprocessing import DPGerryFairClassifier

    return DPGerryFairClassifier(**_gerryfair_params(epsilon, seed))


def _label_substitution_records(n):
    """One feature in [-1, 1], groups 0/1 alternating, labels alternating in pairs; record 0 is ``(x = 0, a = 0, y =
    1)`` and ``D'`` substitutes it by ``(0, 0, 0)``."""
    rng = np.random.default_rng(2019)
    groups = (np.arange(n) % 2).astype(float)
    x = rng.uniform(-1.0, 1.0, n)
    labels = ((np.arange(n) // 2) % 2).astype(float)
    x[0], groups[0], labels[0] = 0.0, 0.0, 1.0
    labels_prime = labels.copy()
    labels_prime[0] = 0.0
    return x, groups, labels, labels_prime


def _gerryfair_case(n, epsilon):
    x, groups, labels, labels_prime = _label_substitution_records(n)
    dataset = {"X": x[:, None], "y": labels, "sensitive_features": groups}
    neighbour = {"X": x[:, None], "y": labels_prime, "sensitive_features": groups}
    return (_make_gerryfair, dataset, neighbour,
            *_play_error_event(_make_gerryfair, dataset, neighbour, "", x[:, None], labels, "DPGerryFairClassifier",
                               epsilon=epsilon))


def _aif360_gerryfair_case(n, epsilon):
    import pandas as pd
    from aif360.datasets import BinaryLabelDataset

    x, groups, labels, labels_prime = _label_substitution_records(n)

    def dataset(y):
        frame = pd.DataFrame({"a": groups, "x": x, "y": y})
        return {"dataset": BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])}

    data, neighbour = dataset(labels), dataset(labels_prime)
    features = np.asarray(data["dataset"].features, dtype=float)          # (a, x): the Learner sees both
    return (_make_aif360_gerryfair, data, neighbour,
            *_play_error_event(_make_aif360_gerryfair, data, neighbour, "model_.", features, labels,
                               "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier", epsilon=epsilon))


def _play_error_event(make, dataset, neighbour, prefix, X, y, name, *, epsilon):
    """The round-1 error statistic thresholded at its true value on ``D`` given the released play, after checking
    that the play does not depend on the substituted record and that ``D'`` lowers the statistic by exactly its
    declared sensitivity; also returns the declared per-release spend."""
    statistic, play = prefix + "history_.0.error_statistic", prefix + "predictors_.0"
    truth, truth_prime = make(math.inf, 0).fit(**dataset), make(math.inf, 0).fit(**neighbour)
    declared = make(epsilon, 0).fit(**dataset)
    spend = _attribute(declared, prefix + "per_release_spend_")
    _check_share(name, float(spend.epsilon), epsilon, "per_release_spend_.epsilon")
    if int(_attribute(declared, prefix + "n_releases_")) != _GERRYFAIR_RELEASES or spend.delta != 0:
        raise RuntimeError(f"{name!r} no longer splits a pure-DP budget over {_GERRYFAIR_RELEASES} releases for "
                           f"max_iters={_GERRYFAIR_MAX_ITERS}: update the case.")
    sensitivity = float(_attribute(declared, prefix + "history_.0.error_sensitivity"))
    scale = float(_attribute(declared, prefix + "history_.0.error_noise_scale"))
    if not math.isclose(scale, sensitivity / float(spend.epsilon), rel_tol=1e-9):
        raise RuntimeError(f"{name!r} declares a Laplace scale {scale!r} that is not its sensitivity over its "
                           "per-release epsilon.")
    event = _PlayErrorEvent(statistic, play, X, y, (0.5, 0.5 * math.exp(-sensitivity / scale)))
    shift = float(_attribute(truth, statistic)) - float(_attribute(truth_prime, statistic))
    if not (np.array_equal(_attribute(truth, play).coef, _attribute(truth_prime, play).coef)
            and math.isclose(shift, sensitivity, rel_tol=1e-12)
            and math.isclose(event.reference(truth), float(_attribute(truth, statistic)), rel_tol=1e-12)):
        raise RuntimeError(f"The default neighbours of {name!r} do not leave the released play unchanged and lower "
                           f"{statistic} by exactly its declared sensitivity.")
    return event, PrivacySpend(float(spend.epsilon), 0.0)
