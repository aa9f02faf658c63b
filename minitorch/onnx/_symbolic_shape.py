"""The ONNX mapping of shape and indexing calls. Reshapes are written with
ONNX's 0 (copy the input's dim) for the leading dims that keep their size and
-1 for the first one that changes, so that a dynamic batch dim stays dynamic."""
import numpy as np

import minitorch

from ._symbolic import _axis, register

_INT64_MAX = np.iinfo(np.int64).max


def reshape_to(g, x, shape) -> str:
    """x reshaped to the traced result shape, dynamic where it can be."""
    target = list(shape)
    k = 0
    while k < min(len(target), x.dim()) and target[k] == x.shape[k]:
        target[k] = 0
        k += 1
    if k < len(target) and 0 not in shape:
        target[k] = -1
    return g.node("Reshape", [g.value(x), g.ints(target)])


@register("view", "reshape", "view_as", "reshape_as", "flatten", "unflatten")
def _reshape(g, r, x, *args, **kwargs):
    return reshape_to(g, x, r.shape)


@register("permute")
def _permute(g, r, x, *dims):
    if len(dims) == 1 and not isinstance(dims[0], int):
        dims = dims[0]
    return g.node("Transpose", [g.value(x)], perm=[_axis(d, x.dim()) for d in dims])


@register("transpose", "swapaxes", "swapdims")
def _transpose(g, r, x, dim0, dim1):
    perm = list(range(x.dim()))
    a, b = _axis(dim0, x.dim()), _axis(dim1, x.dim())
    perm[a], perm[b] = perm[b], perm[a]
    return g.node("Transpose", [g.value(x)], perm=perm)


@register("t")
def _t(g, r, x):
    return g.node("Transpose", [g.value(x)], perm=list(range(x.dim()))[::-1])


@register("squeeze")
def _squeeze(g, r, x, dim=None):
    if dim is None:
        dims = range(x.dim())
    else:
        dims = [dim] if isinstance(dim, int) else dim
    axes = [_axis(d, x.dim()) for d in dims if x.dim() and x.shape[d] == 1]
    if not axes:
        return g.node("Identity", [g.value(x)])
    return g.node("Squeeze", [g.value(x), g.ints(axes)])


@register("unsqueeze")
def _unsqueeze(g, r, x, dim):
    return g.node("Unsqueeze", [g.value(x), g.ints([_axis(dim, x.dim() + 1)])])


@register("cat", "concat", "concatenate", method=False)
def _cat(g, r, tensors, dim=0, *, out=None):
    return g.node("Concat", [g.value(t) for t in tensors], axis=_axis(dim, r.dim()))


@register("stack", method=False)
def _stack(g, r, tensors, dim=0, *, out=None):
    axis = _axis(dim, r.dim())
    parts = [g.node("Unsqueeze", [g.value(t), g.ints([axis])]) for t in tensors]
    return g.node("Concat", parts, axis=axis)


def _split_as(g, r, x, dim, sizes=None):
    axis = _axis(dim, x.dim())
    sizes = [t.shape[axis] for t in r] if sizes is None else sizes
    outs = g.node("Split", [g.value(x), g.ints(sizes)], n_out=len(sizes), axis=axis)
    return [outs] if len(sizes) == 1 else outs


@register("split", "split_with_sizes")
def _split(g, r, x, split_size_or_sections, dim=0):
    return _split_as(g, r, x, dim)


@register("chunk")
def _chunk(g, r, x, chunks, dim=0):
    return _split_as(g, r, x, dim)


@register("unbind")
def _unbind(g, r, x, dim=0):
    parts = _split_as(g, r, x, dim, [1] * len(r))
    axis = g.ints([_axis(dim, x.dim())])
    return [g.node("Squeeze", [p, axis]) for p in parts]


@register("select")
def _select(g, r, x, dim, index):
    return g.node("Gather", [g.value(x), g.scalar(index, np.int64)], axis=_axis(dim, x.dim()))


@register("narrow")
def _narrow(g, r, x, dim, start, length):
    return g.node("Slice", [g.value(x), g.ints([start]), g.ints([start + length]),
                            g.ints([_axis(dim, x.dim())])])


@register("__getitem__", fn=False)
def _getitem(g, r, x, index):
    index = index if isinstance(index, tuple) else (index,)
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis)
    cur, dim = g.value(x), 0
    for i in index:
        if i is Ellipsis:
            dim += x.dim() - consumed
        elif i is None:
            cur = g.node("Unsqueeze", [cur, g.ints([dim])])
            dim += 1
        elif isinstance(i, slice):
            step = 1 if i.step is None else i.step
            start = 0 if i.start is None else i.start
            stop = _INT64_MAX if i.stop is None else i.stop
            if (start, stop, step) != (0, _INT64_MAX, 1):
                cur = g.node("Slice", [cur, g.ints([start]), g.ints([stop]), g.ints([dim]),
                                       g.ints([step])])
            dim += 1
        elif isinstance(i, int):
            cur = g.node("Gather", [cur, g.scalar(i, np.int64)], axis=dim)
        elif isinstance(i, minitorch.Tensor) and not i.dtype.is_floating_point and \
                i.dtype != minitorch.bool and len([j for j in index
                                                   if isinstance(j, minitorch.Tensor)]) == 1:
            cur = g.node("Gather", [cur, g.value(i)], axis=dim)
            dim += i.dim()
        else:
            raise RuntimeError("minitorch.onnx.export: no ONNX mapping for indexing with "
                               "%s" % type(i).__name__)
    return cur if cur != g.value(x) else g.node("Identity", [cur])


@register("expand", "expand_as", "broadcast_to")
def _expand(g, r, x, *args, **kwargs):
    shape = list(r.shape)
    off = len(shape) - x.dim()
    target = [1 if i >= off and x.shape[i - off] == s else s for i, s in enumerate(shape)]
    return g.node("Expand", [g.value(x), g.ints(target)])


@register("repeat", fn=False)
def _repeat(g, r, x, *sizes):
    if len(sizes) == 1 and not isinstance(sizes[0], int):
        sizes = sizes[0]
    cur = g.value(x)
    if len(sizes) > x.dim():
        shape = [1] * (len(sizes) - x.dim()) + list(x.shape)
        cur = g.node("Reshape", [cur, g.ints(shape)])
    return g.node("Tile", [cur, g.ints(sizes)])


@register("index_select")
def _index_select(g, r, x, dim, index, *, out=None):
    return g.node("Gather", [g.value(x), g.value(index)], axis=_axis(dim, x.dim()))
