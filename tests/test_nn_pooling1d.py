"""The 1-D poolings and their modules against torch: values, indices, input
gradients, printing and errors."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(5)

CALLS = [
    ("max_pool1d", (3,), {}), ("max_pool1d", (3, 2, 1, 2, True), {}),
    ("max_pool1d", ((2,), (1,)), {}), ("max_pool1d", (4,), {"ceil_mode": True}),
    ("avg_pool1d", (3,), {}), ("avg_pool1d", (3, 2, 1, True, False), {}),
    ("avg_pool1d", ((4,), None, (2,)), {}), ("adaptive_avg_pool1d", (4,), {}),
    ("adaptive_avg_pool1d", ((3,),), {}), ("adaptive_avg_pool1d", (12,), {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 9), (3, 10), (0, 2, 7)])
@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=[f"{c[0]}{c[1]}" for c in CALLS])
def test_values_and_gradients(name, args, kwargs, shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya = getattr(F, name)(a, *args, **kwargs)
    yb = getattr(torch.nn.functional, name)(b, *args, **kwargs)
    assert ya.detach().numpy().dtype == yb.detach().numpy().dtype
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=tol, atol=tol)
    up = RNG.standard_normal(tuple(yb.shape)).astype(dtype)
    ya.backward(mt.tensor(up))
    yb.backward(torch.tensor(up))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)


def test_max_pool1d_indices():
    x = RNG.standard_normal((2, 3, 11))
    va, ia = F.max_pool1d(mt.tensor(x), 3, 2, 1, return_indices=True)
    vb, ib = torch.nn.functional.max_pool1d(torch.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(va.numpy(), vb.numpy())
    np.testing.assert_array_equal(ia.numpy(), ib.numpy())
    assert F.max_pool1d(mt.tensor([[1.0, 5.0, 2.0, 0.0]]), 2).tolist() == [[5.0, 2.0]]


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.max_pool1d(lib.zeros(4), 2),
    lambda lib: lib.nn.functional.max_pool1d(lib.zeros(1, 2, 3, 4), 2),
    lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(4), 2),
    lambda lib: lib.nn.functional.avg_pool1d(lib.zeros(1, 2, 3, 4), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.zeros(4), 2),
    lambda lib: lib.nn.functional.adaptive_avg_pool1d(lib.zeros(2, 4), (2, 3)),
])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as expected:
        call(torch)
    with pytest.raises(expected.type) as got:
        call(mt)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("name,args", [
    ("MaxPool1d", (3,)), ("MaxPool1d", (3, 2, 1, 2, False, True)), ("AvgPool1d", (3,)),
    ("AvgPool1d", (3, 2, 1, True, False)), ("AdaptiveAvgPool1d", (4,)),
])
def test_modules_print_and_compute_as_torch(name, args):
    m, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(m) == repr(t)
    x = RNG.standard_normal((2, 3, 10))
    ya, yb = m(mt.tensor(x)), t(torch.tensor(x))
    pairs = zip(ya, yb) if isinstance(yb, tuple) else [(ya, yb)]
    for p, q in pairs:
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-12)
