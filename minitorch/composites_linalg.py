"""The linear-algebra names torch keeps outside torch.linalg (torch.det,
inverse, logdet, slogdet, lu, lu_solve, lu_unpack, cholesky,
cholesky_solve, cholesky_inverse, triangular_solve, matrix_power, svd, qr,
geqrf, orgqr, ormqr, pinverse, matrix_exp, svd_lowrank, pca_lowrank) and their
Tensor methods: each is its minitorch.linalg function under torch's older
signature and messages; and eig, which torch removed but still answers with
the error that points to linalg.eig."""
import functools
import warnings
from typing import Optional

from . import _C
from ._tensor import Tensor
from .linalg import _lu, _products, _spectral, _triangular
from .overrides import composite

_WARNED = set()
_DEPRECATED = {
    "lu": "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
          "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
          "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
          "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, "
          "get_infos=True)\nshould be replaced with\nLU, pivots, info = "
          "torch.linalg.lu_factor_ex(A, compute_pivots)",
    "cholesky": "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
                "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be "
                "replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, "
                "upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
                "transform will produce equivalent results for all valid (symmetric positive "
                "definite) inputs.",
    "triangular_solve": "torch.triangular_solve is deprecated in favor of "
                        "torch.linalg.solve_triangularand will be removed in a future PyTorch "
                        "release.\ntorch.linalg.solve_triangular has its arguments reversed and "
                        "does not return a copy of one of the inputs.\nX = "
                        "torch.triangular_solve(B, A).solution\nshould be replaced with\nX = "
                        "torch.linalg.solve_triangular(A, B).",
    "lu_solve": "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                "removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its "
                "arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced "
                "with\nX = torch.linalg.lu_solve(LU, pivots, B)",
}


def _deprecated(name: str) -> None:
    """torch's deprecation warning for name, once per process as torch gives it."""
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(_DEPRECATED[name], UserWarning, stacklevel=3)


__all__ = ["det", "inverse", "logdet", "slogdet", "lu", "lu_solve", "lu_unpack", "cholesky",
           "cholesky_solve", "cholesky_inverse", "triangular_solve", "matrix_power", "svd", "qr",
           "geqrf", "orgqr", "ormqr", "pinverse", "matrix_exp", "svd_lowrank", "pca_lowrank",
           "eig"]


@composite()
def det(input: Tensor) -> Tensor:
    """The determinant of input (per matrix of a batch); see linalg.det."""
    return _lu.det(input)


@composite()
def inverse(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """The inverse of input; see linalg.inv."""
    return _lu.inv(input, out=out)


@composite()
def logdet(input: Tensor) -> Tensor:
    """The logarithm of input's determinant (NaN where it is negative)."""
    return _lu.logdet(input)


@composite()
def slogdet(input: Tensor, *, out=None):
    """(sign, logabsdet) of input's determinant; see linalg.slogdet."""
    return _lu.legacy_slogdet(input, out=out)


@composite(python_method=True)
def lu(A: Tensor, pivot=True, get_infos=False, out=None):
    """The packed LU factorization (LU, pivots), with infos when get_infos;
    see linalg.lu_factor."""
    _deprecated("lu")
    LU, pivots, infos = _lu._factor("linalg.lu_factor", A, pivot)
    if not get_infos:
        _lu.c.raise_for_info(infos, _lu._u_zero_message, RuntimeError,
                             "torch.linalg.lu_factor")
    results = (LU, pivots, infos) if get_infos else (LU, pivots)
    if out is not None:
        for o, r in zip(out, results):
            _lu.write_out(o, r)
        return tuple(out)
    return results


@composite()
def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *,
             out: Optional[Tensor] = None) -> Tensor:
    """Solves A X = input from lu's (LU_data, LU_pivots) of A."""
    _deprecated("lu_solve")
    return _lu.legacy_lu_solve(input, LU_data, LU_pivots, out=out)


@composite(method=False)
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data=True, unpack_pivots=True, *,
              out=None):
    """(P, L, U) from lu_factor's (LU, pivots)."""
    return _lu.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, out=out)


@composite()
def cholesky(input: Tensor, upper=False, *, out: Optional[Tensor] = None) -> Tensor:
    """The Cholesky factor of input (lower, or upper); see linalg.cholesky."""
    _deprecated("cholesky")
    return _triangular.legacy_cholesky(input, upper, out=out)


@composite()
def cholesky_solve(input: Tensor, input2: Tensor, upper=False, *,
                   out: Optional[Tensor] = None) -> Tensor:
    """Solves A X = input from the Cholesky factor input2 of A."""
    return _triangular.cholesky_solve(input, input2, upper, out=out)


@composite()
def cholesky_inverse(input: Tensor, upper=False, *, out: Optional[Tensor] = None) -> Tensor:
    """The inverse of A from its Cholesky factor input."""
    return _triangular.cholesky_inverse(input, upper, out=out)


