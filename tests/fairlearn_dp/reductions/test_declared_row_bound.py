"""The row bound from the user's declared preprocessing (issue 36, item 3) and a private base model that works on
the supported stack (item 5).

- ``layout_row_norm_bound``: the L2/L1 bound of a declared layout (one-hot blocks, bounded numeric columns), equal to
  the hand-computed value and attained, never exceeded, on every extreme row of the domain, whatever the encoder's
  ``drop``/``handle_unknown``;
- ``DPExponentiatedGradient(privacy_unit="record")`` with a Pipeline whose preprocessing is declared derives that bound
  itself (no loose-bound warning); an undeclared preprocessing is not trusted (the ``feature_bound`` fallback and
  its warning);
- ``DPLogisticRegression`` (diffprivlib's, constructible on scikit-learn 1.8+) + ``DPThresholdOptimizer(prefit=True)``.
"""

import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    OneHotEncoder,
    OrdinalEncoder,
    StandardScaler,
)

from fairlearn_dp.exceptions import UtilityWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer
from fairlearn_dp.reductions import (
    DPExponentiatedGradient,
    DPLogisticRegression,
    StatisticsGameOptions,
    layout_row_norm_bound,
)
from fairlearn_dp.reductions._pipeline_bounds import preprocessing_row_norm_bound

pytestmark = pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning")

COLORS, SIZES = ["red", "green", "blue"], ["S", "L"]
RANGES = {"u": (-2.0, 1.0), "v": (0.0, 3.0), "w": (-0.5, 0.5)}
# Two one-hot blocks (1 each) + max(lower^2, upper^2) of u, v, w: 2 + 4 + 9 + 0.25.
HAND_L2 = math.sqrt(2 + 4 + 9 + 0.25)
HAND_L1 = 2 + 2 + 3 + 0.5


def declared_preprocessing(drop=None, handle_unknown="ignore"):
    """Two declared one-hot blocks; u and v clipped to their declared ranges; w scaled by a scaler fitted on its
    declared range (``clip=True``) onto [-0.5, 0.5]."""
    clip = FunctionTransformer(np.clip, kw_args={"a_min": [RANGES["u"][0], RANGES["v"][0]],
                                                 "a_max": [RANGES["u"][1], RANGES["v"][1]]})
    scaler = MinMaxScaler(feature_range=RANGES["w"], clip=True).fit(pd.DataFrame({"w": [10.0, 20.0]}))
    encoder = OneHotEncoder(categories=[COLORS, SIZES], drop=drop, handle_unknown=handle_unknown)
    return ColumnTransformer([("cat", encoder, ["color", "size"]), ("clip", clip, ["u", "v"]),
                              ("scale", FrozenEstimator(scaler), ["w"])])


def extreme_rows():
    """Every combination of a category (or an unknown one) per block and an endpoint (or beyond it) per column."""
    colors, sizes = COLORS + ["purple"], SIZES + ["M"]
    u, v, w = [-3.0, -2.0, 1.0, 2.0], [-1.0, 0.0, 3.0, 4.0], [0.0, 10.0, 20.0, 30.0]
    return pd.DataFrame(list(itertools.product(colors, sizes, u, v, w)), columns=["color", "size", "u", "v", "w"])


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"color": rng.choice(COLORS, n), "size": rng.choice(SIZES, n), "u": rng.uniform(-2, 1, n),
                      "v": rng.uniform(0, 3, n), "w": rng.uniform(10, 20, n)})
    a = np.where(rng.random(n) < 0.5, "a", "b")
    y = ((X["u"] + (X["color"] == "red") + rng.normal(scale=0.5, size=n)) > 0).astype(int).to_numpy()
    return X, y, a


def record_model(preprocessing, **params):
    pipe = Pipeline([("pre", preprocessing), ("clf", LogisticRegression())])
    return DPExponentiatedGradient(pipe, DemographicParity(difference_bound=0.05), epsilon=1.0, delta=1e-5,
                                   groups=["a", "b"], privacy_unit="record", sample_weight_name="clf__sample_weight",
                                   max_iter=5, random_state=0, **params)


def fit_recording(model, X, y, a):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y, sensitive_features=a)
    return [w for w in caught if w.category is UtilityWarning and "sqrt(n_features)" in str(w.message)]


