"""Input validation shared by fairdp estimators: clear errors that name the offending argument."""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..privacy import PrivacyWarning

__all__ = ["clip_rows", "as_1d_float", "as_group_vector", "resolve_groups", "encode_groups", "check_n_bins", "check_positive_int",
           "check_feature_bound", "check_bounds", "check_alpha", "atomic_fit", "SharedAccountantCloneMixin",
           "call_withheld",
           "call_on_private_rows", "check_hypotheses", "check_bool", "check_choice", "check_seed", "check_solver",
           "check_real", "check_int", "check_string", "validate_params", "check_binary_labels", "BINARY_LABELS_MESSAGE"]

#: The one message for labels outside {0, 1} (NaN and None included), wherever binary labels are required (the
#: Fairlearn drop-ins repeat Fairlearn's own message instead).
BINARY_LABELS_MESSAGE = "{name} must be binary labels 0/1 (non-binary labels found)."


def as_1d_float(values, name):
    """Return ``values`` as a 1-D float array (a one-column 2-D input is accepted); reject NaN/inf and non-numbers."""
    if isinstance(values, (pd.DataFrame, pd.Series)):
        values = values.to_numpy()
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


def check_binary_labels(values, name="y"):
    """``values`` as a 1-D array whose entries are all 0 or 1 (bool accepted; a one-column 2-D input too).

    Anything else (another label, NaN, None, a string) is a ``ValueError`` with :data:`BINARY_LABELS_MESSAGE`,
    which names ``name`` and quotes no value. Numeric input is checked without per-row Python. Returns the array
    with its own dtype (callers cast it).
    """
    array = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}.")
    if array.dtype.kind == "b":
        return array
    if array.dtype.kind in "iuf":
        binary = bool(np.all((array == 0) | (array == 1)))
    else:
        binary = all(isinstance(v, (numbers.Real, np.bool_)) and not pd.isna(v) and v in (0, 1)
                     for v in pd.unique(pd.Series(array, dtype=object)))
    if not binary:
        raise ValueError(BINARY_LABELS_MESSAGE.format(name=name))
    return array


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
    return _combined_labels(frame, name, groups)


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


def _combined_labels(frame, name, groups):
    """One ``"a,b"`` label per row of a frame of several columns; checked against the declared ``groups``."""
    columns = [str(c) for c in frame.columns]                  # public: names, never values
    pattern = ",".join(f"<{c}>" for c in columns)
    hint = (f"{name} has {len(columns)} columns ({', '.join(map(repr, columns))}), which are combined into one "
            "group label per row, the row's values joined by commas as Fairlearn does ('a,b' for the values a and "
            f"b), so `groups` must list the combined labels, one per combination: groups=['{pattern}', ...] with "
            "each <column> replaced by one of its values")
    if groups is not None:
        declared = list(groups)
        odd = [g for g in declared if not isinstance(g, str) or g.count(",") < frame.shape[1] - 1]
        if odd:
            raise ValueError(f"{hint}; got {odd[0]!r} in groups, which is no such label.")
    text = frame.astype(str)
    combined = text.iloc[:, 0]
    for column in range(1, text.shape[1]):
        combined = combined + "," + text.iloc[:, column]
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
        warnings.warn(
            f"{estimator_name}: `groups` was not given, so the list of groups is read from the private data and "
            "treated as public. Pass groups=[...] to make this explicit.", PrivacyWarning, stacklevel=3)
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


def encode_groups(group_vector, groups, name="sensitive_features"):
    """Map each label to its index in ``groups``; unknown labels are a ``ValueError``."""
    index = pd.Index(pd.Series(list(groups), dtype=object))
    if not index.is_unique:
        raise ValueError("groups contains duplicates.")
    codes = index.get_indexer(pd.Series(group_vector, dtype=object))
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


class SharedAccountantCloneMixin:
    """Make :func:`sklearn.base.clone` keep the *same* ``accountant`` object.

    scikit-learn deep-copies non-estimator parameters when cloning, which would make a cloned DP estimator charge a
    private copy of the user's ``BudgetAccountant``, so spends in a ``GridSearchCV`` or a sweep would go unrecorded.
    """

    def __sklearn_clone__(self):
        import copy

        params = self.get_params(deep=False)
        accountant = params.pop("accountant", None)
        new_params = {name: clone(value, safe=False) for name, value in params.items()}
        new = type(self)(**new_params, accountant=accountant)
        # As sklearn.base.clone does: keep the metadata-routing requests (set_fit_request(...)), without which
        # cross_validate / GridSearchCV with routed sensitive_features fail.
        if hasattr(self, "_metadata_request"):
            new._metadata_request = copy.deepcopy(self._metadata_request)
        return new


def clip_rows(M, bound, norm_ord=2):
    """Rows of ``M`` with a norm above the public ``bound`` scaled onto the ball; silently (Privacy: the caller
    knows only the bound, and a warning would tell whether the private data exceed it).
    """
    norms = np.linalg.norm(M, ord=norm_ord, axis=1)
    over = norms > bound
    if not over.any():
        return M
    M = M.copy()
    M[over] *= (bound / norms[over])[:, None]
    return M


