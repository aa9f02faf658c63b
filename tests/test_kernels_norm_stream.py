"""Normalization outputs of 8 MiB and more, which the kernels write with
streaming stores (csrc/kernels/simd/stream.h), against torch: layer, RMS, group and
batch norm in float32 and float64, rows whose starts are not 16-byte aligned
(odd lengths: each row has a scalar head before its streamed vectors), a
non-contiguous input, and the running statistics batch norm moves beside."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

STREAM_BYTES = 8 << 20
RNG = np.random.default_rng(4321)
TOL = {np.float32: {"rtol": 2e-4, "atol": 2e-4}, np.float64: {"rtol": 1e-10, "atol": 1e-10}}


def arr(shape, dtype, loc=0.0):
    return (RNG.standard_normal(shape) * 2 + loc).astype(dtype)


def check(om, ot, dtype, min_bytes=STREAM_BYTES):
    assert om.numel() * om.element_size() >= min_bytes
    np.testing.assert_allclose(om.numpy(), ot.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cols", [1024, 1025, 1021])
def test_layer_norm_large(dtype, cols):
    rows = -(-STREAM_BYTES // (cols * np.dtype(dtype).itemsize)) + 3
    x, w, b = arr((rows, cols), dtype, 3.0), arr((cols,), dtype), arr((cols,), dtype)
    om = F.layer_norm(mt.tensor(x), (cols,), mt.tensor(w), mt.tensor(b), 1e-5)
    ot = TF.layer_norm(torch.tensor(x), (cols,), torch.tensor(w), torch.tensor(b), 1e-5)
    check(om, ot, dtype)


def test_layer_norm_large_without_affine_and_transposed_input():
    x = arr((1031, 2053), np.float32)
    om = F.layer_norm(mt.tensor(x).t(), (1031,))
    ot = TF.layer_norm(torch.tensor(x).t(), (1031,))
    check(om, ot, np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rms_norm_large(dtype):
    cols = 1027
    rows = -(-STREAM_BYTES // (cols * np.dtype(dtype).itemsize)) + 1
    x, w = arr((rows, cols), dtype), arr((cols,), dtype)
    om = F.rms_norm(mt.tensor(x), (cols,), mt.tensor(w), 1e-6)
    ot = TF.rms_norm(torch.tensor(x), (cols,), torch.tensor(w), 1e-6)
    check(om, ot, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_group_norm_large_odd_planes(dtype):
    x = arr((4, 64, 91, 91) if dtype == np.float32 else (2, 64, 91, 91), dtype, -1.0)
    w, b = arr((64,), dtype), arr((64,), dtype)
    om = F.group_norm(mt.tensor(x), 8, mt.tensor(w), mt.tensor(b), 1e-5)
    ot = TF.group_norm(torch.tensor(x), 8, torch.tensor(w), torch.tensor(b), 1e-5)
    check(om, ot, dtype)


def test_batch_norm_training_large_with_running_stats():
    x = arr((8, 65, 63, 65), np.float32, 0.5)
    w, b = arr((65,), np.float32), arr((65,), np.float32)
    rm, rv = mt.zeros(65), mt.ones(65)
    trm, trv = torch.zeros(65), torch.ones(65)
    om = F.batch_norm(mt.tensor(x), rm, rv, mt.tensor(w), mt.tensor(b), True, 0.1, 1e-5)
    ot = TF.batch_norm(torch.tensor(x), trm, trv, torch.tensor(w), torch.tensor(b), True, 0.1,
                       1e-5)
    check(om, ot, np.float32)
    np.testing.assert_allclose(rm.numpy(), trm.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.numpy(), trv.numpy(), rtol=1e-5, atol=1e-6)


def test_layer_norm_large_backward():
    x, w, b = arr((2049, 1025), np.float32), arr((1025,), np.float32), arr((1025,), np.float32)
    g = arr((2049, 1025), np.float32)
    ms = [mt.tensor(a).requires_grad_() for a in (x, w, b)]
    ts = [torch.tensor(a).requires_grad_() for a in (x, w, b)]
    F.layer_norm(ms[0], (1025,), ms[1], ms[2]).backward(mt.tensor(g))
    TF.layer_norm(ts[0], (1025,), ts[1], ts[2]).backward(torch.tensor(g))
    np.testing.assert_allclose(ms[0].grad.numpy(), ts[0].grad.numpy(), rtol=2e-4, atol=2e-4)
    for m, t in zip(ms[1:], ts[1:]):
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=2e-4,
                                   atol=2e-4 * float(np.abs(t.grad.numpy()).max()))
