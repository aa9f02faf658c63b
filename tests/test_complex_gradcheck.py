"""gradcheck and gradgradcheck with complex inputs and outputs, slow and fast
mode, backward and forward AD, against torch's verdicts and messages: a
complex input's Jacobian holds conjugate Wirtinger derivatives, a complex
output is checked by its imaginary and real parts, and a custom Function with
a wrong gradient (unconjugated, or off by a factor) is caught."""
import sys
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def error_of(lib):
    """The library's GradcheckError (its gradcheck module is shadowed by the function)."""
    return sys.modules[lib.__name__ + ".autograd.gradcheck"].GradcheckError


def inputs(lib, shapes, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for shape, is_complex in shapes:
        v = rng.standard_normal(shape)
        if is_complex:
            v = v + 1j * rng.standard_normal(shape)
        out.append(lib.from_numpy(v).requires_grad_())
    return tuple(out)


C, R = True, False
PASSING = {
    "exp": (lambda lib, z: z.exp(), [((3,), C)]),
    "mul": (lambda lib, a, b: a * b, [((2, 3), C), ((2, 3), C)]),
    "abs_real_output": (lambda lib, z: z.abs(), [((4,), C)]),
    "angle": (lambda lib, z: z.angle(), [((4,), C)]),
    "real_imag": (lambda lib, z: (z.real * z.imag).sum(), [((4,), C)]),
    "conj": (lambda lib, z: z.conj() * z, [((3,), C)]),
    "mm": (lambda lib, a, b: lib.mm(a, b), [((2, 3), C), ((3, 2), C)]),
    "mixed_real_complex": (lambda lib, z, x: z * x, [((3,), C), ((3,), R)]),
    "real_to_complex": (lambda lib, x, y: lib.complex(x, y).exp(), [((3,), R), ((3,), R)]),
    "two_outputs": (lambda lib, z: (z.sin(), z.abs()), [((3,), C)]),
    "view_as_real": (lambda lib, z: lib.view_as_real(z) ** 2, [((2,), C)]),
}


def verdict(lib, fn, shapes, **kw):
    args = inputs(lib, shapes)
    try:
        return lib.autograd.gradcheck(lambda *a: fn(lib, *a), args, **kw), ""
    except error_of(lib) as e:
        return False, str(e)


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name", sorted(PASSING))
def test_correct_gradients_pass(name, fast_mode):
    fn, shapes = PASSING[name]
    assert verdict(mt, fn, shapes, fast_mode=fast_mode) == (True, "")
    assert verdict(torch, fn, shapes, fast_mode=fast_mode) == (True, "")


@pytest.mark.parametrize("name", sorted(PASSING))
def test_forward_ad_check_passes(name):
    fn, shapes = PASSING[name]
    kw = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False)
    assert verdict(mt, fn, shapes, **kw) == (True, "")
    assert verdict(torch, fn, shapes, **kw) == (True, "")


@pytest.mark.parametrize("name", ["exp", "mul", "abs_real_output", "mm", "mixed_real_complex"])
def test_gradgradcheck_passes(name):
    fn, shapes = PASSING[name]
    for lib in (mt, torch):
        assert lib.autograd.gradgradcheck(lambda *a: fn(lib, *a), inputs(lib, shapes))


def wrong_functions(lib):
    """Custom Functions whose backward breaks torch's convention."""
    class Unconjugated(lib.autograd.Function):
        # z ** 2 with grad * 2z in place of grad * conj(2z)
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    class Doubled(lib.autograd.Function):
        # z.abs() with twice its gradient
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z.abs()

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return 2 * g * z / z.abs()

    class ImagDropped(lib.autograd.Function):
        # exp(z) whose gradient loses its imaginary part
        @staticmethod
        def forward(ctx, z):
            y = z.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return lib.complex((g * y.conj()).real, lib.zeros_like(y.real))

    return {"unconjugated": Unconjugated, "doubled": Doubled, "imag_dropped": ImagDropped}


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name", ["unconjugated", "doubled", "imag_dropped"])
def test_wrong_gradient_is_caught(name, fast_mode):
    results = {}
    for lib in (mt, torch):
        f = wrong_functions(lib)[name]
        args = inputs(lib, [((3,), C)], seed=1)
        assert lib.autograd.gradcheck(f.apply, args, fast_mode=fast_mode,
                                      raise_exception=False) is False
        with pytest.raises(error_of(lib)) as e:
            lib.autograd.gradcheck(f.apply, args, fast_mode=fast_mode)
        results[lib] = str(e.value)
    # the same part of the same output and input is blamed, in the same words
    first_line = [m.splitlines()[0] for m in results.values()]
    assert first_line[0] == first_line[1]
    if name != "doubled":
        assert first_line[0].startswith("While considering the imaginary part of complex "
                                        "outputs only, Jacobian mismatch for output 0 with "
                                        "respect to input 0")


def test_wrong_gradient_of_real_output_is_caught_with_complex_jacobian():
    for lib in (mt, torch):
        f = wrong_functions(lib)["doubled"]
        with pytest.raises(error_of(lib),
                           match="^Jacobian mismatch for output 0 with respect to input 0"):
            lib.autograd.gradcheck(f.apply, inputs(lib, [((2,), C)]))


def test_wrong_forward_gradient_is_caught():
    results = {}
    for lib in (mt, torch):
        class WrongJvp(lib.autograd.Function):
            @staticmethod
            def forward(z):
                return z * z

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])
                ctx.save_for_forward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                (z,) = ctx.saved_tensors
                return g * 2 * z.conj()

            @staticmethod
            def jvp(ctx, t):
                (z,) = ctx.saved_tensors
                return t * 2 * z.conj()

        args = inputs(lib, [((3,), C)], seed=2)
        assert lib.autograd.gradcheck(WrongJvp.apply, args)
        with pytest.raises(error_of(lib)) as e:
            lib.autograd.gradcheck(WrongJvp.apply, args, check_forward_ad=True,
                                   check_backward_ad=False, check_undefined_grad=False)
        results[lib] = str(e.value).splitlines()[0]
    assert results[mt] == results[torch]
    assert results[mt].startswith("While considering the imaginary part of complex inputs only, "
                                  "Jacobian computed with forward mode mismatch")


def test_complex64_input_warns_as_torch():
    for lib in (mt, torch):
        z = lib.zeros(2, dtype=lib.complex64, requires_grad=True)
        with pytest.warns(UserWarning, match="is not a double precision floating point or"):
            lib.autograd.gradcheck(lambda z: z * 2, (z,), raise_exception=False)
        z = lib.zeros(2, dtype=lib.complex128, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert lib.autograd.gradcheck(lambda z: z * 2, (z,))