# ------------------------------------------------------------------------------------------ the helper
def test_layout_bound_is_the_hand_computed_one():
    layout = {"one_hot": [COLORS, SIZES], "numeric": RANGES}
    assert layout_row_norm_bound(**layout) == pytest.approx(HAND_L2, rel=1e-15)
    assert layout_row_norm_bound(**layout, norm="l1") == pytest.approx(HAND_L1, rel=1e-15)
    # A count of blocks and a list of ranges say the same.
    assert layout_row_norm_bound(one_hot=2, numeric=list(RANGES.values())) == pytest.approx(HAND_L2, rel=1e-15)


@pytest.mark.filterwarnings("ignore:Found unknown categories:UserWarning")   # the unknown rows, on purpose
@pytest.mark.parametrize("drop", [None, "first", "if_binary", ["green", "L"]])
@pytest.mark.parametrize("handle_unknown", ["ignore", "infrequent_if_exist"])
def test_layout_bound_holds_on_every_extreme_row_of_the_domain(drop, handle_unknown):
    """Every extreme row (each category or an unknown one, each endpoint or a value beyond it) of the declared
    layout has a norm at most the helper's bound, and the bound is attained (it is tight) without ``drop``."""
    X = extreme_rows()
    features = np.asarray(declared_preprocessing(drop, handle_unknown).fit(X).transform(X), dtype=float)
    l2 = np.linalg.norm(features, axis=1)
    l1 = np.abs(features).sum(axis=1)
    bound_l2 = layout_row_norm_bound(one_hot=[COLORS, SIZES], numeric=RANGES)
    bound_l1 = layout_row_norm_bound(one_hot=[COLORS, SIZES], numeric=RANGES, norm="l1")
    assert l2.max() <= bound_l2 * (1 + 1e-12) and l1.max() <= bound_l1 * (1 + 1e-12)
    if drop is None:
        assert l2.max() == pytest.approx(bound_l2, rel=1e-12) and l1.max() == pytest.approx(bound_l1, rel=1e-12)


@pytest.mark.parametrize("layout, error, needle", [
    ({"one_hot": -1}, ValueError, "one_hot"),
    ({"one_hot": "abc"}, TypeError, "one_hot"),
    ({"one_hot": [[]]}, ValueError, "one_hot\\[0\\]"),
    ({"one_hot": [3]}, TypeError, "one_hot\\[0\\]"),
    ({"numeric": {"x": (2, 1)}}, ValueError, "numeric\\['x'\\]"),
    ({"numeric": {"x": (0, np.inf)}}, ValueError, "numeric\\['x'\\]"),
    ({"numeric": [(0, 1, 2)]}, TypeError, "numeric\\[0\\]"),
    ({"numeric": [("a", 1)]}, TypeError, "numeric\\[0\\]"),
    ({"numeric": None}, TypeError, "numeric must be"),
    ({"numeric": "u"}, TypeError, "numeric must be"),
    ({"one_hot": 1, "norm": "l3"}, ValueError, "norm"),
    ({}, ValueError, "no column"),
])
def test_a_malformed_layout_is_refused_naming_the_argument(layout, error, needle):
    with pytest.raises(error, match=needle):
        layout_row_norm_bound(**layout)


# ------------------------------------------------------------------------------------------ a declared Pipeline
def test_the_bound_of_a_declared_pipeline_equals_the_hand_computed_one():
    """Under "record", row_norm_bound=None: the fit derives the bound of its declared preprocessing (2 one-hot
    blocks + 3 numeric columns in declared ranges), without the loose-bound warning, and predict clips to it."""
    X, y, a = data()
    model = record_model(declared_preprocessing())
    loose = fit_recording(model, X, y, a)
    assert loose == []
    assert model.row_norm_bound_ == pytest.approx(HAND_L2, rel=1e-12)
    assert model.preprocessor_.steps[-1][0] == "fairdp_row_clip"
    assert model.predict(X, random_state=0).shape == (len(X),)


def test_row_norm_bound_still_wins_over_the_derived_bound():
    X, y, a = data()
    model = record_model(declared_preprocessing(), row_norm_bound=2.5)
    fit_recording(model, X, y, a)
    assert model.row_norm_bound_ == 2.5


