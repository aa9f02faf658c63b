"""F.fractional_max_pool2d/3d and FractionalMaxPool2d/3d against torch with
fixed _random_samples (values, indices, float64 gradients), shapes with
drawn samples, and torch's errors."""
import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional

CASES = [
    (2, (2, 3, 9, 7), 3, {"output_size": (4, 3)}),
    (2, (3, 9, 7), (2, 3), {"output_ratio": (0.5, 0.5)}),
    (2, (1, 1, 16, 16), 1, {"output_ratio": (0.5, 0.5)}),
    (2, (1, 2, 5, 5), 2, {"output_size": 4}),
    (3, (2, 3, 7, 6, 9), (2, 3, 2), {"output_size": (3, 2, 4)}),
    (3, (3, 7, 6, 9), 2, {"output_ratio": (0.5, 0.6, 0.4)}),
    (3, (1, 1, 4, 4, 4), 2, {"output_size": 1}),
]


@pytest.mark.parametrize("n,shape,kernel,kwargs", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fixed_samples(n, shape, kernel, kwargs, dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    batch = 1 if len(shape) == n + 1 else shape[0]
    samples = rng.random((batch, shape[-n - 1], n)).astype(dtype)
    got = []
    for ns, F in ((minitorch, MF), (torch, TF)):
        t = ns.tensor(x, requires_grad=True)
        out, idx = getattr(F, f"fractional_max_pool{n}d")(
            t, kernel, return_indices=True, _random_samples=ns.tensor(samples), **kwargs)
        out.backward(ns.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape))
                               .astype(dtype)))
        got.append((out.detach().numpy(), idx.numpy(), t.grad.numpy()))
    for ours, theirs in zip(*got):
        np.testing.assert_array_equal(ours, theirs)
    module = getattr(mnn, f"FractionalMaxPool{n}d")(kernel, _random_samples=minitorch.tensor(
        samples), **kwargs)
    np.testing.assert_array_equal(module(minitorch.tensor(x)).numpy(), got[1][0])


def test_drawn_samples_shape_and_values_from_the_input():
    x = minitorch.randn(2, 3, 10, 10)
    out, idx = MF.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5), return_indices=True)
    assert tuple(out.shape) == (2, 3, 5, 5) and str(idx.dtype) == "minitorch.int64"
    flat = x.reshape(2, 3, -1)
    assert (flat.gather(2, idx.reshape(2, 3, -1)).reshape(out.shape) == out).all().item()


@pytest.mark.parametrize("call", [
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 4, output_size=3),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 2, output_size=5),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 2, output_size=2,
                                          _random_samples=ns.rand(1, 2, 2)),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 0, 5), 2, output_size=2),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 2),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 2, output_ratio=0.5),
    lambda ns, F: F.fractional_max_pool2d(ns.ones(1, 3, 5, 5), 2, output_ratio=(0.5,) * 3),
    lambda ns, F: F.fractional_max_pool3d(ns.ones(1, 3, 5, 5, 5), 4, output_size=3),
    lambda ns, F: F.fractional_max_pool3d(ns.ones(1, 3, 5, 5, 5), (1, 1, 3), output_size=4),
])
def test_errors(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("kwargs", [{}, {"output_size": 2, "output_ratio": 0.5},
                                    {"output_ratio": (0.5, 1.5)}])
def test_module_errors(kwargs):
    for cls in ("FractionalMaxPool2d", "FractionalMaxPool3d"):
        assert_same_error(lambda nn: getattr(nn, cls)(2, **kwargs), (mnn,), (torch.nn,))
