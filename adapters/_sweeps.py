"""Privacy/fairness/accuracy sweeps over a parameter grid and seeds, their Pareto fronts and trade-off plots.

:func:`privacy_fairness_sweep` fits a (DP) estimator for every setting of a parameter grid (e.g. ``epsilon x alpha
x n_bins``) and every seed, scores it on a held-out split and returns a tidy table, one row per setting and seed,
with the privacy each fit spent. Tasks run through ``joblib.Parallel``, so ``with
joblib.parallel_backend("dask"):`` (or ``"ray"``) sends them to a cluster without code changes, and the results
do not depend on ``n_jobs`` or on the backend: every random choice is seeded from ``random_state``.
:func:`pareto_front` and :func:`plot_tradeoff` draw the trade-off curves of the papers (lower convex envelope of
the (error, violation) points per privacy level).
"""

from __future__ import annotations

import contextlib
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import ParameterGrid, train_test_split

from fairlearn_dp._utils import progress_bar, show_progress

__all__ = ["privacy_fairness_sweep", "SweepResult", "metric", "pareto_front", "plot_tradeoff"]

#: Names of the privacy columns of ``SweepResult.table``.
SPENT_COLUMNS = ("spent_epsilon", "spent_delta")


# --------------------------------------------------------------------------------------------------- metrics
class SweepMetric:
    """A sweep metric ``(y_true, y_pred, sensitive_features) -> float`` built by :func:`metric`.

    Attributes
    ----------
    fn : callable
        The wrapped function.
    uses_groups : bool
        True when ``fn`` takes the groups (a group-comparison metric such as
        :func:`~fairlearn_dp.metrics.ks_statistical_parity`); False for a plain ``fn(y_true, y_pred)`` metric
        that :class:`~fairlearn.metrics.MetricFrame` can evaluate within each group.
    """

    def __init__(self, fn, uses_groups=False):
        if not callable(fn):
            raise TypeError(f"metric needs a callable, got {type(fn).__name__}.")
        self.fn = fn
        self.uses_groups = bool(uses_groups)
        self._by_keyword = self.uses_groups and _accepts(fn, "sensitive_features")

    def __call__(self, y_true, y_pred, sensitive_features):
        if not self.uses_groups:
            return self.fn(y_true, y_pred)
        if self._by_keyword:
            return self.fn(y_true, y_pred, sensitive_features=sensitive_features)
        return self.fn(y_true, y_pred, sensitive_features)

    def __repr__(self):
        name = getattr(self.fn, "__name__", repr(self.fn))
        return f"metric({name}, uses_groups={self.uses_groups})"


def metric(fn: Callable[..., float], uses_groups: bool = False) -> SweepMetric:
    """Adapt ``fn`` to the sweep's metric signature ``(y_true, y_pred, sensitive_features)``.

    Parameters
    ----------
    fn : callable
        ``fn(y_true, y_pred)`` (e.g. ``sklearn.metrics.mean_squared_error``) when ``uses_groups`` is False;
        ``fn(y_true, y_pred, sensitive_features=...)`` (e.g. ``ks_statistical_parity``,
        ``fairlearn.metrics.equalized_odds_difference``) or ``fn(y_true, y_pred, groups)`` (third argument
        positional when ``fn`` has no ``sensitive_features`` parameter) when True.
    uses_groups : bool, default=False

    Returns
    -------
    SweepMetric
        Callable as ``m(y_true, y_pred, sensitive_features)``. :meth:`SweepResult.metric_frame` shows plain
        metrics per group; group-comparison metrics have an overall value only (NaN within one group).

    Examples
    --------
    >>> from sklearn.metrics import mean_absolute_error
    >>> metric(mean_absolute_error)([0, 1], [0, 0], sensitive_features=["a", "b"])
    0.5
    """
    return SweepMetric(fn, uses_groups=uses_groups)


