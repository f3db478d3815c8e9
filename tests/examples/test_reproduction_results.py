"""The reproduction tables of the gallery come from the scripts' own output files (no hand-copied numbers).

Three reproductions store a full run's small summary CSVs in ``docs/img/`` and their gallery pages
(``docs/gallery_src/plot_*.py``) render the tables from them when the documentation is built:

- ``examples/jagielski2019_postprocessing.py`` -> ``docs/img/jagielski2019_postprocessing_summary.csv``
  (its ``summary.csv``), page ``plot_2_jagielski2019_postprocessing.py``;
- ``examples/jagielski2019_inprocessing.py`` -> ``docs/img/jagielski2019_inprocessing_summary.csv``
  (its ``summary.csv``), page ``plot_3_jagielski2019_inprocessing.py``;
- ``examples/zhu2022_allocation.py`` -> ``docs/img/zhu2022_table1.csv`` (``table1_data_release.csv``),
  ``zhu2022_table1_entities.csv`` (``table1_entities.csv``) and ``zhu2022_table2.csv`` (``table2_allocation.csv``),
  plus ``zhu2022_table2_children_5_17.csv`` (``table2_allocation.csv`` of a run with ``--counts-column
  children_5_17``), page ``plot_5_zhu2022.py``.

``tests/committed_results.py`` also lists ``examples/blind_fair_regression.py``'s summary, whose page has its own
tests (``tests/examples/test_blind_fair_regression.py``); (a) below covers it too.

For each: (a) the committed files exist and hold the columns and rows the page reads (fast; the page itself is
run on them, as sphinx-gallery does); (b) the script's ``--quick`` run writes files with the same columns, so the
committed files are that script's output format: checked on the run in a fresh interpreter
(``tests/committed_results.py``, ``tests/examples/test_examples_fresh_subprocess.py``), the only quick run of each
script; (c) in the slow leg, the post-processing reproduction is run in full and its summary compared with the committed one
(``POSTPROCESSING_TOLERANCE``), so a change of its results or warnings fails until the file is regenerated. To refresh
the tables: run the script in full (default settings; for the children_5_17 table, with that ``--counts-column``) and
copy the files listed above.
"""

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from committed_results import COMMITTED, IMG
from fairdp_adapters._checkout import load_example

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "docs" / "gallery_src"
MAX_BYTES = 200_000

PAGES = {"jagielski2019_postprocessing.py": "plot_2_jagielski2019_postprocessing.py",
         "jagielski2019_inprocessing.py": "plot_3_jagielski2019_inprocessing.py",
         "zhu2022_allocation.py": "plot_5_zhu2022.py"}


def _read(name):
    return pd.read_csv(IMG / name)


def _has(frame, columns):
    missing = sorted(set(columns) - set(frame.columns))
    assert not missing, f"missing columns {missing}"


# ------------------------------------------------------------------------------------ (a) committed files
@pytest.mark.parametrize("name", [name for files in COMMITTED.values() for name in files])
def test_committed_file_exists_and_is_small(name):
    path = IMG / name
    assert path.is_file(), f"{path} missing: run the script in full and copy its output (module docstring)"
    assert 0 < path.stat().st_size < MAX_BYTES


def test_postprocessing_summary_has_what_the_page_reads():
    script = load_example("jagielski2019_postprocessing.py")
    summary = _read("jagielski2019_postprocessing_summary.csv")
    _has(summary, ["method", "epsilon", "gamma", "n_seeds", "n_fits_with_warnings", "n_fits_cannot_bind",
                   "slack_fpr_mean", "slack_tpr_mean", "disparity_bound_fpr_mean", "disparity_bound_tpr_mean",
                   "thm31_holds_mean", "m_train", "q_min_train_mean"]
         + [f"{m}_{s}_mean" for s in ("train", "test") for m in ("error", "eo_violation", "fpr_gap", "tpr_gap")])
    assert (summary["method"] == "base_classifier").sum() == 1
    dp = summary[summary["method"] == "dp_postprocessing"]
    assert set(dp["epsilon"]) == set(script.EPSILONS)        # a full run: the default grids
    assert set(dp["gamma"]) == set(script.GAMMAS)
    assert (summary["n_seeds"] == script.DEFAULT_SEEDS).all()
    # epsilon = inf, gamma = 0 is Hardt et al.'s exact LP: equalized odds in-sample up to the solver's round-off
    # (the script's own Theorem 3.1 tolerance, 1e-7), and no privacy slack.
    exact = dp[(dp["epsilon"] == math.inf) & (dp["gamma"] == 0.0)].iloc[0]
    assert exact["eo_violation_train_mean"] <= 1e-7
    assert exact["slack_fpr_mean"] == 0 and exact["slack_tpr_mean"] == 0
    # n_fits_with_warnings counts FairnessWarnings (issue 35): none without noise, and a slack >= 1 always warns
    assert (dp.loc[dp["epsilon"] == math.inf, "n_fits_with_warnings"] == 0).all()
    assert (dp["n_fits_cannot_bind"] <= dp["n_fits_with_warnings"]).all()


