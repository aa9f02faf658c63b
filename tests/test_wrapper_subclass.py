"""Tensor._make_wrapper_subclass and __torch_dispatch__ on tensor subclasses:
a wrapper holds no data of its own, every op on it reaches its class's
__torch_dispatch__ below autograd (after the dispatch modes), and autograd
records the calls on the wrappers; against torch."""
import gc

import pytest

import minitorch

torch = pytest.importorskip("torch")

LIBS = [minitorch, torch]
IDS = ["minitorch", "torch"]


def _pytree(lib):
    return minitorch.utils._pytree if lib is minitorch else torch.utils._pytree


def _wrapper_class(lib, log=None):
    tree = _pytree(lib)

    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, inner):
            return lib.Tensor._make_wrapper_subclass(
                cls, inner.size(), inner.stride(), None, None, inner.dtype, inner.layout,
                inner.device, False, inner.requires_grad)

        def __init__(self, inner):
            self.inner = inner

        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            if log is not None:
                log.append(str(func))
            inner_args = tree.tree_map_only(cls, lambda x: x.inner, args)
            inner_kwargs = tree.tree_map_only(cls, lambda x: x.inner, kwargs or {})
            out = func(*inner_args, **inner_kwargs)
            return tree.tree_map_only(lib.Tensor, cls, out)

    return Wrapper


def _data(lib, shape, dtype=None, requires_grad=False):
    n = 1
    for s in shape:
        n *= s
    t = (lib.arange(float(n)) * 0.37 - 1.1).reshape(shape)
    if dtype is not None:
        t = t.to(dtype)
    return t.requires_grad_(requires_grad)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2), (5,), ()])
