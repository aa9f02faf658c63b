"""Smaller pieces of torch's autograd API, compared with torch: Tensor(t) and
Subclass(t) as differentiable aliases, printing a view whose history is
invalid, ctx.saved_variables' deprecation, random *_like ops as
non-differentiable, Function.generate_vmap_rule and Function.vmap."""
import warnings

import pytest

import minitorch as mt


def libs():
    return [mt, pytest.importorskip("torch")]


def test_tensor_of_a_tensor_is_a_differentiable_alias():
    got = []
    for lib in libs():
        class Sub(lib.Tensor):
            pass

        a = lib.ones(3)
        s = Sub(a)
        s.add_(1)
        b = lib.ones(3, requires_grad=True)
        c = b * 2
        t, u = Sub(c), lib.Tensor(b)
        (t * 3).sum().backward()
        got.append([type(s).__name__, s._is_view(), s._base is a, a.tolist(), a._version,
                    t.grad_fn.name(), t._base is c, u.grad_fn.name(), u.requires_grad,
                    b.grad.tolist()])
    assert got[0] == got[1]
    assert got[0][3] == [2.0, 2.0, 2.0] and got[0][-1] == [6.0, 6.0, 6.0]


def test_repr_of_a_view_with_invalid_history():
    got = []
    for lib in libs():
        a = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            b = a[:]
            b *= 2
        got.append(repr(b).replace(lib.__name__, "lib"))
    assert got[0] == got[1] == "tensor([2.], grad_fn=<Invalid>)"


def test_saved_variables_is_deprecated():
    got = []
    for lib in libs():
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_variables
                return g * 2

        x = lib.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            F.apply(x).sum().backward()
        got.append([(w.category.__name__, str(w.message)) for w in ws
                    if "jit" not in str(w.message)] + [x.grad.tolist()])
    assert got[0] == got[1]


def test_random_like_ops_are_not_differentiable():
    got = []
    for lib in libs():
        x = lib.ones(3, requires_grad=True)
        outs = [lib.rand_like(x), lib.randn_like(x), lib.randint_like(x, 5),
                lib.randint_like(x, 1, 5)]
        y = (x * outs[0]).sum()
        y.backward()
        got.append([o.requires_grad for o in outs] + [o.grad_fn for o in outs] +
                   [x.grad.shape == x.shape])
    assert got[0] == got[1] == [False] * 4 + [None] * 4 + [True]


def test_function_vmap_defaults():
    got = []
    for lib in libs():
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

        with pytest.raises(NotImplementedError) as info:
            F.vmap(None, (0,), lib.ones(1))
        got.append([F.generate_vmap_rule, str(info.value)])
    assert got[0] == got[1]


def test_clear_saved_tensors_on_access():
    import weakref
    got = []
    for lib in libs():
        freed = []

        class Once(lib.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.clone()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                ref = weakref.ref(x)
                del x
                freed.append(ref() is None)
                ctx.saved_tensors
                return g

        with pytest.raises(RuntimeError) as info:
            Once.apply(lib.ones(2, requires_grad=True).clone()).sum().backward()
        got.append([freed, str(info.value), Once.clear_saved_tensors_on_access,
                    lib.autograd.Function.clear_saved_tensors_on_access])
    assert got[0] == got[1]
    assert got[0][0] == [True]


def test_single_view_from_unbind_is_a_multi_output_view():
    got = []
    for lib in libs():
        a = lib.rand(1, 2)
        view = a.unbind()[0]
        with pytest.raises(RuntimeError) as info:
            view.copy_(lib.rand(1, requires_grad=True))
        got.append(str(info.value))
    assert got[0] == got[1]
    assert "This view is the output of a function that returns multiple views." in got[0]
