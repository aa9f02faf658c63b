"""torch.linalg's functions over plain tensor ops: vecdot, cross, diagonal,
vander and matrix_exp (its algorithm and derivative in _matrix_exp)."""
from .. import _C
from .._tensor import Tensor
from ..overrides import overridable as _overridable
from . import _common as c
from ._matrix_exp import matrix_exp_of
from ._out import write_out

_mt = _C._functions


@_overridable
def vecdot(x: Tensor, y: Tensor, *, dim=-1, out=None):
    """The dot product of x and y along dim (x conjugated), broadcasting their
    other dims."""
    name = "linalg.vecdot"
    c.check_same_dtype(name, x, y, "x", "y")
    c.check_float(name, x)
    return write_out(out, (x.conj() * y).sum(dim))


@_overridable
def cross(input: Tensor, other: Tensor, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim, broadcasting the other dims."""
    name = "linalg.cross"
    if input.dim() != other.dim():
        raise RuntimeError(f"{name}: inputs must have the same number of dimensions.")
    nd = input.dim()
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    from ..composites_math import cross as _cross
    return write_out(out, _cross(input, other, dim=dim))


@_overridable
def diagonal(A: Tensor, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix of A (a view): torch.diagonal with the matrix dims last."""
    return A.diagonal(offset, dim1, dim2)


@_overridable
def vander(x: Tensor, *, N=None):
    """The Vandermonde matrix of x: columns x**0, x**1, ..., x**(N-1) (N defaults to
    x's last size)."""
    if x.dtype in (_C.bool, _C.float16, _C.bfloat16):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, "
                           f"but got {x.dtype._scalar_name}")
    n = N if N is not None else (x.shape[-1] if x.dim() else 1)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dim() == 0:
        x = x.reshape(1)
    ones = _mt["ones_like"](x).unsqueeze(-1)
    if x.dtype.is_complex:
        # the engine's cumprod has no complex kernel: one power at a time
        columns = [ones]
        for _ in range(n - 1):
            columns.append(columns[-1] * x.unsqueeze(-1))
        return _mt["cat"](columns, -1)
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    return _mt["cat"]([ones, powers], -1)


@_overridable
def matrix_exp(A: Tensor):
    """The matrix exponential of each square matrix of A."""
    name = "linalg.matrix_exp"
    c.check_matrix(name, A)
    c.check_square(name, A)
    c.check_float(name, A)
    return matrix_exp_of(A)
