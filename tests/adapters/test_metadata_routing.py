"""Metadata routing (issue: true drop-ins): ``clone`` keeps ``set_fit_request``/``set_predict_request``, and
``cross_validate`` with routed ``sensitive_features`` runs, for every scikit-learn-style registry row (the AIF360
rows are AIF360 ``Transformer``s on datasets, outside scikit-learn's routing; a "reporting" row is built from evaluation data,
not fitted; a "preprocessing" row reads its sensitive columns from ``X`` and routes no metadata)."""

import inspect
import warnings

import numpy as np
import pytest
import sklearn
from audit_cases import default_audit_case
from fairdp_adapters import registry
from sklearn.base import clone
from sklearn.model_selection import KFold, cross_validate
from sklearn.utils._metadata_requests import MetadataRequest

from fairlearn_dp.exceptions import FairdpWarning

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check metadata routing,
    # not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]

ROWS = [entry.name for entry in registry.entries() if entry.toolkit == "fairlearn"
        and entry.task not in ("reporting", "preprocessing")]


def _predict_takes_sensitive_features(estimator):
    return "sensitive_features" in inspect.signature(estimator.predict).parameters


class _MeanPredictionScorer:
    """A scorer that requests ``sensitive_features`` and passes it on to ``predict`` when the estimator needs it."""

    def __call__(self, estimator, X, y=None, sensitive_features=None):
        if _predict_takes_sensitive_features(estimator):
            predictions = estimator.predict(X, sensitive_features=sensitive_features)
        else:
            predictions = estimator.predict(X)
        return float(np.mean(np.asarray(predictions, dtype=float)))

    def get_metadata_routing(self):
        request = MetadataRequest(owner=type(self).__name__)
        request.score.add_request(param="sensitive_features", alias=True)
        return request


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


@pytest.mark.parametrize("name", ROWS)
def test_clone_keeps_the_metadata_requests(name, routing):
    estimator = default_audit_case(name).factory(0).set_fit_request(sensitive_features=True)
    if _predict_takes_sensitive_features(estimator):
        estimator.set_predict_request(sensitive_features=True)
    copy = clone(estimator)
    assert copy.accountant is estimator.accountant                 # the shared accountant survives too
    fit_requests = copy.get_metadata_routing().fit.requests
    assert fit_requests["sensitive_features"] is True
    if _predict_takes_sensitive_features(estimator):
        assert copy.get_metadata_routing().predict.requests["sensitive_features"] is True


@pytest.mark.parametrize("name", ROWS)
def test_cross_validate_with_routed_sensitive_features(name, routing):
    case = default_audit_case(name)
    estimator = case.factory(0).set_fit_request(sensitive_features=True)
    if _predict_takes_sensitive_features(estimator):
        estimator.set_predict_request(sensitive_features=True)
    data = dict(case.dataset)
    X, y, sensitive = data.pop("X"), data.pop("y", None), data.pop("sensitive_features")
    assert not data, f"unexpected fit arguments {sorted(data)}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)            # released-value warnings of small test data
        warnings.simplefilter("ignore", FairdpWarning)             # (fairdp's, in its own categories)
        result = cross_validate(estimator, X, y, params={"sensitive_features": sensitive},
                                cv=KFold(2, shuffle=True, random_state=0), scoring=_MeanPredictionScorer(),
                                error_score="raise")
    assert np.all(np.isfinite(result["test_score"]))
