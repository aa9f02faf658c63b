"""minitorch.linalg's LU family against torch: lu_factor(_ex), lu, lu_unpack,
lu_solve, solve(_ex), inv(_ex), det, slogdet, matrix_power, tensorinv,
tensorsolve and the legacy names (torch.lu, Tensor.lu, lu_solve, det,
logdet, inverse): values, shapes and batches, non-contiguous inputs,
gradients (gradcheck, torch's, forward AD, double backward) and errors."""
import warnings

import numpy as np
import pytest

import minitorch as mt
from linalg_pairs import raises_like, rand, same, to_np, tol

torch = pytest.importorskip("torch")

SHAPES = [(3, 3), (2, 4, 4), (2, 3, 5, 5), (0, 3, 3), (1, 1)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lu_factor_matches_torch(shape, dtype):
    a, t = rand(*shape, dtype=dtype)
    got, want = mt.linalg.lu_factor_ex(a), torch.linalg.lu_factor_ex(t)
    same(got.LU, want.LU, **tol(dtype))
    assert np.array_equal(to_np(got.pivots), to_np(want.pivots))
    assert str(got.pivots.dtype) == "minitorch.int32"
    assert np.array_equal(to_np(got.info), to_np(want.info))
    assert got.LU.stride() == want.LU.stride()
    assert type(got).__name__ == "linalg_lu_factor_ex"


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 2), (2, 2, 4)])
def test_lu_rectangular(shape):
    a, t = rand(*shape)
    same(mt.linalg.lu_factor(a), torch.linalg.lu_factor(t))
    P, L, U = mt.linalg.lu(a)
    same((P, L, U), tuple(torch.linalg.lu(t)))
    np.testing.assert_allclose(to_np(P @ L @ U), to_np(a), atol=1e-12)


def test_lu_non_contiguous_input():
    a, t = rand(2, 4, 4)
    same(mt.linalg.lu_factor(a.mT), torch.linalg.lu_factor(t.mT))
    same(mt.linalg.inv(a[:, ::2, ::2]), torch.linalg.inv(t[:, ::2, ::2]))


def test_lu_unpack_and_flags():
    a, t = rand(3, 4, 4)
    LU, piv = mt.linalg.lu_factor(a)
    same(tuple(mt.lu_unpack(LU, piv)), tuple(torch.lu_unpack(*torch.linalg.lu_factor(t))))
    r = mt.lu_unpack(LU, piv, unpack_data=False)
    assert r.L.numel() == 0 and r.U.numel() == 0 and tuple(r.P.shape) == (3, 4, 4)
    assert type(mt.lu_unpack(LU, piv)).__name__ == "lu_unpack"


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve(left, adjoint):
    a, t = rand(2, 4, 4)
    b, tb = rand(2, 4, 3, seed=1) if left else rand(2, 3, 4, seed=1)
    got = mt.linalg.lu_solve(*mt.linalg.lu_factor(a), b, left=left, adjoint=adjoint)
    want = torch.linalg.lu_solve(*torch.linalg.lu_factor(t), tb, left=left, adjoint=adjoint)
    same(got, want)


def test_lu_solve_broadcasts_batches():
    a, t = rand(4, 4)
    b, tb = rand(3, 4, 2, seed=1)
    same(mt.linalg.lu_solve(*mt.linalg.lu_factor(a), b),
         torch.linalg.lu_solve(*torch.linalg.lu_factor(t), tb))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bshape", [(4,), (2, 4), (4, 3), (2, 4, 3), (3, 2, 4, 1)])
def test_solve_matches_torch(dtype, bshape):
    a, t = rand(2, 4, 4, dtype=dtype)
    b, tb = rand(*bshape, dtype=dtype, seed=2)
    same(mt.linalg.solve(a, b), torch.linalg.solve(t, tb), **tol(dtype))


def test_solve_right_and_ex():
    a, t = rand(2, 4, 4)
    b, tb = rand(2, 3, 4, seed=2)
    same(mt.linalg.solve(a, b, left=False), torch.linalg.solve(t, tb, left=False))
    got, want = mt.linalg.solve_ex(a, b, left=False), torch.linalg.solve_ex(t, tb, left=False)
    same(tuple(got), tuple(want))
    assert type(got).__name__ == "linalg_solve_ex"


@pytest.mark.parametrize("shape", SHAPES)
def test_inv_det_slogdet(shape):
    a, t = rand(*shape)
    same(mt.linalg.inv(a), torch.linalg.inv(t))
    same(tuple(mt.linalg.inv_ex(a)), tuple(torch.linalg.inv_ex(t)))
    same(mt.linalg.det(a), torch.linalg.det(t))
    same(tuple(mt.linalg.slogdet(a)), tuple(torch.linalg.slogdet(t)))
    same(mt.det(a), torch.det(t))
    same(a.inverse(), t.inverse())
    same(mt.logdet(a), torch.logdet(t))


