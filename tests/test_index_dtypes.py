"""Index dtypes of gather and the scatters, against torch: int32 indices are
taken as int64 ones are (values, in-place and out-of-place, reductions,
first and second derivatives, out-of-range errors); other dtypes refused
with torch's message."""
import warnings

import pytest

import minitorch as mt
from side_by_side import errmsg

torch = pytest.importorskip("torch")

IDX = [[0, 2, 0], [1, 0, 2]]


def _calls(L, i):
    x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    src = L.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    d = x.detach()
    return [
        lambda: x.gather(1, i),
        lambda: L.gather(d, 0, i[:, :2].remainder(2)),
        lambda: d.scatter(1, i, 7.0),
        lambda: d.scatter(1, i, src),
        lambda: d.clone().scatter_(1, i, src, reduce="add"),
        lambda: d.clone().scatter_(1, i, src, reduce="multiply"),
        lambda: d.scatter_add(1, i, src),
        lambda: L.autograd.grad(x.gather(1, i).pow(2).sum(), x)[0],
        lambda: L.autograd.grad(L.autograd.grad(x.gather(1, i).pow(3).sum(), x,
                                                create_graph=True)[0].sum(), x)[0],
        lambda: x.gather(1, i + 3),
        lambda: d.scatter(1, i - 4, 1.0),
    ]


@pytest.mark.parametrize("k", range(11))
@pytest.mark.parametrize("dtype", ["int32", "int64", "int16", "uint8", "float32"])
def test_index_dtypes_as_torch(dtype, k):
    def run(L):
        i = L.tensor(IDX, dtype=getattr(L, dtype))
        fn = _calls(L, i)[k]
        return errmsg(fn) or fn().tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch deprecates reduce= on scatter_
        assert run(mt) == run(torch)