def _as_sweep_metric(fn):
    """Plain callables given in ``metrics`` take ``(y_true, y_pred, sensitive_features)``: group-level metrics."""
    if isinstance(fn, SweepMetric):
        return fn
    sweep_metric = SweepMetric(fn, uses_groups=True)
    sweep_metric._by_keyword = False  # the documented signature: the groups come third, positionally
    return sweep_metric


class _AcrossGroups:
    """A group-comparison :class:`SweepMetric` inside a ``MetricFrame``: its value on slices holding >= 2 groups
    (the overall), NaN on a single group's slice, where comparing groups is undefined.
    """

    def __init__(self, sweep_metric):
        self.sweep_metric = sweep_metric
        self.__name__ = getattr(sweep_metric.fn, "__name__", "metric")

    def __call__(self, y_true, y_pred, sensitive_features):
        if pd.Series(np.asarray(sensitive_features, dtype=object)).nunique() < 2:
            return math.nan
        return self.sweep_metric(y_true, y_pred, sensitive_features)


# ----------------------------------------------------------------------------------------------------- sweep
@dataclass(frozen=True)
class _TaskSeeds:
    """The three seeds of one (setting, seed) task, derived from ``SeedSequence(random_state)``."""

    split: int
    fit: int
    predict: int


def _derive_seeds(sequence, n_seeds):
    """Seed index ``s`` -> its split/fit/predict seeds; child ``s`` of ``SeedSequence(entropy)``.

    The seeds depend on the seed index only, not on the setting: every setting is evaluated on the same splits and
    noise draws (common random numbers), which makes differences between settings less noisy.
    """
    children = np.random.SeedSequence(sequence.entropy, spawn_key=sequence.spawn_key).spawn(n_seeds)
    return [_TaskSeeds(*(int(v) for v in child.generate_state(3))) for child in children]


