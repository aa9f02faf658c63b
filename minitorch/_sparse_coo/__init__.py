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
from ..overrides import composite
from . import dispatch, methods  # noqa: F401  (the handlers and Tensor methods)
from .coords import _mt
from .factory import sparse_coo_tensor
from .tensor import _make, _sparse_mask  # noqa: F401  (for SparseAdam)

__all__ = ["sparse_coo_tensor", "spmm"]


@composite(method=False)
def spmm(input, mat2):
    """input @ mat2 for a sparse COO (or dense) matrix input and a dense mat2:
    the dense product, recorded as mm."""
    return _mt().mm(input, mat2)
