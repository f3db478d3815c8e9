"""Validation and fit helpers shared by fairdp's estimators, and the part of them its faces use (a private package).

The AIF360 faces (``aif360_dp``) and the adapters import these names from here, never from the modules behind
them: the one validation module (``_validation.py``), the fit machinery (``_fit_support.py``) and the progress
display (``_progress.py``). They are internal to fairdp (not on the API page, not counted as public names) and may
change with it.
"""

from ._features import (
    check_dataset_features,
    check_predict_features,
    names_frame,
    set_dataset_features,
    set_fit_features,
    warn_sensitive_columns,
)
from ._fit_support import atomic_fit
from ._progress import progress_bar, show_progress
from ._validation import (
    as_group_vector,
    check_bool,
    check_bounds,
    check_choice,
    check_real,
    check_seed,
    validate_params,
    value_errors,
)

__all__ = ["atomic_fit", "check_dataset_features", "check_predict_features", "names_frame", "set_dataset_features",
           "set_fit_features", "show_progress", "progress_bar", "as_group_vector", "check_bool", "check_bounds",
           "check_choice", "check_real", "check_seed", "validate_params", "value_errors", "warn_sensitive_columns"]
