"""examples/blind_fair_regression.py: its quick mode writes what the gallery page reads; the committed summaries are
its full runs' output (seeds 0-49 and the independent seeds 100-149, every mode, epsilon and alpha)."""

import math
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "img" / "blind_fair_regression_summary.csv"
#: The same run on seeds 100-149 (``--first-seed 100 --publish``): the spread on seeds the default run never saw.
INDEPENDENT = ROOT / "docs" / "img" / "blind_fair_regression_summary_seeds100-149.csv"


@pytest.fixture(scope="module")
def script():
    from fairdp_adapters._checkout import load_example

    return load_example("blind_fair_regression.py")


@pytest.mark.parametrize("path, first_seed", [(COMMITTED, 0), (INDEPENDENT, 100)], ids=["seeds0-49", "seeds100-149"])
def test_committed_summary_is_the_full_run(script, path, first_seed):
    summary = pd.read_csv(path)
    assert (summary["n_seeds"] == script.DEFAULT_SEEDS).all()
    assert (summary["first_seed"] == first_seed).all()
    assert summary["ks_above_goal"].between(0, 1).all()
    grid = summary[summary["mode"] != "raw"]
    assert len(grid) == 2 * len(script.EPSILONS) * len(script.ALPHAS)
    assert set(grid["alpha"]) == set(script.ALPHAS)
    assert set(grid["epsilon"]) == set(script.EPSILONS)
    goal = grid[(grid["epsilon"] == 1.0) & (grid["alpha"] == 0.1) & (grid["mode"] == "blind")].iloc[0]
    # The published record meets the goals (fit time: k = 36, 10 buckets; the fit is timed by
    # tests/benchmarks/bench_blind.py, not here).
    assert goal["fit_seconds_median"] < 1.0
    assert goal["ks_mean"] <= script.GOAL["ks"]         # the test-KS goal, as published


def reproduction_tolerance(std, n, m):
    """Three standard deviations of ``mean(m re-run seeds) - committed mean over n seeds`` for a metric whose
    committed population std (ddof = 0) over the n seeds is ``std``.

    Seeded end to end does not mean bit for bit on another machine: the group estimator (lbfgs on unscaled
    features, stopped at tol = 1e-4) stops at another iterate under another BLAS kernel (coefficients 1e-2 apart
    between the Haswell and Katmai OpenBLAS kernels), rows change posterior bucket, and HiGHS may pick another
    optimal vertex. A seed's metric then moves like a fresh draw around its value. Measured at the goal setting
    between five OpenBLAS kernels (Haswell, SkylakeX, Sandybridge, Nehalem, and Katmai, which
    OPENBLAS_CORETYPE=Prescott selects; 1 or 2 threads made no difference): per-seed rms differences up to 0.50 std
    for KS and 0.07 for MSE on seeds 0-9 (their std), 0.21 and 0.12 on seeds 0-49; the 50-seed means moved by at
    most 0.31 standard errors. Two terms, independent:

    - machine: per-seed differences with sd at most ``std`` (twice the largest rms measured), averaged over m
      seeds: ``std / sqrt(m)`` (the committed mean's standard error when m = n);
    - subset (m < n only): the first m of the n committed seeds, exchangeable, as a sample without replacement:
      ``std sqrt((n - m) / (m (n - 1)))``.

    With the committed 50-seed summary, all re-run (m = n = 50: 3 standard errors of the committed mean), this
    allows KS 0.011 and MSE 0.0012. What regressions move (seeds 0-9 without the noise margins; the summary's other
    rows): no margins KS +0.031 / MSE -0.0088, no noise at all (epsilon = inf) KS +0.028 / MSE -0.010, a wrong
    alpha (0.15 / 0.05) KS +0.041 / MSE +0.0043, twice the noise (epsilon = 0.5) KS +0.028.
    """
    subset = std * math.sqrt((n - m) / (m * (n - 1))) if m < n else 0.0
    return 3 * math.hypot(std / math.sqrt(m), subset)


