"""A scikit-learn ``Pipeline`` as the estimator of the statistics game: its preprocessing defines the features.

Fairlearn's ``ExponentiatedGradient`` fits a clone of the whole pipeline every round, with the weights passed as
``estimator.fit(X, y, **{sample_weight_name: w})`` (e.g. ``"classifier__sample_weight"``). The statistics game
releases statistics of numeric features, so it splits the pipeline: the preprocessing (every step but the last) is
fitted once and maps the raw ``X`` to the features whose statistics are released; the last step is the Learner,
fitted every round on those features with the weights under the name ``sample_weight_name`` gives it in
``Pipeline.fit`` (``"classifier__sample_weight"`` -> ``sample_weight`` of the step ``classifier``).

- ``privacy_unit="sensitive_attribute"``: X and y are public, so the preprocessing is cloned and fitted on them,
  once, as ``Pipeline.fit`` would (one feature map for the released statistics, the Learner's fits and the
  predictions: ``fit`` then ``transform``).
- ``privacy_unit="record"``: X is private, so the preprocessing must be public. Each step must be **prefit** (it
  passes scikit-learn's ``check_is_fitted``, e.g. fitted beforehand on public data; it is used as it is, never
  refitted), **stateless** (scikit-learn's ``requires_fit=False`` tag: ``FunctionTransformer``, ``Normalizer``, ...)
  or **declared**: ``OneHotEncoder``/``OrdinalEncoder`` with explicit ``categories`` and no ``min_frequency`` or
  ``max_categories``, ``SimpleImputer(strategy="constant", keep_empty_features=True)`` without ``add_indicator``;
  fitting a declared step learns nothing from the values (only the declared parameters and the schema). A step
  must transform each row on its own (every scikit-learn transformer does; a ``FunctionTransformer``'s function
  must too): one record then changes one row of the features, which the public row-norm clipping bounds. A
  ``ColumnTransformer``, ``FeatureUnion`` or nested ``Pipeline`` is prefit as a whole, or made of stateless,
  declared or ``sklearn.frozen.FrozenEstimator``-wrapped prefit parts (fitting a container refits its parts). Scaling
  with declared bounds is a ``FunctionTransformer`` or a scaler fitted on the bounds (``MinMaxScaler(clip=True).fit(
  [lower, upper])``). Anything else is refused before the budget check, with a message that says how to fix it. On
  the private rows the steps run with their warnings suppressed and are made total row by row (a row on which a
  step raises, or whose features are not finite, gets the zero feature row: ``fit_preprocessing``), and a
  ``ColumnTransformer`` is fitted with ``sparse_threshold=0`` (its sparse-or-dense choice reads the data's density;
  the game densifies the output anyway).

The fitted estimator keeps ``preprocessor_`` (the fitted preprocessing, then a step that makes the output a dense
float array and, under ``"record"``, the public row-norm clipping) and ``predictors_`` as full pipelines
(``preprocessor_``'s steps, then the play as the last step): each accepts the raw ``X``, as Fairlearn's do.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.impute import SimpleImputer
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, OrdinalEncoder
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from .._compat import num_samples
from .._utils._rows import clip_rows
from .._utils._withheld import call_on_private_rows, call_total_on_private_rows, rows_accepted_by, take_rows

__all__ = ["GameEstimator", "PipelineParts", "FixedPlay", "game_estimator", "pipeline_parts", "fit_preprocessing",
           "finish_pipeline", "pipeline_pmf"]

_IDENTITY = (None, "passthrough", "drop")
_HOW_TO_FIX = (
    "Make it public in one of these ways: fit it beforehand on public data (a prefit step is used as it is; inside a "
    "ColumnTransformer, FeatureUnion or nested Pipeline that is not fitted, wrap a prefit part in "
    "sklearn.frozen.FrozenEstimator); use a stateless transformer that maps each row on its own (FunctionTransformer, "
    "Normalizer, ...); or declare it: OneHotEncoder/OrdinalEncoder(categories=[...]) with explicit categories (no "
    "min_frequency or max_categories), SimpleImputer(strategy='constant', keep_empty_features=True). Scale numeric "
    "columns with declared bounds: a FunctionTransformer, or MinMaxScaler(clip=True).fit([lower, upper]). Or, if only "
    "the sensitive feature is private, use privacy_unit='sensitive_attribute'. A step fitted on the training rows "
    "themselves, or a function that is not row-wise, voids the guarantee. Nothing was spent.")


class PipelineParts(NamedTuple):
    """A ``Pipeline`` estimator split for the game (public: the estimator and ``sample_weight_name``)."""

    steps: list                 # (name, step) of the preprocessing, as given
    final_name: str
    final: Any                  # the Learner (cloned every round by the game)
    weight_name: str            # the final step's fit argument for the weights


class FittedPreprocessing(NamedTuple):
    """The preprocessing fitted for one fit, and the game's features it gives."""

    pipeline: Pipeline          # fitted preprocessing steps, then the dense-float step
    features: np.ndarray        # the game's X: dense float, one row per row of the raw X
    n_features_in: int | None   # columns of the raw X


