"""The LU family: lu_factor(_ex) (LAPACK getrf as an autograd Function with
torch's backward and tangent formulas, for square, tall and wide
matrices), and the composites over it and solve_triangular: lu, lu_unpack,
lu_solve, solve(_ex), inv(_ex), det, slogdet, matrix_power, tensorinv,
tensorsolve."""
import math
import numbers

import numpy as np

from .. import _C
from .._tensor import Tensor
from ..autograd.function import Function
from ..overrides import overridable as _overridable
from . import _common as c
from ._out import checked_out, tuple_out, write_out
from ._triangular import solve_triangular

_mt = _C._functions


def _permutation(pivots: Tensor, m: int) -> Tensor:
    """The row order perm with P^T A = A[perm] for LAPACK's 1-based pivots."""
    piv = pivots.detach().numpy().astype(np.int64) - 1
    batch = piv.shape[:-1]
    perm = np.broadcast_to(np.arange(m, dtype=np.int64), batch + (m,)).copy()
    if perm.size == 0 or piv.size == 0:
        return _mt["from_numpy"](perm)
    flat, pflat = perm.reshape(-1, m), piv.reshape(-1, piv.shape[-1])
    rows = np.arange(flat.shape[0])
    for i in range(pflat.shape[1]):
        j = pflat[:, i]
        a, b = flat[rows, i].copy(), flat[rows, j].copy()
        flat[rows, i], flat[rows, j] = b, a
    return _mt["from_numpy"](perm)


def _perm_matrix(pivots: Tensor, m: int, dtype) -> Tensor:
    """P with A = P L U: P[perm[r], r] = 1."""
    perm = _permutation(pivots, m)
    eye = _mt["eye"](m, dtype=dtype)
    return eye[perm].mT


def _unpack(LU: Tensor):
    """L (unit lower, m x k) and U (upper, k x n) of a packed LU."""
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    eye = _mt["eye"](m, k, dtype=LU.dtype)
    L = LU[..., :, :k].tril(-1) + eye
    U = LU[..., :k, :].triu()
    return L, U


def _tri_inv_left_unit(L, M):
    """L^-1 M for unit lower L."""
    return solve_triangular(L, M, upper=False, unitriangular=True)


def _lu_backward(LU: Tensor, P: Tensor, gLU: Tensor) -> Tensor:
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L, U = _unpack(LU)
    gL = gLU[..., :, :k].tril(-1)
    gU = gLU[..., :k, :].triu()
    if m > n:
        L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
        G2 = solve_triangular(U.mH, gL2, upper=False, left=False)
        gU = gU - L2.mH @ G2
        L, gL, U1 = L1, gL1, U
    elif m < n:
        U1, U2, gU2 = U[..., :, :m], U[..., :, m:], gU[..., :, m:]
        G2 = solve_triangular(L.mH, gU2, upper=True, unitriangular=True)
        gL = gL - G2 @ U2.mH
        gU = gU[..., :, :m]
    else:
        U1 = U
    phi = (L.mH @ gL).tril(-1) + (gU @ U1.mH).triu()
    gA1 = solve_triangular(L.mH, solve_triangular(U1.mH, phi, upper=False, left=False),
                           upper=True, unitriangular=True)
    if m > n:
        gA1 = _mt["cat"]([gA1, G2], -2)
    elif m < n:
        gA1 = _mt["cat"]([gA1, G2], -1)
    return P @ gA1


def _lu_jvp(LU: Tensor, P: Tensor, dA: Tensor) -> Tensor:
    m, n = LU.shape[-2], LU.shape[-1]
    L, U = _unpack(LU)
    dA = P.mT @ dA
    k = min(m, n)
    L1, U1 = L[..., :k, :], U[..., :, :k]
    X = solve_triangular(U1, _tri_inv_left_unit(L1, dA[..., :k, :k]), upper=True, left=False)
    dL1 = L1 @ X.tril(-1)
    dU1 = X.triu() @ U1
    if m > n:
        dL2 = solve_triangular(U1, dA[..., n:, :] - L[..., n:, :] @ dU1, upper=True, left=False)
        return _mt["cat"]([dL1 + dU1, dL2], -2)
    if m < n:
        dU2 = _tri_inv_left_unit(L1, dA[..., :, m:] - dL1 @ U[..., :, m:])
        return _mt["cat"]([dL1 + dU1, dU2], -1)
    return dL1 + dU1


