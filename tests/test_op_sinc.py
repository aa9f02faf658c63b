"""sinc against torch: values (zero, large, negative, NaN and infinities),
dtypes and integer promotion, the in-place and out= forms, grad_fn names,
gradients (0 at 0) and gradcheck."""
import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.3, 1e-8, -1e-30, 123.456, 1e20, -1e20,
          float("nan"), float("inf"), -float("inf")]


def both(values, dtype):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def as_numpy(t):
    if isinstance(t, torch.Tensor):
        return (t.float() if t.dtype == torch.bfloat16 else t).detach().numpy()
    return (t.float() if t.dtype == mt.bfloat16 else t).detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_are_torchs(dtype):
    m, t = both(VALUES, dtype)
    got, want = mt.sinc(m), torch.sinc(t)
    assert got.dtype == getattr(mt, dtype)
    # the same float math in the same order: equal bits, NaN where torch's
    np.testing.assert_array_equal(as_numpy(got), as_numpy(want))
    assert as_numpy(got)[0] == 1.0 and as_numpy(got)[1] == 1.0
    assert np.isnan(as_numpy(got)[-3:]).all()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_narrow_floats_compute_in_float(dtype):
    m, t = both([0.0, 0.25, -1.5, 7.0, 100.0], dtype)
    got, want = mt.sinc(m), torch.sinc(t)
    assert got.dtype == getattr(mt, dtype)
    np.testing.assert_array_equal(as_numpy(got), as_numpy(want))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_integers_promote_to_the_default_float(dtype):
    values = [True, False, True] if dtype == "bool" else [0, 1, 2, 3] if dtype == "uint8" \
        else [0, 1, -2, 3]
    m, t = both(values, dtype)
    got, want = mt.sinc(m), torch.sinc(t)
    assert got.dtype == mt.float32 and want.dtype == torch.float32
    np.testing.assert_array_equal(as_numpy(got), as_numpy(want))
    old = mt.get_default_dtype()
    mt.set_default_dtype(mt.float64)
    try:
        assert mt.sinc(m).dtype == mt.float64
    finally:
        mt.set_default_dtype(old)


def test_method_inplace_and_out():
    m, t = both([0.0, 0.5, -1.25, 4.0], "float64")
    np.testing.assert_array_equal(as_numpy(m.sinc()), as_numpy(t.sinc()))
    r = m.clone()
    assert r.sinc_() is r
    np.testing.assert_array_equal(as_numpy(r), as_numpy(t.clone().sinc_()))
    out = mt.empty(4, dtype=mt.float64)
    assert mt.sinc(m, out=out) is out
    np.testing.assert_array_equal(as_numpy(out), as_numpy(torch.sinc(t)))
    # an integer tensor cannot hold its float result in place, as torch says
    with pytest.raises(RuntimeError) as got:
        mt.tensor([1, 2]).sinc_()
    with pytest.raises(RuntimeError) as want:
        torch.tensor([1, 2]).sinc_()
    assert str(got.value) == str(want.value)


def test_grad_fn_and_gradient_are_torchs():
    values = [0.0, 0.3, -1.2, 2.0, 1e-200, -7.5]
    grads = []
    for L in (mt, torch):
        x = L.tensor(values, dtype=L.float64, requires_grad=True)
        y = L.sinc(x)
        assert type(y.grad_fn).__name__ == "SincBackward0"
        y.backward(L.tensor([1.0, 2.0, -1.0, 0.5, 3.0, 1.5], dtype=L.float64))
        grads.append(as_numpy(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14, atol=0)
    assert grads[0][0] == 0.0 and grads[0][4] == 0.0  # 0 where pi x^2 is 0
    # d/dx sin(pi x)/(pi x) at 2 is cos(2 pi) / 2, times the upstream 0.5
    assert grads[0][3] == pytest.approx(0.25, rel=1e-14)


def test_gradcheck_and_gradgradcheck():
    x = mt.tensor(np.random.default_rng(0).standard_normal((3, 4)), dtype=mt.float64,
                  requires_grad=True)
    assert gradcheck(mt.sinc, (x,))
    assert gradgradcheck(mt.sinc, (x,))
