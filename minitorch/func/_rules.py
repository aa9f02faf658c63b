"""Batching rules: one op on a whole batch at once, keyed by the op's name.

A rule gets the call as the user made it (BatchedTensors of its level among
the arguments) and runs the op once on the physical values, with the batch
dim moved to the front and the op's dims shifted past it. It returns the
result wrapped at the level, or NotImplemented when the call is one it does
not cover (an out= argument, a dim out of range, mismatched shapes): the
per-sample fallback then runs it, so a refused call raises exactly the error
the op raises on one sample.
"""
from .. import _C
from .._tensor import Tensor
from ._batched import make
from ._dispatch import front, is_batched, is_inplace, wrap_outputs, _check_inplace, random_error

__all__ = ["RULES"]

_F = _C._functions
RULES = {}


def _rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def _tensors(args, kwargs):
    return [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]


def _others_batched(args, kwargs, level):
    return any(is_batched(t, level) for t in _tensors(args[1:], kwargs))


def _wrap_dim(d, n):
    """d wrapped into [0, n), or None when out of range (the fallback raises)."""
    if isinstance(d, bool) or not isinstance(d, int):
        return None
    m = max(n, 1)
    if not -m <= d < m:
        return None
    return d % m


def _get(args, kwargs, pos, name, default=None):
    if name in kwargs:
        return kwargs[name]
    return args[pos] if len(args) > pos else default


def _set(args, kwargs, pos, name, value):
    """args and kwargs with the parameter at pos/name set to value."""
    if name not in kwargs and len(args) > pos:
        args = args[:pos] + (value,) + args[pos + 1:]
    else:
        kwargs = dict(kwargs, **{name: value})
    return args, kwargs


def _expand_front(t, size):
    return t.unsqueeze(0).expand((size,) + tuple(t.shape))


# ---- pointwise: the batch dim first, logical ranks aligned by padding ----

# The published rows of the op table tagged pointwise (MT_TAGS), with the in-place and
# operator forms of those that are operators.
_POINTWISE = sorted({row[1] for row in _C._op_rows() if row[2] and "pointwise" in row[5]})


# torch checks these in-place ops' physical broadcast before their batch dims
_BROADCAST_CHECKED = frozenset({"add_", "sub_", "__iadd__", "__isub__"})


def pointwise(func, args, kwargs, level):
    if kwargs.get("out") is not None:
        return NotImplemented
    tensors = _tensors(args, kwargs)
    rank = max(len(t.shape) for t in tensors)
    if len({t.dtype for t in tensors}) > 1 and any(
            is_batched(t, level) and not t.shape for t in tensors):
        # a 0-dim operand promotes as one, which its batched form is not
        return NotImplemented

    def physical(a):
        if not isinstance(a, Tensor):
            return a
        p = front(a, level)
        if p is None:
            return a
        for _ in range(rank - len(a.shape)):
            p = p.unsqueeze(1)
        return p

    new_args = tuple(physical(a) for a in args)
    new_kwargs = {k: physical(v) for k, v in kwargs.items()}
    if is_inplace(func.__name__):
        if not is_batched(args[0], level) and func.__name__ in _BROADCAST_CHECKED:
            from ..broadcasting import broadcast_shapes
            shape = broadcast_shapes(*[tuple(a.shape) for a in new_args
                                       if isinstance(a, Tensor)])
            raise RuntimeError(f"output with shape {list(args[0].shape)} doesn't match the "
                               f"broadcast shape {list(shape)}")
        _check_inplace(func.__name__, args, level)
        if len(args[0].shape) < rank:
            return NotImplemented
        func(*new_args, **new_kwargs)
        return args[0]
    return wrap_outputs(func(*new_args, **new_kwargs), level)


for _name in _POINTWISE:
    RULES[_name] = pointwise


@_rule("clone", "detach", "contiguous", "to", "type", "float", "double", "half", "bfloat16",
       "int", "long", "short", "char", "byte", "bool", "zeros_like", "ones_like", "empty_like",
       "full_like", "requires_grad_", "detach_", "zero_", "fill_")
