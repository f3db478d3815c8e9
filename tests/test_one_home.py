"""One home per concept (issue 39, item 4), checked statically on every module of ``fairlearn_dp``.

- Binary labels: one check, :func:`fairlearn_dp._utils._validation.check_binary_labels`; any other function of the
  engine whose name says it reads binary labels is a thin use of it (it calls it).
- Validation: one module, ``_utils/_validation.py``; no other ``_checks.py`` in the engine.
- Row counts: one ``n_rows``.
- Releases: one release function per mechanism family in ``privacy/_release.py`` (``release_laplace``,
  ``release_gaussian``); only that module draws through ``randomise_vector``, diffprivlib's mechanisms vectorised.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "fairlearn_dp"
MODULES = sorted(ENGINE.rglob("*.py"))


def _functions(path):
    """Every function defined in ``path`` (module level, methods and nested ones)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _called_names(function):
    """The names ``function`` calls (``f(...)`` and ``obj.f(...)`` alike)."""
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            target = node.func
            names.add(target.id if isinstance(target, ast.Name) else getattr(target, "attr", None))
    return names


def _where(path, node):
    return f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"


def test_every_binary_label_reader_is_a_use_of_the_one_check():
    """Before: ``binary_labels_fast`` and the post-processors' ``binary_labels`` checked labels on their own."""
    home = ENGINE / "_utils" / "_validation.py"
    others = [_where(path, function) for path in MODULES for function in _functions(path)
              if "binary_labels" in function.name and function.name != "check_binary_labels"
              and "check_binary_labels" not in _called_names(function)]
    assert not others
    assert [f.name for f in _functions(home)].count("check_binary_labels") == 1


def test_one_validation_module():
    """Before: ``allocation/_checks.py`` was a second validation module."""
    assert [str(path.relative_to(ROOT)) for path in MODULES if path.name == "_checks.py"] == []


def test_n_rows_has_one_home():
    """Before: ``postprocessing/_inputs.py`` and ``metrics/_frame_inputs.py`` each defined ``n_rows``."""
    homes = [_where(path, function) for path in MODULES for function in _functions(path)
             if function.name == "n_rows"]
    assert len(homes) == 1, homes


def test_one_release_function_per_mechanism_family():
    """Before: seven ways to release a vector (``noisy_vector``, ``noisy_vector_zcdp``, ``private_joint_histogram``,
    ``VectorReleaser`` and the zCDP ledger drawing through ``randomise_vector`` themselves, ...)."""
    release = ENGINE / "privacy" / "_release.py"
    defined = {function.name for function in _functions(release)}
    assert {"release_laplace", "release_gaussian"} <= defined
    assert not defined & {"noisy_vector", "noisy_vector_zcdp", "private_joint_histogram"}
    drawing = [_where(path, function) for path in MODULES if path.name != "_vector.py"
               for function in _functions(path) if "randomise_vector" in _called_names(function)]
    assert sorted(d.split(" ")[1] for d in drawing) == ["release_gaussian", "release_laplace"], drawing


def _is_fixture(function):
    return any("fixture" in ast.unparse(decorator) for decorator in function.decorator_list)


def test_the_adult_data_are_loaded_by_the_shared_fixtures_only():
    """Before: six test modules each had their own ``adult`` fixture loading Adult. Now the loads are the
    session-scoped fixtures of ``tests/conftest.py``; a module's fixture may derive from them (a split, a prefit
    model) but loads nothing itself."""
    loaders = {"fetch_adult", "adult_features", "AdultDataset"}
    tests = ROOT / "tests"
    loading = [_where(path, function) for path in sorted(tests.rglob("test_*.py"))
               for function in _functions(path) if _is_fixture(function) and _called_names(function) & loaders]
    assert loading == []
    shared = {f.name for f in _functions(tests / "conftest.py") if _is_fixture(f)}
    assert {"adult", "adult_sex", "adult_race", "aif360_adult", "aif360_adult_numeric"} <= shared


def test_no_engine_module_keeps_a_re_export_for_the_tests():
    """Before: ``_distributed``, ``_exponentiated_gradient`` and ``_fair_regression`` imported names they did not use
    ("tested here", "still importable from here"), and ``ZCDPLedger`` had three homes. Tests import a private helper
    from the module that defines it; an unused import (``noqa: F401``) is kept only for its side effect."""
    kept = [f"{path.relative_to(ROOT)}:{number}" for path in MODULES
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "noqa: F401" in line and "from . import _compat" not in line]
    assert kept == []
