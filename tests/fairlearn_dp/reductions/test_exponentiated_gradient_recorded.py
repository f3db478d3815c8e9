"""Issue 41 item 1: the statistics game now reads its rows through fixed-order block sums (``_game_rows.py``, the same
code in memory and on Dask); in memory it releases exactly what the code of commit c349f87 released. Its outputs on
small seeded inputs (at most ``BLOCK_ROWS`` rows: one block) were recorded with that commit's code
(``eg_recorded_c349f87.npz``, by this module's ``_fit`` and ``_outputs``).

Compared exactly: the released statistics and round sums (exact sums plus seeded draws, no BLAS), the released
violations computed from them, the rounds played, the constant chosen and the seeded predictions. To 1e-9 relative: the Gram matrix, which c349f87 computed with BLAS (now pairwise sums in numpy, identical on Dask),
the plays' coefficients (a pseudo-inverse of it), the mixture weights (a linear program) and the estimated error.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import (
    DemographicParity,
    EqualizedOdds,
    ErrorRate,
    ErrorRateParity,
    FalsePositiveRateParity,
    TruePositiveRateParity,
)
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.reductions import DPExponentiatedGradient, StatisticsGameOptions
from fairlearn_dp.reductions._game_rows import BLOCK_ROWS

RECORDED = np.load(Path(__file__).parent / "eg_recorded_c349f87.npz")
MOMENTS = {"dp": DemographicParity, "eo": EqualizedOdds, "erp": ErrorRateParity, "tpr": TruePositiveRateParity,
           "fpr": FalsePositiveRateParity}
#: name: (privacy unit, moment, groups, estimator, costs, epsilon, rows)
CASES = {
    "record-dp": ("record", "dp", 2, None, None, 1.0, 3000),
    "record-eo": ("record", "eo", 3, None, None, 1.0, 3000),
    "record-erp": ("record", "erp", 2, None, None, 2.0, 3000),
    "record-tpr-costs": ("record", "tpr", 3, None, (0.3, 0.7), 1.0, 3000),
    "record-inf": ("record", "dp", 2, None, None, np.inf, 2000),
    "attr-dp": ("sensitive_attribute", "dp", 2, None, None, 1.0, 3000),
    "attr-eo": ("sensitive_attribute", "eo", 3, None, None, 1.0, 3000),
    "attr-erp": ("sensitive_attribute", "erp", 2, None, None, 1.0, 3000),
    "attr-tpr": ("sensitive_attribute", "tpr", 2, None, None, 1.0, 3000),
    "attr-fpr-costs": ("sensitive_attribute", "fpr", 3, None, (0.3, 0.7), 1.0, 3000),
    "attr-dp-costs": ("sensitive_attribute", "dp", 2, None, (0.25, 1.5), 1.0, 3000),
    "attr-inf": ("sensitive_attribute", "eo", 2, None, None, np.inf, 2000),
    "attr-logistic": ("sensitive_attribute", "dp", 2, "logistic", None, 1.0, 2000),
}
EXACT = ("statistics", "round_sums", "released_gamma", "n_iter", "constant", "predictions")


def _data(n, n_groups, seed=0):
    rng = np.random.RandomState(seed)
    a = rng.randint(0, n_groups, n)
    X = rng.uniform(-1, 1, (n, 3)) * 0.55 + 0.1 * a[:, None]
    y = (X[:, 0] + 0.4 * a - 0.3 * X[:, 1] + 0.3 * rng.randn(n) > 0.2).astype(int)
    return X, y, a


def _fit(case):
    unit, moment, n_groups, estimator, costs, epsilon, n = CASES[case]
    X, y, a = _data(n, n_groups)
    estimator = LogisticRegression() if estimator == "logistic" else None
    options = StatisticsGameOptions(oracle="least_squares") if (epsilon == np.inf and estimator is None) else None
    objective = None if costs is None else ErrorRate(costs={"fp": costs[0], "fn": costs[1]})
    model = DPExponentiatedGradient(estimator, MOMENTS[moment](difference_bound=0.05), max_iter=12, epsilon=epsilon,
                                    delta=1e-6, privacy_unit=unit, groups=list(range(n_groups)), random_state=3,
                                    accountant=BudgetAccountant(), row_norm_bound=1.0 if unit == "record" else None,
                                    objective=objective, options=options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # the warnings of small private fits: not this test's subject
        model.fit(X, y, sensitive_features=a)
    return model, X


def _outputs(model, X):
    out = {"statistics": model.history_["statistics"], "round_sums": model.history_["round_sums"],
           "released_gamma": model.history_["released_gamma"], "weights": model.weights_,
           "n_iter": np.array(model.n_iter_), "estimated_error": np.array(model.estimated_error_),
           "constant": np.array(-1.0 if model.constant_choice_.constant is None else model.constant_choice_.constant),
           "predictions": model.predict(X, random_state=5)}
    if "gram" in model.history_:
        out["gram"] = model.history_["gram"]
    coefs = [np.r_[h.coef, h.threshold] for h in model.predictors_ if hasattr(h, "coef")]
    if coefs:
        out["plays"] = np.array(coefs)
    return out


def test_the_recorded_fits_are_one_block():
    assert max(case[-1] for case in CASES.values()) <= BLOCK_ROWS


@pytest.mark.parametrize("case", list(CASES))
def test_in_memory_fit_releases_what_c349f87_released(case):
    outputs = _outputs(*_fit(case))
    assert sorted(outputs) == sorted(key.split("/")[1] for key in RECORDED.files if key.startswith(case + "/"))
    for name, value in outputs.items():
        expected = RECORDED[f"{case}/{name}"]
        if name in EXACT:
            np.testing.assert_array_equal(value, expected, err_msg=f"{case}/{name}")
        else:
            np.testing.assert_allclose(value, expected, rtol=1e-9, atol=1e-12, err_msg=f"{case}/{name}")
