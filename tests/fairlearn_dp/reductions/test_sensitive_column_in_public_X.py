"""Under ``privacy_unit="sensitive_attribute"`` X is public (the Learner or base estimator is fitted on it, the final
choice reads its exact training error), so an X that holds the sensitive feature voids the guarantee. A DataFrame
column named like a column of ``sensitive_features`` is public schema: the fit refuses it, naming the arguments and
the remedy, before the budget check (an exhausted accountant would otherwise raise ``BudgetError``)."""

import math

import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairlearn.reductions import DemographicParity
from sklearn.linear_model import LogisticRegression

from fairlearn_dp.postprocessing import DPThresholdOptimizer
from fairlearn_dp.reductions import DPExponentiatedGradient

pytestmark = [pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
              pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
              pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.PrivacyWarning")]


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


def _reduction(epsilon=1.0, **kwargs):
    return DPExponentiatedGradient(LogisticRegression(), DemographicParity(difference_bound=0.05), epsilon=epsilon,
                                   delta=1e-5, max_iter=5, groups=["F", "M"], random_state=0, **kwargs)


@pytest.mark.parametrize("mode", ["statistics", "paper"])
def test_the_reduction_refuses_the_sensitive_column_in_X_before_the_budget(mode):
    X, y, sex = _data()
    accountant = _exhausted()
    model = _reduction(mode=mode, accountant=accountant, **({"oracle": "regression"} if mode == "paper" else {}))
    with pytest.raises(ValueError, match=r"X has the column\(s\) \['sex'\] of sensitive_features.*"
                                         r"privacy_unit='sensitive_attribute'.*privacy_unit='record'"):
        model.fit(X, y, sensitive_features=sex)
    with pytest.raises(ValueError, match="of sensitive_features"):       # a DataFrame of sensitive columns too
        model.fit(X, y, sensitive_features=sex.to_frame())
    assert accountant.spent_budget == [(1.0, 0.0)] and not hasattr(model, "predictors_")


def test_the_reduction_fits_without_the_column_under_record_and_at_epsilon_inf():
    X, y, sex = _data()
    _reduction(accountant=BudgetAccountant()).fit(X[["x1"]], y, sensitive_features=sex)
    _reduction(accountant=BudgetAccountant(), privacy_unit="record",
               row_norm_bound=math.sqrt(2)).fit(X, y, sensitive_features=sex)      # the whole row is private
    _reduction(accountant=BudgetAccountant(), epsilon=math.inf).fit(X, y, sensitive_features=sex)  # Fairlearn's
    # Integer column names (a frame built from an array) name no column of the data: not refused.
    _reduction(accountant=BudgetAccountant()).fit(pd.DataFrame(X[["x1"]].to_numpy()), y,
                                                   sensitive_features=pd.DataFrame(sex.to_numpy()))


def test_the_threshold_optimizer_refuses_it_when_it_fits_the_estimator_on_X():
    X, y, sex = _data()
    accountant = _exhausted()
    post = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=1.0, groups=["F", "M"],
                                accountant=accountant, random_state=0)
    with pytest.raises(ValueError, match=r"X has the column\(s\) \['sex'\].*prefit=True"):
        post.fit(X, y, sensitive_features=sex)
    assert accountant.spent_budget == [(1.0, 0.0)]
    # A prefit estimator (trained elsewhere) may read it: one person's change moves their one row.
    prefit = LogisticRegression().fit(X, y)
    DPThresholdOptimizer(estimator=prefit, prefit=True, epsilon=1.0, groups=["F", "M"], accountant=BudgetAccountant(),
                         random_state=0).fit(X, y, sensitive_features=sex)
