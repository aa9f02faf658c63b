"""minitorch.linalg's triangular solves, Cholesky and LDL^T against torch:
solve_triangular, triangular_solve, cholesky(_ex), torch.cholesky,
cholesky_solve, cholesky_inverse, ldl_factor(_ex), ldl_solve: values,
batches, non-contiguous inputs, gradients, forward AD and errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import raises_like, rand, same, to_np, tol

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_solve_triangular(upper, left, unit, dtype):
    a, t = rand(2, 4, 4, dtype=dtype, kind="tri")
    b, tb = rand(2, 4, 3, dtype=dtype, seed=1) if left else rand(2, 3, 4, dtype=dtype, seed=1)
    same(mt.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
         torch.linalg.solve_triangular(t, tb, upper=upper, left=left, unitriangular=unit),
         **tol(dtype))


def test_solve_triangular_broadcast_noncontiguous_and_empty():
    a, t = rand(4, 4, kind="tri")
    b, tb = rand(3, 2, 4, seed=1)
    same(mt.linalg.solve_triangular(a.mT, b.mT, upper=True),
         torch.linalg.solve_triangular(t.mT, tb.mT, upper=True))
    e, te = rand(0, 4, 4)
    same(mt.linalg.solve_triangular(e, mt.zeros(0, 4, 2, dtype=mt.float64), upper=False),
         torch.linalg.solve_triangular(te, torch.zeros(0, 4, 2, dtype=torch.float64),
                                       upper=False))


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_gradients(upper, left, unit):
    a, t = rand(2, 3, 3, kind="tri")
    b, tb = rand(2, 3, 2, seed=1) if left else rand(2, 2, 3, seed=1)
    am, bm = a.clone().requires_grad_(), b.clone().requires_grad_()
    at, bt = t.clone().requires_grad_(), tb.clone().requires_grad_()

    def fm(x, y):
        return mt.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit)

    assert mt.autograd.gradcheck(fm, (am, bm), check_forward_ad=True)
    assert mt.autograd.gradgradcheck(fm, (am, bm))
    fm(am, bm).pow(2).sum().backward()
    torch.linalg.solve_triangular(at, bt, upper=upper, left=left,
                                  unitriangular=unit).pow(2).sum().backward()
    same(am.grad, at.grad)
    same(bm.grad, bt.grad)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_triangular_solve_legacy(upper, transpose):
    a, t = rand(2, 3, 3, kind="tri")
    b, tb = rand(3, 2, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = mt.triangular_solve(b, a, upper=upper, transpose=transpose)
        want = torch.triangular_solve(tb, t, upper=upper, transpose=transpose)
    same(tuple(got), tuple(want))
    assert type(got).__name__ == "triangular_solve"


def _legacy_solve(L, b, a, upper, transpose, unit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return L.triangular_solve(b, a, upper=upper, transpose=transpose, unitriangular=unit)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
@pytest.mark.parametrize("unit", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_triangular_solve_legacy_tangent(upper, transpose, unit, dtype):
    # torch's legacy tangent takes dA whole: its other triangle and diagonal
    # count, and it is not transposed with transpose=True (linalg.solve_triangular's
    # reads only the triangle)
    def pair(*shape, seed):
        rng = np.random.default_rng(seed)
        x = rng.standard_normal(shape) + 3 * np.eye(*shape[-2:])
        if dtype == "complex128":
            x = x + 1j * rng.standard_normal(shape)
        return mt.tensor(x), torch.tensor(x)

    a, t = pair(2, 4, 4, seed=0)
    b, tb = pair(4, 3, seed=1)
    da, tda = pair(2, 4, 4, seed=2)
    db, tdb = pair(4, 3, seed=3)
    fwad, tfwad = mt.autograd.forward_ad, torch.autograd.forward_ad
    with fwad.dual_level():
        got = _legacy_solve(mt, fwad.make_dual(b, db), fwad.make_dual(a, da), upper, transpose,
                            unit)
        got = [fwad.unpack_dual(r).tangent for r in got]
    with tfwad.dual_level():
        want = _legacy_solve(torch, tfwad.make_dual(tb, tdb), tfwad.make_dual(t, tda), upper,
                             transpose, unit)
        want = [tfwad.unpack_dual(r).tangent for r in want]
    same(got[0], want[0], rtol=1e-10, atol=1e-10)
    same(got[1], want[1])


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_triangular_solve_legacy_gradients(upper, transpose):
    a, t = rand(4, 4, kind="tri")
    b, tb = rand(4, 2, seed=1)
    am, bm = a.clone().requires_grad_(), b.clone().requires_grad_()
    at, bt = t.clone().requires_grad_(), tb.clone().requires_grad_()
    X, M = _legacy_solve(mt, bm, am, upper, transpose, False)
    (X.pow(2).sum() + (M * M).sum()).backward()
    X, M = _legacy_solve(torch, bt, at, upper, transpose, False)
    (X.pow(2).sum() + (M * M).sum()).backward()
    same(am.grad, at.grad, rtol=1e-10, atol=1e-10)
    same(bm.grad, bt.grad, rtol=1e-10, atol=1e-10)

    def solution(bb, aa):
        return _legacy_solve(mt, bb, aa, upper, transpose, False)[0]

    assert mt.autograd.gradcheck(solution, (bm, am))
    assert mt.autograd.gradgradcheck(solution, (bm, am))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 3, 3), (2, 0, 0)])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cholesky_values(shape, upper, dtype):
    a, t = rand(*shape, dtype=dtype, kind="spd")
    same(mt.linalg.cholesky(a, upper=upper), torch.linalg.cholesky(t, upper=upper), **tol(dtype))
    got, want = mt.linalg.cholesky_ex(a, upper=upper), torch.linalg.cholesky_ex(t, upper=upper)
    same(tuple(got), tuple(want), **tol(dtype))
    assert type(got).__name__ == "linalg_cholesky_ex"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(mt.cholesky(a, upper), torch.cholesky(t, upper), **tol(dtype))


def test_cholesky_ex_info_on_failure():
    a, t = rand(3, 4, 4, kind="spd")
    a[1, 2, 2] = -100.0
    t[1, 2, 2] = -100.0
    assert np.array_equal(to_np(mt.linalg.cholesky_ex(a).info),
                          to_np(torch.linalg.cholesky_ex(t).info))


@pytest.mark.parametrize("upper", [True, False])
def test_cholesky_gradients(upper):
    a, t = rand(2, 3, 3, kind="spd")
    am, at = a.clone().requires_grad_(), t.clone().requires_grad_()

    def fm(x):
        return mt.linalg.cholesky(x @ x.mT, upper=upper)

    assert mt.autograd.gradcheck(fm, (am,), check_forward_ad=True)
    assert mt.autograd.gradgradcheck(fm, (am,))
    w = np.random.default_rng(3).standard_normal((2, 3, 3))
    (mt.linalg.cholesky(am, upper=upper) * mt.tensor(w)).sum().backward()
    (torch.linalg.cholesky(at, upper=upper) * torch.tensor(w)).sum().backward()
    same(am.grad, at.grad)


@pytest.mark.parametrize("upper", [True, False])
def test_cholesky_solve_and_inverse(upper):
    a, t = rand(2, 4, 4, kind="spd")
    f, tf = mt.linalg.cholesky(a, upper=upper), torch.linalg.cholesky(t, upper=upper)
    b, tb = rand(4, 3, seed=2)
    same(mt.cholesky_solve(b, f, upper), torch.cholesky_solve(tb, tf, upper))
    same(b.cholesky_solve(f, upper), tb.cholesky_solve(tf, upper))
    same(mt.cholesky_inverse(f, upper), torch.cholesky_inverse(tf, upper))
    fm, bm = f.clone().requires_grad_(), b.clone().requires_grad_()
    ft, bt = tf.clone().requires_grad_(), tb.clone().requires_grad_()
    mt.cholesky_solve(bm, fm, upper).sum().backward()
    torch.cholesky_solve(bt, ft, upper).sum().backward()
    same(bm.grad, bt.grad)
    same(fm.grad, ft.grad)


def test_ldl():
    a, t = rand(2, 4, 4)
    a, t = a + a.mT, t + t.mT
    got, want = mt.linalg.ldl_factor_ex(a), torch.linalg.ldl_factor_ex(t)
    same(tuple(got), tuple(want))
    assert type(got).__name__ == "linalg_ldl_factor_ex"
    b, tb = rand(2, 4, 2, seed=5)
    same(mt.linalg.ldl_solve(got.LD, got.pivots, b),
         torch.linalg.ldl_solve(want.LD, want.pivots, tb))
    same(tuple(mt.linalg.ldl_factor(a)), tuple(torch.linalg.ldl_factor(t)))


NOT_PD = [[1.0, 2.0], [2.0, 1.0]]


@pytest.mark.parametrize("call", [
    lambda L, x: L.linalg.cholesky(x),
    lambda L, x: L.linalg.cholesky(L.stack([L.eye(2), x])),
    lambda L, x: L.linalg.cholesky_ex(x, check_errors=True),
    lambda L, x: L.linalg.cholesky(L.ones(2, 3)),
    lambda L, x: L.linalg.cholesky(L.ones(3)),
    lambda L, x: L.linalg.cholesky(L.ones(3, 3, dtype=L.int64)),
    lambda L, x: L.linalg.cholesky(L.ones(3, 3, dtype=L.float16)),
    lambda L, x: L.cholesky_inverse(L.zeros(3, 3)),
    lambda L, x: L.cholesky_solve(L.ones(3, 2), L.eye(3, dtype=L.float64)),
    lambda L, x: L.cholesky_solve(L.ones(2, 2), L.eye(3)),
    lambda L, x: L.linalg.solve_triangular(L.ones(3), L.ones(3, 2), upper=True),
    lambda L, x: L.linalg.solve_triangular(L.ones(2, 3), L.ones(3, 2), upper=True),
    lambda L, x: L.linalg.solve_triangular(L.eye(3), L.ones(2, 2), upper=True),
    lambda L, x: L.linalg.ldl_factor(L.ones(2, 3)),
])
def test_errors_match_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_like(lambda: call(mt, mt.tensor(NOT_PD)), lambda: call(torch, torch.tensor(NOT_PD)))


@pytest.mark.parametrize("upper", [True, False])
def test_cholesky_solve_inverse_gradcheck(upper):
    a, _ = rand(2, 3, 3, kind="spd")
    f = mt.linalg.cholesky(a, upper=upper).contiguous().requires_grad_()
    b = rand(3, 2, seed=2)[0].requires_grad_()
    # the solves read only the factor's triangle, while the gradient (torch's)
    # treats it as full: checked through a triangular parametrization
    def tri(y):
        return y.triu() if upper else y.tril()

    assert mt.autograd.gradcheck(lambda x, y: mt.cholesky_solve(x, tri(y), upper), (b, f),
                                 check_forward_ad=True)
    assert mt.autograd.gradgradcheck(lambda x, y: mt.cholesky_solve(x, tri(y), upper), (b, f))
    assert mt.autograd.gradcheck(lambda y: mt.cholesky_inverse(tri(y), upper), (f,),
                                 check_forward_ad=True)
