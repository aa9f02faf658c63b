"""minitorch.fft against torch.fft where the kernel takes its other roads:
long lengths (the four-step transform, from 65536 points) alone, batched,
along an inner dim and inside the half-length real transform; transforms
along inner dims gathered a block of columns at a time (block tails, sizes
that are and are not powers of two); the first pass reading a contiguous
input directly (which must leave it unchanged) and non-contiguous or
conjugated inputs, which it copies."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def agree(got, want):
    g, w = got.numpy(), want.resolve_conj().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    single = g.dtype in (np.float32, np.complex64)
    # an error that grows as log n: float32 rows are computed in double, so
    # they sit within float32 rounding of torch's (computed in float)
    rtol, atol = (2e-5, 2e-5) if single else (1e-10, 1e-10)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale)


def both(fn, x, **kw):
    return getattr(mt.fft, fn)(mt.tensor(x), **kw), getattr(torch.fft, fn)(torch.tensor(x), **kw)


# 65536 = 256 * 256, 2^17 = 256 * 512, 100000 = 2^5 5^5 (radix 2, 4 and 5
# factors in both halves), 3 * 2^16 (radix 3)
LONG = [65536, 1 << 17, 100000, 3 << 16]


@pytest.mark.parametrize("n", LONG)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", ["fft", "ifft"])
def test_four_step_lengths(fn, dtype, n):
    agree(*both(fn, data((n,), dtype)))


@pytest.mark.parametrize("norm", ["backward", "forward", "ortho"])
@pytest.mark.parametrize("fn", ["fft", "ifft"])
def test_four_step_norms_and_batch(fn, norm):
    agree(*both(fn, data((2, 65536), "complex64"), norm=norm))


def test_four_step_along_an_inner_dim():
    # three rows side by side: gathered into a block, each row transformed alone
    agree(*both("fft", data((65536, 3), "complex128"), dim=0))
    agree(*both("ifft", data((65536, 3), "complex64"), dim=0, norm="ortho"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_four_step_inside_the_real_transform(dtype):
    # rfft of 2^18 points transforms 2^17 complex ones by four steps
    agree(*both("rfft", data((1 << 18,), dtype)))
    agree(*both("irfft", data(((1 << 17) + 1,), "complex128"), n=1 << 18))


@pytest.mark.parametrize("shape,dim", [((512, 512), 0), ((33, 1000), 0), ((1000, 17), 0),
                                       ((64, 48, 5), 1), ((7, 31, 9), 0), ((96, 3, 40), 0)])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_columns_in_blocks(shape, dim, dtype):
    agree(*both("fft", data(shape, dtype), dim=dim))
    agree(*both("ifft", data(shape, dtype, seed=1), dim=dim, norm="forward"))


@pytest.mark.parametrize("shape", [(512, 512), (48, 80), (17, 64), (3, 100, 60)])
@pytest.mark.parametrize("fn", ["fft2", "ifft2", "fftn"])
def test_two_and_n_dims(fn, shape):
    agree(*both(fn, data(shape, "complex64")))
    agree(*both(fn, data(shape, "complex128", seed=2), norm="ortho"))


@pytest.mark.parametrize("n", [1024, 4099, 65536])
@pytest.mark.parametrize("fn", ["fft", "fft2"])
def test_contiguous_input_is_left_unchanged(fn, n):
    shape = (n,) if fn == "fft" else (2, n)
    x = mt.tensor(data(shape, "complex64"))
    before = x.numpy().copy()
    y = getattr(mt.fft, fn)(x)
    np.testing.assert_array_equal(x.numpy(), before)
    # and the result is memory of its own
    y.zero_()
    np.testing.assert_array_equal(x.numpy(), before)


@pytest.mark.parametrize("n", [1024, 65536])
def test_non_contiguous_and_offset_inputs(n):
    x = data((2, n), "complex64")
    xm, xt = mt.tensor(x), torch.tensor(x)
    agree(mt.fft.fft(xm[1]), torch.fft.fft(xt[1]))
    agree(mt.fft.fft(xm[:, ::2]), torch.fft.fft(xt[:, ::2]))
    agree(mt.fft.fft(xm.mT, dim=0), torch.fft.fft(xt.mT, dim=0))


@pytest.mark.parametrize("n", [1024, 65536])
def test_conjugated_input(n):
    x = data((n,), "complex64")
    xm, xt = mt.tensor(x), torch.tensor(x)
    agree(mt.fft.fft(xm.conj()), torch.fft.fft(xt.conj()))
    agree(mt.fft.fft2(xm.reshape(8, -1).conj()), torch.fft.fft2(xt.reshape(8, -1).conj()))


def test_out_of_place_result_keeps_gradient():
    x = data((4, 64), "complex128")
    xm = mt.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    mt.fft.fft2(xm).abs().sum().backward()
    torch.fft.fft2(xt).abs().sum().backward()
    np.testing.assert_allclose(xm.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-10)


# radix 3 and 5 only: their passes see an odd number of sequences (s = 1, 3,
# 15, ...), so the last one goes alone in the low lanes; with a radix-4 or 8
# first, pairs only
@pytest.mark.parametrize("n", [3, 15, 45, 75, 135, 375, 3 ** 7, 5 ** 5, 24, 40, 96, 1000, 4800])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_radix_three_and_five(n, dtype):
    agree(*both("fft", data((2, n), dtype)))
    agree(*both("ifft", data((2, n), dtype, seed=3), norm="ortho"))
    agree(*both("fft", data((n, 3), dtype, seed=4), dim=0))


# radix 8 after the first radix-4 pass: 32 = 4 8, 512 = 4 8 8 2, 4096 = 4 8 8 8 2,
# 2^15 = 4 8 8 8 4 (the last of each a lone radix-4 or 2 pass)
@pytest.mark.parametrize("n", [32, 256, 512, 2048, 4096, 1 << 15, 8 * 3, 8 * 8 * 5 * 4])
def test_radix_eight(n):
    agree(*both("fft", data((3, n), "complex128")))
    agree(*both("fft", data((3, n), "complex64", seed=5)))
