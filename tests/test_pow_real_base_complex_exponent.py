"""pow with a real base and a complex exponent: the exponent's gradient takes
the complex log of the base, so a negative base gives a finite gradient
(torch promotes the base before its log); compared with torch."""
import pytest

import minitorch

from side_by_side import both

torch = pytest.importorskip("torch")

BASES = {
    "negative": [-1.0, -2.5, -0.5],
    "mixed": [-3.0, 2.0, 0.5],
    "positive": [1.5, 4.0, 0.25],
}


def exponent(L, dtype):
    return L.tensor([0.5 - 1.0j, -1.25 + 0.5j, 2.0 + 0.75j], dtype=dtype)


@pytest.mark.parametrize("base", BASES.values(), ids=BASES.keys())
@pytest.mark.parametrize("cdtype", ["complex64", "complex128"])
@pytest.mark.parametrize("bdtype", ["float32", "float64"])
@pytest.mark.parametrize("form", ["tensor", "scalar", "method", "rpow"])
def test_exponent_grad(base, bdtype, cdtype, form):
    def scenario(L):
        e = exponent(L, getattr(L, cdtype)).requires_grad_()
        b = L.tensor(base, dtype=getattr(L, bdtype))
        if form == "tensor":
            y = L.pow(b, e)
        elif form == "scalar":
            y = L.pow(base[0], e)
        elif form == "method":
            y = b.pow(e)
        else:
            y = base[0] ** e
        w = L.tensor([1.0 + 0.5j, -0.25j, 2.0], dtype=y.dtype)
        (y * w).sum().abs().backward()
        return str(y.dtype).split(".")[-1], y.tolist(), e.grad.tolist()
    (ref_dtype, ref_y, ref_g), (dtype, y, g) = both(torch, scenario)
    assert dtype == ref_dtype
    tol = 1e-5 if dtype == "complex64" else 1e-12
    assert y == pytest.approx(ref_y, rel=tol)
    assert g == pytest.approx(ref_g, rel=tol)
    assert all(v == v for v in g)  # no NaN


@pytest.mark.parametrize("base", BASES.values(), ids=BASES.keys())
def test_gradcheck(base):
    b = minitorch.tensor(base, dtype=minitorch.float64)
    e = exponent(minitorch, minitorch.complex128).requires_grad_()
    assert minitorch.autograd.gradcheck(lambda x: minitorch.pow(b, x), (e,))
    assert minitorch.autograd.gradgradcheck(lambda x: minitorch.pow(b, x), (e,))
