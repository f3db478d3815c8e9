"""``check_public_inputs``, steps 1-2 of every private fit on their own (docs/user_guide/failure_paths.rst): for every
registry row whose class has it, on the row's default audit case, it charges nothing, refuses an exhausted
accountant with diffprivlib's ``BudgetError``, and agrees with ``fit``, which then charges the planned spend.
"""

import warnings

import pytest
from audit_cases import default_audit_case
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError
from fairdp_adapters import registry

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the charge and the
    # public-input checks of every estimator, not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]

ROWS = [entry.name for entry in registry.entries() if hasattr(entry.load(), "check_public_inputs")]


def _model(row, accountant):
    case = default_audit_case(row)
    model = case.factory(0)
    model.set_params(accountant=accountant)
    return model, case.dataset


def test_the_private_estimators_have_it():
    assert len(ROWS) >= 7


@pytest.mark.parametrize("row", ROWS)
def test_it_charges_nothing_and_refuses_an_exhausted_accountant(row):
    accountant = BudgetAccountant()
    model, dataset = _model(row, accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.check_public_inputs()
        model.check_public_inputs(**dataset)
    assert accountant.spent_budget == []
    exhausted = BudgetAccountant(epsilon=1e-3, delta=0.0)
    model, dataset = _model(row, exhausted)
    with pytest.raises(BudgetError):
        model.check_public_inputs(**dataset)
    assert exhausted.spent_budget == []


@pytest.mark.parametrize("row", ROWS)
def test_fit_charges_what_it_planned(row):
    accountant = BudgetAccountant()
    model, dataset = _model(row, accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        resolved = model.check_public_inputs(**dataset)
        model.fit(**dataset)
    planned = model._planned_spend(resolved)
    assert (model.privacy_spent_.epsilon, model.privacy_spent_.delta) == (planned.epsilon, planned.delta)
