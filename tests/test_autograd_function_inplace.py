"""autograd.Function outputs that are inputs, views, or inputs changed in place
(ctx.mark_dirty): their gradients, and torch's refusals and warnings, each
run on minitorch and on torch and compared."""
import warnings

import numpy as np
import pytest

import minitorch as mt


def _torch():
    return pytest.importorskip("torch")


def libs():
    return [mt, _torch()]


def outcome(fn):
    """(value or None, error type and message or None, warning messages)."""
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as e:  # noqa: BLE001
            return None, (type(e).__name__, str(e)), []
    return value, None, [str(w.message).split(" (Triggered internally")[0] for w in ws
                         if "jit" not in str(w.message)]


def same_outcome(run):
    """Runs run(lib) on both libraries; values are lists of numbers."""
    got = [outcome(lambda: run(lib)) for lib in libs()]
    (v0, e0, w0), (v1, e1, w1) = got
    assert e0 == e1
    assert w0 == w1
    assert (v0 is None) == (v1 is None)
    for a, b in zip(v0 or [], v1 or []):
        np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                   rtol=1e-6)
    return got[0]


def add_into(lib):
    """x.add_(y) in place, marked dirty."""
    class AddInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            x.add_(y)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g
    return AddInto


def values(lib, seed=0):
    rng = np.random.default_rng(seed)
    a = lib.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    b = lib.tensor(rng.standard_normal((2, 2)), requires_grad=True)
    return a, b


@pytest.mark.parametrize("views", [1, 2])
def test_dirty_view_keeps_the_gradient_of_the_other_input(views):
    # the dirty view's base takes the change: b's gradient flows through it
    def run(lib):
        a, b = values(lib)
        x = a.clone()
        v = x.narrow(1, 2, 2).narrow(0, 1, 2) if views == 2 else x[1:3, 2:4]
        out = add_into(lib).apply(v, b)
        assert out is v
        (x * x).sum().backward()
        return [a.grad.tolist(), b.grad.tolist(), x.tolist()]

    value, error, _ = same_outcome(run)
    assert error is None
    assert np.abs(np.asarray(value[1])).sum() > 0


def test_dirty_view_gradcheck():
    def func(root, b):
        x = root.clone()
        add_into(mt).apply(x.narrow(1, 2, 2).narrow(0, 1, 2), b)
        add_into(mt).apply(x.narrow(1, 0, 2).narrow(0, 1, 2), b)
        return x

    a, b = values(mt)
    assert mt.autograd.gradcheck(func, (a, b))
    assert mt.autograd.gradgradcheck(func, (a, b))


