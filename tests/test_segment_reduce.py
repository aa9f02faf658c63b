"""torch.segment_reduce against torch: every reduction, with and without
initial, by lengths and by offsets, along axis 0 and 1, unsafe lengths that
leave a tail out, empty segments, gradients, and torch's refusals."""
import numpy as np
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")

REDUCTIONS = ["sum", "prod", "mean", "max", "min", "amax", "amin"]
CASES = [((5,), 0, [0, 1, 2, 2], False), ((5,), 0, [2, 0, 3, 0], False),
         ((5, 3), 0, [1, 4], False), ((8, 2, 2), 0, [1, 2, 0, 4], True),
         ((3, 5), 1, [[0, 1, 2, 2], [2, 0, 3, 0], [5, 0, 0, 0]], False),
         ((2, 5, 3), 1, [[2, 3], [0, 5]], False)]


def both(shape, seed):
    a = np.random.default_rng(seed).uniform(0.5, 2.0, size=shape)
    return (mt.from_numpy(a.copy()).requires_grad_(),
            torch.from_numpy(a.copy()).requires_grad_())


def offsets_of(lengths):
    lengths = np.asarray(lengths)
    zeros = np.zeros(lengths.shape[:-1] + (1,), dtype=np.int64)
    return np.concatenate([zeros, lengths], -1).cumsum(-1)


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("initial", [None, 1.5])
@pytest.mark.parametrize("by", ["lengths", "offsets"])
def test_values_and_gradients(reduce, case, initial, by):
    shape, axis, lengths, unsafe = CASES[case]
    x, tx = both(shape, case)
    given = np.asarray(lengths) if by == "lengths" else offsets_of(lengths)
    kw = {by: mt.tensor(given.tolist()), "axis": axis, "unsafe": unsafe, "initial": initial}
    tkw = {by: torch.tensor(given.tolist()), "axis": axis, "unsafe": unsafe, "initial": initial}
    got = mt.segment_reduce(x, reduce, **kw)
    want = torch.segment_reduce(tx, reduce, **tkw)
    assert list(got.shape) == list(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    c = np.random.default_rng(9).normal(size=tuple(want.shape))
    # an empty segment gives NaN or inf without initial: weight it zero so the sums compare
    c = np.where(np.isfinite(want.detach().numpy()), c, 0.0)
    (got * mt.from_numpy(c)).sum().backward()
    (want * torch.from_numpy(c)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_float32_and_no_segments_left_out():
    a = np.arange(6, dtype=np.float32)
    got = mt.segment_reduce(mt.from_numpy(a), "sum", lengths=mt.tensor([0, 2, 1]), unsafe=True)
    want = torch.segment_reduce(torch.from_numpy(a), "sum", lengths=torch.tensor([0, 2, 1]),
                                unsafe=True)
    assert got.dtype == mt.float32 and got.tolist() == want.tolist()


@pytest.mark.parametrize("reduce,kw", [
    ("foo", {"lengths": [1, 4]}),
    ("sum", {}),
    ("sum", {"indices": [1, 4]}),
    ("sum", {"lengths": [1, 2]}),
    ("sum", {"lengths": [1, -1, 5]}),
    ("sum", {"lengths": [1, 4], "axis": 1}),
])
def test_errors(reduce, kw):
    data = [1.0, 5.0, 2.0, 3.0, 4.0]
    def call(lib):
        args = {k: (lib.tensor(v) if isinstance(v, list) else v) for k, v in kw.items()}
        return lib.segment_reduce(lib.tensor(data), reduce, **args)
    same_error(lambda: call(mt), lambda: call(torch))


def test_integer_data_refused():
    same_error(lambda: mt.segment_reduce(mt.tensor([1, 2]), "sum", lengths=mt.tensor([2])),
               lambda: torch.segment_reduce(torch.tensor([1, 2]), "sum",
                                            lengths=torch.tensor([2])))
