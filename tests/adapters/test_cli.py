"""The ``fairdp`` command line.

Run in-process through ``main()`` (fast); one smoke test runs the real entry point in a subprocess.
"""

import re
import subprocess
import sys

import pytest
from fairdp_adapters import _checkout, cli
from fairdp_adapters.cli import main
from fairdp_adapters.registry import entries

pytestmark = [
    # Fits on a few hundred synthetic rows at small epsilon are often no better than a constant classifier, or take a
    # fallback: a UtilityWarning (each asserted in tests/test_warning_sites.py). These tests check the command line,
    # not the fit's quality.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.UtilityWarning"),
    # The synthetic groups are unreadable at these epsilons (the statistics game's proxy reliability is 0 or low): a
    # FairnessWarning, asserted in tests/test_warning_sites.py and test_statistics_game.py.
    pytest.mark.filterwarnings("ignore::fairlearn_dp.exceptions.FairnessWarning"),
]


def run(*args):
    return subprocess.run([sys.executable, "-m", "fairdp_adapters.cli", *args], capture_output=True, text=True)


def usage_error(capsys, argv):
    """Run ``main(argv)`` expecting a usage error; return its standard error."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    captured = capsys.readouterr()
    assert exit_info.value.code == 2, captured.err
    assert "Traceback" not in captured.out + captured.err
    return captured.err


def help_text(capsys, argv):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_help_documents_every_command(capsys):
    text = help_text(capsys, [])
    for command in ("reproduce", "sweep", "audit"):
        assert command in text
        help_text(capsys, [command])


def test_entry_point_smoke():
    """The installed entry point (a subprocess): a bad argument is one line on stderr, exit 2, no traceback."""
    result = run("sweep", "--estimator", "DPFairRegressionPostprocessor", "--epsilon", "-1")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == ["fairdp: error: argument --epsilon: must be > 0 (or 'inf'), got '-1'"]
    assert "Traceback" not in result.stdout + result.stderr


SWEEP = ["sweep", "--estimator", "DPFairRegressionPostprocessor", "--dataset", "communities_crime"]
AUDIT = ["audit", "DPFairRegressionPostprocessor"]

#: (argv, text the one-line message must contain). "{file}" is replaced by the path of an existing file.
BAD_ARGUMENTS = [
    # sweep: budgets
    ([*SWEEP, "--epsilon", "-1"], "--epsilon"),
    ([*SWEEP, "--epsilon", "0"], "--epsilon"),
    ([*SWEEP, "--epsilon", "abc"], "--epsilon"),
    ([*SWEEP, "--epsilon", "nan"], "--epsilon"),
    ([*SWEEP, "--epsilon", "1", "-0.5"], "--epsilon"),
    (["sweep", "--estimator", "DPGroupBudgetRegressor", "--epsilon", "1", "inf"], "--epsilon"),
    # sweep: names
    (["sweep", "--estimator", "Foo", "--epsilon", "1"], "--estimator"),
    (["sweep", "--estimator", "DPEqOddsPostprocessing", "--epsilon", "1"], "--estimator"),
    (["sweep", "--estimator", "X"], "--epsilon"),
    ([*SWEEP[:3], "--dataset", "adult", "--epsilon", "1"], "--dataset"),
    ([*SWEEP[:3], "--dataset", "mnist", "--epsilon", "1"], "--dataset"),
    (["sweep", "--estimator", "DPThresholdOptimizer", "--dataset", "law_school", "--epsilon", "1"], "--dataset"),
    # sweep: --param names and syntax
    ([*SWEEP, "--epsilon", "1", "--param", "bogus=1"], "bogus"),
    ([*SWEEP, "--epsilon", "1", "--param", "alpha"], "--param"),
    ([*SWEEP, "--epsilon", "1", "--param", "=1"], "--param"),
    ([*SWEEP, "--epsilon", "1", "--param", "alpha=0|"], "--param"),
    ([*SWEEP, "--epsilon", "1", "--param", "alpha=abc"], "alpha"),
    ([*SWEEP, "--epsilon", "1", "--param", "alpha=nan"], "alpha"),
    ([*SWEEP, "--epsilon", "1", "--param", "alpha=0", "--param", "alpha=1"], "alpha"),
    ([*SWEEP, "--epsilon", "1", "--param", "epsilon=2"], "--param"),
    ([*SWEEP, "--epsilon", "1", "--param", "random_state=2"], "--param"),
    ([*SWEEP, "--epsilon", "1", "--param", "groups=a"], "groups"),
    ([*SWEEP, "--epsilon", "1", "--param", "estimator=a"], "estimator"),
    (["sweep", "--estimator", "DPGroupBudgetRegressor", "--epsilon", "1", "--param", "rho=0.1"], "rho"),
    # sweep: values only the estimator's own validation rejects (during the run)
    ([*SWEEP, "--epsilon", "1", "--param", "alpha=-1", "--seeds", "1"], "alpha"),
    ([*SWEEP, "--epsilon", "1", "--param", "n_bins=0", "--seeds", "1"], "n_bins"),
    (["sweep", "--estimator", "DPGroupBudgetClassifier", "--epsilon", "1", "--param", "clip=-1", "--seeds", "1"],
     "clip"),
    # sweep: seeds, workers, output
    ([*SWEEP, "--epsilon", "1", "--seeds", "0"], "--seeds"),
    ([*SWEEP, "--epsilon", "1", "--seeds", "two"], "--seeds"),
    ([*SWEEP, "--epsilon", "1", "--n-jobs", "0"], "--n-jobs"),
    ([*SWEEP, "--epsilon", "1", "--seed", "-1"], "--seed"),
    ([*SWEEP, "--epsilon", "1", "--seed", str(2 ** 32)], "--seed"),
    ([*SWEEP, "--epsilon", "1", "--out", "{file}"], "--out"),
    # audit
    (["audit", "Foo"], "NAME"),
    (["audit"], "NAME"),
    ([*AUDIT, "--runs", "0"], "--runs"),
    ([*AUDIT, "--runs", "many"], "--runs"),
    ([*AUDIT, "--seed", "-1"], "--seed"),
    ([*AUDIT, "--out", "{file}"], "--out"),
    # reproduce
    (["reproduce", "nope"], "name"),
    (["reproduce", "zhu2022", "--dataset", "law_school"], "--dataset"),
    (["reproduce", "zhu2022", "--seeds", "3"], "--seeds"),
    (["reproduce", "xian2024", "--dataset", "adult"], "--dataset"),
    (["reproduce", "xian2024", "--n-jobs", "0"], "--n-jobs"),
    (["reproduce", "xian2024", "--seeds", "-3"], "--seeds"),
    (["reproduce", "xian2024", "--out", "{file}"], "--out"),
    (["reproduce", "zhu2022", "--first-seed", "3"], "--first-seed"),
    (["reproduce", "budget2023", "--first-seed", "3"], "--first-seed"),
    (["reproduce", "blind-fair-regression", "--first-seed", "-1"], "--first-seed"),
    (["reproduce", "blind-fair-regression", "--first-seed", "1.5"], "--first-seed"),
    # no or unknown command
    (["frobnicate"], "command"),
    ([], "command"),
]


@pytest.mark.parametrize("argv, names", BAD_ARGUMENTS, ids=[" ".join(a) or "<none>" for a, _ in BAD_ARGUMENTS])
def test_bad_argument_is_one_line_exit_2_no_traceback(argv, names, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                                  # default output folders land here
    file = tmp_path / "a_file"
    file.write_text("")
    err = usage_error(capsys, [a.replace("{file}", str(file)) for a in argv])
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairdp: error: "), err
    assert names in lines[0]


def test_reproduce_forwards_first_seed(monkeypatch):
    """--first-seed reaches the script's own parser, after --seeds (xian2024 and blind-fair-regression)."""
    calls = []

    class Script:
        @staticmethod
        def main(argv):
            calls.append(argv)

    monkeypatch.setattr(cli, "load_example", lambda filename: Script)
    assert main(["reproduce", "blind-fair-regression", "--seeds", "50", "--first-seed", "100"]) == 0
    assert main(["reproduce", "xian2024", "--first-seed", "0"]) == 0
    assert main(["reproduce", "budget2023", "--seeds", "3"]) == 0
    assert calls == [["--seeds", "50", "--first-seed", "100"], ["--first-seed", "0"], ["--seeds", "3"]]


