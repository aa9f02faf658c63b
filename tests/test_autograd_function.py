"""autograd.Function: a C node kind whose backward calls back into Python.
Behaviour and messages compared with torch where it is installed."""
import gc
import re
import sys

import numpy as np
import pytest
from custom_functions import Cube

import minitorch as mt
from minitorch.autograd import Function
from minitorch.autograd.function import once_differentiable


def _torch():
    return pytest.importorskip("torch")


def define(lib, name, forward, backward=None, vjp=None, setup_context=None):
    attrs = {"forward": staticmethod(forward)}
    if backward:
        attrs["backward"] = staticmethod(backward)
    if vjp:
        attrs["vjp"] = staticmethod(vjp)
    if setup_context:
        attrs["setup_context"] = staticmethod(setup_context)
    return type(name, (lib.autograd.Function,), attrs)


def both(name, forward, backward=None, **kw):
    torch = _torch()
    return [(lib, define(lib, name, forward, backward, **kw)) for lib in (mt, torch)]


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def same_error(make):
    """make(lib, Fn) -> callable; checks minitorch raises what torch raises."""
    def check(pairs):
        errs = [error_of(make(lib, F)) for lib, F in pairs]
        assert errs[1] is not None
        assert errs[0] == errs[1]
    return check


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


def test_linear_values_and_grads_match_torch():
    torch = _torch()
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    g = rng.standard_normal((5, 3))
    mx, mw, mb = (mt.tensor(a, requires_grad=True) for a in (x, w, b))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    y = LinearFunction.apply(mx, mw, mb)
    y.backward(mt.tensor(g))
    ty = torch.nn.functional.linear(tx, tw, tb)
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    for m, t in ((mx, tx), (mw, tw), (mb, tb)):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-12)
    assert type(y.grad_fn).__name__ == "LinearFunctionBackward"
    assert y.grad_fn.name() == "LinearFunctionBackward"
    assert len(y.grad_fn.next_functions) == 3


def test_linear_and_mulconstant_gradcheck():
    inp = (mt.randn(6, 5, dtype=mt.double, requires_grad=True),
           mt.randn(4, 5, dtype=mt.double, requires_grad=True),
           mt.randn(4, dtype=mt.double, requires_grad=True))
    assert mt.autograd.gradcheck(LinearFunction.apply, inp, eps=1e-6, atol=1e-4)
    x = mt.randn(3, 2, dtype=mt.double, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))
    assert mt.autograd.gradgradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))


def test_nothing_requires_grad_records_nothing():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx.needs_input_grad)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    y = Probe.apply(mt.ones(2))
    assert y.grad_fn is None and not y.requires_grad
    with mt.no_grad():
        y = Probe.apply(mt.ones(2, requires_grad=True))
    assert y.grad_fn is None and not y.requires_grad
    assert seen == [(False,), (False,)]


def test_needs_input_grad_and_non_tensor_args():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, k, b, *, scale=1.0):
            seen["grad_enabled"] = mt.is_grad_enabled()
            seen["needs"] = ctx.needs_input_grad
            return a * b * k * scale

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    a = mt.ones(3, requires_grad=True)
    y = Probe.apply(a, 2.0, mt.ones(3), scale=3.0)
    y.sum().backward()
    assert seen == {"grad_enabled": False, "needs": (True, False, False)}
    assert a.grad.tolist() == [1.0] * 3


def test_setup_context_style():
    class Exp(Function):
        @staticmethod
        def forward(x, k=2.0):
            return (x * k).exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out * ctx.k, None

    x = mt.tensor([0.0, 1.0], dtype=mt.double, requires_grad=True)
    Exp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * np.array([0.0, 1.0])))
    assert mt.autograd.gradcheck(Exp.apply, (x,))
    assert mt.autograd.gradgradcheck(Exp.apply, (x,))


