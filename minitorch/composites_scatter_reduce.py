"""torch.scatter_reduce and torch.index_reduce: values reduced into self at
the positions an index gives (sum, prod, mean, amax, amin), self's own value
taking part or not (include_self).

index_reduce is scatter_reduce with its index vector spread along dim over
source's shape. The values come from the C scatter along a dim (its index
checks in torch's words, and its add, multiply, max and min rows).
Gradients and tangents are torch's formulas (ties of amax/amin share the
gradient evenly; a zero in a product is excluded from its own gradient),
written in differentiable ops so that double backward works."""
import warnings
from typing import Optional

from . import _C
from ._tensor import Tensor
from .autograd.function import Function
from .overrides import composite

__all__ = ["scatter_reduce", "index_reduce"]

_f = _C._functions

_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _index_part(src: Tensor, index: Tensor) -> Tensor:
    """The part of src the index covers (the index may be smaller)."""
    if src.dim() == 0 or index.dim() == 0:
        return src.reshape(index.shape) if src.numel() == index.numel() else src
    return src[tuple(slice(0, n) for n in index.shape)]


def _reduced(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
             include_self: bool) -> Tensor:
    """The values of scatter_reduce, outside autograd."""
    if reduce in ("amax", "amin"):
        return _f["_scatter_extreme"](self, dim, index, src, reduce == "amax", include_self)
    base = self if include_self else self.scatter(dim, index, 1 if reduce == "prod" else 0)
    if reduce == "prod":
        return base.scatter(dim, index, src, reduce="multiply")
    out = base.scatter_add(dim, index, src)
    if reduce == "sum":
        return out
    count = _counts(self, dim, index, src, include_self)
    if out.is_floating_point():
        return out / count
    return out.div(count, rounding_mode="floor")


def _counts(self: Tensor, dim: int, index: Tensor, src: Tensor, include_self: bool) -> Tensor:
    """How many values each position of the result averages (at least 1)."""
    start = _f["ones_like"] if include_self else _f["zeros_like"]
    count = start(self).scatter_add(dim, index, _f["ones_like"](src))
    return count.masked_fill(count == 0, 1)


