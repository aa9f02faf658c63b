"""torch._chunk_cat against torch: tensors of one and of several ndims,
padding of uneven chunks, non-contiguous inputs, dtypes, out=, gradients
and torch's refusals in torch's order."""
import numpy as np
import pytest

import minitorch as mt
from torch_errors import same_error

torch = pytest.importorskip("torch")

CASES = [([(1, 2, 3), (1, 2, 3)], -1, 5), ([(1, 2, 129), (1, 2, 297)], -1, 5),
         ([(1, 2, 3), (1, 2, 3)], 1, 5), ([(3, 3, 2, 1), (1, 4, 2, 2), (2, 1, 3, 3)], 0, 2),
         ([(2, 3, 3), (2, 3, 1, 2), (2, 3), (2, 3, 2), (2, 3, 271)], 0, 3),
         ([(2, 3, 3), (2, 3, 1, 2), (2, 3), (2, 3, 2), (2, 3, 271)], 1, 3),
         ([(6,)], 0, 1), ([(7,)], 0, 7), ([(4, 4)], 1, 3)]


def pair(shapes, seed, dtype=np.float64, transposed=False):
    rng = np.random.default_rng(seed)
    arrays = [(rng.normal(size=s) * 5).astype(dtype) for s in shapes]
    ours, theirs = [], []
    for a in arrays:
        m, t = mt.from_numpy(a.copy()), torch.from_numpy(a.copy())
        if transposed and a.ndim > 1:
            m = m.transpose(-2, -1).contiguous().transpose(-2, -1)
            t = t.transpose(-2, -1).contiguous().transpose(-2, -1)
        ours.append(m)
        theirs.append(t)
    return ours, theirs


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("transposed", [False, True])
def test_values(case, dtype, transposed):
    shapes, dim, chunks = CASES[case]
    ours, theirs = pair(shapes, case, dtype, transposed)
    got = mt._chunk_cat(ours, dim, chunks)
    want = torch._chunk_cat(theirs, dim, chunks)
    assert list(got.shape) == list(want.shape)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("case", [0, 2, 3, 6, 7, 8])
def test_gradients_and_out(case):
    # torch's has no derivative; ours is pad, view and cat's
    shapes, dim, chunks = CASES[case]
    ours, theirs = pair(shapes, case)
    for t in ours:
        t.requires_grad_()
    assert mt.autograd.gradcheck(lambda *ts: mt._chunk_cat(list(ts), dim, chunks), tuple(ours))
    got = mt._chunk_cat(ours, dim, chunks)
    c = np.random.default_rng(1).normal(size=tuple(got.shape))
    (got * mt.from_numpy(c)).sum().backward()
    # each input's gradient is its place in the result, read back with torch's op
    places = [torch.arange(float(np.prod(s)), dtype=torch.float64).reshape(s) + 1
              for s in shapes]
    for m, p in zip(ours, places):
        # the result of the numbered input alone, the others zero
        where = torch._chunk_cat([q if q is p else q * 0 for q in places], dim, chunks)
        flat = torch.from_numpy(c)[where != 0]
        order = where[where != 0].long() - 1
        expected = torch.zeros(p.numel(), dtype=torch.float64)
        expected[order] = flat
        assert m.grad.reshape(-1).tolist() == expected.tolist()
    want = torch._chunk_cat(theirs, dim, chunks)
    out = mt.empty(0, dtype=mt.float64)
    assert mt._chunk_cat([o.detach() for o in ours], dim, chunks, out=out) is out
    assert out.tolist() == want.tolist()


@pytest.mark.parametrize("shapes,dim,chunks", [
    ([(2, 3), (4,)], -1, 3), ([(2, 3), (4,)], 1, 3), ([(2, 3, 4), (4, 3)], 1, 3),
    ([(2,), (3,)], 0, -1), ([(2,), (3,)], 0, 0), ([], 0, 1), ([(0,), (3,)], 0, 1),
    ([(2, 3)], 2, 1), ([(2, 0)], 1, 2),
])
def test_errors(shapes, dim, chunks):
    ours, theirs = pair(shapes, 0, np.float32)
    same_error(lambda: mt._chunk_cat(ours, dim, chunks),
               lambda: torch._chunk_cat(theirs, dim, chunks))


def test_mixed_dtypes_refused():
    same_error(lambda: mt._chunk_cat([mt.ones(2, 3), mt.ones(2, 4, dtype=mt.float64)], 1, 2),
               lambda: torch._chunk_cat([torch.ones(2, 3),
                                         torch.ones(2, 4, dtype=torch.float64)], 1, 2))