def test_a_declared_box_is_used_when_it_is_tighter_than_the_derived_bound():
    """feature_bound=(lower, upper) per output column is a declaration too: the smaller of the two bounds holds."""
    X, y, a = data()
    tight = (np.zeros(8), np.full(8, 0.5))                   # sqrt(8 * 0.25) = sqrt(2) < HAND_L2
    model = record_model(declared_preprocessing(), options=StatisticsGameOptions(feature_bound=tight))
    assert fit_recording(model, X, y, a) == []
    assert model.row_norm_bound_ == pytest.approx(math.sqrt(2), rel=1e-12)
    loose = (np.zeros(8), np.full(8, 3.0))                   # sqrt(8 * 9) > HAND_L2
    model = record_model(declared_preprocessing(), options=StatisticsGameOptions(feature_bound=loose))
    fit_recording(model, X, y, a)
    assert model.row_norm_bound_ == pytest.approx(HAND_L2, rel=1e-12)


def test_the_derivation_reads_no_value_of_the_data():
    """The same declared preprocessing fitted on other rows (different values, same schema) gives the same bound."""
    X, _, _ = data(seed=0)
    other, _, _ = data(n=50, seed=3)
    bounds = [preprocessing_row_norm_bound(Pipeline([("pre", declared_preprocessing().fit(rows))]), 8)
              for rows in (X, other.assign(u=-100.0, v=100.0))]
    assert bounds[0] == bounds[1] == pytest.approx(HAND_L2, rel=1e-12)


@pytest.mark.parametrize("step, width, expected", [
    (OrdinalEncoder(categories=[COLORS, SIZES]), 2, math.sqrt(2 ** 2 + 1)),
    (OrdinalEncoder(categories=[COLORS], handle_unknown="use_encoded_value", unknown_value=-5), 1, 5.0),
    (Normalizer(), 3, 1.0),
    (Normalizer(norm="max"), 4, 2.0),
    (FunctionTransformer(np.clip, kw_args={"a_min": -1, "a_max": 2}), 4, 4.0),
    (make_pipeline(FunctionTransformer(np.tanh), FunctionTransformer(np.clip, kw_args={"a_min": 0, "a_max": 3})),
     1, 3.0),
])
def test_bounded_steps(step, width, expected):
    X = pd.DataFrame({"color": COLORS * 2, "size": SIZES * 3}) if isinstance(step, OrdinalEncoder) else None
    columns = ["color", "size"][:width] if X is not None else None
    fitted = step.fit(X[columns]) if X is not None else step
    assert preprocessing_row_norm_bound(Pipeline([("s", fitted)]), width) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("step", [
    FunctionTransformer(np.tanh),                                        # bounded, but not declared
    FunctionTransformer(np.clip, kw_args={"a_min": 0.0}),                # one side only
    FrozenEstimator(StandardScaler().fit([[0.0], [1.0]])),               # prefit, unbounded
    FrozenEstimator(MinMaxScaler().fit([[0.0], [1.0]])),                 # prefit, no clip: unbounded
    FrozenEstimator(MaxAbsScaler().fit([[1.0]])),
    ColumnTransformer([("c", FunctionTransformer(np.clip, kw_args={"a_min": 0, "a_max": 1}), [0])],
                      remainder="passthrough"),                          # a raw column passed through
])
def test_an_undeclared_preprocessing_gives_no_bound(step):
    X = np.zeros((3, 2))
    fitted = step.fit(X) if isinstance(step, ColumnTransformer) else step
    assert preprocessing_row_norm_bound(Pipeline([("s", fitted)]), 2) is None


def test_an_undeclared_preprocessing_is_not_trusted_in_the_fit():
    """A stateless but undeclared step (accepted under "record": it learns nothing) gives no derived bound: the
    fit falls back to feature_bound * sqrt(d) and warns, as without a Pipeline."""
    X, y, a = data()
    numeric = X[["u", "v", "w"]]
    model = record_model(FunctionTransformer(np.tanh))
    loose = fit_recording(model, numeric, y, a)
    assert len(loose) == 1
    assert model.row_norm_bound_ == pytest.approx(math.sqrt(3), rel=1e-12)      # feature_bound=1, 3 features