#: The goal-setting re-run covers the committed run's first MAX_RERUN_SEEDS seeds (all 50 of the current summary:
#: about 10 s on 2 idle cores); a larger committed run is compared through the subset term of reproduction_tolerance.
MAX_RERUN_SEEDS = 50


@pytest.mark.slow  # a reproduction of the goal over seeds (11 s): CI runs it (-m slow)
def test_goal_setting_reproduces(script):
    """The goal setting (epsilon = 1, alpha = 0.1, default noise_margin) re-run on the committed run's seeds: mean
    test KS with the true groups <= 0.15, and the committed KS and MSE means within :func:`reproduction_tolerance`."""
    from joblib import Parallel, delayed

    committed = pd.read_csv(COMMITTED)
    goal = committed[(committed["mode"] == "blind") & (committed["epsilon"] == script.GOAL["epsilon"])
                     & (committed["alpha"] == script.GOAL["alpha"])].iloc[0]
    n = int(goal["n_seeds"])
    first = int(goal["first_seed"]) if "first_seed" in goal.index else 0
    seeds = range(first, first + min(n, MAX_RERUN_SEEDS))
    runs = Parallel(n_jobs=2)(delayed(script.run_seed)(seed, (script.GOAL["epsilon"],), (script.GOAL["alpha"],))
                              for seed in seeds)
    frame = pd.DataFrame([row for rows in runs for row in rows])
    blind = frame[frame["mode"] == "blind"]
    assert sorted(blind["seed"]) == list(seeds)
    assert blind["ks"].mean() <= script.GOAL["ks"]
    for metric in ("ks", "mse"):
        tolerance = reproduction_tolerance(goal[f"{metric}_std"], n, len(seeds))
        assert blind[metric].mean() == pytest.approx(goal[f"{metric}_mean"], rel=0, abs=tolerance), metric


@pytest.mark.slow  # a second quick run (7 s): the default run's `fairdp reproduce blind-fair-regression --quick`
# checks the written files and the committed columns (tests/examples/test_examples_fresh_subprocess.py)
def test_quick_run_on_other_seeds_writes_the_committed_format(script, tmp_path):
    summary = script.main(["--quick", "--first-seed", "100", "--out", str(tmp_path)])
    assert list(pd.read_csv(tmp_path / "summary.csv").columns) == list(pd.read_csv(COMMITTED).columns)
    assert (summary["first_seed"] == 100).all() and (summary["n_seeds"] == 2).all()      # seeds 100 and 101
    assert (tmp_path / "fronts.png").stat().st_size > 0
    raw = summary[summary["mode"] == "raw"].iloc[0]
    for mode in ("aware", "blind"):                   # alpha = 0 at epsilon = inf moves KS well below the raw level
        row = summary[(summary["mode"] == mode) & (summary["alpha"] == 0.0) & (summary["epsilon"] == math.inf)]
        assert row["ks_mean"].iloc[0] < raw["ks_mean"] / 2


def test_publish_names_the_seed_set(script, tmp_path, monkeypatch):
    """The default seeds replace the committed summary and figure; another seed set only adds its own summary."""
    monkeypatch.setattr(script, "DOCS_IMG", tmp_path / "img")
    (tmp_path / "img").mkdir()
    paths = {name: tmp_path / f"{name}.out" for name in ("summary", "fronts")}
    for path in paths.values():
        path.write_text(path.stem)
    script.publish(paths, range(100, 150))
    assert sorted(p.name for p in (tmp_path / "img").iterdir()) == ["blind_fair_regression_summary_seeds100-149.csv"]
    script.publish(paths, range(script.DEFAULT_SEEDS))
    assert (tmp_path / "img" / "blind_fair_regression_summary.csv").read_text() == "summary"
    assert (tmp_path / "img" / "blind_fair_regression_fronts.png").read_text() == "fronts"


def test_gallery_page_reads_the_committed_summary():
    page = (ROOT / "docs" / "gallery_src" / "plot_7_blind_fair_regression.py").read_text()
    assert '"blind_fair_regression_summary.csv"' in page and "blind_fair_regression_fronts.png" in page
    assert '"blind_fair_regression_summary_seeds100-149.csv"' in page
