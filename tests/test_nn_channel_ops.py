"""F.prelu, F.rrelu, F.channel_shuffle, F.pdist, F.local_response_norm and
their modules against torch: values, float64 gradients and error messages."""
import numpy as np
import pytest

import minitorch
import minitorch.nn as mnn
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape, seed=0, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return minitorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _same(mcall, tcall, *shapes, grad=True):
    pairs = [_pair(s, seed=i) for i, s in enumerate(shapes)]
    mo, to = mcall(*(m for m, _ in pairs)), tcall(*(t for _, t in pairs))
    assert tuple(mo.shape) == tuple(to.shape)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    if not grad or to.numel() == 0:
        return
    g = np.random.default_rng(9).standard_normal(tuple(to.shape))
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    for m, t in pairs:
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape,wshape", [((2, 3, 4), (3,)), ((2, 3, 4), (1,)), ((5,), (1,)),
                                          ((), ()), ((2, 4, 2, 3, 2), (4,)), ((3, 2), ())])
def test_prelu(shape, wshape):
    _same(MF.prelu, TF.prelu, shape, wshape)


@pytest.mark.parametrize("shape,wshape", [((), (2,)), ((2, 8, 3), (9,)), ((2, 8, 3), (2, 4)),
                                          ((5,), (5,))])
def test_prelu_errors(shape, wshape):
    assert_same_error(lambda ns, F: F.prelu(ns.ones(shape), ns.ones(wshape)),
                      (minitorch, MF), (torch, TF))
    assert_same_error(lambda ns, F: F.prelu(ns.ones(3, dtype=ns.float64), ns.ones(1)),
                      (minitorch, MF), (torch, TF))


def test_prelu_module():
    m, t = mnn.PReLU(3, init=0.1), torch.nn.PReLU(3, init=0.1)
    assert repr(m) == repr(t)
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(m(minitorch.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    m(minitorch.tensor(x)).sum().backward()
    assert tuple(m.weight.grad.shape) == (3,)


@pytest.mark.parametrize("lower,upper", [(1 / 8, 1 / 3), (0.2, 0.2), (0.0, 0.5)])
def test_rrelu_eval_is_leaky_relu(lower, upper):
    _same(lambda x: MF.rrelu(x, lower, upper), lambda x: TF.rrelu(x, lower, upper), (4, 5))


def test_rrelu_training_draws_slopes_in_bounds():
    x = minitorch.tensor(np.linspace(-3, 3, 400), requires_grad=True)
    y = MF.rrelu(x, 0.1, 0.3, training=True)
    ratio = (y / x).detach().numpy()
    neg = x.detach().numpy() < 0
    assert np.all(ratio[~neg] == 1.0)
    assert np.all((ratio[neg] >= 0.1) & (ratio[neg] <= 0.3))
    assert len(np.unique(ratio[neg])) > 100
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio)


def test_rrelu_inplace_and_errors():
    x = minitorch.tensor([-2.0, 1.0, -4.0])
    assert MF.rrelu_(x, 0.5, 0.5, training=True) is x
    assert x.tolist() == [-1.0, 1.0, -2.0]
    assert MF.rrelu(x, 0.2, 0.4, inplace=True) is x
    for training in (False, True):
        assert_same_error(lambda ns, F: F.rrelu(ns.ones(5, 5), 0.3, 0.1, training),
                          (minitorch, MF), (torch, TF))
    m, t = mnn.RReLU(0.1, 0.3, inplace=True), torch.nn.RReLU(0.1, 0.3, inplace=True)
    assert repr(m) == repr(t)


@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 2), ((2, 6, 3, 4), 3), ((1, 4, 2, 2, 2), 4),
                                          ((2, 0, 3, 4), 3), ((3, 5, 2), 1)])
def test_channel_shuffle(shape, groups):
    _same(lambda x: MF.channel_shuffle(x, groups), lambda x: TF.channel_shuffle(x, groups),
          shape)
    assert repr(mnn.ChannelShuffle(groups)) == repr(torch.nn.ChannelShuffle(groups))


@pytest.mark.parametrize("shape,groups", [((2, 6), 2), ((2, 6, 3), 0), ((2, 6, 3), -1),
                                          ((2, 6, 3), 4)])
def test_channel_shuffle_errors(shape, groups):
    assert_same_error(lambda ns, F: F.channel_shuffle(ns.ones(shape), groups),
                      (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("shape", [(5, 3), (2, 7), (1, 4), (0, 3), (4, 0)])
@pytest.mark.parametrize("p", [2, 1, 0.5, 3, float("inf"), 0])
def test_pdist(shape, p):
    _same(lambda x: MF.pdist(x, p), lambda x: TF.pdist(x, p), shape, grad=p != 0)


@pytest.mark.parametrize("make,p", [(lambda ns: ns.ones(3), 2), (lambda ns: ns.ones(3, 2), -1),
                                    (lambda ns: ns.ones(3, 2, dtype=ns.int64), 2)])
def test_pdist_errors(make, p):
    assert_same_error(lambda ns, F: F.pdist(make(ns), p), (minitorch, MF), (torch, TF))


@pytest.mark.parametrize("shape", [(2, 5, 3), (2, 6, 3, 4), (1, 4, 2, 3, 2), (2, 1, 3)])
@pytest.mark.parametrize("size,alpha,beta,k", [(2, 1e-4, 0.75, 1.0), (3, 0.5, 0.3, 2.0),
                                               (5, 1.0, 1.5, 0.5)])
def test_local_response_norm(shape, size, alpha, beta, k):
    _same(lambda x: MF.local_response_norm(x, size, alpha, beta, k),
          lambda x: TF.local_response_norm(x, size, alpha, beta, k), shape)


def test_local_response_norm_int_empty_and_errors():
    a = np.arange(60).reshape(3, 4, 5)
    got = MF.local_response_norm(minitorch.tensor(a), 3, 0.01)
    want = TF.local_response_norm(torch.tensor(a), 3, 0.01)
    assert str(got.dtype) == "minitorch.float32"
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    empty = minitorch.ones(0, 3, 2)
    assert MF.local_response_norm(empty, 2) is empty
    assert_same_error(lambda ns, F: F.local_response_norm(ns.ones(3, 4), 2),
                      (minitorch, MF), (torch, TF))
    assert repr(mnn.LocalResponseNorm(3, k=2.0)) == repr(torch.nn.LocalResponseNorm(3, k=2.0))
