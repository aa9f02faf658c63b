"""torch._unsafe_masked_index and _unsafe_masked_index_put_accumulate
against torch: masks that drop in-range and out-of-range positions,
broadcast index shapes, None indices, every dtype, gradients of input and
values."""
import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def indices(shape, sizes, high, seed):
    """One int64 index per dim of shape, each of its size in sizes, laid
    along its own dim so they broadcast; values in [-1, high]."""
    rng = np.random.default_rng(seed)
    out = []
    for d, n in enumerate(sizes):
        view = [1] * len(shape)
        view[d] = n
        out.append(rng.integers(-1, high + 1, size=n).reshape(view))
    return out


def mask_of(idx, shape, lo=0):
    keep = np.ones(np.broadcast_shapes(*(i.shape for i in idx)), dtype=bool)
    for d, i in enumerate(idx):
        keep &= (i >= lo) & (i < shape[d] - lo)
    return keep


@pytest.mark.parametrize("shape,sizes,high", [((5, 5), (7, 7), 5), ((5, 5), (5, 5), 7),
                                              ((4, 3, 5), (6, 6, 6), 5)])
@pytest.mark.parametrize("lo", [0, 1])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_masked_index(shape, sizes, high, lo, dtype):
    rng = np.random.default_rng(0)
    a = (rng.normal(size=shape) * 5).astype(dtype)
    idx = indices(shape, sizes, high, 1)
    keep = mask_of(idx, shape, lo)
    fill = dtype(3) if dtype is not np.bool_ else True
    got = mt._unsafe_masked_index(mt.from_numpy(a.copy()), mt.from_numpy(keep),
                                  [mt.from_numpy(i) for i in idx], fill)
    want = torch._unsafe_masked_index(torch.from_numpy(a.copy()), torch.from_numpy(keep),
                                      [torch.from_numpy(i) for i in idx], fill)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("shape,sizes,high", [((5, 5), (7, 7), 5), ((5, 5), (5, 6), 7),
                                              ((4, 3, 5), (6, 5, 7), 5)])
@pytest.mark.parametrize("lo", [0, 1])
def test_masked_index_put_accumulate_and_gradients(shape, sizes, high, lo):
    rng = np.random.default_rng(2)
    a = rng.normal(size=shape)
    idx = indices(shape, sizes, high, 3)
    keep = mask_of(idx, shape, lo)
    v = rng.normal(size=keep.shape)
    x, tx = mt.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()
    y, ty = mt.from_numpy(v.copy()).requires_grad_(), torch.from_numpy(v.copy()).requires_grad_()
    got = mt._unsafe_masked_index_put_accumulate(x, mt.from_numpy(keep),
                                                 [mt.from_numpy(i) for i in idx], y)
    want = torch._unsafe_masked_index_put_accumulate(tx, torch.from_numpy(keep),
                                                     [torch.from_numpy(i) for i in idx], ty)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    c = rng.normal(size=shape)
    (got * mt.from_numpy(c)).sum().backward()
    (want * torch.from_numpy(c)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)
    # and the gather's gradient, through the same clamped indices
    x.grad = None
    tx.grad = None
    g = mt._unsafe_masked_index(x, mt.from_numpy(keep), [mt.from_numpy(i) for i in idx], 0.5)
    tg = torch._unsafe_masked_index(tx, torch.from_numpy(keep),
                                    [torch.from_numpy(i) for i in idx], 0.5)
    (g * mt.from_numpy(v)).sum().backward()
    (tg * torch.from_numpy(v)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_empty_input_gives_the_fill():
    got = mt._unsafe_masked_index(mt.ones(0, 3), mt.ones(2, 1, dtype=mt.bool),
                                  [mt.zeros(2, 1, dtype=mt.int64), mt.zeros(1, 4,
                                                                         dtype=mt.int64)], 2.0)
    want = torch._unsafe_masked_index(torch.ones(0, 3), torch.ones(2, 1, dtype=torch.bool),
                                      [torch.zeros(2, 1, dtype=torch.int64),
                                       torch.zeros(1, 4, dtype=torch.int64)], 2.0)
    assert got.tolist() == want.tolist() and list(got.shape) == list(want.shape)
