"""Engine of ``DPReweighing``: Kamiran & Calders' reweighing weights from one noisy release of the (group, label)
table (docs/privacy_analysis/preprocessing.md).

The weight of cell ``(g, y)`` is ``n_g n_y / (n n_{g,y})`` (AIF360's ``Reweighing``), a ratio of sums of the table's
cells: it is computed from the released table alone, so it needs neither ``n`` nor any other count of the data.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from diffprivlib.accountant import BudgetAccountant
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator

from .._utils._fit_order import PrivateFitMixin
from .._utils._fit_support import SharedAccountantCloneMixin, atomic_fit
from .._utils._validation import check_choice, check_delta, check_epsilon, check_int, check_real, check_seed
from ..exceptions import UtilityWarning, warn
from ..metrics._frame_release import release_table
from ..privacy import PrivacySpend
from ..privacy._accountant import charge, validate_epsilon_delta
from ..privacy._random import release_random_state

__all__ = ["DPReweighingWeights", "table_sensitivity", "weights_from_table"]

PRIVACY_UNITS = ("record", "sensitive_attribute")


def table_sensitivity(weight_bound: float) -> tuple[float, float]:
    """L1 and L2 sensitivity of the (group, label) table of weighted counts under both privacy units.

    Replacing one record (or changing its group) takes its weight ``w <= B`` out of one cell and puts a weight
    ``w' <= B`` into one cell: ``||T - T'||_1 <= 2B`` and ``||T - T'||_2 <= sqrt(2) B`` (the same cell: ``|w - w'|
    <= B``). Unweighted rows: ``B = 1``. Lemma 1 of docs/privacy_analysis/preprocessing.md.
    """
    return 2.0 * weight_bound, math.sqrt(2.0) * weight_bound


def weights_from_table(table: ArrayLike, floor: float, *, exact: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Reweighing weights ``w[g, y] = T_g T_y / (T T[g, y])`` of a (released) table; returns ``(weights, floored)``.

    Each released cell below ``floor`` (a public constant: one record's largest weight ``B``) is first raised to
    it, so that a cell at or below zero -- which the noise can produce -- gives a finite positive weight rather than
    an infinite or negative one; the marginals are sums of the floored cells and ``floored`` marks the cells raised.
    A function of the released table and public inputs only. ``exact`` (``epsilon = inf``, no noise): only empty
    cells are raised (AIF360 divides by zero there; no row has their weight) and the marginals are the exact
    table's, so every non-empty cell's weight is AIF360's.
    """
    table = np.asarray(table, dtype=float)
    floored = table <= 0 if exact else table < floor
    kept = np.where(floored, floor, table)
    margins = table if exact else kept              # exact: an empty cell adds nothing to the marginals
    groups, labels = margins.sum(axis=1), margins.sum(axis=0)
    return groups[:, None] * labels[None, :] / (margins.sum() * kept), floored


