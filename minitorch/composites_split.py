"""Splitting, stacking and block-building functions (and the Tensor methods
torch has for them), composed of views, cat and products as torch composes
them, so their gradients (and grad_fn names) come from those inner ops."""
import itertools
import math
from typing import Optional, Sequence, Tuple, Union

from . import _C
from ._tensor import Tensor
from .composites import atleast_3d, meshgrid
from ._out_param import write_out
from .overrides import composite

__all__ = ["tensor_split", "hsplit", "vsplit", "dsplit", "dstack", "column_stack",
           "concatenate", "rot90", "diagflat", "kron", "inner", "block_diag", "cartesian_prod",
           "unravel_index", "tril_indices", "triu_indices"]

_f = _C._functions
# More pieces than this cannot be held in memory: torch's vector of them fails.
_MAX_PIECES = 2 ** 31


def _clamped(i: int, size: int) -> int:
    """A slice bound as Python slicing reads it: negative counts from the end."""
    return min(max(i + size if i < 0 else i, 0), size)


@composite()
def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> Tuple[Tensor, ...]:
    """Splits a tensor into multiple sub-tensors, all of which are views of
    input, along dimension dim according to the indices or number of sections
    specified by indices_or_sections."""
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                               "zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {indices_or_sections.dim()} dims")
        indices_or_sections = indices_or_sections.tolist()
    size = input.shape[dim]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        if sections >= _MAX_PIECES:  # torch cannot allocate the result's vector either
            raise RuntimeError("cannot create std::vector larger than max_size()"
                               if sections >= 2 ** 60 else "std::bad_alloc")
        # the first size % sections pieces take one element more
        small, extra = divmod(size, sections)
        lengths = [small + (k < extra) for k in range(sections)]
        starts = itertools.accumulate(lengths, initial=0)
        return tuple(input.narrow(dim, s, n) for s, n in zip(starts, lengths))
    bounds = [0, *(_clamped(i, size) for i in indices_or_sections), size]
    return tuple(input.narrow(dim, lo, max(hi - lo, 0)) for lo, hi in zip(bounds, bounds[1:]))


def _split_at(name: str, input: Tensor, min_dims: int, dim: int, indices_or_sections):
    """hsplit, vsplit and dsplit: tensor_split along dim, whose int form must
    divide the dim evenly."""
    if not isinstance(indices_or_sections, (int, list, tuple, Tensor)):
        got = type(indices_or_sections).__name__
        forms = "".join(f" * (Tensor input, {form})\n      didn't match because some of the "
                        f"arguments have invalid types: (Tensor, !{got}!)\n"
                        for form in ("int sections", "tuple of ints indices"))
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{got}), but expected one of:\n{forms}")
    if input.dim() < min_dims:
        if min_dims == 1:
            raise RuntimeError(f"torch.{name} requires a tensor with at least 1 dimension, but "
                               f"got a tensor with {input.dim()} dimensions!")
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the "
                               f"split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


@composite()
def hsplit(input: Tensor, indices_or_sections) -> Tuple[Tensor, ...]:
    """Splits input, a tensor with one or more dimensions, into multiple
    tensors horizontally according to indices_or_sections."""
    return _split_at("hsplit", input, 1, 1 if input.dim() > 1 else 0, indices_or_sections)


@composite()
def vsplit(input: Tensor, indices_or_sections) -> Tuple[Tensor, ...]:
    """Splits input, a tensor with two or more dimensions, into multiple
    tensors vertically according to indices_or_sections."""
    return _split_at("vsplit", input, 2, 0, indices_or_sections)


@composite()
def dsplit(input: Tensor, indices_or_sections) -> Tuple[Tensor, ...]:
    """Splits input, a tensor with three or more dimensions, into multiple
    tensors depthwise according to indices_or_sections."""
    return _split_at("dsplit", input, 3, 2, indices_or_sections)


def _nonempty(name: str, tensors: Sequence[Tensor]) -> None:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@composite(method=False)
def dstack(tensors: Sequence[Tensor], *, out: Optional[Tensor] = None) -> Tensor:
    """Stack tensors in sequence depthwise (along third axis)."""
    _nonempty("dstack", tensors)
    shaped = atleast_3d(list(tensors))
    return _f["cat"](list(shaped) if isinstance(shaped, tuple) else [shaped], 2, out=out)


@composite(method=False)
def column_stack(tensors: Sequence[Tensor], *, out: Optional[Tensor] = None) -> Tensor:
    """Creates a new tensor by horizontally stacking the tensors in tensors."""
    _nonempty("column_stack", tensors)
    return _f["hstack"]([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors],
                        out=out)