class _ScatterReduce(Function):
    _node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, self, dim, index, src, reduce, include_self, name):
        result = _reduced(self, dim, index, src, reduce, include_self)
        ctx.dim, ctx.reduce, ctx.include_self, ctx.name = dim, reduce, include_self, name
        ctx.save_for_backward(self, index, src, result)
        ctx.save_for_forward(self, index, src, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        self, index, src, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        src = _index_part(src, index)
        if reduce == "sum":
            grad_self, grad_src = grad, grad.gather(dim, index)
        elif reduce == "mean":
            count = _counts(self, dim, index, src, include_self)
            grad_self = grad / count
            grad_src = grad.gather(dim, index) / count.gather(dim, index)
        elif reduce == "prod":
            grad_self, grad_src = _prod_backward(ctx, grad, self, index, src, result)
        else:
            value = result.gather(dim, index)
            self_hit, src_hit = self == result, src == value
            shares = self_hit.to(grad.dtype).scatter_add(dim, index, src_hit.to(grad.dtype))
            share = grad / shares
            grad_self = share.masked_fill(~self_hit, 0)
            grad_src = share.gather(dim, index).masked_fill(~src_hit, 0)
        if not include_self:
            grad_self = grad_self.scatter(dim, index, 0)
        if ctx.needs_input_grad[3] and list(grad_src.shape) != list(ctx.saved_tensors[2].shape):
            whole = _f["zeros_like"](ctx.saved_tensors[2])
            whole[tuple(slice(0, n) for n in index.shape)] = grad_src
            grad_src = whole
        return grad_self, None, None, grad_src, None, None, None

    @staticmethod
    def jvp(ctx, self_t, _dim, _index, src_t, _reduce, _include_self, _name):
        self, index, src, result = ctx.saved_tensors
        dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
        if reduce == "prod":
            raise NotImplementedError(
                f"Trying to use forward AD with {ctx.name} that does not support it because it "
                "has not been implemented yet.\nPlease file an issue to PyTorch at "
                "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so "
                "that we can prioritize its implementation.")
        self_t = _f["zeros_like"](self) if self_t is None else self_t
        src_t = _f["zeros_like"](src) if src_t is None else src_t
        if reduce in ("sum", "mean"):
            return scatter_reduce(self_t, dim, index, src_t, reduce, include_self=include_self)
        self_hit = self == result
        src_hit = _index_part(src, index) == result.gather(dim, index)
        src_t = _index_part(src_t, index).masked_fill(~src_hit, 0)
        shares = scatter_reduce(self_hit.to(self_t.dtype), dim, index, src_hit.to(self_t.dtype),
                                "sum", include_self=include_self)
        moved = scatter_reduce(self_t.masked_fill(~self_hit, 0), dim, index, src_t, "sum",
                               include_self=include_self)
        return moved / shares


class _IndexReduce(_ScatterReduce):
    _node_name = "IndexReduceBackward0"


def _prod_backward(ctx, grad, self, index, src, result):
    """A zero in self or src is left out of the product its gradient is."""
    dim, include_self = ctx.dim, ctx.include_self
    self_ones = self.masked_fill(self == 0, 1)
    grad_self = grad * scatter_reduce(self_ones, dim, index, src, "prod",
                                      include_self=include_self) / self_ones
    src_zero = src == 0
    zeros = _f["zeros_like"](self).scatter_add(dim, index, src_zero.to(self.dtype))
    zeros = zeros.gather(dim, index)
    alone = src_zero & (zeros == 1)
    without = scatter_reduce(self, dim, index, src.masked_fill(alone, 1), "prod",
                             include_self=include_self)
    grad_src = (grad * without).gather(dim, index).where(
        alone, (grad * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    if bool((zeros > 1).any()):
        what = "src" if ctx.name == "scatter_reduce" else "source"
        grad_src = _f.DelayedError(
            f"{ctx.name}(): Double backward is unsupported for {what} when >1 zeros in {what} "
            "are scattered to the same position in self", 1)(grad_src)
    return grad_self, grad_src


def _write_out(result: Tensor, out: Optional[Tensor]) -> Tensor:
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {result.dtype}, but got "
                           f"{out.dtype} instead")
    if list(out.shape) != list(result.shape):
        out.resize_(result.shape)
    return out.copy_(result)


def _scatter_checks(self: Tensor, index: Tensor, src: Tensor, reduce: str) -> None:
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    if self.dtype != src.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if reduce == "mean" and self.dtype == _C.bool:
        raise NotImplementedError(
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")


def _wrap_dim(dim: int, ndim: int) -> int:
    nd = max(ndim, 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    return dim % nd


def _apply(self, dim, index, src, reduce, include_self, name) -> Tensor:
    """The index's dims, sizes and range are checked by the scatters that
    compute the values, in torch's words."""
    dim = _wrap_dim(dim, self.dim())
    node = _ScatterReduce if name == "scatter_reduce" else _IndexReduce
    return node.apply(self, dim, index.to(_C.int64), src, reduce, include_self, name)


@composite()
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True, out: Optional[Tensor] = None) -> Tensor:
    """Reduces all values from the src tensor to the indices specified in the
    index tensor in the self tensor, using the reduction given by reduce
    ("sum", "prod", "mean", "amax", "amin"); include_self says whether the
    values of self take part."""
    _scatter_checks(input, index, src, reduce)
    return _write_out(_apply(input, dim, index, src, reduce, include_self, "scatter_reduce"), out)


@composite(function=False)
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    """In-place version of ``Tensor.scatter_reduce``."""
    return self.copy_(scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


def _index_checks(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str) -> int:
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = _wrap_dim(dim, self.dim())
    if index.dim() > 1:
        raise IndexError(
            "index_reduce_(): Index is supposed to be a vector, but got dim: "
            f"{index.dim()} with type: {_type_name(index)} and size: {list(index.shape)}")
    if index.dtype not in (_C.int64, _C.int32):
        raise RuntimeError("index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{_type_name(index)}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"index_reduce_(): self ({_type_name(self)}) and source "
                           f"({_type_name(source)}) must have the same scalar type")
    same = self.dim() == source.dim() and all(
        a == b for k, (a, b) in enumerate(zip(self.shape, source.shape)) if k != d)
    if not same and not (self.dim() == 0 and source.dim() == 0):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(self.shape)} "
                           f"source.shape = {list(source.shape)}")
    count = source.shape[d] if source.dim() else 1
    if index.numel() != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be "
                           f"equal to source.size(dim): ({count}), for dim: {dim}")
    return d


def _type_name(t: Tensor) -> str:
    return t.dtype._scalar_name


_warned = []


def _warn_beta() -> None:
    """torch warns once a process that index_reduce is in beta."""
    if not _warned:
        _warned.append(True)
        warnings.warn("index_reduce() is in beta and the API may change at any time.",
                      UserWarning, stacklevel=4)


def _spread(index: Tensor, source: Tensor, dim: int) -> Tensor:
    """index's vector laid along dim over source's shape."""
    if source.dim() == 0:
        return index.reshape([])
    shape = [-1 if k == dim else 1 for k in range(source.dim())]
    return index.reshape(shape).expand(source.shape)


@composite()
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True, out: Optional[Tensor] = None) -> Tensor:
    """Reduces the elements of source into input at the indices given in
    index along dim, using the reduction given by reduce ("prod", "mean",
    "amax", "amin"); include_self says whether the values of input take part."""
    _warn_beta()
    d = _index_checks(input, dim, index, source, reduce)
    result = _apply(input, d, _spread(index, source, d), source, reduce, include_self,
                    "index_reduce")
    return _write_out(result, out)


@composite(function=False)
def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place version of ``Tensor.index_reduce``."""
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))