def test_parse_seeded_args_first_seed(tmp_path):
    """Scripts that pass a default first_seed get --first-seed: an integer >= 0 whose last seed fits numpy's
    32-bit range; the others do not have the option."""
    common = {"doc": "Title.\n\nBody.", "default_out": tmp_path, "default_seeds": 10, "quick_seeds": 2, "quick_help": "-"}
    args = _checkout.parse_seeded_args([], first_seed=0, **common)
    assert (args.first_seed, args.seeds) == (0, 10)
    args = _checkout.parse_seeded_args(["--first-seed", "100", "--seeds", "50"], first_seed=0, **common)
    assert (args.first_seed, args.seeds) == (100, 50)
    assert _checkout.parse_seeded_args(["--quick"], first_seed=33, **common).first_seed == 33
    last = _checkout.parse_seeded_args(["--first-seed", str(2 ** 32 - 2), "--seeds", "2"], first_seed=0, **common)
    assert last.first_seed + last.seeds - 1 == 2 ** 32 - 1
    for bad in (["--first-seed", "-1"], ["--first-seed", "x"], ["--first-seed", str(2 ** 32 - 1), "--seeds", "2"]):
        with pytest.raises(SystemExit) as exit_info:
            _checkout.parse_seeded_args(bad, first_seed=0, **common)
        assert exit_info.value.code == 2
    assert not hasattr(_checkout.parse_seeded_args([], **common), "first_seed")
    with pytest.raises(SystemExit):
        _checkout.parse_seeded_args(["--first-seed", "1"], **common)


