"""conv3d and nn.Conv3d against torch: values, gradients of input, weight and
bias, padding strings, and errors."""
import numpy as np
import pytest

import minitorch as mt
from nn_oracle import check_against_torch, check_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)

CASES = [
    ((2, 4, 5, 6, 5), (6, 4, 3, 3, 3), {}),
    ((2, 4, 7, 6, 5), (6, 2, 3, 2, 3), dict(stride=(2, 1, 2), padding=(1, 2, 0),
                                            dilation=(2, 1, 1), groups=2)),
    ((4, 6, 6, 5), (3, 4, 2, 3, 4), dict(padding="same", dilation=(1, 2, 1))),
    ((1, 3, 4, 5, 6), (2, 3, 2, 2, 2), dict(padding="valid", stride=2)),
    ((2, 3, 3, 3, 3), (3, 1, 1, 1, 1), dict(groups=3)),
    ((0, 2, 4, 4, 4), (3, 2, 2, 2, 2), {}),
    ((1, 2, 5, 4, 4), (3, 2, 4, 1, 1), dict(padding="same")),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x,w,kw", CASES)
def test_conv3d(x, w, kw, bias, dtype):
    check_against_torch(torch, RNG, "conv3d", [x, w, (w[0],) if bias else None], dtype=dtype,
                        **kw)


def test_torch_level_name():
    assert mt.conv3d is mt.nn.functional.conv3d


@pytest.mark.parametrize("kw", [dict(stride=2, padding=1, groups=2),
                                dict(padding="same", dilation=2, bias=False)])
def test_module_matches_torch(kw):
    ours = mt.nn.Conv3d(4, 6, 3, **kw)
    theirs = torch.nn.Conv3d(4, 6, 3, **kw).double()
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    assert repr(ours) == repr(theirs)
    ours.weight = mt.nn.Parameter(mt.tensor(theirs.weight.detach().numpy()))
    if theirs.bias is not None:
        ours.bias = mt.nn.Parameter(mt.tensor(theirs.bias.detach().numpy()))
    x = RNG.standard_normal((2, 4, 5, 6, 5))
    ya, yb = ours(mt.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), atol=1e-10)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-9)


X = (2, 4, 5, 5, 5)


@pytest.mark.parametrize("call", [
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 7, 3, 3)),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 3, 3, 3, 3)),
    lambda ns: ns.nn.functional.conv3d(ns.ones(5, 5), ns.ones(6, 3, 3, 3, 3)),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), padding="same",
                                       stride=2),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), padding="foo"),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), ns.ones(5)),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), groups=4),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), stride=0),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), padding=-1),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3), dilation=(1, 2)),
    lambda ns: ns.nn.functional.conv3d(ns.ones(X), ns.ones(6, 4, 3, 3, 3, dtype=ns.float64)),
])
def test_errors(call):
    check_same_error(torch, call)


def test_double_backward():
    from minitorch.autograd import gradgradcheck
    x = mt.randn(1, 2, 3, 4, 3, dtype=mt.float64, requires_grad=True)
    w = mt.randn(2, 2, 2, 2, 2, dtype=mt.float64, requires_grad=True)
    assert gradgradcheck(lambda x, w: mt.conv3d(x, w, padding="same"), (x, w))
