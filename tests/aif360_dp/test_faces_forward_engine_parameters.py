"""Every AIF360 face takes every parameter of the engine it delegates to, or says why it does not.

A parameter the face neither accepts nor lists here (with the reason the AIF360 interface supplies it otherwise)
fails this test: a new engine parameter cannot be silently dropped by a face.
"""

import importlib
import inspect

import pytest

# face -> (engine, {engine parameter: how the face supplies it})
_FACES = {
    "aif360_dp.algorithms.inprocessing.DPExponentiatedGradientReduction": (
        "fairlearn_dp.reductions.DPExponentiatedGradient", {
            "groups": "the dataset's declared protected-attribute values",
            "random_state": "AIF360's name: seed",
        }),
    "aif360_dp.algorithms.inprocessing.DPGerryFairClassifier": (
        "fairlearn_dp.reductions.DPGerryFairClassifier", {
            "early_termination": "an argument of fit(dataset, early_termination=...), as in AIF360",
            "sensitive_values": "the dataset's protected attributes and their declared values",
        }),
    "aif360_dp.algorithms.inprocessing.DPGroupBudgetRegression": (
        "fairlearn_dp.reductions.DPGroupBudgetRegressor", {
            "groups": "the dataset's declared protected-attribute values",
            "random_state": "AIF360's name: seed",
            "target_bound": "bounds: the target is mapped from the public bounds onto [-1, 1]",
        }),
    "aif360_dp.algorithms.inprocessing.DPGroupBudgetClassification": (
        "fairlearn_dp.reductions.DPGroupBudgetClassifier", {
            "classes": "the dataset's favorable and unfavorable labels",
            "groups": "the dataset's declared protected-attribute values",
            "random_state": "AIF360's name: seed",
            "target_bound": "labels are 0/1",
        }),
    "aif360_dp.algorithms.postprocessing.DPEqOddsPostprocessing": (
        "fairlearn_dp.postprocessing.DPThresholdOptimizer", {
            "constraints": "AIF360's equalized odds",
            "objective": "AIF360's objective (sum of FPR - TPR)",
            "estimator": "AIF360 post-processes the predicted labels of dataset_pred",
            "prefit": "no estimator",
            "predict_method": "no estimator: the predicted labels",
            "flip": "AIF360's LP may flip labels",
            "grid_size": "binary predictions: no threshold grid",
            "score_range": "binary predictions",
            "tol": "AIF360-style name: gamma",
            "groups": "privileged_groups and unprivileged_groups",
            "random_state": "AIF360's name: seed",
        }),
    "aif360_dp.algorithms.postprocessing.DPFairRegressionPostprocessing": (
        "fairlearn_dp.postprocessing.DPFairRegressionPostprocessor", {
            "estimator": "the dataset's scores are the regressor's outputs",
            "prefit": "no estimator",
            "predict_method": "no estimator",
            "groups": "the dataset's declared protected-attribute values",
            "random_state": "AIF360's name: seed",
        }),
}


def _load(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("face", sorted(_FACES))
def test_the_face_takes_every_engine_parameter_or_says_why_not(face):
    engine, supplied = _FACES[face]
    face_parameters = set(inspect.signature(_load(face)).parameters)
    engine_parameters = set(inspect.signature(_load(engine)).parameters)
    missing = sorted(engine_parameters - face_parameters - set(supplied))
    assert not missing, f"{face} drops the engine parameters {missing}: forward them (or list why here)."
    stale = sorted(set(supplied) - (engine_parameters - face_parameters))
    assert not stale, f"{face}: {stale} are listed as supplied otherwise but the face takes them (or the engine lacks them)."
