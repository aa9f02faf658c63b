"""F.pixel_shuffle/pixel_unshuffle, F.unfold/fold and their modules against torch:
values, gradients and error messages."""
import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as MF
from torch_error_helpers import assert_same_error

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return minitorch.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _same(mcall, tcall, shape):
    m, t = _pair(shape)
    mo, to = mcall(m), tcall(t)
    assert tuple(mo.shape) == tuple(to.shape)
    np.testing.assert_allclose(mo.detach().numpy(), to.detach().numpy(), atol=1e-12)
    if to.numel() == 0:  # torch's PixelShuffleBackward0 fails on an empty batch
        return
    g = np.random.default_rng(1).standard_normal(tuple(to.shape))
    mo.backward(minitorch.tensor(g))
    to.backward(torch.tensor(g))
    np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((18, 2, 3), 3), ((2, 1, 4, 3, 2), 1),
                                     ((0, 4, 2, 2), 2)])
def test_pixel_shuffle(shape, r):
    _same(lambda x: MF.pixel_shuffle(x, r), lambda x: TF.pixel_shuffle(x, r), shape)
    if 0 in shape:  # torch's pixel_unshuffle returns an empty input unreshaped
        return
    up = shape[:-3] + (shape[-3] // (r * r), shape[-2] * r, shape[-1] * r)
    _same(lambda x: MF.pixel_unshuffle(x, r), lambda x: TF.pixel_unshuffle(x, r), up)


def test_pixel_shuffle_round_trip_and_modules():
    m, t = _pair((2, 12, 3, 4))
    ms, ts = minitorch.nn.PixelShuffle(2), torch.nn.PixelShuffle(2)
    mu, tu = minitorch.nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)
    assert (repr(ms), repr(mu)) == (repr(ts), repr(tu))
    np.testing.assert_array_equal(mu(ms(m)).detach().numpy(), m.detach().numpy())
    np.testing.assert_array_equal(ms(m).detach().numpy(), ts(t).detach().numpy())


UNFOLD = [dict(kernel_size=2), dict(kernel_size=(2, 3), stride=2),
          dict(kernel_size=3, padding=1), dict(kernel_size=(3, 2), dilation=(2, 1), padding=(2, 1),
                                               stride=(1, 2))]


@pytest.mark.parametrize("kw", UNFOLD)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 6), (0, 2, 5, 5)])
def test_unfold_fold(kw, shape):
    _same(lambda x: MF.unfold(x, **kw), lambda x: TF.unfold(x, **kw), shape)
    cols = TF.unfold(torch.zeros(shape), **kw).shape
    size = shape[-2:]
    _same(lambda x: MF.fold(x, size, **kw), lambda x: TF.fold(x, size, **kw), tuple(cols))


def test_fold_modules():
    m, t = _pair((2, 12, 9))
    mf, tf = minitorch.nn.Fold((4, 5), (2, 3)), torch.nn.Fold((4, 5), (2, 3))
    assert repr(mf) == repr(tf)
    np.testing.assert_allclose(mf(m).detach().numpy(), tf(t).detach().numpy(), atol=1e-12)
    mu, tu = minitorch.nn.Unfold(2, padding=1), torch.nn.Unfold(2, padding=1)
    assert repr(mu) == repr(tu)
    np.testing.assert_allclose(mu(mf(m)).detach().numpy(), tu(tf(t)).detach().numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L, F: F.pixel_shuffle(L.ones(4, 4), 2),
    lambda L, F: F.pixel_shuffle(L.ones(3, 4, 4), 2),
    lambda L, F: F.pixel_shuffle(L.ones(4, 4, 4), 0),
    lambda L, F: F.pixel_shuffle(L.ones(4, 4, 4), 2.0),
    lambda L, F: F.pixel_unshuffle(L.ones(4, 4), 2),
    lambda L, F: F.pixel_unshuffle(L.ones(1, 3, 4), 2),
    lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 3), 2),
    lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 4), -1),
    lambda L, F: F.unfold(L.ones(4, 4), 2),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), 5),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), 0),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), 2, stride=0),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), 2, padding=-1),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), 2, dilation=0),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4), (2, 2, 2)),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4, 4), 2),
    lambda L, F: F.unfold(L.ones(1, 0, 4, 4), 2),
    lambda L, F: F.unfold(L.ones(1, 1, 4, 4, dtype=L.int64), 2),
    lambda L, F: F.fold(L.ones(1, 5, 9), 4, 2),
    lambda L, F: F.fold(L.ones(1, 4, 8), 4, 2),
    lambda L, F: F.fold(L.ones(1, 1, 4, 9), (4, 4), 2),
    lambda L, F: F.fold(L.ones(1, 4, 9), (4, 4), 2, stride=0),
    lambda L, F: F.fold(L.ones(1, 4, 9), (1, 1), 2),
    lambda L, F: F.fold(L.ones(1, 4, 9), (4, 4, 4), 2),
])
def test_errors(call):
    assert_same_error(call, (minitorch, MF), (torch, TF))
