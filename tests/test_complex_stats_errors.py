"""float_power, cov and corrcoef with complex tensors, masked_fill's and
complex()'s refusals in torch's words, and as_strided's gradient when the
result reads storage outside its input."""
import numpy as np
import pytest

import minitorch as mt

from torch_errors import same_error

torch = pytest.importorskip("torch")
from torch_pairs import random_pair  # noqa: E402


def check(got, want, rtol=1e-6):
    assert str(got.dtype)[len("minitorch."):] == str(want.dtype)[len("torch."):]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("base", ["complex64", "complex128", "float32", "int64"])
@pytest.mark.parametrize("exponent", ["complex64", "float32", 2, 0.5 - 1j])
def test_float_power(base, exponent):
    bm, bt = random_pair((3, 4), base) if base != "int64" else (mt.arange(12).reshape(3, 4),
                                                          torch.arange(12).reshape(3, 4))
    if isinstance(exponent, str):
        em, et = random_pair((3, 4), exponent, seed=1)
    else:
        em = et = exponent
    check(mt.float_power(bm, em), torch.float_power(bt, et), rtol=1e-10)
    check(bm.float_power(em), bt.float_power(et), rtol=1e-10)
    want = torch.float_power(bt, et).dtype
    wrong = mt.empty(0, dtype=mt.float64 if want == torch.complex128 else mt.complex128)
    wrong_t = torch.empty(0, dtype=torch.float64 if want == torch.complex128 else torch.complex128)
    same_error(lambda: mt.float_power(bm, em, out=wrong),
               lambda: torch.float_power(bt, et, out=wrong_t))


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float64"])
def test_float_power_inplace(dtype):
    bm, bt = random_pair((5,), dtype)
    for e in (2, 1.5j):
        if torch.float_power(bt, e).dtype != bt.dtype:
            same_error(lambda: bm.clone().float_power_(e), lambda: bt.clone().float_power_(e))
        else:
            check(bm.clone().float_power_(e), bt.clone().float_power_(e), rtol=1e-10)


def test_float_power_gradient():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3,)) + 1j * rng.standard_normal((3,))
    y = rng.standard_normal((3,)) + 0.3j
    xm, ym = (mt.from_numpy(v.copy()).requires_grad_() for v in (x, y))
    xt, yt = (torch.from_numpy(v.copy()).requires_grad_() for v in (x, y))
    mt.float_power(xm, ym).abs().sum().backward()
    torch.float_power(xt, yt).abs().sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(ym.grad.numpy(), yt.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 6), (1, 5), (6,), (4, 2)])
def test_cov_and_corrcoef(dtype, shape):
    m, t = random_pair(shape, dtype)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    check(mt.cov(m), torch.cov(t), rtol)
    check(mt.cov(m, correction=0), torch.cov(t, correction=0), rtol)
    if len(shape) == 2:
        fw = torch.arange(1, shape[1] + 1)
        aw = torch.linspace(0.5, 1.5, shape[1], dtype=torch.float64)
        check(mt.cov(m, fweights=mt.from_numpy(fw.numpy()), aweights=mt.from_numpy(aw.numpy())),
              torch.cov(t, fweights=fw, aweights=aw), rtol)
    check(mt.corrcoef(m), torch.corrcoef(t), rtol)


def test_corrcoef_clips_each_part():
    # perfectly correlated rows: rounding can push a part past 1
    v = np.array([[1 + 1j, 2 + 3j, 3 - 1j, 4 + 0.5j]] * 3)
    v[1] *= 2j
    m, t = mt.from_numpy(v.copy()), torch.from_numpy(v.copy())
    got, want = mt.corrcoef(m), torch.corrcoef(t)
    check(got, want, 1e-12)
    assert np.abs(got.real.numpy()).max() <= 1 and np.abs(got.imag.numpy()).max() <= 1


def test_cov_and_corrcoef_gradients():
    rng = np.random.default_rng(3)
    v = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    for fn in ("cov", "corrcoef"):
        xm = mt.from_numpy(v.copy()).requires_grad_()
        xt = torch.from_numpy(v.copy()).requires_grad_()
        w = np.arange(9).reshape(3, 3) * (0.5 - 1j)
        (getattr(mt, fn)(xm) * mt.from_numpy(w)).real.sum().backward()
        (getattr(torch, fn)(xt) * torch.from_numpy(w)).real.sum().backward()
        np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype,value", [("float32", 1j), ("float64", 2 - 1j),
                                         ("int64", 1j), ("int8", 1000), ("uint8", -300)])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_masked_fill_value_that_does_not_fit(dtype, value, as_tensor):
    m, t = mt.zeros(3, dtype=getattr(mt, dtype)), torch.zeros(3, dtype=getattr(torch, dtype))
    vm, vt = (mt.tensor(value), torch.tensor(value)) if as_tensor else (value, value)
    mask_m, mask_t = mt.tensor([True, False, True]), torch.tensor([True, False, True])
    same_error(lambda: m.masked_fill(mask_m, vm), lambda: t.masked_fill(mask_t, vt))
    same_error(lambda: m.masked_fill_(mask_m, vm), lambda: t.masked_fill_(mask_t, vt))


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
def test_masked_fill_values_that_fit(dtype):
    m, t = random_pair((4,), dtype)
    mask_m, mask_t = mt.tensor([True, False, True, False]), torch.tensor([True, False, True, False])
    for v in (1 + 0j, 2.5, mt.tensor(3 + 0j)):
        vt = torch.tensor(v.item()) if isinstance(v, mt.Tensor) else v
        check(m.masked_fill(mask_m, v), t.masked_fill(mask_t, vt))


@pytest.mark.parametrize("fn", ["complex", "polar"])
@pytest.mark.parametrize("dtype,out", [("float64", "complex64"), ("float32", "complex128"),
                                       ("float32", "float32")])
def test_complex_out_of_another_dtype(fn, dtype, out):
    a, b = random_pair((2, 3), dtype), random_pair((2, 3), dtype, seed=1)
    om, ot = mt.empty(2, 3, dtype=getattr(mt, out)), torch.empty(2, 3, dtype=getattr(torch, out))
    same_error(lambda: getattr(mt, fn)(a[0], b[0], out=om),
               lambda: getattr(torch, fn)(a[1], b[1], out=ot))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("geometry", [((2, 2), (1, 2), 0), ((2, 2), (1, 2), 3), ((3,), (2,), 5),
                                      ((2, 3), (3, 1), 6), ((4,), (1,), 8)])
def test_as_strided_gradient_outside_the_input(dtype, geometry):
    size, stride, offset = geometry
    rng = np.random.default_rng(4)
    v = rng.standard_normal(15)
    if dtype == "complex128":
        v = v + 1j * rng.standard_normal(15)
    bm = mt.from_numpy(v.copy()).requires_grad_()
    bt = torch.from_numpy(v.copy()).requires_grad_()
    xm, xt = bm[5:12:2], bt[5:12:2]
    ym = mt.as_strided(xm, size, stride, offset)
    yt = torch.as_strided(xt, size, stride, offset)
    check(ym, yt)
    w = np.arange(1, 1 + yt.numel()).reshape(size) * (1 - 0.5j if dtype == "complex128" else 1)
    (ym * mt.from_numpy(w)).real.sum().backward()
    (yt * torch.from_numpy(w)).real.sum().backward()
    check(bm.grad, bt.grad, 1e-12)