class GameEstimator(NamedTuple):
    """The statistics game's view of the estimator: its features, its Learner and the Learner's weight argument
    (for a ``Pipeline``: the transformed features, the last step, its argument; otherwise all as given).
    """

    features: Any
    learner: Any
    weight_name: str
    final_name: str | None = None
    preprocessing: Pipeline | None = None
    n_features_in: int | None = None

    def fitted_attributes(self, plays, n_features, *, clip_bound=None):
        """``(preprocessor_, predictors_, n_features_in_)`` of the fitted estimator (``n_features``: the game's)."""
        if self.preprocessing is None:
            return None, list(plays), n_features
        preprocessor, predictors = finish_pipeline(self.preprocessing, self.final_name, plays, clip_bound=clip_bound)
        return preprocessor, predictors, self.n_features_in


class FixedPlay(ClassifierMixin, BaseEstimator):
    """A play of the private game that is not a scikit-learn estimator (e.g. a ``LinearThresholdClassifier``), as
    the last step of a fitted ``Pipeline``: it predicts as the play does and cannot be refitted.
    """

    def __init__(self, play=None):
        self.play = play

    def fit(self, X, y=None, **fit_params):
        raise TypeError("a play of the private game is fixed by the fit that chose it; it cannot be refitted.")

    def predict(self, X):
        return np.asarray(self.play.predict(X))

    def __sklearn_is_fitted__(self):
        return self.play is not None


# ------------------------------------------------------------------------------------------ public checks
def pipeline_parts(estimator, sample_weight_name, *, record) -> PipelineParts | None:
    """``estimator`` split into preprocessing and Learner, checked as a public parameter (before the budget).

    None when ``estimator`` is not a ``Pipeline``. Under ``record`` the preprocessing must be public (module
    docstring); otherwise a ``ValueError`` says how to make it so.
    """
    if not isinstance(estimator, Pipeline):
        return None
    steps = list(estimator.steps)
    _check_steps(steps)
    final_name, final = steps[-1]
    weight_name = _final_weight_name(sample_weight_name, final_name, [name for name, _ in steps])
    if record:
        check_public_preprocessing(steps[:-1])
    return PipelineParts(steps[:-1], final_name, final, weight_name)


def _check_steps(steps):
    """A classifier last, transformers (or identities) before it."""
    if not steps:
        raise ValueError("estimator: the Pipeline has no steps.")
    final_name, final = steps[-1]
    if final in _IDENTITY or not (hasattr(final, "fit") and hasattr(final, "predict")):
        raise TypeError(f"estimator: the last step of the Pipeline ({final_name!r}) must be a classifier with fit "
                        f"and predict, got {type(final).__name__}.")
    for name, step in steps[:-1]:
        if step not in (None, "passthrough") and not (hasattr(step, "transform") and hasattr(step, "fit")):
            raise TypeError(f"estimator: the Pipeline's step {name!r} must be a transformer (fit and transform), "
                            f"'passthrough' or None, got {type(step).__name__}.")


def check_public_preprocessing(steps):
    """Refuse (``ValueError``) a preprocessing step that is neither prefit nor safe to fit on private records."""
    for name, step in steps:
        fitted, fit_safe, culprit = _public_kind(step, repr(name))
        if not (fitted or fit_safe):
            raise ValueError(f"privacy_unit='record': X is private, so the Pipeline's preprocessing must be public, "
                             f"but step {culprit} would learn from the private records. {_HOW_TO_FIX}")


def _final_weight_name(sample_weight_name, final_name, step_names):
    """The final step's weight argument that ``sample_weight_name`` names in ``Pipeline.fit``'s ``step__param`` form."""
    prefix, separator, param = sample_weight_name.partition("__")
    example = f"'{final_name}__sample_weight'"
    if not separator or not prefix or not param:
        raise ValueError(f"sample_weight_name={sample_weight_name!r}: with a Pipeline estimator the weights go to a "
                         f"step, named as Pipeline.fit takes them (step__parameter), e.g. {example}; Pipeline.fit "
                         "refuses a bare 'sample_weight'.")
    if prefix == final_name:
        return param
    if prefix in step_names:
        raise ValueError(f"sample_weight_name={sample_weight_name!r} passes the weights to the preprocessing step "
                         f"{prefix!r}: the private game fits the preprocessing once, without weights (they change "
                         f"every round), and weights only the last step; name it, e.g. {example}.")
    raise ValueError(f"sample_weight_name={sample_weight_name!r} names no step of the Pipeline (steps: "
                     f"{step_names}); name its last step, e.g. {example}.")


