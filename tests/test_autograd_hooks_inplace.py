"""Hooks and retain_grad across in-place changes and on node prehooks: the
hooks a tensor had stay with its old grad_fn, later ones and its retained
grad go with the new one (also for outputs of multi-output nodes and custom
Functions); grad_fn.register_prehook returns a removable handle. Compared
with torch."""
import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def double_mul(lib):
    class DoubleMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3
    return DoubleMul.apply


def two_outputs(lib, kind):
    if kind == "custom":
        return double_mul(lib)
    return lambda b: lib.var_mean(b, dim=0)


def run_both(run):
    got = [run(lib) for lib in libs()]
    assert got[0] == got[1]
    return got[0]


def test_hooks_registered_before_an_inplace_change_see_the_old_gradient():
    def run(lib):
        seen = []
        a = lib.tensor([1.0], requires_grad=True)
        b = a.clone()
        b.register_hook(lambda g: seen.append(("first", g.tolist())) or g * 2)
        b.mul_(2)
        b.register_hook(lambda g: seen.append(("second", g.tolist())) or g * 2)
        b.sum().backward()
        return seen + [a.grad.tolist()]

    assert run_both(run) == [("second", [1.0]), ("first", [4.0]), [8.0]]


@pytest.mark.parametrize("kind", ["custom", "var_mean"])
def test_hooks_of_a_multi_output_node_across_an_inplace_change(kind):
    def run(lib):
        seen = []
        b = lib.ones(3, 3, requires_grad=True)
        out1, out2 = two_outputs(lib, kind)(b)
        out1.register_hook(lambda g: seen.append(("out1_old", g.sum().item())))
        out2.register_hook(lambda g: seen.append(("out2", g.sum().item())))
        out1.mul_(2)
        out1.register_hook(lambda g: seen.append(("out1_new", g.sum().item())))
        (out1 + out2 * 3).sum().backward()
        return sorted(seen)

    assert len(run_both(run)) == 3


@pytest.mark.parametrize("kind", ["custom", "var_mean"])
def test_retained_grad_follows_the_inplace_change(kind):
    def run(lib):
        b = lib.ones(3, 3, requires_grad=True)
        var, mean = two_outputs(lib, kind)(b)
        var.retain_grad()
        mean.retain_grad()
        var.mul_(2)
        (var * 5 + mean).sum().backward()
        return [var.grad.tolist(), mean.grad.tolist()]

    grads = run_both(run)
    assert grads[0] == [5.0] * len(grads[0]) or grads[0] == [[5.0] * 3] * 3


@pytest.mark.parametrize("custom", [True, False])
def test_prehook_handles_remove_hooks(custom):
    def run(lib):
        class Mul2(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        mul2 = Mul2.apply if custom else (lambda x: x * 2)
        calls = []
        a = lib.ones(2, requires_grad=True)
        b = mul2(a)
        handle = b.grad_fn.register_prehook(lambda g: calls.append("removed"))
        b.grad_fn.register_prehook(lambda g: calls.append("kept") or (g[0] * 10,))
        handle.remove()
        handle.remove()
        b.sum().backward()

        # removed while the node's prehooks run: effective from the next backward
        a2 = lib.ones(2, requires_grad=True)
        c = mul2(a2)

        def first(g):
            calls.append("first")
            later.remove()

        c.grad_fn.register_prehook(first)
        later = c.grad_fn.register_prehook(lambda g: calls.append("later"))
        c.sum().backward(retain_graph=True)
        c.sum().backward()
        return calls + [a.grad.tolist(), a2.grad.tolist()]

    assert run_both(run) == ["kept", "first", "later", "first", [20.0, 20.0], [4.0, 4.0]]
