"""The in-place view ops (transpose_, t_, swapdims_, swapaxes_, squeeze_,
unsqueeze_, as_strided_) and the unsafe split ops, compared with torch:
geometry, versions, grad_fn names, gradients, forward-mode tangents, and the
refusals of in-place changes on leaves, views made in no_grad or inference
mode, outputs of multi-view ops and of custom Functions."""
import numpy as np
import pytest

import minitorch

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")

# (name, call) pairs over a (2, 1, 3) tensor
INPLACE_VIEW_OPS = [
    ("transpose_", lambda v: v.transpose_(0, 2)),
    ("transpose_neg", lambda v: v.transpose_(-1, 0)),
    ("swapdims_", lambda v: v.swapdims_(0, 1)),
    ("swapaxes_", lambda v: v.swapaxes_(2, 1)),
    ("squeeze_", lambda v: v.squeeze_()),
    ("squeeze_dim", lambda v: v.squeeze_(1)),
    ("squeeze_dim_kept", lambda v: v.squeeze_(0)),
    ("squeeze_dims", lambda v: v.squeeze_((1, 2))),
    ("unsqueeze_", lambda v: v.unsqueeze_(0)),
    ("unsqueeze_last", lambda v: v.unsqueeze_(-1)),
    ("as_strided_", lambda v: v.as_strided_((3, 2), (1, 3))),
    ("as_strided_offset", lambda v: v.as_strided_((2, 2), (3, 1), 1)),
]
IDS = [name for name, _ in INPLACE_VIEW_OPS]


def _values(L, dtype="float64"):
    return (L.arange(6, dtype=getattr(L, dtype)) / 3 - 0.7).reshape(2, 1, 3)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_geometry_version_and_identity(op, dtype):
    def scenario(L):
        x = _values(L, dtype)
        before = x._version
        out = op(x)
        return out is x, _geometry(x), x._version - before, val(x)
    same(torch, scenario)


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
def test_history_and_gradient(op):
    def scenario(L):
        leaf = _values(L).requires_grad_()
        y = leaf * 2
        op(y)
        w = L.arange(y.numel(), dtype=L.float64).reshape(y.shape)
        (y * y * w).sum().backward()
        return (y.grad_fn.name(), y.grad_fn.next_functions[0][0].name(), y.is_leaf,
                val(leaf.grad))
    same(torch, scenario)


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
def test_on_a_view_keeps_the_base_history(op):
    # an in-place view op on a view rewrites the view's history only: the
    # base keeps its own, and the view stays a view of it
    def scenario(L):
        leaf = _values(L).requires_grad_()
        base = leaf.clone()
        v = base[:]
        op(v)
        v.sum().backward()
        return (v.grad_fn.name(), base.grad_fn.name(), v._base is base, v._version,
                base._version, val(leaf.grad))
    same(torch, scenario)


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
def test_double_backward(op):
    def scenario(L):
        leaf = _values(L).requires_grad_()
        y = leaf * leaf
        op(y)
        (g,) = L.autograd.grad((y * y).sum(), leaf, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), leaf)
        return val(g), val(gg)
    same(torch, scenario)


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
def test_forward_mode_tangent(op):
    def scenario(L):
        fwAD = L.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(_values(L), _values(L) * 10).clone()
            op(d)
            return val(fwAD.unpack_dual(d).tangent), _geometry(d)
    same(torch, scenario)


@pytest.mark.parametrize("op", [op for _, op in INPLACE_VIEW_OPS], ids=IDS)
def test_refusals_on_leaves(op):
    def scenario(L):
        leaf = _values(L).requires_grad_()
        view_of_leaf = leaf[:]
        with L.no_grad():
            op(_values(L).requires_grad_())  # allowed without grad mode
        return errmsg(lambda: op(leaf)), errmsg(lambda: op(view_of_leaf))
    assert same(torch, scenario)[0] is not None


# in-place view ops that apply to 1-d and 2-d tensors alike
ANY_RANK_OPS = [lambda v: v.transpose_(0, 0), lambda v: v.t_(), lambda v: v.squeeze_(0),
                lambda v: v.unsqueeze_(0), lambda v: v.swapaxes_(0, -1),
                lambda v: v.as_strided_((1, 0), (2, 2))]


