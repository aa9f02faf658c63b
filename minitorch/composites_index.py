"""Index, scatter and diagonal functions (and the Tensor methods torch has
for them) composed of clone, views and in-place writes into views, so their
gradients follow from those ops."""
from typing import Optional, Sequence

from . import _C
from ._out_param import write_out
from ._tensor import Tensor
from .composites import _UNSIGNED, _no_kernel
from .overrides import composite

__all__ = ["index_copy", "index_fill", "select_scatter", "slice_scatter", "diagonal_scatter",
           "as_strided_scatter", "diag_embed"]

_f = _C._functions


def _along(input: Tensor, dim: int, key) -> tuple:
    """The __getitem__ key that applies key along dim of input."""
    return (slice(None),) * (dim % max(input.dim(), 1)) + (key,)


def _lines(t: Tensor) -> Tensor:
    """t, or a 0-d t as a one-element vector view (torch indexes a 0-d tensor
    along dim 0 as if it were one)."""
    return t.reshape(1) if t.dim() == 0 else t


def _check_index(name: str, index: Tensor) -> None:
    if index.dtype != _C.int64:
        raise IndexError(f"{name}(): Expected dtype int64 for index.")


@composite()
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """Copies the elements of source into self by selecting the indices in
    the order given in index along dim."""
    _check_index("index_copy_", index)
    count = source.shape[dim] if source.dim() else 1
    if index.numel() != count:
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal "
                         f"to source.size(dim) ({count})")
    lines = _lines(self)
    lines[_along(lines, dim, index.reshape(-1))] = source
    return self


@composite()
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *,
               out: Optional[Tensor] = None) -> Tensor:
    """Out-of-place version of ``Tensor.index_copy_``."""
    return write_out(out, index_copy_(input.clone(), dim, index, source))


@composite()
def index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """Fills the elements of self with value value by selecting the indices
    in the order given in index along dim."""
    _check_index("index_fill_", index)
    if self.dtype in _UNSIGNED:
        raise _no_kernel("index_fill_cpu", self.dtype)
    lines = _lines(self)
    # each line filled once, so a tensor value's gradient counts a repeated index once
    lines[_along(lines, dim, _f["unique"](index.reshape(-1)))] = value
    return self


@composite()
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """Out-of-place version of ``Tensor.index_fill_``."""
    return index_fill_(input.clone(), dim, index, value)


def _check_slice(src: Tensor, part: Tensor) -> None:
    if list(src.shape) != list(part.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(part.shape)}")


def _scatter_into(input: Tensor, src: Tensor, view) -> Tensor:
    """A copy of input whose part that view(copy) selects holds src."""
    out = input.clone()
    part = view(out)
    _check_slice(src, part)
    part.copy_(src)
    return out


@composite()
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """Embeds the values of the src tensor into input at the given index."""
    return _scatter_into(input, src, lambda t: t.select(dim, index))


@composite()
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None,
                  end: Optional[int] = None, step: int = 1, *,
                  out: Optional[Tensor] = None) -> Tensor:
    """Embeds the values of the src tensor into input at the given dimension."""
    result = _scatter_into(input, src, lambda t: t[_along(t, dim, slice(start, end, step))])
    return result if out is None else write_out(out, result)


@composite()
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """Embeds the values of the src tensor into input along the diagonal
    elements of input, with respect to dim1 and dim2."""
    return _scatter_into(input, src, lambda t: t.diagonal(offset, dim1, dim2))


@composite()
def as_strided_scatter(input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int],
                       storage_offset: Optional[int] = None) -> Tensor:
    """Embeds the values of the src tensor into input along the elements
    that as_strided(size, stride, storage_offset) would select."""
    if input.requires_grad and not input.is_contiguous():
        raise RuntimeError("as_strided_scatter is currently only supported for contiguous "
                           "inputs")
    # the offset counts from input's first element, as the copy starts there
    shift = 0 if storage_offset is None else storage_offset - input.storage_offset()
    return _scatter_into(input, src, lambda t: t.as_strided(size, stride, shift))


@composite()
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Creates a tensor whose diagonals of certain 2D planes (specified by dim1
    and dim2) are filled by input."""
    nd = input.dim() + 1
    for d in (dim1, dim2):
        if not -nd <= d < nd:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got {d})")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + abs(offset) if input.dim() else 1 + abs(offset)
    rest = iter(input.shape[:-1])
    shape = [n if d in (d1, d2) else next(rest) for d in range(nd)]
    out = _f["zeros"](shape, dtype=input.dtype)
    out.diagonal(offset, d1, d2).copy_(input)
    return out


@composite()
def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal of a tensor that has at least 2-dimensions.
    When dims>2, all dimensions of input must be of equal length."""
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and len(set(self.shape)) > 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    self.as_strided([n], [sum(self.stride())]).fill_(fill_value)
    rows, cols = self.shape[0], self.shape[-1]
    # wrapping restarts the diagonal one row below the end of the previous one
    if wrap and self.dim() == 2 and rows > cols + 1:
        fill_diagonal_(self.narrow(0, cols + 1, rows - cols - 1), fill_value, wrap)
    return self


@composite()
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Returns a view of the original tensor which contains all slices of size
    size from self tensor in the dimension dimension."""
    nd = self.dim()
    # a 0-d tensor unfolds as one of a single element
    length = (self if nd else self.reshape(1)).size(dimension)
    d = dimension % max(nd, 1)
    stride = self.stride(d) if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    sizes, strides = list(self.shape), list(self.stride())
    if nd:
        sizes[d], strides[d] = (length - size) // step + 1, stride * step
    return self.as_strided(sizes + [size], strides + [stride])
