"""``n_features_in_`` and ``feature_names_in_``, set at fit and checked at predict as scikit-learn does: one helper.

Every estimator of fairdp goes through these three functions, built on scikit-learn's public
:func:`sklearn.utils.validation.validate_data` (``skip_check_array=True``: only the layout of ``X`` is looked at,
never a value), so that a DataFrame with its columns reordered, renamed or missing is refused at ``predict`` with
scikit-learn's own messages instead of giving silently wrong predictions:

- :func:`check_fit_features`: at fit, in the public-layout step (before the budget): the column names are usable
  (all strings, or none); nothing is set;
- :func:`set_fit_features`: at the end of a successful fit: sets ``n_features_in_`` and, for named columns,
  ``feature_names_in_`` (and removes a stale one), as scikit-learn's estimators do;
- :func:`check_predict_features`: at ``predict`` (and ``predict_proba``, ``_pmf_predict``): scikit-learn's
  "feature names should match" and n_features errors and its "X does not have valid feature names" warning.

The layout is public: the number of columns and their names, never the rows. A 1-D ``X`` (a vector of scores,
which the post-processors read as one column) counts as one unnamed column. A Dask DataFrame's column names are
read off its ``columns`` (known on the client; scikit-learn does not read a Dask DataFrame's names itself), so
nothing is computed. The AIF360 faces (not scikit-learn estimators) record and check a dataset's ``feature_names``
with :func:`set_dataset_features` and :func:`check_dataset_features`, through the same scikit-learn checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from ..exceptions import PrivacyWarning, warn
from ._dask import is_dask_collection

__all__ = ["check_fit_features", "set_fit_features", "check_predict_features", "names_frame", "set_dataset_features",
           "check_dataset_features", "warn_sensitive_columns", "warn_sensitive_columns_in_X"]


def names_frame(names: Any) -> pd.DataFrame:
    """An empty DataFrame with columns ``names``: the layout of a table without any of its values."""
    return pd.DataFrame(columns=pd.Index(list(names), dtype=object))


def _layout(X):
    """What scikit-learn's checks read of ``X``: ``X`` itself, for a Dask DataFrame its columns only, and for a 1-D
    ``X`` (the post-processors' vector of scores) one unnamed column, as the estimators read it.
    """
    if getattr(X, "ndim", None) == 1:
        return np.empty((0, 1))
    if is_dask_collection(X) and hasattr(X, "columns"):
        return names_frame(X.columns)
    return X


def _refuse_complex(X):
    """scikit-learn's ``ValueError`` for complex data, read off the declared dtypes (an array's, a frame's columns'),
    never off the values: without it the estimators' float conversion would drop the imaginary part with only a
    ``ComplexWarning``.
    """
    dtypes = getattr(X, "dtypes", None)
    # A DataFrame's dtypes are a Series of them; an array's or a Series' dtype is one (a pandas extension dtype
    # such as Float64, category or str included, which is never complex)
    dtypes = list(dtypes) if isinstance(dtypes, pd.Series) else [getattr(X, "dtype", np.dtype(object))]
    kinds = [dtype.kind for dtype in dtypes if isinstance(dtype, np.dtype)]
    if "c" in kinds:
        raise ValueError("Complex data not supported: X has a complex dtype.")


def check_fit_features(X: Any) -> None:
    """The public-layout check of a fit's ``X`` (before the budget): scikit-learn's ``ValueError`` for a complex
    dtype and its ``TypeError`` for column names of mixed types. Sets nothing (a throwaway estimator receives the
    attributes).
    """
    _refuse_complex(X)
    validate_data(BaseEstimator(), _layout(X), reset=True, skip_check_array=True)


def set_fit_features(estimator: Any, X: Any) -> None:
    """Set ``n_features_in_`` (and ``feature_names_in_`` for string column names, else remove it) from the fit's
    ``X``, as scikit-learn's estimators do. Call it once the fit has succeeded (``atomic_fit`` undoes it otherwise).
    """
    validate_data(estimator, _layout(X), reset=True, skip_check_array=True)


def check_predict_features(estimator: Any, X: Any) -> None:
    """Refuse an ``X`` whose columns differ from those at fit, with scikit-learn's messages (a ``ValueError`` for
    other names, another order or another number of columns; a ``UserWarning`` for a name-less ``X`` after a fit on
    named columns, or the reverse).
    """
    _refuse_complex(X)
    validate_data(estimator, _layout(X), reset=False, skip_check_array=True)


def _string_names(table):
    """The string column names of a table's layout (a DataFrame's columns, a Series' name; pandas or Dask), else
    none: integer names (a frame built from an array) name no column of the user's data.
    """
    names = getattr(table, "columns", None)
    names = [getattr(table, "name", None)] if names is None else list(names)
    return {name for name in names if isinstance(name, str)}


def warn_sensitive_columns(shared: list, *, where: str, remedy: str) -> None:
    """Warn (:class:`~fairlearn_dp.exceptions.PrivacyWarning`) that the public features hold the sensitive
    attribute(s) ``shared``, under ``privacy_unit="sensitive_attribute"``: one home for the message.

    That unit treats the features as public and protects only ``sensitive_features``. A model fitted on features
    that hold the attribute may reveal it: the guarantee still holds for its relation (the features are fixed
    between neighbours) but then protects nothing the features show. Not a refusal: that is the user's declaration
    to make, and Fairlearn's examples keep the attribute among the features. ``where`` names the features,
    ``remedy`` says what to pass instead. Public schema only (names), so it is issued before the budget check.
    """
    if shared:
        warn(f"{where} hold(s) the sensitive column(s) {sorted(shared)}, but privacy_unit='sensitive_attribute' "
             "treats the features as public (only the sensitive features are private): a model fitted on them may "
             "reveal those columns, and the guarantee protects nothing they show. " + remedy, PrivacyWarning)


def warn_sensitive_columns_in_X(X: Any, sensitive_features: Any, *, remedy: str) -> None:
    """:func:`warn_sensitive_columns` for an ``X`` with a column named like a column of ``sensitive_features``,
    where a model is fitted on the public ``X`` (``privacy_unit="sensitive_attribute"``). A copy of the attribute
    under another name cannot be told from the layout: the docstrings say to keep it out of ``X``.
    """
    warn_sensitive_columns(sorted(_string_names(X) & _string_names(sensitive_features)), where="X", remedy=remedy)


# ------------------------------------------------------------------------------------------ the AIF360 faces
_LAYOUT = ("n_features_in_", "feature_names_in_")


def _layout_holder(face):
    """A scikit-learn estimator named like ``face`` (so that scikit-learn's messages name it) holding its layout."""
    holder = type(type(face).__name__, (BaseEstimator,), {})()
    holder.__dict__.update({name: face.__dict__[name] for name in _LAYOUT if name in face.__dict__})
    return holder


def set_dataset_features(face: Any, feature_names: Any) -> None:
    """Set ``n_features_in_`` and ``feature_names_in_`` of an AIF360 face from the names of the dataset features its
    model reads at fit (the schema, public), as scikit-learn's estimators set them from a DataFrame's columns.
    """
    holder = _layout_holder(face)
    set_fit_features(holder, names_frame(feature_names))
    for name in _LAYOUT:
        face.__dict__.pop(name, None)
        if name in holder.__dict__:
            setattr(face, name, holder.__dict__[name])


def check_dataset_features(face: Any, feature_names: Any) -> None:
    """Refuse, with scikit-learn's ``ValueError``, a dataset whose features the face reads (``feature_names``) are
    not those at fit, in the same order. ``None`` (not a dataset) is left to the face's own check of its argument.
    """
    if feature_names is not None:
        check_predict_features(_layout_holder(face), names_frame(feature_names))
