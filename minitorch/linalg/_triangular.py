"""Triangular solves and the Cholesky and LDL^T factorizations: the LAPACK
rows wrapped as autograd Functions with torch's gradient (backward) and
tangent (jvp) formulas, written with differentiable ops so that they can
be differentiated again; and the composites built on them."""

from .. import _C
from .._tensor import Tensor
from ..autograd.function import Function
from ..overrides import overridable as _overridable
from . import _common as c
from ._out import checked_out, write_out

_mt = _C._functions


def _triangle(M: Tensor, upper: bool, unit: bool) -> Tensor:
    """The part of M a triangular solve reads: its triangle, without the
    diagonal when that is taken to be ones."""
    k = (1 if upper else -1) if unit else 0
    return M.triu(k) if upper else M.tril(k)


class _SolveTriangular(Function):
    """X = A^-1 B (X = B A^-1 when not left), read from A's upper or lower
    triangle. The legacy triangular_solve differentiates as this, but its
    tangent is torch's legacy one, A^-1 (dB - dA X) with the dA its caller
    was given (legacy "as_given", or "transposed" when the caller passed
    A^T): neither cut to the triangle nor transposed."""

    @staticmethod
    def forward(ctx, A, B, upper, left, unit, legacy=None):
        X = _mt["_lapack_trsm"](A, B, upper, left, unit)
        ctx.flags = (upper, left, unit, legacy)
        ctx.save_for_backward(A, X)
        ctx.save_for_forward(A, X)
        return X

    @staticmethod
    def backward(ctx, gX):
        A, X = ctx.saved_tensors
        upper, left, unit, _ = ctx.flags
        gB = solve_triangular(A.mH, gX, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = _triangle(-(gB @ X.mH) if left else -(X.mH @ gB), upper, unit)
        return gA, gB if ctx.needs_input_grad[1] else None, None, None, None, None

    @staticmethod
    def jvp(ctx, dA, dB, *_):
        upper, left, unit, legacy = ctx.flags
        A, X = ctx.saved_tensors
        r = dB if dB is not None else _mt["zeros_like"](X)
        if dA is not None:
            if legacy is None:
                dT = _triangle(dA, upper, unit)
            else:
                dT = dA.mT if legacy == "transposed" else dA
            r = r - (dT @ X if left else X @ dT)
        return _SolveTriangular.apply(A, r, upper, left, unit, legacy)


@_overridable
def solve_triangular(A: Tensor, B: Tensor, *, upper, left=True, unitriangular=False,
                     out=None):
    """Solves A X = B (or X A = B when left is False) for triangular A, reading
    only its upper or lower triangle (and taking its diagonal as ones when
    unitriangular)."""
    name = "linalg.solve_triangular"
    c.check_matrix(name, A)
    c.check_matrix(name, B, "B")
    c.check_square(name, A)
    c.check_lapack_dtype("triangular_solve_cpu", A)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    if A.dtype != B.dtype:
        from .._tensor import _promote_types_for
        dtype = _promote_types_for(A, B)
        A, B = A.to(dtype), B.to(dtype)
    A, B = c.broadcast_batch(A, B)
    X = _SolveTriangular.apply(A, B, bool(upper), bool(left), bool(unitriangular))
    return write_out(out, X)


@_overridable
def triangular_solve(input: Tensor, A: Tensor, upper=True, transpose=False,
                     unitriangular=False, *, out=None):
    """Legacy form of solve_triangular: solves A X = input (A^T X = input with
    transpose); returns (solution, cloned_coefficient)."""
    c.check_matrix("torch.triangular_solve", input, "b")
    c.check_matrix("torch.triangular_solve", A)
    if not input.dtype.is_floating_point:
        c.check_lapack_dtype("triangular_solve_cpu", input)
    if input.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{input.dtype._scalar_name} and A of type "
                           f"{A.dtype._scalar_name} instead.")
    c.check_lapack_dtype("triangular_solve_cpu", input)
    if A.shape[-1] != A.shape[-2] or input.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-2]} by {A.shape[-1]} but each b matrix is "
                           f"{input.shape[-2]} by {input.shape[-1]}")
    b, Ab = c.broadcast_batch(input, A)
    coef = Ab.mT if transpose else Ab
    X = _SolveTriangular.apply(coef, b, bool(upper) != bool(transpose), True, bool(unitriangular),
                               "transposed" if transpose else "as_given")
    result = c.TriangularSolveResult((X, Ab.clone()))
    if out is not None:
        write_out(out[0], result[0])
        write_out(out[1], result[1])
        return c.TriangularSolveResult(tuple(out))
    return result


