"""The post-processors' one fit order: the counting backends (_counting.py), which receive a callable and return
integer counts, and the public check_public_inputs that fit runs first and the AIF360 faces call."""

import ast
import functools
import inspect
from pathlib import Path

import numpy as np
import pytest
from diffprivlib import BudgetAccountant
from diffprivlib.utils import BudgetError

from fairlearn_dp.postprocessing import DPFairRegressionPostprocessor, DPThresholdOptimizer, _counting
from fairlearn_dp.privacy._release import release_joint_counts

PACKAGE = Path(__file__).resolve().parents[3] / "fairlearn_dp" / "postprocessing"


def _cells(n_bins, x, y, sensitive_features):
    """A cell index as the estimators build one: a module-level function bound with functools.partial."""
    return np.asarray(sensitive_features) * n_bins + np.asarray(x).ravel().astype(int)


def test_in_memory_backend_counts_integers_and_rows():
    rng = np.random.default_rng(0)
    x, a = rng.integers(0, 4, 500), rng.integers(0, 3, 500)
    counts, n = _counting.count_cells_in_memory(functools.partial(_cells, 4), 12, x[:, None], None, a)
    assert n == 500 and counts.dtype.kind == "i" and counts.shape == (12,)
    expected = np.zeros((3, 4))
    np.add.at(expected, (a, x), 1.0)
    np.testing.assert_array_equal(counts.reshape(3, 4), expected)


def test_one_release_is_the_joint_histogram_release_after_counting():
    """release_counts of the backend's counts is bit for bit release_joint_counts of np.add.at's (same seed)."""
    rng = np.random.default_rng(1)
    x, a = rng.integers(0, 5, 800), rng.integers(0, 2, 800)
    counts, n = _counting.count_cells_in_memory(functools.partial(_cells, 5), 10, x, None, a)
    for delta in (0.0, 1e-6):
        got, spend = _counting.release_counts(counts.reshape(2, 5), n, epsilon=0.7, delta=delta,
                                              accountant=BudgetAccountant(), random_state=3)
        table = np.zeros((2, 5))
        np.add.at(table, (a, x), 1.0)
        expected, expected_spend = release_joint_counts(table, 800, epsilon=0.7, delta=delta,
                                                        accountant=BudgetAccountant(), random_state=3)
        np.testing.assert_array_equal(got, expected)
        assert spend == expected_spend


def test_release_of_no_rows_is_refused():
    with pytest.raises(ValueError, match="empty dataset"):
        _counting.release_counts(np.zeros((2, 3), dtype=int), 0, epsilon=1.0, delta=0.0,
                                 accountant=BudgetAccountant(), random_state=0)


@pytest.mark.dask
def test_dask_backend_gives_the_in_memory_counts():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(2)
    x, a = rng.integers(0, 4, 1000), rng.integers(0, 3, 1000)
    cell_index = functools.partial(_cells, 4)
    expected = _counting.count_cells_in_memory(cell_index, 12, x[:, None], None, a)
    for chunks in (1000, 333, 40):
        counts, n = _counting.counting_backend(da.from_array(x[:, None], chunks=(chunks, 1)), None, None)(
            cell_index, 12, da.from_array(x[:, None], chunks=(chunks, 1)), None, da.from_array(a, chunks=chunks))
        np.testing.assert_array_equal(counts, expected[0])
        assert n == expected[1] and counts.dtype.kind == "i"


def test_counting_backend_dispatches_on_the_inputs():
    assert _counting.counting_backend(np.zeros(3), None, np.zeros(3)) is _counting.count_cells_in_memory


@pytest.mark.dask
def test_counting_backend_dispatches_dask_inputs_to_the_dask_backend():
    da = pytest.importorskip("dask.array")
    assert _counting.counting_backend(da.zeros(3), None, np.zeros(3)) is _counting.count_cells_dask


