"""torch._unsafe_masked_index and _unsafe_masked_index_put_accumulate: the
index and accumulating index_put that interpolation decompositions use, with
a mask of the positions whose indices are valid. Indices are clamped into
range and the masked-off positions take the fill value (or add nothing), so
out-of-range indices never reach memory. Gradients follow from index,
index_put and masked_fill."""
from typing import Optional, Sequence

from ._tensor import Tensor
from .overrides import composite

__all__ = ["_unsafe_masked_index", "_unsafe_masked_index_put_accumulate"]


def _clamped(input: Tensor, indices: Sequence[Optional[Tensor]]) -> list:
    return [None if index is None else index.clamp(0, input.shape[d] - 1)
            for d, index in enumerate(indices)]


@composite(method=False)
def _unsafe_masked_index(input: Tensor, mask: Tensor, indices: Sequence[Optional[Tensor]],
                         fill: float) -> Tensor:
    """input[indices] where mask is True, fill elsewhere."""
    if input.numel() == 0:
        shape = (input.new_empty((1,) * input.dim()))[
            tuple(slice(None) if i is None else i.new_zeros(i.shape) for i in indices)].shape
        return input.new_full(shape, fill)
    return input[tuple(_clamped(input, indices))].masked_fill(~mask, fill)


@composite(method=False)
def _unsafe_masked_index_put_accumulate(input: Tensor, mask: Tensor,
                                        indices: Sequence[Optional[Tensor]],
                                        values: Tensor) -> Tensor:
    """A copy of input with values added at indices where mask is True."""
    return input.index_put(tuple(_clamped(input, indices)), values.masked_fill(~mask, 0),
                           accumulate=True)
