"""The op-table rows a sparse operand may meet, computed on its coordinates
and values (filled into tensor.HANDLERS, where __torch_dispatch__ looks them up)."""
from .._tensor import Tensor
from . import dispatch_products, dispatch_values
from .coords import _accumulate, _coalesced, _mt, _size_list
from .tensor import HANDLERS, _is_sparse, _make


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
    return RuntimeError(f"Can't convert result type {result._scalar_name} to output "
                        f"{output._scalar_name} in add operation")


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
        base = f"{t.dtype._scalar_name}Tensor"
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


for _n in ("add", "add_", "__add__", "__iadd__", "__radd__", "sub", "sub_", "__sub__",
           "__isub__", "__rsub__", "subtract"):
    HANDLERS[_n] = _add
for _n in ("mul", "mul_", "__mul__", "__imul__", "__rmul__", "multiply", "div", "div_",
           "__truediv__", "__itruediv__", "divide", "true_divide"):
    HANDLERS[_n] = _scale
for _n in ("neg", "__neg__", "negative"):
    HANDLERS[_n] = _neg
for _n in ("to", "type_as", "float", "double", "half", "bfloat16", "int", "long", "short",
           "char", "byte", "bool", "cfloat", "cdouble"):
    HANDLERS[_n] = _cast
HANDLERS.update({"clone": _clone, "detach": _detach, "alias": _detach, "zero_": _zero,
                  "detach_": _detach_inplace,
                  "zeros_like": _zeros_like, "copy_": _copy, "data_ptr": _no_storage,
                  "tolist": _no_storage, "item": _item, "numpy": _to_numpy})
HANDLERS.update(dispatch_products.HANDLERS)
HANDLERS.update(dispatch_values.HANDLERS)
