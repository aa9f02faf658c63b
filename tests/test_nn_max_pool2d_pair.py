"""max_pool2d's 2x2 / stride 2 / unpadded fast path (whole rows, four windows
at a time, the last four of a row overlapping) against torch: output rows of
every length 1..13 (floor on odd sizes), ties (torch keeps the first maximum),
-inf and NaN (the last NaN wins), return_indices, strided gradients, float64,
and the cases that take the general loop (ceil_mode, padding, non-unit
column stride)."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def run(x, dtype=np.float32, grad_stride=1, transpose=False, **kw):
    x = np.asarray(x, dtype=dtype)
    res = []
    for lib in (mt, torch):
        leaf = lib.tensor(np.ascontiguousarray(x.swapaxes(2, 3)) if transpose else x,
                          requires_grad=True)
        xin = leaf.transpose(2, 3) if transpose else leaf
        out = lib.nn.functional.max_pool2d(xin, 2, **kw)
        y, idx = out if kw.get("return_indices") else (out, None)
        rng = np.random.default_rng(5)
        g = rng.standard_normal((*y.shape[:3], y.shape[3] * grad_stride)).astype(dtype)
        gt = lib.tensor(g)[..., ::grad_stride]
        y.backward(gt)
        res.append((y.detach().numpy(), None if idx is None else idx.numpy(), leaf.grad.numpy()))
    (my, mi, mg), (ty, ti, tg) = res
    np.testing.assert_array_equal(my, ty)
    if mi is not None:
        np.testing.assert_array_equal(mi, ti)
    np.testing.assert_array_equal(mg, tg)


@pytest.mark.parametrize("W", list(range(2, 28)))
def test_row_lengths(W):
    rng = np.random.default_rng(W)
    run(rng.standard_normal((2, 3, 7, W)))


@pytest.mark.parametrize("W", [9, 14, 17])
def test_ties_pick_the_first(W):
    rng = np.random.default_rng(1)
    run(rng.integers(0, 2, (2, 2, 6, W)).astype(np.float32))
    run(np.zeros((1, 1, 4, W)))


@pytest.mark.parametrize("W", [8, 11, 14])
def test_infinities_and_nans(W):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 2, 6, W)).astype(np.float32)
    x[0, 0, 0, :] = -np.inf
    x[0, 0, 1, :] = -np.inf
    x[0, 1, 2, 1::3] = np.nan
    x[1, 0, 3, ::2] = np.nan
    x[1, 1] = -np.inf
    run(x)


@pytest.mark.parametrize("W", [7, 14, 15])
def test_return_indices(W):
    rng = np.random.default_rng(3)
    run(rng.integers(-2, 3, (2, 3, 9, W)).astype(np.float32), return_indices=True)


@pytest.mark.parametrize("kw", [dict(ceil_mode=True), dict(padding=1), dict(stride=1)])
def test_general_loop_cases(kw):
    rng = np.random.default_rng(4)
    run(rng.standard_normal((2, 2, 9, 13)), **kw)


def test_strided_gradient_and_input_float64():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((2, 3, 10, 14))
    run(x, dtype=np.float64, grad_stride=2)
    run(x, grad_stride=3, transpose=True)


def test_lenet_pool_shapes():
    rng = np.random.default_rng(7)
    run(rng.standard_normal((64, 6, 28, 28)))
    run(rng.standard_normal((64, 16, 10, 10)))
