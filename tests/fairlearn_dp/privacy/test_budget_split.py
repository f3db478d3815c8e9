"""The budget splits of the privacy core: each estimator's rule, bit for bit, and parts that add up to the whole."""

import math
import pickle

import numpy as np
import pytest

from fairlearn_dp.privacy._budget_split import (
    group_budget_split,
    group_budget_stage1_split,
    group_budget_stage2_split,
    min_count_split,
    statistics_game_split,
    statistics_release_split,
)
from fairlearn_dp.privacy._zcdp import approx_dp_to_zcdp, zcdp_to_approx_dp
from fairlearn_dp.privacy._zcdp_ledger import ZCDPLedger


@pytest.mark.parametrize("epsilon, delta, fraction, rounds", [(1.0, 1e-6, 0.5, 50), (0.3, 1e-7, 0.2, 7),
                                                              (8.0, 1e-5, 0.9, 1)])
def test_statistics_game_split_is_the_games_arithmetic_and_composes_to_rho(epsilon, delta, fraction, rounds):
    rho_stats, rho_round = statistics_game_split(epsilon, delta, fraction, rounds)
    rho = approx_dp_to_zcdp(epsilon, delta)
    assert rho_stats == fraction * rho
    assert rho_round == (rho - fraction * rho) / rounds          # not rho * (1 - fraction) / rounds
    assert rho_stats + rounds * rho_round == pytest.approx(rho, rel=1e-12)
    assert zcdp_to_approx_dp(rho, delta) <= epsilon


@pytest.mark.parametrize("rho_stats", [0.01, 0.37, 2.0])
def test_statistics_release_split(rho_stats):
    statistics, counts, gram = statistics_release_split(rho_stats, record=True, count_share=0.25)
    assert (statistics, counts, gram) == (rho_stats * 0.5, 0.0, rho_stats * 0.5)
    statistics, counts, gram = statistics_release_split(rho_stats, record=False, count_share=0.25)
    assert counts == 0.25 * rho_stats and statistics == rho_stats - 0.25 * rho_stats and gram == 0.0
    assert statistics + counts == pytest.approx(rho_stats, rel=1e-15)


@pytest.mark.parametrize("epsilon, delta, fraction", [(1.0, 1e-6, 0.1), (2.5, 1e-5, 0.3), (1.0, 0.0, 0.2)])
def test_min_count_split_adds_up_by_basic_composition(epsilon, delta, fraction):
    eps0, delta0, eps_rounds, delta_rounds = min_count_split(epsilon, delta, fraction)
    assert (eps0, delta0) == (fraction * epsilon, delta / 2)
    assert (eps_rounds, delta_rounds) == (epsilon - fraction * epsilon, delta - delta / 2)
    assert eps0 + eps_rounds == pytest.approx(epsilon, rel=1e-15) and delta0 + delta_rounds == delta


def test_group_budget_splits():
    tau, mu = group_budget_split(1.3, 0.2)
    assert (tau, mu) == (0.2 * 1.3, 1.3 - 0.2 * 1.3)
    assert group_budget_split(math.inf, 0.2) == (math.inf, math.inf)
    moments, residual = group_budget_stage1_split(tau, 4)
    assert (moments, residual) == (tau / 5 / 2, tau / 5)
    assert 2 * moments + 4 * residual == pytest.approx(tau, rel=1e-15)
    shares = np.array([0.5, 0.3, 0.2])
    gradient, _ = group_budget_stage2_split(mu, shares[1], 40, bounded_group_loss=False)
    assert gradient == mu * shares[1] / 40
    gradient, loss = group_budget_stage2_split(mu, shares[1], 40, bounded_group_loss=True)
    assert gradient == loss == mu * shares[1] / 40 / 2
    total = sum(sum(group_budget_stage2_split(mu, s, 40, bounded_group_loss=True)) for s in shares) * 40
    assert total == pytest.approx(mu, rel=1e-12)
    assert group_budget_stage2_split(math.inf, 0.3, 40, bounded_group_loss=True) == (math.inf, math.inf)


def test_the_ledger_lives_in_the_privacy_core_only():
    """No re-export: the estimators' modules use the ledger but do not export it (0.1.0 is unreleased: no old
    import path to keep)."""
    from fairlearn_dp.reductions import _group_budget, _group_budget_stages

    assert "ZCDPLedger" not in _group_budget.__all__ and not hasattr(_group_budget_stages, "ZCDPLedger")
    ledger = ZCDPLedger()
    noisy = ledger.release(np.zeros(3), stage="s", l2_sensitivity=2.0, rho=0.5, random_state=0)
    assert noisy.shape == (3,) and ledger.total() == pytest.approx(0.5) and ledger.total("other") == 0.0
    restored = pickle.loads(pickle.dumps(ledger))
    assert type(restored) is ZCDPLedger and restored.entries == ledger.entries
