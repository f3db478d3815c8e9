"""The readings of DPNoSE / DPSE in examples/budget2023_group_budget.py and the files the gallery page renders.

Fast tests (one synthetic seed at one rho, the committed CSVs, the gallery page) run by default; the --quick run of
the whole script (both datasets, every reading) is marked slow.
"""

import os
import runpy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fairdp_adapters._checkout import load_example

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img"
GALLERY_PAGE = ROOT / "docs" / "gallery_src" / "plot_6_budget2023.py"


@pytest.fixture(scope="module")
def script():
    return load_example("budget2023_group_budget.py")


@pytest.fixture(scope="module")
def one_seed_table(script):
    """All readings from one synthetic seed at rho = 2 (9 fits, about 1 s)."""
    per_fit = pd.DataFrame(script.run_synthetic_seed(0, (2.0,)))
    summaries = {reading: script.summarise(script.reading_per_seed(per_fit, reading))
                 for reading in script.READING_ORDER}
    return per_fit, script.tables(summaries)


# ------------------------------------------------------------------------------------------ definitions
def test_paper_tables_typed_in(script):
    """Tables 1-3: three rhos, both methods, five groups; their relative changes are the issue's +25% / -16%."""
    assert set(script.PAPER_TABLES) == {2.0, 4.5, 8.0}
    for rho, table in script.PAPER_TABLES.items():
        dpnose, dpse = np.array(table["DPNoSE"]), np.array(table["DPSE"])
        assert dpnose.shape == dpse.shape == (len(script.SYN_GROUPS),)
        change = dpse / dpnose - 1
        assert 0.23 < change[0] < 0.26, rho                     # 1.27 / 1.02 - 1 = +24.5%
        assert np.all((change[1:] > -0.17) & (change[1:] < -0.15)), rho


def test_readings_are_the_documented_pairs(script):
    fits, readings = script.FITS, script.READINGS
    assert tuple(readings) == script.READING_ORDER
    assert script.PRIMARY_READING == "group_mean"
    for reading, spec in readings.items():
        assert spec["DPNoSE"] in fits and spec["DPSE"] in fits, reading
        assert fits[spec["DPNoSE"]][1] == "uniform" and fits[spec["DPSE"]][1] == "standard_errors", reading
    assert fits[readings["group_mean"]["DPNoSE"]][0] == fits[readings["group_mean"]["DPSE"]][0] == "group_mean"
    assert fits[readings["pooled_dpnose"]["DPNoSE"]] == ("pooled", "uniform", None)
    assert fits[readings["pooled_dpnose"]["DPSE"]] == ("group_mean", "standard_errors", None)
    assert fits[readings["pooled"]["DPSE"]] == ("pooled", "standard_errors", None)
    assert fits[readings["bgl"]["DPNoSE"]][2] is not None and fits[readings["bgl"]["DPSE"]][2] is not None
    assert script.BGL_ETA == 0.0            # the paper's g(l) = max_i l_i: the constraint max_k L_k <= 0


def test_reading_option_selects_fits(script):
    assert script.parse_args([]).reading == ["all"]
    assert script.parse_args(["--reading", "pooled_dpnose", "bgl"]).reading == ["pooled_dpnose", "bgl"]
    with pytest.raises(SystemExit):
        script.parse_args(["--reading", "nonsense"])
    fits, nonprivate = script.fits_for(("pooled_dpnose",))
    assert fits == ["group_mean/SE", "pooled/uniform"]
    assert nonprivate == ["group_mean/uniform", "pooled/uniform"]
    fits, _ = script.fits_for(script.READING_ORDER)
    assert fits == list(script.FITS)          # every fit once, however many readings share it


def test_pooled_step_matches_group_mean_step(script):
    """Pooled direction = sum over n rows; K / n scaling gives the group-mean objective's step on a mean gradient."""
    n, k = sum(script.SYN_SIZES), len(script.SYN_GROUPS)
    assert script.pooled_learning_rate(n, k) * n == pytest.approx(script.LEARNING_RATE * k)


