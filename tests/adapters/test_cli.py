"""The ``fairdp`` command line."""

import subprocess
import sys
import time

import pytest

from fairdp_adapters.cli import main


def run(*args):
    return subprocess.run([sys.executable, "-m", "fairdp_adapters.cli", *args], capture_output=True, text=True)


def test_help_documents_every_command():
    result = run("--help")
    assert result.returncode == 0
    for command in ("reproduce", "sweep", "audit"):
        assert command in result.stdout
    for command in ("reproduce", "sweep", "audit"):
        assert run(command, "--help").returncode == 0


@pytest.mark.parametrize("args", [("reproduce", "nope"), ("sweep", "--estimator", "X"), ("frobnicate",),
                                  ("reproduce", "zhu2022", "--dataset", "law_school"),
                                  ("sweep", "--estimator", "DPThresholdOptimizer", "--dataset", "law_school",
                                   "--epsilon", "1"),
                                  ("reproduce", "xian2024", "--n-jobs", "0")])
def test_bad_arguments_exit_non_zero_with_one_line(args):
    result = run(*args)
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1 and "fairdp: error" in result.stderr


def test_sweep_writes_files_and_prints_a_table(tmp_path, capsys):
    code = main(["sweep", "--estimator", "DPFairRegressionPostprocessor", "--dataset", "communities_crime",
                 "--epsilon", "1", "inf", "--param", "alpha=0|0.5", "--seeds", "2", "--out", str(tmp_path)])
    assert code == 0
    for name in ("sweep.csv", "summary.csv", "tradeoff.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "ks_parity" in capsys.readouterr().out


def test_audit_command(tmp_path):
    assert main(["audit", "DPFairRegressionPostprocessor", "--runs", "400", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "audit_DPFairRegressionPostprocessor.csv").is_file()
    assert (tmp_path / "audit_DPFairRegressionPostprocessor.png").stat().st_size > 0


@pytest.mark.slow
def test_reproduce_xian2024_quick_under_two_minutes(tmp_path):
    start = time.perf_counter()
    result = run("reproduce", "xian2024", "--dataset", "law_school", "--quick", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.perf_counter() - start < 120
    assert (tmp_path / "main_table_summary.csv").is_file() and (tmp_path / "fig2_tradeoffs.png").is_file()
