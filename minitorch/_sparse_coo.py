"""Sparse COO tensors (torch's ``sparse_coo`` layout).

A sparse tensor is a wrapper subclass instance (``Tensor._make_wrapper_subclass``)
with the dense tensor's size and dtype, all strides 0 (so its placeholder
memory is one element whatever its size), holding two ordinary tensors: the
int64 coordinates (sparse_dim x nnz) and the values (nnz x dense sizes), and
whether it is coalesced (coordinates sorted and unique). Every op-table row
called with one goes to ``__torch_dispatch__`` below: the few ops torch's
sparse users rely on are computed on the coordinates and values with
minitorch's own ops, every other row raises torch's NotImplementedError, so
no kernel ever reads the placeholder as if it were the data. The methods
torch defines for both layouts (``to_sparse``, ``coalesce``, ``sparse_mask``,
...) are installed on ``Tensor`` here with torch's answers for a dense tensor.
"""
import functools
import math
from typing import Any, Optional

from . import _C, _tensor_str
from ._global_flags import sparse_coo, strided
from ._tensor import Tensor
from .composites import _SCALAR_NAMES
from .overrides import composite

__all__ = ["sparse_coo_tensor"]


def _mt():
    import minitorch
    return minitorch


def _size_list(size) -> str:
    return "[" + ", ".join(str(s) for s in size) + "]"


