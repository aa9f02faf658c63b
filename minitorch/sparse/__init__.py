"""minitorch.sparse: torch.sparse's functions on sparse COO tensors
(``mm``, ``addmm``, ``sum``, ``softmax``, ``log_softmax``) and its legacy
type constructors (``sparse.FloatTensor(indices, values, size)``)."""
from typing import Any, Optional

from .._sparse_coo.coords import _mt
from .._sparse_coo.namespace_functions import (_SparseAddmm, _SparseLogSoftmax, _SparseSoftmax,
                                               _SparseSum)
from .._sparse_coo.tensor import _is_sparse
from .._tensor import Tensor

__all__ = ["addmm", "log_softmax", "mm", "softmax", "sum", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "DoubleTensor", "FloatTensor", "HalfTensor", "IntTensor", "LongTensor",
           "ShortTensor"]


def mm(mat1: Tensor, mat2: Tensor, reduce: Optional[str] = None) -> Tensor:
    """mat1 @ mat2 with mat1 or both sparse; a sparse mat1 times a dense mat2
    gives mat1 a sparse gradient at its own coordinates."""
    if reduce is not None:
        raise NotImplementedError("sparse.mm: reduce= needs the sparse CSR layout, which "
                                  "minitorch does not have")
    if _is_sparse(mat1) and not _is_sparse(mat2):
        mt = _mt()
        empty = mt.zeros((), dtype=mat2.dtype)
        return _SparseAddmm.apply(empty, mat1, mat2, 0, 1)
    return _mt().mm(mat1, mat2)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta: float = 1.0,
          alpha: float = 1.0) -> Tensor:
    """beta mat + alpha (mat1 @ mat2) for a sparse mat1 and dense mat and mat2."""
    if not _is_sparse(mat1) or _is_sparse(mat2) or _is_sparse(mat):
        return _mt().addmm(mat, mat1, mat2, beta=beta, alpha=alpha)
    return _SparseAddmm.apply(mat, mat1, mat2, beta, alpha)


def sum(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """The sum of the stored values over dim (all by default): a dense
    tensor when every sparse dim is summed, else a sparse one."""
    if not _is_sparse(input):
        raise RuntimeError("_sparse_sum only supports sparse COO tensors")
    if dim is None:
        return input.sum(dtype=dtype)
    n = max(input.dim(), 1)
    dims = tuple(sorted({d % n for d in ((dim,) if isinstance(dim, int) else dim)}))
    if all(d in dims for d in range(input.sparse_dim())):
        return input.sum(dims, dtype=dtype)
    # a sparse result keeps an integer input's dtype, where Tensor.sum's is int64
    return _SparseSum.apply(input, dims, input.dtype if dtype is None else dtype)


def _softmax(cls: Any, input: Tensor, dim: int, dtype: Any) -> Tensor:
    if not _is_sparse(input):
        raise NotImplementedError("Could not run 'aten::_sparse_softmax' with arguments from the "
                                  "'CPU' backend: the input must be a sparse COO tensor")
    if dtype is not None:
        input = input.to(dtype)
    return cls.apply(input, dim % max(input.dim(), 1), cls is _SparseLogSoftmax)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """softmax along dim over the stored elements (the others count as minus
    infinity and stay unstored)."""
    return _softmax(_SparseSoftmax, input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """log_softmax along dim over the stored elements only."""
    return _softmax(_SparseLogSoftmax, input, dim, dtype)


def _legacy_type(name: str, dtype_name: str) -> Any:
    def construct(*args: Any) -> Tensor:
        mt = _mt()
        dtype = getattr(mt, dtype_name)
        if len(args) >= 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
            # as torch's, the values keep their own dtype
            return mt.sparse_coo_tensor(*args[:3])
        size = args[0] if len(args) == 1 and not isinstance(args[0], int) else args
        sparse_dim = len(tuple(size))
        return mt.sparse_coo_tensor(mt.zeros((sparse_dim, 0), dtype=mt.int64),
                                    mt.zeros(0, dtype=dtype), tuple(size))
    construct.__name__ = construct.__qualname__ = name
    construct.__doc__ = (f"torch.sparse.{name}: a sparse COO tensor from (indices, values[, "
                         f"size]), or an empty one of the sizes given")
    return construct


FloatTensor = _legacy_type("FloatTensor", "float32")
DoubleTensor = _legacy_type("DoubleTensor", "float64")
HalfTensor = _legacy_type("HalfTensor", "float16")
BFloat16Tensor = _legacy_type("BFloat16Tensor", "bfloat16")
LongTensor = _legacy_type("LongTensor", "int64")
IntTensor = _legacy_type("IntTensor", "int32")
ShortTensor = _legacy_type("ShortTensor", "int16")
CharTensor = _legacy_type("CharTensor", "int8")
ByteTensor = _legacy_type("ByteTensor", "uint8")
