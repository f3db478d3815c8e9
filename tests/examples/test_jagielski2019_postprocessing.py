"""Smoke test of examples/jagielski2019_postprocessing.py (Jagielski et al. 2019, Fig. 1 right) in --quick mode.

The reproduction itself is marked slow (deselected by default; run with ``pytest -m slow``); the doctest and a
property test of its ``pareto_front`` helper are fast and run by default.
"""

import doctest
import math

import numpy as np
import pytest
from fairdp_adapters._checkout import load_example


@pytest.fixture(scope="module")
def script():
    return load_example("jagielski2019_postprocessing.py")


def test_pareto_front_doctest(script):
    result = doctest.testmod(script, verbose=False)
    assert result.attempted >= 3
    assert result.failed == 0


def test_pareto_front_is_non_dominated(script):
    rng = np.random.default_rng(0)
    points = rng.random((300, 2))
    front = script.pareto_front(points)
    assert np.all(np.diff(front[:, 0]) > 0) and np.all(np.diff(front[:, 1]) < 0)
    # Every front point is undominated; every other point is dominated by some front point.
    for p in front:
        assert not np.any((points[:, 0] <= p[0]) & (points[:, 1] <= p[1]) & np.any(points != p, axis=1))
    for p in points:
        assert np.any((front[:, 0] <= p[0]) & (front[:, 1] <= p[1]))


@pytest.mark.slow
def test_quick_reproduction(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])

    for name in ("per_seed.csv", "summary.csv", "pareto_fronts.csv", "fig1_right_postprocessing.png"):
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name

    per_seed = result["per_seed"]
    summary = result["summary"]
    dp = summary[summary["method"] == "dp_postprocessing"]
    assert set(dp["epsilon"]) == set(script.EPSILONS)
    assert set(dp["gamma"]) == set(script.QUICK_GAMMAS)
    assert (summary["n_seeds"] == script.QUICK_SEEDS).all()

    # Non-private post-processing at gamma = 0: exact equalized odds in-sample, for every seed.
    exact = per_seed[(per_seed["method"] == "dp_postprocessing") & (per_seed["epsilon"] == math.inf)
                     & (per_seed["gamma"] == 0.0)]
    assert len(exact) == script.QUICK_SEEDS
    assert exact["eo_violation_train"].max() < 1e-6

    # At epsilon = inf the in-sample violation is at most gamma and weakly decreases as gamma decreases. The mixing
    # rates are HiGHS's LP solution, exact to its feasibility tolerance 1e-7: a violation (a difference of two
    # rates) to 2e-7, a difference of two violations to 4e-7.
    nonprivate = dp[dp["epsilon"] == math.inf].sort_values("gamma")
    violation = nonprivate["eo_violation_train_mean"].to_numpy()
    assert np.all(np.diff(violation) >= -4e-7)
    assert np.all(violation <= nonprivate["gamma"].to_numpy() + 1e-6)

    # Strong privacy (epsilon = 0.1) loses the fairness guarantee at gamma = 0.
    at_zero = dp[dp["gamma"] == 0.0].set_index("epsilon")
    assert at_zero.loc[0.1, "eo_violation_train_mean"] > at_zero.loc[math.inf, "eo_violation_train_mean"]

    fronts = result["pareto_fronts"]
    for (split, eps), front in fronts.groupby(["split", "epsilon"]):
        assert front["error_mean"].is_monotonic_increasing and front["eo_violation_mean"].is_monotonic_decreasing