def unary(func, args, kwargs, level):
    """Ops that keep their input's shape and read only its metadata or values."""
    if not is_batched(args[0], level) or _others_batched(args, kwargs, level):
        return NotImplemented
    if kwargs.get("out") is not None:
        return NotImplemented
    if func.__name__ == "type" and len(args) < 2 and not kwargs:
        return NotImplemented
    p = front(args[0], level)
    out = func(p, *args[1:], **kwargs)
    return args[0] if is_inplace(func.__name__) else make(out, 0, level)


# ---- reductions and other ops along dims: the dims shift by one ----

def _dim_rule(pos, name="dim", absent=None):
    """absent: what no dim means: 'all' (reduce every dim), 'flatten' (one dim
    over the flattened input), an int (that dim) or None (the op needs one)."""

    def rule(func, args, kwargs, level):
        x = args[0]
        if not is_batched(x, level) or _others_batched(args, kwargs, level):
            return NotImplemented
        if kwargs.get("out") is not None:
            return NotImplemented
        nd = len(x.shape)
        dim = _get(args, kwargs, pos, name)
        p = front(x, level)
        if isinstance(dim, Tensor) or isinstance(dim, bool) or nd == 0:
            return NotImplemented
        if dim is None:
            if absent == "all":
                dim = tuple(range(1, nd + 1))
            elif absent == "flatten":
                if _get(args, kwargs, pos + 1, "keepdim", False):
                    return NotImplemented
                p = p.reshape(p.shape[0], -1)
                dim = 1
            elif isinstance(absent, int):
                dim = _wrap_dim(absent, nd) + 1
            else:
                return NotImplemented
        elif isinstance(dim, (tuple, list)):
            wrapped = [_wrap_dim(d, nd) for d in dim]
            if None in wrapped or not dim:
                return NotImplemented
            dim = tuple(d + 1 for d in wrapped)
        else:
            dim = _wrap_dim(dim, nd)
            if dim is None:
                return NotImplemented
            dim += 1
        args, kwargs = _set(args, kwargs, pos, name, dim)
        return wrap_outputs(func(p, *args[1:], **kwargs), level)

    return rule


RULES.update({n: _dim_rule(1, absent="all") for n in (
    "sum", "mean", "amax", "amin", "std", "var", "std_mean", "var_mean", "nansum", "nanmean")})
RULES.update({n: _dim_rule(1, absent="flatten") for n in (
    "argmax", "argmin", "prod", "all", "any", "count_nonzero")})
RULES.update({n: _dim_rule(1) for n in (
    "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp", "cummax",
    "cummin")})
RULES.update({n: _dim_rule(1, absent=-1) for n in ("sort", "argsort", "msort")})
RULES["unbind"] = _dim_rule(1, absent=0)
RULES.update({n: _dim_rule(2, absent=0) for n in (
    "split", "chunk", "split_with_sizes", "tensor_split")})
RULES["topk"] = _dim_rule(2, absent=-1)
RULES["kthvalue"] = _dim_rule(2, absent=-1)
RULES["narrow"] = _dim_rule(1)
RULES["select"] = _dim_rule(1)
RULES["unflatten"] = _dim_rule(1)
RULES["glu"] = _dim_rule(1, absent=-1)


@_rule("_layer_norm_rows", "_rms_norm_rows")
def norm_rows(func, args, kwargs, level):
    """Each row is normalized on its own, so a batched input only adds rows
    (weight and bias unbatched); the per-row statistics get their batch dim."""
    p = front(args[0], level) if args else None
    if p is None or kwargs or _others_batched(args, kwargs, level):
        return NotImplemented
    out, stats = func(p, *args[1:])
    return wrap_outputs((out, stats.reshape(p.shape[0], -1, 2)), level)


@_rule("max", "min")
def max_min(func, args, kwargs, level):
    other = _get(args, kwargs, 1, "other")
    if isinstance(other, Tensor):
        return pointwise(func, args, kwargs, level)
    if _get(args, kwargs, 1, "dim") is None and len(args) == 1 and not kwargs:
        if not is_batched(args[0], level) or not args[0].shape:
            return NotImplemented
        p = front(args[0], level)
        amax = _F["amax" if func.__name__ == "max" else "amin"]
        return make(amax(p, tuple(range(1, p.dim()))), 0, level)
    return _dim_rule(1)(func, args, kwargs, level)