def test_singular_values_of_ex_forms():
    m, t = mt.tensor([[1.0, 2.0], [2.0, 4.0]]), torch.tensor([[1.0, 2.0], [2.0, 4.0]])
    same(tuple(mt.linalg.inv_ex(m)), tuple(torch.linalg.inv_ex(t)))
    same(tuple(mt.linalg.lu_factor_ex(m)), tuple(torch.linalg.lu_factor_ex(t)))
    same(tuple(mt.linalg.slogdet(m)), tuple(torch.linalg.slogdet(t)))
    same(mt.linalg.det(m), torch.linalg.det(t))
    neg = -mt.eye(3, dtype=mt.float64)
    same(mt.logdet(neg), torch.logdet(-torch.eye(3, dtype=torch.float64)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(n):
    a, t = rand(2, 3, 3)
    same(mt.linalg.matrix_power(a, n), torch.linalg.matrix_power(t, n), rtol=1e-9)
    same(a.matrix_power(n), t.matrix_power(n), rtol=1e-9)


def test_tensorinv_tensorsolve():
    a, t = rand(4, 6, 8, 3)
    same(mt.linalg.tensorinv(a, ind=2), torch.linalg.tensorinv(t, ind=2))
    a, t = rand(2, 3, 6)
    b, tb = rand(2, 3, seed=3)
    same(mt.linalg.tensorsolve(a, b), torch.linalg.tensorsolve(t, tb))
    a, t = rand(6, 2, 3)
    same(mt.linalg.tensorsolve(a, b, dims=(0,)), torch.linalg.tensorsolve(t, tb, dims=(0,)))


def test_legacy_lu():
    a, t = rand(2, 3, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = a.lu(get_infos=True), t.lu(get_infos=True)
        same(got, want)
        assert isinstance(mt.lu(a), tuple) and len(mt.lu(a)) == 2
        b, tb = rand(2, 3, 2, seed=4)
        same(mt.lu_solve(b, *got[:2]), torch.lu_solve(tb, *want[:2]))


def test_out_forms():
    a, t = rand(3, 3)
    out = mt.empty(0, dtype=mt.float64)
    r = mt.linalg.inv(a, out=out)
    assert r is out
    same(out, torch.linalg.inv(t))
    LU, piv = mt.empty(0, dtype=mt.float64), mt.empty(0, dtype=mt.int32)
    r = mt.linalg.lu_factor(a, out=(LU, piv))
    assert r.LU is LU and r.pivots is piv
    same((LU, piv), tuple(torch.linalg.lu_factor(t)))
    out = mt.empty(0, dtype=mt.float64)
    b, tb = rand(3, 2, seed=1)
    mt.linalg.solve(a, b, out=out)
    same(out, torch.linalg.solve(t, tb))


def _grads(fn_mt, fn_t, *pairs):
    ms = [p[0].clone().requires_grad_() for p in pairs]
    ts = [p[1].clone().requires_grad_() for p in pairs]
    out_m, out_t = fn_mt(*ms), fn_t(*ts)
    weights = np.random.default_rng(5).standard_normal(tuple(out_t.shape))
    (out_m * mt.tensor(weights)).sum().backward()
    (out_t * torch.tensor(weights)).sum().backward()
    for m, t in zip(ms, ts):
        same(m.grad, t.grad, rtol=1e-6, atol=1e-9)


GRAD_CASES = {
    "lu_factor": (lambda a: mt.linalg.lu_factor(a).LU, lambda a: torch.linalg.lu_factor(a).LU),
    "lu_L": (lambda a: mt.linalg.lu(a).L, lambda a: torch.linalg.lu(a).L),
    "inv": (mt.linalg.inv, torch.linalg.inv),
    "det": (mt.linalg.det, torch.linalg.det),
    "logabsdet": (lambda a: mt.linalg.slogdet(a).logabsdet,
                  lambda a: torch.linalg.slogdet(a).logabsdet),
    "matrix_power_-2": (lambda a: mt.linalg.matrix_power(a, -2),
                        lambda a: torch.linalg.matrix_power(a, -2)),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3)])
def test_gradients_match_torch(case, shape):
    fm, ft = GRAD_CASES[case]
    _grads(fm, ft, rand(*shape))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lu_factor_gradcheck_and_forward_ad(shape):
    a = rand(*shape)[0].requires_grad_()
    assert mt.autograd.gradcheck(lambda x: mt.linalg.lu_factor(x).LU, (a,),
                                 check_forward_ad=True)
    assert mt.autograd.gradgradcheck(lambda x: mt.linalg.lu_factor(x).LU, (a,))
    _grads(lambda x: mt.linalg.lu_factor(x).LU, lambda x: torch.linalg.lu_factor(x).LU,
           rand(*shape))


def test_solve_gradcheck_both_inputs():
    a = rand(2, 3, 3)[0].requires_grad_()
    b = rand(3, 2, seed=1)[0].requires_grad_()
    # (2, 3) on the right would be a batch of vectors, which torch refuses there
    for left, rhs in ((True, b), (False, rand(4, 3, seed=2)[0].requires_grad_())):
        assert mt.autograd.gradcheck(lambda x, y: mt.linalg.solve(x, y, left=left), (a, rhs),
                                     check_forward_ad=True)
    assert mt.autograd.gradgradcheck(lambda x, y: mt.linalg.solve(x, y), (a, b))
    _grads(mt.linalg.solve, torch.linalg.solve, rand(2, 3, 3), rand(3, 2, seed=1))


def test_det_forward_ad_matches_torch():
    import minitorch.autograd.forward_ad as fwm
    import torch.autograd.forward_ad as fwt
    a, t = rand(2, 3, 3)
    d, td = rand(2, 3, 3, seed=7)
    with fwm.dual_level():
        got = fwm.unpack_dual(mt.linalg.det(fwm.make_dual(a, d))).tangent
    with fwt.dual_level():
        want = fwt.unpack_dual(torch.linalg.det(fwt.make_dual(t, td))).tangent
    same(got, want)


SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


@pytest.mark.parametrize("call", [
    lambda L, x: L.linalg.inv(x),
    lambda L, x: L.linalg.inv(L.stack([L.eye(2), x])),
    lambda L, x: L.linalg.inv_ex(x, check_errors=True),
    lambda L, x: L.linalg.solve(x, L.ones(2)),
    lambda L, x: L.linalg.solve(L.stack([L.eye(2), x]), L.ones(2, 2)),
    lambda L, x: L.linalg.lu_factor(x),
    lambda L, x: L.linalg.lu_factor(L.stack([L.eye(2), x])),
    lambda L, x: L.inverse(x),
    lambda L, x: L.linalg.tensorinv(x.reshape(4, 1), ind=1),
    lambda L, x: L.linalg.inv(L.ones(2, 3)),
    lambda L, x: L.linalg.inv(L.ones(3)),
    lambda L, x: L.linalg.inv(L.ones(3, 3, dtype=L.int64)),
    lambda L, x: L.linalg.inv(L.ones(3, 3, dtype=L.float16)),
    lambda L, x: L.linalg.det(L.ones(2, 3)),
    lambda L, x: L.linalg.det(L.ones(3, 3, dtype=L.int64)),
    lambda L, x: L.linalg.slogdet(L.ones(2, 3)),
    lambda L, x: L.linalg.solve(L.eye(3), L.ones(2, 2)),
    lambda L, x: L.linalg.solve(L.eye(3), L.ones(3, 2, dtype=L.float64)),
    lambda L, x: L.linalg.solve(L.ones(3, 3, dtype=L.int64), L.ones(3)),
    lambda L, x: L.linalg.lu_factor(L.ones(3)),
    lambda L, x: L.linalg.lu_factor(L.ones(3, 3, dtype=L.float16)),
    lambda L, x: L.linalg.lu_factor(L.ones(3, 3), pivot=False),
    lambda L, x: L.linalg.lu_solve(L.eye(3), L.ones(3, dtype=L.int64), L.ones(3, 2)),
    lambda L, x: L.linalg.lu_solve(L.eye(3), L.ones(3, dtype=L.int32), L.ones(2, 2)),
    lambda L, x: L.linalg.lu_solve(L.eye(3), L.ones(3, dtype=L.int32),
                                   L.ones(3, 2, dtype=L.float64)),
    lambda L, x: L.lu_unpack(L.eye(3), L.ones(3)),
    lambda L, x: L.linalg.matrix_power(L.ones(2, 3), 2),
    lambda L, x: L.linalg.matrix_power(L.ones(3), 2),
    lambda L, x: L.linalg.matrix_power(x, -1),
    lambda L, x: L.linalg.tensorinv(L.ones(4, 2, 2), ind=0),
])
def test_errors_match_torch(call):
    raises_like(lambda: call(mt, mt.tensor(SINGULAR)), lambda: call(torch, torch.tensor(SINGULAR)))


def test_linalg_error_is_a_runtime_error():
    assert issubclass(mt.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError):
        mt.linalg.inv(mt.zeros(2, 2))


def test_namespace_exports_only_its_functions():
    assert not hasattr(mt.linalg, "math") and not hasattr(mt.linalg, "numbers")
    for name in mt.linalg.__all__:
        assert hasattr(torch.linalg, name)


# The singular ones eliminate exactly (multipliers are powers of two), so
# every LAPACK finds a zero pivot: one whose last pivot is left at rounding
# level (torch's MKL 3e-16, OpenBLAS 0) has no gradient both agree on, as
# both give d A^-T, zero where the determinant is exactly zero.
@pytest.mark.parametrize("matrix", [[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]],
                                    [[1.0, 2.0, 4.0], [2.0, 4.0, 8.0], [4.0, 1.0, 2.0]],
                                    [[1.0, 2.0], [2.0, 4.0000001]]])
def test_det_gradient_at_and_near_singular_matrices(matrix):
    m = mt.tensor(matrix, dtype=mt.float64, requires_grad=True)
    t = torch.tensor(matrix, dtype=torch.float64, requires_grad=True)
    mt.linalg.det(m).backward()
    torch.linalg.det(t).backward()
    assert np.isfinite(to_np(m.grad)).all()
    np.testing.assert_allclose(to_np(m.grad), to_np(t.grad), rtol=1e-6, atol=1e-9)
