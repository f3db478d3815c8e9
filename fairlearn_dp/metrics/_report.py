"""``DPReport``: one private release of the confusion tables of one or more models, read by many views.

A report is usually many views -- frames, aggregates, several metrics, several models -- of one table of (control
level, group, true label, prediction) counts. :class:`DPReport` releases that table once for every compared model
and charges the accountant once; :meth:`DPReport.metric_frame` and the ``dp_*`` aggregates with
``release=report`` read it without charging (post-processing).

Release. With ``M`` models the release is the ``M`` per-model tables ``(M, C, G, K)`` (``K = 4``, or ``k^2`` with
``k`` declared classes), stacked and released in one call. One changed row (either privacy unit) moves one unit
between two cells of each model's table: ``M`` pairs of unit vectors, L1 ``2M``, L2 ``sqrt(2M)``
(:func:`._frame_release.sensitivities` with ``n_tables=M``). Every count of every model then has the Laplace noise
of scale ``2M / epsilon`` (for one model: a frame's ``2 / epsilon``), so each model's table has exactly the noise
law of a standalone frame at that scale, and the frame's intervals and ``noise_error_`` apply unchanged. (The joint
table of ``(y, y_pred_1, ..., y_pred_M)`` has L1 2 but ``2^(M+1)`` cells per group; a model's marginal is then a sum
of ``2^(M-1)`` Laplace variables, whose law the frame's Monte-Carlo would have to model: see
docs/privacy_analysis/metric_frame.md, "One release for a report".)

Views match the release by object identity and a second release over the same rows warns (:mod:`._release_views`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._utils._validation import validate_params
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, check_spend, resolve_accountant, validate_epsilon_delta
from ..privacy._post_release import warnings_after_release
from ..privacy._random import release_seeds
from ._dp_metric_frame import DPMetricFrame, frame_of_release
from ._frame_checks import PARAMETERS as _PARAMETERS
from ._frame_checks import MetricFrameOptions, check_dask_levels, check_names
from ._frame_counting import count_frame
from ._frame_inputs import check_declared_levels, feature_columns, resolve_levels
from ._frame_release import post_process, public_totals, release_cells
from ._release_views import SINGLE_MODEL, SharedRelease, identity, note_release, reference

if TYPE_CHECKING:
    from diffprivlib import BudgetAccountant

__all__ = ["DPReport"]

class DPReport(SharedRelease):
    """One differentially private release of the confusion tables of one or more models, read by many views.

    Builds the per-(control level, group) confusion counts of every model in ``y_pred``, releases them in one call
    and charges ``(epsilon, delta)`` once. Every view -- :meth:`metric_frame` and the ``dp_*`` aggregates with
    ``release=self`` -- is post-processing of that release: no further charge.

    Parameters
    ----------
    y_true : array-like
        Labels (0/1, or the declared ``labels``).
    y_pred : array-like or dict of str to array-like
        The predictions of one model, or ``{model name: predictions}`` for several compared models.
    sensitive_features : array-like, Series, DataFrame or dict
        As in :class:`DPMetricFrame`.
    control_features : same types, optional
        As in :class:`DPMetricFrame`.
    epsilon, delta : float
        The budget of the one release (``numpy.inf``: exact).
    groups, privacy_unit, accountant, random_state
        As in :class:`DPMetricFrame` (``groups`` the sensitive features' levels only).
    control_groups : list or dict, optional
        The public levels of the control feature(s) (``DPMetricFrame`` takes them in ``groups``).
    labels, public_predictions
        As :class:`MetricFrameOptions`'s fields (``public_predictions`` declares every model's predictions
        independent of the sensitive features).

    Attributes
    ----------
    models_ : list of str
        The model names (``["y_pred"]`` for a single array).
    noisy_counts_ : numpy.ndarray of shape (n_models, n_control_levels, n_groups, n_columns)
        The release itself.
    privacy_spent_ : PrivacySpend
        The one charge.
    noise_scale_, noise_sd_ : float
        The mechanism's scale per count (Laplace ``2 M / epsilon`` for ``M`` models) and its standard deviation.

    Privacy
    -------
    One changed row moves one unit between two cells of each of the ``M`` models' tables: L1 ``2M``, L2
    ``sqrt(2M)``; one charge. Views match the release by object identity (no data read); a second release over the
    same objects warns. Derivation: docs/privacy_analysis/metric_frame.md ("One release for a report").

    Examples
    --------
    Two models compared from one release of their confusion tables:

    >>> import numpy as np
    >>> from diffprivlib import BudgetAccountant
    >>> from fairlearn.metrics import selection_rate
    >>> from fairlearn_dp.metrics import DPReport, dp_demographic_parity_difference
    >>> rng = np.random.default_rng(0)
    >>> sex = rng.choice(["female", "male"], 5000)
    >>> y_true = rng.integers(0, 2, 5000)
    >>> y_pred = {"fair": (rng.random(5000) < 0.5).astype(int),
    ...           "unfair": (rng.random(5000) < np.where(sex == "male", 0.6, 0.4)).astype(int)}
    >>> report = DPReport(y_true, y_pred, sensitive_features=sex, epsilon=1.0, groups=["female", "male"],
    ...                   accountant=BudgetAccountant(), random_state=0)
    >>> report.models_, report.privacy_spent_, report.noisy_counts_.shape
    (['fair', 'unfair'], PrivacySpend(epsilon=1.0, delta=0.0, rho=None), (2, 1, 2, 4))
    >>> gap = dp_demographic_parity_difference(y_true, y_pred["unfair"], sensitive_features=sex, release=report)
    >>> bool(abs(gap - 0.2) < 0.05)                   # no further charge: read from the report's release
    True
    >>> frame = report.metric_frame({"selection_rate": selection_rate}, model="fair")
    >>> frame.by_group.shape, bool((abs(frame.by_group["selection_rate"] - 0.5) < 0.05).all())
    ((2, 1), True)
    """

    def __init__(self, y_true: ArrayLike, y_pred: ArrayLike | dict[str, ArrayLike], *,
                 sensitive_features: ArrayLike | dict[str, ArrayLike],
                 control_features: ArrayLike | dict[str, ArrayLike] | None = None, epsilon: float = 1.0,
                 delta: float = 0.0, groups: list | dict | None = None, control_groups: list | dict | None = None,
                 labels: Sequence | None = None, privacy_unit: str = "sensitive_attribute",
                 public_predictions: bool = False, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        # 1. public parameters, before the budget
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        public = SimpleNamespace(privacy_unit=privacy_unit, public_predictions=public_predictions, bounds=None,
                                 labels=labels, weight_bound=None)
        checked = validate_params(public, _PARAMETERS)
        self.privacy_unit, self.public_predictions, self.labels = (checked[k] for k in
                                                                   ("privacy_unit", "public_predictions", "labels"))
        declared = check_declared_levels(groups, "groups", minimum=2)
        declared_control = check_declared_levels(control_groups, "control_groups")
        predictions = _models(y_pred)
        accountant = resolve_accountant(accountant)
        sf_columns = feature_columns(sensitive_features, "sensitive_feature_")
        cf_columns = None if control_features is None else feature_columns(control_features, "control_feature_")
        check_names(sf_columns, cf_columns)
        for prediction in predictions.values():
            check_dask_levels(y_true, prediction, sf_columns, cf_columns, declared, declared_control)
        # 2. the budget, before the data are read
        spend = PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)
        check_spend(accountant, spend)
        # 3. levels and the counts of every model
        private = not math.isinf(epsilon)
        self._sf = resolve_levels(sf_columns, declared, "groups", private=private, owner="DPReport")
        self._cf = (None if cf_columns is None else
                    resolve_levels(cf_columns, declared_control, "control_groups",
                                   private=private and self.privacy_unit == "record", owner="DPReport"))
        tables = []
        for prediction in predictions.values():
            table, self._n = count_frame(y_true=y_true, y_pred=prediction, sf_columns=sf_columns, sf=self._sf,
                                         cf_columns=cf_columns, cf=self._cf, kind="classification", bounds=None,
                                         values=(), classes=self.labels)
            tables.append(table)
        exact = np.stack(tables)
        # 4. the one release, one charge
        with warnings_after_release() as release:
            release.result = self
            release_seed, _ = release_seeds(random_state, 2)
            self.noisy_counts_, self.noise_scale_, self.noise_sd_ = release_cells(
                exact, kind="classification", epsilon=epsilon, delta=delta, random_state=release_seed,
                n_tables=len(predictions))
            self.privacy_spent_ = charge(accountant, spend)
            note_release("DPReport", y_true, sensitive_features, spend)
            # 5. post-processing: each model's table onto its public totals (the exact tables' public sums)
            self.models_ = list(predictions)
            self._epsilon, self._delta = epsilon, delta
            self._tables = [post_process(noisy, kind="classification", unit=self.privacy_unit, n=self._n,
                                         totals=public_totals(table, kind="classification", unit=self.privacy_unit,
                                                              public_predictions=self.public_predictions),
                                         public_predictions=self.public_predictions)
                            for noisy, table in zip(self.noisy_counts_, exact, strict=False)]
            self._inputs = SimpleNamespace(y_true=reference(y_true), y_pred=[reference(p) for p in predictions.values()],
                                           sensitive_features=identity(sensitive_features),
                                           control_features=None if control_features is None else
                                           identity(control_features))

    def metric_frame(self, metrics: Any, *, model: str | None = None, sample_params: dict | None = None,
                     random_state: int | np.random.RandomState | None = None, n_boot: int | None = 1000,
                     ci_quantiles: Sequence[float] | None = (0.025, 0.975),
                     max_noise_error: float | None = None) -> DPMetricFrame:
        """A :class:`DPMetricFrame` of ``metrics`` for one model, read from this release (no charge).

        Parameters
        ----------
        metrics : callable or dict of str to callable
            As in :class:`DPMetricFrame` (classification metrics).
        model : str, optional
            The model's name in ``models_`` (None: the only model).
        sample_params, random_state, n_boot, ci_quantiles, max_noise_error
            As in :class:`DPMetricFrame` (``random_state`` seeds the interval draws only; ``sample_weight`` is
            not supported: the release is unweighted).

        Returns
        -------
        DPMetricFrame
            Its ``privacy_spent_`` is ``(0, 0)``; ``release_`` is this report.
        """
        return frame_of_release(self, metrics=metrics, y_pred=self.model_name(model), sample_params=sample_params,
                                random_state=random_state, n_boot=n_boot, ci_quantiles=ci_quantiles,
                                options=MetricFrameOptions(max_noise_error=max_noise_error))

    def __repr__(self) -> str:
        return f"DPReport(models={self.models_}, privacy_unit={self.privacy_unit!r}, privacy_spent={self.privacy_spent_})"


def _models(y_pred):
    """``{model name: predictions}`` (a single array: one model named ``"y_pred"``)."""
    if isinstance(y_pred, dict):
        if not y_pred:
            raise ValueError("y_pred is an empty dict: give at least one model's predictions.")
        if not all(isinstance(name, str) for name in y_pred):
            raise TypeError("y_pred's keys must be model names (str).")
        return dict(y_pred)
    return {SINGLE_MODEL: y_pred}
