"""The one validation module: the checks of public parameters and of input data, with clear errors that name the
offending argument (and quote no private value).

- data: :func:`check_X`, :func:`as_real_array` (the allocation helpers' strict numbers), :func:`check_binary_labels` (one message, :data:`BINARY_LABELS_MESSAGE`),
  :func:`check_sensitive_features` (over :func:`as_group_vector` and the declared ``groups``), :func:`as_1d_float`;
- parameters: the checks of the declarative tables (``check_epsilon``, ``check_delta``, ``check_real``,
  ``check_int``, ``check_positive_int``, ``check_bool``, ``check_choice``, ``check_seed``, ``check_solver``,
  ``check_string``, ``check_feature_bound``, ``check_bounds``, ``check_alpha``, ``check_hypotheses``,
  ``check_groups``, ``check_declared_groups``, ``check_estimator``; ``value_errors`` turns a check's ``TypeError``
  into a ``ValueError``) and :func:`validate_params`, which runs a table ``{name: check}``; the estimators' tables
  (``_public_parameter_checks``) are run by :class:`~fairlearn_dp._utils._fit_order.PrivateFitMixin`.

What is not validation lives elsewhere in :mod:`fairlearn_dp._utils`: the fit machinery and the post-fit diagnostics
in ``_fit_support.py`` (``atomic_fit``, ``SharedAccountantCloneMixin``, ``warn_if_worse_than_constant``,
``warn_if_constant_output``), the row transform ``clip_rows`` in ``_rows.py``, the calls whose errors are withheld
(``call_withheld``, ``call_on_private_rows``) in ``_withheld.py``.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from .._fairlearn_compat import LABELS_NOT_0_1_ERROR_MESSAGE, MESSAGE_Y_NONE
from ..exceptions import PrivacyWarning, warn
from ..privacy._accountant import validate_epsilon_delta
from ._dask import is_dask_collection
from ._rows import n_rows
from ._withheld import call_withheld

__all__ = ["as_1d_float", "as_real_array", "as_group_vector", "resolve_groups", "encode_groups", "check_n_bins", "check_positive_int",
           "check_feature_bound", "check_bounds", "check_alpha", "check_hypotheses", "check_optional_hypotheses",
           "check_bool", "check_choice", "check_seed", "check_solver", "check_real", "check_int", "check_string",
           "check_epsilon", "check_delta", "validate_params", "check_binary_labels", "BINARY_LABELS_MESSAGE",
           "BINARY_LABELS_MISSING_MESSAGE",
           "check_X", "check_sensitive_features", "check_groups", "check_declared_groups", "check_estimator",
           "check_callable", "value_errors", "check_rows_alike", "as_numeric_values"]

#: The one message for labels outside {0, 1}, wherever binary labels are required (the Fairlearn drop-ins repeat
#: Fairlearn's own message instead), and the one for missing labels (NaN, None): neither quotes a value.
BINARY_LABELS_MESSAGE = "{name} must be binary labels 0/1 (non-binary labels found)."
BINARY_LABELS_MISSING_MESSAGE = "{name} contains missing labels (NaN/None); binary labels 0/1 only."


def as_1d_float(values, name):
    """Return ``values`` as a 1-D float array (a one-column 2-D input is accepted); reject NaN/inf and non-numbers."""
    values = as_numeric_values(values)
    # The conversion's own messages may quote a value (e.g. "could not convert string to float: '...'"): withheld.
    arr = call_withheld(np.asarray, values, dtype=float, replace=(
        (OverflowError, ValueError(f"{name} holds a number beyond float range.")),   # Python ints beyond float range
        ((TypeError, ValueError), TypeError(f"{name} must be numeric."))))
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (or a single column), got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr



def as_numeric_values(values):
    """``values`` ready for a float conversion: a pandas DataFrame or Series whose dtypes are all real numbers or
    bools (numpy's or pandas' nullable ``Int64``, ``Float64``, ``boolean``) as a float array with its missing values
    (``pd.NA``) as NaN, so that the NaN check names them as missing rather than the conversion as non-numbers; any
    other pandas object as its ``to_numpy()``; anything else unchanged. Decided by the dtypes (public), never by
    the values; the same floats as ``np.asarray(values.to_numpy(), dtype=float)`` where that succeeds.
    """
    if not isinstance(values, (pd.DataFrame, pd.Series)):
        return values
    dtypes = list(values.dtypes) if isinstance(values, pd.DataFrame) else [values.dtype]
    if dtypes and all((pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype))
                      and not pd.api.types.is_complex_dtype(dtype) for dtype in dtypes):
        return values.to_numpy(dtype=float, na_value=np.nan)
    return values.to_numpy()


def as_real_array(values, name):
    """``values`` as a float array of any shape; stricter than :func:`as_1d_float` (counts and shares are numbers):
    a bool, string, complex number or ``None`` is a ``TypeError`` naming ``name``; NaN/inf are left to callers.
    """
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be an array of numbers, got {type(values).__name__}.")
    values = values.to_numpy() if hasattr(values, "to_numpy") and callable(values.to_numpy) else values  # pandas
    arr = call_withheld(np.asarray, values, replace=(                   # ragged nested lists, odd objects
        ((TypeError, ValueError), ValueError(f"{name} must be a rectangular array of numbers.")),))
    if arr.dtype.kind == "b":
        raise TypeError(f"{name} must contain numbers, not booleans.")
    if arr.dtype.kind == "O" and not all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                                         for v in arr.ravel()):
        raise TypeError(f"{name} must contain only real numbers (no booleans, strings or None).")
    if arr.dtype.kind not in "iufO":
        raise TypeError(f"{name} must contain real numbers, got dtype {arr.dtype}.")
    with np.errstate(over="ignore", invalid="ignore"):                  # Python ints beyond float range: withheld
        return call_withheld(arr.astype, float, replace=(
            ((OverflowError, TypeError, ValueError), ValueError(f"{name} contains numbers too large for floats.")),))


def check_X(X, name="X"):
    """``(X as a finite 2-D float array, its column names or None)``; a ``ValueError`` naming ``name`` otherwise.

    A DataFrame gives its column names (public: names, never values). A non-numeric entry, an empty or non-2-D
    array, NaN or an infinity is a domain error whose message quotes no value (the conversion's own message, which
    could, is withheld: :func:`call_withheld`).
    """
    names = None
    if isinstance(X, pd.DataFrame):
        names = np.asarray(X.columns, dtype=object)
    X = as_numeric_values(X)
    X = call_withheld(np.asarray, X, dtype=float,            # its message could quote a private value: withheld
                      replace=(((TypeError, ValueError), ValueError(f"{name} must be numeric.")),))
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return X, names

def check_rows_alike(arguments, *, required=()):
    """The public layout of a fit's data arguments, checked before the budget: every argument named in ``required``
    is given (not None), and every given one has as many rows as the first. ``arguments`` is ``[(name, value),
    ...]``, the first the reference.

    Row counts are public (shapes, not values), so a missing argument or a length mismatch is refused before the
    budget check, whatever the accountant holds, with a ``ValueError`` naming the argument. Dask collections are
    left to their own layout check (:func:`~._dask.aligned_partitions`), and so is a reference whose count is not
    known.
    """
    reference, counts = None, []
    for name, value in arguments:
        if value is None:
            if name in required:
                raise ValueError(f"{name} is required.")
            continue
        if is_dask_collection(value):
            continue
        count = None if isinstance(value, (str, bytes)) else n_rows(value)
        if count is None:
            raise ValueError(f"{name} must be array-like with one entry per row, got {type(value).__name__}.")
        if reference is None:
            reference, counts = name, [count]
        elif count != counts[0]:
            raise ValueError(f"{name} has {count} rows but {reference} has {counts[0]}: different lengths (length "
                             "mismatch).")


def check_binary_labels(values, name="y", *, fairlearn_messages=False):
    """``values`` as a 1-D array whose entries are all 0 or 1 (bool accepted; a one-column 2-D input too).

    The one binary-label check. ``None`` is a ``ValueError`` saying ``name`` is required, NaN or None a
    ``ValueError`` with :data:`BINARY_LABELS_MISSING_MESSAGE`, anything else (another label, a string, a complex
    number) one with :data:`BINARY_LABELS_MESSAGE`; all name ``name`` and quote no value. Numeric input is checked
    without per-row Python. Returns the array with its own dtype (callers cast it; an empty input is returned
    empty: callers compare its length with ``X``'s). With ``fairlearn_messages=True`` (the Fairlearn drop-ins) the
    messages are Fairlearn's own (``_validate_and_reformat_input``, without the data's values) and an empty ``y``
    is refused as Fairlearn refuses it.
    """
    messages = _FAIRLEARN_LABEL_MESSAGES if fairlearn_messages else _LABEL_MESSAGES
    if values is None:
        raise ValueError(messages["none"].format(name=name))
    array = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(messages["shape"].format(name=name, shape=array.shape))
    if fairlearn_messages and array.size == 0:
        raise ValueError(messages["none"].format(name=name))
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind in "iuf":
        binary = bool(np.all((array == 0) | (array == 1)))
        if not binary and array.dtype.kind == "f" and np.isnan(array).any():
            raise ValueError(messages["missing"].format(name=name))
    else:
        if pd.isna(pd.Series(array, dtype=object)).any():
            raise ValueError(messages["missing"].format(name=name))
        binary = all(isinstance(v, (numbers.Real, np.bool_)) and not pd.isna(v) and v in (0, 1)
                     for v in pd.unique(pd.Series(array, dtype=object)))
    if not binary:
        raise ValueError(messages["other"].format(name=name))
    return array


# The generic messages and, for the Fairlearn drop-ins, Fairlearn's (a missing label is named as such there too).
_LABEL_MESSAGES = {"none": "{name} is required: binary labels 0/1.", "missing": BINARY_LABELS_MISSING_MESSAGE,
                   "shape": "{name} must be one-dimensional, got shape {shape}.", "other": BINARY_LABELS_MESSAGE}
_FAIRLEARN_LABEL_MESSAGES = {"none": MESSAGE_Y_NONE + ".", "shape": "`y` must be of shape (n,) or (n,1).",
                             "missing": "`y` contains missing labels (NaN/None): labels must be 0 or 1.",
                             "other": LABELS_NOT_0_1_ERROR_MESSAGE}


def as_group_vector(sensitive_features, n_samples, name="sensitive_features", *, groups=None):
    """Turn ``sensitive_features`` into a 1-D object array of group labels of length ``n_samples``.

    Several columns are combined into one label per row (``"a,b"``), as Fairlearn does. With several columns and
    declared ``groups``, a declared label that cannot be such a combination, or a combined label not declared, is
    a ``ValueError`` that explains the combination (naming the columns and ``groups``, never a value of the data).
    """
    if sensitive_features is None:
        raise ValueError(f"{name} is required.")
    labels = _integer_or_categorical_labels(sensitive_features, n_samples, name)
    if labels is not None:
        return labels
    if isinstance(sensitive_features, pd.DataFrame):
        frame = sensitive_features
    elif isinstance(sensitive_features, pd.Series):
        frame = sensitive_features.to_frame()
    else:
        arr = np.asarray(sensitive_features, dtype=object)
        if arr.ndim == 0:
            raise ValueError(f"{name} must be array-like with one entry per sample.")
        if arr.ndim > 2:
            raise ValueError(f"{name} must be 1-D or 2-D, got {arr.ndim} dimensions.")
        frame = pd.DataFrame(arr if arr.ndim == 2 else arr[:, None])
    if frame.shape[1] == 0:
        raise ValueError(f"{name} has no columns.")
    _check_group_rows(len(frame), n_samples, name, missing=frame.isna().to_numpy().any())
    if frame.shape[1] == 1:
        return frame.iloc[:, 0].to_numpy(dtype=object)
    return _combined_labels(sensitive_features, frame, name, groups)



def check_sensitive_features(sensitive_features, n_samples, *, groups=None, name="sensitive_features"):
    """``sensitive_features`` as a 1-D object array of ``n_samples`` group labels, each one of the declared ``groups``.

    :func:`as_group_vector` (one label per row; several columns combined as Fairlearn does, checked against
    ``groups``), then, when ``groups`` is given, the declared groups' own rules (:func:`check_groups`) and that every
    label is declared (:func:`encode_groups`: an unseen group is a ``ValueError`` that quotes no value). Without
    ``groups`` the labels are returned unchecked against any list (the caller resolves them with
    :func:`resolve_groups`, which warns that they are read from the data).
    """
    labels = as_group_vector(sensitive_features, n_samples, name, groups=groups)
    if groups is not None:
        encode_groups(labels, check_groups(groups), name)
    return labels

def _check_group_rows(n_rows, n_samples, name, *, missing):
    """The length and missing-value checks of :func:`as_group_vector` (in this order)."""
    if n_rows != n_samples:
        raise ValueError(f"{name} has {n_rows} rows but the data have {n_samples} (length mismatch).")
    if missing:
        raise ValueError(f"{name} contains missing values (NaN/None).")


def _integer_or_categorical_labels(sensitive_features, n_samples, name):
    """:func:`as_group_vector`'s labels for one column of integers or categorical codes, without its per-row object
    conversion and checks; None for any other input, which takes the general path.

    A 1-D numpy array (exactly ``ndarray``) or a pandas Series of a numpy integer or bool dtype gives the numbers as
    Python ``int`` / ``bool`` (``astype(object)``: no missing value is possible); a ``pandas.Categorical`` or a
    Series of ``category`` dtype gives each row its category as ``Categorical``'s own conversion to ``object``
    returns it, converting each category once instead of once per row (a missing value is the code -1). The same
    labels, types and errors as the general path.
    """
    values = sensitive_features
    if isinstance(values, pd.Series):
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.array
        elif isinstance(values.dtype, np.dtype):
            values = values.to_numpy()
        else:
            return None
    if isinstance(values, pd.Categorical):
        codes = np.asarray(values.codes)
        _check_group_rows(codes.size, n_samples, name, missing=bool((codes < 0).any()))
        every_category = pd.Categorical.from_codes(np.arange(len(values.categories)), dtype=values.dtype)
        return np.asarray(every_category, dtype=object)[codes]
    if type(values) is np.ndarray and values.ndim == 1 and values.dtype.kind in "biu":
        _check_group_rows(values.shape[0], n_samples, name, missing=False)
        return values.astype(object)
    return None


def _combined_labels(sensitive_features, frame, name, groups):
    """One ``"a,b"`` label per row of several columns, exactly Fairlearn's (``_merge_columns`` after its
    ``check_array(..., dtype=None)``): the table converted to one numpy array and each entry to ``str`` as Fairlearn
    does (an int column beside a float one reads ``1.0``, a bool beside an int ``1``), a comma or backslash inside
    a value escaped with a backslash (so that ``("a,b", "c")`` and ``("a", "b,c")`` stay two groups), the values
    joined by commas. Checked against the declared ``groups``.
    """
    columns = [str(c) for c in frame.columns]                  # public: names, never values
    pattern = ",".join(f"<{c}>" for c in columns)
    hint = (f"{name} has {len(columns)} columns ({', '.join(map(repr, columns))}), which are combined into one "
            "group label per row, the row's values joined by commas as Fairlearn does ('a,b' for the values a and "
            "b; a comma or backslash inside a value is escaped with a backslash), so `groups` must list the "
            f"combined labels, one per combination: groups=['{pattern}', ...] with each <column> replaced by one "
            "of its values")
    if groups is not None:
        declared = list(groups)
        odd = [g for g in declared if not isinstance(g, str) or g.count(",") < frame.shape[1] - 1]
        if odd:
            raise ValueError(f"{hint}; got {odd[0]!r} in groups, which is no such label.")
    # scikit-learn's conversion (no dtype asked: nothing is parsed, so no message can quote a value; withheld anyway)
    table = call_withheld(check_array, sensitive_features, ensure_2d=False, dtype=None, ensure_all_finite=False,
                          ensure_min_samples=0, replace=(((TypeError, ValueError),
                                                          ValueError(f"{name} must be a table of group labels.")),))
    text = pd.DataFrame(np.asarray(table).reshape(len(frame), -1).astype(str), dtype=object)
    combined = None
    for column in range(text.shape[1]):
        escaped = text.iloc[:, column].str.replace("\\", "\\\\", regex=False).str.replace(",", "\\,", regex=False)
        combined = escaped if combined is None else combined + "," + escaped
    if groups is not None and not combined.isin(declared).all():
        raise ValueError(f"{hint}; a combined label in {name} is not one of the {len(declared)} declared groups "
                         "(unseen group): declare every combination in `groups`.")
    return combined.to_numpy(dtype=object)


def resolve_groups(groups, group_vector, *, estimator_name, private=True):
    """The public list of groups: ``groups`` if given, else the data's.

    Reading them from the data is warned about with a :class:`PrivacyWarning` when ``private`` (a finite epsilon);
    at ``epsilon=inf`` nothing is private and, as in the Fairlearn class replaced, no warning is issued.
    """
    if groups is None and private:
        warn(f"{estimator_name}: `groups` was not given, so the list of groups is read from the private data and "
             "treated as public. Pass groups=[...] to make this explicit.", PrivacyWarning)
    if groups is not None:
        return _declared_groups(groups)
    found = pd.unique(pd.Series(group_vector, dtype=object))
    try:
        found = sorted(found)
    except TypeError:
        found = list(found)
    if len(found) < 2:
        raise ValueError(f"sensitive_features must define at least 2 groups, got {len(found)}.")
    return list(found)


def _declared_groups(groups):
    """The public ``groups`` as a list: at least 2 distinct, hashable, non-missing labels (errors name ``groups``:
    it is the parameter at fault, and it is checked before the budget).
    """
    if isinstance(groups, (str, bytes)) or not hasattr(groups, "__iter__"):
        raise TypeError("groups must be a list of group labels or None.")
    resolved = list(groups)
    if pd.isna(pd.Series(resolved, dtype=object)).any():
        raise ValueError("groups contains a missing label (NaN/None).")
    try:
        duplicates = len(set(resolved)) != len(resolved)
    except TypeError as exc:
        raise TypeError("groups must hold hashable group labels.") from exc
    if duplicates:
        raise ValueError("groups contains duplicates.")
    if len(resolved) < 2:
        raise ValueError(f"groups must list at least 2 groups, got {len(resolved)}: {resolved!r}.")
    return resolved


def check_estimator(estimator, name="estimator", *, prefit=False):
    """``estimator`` if it is None or an object with ``fit`` (and ``get_params`` unless ``prefit``: it is then
    cloned); a ``TypeError`` naming ``name`` otherwise. A public parameter: checked before the budget and before any
    warning (scikit-learn's clone error otherwise comes after the fit's warnings).
    """
    if estimator is None:
        return None
    needed = ("fit",) if prefit else ("fit", "get_params")
    if isinstance(estimator, (str, bytes)) or not all(hasattr(estimator, method) for method in needed):
        what = "an estimator with fit" if prefit else "a scikit-learn estimator (with fit and get_params; it is cloned)"
        raise TypeError(f"{name} must be None or {what}, got {type(estimator).__name__}.")
    return estimator


def check_groups(groups):
    """The declared ``groups`` checked as a public parameter (before the budget): None, or a list of at least 2
    distinct hashable labels (:func:`resolve_groups`' rules). Returns the list (or None).
    """
    return None if groups is None else resolve_groups(groups, None, estimator_name="")


def _object_index(values):
    """``values`` as a 1-D object ``Index``, as they are: no dtype inference (pandas 2.2 warns that it is going away),
    and a tuple stays one label.
    """
    return pd.Index(pd.Series(values, dtype=object).to_numpy(), dtype=object, tupleize_cols=False)


def encode_groups(group_vector, groups, name="sensitive_features"):
    """Map each label to its index in ``groups``; unknown labels are a ``ValueError``."""
    index = _object_index(list(groups))
    if not index.is_unique:
        raise ValueError("groups contains duplicates.")
    codes = index.get_indexer(_object_index(group_vector))
    unknown = codes < 0
    if unknown.any():
        raise ValueError(f"{name} contains a group that is not one of the {len(groups)} groups known to the "
                         "estimator (unseen group); declare every group in `groups`.")
    return codes.astype(np.intp)


def check_n_bins(n_bins, name="n_bins", *, maximum=None, reason=""):
    """``n_bins`` as an int in ``[1, maximum]``; errors name ``name`` (e.g. ``"n_score_bins"``)."""
    return check_positive_int(n_bins, name, maximum=maximum, reason=reason)


def check_bounds(bounds):
    if bounds is None:
        raise ValueError("bounds=(s, t) is required: a public interval containing the regressor's outputs. "
                         "It must not be computed from the private data.")
    if isinstance(bounds, (str, bytes)):
        raise TypeError("bounds must be a pair of numbers (s, t), not a string.")
    try:
        pair = list(bounds)
        if len(pair) != 2 or any(isinstance(b, bool) or not isinstance(b, numbers.Real) for b in pair):
            raise TypeError                     # numpy 2.0 would turn a 1-element array into a float, 2.4 refuses
        lower, upper = (float(b) for b in pair)
    except OverflowError as exc:
        raise ValueError("bounds must be finite numbers within float range.") from exc
    except (TypeError, ValueError) as exc:
        raise TypeError("bounds must be a pair of numbers (s, t).") from exc
    if not (np.isfinite(lower) and np.isfinite(upper)) or lower >= upper:
        raise ValueError(f"bounds must be finite with s < t, got {bounds}.")
    return lower, upper


def check_alpha(alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a number, got {type(alpha).__name__}.")
    if not 0 <= alpha <= 1:
        raise ValueError(f"alpha must be in [0, 1], got {alpha}.")
    return float(alpha)


def check_feature_bound(value, name="feature_bound"):
    """A public bound on the features, checked.

    A number ``R > 0`` (every ``|x_j| <= R``), or a box ``(lower, upper)`` in diffprivlib's ``bounds`` form, each
    side a number or a 1-D array with one entry per feature, ``lower <= upper`` and not all zero. Returns the float, or the pair of float arrays; errors name ``name``. (Whether an array's
    length matches the features is checked where the features are known: :func:`~._row_bounds.feature_reach`.)
    """
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return check_real(value, name, low=0.0, low_open=True)
    if not (isinstance(value, (tuple, list, np.ndarray)) and len(value) == 2):
        raise TypeError(f"{name} must be a number R > 0 (|x_j| <= R) or a pair (lower, upper) of numbers or "
                        f"per-feature arrays, got {type(value).__name__} {value!r}.")
    lower, upper = (_bound_side(side, name) for side in value)
    if lower.ndim == upper.ndim == 1 and lower.size != upper.size:
        raise ValueError(f"{name}: lower has {lower.size} entries and upper {upper.size}.")
    if np.any(lower > upper):
        raise ValueError(f"{name} must have lower <= upper for every feature, got {value!r}.")
    if not np.any(np.maximum(np.abs(lower), np.abs(upper)) > 0):
        raise ValueError(f"{name}: the box (lower, upper) must not be {{0}} (every bound zero).")
    return lower, upper


def _bound_side(side, name):
    """One side of a ``(lower, upper)`` box as a float array of 0 or 1 dimensions with finite entries."""
    if isinstance(side, (str, bytes, bool, np.bool_)) or side is None:
        raise TypeError(f"{name}: lower and upper must be numbers or 1-D arrays of numbers, got {side!r}.")
    try:
        arr = np.asarray(side, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise TypeError(f"{name}: lower and upper must be numbers or 1-D arrays of numbers, got {side!r}.") from exc
    if arr.ndim > 1 or arr.size == 0:
        raise ValueError(f"{name}: lower and upper must be numbers or non-empty 1-D arrays, got shape {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: lower and upper must be finite, got {side!r}.")
    return arr


def check_positive_int(value, name, *, maximum=None, reason=""):
    """``value`` as an int >= 1 (and <= ``maximum`` when given), with errors that name ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}.")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum}{reason}, got {value}.")
    return int(value)


