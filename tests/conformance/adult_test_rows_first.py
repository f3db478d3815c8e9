"""The bundled Adult with the rows of ``adult.test`` before those of ``adult.data`` (a row order, nothing else).

:func:`fairlearn_dp.datasets.fetch_adult` lists the training file's 32,561 rows first. In that order the one
``native-country == "Holand-Netherlands"`` row falls into the test split of the reductions user guide's Adult
example (``train_test_split(..., test_size=0.2, random_state=42)``), whose ``OneHotEncoder(drop="first")`` has no
``handle_unknown``: the example then raises with Fairlearn's own classes, at its base model, before any mitigator is
built. With the test file's rows first the row lands in the training split and the example runs as written. The
conformance runner points that example's ``fetch_adult`` here; the values, columns and dtypes are the bundled ones.
"""

from __future__ import annotations

import numpy as np

from fairlearn_dp.datasets import fetch_adult as _fetch_bundled_adult

N_TRAIN_ROWS = 32_561


def fetch_adult(*, as_frame=True, return_X_y=False):
    """:func:`fairlearn_dp.datasets.fetch_adult` (``as_frame=True`` only), test-file rows first, index 0..48841."""
    if as_frame is not True:
        raise ValueError("this adapter serves the DataFrame form only (as_frame=True)")
    bunch = _fetch_bundled_adult(as_frame=True)
    n_rows = len(bunch.data)
    order = np.r_[N_TRAIN_ROWS:n_rows, 0:N_TRAIN_ROWS]
    for field in ("data", "target", "frame", "sensitive_features"):
        bunch[field] = bunch[field].iloc[order].reset_index(drop=True)
    return (bunch.data, bunch.target) if return_X_y else bunch