class _LuFactor(Function):
    @staticmethod
    def forward(ctx, A):
        LU, pivots, info = _mt["_lapack_getrf"](A)
        ctx.mark_non_differentiable(pivots, info)
        ctx.save_for_backward(LU, pivots)
        ctx.save_for_forward(LU, pivots)
        return LU, pivots, info

    @staticmethod
    def backward(ctx, gLU, _gp, _gi):
        LU, pivots = ctx.saved_tensors
        return _lu_backward(LU, _perm_matrix(pivots, LU.shape[-2], LU.dtype), gLU)

    @staticmethod
    def jvp(ctx, dA):
        LU, pivots = ctx.saved_tensors
        return _lu_jvp(LU, _perm_matrix(pivots, LU.shape[-2], LU.dtype), dA), None, None


def _check_pivot(name: str, pivot: bool) -> None:
    if not pivot:
        raise RuntimeError(f"{name}: LU without pivoting is not implemented on the CPU")


def _factor(name: str, A: Tensor, pivot=True):
    if A.dim() < 2:
        raise RuntimeError(f"torch.{name.split('.')[-1]}: Expected tensor with 2 or more "
                           f"dimensions. Got size: {list(A.shape)} instead")
    c.check_lapack_dtype("lu_cpu", A)
    _check_pivot(name, pivot)
    return _LuFactor.apply(A)


def _u_zero_message(code: int) -> str:
    return (f"U[{code},{code}] is zero and using it on lu_solve would result in a division by "
            f"zero. If you still want to perform the factorization, consider calling "
            f"linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@_overridable
def lu_factor_ex(A: Tensor, *, pivot=True, check_errors=False, out=None):
    """The LU factorization of A with partial pivoting, packed as LAPACK's getrf
    packs it: (LU, pivots, info), info > 0 where U has a zero on its diagonal."""
    LU, pivots, info = _factor("linalg.lu_factor_ex", A, pivot)
    if check_errors:
        c.raise_for_info(info, _u_zero_message, RuntimeError, "torch.linalg.lu_factor_ex")
    return tuple_out(out, (LU, pivots, info), c.LUFactorExResult)


@_overridable
def lu_factor(A: Tensor, *, pivot=True, out=None):
    """The packed LU factorization of A: (LU, pivots); refuses a singular A
    (use lu_factor_ex for those)."""
    LU, pivots, info = _factor("linalg.lu_factor", A, pivot)
    c.raise_for_info(info, _u_zero_message, RuntimeError, "torch.linalg.lu_factor")
    return tuple_out(out, (LU, pivots), c.LUFactorResult)


def _check_unpack_pivots(LU: Tensor, pivots: Tensor) -> None:
    if str(pivots.dtype) != "minitorch.int32":
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True, *,
              out=None):
    """(P, L, U) from lu_factor's packed (LU, pivots)."""
    c.check_matrix("torch.lu_unpack", LU_data, "LU_data")
    _check_unpack_pivots(LU_data, LU_pivots)
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    empty = _mt["empty"](0, dtype=LU_data.dtype)
    L, U = _unpack(LU_data) if unpack_data else (empty, empty)
    if unpack_pivots and LU_pivots.numel() and not bool(
            ((LU_pivots >= 1) & (LU_pivots <= m)).all()):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")
    P = _perm_matrix(LU_pivots, m, LU_data.dtype) if unpack_pivots else empty
    if unpack_pivots and P.shape[:-2] != LU_data.shape[:-2]:
        P = P.expand(*LU_data.shape[:-2], m, m)
    del n
    return tuple_out(out, (P, L, U), c.LUUnpackResult)