def _phi(M: Tensor) -> Tensor:
    """The lower triangle of M with its diagonal halved: the map that turns
    L^-1 dA L^-H into L^-1 dL."""
    return M.tril(-1) + M.diagonal(0, -2, -1).diag_embed() * 0.5


class _Cholesky(Function):
    @staticmethod
    def forward(ctx, A):
        L, info = _mt["_lapack_potrf"](A, False)
        ctx.mark_non_differentiable(info)
        ctx.save_for_backward(L)
        ctx.save_for_forward(L)
        return L, info

    @staticmethod
    def backward(ctx, gL, _ginfo):
        (L,) = ctx.saved_tensors
        # torch's gA = L^-H sym(tril(L^H gL)) L^-1, sym(M) = (M + tril(M, -1)^H) / 2
        M = (L.mH @ gL).tril()
        M = (M + M.tril(-1).mH) * 0.5
        return solve_triangular(L.mH, solve_triangular(L, M, upper=False, left=False),
                                upper=True)

    @staticmethod
    def jvp(ctx, dA):
        (L,) = ctx.saved_tensors
        S = solve_triangular(L, solve_triangular(L.mH, dA, upper=True, left=False),
                             upper=False)
        return L @ _phi(S), None


def _cholesky_ex(name: str, A: Tensor, upper: bool):
    c.check_square(name, A)
    c.check_float(name, A)
    c.check_lapack_dtype("cholesky_cpu", A)
    L, info = _mt["_lapack_potrf"](A, False) if c.lapack_direct(A) else _Cholesky.apply(A)
    return (L.mH if upper else L), info


@_overridable
def cholesky_ex(A: Tensor, *, upper=False, check_errors=False, out=None):
    """The Cholesky factor of the symmetric positive-definite A (lower, or
    upper with upper=True) and info, the order of the first leading minor
    that is not positive-definite (0 on success), per matrix."""
    L, info = _cholesky_ex("linalg.cholesky", A, upper)
    if check_errors:
        c.raise_for_info(info, c.not_pd_message, name="linalg.cholesky_ex")
    if out is not None:
        write_out(out[0], L)
        write_out(out[1], info)
        return c.CholeskyExResult(tuple(out))
    return c.CholeskyExResult((L, info))


@_overridable
def cholesky(A: Tensor, *, upper=False, out=None):
    """The Cholesky factor of the symmetric positive-definite A: lower, or upper
    with upper=True. Raises LinAlgError when A is not positive-definite."""
    L, info = _cholesky_ex("linalg.cholesky", A, upper)
    c.raise_for_info(info, c.not_pd_message, name="linalg.cholesky")
    return write_out(out, L)


def legacy_cholesky(input: Tensor, upper=False, *, out=None):
    """Legacy form of linalg.cholesky (upper positional)."""
    L, info = _cholesky_ex("cholesky", input, upper)
    c.raise_for_info(info, c.not_pd_message, name="cholesky")
    return write_out(out, L)


def _triangular_solves(B: Tensor, F: Tensor, upper: bool) -> Tensor:
    """A^-1 B for A = F^T F (upper) or F F^T, by two triangular solves."""
    if upper:
        return solve_triangular(F, solve_triangular(F.mH, B, upper=False), upper=True)
    return solve_triangular(F.mH, solve_triangular(F, B, upper=False), upper=True)


class _CholeskySolve(Function):
    """X = A^-1 B for A = F F^T (F^T F when upper). As torch's, the gradient
    treats F as a full matrix: it is not projected onto F's triangle."""

    @staticmethod
    def forward(ctx, B, F, upper):
        X = _triangular_solves(B, F, upper)
        ctx.upper = upper
        ctx.save_for_backward(F, X)
        ctx.save_for_forward(F, X)
        return X

    @staticmethod
    def backward(ctx, gX):
        F, X = ctx.saved_tensors
        gB = _CholeskySolve.apply(gX, F, ctx.upper)
        gF = None
        if ctx.needs_input_grad[1]:
            common = gB @ X.mH
            common = common + common.mH
            gF = -(F @ common) if ctx.upper else -(common @ F)
        return gB if ctx.needs_input_grad[0] else None, gF, None

    @staticmethod
    def jvp(ctx, dB, dF, _):
        F, X = ctx.saved_tensors
        r = dB if dB is not None else _mt["zeros_like"](X)
        if dF is not None:
            dA = dF.mH @ F + F.mH @ dF if ctx.upper else dF @ F.mH + F @ dF.mH
            r = r - dA @ X
        return _CholeskySolve.apply(r, F, ctx.upper)


