"""The order of torch.fft's argument checks, against torch: the dtype
refusals (half, complex input to a real transform) come before the dim and
length checks, and irfft/hfft check their default length 2 * (size - 1)
itself, so an empty input reports -2. (Empty batches, where torch's MKL
refuses its own configuration, compute an empty result here.)"""
import itertools

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

CALLS = {
    "fft": lambda f, x: f.fft(x), "fft_n0": lambda f, x: f.fft(x, n=0),
    "fft_neg_n": lambda f, x: f.fft(x, n=-1), "fft_dim5": lambda f, x: f.fft(x, dim=5),
    "ifft_badnorm": lambda f, x: f.ifft(x, norm="bad"),
    "rfft": lambda f, x: f.rfft(x), "rfft_n0": lambda f, x: f.rfft(x, n=0),
    "ihfft": lambda f, x: f.ihfft(x), "irfft": lambda f, x: f.irfft(x),
    "irfft_n1": lambda f, x: f.irfft(x, n=1), "hfft": lambda f, x: f.hfft(x),
    "rfft2": lambda f, x: f.rfft2(x), "rfftn": lambda f, x: f.rfftn(x),
    "irfftn": lambda f, x: f.irfftn(x), "fftn_s": lambda f, x: f.fftn(x, s=(0,)),
}
SHAPES = [(0,), (1,), (3, 0), (5,)]
DTYPES = ["float32", "complex64", "float16", "bfloat16", "int64"]


def _outcome(lib, call, shape, dtype):
    x = lib.zeros(*shape, dtype=getattr(lib, dtype))
    try:
        r = call(lib.fft, x)
    except (RuntimeError, IndexError) as e:
        return type(e).__name__, str(e)
    return "ok", tuple(r.shape), str(r.dtype).split(".")[-1]


@pytest.mark.parametrize("name, shape, dtype", list(itertools.product(CALLS, SHAPES, DTYPES)))
def test_checks_come_in_torchs_order(name, shape, dtype):
    t = _outcome(torch, CALLS[name], shape, dtype)
    if t[0] == "RuntimeError" and "MKL" in t[1]:
        pytest.skip("torch's MKL refuses an empty batch")
    assert _outcome(mt, CALLS[name], shape, dtype) == t


def test_an_empty_batch_transforms_to_an_empty_result():
    x = mt.zeros(0, 4)
    assert tuple(mt.fft.fft(x).shape) == (0, 4)
    assert tuple(mt.fft.rfft(x).shape) == (0, 3)
    assert tuple(mt.fft.irfft(mt.zeros(0, 3, dtype=mt.complex64)).shape) == (0, 4)
    np.testing.assert_array_equal(mt.fft.ifftn(x, dim=(-1,)).numpy(), np.zeros((0, 4), np.complex64))


@pytest.mark.parametrize("name", ["ifft", "ihfft", "ifft2", "ifftn", "ihfftn", "ihfft2", "hfft",
                                  "fft2", "rfft"])
def test_inverse_transforms_of_real_input_are_conjugate_views_where_torchs_are(name):
    results = []
    for lib in (mt, torch):
        x = lib.arange(8.0).reshape(2, 4).sin()
        results.append(getattr(lib.fft, name)(x).is_conj())
    assert results[0] == results[1]
