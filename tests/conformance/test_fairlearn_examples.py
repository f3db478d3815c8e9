"""Fairlearn's documentation examples with the import swapped to fairdp's class (``run_examples.py``).

Which examples: every example or user-guide code block of Fairlearn's documentation that constructs
``ThresholdOptimizer`` or ``ExponentiatedGradient`` and whose data fairdp has --
``examples/plot_mitigation_pipeline.py`` (Adult) and the two exponentiated-gradient blocks of
``docs/user_guide/mitigation/reductions.rst`` (Adult, and ``make_classification``). Left out, for their data: the
quickstart and the post-processing user guide (the diabetes hospital data) and
``examples/plot_credit_loan_decisions.py`` (the credit card data); fairdp bundles neither.
The copies are in ``fairlearn_examples/`` under Fairlearn's MIT licence (``LICENSE``, ``PROVENANCE.md``).

At ``epsilon=inf`` the output must be identical: the standard output byte for byte (the issue's requirement) and
each ``predict``'s output (0/1 labels) exactly; ``_pmf_predict``, floats of fitted models, must agree within
``run_examples.PMF_ATOL`` (a few hundred ulps of 1, derived there). The two runs are separate child processes,
started one after the other by the same test session on the same machine, with the same environment (one thread
per BLAS/OpenMP pool, ``PYTHONHASHSEED=0``) and the same code (fairdp's classes run Fairlearn's ``fit`` and
``predict`` at ``epsilon=inf``) on the same data; nothing makes two processes' floating-point arithmetic
bit-identical in general (a BLAS library may choose its kernel at run time), hence the tolerance on the floats
compared directly. The printed output and the labels are compared exactly because the issue demands identical
output; a difference there is a departure from Fairlearn's code path (or, far less likely, a printed value or a
label draw at a round-off boundary).

At ``epsilon=1`` (with only the documented DP arguments) the example must run, and on Adult by sex each mitigator's
accuracy on the example's test split must be within 0.02 of the ``epsilon=inf`` run's and its constrained disparity
at most ``max(epsilon=inf disparity, declared bound) + 0.02`` (``run_examples.criterion_failures``; issue 34: at a
slack bound a private fit fairer than Fairlearn's, at the same accuracy, is not a defect). Both are the randomized
classifier's expected values, from ``_pmf_predict`` on the test rows, so the comparison carries the fit's noise and
not the prediction draws'.
"""

from __future__ import annotations

import ast
import hashlib
import re
import subprocess

import numpy as np
import pytest
import run_examples
from example_swap import Statement, Swap, compile_example, doctest_statements, swapped_source

#: Examples whose three runs take longer than a whole CI run's budget: in no shard of .ci/run's slow leg
#: (``outside_ci``), run by ``pytest -m slow``. The reductions guide's Adult example fits 50 gradient-boosting
#: pipelines per bound, three bounds, in each mode: about 34 CPU-minutes on the 2-core machine (docs/performance.md).
OUTSIDE_CI = {"reductions_adult_eg"}


def _per_example(names):
    """One pytest-xdist worker (``--dist loadgroup``, the slow leg of .ci/run) and one shard of the slow leg
    (tests/slow_shards.py) run an example's two slow tests: the epsilon=1 test reuses the epsilon=inf run (_RUNS)."""
    return [pytest.param(name, marks=[pytest.mark.xdist_group(f"test_fairlearn_examples:{name}")]
                         + ([pytest.mark.outside_ci] if name in OUTSIDE_CI else [])) for name in names]


COPIES = run_examples.COPIES
_RUNS = {}


def _run(name, mode):
    """Each (example, mode) runs once per session (the epsilon=1 test reuses the epsilon=inf run)."""
    if (name, mode) not in _RUNS:
        _RUNS[name, mode] = run_examples.run(name, mode)
    return _RUNS[name, mode]