class _SparseCOOTensor(Tensor):
    """A tensor of layout ``minitorch.sparse_coo``: see the module's doc."""

    __module__ = "minitorch"
    # results of ops on it are plain tensors (or what __torch_dispatch__ makes)
    __torch_function__ = _C._disabled_torch_function_impl

    @property
    def layout(self) -> Any:
        """``minitorch.sparse_coo``."""
        return sparse_coo

    @property
    def is_sparse(self) -> bool:
        """True: the layout is sparse_coo."""
        return True

    def sparse_dim(self) -> int:
        """How many leading dims the coordinates address."""
        return self._sp_indices.shape[0]

    def dense_dim(self) -> int:
        """How many trailing dims each value has."""
        return self._sp_values.dim() - 1

    def _nnz(self) -> int:
        """How many values are stored (duplicates counted)."""
        return self._sp_values.shape[0]

    def _indices(self) -> Tensor:
        """The coordinates as stored (sparse_dim x nnz)."""
        return self._sp_indices.detach()

    def _values(self) -> Tensor:
        """The values as stored (nnz x dense sizes)."""
        return self._sp_values.detach()

    def indices(self) -> Tensor:
        """The coordinates; only of a coalesced tensor, as torch."""
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._sp_indices.detach()

    def values(self) -> Tensor:
        """The values; only of a coalesced tensor, as torch."""
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._sp_values.detach()

    def is_coalesced(self) -> bool:
        """Whether the coordinates are sorted and unique."""
        return self._sp_coalesced

    def coalesce(self) -> Tensor:
        """The same tensor with sorted, unique coordinates: duplicates' values
        summed in the order they appear (self when it already is)."""
        if self._sp_coalesced:
            return self
        return _Coalesce.apply(self)

    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        """The dense tensor: zeros with the values added at their coordinates
        (duplicates summed)."""
        out = _ToDense.apply(self, masked_grad is None or masked_grad)
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, sparse_dim: Optional[int] = None, *, layout: Any = None,
                  blocksize: Any = None, dense_dim: Any = None) -> Tensor:
        """self: it is sparse COO already (a different sparse_dim raises)."""
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim "
                               "argument !=self.sparse_dim() is not supported")
        _check_target_layout(layout, "Sparse")
        return self

    def sparse_mask(self, mask: Tensor) -> Tensor:
        """self's elements at mask's coordinates, as a sparse tensor."""
        return _sparse_mask(_dense_of(self), mask)

    def type(self, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
        """The type name (``minitorch.sparse.FloatTensor``), or self cast
        to the dtype given."""
        if dtype is None:
            return f"minitorch.sparse.{_SCALAR_NAMES[repr(self.dtype)]}Tensor"
        if isinstance(dtype, _mt().dtype):
            return self.to(dtype)
        raise NotImplementedError(f"type({dtype!r}): a sparse tensor converts to a dtype only")

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        return _format(self)

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (_rebuild, (self._sp_indices, self._sp_values, tuple(self.shape),
                           self._sp_coalesced, self.requires_grad))

    def __deepcopy__(self, memo: Any) -> Tensor:
        import copy
        return _make(copy.deepcopy(self._sp_indices, memo), copy.deepcopy(self._sp_values, memo),
                     self.shape, self._sp_coalesced, self.requires_grad)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        handler = _HANDLERS.get(name)
        if handler is None:
            raise NotImplementedError(
                f"Could not run '{func.name()}' with arguments from the 'SparseCPU' backend: "
                f"minitorch's sparse COO tensors support to_dense(), coalesce(), "
                f"dense + sparse, sparse + sparse, multiplication by a scalar and a few more; "
                f"convert with to_dense() first")
        return handler(name, args, kwargs)


def _rebuild(indices, values, size, coalesced, requires_grad):
    return _make(indices, values, size, coalesced, requires_grad)


def _make(indices: Tensor, values: Tensor, size, coalesced: bool,
          requires_grad: bool = False) -> Tensor:
    """The sparse tensor of these coordinates and values (taken as they are)."""
    size = tuple(int(s) for s in size)
    out = Tensor._make_wrapper_subclass(_SparseCOOTensor, size, strides=(0,) * len(size),
                                        dtype=values.dtype, requires_grad=requires_grad)
    out._sp_indices = indices
    out._sp_values = values
    out._sp_coalesced = coalesced
    return out


def _is_sparse(x) -> bool:
    return isinstance(x, _SparseCOOTensor)


def _coalesced(indices: Tensor, values: Tensor, size):
    """Sorted unique coordinates and their summed values. As torch, the
    coordinates are not checked against size: each becomes its row-major
    position in the box its own minima and maxima span."""
    mt = _mt()
    sdim, nnz = indices.shape
    if nnz == 0:
        return indices, values
    low = indices.amin(1)
    extents = indices.amax(1).sub(low).add(1).tolist()
    if math.prod(extents) >= 2 ** 62:
        raise RuntimeError("coalesce: the coordinates span more than 2**62 positions")
    shifted = indices - low.unsqueeze(1)
    lin = mt.zeros(nnz, dtype=mt.int64)
    for d in range(sdim):
        lin = lin * extents[d] + shifted[d]
    unique, inverse = mt.unique(lin, sorted=True, return_inverse=True)
    summed = mt.zeros((unique.shape[0],) + tuple(values.shape[1:]), dtype=values.dtype)
    summed.index_add_(0, inverse, values)
    rows = []
    rest = unique
    for d in reversed(range(sdim)):
        rows.append(rest.remainder(extents[d]))
        rest = rest.div(extents[d], rounding_mode="floor")
    rows.reverse()
    new_indices = mt.stack(rows) + low.unsqueeze(1) if rows else \
        mt.zeros((0, unique.shape[0]), dtype=mt.int64)
    return new_indices, summed


def _check_bounds(indices: Tensor, size) -> None:
    """torch's invariant checks on coordinates (check_invariants=True)."""
    if indices.numel() == 0:
        return
    low = indices.amin(1).tolist()
    high = indices.amax(1).tolist()
    for d, (lo, hi) in enumerate(zip(low, high)):
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {hi}")


def _accumulate(dense: Tensor, indices: Tensor, values: Tensor) -> None:
    """dense[coordinates] += values, one value at a time in order (as torch's
    dense + sparse adds them); out-of-range coordinates raise."""
    if values.shape[0] == 0:
        return
    sdim = indices.shape[0]
    if sdim == 0:
        dense.add_(values.sum(0))
        return
    values = values.to(dense.dtype)
    sizes = tuple(dense.shape[:sdim])
    inside = bool(indices.amin() >= 0) and all(
        m < n for m, n in zip(indices.amax(1).tolist(), sizes))
    if not (inside and dense.is_contiguous()):
        # index_put_ names a stray coordinate in its error
        dense.index_put_(tuple(indices.unbind(0)), values, accumulate=True)
        return
    # the sparse dims folded into one: index_add_ adds row by row, in order
    lin = indices[0]
    for d in range(1, sdim):
        lin = lin * sizes[d] + indices[d]
    dense.view((math.prod(sizes),) + tuple(dense.shape[sdim:])).index_add_(0, lin, values)


def _sparse_mask(dense: Tensor, mask: Tensor) -> Tensor:
    if not _is_sparse(mask):
        raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from the "
                                  "'CPU' backend: the mask must be a sparse COO tensor")
    if tuple(dense.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{_size_list(dense.shape)} but mask has size "
                           f"{_size_list(mask.shape)}")
    indices = mask._sp_indices
    values = dense[tuple(indices.unbind(0))] if indices.shape[0] else \
        dense.expand((mask._nnz(),) + tuple(dense.shape)).clone()
    return _make(indices, values, dense.shape, mask._sp_coalesced)