# ------------------------------------------------------------------------------------- one seed, all readings
def test_one_seed_table_has_the_gallery_columns(script, one_seed_table):
    per_fit, table = one_seed_table
    assert list(table.columns) == list(script.TABLE_COLUMNS)
    assert set(per_fit["fit"]) == set(script.FITS)
    assert len(table) == len(script.READING_ORDER) * len(script.SYN_GROUPS)
    assert list(dict.fromkeys(table["reading"])) == list(script.READING_ORDER)
    for reading, part in table.groupby("reading"):
        assert list(part["group"]) == [str(g) for g in script.SYN_GROUPS], reading
        assert part["paper_dpnose_mspe"].tolist() == list(script.PAPER_TABLES[2.0]["DPNoSE"])
        assert part["paper_dpse_mspe"].tolist() == list(script.PAPER_TABLES[2.0]["DPSE"])
    np.testing.assert_allclose(table["diff_mean"], table["dpnose_mspe"] - table["dpse_mspe"], rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(table["relative_change"], table["dpse_mspe"] / table["dpnose_mspe"] - 1, rtol=1e-12)


def test_budget_split_alone_is_negligible_at_rho_2(one_seed_table):
    """Reading A: same objective, shared stage-2 draws; at rho = 2 the stage-2 noise moves each coefficient by
    ~0.02 (sigma = 2 clip / n_k / sqrt(2 mu s_k^2 / T) times the step 0.1, accumulated over a contraction 2/3), so
    the MSPEs of the two allocations differ by far less than 1%."""
    _, table = one_seed_table
    part = table[table["reading"] == "group_mean"]
    assert np.all(np.abs(part["relative_change"]) < 0.01)


def test_pooled_reading_shift_is_the_objectives_bias(one_seed_table):
    """Reading B: DPSE / DPNoSE - 1 at rho = 2 equals the non-private objectives' ratio up to the same ~1% noise
    term: a shift of the optimum, not of the noise (so it cannot vanish as rho grows)."""
    _, table = one_seed_table
    part = table[table["reading"] == "pooled_dpnose"]
    nonprivate = part["nonprivate_mspe"] / part["nonprivate_dpnose_mspe"] - 1
    assert np.all(np.abs(part["relative_change"] - nonprivate) < 0.01)         # the ~1% noise term above
    assert np.abs(nonprivate).max() > 0.1           # the objectives' optima differ by more than 10% somewhere


# ------------------------------------------------------------------------------------------ committed files
@pytest.fixture(scope="module")
def committed():
    return {name: pd.read_csv(IMG / f"budget2023_{name}.csv") for name in ("tables", "readings", "verdict")}


def test_committed_tables_csv(script, committed):
    table = committed["tables"]
    assert list(table.columns) == list(script.TABLE_COLUMNS)
    table["group"] = table["group"].astype(str)
    assert list(dict.fromkeys(table["reading"])) == list(script.READING_ORDER)
    assert list(committed["readings"]["reading"]) == list(script.READING_ORDER)
    assert (table["n_seeds"] == script.DEFAULT_SEEDS).all()
    for reading in script.READING_ORDER:
        syn = table[(table["reading"] == reading) & (table["dataset"] == "synthetic")]
        assert sorted(set(syn["rho"])) == sorted(script.RHOS), reading
        assert len(syn) == len(script.RHOS) * len(script.SYN_GROUPS), reading
        law = table[(table["reading"] == reading) & (table["dataset"] == "law_school")]
        assert len(law) == len(script.RHOS) * len(script.LAW_GROUPS), reading
        for rho, published in script.PAPER_TABLES.items():
            rows = syn[syn["rho"] == rho]
            assert rows["group"].tolist() == [str(g) for g in script.SYN_GROUPS]
            np.testing.assert_allclose(rows["paper_dpnose_mspe"], published["DPNoSE"])
            np.testing.assert_allclose(rows["paper_dpse_mspe"], published["DPSE"])
    # The paper's columns are empty where the paper has no table (other rhos, Law School).
    assert table.loc[~table["rho"].isin(list(script.PAPER_TABLES)) | (table["dataset"] != "synthetic"),
                     "paper_dpse_mspe"].isna().all()
    # Written with 6 significant digits: derived columns agree to that precision.
    np.testing.assert_allclose(table["relative_change"], table["dpse_mspe"] / table["dpnose_mspe"] - 1,
                               atol=2e-5)
    np.testing.assert_allclose(table["diff_mean"], table["dpnose_mspe"] - table["dpse_mspe"],
                               atol=2e-5 * table["dpnose_mspe"].abs().max())


def test_committed_verdict_follows_from_the_table(script, committed):
    table = committed["tables"].copy()
    table["group"] = table["group"].astype(str)
    recomputed = script.reproduction_verdict(table)
    verdict = committed["verdict"]
    assert list(verdict["reading"]) == list(recomputed["reading"])
    assert list(verdict["reproduces"]) == list(recomputed["reproduces"])
    assert list(verdict["sign_matches"]) == list(recomputed["sign_matches"])
    np.testing.assert_allclose(verdict["max_abs_gap_pp"], recomputed["max_abs_gap_pp"], rtol=1e-4)


def test_committed_figures_exist():
    for name in ("mspe_vs_rho.png", "readings_vs_rho.png"):
        path = IMG / f"budget2023_{name}"
        assert path.is_file() and path.stat().st_size > 10_000, name


def test_gallery_page_runs_from_the_committed_files(capsys):
    """The page only reads docs/img (a few seconds at most) and renders tables from it."""
    cwd = os.getcwd()
    os.chdir(GALLERY_PAGE.parent)
    try:
        namespace = runpy.run_path(str(GALLERY_PAGE), run_name="__main__")
    finally:
        os.chdir(cwd)
    for name in ("tables", "verdict"):
        assert isinstance(namespace[name], pd.DataFrame) and len(namespace[name]) > 0, name
    assert "Usage::" in capsys.readouterr().out         # the last cell prints the script's docstring


# ---------------------------------------------------------------------------------------------- slow
@pytest.mark.slow
def test_quick_run_writes_every_reading(script, tmp_path):
    result = script.main(["--quick", "--out", str(tmp_path)])
    assert result["readings"] == script.READING_ORDER
    for name in ("tables.csv", "readings.csv", "verdict.csv", "readings_vs_rho.png", "mspe_vs_rho.png",
                 *(f"{d}_summary_{r}.csv" for d in script.DATASET_ORDER for r in script.READING_ORDER)):
        assert (tmp_path / name).is_file() and (tmp_path / name).stat().st_size > 0, name
    table = pd.read_csv(tmp_path / "tables.csv")
    assert list(table.columns) == list(script.TABLE_COLUMNS)
    n_groups = len(script.SYN_GROUPS) + len(script.LAW_GROUPS)
    assert len(table) == len(script.READING_ORDER) * len(script.QUICK_RHOS) * n_groups
    assert (table["n_seeds"] == script.QUICK_SEEDS).all()
    assert np.all(np.isfinite(table[["dpnose_mspe", "dpse_mspe", "diff_mean"]]))
    # The primary reading keeps the one-reading script's outputs.
    assert set(result["per_seed"]["method"]) == {"non-private", "DPNoSE", "DPSE"}
    verdict = pd.read_csv(tmp_path / "verdict.csv")
    assert list(verdict["reading"]) == list(script.READING_ORDER)
