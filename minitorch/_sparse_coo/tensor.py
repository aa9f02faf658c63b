"""The sparse COO tensor class and its constructor from coordinates and
values. The methods that need autograd Functions or printing import them
when called, and the dispatch table is filled by dispatch.py at import:
those modules build on this one."""
import copy
from typing import Any, Optional

from .. import _C
from .._global_flags import sparse_coo
from .._tensor import Tensor
from .coords import _accumulate, _mt, _size_list

# op name -> handler(name, args, kwargs); dispatch.py fills it when the package loads
HANDLERS: dict = {}


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
        from .functions import _Coalesce
        return _Coalesce.apply(self)

    def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
        """The dense tensor: zeros with the values added at their coordinates
        (duplicates summed)."""
        from .functions import _ToDense
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
            return f"minitorch.sparse.{self.dtype._scalar_name}Tensor"
        if isinstance(dtype, _mt().dtype):
            return self.to(dtype)
        raise NotImplementedError(f"type({dtype!r}): a sparse tensor converts to a dtype only")

    def __repr__(self, *, tensor_contents: Any = None) -> str:
        from .format import _format
        return _format(self)

    def __reduce_ex__(self, protocol: Any) -> tuple:
        return (_rebuild, (self._sp_indices, self._sp_values, tuple(self.shape),
                           self._sp_coalesced, self.requires_grad))

    def __deepcopy__(self, memo: Any) -> Tensor:
        return _make(copy.deepcopy(self._sp_indices, memo), copy.deepcopy(self._sp_values, memo),
                     self.shape, self._sp_coalesced, self.requires_grad)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        handler = HANDLERS.get(name)
        if handler is None:
            raise NotImplementedError(
                f"Could not run '{func.name()}' with arguments from the 'SparseCPU' backend: "
                f"minitorch's sparse COO tensors support to_dense(), coalesce(), addition, "
                f"products with dense and sparse matrices, sums, transposes and the pointwise "
                f"functions that keep zero at zero; convert with to_dense() first")
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


def _dense_of(s: _SparseCOOTensor) -> Tensor:
    out = _mt().zeros(tuple(s.shape), dtype=s.dtype)
    _accumulate(out, s._sp_indices, s._sp_values)
    return out