@_overridable
def lu(A: Tensor, *, pivot=True, out=None):
    """The LU factorization A = P L U with partial pivoting: (P, L, U)."""
    LU, pivots, _ = _factor("linalg.lu", A, pivot)
    P, L, U = lu_unpack(LU, pivots)
    return tuple_out(out, (P, L, U), c.LUResult)


def _apply_pt(pivots: Tensor, B: Tensor, transpose: bool) -> Tensor:
    """P^T B (or P B with transpose) for lu_factor's pivots."""
    perm = _permutation(pivots, B.shape[-2])
    if not transpose:
        return B.gather(-2, perm.unsqueeze(-1).expand(*B.shape))
    inverse = perm.argsort(-1)
    return B.gather(-2, inverse.unsqueeze(-1).expand(*B.shape))


def _lu_solve_left(LU: Tensor, pivots: Tensor, B: Tensor, adjoint: bool) -> Tensor:
    if not adjoint:
        Y = solve_triangular(LU, _apply_pt(pivots, B, False), upper=False, unitriangular=True)
        return solve_triangular(LU, Y, upper=True)
    Y = solve_triangular(LU.mH, B, upper=False)
    Y = solve_triangular(LU.mH, Y, upper=True, unitriangular=True)
    return _apply_pt(pivots, Y, True)


def _lu_solve(LU, pivots, B, left, adjoint):
    LUb, Bb = c.broadcast_batch(LU, B)
    piv = pivots if pivots.shape == LUb.shape[:-1] else pivots.expand(*LUb.shape[:-1])
    if not (c.differentiated(LUb) or c.differentiated(Bb)):
        # nothing to differentiate: LAPACK's getrs in one call
        if left:
            return _mt["_lapack_getrs"](LUb, piv, Bb, adjoint)
        return _mt["_lapack_getrs"](LUb, piv, Bb.mH, not adjoint).mH
    if left:
        return _lu_solve_left(LUb, piv, Bb, adjoint)
    return _lu_solve_left(LUb, piv, Bb.mH, not adjoint).mH


@_overridable
def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left=True, adjoint=False, out=None):
    """Solves A X = B (X A = B when left is False; with A^H when adjoint) from
    lu_factor's (LU, pivots) of A."""
    name = "linalg.lu_solve"
    c.check_square(name, LU, "LU")
    c.check_matrix(name, B, "B")
    if str(pivots.dtype) != "minitorch.int32":
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    c.check_same_dtype(name, LU, B, "LU", "B")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    c.check_lapack_dtype("lu_solve_cpu", LU)
    return write_out(out, _lu_solve(LU, pivots, B, left, adjoint))


def legacy_lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None):
    """Legacy form of linalg.lu_solve: solves A X = input."""
    return lu_solve(LU_data, LU_pivots, input, out=out)


def _vector_rhs(A: Tensor, B: Tensor) -> bool:
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_ex(name: str, A: Tensor, B: Tensor, left: bool):
    c.check_matrix(name, A)
    c.check_float(name, A)
    c.check_square(name, A)
    c.check_same_dtype(name, A, B)
    vector = _vector_rhs(A, B)
    # a vector is a column whichever side A is on (torch's rule: X A = b is
    # refused for a vector b)
    Bm = B.unsqueeze(-1) if vector else B
    n = A.shape[-1]
    if (Bm.shape[-2] if left else Bm.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{Bm.shape[-2]}x{Bm.shape[-1]})")
    c.check_lapack_dtype("lu_cpu", A)
    LU, pivots, info = _mt["_lapack_getrf"](A) if c.lapack_direct(A) else _LuFactor.apply(A)
    X = _lu_solve(LU, pivots, Bm, left, False)
    if vector:
        X = X.squeeze(-1)
    return X, info


def _solver_failed(code: int) -> str:
    return "The solver failed because the input matrix is singular."