class DPReweighingWeights(SharedAccountantCloneMixin, PrivateFitMixin, BaseEstimator):
    """Differentially private reweighing weights of a (group, label) table (engine of ``DPReweighing``).

    ``fit(groups, labels)`` counts the rows (or sums their weights) in each cell of the public ``n_groups x 2``
    table, releases it once and computes ``weights_[g, y] = T_g T_y / (T T[g, y])`` from the release.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of the one release (``numpy.inf``: exact table, AIF360's weights).
    delta : float, default=0.0
        0: Laplace mechanism; > 0: analytic Gaussian.
    n_groups : int, default=2
        Number of public groups (rows of the table); groups are coded ``0 .. n_groups - 1``.
    privacy_unit : {"record", "sensitive_attribute"}, default="record"
        The neighbouring relation; the sensitivity is the same under both.
    weight_bound : float or None, default=None
        Public bound ``B`` of the per-row weights (None: unweighted rows, ``B = 1``).
    accountant : diffprivlib.BudgetAccountant or None, default=None
        Charged once per fit (None: diffprivlib's default accountant).
    random_state : None, int or numpy.random.RandomState, default=None
        None: diffprivlib's secure source; a seed for experiments only.

    Attributes
    ----------
    noisy_table_ : numpy.ndarray of shape (n_groups, 2)
        The released table of (weighted) counts; column 0 unfavourable, column 1 favourable label.
    weights_ : numpy.ndarray of shape (n_groups, 2)
        The weight of each (group, label) cell, from ``noisy_table_`` only.
    floored_cells_ : numpy.ndarray of bool
        Cells whose released value was below the floor ``B`` and raised to it.
    privacy_spent_ : PrivacySpend
        What was charged.

    Privacy
    -------
    Relation: one record substituted (``privacy_unit="record"``) or one person's group changed
    (``"sensitive_attribute"``); ``n`` public. Released: the table of (weighted) counts, once. Mechanism: Laplace,
    scale ``2B / epsilon`` per cell (``delta = 0``), or the analytic Gaussian for L2 sensitivity ``sqrt(2) B``.
    Sensitivity: L1 ``2B``, L2 ``sqrt(2) B`` (:func:`table_sensitivity`). Public inputs: the group list, ``B``.
    The weights are post-processing; the guarantee covers them, not a model trained on the reweighted rows (the
    rows themselves are the private data). Derivation: docs/privacy_analysis/preprocessing.md.
    """

    _public_parameter_checks = {
        "epsilon": check_epsilon, "delta": check_delta,
        "n_groups": functools.partial(check_int, low=2),
        "privacy_unit": functools.partial(check_choice, options=PRIVACY_UNITS),
        "weight_bound": functools.partial(check_real, low=0.0, low_open=True, allow_none=True),
        "random_state": check_seed,
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, n_groups: int = 2,
                 privacy_unit: str = "record", weight_bound: float | None = None,
                 accountant: BudgetAccountant | None = None,
                 random_state: int | np.random.RandomState | None = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_groups = n_groups
        self.privacy_unit = privacy_unit
        self.weight_bound = weight_bound
        self.accountant = accountant
        self.random_state = random_state

    def _check_params_together(self, checked: dict[str, Any]) -> dict[str, Any]:
        checked["epsilon"], checked["delta"] = validate_epsilon_delta(checked["epsilon"], checked["delta"])
        return checked

    def _planned_spend(self, resolved: dict[str, Any]) -> PrivacySpend:
        """One release, charged ``(epsilon, delta)``."""
        return PrivacySpend(resolved["epsilon"], resolved["delta"])

    @atomic_fit
    def fit(self, groups: ArrayLike, labels: ArrayLike, *, sample_weight: ArrayLike | None = None
            ) -> DPReweighingWeights:
        """Count, release and compute the weights.

        Parameters
        ----------
        groups : array-like of int
            Each row's group, coded ``0 .. n_groups - 1`` (the face codes its declared groups).
        labels : array-like of {0, 1}
            Each row's label (1 favourable).
        sample_weight : array-like of float or None
            Each row's weight in ``[0, weight_bound]`` (only with ``weight_bound``).

        Returns
        -------
        DPReweighingWeights
            self.
        """
        public = self.check_public_inputs()
        table = self._count(groups, labels, sample_weight, public)
        bound = public["weight_bound"] or 1.0
        self.noisy_table_, self.privacy_spent_ = self._release(table, bound, public)
        self.weights_, self.floored_cells_ = weights_from_table(self.noisy_table_, bound,
                                                                exact=math.isinf(public["epsilon"]))
        return self

    def warn_floored(self, rows: ArrayLike) -> None:
        """Warn (``UtilityWarning``) when a released cell of the table's ``rows`` (the groups whose weights are
        applied) was raised to the floor: those weights rest on almost no signal. Released values only.
        """
        floored = self.floored_cells_[np.asarray(rows)]
        if floored.any() and not math.isinf(self.privacy_spent_.epsilon):
            warn(f"{int(floored.sum())} released cell(s) of the (group, label) table fell below one record's "
                 "weight and were raised to it: their weights rest on almost no signal.", UtilityWarning)

    def _count(self, groups, labels, sample_weight, public):
        """The table of (weighted) counts; domain checks only (messages quote no value)."""
        groups, labels = np.asarray(groups).ravel(), np.asarray(labels).ravel()
        n_groups = public["n_groups"]
        if groups.shape != labels.shape:
            raise ValueError("groups and labels must have the same length.")
        if not np.isin(groups, np.arange(n_groups)).all():
            raise ValueError("groups holds a value outside the declared groups.")
        if not np.isin(labels, (0, 1)).all():
            raise ValueError("labels must be binary 0/1.")
        if public["weight_bound"] is None:
            if sample_weight is not None:
                raise ValueError("sample_weight needs its public bound: weight_bound=B.")
            weights = np.ones(groups.shape)
        else:
            weights = np.asarray(sample_weight, dtype=float).ravel() if sample_weight is not None \
                else np.ones(groups.shape)
            if weights.shape != groups.shape or not np.all((weights >= 0) & (weights <= public["weight_bound"])):
                raise ValueError("sample_weight must hold one weight in [0, weight_bound] per row.")
        table = np.zeros((n_groups, 2))
        np.add.at(table, (groups.astype(int), labels.astype(int)), weights)
        return table

    def _release(self, table, bound, public):
        """The one release (Laplace, or the analytic Gaussian with delta > 0), charged once."""
        epsilon, delta = public["epsilon"], public["delta"]
        l1, l2 = table_sensitivity(bound)
        noisy, _, _ = release_table(table, l1=l1, l2=l2, epsilon=epsilon, delta=delta,
                                    random_state=release_random_state(public["random_state"]))
        return noisy, charge(self.accountant, self._planned_spend(public))
