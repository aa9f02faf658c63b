"""BatchedTensor and vmap levels: the representation every vmap piece shares.

A BatchedTensor stands for a tensor of its *logical* shape inside one vmap
level: its ``_value`` holds the samples along dimension ``_bdim`` (a plain
tensor, or a BatchedTensor of an outer level, so nested vmaps are wrappers of
wrappers, innermost level outermost). Its own data is a zero-stride view of
one zero of the logical shape, so shape, dtype and dim read as the logical
ones without copying; the vmap mode (_dispatch.py) routes every operation to
the values, and anything that would read the dummy data refuses.

This module holds the level stack and the conversions between a logical
tensor and its physical form (all active levels' batch dims in front), which
the transforms that differentiate inside vmap (grad, vjp, jvp) use.
"""
from .. import _C
from .._tensor import Tensor

__all__ = ["BatchedTensor", "Level", "levels", "push_level", "pop_level", "make", "unwrap",
           "to_physical", "from_physical"]

_ZERO = {}
_STACK = []
_COUNTER = [0]


class Level:
    """One active vmap: its id (never reused), batch size and randomness."""

    __slots__ = ("id", "size", "randomness", "mode")

    def __init__(self, size, randomness):
        _COUNTER[0] += 1
        self.id = _COUNTER[0]
        self.size = size
        self.randomness = randomness
        self.mode = None


def levels():
    """The active vmap levels, outermost first."""
    return _STACK


def push_level(level):
    _STACK.append(level)


def pop_level(level):
    _STACK.remove(level)


def _data_dependent():
    raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some "
                       "data-dependent control flow. We don't support that yet, please file an "
                       "issue at https://github.com/pytorch/pytorch/issues .")


class BatchedTensor(Tensor):
    """A tensor inside vmap: see the module docstring."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # Reached only when no vmap mode is active: the tensor left its vmap.
        raise RuntimeError("vmap: a BatchedTensor was used outside of the vmap call that "
                           f"created it (in {getattr(func, '__name__', func)}); return it from "
                           "the vmapped function instead of storing it")

    def item(self):
        raise RuntimeError("vmap: It looks like you're calling .item() on a Tensor. We don't "
                           "support vmap over calling .item() on a Tensor, please try to rewrite "
                           "what you're doing with other operations. If error is occurring "
                           "somewhere inside PyTorch internals, please file a bug report.")

    def __bool__(self):
        _data_dependent()

    def __float__(self):
        _data_dependent()

    def __int__(self):
        _data_dependent()

    def __index__(self):
        _data_dependent()

    def __complex__(self):
        _data_dependent()

    def __array__(self, *args, **kwargs):
        _data_dependent()

    @property
    def data(self):
        raise RuntimeError("accessing `data` under vmap transform is not allowed")

    @data.setter
    def data(self, value):
        raise RuntimeError("accessing `data` under vmap transform is not allowed")


def make(value, bdim, level):
    """Wraps value (batched along bdim) at level."""
    dtype = value.dtype
    zero = _ZERO.get(dtype)
    if zero is None:
        zero = _ZERO[dtype] = _C._functions["zeros"]((), dtype=dtype)
    shape = tuple(value.shape)
    with _C.DisableTorchFunction():  # plain plumbing: no mode needs to see it
        out = zero.expand(shape[:bdim] + shape[bdim + 1:]).as_subclass(BatchedTensor)
    out._value = value
    out._bdim = bdim
    out._level = level
    return out


def unwrap(t, level):
    """(value, bdim) of t at level; (t, None) when t is not batched there."""
    if type(t) is BatchedTensor and t._level is level:
        return t._value, t._bdim
    return t, None


def to_physical(t, active):
    """A plain tensor with one leading dim per level of active (outermost
    first) and t's logical shape after them; t is expanded (no copy) at the
    levels where it is not batched."""
    for level in reversed(active):
        value, bdim = unwrap(t, level)
        if bdim is None and type(t) is not BatchedTensor:
            with _C.DisableTorchFunction():
                t = t.unsqueeze(0).expand((level.size,) + tuple(t.shape))
        elif bdim is None:
            t = t.unsqueeze(0).expand((level.size,) + tuple(t.shape))
        else:
            t = value.movedim(bdim, 0) if bdim else value
    return t


def from_physical(p, active):
    """The inverse of to_physical: wraps p's leading dims as active's levels."""
    for level in active:
        p = make(p, 0, level)
    return p
