"""In-place ops on views of tensors that require grad: CopySlices rebasing,
regenerated view histories, and torch's refusals, compared with torch."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def _run(lib, fn, a_np, y_np, seed_np):
    a = lib.tensor(a_np, dtype=lib.float64, requires_grad=True)
    y = lib.tensor(y_np, dtype=lib.float64, requires_grad=True)
    out = fn(lib, a, y)
    out.backward(lib.tensor(seed_np.reshape(tuple(out.shape)), dtype=lib.float64))
    grads = [None if t.grad is None else t.grad.numpy() for t in (a, y)]
    return out.detach().numpy(), grads


def _compare(fn, shape=(3, 4), yshape=(4,)):
    rng = np.random.default_rng(0)
    a_np, y_np = rng.standard_normal(shape), rng.standard_normal(yshape)
    expected = fn(torch, torch.ones(shape, dtype=torch.float64), torch.ones(yshape, dtype=torch.float64))
    seed = rng.standard_normal(expected.numel())
    out_t, grads_t = _run(torch, fn, a_np, y_np, seed)
    out_m, grads_m = _run(mt, fn, a_np, y_np, seed)
    np.testing.assert_allclose(out_m, out_t)
    for gm, gt in zip(grads_m, grads_t):
        assert (gm is None) == (gt is None)
        if gt is not None:
            np.testing.assert_allclose(gm, gt, rtol=1e-12, atol=1e-12)


def _select(L, a, y):
    b = a * 1
    b[0].mul_(2)
    return b


def _slice_mul_tensor(L, a, y):
    b = a * 1
    b[1:, 1:3].mul_(y[:2])
    return b * b


def _narrow(L, a, y):
    b = a.sin()
    b.narrow(1, 1, 2).mul_(3)
    return b


def _transpose(L, a, y):
    b = a * 2
    b.t()[0].add_(y[:3])
    return b


def _transpose_dims(L, a, y):
    b = a * 2
    b.transpose(0, 1)[2].sub_(y[1:], alpha=2)
    return b.sum(0)


def _view(L, a, y):
    b = a.sin()
    b.view(12)[2:8].view(2, 3).mul_(y[:3])
    return b


def _diagonal(L, a, y):
    b = a * 1
    b.diagonal().mul_(y[:3])
    return b


def _chain(L, a, y):
    b = a * 1
    v = b[1:]
    w = v[:, 1:]
    w.mul_(y[:3])
    return b


def _two_views(L, a, y):
    b = a * 2
    v, w = b[0], b[1]
    v.mul_(y)
    w.add_(v)
    return b


def _view_result(L, a, y):
    b = a * 1
    v = b[0]
    v.mul_(y)
    return v


def _old_view(L, a, y):
    b = a * 2
    v, w = b[0], b[:, 1]
    v.mul_(y)
    return w * 3


def _base_inplace(L, a, y):
    b = a * 1
    v = b[0]
    b.mul_(2)
    return v * y


def _no_grad_inplace(L, a, y):
    b = a * 1
    v = b[0]
    with L.no_grad():
        v.mul_(2)
    return b + v.sum()


def _setitem(L, a, y):
    x = a * 1
    x[1:] = y
    return x


def _setitem_twice(L, a, y):
    x = a * 1
    x[0, 1:3] = y[:2] * 2
    x[:, 0] = 0.0
    return x


def _setitem_on_view(L, a, y):
    b = a * 1
    v = b[0]
    v[1:] = y[:3]
    return b


def _buffer(L, a, y):
    x = L.zeros(3, 4, dtype=L.float64)
    x[1].copy_(y)
    return x * a


def _buffer_views(L, a, y):
    x = L.zeros(3, 4, dtype=L.float64)
    v = x[0]
    x[2:].copy_(y * 2)
    return v + x.sum()


def _exp_inplace(L, a, y):
    b = a * 1
    b[:, 1:].exp_()
    return b


def _copy_into_view(L, a, y):
    b = a * 3
    b[2].copy_(y)
    b[0].add_(b[2])
    return b


@pytest.mark.parametrize("fn", [
    _select, _slice_mul_tensor, _narrow, _transpose, _transpose_dims, _view, _diagonal, _chain,
    _two_views, _view_result, _old_view, _base_inplace, _no_grad_inplace, _setitem,
    _setitem_twice, _setitem_on_view, _buffer, _buffer_views, _exp_inplace, _copy_into_view,
], ids=lambda f: f.__name__.strip("_"))
def test_gradients_match_torch(fn):
    _compare(fn)


def test_zero_size_view():
    _compare(lambda L, a, y: _zero_size(L, a), shape=(3, 0))


def _zero_size(L, a):
    b = a * 1
    b[1:].mul_(2)
    return b


def _names(lib):
    a = lib.ones(3, 4, requires_grad=True)
    b = a * 1
    v, w = b[0], b[1]
    v.mul_(2)
    names = [type(b.grad_fn).__name__, type(v.grad_fn).__name__, type(w.grad_fn).__name__]
    names.append(type(b.grad_fn.next_functions[0][0]).__name__)
    names.append(type(v.grad_fn.next_functions[0][0]).__name__)
    names.append(v.is_leaf)
    return names


def test_grad_fn_names():
    assert _names(mt) == _names(torch)


def test_base_and_is_view():
    a = mt.ones(3, 4, requires_grad=True)
    b = a * 1
    v = b[0][1:]
    assert v._base is b and v._is_view() and not b._is_view()
    assert b.t()._base is b and b._base is None
    assert not (a * 1).detach()._is_view()
    x = mt.zeros(3)
    assert x[:2]._base is x


def test_view_requires_grad_follows_base():
    x = mt.zeros(3, 4)
    v = x[0]
    x.requires_grad_()
    assert v.requires_grad and v.grad_fn is None
    a = mt.ones(3, requires_grad=True)
    with mt.no_grad():
        w = a[1:]
    assert w.requires_grad and w.grad_fn is None


def _error(lib, case):
    a = lib.ones(3, 4, requires_grad=True)
    y = lib.ones(4, requires_grad=True)
    b = a * 1
    if case == "leaf_view":
        a[0].mul_(2)
    elif case == "leaf_view_chain":
        a[0][1:].mul_(2)
    elif case == "no_grad_view":
        with lib.no_grad():
            v = b[0]
        v.mul_(2)
    elif case == "no_grad_view_buffer":
        x = lib.zeros(3, 4)
        with lib.no_grad():
            v = x[0]
        v.copy_(y)
    elif case == "no_grad_view_indirect":
        with lib.no_grad():
            v = b[0]
        b.mul_(2)
        v.grad_fn
    elif case == "view_of_no_grad_view":
        with lib.no_grad():
            v = b[0]
        v[1:].mul_(2)
    elif case == "unbind":
        b.unbind(0)[1].mul_(2)
    elif case == "split":
        b.split(2)[0].mul_(2)
    elif case == "split_sizes":
        b.split([1, 2])[0].add_(1)
    elif case == "chunk":
        b.chunk(2, 1)[1].mul_(2)
    elif case == "unbind_indirect":
        u = b.unbind(0)
        b.mul_(2)
        u[0] * 2
    elif case == "unbind_view":
        b.unbind(0)[0][1:].mul_(2)
    elif case == "unbind_no_grad":
        with lib.no_grad():
            u = b.unbind(0)
        u[0].mul_(2)
    elif case == "unbind_buffer":
        lib.zeros(3, 4).unbind(0)[0].copy_(y)
    elif case == "unbind_no_grad_buffer":
        x = lib.zeros(3, 4)
        with lib.no_grad():
            u = x.unbind(0)
        u[0].copy_(y)


ERROR_CASES = ["leaf_view", "leaf_view_chain", "no_grad_view", "no_grad_view_buffer",
               "no_grad_view_indirect", "view_of_no_grad_view", "unbind", "split", "split_sizes",
               "chunk", "unbind_indirect", "unbind_view", "unbind_no_grad", "unbind_buffer",
               "unbind_no_grad_buffer"]


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_torch(case):
    with pytest.raises(RuntimeError) as expected:
        _error(torch, case)
    with pytest.raises(RuntimeError) as got:
        _error(mt, case)
    assert str(got.value) == str(expected.value)


def _allowed(lib):
    x = lib.zeros(3, 4)
    y = lib.ones(4, requires_grad=True)
    x[0].copy_(y)  # a view of a tensor that needs no grad
    b = lib.ones(3, 4, requires_grad=True) * 1
    with lib.no_grad():
        v = b[0]
        v.mul_(2)  # both inside no_grad
    d = b.detach()
    d[0].mul_(2)  # detach() is not a view for autograd
    return type(x.grad_fn).__name__


def test_allowed_cases_match_torch():
    assert _allowed(mt) == _allowed(torch)


def _double(lib, a_np, y_np):
    a = lib.tensor(a_np, dtype=lib.float64, requires_grad=True)
    y = lib.tensor(y_np, dtype=lib.float64, requires_grad=True)
    b = a * a
    b[1:, :2].mul_(y[:2] * a[0, :2])
    v = b[0]
    b.t()[3].exp_()
    out = (v * b[2]).sum() + (b ** 2).sum()
    ga, gy = lib.autograd.grad(out, (a, y), create_graph=True)
    s = (ga * ga.detach()).sum() + (gy ** 2).sum()
    gga, ggy = lib.autograd.grad(s, (a, y))
    return [t.detach().numpy() for t in (ga, gy, gga, ggy)]


def test_double_backward_matches_torch():
    rng = np.random.default_rng(1)
    a_np, y_np = rng.standard_normal((3, 4)) * 0.5, rng.standard_normal(4)
    for got, exp in zip(_double(mt, a_np, y_np), _double(torch, a_np, y_np)):
        np.testing.assert_allclose(got, exp, rtol=1e-10, atol=1e-12)


def test_retain_graph_and_second_backward():
    a = mt.ones(2, 3, requires_grad=True)
    b = a * 2
    b[0].mul_(mt.full((3,), 3.0))
    b.sum().backward(retain_graph=True)
    b.sum().backward()
    first = a.grad.numpy().copy()
    at = torch.ones(2, 3, dtype=torch.float32, requires_grad=True)
    bt = at * 2
    bt[0].mul_(torch.full((3,), 3.0))
    bt.sum().backward(retain_graph=True)
    bt.sum().backward()
    np.testing.assert_allclose(first, at.grad.numpy(), rtol=1e-6)
    b = a * 2
    b[0].exp_()
    b.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        b.sum().backward()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_dtypes(dtype):
    a = mt.ones(2, 3, dtype=getattr(mt, dtype), requires_grad=True)
    b = a * 2
    b[:, 1].mul_(3)
    b.sum().backward()
    assert a.grad.dtype == a.dtype
    np.testing.assert_allclose(a.grad.float().numpy(), [[2, 6, 2], [2, 6, 2]])


def test_non_contiguous_base():
    _compare(lambda L, a, y: _nc(L, a, y), shape=(4, 3))


def _nc(L, a, y):
    b = a.t() * 1  # may keep the transposed layout
    b[1:, 1].mul_(y[:2])
    b.t()[0].add_(1)
    return b