#: Raw reST that must not reach a reader of the help: inline literals, roles, link references.
RAW_REST = re.compile(r"``|:(?:class|func|meth|attr|mod|obj|data|exc|ref|doc|term|math):`|`_")


@pytest.mark.parametrize("command", [[], ["reproduce"], ["sweep"], ["audit"]], ids=["fairdp", "reproduce",
                                                                                     "sweep", "audit"])
def test_help_shows_no_raw_rest(command):
    """Every --help, from a fresh interpreter: plain text, no reST markup copied from a docstring."""
    result = run(*command, "--help")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()
    found = RAW_REST.findall(result.stdout)
    assert not found, f"raw reST in 'fairdp {' '.join(command)} --help': {found}\n{result.stdout}"


def _listed_sweep_estimators(capsys):
    """The estimator names ``fairdp sweep --help`` lists, with their datasets."""
    text = help_text(capsys, ["sweep"])
    listing = re.search(r"one of: (.*?) -- datasets", text).group(1)
    return {m.group(1): tuple(m.group(2).split(", ")) for m in re.finditer(r"(\w+) \(([\w, ]+)\)", listing)}


def test_sweep_lists_exactly_the_accepted_estimators(capsys):
    listed = _listed_sweep_estimators(capsys)
    # every Fairlearn-face estimator row, in --help and in the error message alike; no AIF360 transformer (and no
    # report: a sweep's reports are its --private-report option; no transformer: a sweep fits classifiers)
    assert set(listed) == {e.name for e in entries("fairlearn") if e.task not in ("reporting", "preprocessing")} \
        == set(cli._SWEEPS)
    err = usage_error(capsys, ["sweep", "--estimator", "DPExponentiatedGradientReduction", "--epsilon", "1"])
    assert set(re.search(r"choose from (.*)$", err.strip()).group(1).split(", ")) == set(listed)
    assert "DPExponentiatedGradientReduction is an AIF360 transformer" in err
    for name, datasets in listed.items():
        assert datasets == cli._SWEEPS[name].datasets


def test_every_listed_estimator_and_dataset_passes_validation(capsys):
    """The dry run checks every argument without loading data: each listed (estimator, dataset) is accepted."""
    for name, datasets in _listed_sweep_estimators(capsys).items():
        for dataset in datasets:
            assert main(["sweep", "--estimator", name, "--dataset", dataset, "--epsilon", "1", "2",
                         "--seeds", "3", "--dry-run"]) == 0
            assert f"{name} on {dataset}: 2 settings x 3 seeds = 6 fits" in capsys.readouterr().out


