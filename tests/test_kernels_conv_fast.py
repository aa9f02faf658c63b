"""conv2d forward and gradients against torch on both kernel paths: Winograd
F(2x2, 3x3) (float32, 3x3, stride 1, undilated, ungrouped, >= 8 channels
each side; its input gradient only for padding <= 2) and im2col + gemm
(everything else), with odd sizes, paddings, strides, dilation, groups, 1x1,
batch 1, channel counts off the product kernel's blocks, several thread
counts, non-contiguous inputs; float64 gradcheck on the im2col path; the
Winograd path again at every level of the product kernel (kernels/gemm/gemm_small.c)
in a fresh process."""
import textwrap

import numpy as np
import pytest

import minitorch as mt
from kernel_levels import LEVELS, run_at_level

torch = pytest.importorskip("torch")
F = mt.nn.functional


def compare(N, C, O, H, W, k=3, stride=1, padding=0, dilation=1, groups=1, bias=True,
            layout=None, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    kh, kw = (k, k) if isinstance(k, int) else k
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    w = (rng.standard_normal((O, C // groups, kh, kw)) / np.sqrt(C // groups * kh * kw)).astype(dtype)
    b = rng.standard_normal(O).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    tw = torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True) if bias else None
    mx_leaf = mt.tensor(x, requires_grad=True)
    mw = mt.tensor(w, requires_grad=True)
    mb = mt.tensor(b, requires_grad=True) if bias else None
    mx = mx_leaf
    if layout == "nhwc":  # the same values held channels-last
        mx_leaf = mt.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), requires_grad=True)
        mx = mx_leaf.permute(0, 3, 1, 2)
        assert not mx.is_contiguous()
    elif layout == "wh":  # H and W swapped in memory
        mx_leaf = mt.tensor(np.ascontiguousarray(x.transpose(0, 1, 3, 2)), requires_grad=True)
        mx = mx_leaf.transpose(2, 3)
        assert not mx.is_contiguous()
    kw_args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    ty = torch.nn.functional.conv2d(tx, tw, tb, **kw_args)
    my = F.conv2d(mx, mw, mb, **kw_args)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(my.detach().numpy(), ty.detach().numpy(), rtol=tol * 10,
                               atol=tol * 10)
    g = rng.standard_normal(ty.shape).astype(dtype)
    ty.backward(torch.tensor(g))
    my.backward(mt.tensor(g))
    gx = mx_leaf.grad.numpy()
    if layout == "nhwc":
        gx = gx.transpose(0, 3, 1, 2)
    elif layout == "wh":
        gx = gx.transpose(0, 1, 3, 2)
    # the weight gradient sums N * oh * ow products: scale the tolerance
    terms = max(1.0, np.sqrt(N * ty.shape[2] * ty.shape[3]))
    np.testing.assert_allclose(gx, tx.grad.numpy(), rtol=tol * 10, atol=tol * 10 * 3)
    np.testing.assert_allclose(mw.grad.numpy(), tw.grad.numpy(), rtol=tol * 10,
                               atol=tol * 10 * terms)
    if bias:
        np.testing.assert_allclose(mb.grad.numpy(), tb.grad.numpy(), rtol=tol * 10,
                                   atol=tol * 10 * terms)


WINOGRAD = [
    (2, 8, 8, 5, 5, 1),
    (1, 8, 9, 37, 45, 1),      # tile rows wider than a vector, with a tail
    (3, 12, 8, 19, 33, 2),
    (2, 16, 12, 7, 9, 0),
    (2, 9, 10, 6, 5, 3),       # padding beyond the window's half
    (1, 8, 8, 2, 2, 1),        # a single output tile
    (1, 8, 8, 3, 4, 0),        # one output row
    (3, 8, 8, 56, 56, 1),      # chunks that split an image
    (2, 64, 64, 16, 16, 1),
    (1, 70, 13, 15, 4, 1),     # rows of the product kernel's block left over (13, 70)
    (2, 13, 70, 9, 10, 1),     # and on the input gradient's side (channels swapped)
    (3, 40, 24, 6, 7, (0, 2)),  # unequal padding: the input gradient pads by 2 and 0
    (1, 8, 8, 3, 130, 1),      # a tile row longer than a forward chunk
]


@pytest.mark.parametrize("N,C,O,H,W,pad", WINOGRAD)
def test_winograd_path(N, C, O, H, W, pad):
    compare(N, C, O, H, W, padding=pad)


@pytest.mark.parametrize("layout", ["nhwc", "wh"])
def test_winograd_noncontiguous_input(layout):
    compare(2, 8, 8, 11, 13, padding=1, layout=layout)


def test_winograd_without_bias():
    compare(2, 10, 8, 9, 7, padding=1, bias=False)


IM2COL = [
    dict(N=2, C=8, O=8, H=9, W=11, stride=2, padding=1),
    dict(N=2, C=8, O=8, H=13, W=10, dilation=2, padding=2),
    dict(N=2, C=8, O=6, H=9, W=9, groups=2, padding=1),
    dict(N=2, C=8, O=8, H=9, W=9, groups=8, padding=1),          # depthwise
    dict(N=2, C=8, O=16, H=7, W=9, groups=8),                    # depthwise, multiplier 2
    dict(N=3, C=16, O=24, H=7, W=5, k=1),                        # 1x1
    dict(N=1, C=3, O=5, H=12, W=12, k=5, padding=2),
    dict(N=1, C=4, O=4, H=6, W=7, k=(3, 2), stride=(2, 1), padding=(0, 1)),
    dict(N=2, C=4, O=4, H=8, W=8, padding=1),                    # too few channels
    dict(N=2, C=8, O=8, H=5, W=5, padding=1, stride=(1, 2)),
]


@pytest.mark.parametrize("case", IM2COL, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_im2col_path(case):
    compare(**case)
    compare(**case, dtype=np.float64)


# The column buffer holds a cache-sized chunk of images (512 KiB): these run
# several chunks of several images with a shorter last one, and chunks of a
# single image whose weight gradient reads the gradient planes in place.
IM2COL_CHUNKS = [
    dict(N=7, C=6, O=16, H=24, W=24, k=5),                       # LeNet's second conv
    dict(N=5, C=1, O=6, H=28, W=28, k=5),                        # LeNet's first conv
    dict(N=3, C=16, O=8, H=40, W=36, k=5, padding=2),            # one image per chunk
    dict(N=3, C=16, O=12, H=40, W=36, k=5, padding=1, groups=2),  # one image, groups
    dict(N=5, C=8, O=8, H=30, W=30, stride=2, padding=1, groups=4),
]


@pytest.mark.parametrize("case", IM2COL_CHUNKS,
                         ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
def test_im2col_chunks_of_images(case):
    compare(**case)
    compare(**case, dtype=np.float64, seed=1)


def test_im2col_noncontiguous_input():
    compare(2, 4, 6, 9, 8, stride=2, padding=1, layout="nhwc")


def test_float64_3x3_matches_torch():
    # float64 keeps the im2col path: results agree to rounding
    compare(2, 8, 8, 9, 9, padding=1, dtype=np.float64)


def test_gradcheck_float64():
    rng = np.random.default_rng(5)

    def t(*shape):
        return mt.tensor(rng.standard_normal(shape), dtype=mt.float64, requires_grad=True)

    x, w, b = t(2, 4, 5, 6), t(4, 2, 3, 3), t(4)
    assert mt.autograd.gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1,
                                                          dilation=(1, 2), groups=2),
                                 (x, w, b))
    x, w = t(1, 8, 5, 5), t(8, 8, 3, 3)
    assert mt.autograd.gradcheck(lambda x, w: F.conv2d(x, w, padding=1), (x, w))


def test_winograd_matches_float64_reference():
    # the float32 Winograd result stays within float32 rounding of the exact one
    rng = np.random.default_rng(9)
    x = rng.standard_normal((2, 32, 20, 20))
    w = rng.standard_normal((32, 32, 3, 3)) / 17
    exact = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    got = F.conv2d(mt.tensor(x.astype(np.float32)), mt.tensor(w.astype(np.float32)),
                   padding=1).numpy()
    assert np.abs(got - exact).max() < 5e-5 * np.abs(exact).max()


def test_repeated_calls_reuse_buffers_correctly():
    # the workspace comes from the block cache: results do not depend on what
    # an earlier call of another size left in it
    rng = np.random.default_rng(2)
    for shape in [(2, 8, 30, 30), (1, 8, 7, 9), (2, 8, 30, 30)]:
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
        ref = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
        got = F.conv2d(mt.tensor(x), mt.tensor(w), padding=1).numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 3])