@pytest.mark.parametrize("op", ANY_RANK_OPS)
@pytest.mark.parametrize("made_by", ["view", "unbind", "custom"])
@pytest.mark.parametrize("grad_view", [True, False])
@pytest.mark.parametrize("grad_op", [True, False])
@pytest.mark.parametrize("requires_grad", [True, False])
def test_creation_of_the_view_decides_what_is_refused(op, made_by, grad_view, grad_op,
                                                      requires_grad):
    # the error of the in-place view op itself, then of an in-place op on
    # its result: views made in no_grad mode, by multi-view ops or in custom
    # Functions refuse both as torch's do
    def scenario(L):
        class Alias(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.view_as(x)

            @staticmethod
            def backward(ctx, g):
                return g

        base = _values(L).reshape(2, 3).requires_grad_(requires_grad).clone()
        with L.set_grad_enabled(grad_view):
            inp = {"view": lambda: base.view_as(base), "unbind": lambda: base.unbind()[0],
                   "custom": lambda: Alias.apply(base)}[made_by]()
        with L.set_grad_enabled(grad_op):
            first = errmsg(lambda: op(inp))
        second = errmsg(lambda: inp.add_(1)) if first is None else None
        return first, second
    same(torch, scenario)


def test_errors_of_bad_arguments():
    def scenario(L):
        x = _values(L)
        calls = [lambda: x.transpose_(0, 5), lambda: x.t_(), lambda: x.squeeze_(4),
                 lambda: x.unsqueeze_(5), lambda: x.as_strided_((100,), (1,)),
                 lambda: x.as_strided_((2,), (1, 1)), lambda: x.squeeze_((1, 1))]
        return [errmsg(c) for c in calls], _geometry(x), x._version
    same(torch, scenario)


def test_t_on_small_tensors():
    def scenario(L):
        out = []
        for shape in [(), (4,), (2, 3)]:
            x = L.ones(shape).requires_grad_().clone()
            x.t_()
            out.append((_geometry(x), x.grad_fn.name()))
        return out
    same(torch, scenario)


def test_as_strided_function_form():
    def scenario(L):
        x = _values(L).requires_grad_()
        y = x.clone()
        r = L.as_strided_(y, (3,), (2,), 1)
        r.sum().backward()
        return r is y, _geometry(y), val(x.grad)
    same(torch, scenario)


@pytest.mark.parametrize("requires_grad", [True, False])
def test_inference_mode(requires_grad):
    def scenario(L):
        out = []
        with L.inference_mode():
            c = L.ones(1, 2, 3, requires_grad=requires_grad)
            c.transpose_(0, 1)
            out.append((L.is_inference(c), c.requires_grad, _geometry(c)))
        a = L.ones(1, 2, 3, requires_grad=requires_grad).clone()
        with L.inference_mode():
            a.t_() if a.dim() <= 2 else a.squeeze_(0)
            out.append((L.is_inference(a), a.requires_grad, _geometry(a)))
        with L.inference_mode():
            view = a.view_as(a)
        out.append(errmsg(lambda: view.transpose_(0, 1)))
        with L.inference_mode():
            inf = L.ones(2, 3)
        out.append(errmsg(lambda: inf.transpose_(0, 1)))
        return out
    same(torch, scenario)


def test_base_changed_then_view_history_refused_for_inference_views():
    def scenario(L):
        a = L.ones(1, 2, 3, requires_grad=True).clone()
        with L.inference_mode():
            v = a.view(-1)
        a.transpose_(0, 1)
        return errmsg(lambda: v.grad_fn)
    assert same(torch, scenario) is not None


UNSAFE = [
    ("unsafe_split", lambda L, t: t.unsafe_split(1)),
    ("unsafe_split_fn", lambda L, t: L.unsafe_split(t, 2, 1)),
    ("unsafe_split_with_sizes", lambda L, t: t.unsafe_split_with_sizes((1, 2))),
    ("unsafe_split_with_sizes_fn", lambda L, t: L.unsafe_split_with_sizes(t, [2, 1], dim=-1)),
    ("unsafe_chunk", lambda L, t: t.unsafe_chunk(3)),
    ("unsafe_chunk_fn", lambda L, t: L.unsafe_chunk(t, 2, 1)),
]


@pytest.mark.parametrize("split", [s for _, s in UNSAFE], ids=[n for n, _ in UNSAFE])
def test_unsafe_splits_are_no_views(split):
    def scenario(L):
        a = (L.arange(9, dtype=L.float64) / 4 - 1).reshape(3, 3).requires_grad_()
        b = a + a
        parts = split(L, b)
        first = parts[0]
        names = [p.grad_fn.name() for p in parts]
        views = [p._is_view() for p in parts]
        first.mul_(parts[-1][: first.shape[0], : first.shape[1]])
        first.sum().backward()
        return type(parts).__name__, [tuple(p.shape) for p in parts], names, views, \
            first.grad_fn.name(), val(a.grad)
    same(torch, scenario)


def test_unsafe_split_errors():
    def scenario(L):
        t = L.ones(4, 3)
        return [errmsg(lambda: t.unsafe_split(-1)), errmsg(lambda: t.unsafe_chunk(0)),
                errmsg(lambda: t.unsafe_split_with_sizes([1, 1])),
                errmsg(lambda: L.ones(()).unsafe_split(1))]
    same(torch, scenario)


def test_gradcheck_of_the_rows():
    for name, op in INPLACE_VIEW_OPS:
        x = minitorch.tensor(np.linspace(-1, 1, 6).reshape(2, 1, 3), dtype=minitorch.float64,
                             requires_grad=True)

        def f(t, op=op):
            y = t * 1
            op(y)
            return y
        assert minitorch.autograd.gradcheck(f, (x,)), name
        assert minitorch.autograd.gradgradcheck(f, (x,)), name
