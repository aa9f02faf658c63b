"""minitorch.composites_split against torch: values, dtypes, view-ness,
gradients and errors of the splitting, stacking and block-building functions."""
import numpy as np
import pytest

import minitorch as mt
from test_composites import check_grads
from test_kernels_extra import both

torch = pytest.importorskip("torch")

R = np.random.default_rng(11)
A = R.standard_normal((4, 6, 5))
B = R.standard_normal((3, 5))

CASES = [
    lambda m, a, b: m.tensor_split(a, 4, 1),
    lambda m, a, b: a.tensor_split(7, -1),
    lambda m, a, b: m.tensor_split(a, [1, 4, -2, 9], dim=1),
    lambda m, a, b: m.tensor_split(a, [3, 1], -3),
    lambda m, a, b: m.tensor_split(a.transpose(0, 2), m.tensor([2, 3]), 0),
    lambda m, a, b: m.tensor_split(a, m.tensor(3)),
    lambda m, a, b: m.hsplit(a, 3),
    lambda m, a, b: a.hsplit([2, 5]),
    lambda m, a, b: m.hsplit(a[0, 0], 5),
    lambda m, a, b: m.vsplit(a, [1, 1]),
    lambda m, a, b: a.vsplit(2),
    lambda m, a, b: m.dsplit(a, 5),
    lambda m, a, b: a.dsplit([3]),
    lambda m, a, b: m.dstack([a, a * 2]),
    lambda m, a, b: m.dstack([b, b[0:3, :]]),
    lambda m, a, b: m.dstack((a[0, 0], b[0])),
    lambda m, a, b: m.column_stack([b[:, 0], b, b[:, 1:3]]),
    lambda m, a, b: m.column_stack([b[0, 0], b[1, 1]]),
    lambda m, a, b: m.concatenate([a, a[:2]]),
    lambda m, a, b: m.concatenate((a, a[:, :1]), 1),
    lambda m, a, b: m.concatenate([b, b], axis=-1),
    lambda m, a, b: m.rot90(a),
    lambda m, a, b: a.rot90(2, [2, 0]),
    lambda m, a, b: m.rot90(a, -1, [-1, 1]),
    lambda m, a, b: m.rot90(b, 7),
    lambda m, a, b: m.rot90(b.t(), 0),
    lambda m, a, b: m.diagflat(b),
    lambda m, a, b: b[0].diagflat(-2),
    lambda m, a, b: m.diagflat(a[0, 0, 0], 1),
    lambda m, a, b: m.kron(b, a[0, :2, :3]),
    lambda m, a, b: a[:2, :2].kron(b[0]),
    lambda m, a, b: m.kron(b[0, 0], b.t()),
    lambda m, a, b: m.inner(a, b),
    lambda m, a, b: b[0].inner(b[1]),
    lambda m, a, b: m.inner(a, b[0, 0]),
    lambda m, a, b: m.block_diag(b, a[0, :2, :1], b[0], b[1, 1]),
    lambda m, a, b: m.block_diag(b.t()),
    lambda m, a, b: m.cartesian_prod(b[0], b[1, :2], a[0, 0, :3]),
    lambda m, a, b: m.cartesian_prod(b[0]),
]


def _flat(out):
    """One tensor of every output's elements, so one backward reaches them all."""
    outs = out if isinstance(out, tuple) else (out,)
    return outs, [o.reshape(-1) for o in outs]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_torch(k):
    ma, mb = (mt.tensor(x, requires_grad=True) for x in (A, B))
    ta, tb = (torch.tensor(x, requires_grad=True) for x in (A, B))
    (mo, mflat), (to, tflat) = _flat(CASES[k](mt, ma, mb)), _flat(CASES[k](torch, ta, tb))
    assert len(mo) == len(to)
    for x, y in zip(mo, to):
        assert tuple(x.shape) == tuple(y.shape)
        np.testing.assert_allclose(x.detach().numpy(), y.detach().numpy(), rtol=1e-12,
                                   atol=1e-13)
    check_grads(mt.cat(mflat), torch.cat(tflat), ((ma, ta), (mb, tb)))


