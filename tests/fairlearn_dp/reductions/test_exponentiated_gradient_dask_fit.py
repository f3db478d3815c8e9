"""Issue 41 item 1: ``DPExponentiatedGradient.fit`` on Dask arrays and DataFrames, wherever its releases are sums over
rows (the record unit; the attribute unit with the least-squares Learner). Needs the [dask] extra (skipped without
it; .ci/run's dask leg runs it with -m dask).

On a LocalCluster of two workers the Dask fit releases exactly what the in-memory fit releases with the same seed:
the statistics, the Gram matrix and every round's sums are compared bit for bit (fixed-order block sums and integer
counts, no BLAS: ``_game_rows.py``), and so are the released violations, the rounds played and the constant chosen;
the plays and weights (a pseudo-inverse and a linear program on those releases, on the client) to 1e-12. The lazy
predictions of the Dask fit equal the in-memory fit's. ``BLOCK_ROWS`` is lowered to 300 rows so that the 2,600 rows
make nine blocks and the partitions (700 rows, or a DataFrame's) must be rechunked to whole blocks.

A Learner that reads the rows in memory (the estimator under ``privacy_unit="sensitive_attribute"``, Fairlearn's own
fit, a Pipeline's preprocessing) is refused before the budget check, with a message naming what to pass instead.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity, EqualizedOdds, ErrorRate, ErrorRateParity, TruePositiveRateParity
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions, _game_rows

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

pytestmark = [pytest.mark.dask]

N, D, GROUPS, BLOCK = 2600, 9, [0, 1, 2], 300
LEAST_SQUARES = StatisticsGameOptions(oracle="least_squares")
#: name: the estimator's parameters (all with max_iter=8, groups, random_state=3, row_norm_bound for "record").
CASES = {
    "record-dp": {"privacy_unit": "record", "constraints": DemographicParity(difference_bound=0.05)},
    "record-eo-ignored-estimator": {"privacy_unit": "record", "estimator": LogisticRegression(),
                                    "constraints": EqualizedOdds(difference_bound=0.05)},
    "attribute-dp": {"constraints": DemographicParity(difference_bound=0.05)},
    "attribute-erp-costs": {"constraints": ErrorRateParity(difference_bound=0.05),
                            "objective": ErrorRate(costs={"fp": 0.4, "fn": 1.2})},
    "attribute-tpr-least-squares": {"estimator": LogisticRegression(), "options": LEAST_SQUARES,
                                    "constraints": TruePositiveRateParity(difference_bound=0.05)},
    "record-inf": {"privacy_unit": "record", "epsilon": np.inf, "options": LEAST_SQUARES,
                   "constraints": DemographicParity(difference_bound=0.05)},
}
RELEASED = ("statistics", "round_sums", "released_gamma", "lambda", "gram")


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(_game_rows, "BLOCK_ROWS", BLOCK)


def rows_stay_on_the_workers(monkeypatch):
    """The Dask collections are never converted to numpy on the client (what the fit did before: it read the rows
    into memory); their partitions are, on the workers."""
    def gathered(*args, **kwargs):
        raise AssertionError("the rows were gathered on the client")

    for collection in (da.Array, dd.DataFrame, dd.Series):
        for method in ("__array__", "to_numpy", "values"):
            if hasattr(collection, method):
                monkeypatch.setattr(collection, method, gathered)


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    a = rng.randint(0, 3, N)
    X = rng.uniform(-1, 1, (N, D)) * 0.3 + 0.1 * a[:, None]
    y = (X[:, 0] + 0.3 * a - 0.3 * X[:, 1] + 0.2 * rng.randn(N) > 0.15).astype(int)
    return X, y, a


def _estimator(case, accountant):
    params = {"max_iter": 8, "groups": GROUPS, "random_state": 3, "accountant": accountant, "delta": 1e-6,
              **CASES[case]}
    params = {name: value for name, value in params.items() if name != "constraints"}
    if params.get("privacy_unit") == "record":
        params["row_norm_bound"] = 0.8
    return DPExponentiatedGradient(constraints=type(CASES[case]["constraints"])(difference_bound=0.05), **params)


def _fit(case, X, y, a):
    accountant = BudgetAccountant()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the warnings of a small private fit: not this test's subject
        model = _estimator(case, accountant).fit(X, y, sensitive_features=a)
    return model, accountant


def _dask_inputs(X, y, a, layout):
    if layout == "frame":
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(D)])
        return (dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(y, name="y"), npartitions=3),
                dd.from_pandas(pd.Series(a, name="group"), npartitions=3))
    chunks = (700, 700, 700, 500) if layout == "array" else (1, 1299, 1300)
    return da.from_array(X, chunks=(chunks, D)), da.from_array(y, chunks=chunks), da.from_array(a, chunks=chunks)


def _assert_same_fit(in_memory, on_dask):
    for name in RELEASED:
        if name in in_memory.history_:
            np.testing.assert_array_equal(on_dask.history_[name], in_memory.history_[name], err_msg=name)
    assert on_dask.n_iter_ == in_memory.n_iter_
    assert on_dask.constant_choice_ == in_memory.constant_choice_
    assert on_dask.privacy_spent_ == in_memory.privacy_spent_
    assert on_dask.row_norm_bound_ == in_memory.row_norm_bound_         # "sensitive_attribute": read off z
    np.testing.assert_allclose(on_dask.weights_, in_memory.weights_, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([np.r_[h.coef, h.threshold] for h in on_dask.predictors_],
                               [np.r_[h.coef, h.threshold] for h in in_memory.predictors_], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(on_dask.estimated_error_, in_memory.estimated_error_, rtol=1e-12)


@pytest.mark.parametrize("layout", ["array", "frame"])
@pytest.mark.parametrize("case", list(CASES))
def test_dask_fit_on_a_local_cluster_releases_what_the_in_memory_fit_releases(client, data, case, layout,
                                                                             monkeypatch):
    X, y, a = data
    in_memory, memory_accountant = _fit(case, X, y, a)
    Xd, yd, ad = _dask_inputs(X, y, a, layout)
    with monkeypatch.context() as patch:
        rows_stay_on_the_workers(patch)
        on_dask, dask_accountant = _fit(case, Xd, yd, ad)
    _assert_same_fit(in_memory, on_dask)
    assert len(dask_accountant.spent_budget) == len(memory_accountant.spent_budget) == 1
    lazy = on_dask.predict(Xd, random_state=11)
    assert hasattr(lazy, "dask")
    np.testing.assert_array_equal(lazy.compute(), in_memory.predict(X, random_state=11))


@pytest.mark.usefixtures("dask_threads")
def test_any_partitioning_gives_the_same_fit(data):
    """Partitions of 1, 1,299 and 1,300 rows (rechunked to 0, 1,200, 2,400 and the end): the same releases."""
    X, y, a = data
    in_memory, _ = _fit("attribute-dp", X, y, a)
    _assert_same_fit(in_memory, _fit("attribute-dp", *_dask_inputs(X, y, a, "uneven"))[0])


# ------------------------------------------------------------------------------- refused before the budget
REFUSED = {
    "the estimator as Learner": ({"estimator": LogisticRegression()}, "estimator=None"),
    "Fairlearn's own fit": ({"estimator": LogisticRegression(), "epsilon": np.inf}, "oracle='least_squares'"),
    "a Pipeline's preprocessing": ({"estimator": Pipeline([("scale", FunctionTransformer()),
                                                           ("model", LogisticRegression())]),
                                    "sample_weight_name": "model__sample_weight", "privacy_unit": "record",
                                    "row_norm_bound": 1.0}, "map_partitions"),
    "groups read off the data": ({"groups": None}, "groups=\\[...\\] is required"),
}


@pytest.mark.usefixtures("dask_threads")
@pytest.mark.parametrize("name", list(REFUSED))
def test_a_learner_that_reads_the_rows_in_memory_is_refused_before_the_budget(data, name):
    params, match = REFUSED[name]
    accountant = BudgetAccountant(epsilon=1.0, delta=1e-6)
    model = DPExponentiatedGradient(constraints=DemographicParity(difference_bound=0.05), accountant=accountant,
                                    delta=1e-6, random_state=0, **{"groups": GROUPS, **params})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=match):
            model.fit(*_dask_inputs(*data, "array")[:2], sensitive_features=_dask_inputs(*data, "array")[2])
    assert accountant.spent_budget == []
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(model))


@pytest.mark.usefixtures("dask_threads")
@pytest.mark.parametrize("fault", ["nan", "unseen group", "label 2", "mixed inputs"])
def test_bad_dask_data_raises_before_anything_is_released_or_charged(data, fault):
    X, y, a = (np.array(v, dtype=float if v.ndim == 2 else v.dtype) for v in data)
    if fault == "nan":
        X[2000, 3] = np.nan
    elif fault == "unseen group":
        a[1500] = 7
    elif fault == "label 2":
        y[10] = 2
    Xd, yd, ad = _dask_inputs(X, y, a, "array")
    if fault == "mixed inputs":
        ad = a
    accountant = BudgetAccountant()
    model = _estimator("record-dp", accountant)
    with pytest.raises(ValueError):
        model.fit(Xd, yd, sensitive_features=ad)
    assert accountant.spent_budget == []