# ---- the matmul family ----

def _matmul(x, y, level):
    px, py = front(x, level), front(y, level)
    rx, ry = len(x.shape), len(y.shape)
    if rx == 0 or ry == 0 or x.dtype != y.dtype:
        return NotImplemented
    if py is None and ry <= 2:
        # the samples fold into the rows of one product
        return make(_F["matmul"](px, y), 0, level)
    px = x if px is None else px
    py = y if py is None else py
    squeeze = []
    if rx == 1:
        px = px.unsqueeze(-2)
        squeeze.append(-2)
    if ry == 1:
        py = py.unsqueeze(-1)
        squeeze.append(-1)
    rank = max(rx, ry, 2)
    if is_batched(x, level):
        for _ in range(rank - max(rx, 2)):
            px = px.unsqueeze(1)
    if is_batched(y, level):
        for _ in range(rank - max(ry, 2)):
            py = py.unsqueeze(1)
    out = _F["matmul"](px, py)
    for d in sorted(squeeze):
        out = out.squeeze(d)
    return make(out, 0, level)


@_rule("matmul", "__matmul__")
def matmul(func, args, kwargs, level):
    if kwargs.get("out") is not None or len(args) != 2:
        return NotImplemented
    return _matmul(args[0], args[1], level)


@_rule("__rmatmul__")
def rmatmul(func, args, kwargs, level):
    return _matmul(args[1], args[0], level)


def _ranked(rx, ry):
    """mm, bmm, mv, dot: their shape checks, then the matmul rule."""

    def rule(func, args, kwargs, level):
        if kwargs or len(args) != 2:
            return NotImplemented
        x, y = args
        if (len(x.shape), len(y.shape)) != (rx, ry):
            if func.__name__ == "dot":
                return NotImplemented
            raise RuntimeError(f"Shape mismatch: Got incorrect dims for {func.__name__}(a, b). a "
                               f"has dim {len(x.shape)}and b has dim {len(y.shape)}but expected "
                               f"them to have dim {rx} and dim {ry}")
        if x.shape[-1] != y.shape[-2 if ry >= 2 else -1]:
            return NotImplemented
        if rx == 3 and x.shape[0] != y.shape[0]:
            return NotImplemented
        return _matmul(x, y, level)

    return rule


RULES["mm"] = _ranked(2, 2)
RULES["bmm"] = _ranked(3, 3)
RULES["mv"] = _ranked(2, 1)
RULES["dot"] = _ranked(1, 1)


@_rule("outer", "ger")
def outer(func, args, kwargs, level):
    x, y = args
    if kwargs or len(x.shape) != 1 or len(y.shape) != 1:
        return NotImplemented
    with level.mode:
        return x.unsqueeze(-1) * y


@_rule("linear")
def linear(func, args, kwargs, level):
    x, w = args[0], args[1]
    b = _get(args, kwargs, 2, "bias")
    if is_batched(w, level) or is_batched(b, level) or not is_batched(x, level):
        if len(w.shape) != 2 or not x.shape or x.shape[-1] != w.shape[1]:
            return NotImplemented
        wt = make(front(w, level).transpose(1, 2), 0, level) if is_batched(w, level) else w.t()
        out = _matmul(x, wt, level)
        return out if b is None else pointwise(_F["add"], (out, b), {}, level)
    if not x.shape:
        return NotImplemented
    return make(func(front(x, level), w, b), 0, level)


@_rule("addmm")
def addmm(func, args, kwargs, level):
    if len(args) != 3 or set(kwargs) - {"beta", "alpha"} or any(
            len(t.shape) != 2 for t in args[1:]):
        return NotImplemented
    beta, alpha = kwargs.get("beta", 1), kwargs.get("alpha", 1)
    inp, m1, m2 = args
    with level.mode:
        prod = m1.mm(m2)
        return (inp if beta == 1 else inp * beta) + (prod if alpha == 1 else prod * alpha)


