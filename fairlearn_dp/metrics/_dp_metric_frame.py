"""``DPMetricFrame``: Fairlearn's ``MetricFrame`` computed from one differentially private release."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from fairlearn.metrics import MetricFrame
from numpy.typing import ArrayLike

from .._fairlearn_compat import BOOTSTRAP_NOT_INITIALIZED
from .._utils._validation import check_choice, validate_params
from ..exceptions import UtilityWarning, warn
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, check_spend, resolve_accountant, validate_epsilon_delta
from ..privacy._post_release import warnings_after_release
from ..privacy._random import release_seeds
from ._cell_metrics import CELL_DRAWS, CellMetric
from ._cell_metrics import flat_values as _flat
from ._count_metrics import VALUE_COLUMNS, ConfusionCounts, RegressionSums, reads_y_true
from ._frame_checks import ERRORS as _ERRORS
from ._frame_checks import LEVELS_AND_DRAWS as _LEVELS_AND_DRAWS
from ._frame_checks import METHODS as _METHODS
from ._frame_checks import PARAMETERS as _PARAMETERS
from ._frame_checks import MetricFrameOptions
from ._frame_checks import check_dask_levels as _check_dask_levels
from ._frame_checks import check_draws as _check_draws
from ._frame_checks import check_metric_frame_options as _check_options
from ._frame_checks import check_names as _check_names
from ._frame_checks import check_rows as _check_rows
from ._frame_checks import check_weighted_metrics as _check_weighted_metrics
from ._frame_checks import resolve_metrics as _resolve_metrics
from ._frame_checks import split_groups as _split_groups
from ._frame_checks import split_weights as _split_weights
from ._frame_checks import weight_tables as _weight_tables
from ._frame_counting import count_frame
from ._frame_inputs import feature_columns, resolve_levels, unread_y_true
from ._frame_intervals import aggregate_bounds
from ._frame_quantiles import nanquantile_draws, sort_draws
from ._frame_release import CONFUSION_COLUMNS, empty_cells_nan, post_process, public_totals, release_cells, simulate
from ._frame_tables import frame_parts, merge_parts, release_tables, views
from ._release_views import SharedRelease, note_release, view_of

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant

__all__ = ["DPMetricFrame", "frame_of_release"]

#: ``unreadable_``'s threshold when ``max_noise_error`` is not given (reported, not warned about).
_DEFAULT_MAX_NOISE_ERROR = 0.02
#: The noise draws and quantiles of ``noise_error_`` when ``n_boot=None, ci_quantiles=None`` (no intervals).
_DIAGNOSTIC_DRAWS, _DIAGNOSTIC_QUANTILES = 1000, (0.025, 0.975)
#: The attributes computed from the Monte-Carlo draws when first read (issue 41.3: most of a many-group frame's time).
_LAZY = frozenset({"_draws", "noise_error_", "unreadable_"})


class DPMetricFrame(MetricFrame):
    """Fairlearn's :class:`~fairlearn.metrics.MetricFrame`, computed from one differentially private release.

    Every metric is a function of per-cell confusion counts (classification) or of per-cell sums of bounded
    per-row values (regression), where a cell is a (control level, sensitive group) pair. The whole table of counts
    is released once, with noise from a diffprivlib mechanism, post-processed to a consistent table (non-negative
    counts that add up to the public totals), and every property and method of the frame answers from it. The
    interface is MetricFrame's: change the class name, add ``epsilon`` and the public ``groups``.

    It is a subclass of ``MetricFrame``, so Fairlearn's functions that take one (``plot_metric_frame``, which draws
    the private intervals as it draws bootstrap intervals) accept it. ``MetricFrame.__init__`` never runs (no exact
    computation on the rows, which the frame does not keep) and every public member of ``MetricFrame`` is
    overridden to answer from the release.

    Parameters
    ----------
    metrics : callable or dict of str to callable
        Classification: any metric of the confusion counts -- scikit-learn's with their keyword arguments
        (``functools.partial(fbeta_score, beta=0.6)``, ``average``, ``pos_label``, ``labels``, ``zero_division``),
        ``confusion_matrix``, Fairlearn's base metrics, user functions ``f(y_true, y_pred, sample_weight=None)``
        -- evaluated on the confusion cells weighted by the released counts, after public synthetic probes check
        that it is one (a metric that fails them is refused before the budget check, with the reason), or a
        :func:`~fairlearn_dp.metrics.count_metric`. Regression (``bounds``): ``count``, ``mean_prediction``,
        ``mean_squared_error``, ``mean_absolute_error``, regression ``count_metric``.
    y_true, y_pred : array-like or Dask collection
        Labels 0/1 (classification) or values, clipped to ``bounds`` (regression). When no metric reads ``y_true``
        (public probe) and it is public, a placeholder (``range(n)``) is read for its length only.
    sensitive_features : array-like, Series, DataFrame, dict or Dask collection
        As in MetricFrame; several columns give the product of their declared levels.
    control_features : same types, optional
        As in MetricFrame.
    sample_params : dict, optional
        Keyword arguments of the metrics (bound like a ``functools.partial``). ``sample_weight`` is counted by the
        release, with ``options.weight_bound``: weighted counts (metrics weighed differently, or some not: one table each,
        released together, charged once); other per-row values are refused.
    epsilon : float, default=1.0
        Privacy budget of the release (``numpy.inf``: exact values, no noise; recorded as ``(inf, 0)``).
    delta : float, default=0.0
        0: Laplace noise (pure DP); > 0: analytic Gaussian noise.
    groups : list or dict of str to list, optional
        The public levels: a list for one sensitive column, ``{column: levels}`` for several, and for the control
        columns too (a column left out has its levels read from the data). If None they are read from the data,
        with a :class:`~fairlearn_dp.exceptions.PrivacyWarning` (for control columns only under ``"record"``:
        under ``"sensitive_attribute"`` control features are public).
    bounds : tuple (lo, hi), optional
        Public range of ``y_true`` and ``y_pred`` for regression metrics (values are clipped to it). Required for
        them; selects the regression reading of ``mean_prediction``.
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        What neighbouring datasets differ in (see Privacy).
    accountant : diffprivlib.BudgetAccountant, optional
        Charged ``(epsilon, delta)`` once (diffprivlib's default accountant when None).
    random_state : None, int or numpy.random.RandomState
        Seeds the release and the interval draws. None: a secure source for the release.
    n_boot : int or None, default=1000
        Monte-Carlo draws of the intervals (at least 10). ``n_boot=None, ci_quantiles=None`` (MetricFrame's
        defaults): no intervals, the ``*_ci`` members raise MetricFrame's ``ValueError``. The draws are made when
        an interval, ``noise_error_`` or ``unreadable_`` is first read (at construction when ``max_noise_error``
        is given), from the generator seeded at construction: the same numbers whenever they are read.
    ci_quantiles : sequence of float or None, default=(0.025, 0.975)
        Quantiles of the intervals (``by_group_ci`` and friends are lists in this order). None with ``n_boot=None``.
    options : MetricFrameOptions or None, default=None
        Expert settings (:class:`MetricFrameOptions`): the multiclass ``labels``, ``public_predictions``, the
        ``max_noise_error`` of ``unreadable_`` and the ``weight_bound`` of ``sample_weight``; None: defaults. A frame
        read from a :class:`DPReport`'s release (no charge) is :meth:`DPReport.metric_frame`.

    Attributes
    ----------
    overall, by_group, group_min(), group_max(), difference(), ratio(), sensitive_levels, control_levels
        As in MetricFrame, from the release.
    by_group_ci, overall_ci, group_min_ci(), group_max_ci(), difference_ci(), ratio_ci()
        Intervals at ``ci_quantiles`` that combine the release noise with the sampling error (``ci_method``).
    noisy_counts_ : numpy.ndarray of shape (n_control_levels, n_groups, n_columns)
        The release itself (before post-processing): what the privacy audit reads.
    released_counts_ : pandas.DataFrame
        The post-processed table: one row per cell, the confusion counts ``tn, fp, fn, tp`` or ``n`` and the sums
        (scaled into [0, 1] by ``bounds``).
    noise_error_ : pandas.DataFrame
        Per group and metric, the interval half-width from the release noise alone.
    unreadable_ : pandas.DataFrame of bool
        ``noise_error_ > max_noise_error`` (relative to the value for counts, to the width of ``bounds`` for
        regression values).
    privacy_spent_ : PrivacySpend
        What the release charged.
    noise_scale_, noise_sd_ : float
        The mechanism's scale (Laplace ``b`` or Gaussian ``sigma``) and the standard deviation per count.

    Privacy
    -------
    - Relation: ``"sensitive_attribute"`` -- one person's sensitive value changed (labels, predictions and control
      features public); ``"record"`` -- one evaluation row substituted (``n`` public).
    - Released: the (control level, group) table of confusion counts, or of counts and sums of values scaled into
      [0, 1] by ``bounds``; nothing else is computed from the private data.
    - Mechanism: diffprivlib's Laplace (``delta = 0``) or analytic Gaussian, one charge of ``(epsilon, delta)``.
    - Sensitivity: L1 2 and L2 sqrt(2) for the counts (any number of classes); L1 ``2k``, L2 ``sqrt(2k)`` for
      ``k`` regression columns; times ``options.weight_bound`` with sample weights (a row's weight may depend on its
      sensitive value: no weighted total is public). Derivation: docs/privacy_analysis/metric_frame.md.
    - Public inputs: the metrics, ``groups``, ``bounds``, ``options``, ``n``; under ``"sensitive_attribute"`` also
      ``y_true`` and the control features, and ``y_pred`` with ``options.public_predictions`` (``overall`` exact).

    Examples
    --------
    Fairlearn's ``MetricFrame`` call with ``epsilon`` and the public ``groups`` added:

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn.metrics import selection_rate
    >>> from sklearn.metrics import accuracy_score
    >>> from fairlearn_dp.metrics import DPMetricFrame
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 5000)
    >>> y_true = (rng.random(5000) < 0.4).astype(int)
    >>> y_pred = np.where(rng.random(5000) < 0.8, y_true, 1 - y_true)
    >>> frame = DPMetricFrame(metrics={"accuracy": accuracy_score, "selection_rate": selection_rate},
    ...                       y_true=y_true, y_pred=y_pred, sensitive_features=sex, epsilon=1.0,
    ...                       groups=["female", "male"], random_state=0, accountant=BudgetAccountant())
    >>> frame.by_group.round(3)
                         accuracy  selection_rate
    sensitive_feature_0
    female                  0.794           0.445
    male                    0.799           0.447
    >>> frame.difference().round(3)
    accuracy          0.005
    selection_rate    0.002
    dtype: float64
    >>> frame.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    """

    def __init__(self, *, metrics: Callable | dict[str, Callable], y_true: ArrayLike, y_pred: ArrayLike,
                 sensitive_features: ArrayLike | dict[str, ArrayLike],
                 control_features: ArrayLike | dict[str, ArrayLike] | None = None, sample_params: dict | None = None,
                 epsilon: float = 1.0, delta: float = 0.0, groups: list | dict | None = None,
                 bounds: tuple[float, float] | None = None, privacy_unit: str = "sensitive_attribute",
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None, n_boot: int | None = 1000,
                 ci_quantiles: Sequence[float] | None = (0.025, 0.975),
                 options: MetricFrameOptions | None = None) -> None:
        # MetricFrame.__init__ is not called: it computes the exact metrics (and bootstraps) on the rows.
        options = _check_options(options)               # every field names itself (options.<field>)
        groups, control_groups = _split_groups(groups, sensitive_features, control_features)
        self._build(metrics=metrics, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                    control_features=control_features, sample_params=sample_params, epsilon=epsilon, delta=delta,
                    groups=groups, control_groups=control_groups, bounds=bounds, labels=options.labels,
                    privacy_unit=privacy_unit, public_predictions=options.public_predictions, accountant=accountant,
                    random_state=random_state, n_boot=n_boot, ci_quantiles=ci_quantiles,
                    max_noise_error=options.max_noise_error, weight_bound=options.weight_bound, release=None)

    def _build(self, *, metrics, y_true, y_pred, sensitive_features, control_features, sample_params, epsilon, delta,
               groups, control_groups, bounds, labels, privacy_unit, public_predictions, accountant,
               random_state=None, n_boot=1000, ci_quantiles=(0.025, 0.975), max_noise_error, weight_bound, release):
        """The frame from its checked options and split groups: a view of ``release``, or steps 1-6 of a release."""
        if release is not None:                       # a view of a report's release: no charge, no data read
            options = {"delta": delta, "groups": groups, "control_groups": control_groups, "bounds": bounds, "labels": labels,
                           "privacy_unit": privacy_unit, "public_predictions": public_predictions, "accountant": accountant,
                           "weight_bound": weight_bound}
            view = view_of(release, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                           control_features=control_features, epsilon=epsilon, options=options)
            self._init_view(view, release, metrics, sample_params, SimpleNamespace(
                groups=None, control_groups=None, random_state=random_state, n_boot=n_boot,
                ci_quantiles=ci_quantiles, max_noise_error=max_noise_error))
            return
        # 1. public parameters (a typo never costs epsilon): the tables, with the metrics' joint rules between them
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        public = SimpleNamespace(privacy_unit=privacy_unit, public_predictions=public_predictions, bounds=bounds,
                                 labels=labels, groups=groups, control_groups=control_groups, random_state=random_state,
                                 n_boot=n_boot, ci_quantiles=ci_quantiles, max_noise_error=max_noise_error,
                                 weight_bound=weight_bound)
        public_predictions, bound, tables, sample_params, weights = self._check_metrics(metrics, sample_params,
                                                                                       public)
        checked = validate_params(public, _LEVELS_AND_DRAWS)
        declared, declared_control = checked["groups"], checked["control_groups"]
        self._n_boot, self._ci_quantiles = _check_draws(checked["n_boot"], checked["ci_quantiles"])
        self._warn_unreadable_groups = checked["max_noise_error"] is not None     # a precision the user asked for
        self._max_noise_error = _DEFAULT_MAX_NOISE_ERROR if checked["max_noise_error"] is None else \
            checked["max_noise_error"]
        accountant = resolve_accountant(accountant)
        sf_columns = feature_columns(sensitive_features, "sensitive_feature_")
        cf_columns = None if control_features is None else feature_columns(control_features, "control_feature_")
        _check_names(sf_columns, cf_columns)
        _check_dask_levels(y_true, y_pred, sf_columns, cf_columns, declared, declared_control, weights,
                           control_hint="groups={control column: levels}")
        _check_rows(y_true, y_pred, sf_columns, cf_columns, tables)
        # 2. the budget, before the data are read
        spend = PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)
        check_spend(accountant, spend)
        # 3. levels (declared, or read with a warning) and 4. the counts
        private = not math.isinf(epsilon)
        self._sf = resolve_levels(sf_columns, declared, "groups", private=private)
        self._cf = (None if cf_columns is None else
                    resolve_levels(cf_columns, declared_control, "groups",
                                   private=private and self._unit == "record"))
        if len(tables) > 1:
            self._init_tables(tables, metrics, sample_params, bound, accountant, spend, random_state, SimpleNamespace(
                y_true=y_true, y_pred=y_pred, sf_columns=sf_columns, cf_columns=cf_columns, sensitive=sensitive_features))
            return
        if self._y_true_unread and self._unit == "sensitive_attribute":   # public, and no metric reads it: a
            y_true = unread_y_true(y_true, self._classes)                   # placeholder (range(n)) is accepted
        exact, n = count_frame(y_true=y_true, y_pred=y_pred, sf_columns=sf_columns, sf=self._sf,
                               cf_columns=cf_columns, cf=self._cf, kind=self._kind, bounds=self._bounds,
                               values=self._value_columns(), classes=self._classes,
                               weights=None if weights is None else (weights, bound))
        # 5. the release, one charge, and 6. post-processing
        self._release_table(exact, n, epsilon=epsilon, delta=delta, spend=spend, accountant=accountant,
                            random_state=random_state, public_predictions=public_predictions,
                            note=(y_true, sensitive_features))

    def _check_metrics(self, metrics, sample_params, public):
        """Step 1 for the metrics: the parameter table ``_PARAMETERS`` and the metrics' joint rules (weights, kind,
        tables); returns ``(public_predictions, weight_bound, tables, sample_params, weights)``.
        """
        checked = validate_params(public, _PARAMETERS)
        self._unit, public_predictions, self._bounds, self._classes, bound = (checked[name] for name in _PARAMETERS)
        tables = _weight_tables(metrics, sample_params)            # one per weights object (several: _init_tables)
        sample_params, weights = _split_weights(metrics, sample_params, weight_bound=bound,
                                                public_predictions=public_predictions)
        self._weight_bound = None if weights is None else bound      # None: every row counts 1
        self._metrics, self._kind, self._single = _resolve_metrics(metrics, sample_params, self._bounds,
                                                                   self._classes)
        _check_weighted_metrics(self._metrics, [n for w, names in tables if w is not None for n in names])
        if len(tables) > 1 and self._kind != "classification":
            raise ValueError("sample_params: metrics given different sample weights (or some none) are read from "
                             "several tables of one release, for classification metrics only.")
        self._y_true_unread = self._kind == "classification" and not any(map(reads_y_true, self._metrics.values()))
        return public_predictions, bound, tables, sample_params, weights

    def _release_table(self, exact, n, *, epsilon, delta, spend, accountant, random_state, public_predictions, note):
        """Steps 5-6 of one table: the release with its one charge, then post-processing of released values and
        public totals only (``note``: the ``(y_true, sensitive_features)`` that :func:`note_release` reads).
        """
        with warnings_after_release() as release:    # warnings after the charge: once the frame is built
            release.result = self
            release_seed, draw_seed = release_seeds(random_state, 2)
            noisy, self.noise_scale_, self.noise_sd_ = release_cells(exact, kind=self._kind, epsilon=epsilon,
                                                                     delta=delta, random_state=release_seed,
                                                                     weight_bound=self._weight_bound or 1.0)
            self.privacy_spent_ = charge(accountant, spend)
            note_release("DPMetricFrame", *note, spend)   # warns after a report's release (and dp_*)
            # 6. post-processing only from here: released values and public totals
            self._n = n
            self._public_predictions = public_predictions
            totals = public_totals(exact, kind=self._kind, unit=self._unit, public_predictions=public_predictions,
                                   weighted=self._weight_bound is not None)
            self.noisy_counts_ = noisy
            self._table = post_process(noisy, kind=self._kind, unit=self._unit, totals=totals, n=n,
                                       public_predictions=public_predictions, weighted=self._weight_bound is not None)
            self._delta = delta
            rng = np.random.default_rng(draw_seed.randint(2 ** 31) if draw_seed is not None else None)
            self._populate(totals, rng)

    def _init_tables(self, tables, metrics, sample_params, bound, accountant, spend, random_state, data):
        """Metrics given different weights (or some none): one table each, one release and one charge
        (:mod:`._frame_tables`); each metric read from a frame of its table, as :meth:`_init_view` reads a view.
        """
        bounds = [None if w is None else bound for w, _ in tables]
        exact = []
        for weights, _ in tables:
            table, n = count_frame(y_true=data.y_true, y_pred=data.y_pred, sf_columns=data.sf_columns, sf=self._sf,
                                   cf_columns=data.cf_columns, cf=self._cf, kind=self._kind, bounds=None, values=(),
                                   classes=self._classes, weights=None if weights is None else (weights, bound))
            exact.append(table)
        with warnings_after_release() as release:
            release.result = self
            release_seed, draw_seed = release_seeds(random_state, 2)
            noisy, scale, sd = release_tables(exact, [b or 1.0 for b in bounds], epsilon=spend.epsilon,
                                              delta=spend.delta, random_state=release_seed)
            self.privacy_spent_ = charge(accountant, spend)
            note_release("DPMetricFrame", data.y_true, data.sensitive, spend)
            parts = frame_parts(self._table_part, tables, views(exact, noisy, bounds, unit=self._unit, sf=self._sf,
                                                                cf=self._cf, classes=self._classes, n=n,
                                                                delta=spend.delta, scale=scale, sd=sd), bounds,
                                metrics, sample_params, {"n_boot": self._n_boot, "ci_quantiles": self._ci_quantiles,
                                "random_state": draw_seed, "max_noise_error": self._max_noise_error
                                if self._warn_unreadable_groups else None})
            spent, order = self.privacy_spent_, list(self._metrics)
            vars(self).update(merge_parts([vars(part) for part in parts], order, bounds), privacy_spent_=spent)

    @staticmethod
    def _table_part(view, metrics, sample_params, draws, weight_bound):
        part = DPMetricFrame.__new__(DPMetricFrame)
        part._init_view(view, None, metrics, sample_params, draws, weight_bound)
        if part._pending_draws is not None:          # merge_parts reads the parts' draws: drawn now
            part._simulate_draws()
        return part

    def _init_view(self, view, release, metrics, sample_params, draws, weight_bound=None):
        """The frame of ``metrics`` on the model ``view`` of a report's ``release`` (:func:`._report.view_of`):
        the same checks and post-processing as a standalone frame, on the released table; nothing charged.
        """
        sample_params, weights = _split_weights(metrics, sample_params, weight_bound=None, public_predictions=False)
        if weights is not None:
            raise ValueError("sample_params: a DPReport releases unweighted counts; sample_weight cannot be read "
                             "from it (use a weighted DPMetricFrame).")
        self._unit, self._public_predictions, self._classes = view.unit, view.public_predictions, view.classes
        self._bounds, self._weight_bound = None, weight_bound
        self._metrics, self._kind, self._single = _resolve_metrics(metrics, sample_params, None, self._classes)
        if self._kind != "classification":
            raise ValueError("metrics: a DPReport releases confusion counts; regression metrics need a frame with "
                             "bounds.")
        checked = validate_params(draws, _LEVELS_AND_DRAWS)
        self._n_boot, self._ci_quantiles = _check_draws(checked["n_boot"], checked["ci_quantiles"])
        self._warn_unreadable_groups = checked["max_noise_error"] is not None
        self._max_noise_error = _DEFAULT_MAX_NOISE_ERROR if checked["max_noise_error"] is None else \
            checked["max_noise_error"]
        self._sf, self._cf, self._n, self._delta = view.sf, view.cf, view.n, view.delta
        self.noise_scale_, self.noise_sd_, self.noisy_counts_, self._table = (view.noise_scale, view.noise_sd,
                                                                              view.noisy, view.table)
        self.privacy_spent_, self.release_ = PrivacySpend(0.0, 0.0), release
        with warnings_after_release() as after:
            after.result = self
            draw_seed = release_seeds(checked["random_state"], 2)[1]
            self._populate(None, np.random.default_rng(draw_seed.randint(2 ** 31) if draw_seed is not None
                                                       else None))

    # ------------------------------------------------------------------------------------------------ building
    def _value_columns(self):
        if self._kind != "regression":
            return ()
        needed = {column for metric in self._metrics.values() for column in metric.values}
        return tuple(column for column in VALUE_COLUMNS if column in needed)

    def _columns(self):
        if self._kind == "classification" and self._classes is not None:     # (y_true, y_pred) cells, row-major
            return pd.MultiIndex.from_product([list(self._classes)] * 2, names=["y_true", "y_pred"])
        return CONFUSION_COLUMNS if self._kind == "classification" else ("n",) + self._value_columns()

    def _evaluate(self, table, draws=False, start=0):
        """``{metric name: values}`` on a ``(..., C, G, K)`` table, and the same on the overall ``(..., C, K)``.

        A :class:`CellMetric` is one Python call per table: on Monte-Carlo ``draws`` (the draws ``start, start + 1,
        ...``) it is evaluated on those among the first ``CELL_DRAWS`` (NaN for a metric whose value is an array:
        it has no interval).
        """
        by_group, overall = {}, {}
        for name, metric in self._metrics.items():
            if isinstance(metric, CellMetric):
                part = table[:max(CELL_DRAWS - start, 0)] if draws else table
                if draws and (not metric.scalar or not len(part)):
                    by_group[name], overall[name] = np.full(part.shape[:-1], np.nan), np.full(part.shape[:-2], np.nan)
                    continue
                by_group[name], overall[name] = metric.evaluate(part), metric.evaluate(part.sum(axis=-2))
                continue
            by_group[name] = np.asarray(metric.function(self._counts(table)), dtype=float)
            overall[name] = np.asarray(metric.function(self._counts(table.sum(axis=-2))), dtype=float)
        return by_group, overall

    def _counts(self, table):
        if self._kind == "classification" and self._classes is not None:
            return SimpleNamespace(n=table.sum(axis=-1))          # declared classes: only the count is vectorised
        if self._kind == "classification":
            return ConfusionCounts(tn=table[..., 0], fp=table[..., 1], fn=table[..., 2], tp=table[..., 3])
        low, high = self._bounds
        width = high - low
        sums = dict(zip(self._value_columns(), np.moveaxis(table[..., 1:], -1, 0), strict=False))
        n = table[..., 0]
        return RegressionSums(
            n=n,
            prediction=None if "prediction" not in sums else low * n + width * sums["prediction"],
            squared_error=None if "squared_error" not in sums else width ** 2 * sums["squared_error"],
            absolute_error=None if "absolute_error" not in sums else width * sums["absolute_error"])

    def _populate(self, totals, rng):
        """The values and the released table now; the Monte-Carlo draws (intervals, ``noise_error_``,
        ``unreadable_``) when first read (:meth:`__getattr__`), from ``rng`` kept as it is now: the same numbers as
        when drawn here. Drawn now when the user gave ``max_noise_error`` (its warning is due at construction).
        """
        by_group, overall = self._evaluate(self._table)
        if self.noise_scale_ == 0:   # epsilon=inf: the exact counts are public: an empty cell is NaN (MetricFrame's)
            by_group = empty_cells_nan(self._table, by_group)
            overall = empty_cells_nan(self._table.sum(axis=-2), overall)
        self._by_group_values, self._overall_values = by_group, overall
        self.ci_method = None if self._n_boot is None else (
            "parametric bootstrap: the released table taken as the truth, rows resampled per cell and "
            f"the release noise redrawn ({self._n_boot} draws{self._cell_draws_note()}); percentile intervals for "
            "by_group and overall; for the aggregates over groups, their range over the groups' simultaneous "
            "(Bonferroni) percentile intervals (conservative)")
        self.released_counts_ = pd.DataFrame(self._table.reshape(-1, self._table.shape[-1]),
                                             index=self._cell_index(), columns=list(self._columns()))
        self._pending_draws = rng
        if self._warn_unreadable_groups:
            self._simulate_draws()
            self._warn_unreadable()

    def __getattr__(self, name: str) -> Any:
        """The attributes drawn when first read (:data:`_LAZY`), each stage once and in the release code's order:
        the sampling draws (``_draws``: the intervals) first, then the noise draws (``noise_error_``,
        ``unreadable_``), from the generator kept at construction.
        """
        if name not in _LAZY or self.__dict__.get("_pending_draws") is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        if "_draws" not in self.__dict__:
            self._sampling_draws()
        if name != "_draws":
            self._noise_draws()
        return self.__dict__[name]

    def _simulate_draws(self):
        """Both stages of the draws now (a requested ``max_noise_error``, or a part of a several-table frame)."""
        self._sampling_draws()
        self._noise_draws()

    def _simulation_arguments(self):
        return {"kind": self._kind, "unit": self._unit, "n": self._n, "scale": self.noise_scale_, "delta": self._delta,
                "rng": self._pending_draws, "public_predictions": self._public_predictions,
                "weight_bound": self._weight_bound}

    def _sampling_draws(self):
        """The intervals' draws (rows resampled and noise redrawn; none when ``n_boot`` is None), first from the
        kept generator. Post-processing only.
        """
        self._draws = None if self._n_boot is None else self._drawn_values(sampling=True, n_boot=self._n_boot)

    def _drawn_values(self, *, sampling, n_boot):
        """``(by_group, overall)``: the metrics on the simulated tables (:func:`simulate`, evaluated chunk by
        chunk), each cell's draws sorted (:func:`sort_draws`: what the percentile intervals read; the joint order
        of the draws across cells is not kept).
        """
        parts = [self._evaluate(tables, draws=True, start=start) for start, tables in
                 simulate(self._table, sampling=sampling, n_boot=n_boot, **self._simulation_arguments())]
        return tuple({name: sort_draws([part[i][name] for part in parts]) for name in parts[0][i]} for i in range(2))

    def _noise_draws(self):
        """The noise draws of ``noise_error_`` and ``unreadable_``, after the sampling draws. Post-processing only."""
        noise = self._drawn_values(sampling=False, n_boot=self._n_boot or _DIAGNOSTIC_DRAWS)
        self._pending_draws = None
        quantiles = self._ci_quantiles or _DIAGNOSTIC_QUANTILES
        low, high = min(quantiles), max(quantiles)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)                  # all-NaN cells stay NaN
            bounds = {name: nanquantile_draws(values, [high, low], presorted=True) for name, values in
                      noise[0].items()}
            half = {name: (values[0] - values[1]) / 2 for name, values in bounds.items()}
        self.noise_error_ = self._frame(half, single=False)
        reference = {name: self._error_reference(name) for name in self._metrics}
        self.unreadable_ = self._frame({name: half[name] > self._max_noise_error * reference[name]
                                        for name in self._metrics}, single=False)

    def _cell_draws_note(self):
        cells = [name for name, m in self._metrics.items() if isinstance(m, CellMetric)]
        if not cells or self._n_boot <= CELL_DRAWS:
            return ""
        return f"; the first {CELL_DRAWS} for the metrics evaluated on weighted cells: {cells}"

    def _error_reference(self, name):
        """What a noise error is judged against (the metric's ``scale``): 1, its value, or the width of bounds."""
        scale = self._metrics[name].scale
        if scale == "count":
            return np.abs(self._by_group_values[name])
        width = 1.0 if self._bounds is None else self._bounds[1] - self._bounds[0]
        return {"rate": 1.0, "value": width, "squared": width ** 2}[scale]

    def _unreadable_labels(self):
        """The groups (rows of ``by_group``) with at least one unreadable metric, as text."""
        rows = self.unreadable_.any(axis=1)
        return [str(label) for label in rows.index[rows.to_numpy()]]

    def _warn_unreadable(self):
        labels = ", ".join(self._unreadable_labels())
        if labels and self._warn_unreadable_groups:
            warn(f"DPMetricFrame: at this epsilon the release noise alone gives an error above "
                 f"max_noise_error={self._max_noise_error:g} (half-width of the interval) for: {labels}. Read these "
                 "groups' values with their intervals (unreadable_, noise_error_, by_group_ci).", UtilityWarning)

    # ------------------------------------------------------------------------------------------------ shapes
    def _cell_index(self):
        sf_index = self._sf.index()
        if self._cf is None:
            return sf_index
        cf_index = self._cf.index()
        levels = [cf_index.levels[i] if isinstance(cf_index, pd.MultiIndex) else cf_index for i in
                  range(cf_index.nlevels)]
        s_levels = [sf_index.levels[i] if isinstance(sf_index, pd.MultiIndex) else sf_index for i in
                    range(sf_index.nlevels)]
        return pd.MultiIndex.from_product([list(level) for level in levels + s_levels],
                                          names=list(self._cf.names) + list(self._sf.names))

    def _frame(self, values, single=None):
        """``{name: (..., C, G)}`` -> by_group's shape (a DataFrame when ``single`` is False)."""
        frame = pd.DataFrame({name: _flat(v) for name, v in values.items()}, index=self._cell_index())
        single = self._single if single is None else single
        return frame.iloc[:, 0].rename(next(iter(values))) if single else frame

    def _overall_shape(self, values):
        """``{name: (C,)}`` -> overall's shape."""
        if self._cf is None:
            first = {name: _flat(v)[0] for name, v in values.items()}
            first = {name: np.float64(v) if np.ndim(v) == 0 else v for name, v in first.items()}  # as MetricFrame
            if self._single:
                return next(iter(first.values()))
            return pd.Series(first, dtype=None if all(np.ndim(v) == 0 for v in first.values()) else object)
        frame = pd.DataFrame({name: _flat(v) for name, v in values.items()}, index=self._cf.index())
        return frame.iloc[:, 0].rename(next(iter(values))) if self._single else frame

    # ------------------------------------------------------------------------------------------------ MetricFrame
    @property
    def overall(self) -> Any:
        """The metrics on all rows (per control level), from the release (exact under ``"sensitive_attribute"``
        with ``public_predictions=True``, where they depend on public data only).
        """
        return self._overall_shape(self._overall_values)

    @property
    def by_group(self) -> pd.Series | pd.DataFrame:
        """The metrics per group (and control level), from the release."""
        return self._frame(self._by_group_values)

    @property
    def sensitive_levels(self) -> list[str]:
        """The names of the sensitive features: the levels of :attr:`by_group`'s index that they make."""
        return list(self._sf.names)

    @property
    def control_levels(self) -> list[str] | None:
        """The names of the control features (None without them)."""
        return None if self._cf is None else list(self._cf.names)

    @property
    def ci_quantiles(self) -> list[float] | None:
        """The quantiles of the intervals, as given (None: no intervals)."""
        return None if self._ci_quantiles is None else list(self._ci_quantiles)

    @property
    def n_boot(self) -> int | None:
        """The number of Monte-Carlo draws of the intervals (None: no intervals)."""
        return self._n_boot

    def group_max(self, errors: str = "raise") -> Any:
        """Largest value over the groups (per control level)."""
        return self._overall_shape(self._reduce(self._scalars(errors), "max"))

    def group_min(self, errors: str = "raise") -> Any:
        """Smallest value over the groups (per control level)."""
        return self._overall_shape(self._reduce(self._scalars(errors), "min"))

    def difference(self, method: str = "between_groups", errors: str = "coerce") -> Any:
        """Largest difference between groups, or to the overall value (``method``), from the release."""
        by_group = self._scalars(errors)
        return self._overall_shape(self._compare(by_group, self._scalars("coerce", self._overall_values),
                                                 check_choice(method, "method", _METHODS), "difference"))

    def ratio(self, method: str = "between_groups", errors: str = "coerce") -> Any:
        """Smallest ratio between groups, or to the overall value (``method``), from the release."""
        by_group = self._scalars(errors)
        return self._overall_shape(self._compare(by_group, self._scalars("coerce", self._overall_values),
                                                 check_choice(method, "method", _METHODS), "ratio"))

    def _scalars(self, errors, values=None):
        """The values with each array-valued metric (``confusion_matrix``) as NaN (``errors="coerce"``), or
        MetricFrame's ``ValueError`` (``errors="raise"``).
        """
        check_choice(errors, "errors", _ERRORS)
        values = self._by_group_values if values is None else values
        arrays = [name for name, m in self._metrics.items() if isinstance(m, CellMetric) and not m.scalar]
        if arrays and errors == "raise":
            raise ValueError("Metric frame contains non-scalar cells. Please remove non-scalar columns from your "
                             "metric frame or use parameter errors='coerce'.")
        return {name: np.full(v.shape, np.nan) if name in arrays else v for name, v in values.items()}

    # ------------------------------------------------------------------------------------------------ intervals
    @property
    def by_group_ci(self) -> list:
        """Intervals for :attr:`by_group`, one table per quantile in ``ci_quantiles`` (method: ``ci_method``)."""
        self._check_intervals()
        return [self._frame(v) for v in self._percentiles(self._draws[0])]

    @property
    def overall_ci(self) -> list:
        """Intervals for :attr:`overall`, one per quantile."""
        self._check_intervals()
        return [self._overall_shape(v) for v in self._percentiles(self._draws[1])]

    def group_max_ci(self) -> list:
        """Intervals for :meth:`group_max`, one per quantile (simultaneous group intervals: ``ci_method``)."""
        return self._aggregate_ci("max", None)

    def group_min_ci(self) -> list:
        """Intervals for :meth:`group_min`, one per quantile."""
        return self._aggregate_ci("min", None)

    def difference_ci(self, method: str = "between_groups") -> list:
        """Intervals for :meth:`difference`, one per quantile (simultaneous group intervals: ``ci_method``)."""
        return self._aggregate_ci("difference", check_choice(method, "method", _METHODS))

    def ratio_ci(self, method: str = "between_groups") -> list:
        """Intervals for :meth:`ratio`, one per quantile."""
        return self._aggregate_ci("ratio", check_choice(method, "method", _METHODS))

    def _check_intervals(self):
        """MetricFrame's error when the frame was built without intervals (``n_boot=None, ci_quantiles=None``)."""
        if self._draws is None:
            raise ValueError(BOOTSTRAP_NOT_INITIALIZED)

    def _aggregate_ci(self, what, method):
        self._check_intervals()
        group_draws, overall_draws = self._draws
        bounds = {name: aggregate_bounds(what, method, group_draws[name], overall_draws[name], self._ci_quantiles,
                                         presorted=True) for name in self._metrics}
        return [self._overall_shape({name: bounds[name][i] for name in self._metrics})
                for i in range(len(self._ci_quantiles))]

    def _percentiles(self, draws):
        """Percentile bounds ``Q_q(draws)``, one ``{name: values}`` per quantile: for a cell's own value, whose
        draws respect the range of the post-processed table (a rate stays in [0, 1] even where a count was
        projected onto 0).
        """
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)                  # all-NaN cells stay NaN
            per_metric = {name: nanquantile_draws(values, list(self._ci_quantiles), presorted=True)
                          for name, values in draws.items()}
            return [{name: values[i] for name, values in per_metric.items()} for i in range(len(self._ci_quantiles))]

    @staticmethod
    def _reduce(values, how):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return {name: (np.nanmax if how == "max" else np.nanmin)(v, axis=-1) for name, v in values.items()}

    @staticmethod
    def _compare(by_group, overall, method, how):
        out = {}
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            for name, values in by_group.items():
                if method == "between_groups":
                    high, low = np.nanmax(values, axis=-1), np.nanmin(values, axis=-1)
                    out[name] = high - low if how == "difference" else np.where(high > 0, low / high, np.nan)
                else:
                    reference = overall[name][..., None]
                    if how == "difference":
                        out[name] = np.nanmax(np.abs(values - reference), axis=-1)
                    else:
                        ratios = np.minimum(values / reference, reference / values)
                        out[name] = np.nanmin(np.where(np.isfinite(ratios), ratios, np.nan), axis=-1)
        return out

    def __repr__(self) -> str:
        unreadable = self._unreadable_labels()
        width = (f", unreadable at max_noise_error={self._max_noise_error:g}: {unreadable}" if unreadable else "")
        return (f"DPMetricFrame(metrics={list(self._metrics)}, privacy_unit={self._unit!r}, "
                f"privacy_spent={self.privacy_spent_}{width})")