def test_splits_are_views_named_as_torch():
    x = mt.zeros(4, 6)
    for k, part in enumerate(mt.tensor_split(x, [1, 3], 1) + x.hsplit(2) + x.vsplit([1])):
        part.fill_(k + 1)
        assert part._base is x and (x == k + 1).sum().item() == part.numel()
    y = mt.ones(4, 6, requires_grad=True)
    assert y.tensor_split(3)[0].grad_fn.name() == "SliceBackward0"
    assert mt.rot90(y).grad_fn.name() == "TransposeBackward0"


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32"])
def test_dtypes(dtype):
    data = (np.arange(24).reshape(2, 3, 4) % 3).astype(dtype)
    ints = np.arange(3)
    both(lambda m, x: m.dstack([x, x]), data)
    both(lambda m, x: m.column_stack([x[0], x[1]]), data)
    both(lambda m, x: m.rot90(x, 1, [1, 2]), data)
    both(lambda m, x: m.block_diag(x[0], x[1, :1]), data)
    both(lambda m, x, i: m.block_diag(x[0], i), data, ints)
    both(lambda m, x: m.cartesian_prod(x[0, 0], x[1, 1]), data)
    both(lambda m, x: m.diagflat(x[0]), data)
    if dtype != "bool":
        both(lambda m, x: m.kron(x[0], x[1]), data)
        both(lambda m, x: m.inner(x[0], x[1]), data)


def test_zero_size():
    both(lambda m, x: m.stack(m.tensor_split(x, 3, 1)), np.ones((2, 0)))
    both(lambda m, x: m.cat(m.tensor_split(x, [1, 1], 0)), np.ones((0, 3)))
    both(lambda m, x: m.kron(x, x), np.ones((0, 3)))
    both(lambda m, x: m.block_diag(x, x[:, :1]), np.ones((2, 0)))
    both(lambda m, x: m.inner(x, x), np.ones((2, 0)))
    both(lambda m, x: m.cartesian_prod(x, x[:0]), np.arange(3))


def test_index_functions():
    flat = R.integers(-30, 30, (3, 4))
    both(lambda m, i: m.stack(m.unravel_index(i, (5, 6))), flat)
    both(lambda m, i: m.stack(m.unravel_index(i, 30)), flat[0] % 30)
    for row, col, off in [(4, 5, 0), (4, 5, -2), (3, 3, 2), (0, 4, 0), (5, 2, 1), (3, 4, -9)]:
        for name in ("tril_indices", "triu_indices"):
            both(lambda m: getattr(m, name)(row, col, off))
    both(lambda m: m.tril_indices(3, 4, dtype=m.int32))


def test_errors_match_torch():
    cases = [
        lambda m, x: m.tensor_split(x, 0),
        lambda m, x: m.tensor_split(x[0, 0, 0], 2),
        lambda m, x: m.tensor_split(x, m.ones(2, 2, dtype=m.int64)),
        lambda m, x: m.hsplit(x, 4),
        lambda m, x: m.hsplit(x[0, 0, 0], 1),
        lambda m, x: m.vsplit(x[0, 0], 2),
        lambda m, x: m.vsplit(x, 0),
        lambda m, x: m.dsplit(x, 3),
        lambda m, x: m.dsplit(x[0], [1]),
        lambda m, x: m.dstack([]),
        lambda m, x: m.column_stack([]),
        lambda m, x: m.rot90(x[0, 0]),
        lambda m, x: m.rot90(x, 1, [1, 1]),
        lambda m, x: m.rot90(x, 1, [0, -3]),
        lambda m, x: m.rot90(x, 1, [0]),
        lambda m, x: m.inner(x, x[0, 0, :2]),
        lambda m, x: m.block_diag(x),
        lambda m, x: m.cartesian_prod(x[0]),
        lambda m, x: m.unravel_index(m.tensor([1]), (2, -3)),
        lambda m, x: m.tril_indices(-1, 2),
        lambda m, x: m.triu_indices(2, -1),
    ]
    for f in cases:
        both(f, A)
    # torch's words, with the dtype spelled as minitorch prints it
    with pytest.raises(TypeError, match="^expected 'indices' to be integer dtype, but got "
                                        "minitorch.float64$"):
        mt.unravel_index(mt.tensor(A), (2, 3))
