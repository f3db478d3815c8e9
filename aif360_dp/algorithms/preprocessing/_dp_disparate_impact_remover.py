"""AIF360 face of the DP disparate-impact remover (Feldman et al. 2015 repair from one release of per-group
histograms on public ranges).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError

from fairlearn_dp._utils import (
    atomic_fit,
    check_dataset_features,
    check_real,
    check_seed,
    set_dataset_features,
    validate_params,
)
from fairlearn_dp.preprocessing._disparate_impact import DPDisparateImpactRepairer
from fairlearn_dp.privacy._post_release import warnings_after_release

from ..._glue import check_dataset, declared_groups

if TYPE_CHECKING:
    from aif360.datasets import StructuredDataset

__all__ = ["DPDisparateImpactRemover"]


def _check_name(value, name):
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string (an attribute name, or '' for the first protected attribute).")
    return value


def _check_mapping(value, name, *, allow_int=False):
    if allow_int and not isinstance(value, (Mapping, list, tuple)):
        return value                                # one int for every column: the engine checks it
    if not isinstance(value, Mapping) or not value:
        raise TypeError(f"{name} must be a dict {{feature name: ...}} with one entry per feature to repair{' (or one int)' if allow_int else ''} "
                        f"(public, never read from the data), got {type(value).__name__}.")
    return dict(value)


class DPDisparateImpactRemover(Transformer):
    """Differentially private disparate-impact remover, a drop-in for AIF360's ``DisparateImpactRemover``.

    AIF360's remover (BlackBoxAuditing's repairer) moves each feature's values towards the median, over the groups
    of ``sensitive_attribute``, of the groups' quantiles of their distinct values. Here each feature is binned on
    its public range (``feature_ranges``, ``n_bins``), the per-group histograms of all features are released once,
    and the same repair runs on the bins present in the release (a moved value becomes its target bin's centre).
    With ``epsilon=numpy.inf`` and bins that resolve every value (one value per bin, at its centre) the repaired
    features equal AIF360's. The computation is delegated to
    ``fairlearn_dp.preprocessing._disparate_impact.DPDisparateImpactRepairer``.

    Args:
        repair_level (float): repair amount in [0, 1] (0: none, 1: full), as in AIF360.
        sensitive_attribute (str): the protected attribute to repair by ('' : the dataset's first one), as in AIF360.
        epsilon (float): privacy budget (> 0; ``numpy.inf`` for the non-private repair).
        delta (float): 0 for pure DP (Laplace); > 0 for the analytic Gaussian mechanism.
        feature_ranges (dict): public ``{feature name: (low, high)}`` for every feature other than
            ``sensitive_attribute`` (values outside are clipped to the edge bins); required.
        n_bins (int or dict): bins per range (one for all features, or ``{feature name: int}``).
        min_count (float, optional): a bin is present in a group when its released count exceeds it (None: 0.5
            at ``epsilon=inf``, else 0.5 plus half a noise standard deviation).
        privacy_unit (str): "record" or "sensitive_attribute" (one person's protected attribute changed); the
            sensitivity is the same under both.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``.
        seed (int, optional): seeds the release (experiments only).

    Attributes:
        model_: the fitted engine (``noisy_histograms_``, ``targets_``, ``min_count_``).
        privacy_spent_ (PrivacySpend): what ``fit`` charged.

    Privacy: one record substituted (or one protected attribute changed), ``n`` public. Released: the
    (group x bin) histogram of each of the ``d`` repaired features, all in one release; L1 sensitivity ``2d``, L2
    ``sqrt(2d)``; Laplace of scale ``2d / epsilon`` per cell (or the analytic Gaussian). The groups are the
    dataset's declared privileged and unprivileged values of ``sensitive_attribute``, never read from rows. The
    repair map is post-processing; the guarantee covers it, not the repaired rows a transform returns (each is a
    private row moved by the map), nor a model trained on them. ``instance_weights`` are not read (as in AIF360).
    Failure paths: parameters, the dataset's schema and the budget before any row; NaN features and values of the
    attribute outside its declared groups are domain errors without values. Derivation:
    docs/privacy_analysis/preprocessing.md.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from aif360.datasets import BinaryLabelDataset
        >>> from diffprivlib import BudgetAccountant
        >>> frame = pd.DataFrame({"a": [0.0] * 4 + [1.0] * 6, "x": [0, 1, 2, 3, 2, 4, 5, 6, 7, 8.0],
        ...                       "y": [1, 0, 0, 0, 1, 1, 1, 0, 1, 0.0]})
        >>> data = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])
        >>> remover = DPDisparateImpactRemover(epsilon=np.inf, feature_ranges={"x": (-0.5, 9.5)}, n_bins=10,
        ...                                    accountant=BudgetAccountant())
        >>> remover.fit_transform(data).features[:, 1]       # one integer per bin: AIF360's repair
        array([0., 1., 2., 3., 0., 0., 1., 2., 3., 3.])
    """

    def __init__(self, repair_level: float = 1.0, sensitive_attribute: str = "", *, epsilon: float = 1.0,
                 delta: float = 0.0, feature_ranges: dict[str, tuple[float, float]] | None = None,
                 n_bins: int | dict[str, int] = 10, min_count: float | None = None, privacy_unit: str = "record",
                 accountant: Any = None, seed: int | None = None) -> None:
        super().__init__(repair_level=repair_level, sensitive_attribute=sensitive_attribute, epsilon=epsilon,
                         delta=delta, feature_ranges=feature_ranges, n_bins=n_bins, min_count=min_count,
                         privacy_unit=privacy_unit, accountant=accountant, seed=seed)
        self.repair_level = repair_level
        self.sensitive_attribute = sensitive_attribute
        self.epsilon = epsilon
        self.delta = delta
        self.feature_ranges = feature_ranges
        self.n_bins = n_bins
        self.min_count = min_count
        self.privacy_unit = privacy_unit
        self.accountant = accountant
        self.seed = seed

    def _layout(self, dataset):
        """The public schema: the attribute to repair by, the columns to repair, their ranges and bins."""
        check_dataset(dataset)
        attribute = self.sensitive_attribute or (dataset.protected_attribute_names[0]
                                                 if dataset.protected_attribute_names else None)
        if attribute not in dataset.protected_attribute_names or attribute not in dataset.feature_names:
            raise ValueError(f"sensitive_attribute {attribute!r} must be a protected attribute and a feature of "
                             "dataset.")
        columns = [name for name in dataset.feature_names if name != attribute]
        ranges, bins = self.feature_ranges, self.n_bins
        for name, table in (("feature_ranges", ranges), ("n_bins", bins)):
            if isinstance(table, Mapping) and set(table) != set(columns):
                missing, extra = sorted(set(columns) - set(table)), sorted(set(table) - set(columns))
                raise ValueError(f"{name} must have one entry per feature to repair: missing {missing}, not features "
                                 f"(or the sensitive attribute) {extra}.")
        engine_bins = [bins[name] for name in columns] if isinstance(bins, Mapping) else bins
        # A pair as a tuple; anything else as given, for the engine to refuse by name.
        pairs = [tuple(ranges[name]) if isinstance(ranges[name], Iterable) else ranges[name] for name in columns]
        return attribute, columns, pairs, engine_bins

    def _engine(self, ranges, bins, n_groups):
        return DPDisparateImpactRepairer(repair_level=self.repair_level, feature_ranges=ranges, n_bins=bins,
                                         n_groups=n_groups, min_count=self.min_count, epsilon=self.epsilon,
                                         delta=self.delta, privacy_unit=self.privacy_unit,
                                         accountant=self.accountant, random_state=self.seed)

    def _check_face_params(self):
        validate_params(self, {"repair_level": functools.partial(check_real, low=0.0, high=1.0),
                               "sensitive_attribute": _check_name, "seed": check_seed,
                               "feature_ranges": _check_mapping,
                               "n_bins": functools.partial(_check_mapping, allow_int=True)})

    def _arrays(self, dataset, attribute, columns, groups):
        """The columns to repair and each row's group code (a domain error for an undeclared value)."""
        values = np.asarray(dataset.protected_attributes, dtype=float)[
            :, dataset.protected_attribute_names.index(attribute)]
        codes = np.full(values.shape[0], -1)
        for code, value in enumerate(groups):
            codes[values == value] = code
        if (codes < 0).any():
            raise ValueError(f"dataset has values of {attribute!r} outside its declared privileged and "
                             "unprivileged values (the public groups).")
        X = np.asarray(dataset.features, dtype=float)[:, [dataset.feature_names.index(c) for c in columns]]
        return X, codes

    @atomic_fit
    def fit(self, dataset: StructuredDataset) -> DPDisparateImpactRemover:
        """Release the per-group histograms once and build the repair map.

        Args:
            dataset (BinaryLabelDataset): dataset to learn the repair from.

        Returns:
            DPDisparateImpactRemover: self.
        """
        with warnings_after_release() as release:
            self._check_face_params()
            self._check_engine_params()
            attribute, columns, ranges, bins = self._layout(dataset)
            groups = declared_groups(dataset, attribute)
            model = self._engine(ranges, bins, max(len(groups), 2))
            model.check_public_inputs()                         # every parameter and the budget: before the rows
            X, codes = self._arrays(dataset, attribute, columns, groups)
            self.model_ = model.fit(X, codes)
            self._fitted_layout = (attribute, columns, groups)
            set_dataset_features(self, dataset.feature_names)
            self.privacy_spent_ = model.privacy_spent_
            release.result = self
        return self

    def _check_engine_params(self):
        """The engine's own checks with placeholder ranges (the schema is not read yet), so that a bad epsilon or
        bin count is refused before the dataset's.
        """
        bins = self.n_bins if not isinstance(self.n_bins, Mapping) else list(self.n_bins.values())
        ranges = [(0.0, 1.0)] * (len(bins) if isinstance(bins, list) else 1)
        self._engine(ranges, bins, 2).check_public_inputs(check_budget=False)

    def transform(self, dataset: StructuredDataset) -> StructuredDataset:
        """Repair the dataset's features with the fitted map; the sensitive attribute's column is restored from
        the protected attributes, as AIF360 does.

        Args:
            dataset (BinaryLabelDataset): dataset to repair (same features as at fit).

        Returns:
            BinaryLabelDataset: the repaired copy.
        """
        if not hasattr(self, "model_"):
            raise NotFittedError("DPDisparateImpactRemover must be fitted before transform.")
        check_dataset(dataset)
        check_dataset_features(self, dataset.feature_names)
        attribute, columns, groups = self._fitted_layout
        X, codes = self._arrays(dataset, attribute, columns, groups)
        repaired = dataset.copy(deepcopy=True)
        features = np.array(dataset.features, dtype=np.float64)
        features[:, [dataset.feature_names.index(c) for c in columns]] = self.model_.transform(X, codes)
        features[:, dataset.feature_names.index(attribute)] = repaired.protected_attributes[
            :, repaired.protected_attribute_names.index(attribute)]
        repaired.features = features
        return repaired

    def fit_transform(self, dataset: StructuredDataset) -> StructuredDataset:
        """``fit`` then ``transform`` on the same dataset (AIF360's one method; one charge).

        Args:
            dataset (BinaryLabelDataset): dataset that needs repair.

        Returns:
            BinaryLabelDataset: the repaired dataset.
        """
        return self.fit(dataset).transform(dataset)