def _solve_with_factor(B: Tensor, F: Tensor, upper: bool) -> Tensor:
    return _CholeskySolve.apply(B, F, upper)


def cholesky_solve(input: Tensor, input2: Tensor, upper=False, *, out=None):
    """Solves A X = input from the Cholesky factor input2 of A (upper or lower)."""
    c.check_matrix("cholesky_solve", input, "b")
    c.check_matrix("cholesky_solve", input2)
    if input.dtype != input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{input.dtype._scalar_name} and A of type "
                           f"{input2.dtype._scalar_name} instead.")
    if input2.shape[-1] != input2.shape[-2] or input.shape[-2] != input2.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{input2.shape[-2]} by {input2.shape[-1]} but each b matrix is "
                           f"{input.shape[-2]} by {input.shape[-1]}")
    c.check_lapack_dtype("cholesky_solve_cpu", input)
    B, F = c.broadcast_batch(input, input2)
    return checked_out("cholesky_solve", out, _solve_with_factor(B, F, bool(upper)))


def cholesky_inverse(input: Tensor, upper=False, *, out=None):
    """The inverse of A from its Cholesky factor input (upper or lower)."""
    name = "cholesky_inverse"
    c.check_matrix(name, input)
    c.check_square(name, input)
    c.check_lapack_dtype("cholesky_inverse_out_cpu", input)
    d = input.diagonal(0, -2, -1)
    zero = (d == 0)
    if bool(zero.any()):
        first = zero.to(_C.int64).argmax(-1) + 1
        info = first * zero.any(-1).to(_C.int64)
        c.raise_for_info(info, c.singular_message, name=name)
    n = input.shape[-1]
    eye = _mt["eye"](n, dtype=input.dtype).expand(*input.shape)
    return checked_out("cholesky_inverse", out, _solve_with_factor(eye, input, bool(upper)))


def _ldl(name: str, A: Tensor, hermitian: bool):
    c.check_square(name, A)
    c.check_float(name, A)
    c.check_lapack_dtype("ldl_factor_kernel_cpu", A)
    LD, pivots, info = _mt["_lapack_sytrf"](A.detach(), False, bool(hermitian))
    return LD.tril(), pivots, info


@_overridable
def ldl_factor_ex(A: Tensor, *, hermitian=False, check_errors=False, out=None):
    """The LDL^T (Bunch-Kaufman) factorization of the symmetric A: (LD, pivots,
    info) as LAPACK's sytrf packs them. Not differentiable, as torch's."""
    LD, pivots, info = _ldl("torch.linalg.ldl_factor_ex", A, hermitian)
    if check_errors:
        c.raise_for_info(info, _ldl_message, name="torch.linalg.ldl_factor_ex")
    if out is not None:
        for o, r in zip(out, (LD, pivots, info)):
            write_out(o, r)
        return c.LDLFactorExResult(tuple(out))
    return c.LDLFactorExResult((LD, pivots, info))


def _ldl_message(code: int) -> str:
    return (f"The factorization could not be completed because the input is not "
            f"invertible: D[{code},{code}] is zero.")


@_overridable
def ldl_factor(A: Tensor, *, hermitian=False, out=None):
    """The LDL^T factorization of the symmetric A: (LD, pivots)."""
    LD, pivots, info = _ldl("torch.linalg.ldl_factor_ex", A, hermitian)
    c.raise_for_info(info, _ldl_message, name="torch.linalg.ldl_factor")
    if out is not None:
        write_out(out[0], LD)
        write_out(out[1], pivots)
        return c.LDLFactorResult(tuple(out))
    return c.LDLFactorResult((LD, pivots))


@_overridable
def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian=False, out=None):
    """Solves A X = B from ldl_factor's (LD, pivots) of A."""
    name = "torch.linalg.ldl_solve"
    c.check_square(name, LD, "LD")
    c.check_matrix(name, B, "B")
    if str(pivots.dtype) != "minitorch.int32":
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {pivots.dtype}")
    c.check_same_dtype(name, LD, B, "LD", "B")
    c.check_lapack_dtype("ldl_solve_cpu", LD)
    if B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation AX = B "
                           f"({LD.shape[-2]}x{LD.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    LDb, Bb = c.broadcast_batch(LD, B)
    piv = pivots.expand(*LDb.shape[:-1])
    return write_out(out, _mt["_lapack_sytrs"](LDb.detach(), piv, Bb.detach(), False,
                                               bool(hermitian)))
