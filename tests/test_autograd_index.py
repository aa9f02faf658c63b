import numpy as np
import pytest

from autograd_check import check

torch = pytest.importorskip("torch")
R = np.random.default_rng(3).standard_normal


def L(m, v):
    return m.tensor(v, dtype=m.int64)


GETITEM = [
    (lambda m, x: x[1:3], "SliceBackward0"),
    (lambda m, x: x[0, 1:4], "SliceBackward0"),
    (lambda m, x: x[::2, ..., 1:], "SliceBackward0"),
    (lambda m, x: x[L(m, [0, 2, 0])], "IndexBackward0"),
    (lambda m, x: x[x > 0], "IndexBackward0"),
    (lambda m, x: x[[1, 1, 3]], "IndexBackward0"),
    (lambda m, x: x[:, L(m, [4, 0]), None], "IndexBackward0"),
    # torch names the grad_fn for the view op it applies last
    (lambda m, x: x[1], "SelectBackward0"),
    (lambda m, x: x[:, 1], "SelectBackward0"),
    (lambda m, x: x[1:3, 0], "SelectBackward0"),
    (lambda m, x: x[..., 0], "SelectBackward0"),
    (lambda m, x: x[m.tensor(2)], "SelectBackward0"),
    (lambda m, x: x[None], "UnsqueezeBackward0"),
    (lambda m, x: x[0, ..., None], "UnsqueezeBackward0"),
    (lambda m, x: x[None, 0], "SelectBackward0"),
    (lambda m, x: x[:], "SliceBackward0"),  # a bare slice is always sliced
    (lambda m, x: x[:, :], "AliasBackward0"),
    (lambda m, x: x[0:10, ...], "AliasBackward0"),
    (lambda m, x: x[True], "IndexBackward0"),
    (lambda m, x: x[0, [1, 2]], "IndexBackward0"),
    (lambda m, x: x[m.tensor(True)], "IndexBackward0"),
]


@pytest.mark.parametrize("case", range(len(GETITEM)))
def test_getitem(case):
    f, name = GETITEM[case]
    check(torch, f, R((4, 5, 3)), name=name, double=case % 2 == 0)


IDX = [
    (lambda m, x: m.cat([x, x * 2, x[:1]], 0), "CatBackward0"),
    (lambda m, x: m.concat([x, x], 1), "CatBackward0"),
    (lambda m, x: m.stack([x, x * 3], 1), "StackBackward0"),
    (lambda m, x: x.flip((0, 2)), "FlipBackward0"),
    (lambda m, x: x.roll((1, -2), (0, 1)), "RollBackward0"),
    (lambda m, x: x.roll(3), "RollBackward0"),
    (lambda m, x: x.repeat(2, 1, 3, 1), "RepeatBackward0"),
    (lambda m, x: x.tile((2,)), "RepeatBackward0"),
    (lambda m, x: x.index_select(1, L(m, [4, 0, 4])), "IndexSelectBackward0"),
    (lambda m, x: x.take(L(m, [[0, -1], [7, 7]])), "TakeBackward0"),
    (lambda m, x: x.gather(1, L(m, np.zeros((4, 2, 3), int))), "GatherBackward0"),
    (lambda m, x: x.masked_fill(x > 0, 2.0), "MaskedFillBackward0"),
    (lambda m, x: x.masked_select(x[0] > 0), "MaskedSelectBackward0"),
    (lambda m, x: x.tril(1), "TrilBackward0"),
    (lambda m, x: x.triu(-1), "TriuBackward0"),
    (lambda m, x: m.nonzero(x > 0).double().sum() + x.sum(), None),
]


@pytest.mark.parametrize("case", range(len(IDX)))
def test_index_ops(case):
    f, name = IDX[case]
    check(torch, f, R((4, 5, 3)), name=name, double=case % 3 == 0)


def test_scatter_family():
    ix = np.array([[0, 1], [2, 2], [1, 0]])
    check(torch, lambda m, x, s: x.scatter(1, L(m, ix), s), R((3, 4)), R((3, 2)),
          name="ScatterBackward0", double=True)
    check(torch, lambda m, x, s: (x * 1).scatter_(1, L(m, ix), s), R((3, 4)), R((3, 2)))
    check(torch, lambda m, x, s: x.scatter_add(1, L(m, ix), s), R((3, 4)), R((3, 2)),
          name="ScatterAddBackward0", double=True)
    check(torch, lambda m, x, s: (x * 1).scatter_add_(1, L(m, ix), s), R((3, 4)), R((3, 2)))
    check(torch, lambda m, x, s: (x * 1).index_add_(0, L(m, [2, 0, 2]), s, alpha=-1.5),
          R((3, 4)), R((3, 4)), name="IndexAddBackward0", double=True)
    check(torch, lambda m, x, v: x.masked_fill(x > 0, v), R((3, 4)), R(()))
    check(torch, lambda m, x: (x * 1).masked_fill_(x < 0, 0.5), R((3, 4)),
          name="MaskedFillBackward0")


SET = [
    (lambda m: L(m, [0, 2, 2]), (3, 5)),
    (lambda m: (slice(1, 3), 0), (2,)),
    (lambda m: (Ellipsis, L(m, [1, 4])), (4, 2)),
    (lambda m: 1, (1, 5)),
]


@pytest.mark.parametrize("case", range(len(SET)))
def test_setitem_nonleaf(case):
    key, vshape = SET[case]

    def f(m, base, v):
        x = base * 1
        x[key(m)] = v
        return x * x

    check(torch, f, R((4, 5)), R(vshape))


def test_setitem_number_and_name():
    import minitorch as mt

    def f(m, base):
        x = base * 2
        x[x > 0] = 0.0
        return x
    check(torch, f, R((4, 5)))
    x = mt.ones(3, dtype=mt.float64, requires_grad=True) * 1
    x[0] = 5.0
    assert type(x.grad_fn).__name__ == "IndexPutBackward0"
    with pytest.raises(RuntimeError, match="leaf Variable"):
        mt.ones(3, requires_grad=True)[0] = 1.0
