"""The legacy autograd.Variable, and backward called from inside a custom
Function's backward (reentrant), nested deeper than one thread's stack:
compared with torch."""
import warnings

import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def test_variable_is_a_detached_alias():
    for lib in libs():
        Variable = lib.autograd.Variable
        x = lib.ones(2)
        v = Variable(x, requires_grad=True)
        assert v is not x and v.requires_grad and v.is_leaf and isinstance(x, Variable)
        assert v.data_ptr() == x.data_ptr()
        y = lib.ones(2, requires_grad=True) * 2
        w = Variable(y)
        assert w.grad_fn is None and not w.requires_grad
        assert tuple(Variable().shape) == (0,)


def test_variable_errors_and_warnings():
    got = []
    for lib in libs():
        Variable = lib.autograd.Variable
        row = []
        for bad in (lambda: Variable(5),
                    lambda: Variable(lib.ones(2, dtype=lib.long), requires_grad=True)):
            with pytest.raises((TypeError, RuntimeError)) as info:
                bad()
            row.append((info.type.__name__, str(info.value)))
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            Variable(lib.ones(1), volatile=True)
        row.append([str(w.message) for w in ws if "jit" not in str(w.message)])
        got.append(row)
    assert got[0] == got[1]


def deep_reentrant(lib, depth):
    class DeepReentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with lib.enable_grad():
                ctx.x = lib.autograd.Variable(x.detach(), requires_grad=True)
                ctx.x = ctx.x - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            if ctx.x < 0:
                return g
            with lib.enable_grad():
                DeepReentrant.apply(ctx.x).sum().backward()
            return g

    calls = []
    v = lib.tensor(float(depth), requires_grad=True)
    DeepReentrant.apply(v).sum().backward()
    return len(calls), v.grad.item()


def test_deeply_nested_reentrant_backward():
    # deeper than Python's recursion limit allows on one thread
    assert deep_reentrant(mt, 2000) == deep_reentrant(pytest.importorskip("torch"), 2000)
    assert deep_reentrant(mt, 2000) == (2001, 1.0)


def test_reentrant_backward_keeps_grad_mode_and_errors():
    for lib in libs():
        class Boom(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                raise ValueError("boom")

        class Nest(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, depth):
                ctx.depth = depth
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                with lib.enable_grad():
                    x = lib.ones(1, requires_grad=True)
                    inner = Nest.apply(x, ctx.depth - 1) if ctx.depth else Boom.apply(x)
                    inner.sum().backward()
                return g, None

        with pytest.raises(ValueError, match="boom"):
            Nest.apply(lib.ones(1, requires_grad=True), 80).sum().backward()
        assert lib.is_grad_enabled()
