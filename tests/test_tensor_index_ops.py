"""minitorch.composites_index against torch: values, gradients, in-place and
view semantics, dtypes and errors of the index, scatter and diagonal functions."""
import re
import numpy as np
import pytest

import minitorch as mt
from test_kernels_extra import both

torch = pytest.importorskip("torch")

R = np.random.default_rng(13)
A = R.standard_normal((5, 6, 4))

CASES = [
    lambda m, a: a.index_copy(1, m.tensor([3, 0]), a[:, :2] * 2),
    lambda m, a: m.index_fill(a, -1, m.tensor([1, 2]), 3.0),
    lambda m, a: m.index_add(a, 0, m.tensor([1, 1, 4]), a[:3] * 1.5, alpha=2),
    lambda m, a: a.index_add(2, m.tensor([0]), a[:, :, 1:2]),
    lambda m, a: m.select_scatter(a, a[:, 0, :] * 3, 1, -2),
    lambda m, a: m.slice_scatter(a, a[:, 1:6:2] * 2, 1, 1, None, 2),
    lambda m, a: m.slice_scatter(a, a[:2] * 2, 0, 3),
    lambda m, a: m.diag_embed(a, 1, 0, 2),
    lambda m, a: a.diag_embed(-2),
    lambda m, a: a.unfold(1, 3, 2),
    lambda m, a: a.transpose(0, 2).unfold(-1, 5, 1) * 2,
    lambda m, a: a[0, 0, 0].unfold(0, 1, 1),
    lambda m, a: (a[:4, :4, :4] * 1).fill_diagonal_(2.0),
    lambda m, a: (a[:, :4, :1].reshape(5, 4) * 1).fill_diagonal_(7.0, True),
    lambda m, a: (a.reshape(40, 3)[:, ::2] * 1).fill_diagonal_(-1, wrap=True),
    lambda m, a: (a[0] * 1).index_copy_(0, m.tensor([2, 0]), a[1, :2]),
    lambda m, a: (a[0] * 1).index_fill_(1, m.tensor([1]), -2.5),
]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_matches_torch(k):
    ma, ta = mt.tensor(A, requires_grad=True), torch.tensor(A, requires_grad=True)
    ym, yt = CASES[k](mt, ma), CASES[k](torch, ta)
    assert tuple(ym.shape) == tuple(yt.shape)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-13)
    up = R.standard_normal(tuple(yt.shape))
    ym.backward(mt.tensor(up))
    yt.backward(torch.tensor(up))
    np.testing.assert_allclose(ma.grad.numpy(), ta.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_unfold_is_a_view_and_in_place_ops_return_self():
    x = mt.zeros(3, 8)
    w = x.unfold(1, 4, 3)
    w[1, 1].fill_(5.0)
    assert w._base is x and x[1, 3:7].tolist() == [5.0] * 4
    assert x.index_fill_(0, mt.tensor([0]), 1.0) is x and x.fill_diagonal_(2.0) is x
    assert x.index_copy_(1, mt.tensor([7]), mt.ones(3, 1)) is x
    assert x[:, 7].tolist() == [1.0] * 3 and x[0, 0].item() == 2.0


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "float32"])
def test_dtypes(dtype):
    data = (np.arange(60).reshape(3, 4, 5) % 4).astype(dtype)
    idx = np.array([2, 0])
    both(lambda m, x, i: m.index_copy(x, 1, i, x[:, :2]), data, idx)
    both(lambda m, x, i: m.index_fill(x, 2, i, 1), data, idx)
    both(lambda m, x: m.select_scatter(x, x[1], 0, 2), data)
    both(lambda m, x: m.slice_scatter(x, x[:, ::2], 1, None, None, 2), data)
    both(lambda m, x: m.diag_embed(x, -1), data)
    both(lambda m, x: x.unfold(2, 2, 2), data)
    both(lambda m, x: x[:, :3, :3].clone().fill_diagonal_(1), data)
    if dtype != "bool":
        both(lambda m, x, i: m.index_add(x, 0, i, x[:2], alpha=2), data, idx)


def test_zero_size():
    both(lambda m, x: x.unfold(0, 0, 1), np.ones((0, 3)))
    both(lambda m, x: x.unfold(1, 2, 1), np.ones((0, 3)))
    both(lambda m, x: m.diag_embed(x), np.ones((2, 0)))
    both(lambda m, x: m.index_fill(x, 1, m.tensor([], dtype=m.int64), 2.0), np.ones((2, 3)))
    both(lambda m, x: m.slice_scatter(x, x[:, 3:], 1, 3), np.ones((2, 3)))
    both(lambda m, x: x.clone().fill_diagonal_(3.0), np.ones((0, 0)))


def test_errors_match_torch():
    cases = [
        lambda m, x: x.unfold(0, 6, 1),
        lambda m, x: x.unfold(1, 2, 0),
        lambda m, x: x.unfold(3, 1, 1),
        lambda m, x: x.clone().fill_diagonal_(1.0),
        lambda m, x: x[0, 0].clone().fill_diagonal_(1.0),
        lambda m, x: x.index_copy(0, m.tensor([0]), x[:2]),
        lambda m, x: x.index_fill(0, m.tensor([0.0]), 1.0),
        lambda m, x: m.select_scatter(x, x[0, 0], 0, 0),
        lambda m, x: m.slice_scatter(x, x[:2], 0, 1),
        lambda m, x: m.diag_embed(x, 0, 1, -2),
    ]
    for f in cases:
        both(f, A)


NEGATIVE_INDEX_CASES = {
    "gather": lambda L, x: L.gather(x, 0, L.tensor([-1])),
    "index_select": lambda L, x: L.index_select(x, 0, L.tensor([-1])),
    "index_select past the end": lambda L, x: L.index_select(x, 0, L.tensor([5])),
    "scatter_": lambda L, x: x.clone().scatter_(0, L.tensor([-1]), 5.0),
    "scatter_add": lambda L, x: L.scatter_add(x, 0, L.tensor([-1]), L.tensor([5.0])),
    "index_add_": lambda L, x: x.clone().index_add_(0, L.tensor([-1]), L.tensor([5.0])),
    "take counts from the end": lambda L, x: L.take(x, L.tensor([-1])),
    "x[t] counts from the end": lambda L, x: x[L.tensor([-1])],
}


@pytest.mark.parametrize("case", sorted(NEGATIVE_INDEX_CASES))
def test_negative_indices_as_torch(case):
    try:
        want = NEGATIVE_INDEX_CASES[case](torch, torch.tensor([1.0, 2.0, 3.0]))
    except (IndexError, RuntimeError) as e:
        with pytest.raises(type(e), match="^" + re.escape(str(e)) + "$"):
            NEGATIVE_INDEX_CASES[case](mt, mt.tensor([1.0, 2.0, 3.0]))
        return
    assert NEGATIVE_INDEX_CASES[case](mt, mt.tensor([1.0, 2.0, 3.0])).tolist() == want.tolist()