def check_hypotheses(hypotheses, name="hypotheses"):
    """A finite hypothesis class as a non-empty list whose elements have ``predict`` or are callables; a
    ``TypeError``/``ValueError`` naming ``name`` otherwise (a public parameter: checked before the budget).
    """
    if isinstance(hypotheses, (str, bytes)) or not hasattr(hypotheses, "__len__") or not hasattr(hypotheses,
                                                                                                   "__iter__"):
        raise TypeError(f"{name} must be a list of classifiers (with predict) or callables, got "
                        f"{type(hypotheses).__name__}.")
    hypotheses = list(hypotheses)
    if not hypotheses:
        raise ValueError(f"{name} must be a non-empty finite hypothesis class (got an empty hypothesis class).")
    for index, h in enumerate(hypotheses):
        if not callable(getattr(h, "predict", h)):
            raise TypeError(f"{name}[{index}] is neither a classifier with predict nor a callable.")
    return hypotheses


def check_bool(value, name, *, allow_none=False):
    """``value`` as a bool (``True``/``False``, numpy's too); None passes with ``allow_none``. Anything else is a
    ``TypeError`` naming ``name`` (a string such as ``"no"`` or a number would otherwise count by its truth value).
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True{', False or None' if allow_none else ' or False'}, got {value!r}.")
    return bool(value)


def check_callable(value, name):
    """``value`` if it is callable; a ``TypeError`` naming ``name`` otherwise."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {type(value).__name__}.")
    return value



