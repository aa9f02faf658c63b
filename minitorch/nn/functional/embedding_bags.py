"""nn.functional.embedding_bag (re-exported by nn.functional): the sum, mean
or max of the embedding rows of each bag of indices, written over the
differentiable embedding lookup and index_add, so the weight's and the
per-sample weights' gradients come from autograd."""
from __future__ import annotations

import warnings
from typing import Optional

import minitorch
from ...overrides import overridable as _overridable
from .embeddings import _embedding_renorm_
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _flatten_bags(input: Tensor, offsets: Optional[Tensor], per_sample_weights, include_last):
    """input as one list of indices with the offset at which each bag starts."""
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {type(offsets)}")
        offsets = minitorch.arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
        return input.reshape(-1), offsets, per_sample_weights, False
    if input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        return input, offsets, per_sample_weights, include_last
    raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")


def _check_indices(indices: Tensor, offsets: Tensor, rows: int) -> None:
    """torch's kernel checks, in its order and words."""
    for t in (indices, offsets):
        if t.dtype not in (minitorch.int64, minitorch.int32):
            raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                               "following scalar types: Long, Int; but got "
                               f"{t.type()} instead (while "
                               "checking arguments for embedding_bag)")
    count = indices.numel()
    if offsets.numel():
        if int(offsets[0]) != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the "
                               "mini-batch has to start from position 0. However, got "
                               f"{int(offsets[0])}\n[ {offsets.type()}"
                               "{} ]")  # torch prints offsets[0] as a 0-d tensor too
        if int(offsets[-1]) > count:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {count} but "
                               f"got offsets[-1] of {int(offsets[-1])}")
    bad = ((indices < 0) | (indices >= rows)).nonzero().reshape(-1)
    if bad.numel():
        at = int(bad[0])
        # torch numbers the index within its bag
        start = int((offsets <= at).long().sum()) - 1 if offsets.numel() else 0
        within = at - (int(offsets[start]) if offsets.numel() else 0)
        raise RuntimeError(f"Index {within} of input takes value {int(indices[at])} which is "
                           f"not in the valid range [0, {rows})")


@_overridable
def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None,
                  max_norm: Optional[float] = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """Reduces the embedding rows of each bag: a row of a 2-D input, or the
    indices from one offset to the next. Indices equal to padding_idx are left
    out; an empty bag gives zeros."""
    if weight.dtype == minitorch.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=3)
        weight, input = input, weight
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})".replace("minitorch.Size", "torch.Size"))
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    indices, offsets, per_sample_weights, include_last = _flatten_bags(
        input, offsets, per_sample_weights, include_last_offset)
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        _embedding_renorm_(weight, indices, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on GitHub.")
    _check_indices(indices, offsets, weight.size(0))
    count, rows_total = indices.numel(), weight.size(0)
    if padding_idx is not None:
        if not -rows_total <= padding_idx < rows_total:
            raise RuntimeError("padding_idx must be within the number of embeddings, "
                               f"-{rows_total} through {rows_total - 1}, but got {padding_idx}")
        padding_idx %= rows_total
    bags = offsets.numel() - 1 if include_last else offsets.numel()
    starts = offsets[:bags]
    # each index belongs to the last bag starting at or before it (torch's
    # last bag runs to the end of the input, whatever the last offset says)
    bag_of = (minitorch.arange(count).unsqueeze(1) >= starts.unsqueeze(0)).sum(1) - 1
    kept = bag_of >= 0
    if padding_idx is not None:
        kept = kept & (indices != padding_idx)
    rows = minitorch.nn.functional.embedding(indices, weight,
                                             scale_grad_by_freq=scale_grad_by_freq)
    bag_of, rows = bag_of[kept], rows[kept]
    zeros = minitorch.zeros(max(bags, 0), weight.size(1), dtype=weight.dtype)
    if mode == "max":
        member = bag_of.unsqueeze(1) == minitorch.arange(max(bags, 0)).unsqueeze(0)
        spread = minitorch.where(member.t().unsqueeze(2), rows.unsqueeze(0), float("-inf"))
        if not rows.shape[0]:
            return zeros
        best = spread.amax(1)
        return minitorch.where(member.any(0).unsqueeze(1), best, 0.0)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[kept].unsqueeze(1)
    total = zeros.index_add(0, bag_of, rows)
    if mode == "sum":
        return total
    sizes = minitorch.zeros(max(bags, 0), dtype=weight.dtype).index_add(
        0, bag_of, minitorch.ones(bag_of.shape, dtype=weight.dtype))
    return total / sizes.clamp(min=1).unsqueeze(1)


publish(globals())
