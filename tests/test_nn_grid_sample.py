"""F.affine_grid and F.grid_sample against torch: values, gradients to the
input, the grid and theta, and the argument errors."""
import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(a):
    return minitorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(m, t, tol=1e-10):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 2, 3, 4)])
def test_affine_grid(size, align):
    k = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((size[0], k, k + 1))
    m, t = _pair(theta)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mo, to = MF.affine_grid(m, size, align), TF.affine_grid(t, size, align)
    assert tuple(mo.shape) == tuple(to.shape)
    _close(mo, to)
    g = np.random.default_rng(1).standard_normal(tuple(to.shape))
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    _close(m.grad, t.grad)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("dims", [2, 3])
def test_grid_sample(mode, padding, align, dims):
    if dims == 3 and mode == "bicubic":
        return
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 5, 6) if dims == 2 else (2, 3, 4, 5, 3))
    # reach well outside [-1, 1] so every padding rule is exercised
    grid = rng.uniform(-2.5, 2.5, (2, 4, 7, 2) if dims == 2 else (2, 3, 4, 2, 3))
    mi, ti = _pair(a)
    mg, tg = _pair(grid)
    mo = MF.grid_sample(mi, mg, mode, padding, align)
    to = TF.grid_sample(ti, tg, mode, padding, align)
    _close(mo, to)
    g = rng.standard_normal(tuple(to.shape))
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    _close(mi.grad, ti.grad)
    _close(mg.grad, tg.grad, 1e-8)


@pytest.mark.parametrize("align", [False, True])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_float32_large_input(mode, padding, align):
    # torch's 4-D kernel fuses the unnormalising product and shift into one
    # fma; unfused, float32 coordinates near 300 land up to 3e-5 pixels off
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 40, 333)).astype(np.float32)
    grid = rng.uniform(-1.3, 1.3, (2, 20, 30, 2)).astype(np.float32)
    mo = MF.grid_sample(minitorch.tensor(a), minitorch.tensor(grid), mode, padding, align)
    to = TF.grid_sample(torch.tensor(a), torch.tensor(grid), mode, padding, align)
    # what is left is the order of torch's fused sums: a few float32 ulps
    np.testing.assert_allclose(mo.numpy(), to.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_bilinear_weights_match_torch_exactly(dtype, align):
    # one-hot planes give each output the weight of one pixel, so the
    # coordinates and weights are compared bit for bit; in float64 the 4-D
    # kernel's fma has no wider type to emulate it in, so there they agree
    # to an ulp
    h, w = 7, 300
    planes = np.eye(h * w, dtype=dtype).reshape(1, h * w, h, w)
    grid = np.random.default_rng(6).uniform(-1.2, 1.2, (1, 1, 400, 2)).astype(dtype)
    mo = MF.grid_sample(minitorch.tensor(planes), minitorch.tensor(grid), "bilinear", "zeros", align)
    to = TF.grid_sample(torch.tensor(planes), torch.tensor(grid), "bilinear", "zeros", align)
    if dtype == np.float32:
        np.testing.assert_array_equal(mo.numpy(), to.numpy())
    else:
        np.testing.assert_allclose(mo.numpy(), to.numpy(), rtol=1e-10, atol=1e-13)
    planes = np.eye(4 * 5 * 6, dtype=dtype).reshape(1, -1, 4, 5, 6)
    grid = np.random.default_rng(7).uniform(-1.2, 1.2, (1, 1, 1, 300, 3)).astype(dtype)
    mo = MF.grid_sample(minitorch.tensor(planes), minitorch.tensor(grid), "bilinear", "zeros", align)
    to = TF.grid_sample(torch.tensor(planes), torch.tensor(grid), "bilinear", "zeros", align)
    np.testing.assert_array_equal(mo.numpy(), to.numpy())


def test_affine_then_sample_float32_and_default_warning():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 2, 6, 6)).astype(np.float32)
    theta = np.array([[[0.8, -0.3, 0.1], [0.2, 1.1, -0.2]]] * 2, np.float32)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        mg = MF.affine_grid(minitorch.tensor(theta), (2, 2, 4, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tg = TF.affine_grid(torch.tensor(theta), (2, 2, 4, 5))
        mo = MF.grid_sample(minitorch.tensor(a), mg)
        to = TF.grid_sample(torch.tensor(a), tg)
    np.testing.assert_allclose(mo.numpy(), to.numpy(), atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 2), mode="foo",
                               align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 2), padding_mode="foo",
                               align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(2, 2, 2, 2), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 3), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3), L.zeros(1, 2, 2), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3), L.zeros(1, 2, 1), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(2, 1, 3, 3), L.zeros(1, 2, 2, 3), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 0, 3), L.zeros(1, 2, 2, 2), align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 2, dtype=L.float64),
                               align_corners=False),
    lambda L, F: F.grid_sample(L.ones(1, 1, 2, 2, 2), L.zeros(1, 2, 2, 2, 3), mode="bicubic",
                               align_corners=False),
    lambda L, F: F.affine_grid(L.zeros(1, 2, 3, dtype=L.int64), (1, 1, 2, 2), False),
    lambda L, F: F.affine_grid(L.zeros(1, 2, 3), (1, 1, 2), False),
    lambda L, F: F.affine_grid(L.zeros(1, 2, 3), (1, 1, 0, 2), False),
])
def test_errors(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))