def check_feature_bound(value, name="feature_bound"):
    """A public bound on the features, checked.

    A number ``R > 0`` (every ``|x_j| <= R``), or a box ``(lower, upper)`` in diffprivlib's ``bounds`` form, each side a number or a 1-D array with one entry per feature, ``lower <= upper``
    and not all zero. Returns the float, or the pair of float arrays; errors name ``name``. (Whether an array's
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


def atomic_fit(fit):
    """Decorate ``fit`` so that a fit that raises leaves the estimator exactly as it was before the call.

    A refit that fails half-way would otherwise leave a mixed object (e.g. a new bin grid with the old transport
    plans) that still predicts. The instance ``__dict__`` is snapshotted (shallowly: fits assign new attributes,
    they do not mutate fitted arrays in place) and restored on any exception; an estimator that was unfitted stays
    unfitted. Budget already charged by the failed call stays charged.
    """
    import functools

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        before = dict(self.__dict__)
        try:
            return fit(self, *args, **kwargs)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise

    return wrapper


def warn_if_worse_than_constant(owner, error, positive_rate, noise, hint, *, costs=(1.0, 1.0), stacklevel=2):
    """Warn (:class:`PrivacyWarning`) when a private fit's error estimate is not clearly below the best constant
    classifier's: ``error + 2 noise >= min(p, 1 - p)`` for the positive rate ``p`` (with public costs ``(c_FP,
    c_FN)`` of the errors: ``min(c_FN p, c_FP (1 - p))``, what predicting always 0 or always 1 costs).

    ``error`` and ``positive_rate`` must be released values or public ones, and ``noise`` the standard deviation of
    the comparison (from public parameters), so that whether it fires and what it says reveal nothing else. Call it
    after the fit's spend is charged: a warning turned into an exception must not skip the charge.
    """
    constant = min(costs[1] * positive_rate, costs[0] * (1.0 - positive_rate))
    if error + 2.0 * noise >= constant:
        warnings.warn(f"{owner}: the private fit is not clearly better than a constant classifier (estimated error "
                      f"{error:.3f} +- {2 * noise:.3f} against {constant:.3f}, released values); {hint} would help.",
                      PrivacyWarning, stacklevel=stacklevel + 1)


def warn_if_noise_dominated(owner, statistic, noise, signal, hint, *, stacklevel=2):
    """Warn (:class:`PrivacyWarning`) when a per-round release's noise is at least the largest value its statistic
    can take (``noise >= signal``): the plays built from it are then close to random, and a fit made of such
    plays is likely no better than a constant classifier.

    For fits where no released value estimates the error (e.g. a whole-record relation where the labels are
    private too). ``noise`` (the noise standard deviation, or for the exponential mechanism its excess-cost
    guarantee) and ``signal`` (a public bound on the statistic, or 0.5, the error a constant classifier never
    exceeds) must come from public parameters and released values only. Call it after the spend is charged.
    """
    if noise >= signal:
        warnings.warn(f"{owner}: the private fit is likely no better than a constant classifier: the Learner's "
                      f"per-round release ({statistic}) has noise {noise:.3g}, at least the largest value it can "
                      f"take ({signal:.3g}, from public bounds), so its plays are close to random; {hint} would "
                      "help.", PrivacyWarning, stacklevel=stacklevel + 1)


def call_on_private_rows(method, X, what):
    """``method(X)`` for third-party code (a prefit model's ``predict``/``predict_proba``) run on the private fitting
    rows before the release: its warnings are suppressed and an exception is replaced by one that names ``what``
    but not the original message. Their messages may quote values of the rows (e.g. an encoder's "unknown
    categories ['...']"), and a warning turned into an error would abort the fit before the charge. A failure
    remains a domain error (rows the prefit model cannot process), like a NaN, with a message that carries no data.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call_withheld(method, X, replace=((Exception, ValueError(
            f"{what} failed on the fitting rows; its message is withheld because it could quote the private data "
            "(check that these rows are in the model's domain).")),))


def call_withheld(function, *args, replace, **kwargs):
    """``function(*args, **kwargs)``, with the exceptions it raises on private data replaced by errors that carry
    nothing of them.

    ``replace`` is a sequence of ``(exception types, error)`` pairs; the first pair whose types match the exception
    raised gives the error raised instead (an exception matching no pair propagates unchanged). The replacement is
    raised *outside* the ``except`` block, after the block has dropped the original: it is neither the new error's
    ``__context__`` nor its ``__cause__``, and no frame of the traceback holds it, so a logger or an error tracker
    that walks the chain cannot read its message (``raise ... from None`` only hides the context from the printed
    traceback: it stays in ``__context__``).
    """
    replacement = None
    try:
        return function(*args, **kwargs)
    except Exception as error:          # ``error`` is unbound when the block ends; only the replacement is kept
        for types, new in replace:
            if isinstance(error, types):
                replacement = new
                break
        else:
            raise
    raise replacement


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


def check_bool(value, name):
    """``value`` as a bool (``True``/``False``, numpy's too); anything else is a ``TypeError`` naming ``name`` (a
    string such as ``"no"`` or a number would otherwise count by its truth value).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


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


def check_real(value, name, *, low=None, high=None, low_open=False, high_open=False, allow_none=False):
    """``value`` as a finite float in the interval from ``low`` to ``high`` (open ends with ``low_open`` /
    ``high_open``); None passes with ``allow_none``. A bool or a non-number is a ``TypeError``, NaN, an infinity or
    a value outside the interval a ``ValueError``, each naming ``name``.
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
    if not (math.isfinite(number) and _in_interval(number, low, high, low_open, high_open)):
        raise ValueError(f"{name} must be a finite number in {_interval_text(low, high, low_open, high_open)}, "
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
