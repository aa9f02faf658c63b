"""gcd, lcm, heaviside, nextafter, isposinf and isneginf against torch:
values on edge inputs (0, negatives, INT64_MIN, NaN, infinities, signed
zeros), dtype rules and errors, the in-place and out= forms, and
nextafter's gradients."""
import itertools

import numpy as np
import pytest

import minitorch as mt
from minitorch.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 5e-324, 1e300, -3.5,
           float("inf"), -float("inf"), float("nan")]


def both(values, dtype):
    return mt.tensor(values, dtype=getattr(mt, dtype)), torch.tensor(values,
                                                                     dtype=getattr(torch, dtype))


def same(got, want):
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def raises_as_torch(fn_mt, fn_torch):
    with pytest.raises(Exception) as want:
        fn_torch()
    with pytest.raises(type(want.value)) as got:
        fn_mt()
    assert str(got.value) == str(want.value)


INTS = [0, 1, -1, 12, -18, 7, 2**62, -2**63, 2**63 - 1, 1000000007, -30]


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_gcd_lcm_over_pairs(name, dtype):
    info = np.iinfo(dtype)
    # torch's lcm divides INT64_MIN by -1 (gcd(INT64_MIN, 7) is -1 there)
    # and dies of SIGFPE: only gcd meets it
    vals = [v for v in INTS if info.min <= v <= info.max and (name == "gcd" or v != -2**63)]
    xs, ys = zip(*itertools.product(vals, vals))
    (mx, tx), (my, ty) = both(list(xs), dtype), both(list(ys), dtype)
    same(getattr(mt, name)(mx, my), getattr(torch, name)(tx, ty))


def test_gcd_lcm_broadcast_inplace_and_out():
    (mx, tx), (my, ty) = both([[12, -8, 0]], "int64"), both([[18], [0], [-4]], "int64")
    same(mt.gcd(mx, my), torch.gcd(tx, ty))
    same(mt.lcm(mx, my), torch.lcm(tx, ty))
    a, b = both([[12, -8, 0], [5, 9, 100]], "int64")
    same(a.clone().gcd_(my[:2]), b.clone().gcd_(ty[:2]))
    same(mt.lcm_(a.clone(), my[:2]), torch.lcm_(b.clone(), ty[:2]))
    out_m, out_t = mt.empty(0, dtype=mt.int64), torch.empty(0, dtype=torch.int64)
    assert mt.gcd(mx, my, out=out_m) is out_m
    same(out_m, torch.gcd(tx, ty, out=out_t))


@pytest.mark.parametrize("name", ["gcd", "lcm"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "bool"])
def test_gcd_lcm_refuse_non_integers(name, dtype):
    (m, t) = both([1, 0], dtype)
    raises_as_torch(lambda: getattr(mt, name)(m, m), lambda: getattr(torch, name)(t, t))


def test_gcd_is_not_differentiable_and_needs_tensors():
    raises_as_torch(lambda: mt.gcd(mt.tensor([4]), 6), lambda: torch.gcd(torch.tensor([4]), 6))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "int32"])
def test_heaviside_values(dtype):
    if dtype == "bool":
        xs, ys = [True, False, True, False], [False, True, True, False]
    elif dtype.startswith("int"):
        xs, ys = [-3, 0, 2, 0, 0], [7, 7, 7, -1, 0]
    else:
        xs, ys = zip(*itertools.product(SPECIAL, [0.5, float("nan"), -2.0]))
    (mx, tx), (my, ty) = both(list(xs), dtype), both(list(ys), dtype)
    same(mt.heaviside(mx, my), torch.heaviside(tx, ty))
    same(mx.heaviside(my), tx.heaviside(ty))
    same(mx.clone().heaviside_(my), tx.clone().heaviside_(ty))


def test_heaviside_broadcasts_and_refuses_mixed_dtypes():
    (mx, tx), (my, ty) = both([[-1.0, 0.0, 2.0]], "float32"), both([[0.25], [0.75]], "float32")
    same(mt.heaviside(mx, my), torch.heaviside(tx, ty))
    out_m, out_t = mt.empty(2, 3), torch.empty(2, 3)
    mt.heaviside(mx, my, out=out_m)
    same(out_m, torch.heaviside(tx, ty, out=out_t))
    (mi, ti) = both([1], "int64")
    raises_as_torch(lambda: mt.heaviside(mx, mi), lambda: torch.heaviside(tx, ti))
    raises_as_torch(lambda: mt.heaviside(mx, 0.5), lambda: torch.heaviside(tx, 0.5))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nextafter_values(dtype):
    xs, ys = zip(*itertools.product(SPECIAL, SPECIAL))
    (mx, tx), (my, ty) = both(list(xs), dtype), both(list(ys), dtype)
    same(mt.nextafter(mx, my), torch.nextafter(tx, ty))
    same(mx.clone().nextafter_(my), tx.clone().nextafter_(ty))


def test_nextafter_dtypes_and_errors():
    (m32, t32), (m64, t64) = both([1.0, 2.0], "float32"), both([3.0, 0.0], "float64")
    same(mt.nextafter(m32, m64), torch.nextafter(t32, t64))
    (mi, ti) = both([1, 2], "int64")
    raises_as_torch(lambda: mt.nextafter(mi, mi), lambda: torch.nextafter(ti, ti))
    # in place, the float64 step rounds back into the float32 self
    same(m32.clone().nextafter_(m64), t32.clone().nextafter_(t64))


def test_nextafter_gradients():
    x = mt.tensor([1.0, -2.0, 3.0], dtype=mt.float64, requires_grad=True)
    y = mt.tensor([0.0, 5.0, 3.0], dtype=mt.float64, requires_grad=True)
    r = mt.nextafter(x, y)
    assert type(r.grad_fn).__name__ == "NextafterBackward0"
    gx, gy = mt.autograd.grad(r.sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(gy.numpy(), [0.0, 0.0, 0.0])
    assert gradcheck(mt.nextafter, (x, y))
    assert gradgradcheck(mt.nextafter, (x, y))


@pytest.mark.parametrize("name", ["isposinf", "isneginf"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
def test_isposinf_isneginf(name, dtype):
    values = SPECIAL if dtype.startswith("float") else [0, 1, 1] if dtype in ("bool", "uint8") \
        else [0, -5, 2**62]
    m, t = both(values, dtype)
    same(getattr(mt, name)(m), getattr(torch, name)(t))
    same(getattr(m, name)(), getattr(t, name)())
    out_m, out_t = mt.empty(len(values), dtype=mt.bool), torch.empty(len(values), dtype=torch.bool)
    getattr(mt, name)(m, out=out_m)
    same(out_m, getattr(torch, name)(t, out=out_t))
    raises_as_torch(lambda: getattr(mt, name)(m, out=mt.empty(len(values))),
                    lambda: getattr(torch, name)(t, out=torch.empty(len(values))))