@pytest.mark.parametrize("module", ["_counting.py", "_distributed.py", "_dask_predict.py"])
def test_backends_neither_call_private_methods_nor_set_attributes(module):
    """The backends receive callables and return counts or blocks: no ``obj._private`` access, no attribute set."""
    tree = ast.parse((PACKAGE / module).read_text())
    private = [node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr.startswith("_")
               and not node.attr.startswith("__")]
    assigned = [ast.unparse(target) for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign))
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                if isinstance(target, ast.Attribute)]
    assert private == [] and assigned == []


# ------------------------------------------------------------------------------- the public first steps of fit
@pytest.mark.parametrize("make", [
    lambda acc: DPThresholdOptimizer(epsilon=1.0, groups=[0, 1], tol=0.1, accountant=acc),
    lambda acc: DPFairRegressionPostprocessor(epsilon=1.0, bounds=(0, 1), n_bins=4, groups=[0, 1], accountant=acc),
])
def test_check_public_inputs_resolves_and_checks_the_budget_without_data(make):
    accountant = BudgetAccountant(epsilon=0.5)
    model = make(accountant)
    resolved = model.check_public_inputs(check_budget=False)
    assert resolved.epsilon == 1.0 and resolved.delta == 0.0 and resolved.groups == [0, 1]
    with pytest.raises(BudgetError):
        model.check_public_inputs()
    assert accountant.spent_budget == [] and not hasattr(model, "groups_")


def test_threshold_optimizer_table_and_joint_rules():
    assert list(DPThresholdOptimizer._public_parameter_checks)[:3] == ["flip", "prefit", "options"]
    assert DPThresholdOptimizer(tol=None).check_public_inputs(check_budget=False).gamma == 0.0
    with pytest.raises(ValueError, match="score_range=\\(low, high\\) is required"):     # a parameter-only rule
        DPThresholdOptimizer(predict_method="decision_function").check_public_inputs(check_budget=False)
    with pytest.raises(TypeError, match="flip must be True or False"):
        DPThresholdOptimizer(flip=1).check_public_inputs(check_budget=False)


def test_threshold_optimizer_fairlearn_path_keeps_fairlearns_reading_of_flip_and_prefit():
    """At epsilon=inf with an estimator, fit is Fairlearn's: flip/prefit are read by their truth value."""
    from sklearn.linear_model import LogisticRegression

    model = DPThresholdOptimizer(estimator=LogisticRegression(), epsilon=np.inf, flip=1)
    assert model.check_public_inputs(check_budget=False).gamma is None


def test_fair_regression_waits_for_bounds_and_groups_only_when_the_budget_is_not_checked():
    """A wrapper validates the parameters, then reads bounds and groups from a dataset's schema: bounds=None and
    groups=None pass with check_budget=False; fit (check_budget=True) requires bounds."""
    model = DPFairRegressionPostprocessor(epsilon=1.0, n_bins=4, accountant=BudgetAccountant())
    resolved = model.check_public_inputs(check_budget=False)
    assert resolved.bounds is None and resolved.groups is None
    with pytest.raises(ValueError, match="bounds=\\(s, t\\) is required"):
        model.check_public_inputs()
    with pytest.raises(ValueError, match="n_bins must be >= 1"):
        DPFairRegressionPostprocessor(n_bins=0).check_public_inputs(check_budget=False)


def test_public_signatures_are_typed():
    for method in (DPThresholdOptimizer.__init__, DPThresholdOptimizer.fit, DPThresholdOptimizer.predict,
                   DPFairRegressionPostprocessor.__init__, DPFairRegressionPostprocessor.fit,
                   DPFairRegressionPostprocessor.predict, DPFairRegressionPostprocessor.check_public_inputs):
        signature = inspect.signature(method)
        assert signature.return_annotation is not inspect.Signature.empty, method
        assert all(p.annotation is not inspect.Parameter.empty for name, p in signature.parameters.items()
                   if name != "self"), method
