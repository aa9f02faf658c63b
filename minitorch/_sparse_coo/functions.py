"""The differentiable conversions between layouts, as autograd Functions
with torch's node names: to_sparse, to_dense, coalesce, and
sparse_coo_tensor of values that require grad."""
from .._tensor import Tensor
from ..autograd import Function
from .coords import _coalesced, _mt
from .tensor import _dense_of, _is_sparse, _make, _sparse_mask


def _dense_values(x: Tensor, sparse_dim: int):
    mt = _mt()
    if sparse_dim == 0:
        keep = bool(x.ne(0).any())
        indices = mt.zeros((0, int(keep)), dtype=mt.int64)
        return indices, x.detach().reshape((1,) + tuple(x.shape))[:int(keep)].clone()
    present = x.detach().ne(0)
    if sparse_dim < x.dim():
        present = present.flatten(sparse_dim).any(-1)
    indices = mt.nonzero(present).t().contiguous()
    return indices, x.detach()[tuple(indices.unbind(0))]


class _ToSparse(Function):
    """dense -> sparse; its gradient is the output's gradient made dense
    (torch's ToSparseBackward0)."""

    _node_name = "ToSparseBackward0"

    @staticmethod
    def forward(ctx, x, sparse_dim):
        indices, values = _dense_values(x, sparse_dim)
        return _make(indices, values, x.shape, True)

    @staticmethod
    def backward(ctx, grad):
        return (grad.to_dense() if _is_sparse(grad) else grad), None


class _ToSparseAll(_ToSparse):
    _node_name = "ToSparseBackward1"


class _ToDense(Function):
    """sparse -> dense; its gradient is the output's at the input's
    coordinates (masked_grad, the default) or all of it as a sparse
    tensor (torch's ToDenseBackward0)."""

    _node_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, s, masked):
        ctx.mask = s.detach().coalesce() if masked else None
        ctx.sparse_dim = s.sparse_dim()
        return _dense_of(s)

    @staticmethod
    def backward(ctx, grad):
        if ctx.mask is not None:
            return _sparse_mask(grad, ctx.mask), None
        return grad.to_sparse(ctx.sparse_dim), None


class _Coalesce(Function):
    """coalesce of an uncoalesced tensor: the same elements, so the
    gradient passes as it is (torch's CoalesceBackward0)."""

    _node_name = "CoalesceBackward0"

    @staticmethod
    def forward(ctx, s):
        indices, values = _coalesced(s._sp_indices, s._sp_values, s.shape)
        return _make(indices, values, s.shape, True)

    @staticmethod
    def backward(ctx, grad):
        return grad


class _FromValues(Function):
    """sparse_coo_tensor of values that require grad: each stored value's
    gradient is the output's gradient at its coordinate."""

    _node_name = "SparseCooTensorWithDimsAndTensorsBackward0"

    @staticmethod
    def forward(ctx, values, indices, size, coalesced):
        ctx.indices = indices
        return _make(indices, values.detach(), size, coalesced)

    @staticmethod
    def backward(ctx, grad):
        dense = _dense_of(grad) if _is_sparse(grad) else grad
        indices = ctx.indices
        if indices.shape[0] == 0:
            picked = dense.expand((indices.shape[1],) + tuple(dense.shape))
        else:
            picked = dense[tuple(indices.unbind(0))]
        return picked, None, None, None

