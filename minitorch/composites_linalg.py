"""The linear-algebra names torch keeps outside torch.linalg (torch.det,
inverse, logdet, slogdet, lu, lu_solve, lu_unpack, cholesky,
cholesky_solve, cholesky_inverse, triangular_solve, matrix_power, svd, qr,
geqrf, orgqr, ormqr, pinverse, matrix_exp, svd_lowrank, pca_lowrank,
nuclear_norm) and their Tensor methods: each is its minitorch.linalg function
under torch's older signature and messages; and eig, symeig, solve, lstsq and
matrix_rank, which torch removed but still answers with the error that points
to their torch.linalg successors."""
import functools
import warnings
from typing import Optional

from . import _C
from ._tensor import Tensor
from .linalg import _lu, _norms, _products, _spectral, _triangular
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
           "nuclear_norm", "eig", "symeig", "solve", "lstsq", "matrix_rank"]


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


_NUCLEAR_WARNED = set()


@composite(method=False)
def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *,
                 out: Optional[Tensor] = None) -> Tensor:
    """linalg.matrix_norm(input, 'nuc', dim, keepdim): torch keeps it for the
    JIT, warning (once per process for each of its dim-less forms) that it
    is deprecated; a bool second argument is the dim-less form's keepdim."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        form = out is None
        if form not in _NUCLEAR_WARNED:
            _NUCLEAR_WARNED.add(form)
            warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT "
                          "compatibility. It will be removed in a future PyTorch release. Please "
                          "use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                          UserWarning, stacklevel=3)
        dim = (-2, -1)
    return _norms.matrix_norm(input, "nuc", dim, keepdim, out=out)


_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REMOVED_HOW = {
    "eig": " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
           "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
           "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = "
           "torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
           "torch.linalg.eig(A)",
    "symeig": " The default behavior has changed from using the upper triangular portion of the "
              "matrix by default to using the lower triangular portion.\n\nL, _ = "
              "torch.symeig(A, upper=upper) should be replaced with:\nL = "
              "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
              "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = "
              "torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
    "solve": " `torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` "
             "has its arguments reversed and does not return the LU factorization.\n\nTo get "
             "the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or "
             "`torch.lu_unpack`.\nX = torch.solve(B, A).solution should be replaced with:\nX "
             "= torch.linalg.solve(A, B)",
    "lstsq": " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` "
             "has reversed arguments and does not return the QR decomposition in the returned "
             "tuple (although it returns other information about the problem).\n\nTo get the "
             "QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in "
             "`torch.lstsq` stored the residuals of the solution in the last m - n columns of "
             "the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in "
             "the field 'residuals' of the returned named tuple.\n\nThe unpacking of the "
             "solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be "
             "replaced with:\nX = torch.linalg.lstsq(A, B).solution",
    "matrix_rank": "\nPlease use the `torch.linalg.matrix_rank` function instead. The parameter "
                   "'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.",
}


# torch removed these in 1.9 and keeps them (as plain functions, not
# overridable) only to raise the error that names their successors
def eig(self: Tensor, eigenvectors: bool = False, *, e=None, v=None):
    """Removed from torch in 1.9: raises the error pointing to linalg.eig."""
    raise RuntimeError(_REMOVED + _REMOVED_HOW["eig"])


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed from torch in 1.9: raises the error pointing to linalg.eigh."""
    raise RuntimeError(_REMOVED + _REMOVED_HOW["symeig"])


def solve(input: Tensor, A: Tensor, *, out=None):
    """Removed from torch in 1.9: raises the error pointing to linalg.solve."""
    raise RuntimeError(_REMOVED + _REMOVED_HOW["solve"])


def lstsq(input: Tensor, A: Tensor, *, out=None):
    """Removed from torch in 1.9: raises the error pointing to linalg.lstsq."""
    raise RuntimeError(_REMOVED + _REMOVED_HOW["lstsq"])


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed from torch in 1.9: raises the error pointing to linalg.matrix_rank."""
    raise RuntimeError(_REMOVED + _REMOVED_HOW["matrix_rank"])


# methods apart from the functions, as torch's (Tensor.matrix_rank is gone);
# wrapping their function, the stubs type them
def _eig_method(self, eigenvectors=False):
    return eig(self, eigenvectors=eigenvectors)


def _symeig_method(self, eigenvectors=False):
    return symeig(self, eigenvectors=eigenvectors)


def _solve_method(self, other):
    return solve(self, other)


def _lstsq_method(self, other):
    return lstsq(self, other)


for _f, _m in ((eig, _eig_method), (symeig, _symeig_method), (solve, _solve_method),
               (lstsq, _lstsq_method)):
    _m = functools.wraps(_f)(_m)
    _m.__qualname__ = "Tensor." + _f.__name__
    setattr(Tensor, _f.__name__, _m)