def check_epsilon(epsilon, name="epsilon"):
    """``epsilon`` > 0 as a table check (``inf``: no noise), with the rule and messages of
    :func:`fairlearn_dp.privacy._accountant.validate_epsilon_delta`.
    """
    return validate_epsilon_delta(epsilon, 0.0)[0]


def check_delta(delta, name="delta"):
    """``delta`` in ``[0, 1)`` as a table check, with the rule and messages of
    :func:`fairlearn_dp.privacy._accountant.validate_epsilon_delta`.
    """
    return validate_epsilon_delta(1.0, delta)[1]


def check_declared_groups(groups, name="groups"):
    """The public ``groups`` as a table check: None, or at least 2 distinct hashable labels (:func:`check_groups`)."""
    return check_groups(groups)


def check_optional_hypotheses(hypotheses, name="hypotheses"):
    """None, or a finite class of classifiers with ``predict`` or plain callables (:func:`check_hypotheses`)."""
    return None if hypotheses is None else check_hypotheses(hypotheses, name)

def value_errors(check):
    """``check`` with its ``TypeError`` raised as a ``ValueError`` (same message), for the interfaces whose
    documented error for every bad value, of whatever type, is a ``ValueError`` (e.g. the audit's counts).
    """
    @functools.wraps(check)
    def checked(value, name):
        try:
            return check(value, name)
        except TypeError as error:
            message = str(error)
        raise ValueError(message)

    return checked


