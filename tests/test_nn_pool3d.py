"""The 3-D poolings and their modules against torch: values, indices, input
gradients, and errors."""
import numpy as np
import pytest

import minitorch as mt
from nn_oracle import check_against_torch, check_same_error

F3 = mt.nn.functional

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(11)

CALLS = [
    ("max_pool3d", (2,), {}),
    ("max_pool3d", ((2, 3, 2), (2, 1, 2), (1, 1, 0), (1, 1, 2), True, True), {}),
    ("max_pool3d", (3,), dict(stride=2, padding=1, return_indices=True)),
    ("max_pool3d", (2,), dict(ceil_mode=True, return_indices=True)),
    ("avg_pool3d", (2,), {}),
    ("avg_pool3d", ((2, 3, 2), (2, 1, 2), (1, 1, 0)), dict(ceil_mode=True,
                                                            count_include_pad=False)),
    ("avg_pool3d", (3, 2, 1), dict(divisor_override=5)),
    ("avg_pool3d", (3, 2, 1), dict(ceil_mode=True)),
    ("adaptive_avg_pool3d", ((3, None, 4),), {}),
    ("adaptive_avg_pool3d", (2,), {}),
    ("adaptive_avg_pool3d", ((7, 1, 9),), {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 6)])
@pytest.mark.parametrize("name,args,kwargs", CALLS, ids=[f"{c[0]}{c[1]}" for c in CALLS])
def test_values_and_gradients(name, args, kwargs, shape, dtype):
    check_against_torch(torch, RNG, name, [shape], *args, dtype=dtype, **kwargs)


@pytest.mark.parametrize("name,args", [("MaxPool3d", (3, 2, 1)), ("AvgPool3d", (3, 2, 1)),
                                       ("AdaptiveAvgPool3d", ((2, 3, None),))])
def test_modules(name, args):
    x = RNG.standard_normal((2, 3, 5, 6, 7))
    ya = getattr(mt.nn, name)(*args)(mt.tensor(x))
    yb = getattr(torch.nn, name)(*args)(torch.tensor(x))
    np.testing.assert_allclose(ya.numpy(), yb.numpy(), atol=1e-12)
    assert repr(getattr(mt.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


def test_max_pool3d_module_indices():
    x = RNG.standard_normal((1, 2, 4, 4, 4))
    ya = mt.nn.MaxPool3d(2, return_indices=True)(mt.tensor(x))
    yb = torch.nn.MaxPool3d(2, return_indices=True)(torch.tensor(x))
    np.testing.assert_array_equal(ya[1].numpy(), yb[1].numpy())


X = (2, 4, 5, 5, 5)


@pytest.mark.parametrize("call", [
    lambda ns: ns.nn.functional.max_pool3d(ns.ones(2, 3, 4), 2),
    lambda ns: ns.nn.functional.max_pool3d(ns.ones(X), 7),
    lambda ns: ns.nn.functional.max_pool3d(ns.ones(X), 3, padding=2),
    lambda ns: ns.nn.functional.max_pool3d(ns.ones(X), 0),
    lambda ns: ns.nn.functional.max_pool3d(ns.ones(X), 2, stride=0),
    lambda ns: ns.nn.functional.avg_pool3d(ns.ones(X), 7),
    lambda ns: ns.nn.functional.avg_pool3d(ns.ones(2, 3, 4), 2),
    lambda ns: ns.nn.functional.avg_pool3d(ns.ones(X), 3, padding=2),
    lambda ns: ns.nn.functional.avg_pool3d(ns.ones(X), 3, divisor_override=0),
    lambda ns: ns.nn.functional.adaptive_avg_pool3d(ns.ones(2, 3, 4), 2),
    lambda ns: ns.nn.functional.adaptive_avg_pool3d(ns.ones(2, 0, 4, 4), 2),
])
def test_errors(call):
    check_same_error(torch, call)


def test_double_backward():
    from minitorch.autograd import gradgradcheck
    x = mt.randn(1, 2, 3, 4, 3, dtype=mt.float64, requires_grad=True)
    assert gradgradcheck(lambda x: F3.max_pool3d(x, 2, 1), (x,))
    assert gradgradcheck(lambda x: F3.avg_pool3d(x, 2, 1, ceil_mode=True), (x,))
    assert gradgradcheck(lambda x: F3.adaptive_avg_pool3d(x, (2, 3, 2)), (x,))