@composite(method=False)
def concatenate(tensors: Sequence[Tensor], dim: int = 0, *, axis: Optional[int] = None) -> Tensor:
    """Alias of torch.cat."""
    return _f["cat"](tensors, dim if axis is None else axis)


@composite()
def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate an n-D tensor by 90 degrees in the plane specified by dims axis.
    Rotation direction is from the first towards the second axis if k > 0,
    and from the second towards the first for k < 0."""
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = dims
    if d0 == d1 or abs(d0 - d1) == input.dim():
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k %= 4
    if k == 1:
        return input.flip([d1]).transpose(d0, d1)
    if k == 2:
        return input.flip([d0, d1])
    if k == 3:
        return input.flip([d0]).transpose(d0, d1)
    return input.clone()


@composite()
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """If input is a vector (1-D tensor), then returns a 2-D square tensor
    with the elements of input as the diagonal; otherwise input is flattened
    first."""
    return _f["diag"](input.reshape(-1), offset)


@composite()
def kron(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Computes the Kronecker product of input and other."""
    nd = max(input.dim(), other.dim())
    a = input.reshape([1] * (nd - input.dim()) + list(input.shape))
    b = other.reshape([1] * (nd - other.dim()) + list(other.shape))
    # a's dims interleaved with b's: a[i, j] * b[k, l] lands at [i, k, j, l]
    spread_a = [s for d in a.shape for s in (d, 1)]
    spread_b = [s for d in b.shape for s in (1, d)]
    spread = a.reshape(spread_a) * b.reshape(spread_b)
    result = spread.reshape([x * y for x, y in zip(a.shape, b.shape)])
    if out is not None and out.dtype != result.dtype:
        # torch writes the product as mul's out=: any dtype the result casts to
        if not _C.can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {result.dtype._scalar_name} can't be cast to the "
                               f"desired output type {out.dtype._scalar_name}")
        result = result.to(out.dtype)
    return write_out(out, result)


@composite()
def inner(input: Tensor, other: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """Computes the dot product for 1D tensors. For higher dimensions, sums
    the product of elements from input and other along their last dimension."""
    if input.dim() == 0 or other.dim() == 0:
        return write_out(out, input * other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    n = input.shape[-1]
    rows = math.prod(input.shape[:-1]), math.prod(other.shape[:-1])
    flat = input.reshape(rows[0], n).matmul(other.reshape(rows[1], n).t())
    return write_out(out, flat.reshape(list(input.shape[:-1]) + list(other.shape[:-1])))


@composite(method=False)
def block_diag(*tensors: Tensor) -> Tensor:
    """Create a block diagonal matrix from provided tensors."""
    for k, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {k} has {t.dim()} dimensions")
    blocks = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    if not blocks:
        return _f["zeros"]([1, 0])
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _C.promote_types(dtype, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        pad = [left, width - left - b.shape[1]]
        rows.append(_C._nn_functions["pad"](b.to(dtype), pad))
        left += b.shape[1]
    return _f["cat"](rows, 0)


@composite(method=False)
def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Do cartesian product of the given sequence of tensors."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError("Expect a 1D vector, but got shape "
                               f"{list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return _f["stack"]([g.reshape(-1) for g in grids], 1)


@composite(method=False)
def unravel_index(indices: Tensor, shape: Union[int, Sequence[int]]) -> Tuple[Tensor, ...]:
    """Converts a tensor of flat indices into a tuple of coordinate tensors
    that index into an arbitrary tensor of the specified shape."""
    if not isinstance(indices, Tensor):
        indices = _f["tensor"](indices)
    if indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    coords = []
    rest = indices.to(_C.int64)
    for s in reversed(shape):
        coords.append(rest % s)
        rest = rest.div(s, rounding_mode="floor")
    return tuple(reversed(coords))


def _triangle_indices(lower: bool, row: int, col: int, offset: int, dtype) -> Tensor:
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    r = _f["arange"](row).unsqueeze(1)
    c = _f["arange"](col)
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return keep.nonzero().t().to(dtype)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=_C.int64, device=None,
                 layout=None) -> Tensor:
    """The (row, column) positions on or below diagonal `offset` of a row x col
    matrix, as the two rows of a 2 x N tensor, in row-major order."""
    return _triangle_indices(True, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=_C.int64, device=None,
                 layout=None) -> Tensor:
    """The (row, column) positions on or above diagonal `offset` of a row x col
    matrix, as the two rows of a 2 x N tensor, in row-major order."""
    return _triangle_indices(False, row, col, offset, dtype)
