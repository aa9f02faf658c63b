"""autograd.grad(materialize_grads=True): the zeros it gives for unused inputs,
compared with torch."""
import pytest

from side_by_side import same, val

torch = pytest.importorskip("torch")


def test_materialized_zeros_require_grad_only_under_create_graph():
    def scenario(L):
        x = L.tensor(0.5, requires_grad=True)
        a = L.tensor(1.0, requires_grad=True)
        (dydx,) = L.autograd.grad(x * a, x, create_graph=True)
        (d2,) = L.autograd.grad(dydx, x, create_graph=True, allow_unused=True,
                                materialize_grads=True)
        (d3,) = L.autograd.grad(d2, x, materialize_grads=True)
        y = L.ones(3, requires_grad=True)
        z = (y ** 2).sum()
        g = L.autograd.grad(z, (y, x), materialize_grads=True)
        return (val(d2), d2.requires_grad, val(d3), d3.requires_grad,
                [val(t) for t in g], [t.requires_grad for t in g])
    same(torch, scenario)
