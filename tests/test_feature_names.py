"""``n_features_in_`` and ``feature_names_in_`` of every registry row, as scikit-learn sets and checks them (issue 34).

A model fitted on a DataFrame with columns ``w, x, y, z`` and asked to predict on ``z, y, x, w`` used to answer
silently with wrong predictions (a column-for-column product). Every Fairlearn-face estimator with a ``predict`` now
refuses it with scikit-learn's "feature names should match" ``ValueError`` (at ``predict``, ``predict_proba`` and
``_pmf_predict``), warns as scikit-learn does on a name-less ``X`` after a fit on names, refuses another number of
columns with scikit-learn's n_features message, and sets the two attributes as scikit-learn's estimators do. The
AIF360 faces refuse a dataset whose ``feature_names`` differ from those at fit (names and order).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairdp_adapters import registry
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LinearRegression, LogisticRegression

N = 600
COLUMNS = ["w", "x", "y", "z"]
NAMES_DIFFER = "The feature names should match those that were passed during fit"
NO_NAMES = "X does not have valid feature names"
N_FEATURES = r"X has 3 features, but \w+ is expecting 4 features as input"


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    X = pd.DataFrame(rng.uniform(-1, 1, (N, 4)), columns=COLUMNS)
    a = rng.randint(0, 2, N)
    y = (X.w + 0.5 * X.x - 0.2 * X.z + 0.3 * rng.randn(N) > 0).astype(int).to_numpy()
    target = np.clip(0.5 + 0.3 * X.w - 0.2 * X.y, 0, 1).to_numpy()
    return X, a, y, target


def _threshold_optimizer(X, y, target):
    from fairlearn_dp.postprocessing import DPThresholdOptimizer

    return DPThresholdOptimizer(estimator=LogisticRegression().fit(X, y), prefit=True, predict_method="predict_proba",
                                epsilon=1.0, groups=[0, 1], random_state=0)


def _fair_regression(X, y, target):
    from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

    return DPFairRegressionPostprocessor(estimator=LinearRegression().fit(X, target), prefit=True, epsilon=1.0,
                                         bounds=(0, 1), groups=[0, 1], random_state=0)


def _exponentiated_gradient(unit, epsilon=1.0):
    def make(X, y, target):
        from fairlearn_dp.reductions import DPExponentiatedGradient

        return DPExponentiatedGradient(LogisticRegression(), DemographicParity(), epsilon=epsilon, max_iter=5,
                                       groups=[0, 1], privacy_unit=unit, random_state=0)
    return make


def _grid_search(unit, epsilon=1.0):
    def make(X, y, target):
        from fairlearn_dp.reductions import DPGridSearch

        return DPGridSearch(LogisticRegression(), DemographicParity(), grid_size=3, epsilon=epsilon, groups=[0, 1],
                            privacy_unit=unit, random_state=0)
    return make


def _algorithm3(X, y, target):
    from fairlearn_dp.reductions import JagielskiExponentiatedGradient

    return JagielskiExponentiatedGradient(DemographicParity(), epsilon=5.0, max_iter=5, min_count=5, groups=[0, 1],
                                          random_state=0)


def _exponential_mechanism(X, y, target):
    from fairlearn_dp.reductions import ExponentialMechanismFairClassifier
    from fairlearn_dp.reductions._hypotheses import LinearThresholdClassifier

    return ExponentialMechanismFairClassifier([LinearThresholdClassifier(v, 0.0) for v in np.eye(4)], epsilon=1.0,
                                              groups=[0, 1], random_state=0)


def _gerryfair(X, y, target):
    from fairlearn_dp.reductions import DPGerryFairClassifier

    return DPGerryFairClassifier(epsilon=1.0, max_iters=3, random_state=0)


def _group_budget(name):
    def make(X, y, target):
        from fairlearn_dp import reductions

        return getattr(reductions, name)(epsilon=1.0, groups=[0, 1], n_iter=20, random_state=0)
    return make


#: ``(registry row, variant) -> (factory(X, y, target), regression, needs sensitive_features at predict)``.
CASES = {
    ("DPThresholdOptimizer", ""): (_threshold_optimizer, False, True),
    ("DPFairRegressionPostprocessor", ""): (_fair_regression, True, True),
    ("DPExponentiatedGradient", "attribute"): (_exponentiated_gradient("sensitive_attribute"), False, False),
    ("DPExponentiatedGradient", "record"): (_exponentiated_gradient("record"), False, False),
    ("DPExponentiatedGradient", "inf"): (_exponentiated_gradient("sensitive_attribute", np.inf), False, False),
    ("JagielskiExponentiatedGradient", "attribute"): (_algorithm3, False, False),
    ("DPGridSearch", "attribute"): (_grid_search("sensitive_attribute"), False, False),
    ("DPGridSearch", "record"): (_grid_search("record"), False, False),
    ("DPGridSearch", "inf"): (_grid_search("sensitive_attribute", np.inf), False, False),
    ("ExponentialMechanismFairClassifier", ""): (_exponential_mechanism, False, False),
    ("DPGerryFairClassifier", ""): (_gerryfair, False, False),
    ("DPGroupBudgetClassifier", ""): (_group_budget("DPGroupBudgetClassifier"), False, False),
    ("DPGroupBudgetRegressor", ""): (_group_budget("DPGroupBudgetRegressor"), True, False),
}
IDS = [f"{row}-{variant}" if variant else row for row, variant in CASES]


def _fitted(case, data, *, frame=True):
    X, a, y, target = data
    make, regression, _ = CASES[case]
    X = X if frame else X.to_numpy()
    model = make(X, y, target)
    model.set_params(accountant=BudgetAccountant())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # privacy warnings of small fits: not this test's subject
        model.fit(X, target if regression else y, sensitive_features=a)
    return model


def _predicting_methods(case, model, a):
    """``{name: callable(X)}``: ``predict`` and, where the class has them, ``predict_proba`` and ``_pmf_predict``."""
    keywords = {"sensitive_features": a} if CASES[case][2] else {}
    methods = {"predict": lambda X: model.predict(X, **keywords)}
    for name in ("predict_proba", "_pmf_predict"):
        if hasattr(model, name):
            methods[name] = (lambda method: lambda X: method(X, **keywords))(getattr(model, name))
    return methods


def test_every_fairlearn_face_row_that_predicts_is_covered():
    rows = {entry.name for entry in registry.entries("fairlearn") if hasattr(entry.load(), "predict")}
    assert rows == {row for row, _ in CASES}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_reordered_columns_are_refused(case, data):
    model = _fitted(case, data)
    X, a = data[0], data[1]
    for name, method in _predicting_methods(case, model, a).items():
        with pytest.raises(ValueError, match=NAMES_DIFFER):
            method(X[COLUMNS[::-1]])
        with pytest.raises(ValueError, match=NAMES_DIFFER):
            method(X[COLUMNS[:3]])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_attributes_after_a_dataframe_fit(case, data):
    model = _fitted(case, data)
    assert model.n_features_in_ == 4
    np.testing.assert_array_equal(model.feature_names_in_, np.array(COLUMNS, dtype=object))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_numpy_x_after_a_dataframe_fit_warns_as_scikit_learn(case, data):
    model = _fitted(case, data)
    for name, method in _predicting_methods(case, model, data[1]).items():
        with pytest.warns(UserWarning, match=NO_NAMES):
            method(data[0].to_numpy())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_numpy_fit_has_no_names_and_refuses_another_number_of_columns(case, data):
    model = _fitted(case, data)                    # a DataFrame fit first: the numpy refit must drop its names
    model = _fitted(case, data, frame=False)
    assert model.n_features_in_ == 4
    assert not hasattr(model, "feature_names_in_")
    for name, method in _predicting_methods(case, model, data[1]).items():
        with pytest.raises(ValueError, match=N_FEATURES):
            method(data[0].to_numpy()[:, :3])


# ------------------------------------------------------------------------------------------ the AIF360 faces
def _frame(data, columns):
    X, a, y, target = data
    frame = X[columns].copy()
    frame["a"] = a.astype(float)
    frame["label"], frame["target"] = y.astype(float), target
    return frame


def _binary(frame):
    from aif360.datasets import BinaryLabelDataset

    return BinaryLabelDataset(df=frame.drop(columns="target"), label_names=["label"], protected_attribute_names=["a"])


def _regression(frame):
    from aif360.datasets import RegressionDataset

    dataset = RegressionDataset(df=frame.drop(columns="label"), dep_var_name="target", protected_attribute_names=["a"],
                                privileged_classes=[[1.0]])
    dataset.metadata["label_scale"] = {"min": 0.0, "max": 1.0}
    dataset.metadata["label_bounds"] = (0.0, 1.0)
    return dataset


def _face(name):
    """``(the face, fit(face, dataset_of(columns)))`` for the AIF360 row ``name``."""
    from aif360_dp.algorithms import inprocessing, postprocessing

    if name == "DPEqOddsPostprocessing":
        return postprocessing.DPEqOddsPostprocessing([{"a": 0.0}], [{"a": 1.0}], seed=0), _binary, "pair"
    if name == "DPCalibratedEqOddsPostprocessing":
        return postprocessing.DPCalibratedEqOddsPostprocessing([{"a": 0.0}], [{"a": 1.0}], seed=0), _binary, "pair"
    if name == "DPRejectOptionClassification":
        return (postprocessing.DPRejectOptionClassification([{"a": 0.0}], [{"a": 1.0}], num_class_thresh=10,
                                                            num_ROC_margin=5, seed=0), _binary, "pair")
    if name == "DPFairRegressionPostprocessing":
        return postprocessing.DPFairRegressionPostprocessing(epsilon=1.0, bounds=(0, 1), seed=0), _regression, "one"
    if name == "DPExponentiatedGradientReduction":
        return (inprocessing.DPExponentiatedGradientReduction(LogisticRegression(), "DemographicParity", max_iter=5,
                                                              seed=0), _binary, "one")
    if name.endswith("DPGerryFairClassifier"):
        return inprocessing.DPGerryFairClassifier(max_iters=3, random_state=0), _binary, "one"
    if name == "DPGroupBudgetRegression":
        return inprocessing.DPGroupBudgetRegression(epsilon=1.0, n_iter=20, seed=0), _regression, "one"
    return inprocessing.DPGroupBudgetClassification(epsilon=1.0, n_iter=20, seed=0), _binary, "one"


AIF360_ROWS = [entry.name for entry in registry.entries("aif360")]


@pytest.mark.parametrize("name", AIF360_ROWS)
def test_an_aif360_face_refuses_other_feature_names(name, data):
    face, dataset_of, kind = _face(name)
    face.accountant = BudgetAccountant()
    train = dataset_of(_frame(data, COLUMNS))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        face.fit(train, train.copy(deepcopy=True)) if kind == "pair" else face.fit(train)
        face.predict(train)
    # The features its model reads: the dataset's, in order (without the protected attribute where it is dropped).
    assert list(face.feature_names_in_) in (train.feature_names, COLUMNS)
    assert face.n_features_in_ == len(face.feature_names_in_)
    for columns in (COLUMNS[::-1], COLUMNS[:3]):
        with pytest.raises(ValueError, match=NAMES_DIFFER):
            face.predict(dataset_of(_frame(data, columns)))


# ------------------------------------------------------------------------------------------ Dask inputs
def _no_compute(*args, **kwargs):
    raise AssertionError("a Dask graph was computed")


@pytest.mark.dask
def test_a_dask_fit_and_predict_check_the_columns_without_computing(data):
    """The post-processors fit and predict on Dask DataFrames: the names come from ``columns``, nothing is computed."""
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    from fairlearn_dp.postprocessing import DPThresholdOptimizer

    X, a, y, _ = data
    frame = dd.from_pandas(pd.DataFrame({"score": 1 / (1 + np.exp(-X.w.to_numpy())), "y": y, "a": a}), npartitions=3)
    with dask.config.set(scheduler="threads"):
        model = DPThresholdOptimizer(groups=[0, 1], epsilon=1.0, accountant=BudgetAccountant(), random_state=0).fit(
            frame[["score"]], frame["y"], sensitive_features=frame["a"])
    np.testing.assert_array_equal(model.feature_names_in_, np.array(["score"], dtype=object))
    renamed = frame.rename(columns={"score": "proba"})
    with dask.config.set(scheduler=_no_compute):
        model.predict(frame[["score"]], sensitive_features=frame["a"], random_state=0)     # built, not run
        for method in (model.predict, model._pmf_predict):
            with pytest.raises(ValueError, match=NAMES_DIFFER):
                method(renamed[["proba"]], sensitive_features=renamed["a"])
