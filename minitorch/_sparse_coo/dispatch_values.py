"""Rows that act on a sparse tensor's stored values: the pointwise functions
that keep zero at zero, pow by a positive exponent, products with a sparse
or dense tensor of the same size, transposes and sums. A function that is
not additive (abs(a) + abs(b) is not abs(a + b)) coalesces first, as torch's
do."""
from .._tensor import Tensor
from .coords import _coalesced, _mt, _size_list
from .tensor import _is_sparse, _make

# f(0) == 0 for each, so the elements not stored stay zero
_ZERO_KEEPING = ("abs", "sqrt", "relu", "sin", "tan", "tanh", "asin", "atan", "sinh", "asinh",
                 "atanh", "expm1", "log1p", "sign", "sgn", "ceil", "floor", "round", "trunc",
                 "frac", "square", "deg2rad", "rad2deg", "erf", "erfinv", "signbit", "isnan",
                 "isinf", "isposinf", "isneginf", "nan_to_num", "angle", "conj_physical")


def _coalesced_parts(s: Tensor):
    if s._sp_coalesced:
        return s._sp_indices, s._sp_values
    return _coalesced(s._sp_indices, s._sp_values, s.shape)


def _pointwise(name, args, kwargs):
    s = args[0]
    fn = getattr(_mt(), name.rstrip("_"))
    indices, values = _coalesced_parts(s)
    out = fn(values, *args[1:], **kwargs)
    if name.endswith("_"):
        s._sp_indices, s._sp_values, s._sp_coalesced = indices, out.to(s.dtype), True
        return s
    return _make(indices, out, s.shape, True)


def _pow(name, args, kwargs):
    s, exponent = args[0], kwargs.get("exponent", args[1] if len(args) > 1 else None)
    if isinstance(exponent, Tensor) or not isinstance(s, Tensor) or not _is_sparse(s):
        raise NotImplementedError("pow: minitorch raises a sparse tensor to a number only")
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the "
                           "result tensor dense")
    indices, values = _coalesced_parts(s)
    return _make(indices, values.pow(exponent), s.shape, True)


def _mul(name, args, kwargs):
    """sparse * sparse (the coordinates both store) or sparse * dense of one
    size (the dense elements at the sparse coordinates); else a number."""
    from .dispatch import _scale
    a, b = args[0], args[1]
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a.dim() == 0 or b.dim() == 0:
        return _scale(name, args, kwargs)
    mt = _mt()
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"mul: expected 'self' and 'other' to have same sizes, but "
                           f"{_size_list(a.shape)} != {_size_list(b.shape)}")
    s, other = (a, b) if _is_sparse(a) else (b, a)
    indices, values = _coalesced_parts(s)
    if _is_sparse(other):
        o_indices, o_values = _coalesced_parts(other)
        both = mt.cat([indices, o_indices], 1)
        # a coordinate both store appears twice among the union's
        _, inverse, counts = mt.unique(both, dim=1, return_inverse=True, return_counts=True)
        n = indices.shape[1]
        mine = counts.index_select(0, inverse[:n]) == 2
        theirs = counts.index_select(0, inverse[n:]) == 2
        return _make(indices[:, mine], values[mine] * o_values[theirs], s.shape, True)
    return _make(indices, values * other[tuple(indices.unbind(0))], s.shape, True)


def _transpose(name, args, kwargs):
    s = args[0]
    sdim = s.sparse_dim()
    if name == "t":
        if s.dim() > 2 or s.dense_dim() > 0:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but got {sdim} sparse and {s.dense_dim()} dense dimensions")
        d0, d1 = 0, s.dim() - 1
    else:
        d0 = kwargs.get("dim0", args[1] if len(args) > 1 else None)
        d1 = kwargs.get("dim1", args[2] if len(args) > 2 else None)
    n = max(s.dim(), 1)
    d0, d1 = d0 % n, d1 % n
    shape = list(s.shape)
    if shape:
        shape[d0], shape[d1] = shape[d1], shape[d0]
    if d0 < sdim and d1 < sdim:
        order = list(range(sdim))
        order[d0], order[d1] = order[d1], order[d0]
        indices, values = s._sp_indices[order], s._sp_values
    elif d0 >= sdim and d1 >= sdim:
        indices = s._sp_indices
        values = s._sp_values.transpose(d0 - sdim + 1, d1 - sdim + 1)
    else:
        raise RuntimeError(f"transpose({d0}, {d1}): cannot swap a sparse dim with a dense one "
                           f"({sdim} sparse dims)")
    return _make(indices, values, shape, s._sp_coalesced and s._nnz() <= 1)


def _sum(name, args, kwargs):
    mt = _mt()
    s = args[0]
    dim = kwargs.get("dim", args[1] if len(args) > 1 and not isinstance(args[1], mt.dtype)
                     else None)
    dtype = kwargs.get("dtype")
    if kwargs.get("keepdim", args[2] if len(args) > 2 and isinstance(args[2], bool) else False):
        raise NotImplementedError("sum: minitorch sums a sparse tensor without keepdim only")
    values = s._sp_values if dtype is None else s._sp_values.to(dtype)
    if dim is None:
        return values.sum(dtype=dtype)
    dims = sorted({d % s.dim() for d in ((dim,) if isinstance(dim, int) else dim)})
    sdim = s.sparse_dim()
    dense_dims = [d - sdim + 1 for d in dims if d >= sdim]
    if dense_dims:
        values = values.sum(dense_dims)
    kept = [d for d in range(sdim) if d not in dims]
    if not kept:
        return values.sum(0)
    if values.dtype in (mt.bool, mt.uint8, mt.int8, mt.int16, mt.int32) and dtype is None:
        values = values.to(mt.int64)
    size = [s.shape[d] for d in kept] + [s.shape[d] for d in range(sdim, s.dim())
                                          if d not in dims]
    indices, values = _coalesced(s._sp_indices[kept], values, size)
    return _make(indices, values, size, True)


HANDLERS = {"pow": _pow, "__pow__": _pow, "sum": _sum,
            "t": _transpose, "transpose": _transpose, "swapaxes": _transpose,
            "swapdims": _transpose}
for _n in ("mul", "__mul__", "__rmul__", "multiply"):
    HANDLERS[_n] = _mul
for _n in _ZERO_KEEPING:
    HANDLERS[_n] = _pointwise
    HANDLERS[_n + "_"] = _pointwise