# ------------------------------------------------------------------------------------------ private base model
def test_dp_logistic_regression_and_the_two_step_pipeline_work_on_this_stack():
    """diffprivlib's LogisticRegression at eps/2 (constructible here on scikit-learn 1.8+) and DPThresholdOptimizer
    (prefit) at eps/2 under privacy_unit="record": fit, predict, one charge each, seeded draws reproducible."""
    X, y, a = data(n=2000)
    features = declared_preprocessing().fit(X).transform(X)
    accountant = BudgetAccountant()
    base = DPLogisticRegression(epsilon=0.5, data_norm=HAND_L2, random_state=0, accountant=accountant)
    assert clone(base).get_params() == base.get_params()
    base.fit(features, y)
    again = clone(base).set_params(accountant=BudgetAccountant()).fit(features, y)
    np.testing.assert_allclose(base.coef_, again.coef_, rtol=1e-12)              # same seed, same data
    proba = base.predict_proba(features)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert set(np.unique(base.predict(features))) <= {0, 1}
    fair = DPThresholdOptimizer(estimator=base, prefit=True, constraints="demographic_parity",
                                predict_method="predict_proba", epsilon=0.5, groups=["a", "b"],
                                privacy_unit="record", random_state=0, accountant=accountant)
    fair.fit(features, y, sensitive_features=a)
    assert fair.predict(features, sensitive_features=a, random_state=0).shape == (len(y),)
    assert accountant.spent_budget == [(0.5, 0), (0.5, 0)]
    assert base.accountant is accountant                                         # the parameter as given


def test_dp_logistic_regression_keeps_diffprivlib_fit():
    """The subclass only replaces the constructor: its fit is diffprivlib's (same coefficients for a seed as
    diffprivlib's own class where that class can be constructed, scikit-learn < 1.8)."""
    from diffprivlib.models import LogisticRegression as Diffprivlib

    assert issubclass(DPLogisticRegression, Diffprivlib)
    X, y, _ = data(n=300)
    features = np.asarray(declared_preprocessing().fit(X).transform(X))
    ours = DPLogisticRegression(epsilon=1.0, data_norm=HAND_L2, random_state=1,
                                accountant=BudgetAccountant()).fit(features, y)
    try:
        theirs = Diffprivlib(epsilon=1.0, data_norm=HAND_L2, random_state=1, accountant=BudgetAccountant())
    except TypeError as error:                                                   # scikit-learn >= 1.8
        assert "multi_class" in str(error)
        return
    theirs.fit(features, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-12)


def test_the_threshold_optimizer_trusts_dp_logistic_regression_as_a_private_fit():
    """prefit=False under "record": DPThresholdOptimizer fits the base model on the private rows; a diffprivlib
    model or DPLogisticRegression (diffprivlib's fit) is a DP fit, so no PrivacyWarning; scikit-learn's is not."""
    from fairlearn_dp.exceptions import PrivacyWarning

    X, y, a = data(n=1000)
    features = np.asarray(declared_preprocessing().fit(X).transform(X))

    def privacy_warnings(estimator):
        post = DPThresholdOptimizer(estimator=estimator, constraints="demographic_parity",
                                    predict_method="predict_proba", epsilon=0.5, groups=["a", "b"],
                                    privacy_unit="record", random_state=0, accountant=BudgetAccountant())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            post.fit(features, y, sensitive_features=a)
        return [w for w in caught if issubclass(w.category, PrivacyWarning)]

    private = DPLogisticRegression(epsilon=0.5, data_norm=HAND_L2, random_state=0, accountant=BudgetAccountant())
    assert privacy_warnings(private) == []
    assert len(privacy_warnings(LogisticRegression())) == 1


def test_dp_logistic_regression_random_state_none_is_not_numpys_global_generator():
    """random_state=None: diffprivlib's Vector mechanism draws from secrets.SystemRandom, so seeding numpy's global
    generator does not reproduce the noise (a collision of two continuous draws has probability 0)."""
    X, y, _ = data(n=300)
    features = np.asarray(declared_preprocessing().fit(X).transform(X))
    coefficients = []
    for _ in range(2):
        np.random.seed(5)
        model = DPLogisticRegression(epsilon=1.0, data_norm=HAND_L2, accountant=BudgetAccountant())
        coefficients.append(model.fit(features, y).coef_)
    assert not np.array_equal(coefficients[0], coefficients[1])
