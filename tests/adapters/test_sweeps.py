"""Privacy/fairness sweeps: tidy table, reproducibility across n_jobs and backends, Pareto fronts, plots."""

import doctest

import fairdp_adapters._sweeps as sweeps
import joblib
import numpy as np
import pandas as pd
import pytest
from diffprivlib import BudgetAccountant
from fairdp_adapters._sweeps import pareto_front
from fairdp_adapters.reporting import SweepResult, metric, plot_tradeoff, privacy_fairness_sweep
from fairlearn.metrics import MetricFrame
from pandas.testing import assert_frame_equal
from sklearn.metrics import mean_squared_error

from fairlearn_dp.metrics import ks_statistical_parity
from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor

GRID = {"epsilon": [1.0, np.inf], "alpha": [0.0, 0.5]}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 2, 1200)
    y = np.clip(rng.normal(0.4 + 0.2 * groups, 0.1), 0.0, 1.0)
    return y[:, None], y, groups


def estimator(accountant=None):
    return DPFairRegressionPostprocessor(bounds=(0, 1), n_bins=10, groups=[0, 1], accountant=accountant)


METRICS = {"mse": metric(mean_squared_error),
           "ks": lambda yt, yp, sf: ks_statistical_parity(yt, yp, sensitive_features=sf)}


def run(data, **kwargs):
    X, y, groups = data
    kwargs.setdefault("n_seeds", 2)
    kwargs.setdefault("progress", False)
    return privacy_fairness_sweep(estimator(kwargs.pop("accountant", None)), GRID, X, y, sensitive_features=groups,
                                  metrics=METRICS, **kwargs)


@pytest.fixture(scope="module")
def result(data):
    return run(data)


def test_table_has_one_row_per_setting_and_seed_with_spend(result):
    table = result.table
    assert isinstance(result, SweepResult)
    assert list(table.columns) == ["setting", "alpha", "epsilon", "seed", "mse", "ks", "spent_epsilon",
                                   "spent_delta"]
    assert len(table) == 8
    assert table.groupby("setting").size().tolist() == [2, 2, 2, 2]
    np.testing.assert_array_equal(table["spent_epsilon"], table["epsilon"])
    assert (table["spent_delta"] == 0).all()
    assert table[["mse", "ks"]].notna().all().all()
    # exact parity at alpha = 0 without noise is (nearly) reached; alpha = 0.5 leaves outputs less fair
    no_dp = table[np.isinf(table["epsilon"])].groupby("alpha")["ks"].mean()
    assert no_dp[0.0] < no_dp[0.5]
    summary = result.summary
    assert len(summary) == 4
    assert {"mse_mean", "mse_std", "ks_mean", "ks_std", "spent_epsilon_mean", "n_seeds"} <= set(summary.columns)
    assert summary["mse_mean"].iloc[0] == pytest.approx(table.loc[table["setting"] == 0, "mse"].mean())


def test_reproducible_and_independent_of_n_jobs(data, result):
    assert_frame_equal(run(data).table, result.table)
    assert_frame_equal(run(data, n_jobs=2).table, result.table)
    assert not run(data, random_state=1).table["mse"].equals(result.table["mse"])


def test_fresh_accountant_per_fit_leaves_users_accountant_alone(data):
    users = BudgetAccountant()
    run(data, n_seeds=1, accountant=users)
    assert users.spent_budget == []


def test_metric_frame_refits_and_matches_the_row(result):
    frame = result.metric_frame(2, 1)
    assert isinstance(frame, MetricFrame)
    row = result.table[(result.table["setting"] == 2) & (result.table["seed"] == 1)].iloc[0]
    assert frame.overall["mse"] == pytest.approx(row["mse"], abs=0, rel=1e-12)
    assert frame.overall["ks"] == pytest.approx(row["ks"], abs=0, rel=1e-12)
    assert frame.by_group["mse"].notna().all() and frame.by_group["ks"].isna().all()
    assert frame.privacy_spent == (row["spent_epsilon"], row["spent_delta"])
    with pytest.raises(IndexError):
        result.metric_frame(4, 0)


def test_sweep_rejects_reserved_parameters(data):
    X, y, groups = data
    with pytest.raises(ValueError, match="random_state"):
        privacy_fairness_sweep(estimator(), {"random_state": [0]}, X, y, sensitive_features=groups,
                               metrics=METRICS, progress=False)


def test_pareto_front_is_convex_non_dominated_and_has_extremes():
    rng = np.random.default_rng(3)
    for _ in range(20):
        points = rng.uniform(size=(40, 2))
        front = pareto_front(points)
        x, y = front[:, 0], front[:, 1]
        assert np.all(np.diff(x) > 0) and np.all(np.diff(y) < 0)  # sorted and non-dominated among themselves
        slopes = np.diff(y) / np.diff(x)
        assert np.all(np.diff(slopes) > 0)  # convex
        # no input point dominates a vertex, and every input point lies on or above the envelope
        for vx, vy in front:
            assert not np.any((points[:, 0] <= vx) & (points[:, 1] <= vy) & ((points[:, 0] < vx) | (points[:, 1] < vy)))
        inside = points[:, 0] <= x[-1]
        assert np.all(points[inside, 1] >= np.interp(points[inside, 0], x, y) - 1e-12)
        # extremes: least error (lowest violation among ties) and least violation
        np.testing.assert_array_equal(front[0], points[np.argmin(points[:, 0])])
        np.testing.assert_array_equal(front[-1], points[np.argmin(points[:, 1])])
    assert doctest.testmod(sweeps, verbose=False).failed == 0


