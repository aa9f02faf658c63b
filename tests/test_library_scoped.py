"""torch.library.Library and _scoped_library: ops defined and implemented
from Python, callable as <lib>.ops.<ns>.<name>, their ``.default``
overloads, dispatch modes seeing them, and their removal when the scope
ends; against torch."""
import pytest

import minitorch
from dispatch_log import log_mode

torch = pytest.importorskip("torch")

LIBS = [minitorch, torch]
IDS = ["minitorch", "torch"]


def _mode(lib):
    if lib is minitorch:
        from minitorch.utils._python_dispatch import TorchDispatchMode
    else:
        from torch.utils._python_dispatch import TorchDispatchMode
    return log_mode(TorchDispatchMode, str)()


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("key", ["CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd",
                                 ""])
def test_define_impl_call_and_scope_end(lib, key):
    ns = "mt_scoped_a"
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        assert L.define("twice(Tensor x, float a=2.0) -> Tensor") == "twice"
        L.impl("twice", lambda x, a=2.0: x * a, key)
        x = lib.arange(6.0).reshape(2, 3)
        assert getattr(lib.ops, ns).twice(x).tolist() == (x * 2).tolist()
        assert getattr(lib.ops, ns).twice(x, 0.5).tolist() == (x * 0.5).tolist()
        assert getattr(lib.ops, ns).twice.default(x, a=3.0).tolist() == (x * 3).tolist()
        xg = lib.ones(3, requires_grad=True)
        getattr(lib.ops, ns).twice(xg, 4.0).sum().backward()
        assert xg.grad.tolist() == [4.0, 4.0, 4.0]
    assert not hasattr(getattr(lib.ops, ns), "twice")
    with pytest.raises(AttributeError, match="has no attribute 'twice'"):
        getattr(lib.ops, ns).twice


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_redefinable_after_the_scope(lib):
    ns = "mt_scoped_b"
    for factor in (2.0, 3.0):
        with lib.library._scoped_library(ns, "FRAGMENT") as L:
            L.define("scale(Tensor x) -> Tensor")
            L.impl("scale", lambda x, f=factor: x * f, "CPU")
            assert getattr(lib.ops, ns).scale(lib.ones(2)).tolist() == [factor, factor]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_overload_objects(lib):
    ns = "mt_scoped_c"
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        L.define("f(Tensor x) -> Tensor")
        L.impl("f", lambda x: x + 1, "CPU")
        packet = getattr(lib.ops, ns).f
        overload = packet.default
        assert overload is packet.default
        assert packet.overloads() == ["default"]
        assert overload.overloadpacket is packet
        assert str(overload) == f"{ns}.f.default"
        assert repr(overload) == f"<OpOverload(op='{ns}.f', overload='default')>"
        assert overload.__name__ == "f.default"
        assert overload.name() == f"{ns}::f"
        assert overload.namespace == ns
        assert str(overload._schema) == f"{ns}::f(Tensor x) -> Tensor"


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_modes_see_backend_kernels_as_the_op(lib):
    ns = "mt_scoped_d"
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        L.define("k(Tensor x) -> Tensor")
        L.impl("k", lambda x: x.sin(), "CPU")
        L.define("c(Tensor x) -> Tensor")
        L.impl("c", lambda x: x.cos(), "CompositeImplicitAutograd")
        x = lib.ones(2)
        with _mode(lib) as m:
            getattr(lib.ops, ns).k(x)
        assert m.ops == [f"{ns}.k.default"]
        with _mode(lib) as m:
            getattr(lib.ops, ns).c(x)
        assert m.ops == ["aten.cos.default"]


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_tuple_with_number_result(lib):
    ns = "mt_scoped_e"
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        L.define("pair(Tensor x, int n) -> (Tensor, int)")
        L.impl("pair", lambda x, n: (x * n, n + 1), "CompositeImplicitAutograd")
        out, k = getattr(lib.ops, ns).pair(lib.ones(2), 3)
        assert out.tolist() == [3.0, 3.0] and k == 4


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_errors(lib):
    ns = "mt_scoped_f"
    with pytest.raises(ValueError, match="Unsupported kind"):
        lib.library.Library(ns, "BAD")
    with pytest.raises(ValueError, match="reserved namespace"):
        lib.library.Library("prim", "FRAGMENT")
    with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY can be used to register "
                                           "the namespace aten"):
        lib.library.Library("aten", "DEF")
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        L.define("g(Tensor x) -> Tensor")
        with pytest.raises(NotImplementedError,
                           match=f"Could not run '{ns}::g' with arguments from the 'CPU' backend"):
            getattr(lib.ops, ns).g(lib.ones(1))
        with pytest.raises(RuntimeError, match="with the same name and overload name multiple "
                                               "times"):
            L.define("g(Tensor x) -> Tensor")
    with lib.library._scoped_library(ns, "DEF"):
        with pytest.raises(RuntimeError, match=f"Only a single TORCH_LIBRARY can be used to "
                                               f"register the namespace {ns}"):
            lib.library.Library(ns, "DEF")
    with lib.library._scoped_library(ns, "DEF"):  # the first one's scope has ended
        pass


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_impl_library_adds_kernels_and_removes_them(lib):
    ns = "mt_scoped_g"
    with lib.library._scoped_library(ns, "FRAGMENT") as L:
        L.define("h(Tensor x) -> Tensor")
        with lib.library._scoped_library(ns, "IMPL") as I:
            I.impl("h", lambda x: x - 1, "CPU")
            assert getattr(lib.ops, ns).h(lib.ones(2)).tolist() == [0.0, 0.0]
        with pytest.raises(NotImplementedError, match="Could not run"):
            getattr(lib.ops, ns).h(lib.ones(2))


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
def test_custom_op_in_a_scoped_library_seen_by_modes(lib):
    with lib.library._scoped_library("mt_scoped_h", "FRAGMENT"):
        calls = []

        @lib.library.custom_op("mt_scoped_h::with_extra", mutates_args=())
        def with_extra(x: lib.Tensor) -> tuple[lib.Tensor, int]:
            calls.append(1)
            return x.sin(), 2

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad, unused):
            assert unused is None
            (x,) = ctx.saved_tensors
            return grad * x.cos()

        lib.library.register_autograd("mt_scoped_h::with_extra", backward,
                                      setup_context=setup_context)
        x = lib.tensor([0.1, 0.7, -1.2], requires_grad=True)
        with _mode(lib) as m:
            out, n = lib.ops.mt_scoped_h.with_extra(x)
        assert m.ops == ["mt_scoped_h.with_extra.default"] and n == 2 and calls == [1]
        out.sum().backward()
        assert x.grad.tolist() == pytest.approx(x.detach().cos().tolist())


