"""The public checks of :class:`~fairlearn_dp.metrics.DPMetricFrame`'s parameters, run before the budget check."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

from fairlearn.metrics import count as fairlearn_count

from .._fairlearn_compat import BOOTSTRAP_NEED_N_AND_CI
from .._utils._dask import is_dask_input
from .._utils._validation import (
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_rows_alike,
    check_seed,
    value_errors,
)
from ._count_metrics import CountMetric, as_count_metric
from ._frame_inputs import check_declared_levels, check_labels, feature_columns

__all__ = ["UNITS", "METHODS", "ERRORS", "PARAMETERS", "LEVELS_AND_DRAWS", "MetricFrameOptions",
           "check_metric_frame_options", "split_groups", "resolve_metrics", "split_weights", "check_weighted_metrics",
           "weight_tables", "check_draws", "check_dask_levels", "check_names", "check_rows"]

UNITS = ("sensitive_attribute", "record")
METHODS = ("between_groups", "to_overall")
ERRORS = ("raise", "coerce")


def resolve_metrics(metrics, sample_params, bounds, classes):
    """``({name: CountMetric or CellMetric}, kind, single)``; refuses what the release cannot compute (public:
    the functions, and synthetic probes over the public ``classes``).
    """
    kind_hint = "regression" if bounds is not None else "classification"
    if classes is not None and bounds is not None:
        raise ValueError("options.labels declares the classes of a classification frame; bounds is for regression: "
                         "give one.")
    if sample_params is not None and not isinstance(sample_params, dict):
        raise ValueError("sample_params must be a dict.")
    if isinstance(metrics, dict):
        if not metrics:
            raise ValueError("metrics is an empty dict.")
        extra = set(sample_params or {}) - set(metrics)
        if extra:
            raise ValueError(f"sample_params names metrics that are not in metrics: {sorted(map(str, extra))}.")
        resolved = {str(name): as_count_metric(f, str(name), kind_hint=kind_hint,
                                               sample_params=(sample_params or {}).get(name), classes=classes)
                    for name, f in metrics.items()}
        single = False
    else:
        if not callable(metrics):
            raise TypeError(f"metrics must be a callable or a dict of callables, got {type(metrics).__name__}.")
        name = None if isinstance(metrics, CountMetric) else getattr(metrics, "__name__", "metric")  # MetricFrame's
        metric = as_count_metric(metrics, name, kind_hint=kind_hint, sample_params=sample_params, classes=classes)
        resolved, single = {metric.name: metric}, True
    kinds = {m.kind for m in resolved.values()} - {"any"}
    if len(kinds) > 1:
        raise ValueError("metrics mixes classification and regression metrics: use one frame for each.")
    kind = kinds.pop() if kinds else kind_hint
    if kind == "regression" and bounds is None:
        raise ValueError("bounds=(lo, hi) is required for regression metrics: the public range that bounds each "
                         "row's contribution.")
    return resolved, kind, single


def check_weighted_metrics(resolved, weighted):
    """Refuse a weighted metric (name in ``weighted``) evaluated on rows replicated from the counts.

    Such a metric takes no ``sample_weight`` (MetricFrame's call would fail), and weighted counts are no rows.
    Public: it reads the functions only.
    """
    weighted = list(resolved) if None in weighted else weighted          # None: the frame's one metric
    names = [name for name in weighted if getattr(resolved[name], "replicate", False)]
    if names:
        raise ValueError(f"sample_params: metric(s) {names} take no sample_weight argument, so they cannot be given "
                         "sample weights (MetricFrame would pass them to the function): drop their sample_weight "
                         "or give the function a sample_weight=None parameter.")


def _check_bounds(bounds, name="bounds"):
    """The public range ``(lo, hi)`` of regression values, ``lo < hi``; or None."""
    if bounds is None:
        return None
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__len__") or len(bounds) != 2:
        raise TypeError(f"{name} must be a pair (lo, hi) or None.")
    low = check_real(bounds[0], f"{name}[0]")
    high = check_real(bounds[1], f"{name}[1]")
    if not low < high:
        raise ValueError(f"{name} must satisfy lo < hi, got {bounds!r}.")
    return low, high


def _check_quantiles(ci_quantiles, name="ci_quantiles"):
    """A sequence of quantiles in (0, 1), as a tuple of floats; None for None or an empty sequence (MetricFrame's
    "no quantiles", refused by :func:`check_draws` unless ``n_boot`` is None too).
    """
    if ci_quantiles is None:
        return None
    if isinstance(ci_quantiles, (str, bytes)) or not hasattr(ci_quantiles, "__iter__"):
        raise TypeError(f"{name} must be a sequence of floats in (0, 1).")
    quantiles = [check_real(q, name, low=0, high=1, low_open=True, high_open=True) for q in ci_quantiles]
    return tuple(quantiles) or None


#: The public parameters checked before the metrics (which need ``sample_params`` and the checked ``bounds``),
#: then those checked after them: two tables, so that the order of the checks is the constructor's.
PARAMETERS = {
    "privacy_unit": functools.partial(check_choice, options=UNITS),
    "public_predictions": check_bool,
    "bounds": _check_bounds,
    "labels": check_labels,
    "weight_bound": functools.partial(check_real, low=0, low_open=True, allow_none=True),
}
LEVELS_AND_DRAWS = {
    "groups": functools.partial(check_declared_levels, minimum=2),
    "control_groups": check_declared_levels,
    "random_state": check_seed,
    # a ValueError for any bad value, as documented; None only together with ci_quantiles=None (_check_draws)
    "n_boot": value_errors(functools.partial(check_int, low=10, allow_none=True)),
    "ci_quantiles": _check_quantiles,
    "max_noise_error": functools.partial(check_real, low=0, low_open=True, allow_none=True),
}


@dataclasses.dataclass(frozen=True)
class MetricFrameOptions:
    """Expert settings of :class:`~fairlearn_dp.metrics.DPMetricFrame` (and of the ``dp_*`` aggregates).

    Pass one as ``DPMetricFrame(..., options=MetricFrameOptions(...))``; the defaults (``options=None``) suit most
    frames. Every field is public: it may not depend on the private data.

    Parameters
    ----------
    labels : list or None, default=None
        The public classes of ``y_true`` and ``y_pred`` (never read from the data): the release is then the
        ``K x K`` confusion table of each cell. None: 0/1 labels.
    public_predictions : bool, default=False
        Under ``privacy_unit="sensitive_attribute"``: True declares that ``y_pred`` does not depend on the
        sensitive features (e.g. a model that never reads them), so the per-prediction totals over groups are
        public and are kept exactly (and ``overall`` is exact). Leave False for the predictions of a
        post-processor or of any model given ``sensitive_features`` at predict time.
    max_noise_error : float or None, default=None
        A (group, metric) value whose noise alone gives an interval half-width above this is reported in
        ``unreadable_`` (None: 0.02) and in the frame's ``repr``; a value given here is a precision asked for: when
        the release misses it for some group, a :class:`~fairlearn_dp.exceptions.UtilityWarning` names the groups.
    weight_bound : float or None, default=None
        The public bound ``B`` of ``sample_weight``: a weight above ``B`` is clipped to it (a negative one is a
        ``ValueError``), each row adds its weight to its cell, and the sensitivity is multiplied by ``B``. None:
        weights other than 1 are refused.

    Examples
    --------
    >>> from fairlearn_dp.metrics import MetricFrameOptions
    >>> options = MetricFrameOptions(labels=[0, 1, 2], max_noise_error=0.05)   # DPMetricFrame(..., options=options)
    >>> options
    MetricFrameOptions(labels=[0, 1, 2], public_predictions=False, max_noise_error=0.05, weight_bound=None)
    """

    labels: Sequence | None = None
    public_predictions: bool = False
    max_noise_error: float | None = None
    weight_bound: float | None = None


def check_metric_frame_options(value, name="options"):
    """``value`` (None: the defaults) as a checked :class:`MetricFrameOptions`; errors name ``name.<field>``. Each
    field has the check of its former constructor parameter (:data:`PARAMETERS`, :data:`LEVELS_AND_DRAWS`).
    """
    if value is None:
        return MetricFrameOptions()
    if not isinstance(value, MetricFrameOptions):
        raise TypeError(f"{name} must be a MetricFrameOptions or None, got {type(value).__name__}.")
    for field in dataclasses.fields(MetricFrameOptions):
        check = PARAMETERS.get(field.name) or LEVELS_AND_DRAWS[field.name]
        check(getattr(value, field.name), f"{name}.{field.name}")
    return value


def split_groups(groups, sensitive_features, control_features):
    """``(sensitive levels, control levels)`` of DPMetricFrame's ``groups``: a list (the one sensitive column's
    levels), or ``{column name: levels}`` over the sensitive and the control columns (a column left out has its
    levels read from the data, as with None). Public: it reads the features' column names only.
    """
    if control_features is None or not isinstance(groups, dict):
        return groups, None
    sensitive = [name for name, _ in feature_columns(sensitive_features, "sensitive_feature_")]
    control = [name for name, _ in feature_columns(control_features, "control_feature_")]
    unknown = [key for key in groups if str(key) not in sensitive + control]
    if unknown:
        raise ValueError(f"groups names columns that are neither sensitive nor control features: {unknown}; the "
                         f"sensitive features are {sensitive}, the control features {control}.")
    declared_sensitive = {key: levels for key, levels in groups.items() if str(key) in sensitive}
    declared_control = {key: levels for key, levels in groups.items() if str(key) in control}
    return declared_sensitive or None, declared_control or None


def check_draws(n_boot, ci_quantiles):
    """MetricFrame's rule: intervals need both ``n_boot`` and ``ci_quantiles``; neither gives none."""
    if (n_boot is None) != (ci_quantiles is None):
        raise ValueError(f"{BOOTSTRAP_NEED_N_AND_CI} (or neither, for no intervals); got n_boot={n_boot!r}, "
                         f"ci_quantiles={ci_quantiles!r}.")
    return n_boot, ci_quantiles


