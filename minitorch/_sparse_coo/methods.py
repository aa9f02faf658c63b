"""The Tensor methods torch has for either layout: a sparse tensor's own
answer, or the one torch gives a dense tensor."""
import functools
from typing import Any, Optional

from .._global_flags import strided
from .._tensor import Tensor
from ..overrides import composite
from .functions import _ToSparse, _ToSparseAll
from .tensor import _SparseCOOTensor, _check_target_layout, _sparse_mask


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
