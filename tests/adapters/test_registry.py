"""The registry: every row imports, documents its privacy, and charges what it claims."""

import pytest
from fairdp_adapters import registry


@pytest.mark.parametrize("entry", registry.entries(), ids=lambda e: e.name)
def test_every_entry_loads_and_documents_privacy(entry):
    cls = entry.load()
    # A row's name is its class's name, or the class's import path when the other face has a class of that name.
    assert entry.name in (cls.__name__, entry.dp_class) and entry.dp_class.rpartition(".")[2] == cls.__name__
    assert "Privacy" in cls.__doc__
    assert entry.toolkit in {"fairlearn", "aif360"}
    if hasattr(cls, "get_params"):
        assert "epsilon" in cls().get_params()
    else:
        assert "epsilon" in cls.__init__.__code__.co_varnames


@pytest.mark.parametrize("entry", registry.entries(), ids=lambda e: e.name)
def test_counterpart_is_importable_when_it_is_a_class(entry):
    if " " in entry.counterpart:
        return                                    # described, not a class (no counterpart in the toolkit)
    module, _, name = entry.counterpart.rpartition(".")
    assert hasattr(__import__(module, fromlist=[name]), name)


def test_lookup_and_frame():
    assert registry.get("DPFairRegressionPostprocessor").toolkit == "fairlearn"
    with pytest.raises(KeyError):
        registry.get("Nope")
    with pytest.raises(ValueError, match="toolkit"):
        registry.entries("sklearn")
    frame = registry.entries(as_frame=True)
    assert list(frame["name"]) == [e.name for e in registry.entries()]
    assert frame["name"].is_unique and frame["dp_class"].is_unique
    # Both faces have a class named DPGerryFairClassifier: the short name is the Fairlearn face's, and every row is
    # also found by its import path.
    assert registry.get("DPGerryFairClassifier").toolkit == "fairlearn"
    aif360_row = registry.get("aif360_dp.algorithms.inprocessing.DPGerryFairClassifier")
    assert aif360_row.toolkit == "aif360" and aif360_row.load().__module__.startswith("aif360_dp.")
    assert all(registry.get(e.dp_class) is e for e in registry.entries())


def test_docs_list_every_rows_public_inputs():
    """The user guide's "What must be public" table is the registry's ``public_inputs`` column."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "user_guide" / "public_inputs.rst").read_text()
    for entry in registry.entries():
        assert entry.public_inputs.strip()
        short = entry.name.rpartition(".")[2]
        row = f'"``{short}`` ({entry.toolkit})", "{entry.public_inputs}"'
        assert row in text, row
