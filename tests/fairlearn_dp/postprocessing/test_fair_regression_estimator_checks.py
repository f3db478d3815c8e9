"""scikit-learn's estimator checks on ``DPFairRegressionPostprocessor`` (issue 34), which subclasses no Fairlearn
class, run through scikit-learn's ``parametrize_with_checks``.

The checks call ``fit(X, y)`` and ``predict(X)`` without ``sensitive_features``, which this post-processor needs (as
Fairlearn's own tests explain for its estimators that take ``sensitive_features``), so on the class itself every
check that fits fails for that one reason: ``expected_failed_checks`` lists them. To run those checks for real, a
test-only subclass passes one group for every row (``sensitive_features`` all 0, two groups declared) at
``epsilon=inf`` without ``bounds`` and ``alpha=1`` (the binned outputs unchanged, so ``predict`` is deterministic):
it fails only ``check_supervised_y_2d``, for the reason given there.
"""

import warnings

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor


def _n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(np.asarray(X))


class _OneGroup(DPFairRegressionPostprocessor):
    """The post-processor with ``sensitive_features`` filled in (one group for every row), for the checks only."""

    def fit(self, X, y=None, **kwargs):
        """``fit`` with every row in group 0."""
        return super().fit(X, y, sensitive_features=np.zeros(_n_rows(X)), **kwargs)

    def predict(self, X, *, sensitive_features=None, random_state=None):
        """``predict`` with every row in group 0 (seeded: at alpha=1 the draws do not change the output)."""
        return super().predict(X, sensitive_features=np.zeros(_n_rows(X)), random_state=0)

    def score(self, X, y, sample_weight=None):
        """``score`` with every row in group 0 (through ``predict``)."""
        return super().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        """At alpha=1 the transport is the identity on the bins: predictions do not depend on the draws."""
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags


_NEEDS_SENSITIVE_FEATURES = ("fit needs sensitive_features, which scikit-learn's checks do not pass (as Fairlearn's "
                             "tests explain for its estimators): fit raises a TypeError for the missing argument")
# Every check that fits the estimator (the checks of predictions that a non-deterministic estimator skips are not
# run); _OneGroup below runs them all.
_CHECKS_THAT_FIT = [
    "check_complex_data", "check_dict_unchanged", "check_dont_overwrite_parameters", "check_dtype_object",
    "check_estimator_sparse_array", "check_estimator_sparse_matrix", "check_estimator_sparse_tag",
    "check_estimators_dtypes", "check_estimators_empty_data_messages", "check_estimators_fit_returns_self",
    "check_estimators_nan_inf", "check_estimators_overwrite_params", "check_estimators_pickle",
    "check_f_contiguous_array_estimator", "check_fit1d", "check_fit2d_1feature", "check_fit2d_1sample",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent", "check_fit_score_takes_y",
    "check_n_features_in", "check_n_features_in_after_fitting", "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input", "check_regressor_data_not_an_array", "check_regressors_int",
    "check_regressors_no_decision_function", "check_regressors_train", "check_requires_y_none",
    "check_supervised_y_2d", "check_supervised_y_no_nan",
]
_Y_2D = ("y goes unchanged to the wrapped regressor, which decides what a column vector means (Ridge fits it as one "
         "output, whose one-column predictions are accepted), so no DataConversionWarning is raised here")


def _expected_failed_checks(estimator):
    if isinstance(estimator, _OneGroup):
        return {"check_supervised_y_2d": _Y_2D}
    return dict.fromkeys(_CHECKS_THAT_FIT, _NEEDS_SENSITIVE_FEATURES)


@parametrize_with_checks([DPFairRegressionPostprocessor(estimator=Ridge(), epsilon=np.inf),
                          _OneGroup(estimator=Ridge(), epsilon=np.inf, groups=[0.0, 1.0], alpha=1.0)],
                         expected_failed_checks=_expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        # _OneGroup puts every row in group 0, so every fit gives the declared group 1 the uniform PMF, warned
        warnings.filterwarnings("ignore", "The noisy weight of group index 1 is not positive", UtilityWarning)
        check(estimator)
