"""The autograd Functions behind torch.sparse's functions (minitorch.sparse):
the product whose sparse operand gets a sparse gradient at its own
coordinates, the softmaxes over stored elements only, and the sum over some
dims. Names are torch's nodes'."""
from .._tensor import Tensor
from ..autograd import Function
from .coords import _coalesced, _mt
from .dispatch_products import _sparse_times_dense, _transposed
from .dispatch_values import _sum
from .tensor import _dense_of, _is_sparse, _make, _sparse_mask


def _dense_grad(grad: Tensor) -> Tensor:
    return _dense_of(grad) if _is_sparse(grad) else grad


class _SparseAddmm(Function):
    """beta input + alpha (s @ d) for sparse s and dense d."""

    _node_name = "SparseAddmmBackward0"

    @staticmethod
    def forward(ctx, input, s, d, beta, alpha):
        ctx.save_for_backward(d)
        # the gradient is stored once per coordinate: the values stored
        # twice at one each receive all of it
        ctx.s, ctx.beta, ctx.alpha = s.detach().coalesce(), beta, alpha
        product = _sparse_times_dense(s, d)
        out = product if alpha == 1 else product * alpha
        return out if beta == 0 else out + (input if beta == 1 else input * beta)

    @staticmethod
    def backward(ctx, grad):
        (d,) = ctx.saved_tensors
        s, beta, alpha = ctx.s, ctx.beta, ctx.alpha
        g_input = g_s = g_d = None
        if ctx.needs_input_grad[0]:
            g_input = grad if beta == 1 else grad * beta
        if ctx.needs_input_grad[1]:
            g = grad.mm(d.t())
            g_s = _sparse_mask(g if alpha == 1 else g * alpha, s)
        if ctx.needs_input_grad[2]:
            g = _sparse_times_dense(_transposed(s), grad)
            g_d = g if alpha == 1 else g * alpha
        return g_input, g_s, g_d, None, None


def _groups(indices: Tensor, sparse_dim: int, dim: int):
    """For each stored element along a sparse dim, the number of its group:
    the elements sharing every other coordinate. Also the group count."""
    mt = _mt()
    others = [d for d in range(sparse_dim) if d != dim]
    if not others or indices.shape[1] == 0:
        return mt.zeros(indices.shape[1], dtype=mt.int64), min(indices.shape[1], 1)
    _, inverse = mt.unique(indices[others], dim=1, return_inverse=True)
    return inverse, int(inverse.max()) + 1


def _group_sum(x: Tensor, groups: Tensor, count: int) -> Tensor:
    total = _mt().zeros((count,) + tuple(x.shape[1:]), dtype=x.dtype).index_add_(0, groups, x)
    return total.index_select(0, groups)


def _expanded(groups: Tensor, like: Tensor) -> Tensor:
    return groups.reshape((-1,) + (1,) * (like.dim() - 1)).expand(like.shape)


class _SparseSoftmax(Function):
    """softmax (or log_softmax) along dim over the stored elements only, the
    others taken as minus infinity, as torch.sparse.softmax."""

    _node_name = "SparseSoftmaxBackward0"

    @staticmethod
    def forward(ctx, s, dim, log):
        mt = _mt()
        sdim = s.sparse_dim()
        indices, values = (s._sp_indices, s._sp_values) if s.is_coalesced() else \
            _coalesced(s._sp_indices, s._sp_values, s.shape)
        if dim >= sdim:
            out = (values.log_softmax if log else values.softmax)(dim - sdim + 1)
            ctx.groups = None
        else:
            groups, count = _groups(indices, sdim, dim)
            start = mt.full((count,) + tuple(values.shape[1:]), float("-inf"), dtype=values.dtype)
            top = start.scatter_reduce(0, _expanded(groups, values), values, "amax")
            shifted = values - top.index_select(0, groups)
            total = _group_sum(shifted.exp(), groups, count)
            out = shifted - total.log() if log else shifted.exp() / total
            ctx.groups, ctx.count = groups, count
        ctx.indices, ctx.dim, ctx.log, ctx.sdim = indices, dim, log, sdim
        ctx.shape_of_input = tuple(s.shape)
        ctx.save_for_backward(out)
        return _make(indices, out, s.shape, True)

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        g = _dense_grad(grad)[tuple(ctx.indices.unbind(0))]
        if ctx.groups is None:
            d = ctx.dim - ctx.sdim + 1
            total = (g if ctx.log else g * out).sum(d, keepdim=True)
        else:
            total = _group_sum(g if ctx.log else g * out, ctx.groups, ctx.count)
        gv = g - out.exp() * total if ctx.log else out * (g - total)
        return _make(ctx.indices, gv, ctx.shape_of_input, True), None, None


class _SparseLogSoftmax(_SparseSoftmax):
    _node_name = "SparseLogSoftmaxBackward0"


class _SparseSum(Function):
    """the sum over dims that leave a sparse dim: its gradient has the
    input's coordinates (coalesced), each the output's gradient at its own."""

    _node_name = "SparseSumBackward0"

    @staticmethod
    def forward(ctx, s, dims, dtype):
        ctx.s, ctx.dims = s.detach().coalesce(), dims
        return _sum("sum", (s, dims), {"dtype": dtype})

    @staticmethod
    def backward(ctx, grad):
        s, dims = ctx.s, ctx.dims
        sdim = s.sparse_dim()
        g = _dense_grad(grad)
        kept = [d for d in range(sdim) if d not in dims]
        picked = g[tuple(s._sp_indices[kept].unbind(0))]
        for d in dims:
            if d >= sdim:
                picked = picked.unsqueeze(d - sdim + 1)
        values = picked.expand(s._sp_values.shape).to(s.dtype)
        return _make(s._sp_indices, values, s.shape, True), None, None