def _git_blob_sha1(path):
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_copies_are_the_upstream_files_named_in_the_provenance_note():
    """The copies are unedited: each file's git blob id is the one PROVENANCE.md records for the upstream commit."""
    provenance = (COPIES / "PROVENANCE.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"`([\w.]+)`[^\n]*?blob `([0-9a-f]{40})`", provenance))
    assert set(recorded) == {"LICENSE", "plot_mitigation_pipeline.py", "reductions.rst"} | {
        example.copy for example in run_examples.METRIC_EXAMPLES.values()}
    for name, blob in recorded.items():
        assert _git_blob_sha1(COPIES / name) == blob, name


def _fairdp_constructions(source):
    """``[(class name, {argument: source text})]`` of the fairdp constructions in ``source``."""
    return [(node.func.id, {keyword.arg: ast.unparse(keyword.value) for keyword in node.keywords})
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("DPThresholdOptimizer", "DPExponentiatedGradient")]


def _expected_keywords(example, mode, class_name):
    if mode == "inf":
        return {"epsilon": "float('inf')"}
    expected = {"epsilon": "1.0", "random_state": "0", "groups": example.groups.replace('"', "'")}
    return {**expected, "delta": "1e-05"} if class_name == "DPExponentiatedGradient" else expected


@pytest.mark.parametrize("mode", run_examples.MODES)
@pytest.mark.parametrize("name", sorted(run_examples.EXAMPLES))
def test_the_swap_rewrites_every_construction(name, mode):
    example = run_examples.EXAMPLES[name]
    swap, statements = run_examples.swap_for(example, mode), run_examples.statements_of(example)
    codes, constructions = compile_example(example.path, statements, swap)
    assert codes and constructions == (0 if mode == "fairlearn" else example.constructions)
    source = swapped_source(example.path, statements, swap)
    assert "fairlearn.datasets import" not in source
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    assert not names & ({"DPThresholdOptimizer", "DPExponentiatedGradient"} if mode == "fairlearn"
                        else {"ThresholdOptimizer", "ExponentiatedGradient"})
    found = _fairdp_constructions(source)
    assert len(found) == (0 if mode == "fairlearn" else example.constructions)
    for class_name, keywords in found:
        expected = _expected_keywords(example, mode, class_name)
        assert {key: keywords.get(key) for key in expected} == expected
        if mode == "inf":
            assert "groups" not in keywords


def test_a_use_the_swap_cannot_rewrite_is_refused(tmp_path):
    script = tmp_path / "example.py"
    script.write_text("import fairlearn.reductions as reductions\nmitigator = reductions.ExponentiatedGradient()\n")
    swap = Swap(datasets={}, replace=True, keywords={})
    with pytest.raises(ValueError, match="ExponentiatedGradient is used in a form the swap does not rewrite"):
        compile_example(script, None, swap)


def test_doctest_extraction_follows_doctest(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text("Text\n\n.. doctest:: group\n\n    >>> x = [1,\n    ...      2]\n    >>> # a comment\n"
                    "    >>> x\n    [1, 2]\n    ...\n\nAfter\n    >>> not_in_a_directive\n")
    assert doctest_statements(page, (3,)) == [Statement("x = [1,\n     2]\n", 5), Statement("x\n", 8)]
    with pytest.raises(ValueError, match="not a"):
        doctest_statements(page, (1,))


def _recorded(stdout, predictions, pmf):
    call = {"predictions": np.asarray(predictions), "pmf": np.asarray(pmf, dtype=float)}
    return run_examples.Run("example", "mode", 0, stdout, "", 0.0, [call])


def test_the_baseline_comparison_is_exact_on_output_and_labels_and_round_off_tolerant_on_pmf():
    """Output bytes and labels exactly; ``_pmf_predict`` within ``PMF_ATOL`` (a few hundred ulps of 1), no more."""
    pmf = np.array([[0.25, 0.75], [0.6, 0.4]])
    baseline = _recorded(b"acc 0.8\n", [1, 0], pmf)
    assert 256 * np.finfo(float).eps <= run_examples.PMF_ATOL <= 1e-12
    ulps = pmf + 100 * np.finfo(float).eps                    # another process's BLAS kernel: round-off
    assert run_examples.differences_from_baseline(baseline, _recorded(b"acc 0.8\n", [1, 0], ulps)) == []
    assert run_examples.differences_from_baseline(baseline, _recorded(b"acc 0.8\n", [1, 0], pmf + 1e-9)) == [
        f"predict call 0: pmf differ (beyond {run_examples.PMF_ATOL:.1e})"]
    assert run_examples.differences_from_baseline(baseline, _recorded(b"acc 0.8\n", [1, 1], ulps)) == [
        "predict call 0: predictions differ"]
    assert run_examples.differences_from_baseline(baseline, _recorded(b"acc 0.80\n", [1, 0], pmf)) == [
        "standard output differs"]


def test_every_run_gets_one_thread_per_pool_and_a_fixed_hash_seed(monkeypatch):
    """The child environment: the same string hashes and BLAS thread counts in every run compared."""
    seen = {}

    def fake_run(command, *, env, **kwargs):
        seen.update(env)
        return subprocess.CompletedProcess(command, 1, b"", b"stopped")

    monkeypatch.setattr(run_examples.subprocess, "run", fake_run)
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    assert not run_examples.run(sorted(run_examples.EXAMPLES)[0], "inf").ok
    assert seen["PYTHONHASHSEED"] == "0"
    assert all(seen[name] == "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"))


@pytest.mark.slow
@pytest.mark.parametrize("name", _per_example(sorted(run_examples.EXAMPLES)))
def test_at_infinite_epsilon_the_output_is_identical_to_fairlearns(name):
    baseline, swapped = _run(name, "fairlearn"), _run(name, "inf")
    assert baseline.ok, f"the example fails with Fairlearn's own classes:\n{baseline.stderr[-3000:]}"
    assert swapped.calls, "no predict call was recorded"
    assert run_examples.differences_from_baseline(baseline, swapped) == [], swapped.stderr[-3000:]


def test_the_epsilon_one_criterion_on_made_up_numbers():
    """Accuracy within 0.02 of epsilon=inf; disparity at most max(epsilon=inf disparity, declared bound) + 0.02.

    Numbers shaped like the shipped fit on the reductions guide's Adult example at ``difference_bound=0.1``
    (equalized-odds difference 0.017 against Fairlearn's 0.0525, accuracy 0.866; the epsilon=inf accuracy here is
    made up) pass: fairer than Fairlearn at a slack bound, at the same accuracy. An unfair or an inaccurate private
    fit fails.
    """
    criterion = run_examples.criterion_failures
    assert run_examples.TOLERANCE == 0.02
    assert criterion(0.866, 0.870, 0.017, 0.0525, 0.1) == []                       # shipped: fairer, as accurate
    assert criterion(0.866, 0.870, 0.115, 0.0525, 0.1) == []                       # within the declared bound + 0.02
    assert criterion(0.866, 0.870, 0.0095 + 0.019, 0.0095, 0.001) == []            # a tight bound: Fairlearn's + 0.02
    unfair = criterion(0.866, 0.870, 0.125, 0.0525, 0.1)                           # above max(0.0525, 0.1) + 0.02
    assert len(unfair) == 1 and unfair[0].startswith("disparity 0.125 above")
    assert len(criterion(0.866, 0.870, 0.031, 0.0095, 0.001)) == 1                 # above Fairlearn's + 0.02
    inaccurate = criterion(0.845, 0.870, 0.017, 0.0525, 0.1)                       # 0.025 less accurate
    assert len(inaccurate) == 1 and inaccurate[0].startswith("accuracy 0.8450 not within 0.02")
    assert len(criterion(0.895, 0.870, 0.017, 0.0525, 0.1)) == 1                   # "within": both directions
    assert len(criterion(0.80, 0.870, 0.2, 0.0525, 0.1)) == 2


def test_the_declared_bound_is_read_from_the_constraint():
    """A Moment's difference bound, ThresholdOptimizer's ``tol`` (None: exact), 0 for a ratio bound."""
    from fairlearn.postprocessing import ThresholdOptimizer
    from fairlearn.reductions import DemographicParity, EqualizedOdds, ExponentiatedGradient

    from fairlearn_dp.reductions import DPExponentiatedGradient

    assert run_examples._declared_bound(ExponentiatedGradient(None, EqualizedOdds(difference_bound=0.1))) == 0.1
    assert run_examples._declared_bound(DPExponentiatedGradient(None, DemographicParity(difference_bound=0.01))) == 0.01
    assert run_examples._declared_bound(ExponentiatedGradient(None, DemographicParity(ratio_bound=0.8))) == 0.0
    assert run_examples._declared_bound(ThresholdOptimizer(constraints="demographic_parity")) == 0.0
    assert run_examples._declared_bound(ThresholdOptimizer(constraints="demographic_parity", tol=0.05)) == 0.05


# At epsilon=1, on Adult by sex, every documentation example meets run_examples.criterion_failures (issue 34): the
# reductions guide's Adult example at difference_bound=0.1 is slack at epsilon=inf (Fairlearn ends on a zero-gap
# play, 0.0525) and the private fit's uniform average of the plays gives 0.017 at accuracy within 0.02; fairer than
# Fairlearn at a slack bound is not a defect (docs/privacy_analysis/exponentiated_gradient.md).
@pytest.mark.slow
@pytest.mark.parametrize("name", _per_example(sorted(run_examples.EXAMPLES)))
def test_at_epsilon_one_the_example_runs_close_to_infinite_epsilon(name):
    private = _run(name, "dp")
    assert private.ok, f"the example fails at epsilon=1:\n{private.stderr[-3000:]}"
    infinite = _run(name, "inf")
    assert infinite.ok, infinite.stderr[-3000:]
    assert len(private.calls) == len(infinite.calls)
    if not run_examples.EXAMPLES[name].checked_at_one:
        return
    assert len(run_examples.metric_gaps(infinite, private)) == 2 * len(infinite.calls)
    failures = run_examples.epsilon_one_failures(infinite, private)
    assert failures == [], f"(predict call, reason) at epsilon=1: {failures}"