def _accepts(method, name):
    """Whether ``method`` takes a keyword ``name`` (explicitly or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False
    return name in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _clone(estimator):
    """``clone``, except that a ``prefit=True`` meta-estimator keeps its fitted ``estimator`` (Fairlearn's convention;
    ``clone`` would return it unfitted). The fitted model is only read by the post-processor, never refitted.
    """
    model = clone(estimator)
    params = estimator.get_params(deep=False)
    if params.get("prefit") is True and "estimator" in params:
        model.set_params(estimator=params["estimator"])
    return model


def _fit_one(estimator, setting, seeds, X, y, sensitive_features, test_size, fit_params, predict_params):
    """Split, fit one clone with a fresh accountant and predict on the test split. Returns what scoring needs."""
    from diffprivlib import BudgetAccountant

    X_train, X_test, y_train, y_test, sf_train, sf_test = train_test_split(
        X, y, sensitive_features, test_size=test_size, random_state=seeds.split, stratify=None)
    model = _clone(estimator).set_params(**setting)
    own = model.get_params(deep=False)
    extra = {}
    if "random_state" in own:
        extra["random_state"] = seeds.fit
    accountant = None
    if "accountant" in own:
        accountant = BudgetAccountant()
        extra["accountant"] = accountant
    model.set_params(**extra)

    fit_kwargs = dict(fit_params or {})
    if _accepts(model.fit, "sensitive_features"):
        fit_kwargs["sensitive_features"] = sf_train
    model.fit(X_train, y_train, **fit_kwargs)

    predict_kwargs = dict(predict_params or {})
    if _accepts(model.predict, "sensitive_features"):
        predict_kwargs["sensitive_features"] = sf_test
    if _accepts(model.predict, "random_state"):
        predict_kwargs["random_state"] = seeds.predict
    y_pred = model.predict(X_test, **predict_kwargs)

    spent = getattr(model, "privacy_spent_", None)
    if spent is not None:
        spent = (float(spent.epsilon), float(spent.delta))
    elif accountant is not None:
        spent = tuple(float(v) for v in accountant.total())
    else:
        spent = (math.nan, math.nan)
    return model, y_test, y_pred, sf_test, spent


def _run_task(estimator, setting, seeds, X, y, sensitive_features, metrics, test_size, fit_params, predict_params,
              private_report=None):
    _, y_test, y_pred, sf_test, spent = _fit_one(estimator, setting, seeds, X, y, sensitive_features, test_size,
                                                 fit_params, predict_params)
    scores = {name: float(fn(y_test, y_pred, sf_test)) for name, fn in metrics.items()}
    if private_report is not None:
        # The report's own seed, derived from the task's (its stream is not the prediction's).
        report_seed = int(np.random.SeedSequence([seeds.predict, 1]).generate_state(1)[0])
        scores.update(_private_scores(private_report, y_test, y_pred, sf_test, report_seed))
    return scores, spent


def _private_scores(private_report, y_test, y_pred, sf_test, seed):
    """The test split's report from one :class:`~fairlearn_dp.metrics.DPMetricFrame` (charged to a fresh
    accountant): per metric its overall value and its largest difference between groups, and the report's epsilon.
    """
    import warnings

    from diffprivlib import BudgetAccountant

    from fairlearn_dp.exceptions import UtilityWarning
    from fairlearn_dp.metrics import DPMetricFrame

    with warnings.catch_warnings():
        # A precision the report asks for (max_noise_error) and small groups miss: the intervals say it.
        warnings.simplefilter("ignore", UtilityWarning)
        frame = DPMetricFrame(y_true=y_test, y_pred=y_pred, sensitive_features=_frame_groups(sf_test),
                              accountant=BudgetAccountant(), random_state=seed, **private_report)
    scores = {}
    for name in private_report["metrics"]:
        scores[f"private_{name}"] = float(frame.overall[name])
        scores[f"private_{name}_difference"] = float(frame.difference()[name])
    scores["report_epsilon"] = float(frame.privacy_spent_.epsilon)
    return scores


def _private_columns(private_report):
    if private_report is None:
        return []
    return [column for name in private_report["metrics"]
            for column in (f"private_{name}", f"private_{name}_difference")] + ["report_epsilon"]


def _check_private_report(private_report):
    """``private_report``: None or a dict of DPMetricFrame arguments with a dict of ``metrics`` and ``epsilon``
    (checked by building nothing: the frame itself validates them at the first task).
    """
    if private_report is None:
        return None
    if not isinstance(private_report, dict) or not isinstance(private_report.get("metrics"), dict) \
            or "epsilon" not in private_report:
        raise ValueError("private_report must be None or a dict of DPMetricFrame arguments with a dict of metrics "
                         "and an epsilon, e.g. {'metrics': {'accuracy': accuracy_score}, 'epsilon': 1.0, "
                         "'groups': [...]}.")
    reserved = {"y_true", "y_pred", "sensitive_features", "accountant", "random_state"} & set(private_report)
    if reserved:
        raise ValueError(f"private_report must not set {sorted(reserved)}: the sweep sets them.")
    return dict(private_report)


def privacy_fairness_sweep(estimator: Any, param_grid: Mapping[str, Any] | Sequence[Mapping[str, Any]], X: Any,
                           y: Any, *, sensitive_features: Any, metrics: Mapping[str, Callable[..., float]],
                           n_seeds: int = 5, test_size: float = 0.3, n_jobs: int = 1, random_state: Any = 0,
                           fit_params: Mapping[str, Any] | None = None,
                           predict_params: Mapping[str, Any] | None = None, progress: bool | None = None,
                           private_report: Mapping[str, Any] | None = None) -> SweepResult:
    """Fit and score ``estimator`` for every setting of ``param_grid`` and every seed; one tidy row per fit.

    For each setting of :class:`sklearn.model_selection.ParameterGrid` ``(param_grid)`` and each seed index in
    ``range(n_seeds)``: split ``(X, y, sensitive_features)`` with ``train_test_split(test_size=test_size,
    stratify=None)``; fit ``clone(estimator).set_params(**setting, random_state=fit_seed)`` with
    ``sensitive_features`` (when its ``fit`` takes them; with ``prefit=True`` the fitted base ``estimator`` is kept,
    not cloned); predict the test split (with ``sensitive_features`` and ``random_state=predict_seed`` when
    ``predict`` takes them); evaluate ``metrics``; and record the privacy spent.

    Parameters
    ----------
    estimator : estimator
        A scikit-learn style estimator, typically a fairdp DP estimator.
    param_grid : dict or list of dict
        As for ``ParameterGrid``, e.g. ``{"epsilon": [0.5, 1, np.inf], "alpha": [0, 0.1]}``. Must not contain
        ``random_state`` or ``accountant`` (the sweep sets them).
    X, y : array-like
        All the data; each task splits it.
    sensitive_features : array-like of shape (n_samples,) or (n_samples, n_columns)
    metrics : dict of str -> callable
        ``name -> fn(y_true, y_pred, sensitive_features)`` evaluated on the test split, e.g. ``{"mse":
        metric(mean_squared_error), "ks": metric(ks_statistical_parity, uses_groups=True)}`` or ``lambda yt, yp,
        sf: ks_statistical_parity(yt, yp, sensitive_features=sf)``. See :func:`metric`.
    n_seeds : int, default=5
    test_size : float or int, default=0.3
    n_jobs : int or None, default=1
        Passed to ``joblib.Parallel``; the active joblib backend runs the tasks. On a Dask cluster (the
        ``[dask]`` extra): ``with joblib.parallel_backend("dask"): privacy_fairness_sweep(..., n_jobs=-1)`` with a
        ``dask.distributed.Client`` connected; the table is the same as with ``n_jobs=1`` (tested).
    random_state : int, numpy.random.SeedSequence or None, default=0
        Entropy of a ``numpy.random.SeedSequence``; seed index ``s`` uses its child ``s`` for the split, the
        fit noise and the prediction randomness. The seeds do not depend on the setting (every setting sees the
        same splits and noise draws), on ``n_jobs`` or on the backend, so the table is reproducible. None draws
        fresh entropy (kept in ``SweepResult.seed_sequence``, so :meth:`SweepResult.metric_frame` still
        reproduces a row).
    fit_params, predict_params : dict or None, default=None
        Extra keyword arguments for ``fit`` / ``predict``, passed unchanged to every task (they are not split, so
        per-sample arrays do not belong here).
    progress : bool or None, default=None
        Show a tqdm progress bar over the tasks; None shows it when standard error is a terminal.
    private_report : dict or None, default=None
        Also report the test split privately: the arguments of a :class:`~fairlearn_dp.metrics.DPMetricFrame`
        (``metrics`` as a dict of count metrics, ``epsilon``, ``groups``, ...; the sweep sets the data, a fresh
        accountant and the seed). Adds the columns ``private_<metric>`` (overall), ``private_<metric>_difference``
        (largest difference between groups) and ``report_epsilon`` (what the report spent on the test split's
        sensitive attribute, on top of the fit's ``spent_epsilon``, which is on the training split).

    Returns
    -------
    SweepResult

    Notes
    -----
    Privacy accounting: fairdp estimators keep the *same* ``accountant`` object through ``clone``, so a sweep would
    otherwise charge every fit to the user's (or diffprivlib's global default) accountant, and in worker
    processes to copies of it that are never seen again. Each fit is therefore given a fresh
    ``diffprivlib.BudgetAccountant`` through ``set_params(accountant=...)``; its spend is recorded per row in
    ``spent_epsilon`` / ``spent_delta`` (from ``privacy_spent_``, or the fresh accountant's total for estimators
    without it), and nothing is charged to the accountant passed in with ``estimator``. The rows are separate
    experiments: their spends compose only if they are released together on the same data, which the sweep does
    not decide. Choosing a setting by looking at these results spends privacy that no accountant here records.
    """
    if not isinstance(n_seeds, (int, np.integer)) or isinstance(n_seeds, bool) or n_seeds < 1:
        raise ValueError(f"n_seeds must be a positive integer, got {n_seeds!r}.")
    if not isinstance(metrics, dict) or not metrics:
        raise ValueError("metrics must be a non-empty dict of name -> callable(y_true, y_pred, sensitive_features).")
    for name, fn in metrics.items():
        if not callable(fn):
            raise TypeError(f"metrics[{name!r}] is not callable.")
    settings = list(ParameterGrid(param_grid))
    param_names = list(dict.fromkeys(name for setting in settings for name in setting))
    reserved = {"random_state", "accountant", "setting", "seed", *SPENT_COLUMNS} & set(param_names)
    if reserved:
        raise ValueError(f"param_grid must not contain {sorted(reserved)}: the sweep sets or reports these.")
    clash = (set(metrics) & set(param_names)) | (set(metrics) & {"setting", "seed", *SPENT_COLUMNS})
    if clash:
        raise ValueError(f"metric names {sorted(clash)} clash with parameter or table column names.")
    sweep_metrics = {name: _as_sweep_metric(fn) for name, fn in metrics.items()}
    private_report = _check_private_report(private_report)
    private_columns = _private_columns(private_report)

    sequence = random_state if isinstance(random_state, np.random.SeedSequence) else \
        np.random.SeedSequence(random_state)
    seeds = _derive_seeds(sequence, n_seeds)
    tasks = [(i, s) for i in range(len(settings)) for s in range(n_seeds)]
    calls = (delayed(_run_task)(estimator, settings[i], seeds[s], X, y, sensitive_features, sweep_metrics,
                                test_size, fit_params, predict_params, private_report) for i, s in tasks)

    if show_progress(progress):
        outputs = []
        with progress_bar(True, total=len(tasks), desc="sweep", unit="fit") as bar:
            for output in Parallel(n_jobs=n_jobs, return_as="generator")(calls):
                outputs.append(output)
                bar.update()
    else:
        outputs = Parallel(n_jobs=n_jobs)(calls)

    rows = []
    for (i, s), (scores, spent) in zip(tasks, outputs, strict=False):
        row = {"setting": i}
        row.update({name: settings[i].get(name, np.nan) for name in param_names})
        row["seed"] = s
        row.update(scores)
        row.update(zip(SPENT_COLUMNS, spent, strict=False))
        rows.append(row)
    table = pd.DataFrame(rows, columns=["setting", *param_names, "seed", *metrics, *private_columns, *SPENT_COLUMNS])
    return SweepResult(table=table, summary=_summarise(table, param_names, [*metrics, *private_columns]),
                       settings=settings,
                       seed_sequence=sequence, _context={"estimator": estimator, "X": X, "y": y,
                                                      "sensitive_features": sensitive_features,
                                                      "metrics": sweep_metrics, "n_seeds": n_seeds, "test_size": test_size,
                                                      "fit_params": fit_params, "predict_params": predict_params})


def _summarise(table, param_names, metric_names):
    """Mean and std (ddof=1) of each metric and of the spend over the seeds, one row per setting."""
    values = [*metric_names, *SPENT_COLUMNS]
    grouped = table.groupby("setting", sort=True)
    params = grouped[param_names].first()
    stats = grouped[values].agg(["mean", "std"])
    stats.columns = [f"{name}_{stat}" for name, stat in stats.columns]
    summary = pd.concat([params, stats, grouped["seed"].nunique().rename("n_seeds")], axis=1)
    return summary.reset_index()


@dataclass
class SweepResult:
    """What :func:`privacy_fairness_sweep` returns.

    Attributes
    ----------
    table : pandas.DataFrame
        Tidy: one row per (setting, seed) with columns ``setting`` (index into ``settings``), the grid's
        parameters, ``seed`` (seed index), every metric, ``spent_epsilon`` and ``spent_delta``.
    summary : pandas.DataFrame
        One row per setting: its parameters, ``<metric>_mean`` / ``<metric>_std`` (also for the spend columns)
        and ``n_seeds``.
    settings : list of dict
        The ``ParameterGrid`` settings, in order.
    seed_sequence : numpy.random.SeedSequence
        The sequence all seeds derive from (its ``entropy`` reproduces a ``random_state=None`` sweep).

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from sklearn.metrics import mean_squared_error
    >>> from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
    >>> rng = np.random.default_rng(0)
    >>> groups = rng.integers(0, 2, 1000)
    >>> y = np.clip(rng.normal(0.4 + 0.2 * groups, 0.1), 0.0, 1.0)
    >>> model = DPFairRegressionPostprocessor(bounds=(0, 1), n_bins=10, groups=[0, 1], accountant=BudgetAccountant())
    >>> result = privacy_fairness_sweep(model, {"epsilon": [1.0, np.inf]}, y[:, None], y, sensitive_features=groups,
    ...                                 metrics={"mse": metric(mean_squared_error)}, n_seeds=2, progress=False)
    >>> type(result).__name__, result.table.shape[0], result.settings
    ('SweepResult', 4, [{'epsilon': 1.0}, {'epsilon': inf}])
    >>> result.table["spent_epsilon"].tolist()
    [1.0, 1.0, inf, inf]
    >>> result.summary["n_seeds"].tolist()
    [2, 2]
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    settings: list
    seed_sequence: np.random.SeedSequence
    _context: dict = field(repr=False, default_factory=dict)

    def metric_frame(self, setting_index: int, seed: int) -> MetricFrame:
        """Refit one (setting, seed) task and return a ``MetricFrame`` of its test-split predictions.

        Nothing is stored per fit during the sweep, so this **refits** the estimator: the same derived split, fit
        and predict seeds make it reproduce the sweep's row exactly (``frame.overall`` equals the row's metrics),
        and it runs in this process. A refit of a DP estimator is another release: its spend is charged to a
        fresh accountant, like the sweep's, and is stored in ``frame.privacy_spent``.

        Parameters
        ----------
        setting_index : int
            The ``setting`` column of ``table`` (index into ``settings``).
        seed : int
            The ``seed`` column (seed index in ``range(n_seeds)``).

        Returns
        -------
        fairlearn.metrics.MetricFrame
            Plain metrics (``metric(fn)``) per group and overall; group-comparison metrics
            (``uses_groups=True`` or a plain 3-argument callable) overall, NaN within a single group.
        """
        ctx = self._context
        if not 0 <= setting_index < len(self.settings):
            raise IndexError(f"setting_index must be in [0, {len(self.settings)}), got {setting_index}.")
        if not 0 <= seed < ctx["n_seeds"]:
            raise IndexError(f"seed must be in [0, {ctx['n_seeds']}), got {seed}.")
        seeds = _derive_seeds(self.seed_sequence, ctx["n_seeds"])[seed]
        _, y_test, y_pred, sf_test, spent = _fit_one(
            ctx["estimator"], self.settings[setting_index], seeds, ctx["X"], ctx["y"], ctx["sensitive_features"],
            ctx["test_size"], ctx["fit_params"], ctx["predict_params"])
        sf_test = _frame_groups(sf_test)
        metrics, sample_params = {}, {}
        for name, fn in ctx["metrics"].items():
            if fn.uses_groups:
                metrics[name] = _AcrossGroups(fn)
                sample_params[name] = {"sensitive_features": sf_test.to_numpy()}
            else:
                metrics[name] = fn.fn
        frame = MetricFrame(metrics=metrics, y_true=y_test, y_pred=y_pred, sensitive_features=sf_test,
                            sample_params=sample_params or None)
        frame.privacy_spent = spent
        return frame


