"""conv_transpose1d/2d/3d and their modules against torch: values, gradients
of input, weight and bias, output_size in the module forward, and errors."""
import numpy as np
import pytest

import minitorch as mt
from nn_oracle import check_against_torch, check_same_error

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(17)

CASES_2D = [
    ((2, 4, 5, 6), (4, 3, 3, 2), {}),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2),
                                      groups=2, dilation=(1, 2))),
    ((4, 5, 6), (4, 2, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ((1, 6, 3, 3), (6, 1, 4, 4), dict(stride=2, padding=1, groups=6)),
    ((3, 2, 4, 4), (2, 5, 1, 1), dict(stride=3, output_padding=2)),
    ((0, 2, 4, 4), (2, 3, 3, 3), dict(stride=2)),
    ((2, 3, 4, 4), (3, 4, 5, 5), dict(padding=2, dilation=2, output_padding=1)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("x,w,kw", CASES_2D)
def test_conv_transpose2d(x, w, kw, bias, dtype):
    b = (w[1] * kw.get("groups", 1),) if bias else None
    check_against_torch(torch, RNG, "conv_transpose2d", [x, w, b], dtype=dtype, **kw)


@pytest.mark.parametrize("x,w,kw", [
    ((2, 4, 7), (4, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2)),
    ((4, 7), (4, 2, 4), {}),
    ((3, 2, 5), (2, 6, 1), dict(stride=4, output_padding=3)),
])
def test_conv_transpose1d(x, w, kw):
    check_against_torch(torch, RNG, "conv_transpose1d", [x, w, (w[1] * kw.get("groups", 1),)],
                        **kw)


@pytest.mark.parametrize("x,w,kw", [
    ((2, 4, 4, 5, 3), (4, 3, 3, 2, 2), dict(stride=(2, 1, 3), padding=(1, 0, 1),
                                            output_padding=(1, 0, 2), groups=2,
                                            dilation=(2, 1, 1))),
    ((3, 3, 4, 4), (3, 2, 2, 2, 2), dict(stride=2)),
    ((1, 2, 2, 3, 3), (2, 2, 1, 3, 3), dict(padding=(0, 1, 1))),
    ((1, 2, 2, 3, 3), (2, 2, 3, 1, 2), dict(padding=(1, 0, 0), dilation=(2, 1, 1),
                                            output_padding=(1, 0, 0))),
])
def test_conv_transpose3d(x, w, kw):
    check_against_torch(torch, RNG, "conv_transpose3d", [x, w, (w[1] * kw.get("groups", 1),)],
                        **kw)


def test_torch_level_names():
    assert mt.conv_transpose2d is mt.nn.functional.conv_transpose2d
    assert mt.conv_transpose1d is mt.nn.functional.conv_transpose1d
    assert mt.conv_transpose3d is mt.nn.functional.conv_transpose3d


@pytest.mark.parametrize("n", [1, 2, 3])
def test_modules_match_torch(n):
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1)
    ours = getattr(mt.nn, f"ConvTranspose{n}d")(4, 6, 3, **kw)
    theirs = getattr(torch.nn, f"ConvTranspose{n}d")(4, 6, 3, **kw).double()
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) == (4, 3) + (3,) * n
    assert repr(ours) == repr(theirs)
    ours.weight = mt.nn.Parameter(mt.tensor(theirs.weight.detach().numpy()))
    ours.bias = mt.nn.Parameter(mt.tensor(theirs.bias.detach().numpy()))
    x = RNG.standard_normal((2, 4) + (4,) * n)
    ya, yb = ours(mt.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), atol=1e-10)
    ya.sum().backward()
    yb.sum().backward()
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), atol=1e-9)
    np.testing.assert_allclose(ours.bias.grad.numpy(), theirs.bias.grad.numpy(), atol=1e-9)


@pytest.mark.parametrize("size", [[8, 8], [7, 8], [2, 6, 8, 7]])
def test_module_output_size(size):
    x = RNG.standard_normal((2, 4, 4, 4)).astype(np.float32)
    ya = mt.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(mt.tensor(x), output_size=size)
    yb = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(torch.tensor(x),
                                                                output_size=size)
    assert tuple(ya.shape) == tuple(yb.shape)


@pytest.mark.parametrize("size,start", [
    ([9, 8], "requested an output size of [9, 8], but valid sizes range from [7, 7] to [8, 8]"),
    ([1, 2, 3], "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 3)"),
])
def test_module_output_size_errors(size, start):
    x = mt.randn(2, 4, 4, 4)
    with pytest.raises(ValueError) as ours:
        mt.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(x, output_size=size)
    assert str(ours.value).startswith(start)
    with pytest.raises(ValueError) as theirs:
        torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1)(torch.randn(2, 4, 4, 4),
                                                               output_size=size)
    assert str(theirs.value).startswith(start)


def test_module_padding_mode():
    for ns in (torch, mt):
        with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                             'ConvTranspose2d'):
            ns.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")


X, W = (2, 4, 5, 5), (4, 3, 3, 3)


@pytest.mark.parametrize("call", [
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), output_padding=1),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), stride=2,
                                                 output_padding=2),
    lambda ns: ns.nn.functional.conv_transpose1d(ns.ones(2, 4, 5), ns.ones(4, 3, 3),
                                                 output_padding=1),
    lambda ns: ns.nn.functional.conv_transpose3d(ns.ones(1, 4, 3, 3, 3), ns.ones(4, 3, 3, 3, 3),
                                                 output_padding=1),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(4, 5), ns.ones(W)),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(5, 3, 3, 3)),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), groups=3),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), ns.ones(4)),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), padding=-1),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), stride=0),
    lambda ns: ns.nn.functional.conv_transpose2d(ns.ones(X), ns.ones(W), stride=(1, 2, 3)),
])
def test_errors(call):
    check_same_error(torch, call)


def test_double_backward():
    from minitorch.autograd import gradgradcheck
    x = mt.randn(1, 2, 3, 4, dtype=mt.float64, requires_grad=True)
    w = mt.randn(2, 2, 2, 3, dtype=mt.float64, requires_grad=True)
    b = mt.randn(4, dtype=mt.float64, requires_grad=True)
    assert gradgradcheck(lambda x, w, b: mt.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                              output_padding=1, groups=2),
                         (x, w, b))
    x3 = mt.randn(1, 2, 3, 3, 3, dtype=mt.float64, requires_grad=True)
    w3 = mt.randn(2, 1, 2, 2, 2, dtype=mt.float64, requires_grad=True)
    assert gradgradcheck(lambda x, w: mt.conv_transpose3d(x, w, stride=2, output_padding=1,
                                                           groups=2), (x3, w3))