#: The keyword arguments of :func:`frame_of_release` passed on as they are (the release's own are popped first).
_VIEW_ARGUMENTS = frozenset({"delta", "groups", "bounds", "privacy_unit", "accountant", "random_state", "n_boot",
                             "ci_quantiles"})


def frame_of_release(release: SharedRelease, *, frame_class: type | None = None, metrics: Any, y_pred: Any,
                     y_true: Any = None, sensitive_features: Any = None, control_features: Any = None,
                     sample_params: dict | None = None, epsilon: float = 1.0, options: MetricFrameOptions | None = None,
                     **arguments: Any) -> DPMetricFrame:
    """A :class:`DPMetricFrame` (or ``frame_class``) read from ``release`` (a :class:`DPReport`; no charge, no data
    read): what :meth:`DPReport.metric_frame` and the ``dp_*`` aggregates with ``release=report`` build. The
    release's own arguments (``delta``, ``groups``, ``bounds``, ``privacy_unit``, ``accountant``, the options'
    ``labels``, ``public_predictions`` and ``weight_bound``) must be left out (a ``ValueError`` names them).
    """
    options = _check_options(options)
    frame_class = frame_class or DPMetricFrame
    unknown = sorted(set(arguments) - _VIEW_ARGUMENTS)
    if unknown:                                 # as the constructor refuses them (not _build's duplicate keywords)
        raise TypeError(f"DPMetricFrame() got unexpected keyword arguments {unknown}; the expert "
                        "settings go in options=MetricFrameOptions(...).")
    frame = frame_class.__new__(frame_class)
    frame._build(metrics=metrics, y_true=y_true, y_pred=y_pred, sensitive_features=sensitive_features,
                 control_features=control_features, sample_params=sample_params, epsilon=epsilon,
                 delta=arguments.pop("delta", 0.0), groups=arguments.pop("groups", None), control_groups=None,
                 bounds=arguments.pop("bounds", None), labels=options.labels,
                 privacy_unit=arguments.pop("privacy_unit", "sensitive_attribute"),
                 public_predictions=options.public_predictions, accountant=arguments.pop("accountant", None),
                 max_noise_error=options.max_noise_error, weight_bound=options.weight_bound, release=release,
                 **arguments)
    return frame
