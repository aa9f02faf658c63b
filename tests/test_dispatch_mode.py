"""Dispatch modes (torch.utils._python_dispatch.TorchDispatchMode) and the
aten op overloads they receive, against torch's behaviour."""
import contextlib

import numpy as np
import pytest

import minitorch
from minitorch.utils._python_dispatch import (
    TorchDispatchMode, _get_current_dispatch_mode, _get_current_dispatch_mode_stack,
    _len_torch_dispatch_stack)
from dispatch_log import log_mode

torch = pytest.importorskip("torch")
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode  # noqa: E402

aten = minitorch.ops.aten


Log = log_mode(TorchDispatchMode)
TorchLog = log_mode(TorchMode)

FORWARD_CASES = [
    ("sin", lambda t, x, y: x.sin()),
    ("exp", lambda t, x, y: t.exp(x)),
    ("mul", lambda t, x, y: x * y),
    ("add", lambda t, x, y: x + y),
    ("sub_scalar", lambda t, x, y: x - 2),
    ("mm", lambda t, x, y: x.mm(y)),
    ("view", lambda t, x, y: x.view(-1)),
    ("sum", lambda t, x, y: x.sum()),
    ("mean", lambda t, x, y: x.mean()),
    ("chain", lambda t, x, y: (x.cos() * y).sum()),
    ("inplace", lambda t, x, y: x.clone().mul_(2)),
    ("var_mean", lambda t, x, y: t.var_mean(x)),
    ("max_dim", lambda t, x, y: x.max(1)),
]


def _pair(lib):
    x = lib.arange(9.0).reshape(3, 3) / 7
    return x, x.t() + 1


def _close(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours.tolist()), np.asarray(theirs.tolist()), rtol=1e-5,
                               atol=1e-6)