# ---- shape ops: dims shift by one, sizes get the batch size in front ----

def _sizes(args, kwargs, name):
    """A size argument given as varargs or as one sequence."""
    rest = args[1:]
    if name in kwargs:
        return tuple(kwargs[name])
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        return tuple(rest[0])
    return tuple(rest)


@_rule("view", "reshape")
def reshape(func, args, kwargs, level):
    x = args[0]
    shape = _sizes(args, kwargs, "shape" if func.__name__ == "reshape" else "size")
    if not is_batched(x, level) or not all(isinstance(s, int) for s in shape):
        return NotImplemented
    p = front(x, level)
    return make(p.reshape((p.shape[0],) + shape), 0, level)


@_rule("view_as", "reshape_as")
def reshape_as(func, args, kwargs, level):
    x, other = args
    if not is_batched(x, level):
        return NotImplemented
    p = front(x, level)
    return make(p.reshape((p.shape[0],) + tuple(other.shape)), 0, level)


@_rule("flatten")
def flatten(func, args, kwargs, level):
    x = args[0]
    nd = len(x.shape)
    start = _wrap_dim(_get(args, kwargs, 1, "start_dim", 0), nd)
    end = _wrap_dim(_get(args, kwargs, 2, "end_dim", -1), nd)
    if not is_batched(x, level) or start is None or end is None or start > end:
        return NotImplemented
    p = front(x, level)
    if nd == 0:
        return make(p.reshape(p.shape[0], 1), 0, level)
    return make(p.flatten(start + 1, end + 1), 0, level)


@_rule("squeeze")
def squeeze(func, args, kwargs, level):
    x = args[0]
    if not is_batched(x, level):
        return NotImplemented
    nd = len(x.shape)
    dim = _get(args, kwargs, 1, "dim")
    p = front(x, level)
    if dim is None:
        keep = [s for s in x.shape if s != 1]
        return make(p.reshape((p.shape[0],) + tuple(keep)), 0, level)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    wrapped = [_wrap_dim(d, nd) for d in dims]
    if None in wrapped:
        return NotImplemented
    if nd == 0:
        return x
    return make(p.squeeze(tuple(d + 1 for d in wrapped)), 0, level)


@_rule("unsqueeze")
def unsqueeze(func, args, kwargs, level):
    x = args[0]
    d = _wrap_dim(_get(args, kwargs, 1, "dim"), len(x.shape) + 1)
    if not is_batched(x, level) or d is None:
        return NotImplemented
    return make(front(x, level).unsqueeze(d + 1), 0, level)


@_rule("permute")
def permute(func, args, kwargs, level):
    x = args[0]
    dims = _sizes(args, kwargs, "dims")
    nd = len(x.shape)
    wrapped = [_wrap_dim(d, nd) for d in dims]
    if not is_batched(x, level) or None in wrapped or sorted(wrapped) != list(range(nd)):
        return NotImplemented
    return make(front(x, level).permute(0, *[d + 1 for d in wrapped]), 0, level)


@_rule("transpose", "swapaxes", "swapdims")
def transpose(func, args, kwargs, level):
    x = args[0]
    nd = len(x.shape)
    names = {"transpose": ("dim0", "dim1"), "swapaxes": ("axis0", "axis1"),
             "swapdims": ("dim0", "dim1")}[func.__name__]
    a = _wrap_dim(_get(args, kwargs, 1, names[0]), nd)
    b = _wrap_dim(_get(args, kwargs, 2, names[1]), nd)
    if not is_batched(x, level) or a is None or b is None:
        return NotImplemented
    if nd == 0:
        return x
    return make(front(x, level).transpose(a + 1, b + 1), 0, level)


@_rule("t")
def t(func, args, kwargs, level):
    x = args[0]
    if not is_batched(x, level) or len(x.shape) > 2:
        return NotImplemented
    p = front(x, level)
    return make(p.transpose(1, 2) if len(x.shape) == 2 else p, 0, level)