def test_multiple_outputs_materialize_and_none():
    received = []

    class Split(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3, "tag"

        @staticmethod
        def backward(ctx, g1, g2, g3):
            received.append((g1, g2, g3))
            return (g1 if g1 is not None else 0) * 2 + (g2 if g2 is not None else 0) * 3, None

    x = mt.ones(3, requires_grad=True)
    a, b, tag = Split.apply(x, True)
    assert tag == "tag"
    a.sum().backward()
    g1, g2, g3 = received[-1]
    assert g2.tolist() == [0.0] * 3 and g3 is None
    x.grad = None
    a, b, _ = Split.apply(x, False)
    b.sum().backward()
    g1, g2, g3 = received[-1]
    assert g1 is None and g2.tolist() == [1.0] * 3
    assert x.grad.tolist() == [3.0] * 3


def test_returned_input_becomes_a_view_with_history():
    class Ident(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = mt.ones(2, requires_grad=True)
    y = Ident.apply(x)
    assert y is not x and x.grad_fn is None and type(y.grad_fn).__name__ == "IdentBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_mark_dirty():
    class AddOne(Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = mt.tensor([1.0, 2.0], requires_grad=True)
    b = a.clone()
    out = AddOne.apply(b)
    assert out is b and b.tolist() == [2.0, 3.0]
    assert type(b.grad_fn).__name__ == "AddOneBackward"
    (out * 3).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_mark_dirty_errors_match_torch():
    def not_returned(ctx, x, y):
        ctx.mark_dirty(y)
        return x * 2

    same_error(lambda lib, F: lambda: F.apply(lib.ones(2, requires_grad=True), lib.ones(2)))(
        both("D", not_returned, lambda ctx, g: (g, None)))

    def inplace(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    same_error(lambda lib, F: lambda: F.apply(lib.ones(2, requires_grad=True)))(
        both("D2", inplace, lambda ctx, g: g))


def test_non_differentiable_and_integer_outputs():
    class MaxIdx(Function):
        @staticmethod
        def forward(ctx, x):
            v, i = x.max(0)
            ctx.mark_non_differentiable(i)
            ctx.save_for_backward(x, i)
            return v, i

        @staticmethod
        def backward(ctx, g, gi):
            x, i = ctx.saved_tensors
            out = mt.zeros_like(x)
            out[i] = g
            return out

    x = mt.tensor([1.0, 5.0, 3.0], requires_grad=True)
    v, i = MaxIdx.apply(x)
    assert v.requires_grad and not i.requires_grad
    v.backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]

    class Floor(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_non_differentiable(y)
            return y, x.long()

        @staticmethod
        def backward(ctx, g, gi):
            return g

    y, n = Floor.apply(mt.ones(2, requires_grad=True))
    assert not y.requires_grad and not n.requires_grad


def test_backward_gradient_count_and_type_errors_match_torch():
    check = same_error(lambda lib, F: lambda: F.apply(
        lib.ones(2, requires_grad=True), lib.ones(2) if F.__name__ == "F" else 2
    ).sum().backward())
    check(both("F", lambda ctx, x, y: x * 2, lambda ctx, g: g))
    check(both("H", lambda ctx, x, k: x * 2, lambda ctx, g: (g, 3)))
    check(both("H2", lambda ctx, x, k: x * 2, lambda ctx, g: (3, None)))
    check(both("H4", lambda ctx, x, k: x * 2, lambda ctx, g: (g, None, g)))


def test_extra_trailing_nones_and_ignored_grads():
    class F(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g * 2, g * 3, None, None

    x, y = mt.ones(2, requires_grad=True), mt.ones(2)
    F.apply(x, y).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and y.grad is None


def test_gradient_shape_reduction_and_error():
    torch = _torch()

    class Bcast(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.expand(4, 3, 2) if g.dim() == 2 else g.expand(3, 2)

    x = mt.ones(3, 2, requires_grad=True)
    Bcast.apply(x).sum().backward()
    assert x.grad.tolist() == [[4.0, 4.0]] * 3
    x1 = mt.ones(1, 2, requires_grad=True)
    Bcast.apply(x1).sum().backward()
    assert x1.grad.tolist() == [[12.0, 12.0]]
    check = same_error(lambda lib, F: lambda: F.apply(lib.ones(2, requires_grad=True)).sum()
                       .backward())
    check(both("G", lambda ctx, x: x * 2, lambda ctx, g: g.new_ones(3)))
    check(both("G2", lambda ctx, x: x * 2, lambda ctx, g: g.new_ones(2, 3)))
    del torch


def test_gradient_dtype_is_cast_to_input():
    class F(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.double()

    x = mt.ones(2, requires_grad=True)
    F.apply(x).sum().backward()
    assert x.grad.dtype == mt.float32


def test_saved_tensors_version_check_and_output_saving():
    torch = _torch()

    def fwd(ctx, x):
        y = x * 2
        ctx.save_for_backward(y)
        return y

    def bwd(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y

    msgs = []
    for lib, F in both("S", fwd, bwd):
        y = F.apply(lib.ones(2, requires_grad=True))
        y.mul_(2)
        with pytest.raises(RuntimeError) as ei:
            y.sum().backward()
        msgs.append(str(ei.value))
    prefix = re.compile(r"^(.*is at version 1; expected version 0 instead\.)")
    assert prefix.match(msgs[0]).group(1).replace("minitorch.", "torch.") == \
        prefix.match(msgs[1]).group(1)
    del torch


def test_saved_output_has_no_reference_cycle():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            assert type(y.grad_fn).__name__ == "ExpBackward"
            return g * y

    gc.disable()
    try:
        x = mt.zeros(3, requires_grad=True)
        y = Exp.apply(x)
        node = y.grad_fn
        refs = sys.getrefcount(node)
        y.sum().backward(retain_graph=True)
        assert x.grad.tolist() == [1.0] * 3
        del y
        assert sys.getrefcount(node) <= refs
        import weakref
        y = Exp.apply(x)
        ctx_probe = weakref.ref(y)
        del y
        assert ctx_probe() is None
    finally:
        gc.enable()


def test_saved_tensors_freed_after_backward():
    def fwd(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    def bwd(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2

    errs = []
    for lib, F in both("Twice", fwd, bwd):
        y = F.apply(lib.ones(2, requires_grad=True))
        y.sum().backward()
        errs.append(error_of(lambda: y.sum().backward()))
    assert errs[0][0] == errs[1][0] == "RuntimeError"
    assert errs[0][1].startswith("Trying to backward through the graph a second time")
    assert errs[1][1].startswith("Trying to backward through the graph a second time")


def test_save_for_backward_rejects_non_tensors():
    same_error(lambda lib, F: lambda: F.apply(lib.ones(2, requires_grad=True)))(
        both("Bad", lambda ctx, x: (ctx.save_for_backward(x, 3), x * 2)[1], lambda ctx, g: g))


def test_double_backward_through_custom_function():
    x = mt.tensor([2.0], requires_grad=True)
    (dx,) = mt.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
    assert dx.tolist() == [12.0]
    (ddx,) = mt.autograd.grad(dx.sum(), x)
    assert ddx.tolist() == [12.0]


def test_once_differentiable():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            assert not mt.is_grad_enabled()
            return g * 2 * x

    x = mt.tensor([3.0], requires_grad=True)
    (dx,) = mt.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert dx.tolist() == [6.0]
    with pytest.raises(RuntimeError, match="does not require grad"):
        mt.autograd.grad(dx.sum(), x)
    v = mt.ones(1, requires_grad=True)
    (dx,) = mt.autograd.grad(Square.apply(x), x, v, create_graph=True)
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        dx.sum().backward()


def test_vjp_alias_and_backward_errors_match_torch():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    x = mt.ones(2, requires_grad=True)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    check = same_error(lambda lib, F: lambda: F.apply(lib.ones(2, requires_grad=True)).sum()
                       .backward())
    check(both("B", lambda ctx, x: x * 2, lambda ctx, g: g, vjp=lambda ctx, g: g))
    check(both("N", lambda ctx, x: x * 2))


def test_exceptions_propagate_and_leave_no_graph():
    class Boom(Function):
        @staticmethod
        def forward(ctx, x, fail):
            if fail == "forward":
                raise ValueError("forward failed")
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise KeyError("backward failed")

    x = mt.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="forward failed") as ei:
        Boom.apply(x, "forward")
    assert any(tb.name == "forward" for tb in ei.traceback)
    assert x.grad_fn is None and x.grad is None
    y = Boom.apply(x, "backward")
    with pytest.raises(KeyError, match="backward failed"):
        y.sum().backward()
    assert x.grad is None


def test_instantiation_and_legacy_call_match_torch():
    torch = _torch()
    for lib in (mt, torch):
        F = define(lib, "Legacy", lambda ctx, x: x, lambda ctx, g: g)
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            obj = F()
        with pytest.raises(RuntimeError, match="Legacy autograd function with non-static"):
            obj(lib.ones(1))


def test_zero_size_and_non_contiguous_inputs():
    x = mt.randn(4, 3, dtype=mt.double).t().requires_grad_()
    y = MulConstant.apply(x, 3.0)
    y.backward(mt.ones(3, 4, dtype=mt.double))
    assert x.grad.tolist() == [[3.0] * 4] * 3
    z = mt.zeros(0, 2, requires_grad=True)
    MulConstant.apply(z, 2.0).sum().backward()
    assert tuple(z.grad.shape) == (0, 2)


def test_hooks_on_custom_node():
    x = mt.ones(2, requires_grad=True)
    y = MulConstant.apply(x, 2.0)
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].tolist(), go[0].tolist())))
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]
    assert seen == [([20.0, 20.0], [10.0, 10.0])]


def test_grad_fn_reads_the_ctx_as_torch_does():
    """torch's grad_fn of a custom Function is its ctx: what forward saved and
    set on ctx reads back through y.grad_fn, until backward frees it."""
    def forward(ctx, x):
        r = x.exp()
        ctx.save_for_backward(r)
        ctx.scale = 3
        return r

    def backward(ctx, g):
        r, = ctx.saved_tensors
        return g * r

    seen = []
    for lib, Exp in both("Exp", forward, backward):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        y = Exp.apply(x)
        saved, = y.grad_fn.saved_tensors
        seen.append((saved.tolist(), y.grad_fn.needs_input_grad, y.grad_fn.scale))
        y.sum().backward()
        seen.append(error_of(lambda: y.grad_fn.saved_tensors))
        seen.append(error_of(lambda: y.grad_fn.missing))
    assert seen[:3] == seen[3:]
    assert seen[0] == ([1.0, float(np.float32(np.e))], (True,), 3)
    assert seen[1][0] == "RuntimeError" and "a second time" in seen[1][1]
    assert seen[2] == ("AttributeError", "'ExpBackward' object has no attribute 'missing'")
