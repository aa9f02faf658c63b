"""nn.functional.embedding: rows of the weight gathered by index, with
torch's padding_idx, max_norm, scale_grad_by_freq and sparse (a sparse COO
gradient for the weight)."""
from __future__ import annotations

from typing import Optional

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["embedding"]


class _ScaleGrad(minitorch.autograd.Function):
    """Identity forward; the backward multiplies the gradient by scale."""

    @staticmethod
    def forward(ctx, input: Tensor, scale: Tensor) -> Tensor:
        ctx.save_for_backward(scale)
        return input.clone()

    @staticmethod
    def backward(ctx, grad: Tensor):
        scale, = ctx.saved_tensors
        return grad * scale, None


class _SparseEmbedding(minitorch.autograd.Function):
    """The rows of weight at indices, whose gradient for weight is sparse
    COO, as torch's embedding(sparse=True): one stored row per index in
    input order (uncoalesced), none for padding_idx; as torch, its backward
    refuses scale_grad_by_freq."""

    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight: Tensor, indices: Tensor, padding_idx, scale_grad_by_freq, shape):
        ctx.indices, ctx.padding_idx, ctx.scale = indices, padding_idx, scale_grad_by_freq
        ctx.size = tuple(weight.shape)
        return weight.index_select(0, indices).reshape(*shape, weight.size(1))

    @staticmethod
    def backward(ctx, grad: Tensor):
        if ctx.scale:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        indices, values = ctx.indices, grad.reshape(-1, ctx.size[1])
        if ctx.padding_idx is not None:
            keep = indices != ctx.padding_idx
            indices, values = indices[keep], values[keep]
        sparse = minitorch.sparse_coo_tensor(indices.to(minitorch.int64).unsqueeze(0),
                                             values, ctx.size)
        return sparse, None, None, None, None


@_overridable
def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Looks up rows of weight at the indices in input."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in (minitorch.int64, minitorch.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    # index_select checks the indices, with embedding's message
    flat = input.reshape(-1)
    if max_norm is not None:
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    if sparse and weight.requires_grad and minitorch.is_grad_enabled():
        return _SparseEmbedding.apply(weight, flat, padding_idx, scale_grad_by_freq,
                                      tuple(input.shape))
    rows = weight.index_select(0, flat)
    if padding_idx is not None:
        # The padding row reads as it is but never receives a gradient.
        rows = minitorch.where((flat == padding_idx).unsqueeze(1), rows.detach(), rows)
    if scale_grad_by_freq and rows.requires_grad:
        # each row's gradient is divided by how often its index occurs in the batch
        ones = minitorch.ones(flat.shape, dtype=weight.dtype)
        counts = minitorch.zeros(weight.size(0), dtype=weight.dtype).index_add_(0, flat, ones)
        counts = counts.index_select(0, flat)
        rows = _ScaleGrad.apply(rows, (1.0 / counts).unsqueeze(1))
    return rows.reshape(*input.shape, weight.size(1))


@minitorch.no_grad()
def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float,
                       norm_type: float) -> None:
    """Rescales in place the rows of weight that indices reference to norm <= max_norm."""
    rows = indices.unique()
    norms = weight.index_select(0, rows).norm(norm_type, 1, keepdim=True)
    scale = minitorch.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight[rows] = weight.index_select(0, rows) * scale

publish(globals())
