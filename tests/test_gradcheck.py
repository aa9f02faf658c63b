"""gradcheck / gradgradcheck and minitorch.func (vjp, grad), against torch."""
import inspect

import numpy as np
import pytest
from custom_functions import Cube

import minitorch as mt
from minitorch.autograd import Function, gradcheck, gradgradcheck
from minitorch.autograd.function import once_differentiable
from minitorch.autograd.gradcheck import GradcheckError
from minitorch.func import grad, vjp


class WrongGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 3


class CubeWrongSecond(Function):
    """Right first derivative, wrong second: backward treats x as a constant."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (3 * x * x).detach()


def test_signatures_match_torch():
    torch = pytest.importorskip("torch")
    for ours, theirs in ((gradcheck, torch.autograd.gradcheck),
                         (gradgradcheck, torch.autograd.gradgradcheck)):
        a, b = inspect.signature(ours), inspect.signature(theirs)
        assert list(a.parameters) == list(b.parameters)
        for name, p in b.parameters.items():
            assert a.parameters[name].default == p.default, name
            assert a.parameters[name].kind == p.kind, name


def test_passes_on_correct_gradients_and_builtin_ops():
    x = mt.randn(3, 4, dtype=mt.double, requires_grad=True)
    w = mt.randn(4, 2, dtype=mt.double, requires_grad=True)
    assert gradcheck(lambda a, b: a.mm(b), (x, w)) is True
    assert gradcheck(Cube.apply, (x,)) is True
    assert gradcheck(Cube.apply, x, fast_mode=True) is True
    assert gradgradcheck(Cube.apply, (x,)) is True
    assert gradgradcheck(Cube.apply, (x,), fast_mode=True) is True


def test_non_contiguous_inputs_and_non_tensor_args():
    x = mt.randn(4, 3, dtype=mt.double).t().requires_grad_()
    assert gradcheck(lambda a, k: a * k, (x, 2.0))
    assert x.is_contiguous() is False


def test_mismatch_message_matches_torch():
    torch = pytest.importorskip("torch")

    class TWrong(torch.autograd.Function):
        forward = staticmethod(lambda ctx, x: x * 2)
        backward = staticmethod(lambda ctx, g: g * 3)

    xs = [0.5, -1.0]
    with pytest.raises(GradcheckError) as ours:
        gradcheck(WrongGrad.apply, (mt.tensor(xs, dtype=mt.double, requires_grad=True),))
    import sys
    with pytest.raises(sys.modules["torch.autograd.gradcheck"].GradcheckError) as theirs:
        torch.autograd.gradcheck(TWrong.apply,
                                 (torch.tensor(xs, dtype=torch.double, requires_grad=True),))
    assert isinstance(ours.value, RuntimeError)
    assert str(ours.value).replace("minitorch.", "torch.") == str(theirs.value)
    assert str(ours.value).startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                                      "numerical:")


def test_raise_exception_false_and_fast_mode_failure():
    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    assert gradcheck(WrongGrad.apply, (x,), raise_exception=False) is False
    with pytest.raises(GradcheckError, match="computed \nin fast mode"):
        gradcheck(WrongGrad.apply, (x,), fast_mode=True)


def test_gradgradcheck_catches_wrong_second_derivative():
    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    assert gradcheck(CubeWrongSecond.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                             "input 0"):
        gradgradcheck(CubeWrongSecond.apply, (x,))


def test_input_checks_and_warning():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda a: a * 2, (mt.randn(2, dtype=mt.double),))
    x = mt.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
        gradcheck(lambda a: a * 2, (x,), atol=1e-2, rtol=1e-2, eps=1e-3)
    with pytest.raises(AssertionError, match="check_batched_forward_grad=True requires "
                                             "check_forward_ad to be True"):
        gradcheck(lambda a: a * 2, (x.double(),), check_batched_forward_grad=True)


def test_no_differentiable_outputs_and_undefined_grads():
    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    assert gradcheck(lambda a: (a > 0).long(), (x,))

    class Lazy(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return None if g is None else g * 2

    assert gradcheck(Lazy.apply, (x,))


def test_undefined_grad_check_with_an_input_returned_as_is_among_several_outputs():
    # backward is asked once with every output grad undefined, then once per
    # output on a fresh graph: the graph saved tensors are never reused
    class Pass(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a

        @staticmethod
        @once_differentiable
        def backward(ctx, g_prod, g_a):
            a, b = ctx.saved_tensors
            return g_prod * b + g_a, g_prod * a

    calls = []

    def func(a, b):
        calls.append(1)
        return Pass.apply(a, b)

    x = mt.randn(3, dtype=mt.double, requires_grad=True)
    y = mt.randn(3, dtype=mt.double, requires_grad=True)
    calls.clear()
    assert gradcheck(func, (x, y), check_batched_grad=False)
    calls_with = len(calls)
    calls.clear()
    gradcheck(func, (x, y), check_batched_grad=False, check_undefined_grad=False)
    assert calls_with - len(calls) == 3


def test_undefined_grad_failure_warns_and_names_the_notes():
    class NeedsGrad(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.set_materialize_grads(False)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            if g is None:
                raise RuntimeError("an undefined grad")
            return g * 2

    x = mt.randn(2, dtype=mt.double, requires_grad=True)
    with pytest.warns(UserWarning, match="Backwards compatibility: New undefined gradient"):
        with pytest.raises(GradcheckError, match="Expected backward function to handle "
                                                 "undefined output grads"):
            gradcheck(NeedsGrad.apply, (x,), check_batched_grad=False)


def test_nondeterministic_backward_is_reported():
    calls = []

    class Flaky(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g * (2 + 1e-3 * len(calls))

    x = mt.randn(2, dtype=mt.double, requires_grad=True)
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Flaky.apply, (x,), atol=1e-1)
    assert gradcheck(Flaky.apply, (x,), atol=1e-1, nondet_tol=1.0, check_undefined_grad=False)


def test_gradcheck_evaluates_as_torch_on_the_notes_linear_sizes():
    # central differences: two evaluations per input element, plus the
    # analytical pass's forward and one more, as torch's gradcheck (2002 here)
    x = mt.randn(20, 20, dtype=mt.double, requires_grad=True)
    w = mt.randn(30, 20, dtype=mt.double, requires_grad=True)
    calls = []

    def linear(a, b):
        calls.append(1)
        return a.mm(b.t())

    assert gradcheck(linear, (x, w), eps=1e-6, atol=1e-4)
    assert len(calls) == 2 * (x.numel() + w.numel()) + 2


# ------------------------------------------------------------ minitorch.func

def test_func_grad_matches_torch():
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(1).standard_normal(4)

    def f(lib):
        return lambda x, y: (x * x * y).sum()

    ours = grad(f(mt), argnums=(0, 1))(mt.tensor(data), mt.tensor(data))
    theirs = torch.func.grad(f(torch), argnums=(0, 1))(torch.tensor(data), torch.tensor(data))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    second = grad(lambda x: grad(lambda y: (y * y * y).sum())(x).sum())(mt.tensor([2.0]))
    assert second.tolist() == [12.0]
    g, aux = grad(lambda x: ((x * 2).sum(), {"n": 1}), has_aux=True)(mt.ones(2))
    assert g.tolist() == [2.0, 2.0] and aux == {"n": 1}
    d = grad(lambda p: (p["a"] * p["b"]).sum())({"a": mt.ones(2), "b": mt.ones(2) * 3})
    assert d["a"].tolist() == [3.0, 3.0] and d["b"].tolist() == [1.0, 1.0]


def test_func_grad_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (lambda lib: lib.func.grad(lambda x: x * 2), lambda lib: (lib.ones(2),)),
        (lambda lib: lib.func.grad(lambda x: x.sum(), argnums=2), lambda lib: (lib.ones(2),)),
        (lambda lib: lib.func.grad(lambda x: x.sum(), argnums=(0, 0)), lambda lib: (lib.ones(2),)),
        (lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True), lambda lib: (lib.ones(2),)),
        (lambda lib: lib.func.grad(lambda x: 3), lambda lib: (lib.ones(2),)),
        (lambda lib: lib.func.grad(lambda x: x.sum()), lambda lib: (3.0,)),
    ]
    for make, args in cases:
        errs = []
        for lib in (mt, torch):
            with pytest.raises(Exception) as ei:
                make(lib)(*args(lib))
            errs.append((type(ei.value), str(ei.value)))
        assert errs[0][0] is errs[1][0] and errs[0][1] == errs[1][1]


def test_func_vjp():
    x = mt.tensor([1.0, 2.0, 3.0])
    out, fn = vjp(lambda a, b: (a * b, a + b), x, x)
    assert out[0].tolist() == [1.0, 4.0, 9.0] and not out[0].requires_grad
    ga, gb = fn((mt.ones(3), mt.ones(3)))
    assert ga.tolist() == [2.0, 3.0, 4.0] and gb.tolist() == [2.0, 3.0, 4.0]
    with pytest.raises(RuntimeError, match="cotangents: \\*, primal output: \\(\\*, \\*\\)"):
        fn(mt.ones(3))
    out, fn, aux = vjp(lambda a: (a * 2, a.sum()), x, has_aux=True)
    assert fn(mt.ones(3))[0].tolist() == [2.0] * 3 and aux.item() == 6.0
    with pytest.raises(RuntimeError, match="expected f\\(\\*primals\\) to return only tensors"):
        vjp(lambda a: 3, x)
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor"):
        vjp(lambda a: a, 3)
