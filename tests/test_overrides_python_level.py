"""Every public function written in Python (and every op row whose torch
function is written in Python) dispatches __torch_function__ through one
mechanism, overrides.relevant_args: a Tensor-like anywhere among the
arguments, or inside a list or tuple argument, reaches its handler with the
public function and the call's own args and kwargs."""
import inspect

import pytest

import minitorch as mt
import minitorch.nn.functional as F
from minitorch import overrides
from minitorch.overrides import (TorchFunctionMode, get_overridable_functions,
                                 handle_torch_function, has_torch_function,
                                 wrap_torch_function)


class Duck:
    """A Tensor-like that records what reaches its handler."""
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func, types, args, kwargs))
        return "duck"


def python_level():
    """(namespace name, public function) for every Python-level function."""
    out = []
    for ns, funcs in get_overridable_functions().items():
        ns_name = getattr(ns, "__name__", str(ns))
        for f in funcs:
            if getattr(f, "_dispatches", False) or getattr(f, "_python_level", False):
                out.append(pytest.param(f, id=f"{ns_name}.{f.__name__}"))
    return out


def required_params(f):
    sig = inspect.signature(overrides.get_testing_overrides()[f])
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    varargs = any(p.kind is p.VAR_POSITIONAL for p in params)
    return positional, varargs


def call(f, args, kwargs, types=(Duck,)):
    Duck.calls.clear()
    r = f(*args, **kwargs)
    assert r == "duck"
    assert len(Duck.calls) == 1
    func, got_types, got_args, got_kwargs = Duck.calls[0]
    assert func is f
    assert got_types == types
    assert got_args == args and all(a is b for a, b in zip(got_args, args))
    assert got_kwargs == kwargs


PY_LEVEL = python_level()


def test_the_sweep_covers_the_python_level_functions():
    names = {p.id for p in PY_LEVEL}
    for expected in ("minitorch.nn.functional.pad", "minitorch.nn.functional.layer_norm",
                     "minitorch.split", "Tensor.split",
                     "minitorch.nn.functional.max_pool2d",
                     "minitorch.nn.functional.adaptive_avg_pool2d", "minitorch.meshgrid",
                     "Tensor.diff", "minitorch.linalg.vector_norm"):
        assert expected in names
    assert len(names) > 130


@pytest.mark.parametrize("f", PY_LEVEL)
def test_duck_in_every_required_argument(f):
    positional, varargs = required_params(f)
    args = tuple(Duck() for _ in positional) + ((Duck(), Duck()) if varargs else ())
    call(f, args, {})


@pytest.mark.parametrize("f", PY_LEVEL)
def test_duck_only_inside_a_list(f):
    positional, varargs = required_params(f)
    x = mt.ones(2, 3)
    items = [x] + [[x, Duck()] for _ in positional[1:]] + ([[Duck()]] if varargs else [])
    if len(items) == 1:
        items = [[x, Duck()]]
    # as torch's handle_torch_function, plain tensors' type comes too
    call(f, tuple(items), {}, (mt.Tensor, Duck))


def keyword_passable(f):
    positional, varargs = required_params(f.values[0])
    return not varargs and positional and (
        positional[-1].kind is not inspect.Parameter.POSITIONAL_ONLY)


@pytest.mark.parametrize("f", [p for p in PY_LEVEL if keyword_passable(p)])
def test_duck_passed_by_keyword(f):
    positional, varargs = required_params(f)
    args = tuple(mt.ones(1) for _ in positional[:-1])
    call(f, args, {positional[-1].name: (Duck(),)}, (mt.Tensor, Duck) if args else (Duck,))


def test_a_mode_sees_python_level_calls_the_rows_would_refuse():
    seen = []

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func, args, kwargs))
            return -1

    with Mode():
        assert mt.split(None, [2]) == -1
        assert F.max_pool2d(None, 2) == -1
        assert F.adaptive_avg_pool2d("x", 2) == -1
    assert [s[0] for s in seen] == [mt.split, F.max_pool2d, F.adaptive_avg_pool2d]
    assert seen[0][1:] == ((None, [2]), {})


def test_python_level_rows_still_parse_and_run():
    x = mt.arange(6.0).reshape(2, 3)
    assert [t.tolist() for t in mt.split(x, 1)] == [[[0.0, 1.0, 2.0]], [[3.0, 4.0, 5.0]]]
    assert F.relu(x - 2).tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]
    with pytest.raises(TypeError, match="split"):
        mt.split(None, [2])