def _is_fitted(step):
    try:
        check_is_fitted(step)
    except (NotFittedError, TypeError):
        return False
    return True


def _stateless(step):
    """scikit-learn's ``requires_fit=False`` tag (its fit learns nothing)."""
    try:
        return not get_tags(step).requires_fit
    except Exception:                           # not a scikit-learn estimator: assume it learns
        return False


def _declared(step):
    """A step whose fit learns only its declared parameters and the schema, never the values."""
    if type(step) in (OneHotEncoder, OrdinalEncoder):
        return (not isinstance(step.categories, str) and step.min_frequency is None
                and step.max_categories is None)
    if type(step) is SimpleImputer:
        return step.strategy == "constant" and bool(step.keep_empty_features) and not step.add_indicator
    return False


def _children(step):
    """``(name, part)`` of a container the fit of which fits (or refits) its parts; None for a leaf."""
    if isinstance(step, Pipeline):
        return list(step.steps)
    if isinstance(step, ColumnTransformer):
        parts = [(name, part) for name, part, _ in step.transformers]
        return parts + ([("remainder", step.remainder)] if not isinstance(step.remainder, str) else [])
    if isinstance(step, FeatureUnion):
        return list(step.transformer_list)
    return None


def _public_kind(step, path):
    """``(fitted, fit_safe, culprit)``: usable as it is; fitting it learns nothing from the values; else which part
    (its path and why) is neither.
    """
    if step in _IDENTITY:
        return True, True, None
    children = _children(step)
    if children is None:
        return _leaf_kind(step, path)
    kinds = [(_public_kind(part, f"{path} > {name!r}"), name, part) for name, part in children]
    fitted = all(kind[0] for kind, _, _ in kinds) if isinstance(step, Pipeline) else _is_fitted(step)
    fit_safe = all(kind[1] for kind, _, _ in kinds)
    culprit = None if fitted or fit_safe else _container_culprit(step, kinds, path)
    return fitted, fit_safe, culprit


def _leaf_kind(step, path):
    fitted = _is_fitted(step)
    fit_safe = _stateless(step) or _declared(step) or (type(step) is FrozenEstimator and fitted)
    return fitted, fit_safe, None if fitted or fit_safe else f"{path} ({type(step).__name__}, not fitted)"


def _container_culprit(container, kinds, path):
    """The first part that is neither prefit nor safe to fit, else the first prefit part that fitting the (unfitted)
    container would refit.
    """
    reason = next((kind[2] for kind, _, _ in kinds if kind[2] is not None), None)
    if reason is not None:
        return reason
    name, part = next((name, part) for kind, name, part in kinds if not kind[1])
    return (f"{path} > {name!r} ({type(part).__name__}: prefit, but fitting {type(container).__name__} {path}, "
            "which is not fitted, refits it)")


# ------------------------------------------------------------------------------------------ fit and predict
def game_estimator(estimator, sample_weight_name, X, y, *, record) -> GameEstimator:
    """The game's features, Learner and weight argument; a ``Pipeline``'s preprocessing is fitted here, so after the
    budget check (it reads ``X``).
    """
    parts = pipeline_parts(estimator, sample_weight_name, record=record)
    if parts is None:
        return GameEstimator(X, estimator, sample_weight_name)
    fitted = fit_preprocessing(parts, X, y, record=record)
    return GameEstimator(fitted.features, parts.final, parts.weight_name, parts.final_name, fitted.pipeline,
                         fitted.n_features_in)


