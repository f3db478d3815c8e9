"""Under ``privacy_unit="sensitive_attribute"`` X is public (the Learner or base estimator is fitted on it, the final
choice reads its exact training error), so a model fitted on an X that holds the sensitive feature may reveal it:
the guarantee holds for its relation (X fixed between neighbours) but protects nothing X shows. A DataFrame column
named like a column of ``sensitive_features`` is public schema: the fit warns (``PrivacyWarning``), naming the columns
and the remedies, before the budget check (the warning is issued although an exhausted accountant then raises
``BudgetError``), and once per fit. Fairlearn's own examples keep the attribute in X: they run."""

import math

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.exceptions import PrivacyWarning
from fairlearn_dp.postprocessing import DPThresholdOptimizer
from fairlearn_dp.reductions import DPExponentiatedGradient, JagielskiExponentiatedGradient

pytestmark = [pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
              pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning")]

_COLUMN = r"X hold\(s\) the sensitive column\(s\) \['sex'\].*privacy_unit='sensitive_attribute'.*"


def _column_warnings(record):
    return [w for w in record if issubclass(w.category, PrivacyWarning) and "sensitive column" in str(w.message)]


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    sex = pd.Series(rng.choice(["F", "M"], n), name="sex")
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, n), "sex": (sex == "M").astype(float)})
    y = (X["x1"] + rng.normal(0, 0.5, n) > 0).astype(int)
    return X, y, sex


def _exhausted():
    accountant = BudgetAccountant(epsilon=1.0)
    accountant.spend(1.0, 0.0)
    return accountant


def _reduction(epsilon=1.0, mode="statistics", **kwargs):
    params = dict(epsilon=epsilon, delta=1e-5, max_iter=5, groups=["F", "M"], random_state=0, **kwargs)
    if mode == "paper":                                 # Algorithm 3
        return JagielskiExponentiatedGradient(DemographicParity(difference_bound=0.05), **params)
    return DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05), **params)


@pytest.mark.parametrize("mode", ["statistics", "paper"])
def test_the_reduction_warns_of_the_sensitive_column_in_X_before_the_budget(mode):
    X, y, sex = _data()
    accountant = _exhausted()
    model = _reduction(mode=mode, accountant=accountant, **({"oracle": "regression"} if mode == "paper" else {}))
    for sensitive in (sex, sex.to_frame()):                             # a DataFrame of sensitive columns too
        with pytest.warns(PrivacyWarning, match=_COLUMN + "drop them from X.*privacy_unit='record'"), pytest.raises(BudgetError):
            model.fit(X, y, sensitive_features=sensitive)
    assert accountant.spent_budget == [(1.0, 0.0)] and not hasattr(model, "predictors_")
    with pytest.warns(PrivacyWarning) as record:                        # it fits, warned once
        _reduction(mode=mode, accountant=BudgetAccountant(),
                   **({"oracle": "regression"} if mode == "paper" else {})).fit(X, y, sensitive_features=sex)
    assert len(_column_warnings(record)) == 1


def test_no_warning_without_the_column_under_record_and_at_epsilon_inf(recwarn):
    X, y, sex = _data()
    _reduction(accountant=BudgetAccountant()).fit(X[["x1"]], y, sensitive_features=sex)
    _reduction(accountant=BudgetAccountant(), privacy_unit="record",
               row_norm_bound=math.sqrt(2)).fit(X, y, sensitive_features=sex)      # the whole row is private
    _reduction(accountant=BudgetAccountant(), epsilon=math.inf).fit(X, y, sensitive_features=sex)  # Fairlearn's
    # Integer column names (a frame built from an array) name no column of the data.
    _reduction(accountant=BudgetAccountant()).fit(pd.DataFrame(X[["x1"]].to_numpy()), y,
                                                   sensitive_features=pd.DataFrame(sex.to_numpy()))
    assert _column_warnings(recwarn) == []


def test_the_threshold_optimizer_warns_when_it_fits_the_estimator_on_X(recwarn):
    X, y, sex = _data()
    accountant = _exhausted()
    post = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=1.0, groups=["F", "M"],
                                accountant=accountant, random_state=0)
    with pytest.warns(PrivacyWarning, match=_COLUMN + "prefit=True.*privacy_unit='record'"), pytest.raises(BudgetError):
        post.fit(X, y, sensitive_features=sex)
    assert accountant.spent_budget == [(1.0, 0.0)]
    recwarn.clear()
    # A prefit estimator (trained elsewhere) may read it: one person's change moves their one row. No warning.
    prefit = LogisticRegression().fit(X, y)
    DPThresholdOptimizer(estimator=prefit, prefit=True, epsilon=1.0, groups=["F", "M"], accountant=BudgetAccountant(),
                         random_state=0).fit(X, y, sensitive_features=sex)
    assert _column_warnings(recwarn) == []
