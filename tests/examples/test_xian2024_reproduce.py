"""Smoke test of examples/xian2024_reproduce.py (the Xian et al. 2024 reproduction) in --quick mode.

The reproduction itself is marked slow (deselected by default; run with ``pytest -m slow``); the doctest of its
``lower_envelope`` helper is fast and runs by default.
"""

import doctest
import math

import numpy as np
import pytest

from fairdp_adapters.cli import load_example


@pytest.fixture(scope="module")
def script():
    return load_example("xian2024_reproduce.py")


def test_lower_envelope_doctest(script):
    result = doctest.testmod(script, verbose=False)
    assert result.attempted >= 3
    assert result.failed == 0


def test_lower_envelope_is_convex_and_pareto(script):
    rng = np.random.default_rng(0)
    points = rng.random((200, 2))
    env = script.lower_envelope(points)
    assert np.all(np.diff(env[:, 0]) > 0)              # left to right
    assert np.all(np.diff(env[:, 1]) < 0)              # strictly improving fairness
    slopes = np.diff(env[:, 1]) / np.diff(env[:, 0])
    assert np.all(np.diff(slopes) > 0)                 # convex
    assert env[0, 0] == points[:, 0].min() and env[-1, 1] == points[:, 1].min()
    # No point lies below the envelope's piecewise-linear interpolation.
    inside = (points[:, 0] >= env[0, 0]) & (points[:, 0] <= env[-1, 0])
    assert np.all(points[inside, 1] >= np.interp(points[inside, 0], env[:, 0], env[:, 1]) - 1e-12)


@pytest.mark.slow
def test_quick_reproduction(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])

    expected = ["main_table_per_seed.csv", "main_table_summary.csv", "sweep_per_seed.csv", "fig2_tradeoffs.csv",
                "fig2_tradeoffs.png", "fig3_law_school_eps0.1.csv", "fig3_law_school_eps0.1.png",
                "fig4_envelopes.csv", "fig4_law_school_envelopes.png"]
    for name in expected:
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name

    summary = result["summary"]
    law = summary[summary["dataset"] == "law_school"]
    raw = law[law["method"] == "no post-processing"].iloc[0]
    dp = law[law["method"] != "no post-processing"].set_index("epsilon")
    assert set(dp.index) == set(script.EPSILONS)
    assert (dp["n_seeds"] == script.QUICK_SEEDS).all()
    assert raw["mse_mean"] == 0.0

    # Exact statistical parity without noise removes most of the raw data's disparity.
    assert raw["ks_mean"] > 0.25
    assert dp.loc[math.inf, "ks_mean"] < 0.5 * raw["ks_mean"]
    # MSE: positive (fairness + discretisation cost), and more privacy costs accuracy (up to seed noise).
    assert 0 < dp.loc[math.inf, "mse_mean"] < 0.05
    noise = 3 * max(dp.loc[0.1, "mse_std"], dp.loc[math.inf, "mse_std"]) / math.sqrt(script.QUICK_SEEDS)
    assert dp.loc[0.1, "mse_mean"] >= dp.loc[math.inf, "mse_mean"] - noise

    # The envelopes start at the least-error point and end at k = 1 (constant output, exactly fair).
    envelope = result["envelope"]
    for eps in script.FIG4_EPSILONS:
        env = envelope[envelope["epsilon"] == eps]
        assert env["n_bins"].iloc[-1] == 1 and env["ks_mean"].iloc[-1] == 0.0
        assert env["mse_mean"].is_monotonic_increasing and env["ks_mean"].is_monotonic_decreasing
