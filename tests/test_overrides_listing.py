"""minitorch.overrides lists what torch.overrides lists, for every name both
have: get_ignored_functions (factories and other functions that cannot
dispatch), get_overridable_functions and get_testing_overrides; resolve_name
gives the public name."""
import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch.overrides import (get_ignored_functions, get_overridable_functions,
                                 get_testing_overrides, resolve_name)

torch = pytest.importorskip("torch")

NAMESPACES = [(mt, "torch"), (mt.Tensor, "torch.Tensor"), (F, "torch.nn.functional"),
              (mt.nn.init, "torch.nn.init"), (mt.autograd, "torch.autograd")]


def torch_ns(public):
    obj = torch
    for part in public.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def shared_names(ns, public):
    tns = torch_ns(public)
    return [n for n in dir(ns) if hasattr(tns, n) and callable(getattr(ns, n, None))]


@pytest.mark.parametrize("ns,public", NAMESPACES, ids=[p for _, p in NAMESPACES])
def test_ignored_where_torch_ignores(ns, public):
    theirs = set(map(id, torch.overrides.get_ignored_functions()))
    ours = set(map(id, get_ignored_functions()))
    tns = torch_ns(public)
    for name in shared_names(ns, public):
        torch_ignores = id(getattr(tns, name)) in theirs
        if name.startswith("__") and not torch_ignores:
            continue  # object's own slots, which torch lists under other names
        assert (id(getattr(ns, name)) in ours) == torch_ignores, f"{public}.{name}"


def test_factories_are_ignored_not_overridable():
    listed = get_overridable_functions()
    tested = get_testing_overrides()
    for f in (mt.ones, mt.zeros, mt.eye, mt.empty, mt.full, mt.arange, mt.rand, mt.randn,
              mt.tensor, mt.as_tensor, mt.tril_indices, mt.Tensor.new_ones):
        assert f in get_ignored_functions()
        assert all(f not in funcs for funcs in listed.values())
        assert f not in tested


@pytest.mark.parametrize("ns,public", NAMESPACES[:3], ids=[p for _, p in NAMESPACES[:3]])
def test_overridable_where_torch_lists(ns, public):
    listing = torch.overrides.get_overridable_functions()
    theirs = {getattr(f, "__name__", None) for f in listing.get(torch_ns(public), [])}
    if public == "torch":  # torch keeps its Python-level ones under torch.functional
        theirs |= {f.__name__ for f in listing[torch.functional]}
    ours = {f.__name__ for f in get_overridable_functions()[ns]}
    tns = torch_ns(public)
    # ours beyond torch's: only names torch does not have, or has and does not list
    for name in ours - theirs:
        if public == "torch":
            assert not hasattr(tns, name) or name.startswith("_"), name
    tested = get_testing_overrides()
    assert all(f in tested for f in get_overridable_functions()[ns])


def test_in_place_functions_are_not_listed_under_the_torch_namespace():
    names = {f.__name__ for f in get_overridable_functions()[mt]}
    assert "exp" in names and "exp_" not in names and "relu_" not in names
    assert "exp_" in {f.__name__ for f in get_overridable_functions()[mt.Tensor]}


def test_resolve_name_gives_the_public_name():
    assert resolve_name(mt.tril_indices) == "torch.tril_indices"
    assert resolve_name(mt.meshgrid) == "torch.meshgrid"
    assert resolve_name(F.pad) == "torch.nn.functional.pad"
    assert resolve_name(mt.linalg.vector_norm) == "torch.linalg.vector_norm"
    assert resolve_name(mt.Tensor.diff) == "torch.Tensor.diff"
    assert resolve_name(mt.add) == "torch.add"
    for funcs in get_overridable_functions().values():
        for f in funcs:
            assert eval(resolve_name(f), {"torch": mt}) is f


def test_messages_name_python_level_functions_by_their_public_name():
    class A:
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    with pytest.raises(TypeError, match=r"'torch.nn.functional.pad' on types that implement"):
        F.pad(A(), [1, 1])


TENSOR_METHODS = [
    ("__array__", lambda t: t.__array__()), ("__contains__", lambda t: 1 in t),
    ("__format__", lambda t: t.__format__("")), ("__reduce_ex__", lambda t: t.__reduce_ex__(2)),
    ("__repr__", lambda t: t.__repr__()), ("_is_view", lambda t: t._is_view()),
    ("detach_", lambda t: t.detach_()), ("register_hook", lambda t: t.register_hook(abs)),
    ("register_post_accumulate_grad_hook",
     lambda t: t.register_post_accumulate_grad_hook(abs)),
    ("requires_grad_", lambda t: t.requires_grad_()), ("retain_grad", lambda t: t.retain_grad()),
    ("__deepcopy__", lambda t: t.__deepcopy__({})), ("share_memory_", lambda t: t.share_memory_()),
    ("is_shared", lambda t: t.is_shared()),
]


@pytest.mark.parametrize("name,call", TENSOR_METHODS, ids=[n for n, _ in TENSOR_METHODS])
def test_tensor_methods_torch_lists_dispatch_and_are_listed(name, call):
    listed = get_overridable_functions()[mt.Tensor]
    assert getattr(mt.Tensor, name) in listed
    assert getattr(mt.Tensor, name) in get_testing_overrides()
    for lib in (torch, mt):
        seen = []

        class S(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func)
                return -1

        s = lib.ones(2).as_subclass(S)
        assert call(s) in (-1, True)  # `in` makes a bool of it
        assert seen == [getattr(lib.Tensor, name)]


def test_tensor_methods_still_work_on_plain_tensors():
    x = mt.ones(2)
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    y = mt.ones(2, requires_grad=True) * 2
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.sum().backward()
    assert y.grad.tolist() == [1.0, 1.0] and seen == [[1.0, 1.0]]
    assert mt.ones(3)[1:]._is_view() and not mt.ones(3)._is_view()
    assert 2.0 in mt.tensor([1.0, 2.0]) and f"{mt.tensor(2.5):.1f}" == "2.5"
    assert repr(mt.tensor([1.0])) == "tensor([1.])"
