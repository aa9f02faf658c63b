"""torch._test_autograd_multiple_dispatch_view and its _copy: values, view
or not, gradients (the incoming one reshaped as the input), out= and the
view's refusal of a layout it cannot flatten; compared with torch."""
import pytest

from side_by_side import both, errmsg, same, val

torch = pytest.importorskip("torch")

SHAPES = [(2, 2), (3,), (2, 3, 4), (), (0, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["_test_autograd_multiple_dispatch_view",
                                  "_test_autograd_multiple_dispatch_view_copy"])
def test_values_views_and_grads(shape, dtype, name):
    def scenario(L):
        n = 1
        for s in shape:
            n *= s
        t = (L.arange(float(n), dtype=getattr(L, dtype)) / 3).reshape(shape).requires_grad_()
        y = getattr(L, name)(t)
        w = L.arange(float(y.numel()), dtype=y.dtype) - 1
        (y * w).sum().backward()
        shares = y.numel() > 0 and y.data_ptr() == t.data_ptr()
        return val(y), y._is_view(), shares, val(t.grad)
    same(torch, scenario)


def test_copy_is_independent_and_takes_out():
    def scenario(L):
        t = L.arange(6.0).reshape(2, 3)
        c = L._test_autograd_multiple_dispatch_view_copy(t)
        c.add_(1)
        out = L.empty(6)
        r = L._test_autograd_multiple_dispatch_view_copy(t, out=out)
        return val(t), val(c), r is out, val(out)
    same(torch, scenario)


def test_view_refuses_a_layout_it_cannot_flatten():
    ref, got = both(torch, lambda L: errmsg(
        lambda: L._test_autograd_multiple_dispatch_view(L.ones(2, 3).t())))
    assert ref is not None and got == ref


def test_view_shares_writes_with_input():
    def scenario(L):
        t = L.zeros(2, 2)
        L._test_autograd_multiple_dispatch_view(t)[3] = 5.0
        return val(t)
    same(torch, scenario)
