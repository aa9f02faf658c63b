"""take_along_dim against torch: along a dim its indices are taken modulo the
dim's size (negative ones from the end, none out of range); flattened, they
are checked; only int64 indices; broadcasting of input and indices;
gradients."""
import pytest

import minitorch as mt
from side_by_side import errmsg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("idx,dim", [
    ([[-1], [0]], 1), ([[5], [0]], 1), ([[-7], [0]], 1), ([[-6, 2], [0, -1]], 1),
    ([[3], [0]], 1), ([[-1, 0, 1]], 0), ([[2, -3, 1]], 0), ([-1, 2, 0], None),
    ([6, 0], None), ([[0], [1]], -1), ([[[0]], [[1]]], 1),
])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_take_along_dim_as_torch(idx, dim, dtype):
    def run(L):
        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        i = L.tensor(idx, dtype=getattr(L, dtype))
        err = errmsg(lambda: L.take_along_dim(x, i, dim))
        if err:
            return err
        y = L.take_along_dim(x, i, dim)
        g, = L.autograd.grad(y.sum(), x)
        return y.tolist(), g.tolist(), x.take_along_dim(i, dim).tolist()
    assert run(mt) == run(torch)
