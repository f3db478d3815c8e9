"""Smoke test of examples/xian2024_reproduce.py (the Xian et al. 2024 reproduction) in --quick mode.

The reproduction itself is marked slow (deselected by default; run with ``pytest -m slow``); the doctest of its
``lower_envelope`` helper, the grid/seed defaults and the docs table check are fast and run by default.
"""

import doctest
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fairdp_adapters._checkout import load_example

ROOT = Path(__file__).resolve().parents[2]


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


def test_defaults_are_the_authors_seeds_std_and_grids(script):
    args = script.parse_args([])
    assert (args.first_seed, args.seeds, args.ddof) == (33, 50, 0)          # seeds 33-82, np.std
    assert script.parse_args(["--first-seed", "0"]).first_seed == 0       # the former seeds 0-49
    assert tuple(range(1, 23)) + (24, 26, 28, 30, 36, 42, 48, 54, 60) == script.FIG34_N_BINS
    assert len(script.FIG34_N_BINS) == 31 and set(script.FIG3_N_BINS) <= set(script.FIG34_N_BINS)
    law, crime = np.array(script.LAW_SCHOOL_ALPHAS), np.array(script.COMMUNITIES_CRIME_ALPHAS)
    assert len(law) == 24 and len(crime) == 28
    np.testing.assert_allclose(law[[0, 1, 2, 10, 11, 12, 22, 23]],
                               [0, 0.005, 0.00697475, 0.1, 0.11, 0.13181818, 0.35, 1], rtol=0, atol=5e-9)
    np.testing.assert_allclose(crime[[0, 1, 2, 14, 15, 16, 26, 27]],
                               [0, 0.005, 0.00638469, 0.12, 0.13, 0.15818182, 0.44, 1], rtol=0, atol=5e-9)
    alphas, n_bins = script.sweep_grid(script.LAW_SCHOOL, quick=True)
    assert alphas == script.QUICK_ALPHAS and set(n_bins) == set(script.FIG3_N_BINS) | {1}


def test_summary_std_is_population_std(script):
    frame = pd.DataFrame({"g": [0, 0], "seed": [1, 2], "mse": [1.0, 3.0], "ks": [0.0, 2.0],
                          "objective": [0.0, 0.0], "warnings": ["", ""]})
    row = script.summarise(frame, ["g"]).iloc[0]
    assert (row["mse_std"], row["ks_std"]) == (1.0, 1.0)
    assert script.summarise(frame, ["g"], ddof=1).iloc[0]["mse_std"] == pytest.approx(math.sqrt(2))


def test_docs_table_is_rendered_from_the_committed_summary(script):
    """The gallery page renders its table with render_readme_table() from docs/img/xian2024_summary.csv (the full
    run's summary, published by ``--publish``) at build time, so the two cannot drift; the summary has every seed."""
    page = (ROOT / "docs" / "gallery_src" / "plot_1_xian2024.py").read_text()
    assert 'script.render_readme_table(ROOT / "docs" / "img" / "xian2024_summary.csv")' in page
    assert script.PUBLISHED_SUMMARY == ROOT / "docs" / "img" / "xian2024_summary.csv"
    table = script.render_readme_table(script.PUBLISHED_SUMMARY)
    assert table.count("\n") + 1 == 2 + 16          # header, separator, 8 settings x 2 datasets
    summary = pd.read_csv(script.PUBLISHED_SUMMARY)
    assert (summary["n_seeds"] == script.DEFAULT_SEEDS).all()


@pytest.mark.slow
def test_quick_reproduction(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])

    expected = ["main_table_per_seed.csv", "main_table_summary.csv", "main_table.md", "sweep_per_seed.csv",
                "fig2_tradeoffs.csv", "fig2_tradeoffs.png", "fig3_law_school_eps0.1.csv", "fig3_law_school_eps0.1.png",
                "fig4_envelopes.csv", "fig4_law_school_envelopes.png"]
    for name in expected:
        path = tmp_path / name
        assert path.is_file() and path.stat().st_size > 0, name

    summary = result["summary"]
    law = summary[summary["dataset"] == "law_school"]
    raw = law[law["method"] == "no post-processing"].iloc[0]
    dp = law[(law["method"] != "no post-processing") & (law["alpha"] == 0.0)].set_index("epsilon")
    binning = law[law["alpha"] == 1.0].iloc[0]
    assert set(dp.index) == set(script.EPSILONS)
    assert (dp["n_seeds"] == script.QUICK_SEEDS).all()
    assert raw["mse_mean"] == 0.0
    # Binning alone (alpha = 1, no noise) moves every target to its bin centre: each squared error is at most
    # (width / 2)^2 with width 3 / 36, and positive (the GPAs are rounded, so the uniform-within-bin value
    # (3 / 36)^2 / 12 holds only roughly: 0.00061 over the full run). The GPAs lie on a 0.1 grid and a bin is
    # 0.083 wide, so no bin holds two grid values: binning is an order-preserving one-to-one map of the data and
    # leaves every KS distance unchanged (the authors' table shows the same digits for both rows).
    assert binning["ks_mean"] == pytest.approx(raw["ks_mean"], abs=1e-12)
    assert 0 < binning["mse_mean"] <= (3 / 36 / 2) ** 2
    rendered = script.render_readme_table(tmp_path / "main_table_summary.csv")
    assert (tmp_path / "main_table.md").read_text() == rendered + "\n"

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
