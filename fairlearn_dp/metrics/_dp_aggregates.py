"""Fairlearn's fairness aggregates, each computed from one private release (:class:`DPMetricFrame`).

Every argument of an aggregate (``method``, ``agg``, ``exclude_unreadable``, ``detailed``) is checked before the
frame is built, which charges the budget; the warnings are issued once the aggregate's value is computed
(``issue_warnings_after_release``).

Small groups. A group is *unreadable* for an aggregate when, for one of the rates the aggregate reads, the frame's
``unreadable_`` flags it: the half-width of the rate's interval from the release noise alone (``noise_error_``,
a Monte-Carlo of the public noise scale on the released table) exceeds ``max_noise_error``. The rule reads the
public noise scale, the public ``max_noise_error`` and released values only. By default the aggregate is computed
over every group, as Fairlearn's; ``exclude_unreadable=True`` computes it over the readable groups only, and
``detailed=True`` returns a :class:`DPAggregate` that names the groups it was computed over, with an interval.

The interval of an equalized-odds aggregate (two rates) is built from the two rates' aggregate intervals at the
Bonferroni level ``1 - alpha / 2`` each: when both hold, the larger (smaller, mean) of the two values lies between
the larger (smaller, mean) of their bounds. Post-processing of the frame's draws only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from fairlearn.metrics import false_positive_rate, selection_rate, true_positive_rate
from numpy.typing import ArrayLike

from .._utils._validation import check_bool, check_choice
from ..exceptions import UtilityWarning, warn
from ..privacy._post_release import issue_warnings_after_release
from ._dp_metric_frame import _METHODS, DPMetricFrame, frame_of_release
from ._frame_intervals import aggregate_bound

__all__ = ["DPAggregate", "dp_demographic_parity_difference", "dp_demographic_parity_ratio",
           "dp_equalized_odds_difference", "dp_equalized_odds_ratio", "dp_equal_opportunity_difference",
           "dp_equal_opportunity_ratio"]

_AGGS = ("worst_case", "mean")
_ODDS = {"tpr": true_positive_rate, "fpr": false_positive_rate}


@dataclass(frozen=True)
class DPAggregate:
    """A private aggregate with the groups it was computed over (what the ``dp_*`` aggregates return with
    ``detailed=True``; ``float(result)`` is the value they return by default).

    Attributes
    ----------
    value : float
        The aggregate (NaN when too few groups are readable to compute it).
    ci : tuple of float
        Its interval, one bound per quantile of the frame's ``ci_quantiles``: the range of the aggregate over the
        included groups' simultaneous intervals (release noise and sampling error of the rows).
    groups : tuple
        The groups the value was computed over (labels of the frame's ``by_group``).
    unreadable : tuple
        The groups whose noise error exceeds ``max_noise_error`` for a rate the aggregate reads (``unreadable_``).
    excluded : tuple
        The groups left out (``exclude_unreadable=True``: the unreadable ones; else none).
    max_noise_error : float
        The threshold of ``unreadable`` (the frame's ``max_noise_error``, 0.02 unless given).
    frame : DPMetricFrame
        The release the value was computed from (its ``by_group``, ``by_group_ci``, ``noise_error_``, ...).

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn_dp.metrics import dp_demographic_parity_difference
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 5000)
    >>> y_true = rng.integers(0, 2, 5000)
    >>> y_pred = (rng.random(5000) < np.where(sex == "male", 0.6, 0.4)).astype(int)   # selection rates 0.4 and 0.6
    >>> result = dp_demographic_parity_difference(y_true, y_pred, sensitive_features=sex, epsilon=1.0,
    ...                                           groups=["female", "male"], accountant=BudgetAccountant(),
    ...                                           random_state=0, detailed=True)
    >>> result.groups, result.unreadable, result.frame.privacy_spent_
    (('female', 'male'), (), PrivacySpend(epsilon=1.0, delta=0.0, rho=None))
    >>> bool(abs(float(result) - 0.2) < 0.05), bool(result.ci[0] <= result.value <= result.ci[1])
    (True, True)
    """

    value: float
    ci: tuple
    groups: tuple
    unreadable: tuple
    excluded: tuple
    max_noise_error: float
    frame: DPMetricFrame

    def __float__(self) -> float:
        return float(self.value)


class _AggregateFrame(DPMetricFrame):
    """The frame of one aggregate (every metric of it is a rate the aggregate reads), reduced over a chosen set of
    groups. Its unreadable-group warning is replaced by the aggregate's, which also says what the value was computed
    over.
    """

    def _warn_unreadable(self):
        pass

    def readable_groups(self):
        """``(labels, unreadable flags)`` of the groups (one control level): a group is unreadable when one of the
        metrics is (``unreadable_``: public noise scale and released values only).
        """
        return list(self.unreadable_.index), self.unreadable_.any(axis=1).to_numpy()

    def reduce_over(self, keep, method, how, agg):
        """``(value, ci)`` of the aggregate over the groups ``keep`` (one control level: index 0)."""
        names = list(self._metrics)
        by_group = {name: self._by_group_values[name][..., keep] for name in names}
        per_metric = pd.Series({name: v[0] for name, v in
                                self._compare(by_group, self._overall_values, method, how).items()})
        group_draws, overall_draws = self._draws
        m = len(names)                                  # Bonferroni over the metrics combined (module docstring)
        bounds = []
        for q in self._ci_quantiles:
            level = q / m if q < 0.5 else 1.0 - (1.0 - q) / m
            bounds.append(pd.Series({name: aggregate_bound(how, method, group_draws[name][..., keep],
                                                           overall_draws[name], level, presorted=True)[0]
                                     for name in names}))
        combine = _combiner(how, agg)
        return float(combine(per_metric)), tuple(float(combine(b)) for b in bounds)

    def threshold(self):
        """``(max_noise_error, asked)``: the threshold of ``unreadable_``, and whether the user gave it."""
        return self._max_noise_error, self._warn_unreadable_groups


def _evaluate(name, metrics, how, args, options, agg=None):
    """Check the options (before the frame charges the budget), release, and reduce over the chosen groups."""
    method = check_choice(options.pop("method"), "method", _METHODS)
    if agg is not None:
        check_choice(agg, "agg", _AGGS)
    exclude = check_bool(options.pop("exclude_unreadable"), "exclude_unreadable")
    detailed = check_bool(options.pop("detailed"), "detailed")
    for argument in ("control_features", "control_groups"):        # Fairlearn's aggregates have none: one value
        if argument in options:
            raise TypeError(f"{name}() got an unexpected keyword argument {argument!r}: an aggregate is one value "
                            "over the groups; use DPMetricFrame(..., control_features=...).difference() per level.")
    y_true, y_pred, sensitive_features = args
    weights = options.pop("sample_weight", None)     # Fairlearn's argument: the frame's weighted release
    if weights is not None:
        params = {"sample_weight": weights}
        options["sample_params"] = dict.fromkeys(metrics, params) if isinstance(metrics, dict) else params
    release = options.pop("release", None)           # a DPReport's release: a view of it, no charge
    build = _AggregateFrame if release is None else functools.partial(frame_of_release, release,
                                                                        frame_class=_AggregateFrame)
    frame = build(metrics=metrics, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features, **options)
    labels, flags = frame.readable_groups()
    keep = ~flags if exclude else np.ones(len(labels), dtype=bool)
    needed = 2 if method == "between_groups" else 1
    if keep.sum() < needed:
        value, ci = float("nan"), tuple(float("nan") for _ in frame.ci_quantiles)
    else:
        value, ci = frame.reduce_over(keep, method, how, agg)
    max_noise_error, asked = frame.threshold()
    result = DPAggregate(value=value, ci=ci, groups=tuple(label for label, k in zip(labels, keep, strict=False) if k),
                         unreadable=tuple(label for label, f in zip(labels, flags, strict=False) if f),
                         excluded=tuple(label for label, k in zip(labels, keep, strict=False) if not k),
                         max_noise_error=max_noise_error, frame=frame)
    _warn(name, result, needed, asked=asked, detailed=detailed)
    return result if detailed else value


def _combiner(how, agg):
    if agg == "mean":
        return pd.Series.mean
    return pd.Series.max if how == "difference" else pd.Series.min


def _warn(name, result, needed, *, asked, detailed):
    """A warning when the precision asked for (``max_noise_error`` given) is missed for some group, saying what the
    value was computed over; and whenever too few groups are left to compute it.
    """
    if len(result.groups) < needed:
        few = "fewer than 2 groups are" if needed == 2 else "no group is"
        warn(f"{name}: {few} readable at max_noise_error={result.max_noise_error:g}, so the "
             f"value is NaN (readable: {_names(result.groups)}; unreadable: {_names(result.unreadable)}). Read "
             "the groups with their intervals (detailed=True: frame.by_group_ci), or release at a larger epsilon.",
             UtilityWarning)
    elif asked and result.unreadable:
        what = (f"the value is computed over the readable groups only: {_names(result.groups)}" if result.excluded
                else "the value is computed over all groups, these included (exclude_unreadable=True leaves them "
                     "out)")
        warn(f"{name}: at this epsilon the release noise alone gives an error above max_noise_error="
             f"{result.max_noise_error:g} (half-width of the interval) for: {_names(result.unreadable)}; {what}."
             + ("" if detailed else " detailed=True returns the value with its interval and groups."), UtilityWarning)


def _names(labels):
    return ", ".join(str(label) for label in labels) or "none"


@issue_warnings_after_release()
def dp_demographic_parity_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                     sensitive_features: ArrayLike | dict[str, ArrayLike],
                                     method: str = "between_groups", exclude_unreadable: bool = False,
                                     detailed: bool = False, **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``demographic_parity_difference`` (selection rates) from one private release.

    Parameters
    ----------
    y_true, y_pred : array-like
        Binary labels and predictions, as Fairlearn's.
    sensitive_features : array-like or dict of str to array-like
        As Fairlearn's (several columns: the product of their declared ``groups``).
    method : {"between_groups", "to_overall"}, default="between_groups"
        As Fairlearn's.
    exclude_unreadable : bool, default=False
        Compute the aggregate over the groups the release can read only: a group is left out when the noise error
        of a rate the aggregate reads exceeds ``max_noise_error`` (the frame's ``unreadable_``: public noise scale
        and released counts only). NaN, with a warning, when fewer than two groups are left (none for
        ``"to_overall"``). Default: every group, as Fairlearn's.
    detailed : bool, default=False
        Return a :class:`DPAggregate` (the value, its interval, the groups it was computed over, the unreadable
        ones and the frame) instead of the float.
    **privacy
        :class:`DPMetricFrame`'s privacy arguments (``epsilon``, ``delta``, ``groups``, ``privacy_unit``,
        ``accountant``, ``random_state``, ``n_boot``, ``ci_quantiles``, and ``options``, a
        :class:`MetricFrameOptions` with ``max_noise_error`` and ``weight_bound``), Fairlearn's ``sample_weight``
        with its public bound ``options.weight_bound`` (weighted counts, as the frame's), or ``release=report`` (a
        :class:`DPReport`: read from its release, no charge). With ``max_noise_error`` given, a warning names the
        groups that miss it and says whether the value includes them.

    Returns
    -------
    float or DPAggregate
        The aggregate; one release of the per-group confusion counts is charged.
    """
    return _evaluate("dp_demographic_parity_difference", selection_rate, "difference",
                     (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed))


@issue_warnings_after_release()
def dp_demographic_parity_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                                sensitive_features: ArrayLike | dict[str, ArrayLike],
                                method: str = "between_groups", exclude_unreadable: bool = False,
                                detailed: bool = False, **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``demographic_parity_ratio`` from one private release (arguments: see
    :func:`dp_demographic_parity_difference`).
    """
    return _evaluate("dp_demographic_parity_ratio", selection_rate, "ratio", (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed))


@issue_warnings_after_release()
def dp_equalized_odds_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                 sensitive_features: ArrayLike | dict[str, ArrayLike],
                                 method: str = "between_groups", agg: str = "worst_case",
                                 exclude_unreadable: bool = False, detailed: bool = False,
                                 **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``equalized_odds_difference``: the larger (``agg="worst_case"``) or the mean of the TPR and FPR
    differences, both from one private release of the per-group confusion counts (other arguments: see
    :func:`dp_demographic_parity_difference`; a group is unreadable when its TPR or its FPR is).
    """
    return _evaluate("dp_equalized_odds_difference", _ODDS, "difference", (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed), agg)


@issue_warnings_after_release()
def dp_equalized_odds_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                            sensitive_features: ArrayLike | dict[str, ArrayLike],
                            method: str = "between_groups", agg: str = "worst_case",
                            exclude_unreadable: bool = False, detailed: bool = False,
                            **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``equalized_odds_ratio``: the smaller (or the mean) of the TPR and FPR ratios, one release
    (arguments: see :func:`dp_equalized_odds_difference`).
    """
    return _evaluate("dp_equalized_odds_ratio", _ODDS, "ratio", (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed), agg)


@issue_warnings_after_release()
def dp_equal_opportunity_difference(y_true: ArrayLike, y_pred: ArrayLike, *,
                                    sensitive_features: ArrayLike | dict[str, ArrayLike],
                                    method: str = "between_groups", exclude_unreadable: bool = False,
                                    detailed: bool = False, **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``equal_opportunity_difference`` (true positive rates) from one private release
    (arguments: see :func:`dp_demographic_parity_difference`).
    """
    return _evaluate("dp_equal_opportunity_difference", true_positive_rate, "difference",
                     (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed))


@issue_warnings_after_release()
def dp_equal_opportunity_ratio(y_true: ArrayLike, y_pred: ArrayLike, *,
                               sensitive_features: ArrayLike | dict[str, ArrayLike],
                               method: str = "between_groups", exclude_unreadable: bool = False,
                               detailed: bool = False, **privacy: Any) -> float | DPAggregate:
    """Fairlearn's ``equal_opportunity_ratio`` from one private release (arguments: see
    :func:`dp_demographic_parity_difference`).
    """
    return _evaluate("dp_equal_opportunity_ratio", true_positive_rate, "ratio", (y_true, y_pred, sensitive_features),
                     dict(privacy, method=method, exclude_unreadable=exclude_unreadable, detailed=detailed))