#: A cheap setting per estimator, so that a one-fit sweep of each takes a fraction of a second.
CHEAP = {"DPFairRegressionPostprocessor": "n_bins=6", "DPThresholdOptimizer": "options.n_score_bins=4",
         "DPExponentiatedGradient": "max_iter=2", "JagielskiExponentiatedGradient": "max_iter=2", "DPGridSearch": "grid_size=3",
         "ExponentialMechanismFairClassifier": "fairness_weight=1",
         "DPGerryFairClassifier": "max_iters=2", "DPGroupBudgetRegressor": "n_iter=5",
         "DPGroupBudgetClassifier": "n_iter=5"}


def test_every_listed_estimator_runs_a_one_fit_sweep(capsys, tmp_path):
    """``fairdp sweep --estimator DPExponentiatedGradient`` was rejected although the error message listed it."""
    listed = _listed_sweep_estimators(capsys)
    assert set(CHEAP) == set(listed)
    for name, datasets in listed.items():
        out = tmp_path / name
        dataset = "communities_crime" if "communities_crime" in datasets else datasets[0]   # the smallest
        assert main(["sweep", "--estimator", name, "--dataset", dataset, "--epsilon", "1e4", "--param", CHEAP[name],
                     "--seeds", "1", "--out", str(out)]) == 0
        assert (out / "tradeoff.png").stat().st_size > 0


def test_param_values_are_typed_by_the_estimators_parameters(capsys):
    template = cli._SWEEPS["DPThresholdOptimizer"].problem("communities_crime")
    from fairlearn_dp.postprocessing import DPThresholdOptimizer, ThresholdOptimizerOptions

    estimator = DPThresholdOptimizer(**template.params)
    grid = cli._check_params([cli._param("tol=0|0.05|none,options.n_score_bins=12|1e1,options.privacy_slack=false,"
                                         "options.solver=3")], estimator, "DPThresholdOptimizer", template.params)
    assert grid == {"tol": [0, 0.05, None],
                    "options": [ThresholdOptimizerOptions(n_score_bins=12, privacy_slack=False, solver="3"),
                                ThresholdOptimizerOptions(n_score_bins=10.0, privacy_slack=False, solver="3")]}
    with pytest.raises(cli._UsageError, match="options.privacy_slack expects true or false"):
        cli._check_params([cli._param("options.privacy_slack=1")], estimator, "DPThresholdOptimizer",
                          template.params)
    with pytest.raises(cli._UsageError, match="has no parameter 'options.nope'"):
        cli._check_params([cli._param("options.nope=1")], estimator, "DPThresholdOptimizer", template.params)


