"""Shared steps of the score post-processors (calibrated equalized odds, reject option classification).

Both read a score in their training rows, a true label and one of two groups (0: privileged, 1: unprivileged, the
indices of the AIF360 faces), release one table of per-(group, ..., label) statistics once, and end with the
private choice against the constant classifiers. The helpers here read the rows (domain checks, no value quoted),
project a release onto the totals that are public under ``privacy_unit="sensitive_attribute"``, and make that last
choice. Derivations: docs/privacy_analysis/score_postprocessing.md.
"""

from __future__ import annotations

import math

import numpy as np

from .._utils._fit_support import warn_if_constant_chosen
from .._utils._validation import as_1d_float, check_binary_labels
from ..privacy._selection import choose_against_constants, no_choice

__all__ = ["GROUPS", "PRIVACY_UNITS", "read_rows", "project_onto_public_totals", "choose_constant"]

#: The two groups of the faces: 0 privileged, 1 unprivileged.
GROUPS = (0, 1)
PRIVACY_UNITS = ("sensitive_attribute", "record")


def read_rows(X, y, sensitive_features):
    """``(scores, labels, groups)`` as 1-D arrays of one length: finite scores, labels 0/1, groups 0/1 (domain
    checks whose messages quote no value of the data).
    """
    scores = as_1d_float(X, "X")
    labels = check_binary_labels(y, "y").astype(int)
    groups = as_1d_float(sensitive_features, "sensitive_features")
    if not np.all((groups == 0) | (groups == 1)):
        raise ValueError("sensitive_features must hold the group indices 0 (privileged) and 1 (unprivileged).")
    if not (scores.size == labels.size == groups.size):
        raise ValueError("X, y and sensitive_features must have the same number of rows.")
    return scores, labels, groups.astype(int)


def project_onto_public_totals(noisy, exact, privacy_unit):
    """Under ``"sensitive_attribute"`` the sums over the group axis (axis 0) of the exact table are public (a
    neighbour changes only one person's group; scores and labels, hence every per-(rest of the cell) total, are
    shared): the release is projected in L2 onto them (each of the two groups gets half of the gap), which is
    post-processing of the release and public values. Under ``"record"`` the release is returned unchanged.
    """
    if privacy_unit != "sensitive_attribute":
        return np.array(noisy, dtype=float)
    gap = np.asarray(exact, dtype=float).sum(axis=0) - np.asarray(noisy, dtype=float).sum(axis=0)
    return np.asarray(noisy, dtype=float) + gap / noisy.shape[0]


def choose_constant(positive, labels, *, epsilon, random_state, owner):
    """The private choice between the fitted rule (``positive``: its probability of predicting 1 on each training
    row, from released values only) and the constants 0 and 1 (exponential mechanism, sensitivity 1: one changed
    row changes each candidate's error count by at most 1; ``epsilon=inf``: no choice, the toolkit's output).
    Warns (``UtilityWarning``) when a constant wins.
    """
    if math.isinf(epsilon):
        return no_choice()
    choice = choose_against_constants(positive, labels, epsilon=epsilon, random_state=random_state)
    warn_if_constant_chosen(owner, choice, "More validation rows or a larger epsilon")
    return choice
