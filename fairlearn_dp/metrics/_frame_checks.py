"""The public checks of :class:`~fairlearn_dp.metrics.DPMetricFrame`'s parameters, run before the budget check."""

from __future__ import annotations

import functools

from .._fairlearn_compat import BOOTSTRAP_NEED_N_AND_CI
from ..utils._dask import is_dask_input
from ..utils._validation import check_bool, check_choice, check_int, check_real, check_seed, value_errors
from ._count_metrics import as_count_metric
from ._frame_inputs import check_declared_levels, check_labels

__all__ = ["UNITS", "METHODS", "ERRORS", "PARAMETERS", "LEVELS_AND_DRAWS", "resolve_metrics", "check_draws",
           "check_dask_levels", "check_names"]

UNITS = ("sensitive_attribute", "record")
METHODS = ("between_groups", "to_overall")
ERRORS = ("raise", "coerce")


def resolve_metrics(metrics, sample_params, bounds, classes):
    """``({name: CountMetric or CellMetric}, kind, single)``; refuses what the release cannot compute (public:
    the functions, and synthetic probes over the public ``classes``).
    """
    kind_hint = "regression" if bounds is not None else "classification"
    if classes is not None and bounds is not None:
        raise ValueError("labels declares the classes of a classification frame; bounds is for regression: give one.")
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
        metric = as_count_metric(metrics, None, kind_hint=kind_hint, sample_params=sample_params, classes=classes)
        resolved, single = {metric.name: metric}, True
    kinds = {m.kind for m in resolved.values()} - {"any"}
    if len(kinds) > 1:
        raise ValueError("metrics mixes classification and regression metrics: use one frame for each.")
    kind = kinds.pop() if kinds else kind_hint
    if kind == "regression" and bounds is None:
        raise ValueError("bounds=(lo, hi) is required for regression metrics: the public range that bounds each "
                         "row's contribution.")
    return resolved, kind, single


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


def check_draws(n_boot, ci_quantiles):
    """MetricFrame's rule: intervals need both ``n_boot`` and ``ci_quantiles``; neither gives none."""
    if (n_boot is None) != (ci_quantiles is None):
        raise ValueError(f"{BOOTSTRAP_NEED_N_AND_CI} (or neither, for no intervals); got n_boot={n_boot!r}, "
                         f"ci_quantiles={ci_quantiles!r}.")
    return n_boot, ci_quantiles


def check_dask_levels(y_true, y_pred, sf_columns, cf_columns, declared, declared_control):
    """With Dask inputs the levels must be declared: they are not read off distributed data (public check: types)."""
    columns = [column for _, column in sf_columns + (cf_columns or [])]
    if not is_dask_input(y_true, y_pred, *columns):
        return
    if declared is None:
        raise ValueError("groups=[...] is required with Dask inputs: the public levels are not read off distributed "
                         "data. Declare every group the data may hold.")
    if cf_columns is not None and declared_control is None:
        raise ValueError("control_groups=[...] is required with Dask inputs and control features.")


def check_names(sf_columns, cf_columns):
    names = [name for name, _ in sf_columns] + [name for name, _ in (cf_columns or [])]
    if len(set(names)) != len(names):
        raise ValueError(f"Detected duplicate feature names among the sensitive and control features: {names}.")