def test_plot_tradeoff_writes_png(result, tmp_path):
    path = plot_tradeoff(result.summary, x="mse", y="ks_mean", by="epsilon", path=tmp_path / "t.png", title="t")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.dask
def test_same_table_on_a_dask_cluster(data, result):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1) as cluster, \
            distributed.Client(cluster), joblib.parallel_backend("dask"):
        table = run(data, n_jobs=-1).table
    assert_frame_equal(table, result.table)


def test_progress_bar_runs(data, capsys):
    table = run(data, n_seeds=1, progress=True).table
    assert len(table) == 4
    assert "sweep" in capsys.readouterr().err
    assert isinstance(table, pd.DataFrame)


def test_metric_adapts_plain_keyword_and_positional_group_metrics():
    yt, yp, sf = np.array([0.0, 1.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0, 1.0]), np.array(["a", "a", "b", "b"])
    assert metric(mean_squared_error)(yt, yp, sf) == 0.5
    by_keyword = metric(ks_statistical_parity, uses_groups=True)
    positional = metric(lambda t, p, g: ks_statistical_parity(t, p, sensitive_features=g), uses_groups=True)
    assert by_keyword(yt, yp, sf) == positional(yt, yp, sf) == 1.0
    assert sweeps._as_sweep_metric(METRICS["ks"])(yt, yp, sf) == 1.0


def test_threshold_optimizer_with_prefit_base_classifier_keeps_it_fitted():
    from fairlearn.metrics import equalized_odds_difference
    from sklearn.linear_model import LogisticRegression

    from fairlearn_dp.postprocessing import DPThresholdOptimizer

    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 1500)
    X = rng.normal(size=(1500, 2)) + 0.5 * a[:, None]
    y = (X[:, 0] + rng.normal(size=1500) > 0.3).astype(int)
    base = LogisticRegression().fit(X, y)
    optimizer = DPThresholdOptimizer(estimator=base, prefit=True, constraints="equalized_odds",
                                     predict_method="predict_proba", groups=[0, 1])
    result = privacy_fairness_sweep(
        optimizer, {"epsilon": [1.0, np.inf]}, X, y, sensitive_features=a, n_seeds=1, progress=False,
        metrics={"error": metric(lambda t, p: float(np.mean(t != p))),
                 "eo": metric(equalized_odds_difference, uses_groups=True)})
    assert len(result.table) == 2 and result.table[["error", "eo"]].notna().all().all()
    assert result.metric_frame(1, 0).overall["error"] == result.table.loc[1, "error"]


def test_private_report_adds_the_test_splits_dp_columns(data):
    """``private_report``: one DPMetricFrame per task on the test split, charged to its own accountant; exact at
    epsilon=inf (the columns then equal MetricFrame's), reproducible with the sweep's seed."""
    report = {"metrics": {"mse": mean_squared_error}, "groups": [0, 1], "bounds": (0.0, 1.0)}
    exact = run(data, private_report={**report, "epsilon": np.inf})
    table = exact.table
    assert {"private_mse", "private_mse_difference", "report_epsilon"} <= set(table.columns)
    np.testing.assert_allclose(table["private_mse"], table["mse"], rtol=1e-9)
    noisy = run(data, private_report={**report, "epsilon": 1.0})
    again = run(data, private_report={**report, "epsilon": 1.0})
    assert_frame_equal(noisy.table, again.table)
    assert (noisy.table["report_epsilon"] == 1.0).all()
    assert not np.allclose(noisy.table["private_mse_difference"], exact.table["private_mse_difference"])
    with pytest.raises(ValueError, match="private_report"):
        run(data, private_report={"metrics": {"mse": mean_squared_error}})
    with pytest.raises(ValueError, match="random_state"):
        run(data, private_report={**report, "epsilon": 1.0, "random_state": 0})


def test_the_warnings_of_a_sweeps_tasks_come_after_its_bar(data, capsys):
    """Tasks run in this process (n_jobs=None): a metric's warning issued while the bar is open is shown once it
    has closed, not in the middle of it (issue 35)."""
    import sys
    import warnings

    def loud_mse(y_true, y_pred, sensitive_features):
        warnings.warn("a metric's warning", UserWarning)
        return mean_squared_error(y_true, y_pred)

    def to_stderr(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    X, y, groups = data
    with warnings.catch_warnings():
        warnings.simplefilter("once", UserWarning)
        warnings.showwarning = to_stderr          # the default display, which pytest's own capture replaces
        privacy_fairness_sweep(estimator(), {"epsilon": [np.inf]}, X, y, sensitive_features=groups,
                               metrics={"mse": loud_mse}, n_seeds=2, progress=True)
    err = capsys.readouterr().err
    assert "2/2" in err and err.index("a metric's warning") > err.rindex("sweep:")
