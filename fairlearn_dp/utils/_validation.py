"""Input validation shared by fairdp estimators: clear errors that name the offending argument."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from ..privacy import PrivacyWarning

__all__ = ["clip_rows", "as_1d_float", "as_group_vector", "resolve_groups", "encode_groups", "check_n_bins", "check_positive_int",
           "check_bounds", "check_alpha", "atomic_fit", "SharedAccountantCloneMixin"]


def as_1d_float(values, name):
    """Return ``values`` as a 1-D float array (a one-column 2-D input is accepted); reject NaN/inf and non-numbers."""
    if isinstance(values, (pd.DataFrame, pd.Series)):
        values = values.to_numpy()
    try:
        arr = np.asarray(values, dtype=float)
    except OverflowError as exc:                # Python ints beyond float range
        raise ValueError(f"{name} holds a number beyond float range.") from exc
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric.") from exc
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (or a single column), got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    return arr


def as_group_vector(sensitive_features, n_samples, name="sensitive_features"):
    """Turn ``sensitive_features`` into a 1-D object array of group labels of length ``n_samples``.

    Several columns are combined into one label per row (``"a,b"``), as Fairlearn does.
    """
    if sensitive_features is None:
        raise ValueError(f"{name} is required.")
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
    if len(frame) != n_samples:
        raise ValueError(f"{name} has {len(frame)} rows but the data have {n_samples} (length mismatch).")
    if frame.isna().to_numpy().any():
        raise ValueError(f"{name} contains missing values (NaN/None).")
    if frame.shape[1] == 1:
        return frame.iloc[:, 0].to_numpy(dtype=object)
    text = frame.astype(str)
    combined = text.iloc[:, 0]
    for column in range(1, text.shape[1]):
        combined = combined + "," + text.iloc[:, column]
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
    if groups is None:
        found = pd.unique(pd.Series(group_vector, dtype=object))
        try:
            found = sorted(found)
        except TypeError:
            found = list(found)
        resolved = list(found)
    else:
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
        raise ValueError(f"sensitive_features must define at least 2 groups, got {len(resolved)}.")
    return resolved


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
        lower, upper = (float(b) for b in bounds)
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
    knows only the bound, and a warning would tell whether the private data exceed it)."""
    norms = np.linalg.norm(M, ord=norm_ord, axis=1)
    over = norms > bound
    if not over.any():
        return M
    M = M.copy()
    M[over] *= (bound / norms[over])[:, None]
    return M


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


def warn_if_worse_than_constant(owner, error, positive_rate, noise, hint, *, stacklevel=2):
    """Warn (:class:`PrivacyWarning`) when a private fit's error estimate is not clearly below the best constant
    classifier's: ``error + 2 noise >= min(p, 1 - p)`` for the positive rate ``p``.

    ``error`` and ``positive_rate`` must be released values or public ones, and ``noise`` the standard deviation of
    the comparison (from public parameters), so that whether it fires and what it says reveal nothing else. Call it
    after the fit's spend is charged: a warning turned into an exception must not skip the charge.
    """
    constant = min(positive_rate, 1.0 - positive_rate)
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
        try:
            return method(X)
        except Exception:
            raise ValueError(f"{what} failed on the fitting rows; its message is withheld because it could quote "
                             "the private data (check that these rows are in the model's domain).") from None
