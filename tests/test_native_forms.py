"""torch.native_layer_norm, torch.native_group_norm and
torch.grid_sampler_2d/3d against torch: every output (the statistics too),
gradients of input, weight and bias, and torch's refusals."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def both(shape, seed):
    a = np.random.default_rng(seed).normal(size=shape)
    return mt.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()


def compare(got, want, inputs):
    for g, w in zip(got, want):
        assert list(g.shape) == list(w.shape)
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    rng = np.random.default_rng(11)
    ws = [rng.normal(size=tuple(w.shape)) for w in want]
    sum((g * mt.from_numpy(c)).sum() for g, c in zip(got, ws)).backward()
    sum((w * torch.from_numpy(c)).sum() for w, c in zip(want, ws)).backward()
    for m, t in inputs:
        np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("shape,normalized", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)),
                                              ((5,), (5,)), ((2, 3, 4), (2, 3, 4))])
@pytest.mark.parametrize("affine", [False, True])
def test_native_layer_norm(shape, normalized, affine):
    x = both(shape, 0)
    w = both(normalized, 1) if affine else (None, None)
    b = both(normalized, 2) if affine else (None, None)
    got = mt.native_layer_norm(x[0], normalized, w[0], b[0], 1e-5)
    want = torch.native_layer_norm(x[1], normalized, w[1], b[1], 1e-5)
    compare(got, want, [x] + ([w, b] if affine else []))


def test_native_layer_norm_needs_a_normalized_dim():
    with pytest.raises(RuntimeError, match="Expected normalized_shape to be at least "
                                           "1-dimensional"):
        mt.native_layer_norm(mt.zeros(2, 3), [], None, None, 1e-5)


@pytest.mark.parametrize("shape,group", [((2, 6, 3), 2), ((1, 6, 3), 6), ((3, 4, 2, 2), 1),
                                         ((0, 4, 5), 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_native_group_norm(shape, group, affine):
    n, c = shape[0], shape[1]
    hw = int(np.prod(shape[2:]))
    x = both(shape, 0)
    w = both((c,), 1) if affine else (None, None)
    b = both((c,), 2) if affine else (None, None)
    got = mt.native_group_norm(x[0], w[0], b[0], n, c, hw, group, 0.5)
    want = torch.native_group_norm(x[1], w[1], b[1], n, c, hw, group, 0.5)
    if n == 0:
        assert [list(g.shape) for g in got] == [list(t.shape) for t in want]
        return
    compare(got, want, [x] + ([w, b] if affine else []))


@pytest.mark.parametrize("interpolation", [0, 1, 2])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sampler_2d(interpolation, padding, align_corners):
    x = both((2, 3, 5, 6), 0)
    g = both((2, 4, 3, 2), 1)
    got = mt.grid_sampler_2d(x[0], g[0], interpolation, padding, align_corners)
    want = torch.grid_sampler_2d(x[1], g[1], interpolation, padding, align_corners)
    compare([got], [want], [x] + ([g] if interpolation != 1 else []))


@pytest.mark.parametrize("interpolation", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
def test_grid_sampler_3d(interpolation, padding):
    x = both((1, 2, 3, 4, 5), 0)
    g = both((1, 2, 3, 2, 3), 1)
    got = mt.grid_sampler_3d(x[0], g[0], interpolation, padding, False)
    want = torch.grid_sampler_3d(x[1], g[1], interpolation, padding, False)
    compare([got], [want], [x] + ([g] if interpolation != 1 else []))


@pytest.mark.parametrize("shape", [(5, 3, 4), (4, 2), (3, 2, 2, 2)])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("momentum", [0.1, 0.5])
def test_native_batch_norm_training(shape, affine, momentum):
    c = shape[1]
    x = both(shape, 0)
    w = both((c,), 1) if affine else (None, None)
    b = both((c,), 2) if affine else (None, None)
    rm = (mt.zeros(c, dtype=mt.float64), torch.zeros(c, dtype=torch.float64))
    rv = (mt.ones(c, dtype=mt.float64), torch.ones(c, dtype=torch.float64))
    got = mt.native_batch_norm(x[0], w[0], b[0], rm[0], rv[0], True, momentum, 1e-5)
    want = torch.native_batch_norm(x[1], w[1], b[1], rm[1], rv[1], True, momentum, 1e-5)
    np.testing.assert_allclose(rm[0].numpy(), rm[1].numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv[0].numpy(), rv[1].numpy(), rtol=1e-12)
    assert not got[1].requires_grad and not got[2].requires_grad
    compare(got[:1], want[:1], [x] + ([w, b] if affine else []))
    for g, t in zip(got[1:], want[1:]):
        np.testing.assert_allclose(g.numpy(), t.detach().numpy(), rtol=1e-10)


def test_native_batch_norm_evaluation_and_out():
    x = both((4, 3, 2), 0)
    rm, rv = np.array([0.1, -0.2, 0.3]), np.array([1.5, 0.5, 2.0])
    got = mt.native_batch_norm(x[0], None, None, mt.from_numpy(rm.copy()),
                               mt.from_numpy(rv.copy()), False, 0.1, 1e-5)
    want = torch.native_batch_norm(x[1], None, None, torch.from_numpy(rm.copy()),
                                   torch.from_numpy(rv.copy()), False, 0.1, 1e-5)
    assert [list(g.shape) for g in got] == [list(t.shape) for t in want] == [[4, 3, 2], [0],
                                                                            [0]]
    np.testing.assert_allclose(got[0].detach().numpy(), want[0].detach().numpy(), rtol=1e-12)
    outs = tuple(mt.empty(0, dtype=mt.float64) for _ in range(3))
    back = mt.native_batch_norm(x[0].detach(), None, None, None, None, True, 0.1, 1e-5,
                                out=outs)
    assert all(a is b for a, b in zip(back, outs)) and list(outs[1].shape) == [3]


def test_native_batch_norm_evaluation_needs_running_statistics():
    # torch crashes on this call; minitorch refuses it
    with pytest.raises(RuntimeError, match="running_mean and running_var must be defined"):
        mt.native_batch_norm(mt.zeros(3, 2), None, None, None, None, False, 0.1, 1e-5)