def _check_target_layout(layout, source: str) -> None:
    if layout is not None and layout is not sparse_coo:
        raise NotImplementedError(f"to_sparse: conversion from {source} to {layout} is not "
                                  f"supported: minitorch has the sparse_coo layout only")


# ---- the methods torch has for either layout, as they answer a dense tensor

def _dense_layout_error(name: str, kind: str = "sparse coordinate") -> RuntimeError:
    return RuntimeError(f"{name} expected {kind} tensor layout but got Strided")


def _dense_backend_error(name: str) -> NotImplementedError:
    return NotImplementedError(f"Could not run 'aten::{name}' with arguments from the 'CPU' "
                               f"backend: it needs a sparse tensor")


def _to_sparse_method(self: Tensor, sparse_dim: Optional[int] = None, *, layout: Any = None,
                      blocksize: Any = None, dense_dim: Optional[int] = None) -> Tensor:
    """A sparse COO tensor of self's nonzero elements (the first sparse_dim
    dims, all by default, are coordinates; a position is kept when any of
    its remaining elements is nonzero)."""
    if layout is strided:
        return self
    _check_target_layout(layout, "Strided")
    if blocksize is not None:
        raise RuntimeError("dense_to_sparse: conversion from Strided to Sparse with blocksize "
                           "argument given is not supported")
    ndim = self.dim()
    given = sparse_dim is not None
    if sparse_dim is None:
        sparse_dim = ndim if dense_dim is None else ndim - dense_dim
    if not 0 <= sparse_dim <= ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, "
                           f"but {sparse_dim} is given")
    if sparse_dim == 0 and ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    # torch names the node of to_sparse() ToSparseBackward1, of to_sparse(d) ToSparseBackward0
    return (_ToSparse if given else _ToSparseAll).apply(self, sparse_dim)


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


def _make_to_sparse():
    from .autograd import Function

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

    return _ToSparse, _ToSparseAll


_ToSparse, _ToSparseAll = _make_to_sparse()


def _dense_of(s: _SparseCOOTensor) -> Tensor:
    out = _mt().zeros(tuple(s.shape), dtype=s.dtype)
    _accumulate(out, s._sp_indices, s._sp_values)
    return out


def _make_to_dense():
    from .autograd import Function

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

    return _ToDense


_ToDense = _make_to_dense()


def _make_coalesce():
    from .autograd import Function

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

    return _Coalesce


_Coalesce = _make_coalesce()


def _make_from_values():
    from .autograd import Function

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

    return _FromValues


_FromValues = _make_from_values()