def test_dirty_view_that_is_not_the_first_input():
    # The base's CopySlices routes the view's own gradient wherever the view
    # sits among the inputs. (torch sends the base the gradient of input 0
    # instead, here None, and loses the base's gradient outside the view; we
    # compare with torch's own in-place mul, whose gradient is right.)
    class Scale(mt.autograd.Function):
        @staticmethod
        def forward(ctx, k, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(k)
            return x.mul_(k)

        @staticmethod
        def backward(ctx, g):
            (k,) = ctx.saved_tensors
            return None, g * k

    torch = _torch()
    a, _ = values(mt)
    x = a.clone()
    Scale.apply(mt.tensor(3.0, dtype=mt.float64), x[0])
    (x * x).sum().backward()
    ta, _ = values(torch)
    tx = ta.clone()
    tx[0].mul_(3.0)
    (tx * tx).sum().backward()
    np.testing.assert_allclose(np.array(a.grad.tolist()), ta.grad.numpy(), rtol=1e-12)


def dirty_case(name, lib):
    F = lib.autograd.Function
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True)

    class NotAnInput(F):
        @staticmethod
        def forward(ctx, x, y):
            c = 3 * x
            c.add_(y)
            ctx.mark_dirty(c)
            return c

        @staticmethod
        def backward(ctx, g):
            return 3 * g, g

    class ViewOfIntermediate(F):
        @staticmethod
        def forward(ctx, x):
            out = x.clone().view_as(x)
            ctx.mark_dirty(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    class TwoOutputs(F):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(y)
            ctx.mark_dirty(x)
            return x, x + y

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2, g1 + g2

    class AddOne(F):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class NotReturned(F):
        @staticmethod
        def forward(ctx, x, y):
            x.add_(y)
            ctx.mark_dirty(x)
            return x.clone(), x + y

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2, g1 + 2 * g2

    cases = {
        "not_an_input": lambda: NotAnInput.apply(a.clone(), b).tolist(),
        "view_of_intermediate": lambda: ViewOfIntermediate.apply(a.clone()),
        "view_two_outputs": lambda: TwoOutputs.apply(a.clone().view_as(a), b),
        "two_outputs": lambda: [t.tolist() for t in TwoOutputs.apply(a.clone(), b)],
        "multi_output_view": lambda: AddOne.apply(a.clone().split_with_sizes([1, 1])[0]),
        "view_of_leaf": lambda: AddOne.apply(a.view_as(a)),
        "leaf": lambda: AddOne.apply(a),
        "not_returned": lambda: NotReturned.apply(a.clone().view_as(a), b),
    }
    return cases[name]()


@pytest.mark.parametrize("name", ["not_an_input", "view_of_intermediate", "view_two_outputs",
                                  "two_outputs", "multi_output_view", "view_of_leaf", "leaf",
                                  "not_returned"])
def test_mark_dirty_misuse_is_diagnosed_as_torch_does(name):
    value, error, warns = same_outcome(lambda lib: dirty_case(name, lib))
    expect_error = name not in ("not_an_input", "two_outputs")
    assert (error is not None) == expect_error
    if name == "not_an_input":
        assert warns == ["ctx.mark_dirty() received a tensor that was not an input. Only input "
                         "Tensors that have been mutated should be passed to ctx.mark_dirty()."]


def view_output_case(name, lib):
    F = lib.autograd.Function

    class ViewAs(F):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    class Same(F):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class LocalInplace(F):
        @staticmethod
        def forward(ctx, x):
            view = x.clone()[:3]
            view += 2
            return view

        @staticmethod
        def backward(ctx, g):
            return g

    other = lib.ones(1, requires_grad=True)
    if name == "view_no_grad_input":
        out = ViewAs.apply(lib.ones(1, 2))
        out += other
    elif name == "view_grad_input":
        out = ViewAs.apply(lib.ones(1, 2, requires_grad=True).clone())
        out += 1
    elif name == "input_as_is":
        out = Same.apply(lib.ones(2, requires_grad=True).clone())
        out += 1
    elif name == "input_as_is_is_a_view":
        x = lib.ones(2, requires_grad=True).clone()
        out = Same.apply(x)
        return [out._is_view(), out._base is x, out.grad_fn.name()]
    elif name == "input_as_is_no_grad":
        with lib.no_grad():
            out = Same.apply(lib.ones(2, requires_grad=True))
        return [out.requires_grad, out._is_view()]
    elif name == "local_inplace":
        out = LocalInplace.apply(lib.ones(10, requires_grad=True))
        return [out.grad_fn.name(), out.tolist()]
    return out.tolist()


@pytest.mark.parametrize("name", ["view_no_grad_input", "view_grad_input", "input_as_is",
                                  "input_as_is_is_a_view", "input_as_is_no_grad",
                                  "local_inplace"])
def test_views_returned_by_a_function(name):
    got = [outcome(lambda: view_output_case(name, lib)) for lib in libs()]
    assert got[0] == got[1]
    value, error, _ = got[0]
    assert (error is None) == name.startswith(("input_as_is_", "local"))
    if error:
        assert "This view was created inside a custom Function" in error[1]


def test_subclass_returned_as_is_keeps_its_class():
    class Sub(mt.Tensor):
        pass

    class Same(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = mt.ones(2).as_subclass(Sub)
    assert type(Same.apply(x)) is Sub


def test_saved_dirty_view_is_freed_with_its_graph():
    import weakref

    class Save(mt.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    def scope():
        x = mt.tensor(1.0, requires_grad=True).clone()
        x = x.view_as(x)
        Save.apply(x)
        return weakref.ref(x)

    assert scope()() is None