def _frame_groups(sensitive_features):
    """One group label per row (several columns joined as Fairlearn does) so metrics and MetricFrame agree."""
    from fairlearn_dp._utils import as_group_vector

    labels = as_group_vector(sensitive_features, len(sensitive_features))
    name = getattr(sensitive_features, "name", None) or "sensitive_feature_0"
    return pd.Series(labels, name=name)


# --------------------------------------------------------------------------------------------- pareto / plot
def pareto_front(points):
    """Lower convex envelope of (x=error, y=violation) points: the lower-left convex hull, as the papers draw.

    The vertices, by increasing error, of the lower convex hull from the point of least error (least violation
    among ties) to the first point of least violation; the rest of the hull rises again and is dominated. Along
    it, error strictly increases, violation strictly decreases and slopes increase (convex). Points on a segment
    are trade-offs reachable by randomising between the two endpoint models (Xian et al. 2024, Sec. 4.1; Jagielski
    et al. 2019, Fig. 1).

    Parameters
    ----------
    points : array-like of shape (n_points, 2)
        NaN rows are dropped.

    Returns
    -------
    ndarray of shape (n_vertices, 2)

    Examples
    --------
    >>> pareto_front([(0, 3), (1, 1), (2, 2), (3, 0), (1, 3), (4, 0), (5, 1), (2, 0.9)])
    array([[0., 3.],
           [1., 1.],
           [3., 0.]])
    >>> pareto_front([(0, 1), (1, 0), (2, 0), (0.5, 0.5)])   # collinear and tied points add no vertex
    array([[0., 1.],
           [1., 0.]])
    """
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    pts = pts[~np.isnan(pts).any(axis=1)]
    if pts.shape[0] == 0:
        raise ValueError("pareto_front needs at least one point without NaN.")
    pts = np.unique(pts, axis=0)  # sorted by x, then y
    hull = []
    for p in pts:  # Andrew's monotone chain, lower hull; pops collinear and non-convex middle points
        while len(hull) >= 2:
            (x1, y1), (x2, y2) = hull[-2], hull[-1]
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    hull = np.array(hull)
    return hull[: int(np.argmin(hull[:, 1])) + 1]