def _to_dense_method(self: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """self (a dense tensor is its own dense form), cast to dtype when given."""
    return self if dtype is None else self.to(dtype)


def _coalesce_method(self: Tensor) -> Tensor:
    """A sparse tensor with sorted, unique coordinates; a dense one raises."""
    raise _dense_layout_error("coalesce")


def _is_coalesced_method(self: Tensor) -> bool:
    """Whether a sparse tensor's coordinates are sorted and unique; a dense
    one raises."""
    raise _dense_layout_error("is_coalesced")


def _indices_method(self: Tensor) -> Tensor:
    """A coalesced sparse tensor's coordinates; a dense one raises."""
    raise _dense_layout_error("indices")


def _values_method(self: Tensor) -> Tensor:
    """A coalesced sparse tensor's values; a dense one raises."""
    raise _dense_layout_error("values", "sparse")


def _private_indices_method(self: Tensor) -> Tensor:
    """A sparse tensor's coordinates as stored; a dense one raises."""
    raise _dense_backend_error("_indices")


def _private_values_method(self: Tensor) -> Tensor:
    """A sparse tensor's values as stored; a dense one raises."""
    raise _dense_backend_error("_values")


def _nnz_method(self: Tensor) -> int:
    """How many values a sparse tensor stores; a dense one raises."""
    raise _dense_backend_error("_nnz")


def _sparse_dim_method(self: Tensor) -> int:
    """How many leading dims a sparse tensor addresses by coordinates (0 for
    a dense one)."""
    return 0


def _dense_dim_method(self: Tensor) -> int:
    """How many trailing dims each stored value has (all of a dense
    tensor's)."""
    return self.dim()


def _sparse_mask_method(self: Tensor, mask: Tensor) -> Tensor:
    """A sparse tensor with mask's coordinates and self's values there."""
    return _sparse_mask(self, mask)


_DENSE_METHODS = {
    "to_sparse": _to_sparse_method, "to_dense": _to_dense_method,
    "coalesce": _coalesce_method, "is_coalesced": _is_coalesced_method,
    "indices": _indices_method, "values": _values_method,
    "_indices": _private_indices_method, "_values": _private_values_method,
    "_nnz": _nnz_method, "sparse_dim": _sparse_dim_method, "dense_dim": _dense_dim_method,
    "sparse_mask": _sparse_mask_method,
}
def _by_layout(name: str, dense):
    """Tensor.<name>: the sparse class's own method for a sparse tensor (also
    when called through Tensor, as torch's one method serves both layouts),
    else dense's answer."""
    @functools.wraps(dense)
    def method(self, *args, **kwargs):
        if isinstance(self, _SparseCOOTensor):
            return getattr(_SparseCOOTensor, name)(self, *args, **kwargs)
        return dense(self, *args, **kwargs)
    method.__name__ = name
    return method


# installed as every Python-written Tensor method is, refusing out= with
# torch's message
for _name, _fn in _DENSE_METHODS.items():
    composite(function=False)(_by_layout(_name, _fn))


def sparse_coo_tensor(indices: Any, values: Any, size: Any = None, *, dtype: Any = None,
                      device: Any = None, pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants: Optional[bool] = None,
                      is_coalesced: Optional[bool] = None) -> Tensor:
    """A sparse COO tensor with values at the given coordinates (a
    sparse_dim x nnz tensor); size defaults to the smallest that holds
    them. As torch, coordinates are checked against size only when
    check_invariants is True (an out-of-range one raises when it is used)."""
    mt = _mt()
    if device is not None and str(device) != "cpu":
        raise NotImplementedError(f"minitorch tensors live on the cpu: device={device!r} is "
                                  f"not supported")
    indices = indices.detach() if isinstance(indices, Tensor) else mt.tensor(indices)
    values = values if isinstance(values, Tensor) else mt.tensor(values)
    indices = indices.to(mt.int64)
    if dtype is not None:
        values = values.to(dtype)
    if indices.dim() != 2 and size is None:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: "
                           f"{_size_list(indices.shape)}")
    sparse_dim = indices.shape[0] if indices.dim() else 1
    if size is None:
        nnz = indices.shape[1]
        if values.dim() == 0 or values.shape[0] != nnz:
            raise RuntimeError(f"indices and values must have same nnz, but got nnz from "
                               f"indices: {nnz}, nnz from values: "
                               f"{values.shape[0] if values.dim() else 1}")
        top = indices.amax(1).add(1).clamp(min=0).tolist() if nnz else [0] * sparse_dim
        size = tuple(top) + tuple(values.shape[1:])
    size = tuple(int(s) for s in size)
    dense_dim = max(values.dim() - 1, 0)
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = "
                           f"{len(size)}, sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: "
                           f"{_size_list(indices.shape)}")
    if any(s < 0 for s in size):
        raise RuntimeError("numel: integer multiplication overflow")
    nnz = indices.shape[1]
    got = values.shape[0] if values.dim() else 1
    if got != nnz or values.dim() == 0:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {got}")
    if tuple(values.shape[1:]) != size[sparse_dim:]:
        raise RuntimeError(f"values has incorrect size, expected "
                           f"{_size_list((nnz,) + size[sparse_dim:])}, got "
                           f"{_size_list(values.shape)}")
    if check_invariants:
        _check_bounds(indices, size)
    coalesced = bool(is_coalesced) if is_coalesced is not None else nnz <= 1
    if values.requires_grad and _C.is_grad_enabled():
        return _FromValues.apply(values, indices, size, coalesced)
    return _make(indices, values.detach(), size, coalesced, requires_grad)