@_rule("adjoint")
def adjoint(func, args, kwargs, level):
    x = args[0]
    if not is_batched(x, level) or len(x.shape) < 2:
        return NotImplemented
    return make(front(x, level).transpose(-2, -1), 0, level)


@_rule("movedim", "moveaxis")
def movedim(func, args, kwargs, level):
    x = args[0]
    nd = len(x.shape)
    src, dst = args[1], args[2]
    src = src if isinstance(src, (tuple, list)) else (src,)
    dst = dst if isinstance(dst, (tuple, list)) else (dst,)
    s = [_wrap_dim(d, nd) for d in src]
    d = [_wrap_dim(d, nd) for d in dst]
    if kwargs or not is_batched(x, level) or None in s or None in d or len(s) != len(d):
        return NotImplemented
    return make(front(x, level).movedim(tuple(v + 1 for v in s), tuple(v + 1 for v in d)), 0,
                level)


@_rule("expand", "broadcast_to")
def expand(func, args, kwargs, level):
    x = args[0]
    sizes = _sizes(args, kwargs, "size" if func.__name__ == "expand" else "shape")
    kwargs = {k: v for k, v in kwargs.items() if k not in ("size", "shape")}
    if not is_batched(x, level) or kwargs or len(sizes) < len(x.shape):
        return NotImplemented
    p = front(x, level)
    for _ in range(len(sizes) - len(x.shape)):
        p = p.unsqueeze(1)
    return make(p.expand((p.shape[0],) + sizes), 0, level)


@_rule("expand_as")
def expand_as(func, args, kwargs, level):
    x, other = args
    if kwargs:
        return NotImplemented
    if not is_batched(x, level):
        return x.expand(tuple(other.shape))
    return expand(func, (x, tuple(other.shape)), {}, level)


@_rule("repeat")
def repeat(func, args, kwargs, level):
    x = args[0]
    sizes = _sizes(args, kwargs, "repeats")
    if not is_batched(x, level) or len(sizes) < len(x.shape):
        return NotImplemented
    p = front(x, level)
    for _ in range(len(sizes) - len(x.shape)):
        p = p.unsqueeze(1)
    return make(p.repeat((1,) + sizes), 0, level)


@_rule("flip")
def flip(func, args, kwargs, level):
    x = args[0]
    dims = _sizes(args, kwargs, "dims")
    wrapped = [_wrap_dim(d, len(x.shape)) for d in dims]
    if not is_batched(x, level) or None in wrapped:
        return NotImplemented
    return make(front(x, level).flip([d + 1 for d in wrapped]), 0, level)


@_rule("roll")
def roll(func, args, kwargs, level):
    x = args[0]
    dims = _get(args, kwargs, 2, "dims", ())
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    wrapped = [_wrap_dim(d, len(x.shape)) for d in dims]
    if not is_batched(x, level) or not dims or None in wrapped:
        return NotImplemented
    shifts = _get(args, kwargs, 1, "shifts")
    return make(front(x, level).roll(shifts, tuple(d + 1 for d in wrapped)), 0, level)


@_rule("norm")
def norm(func, args, kwargs, level):
    """p-norms over dims; the Frobenius norm of a whole tensor is its 2-norm."""
    p = _get(args, kwargs, 1, "p", 2)
    if _get(args, kwargs, 2, "dim") is None and p == "fro":
        args, kwargs = _set(args, kwargs, 1, "p", 2)
    elif isinstance(p, str):
        return NotImplemented
    return _dim_rule(2, absent="all")(func, args, kwargs, level)


@_rule("pad")
def pad(func, args, kwargs, level):
    """Constant padding reaches only the trailing dims the pad names."""
    x = args[0]
    widths = _get(args, kwargs, 1, "pad")
    mode = _get(args, kwargs, 2, "mode", "constant")
    if not is_batched(x, level) or mode != "constant" or len(widths) // 2 > len(x.shape) \
            or len(widths) % 2 or _others_batched(args, kwargs, level):
        return NotImplemented
    return make(func(front(x, level), *args[1:], **kwargs), 0, level)


