"""copysign, the op added to show the plain-C op layer's recipe (one row and
its derivative in csrc/ops/pointwise.def, the impl in csrc/ops/pointwise.c,
the loop in csrc/kernels/pointwise.c, the formula in
csrc/autograd/formulas_pointwise.c): checked against torch."""
import math

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def both(values, dtype):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values,
                                                                      dtype=getattr(torch, dtype))


def same(got, want):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g = np.array(got.to(mt.float64).tolist(), dtype=np.float64)
    w = want.to(torch.float64).numpy()
    assert np.array_equal(np.signbit(g), np.signbit(w))
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dx", DTYPES)
@pytest.mark.parametrize("dy", DTYPES)
def test_values_and_result_dtype_against_torch(dx, dy):
    xs = [1, 0, 3, 1, 0, 2] if dx in ("uint8", "bool") else [1.5, -2.0, 0.0, -0.0, 3.0, -1.0]
    ys = [1, 0, 1, 0, 1, 1] if dy in ("uint8", "bool") else [-1.0, 2.0, -0.0, 1.0, -3.0, 0.0]
    if "int" in dx:
        xs = [int(v) for v in xs]
    if "int" in dy:
        ys = [int(v) for v in ys]
    (x, tx), (y, ty) = both(xs, dx), both(ys, dy)
    same(mt.copysign(x, y), torch.copysign(tx, ty))


def test_nan_infinity_and_signed_zero():
    vals = [math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 2.5]
    (x, tx), (y, ty) = both(vals, "float64"), both(list(reversed(vals)), "float64")
    got, want = mt.copysign(x, y), torch.copysign(tx, ty)
    g = np.array(got.tolist())
    w = want.numpy()
    assert np.array_equal(np.signbit(g), np.signbit(w))
    np.testing.assert_array_equal(g, w)


def test_broadcasting_numbers_method_and_inplace():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((3, 1, 4)), rng.standard_normal((5, 1))
    x, y = mt.tensor(a), mt.tensor(b)
    tx, ty = torch.tensor(a), torch.tensor(b)
    same(mt.copysign(x, y), torch.copysign(tx, ty))
    same(x.copysign(-2), tx.copysign(-2))
    same(mt.copysign(x, -0.0), torch.copysign(tx, -0.0))
    z, tz = x.clone(), tx.clone()
    assert z.copysign_(mt.tensor([-1.0, 1.0, -1.0, 1.0])) is z
    tz.copysign_(torch.tensor([-1.0, 1.0, -1.0, 1.0]))
    same(z, tz)


def test_out_and_errors_match_torch():
    out = mt.empty(2)
    assert mt.copysign(mt.tensor([1, 2]), mt.tensor([-1, 1]), out=out) is out
    same(out, torch.copysign(torch.tensor([1, 2]), torch.tensor([-1, 1])))
    cases = [
        lambda lib: lib.copysign(lib.tensor([1, 2]), lib.tensor([1, 2]),
                                 out=lib.empty(2, dtype=lib.int64)),
        lambda lib: lib.tensor([1, 2]).copysign_(lib.tensor([-1, 1])),
        lambda lib: lib.copysign(lib.ones(2), lib.ones(3)),
        lambda lib: lib.ones(2).copysign_(lib.ones(2, 2)),
    ]
    for case in cases:
        with pytest.raises(Exception) as want:
            case(torch)
        with pytest.raises(type(want.value)) as got:
            case(mt)
        assert str(got.value) == str(want.value).replace("torch.", "minitorch.")


def test_gradients_and_grad_fn_names_match_torch():
    xs, ys = [1.5, -2.0, 0.0, 0.5], [-1.0, 3.0, -2.0, -0.0]
    x = mt.tensor(xs, dtype=mt.float64, requires_grad=True)
    y = mt.tensor(ys, dtype=mt.float64, requires_grad=True)
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    ty = torch.tensor(ys, dtype=torch.float64, requires_grad=True)
    r, tr = mt.copysign(x, y), torch.copysign(tx, ty)
    assert r.grad_fn.name() == tr.grad_fn.name() == "CopysignBackward0"
    assert mt.copysign(x, 2.0).grad_fn.name() == torch.copysign(tx, 2.0).grad_fn.name()
    w = [0.3, -1.0, 2.0, 4.0]
    (r * mt.tensor(w, dtype=mt.float64)).sum().backward()
    (tr * torch.tensor(w, dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()
    assert y.grad.tolist() == ty.grad.tolist() == [0.0] * 4


def test_inplace_gradient_reads_the_input_before_it_was_overwritten():
    base = mt.tensor([1.5, -2.0, 3.0], dtype=mt.float64, requires_grad=True)
    tbase = torch.tensor([1.5, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    x, tx = base * 1, tbase * 1
    x.copysign_(mt.tensor([-1.0, -1.0, 1.0], dtype=mt.float64))
    tx.copysign_(torch.tensor([-1.0, -1.0, 1.0], dtype=torch.float64))
    assert x.grad_fn.name() == tx.grad_fn.name()
    x.sum().backward()
    tx.sum().backward()
    assert base.grad.tolist() == tbase.grad.tolist()


def test_gradcheck_and_gradgradcheck():
    x = mt.tensor([[0.7, -1.2, 0.4], [-0.3, 2.0, -0.9]], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([-1.0, 0.5, 2.0], dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(mt.copysign, (x, y))
    assert mt.autograd.gradgradcheck(mt.copysign, (x, y))