# ---- printing, as torch's _tensor_str prints a sparse tensor

def _body(t: Tensor, indent: int) -> str:
    mt = _mt()
    name = repr(t.dtype)[len("minitorch."):]
    if t.numel() == 0:
        return f"[], size={tuple(t.shape)}"
    values = (t.float() if t.dtype == mt.bfloat16 else t).resolve_conj().numpy()
    text = _tensor_str.format_tensor(values, name, default_dtype_name=name, prefix=" " * indent)
    return text[indent:-1]


def _format(s: _SparseCOOTensor) -> str:
    mt = _mt()
    indent = len("tensor(")
    suffixes = [f"size={tuple(s.shape)}", f"nnz={s._nnz()}"]
    default = mt.get_default_dtype()
    default_complex = mt.complex128 if default == mt.float64 else mt.complex64
    if s.dtype not in (default, default_complex, mt.int64, mt.bool):
        suffixes.append(f"dtype={s.dtype!r}")
    suffixes.append("layout=minitorch.sparse_coo")
    if s.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(s.grad_fn).__name__}>")
    elif s.requires_grad:
        suffixes.append("requires_grad=True")
    text = ("tensor(indices=tensor(" + _body(s._sp_indices, indent + len("indices=tensor("))
            + "),\n" + " " * indent + "values=tensor("
            + _body(s._sp_values, indent + len("values=tensor(")) + ")")
    line = len(text) - text.rfind("\n") + 1
    width = _tensor_str.get_printoptions()["linewidth"]
    first = True
    for suffix in suffixes:
        if first or line + len(suffix) + 2 > width:
            text += ",\n" + " " * indent + suffix
            line = indent + len(suffix)
            first = False
        else:
            text += ", " + suffix
            line += len(suffix) + 2
    return text + ")"


# ---- the rows a sparse operand may meet

def _number(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) or \
        (isinstance(x, Tensor) and not _is_sparse(x) and x.dim() == 0)


