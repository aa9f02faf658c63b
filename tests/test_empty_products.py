"""Matrix products with an empty dim, against torch: made for every dtype
torch makes them for (bool too, whose non-empty products torch refuses),
zeros where k is 0, and addmm's beta * input then."""
import pytest

import minitorch as mt
from side_by_side import errmsg

torch = pytest.importorskip("torch")

SHAPES = [((0, 3), (3, 2)), ((2, 0), (0, 2)), ((2, 3), (3, 0)), ((0, 0), (0, 0)),
          ((2, 3), (3, 2))]


@pytest.mark.parametrize("a,b", SHAPES)
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32", "float64", "uint8"])
@pytest.mark.parametrize("fn", ["mm", "matmul", "bmm"])
def test_products_with_empty_dims(fn, dtype, a, b):
    def run(L):
        d = getattr(L, dtype)
        x, y = L.ones(*a, dtype=d), L.ones(*b, dtype=d)
        if fn == "bmm":
            x, y = x.unsqueeze(0), y.unsqueeze(0)
        err = errmsg(lambda: getattr(L, fn)(x, y))
        if err:
            return err
        out = getattr(L, fn)(x, y)
        return tuple(out.shape), str(out.dtype).split(".")[-1], out.tolist()
    assert run(mt) == run(torch)


@pytest.mark.parametrize("dtype", ["int64", "float32"])
def test_addmm_with_k_zero_is_beta_times_input(dtype):
    def run(L):
        d = getattr(L, dtype)
        c = L.tensor([[1, 2], [3, 4]], dtype=d)
        return L.addmm(c, L.ones(2, 0, dtype=d), L.ones(0, 2, dtype=d), beta=3).tolist()
    assert run(mt) == run(torch)