def test_inprocessing_summary_has_what_the_page_reads():
    script = load_example("jagielski2019_inprocessing.py")
    summary = _read("jagielski2019_inprocessing_summary.csv")
    _has(summary, ["setting", "epsilon", "gamma", "error_train_mean", "eo_violation_train_mean", "upsample",
                   "epsilon_original_scale", "m_fit", "T", "T_paper_formula", "n_hypotheses", "n_seeds"])
    assert (summary["n_seeds"] == script.DEFAULT_SEEDS).all()
    for setting, _, factor, epsilons in script.SETTINGS:
        part = summary[summary["setting"] == setting]
        assert set(part["epsilon"]) == set(epsilons), setting
        assert set(part["gamma"]) == set(script.GAMMAS), setting
        assert (part["upsample"] == factor).all()
        assert (part["epsilon_original_scale"] == part["epsilon"] * factor).all()
    exponential = summary[summary["setting"] == "exponential"]
    assert exponential["n_hypotheses"].notna().all() and (exponential["n_hypotheses"] > 0).all()
    # the upsampled run is compared with the original data at epsilon = UPSAMPLE * epsilon'
    upsampled = summary[summary["setting"] == "regression_upsampled10"]
    assert set(upsampled["epsilon_original_scale"]) <= set(summary.loc[summary["setting"] == "regression", "epsilon"])


def test_zhu_tables_have_what_the_page_reads():
    script = load_example("zhu2022_allocation.py")
    table1 = _read("zhu2022_table1.csv")
    _has(table1, ["instance", "mechanism", "noise", "n_draws", "total_C", "paper_total_C", "alpha", "alpha_se",
                  "alpha_cv", "alpha_cv_se", "lower", "upper", "upper_lemma3", "bounds_method", "inside_bounds_4se",
                  "inside_bounds_cv_4se", "paper_alpha", "paper_lower", "paper_upper", "implied_x1",
                  "implied_x1_interpolated", "implied_x1_below", "implied_lower_at_x1_below", "implied_x1_above",
                  "implied_lower_at_x1_above", "implied_other_mechanism", "implied_other_lower_at_implied_x1"])
    instances = [name for name, *_ in script.table1_instances()]
    mechanisms = [name for name, _ in script.TABLE1_MECHANISMS]
    assert list(zip(table1["instance"], table1["mechanism"], strict=False)) == [(i, m) for i in instances for m in mechanisms]
    assert (table1["n_draws"] == script.TABLE1_DRAWS).all()
    hawaii = table1[table1["instance"] == "hawaii"].set_index("mechanism")
    for mechanism, (alpha, lower, upper) in script.PAPER_TABLE1.items():
        assert tuple(hawaii.loc[mechanism, ["paper_alpha", "paper_lower", "paper_upper"]]) == (alpha, lower, upper)
    assert (table1["alpha_se"] > 0).all() and (table1["alpha_cv_se"] > 0).all()     # the page divides by them

    entities = _read("zhu2022_table1_entities.csv")
    _has(entities, ["instance", "mechanism", "entity", "count"])
    assert set(entities["instance"]) == set(instances)
    synthetic = entities[entities["instance"] == "synthetic"].drop_duplicates("entity")["count"]
    assert tuple(synthetic) == script.SYNTHETIC_COUNTS

    # the smallest county the paper's lower bounds imply (Hawaii rows): the bracketing integers hold the bound
    # between their bounds, the interpolated count lies between them, the nearest integer is one of them
    assert hawaii["implied_x1"].notna().all()
    assert table1.loc[table1["instance"] != "hawaii", "implied_x1"].isna().all()
    assert (hawaii["implied_lower_at_x1_below"] >= hawaii["paper_lower"]).all()
    assert (hawaii["paper_lower"] > hawaii["implied_lower_at_x1_above"]).all()
    assert ((hawaii["implied_x1_below"] <= hawaii["implied_x1_interpolated"])
            & (hawaii["implied_x1_interpolated"] <= hawaii["implied_x1_above"])).all()
    assert ((hawaii["implied_x1"] == hawaii["implied_x1_below"])
            | (hawaii["implied_x1"] == hawaii["implied_x1_above"])).all()

    table2 = _read("zhu2022_table2.csv")
    _has(table2, ["epsilon", "mechanism", "n_draws", "alpha", "paper_alpha", "cost_share", "paper_cost_share",
                  "nyc_under_allocation_dollars", "budget_dollars", "counts_column", "n_districts", "total_count"])
    assert (table2["counts_column"] == script.COUNT_COLUMNS[0]).all()      # the default run
    assert list(zip(table2["epsilon"], table2["mechanism"], strict=False)) == [(e, m) for e in script.EPSILONS
                                                                 for m in script.MECHANISMS]
    assert (table2["n_draws"] == script.TABLE2_DRAWS).all()
    for (eps, mechanism), (alpha, cost) in script.PAPER_TABLE2.items():
        row = table2[(table2["epsilon"] == eps) & (table2["mechanism"] == mechanism)].iloc[0]
        assert (row["paper_alpha"], row["paper_cost_share"]) == (alpha, cost)
    assert (table2["budget_dollars"] == script.BUDGET).all()

    # the same run with all children aged 5-17 as counts (--counts-column children_5_17): same grid and paper values
    children = _read("zhu2022_table2_children_5_17.csv")
    assert (children["counts_column"] == "children_5_17").all()
    assert (children["n_draws"] == script.TABLE2_DRAWS).all()
    for column in ("epsilon", "mechanism", "paper_alpha", "paper_cost_share", "budget_dollars", "n_districts"):
        assert list(children[column]) == list(table2[column]), column
    assert (children["total_count"] > table2["total_count"]).all()