def _add(name, args, kwargs):
    mt = _mt()
    self, other = args[0], args[1]
    alpha = kwargs.get("alpha", args[2] if len(args) > 2 else 1)
    sub = name in ("sub", "sub_", "__sub__", "__isub__", "__rsub__", "subtract")
    inplace = name.endswith("_") and not name.startswith("__") or name.startswith("__i")
    if name == "__rsub__":
        self, other = other, self
    if sub:
        alpha = -alpha
    if not isinstance(other, Tensor) or not isinstance(self, Tensor):
        raise NotImplementedError(f"{name}: minitorch's sparse COO tensors add only tensors")
    if _is_sparse(self) and not _is_sparse(other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    if _is_sparse(self):
        if tuple(self.shape) != tuple(other.shape):
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                               f"{_size_list(self.shape)} != {_size_list(other.shape)}")
        values = other._sp_values if alpha == 1 else other._sp_values * alpha
        dtype = mt.promote_types(self.dtype, values.dtype)
        if inplace and dtype != self.dtype and not mt.can_cast(dtype, self.dtype):
            raise _cast_error(dtype, self.dtype)
        target = self.dtype if inplace else dtype
        coalesced = self._sp_coalesced and other._sp_coalesced
        contiguous = self._sp_values.is_contiguous() and other._sp_values.is_contiguous()
        if contiguous and coalesced:
            # the walk over two sorted, unique lists is their sorted union
            indices, values = _coalesced(mt.cat([self._sp_indices, other._sp_indices], 1),
                                         mt.cat([self._sp_values.to(target), values.to(target)]),
                                         self.shape)
        elif contiguous:
            indices, values = _merge(self._sp_indices, self._sp_values.to(target),
                                     other._sp_indices, values.to(target))
        else:
            indices = mt.cat([self._sp_indices, other._sp_indices], 1)
            values = mt.cat([self._sp_values.to(target), values.to(target)], 0)
            coalesced = False
        if not inplace:
            return _make(indices, values, self.shape, coalesced)
        self._sp_indices, self._sp_values, self._sp_coalesced = indices, values, coalesced
        return self
    if tuple(self.shape) != tuple(other.shape):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size {_size_list(self.shape)} while other has size "
                           f"{_size_list(other.shape)} (FYI: dense-sparse addition does not "
                           f"currently support broadcasting)")
    dtype = mt.promote_types(self.dtype, other.dtype)
    values = other._sp_values if alpha == 1 else other._sp_values * alpha
    if inplace:
        if dtype != self.dtype and not mt.can_cast(dtype, self.dtype):
            raise _cast_error(dtype, self.dtype)
        with mt.no_grad():
            _accumulate(self, other._sp_indices, values)
        return self
    out = self.to(dtype, copy=True)
    _accumulate(out, other._sp_indices, values)
    return out


def _merge(t_indices: Tensor, t_values: Tensor, s_indices: Tensor, s_values: Tensor):
    """torch's sparse + sparse of contiguous values: one walk over both
    coordinate lists as if each were sorted, a coordinate they share at the
    same step stored once with both values summed, any other stored as it
    comes (coalesced inputs give their sorted union)."""
    mt = _mt()
    tl, sl = t_indices.t().tolist(), s_indices.t().tolist()
    t_slots, s_slots, rows = [], [], []
    i = j = 0
    while i < len(tl) or j < len(sl):
        if i >= len(tl):
            cmp = -1
        elif j >= len(sl):
            cmp = 1
        else:
            cmp = 0 if tl[i] == sl[j] else 1 if tl[i] < sl[j] else -1
        if cmp >= 0:
            t_slots.append(len(rows))
            rows.append(tl[i])
            i += 1
        if cmp <= 0:
            s_slots.append(len(rows) - 1 if cmp == 0 else len(rows))
            if cmp < 0:
                rows.append(sl[j])
            j += 1
    values = mt.zeros((len(rows),) + tuple(t_values.shape[1:]), dtype=t_values.dtype)
    values.index_add_(0, mt.tensor(t_slots, dtype=mt.int64), t_values)
    values.index_add_(0, mt.tensor(s_slots, dtype=mt.int64), s_values)
    indices = mt.tensor(rows, dtype=mt.int64).reshape(len(rows), t_indices.shape[0]).t()
    return indices.contiguous(), values


def _cast_error(result, output) -> RuntimeError:
    return RuntimeError(f"Can't convert result type {_SCALAR_NAMES[repr(result)]} to output "
                        f"{_SCALAR_NAMES[repr(output)]} in add operation")


def _scale(name, args, kwargs):
    """sparse * or / a number (or 0-d dense tensor), in either order for *."""
    self, other = args[0], args[1]
    divide = "div" in name
    if not divide and _number(self) and _is_sparse(other):
        self, other = other, self
    if not (_is_sparse(self) and _number(other)):
        raise NotImplementedError(f"{name}: minitorch's sparse COO tensors multiply and divide "
                                  f"by a number only; use to_dense()")
    if divide:
        values = self._sp_values.div(other, **{k: v for k, v in kwargs.items()
                                               if k == "rounding_mode"})
    else:
        values = self._sp_values * other
    if name.endswith("_") and not name.startswith("__") or name.startswith("__i"):
        self._sp_values = values.to(self.dtype)
        return self
    return _make(self._sp_indices, values, self.shape, self._sp_coalesced)