def check_choice(value, name, options):
    """``value`` if it is one of ``options`` (strings compared by value, other options such as None by identity);
    a ``ValueError`` naming ``name`` and the options otherwise.
    """
    for option in options:
        if value is option or (isinstance(value, str) and isinstance(option, str) and value == option):
            return value
    raise ValueError(f"{name} must be one of {', '.join(repr(option) for option in options)}; got {value!r}.")


def check_seed(random_state, name="random_state"):
    """``random_state`` if it is None, an int in ``[0, 2**32 - 1]`` or a ``numpy.random.RandomState``; a
    ``TypeError``/``ValueError`` naming ``name`` otherwise. Checked with the other public parameters, so that a bad
    seed fails before the budget check rather than at the first release.
    """
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return random_state
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"{name} must be None, an int or a numpy.random.RandomState, got "
                        f"{type(random_state).__name__}.")
    if not 0 <= random_state <= 2 ** 32 - 1:
        raise ValueError(f"{name} must be between 0 and 2**32 - 1 when an int, got {random_state}.")
    return random_state


def check_solver(solver, name="solver", *, own):
    """``own`` (the class's built-in solver; None when there is none) or the name of an installed cvxpy solver; a
    ``TypeError`` or a ``ValueError`` naming ``name`` otherwise (checked before the budget, so that a typo costs
    nothing).
    """
    if not isinstance(solver, str):
        raise TypeError(f"{name} must be a string, got {type(solver).__name__}.")
    if own is not None and solver == own:
        return solver
    import cvxpy as cp

    installed = cp.installed_solvers()
    if solver not in installed:
        choices = "" if own is None else f"{own!r} or "
        raise ValueError(f"{name} must be {choices}the name of an installed cvxpy solver {installed}, got "
                         f"{solver!r}.")
    return solver


