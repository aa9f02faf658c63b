"""F.lp_pool1d/2d/3d and nn.LPPool1d/2d/3d against torch: values and input
gradients over norms (finite, fractional, +-inf), kernels, strides and
ceil_mode; the module's printing."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)

CASES = [
    (1, (2, 3, 9), 3, None, False), (1, (3, 10), 2, 3, True), (1, (2, 2, 7), 4, (2,), False),
    (2, (2, 3, 6, 7), 2, None, False), (2, (3, 5, 6), (2, 3), (1, 2), True),
    (2, (1, 2, 7, 5), 3, 2, True),
    (3, (2, 2, 4, 5, 6), 2, None, False), (3, (2, 5, 4, 6), (2, 1, 3), (1, 2, 2), True),
]
NORMS = [1, 2, 3.0, 1.5, float("inf"), -float("inf")]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n,shape,kernel,stride,ceil", CASES)
def test_values_and_gradients(n, shape, kernel, stride, ceil, norm, dtype):
    # positive inputs keep fractional powers real, as torch needs them too
    x = RNG.uniform(0.1, 2.0, shape).astype(dtype)
    a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya = getattr(F, f"lp_pool{n}d")(a, norm, kernel, stride, ceil)
    yb = getattr(torch.nn.functional, f"lp_pool{n}d")(b, norm, kernel, stride, ceil)
    assert tuple(ya.shape) == tuple(yb.shape)
    tol = 2e-5 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    up = RNG.standard_normal(tuple(yb.shape)).astype(dtype)
    ya.backward(mt.tensor(up))
    yb.backward(torch.tensor(up))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


def test_zero_window_has_zero_gradient():
    a = mt.zeros(1, 1, 4, requires_grad=True)
    F.lp_pool1d(a, 2, 2).sum().backward()
    assert a.grad.tolist() == [[[0.0, 0.0, 0.0, 0.0]]]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_module_matches_functional_and_prints(n):
    x = RNG.uniform(0.1, 1.0, (2, 3) + (6,) * n)
    mod = getattr(nn, f"LPPool{n}d")(2, 2, stride=1)
    ref = getattr(torch.nn, f"LPPool{n}d")(2, 2, stride=1)
    np.testing.assert_allclose(mod(mt.tensor(x)).numpy(), ref(torch.tensor(x)).numpy(),
                               rtol=1e-12)
    assert repr(mod) == repr(ref)