def check_dask_levels(y_true, y_pred, sf_columns, cf_columns, declared, declared_control, weights=None, *,
                      control_hint="control_groups=[...]"):
    """With Dask inputs the levels must be declared: they are not read off distributed data (public check: types)."""
    columns = [column for _, column in sf_columns + (cf_columns or [])]
    if not is_dask_input(y_true, y_pred, *columns, *([] if weights is None else [weights])):
        return
    if weights is not None:
        raise ValueError("sample_weight is not supported with Dask inputs yet: compute the frame in memory.")
    if declared is None:
        raise ValueError("groups=[...] is required with Dask inputs: the public levels are not read off distributed "
                         "data. Declare every group the data may hold.")
    if cf_columns is not None and declared_control is None:
        raise ValueError(f"{control_hint} is required with Dask inputs and control features.")


def check_names(sf_columns, cf_columns):
    names = [name for name, _ in sf_columns] + [name for name, _ in (cf_columns or [])]
    if len(set(names)) != len(names):
        raise ValueError(f"Detected duplicate feature names among the sensitive and control features: {names}.")


def split_weights(metrics, sample_params, *, weight_bound, public_predictions):
    """``(sample_params without sample_weight, sample_weight or None)``: MetricFrame's ``sample_params`` (one dict
    for one metric, ``{metric name: dict}`` for several) with the per-row weights taken out, which the release
    counts (weighted counts) instead of passing them to the metrics.

    Public: it reads which arguments were given and the objects' identity, never the weights' values. A table has
    one weight per row: metrics given different weights (or some none) are read from several tables of one
    release (:func:`weight_tables`, :mod:`._frame_tables`); ``sample_weight`` is then the first weights object.
    ``fairlearn.metrics.count`` takes none (it counts rows, which a weighted table does not hold).
    """
    if sample_params is None or not isinstance(sample_params, dict):
        weights, rest = None, sample_params
    elif isinstance(metrics, dict):
        weighted = _weighted(sample_params)
        weights = next(iter(weighted.values()), None)
        rest = {name: ({k: v for k, v in params.items() if k != "sample_weight"} if isinstance(params, dict)
                       else params) for name, params in sample_params.items()}
    else:
        weights = sample_params.get("sample_weight")
        weighted = {None: weights}
        rest = {k: v for k, v in sample_params.items() if k != "sample_weight"}
    if weights is None:
        if weight_bound is not None:
            raise ValueError("options.weight_bound declares the public bound of sample_weight, but no sample_weight was "
                             "given in sample_params.")
        return sample_params, None
    functions = [metrics[name] for name in weighted] if isinstance(metrics, dict) else [metrics]
    if any((f.func if isinstance(f, functools.partial) else f) is fairlearn_count for f in functions):
        raise ValueError("sample_params: fairlearn.metrics.count takes no sample_weight (it counts rows, which a "
                         "weighted release does not hold): report it with a separate unweighted frame.")
    if public_predictions:
        raise ValueError("options.public_predictions=True declares public totals over groups; with sample_weight (weights "
                         "may depend on the sensitive feature, e.g. Reweighing's) the weighted totals are not "
                         "public: leave it False.")
    return rest, weights