@pytest.mark.parametrize("script_name", sorted(PAGES))
def test_gallery_page_renders_from_the_committed_files(script_name):
    """The page reads every committed file of its script, copies no table by hand, and runs in seconds."""
    page = GALLERY / PAGES[script_name]
    text = page.read_text(encoding="utf-8")
    assert "csv-table" not in text, "a hand-copied table: render it from the committed CSV instead"
    for name in COMMITTED[script_name]:
        assert name in text, f"{page.name} does not read {name}"
    env = dict(os.environ, MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, page.name], cwd=GALLERY, capture_output=True, text=True, timeout=60,
                          env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not re.search(r"\bnan\b", proc.stdout), "the page printed a NaN: a column it reads is missing or empty"


# ------------------------------------------------------------------------------------- the slow leg (-m slow)
#: How far a full re-run of the post-processing reproduction may move on another machine. The release noise is a
#: seeded draw (bit-identical everywhere) and the LP is HiGHS's; the base classifier is a LogisticRegression whose
#: lbfgs iterate depends on the BLAS round-off, which can move a score across a bin edge: a seed mean moves by far
#: less than 0.005, and a fit whose released gap lies within round-off of tol + slack can change whether it warns
#: (at most 2% of a setting's fits).
POSTPROCESSING_TOLERANCE = {"means": 0.005, "warned_share": 0.02}


@pytest.mark.slow  # the full run, 3,300 post-processor fits (about 1 minute on 2 cores): CI runs it (-m slow)
def test_postprocessing_summary_is_what_the_current_code_writes(tmp_path):
    """The committed summary (its warned-fit counts and every mean the page renders) is a full run of today's code:
    a change that moves the results or the warnings fails here until the summary is regenerated (module docstring).
    """
    subprocess.run([sys.executable, "examples/jagielski2019_postprocessing.py", "--n-jobs", "2", "--out",
                    str(tmp_path)], cwd=ROOT, check=True, capture_output=True, timeout=1800)
    committed = _read("jagielski2019_postprocessing_summary.csv")
    fresh = pd.read_csv(tmp_path / "summary.csv")
    keys = ["method", "epsilon", "gamma"]
    assert list(fresh.columns) == list(committed.columns)
    assert fresh[keys].astype(str).values.tolist() == committed[keys].astype(str).values.tolist()
    means = [column for column in committed.columns if column.endswith("_mean")]
    difference = (fresh[means] - committed[means]).abs().max()
    assert (difference.fillna(0) <= POSTPROCESSING_TOLERANCE["means"]).all(), difference.sort_values().tail()
    for column in ("n_fits_with_warnings", "n_fits_cannot_bind"):
        moved = (fresh[column] - committed[column]).abs() / committed["n_seeds"]
        assert (moved.fillna(0) <= POSTPROCESSING_TOLERANCE["warned_share"]).all(), (column, moved.max())
