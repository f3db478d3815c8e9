"""Empirical privacy audit: exact binomial bounds, the epsilon lower bound, and the audit's own checks.

The default cases of the registered estimators are tested with the cases, in tests/fairlearn_dp/audit/test_audit_cases.py.
"""

import math

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from scipy.stats import binomtest

from fairlearn_dp.audit import audit, epsilon_lower_bound
from fairlearn_dp.audit._bounds import clopper_pearson
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor
from fairlearn_dp.privacy._release import release_laplace


# ------------------------------------------------------------------------------------------ Clopper-Pearson
@pytest.mark.parametrize("k, n, expected", [
    (5, 10, (0.187086, 0.812914)),      # classical tables
    (0, 10, (0.0, 0.308498)),           # 1 - 0.025 ** (1 / 10)
    (10, 10, (0.691502, 1.0)),
    (1, 20, (0.001265, 0.248732)),
])
def test_clopper_pearson_known_values(k, n, expected):
    np.testing.assert_allclose(clopper_pearson(k, n, 0.05), expected, atol=1e-6)


@pytest.mark.parametrize("k, n", [(0, 7), (3, 7), (7, 7), (123, 1000), (999, 1000)])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.3])
def test_clopper_pearson_matches_scipy_exact_intervals(k, n, alpha):
    result = binomtest(k, n)
    two_sided = result.proportion_ci(1 - alpha, method="exact")
    np.testing.assert_allclose(clopper_pearson(k, n, alpha), (two_sided.low, two_sided.high), atol=1e-10)
    greater = binomtest(k, n, alternative="greater").proportion_ci(1 - alpha, method="exact")
    less = binomtest(k, n, alternative="less").proportion_ci(1 - alpha, method="exact")
    np.testing.assert_allclose(clopper_pearson(k, n, alpha, alternative="greater"), (greater.low, 1.0), atol=1e-10)
    np.testing.assert_allclose(clopper_pearson(k, n, alpha, alternative="less"), (0.0, less.high), atol=1e-10)
    assert clopper_pearson(0, 10, 0.05, alternative="less")[1] == pytest.approx(1 - 0.05 ** 0.1)


@pytest.mark.parametrize("args, match", [((11, 10, 0.05), "k must"), ((1, 0, 0.05), "n must"),
                                         ((1, 10, 1.0), "alpha"), ((1.5, 10, 0.05), "k must")])
def test_clopper_pearson_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        clopper_pearson(*args)
    with pytest.raises(ValueError, match="alternative"):
        clopper_pearson(1, 10, 0.05, alternative="upper")


# ------------------------------------------------------------------------------------------ the lower bound
def test_epsilon_lower_bound_formula_and_symmetry():
    n = 10_000
    p_low, _ = clopper_pearson(5000, n, 0.025)
    _, q_high = clopper_pearson(1000, n, 0.025)
    expected = math.log(p_low / q_high)
    assert epsilon_lower_bound(5000, 1000, n) == pytest.approx(expected)
    assert epsilon_lower_bound(1000, 5000, n) == pytest.approx(expected)     # either direction
    assert epsilon_lower_bound(5000, 1000, n, delta=0.1) == pytest.approx(math.log((p_low - 0.1) / q_high))
    assert epsilon_lower_bound(5000, 1000, n, confidence=0.5) > expected > epsilon_lower_bound(
        5000, 1000, n, confidence=0.999)
    assert epsilon_lower_bound(500, 500, 1000) == 0.0                      # no evidence: 0, never negative
    assert epsilon_lower_bound(0, 0, 1000) == 0.0
    assert epsilon_lower_bound(10, 0, 10, delta=0.9) == 0.0                # delta swallows everything
    with pytest.raises(ValueError, match="hits_d_prime"):
        epsilon_lower_bound(1, 11, 10)
    with pytest.raises(ValueError, match="delta"):
        epsilon_lower_bound(1, 1, 10, delta=1.0)


def _laplace_bound(l1_sensitivity, n_runs=20_000, seed=0):
    """Neighbouring 1-cell statistics 1 (D) and 0 (D'), epsilon = 1; event: release >= 1 (D's true value), the
    optimal event for the Laplace mechanism (likelihood ratio e^epsilon on all of it, probability 1/2 on D)."""
    on_d = release_laplace(np.ones(n_runs), epsilon=1.0, l1_sensitivity=l1_sensitivity, random_state=seed)
    on_d_prime = release_laplace(np.zeros(n_runs), epsilon=1.0, l1_sensitivity=l1_sensitivity, random_state=seed + 1)
    return epsilon_lower_bound(int(np.sum(on_d >= 1.0)), int(np.sum(on_d_prime >= 1.0)), n_runs)


def test_lower_bound_of_a_correct_laplace_release_stays_below_epsilon():
    bound = _laplace_bound(l1_sensitivity=1.0)
    assert 0.85 < bound <= 1.0          # the event is powerful: the bound nearly reaches the true epsilon


def test_lower_bound_detects_a_half_scale_laplace_release():
    assert _laplace_bound(l1_sensitivity=0.5) > 1.5      # the true epsilon is 2


# ------------------------------------------------------------------------------------------ the audit itself
def _factory(seed):
    return DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0.0, 1.0), n_bins=4, groups=[0, 1],
                                         accountant=BudgetAccountant(), random_state=seed)


def _datasets(n=20):
    outputs = (np.arange(n) % 4 + 0.5) / 4
    groups = np.arange(n) % 2
    groups_prime = groups.copy()
    groups_prime[0] = 1
    return ({"X": outputs[:, None], "sensitive_features": groups},
            {"X": outputs[:, None], "sensitive_features": groups_prime})