@_overridable
def solve_ex(A: Tensor, B: Tensor, *, left=True, check_errors=False, out=None):
    """The solution of A X = B (X A = B when left is False) and info, as solve
    but without raising for a singular A."""
    X, info = _solve_ex("linalg.solve", A, B, left)
    if check_errors:
        c.raise_for_info(info, _solver_failed, name="torch.linalg.solve_ex")
    return tuple_out(out, (X, info), c.SolveExResult)


@_overridable
def solve(A: Tensor, B: Tensor, *, left=True, out=None):
    """The solution X of A X = B (X A = B when left is False) for square A; B a
    (batch of) vector(s) or matrices."""
    X, info = _solve_ex("linalg.solve", A, B, left)
    c.raise_for_info(info, _solver_failed, name="torch.linalg.solve")
    return write_out(out, X)


def _inv_ex(name: str, A: Tensor):
    c.check_matrix(name, A)
    c.check_low_precision(name, A)
    c.check_float(name, A)
    c.check_square(name, A)
    n = A.shape[-1]
    LU, pivots, info = _LuFactor.apply(A)
    eye = _mt["eye"](n, dtype=A.dtype).expand(*A.shape)
    return _lu_solve(LU, pivots, eye, True, False), info


@_overridable
def inv_ex(A: Tensor, *, check_errors=False, out=None):
    """The inverse of A and info (the index of U's first zero on its diagonal,
    0 when A is invertible), without raising for a singular A."""
    X, info = _inv_ex("linalg.inv", A)
    if check_errors:
        c.raise_for_info(info, c.singular_message, name="linalg.inv_ex")
    return tuple_out(out, (X, info), c.InvExResult)


@_overridable
def inv(A: Tensor, *, out=None):
    """The inverse of the square matrix A; raises LinAlgError when A is singular."""
    X, info = _inv_ex("linalg.inv", A)
    c.raise_for_info(info, c.singular_message, name="linalg.inv")
    return write_out(out, X)


def _det_parts(name: str, A: Tensor, low_precision: bool = True):
    """low_precision: float16 and bfloat16 reach the LU kernel's refusal
    (det), else are refused in name's words first (slogdet, logdet)."""
    c.check_matrix(name, A)
    c.check_float(name, A)
    c.check_square(name, A)
    if not low_precision:
        c.check_low_precision(name, A)
    c.check_lapack_dtype("lu_cpu", A)
    LU, pivots, _ = _LuFactor.apply(A)
    n = A.shape[-1]
    swaps = (pivots != _mt["arange"](1, n + 1, dtype=pivots.dtype)).sum(-1)
    sign = 1 - 2 * (swaps % 2).to(A.dtype)
    return LU.diagonal(0, -2, -1), sign


def _det_value(A: Tensor) -> Tensor:
    """det(A) from LAPACK's LU, without autograd."""
    LU, pivots, _ = _mt["_lapack_getrf"](A.detach())
    n = A.shape[-1]
    swaps = (pivots != _mt["arange"](1, n + 1, dtype=pivots.dtype)).sum(-1)
    return (1 - 2 * (swaps % 2).to(A.dtype)) * c.prod_last(LU.diagonal(0, -2, -1))


def _cofactors(A: Tensor, d: Tensor) -> Tensor:
    """det's derivative d A^-T (its tangent is (d A^-T * dA).sum(), its
    gradient g conj(d A^-T)); zero where d is exactly zero, as torch's (its
    triangular solves skip a zero right-hand side instead of dividing it by a
    zero pivot)."""
    if A.shape[-1] == 0:
        return _mt["zeros_like"](A)
    nonzero = (d != 0).unsqueeze(-1).unsqueeze(-1)
    eye = _mt["eye"](A.shape[-1], dtype=A.dtype).expand(*A.shape)
    safe = _mt["where"](nonzero, A, eye)
    return _mt["where"](nonzero, d.unsqueeze(-1).unsqueeze(-1) * inv(safe).mT,
                        _mt["zeros_like"](A))