def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False, allow_none=False,
               allow_inf=False):
    """``value`` as a finite float in the interval from ``low`` to ``high`` (open ends with ``low_open`` /
    ``high_open``); None passes with ``allow_none``, an infinity inside the interval with ``allow_inf``. A bool or a
    non-number is a ``TypeError``, NaN, an infinity or a value outside the interval a ``ValueError``, each naming
    ``name``.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number{' or None' if allow_none else ''}, got "
                        f"{type(value).__name__}.")
    try:
        number = float(value)
    except OverflowError:                       # a Python int beyond float range
        number = math.inf
    finite = math.isfinite(number) or (allow_inf and not math.isnan(number))
    if not (finite and _in_interval(number, low, high, low_open, high_open)):
        what = "a number (or an infinity)" if allow_inf else "a finite number"
        raise ValueError(f"{name} must be {what} in {_interval_text(low, high, low_open, high_open)}, "
                         f"got {value!r}.")
    return number


def _in_interval(number, low, high, low_open, high_open):
    above_low = low is None or (number > low if low_open else number >= low)
    below_high = high is None or (number < high if high_open else number <= high)
    return above_low and below_high


def _interval_text(low, high, low_open, high_open):
    left = "(-inf" if low is None else f"{'(' if low_open else '['}{low}"
    right = "inf)" if high is None else f"{high}{')' if high_open else ']'}"
    return f"{left}, {right}"


def validate_params(owner, checks):
    """Run a declarative table of parameter checks: ``{name: check}``, each ``check(value, name)`` raising a
    ``TypeError``/``ValueError`` that names the parameter. Returns ``{name: checked value}``. Estimators call it in
    their single validation step, before the budget check.
    """
    return {name: check(getattr(owner, name), name) for name, check in checks.items()}


def check_int(value, name, *, low=None, high=None, allow_none=False):
    """``value`` as an int in ``[low, high]`` (either end optional); None passes with ``allow_none``. A bool or a
    non-integer is a ``TypeError``, a value outside the interval a ``ValueError``, each naming ``name``.
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer{' or None' if allow_none else ''}, got {type(value).__name__}.")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be an integer in {_interval_text(low, high, False, False)}, got {value!r}.")
    return int(value)


def check_string(value, name):
    """``value`` if it is a string; a ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}.")
    return value