def test_sweep_writes_files_and_prints_a_table(tmp_path, capsys):
    code = main(["sweep", "--estimator", "DPFairRegressionPostprocessor", "--dataset", "communities_crime",
                 "--epsilon", "1", "inf", "--param", "alpha=0|0.5", "--seeds", "2", "--out", str(tmp_path)])
    assert code == 0
    for name in ("sweep.csv", "summary.csv", "tradeoff.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "ks_parity" in capsys.readouterr().out


def test_audit_command(tmp_path, capsys):
    assert main(["audit", "DPFairRegressionPostprocessor", "--runs", "400", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "audit_DPFairRegressionPostprocessor.csv").is_file()
    assert (tmp_path / "audit_DPFairRegressionPostprocessor.png").stat().st_size > 0
    captured = capsys.readouterr()
    # The verdict says what an audit can show: no violation found, a lower bound, not a proof of privacy.
    assert "-> no violation detected (a lower bound; not a proof of privacy)" in captured.out
    assert "PASS" not in captured.out
    assert captured.err == ""                  # the progress bar is silent when stderr is not a terminal
    import pandas as pd

    row = pd.read_csv(tmp_path / "audit_DPFairRegressionPostprocessor.csv").iloc[0]
    assert bool(row["passed"]) and row["verdict"] == cli.AUDIT_NO_VIOLATION


def test_audit_violation_verdict_and_exit_code(tmp_path, capsys, monkeypatch):
    import audit_cases  # the test-support cases (tests/audit_cases.py), which the command loads from the checkout

    from fairlearn_dp.audit import AuditResult

    broken = AuditResult(epsilon_lower_bound=1.49, declared_epsilon=1.0, declared_delta=0.0, passed=False,
                         hits=(250, 60), n_runs=1000, event="e", confidence=0.95)
    seen = {}

    def fake_audit(name, **kwargs):
        seen.update(kwargs)
        return broken

    monkeypatch.setattr(audit_cases, "audit_registered", fake_audit)
    assert main(["audit", "DPThresholdOptimizer", "--runs", "1000", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "lower bound 1.4900" in out
    assert "VIOLATION DETECTED: the lower bound on epsilon exceeds the declared epsilon" in out
    assert "FAIL" not in out and "PASS" not in out
    assert seen["progress"] is None and seen["n_runs"] == 1000      # a bar only on a terminal


def test_audit_progress_bar_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["audit", "DPFairRegressionPostprocessor", "--runs", "20", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "privacy audit" in err and "40/40" in err              # 2 x --runs fits


def test_audit_help_lists_every_registry_name(capsys):
    text = help_text(capsys, ["audit"])
    for entry in entries():
        assert entry.name in text


def test_sweep_private_report_adds_private_columns(capsys, tmp_path):
    """``--private-report EPSILON`` reports each test split with DPMetricFrame (columns private_*, report_epsilon)."""
    import pandas as pd

    out = tmp_path / "sweep"
    assert main(["sweep", "--estimator", "DPThresholdOptimizer", "--dataset", "communities_crime", "--epsilon", "1",
                 "--param", "options.n_score_bins=4", "--seeds", "1", "--private-report", "0.5", "--out", str(out)]) == 0
    table = pd.read_csv(out / "sweep.csv")
    assert {"private_error", "private_tpr_difference", "private_fpr_difference"} <= set(table.columns)
    assert (table["report_epsilon"] == 0.5).all()
    assert "--private-report" in help_text(capsys, ["sweep"])
    err = usage_error(capsys, ["sweep", "--estimator", "DPThresholdOptimizer", "--epsilon", "1",
                               "--private-report", "0"])
    assert "--private-report" in err


@pytest.fixture(scope="module")
def installed_copy(tmp_path_factory):
    """The adapters as an installed package has them: a copy of ``adapters/`` named ``fairdp_adapters`` in a folder
    of its own (no ``examples/`` or ``tests/`` next to it), found before the editable install's finder."""
    import shutil

    site = tmp_path_factory.mktemp("site")
    shutil.copytree(_checkout.checkout_root() / "adapters", site / "fairdp_adapters",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return site


def run_installed(site, cwd, *args):
    code = ("import sys; sys.path.insert(0, sys.argv.pop(1)); import fairdp_adapters.cli as cli; "
            "assert cli.__file__.startswith(sys.path[0]), cli.__file__; sys.exit(cli.main(sys.argv[1:]))")
    return subprocess.run([sys.executable, "-c", code, str(site), *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("command", [[], ["reproduce"], ["sweep"], ["audit"]])
def test_every_help_works_from_an_installed_package(installed_copy, tmp_path, command):
    result = run_installed(installed_copy, tmp_path, *command, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: fairdp")


@pytest.mark.parametrize("argv", [["reproduce", "zhu2022", "--quick"], ["audit", "DPThresholdOptimizer", "--runs", "2"]])
def test_checkout_commands_fail_clearly_from_an_installed_package(installed_copy, tmp_path, argv):
    """``fairdp reproduce`` runs the repository's scripts and ``fairdp audit`` its test-support cases: from an
    installed package each stops before any work with one line saying to run it from a clone."""
    out = tmp_path / "out"
    result = run_installed(installed_copy, tmp_path, *argv, "--out", str(out))
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith(f"fairdp: error: 'fairdp {argv[0]}' works only from a source checkout")
    assert "clone of the fairdp repository" in lines[0]
    assert not out.exists()