def _column(frame, name):
    if name in frame.columns:
        return name
    if f"{name}_mean" in frame.columns:
        return f"{name}_mean"
    raise KeyError(f"{name!r} (or {name}_mean) is not a column of the summary.")


def plot_tradeoff(summary: pd.DataFrame, *, x: str, y: str, by: str = "epsilon", path: str | Path,
                  title: str | None = None) -> Path:
    """Plot the (x, y) trade-off: one Pareto-front curve per value of ``by``, all points faint; save a PNG.

    Parameters
    ----------
    summary : pandas.DataFrame
        ``SweepResult.summary`` (or the tidy ``SweepResult.table`` to plot every seed).
    x, y : str
        Columns, e.g. ``"mse_mean"`` and ``"ks_mean"``; a metric name ``"mse"`` means ``"mse_mean"`` when only
        that exists. Typically ``x`` is the error and ``y`` the fairness violation.
    by : str, default="epsilon"
        One curve per value of this column; the front of each is taken over all other parameters.
    path : str or path-like
    title : str or None, default=None

    Returns
    -------
    path
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    x_col, y_col = _column(summary, x), _column(summary, y)
    if by not in summary.columns:
        raise KeyError(f"by={by!r} is not a column of the summary.")
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    values = pd.unique(summary[by])
    with contextlib.suppress(TypeError):
        values = sorted(values)
    for value, colour in zip(values, plt.rcParams["axes.prop_cycle"].by_key()["color"] * (len(values) + 1), strict=False):
        part = summary[summary[by] == value]
        points = part[[x_col, y_col]].to_numpy(dtype=float)
        label = f"{by}={value:g}" if isinstance(value, (int, float, np.number)) else f"{by}={value}"
        ax.scatter(points[:, 0], points[:, 1], s=12, alpha=0.25, color=colour)
        if np.isfinite(points).all(axis=1).any():
            front = pareto_front(points[np.isfinite(points).all(axis=1)])
            ax.plot(front[:, 0], front[:, 1], marker="o", ms=4, color=colour, label=label)
    ax.set_xlabel(x_col)
    ax.set_ylabel(y_col)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