def fit_preprocessing(parts, X, y, *, record) -> FittedPreprocessing:
    """The fitted preprocessing and the game's features (dense floats); after the budget check (reads ``X``)."""
    n_features_in = int(np.shape(X)[1]) if len(np.shape(X)) == 2 else None      # e.g. a list of dicts
    if not record:                              # X, y public: fitted on them, as Pipeline.fit would
        fitted = clone(Pipeline(parts.steps)).fit(X, y).steps if parts.steps else []
        pipeline = Pipeline(fitted + [_dense_step(fitted)])
        return FittedPreprocessing(pipeline, pipeline.transform(X), n_features_in)
    # X is private: every call of a step on its rows is made total row by row (_utils/_withheld.py), so whether the
    # fit succeeds never depends on one record. A declared or stateless step is fitted on the rows its fit accepts
    # (it learns only the schema and its declared parameters, the same from any of them); a row on which a step
    # raises, or whose features are not finite, gets the zero feature row, which every row bound admits. The
    # default is a function of the row alone, so one substituted record still changes one row of the features.
    fitted, Xt = [], X
    for name, step in parts.steps:
        what = f"the Pipeline's preprocessing step {name!r}"
        if not _public_kind(step, name)[0]:     # declared or stateless: its fit learns no value
            step = _dense_column_transformers(clone(step))
            Xt = _fit_on_accepted_rows(step, Xt, what)
        if step not in _IDENTITY:
            Xt = _transform_accepted_rows(step, Xt)
        fitted.append((name, step))
    dense = _dense_step(fitted)
    pipeline = Pipeline(fitted + [dense])
    # Every row went through every step: only the dense step is left to run; else the whole preprocessing, total.
    whole = num_samples(Xt) == num_samples(X)
    features = call_total_on_private_rows(dense[1].transform if whole else pipeline.transform, Xt if whole else X,
                                          "the Pipeline's preprocessing", default=0.0,
                                          row_shape=lambda: _public_width(fitted))
    return FittedPreprocessing(pipeline, features, n_features_in)


def _fit_on_accepted_rows(step, Xt, what):
    """Fit ``step`` on the rows of ``Xt`` its fit accepts (all, unless it raises on some); returns those rows."""
    accepted = rows_accepted_by(step.fit, Xt)
    if accepted.size == 0:
        raise ValueError(f"{what} could be fitted on no fitting row; its messages are withheld because they could "
                         "quote the private data.")
    if accepted.size < num_samples(Xt):
        Xt = take_rows(Xt, accepted)
        call_on_private_rows(step.fit, Xt, what)
    return Xt


def _transform_accepted_rows(step, Xt):
    """``step.transform`` of the rows of ``Xt`` it accepts (what later declared steps are fitted on)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return step.transform(Xt)
        except Exception:               # dropped: only the rows it accepts are kept
            pass
        accepted = rows_accepted_by(step.transform, Xt)
        return step.transform(take_rows(Xt, accepted)) if accepted.size else take_rows(Xt, accepted)


def _public_width(steps):
    """``(n features,)`` from the fitted preprocessing's ``get_feature_names_out`` (its schema), or None."""
    try:
        return (len(Pipeline(steps).get_feature_names_out()),) if steps else None
    except Exception:                   # not every transformer names its outputs
        return None


def finish_pipeline(preprocessing, final_name, plays, *, clip_bound=None):
    """``(preprocessor_, predictors_)``: the fitted preprocessing (with the public row clipping when ``clip_bound``
    is given) and each play as the last step of a pipeline that starts with it.
    """
    steps = list(preprocessing.steps)
    if clip_bound is not None:
        steps.append((_unique_name("fairdp_row_clip", steps),
                      FunctionTransformer(clip_rows, kw_args={"bound": float(clip_bound)})))
    predictors = [Pipeline(steps + [(final_name, play if _is_fitted(play) else FixedPlay(play))]) for play in plays]
    return Pipeline(steps), predictors


def pipeline_pmf(preprocessor, predictors, weights, X):
    """``(n, 2)`` probabilities of predicting 0 and 1: ``X`` preprocessed once, then each play's last step."""
    features = preprocessor.transform(X)
    positive = np.zeros(features.shape[0])
    for predictor, weight in zip(predictors, weights, strict=False):
        if weight > 0:
            positive += weight * np.asarray(predictor[-1].predict(features), dtype=float).ravel()
    return np.column_stack([1.0 - positive, positive])


def as_dense_float(X):
    """``X`` as a dense 2-D float array (the game's features)."""
    if sp.issparse(X):
        X = X.toarray()
    return np.asarray(X.to_numpy() if hasattr(X, "to_numpy") else X, dtype=float)


def _dense_step(steps):
    return _unique_name("fairdp_dense", steps), FunctionTransformer(as_dense_float)


def _unique_name(base, steps):
    taken = {name for name, _ in steps}
    name, k = base, 1
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name


def _dense_column_transformers(step):
    """``step`` (a clone) with every ``ColumnTransformer`` in it set to ``sparse_threshold=0``."""
    if isinstance(step, ColumnTransformer):
        step.set_params(sparse_threshold=0.0)
    for _, part in _children(step) or []:
        if part not in _IDENTITY:
            _dense_column_transformers(part)
    return step
