"""Modules added for torch's module_db and the argument checks it asks for,
against torch: Softmax2d, HuberLoss, BatchNorm3d; CircularPad's rank check;
RNN/GRU/LSTM's constructor types and input dtype; cross_entropy's integer
target shaped like the input."""
import numpy as np
import pytest

import minitorch as mt
import minitorch.nn as nn
import minitorch.nn.functional as F

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)


def _raises_like(fn_mt, fn_torch):
    with pytest.raises(Exception) as want:
        fn_torch()
    with pytest.raises(want.type) as got:
        fn_mt()
    assert str(got.value).replace("minitorch", "torch") == str(want.value)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (3, 4, 5), (1, 1, 2, 2)])
def test_softmax2d(shape):
    x = RNG.standard_normal(shape)
    a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = nn.Softmax2d()(a), torch.nn.Softmax2d()(b)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12)
    w = RNG.standard_normal(shape)
    (ya * mt.tensor(w)).sum().backward()
    (yb * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4, 5, 6)])
def test_softmax2d_rank(shape):
    _raises_like(lambda: nn.Softmax2d()(mt.zeros(shape)),
                 lambda: torch.nn.Softmax2d()(torch.zeros(shape)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("delta", [1.0, 0.5, 2, 3.5])
def test_huber_loss_module(reduction, delta):
    x, t = RNG.standard_normal((4, 5)) * 3, RNG.standard_normal((4, 5))
    a = mt.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    la = nn.HuberLoss(reduction, delta)(a, mt.tensor(t))
    lb = torch.nn.HuberLoss(reduction, delta)(b, torch.tensor(t))
    np.testing.assert_allclose(la.detach().numpy(), lb.detach().numpy(), rtol=1e-12)
    la.sum().backward()
    lb.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


def test_huber_loss_checks():
    for delta in (1j, "1", None):
        _raises_like(lambda: nn.HuberLoss(delta=delta), lambda: torch.nn.HuberLoss(delta=delta))
    for kwargs in ({"weight": (3,)}, {"delta": 0.0}, {"delta": -1.5},
                   {"delta": -1.0, "weight": (3,)}, {"delta": -1.0, "reduction": "x"}):
        def call(lib, kwargs=kwargs):
            kw = {k: lib.ones(v) if k == "weight" else v for k, v in kwargs.items()}
            return lib.nn.functional.huber_loss(lib.zeros(2, 3), lib.zeros(2, 3), **kw)
        _raises_like(lambda: call(mt), lambda: call(torch))


@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("affine,track", [(True, True), (False, False), (True, False)])
def test_batchnorm3d(affine, track, momentum):
    x = RNG.standard_normal((3, 2, 3, 4, 2))
    ma = nn.BatchNorm3d(2, momentum=momentum, affine=affine, track_running_stats=track)
    mb = torch.nn.BatchNorm3d(2, momentum=momentum, affine=affine, track_running_stats=track)
    ma, mb = ma.double(), mb.double()
    for train in (True, True, False):
        ma.train(train)
        mb.train(train)
        a, b = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yb = ma(a), mb(b)
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
        ya.pow(2).sum().backward()
        yb.pow(2).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)
        if track:
            np.testing.assert_allclose(ma.running_var.numpy(), mb.running_var.numpy(),
                                       rtol=1e-12)
    assert repr(ma) == repr(mb)


@pytest.mark.parametrize("rank", [3, 4, 6])
def test_batchnorm3d_rank(rank):
    _raises_like(lambda: nn.BatchNorm3d(2)(mt.zeros((2,) * rank)),
                 lambda: torch.nn.BatchNorm3d(2)(torch.zeros((2,) * rank)))


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("rank", [1, 2, 3, 4, 5, 6])
def test_circular_pad_rank(n, rank):
    shape = (3,) * rank
    if rank in (n + 1, n + 2):
        x = RNG.standard_normal(shape)
        np.testing.assert_array_equal(getattr(nn, f"CircularPad{n}d")(1)(mt.tensor(x)).numpy(),
                                      getattr(torch.nn, f"CircularPad{n}d")(1)(
                                          torch.tensor(x)).numpy())
    else:
        _raises_like(lambda: getattr(nn, f"CircularPad{n}d")(1)(mt.zeros(shape)),
                     lambda: getattr(torch.nn, f"CircularPad{n}d")(1)(torch.zeros(shape)))


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kwargs", [{"bias": 1}, {"batch_first": 0}, {"input_size": 3.0},
                                    {"input_size": 0}, {"input_size": -2}])
def test_rnn_constructor_checks(name, kwargs):
    args = {"input_size": 3, "hidden_size": 4, **kwargs}
    _raises_like(lambda: getattr(nn, name)(**args), lambda: getattr(torch.nn, name)(**args))


@pytest.mark.parametrize("name", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("shape", [(5, 3), (5, 2, 3)])
@pytest.mark.parametrize("module_dtype,input_dtype", [("float32", "float64"),
                                                      ("float64", "float32")])
def test_rnn_input_dtype(name, shape, module_dtype, input_dtype):
    _raises_like(
        lambda: getattr(nn, name)(3, 4).to(getattr(mt, module_dtype))(
            mt.zeros(shape, dtype=getattr(mt, input_dtype))),
        lambda: getattr(torch.nn, name)(3, 4).to(getattr(torch, module_dtype))(
            torch.zeros(shape, dtype=getattr(torch, input_dtype))))


def test_rnn_packed_input_dtype():
    from minitorch.nn.utils.rnn import pack_padded_sequence
    from torch.nn.utils.rnn import pack_padded_sequence as t_pack
    _raises_like(
        lambda: nn.GRU(3, 4)(pack_padded_sequence(mt.zeros(4, 2, 3, dtype=mt.float64),
                                                  [4, 2])),
        lambda: torch.nn.GRU(3, 4)(t_pack(torch.zeros(4, 2, 3, dtype=torch.float64), [4, 2])))


@pytest.mark.parametrize("shape", [(3,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_cross_entropy_integer_probabilities(shape, dtype):
    _raises_like(lambda: F.cross_entropy(mt.zeros(shape), mt.zeros(shape,
                                                                   dtype=getattr(mt, dtype))),
                 lambda: torch.nn.functional.cross_entropy(
                     torch.zeros(shape), torch.zeros(shape, dtype=getattr(torch, dtype))))