@_rule("diagonal")
def diagonal(func, args, kwargs, level):
    x = args[0]
    nd = len(x.shape)
    offset = _get(args, kwargs, 1, "offset", 0)
    d1 = _wrap_dim(_get(args, kwargs, 2, "dim1", 0), nd)
    d2 = _wrap_dim(_get(args, kwargs, 3, "dim2", 1), nd)
    if not is_batched(x, level) or d1 is None or d2 is None or d1 == d2 or nd < 2:
        return NotImplemented
    return make(front(x, level).diagonal(offset, d1 + 1, d2 + 1), 0, level)


@_rule("tril", "triu")
def tril(func, args, kwargs, level):
    x = args[0]
    if not is_batched(x, level) or len(x.shape) < 2 or kwargs.get("out") is not None:
        return NotImplemented
    return make(func(front(x, level), *args[1:], **kwargs), 0, level)


@_rule("cat", "concat", "stack", "hstack", "vstack")
def cat(func, args, kwargs, level):
    tensors = _get(args, kwargs, 0, "tensors")
    dim = _get(args, kwargs, 1, "dim", 0)
    if kwargs.get("out") is not None or not isinstance(tensors, (list, tuple)) or not tensors:
        return NotImplemented
    if not all(isinstance(t, Tensor) for t in tensors):
        return NotImplemented
    ranks = {len(t.shape) for t in tensors}
    if len(ranks) != 1:
        return NotImplemented
    nd = ranks.pop()
    name = func.__name__
    if name == "hstack":
        name, dim = "cat", (0 if nd == 1 else 1)
    elif name == "vstack":
        if nd < 2:
            return NotImplemented
        name, dim = "cat", 0
    d = _wrap_dim(dim, nd + 1 if name == "stack" else nd)
    if d is None or nd == 0 and name != "stack":
        return NotImplemented
    phys = [front(t, level) if is_batched(t, level) else _expand_front(t, level.size)
            for t in tensors]
    return make(_F["stack" if name == "stack" else "cat"](phys, d + 1), 0, level)


@_rule("gather", "take_along_dim")
def gather(func, args, kwargs, level):
    if kwargs or len(args) != 3:
        return NotImplemented
    x, dim, index = args
    nd = len(x.shape)
    d = _wrap_dim(dim, nd)
    if d is None or nd == 0 or len(index.shape) != nd:
        return NotImplemented
    px = front(x, level) if is_batched(x, level) else _expand_front(x, level.size)
    pi = front(index, level) if is_batched(index, level) else _expand_front(index, level.size)
    return make(func(px, d + 1, pi), 0, level)


@_rule("index_select")
def index_select(func, args, kwargs, level):
    if kwargs or len(args) != 3 or is_batched(args[2], level):
        return NotImplemented
    return _dim_rule(1)(func, args, kwargs, level)


@_rule("__getitem__")
def getitem(func, args, kwargs, level):
    x, key = args
    key = key if isinstance(key, tuple) else (key,)
    if _holds_batched(key, level):
        return _getitem_batched_index(x, key, level)
    if not is_batched(x, level):
        return NotImplemented
    advanced = [i for i, k in enumerate(key)
                if isinstance(k, (Tensor, list)) or isinstance(k, bool)]
    if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)):
        return NotImplemented
    return make(front(x, level)[(slice(None),) + key], 0, level)


def _getitem_batched_index(x, key, level):
    """Integer index tensors leading the key, some batched: an arange over the
    batch joins them as the first index, so sample b reads its own rows."""
    lead = 0
    while lead < len(key) and (isinstance(key[lead], int) and not isinstance(key[lead], bool)
                               or isinstance(key[lead], Tensor)):
        lead += 1
    rest = key[lead:]
    tensors = [k for k in key[:lead] if isinstance(k, Tensor)]
    if any(isinstance(k, (Tensor, list)) for k in rest) or any(
            t.dtype.is_floating_point or t.dtype == _C.bool for t in tensors):
        return NotImplemented
    rank = max(len(t.shape) for t in tensors)
    phys = []
    for k in key[:lead]:
        if is_batched(k, level):
            k = front(k, level)
            for _ in range(rank + 1 - k.dim()):
                k = k.unsqueeze(1)
        phys.append(k)
    px = front(x, level) if is_batched(x, level) else _expand_front(x, level.size)
    batch = _F["arange"](level.size).reshape((level.size,) + (1,) * rank)
    return make(px[(batch,) + tuple(phys) + rest], 0, level)


