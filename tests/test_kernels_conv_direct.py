"""conv2d on the direct path (float32, ungrouped, stride 1, undilated,
C * kh * kw <= 32, <= 32 output channels: forward and weight gradient with no
column buffer) and on its edges, where the same call must fall back to
im2col + gemm: stride 2, groups, dilation, float64, windows of more than 32
elements, more than 32 output channels. All against torch, gradients of
input, weight and bias."""
import numpy as np
import pytest

import minitorch as mt
from test_kernels_conv_fast import compare

torch = pytest.importorskip("torch")
F = mt.nn.functional


@pytest.mark.parametrize("C,k", [(1, 3), (1, 5), (3, 3), (2, 4), (6, 3)])
@pytest.mark.parametrize("O", [1, 6, 16, 17])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_small_windows(C, k, O, padding):
    # (6, 3) is 54 window elements: the im2col path, for comparison
    compare(N=3, C=C, O=O, H=13, W=11, k=k, padding=padding)


@pytest.mark.parametrize("N,H,W", [(1, 28, 28), (2, 5, 5), (2, 9, 31), (4, 17, 8), (1, 6, 40)])
def test_odd_sizes_and_row_tails(N, H, W):
    # output rows of 1..36 elements: whole vectors, a tail, a single short vector
    compare(N=N, C=1, O=6, H=H, W=W, k=5, padding=2)
    compare(N=N, C=1, O=6, H=H, W=W, k=5, padding=0, bias=False)


def test_lenet_first_layer_shape():
    compare(N=64, C=1, O=6, H=28, W=28, k=5, padding=2)


@pytest.mark.parametrize("kw", [dict(stride=2), dict(stride=(1, 2)), dict(groups=3),
                                dict(dilation=2), dict(dtype=np.float64),
                                dict(O=33), dict(C=4, k=3)])
def test_fallbacks(kw):
    args = dict(N=2, C=3, O=6, H=12, W=13, k=3, padding=1)
    args.update(kw)
    compare(**args)


@pytest.mark.parametrize("layout", ["nhwc", "wh"])
def test_noncontiguous_input(layout):
    compare(N=3, C=3, O=6, H=11, W=14, k=3, padding=1, layout=layout)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_thread_counts(threads):
    # the weight gradient sums one partial per thread
    before = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        compare(N=7, C=1, O=6, H=20, W=21, k=5, padding=2)
        compare(N=1, C=2, O=17, H=9, W=9, k=3)
    finally:
        mt.set_num_threads(before)


def test_input_without_grad():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 1, 12, 12)).astype(np.float32)
    w = rng.standard_normal((6, 1, 5, 5)).astype(np.float32)
    mx, tx = mt.tensor(x), torch.tensor(x)
    mw, tw = mt.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    my = F.conv2d(mx, mw, padding=2)
    ty = torch.nn.functional.conv2d(tx, tw, padding=2)
    my.sum().backward()
    ty.sum().backward()
    assert mx.grad is None
    np.testing.assert_allclose(mw.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-3)


def test_nonfinite_past_the_row_end():
    # the weight gradient sums whole vectors along an output row; the lanes
    # past its end read real input columns (used by other window columns),
    # which must not reach the sums: inf in the last column may only reach
    # the weights that read it
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 1, 9, 13)).astype(np.float32)
    x[:, :, :, -1] = np.inf
    x[0, 0, 3, -2] = np.nan
    w = rng.standard_normal((6, 1, 3, 3)).astype(np.float32)
    res = []
    for lib in (mt, torch):
        xt = lib.tensor(x)
        wt = lib.tensor(w, requires_grad=True)
        y = lib.nn.functional.conv2d(xt, wt)
        y.backward(lib.ones(y.shape))
        res.append((y.detach().numpy(), wt.grad.numpy()))
    (my, mg), (ty, tg) = res
    np.testing.assert_allclose(my, ty, rtol=1e-5, atol=1e-5)
    assert np.isfinite(tg[:, :, :, 0]).all()
    np.testing.assert_allclose(mg, tg, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("C,k,dtype", [(1, 5, np.float32), (6, 5, np.float32), (3, 3, np.float64)])
def test_strided_bias(C, k, dtype):
    # the bias is filled into the output planes reading it with its stride,
    # on the direct path and on im2col's (float32 and float64)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, C, 10, 9)).astype(dtype)
    w = rng.standard_normal((7, C, k, k)).astype(dtype)
    b = rng.standard_normal(14).astype(dtype)
    my = F.conv2d(mt.tensor(x), mt.tensor(w), mt.tensor(b)[::2], padding=1)
    ty = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b)[::2],
                                    padding=1)
    np.testing.assert_allclose(my.numpy(), ty.numpy(), rtol=1e-5, atol=1e-4)
