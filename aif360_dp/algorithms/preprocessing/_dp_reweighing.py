"""AIF360 face of DP reweighing (Kamiran & Calders 2012 weights from one release of the (group, label) table)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from aif360.algorithms import Transformer
from aif360.algorithms.transformer import NotFittedError
from aif360.metrics import utils as aif360_utils

from fairlearn_dp._utils import atomic_fit, check_seed, validate_params
from fairlearn_dp.preprocessing._reweighing import DPReweighingWeights
from fairlearn_dp.privacy._post_release import warnings_after_release

from ..._glue import check_group_attributes
from ...metrics._checks import _binary_labels, _check_dataset_type, _check_disjoint, _check_groups, _row_weights

if TYPE_CHECKING:
    from aif360.datasets import BinaryLabelDataset

__all__ = ["DPReweighing"]

_PRIVILEGED, _UNPRIVILEGED, _NEITHER = 0, 1, 2       # rows of the released table


def _conditions(dataset, privileged_groups, unprivileged_groups):
    """Each row's condition: privileged, unprivileged or neither (AIF360's conditioning vectors)."""
    attributes, names = dataset.protected_attributes, dataset.protected_attribute_names
    cells = np.full(attributes.shape[0], _NEITHER)
    for code, groups in ((_PRIVILEGED, privileged_groups), (_UNPRIVILEGED, unprivileged_groups)):
        cells[aif360_utils.compute_boolean_conditioning_vector(attributes, names, groups)] = code
    return cells


class DPReweighing(Transformer):
    """Differentially private reweighing, a drop-in for AIF360's ``Reweighing``.

    AIF360's ``Reweighing`` gives every row of cell (group, label) the weight ``n_g n_y / (n n_{g,y})`` (Kamiran &
    Calders 2012), computed from the counts (or the sums of ``instance_weights``) of the (group, label) cells. Here
    the table of those counts -- privileged, unprivileged and neither group, by favourable / unfavourable label --
    is released once with Laplace (or Gaussian) noise and the four weights are computed from the release alone.
    With ``epsilon=numpy.inf`` the weights equal AIF360's. The computation is delegated to
    ``fairlearn_dp.preprocessing._reweighing.DPReweighingWeights``.

    Args:
        unprivileged_groups (list(dict)): representation for the unprivileged group, as in AIF360.
        privileged_groups (list(dict)): representation for the privileged group, as in AIF360.
        epsilon (float): privacy budget (> 0; ``numpy.inf`` for AIF360's non-private weights).
        delta (float): 0 for pure DP (Laplace); > 0 for the analytic Gaussian mechanism.
        privacy_unit (str): "record" (one whole record substituted) or "sensitive_attribute" (one person's protected
            attribute changed); the sensitivity is the same under both.
        weight_bound (float, optional): public bound ``B`` of the input ``instance_weights`` (each in ``[0, B]``;
            the noise scales with ``B``); None: the input weights must all be 1.
        accountant (diffprivlib.BudgetAccountant, optional): charged once per ``fit``; default diffprivlib's.
        seed (int, optional): seeds the release (experiments only: a seeded release is not secure).

    Attributes:
        w_p_fav (float): the weight of the privileged rows with the favourable label; ``w_p_unfav``,
            ``w_up_fav`` and ``w_up_unfav`` likewise, as AIF360 names them.
        model_: the fitted engine (``noisy_table_``: the release, ``weights_``, ``floored_cells_``).
        privacy_spent_ (PrivacySpend): what ``fit`` charged.

    Privacy: one record substituted (or one protected attribute changed), ``n`` public. Released: the 3 x 2
    table of (weighted) counts, once; L1 sensitivity ``2B`` and L2 ``sqrt(2) B`` (``B = 1`` unweighted), Laplace
    of scale ``2B / epsilon`` per cell. The weights are post-processing; a released cell below ``B`` is raised to
    ``B`` before they are computed (``UtilityWarning``). The guarantee covers the weights, not a model trained on
    the reweighted rows: the rows are the private data, and a learner on them needs its own DP. Failure paths: the
    parameters, the datasets' schema and the budget are checked before any row is read; labels other than the
    favourable / unfavourable ones and weights outside ``[0, B]`` are domain errors without values. Derivation:
    docs/privacy_analysis/preprocessing.md.

    Examples:
        >>> import numpy as np, pandas as pd
        >>> from aif360.datasets import BinaryLabelDataset
        >>> from diffprivlib import BudgetAccountant
        >>> frame = pd.DataFrame({"a": [0.0] * 4 + [1.0] * 6, "x": np.arange(10.0),
        ...                       "y": [1, 0, 0, 0, 1, 1, 1, 0, 1, 0.0]})
        >>> data = BinaryLabelDataset(df=frame, label_names=["y"], protected_attribute_names=["a"])
        >>> rw = DPReweighing([{"a": 0}], [{"a": 1}], epsilon=np.inf, accountant=BudgetAccountant()).fit(data)
        >>> round(rw.w_up_fav, 3), round(rw.w_p_fav, 3)      # 5 * 4 / (10 * 1) and 5 * 6 / (10 * 4), as AIF360's
        (2.0, 0.75)
        >>> rw.transform(data).instance_weights[:2]
        array([2.        , 0.66666667])
    """

    def __init__(self, unprivileged_groups: list[dict], privileged_groups: list[dict], *, epsilon: float = 1.0,
                 delta: float = 0.0, privacy_unit: str = "record", weight_bound: float | None = None,
                 accountant: Any = None, seed: int | None = None) -> None:
        super().__init__(unprivileged_groups=unprivileged_groups, privileged_groups=privileged_groups,
                         epsilon=epsilon, delta=delta, privacy_unit=privacy_unit, weight_bound=weight_bound,
                         accountant=accountant, seed=seed)
        self.unprivileged_groups = unprivileged_groups
        self.privileged_groups = privileged_groups
        self.epsilon = epsilon
        self.delta = delta
        self.privacy_unit = privacy_unit
        self.weight_bound = weight_bound
        self.accountant = accountant
        self.seed = seed
        self.w_p_fav = self.w_p_unfav = self.w_up_fav = self.w_up_unfav = 1.0

    def _engine(self):
        return DPReweighingWeights(epsilon=self.epsilon, delta=self.delta, n_groups=3,
                                   privacy_unit=self.privacy_unit, weight_bound=self.weight_bound,
                                   accountant=self.accountant, random_state=self.seed)

    def _public_groups(self, dataset):
        """The group definitions and the dataset's schema (public), before the budget."""
        privileged = _check_groups(self.privileged_groups, "privileged_groups")
        unprivileged = _check_groups(self.unprivileged_groups, "unprivileged_groups")
        if privileged is None or unprivileged is None:
            raise ValueError("privileged_groups and unprivileged_groups are required (lists of dicts).")
        _check_dataset_type(dataset, "dataset")
        check_group_attributes(dataset, privileged, "privileged_groups")
        check_group_attributes(dataset, unprivileged, "unprivileged_groups")
        _check_disjoint(privileged, unprivileged)
        return privileged, unprivileged

    @atomic_fit
    def fit(self, dataset: BinaryLabelDataset) -> DPReweighing:
        """Release the (group, label) table once and compute the weights from it.

        Args:
            dataset (BinaryLabelDataset): dataset containing true labels.

        Returns:
            DPReweighing: self.
        """
        with warnings_after_release() as release:
            validate_params(self, {"seed": check_seed})         # the face's own name, before the engine's
            model = self._engine()
            model.check_public_inputs(check_budget=False)
            privileged, unprivileged = self._public_groups(dataset)
            model.check_public_inputs()                         # the whole budget: before the rows
            labels = _binary_labels(dataset, "dataset")
            weights = _row_weights(dataset, "dataset", model.weight_bound)
            model.fit(_conditions(dataset, privileged, unprivileged), labels, sample_weight=weights)
            self.model_ = model
            table = model.weights_
            self.w_p_fav, self.w_p_unfav = float(table[_PRIVILEGED, 1]), float(table[_PRIVILEGED, 0])
            self.w_up_fav, self.w_up_unfav = float(table[_UNPRIVILEGED, 1]), float(table[_UNPRIVILEGED, 0])
            self.privacy_spent_ = model.privacy_spent_
            model.warn_floored([_PRIVILEGED, _UNPRIVILEGED])     # the "neither" row's weights are never applied
            release.result = self
        return self

    def transform(self, dataset: BinaryLabelDataset) -> BinaryLabelDataset:
        """Multiply the ``instance_weights`` of each (group, label) cell by its weight (AIF360's ``transform``; rows
        in neither group keep theirs).

        Args:
            dataset (BinaryLabelDataset): dataset to reweigh.

        Returns:
            BinaryLabelDataset: a copy with transformed ``instance_weights``.
        """
        if not hasattr(self, "model_"):
            raise NotFittedError("DPReweighing must be fitted before transform.")
        privileged, unprivileged = self._public_groups(dataset)
        cells = _conditions(dataset, privileged, unprivileged)
        favorable = dataset.labels.ravel() == dataset.favorable_label
        unfavorable = dataset.labels.ravel() == dataset.unfavorable_label
        out = dataset.copy(deepcopy=True)
        for code, fav, unfav in ((_PRIVILEGED, self.w_p_fav, self.w_p_unfav),
                                 (_UNPRIVILEGED, self.w_up_fav, self.w_up_unfav)):
            out.instance_weights[(cells == code) & favorable] *= fav
            out.instance_weights[(cells == code) & unfavorable] *= unfav
        return out