class _Det(Function):
    @staticmethod
    def forward(ctx, A):
        d = _det_value(A)
        ctx.save_for_backward(A, d)
        ctx.save_for_forward(A, d)
        return d

    @staticmethod
    def backward(ctx, g):
        A, d = ctx.saved_tensors
        return g.unsqueeze(-1).unsqueeze(-1) * _cofactors(A, d).conj()

    @staticmethod
    def jvp(ctx, dA):
        return (_cofactors(*ctx.saved_tensors) * dA).sum((-2, -1))


@_overridable
def det(A: Tensor, *, out=None):
    """The determinant of the square matrix A (per matrix of a batch)."""
    name = "linalg.det"
    c.check_matrix(name, A)
    c.check_float(name, A)
    c.check_square(name, A)
    c.check_lapack_dtype("lu_cpu", A)
    return write_out(out, _Det.apply(A))


def _slogdet(name: str, A: Tensor):
    d, sign = _det_parts(name, A, low_precision=False)
    # sgn: a complex pivot's phase (the sign of a real one)
    s = sign * c.prod_last(d.sgn())
    return s, d.abs().log().sum(-1)


@_overridable
def slogdet(A: Tensor, *, out=None):
    """(sign, logabsdet): the sign of A's determinant (0 when singular) and the
    logarithm of its absolute value."""
    return tuple_out(out, _slogdet("linalg.slogdet", A), c.SlogdetResult)


def legacy_slogdet(input: Tensor, *, out=None):
    """(sign, logabsdet) of input's determinant."""
    return tuple_out(out, _slogdet("linalg.slogdet", input), c.LegacySlogdetResult)


def logdet(input: Tensor):
    """The logarithm of input's determinant: NaN where it is negative, -inf
    where it is zero; complex input, its complex logarithm."""
    sign, logabs = _slogdet("logdet", input)
    if input.dtype.is_complex:
        return sign.log() + logabs
    nan = _mt["full_like"](logabs, math.nan)
    return _mt["where"](sign < 0, nan, logabs)


@_overridable
def matrix_power(A: Tensor, n, *, out=None):
    """A multiplied by itself n times: the identity for n = 0, powers of A's
    inverse for negative n."""
    name = "linalg.matrix_power"
    c.check_matrix(name, A)
    c.check_square(name, A)
    if not isinstance(n, numbers.Integral) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    if n == 0:
        # a copy of A overwritten, so that it requires grad as torch's does
        eye = _mt["eye"](A.shape[-1], dtype=A.dtype).expand(*A.shape)
        return write_out(out, A.clone().copy_(eye))
    if n < 0:
        c.check_float("linalg.inv", A)
        A = inv(A)
        n = -n
    result = None
    base = A
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return write_out(out, result)


def _prod(shape) -> int:
    p = 1
    for s in shape:
        p *= s
    return p


@_overridable
def tensorinv(A: Tensor, ind=2, *, out=None):
    """The inverse of A under tensordot over its first ind dims: shaped
    A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    if _prod(rows) != _prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) "
                           f"== prod(self.shape[:ind]), but got {_prod(cols)} != "
                           f"{_prod(rows)}")
    X, info = _inv_ex("inv", A.reshape(_prod(rows), _prod(cols)))
    c.raise_for_info(info, c.singular_message, name="inv")
    return checked_out("tensorinv", out, X.reshape(*cols, *rows))


@_overridable
def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None):
    """The X with tensordot(A, X, X.dim()) == B; dims moves those dims of A to
    its end first."""
    if dims is not None:
        nd = A.dim()
        moved = [d % nd for d in dims]
        rest = [d for d in range(nd) if d not in moved]
        A = A.permute(*rest, *moved)
    result_shape = tuple(A.shape[B.dim():])
    rows = _prod(B.shape)
    if rows != _prod(result_shape):
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {_prod(result_shape)} != {rows}")
    X = solve(A.reshape(rows, _prod(result_shape)), B.reshape(rows))
    return checked_out("tensorsolve", out, X.reshape(*result_shape))
