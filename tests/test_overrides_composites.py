"""The functions and Tensor methods written in Python (registered with
minitorch.overrides.composite) are listed by get_overridable_functions and
get_testing_overrides wherever torch lists its own, and dispatch under their
public names."""
import inspect

import pytest

import minitorch as mt
from minitorch import broadcasting, composites, composites_index, composites_search
from minitorch import composites_split, functional
from minitorch.overrides import (TorchFunctionMode, get_overridable_functions,
                                 get_testing_overrides, resolve_name)

torch = pytest.importorskip("torch")

MODULES = [composites, composites_split, composites_index, composites_search, functional,
           broadcasting]


def registered():
    """(functions, Tensor methods) registered through composite()."""
    funcs = {n: getattr(mt, n) for m in MODULES for n in m.__all__
             if getattr(getattr(mt, n), "_dispatches", False)}
    methods = {n: f for n, f in vars(mt.Tensor).items() if getattr(f, "_dispatches", False)}
    return funcs, methods


def names(listing, ns):
    return {f.__name__ for f in listing[ns]}


def test_composites_are_listed_where_torch_lists_them():
    ours, theirs = get_overridable_functions(), torch.overrides.get_overridable_functions()
    funcs, methods = registered()
    defined = {n for m in MODULES for n in m.__all__}
    torch_funcs = {n for n in defined if n in names(theirs, torch)}
    torch_methods = {n for n in defined | set(methods) if n in names(theirs, torch.Tensor)}
    missing_funcs = sorted(torch_funcs - names(ours, mt))
    missing_methods = sorted(n for n in torch_methods - names(ours, mt.Tensor)
                             if n in vars(mt.Tensor))
    print(f"composite functions: {len(defined)} defined, {len(torch_funcs)} listed by torch, "
          f"{len(torch_funcs & names(ours, mt))} listed by us; Tensor methods: "
          f"{len(methods)} registered, {len(torch_methods)} listed by torch, "
          f"{len(torch_methods & names(ours, mt.Tensor))} listed by us")
    assert not missing_funcs and not missing_methods, (missing_funcs, missing_methods)
    # every registered composite is one torch lists too (none invented); the
    # ones torch ignores (no tensor argument) are ignored here too
    ignored = {f.__name__ for f in mt.overrides.get_ignored_functions()}
    assert defined - set(funcs) <= ignored
    assert set(funcs) <= names(theirs, torch)
    assert set(methods) <= names(theirs, torch.Tensor)
    # the listed objects are the public ones, method and function distinct
    for n, f in funcs.items():
        assert f in ours[mt] and f is getattr(mt, n)
    for n, f in methods.items():
        assert f in ours[mt.Tensor] and f is getattr(mt.Tensor, n)
        assert f is not getattr(mt, n, None)


def test_composites_have_testing_overrides():
    dummies = get_testing_overrides()
    funcs, methods = registered()
    for f in list(funcs.values()) + list(methods.values()):
        assert f in dummies
        assert dummies[f]() == -1
    # the dummy has the function's signature; a method's first parameter is self
    assert list(inspect.signature(dummies[mt.diff]).parameters)[:2] == ["input", "n"]
    assert list(inspect.signature(dummies[mt.Tensor.diff]).parameters)[:2] == ["self", "n"]
    assert list(inspect.signature(dummies[mt.tensordot]).parameters) == ["a", "b", "dims", "out"]


def test_composites_dispatch_under_their_public_names():
    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(resolve_name(func))
            return func(*args, **(kwargs or {}))

    x = mt.arange(6.0).reshape(2, 3)
    y, row = x.t(), x[0]
    with Mode():
        x.ravel(), mt.ravel(x), x.diff(), mt.einsum("ij->j", x), mt.tensordot(x, y, 1)
        mt.broadcast_tensors(x, row), x.type_as(x), x.cpu()
    assert seen == ["torch.Tensor.ravel", "torch.ravel", "torch.Tensor.diff", "torch.einsum",
                    "torch.tensordot", "torch.broadcast_tensors", "torch.Tensor.type_as",
                    "torch.Tensor.cpu"]
