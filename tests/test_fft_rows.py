"""minitorch.fft against torch.fft on the roads of the float kernel's wide
(16-lane AVX-512) loops and of batches: a lone row's first pass as radix 8
(a partly filled last vector when n / 8 is no multiple of 8), rows of 64
whole in registers, contiguous rows a group per pass (from the input, or in
place in a strided input's copy, with an odd or even pass count), blocks of
columns whose last pass writes the result itself (unscaled) or through a
copy (scaled, or a block tail), radix 3 and 5 passes, every dim order,
non-contiguous inputs; the same bits at 1 and 2 threads; and the 8-lane loops
(MINITORCH_NO_AVX512 in a fresh process) over the same cases."""

import numpy as np
import pytest

import minitorch as mt
from fft_checks import assert_same_bits_on_1_and_2_threads, rerun_on_eight_lane_loops

torch = pytest.importorskip("torch")


def data(shape, dtype="complex64", seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def agree(got, want):
    g, w = got.numpy(), want.resolve_conj().numpy()
    assert g.dtype == w.dtype and g.shape == w.shape
    rtol, atol = (2e-5, 2e-5) if g.dtype in (np.float32, np.complex64) else (1e-10, 1e-10)
    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale)


def both(fn, x, **kw):
    return getattr(mt.fft, fn)(mt.tensor(x), **kw), getattr(torch.fft, fn)(torch.tensor(x), **kw)


# radix 8 first: 64 (whole in registers), 72 = 8 3 3 and 1000 = 8 5 5 5 (a
# partly filled last vector of j), 120 = 8 3 5, 128 = 8 8 2, 4096, 8192
# (the longest with radix 8); 16384 (radix 4 first); 8, 16, 40 (too short
# for it); odd and prime lengths (Bluestein)
LENGTHS = [8, 16, 40, 64, 72, 120, 128, 200, 256, 1000, 4096, 8192, 16384, 17, 125, 243, 4099]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_lone_and_grouped_rows(n, dtype):
    agree(*both("fft", data((n,), dtype)))
    # contiguous rows go a group at a time: a group's tail, and the inverse
    agree(*both("fft", data((7, n), dtype, seed=1)))
    agree(*both("ifft", data((5, n), dtype, seed=2)))
    agree(*both("fft", data((3, n), dtype, seed=3), norm="ortho"))


@pytest.mark.parametrize("rows", [1, 2, 63, 64, 65, 4096])
def test_rows_of_64(rows):
    agree(*both("fft", data((rows, 64))))
    agree(*both("ifft", data((rows, 64), seed=1)))


# the rows: 256 = 8 8 4 and 512 = 8 8 8 (odd pass counts, two scratch
# halves in place), 64 (registers), 1000 = 8 5 5 5 (even), 24 = 4 2 3; read
# from the input, or in place in a copy of a strided one; the columns after
# them in place
@pytest.mark.parametrize("shape", [(256, 256), (512, 64), (64, 512), (40, 1000), (1000, 24),
                                   (72, 72), (33, 64), (8, 7), (5, 3, 64)])
@pytest.mark.parametrize("fn", ["fft2", "ifft2", "fftn"])
def test_two_dims_in_place(fn, shape):
    agree(*both(fn, data(shape)))
    wide = data(shape[:-1] + (2 * shape[-1],), seed=2)
    agree(getattr(mt.fft, fn)(mt.tensor(wide)[..., ::2]),
          getattr(torch.fft, fn)(torch.tensor(wide)[..., ::2]))


@pytest.mark.parametrize("norm", ["backward", "forward", "ortho"])
def test_column_blocks_direct_or_copied(norm):
    # blocks of 32 columns and a tail of 8 (the last pass writes the result
    # itself when unscaled) and of 36 = 32 + 4 (a tail no vector fills)
    for shape in [(256, 40), (1000, 36), (64, 48), (125, 16)]:
        agree(*both("fft", data(shape), dim=0, norm=norm))
        agree(*both("fft2", data(shape, seed=1), norm=norm))


@pytest.mark.parametrize("dim", [(0, 1), (1, 0), (-1, -2), (0, 2), (2, 0, 1)])
def test_dims_in_any_order(dim):
    x = data((24, 16, 40))
    agree(*both("fftn", x, dim=dim))
    agree(*both("ifftn", x, dim=dim, norm="ortho"))


def test_non_contiguous_inputs():
    x = data((128, 200))
    for view in (lambda t: t.t(), lambda t: t[::2, 8:136], lambda t: t[:, ::2]):
        got = mt.fft.fft2(view(mt.tensor(x)))
        agree(got, torch.fft.fft2(view(torch.tensor(x))))
        agree(mt.fft.fft(view(mt.tensor(x)), dim=0), torch.fft.fft(view(torch.tensor(x)), dim=0))


@pytest.mark.parametrize("n", [64, 1000, 4096])
def test_real_rows(n):
    x = np.random.default_rng(n).standard_normal((3, n)).astype(np.float32)
    agree(mt.fft.rfft(mt.tensor(x)), torch.fft.rfft(torch.tensor(x)))
    agree(mt.fft.rfft2(mt.tensor(x)), torch.fft.rfft2(torch.tensor(x)))


@pytest.mark.parametrize("case", [("fft", (4096, 64), {}), ("fft2", (256, 256), {}),
                                  ("fft2", (1000, 1000), {}), ("fft", (3, 1 << 16), {}),
                                  ("fft", (1000, 40), {"dim": 0}),
                                  ("ifft2", (512, 512), {"norm": "ortho"}),
                                  ("rfft", (64, 4096), {})])
def test_thread_split_changes_no_bit(case):
    fn, shape, kw = case
    x = mt.tensor(data(shape).real.copy() if fn == "rfft" else data(shape))
    assert_same_bits_on_1_and_2_threads(lambda: getattr(mt.fft, fn)(x, **kw))


def test_eight_lane_loops_match_torch():
    rerun_on_eight_lane_loops(__file__)