@composite()
def triangular_solve(input: Tensor, A: Tensor, upper=True, transpose=False,
                     unitriangular=False, *, out=None):
    """Solves A X = input for triangular A: (solution, cloned_coefficient); see
    linalg.solve_triangular."""
    _deprecated("triangular_solve")
    return _triangular.triangular_solve(input, A, upper, transpose, unitriangular, out=out)


@composite()
def matrix_power(input: Tensor, n: int) -> Tensor:
    """input raised to the integer power n; see linalg.matrix_power."""
    return _lu.matrix_power(input, n)


@composite()
def svd(input: Tensor, some=True, compute_uv=True, *, out=None):
    """(U, S, V) with input = U diag(S) V^T (V, not Vh; see linalg.svd)."""
    return _spectral.legacy_svd(input, some, compute_uv, out=out)


@composite()
def qr(input: Tensor, some=True, *, out=None):
    """(Q, R), reduced when some, complete otherwise; see linalg.qr."""
    return _spectral.legacy_qr(input, some, out=out)


@composite()
def geqrf(input: Tensor, *, out=None):
    """LAPACK's packed QR: (a, tau); see householder_product."""
    return _spectral.geqrf(input, out=out)


@composite()
def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """The product of the Householder reflectors (input, input2); see
    linalg.householder_product."""
    return _spectral.householder_product(input, input2)


@composite()
def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left=True, transpose=False, *,
          out=None):
    """input3 multiplied by the product of the Householder reflectors (input, input2)."""
    return _spectral.ormqr(input, input2, input3, left, transpose, out=out)


@composite()
def pinverse(input: Tensor, rcond=1e-15) -> Tensor:
    """The pseudo-inverse of input; see linalg.pinv."""
    return _spectral.pinverse(input, rcond)


@composite()
def matrix_exp(input: Tensor) -> Tensor:
    """The matrix exponential of each square matrix of input; see linalg.matrix_exp."""
    return _products.matrix_exp(input)


def _approximate_basis(A: Tensor, q: int, niter: int) -> Tensor:
    """Orthonormal columns spanning most of A's range (Halko et al. 2009, algorithm
    4.4): a random projection refined by niter subspace iterations."""
    from . import randn
    # torch draws the projection in float32 unless A is float16, float32,
    # float64 or complex, so its product with an integer, bool or bfloat16 A
    # is refused (mixed dtypes)
    keep = A.dtype in (_C.float16, _C.float32, _C.float64) or A.dtype.is_complex
    R = randn(*A.shape[:-2], A.shape[-1], q, dtype=A.dtype if keep else _C.float32)
    Q = _spectral.qr(A @ R).Q
    for _ in range(niter):
        Q = _spectral.qr(A.mH @ Q).Q
        Q = _spectral.qr(A @ Q).Q
    return Q


@composite(method=False)
def svd_lowrank(A: Tensor, q=6, niter=2, M=None):
    """An approximate rank-q SVD (U, S, V) of A (minus M) by random projection."""
    q = 6 if q is None else q
    X = A if M is None else A - M
    m, n = X.shape[-2], X.shape[-1]
    if m < n or n > q:
        # through the transpose, which keeps the small factor small
        Q = _approximate_basis(X.mH, q, niter)
        U, S, Vh = _spectral.svd(X @ Q, full_matrices=False)
        return U, S, Q @ Vh.mH
    Q = _approximate_basis(X, q, niter)
    U, S, Vh = _spectral.svd(Q.mH @ X, full_matrices=False)
    return Q @ U, S, Vh.mH


@composite(method=False)
def pca_lowrank(A: Tensor, q=None, center=True, niter=2):
    """(U, S, V) of an approximate rank-q principal component analysis of A's rows
    (centered by their mean unless center is False)."""
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    X = A - A.mean(-2, keepdim=True) if center else A
    return svd_lowrank(X, q, niter)


_EIG_REMOVED = (
    "This function was deprecated since version 1.9 and is now removed. `torch.linalg.eig` "
    "returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors mimicking "
    "complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
    "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be "
    "replaced with:\nL_complex, V_complex = torch.linalg.eig(A)")


def eig(self: Tensor, eigenvectors: bool = False, *, e=None, v=None):
    """Removed from torch in 1.9 (as torch, not overridable): raises the error
    that points to linalg.eig and linalg.eigvals."""
    raise RuntimeError(_EIG_REMOVED)


# a method apart from torch.eig, as torch's; wrapping eig, the stubs type it
@functools.wraps(eig)
def _eig_method(self: Tensor, eigenvectors: bool = False, *, e=None, v=None):
    return eig(self, eigenvectors, e=e, v=v)


_eig_method.__qualname__ = "Tensor.eig"
Tensor.eig = _eig_method