@pytest.mark.parametrize("name,fn", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_forward_ops_are_torchs(name, fn):
    got, want = Log(), TorchLog()
    x, y = _pair(minitorch)
    with got:
        out = fn(minitorch, x, y)
    tx, ty = _pair(torch)
    with want:
        ref = fn(torch, tx, ty)
    assert got.ops == want.ops
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    for o, r in zip(outs, refs):
        _close(o, r)


@pytest.mark.parametrize("fn,formula_op", [
    (lambda x: x.exp().sum(), "mul.Tensor"),
    (lambda x: (x * x).sum(), "mul.Tensor"),
    (lambda x: x.mm(x).sum(), "mm.default"),
])
def test_backward_ops_are_seen(fn, formula_op):
    x = minitorch.arange(4.0).reshape(2, 2).requires_grad_()
    out = fn(x)
    log = Log()
    with log:
        out.backward()
    assert formula_op in log.ops
    # what the mode saw computed the gradient
    tx = torch.arange(4.0).reshape(2, 2).requires_grad_()
    fn(tx).backward()
    _close(x.grad, tx.grad)


def test_func_runs_below_autograd_and_autograd_wraps_the_result():
    seen = []

    class Check(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            seen.append((func.__name__, out.requires_grad, out.grad_fn))
            return out

    x = minitorch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    with Check():
        y = x.sin()
    assert seen == [("sin.default", False, None)]
    assert type(y.grad_fn).__name__ == "SinBackward0"
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx(torch.tensor([0.5, 1.0, 2.0]).cos().tolist())


def test_mode_result_replaces_the_ops():
    class Zeros(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return minitorch.zeros_like(out) if func is aten.sin.default else out

    x = minitorch.tensor([0.5, 1.0], requires_grad=True)
    with Zeros():
        y = x.sin()
        z = x.cos()
    assert y.tolist() == [0.0, 0.0]
    assert z.tolist() == pytest.approx([float(v) for v in torch.tensor([0.5, 1.0]).cos()])
    assert y.requires_grad
    y.sum().backward()  # the formula reads x, not the replaced result
    assert x.grad.tolist() == pytest.approx(torch.tensor([0.5, 1.0]).cos().tolist())


@pytest.mark.parametrize("lib", ["minitorch", "torch"])
def test_nested_modes_order_and_reentrancy(lib):
    t = minitorch if lib == "minitorch" else torch
    base = TorchDispatchMode if lib == "minitorch" else TorchMode
    events = []
    current = []
    from torch.utils._python_dispatch import _get_current_dispatch_mode as torch_current
    get_current = _get_current_dispatch_mode if lib == "minitorch" else torch_current

    class Tag(base):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            events.append((self.tag, func.__name__))
            current.append(getattr(get_current(), "tag", None))
            return func(*args, **(kwargs or {}))

    x = t.ones(2)
    with Tag("outer"), Tag("inner"):
        x.exp()
    with Tag("only"):
        x.neg()
    x.sin()  # no mode: nobody sees it
    assert events == [("inner", "exp.default"), ("outer", "exp.default"),
                      ("only", "neg.default")]
    # a mode is off its own stack while it handles an op
    assert current == ["outer", None, None]


def test_stack_queries_and_cleanup():
    a, b = Log(), Log()
    assert _get_current_dispatch_mode() is None and _len_torch_dispatch_stack() == 0
    with a:
        with b:
            assert _get_current_dispatch_mode_stack() == [a, b]
            assert _get_current_dispatch_mode() is b
        assert _get_current_dispatch_mode_stack() == [a]
    assert _get_current_dispatch_mode_stack() == []
    minitorch.ones(2).exp()
    assert a.ops == [] and b.ops == []


def test_handler_errors_propagate_and_leave_the_stack_whole():
    class Boom(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is aten.exp.default:
                raise ValueError("no exp here")
            return func(*args, **(kwargs or {}))

    mode = Boom()
    x = minitorch.ones(2, requires_grad=True)
    with mode:
        with pytest.raises(ValueError, match="no exp here"):
            x.exp()
        assert _get_current_dispatch_mode() is mode
        y = x.sin()  # the mode still works after the error
    # an error in the backward's ops reaches backward's caller
    z = x.exp()

    class BoomMul(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is aten.mul.Tensor:
                raise ValueError("no mul here")
            return func(*args, **(kwargs or {}))

    with BoomMul(), pytest.raises(ValueError, match="no mul here"):
        z.sum().backward()
    assert x.grad is None
    assert _get_current_dispatch_mode() is None
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx(torch.ones(2).cos().tolist())


def test_mode_sees_ops_run_by_the_backward_formula_only_once():
    x = minitorch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    log = Log()
    with log:
        (g,) = minitorch.autograd.grad(y.sum(), x)
    assert log.ops.count("mul.Tensor") == 1
    assert g.tolist() == pytest.approx(torch.tensor([1.0, 2.0]).exp().tolist())


def test_overload_names_by_row():
    """An overload torch names differently still is one per row kind, and
    the packet is torch's."""
    log = Log()
    x = minitorch.ones(2, 3)
    with log:
        x.sum(1)
        x.sum()
        x.view(minitorch.int32)
    assert log.ops == ["sum.dim", "sum.default", "view.dtype"]


def test_op_overloads_match_torchs():
    for ours, theirs in [(aten.sin.default, torch.ops.aten.sin.default),
                         (aten.mul.Tensor, torch.ops.aten.mul.Tensor),
                         (aten.mm.default, torch.ops.aten.mm.default),
                         (aten.var_mean.correction, torch.ops.aten.var_mean.correction),
                         (aten.view.dtype, torch.ops.aten.view.dtype)]:
        assert ours.__name__ == theirs.__name__
        assert ours.name() == theirs.name()
        assert repr(ours) == repr(theirs)
        assert ours.overloadpacket.__name__ == theirs.overloadpacket.__name__
        assert repr(ours.overloadpacket) == repr(theirs.overloadpacket)
    assert aten.sin.default is minitorch.ops.aten.sin.default
    assert "default" in aten.sin.overloads()
    with pytest.raises(AttributeError, match="has no overload name 'nope'"):
        aten.sin.nope
    with pytest.raises(AttributeError):
        aten.no_such_op_anywhere


def test_op_overload_calls_run_the_row_without_autograd():
    x = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    tx = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = aten.mm.default(x, x)
    assert out.grad_fn is None and not out.requires_grad
    _close(out, tx @ tx)
    assert aten.mul.Tensor(x, 3).tolist() == (tx * 3).tolist()
    assert aten.view.default(x, [4]).tolist() == tx.view(4).tolist()
    var, mean = aten.var_mean.correction(x, None, correction=0)
    tvar, tmean = torch.ops.aten.var_mean.correction(tx, None, correction=0)
    assert (var.item(), mean.item()) == pytest.approx((tvar.item(), tmean.item()))
    # the packet runs the public op, through autograd
    y = aten.sin(x)
    assert type(y.grad_fn).__name__ == "SinBackward0"
    with pytest.raises(TypeError):
        aten.sin.default(x, 1, 2)


@pytest.mark.parametrize("op", [
    lambda v: v.t_(),
    lambda v: v.transpose_(0, 1),
    lambda v: v.unsqueeze_(0),
    lambda v: v.mul_(2),
])
def test_views_and_indexing_record_the_kind_the_impl_chose(op):
    """Rows whose impl reports the op it stands for (indexing, views) are
    recorded as without a mode, and differentiate the same."""
    def run(t, mode):
        leaf = t.arange(6.0).reshape(2, 3).requires_grad_()
        with mode:
            base = leaf.clone()
            v = base[:]
            op(v)
            w = base[1:, ::2]
            (v.sum() + (w * w).sum()).backward()
        return leaf.grad.tolist(), v.grad_fn.name(), w.grad_fn.name()

    ours = run(minitorch, Log())
    assert ours == run(minitorch, contextlib.nullcontext())
    theirs = run(torch, TorchLog())
    assert ours[0] == theirs[0]


def test_modes_popped_for_a_while_come_back():
    from minitorch.utils._python_dispatch import _disable_current_modes, _pop_mode_temporarily
    a, b = Log(), Log()
    x = minitorch.ones(2)
    with a, b:
        with _pop_mode_temporarily() as top:
            assert top is b
            x.exp()
        with _disable_current_modes() as popped:
            assert popped == [b, a]
            x.neg()
        x.sin()
    assert a.ops == ["exp.default", "sin.default"]
    assert b.ops == ["sin.default"]
    assert _len_torch_dispatch_stack() == 0


def test_profiler_and_mode_see_the_same_rows():
    log = Log()
    x = minitorch.ones(3, requires_grad=True)
    with minitorch.profiler.profile() as prof, log:
        x.exp().sum().backward()
    names = [e.name for e in prof.events()]
    assert "aten::exp" in names and "aten::sum" in names
    assert log.ops[:2] == ["exp.default", "sum.default"]
    assert x.grad.tolist() == pytest.approx([2.718281828] * 3)


@pytest.mark.parametrize("name,fn", [
    ("to_device", lambda t, x: x.to(t.device("cpu"), non_blocking=False) + 0),
    ("to_dtype", lambda t, x: x.to(t.float64)),
    ("view_varargs", lambda t, x: x.view(3, 2)),
    ("reshape_list", lambda t, x: x.reshape([6])),
    ("index", lambda t, x: x[1, ::2]),
    ("cat", lambda t, x: t.cat([x, x], 1)),
    ("norm_p_none", lambda t, x: x.norm(None, 1)),
    ("norm_p_default", lambda t, x: x.norm(dim=0)),
    ("sum_keepdim", lambda t, x: x.sum(1, keepdim=True)),
    ("std_correction", lambda t, x: x.std(1, correction=0)),
])
def test_arguments_reach_the_mode_as_given(name, fn):
    got = Log()
    x = minitorch.arange(6.0).reshape(2, 3)
    with got:
        out = fn(minitorch, x)
    _close(out, fn(torch, torch.arange(6.0).reshape(2, 3)))
    assert got.ops  # every call was seen and ran


@pytest.mark.parametrize("name,fn", [
    ("rsub", lambda x: 2 - x),
    ("rtruediv", lambda x: 2 / x),
    ("rpow", lambda x: 2 ** x),
    ("rmul", lambda x: 3 * x),
    ("isub", lambda x: x.clone().__isub__(1)),
])
def test_reflected_operators_keep_their_operand_order(name, fn):
    # (torch names some of them apart: rsub, reciprocal then mul)
    got = Log()
    x = minitorch.tensor([0.5, 1.0, 4.0])
    with got:
        out = fn(x)
    _close(out, fn(torch.tensor([0.5, 1.0, 4.0])))
    packet = {"rsub": "sub", "rtruediv": "true_divide", "rpow": "pow", "rmul": "mul",
              "isub": "sub_"}[name]
    assert got.ops[-1].split(".")[0] == packet
