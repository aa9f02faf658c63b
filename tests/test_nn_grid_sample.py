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
