"""Writes into a tensor at computed positions: index_put (advanced
indexing, optionally accumulating), put (flat positions) and masked_scatter
(a mask's set positions, filled in order from source). Each is an indexed
assignment, or an index_add_ over a flat view when values accumulate, so
gradients follow from those ops."""
from typing import Sequence

from . import _C
from ._tensor import Tensor
from .broadcasting import broadcast_shapes
from .composites import _UNSIGNED, _no_kernel
from .overrides import composite

__all__ = ["index_put", "index_put_", "put", "masked_scatter"]

_f = _C._functions


def _type_name(t: Tensor) -> str:
    return t.dtype._scalar_name


def _add_at(self: Tensor, positions: Tensor, values: Tensor) -> Tensor:
    """self's elements at the flat positions (C order) += values, duplicates
    adding up."""
    # out of place and copied back: an in-place write through a flat view
    # would leave self's forward-mode tangent behind
    flat = self.reshape(-1).index_add(0, positions.reshape(-1), values.reshape(-1))
    return self.copy_(flat.view(self.shape))


def _positions(self: Tensor) -> Tensor:
    return _f["arange"](self.numel()).reshape(self.shape)


@composite()
def index_put_(self: Tensor, indices: Sequence[Tensor], values: Tensor,
               accumulate: bool = False) -> Tensor:
    """Puts values from the tensor values into the tensor self using the
    indices specified in indices (which is a tuple of Tensors). With
    accumulate, values at repeated indices add up (into self's values)."""
    indices = tuple(indices)
    for k, ix in enumerate(indices):
        if not isinstance(ix, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                            f"{type(ix).__name__}")
    if values.dtype != self.dtype:
        raise RuntimeError("Index put requires the source and destination dtypes match, got "
                           f"{_type_name(self)} for the destination and {_type_name(values)} "
                           "for the source.")
    if accumulate and self.dtype in _UNSIGNED:
        raise _no_kernel("index_put", self.dtype)
    if not accumulate:
        self[indices] = values
        return self
    at = _positions(self)[indices]
    if not _broadcasts(values.shape, at.shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot "
                           f"be broadcast to indexing result of shape {list(at.shape)}")
    return _add_at(self, at, values.expand(at.shape))


def _broadcasts(shape, to) -> bool:
    if len(shape) > len(to):
        return False
    return all(a in (1, b) for a, b in zip(reversed(list(shape)), reversed(list(to))))


@composite()
def index_put(input: Tensor, indices: Sequence[Tensor], values: Tensor,
              accumulate: bool = False) -> Tensor:
    """Out-of-place version of ``Tensor.index_put_``."""
    return index_put_(input.clone(), indices, values, accumulate)


@composite(function=False)
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Copies the elements from source into the positions specified by index,
    self treated as if it were a 1-D tensor; with accumulate, repeated
    positions add up."""
    if index.dtype != _C.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_type_name(index)}")
    if self.dtype != source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_type_name(self)} and source.dtype = "
                           f"{_type_name(source)}")
    if source.numel() != index.numel():
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, "
                         f"index.numel() = {index.numel()}")
    n = self.numel()
    flat_index = index.reshape(-1)
    if flat_index.numel():
        bad = (flat_index < -n) | (flat_index >= n)
        if bool(bad.any()):
            first = int(flat_index[bad][0])
            raise IndexError(f"out of range: tried to access index {first} on a tensor of {n} "
                             "elements.")
    at = _positions(self).reshape(-1)[flat_index]
    if accumulate:
        return _add_at(self, at, source)
    flat = self.reshape(-1).clone()
    flat[at] = source.reshape(-1)
    return self.copy_(flat.view(self.shape))


@composite()
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Out-of-place version of ``Tensor.put_``."""
    return input.clone().put_(index, source, accumulate)


@composite(function=False)
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Copies elements from source into self at the positions where mask is
    True, in order; mask broadcasts to self's shape."""
    if mask.dtype != _C.bool:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_type_name(mask)}")
    if self.dtype != source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{_type_name(self)} and {_type_name(source)}")
    mask = mask.expand(self.shape)
    count = int(mask.sum())
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    self[mask] = source.reshape(-1)[:count]
    return self


@composite()
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Out-of-place version of ``Tensor.masked_scatter_``: input and mask
    broadcast together."""
    if mask.dtype != _C.bool:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_type_name(mask)}")
    shape = broadcast_shapes(input.shape, mask.shape)
    return masked_scatter_(input.expand(shape).clone(), mask, source)