def _weighted(sample_params):
    """``{metric name: its sample_weight}`` of the metrics given one (dict-of-dicts ``sample_params``)."""
    given = {name: params.get("sample_weight") for name, params in sample_params.items() if isinstance(params, dict)}
    return {name: w for name, w in given.items() if w is not None}


def weight_tables(metrics, sample_params):
    """``[(sample_weight or None, [metric names])]``: the tables a frame releases, one per weights object (by
    identity) and one for the metrics without weights, in the metrics' order. Public: identities, not values.
    """
    if not isinstance(metrics, dict):
        weights = sample_params.get("sample_weight") if isinstance(sample_params, dict) else None
        return [(weights, [None])]
    weighted = _weighted(sample_params) if isinstance(sample_params, dict) else {}
    tables = []
    for name in metrics:
        weights = weighted.get(name)
        table = next((t for t in tables if t[0] is weights), None)
        if table is None:
            table = (weights, [])
            tables.append(table)
        table[1].append(str(name))
    return tables



def check_rows(y_true, y_pred, sf_columns, cf_columns, tables):
    """The public layout of a frame's data, before the budget check: ``y_true`` and ``y_pred`` given, and every
    column of the sensitive and control features and every ``sample_weight`` with as many rows as ``y_true``
    (row counts are public; :func:`~fairlearn_dp._utils._validation.check_rows_alike`).
    """
    arguments = [("y_true", y_true), ("y_pred", y_pred)]
    arguments += [(f"sensitive_features[{name!r}]", column) for name, column in sf_columns]
    arguments += [(f"control_features[{name!r}]", column) for name, column in (cf_columns or [])]
    arguments += [("sample_weight", weights) for weights, _ in tables if weights is not None]
    check_rows_alike(arguments, required=("y_true", "y_pred"))
