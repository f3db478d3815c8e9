"""Every public signature is typed: the public functions and classes of every public package (their ``__all__``),
with every public method and property that the class defines itself (``__init__`` included), annotate each named
parameter, and every function except ``__init__`` its return type.
"""

import importlib
import inspect

PUBLIC_PACKAGES = ("fairlearn_dp", "fairlearn_dp.postprocessing", "fairlearn_dp.preprocessing",
                   "fairlearn_dp.reductions", "fairlearn_dp.allocation",
                   "fairlearn_dp.metrics", "fairlearn_dp.privacy", "fairlearn_dp.datasets", "fairlearn_dp.audit",
                   "aif360_dp", "aif360_dp.algorithms.inprocessing", "aif360_dp.algorithms.postprocessing",
                   "aif360_dp.metrics", "aif360_dp.datasets", "fairdp_adapters.registry", "fairdp_adapters.reporting",
                   "fairdp_adapters.cli")
OURS = ("fairlearn_dp", "aif360_dp", "fairdp_adapters")


def _functions(obj, qualname):
    """``(qualified name, function)`` of a public function, or of the public methods and properties of a class
    that the class defines itself."""
    if not inspect.isclass(obj):
        return [(qualname, obj)]
    found = []
    for name, member in vars(obj).items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, property):
            member = member.fget
        member = getattr(member, "__func__", member)
        if inspect.isfunction(member):
            found.append((f"{qualname}.{name}", member))
    return found


def _public_functions():
    seen = {}
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or callable(obj)) or not getattr(obj, "__module__", "").startswith(OURS):
                continue
            for qualname, function in _functions(obj, f"{obj.__module__}.{name}"):
                seen[qualname] = function
    return sorted(seen.items())


def _untyped(qualname, function):
    signature = inspect.signature(inspect.unwrap(function))
    named = [p for p in signature.parameters.values()
             if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    missing = [p.name for p in named if p.annotation is inspect.Parameter.empty]
    if signature.return_annotation is inspect.Signature.empty and not qualname.endswith(".__init__"):
        missing.append("return")
    return missing


def test_every_public_signature_is_typed():
    functions = _public_functions()
    assert len(functions) > 200                    # the packages' public surface was found
    untyped = {name: missing for name, function in functions if (missing := _untyped(name, function))}
    assert not untyped, f"public signatures without type hints: {untyped}"


def test_the_check_sees_a_missing_hint():
    def typed(x: int) -> int:
        return x

    def untyped(x, y: int):
        return x

    assert _untyped("m.typed", typed) == []
    assert _untyped("m.untyped", untyped) == ["x", "return"]


