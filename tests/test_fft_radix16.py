"""minitorch.fft against torch.fft where interleaved batches (blocks of
columns, and the columns of a long row's four steps) go by radix-16 passes:
lengths whose radix-16 factorization takes fewer passes (16, 48 = 16 3,
80 = 16 5, 128 = 16 8, 256 = 16 16, 768, 1024 = 16 16 4, 4096, 8192 =
16 16 16 2), beside lengths that keep their passes (512 = 8 8 8, 1000 =
8 5 5 5, 64, a prime); blocks whose width fills the vectors or not; the
same bits at 1 and 2 threads; and the 8-lane loops (MINITORCH_NO_AVX512 in
a fresh process) over the same cases."""

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
    rtol, atol = (2e-5, 2e-5) if g.dtype == np.complex64 else (1e-10, 1e-10)
    scale = max(1.0, float(np.abs(w).max()))
    np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale)


def both(fn, x, **kw):
    return getattr(mt.fft, fn)(mt.tensor(x), **kw), getattr(torch.fft, fn)(torch.tensor(x), **kw)


LENGTHS = [1, 16, 48, 80, 128, 256, 512, 768, 1000, 1024, 4096, 8192, 64, 17]


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("width", [16, 40, 12, 3])
def test_column_blocks(n, dtype, width):
    # 16 and 40 columns fill the 16-lane vectors (blocks of 16 and a tail of
    # 8); 12 and 3 do not (the float loops then take the lone-row passes)
    x = data((n, width), dtype, seed=n)
    agree(*both("fft", x, dim=0))
    agree(*both("ifft", x, dim=0, norm="ortho"))


@pytest.mark.parametrize("shape", [(256, 256), (1024, 48), (128, 768), (80, 16)])
@pytest.mark.parametrize("fn", ["fft2", "ifft2"])
def test_two_dims(fn, shape):
    agree(*both(fn, data(shape)))
    agree(*both(fn, data(shape, "complex128", seed=1), norm="forward"))


@pytest.mark.parametrize("n", [1 << 16, 1 << 20])
def test_four_steps_columns(n):
    # 256 x 256 and 1024 x 1024: the column transforms are radix-16 batches
    agree(*both("fft", data((n,))))
    agree(*both("ifft", data((n,), "complex128", seed=1)))


@pytest.mark.parametrize("case", [("fft2", (256, 256)), ("fft", (1024, 48)),
                                  ("fft", (1 << 20,))])
def test_thread_split_changes_no_bit(case):
    fn, shape = case
    x = mt.tensor(data(shape))
    kw = {"dim": 0} if len(shape) == 2 and fn == "fft" else {}
    assert_same_bits_on_1_and_2_threads(lambda: getattr(mt.fft, fn)(x, **kw))


def test_eight_lane_loops_match_torch():
    rerun_on_eight_lane_loops(__file__)
