"""Products with a sparse operand: mm, mv, matmul, addmm and bmm of a sparse
matrix (coordinates in both dims, scalar values) with a dense one, dense by
sparse, and sparse by sparse. Each stored value is added into its output row
in storage order, as torch's CPU kernel adds them."""
from .._tensor import Tensor
from .coords import _mt
from .tensor import _is_sparse, _make


def _matrix(s: Tensor, name: str) -> None:
    if s.sparse_dim() != 2 or s.dense_dim() != 0:
        raise RuntimeError(f"{name}: expected a sparse matrix (2 sparse and 0 dense dimensions), "
                           f"but got {s.sparse_dim()} sparse and {s.dense_dim()} dense "
                           f"dimensions")


def _same_dtype(a: Tensor, b: Tensor) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {a.dtype._scalar_name} but found "
                           f"{b.dtype._scalar_name}")


def _sparse_times_dense(s: Tensor, d: Tensor, name: str = "addmm") -> Tensor:
    """s @ d for a sparse matrix s and a dense matrix or vector d."""
    mt = _mt()
    _matrix(s, name)
    if d.dim() not in (1, 2):
        raise RuntimeError(f"{name}: matrices expected, got {d.dim()}D tensor")
    _same_dtype(s, d)
    if d.shape[0] != s.shape[1]:
        raise RuntimeError(f"{name}: Argument #3 (dense): Expected dim 0 size {s.shape[1]}, got "
                           f"{d.shape[0]}")
    rows, cols = s._sp_indices[0], s._sp_indices[1]
    values = s._sp_values
    out = mt.zeros((s.shape[0],) + tuple(d.shape[1:]), dtype=d.dtype)
    terms = d.index_select(0, cols) * (values.unsqueeze(1) if d.dim() == 2 else values)
    return out.index_add_(0, rows, terms)


def _transposed(s: Tensor) -> Tensor:
    return _make(s._sp_indices.flip(0), s._sp_values, (s.shape[1], s.shape[0]), False)


def _product(a: Tensor, b: Tensor, name: str) -> Tensor:
    if _is_sparse(a) and not _is_sparse(b):
        return _sparse_times_dense(a, b, name)
    if _is_sparse(b) and not _is_sparse(a):
        # (s^T a^T)^T: the same sums, each output column's in storage order
        _matrix(b, name)
        if a.dim() == 1:
            return _sparse_times_dense(_transposed(b), a, name)
        return _sparse_times_dense(_transposed(b), a.t(), name).t()
    _matrix(a, name)
    _matrix(b, name)
    _same_dtype(a, b)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    dense = _sparse_times_dense(a, b.to_dense(), name)
    return dense.to_sparse()


def _mm(name, args, kwargs):
    return _product(args[0], args[1], "addmm")


def _rmatmul(name, args, kwargs):
    return _product(args[1], args[0], "addmm")


def _addmm(name, args, kwargs):
    input, a, b = args[0], args[1], args[2]
    beta = kwargs.get("beta", args[3] if len(args) > 3 else 1)
    alpha = kwargs.get("alpha", args[4] if len(args) > 4 else 1)
    if _is_sparse(input):
        raise NotImplementedError("addmm: minitorch adds a sparse product to a dense input only")
    product = _product(a, b, "addmm")
    if _is_sparse(product):
        product = product.to_dense()
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return scaled.expand(input.shape).clone() if scaled.shape != input.shape else scaled
    return (input if beta == 1 else input * beta) + scaled


def _bmm(name, args, kwargs):
    mt = _mt()
    s, d = args[0], args[1]
    if not _is_sparse(s) or _is_sparse(d):
        raise NotImplementedError("bmm: minitorch multiplies a sparse batch by a dense one only")
    if s.sparse_dim() != 3 or s.dense_dim() != 0 or d.dim() != 3:
        raise RuntimeError(f"bmm_sparse: Expected 3-D sparse and dense tensors, got "
                           f"{s.dim()}-D and {d.dim()}-D")
    if s.shape[0] != d.shape[0]:
        raise RuntimeError(f"bmm_sparse: Expected self and mat2 to have the same batch size, but "
                           f"got {s.shape[0]} and {d.shape[0]}")
    batch = s._sp_indices[0]
    outs = []
    for i in range(s.shape[0]):
        keep = (batch == i).nonzero().squeeze(1)
        matrix = _make(s._sp_indices[1:].index_select(1, keep), s._sp_values.index_select(0, keep),
                       tuple(s.shape[1:]), False)
        outs.append(_sparse_times_dense(matrix, d[i], "bmm"))
    return mt.stack(outs) if outs else mt.zeros((0, s.shape[1], d.shape[2]), dtype=d.dtype)


HANDLERS = {"mm": _mm, "matmul": _mm, "__matmul__": _mm, "mv": _mm, "spmm": _mm,
            "__rmatmul__": _rmatmul, "addmm": _addmm, "bmm": _bmm}
