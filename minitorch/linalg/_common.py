"""What the linalg modules share: LinAlgError, torch's argument checks and
messages, the named return types, the LAPACK rows (private `_lapack_*` ops
of csrc/ops/linalg_lapack.def) and the turning of their info tensors into
torch's errors."""
from typing import Optional

from .. import _C
from .._tensor import Tensor
from ..autograd import forward_ad as _forward_ad
from ..broadcasting import broadcast_shapes

_mt = _C._functions


class LinAlgError(RuntimeError):
    """Raised when a linear-algebra routine fails on its input (a singular
    matrix, a matrix that is not positive-definite, no convergence)."""


LinAlgError.__module__ = "minitorch.linalg"


def named(name: str, *fields: str) -> type:
    """minitorch.return_types.<name>, torch's named result tuple; as torch's
    (a struct sequence) it is made from one tuple of the values."""
    return _C._return_type(name, fields)


def check_matrix(name: str, A: Tensor, arg: str = "A") -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def check_float(name: str, A: Tensor) -> None:
    if not (A.dtype.is_floating_point or A.dtype.is_complex):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {A.dtype._scalar_name}")


def check_square(name: str, A: Tensor, arg: str = "A") -> None:
    check_matrix(name, A, arg)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def check_lapack_dtype(kernel: str, A: Tensor) -> None:
    """torch's refusal of a dtype its LAPACK kernels have no routine for."""
    if str(A.dtype) not in ("minitorch.float32", "minitorch.float64", "minitorch.complex64",
                            "minitorch.complex128"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{A.dtype._scalar_name}'")


def check_epsilon_dtype(A: Tensor) -> None:
    """torch's refusal where a default tolerance needs the machine epsilon of
    a dtype it has none for (float and double, or their complex types)."""
    if str(A.dtype) not in ("minitorch.float32", "minitorch.float64", "minitorch.complex64",
                            "minitorch.complex128"):
        raise RuntimeError("This function doesn't handle types other than float and double")


def check_low_precision(name: str, A: Tensor) -> None:
    if str(A.dtype) in ("minitorch.float16", "minitorch.bfloat16"):
        raise RuntimeError(f"{name}: Low precision dtypes not supported. "
                           f"Got {A.dtype._scalar_name}")


def check_same_dtype(name: str, a: Tensor, b: Tensor, na: str = "A", nb: str = "B") -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected {na} and {nb} to have the same dtype, but found "
                           f"{na} of type {a.dtype._scalar_name} and {nb} of type "
                           f"{b.dtype._scalar_name} instead")


def prod_last(x: Tensor) -> Tensor:
    """The product over x's last dim (1 over an empty one, still a function
    of x for autograd)."""
    return x.prod(-1)


def raise_for_info(info: Tensor, message, error=LinAlgError, name: Optional[str] = None) -> None:
    """Raises error(message(code)) for the first nonzero entry of info, with
    torch's "(Batch element i): " for a batch. name prefixes the message."""
    if info.numel() == 0 or not info.any():
        return
    flat = info.reshape(-1)
    bad = (flat != 0).nonzero()
    if bad.numel() == 0:
        return
    i = int(bad[0, 0])
    text = message(int(flat[i]))
    if info.dim() > 0:
        text = f"(Batch element {i}): {text}"
    raise error(f"{name}: {text}" if name else text)


def singular_message(code: int) -> str:
    return (f"The diagonal element {code} is zero, the inversion could not be completed "
            f"because the input matrix is singular.")


def not_pd_message(code: int) -> str:
    return (f"The factorization could not be completed because the input is not "
            f"positive-definite (the leading minor of order {code} is not positive-definite).")


def differentiated(t: Tensor) -> bool:
    """Whether t carries a gradient or a forward-mode tangent (a LAPACK row
    alone then will not do)."""
    if t.requires_grad:
        return True
    # no dual level entered: no tangent anywhere, and unpack_dual's view is saved
    return _forward_ad._current_level >= 0 and _forward_ad.unpack_dual(t).tangent is not None


def lapack_direct(*tensors: Tensor) -> bool:
    """Whether LAPACK rows may be called on tensors directly, skipping the
    autograd Function around them: plain tensors with nothing to
    differentiate (for small matrices the Function costs as much as the
    factorization)."""
    return all(type(t) is Tensor and not differentiated(t) for t in tensors)


def broadcast_batch(A: Tensor, B: Tensor):
    """A and B expanded to their common batch dims (the last two of each are
    their matrices)."""
    if A.shape[:-2] == B.shape[:-2]:
        return A, B
    batch = tuple(broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    return (A.expand(*batch, *A.shape[-2:]), B.expand(*batch, *B.shape[-2:]))


LUFactorResult = named("linalg_lu_factor", "LU", "pivots")
LUFactorExResult = named("linalg_lu_factor_ex", "LU", "pivots", "info")
LUResult = named("linalg_lu", "P", "L", "U")
LUUnpackResult = named("lu_unpack", "P", "L", "U")
SlogdetResult = named("linalg_slogdet", "sign", "logabsdet")
LegacySlogdetResult = named("slogdet", "sign", "logabsdet")
InvExResult = named("linalg_inv_ex", "inverse", "info")
SolveExResult = named("linalg_solve_ex", "result", "info")
CholeskyExResult = named("linalg_cholesky_ex", "L", "info")
TriangularSolveResult = named("triangular_solve", "solution", "cloned_coefficient")
LDLFactorResult = named("linalg_ldl_factor", "LD", "pivots")
LDLFactorExResult = named("linalg_ldl_factor_ex", "LD", "pivots", "info")


EighResult = named("linalg_eigh", "eigenvalues", "eigenvectors")
SVDResult = named("linalg_svd", "U", "S", "Vh")
LegacySVDResult = named("svd", "U", "S", "V")
QRResult = named("linalg_qr", "Q", "R")
LegacyQRResult = named("qr", "Q", "R")
GeqrfResult = named("geqrf", "a", "tau")
LstsqResult = named("linalg_lstsq", "solution", "residuals", "rank", "singular_values")
