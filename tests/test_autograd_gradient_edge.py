"""autograd.graph.GradientEdge and get_gradient_edge, and autograd.grad taking
edges in place of tensors, compared with torch."""
import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")


def test_edge_of_non_leaf_and_leaf():
    def scenario(L):
        x = L.rand(2, requires_grad=True)
        y = x.clone()
        ex, ey = L.autograd.graph.get_gradient_edge(x), L.autograd.graph.get_gradient_edge(y)
        return (type(ex.node).__name__, ex.output_nr, ey.node.name(), ey.output_nr,
                ey.node is y.grad_fn, L.autograd.graph.GradientEdge._fields,
                errmsg(lambda: L.autograd.graph.get_gradient_edge(L.rand(2))))
    same(torch, scenario)


def test_edge_of_later_output():
    def scenario(L):
        x = L.arange(6.0).reshape(2, 3).requires_grad_()
        parts = x.unbind()
        edge = L.autograd.graph.get_gradient_edge(parts[1])
        out = (parts[1] * 3).sum() + parts[0].sum()
        (g,) = L.autograd.grad(out, edge)
        return edge.output_nr, val(g)
    same(torch, scenario)


def test_grad_to_an_edge_kept_across_an_in_place_change():
    def scenario(L):
        x = L.arange(3.0, requires_grad=True).clone()
        edge = L.autograd.graph.get_gradient_edge(x)
        x *= 2
        x.exp_()
        g_old, g_new = L.autograd.grad(x.sum(), (edge, x))
        return val(g_old), val(g_new)
    same(torch, scenario)


def test_grad_to_edges_mixed_with_tensors():
    def scenario(L):
        a = L.arange(1.0, 4.0, requires_grad=True)
        b = L.arange(2.0, 5.0, requires_grad=True).clone()
        out = (a * b).sum()
        edges = (L.autograd.graph.GradientEdge(b.grad_fn, b.output_nr),
                 L.autograd.graph.get_gradient_edge(a))
        ga, gb, ga2 = L.autograd.grad(out, (a, *edges), retain_graph=True)
        lone = L.autograd.graph.get_gradient_edge(L.ones(3, requires_grad=True))
        (unused,) = L.autograd.grad(out, (lone,), retain_graph=True, allow_unused=True)
        refused = errmsg(lambda: L.autograd.grad(out, (lone,), materialize_grads=True))
        return val(ga), val(gb), val(ga2), unused, refused, a.grad is None
    same(torch, scenario)
