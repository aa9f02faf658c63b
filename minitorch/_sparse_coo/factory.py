"""sparse_coo_tensor: a sparse COO tensor from coordinates and values, with
torch's checks and messages."""
from typing import Any, Optional

from .. import _C
from .._tensor import Tensor
from .coords import _check_bounds, _mt, _size_list
from .functions import _FromValues
from .tensor import _make


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