def _neg(name, args, kwargs):
    s = args[0]
    return _make(s._sp_indices, s._sp_values.neg(), s.shape, s._sp_coalesced)


def _clone(name, args, kwargs):
    s = args[0]
    return _make(s._sp_indices.clone(), s._sp_values.clone(), s.shape, s._sp_coalesced)


def _detach(name, args, kwargs):
    s = args[0]
    return _make(s._sp_indices, s._sp_values, s.shape, s._sp_coalesced)


def _cast(name, args, kwargs):
    """to(dtype) and the dtype methods: the values cast."""
    s = args[0]
    mt = _mt()
    dtype = {"float": mt.float32, "double": mt.float64, "half": mt.float16,
             "bfloat16": mt.bfloat16, "int": mt.int32, "long": mt.int64, "short": mt.int16,
             "char": mt.int8, "byte": mt.uint8, "bool": mt.bool,
             "cfloat": mt.complex64, "cdouble": mt.complex128}.get(name)
    if dtype is None:
        dtype = kwargs.get("dtype")
        for a in args[1:]:
            if isinstance(a, mt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
    if dtype is None or dtype == s.dtype:
        return s
    return _make(s._sp_indices, s._sp_values.to(dtype), s.shape, s._sp_coalesced)


def _zeros_like(name, args, kwargs):
    mt = _mt()
    s = args[0]
    dtype = kwargs.get("dtype") or s.dtype
    values = mt.zeros((0,) + tuple(s._sp_values.shape[1:]), dtype=dtype)
    return _make(mt.zeros((s.sparse_dim(), 0), dtype=mt.int64), values, s.shape, True)


def _zero(name, args, kwargs):
    """zero_: no values stored, as torch's."""
    mt = _mt()
    s = args[0]
    s._sp_indices = mt.zeros((s.sparse_dim(), 0), dtype=mt.int64)
    s._sp_values = mt.zeros((0,) + tuple(s._sp_values.shape[1:]), dtype=s.dtype)
    s._sp_coalesced = True
    return s


def _detach_inplace(name, args, kwargs):
    return args[0]


def _copy(name, args, kwargs):
    def kind(t):
        mt = _mt()
        base = f"{_SCALAR_NAMES[repr(t.dtype)]}Tensor"
        return f"torch.sparse.{base}" if _is_sparse(t) else f"torch.{base}" if t.dtype != \
            mt.bool else "torch.BoolTensor"
    self, src = args[0], args[1]
    if _is_sparse(self) and _is_sparse(src):
        self._sp_indices, self._sp_values = src._sp_indices.clone(), \
            src._sp_values.to(self.dtype, copy=True)
        self._sp_coalesced = src._sp_coalesced
        return self
    raise RuntimeError(f"copy_() between dense and sparse Tensors is not implemented! Found "
                       f"self type = {kind(self)} and src type = {kind(src)}")


def _no_storage(name, args, kwargs):
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _item(name, args, kwargs):
    return args[0].to_dense().item()


def _to_numpy(name, args, kwargs):
    raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")


_HANDLERS = {}
for _n in ("add", "add_", "__add__", "__iadd__", "__radd__", "sub", "sub_", "__sub__",
           "__isub__", "__rsub__", "subtract"):
    _HANDLERS[_n] = _add
for _n in ("mul", "mul_", "__mul__", "__imul__", "__rmul__", "multiply", "div", "div_",
           "__truediv__", "__itruediv__", "divide", "true_divide"):
    _HANDLERS[_n] = _scale
for _n in ("neg", "__neg__", "negative"):
    _HANDLERS[_n] = _neg
for _n in ("to", "type_as", "float", "double", "half", "bfloat16", "int", "long", "short",
           "char", "byte", "bool", "cfloat", "cdouble"):
    _HANDLERS[_n] = _cast
_HANDLERS.update({"clone": _clone, "detach": _detach, "alias": _detach, "zero_": _zero,
                  "detach_": _detach_inplace,
                  "zeros_like": _zeros_like, "copy_": _copy, "data_ptr": _no_storage,
                  "tolist": _no_storage, "item": _item, "numpy": _to_numpy})
