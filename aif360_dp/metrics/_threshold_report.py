"""``DPThresholdReport``: one release for every threshold of a score, read by many ``DPClassificationMetric`` views.

AIF360's threshold sweeps (its demo notebooks) set ``classified_dataset.labels = scores > t`` for many public
thresholds ``t`` and build one ``ClassificationMetric`` per threshold: one release each. Every one of those confusion
tables is a function of one histogram: the number of rows per (declared intersection of protected-attribute values,
score interval between consecutive thresholds, true label). :class:`DPThresholdReport` releases that histogram once
(through :func:`fairlearn_dp.metrics._frame_release.release_table`, the one home of a count table's release), and
``DPClassificationMetric(dataset, classified_dataset, ..., release=report, threshold=t)`` reads threshold ``t``'s
confusion counts as cumulative sums of it: post-processing, no charge.

Sensitivity: each row adds the one-hot vector of its (intersection, interval, true label) bin; a changed row (one
person's protected attributes, with their score, under ``"sensitive_attribute"``; one substituted row under
``"record"``) removes one unit from one bin and adds one to another: L1 2, L2 ``sqrt(2)``, whatever the number of
thresholds. Derivation: docs/privacy_analysis/aif360_metrics.md ("One release for a threshold sweep").

A view is matched to the report by object identity of the two datasets and by its declared ``threshold`` (one of
the report's public thresholds), never by reading the view's labels or scores (private under ``"record"``: whether
they match would itself be a release).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from aif360.datasets import BinaryLabelDataset
from aif360.datasets.multiclass_label_dataset import MulticlassLabelDataset
from diffprivlib import BudgetAccountant
from numpy.typing import ArrayLike
from sklearn.isotonic import isotonic_regression

from fairlearn_dp._utils import check_bool, check_choice, check_seed
from fairlearn_dp.metrics._frame_release import release_table
from fairlearn_dp.metrics._release_views import note_release, reference
from fairlearn_dp.privacy import PrivacySpend
from fairlearn_dp.privacy._accountant import charge, check_spend, resolve_accountant, validate_epsilon_delta
from fairlearn_dp.privacy._post_release import issue_warnings_after_release
from fairlearn_dp.privacy._projection import project_onto_nonnegative_sum
from fairlearn_dp.privacy._random import release_seeds

from ._checks import _binary_labels, _check_same_rows, _check_schema, _row_weights
from ._inequality import dataset_intersections, declared_intersections

__all__ = ["DPThresholdReport"]

_UNITS = ("sensitive_attribute", "record")


class DPThresholdReport:
    """One differentially private release for every public threshold of a score, read by many metric views.

    Releases, once, the histogram of the rows over (declared intersection of protected-attribute values, score
    interval between consecutive ``thresholds``, true label) and charges ``(epsilon, delta)`` once. A
    :class:`DPClassificationMetric` built with ``release=report, threshold=t`` on the same two dataset objects
    answers every method for the predictions ``scores > t`` (AIF360's demos' rule) from cumulative sums of the
    released histogram, with any group definitions: no further charge.

    Parameters
    ----------
    dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
        The true labels; ``instance_weights`` all 1.
    classified_dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
        The same instances with the ``scores`` (one finite column; any range) the thresholds apply to. Its labels
        are not read.
    thresholds : array-like of float
        The public thresholds (finite; sorted and made unique). A view's ``threshold`` must be one of them.
    epsilon, delta : float
        The budget of the one release (``numpy.inf``: exact).
    privacy_unit : {"sensitive_attribute", "record"}, default="sensitive_attribute"
        What neighbouring datasets differ in (as in :class:`DPClassificationMetric`).
    public_predictions : bool, default=False
        True declares the scores (hence every threshold's predictions) independent of the protected attributes,
        so each (interval, true label) total is public under ``"sensitive_attribute"``.
    accountant : diffprivlib.BudgetAccountant, optional
        Charged ``(epsilon, delta)`` once.
    random_state : None, int or numpy.random.RandomState
        Seeds the release (experiments only). None: a secure source.

    Attributes
    ----------
    thresholds_ : numpy.ndarray
        The sorted unique thresholds ``t_0 < ... < t_{T-1}``; interval ``j`` holds the scores ``s`` with
        ``t_{j-1} < s <= t_j`` (``T + 1`` intervals).
    noisy_counts_ : numpy.ndarray of shape (n_intersections, T + 1, 2)
        The release itself (last axis: unfavorable, favorable true label).
    released_below_ : numpy.ndarray of shape (n_intersections, T, 2)
        Post-processed: per intersection, threshold ``t_k`` and true label, the rows predicted unfavorable
        (``score <= t_k``); non-negative, non-decreasing in ``k`` and at most ``released_totals_``.
    released_totals_ : numpy.ndarray of shape (n_intersections, 2)
        Post-processed: the rows per intersection and true label, adding up to the public totals.
    privacy_spent_ : PrivacySpend
        The one charge.
    noise_scale_, noise_sd_ : float
        The mechanism's scale and standard deviation per histogram bin (Laplace ``2 / epsilon``).
    epsilon : float
        The release's epsilon (a view may repeat it).

    Privacy
    -------
    A changed row moves one unit between two bins of the histogram: L1 2, L2 ``sqrt(2)`` for any number of
    thresholds; one charge. A view's count at threshold ``t_k`` is the sum of ``k + 1`` (predicted unfavorable)
    or ``T - k`` (favorable) bins, so its noise before post-processing is the sum of that many independent draws
    (not a single Laplace draw). Post-processing (isotonic regression of the cumulative sums in the threshold,
    clipping, totals projected onto the public ones) makes every view's counts non-negative, monotone in the
    threshold and within those totals.
    Derivation: docs/privacy_analysis/aif360_metrics.md ("One release for a threshold sweep").

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from aif360.datasets import BinaryLabelDataset
    >>> from diffprivlib import BudgetAccountant
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(1000) < 0.5).astype(float)
    >>> y = (rng.random(1000) < 0.3 + 0.2 * a).astype(float)
    >>> data = BinaryLabelDataset(df=pd.DataFrame({"a": a, "y": y}), label_names=["y"],
    ...                           protected_attribute_names=["a"])
    >>> from aif360_dp.metrics import DPClassificationMetric
    >>> scored = data.copy()
    >>> scored.scores = (0.3 * y + 0.7 * rng.random(1000)).reshape(-1, 1)
    >>> report = DPThresholdReport(data, scored, thresholds=[0.25, 0.5, 0.75], epsilon=1.0,
    ...                            accountant=BudgetAccountant(), random_state=0)
    >>> report.privacy_spent_
    PrivacySpend(epsilon=1.0, delta=0.0, rho=None)
    >>> view = DPClassificationMetric(data, scored, [{"a": 0}], [{"a": 1}], release=report, threshold=0.5)
    >>> view.privacy_spent_                           # a view of the report: no further charge
    PrivacySpend(epsilon=0.0, delta=0.0, rho=None)
    >>> bool(abs(view.accuracy() - np.mean((scored.scores.ravel() > 0.5) == y)) < 0.05)
    True
    """

    @issue_warnings_after_release(result="self")
    def __init__(self, dataset: BinaryLabelDataset | MulticlassLabelDataset,
                 classified_dataset: BinaryLabelDataset | MulticlassLabelDataset, thresholds: ArrayLike, *,
                 epsilon: float = 1.0, delta: float = 0.0, privacy_unit: str = "sensitive_attribute",
                 public_predictions: bool = False, accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        # 1. public parameters and the datasets' schema (a typo never costs epsilon)
        epsilon, delta = validate_epsilon_delta(epsilon, delta)
        self.privacy_unit = check_choice(privacy_unit, "privacy_unit", _UNITS)
        self.public_predictions = check_bool(public_predictions, "public_predictions")
        check_seed(random_state)
        self.thresholds_ = _check_thresholds(thresholds)
        accountant = resolve_accountant(accountant)
        _check_schema(dataset, classified_dataset, {})
        self._intersections = declared_intersections(dataset)                  # public metadata
        # 2. the budget, before any row is read
        spend = PrivacySpend(epsilon, delta) if not math.isinf(epsilon) else PrivacySpend(math.inf, 0.0)
        check_spend(accountant, spend)
        # 3. the rows (domain checks, no value quoted) and the exact histogram
        exact = self._histogram(dataset, classified_dataset)
        # 4. one release, one charge
        self.noisy_counts_, self.noise_scale_, self.noise_sd_ = release_table(
            exact, l1=2.0, l2=math.sqrt(2.0), epsilon=epsilon, delta=delta,
            random_state=release_seeds(random_state, 1)[0])
        self.privacy_spent_ = charge(accountant, spend)
        note_release("DPThresholdReport", dataset, dataset, spend)
        # 5. post-processing: released values and public totals only
        self.released_below_, self.released_totals_ = _post_process(self.noisy_counts_, exact, self.privacy_unit,
                                                                    self.public_predictions)
        self.epsilon = epsilon
        self._dataset, self._classified = reference(dataset), reference(classified_dataset)

    def _histogram(self, dataset, classified_dataset):
        """The exact ``(intersections, T + 1, 2)`` counts."""
        _check_same_rows(dataset, classified_dataset)
        y_true = _binary_labels(dataset, "dataset")
        _row_weights(dataset, "dataset", None, classified_dataset)            # all 1 (a weighted sweep: not yet)
        scores = np.asarray(classified_dataset.scores, dtype=float)
        if scores.ndim != 2 or scores.shape[1] != 1 or scores.shape[0] != y_true.shape[0]:
            raise ValueError("classified_dataset.scores must have one column and one row per instance.")
        if not np.all(np.isfinite(scores)):
            raise ValueError("classified_dataset.scores must be finite (NaN or infinite scores are refused).")
        interval = np.searchsorted(self.thresholds_, scores.ravel(), side="left")     # #{t < s}: s > t_k iff k < j
        cells = dataset_intersections(dataset, self._intersections)
        width = len(self.thresholds_) + 1
        index = (cells * width + interval) * 2 + y_true
        shape = (len(self._intersections), width, 2)
        return np.bincount(index, minlength=int(np.prod(shape))).reshape(shape).astype(float)

    def threshold_counts(self, dataset: BinaryLabelDataset | MulticlassLabelDataset,
                         classified_dataset: BinaryLabelDataset | MulticlassLabelDataset,
                         threshold: float) -> SimpleNamespace:
        """The released confusion counts of threshold ``threshold``, per declared intersection (post-processing).

        Refuses, before reading anything, datasets that are not the report's objects or a threshold that is not
        one of ``thresholds_`` (public facts only).

        Parameters
        ----------
        dataset, classified_dataset : aif360.datasets.BinaryLabelDataset or MulticlassLabelDataset
            The very objects the report was built from (object identity; nothing of them is read).
        threshold : float
            One of ``thresholds_``: the predictions are ``scores > threshold``.

        Returns
        -------
        types.SimpleNamespace
            ``counts`` (the post-processed ``(n_intersections, 4)`` table ``tn, fp, fn, tp``), ``raw`` (the same
            sums of the raw release, before post-processing), ``threshold`` (the report's float) and ``noise_sd``
            (the largest standard deviation of a raw count: ``sqrt(m)`` times a bin's for a sum of ``m`` bins).
        """
        for value, ref, name in ((dataset, self._dataset, "dataset"),
                                 (classified_dataset, self._classified, "classified_dataset")):
            if ref is None or ref() is not value:
                raise ValueError(f"{name} is not the object the release (DPThresholdReport) was built from: a view "
                                 "reads the release, so it takes the very same dataset objects (a copy, even equal, "
                                 "would need reading its rows to compare).")
        k = self._threshold_index(threshold)
        # a count below t_k sums the bins 0..k (k + 1 of them), above it the other T - k
        raw = np.cumsum(self.noisy_counts_, axis=1)
        return SimpleNamespace(counts=_confusion(self.released_below_[:, k, :], self.released_totals_),
                               raw=_confusion(raw[:, k, :], raw[:, -1, :]),
                               threshold=float(self.thresholds_[k]),
                               noise_sd=self.noise_sd_ * math.sqrt(max(k + 1, len(self.thresholds_) - k)))

    def _threshold_index(self, threshold):
        if threshold is None:
            raise ValueError("threshold is required with release=DPThresholdReport: the threshold t of this view "
                             "(its predictions are scores > t), one of the report's thresholds_.")
        if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, float, np.integer,
                                                                                  np.floating)):
            raise TypeError(f"threshold must be a real number, got {type(threshold).__name__}.")
        found = np.flatnonzero(self.thresholds_ == float(threshold))
        if found.size == 0:
            raise ValueError(f"threshold={float(threshold)!r} is not one of the report's thresholds_ (it released "
                             f"{len(self.thresholds_)} thresholds from {self.thresholds_[0]:g} to "
                             f"{self.thresholds_[-1]:g}): pass one of them exactly, or build a report with it.")
        return int(found[0])

    def __repr__(self) -> str:
        return (f"DPThresholdReport(n_thresholds={len(self.thresholds_)}, privacy_unit={self.privacy_unit!r}, "
                f"privacy_spent={self.privacy_spent_})")


def _confusion(below, total):
    """``(tn, fp, fn, tp)`` per intersection from the counts predicted unfavorable (``below``, per true label) and
    the totals per true label.
    """
    return np.column_stack([below[:, 0], total[:, 0] - below[:, 0], below[:, 1], total[:, 1] - below[:, 1]])


def _check_thresholds(thresholds):
    """The sorted unique finite thresholds; a ``TypeError``/``ValueError`` naming ``thresholds``."""
    if isinstance(thresholds, (str, bytes)) or np.ndim(thresholds) != 1:
        raise ValueError("thresholds must be a 1-D array-like of real numbers.")
    try:
        values = np.asarray(thresholds, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("thresholds must be real numbers.") from None
    if values.size == 0 or not np.all(np.isfinite(values)) or np.asarray(thresholds).dtype == bool:
        raise ValueError("thresholds must be a non-empty array of finite real numbers.")
    return np.unique(values)


def _project(vectors, totals):
    """Each row onto ``{v >= 0, sum v = total}`` (zeros for a zero total)."""
    out = np.zeros_like(vectors)
    positive = totals > 0
    if positive.any():
        out[positive] = project_onto_nonnegative_sum(vectors[positive], totals[positive])
    return out


def _post_process(noisy, exact, unit, public_predictions):
    """``(below, totals)``: per (intersection, threshold, true label) the rows predicted unfavorable, and per
    (intersection, true label) the rows; non-negative, monotone in the threshold, ``below <= totals``, and the totals
    adding up to the public totals. Only public sums of ``exact`` are read: under ``"sensitive_attribute"`` each
    true label's count (with ``public_predictions``, each (interval, true label) count); under ``"record"`` ``n``.

    With ``public_predictions`` every (interval, label) vector over the intersections is projected onto its public
    sum, and the views are cumulative sums of that histogram. Otherwise the histogram is not projected bin by bin
    (with many near-empty bins, moving the clipped mass back onto the populated ones would bias every cumulative
    sum); the raw cumulative sums are fitted by isotonic regression in the threshold and clipped into
    ``[0, total]``, the totals being projected onto the public sums.
    """
    if unit == "sensitive_attribute" and public_predictions:     # per (interval, label): a vector over intersections
        moved = np.moveaxis(noisy, 0, -1).reshape(-1, noisy.shape[0])
        histogram = np.moveaxis(_project(moved, exact.sum(axis=0).reshape(-1)).reshape(noisy.shape[1:] + noisy.shape[:1]),
                                -1, 0)
        return np.cumsum(histogram, axis=1)[:, :-1, :], histogram.sum(axis=1)
    cumulative = np.cumsum(noisy, axis=1)
    raw_totals = cumulative[:, -1, :]
    if unit == "record":
        totals = _project(raw_totals.reshape(1, -1), exact.sum(keepdims=True).reshape(1)).reshape(raw_totals.shape)
    else:                                                        # per true label: a vector over intersections
        totals = _project(raw_totals.T, exact.sum(axis=(0, 1))).T
    below = np.empty(cumulative[:, :-1, :].shape)
    for cell in range(below.shape[0]):
        for label in range(2):
            fitted = isotonic_regression(cumulative[cell, :-1, label], increasing=True)
            below[cell, :, label] = np.clip(fitted, 0.0, totals[cell, label])
    return below, totals