def _first_cell_above_its_truth(fitted):
    """noisy_joint_pmf_[0, 0] >= 3 / 20"""
    return bool(fitted.noisy_joint_pmf_[0, 0] >= 3 / 20)


def test_audit_is_reproducible_and_the_same_in_parallel_chunks():
    dataset, neighbour = _datasets()
    kwargs = {"event": _first_cell_above_its_truth, "n_runs": 30, "declared_epsilon": 1.0, "random_state": 5}
    first = audit(_factory, dataset, neighbour, **kwargs)
    assert first == audit(_factory, dataset, neighbour, **kwargs)
    assert first == audit(_factory, dataset, neighbour, n_jobs=1, **kwargs)
    assert first.event == "noisy_joint_pmf_[0, 0] >= 3 / 20" and first.failures == (0, 0)


def test_audit_validates_its_arguments():
    dataset, neighbour = _datasets()
    event = _first_cell_above_its_truth
    with pytest.raises(ValueError, match="n_runs"):
        audit(_factory, dataset, neighbour, event=event, n_runs=0, declared_epsilon=1.0)
    with pytest.raises(ValueError, match="declared_epsilon"):
        audit(_factory, dataset, neighbour, event=event, n_runs=5, declared_epsilon=0)
    with pytest.raises(TypeError, match="dicts"):
        audit(_factory, [1], neighbour, event=event, n_runs=5, declared_epsilon=1.0)
    with pytest.raises(TypeError, match="callable"):
        audit(_factory, dataset, neighbour, event="noisy_joint_pmf_", n_runs=5, declared_epsilon=1.0)


def test_audit_progress_bar_counts_every_fit_and_is_silent_when_not_a_terminal(capsys):
    dataset, neighbour = _datasets()
    kwargs = {"event": _first_cell_above_its_truth, "n_runs": 6, "declared_epsilon": 1.0, "random_state": 5}
    silent = audit(_factory, dataset, neighbour, **kwargs)          # progress=None: stderr is not a terminal here
    assert capsys.readouterr().err == ""
    assert audit(_factory, dataset, neighbour, progress=True, **kwargs) == silent
    assert "12/12" in capsys.readouterr().err                       # 2 x n_runs fits
    assert audit(_factory, dataset, neighbour, progress=True, n_jobs=1, **kwargs) == silent
    assert "12/12" in capsys.readouterr().err
    with pytest.raises(TypeError, match="progress"):
        audit(_factory, dataset, neighbour, progress="yes", **kwargs)


def test_audit_parameter_table_keeps_the_documented_error_types():
    """The table (issue 26) keeps ``audit``'s contract: a bad count or epsilon of any type is a ValueError, an
    infinite declared epsilon is accepted, and every check runs before the first fit."""
    dataset, neighbour = _datasets()
    event = _first_cell_above_its_truth
    for bad in ("5", 2.5, True):
        with pytest.raises(ValueError, match="n_runs"):
            audit(_factory, dataset, neighbour, event=event, n_runs=bad, declared_epsilon=1.0)
    for bad in ("1", math.nan, -1.0):
        with pytest.raises(ValueError, match="declared_epsilon"):
            audit(_factory, dataset, neighbour, event=event, n_runs=5, declared_epsilon=bad)
    with pytest.raises(TypeError, match="neighbour"):
        audit(_factory, dataset, None, event=event, n_runs=5, declared_epsilon=1.0)

    def never_called(seed):
        raise AssertionError("a fit ran before the parameters were checked")

    with pytest.raises(ValueError, match="fit_failures"):
        audit(never_called, dataset, neighbour, event=event, n_runs=5, declared_epsilon=1.0, fit_failures="no")
    result = audit(_factory, dataset, neighbour, event=event, n_runs=3, declared_epsilon=math.inf, random_state=1)
    assert result.passed and result.declared_epsilon == math.inf
    with pytest.raises(ValueError, match="n_runs"):
        epsilon_lower_bound(1, 1, 0)


# ------------------------------------------------------------------------------------------ ProjectionEvent
def test_projection_event_reads_the_release_along_the_unit_direction():
    """<released, u> <= threshold with u = direction / ||direction|| (entries the direction does not weigh are not
    read); probabilities 1/2 and Phi(-shift / sigma); a zero direction or a non-positive shift is refused."""
    import pickle
    from types import SimpleNamespace

    from scipy.stats import norm

    from fairlearn_dp.audit._events import FitFailure, ProjectionEvent

    direction = np.array([[3.0, 4.0], [0.0, 0.0]])                  # u = [[0.6, 0.8], [0, 0]]
    event = ProjectionEvent("history_.gram", direction, 1.0, 2.0, 4.0)
    assert event.expected_probabilities == pytest.approx((0.5, norm.cdf(-0.5)))
    fitted = SimpleNamespace(history_={"gram": np.array([[1.0, 0.4], [99.0, -99.0]])})          # 0.6 + 0.32
    assert event(fitted)
    fitted.history_["gram"][0, 1] = 0.6                                                       # 0.6 + 0.48
    assert not event(fitted) and not event(FitFailure(ValueError, "no"))
    assert pickle.loads(pickle.dumps(event)).threshold == 1.0
    with pytest.raises(ValueError, match="direction"):
        ProjectionEvent("a", np.zeros(3), 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="shift"):
        ProjectionEvent("a", np.ones(3), 0.0, -1.0, 1.0)
