"""Complex reciprocal, rsqrt, sigmoid, log2, log10 and sinc at zeros,
infinities, NaNs and overflowing magnitudes, bit for bit as torch computes
them (its complex division by Smith's method), sinc's gradient, the int32
conversion of NaN, infinities and out-of-range values, and float16 stores
rounding through float32 as torch's."""
import itertools
import math
import warnings

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

PARTS = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-30, 1e19, 1e30, -1e30, 1e300, 1e-300,
         math.inf, -math.inf, math.nan]
GRID = [complex(a, b) for a, b in itertools.product(PARTS, PARTS)]


def same_bits(got, want):
    """NaN parts where torch's are, equal infinities; finite values within a
    few ulps of the element's magnitude."""
    eps = np.finfo(got.real.dtype).eps
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        assert np.array_equal(np.isnan(g), np.isnan(w))
        assert np.array_equal(np.isinf(g), np.isinf(w))
        inf = np.isinf(w)
        assert np.array_equal(g[inf], w[inf])
        fin = np.isfinite(w)
        scale = np.abs(want[fin]).astype(np.float64)
        assert (np.abs(g[fin].astype(np.float64) - w[fin]) <= 4 * eps * scale).all()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["reciprocal", "rsqrt", "sigmoid", "log2", "log10", "sinc"])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_special_values(dtype, name, layout):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(GRID, dtype=getattr(torch, dtype))
        m = mt.tensor(GRID, dtype=getattr(mt, dtype))
        if layout == "strided":
            t, m = t.repeat(2)[::2], m.repeat(2)[::2]
        same_bits(getattr(mt, name)(m).numpy(), getattr(torch, name)(t).numpy())


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_sinc_values(dtype):
    rng = np.random.default_rng(0)
    v = (rng.standard_normal(200) * 3 + 1j * rng.standard_normal(200)).astype(dtype)
    v[:3] = [0, 1, -2j]
    got = mt.sinc(mt.from_numpy(v.copy())).numpy()
    want = torch.sinc(torch.from_numpy(v.copy())).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "complex64" else 1e-12)
    assert mt.special.sinc(mt.from_numpy(v.copy())).dtype == getattr(mt, dtype)


def test_sinc_gradient():
    rng = np.random.default_rng(1)
    v = rng.standard_normal(20) + 1j * rng.standard_normal(20)
    v[0] = 0
    xm = mt.from_numpy(v.copy()).requires_grad_()
    xt = torch.from_numpy(v.copy()).requires_grad_()
    w = np.linspace(-1, 2, 20) + 0.5j
    (mt.sinc(xm) * mt.from_numpy(w)).real.sum().backward()
    (torch.sinc(xt) * torch.from_numpy(w)).real.sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert mt.autograd.gradcheck(mt.sinc, (mt.from_numpy(v[1:6].copy()).requires_grad_(),))


@pytest.mark.parametrize("src", ["float32", "float64", "complex64", "complex128"])
def test_int32_conversion_of_nan_and_out_of_range(src):
    vals = [math.nan, math.inf, -math.inf, 3e9, -3e9, 1e20, 2.7, -2.7, 2147483647.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(vals, dtype=torch.float64).to(getattr(torch, src))
        m = mt.tensor(vals, dtype=mt.float64).to(getattr(mt, src))
        for big in (1, 5000):  # scalar tail and vector body
            assert np.array_equal(m.repeat(big).int().numpy(), t.repeat(big).int().numpy())
        assert np.array_equal(m.to(mt.int64).numpy(), t.to(torch.int64).numpy())


@pytest.mark.parametrize("src", ["float64", "complex128", "int64"])
def test_float16_rounds_through_float32(src):
    rng = np.random.default_rng(3)
    if src == "int64":
        v = rng.integers(-2**40, 2**40, 20000)
    else:
        v = rng.standard_normal(20000) * 5
        v[:3] = [1 + 2**-11 + 2**-40, -(1 + 2**-11 + 2**-40), 65519.99]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.from_numpy(v).to(getattr(torch, src))
        m = mt.from_numpy(v).to(getattr(mt, src))
        want = t.half().numpy()
        assert np.array_equal(m.half().numpy(), want)
        assert np.array_equal(m[::3].half().numpy(), t[::3].half().numpy())
    if src == "float64":
        assert np.array_equal(mt.full((4,), float(v[0]), dtype=mt.float16).numpy(),
                              torch.full((4,), float(v[0]), dtype=torch.float16).numpy())
        # a single rounding would give 1 + 2**-10 here
        assert want[0] == 1.0