@_rule("__setitem__")
def setitem(func, args, kwargs, level):
    x, key, value = args
    if not is_batched(x, level) or _holds_batched(key, level):
        return NotImplemented
    key = key if isinstance(key, tuple) else (key,)
    p = front(x, level)
    target = p[(slice(None),) + key]
    if is_batched(value, level):
        pv = front(value, level)
        for _ in range(target.dim() - 1 - len(value.shape)):
            pv = pv.unsqueeze(1)
        value = pv
    p[(slice(None),) + key] = value
    return None


def _holds_batched(key, level):
    if isinstance(key, tuple):
        return any(_holds_batched(k, level) for k in key)
    return is_batched(key, level)


# ---- nn ----

def _fold(spatial):
    """Convolutions and poolings: the batch dim is one more image. An input
    without its own N dim takes the batch as N; one with N folds B into it."""

    def rule(func, args, kwargs, level):
        x = args[0]
        nd = len(x.shape)
        if not is_batched(x, level) or _others_batched(args, kwargs, level) \
                or nd not in (spatial + 1, spatial + 2):
            return NotImplemented
        p = front(x, level)
        if nd == spatial + 1:
            return wrap_outputs(func(p, *args[1:], **kwargs), level)
        b, n = p.shape[0], p.shape[1]
        out = func(p.reshape((b * n,) + tuple(p.shape[2:])), *args[1:], **kwargs)

        def unfold(o):
            return make(o.reshape((b, n) + tuple(o.shape[1:])), 0, level)

        return type(out)([unfold(o) for o in out]) if isinstance(out, tuple) else unfold(out)

    return rule


def _conv(spatial):
    """A batched weight (per-sample gradients of a CNN) is one grouped
    convolution: the samples become groups, each seeing its own weight."""
    fold = _fold(spatial)

    def rule(func, args, kwargs, level):
        x, w = args[0], args[1]
        b = _get(args, kwargs, 2, "bias")
        if not (is_batched(w, level) or is_batched(b, level)):
            return fold(func, args, kwargs, level)
        nd = len(x.shape)
        groups = _get(args, kwargs, 6, "groups", 1)
        if nd not in (spatial + 1, spatial + 2) or len(w.shape) != spatial + 2 \
                or set(kwargs) - {"bias", "stride", "padding", "dilation", "groups"} \
                or not isinstance(groups, int) or x.shape[-spatial - 1] != w.shape[1] * groups:
            return NotImplemented
        size = level.size
        px = _physical_or_expanded(x, level)
        if nd == spatial + 1:
            px = px.unsqueeze(1)
        n, c = px.shape[1], px.shape[2]
        xin = px.transpose(0, 1).reshape((n, size * c) + tuple(px.shape[3:]))
        pw = _physical_or_expanded(w, level)
        o = pw.shape[1]
        win = pw.reshape((size * o,) + tuple(pw.shape[2:]))
        bin_ = None if b is None else _physical_or_expanded(b, level).reshape(size * o)
        out = func(xin, win, bin_, _get(args, kwargs, 3, "stride", 1),
                   _get(args, kwargs, 4, "padding", 0), _get(args, kwargs, 5, "dilation", 1),
                   size * groups)
        out = out.reshape((n, size, o) + tuple(out.shape[2:])).transpose(0, 1)
        return make(out.squeeze(1) if nd == spatial + 1 else out, 0, level)

    return rule