def test_handle_torch_function_passes_kwargs_as_a_dict():
    got = []

    class A:
        @classmethod
        def __torch_function__(cls, func, types, args, kwargs):
            got.append(kwargs)
            return -1

    @wrap_torch_function(lambda a: (a,))
    def f(a):
        return a

    assert f(A()) == -1
    assert handle_torch_function(f, (A(),), A(), k=1) == -1
    assert got == [{}, {"k": 1}]


def test_has_torch_function_wants_a_sequence():
    with pytest.raises(TypeError, match="expected a sequence"):
        has_torch_function(object())


def test_relevant_args_looks_one_level_into_lists_and_tuples():
    d = Duck()
    assert overrides.relevant_args(1, [2, d], (3,), k=[4], j=5) == (1, 2, d, 3, 4, 5)
    assert overrides.relevant_args([[d]]) == ([d],)


def test_autograd_grad_dispatches_on_tensor_likes_among_tensors():
    x = mt.ones(2, requires_grad=True)
    Duck.calls.clear()
    assert mt.autograd.grad([x], [Duck()]) == "duck"
    (func, types, args, kwargs), = Duck.calls
    assert func is mt.autograd.grad and types == (mt.Tensor, Duck)  # as torch
    assert args[0] == (x,) and isinstance(args[1][0], Duck)


@pytest.fixture
def th():
    return pytest.importorskip("torch")


@pytest.mark.parametrize("call_it", [
    lambda t, d: t.nn.functional.pad(t.ones(2, 3), [d, 1]),
    lambda t, d: t.nn.functional.layer_norm(t.ones(2, 3), [d]),
    lambda t, d: t.split(d, "x"),
    lambda t, d: t.Tensor.split(d, [2]),
    lambda t, d: t.nn.functional.max_pool2d(d, "x"),
    lambda t, d: t.nn.functional.adaptive_avg_pool2d(d, "x"),
    lambda t, d: t.autograd.grad(d, d),
    lambda t, d: t.einsum("ij->i", [d]),
    lambda t, d: t.meshgrid(t.ones(2), d, indexing="ij"),
    lambda t, d: t.cat([t.ones(2), d]),
], ids=["pad", "layer_norm", "split", "Tensor.split", "max_pool2d", "adaptive_avg_pool2d",
        "autograd.grad", "einsum_list", "meshgrid", "cat"])
def test_dispatches_where_torch_does(th, call_it, request):
    name = request.node.callspec.id
    seen = {}
    for lib in (th, mt):
        hits = []

        class D:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                hits.append((func.__name__, [t.__name__ for t in types]))
                return "duck"

        assert call_it(lib, D()) == "duck", lib.__name__
        assert len(hits) == 1
        seen[lib] = hits[0]
    if name in ("meshgrid", "autograd.grad", "einsum_list", "split", "Tensor.split",
                "max_pool2d", "adaptive_avg_pool2d"):  # Python-level in both
        assert seen[mt] == seen[th], name


def test_autograd_grad_hands_handlers_torchs_resolved_kwargs(th):
    for lib in (th, mt):
        got = []

        class D:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                got.append(kwargs)
                return 1

        lib.autograd.grad(D(), D())
        lib.autograd.grad(D(), D(), materialize_grads=True)
        with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed"):
            lib.autograd.grad(D(), D(), materialize_grads=True, allow_unused=False)
        assert [k["allow_unused"] for k in got] == [False, True]
        assert got[0] == {"grad_outputs": None, "retain_graph": None, "create_graph": False,
                          "only_inputs": True, "allow_unused": False,
                          "is_grads_batched": False, "materialize_grads": False}


def test_a_mode_declining_a_python_level_call_sees_plain_tensors_then_none(th):
    for lib in (th, mt):
        seen = []

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append([t.__name__ for t in types])
                return NotImplemented

        x = lib.ones(2, 3)
        a, b = x[0], x[1]
        # Tensor's handler reruns the call with subclasses off: the mode sees
        # no type then, declines again, and nothing is left to run it
        with Mode(), pytest.raises(TypeError, match="no implementation found for"):
            lib.meshgrid(a, b, indexing="ij")
        assert seen == [["Tensor"], []]
