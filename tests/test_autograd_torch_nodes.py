"""torch's own nodes as torch shows them: ``_C._functions.UndefinedGrad`` and
``DelayedError`` (the ``Error`` node ``once_differentiable`` puts after a
backward), the ``CopyBackwards`` of a gradient first accumulated with
create_graph, the ``torch::autograd::`` names of hand-written nodes, and a
custom Function's ``_materialize_non_diff_grads``."""
import warnings

import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")


def graph_desc(fn):
    if fn is None:
        return "None"
    inner = ", ".join(graph_desc(f) for f, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"


def once_diff(L, nout_none):
    """torch's test_once_differentiable, with the None gradient at each place."""
    once_differentiable = L.autograd.function.once_differentiable

    class MyFunction(L.autograd.Function):
        @staticmethod
        def forward(ctx, t1, scalar, t2):
            ctx.scalar = scalar
            ctx.save_for_backward(t1, t2)
            return t1 + scalar * t2 + t1 * t2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            assert not L.is_grad_enabled()
            t1, t2 = ctx.saved_tensors
            grads = [g + g * t2, None, g * ctx.scalar + g * t1]
            if nout_none == 0:
                grads[0] = None
            return tuple(grads)

    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = L.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    go = L.ones((), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        MyFunction.apply(x, 2, y).sum().backward(go, create_graph=True)
    err = errmsg(lambda: y.grad.sum().backward())
    return graph_desc(y.grad.grad_fn), y.grad.grad_fn.name(), val(y.grad), val(x.grad), err


@pytest.mark.parametrize("nout_none", [None, 0])
def test_once_differentiable_graph(nout_none):
    desc, name, *_ = same(torch, once_diff, nout_none)
    if nout_none is None:
        assert desc == "CopyBackwards(None, Error(AccumulateGrad(), None, AccumulateGrad()))"
    assert name == "torch::autograd::CopyBackwards"


def delayed_error(L, inputs):
    a = L.tensor([1.0, 2.0], requires_grad=True)
    b = L.tensor([3.0, 4.0])
    args = [{"a": a, "b": b, "n": None}[k] for k in inputs]
    outs = L._C._functions.DelayedError(b"no double backward", len(args))(*args)
    outs = outs if isinstance(outs, tuple) else (outs,)
    node = next((o.grad_fn for o in outs if o is not None and o.grad_fn is not None), None)
    desc = graph_desc(node)
    name = node.name() if node is not None else None
    diffable = [o for o in outs if o is not None and o.requires_grad]
    err = errmsg(lambda: diffable[0].sum().backward()) if diffable else None
    shape = [None if o is None else (o.requires_grad, val(o)) for o in outs]
    wrong = errmsg(lambda: L._C._functions.DelayedError("m", 2)(a))
    return desc, name, err, shape, wrong


@pytest.mark.parametrize("inputs", ["a", "an", "nab", "b", "n"])
def test_delayed_error(inputs):
    desc, name, err, shape, wrong = same(torch, delayed_error, inputs)
    assert wrong == ("TypeError", "expected 2 arguments, got 1 instead")
    if "a" in inputs:
        assert name == "torch::autograd::Error" and err == ("RuntimeError", "no double backward")


def undefined_grad(L, materialize):
    seen = []

    class Passthrough(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            seen.append(val(g))
            return g

    x = L.ones(2, requires_grad=True)
    u = L._C._functions.UndefinedGrad()(Passthrough.apply(x))
    u.sum().backward()
    return seen, val(x.grad), graph_desc(u.grad_fn), u.grad_fn.name()


@pytest.mark.parametrize("materialize", [True, False])
def test_undefined_grad(materialize):
    seen, grad, desc, name = same(torch, undefined_grad, materialize)
    assert seen == [("T", (2,), [0.0, 0.0])] if materialize else [None]
    assert name == "torch::autograd::UndefinedGradBackward"


def non_diff_grads(L, materialize_non_diff, materialize):
    seen = []

    class Func(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out0, out1, out2 = x.clone(), x.clone(), (x > 0).long()
            ctx.mark_non_differentiable(out1)
            ctx.set_materialize_grads(materialize)
            if materialize_non_diff is not None:
                ctx._materialize_non_diff_grads = materialize_non_diff
            return out0, out1, out2

        @staticmethod
        def backward(ctx, g0, g1, g2):
            seen.append((val(g0), val(g1), val(g2)))
            return g0

    a = L.tensor([1.0, -1.0], requires_grad=True)
    Func.apply(a)[0].sum().backward()
    return seen, val(a.grad)


@pytest.mark.parametrize("materialize_non_diff", [None, True, False])
@pytest.mark.parametrize("materialize", [True, False])
def test_materialize_non_diff_grads(materialize_non_diff, materialize):
    seen, _ = same(torch, non_diff_grads, materialize_non_diff, materialize)
    g1 = seen[0][1]
    assert (g1 is None) == (materialize_non_diff is False or not materialize)


def accumulate_with_graph(L, twice):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (x * x).sum().backward(create_graph=True)
        if twice:
            (x * x).sum().backward(create_graph=True)
    g = x.grad
    second = L.autograd.grad(g.sum(), x)
    return graph_desc(g.grad_fn), val(g), val(second)


@pytest.mark.parametrize("twice", [False, True])
def test_first_accumulation_with_graph_is_a_copy(twice):
    desc, grad, second = same(torch, accumulate_with_graph, twice)
    assert desc.startswith("AddBackward0(CopyBackwards(" if twice else "CopyBackwards(None, ")


def node_names(L):
    a = L.ones(2, requires_grad=True)
    b = a.clone()
    e = L.empty(2)
    e.copy_(a)
    return (b.grad_fn.name(), type(b.grad_fn.next_functions[0][0]).__name__,
            b.grad_fn.next_functions[0][0].name(), e.grad_fn.name())


def test_hand_written_node_names():
    names = same(torch, node_names)
    assert names == ("CloneBackward0", "AccumulateGrad", "torch::autograd::AccumulateGrad",
                     "torch::autograd::CopyBackwards")