RULES.update({n: _fold(1) for n in ("max_pool1d", "avg_pool1d", "adaptive_avg_pool1d")})
RULES.update({n: _fold(2) for n in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d")})
RULES["conv1d"] = _conv(1)
RULES["conv2d"] = _conv(2)


@_rule("embedding")
def embedding(func, args, kwargs, level):
    idx, weight = args[0], args[1]
    if is_batched(weight, level) or len(args) > 2 or kwargs:
        return NotImplemented
    return make(func(front(idx, level), weight), 0, level)


def _physical_or_expanded(t, level):
    return front(t, level) if is_batched(t, level) else _expand_front(t, level.size)


def _nll(logp, target, weight, reduction, ignore, level):
    """nll_loss of physical (B, C) or (B, N, C) log-probabilities: the 'none'
    loss of all samples in one call, reduced over each sample's own elements."""
    nll = _F["_nll_loss"]
    if logp.dim() == 2:
        loss = nll(logp, target, weight, 0, ignore)
        if reduction == 1:
            loss = loss / (target != ignore).to(loss.dtype)
        return make(loss, 0, level)
    b, n, c = logp.shape
    loss = nll(logp.reshape(b * n, c), target.reshape(b * n), weight, 0, ignore).reshape(b, n)
    if reduction == 0:
        return make(loss, 0, level)
    total = loss.sum(1)
    if reduction == 1:
        total = total / (target != ignore).sum(1).to(loss.dtype)
    return make(total, 0, level)


@_rule("_nll_loss")
def nll_loss(func, args, kwargs, level):
    inp, target, weight, reduction, ignore = args
    if kwargs or is_batched(weight, level) or len(inp.shape) not in (1, 2):
        return NotImplemented
    if weight is not None and reduction == 1:
        return NotImplemented
    return _nll(_physical_or_expanded(inp, level), _physical_or_expanded(target, level), weight,
                reduction, ignore, level)


_CE_PARAMS = ("input", "target", "weight", "size_average", "ignore_index", "reduce",
              "reduction", "label_smoothing")
_CE_DEFAULTS = (None, None, None, None, -100, None, "mean", 0.0)
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


@_rule("cross_entropy")
def cross_entropy(func, args, kwargs, level):
    """Class-index targets without weights or smoothing: one log_softmax and
    one nll over the batch; everything else runs the composite's body."""
    if len(args) > len(_CE_PARAMS) or set(kwargs) - set(_CE_PARAMS):
        return NotImplemented
    bound = dict(zip(_CE_PARAMS, _CE_DEFAULTS))
    bound.update(zip(_CE_PARAMS, args))
    bound.update(kwargs)
    inp, target = bound["input"], bound["target"]
    if (bound["weight"] is not None or bound["size_average"] is not None
            or bound["reduce"] is not None or bound["label_smoothing"] != 0.0
            or bound["reduction"] not in _REDUCTIONS or not isinstance(inp, Tensor)
            or not isinstance(target, Tensor) or target.dtype != _C.int64
            or len(inp.shape) not in (1, 2) or len(target.shape) != len(inp.shape) - 1
            or tuple(target.shape) != tuple(inp.shape[:-1])):
        return NotImplemented
    logp = _physical_or_expanded(inp, level).log_softmax(-1)
    return _nll(logp, _physical_or_expanded(target, level), None,
                _REDUCTIONS[bound["reduction"]], bound["ignore_index"], level)


# ---- randomness on batched tensors ----

@_rule("rand_like", "randn_like", "randint_like", "bernoulli", "normal", "uniform_", "normal_",
       "bernoulli_", "random_", "exponential_", "multinomial")
def random(func, args, kwargs, level):
    """Dropout has no rule: its body draws with bernoulli, which lands here."""
    if level.randomness == "error":
        random_error()
    if not is_batched(args[0], level) or _others_batched(args, kwargs, level) \
            or func.__name__ in ("normal", "multinomial"):
        return NotImplemented
    x = args[0]
    p = front(x, level)
    if level.randomness == "different":
        out = func(p, *args[1:], **kwargs)
        return x if is_inplace(func.__name__) else make(out, 0, level)
    if func.__name__ == "bernoulli":
        with level.mode:
            return (_F["rand"](tuple(x.shape), dtype=x.dtype) < x).to(x.dtype)
    sample = func(_F["empty"](tuple(x.shape), dtype=x.dtype), *args[1:], **kwargs)
    if is_inplace(func.__name__):
        p.copy_(sample)
        return x
    return sample
