"""The matrix products and norms of minitorch.linalg, built from the C ops
(norm, abs, sum, amax/amin)."""
import math
import numbers

from .. import _C
from .._tensor import Tensor
from ..overrides import overridable as _overridable
from ._common import check_low_precision
from ._out import write_out

_mt = _C._functions

matmul = _mt["matmul"]

__all__ = ["matmul", "multi_dot", "vector_norm", "matrix_norm", "norm"]


def multi_dot(tensors, *, out=None):
    """Multiplies two or more matrices, left to right; the first and the last
    may be vectors (a row and a column), as torch's checks and messages say."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for which, t in (("first", tensors[0]), ("last", tensors[-1])):
        if t.dim() not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{t.dim()}D")
    dtype = tensors[0].dtype
    for i in range(1, n):
        t = tensors[i]
        if i < n - 1 and t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
        if t.dtype != dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {dtype._cpp_name} and tensor {i} {t.dtype._cpp_name}")
    if out is not None and out.dtype != dtype:
        raise RuntimeError(f"multi_dot(): expected out tensor to have dtype {dtype._cpp_name} "
                           f"but got {out.dtype._cpp_name}")
    for i in range(n - 1):
        a, b = tensors[i], tensors[i + 1]
        if a.shape[-1] != b.shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(a.shape)} and {list(b.shape)} cannot be multiplied")
    result = tensors[0]
    for t in tensors[1:]:
        result = matmul(result, t)
    return write_out(out, result)


def _dims(dim):
    if dim is None:
        return None
    return [dim] if isinstance(dim, numbers.Integral) else list(dim)


def _check_float(name, x, dtype):
    d = dtype or x.dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype._scalar_name}")


def _vector_norm(x: "Tensor", ord=2, dim=None, keepdim=False, *, dtype=None):
    """Computes a vector norm over dim (all elements when None): ``sum(abs(x)**ord)**(1/ord)``,
    ``max(abs(x))`` for inf, ``min(abs(x))`` for -inf, the count of non-zeros for 0."""
    if not isinstance(ord, numbers.Number) or isinstance(ord, bool):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        f"not {type(ord).__name__}")
    _check_float("vector_norm", x, dtype)
    dims = _dims(dim)
    if dtype is not None:
        x = x.to(dtype)
    # a complex vector's norm is that of its elements' moduli
    x = x.abs() if x.dtype.is_complex else x
    return _mt["norm"](x, float(ord), dims if dims else None, keepdim)


def _squeeze_dims(t, dims):
    for d in sorted((d % t.dim() for d in dims), reverse=True):
        t = t.squeeze(d)
    return t


def _matrix_norm(A: "Tensor", ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Computes a matrix norm over the two dims in dim: 'fro', the max/min absolute
    column (ord=1/-1) or row (ord=inf/-inf) sum, or from the singular values the
    largest (2), smallest (-2) or their sum ('nuc')."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    dims = _dims(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dims)}")
    nd = A.dim()
    for d in dims:
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
    d0, d1 = (d % nd for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    _check_float("matrix_norm", A, dtype)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return _mt["norm"](A.abs() if A.dtype.is_complex else A, 2.0, [d0, d1], keepdim)
    if ord in ("nuc", 2, -2):
        from ._spectral import matrix_norm_svd
        check_low_precision("linalg.matrix_norm", A)
        perm = [i for i in range(A.dim()) if i not in (d0, d1)] + [d0, d1]
        r = matrix_norm_svd(A.permute(*perm), ord)
        return r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1)) if keepdim else r
    if isinstance(ord, str) or ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # |ord| 1: sum down the rows (dim d0) then extremum over columns; inf: the reverse
    first, second = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = A.abs().sum(first, keepdim=True)
    if A.shape[second] == 0:
        if ord < 0:
            # torch takes the minimum over the dims left after the sum
            left = second - (1 if not keepdim and first < second else 0)
            raise IndexError(f"amin(): Expected reduction dim {left} to have non-zero size.")
        # the largest of no column sums is torch's 0
        r = sums.sum(second, keepdim=True)
        return r if keepdim else _squeeze_dims(r, [d0, d1])
    r = (sums.amax if ord > 0 else sums.amin)(second, keepdim=True)
    return r if keepdim else _squeeze_dims(r, [d0, d1])


def _norm(A: "Tensor", ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector or matrix norm: matrix norms for string orders or a 2-tuple dim (or a 2-D
    input without dim), vector norms otherwise."""
    dims = _dims(dim)
    if dims is not None and len(dims) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                           f"Got {list(dims)}")
    # without an order torch takes the 2-norm of the flattened dims (a vector norm, which
    # equals 'fro' over two dims and checks them as vector_norm does)
    if dims is not None and len(dims) == 2 and (isinstance(ord, str)
                                                or ord in (1, -1, 2, -2, math.inf, -math.inf)):
        return _matrix_norm(A, ord, dims, keepdim, dtype=dtype)
    if isinstance(ord, str):
        if dims is None and A.dim() in (1, 2):
            # torch hands 1-D and 2-D inputs with a string order to matrix_norm
            return _matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if dims is None:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.dim()}D.")
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dims)}")
    if ord is not None and dims is None:
        if A.dim() == 2:
            return _matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        if A.dim() != 1:
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input "
                               f"must be 1D or 2D. Got {A.dim()}D.")
    return _vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


@_overridable
def vector_norm(x: "Tensor", ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Computes a vector norm over dim (all elements when None): ``sum(abs(x)**ord)**(1/ord)``,
    ``max(abs(x))`` for inf, ``min(abs(x))`` for -inf, the count of non-zeros for 0."""
    return write_out(out, _vector_norm(x, ord, dim, keepdim, dtype=dtype))


def _norm_out(name, out, result):
    """result written into out, which must have its dtype (torch's message for
    matrix_norm and norm; vector_norm's is out='s common one)."""
    if out is not None and out.dtype != result.dtype:
        raise RuntimeError(f"{name} expected out tensor dtype {result.dtype._scalar_name} but "
                           f"got: {out.dtype._scalar_name}")
    return write_out(out, result)


@_overridable
def matrix_norm(A: "Tensor", ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Computes a matrix norm over the two dims in dim: 'fro', the max/min absolute
    column (ord=1/-1) or row (ord=inf/-inf) sum, or from the singular values the
    largest (2), smallest (-2) or their sum ('nuc')."""
    return _norm_out("linalg.matrix_norm", out, _matrix_norm(A, ord, dim, keepdim, dtype=dtype))


@_overridable
def norm(A: "Tensor", ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """A vector or matrix norm: matrix norms for string orders or a 2-tuple dim (or a 2-D
    input without dim), vector norms otherwise."""
    return _norm_out("linalg.norm", out, _norm(A, ord, dim, keepdim, dtype=dtype))