@pytest.mark.parametrize("lib", LIBS, ids=IDS)
@pytest.mark.parametrize("saved", [True, False], ids=["saved", "recomputed"])
def test_selective_checkpoint_keeps_a_custom_op_with_a_number_result(lib, saved):
    """A custom op's call is one the selective checkpoint policy can save:
    the recomputation hands out the kept (tensor, number) pair instead of
    running the kernel again."""
    from functools import partial
    sac = lib.utils.checkpoint
    with lib.library._scoped_library("mt_scoped_i", "FRAGMENT"):
        calls = []

        @lib.library.custom_op("mt_scoped_i::sin_extra", mutates_args=())
        def sin_extra(x: lib.Tensor) -> tuple[lib.Tensor, int]:
            calls.append(1)
            return x.sin(), 3

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad, unused):
            (x,) = ctx.saved_tensors
            return grad * x.cos()

        lib.library.register_autograd("mt_scoped_i::sin_extra", backward,
                                      setup_context=setup_context)

        def fn(x):
            y, k = lib.ops.mt_scoped_i.sin_extra(x)
            return (y * k * x.sin().exp()).sin()

        ops = [lib.ops.mt_scoped_i.sin_extra.default] if saved else [lib.ops.aten.exp.default]
        x = lib.tensor([0.3, -1.1, 2.0, 0.05], requires_grad=True)
        out = sac.checkpoint(fn, x, use_reentrant=False,
                             context_fn=partial(sac.create_selective_checkpoint_contexts, ops))
        (grad,) = lib.autograd.grad(out.sum(), (x,))
        assert len(calls) == (1 if saved else 2)
        (ref,) = lib.autograd.grad(fn(x).sum(), (x,))
        assert grad.tolist() == pytest.approx(ref.tolist())
