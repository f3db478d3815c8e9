"""The registry: every row imports, documents its privacy, and charges what it claims."""

import pytest

from fairdp_adapters import registry


@pytest.mark.parametrize("entry", registry.entries(), ids=lambda e: e.name)
def test_every_entry_loads_and_documents_privacy(entry):
    cls = registry.load(entry)
    assert cls.__name__ == entry.name
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
    frame = registry.as_frame()
    assert list(frame["name"]) == [e.name for e in registry.entries()]
    assert frame["name"].is_unique
