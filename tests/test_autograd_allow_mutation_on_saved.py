"""autograd.graph.allow_mutation_on_saved_tensors: a tensor saved for
backward (or one sharing its memory) changed in place inside the block is
cloned first, so backward reads the saved value; compared with torch."""
import pytest

from side_by_side import errmsg, same, val

torch = pytest.importorskip("torch")


def _counts(ctx):
    return len(list(ctx.cloned.items())), len(list(ctx.tid_to_weakhandle.items()))


# how the saved tensor is changed: in-place method, operator, a view, setitem
MUTATIONS = {
    "method": lambda L, b: b.sin_(),
    "operator": lambda L, b: b.__imul__(3),
    "view_of_saved": lambda L, b: b[:1].mul_(10),
    "base_of_view": lambda L, b: b.add_(1),
    "setitem": lambda L, b: b.__setitem__(0, 5.0),
}


@pytest.mark.parametrize("how", MUTATIONS)
@pytest.mark.parametrize("save", ["whole", "view"])
def test_backward_reads_the_saved_value(how, save):
    def scenario(L):
        a = (L.arange(6.0).reshape(2, 3) / 5).requires_grad_()
        plain = a.clone()
        s = plain if save == "whole" else plain[:]
        out = (s ** 2).sum()
        MUTATIONS[how](L, plain)
        refused = errmsg(out.backward)
        with L.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            b = a.clone()
            s = b if save == "whole" else b[:]
            out = (s ** 2).sum()
            MUTATIONS[how](L, b)
            cloned = _counts(ctx)[0]
            out.backward()
        return refused is not None, cloned, val(a.grad), _counts(ctx)
    same(torch, scenario)


def test_clones_once_per_saved_version_and_drops_with_the_graph():
    def scenario(L):
        seen = []
        with L.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = L.randn(2, 3, requires_grad=True).clone()
            b = a ** 2
            c = a ** 2
            seen.append(_counts(ctx))
            a.sin_()
            seen.append(_counts(ctx))
            d = a ** 2
            a.sin_()
            seen.append(_counts(ctx))
            del b, c
            seen.append(_counts(ctx))
            del d
            seen.append(_counts(ctx))
            out = (a ** 2).sum()
            out.backward()
            a.sin_()
            seen.append(_counts(ctx))
        return seen
    same(torch, scenario)


def test_out_argument_is_a_change():
    def scenario(L):
        with L.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = L.tensor([1.0, 2.0], requires_grad=True)
            b = L.tensor([3.0, 4.0])
            out = (a * b).sum()
            seen = [_counts(ctx)[0]]
            L.sin(L.tensor([0.5, 1.0]), out=b)
            seen.append(_counts(ctx)[0])
            out.backward()
            seen.append(_counts(ctx)[0])
        return seen, val(a.grad), val(b)
    same(torch, scenario)


def test_double_backward():
    def scenario(L):
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            a = L.arange(1.0, 4.0, requires_grad=True)
            b = a.clone()
            out = (b ** 3).sum()
            b.sin_()
            (da,) = L.autograd.grad(out, a, create_graph=True)
            (d2a,) = L.autograd.grad(da.sum(), a)
        return val(da), val(d2a)
    same(torch, scenario)


def test_errors():
    def scenario(L):
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            a = L.rand(2, 3, requires_grad=True)
            out = (a ** 2).sum()
        outside = errmsg(out.backward)
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            a = L.rand(2, 3, requires_grad=True)
            out = (a ** 2).sum()
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            other = errmsg(out.backward)
        with L.autograd.graph.allow_mutation_on_saved_tensors():
            def nest():
                with L.autograd.graph.allow_mutation_on_saved_tensors():
                    pass
            nested = errmsg(nest)
        return outside, other, nested
    same(torch, scenario)


def test_calls_that_change_no_elements_clone_nothing():
    def scenario(L):
        with L.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
            a = L.arange(1.0, 4.0, requires_grad=True)
            out = (a * a).sum()
            a.requires_grad_()
            a.share_memory_()
            before = _counts(ctx)[0]
            a.detach_()
            after = _counts(ctx)[0]
            out.backward()
        return before, after
    same(torch, scenario)
