"""torch._chunk_cat: each tensor split along dim into num_chunks chunks (the
last padded with zeros to the size of the others), and chunk i of every
tensor flattened and concatenated into row i of the result, shaped
(*sizes[:dim], num_chunks, total). Written over pad, view and cat, so its
gradient follows from those ops (torch's has none: its backward raises)."""
import math
from typing import Optional, Sequence

from . import _C
from ._out_param import write_out
from ._tensor import Tensor
from .overrides import composite

__all__ = ["_chunk_cat"]

_f = _C._functions


def _checked_dim(tensors: Sequence[Tensor], dim: int, num_chunks: int) -> int:
    """dim wrapped, after torch's checks of the arguments in torch's order."""
    if not len(tensors):
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if any(t.dtype != tensors[0].dtype for t in tensors):
        raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    if any(t.numel() == 0 for t in tensors):
        raise RuntimeError("_chunk_cat expects non-empty tensor")
    ndims = {t.dim() for t in tensors}
    if len(ndims) == 1:
        ndim = tensors[0].dim()
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-ndim}, {ndim - 1}], but got {dim})")
        dim %= ndim
    elif dim < 0:
        raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have "
                           "different ndims")
    if any(dim >= t.dim() for t in tensors):
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    if any(tuple(t.shape[:dim]) != tuple(tensors[0].shape[:dim]) for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all "
                           "tensors")
    return dim


def _rows(t: Tensor, dim: int, num_chunks: int) -> Tensor:
    """t padded along dim to a multiple of num_chunks and viewed as
    (*sizes[:dim], num_chunks, chunk elements)."""
    size = t.shape[dim]
    chunk = math.ceil(size / num_chunks)
    if chunk * num_chunks != size:
        pad_shape = list(t.shape)
        pad_shape[dim] = chunk * num_chunks - size
        t = _f["cat"]([t, t.new_zeros(pad_shape)], dim)
    return t.reshape(*t.shape[:dim], num_chunks, -1)


@composite(method=False)
def _chunk_cat(tensors: Sequence[Tensor], dim: int, num_chunks: int, *,
               out: Optional[Tensor] = None) -> Tensor:
    """Chunk i of each tensor along dim, flattened and concatenated, as row i
    of a (*sizes[:dim], num_chunks, total) result."""
    tensors = list(tensors)
    dim = _checked_dim(tensors, dim, num_chunks)
    return write_out(out, _f["cat"]([_rows(t, dim, num_chunks) for t in tensors], dim + 1))