def test_im2col_chunks_at_other_thread_counts(threads):
    # the chunks split over threads, the weight gradient as one partial sum
    # per thread: the split must not change what is computed
    before = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        compare(N=7, C=6, O=16, H=24, W=24, k=5)
        compare(N=5, C=8, O=8, H=30, W=30, stride=2, padding=1, groups=4, dtype=np.float64)
        compare(N=3, C=16, O=12, H=40, W=36, k=5, padding=1, groups=2)
    finally:
        mt.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_winograd_chunks_at_other_thread_counts(threads):
    # each thread runs whole chunks of tiles (and, for the weight gradient,
    # sums its own partial): many chunks, a short last one, images split
    # between chunks and between threads
    before = mt.get_num_threads()
    mt.set_num_threads(threads)
    try:
        compare(N=9, C=64, O=64, H=32, W=32, padding=1)
        compare(N=3, C=24, O=40, H=29, W=31, padding=2)
    finally:
        mt.set_num_threads(before)


def test_winograd_smallest_outputs():
    # the smallest output the path takes (2 x 2), and one with an odd side, batch 1
    compare(1, 9, 11, 2, 2, padding=1)
    compare(1, 9, 11, 4, 5, padding=0)


# A child process picks the product kernel's level from its environment afresh.
LEVEL_CHILD = textwrap.dedent("""
    from test_kernels_conv_fast import WINOGRAD, compare
    for case in WINOGRAD:
        compare(*case[:5], padding=case[5])
    compare(2, 8, 8, 11, 13, padding=1, layout="nhwc")
    compare(4, 64, 64, 20, 20, padding=1)  # full register blocks and several chunks
    print("ok")
""")


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_winograd_at_every_product_kernel_level(level):
    run_at_level(LEVEL_CHILD, LEVELS[level], timeout=600)