def test_metadata_and_no_data(lib, shape):
    inner = _data(lib, shape)
    w = _wrapper_class(lib)(inner)
    assert type(w).__name__ == "Wrapper" and isinstance(w, lib.Tensor)
    assert tuple(w.shape) == shape and tuple(w.stride()) == tuple(inner.stride())
    assert w.dtype == inner.dtype and w.requires_grad is False and w.is_leaf
    assert w.inner is inner


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_strides_and_offset_kept(lib):
    class Bare(lib.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            return NotImplemented

    w = lib.Tensor._make_wrapper_subclass(Bare, (3, 4), strides=(1, 3), storage_offset=2,
                                          dtype=lib.float64)
    assert tuple(w.shape) == (3, 4) and tuple(w.stride()) == (1, 3)
    assert w.dtype == lib.float64 and type(w) is Bare
    w = lib.Tensor._make_wrapper_subclass(Bare, (2, 0, 3))
    assert tuple(w.shape) == (2, 0, 3) and tuple(w.stride()) == (3, 3, 1)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_ops_reach_torch_dispatch(lib):
    log = []
    W = _wrapper_class(lib, log)
    x = _data(lib, (4, 3))
    w = W(x)
    out = (w * w.sum()).view(-1).exp()
    assert type(out) is W and type(out.inner) is type(x)
    assert out.inner.tolist() == pytest.approx((x * x.sum()).view(-1).exp().tolist())
    assert log == ["aten.sum.default", "aten.mul.Tensor", "aten.view.default",
                   "aten.exp.default"]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("shape", [(4, 3), (6,)])
def test_autograd_through_wrappers(lib, shape):
    W = _wrapper_class(lib)
    x = _data(lib, shape, requires_grad=True)
    w = W(x)
    assert w.requires_grad and w.is_leaf
    y = (w * w.sum()).view(-1).tanh()
    assert type(y) is W and y.grad_fn is not None
    y.sum().backward()
    assert type(w.grad) is W
    ref = x.detach().clone().requires_grad_()
    (ref * ref.sum()).view(-1).tanh().sum().backward()
    assert w.grad.inner.reshape(-1).tolist() == pytest.approx(ref.grad.reshape(-1).tolist())
    assert x.grad is None  # the wrapped tensor is used below autograd


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_saved_self_sizes_of_views(lib):
    x = _data(lib, (4, 3), requires_grad=True)
    v = (x * x.sum()).view(-1).view(4, 3)
    assert tuple(v.grad_fn._saved_self_sym_sizes) == (12,)
    assert tuple(x.view(12).grad_fn._saved_self_sym_sizes) == (4, 3)
    assert tuple(x.expand(2, 4, 3).grad_fn._saved_self_sym_sizes) == (4, 3)
    assert tuple(x.sum().grad_fn._saved_self_sym_sizes) == (4, 3)
    assert tuple(x.sum(0).grad_fn._saved_self_sym_sizes) == (4, 3)
    assert tuple(x[1].grad_fn._saved_self_sym_sizes) == (4, 3)
    assert "_saved_self_sym_sizes" in dir(v.grad_fn)
    assert not hasattr(x.exp().grad_fn, "_saved_self_sym_sizes")


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_modes_come_before_the_subclass(lib):
    seen = []
    W = _wrapper_class(lib, seen)
    if lib is minitorch:
        from minitorch.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(("mode", str(func), tuple(t.__name__ for t in types)))
            return func(*args, **(kwargs or {}))

    w = W(_data(lib, (3,)))
    with Mode():
        out = w.sin()
    assert type(out) is W
    assert seen[0][:2] == ("mode", "aten.sin.default") and seen[1] == "aten.sin.default"


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_not_implemented_is_refused(lib):
    class Refuses(lib.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args, kwargs):
            return NotImplemented

    w = lib.Tensor._make_wrapper_subclass(Refuses, (2, 2), dtype=lib.float32)
    with pytest.raises(TypeError, match=r"Multiple dispatch failed for '\w+\._ops\.aten\.add\.Tensor'; "
                                        "all __torch_dispatch__ handlers returned NotImplemented"
                                        ":\n\n  - tensor subclass <class '.*Refuses'>\n\nFor more"):
        lib.add(w, w)
    with pytest.raises(TypeError, match="Multiple dispatch failed"):
        w.exp()


def test_plain_tensors_unaffected_after_wrappers_die():
    from minitorch.utils import _python_dispatch
    w = _wrapper_class(minitorch)(_data(minitorch, (2,)))
    assert _python_dispatch._live_wrappers >= 1
    del w
    gc.collect()
    assert _python_dispatch._live_wrappers == 0
    x = _data(minitorch, (3,))
    assert type(x.sin()) is minitorch.Tensor


def test_refusals():
    class S(minitorch.Tensor):
        pass

    with pytest.raises(TypeError, match="must be a subclass of minitorch.Tensor"):
        minitorch.Tensor._make_wrapper_subclass(int, (2,))
    with pytest.raises(NotImplementedError, match="live on the cpu"):
        minitorch.Tensor._make_wrapper_subclass(S, (2,), device="cuda")
    with pytest.raises(RuntimeError, match="negative dimension"):
        minitorch.Tensor._make_wrapper_subclass(S, (2, -1))
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        minitorch.Tensor._make_wrapper_subclass(S, (2,), dtype=minitorch.int64,
                                                requires_grad=True)


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_layout(lib):
    assert lib.ones(2).layout is lib.strided
    assert repr(lib.strided) == f"{lib.__name__}.strided"


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_metadata_op_overloads(lib):
    aten = lib.ops.aten
    x = _data(lib, (4, 3))[1:]
    assert aten.sym_size.default(x) == [3, 3] and aten.sym_size.int(x, 1) == 3
    assert aten.sym_stride.default(x) == [3, 1] and aten.sym_stride.int(x, 0) == 3
    assert aten.sym_numel.default(x) == 9 and aten.sym_storage_offset.default(x) == 3
    assert aten.sym_size.default is aten.sym_size.default
    assert sorted(aten.sym_size.overloads()) == ["default", "int"]
    assert str(aten.sym_size.int) == "aten.sym_size.int"
    assert str(aten.sym_size.default._schema) == "aten::sym_size(Tensor self) -> SymInt[]"


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_custom_op_on_a_wrapper_reaches_its_class(lib):
    log = []
    W = _wrapper_class(lib, log)
    with lib.library._scoped_library("mt_wrap_ops", "FRAGMENT"):
        @lib.library.custom_op("mt_wrap_ops::halve", mutates_args=())
        def halve(x: lib.Tensor) -> lib.Tensor:
            return x * 0.5

        x = _data(lib, (2, 3))
        out = lib.ops.mt_wrap_ops.halve(W(x))
        assert type(out) is W and log == ["mt_wrap_ops.halve.default"]
        assert out.inner.reshape(-1).tolist() == pytest.approx((x * 0.5).reshape(-1).tolist())
