"""torch.utils._python_dispatch: dispatch modes.

A TorchDispatchMode entered with ``with`` sees every op-table row the
runner runs below autograd (the forward's rows autograd records, and the
rows the backward's formulas run), not the rows an impl composes inside
its own kernel: its ``__torch_dispatch__(func, types, args, kwargs)`` gets
``func``, the row's OpOverload (``minitorch.ops.aten.<name>.<overload>``),
and the call's arguments, and returns the result in place of the row's.
Modes stack per thread; while one's handler runs it is off the stack, so
the ops it calls (``func(*args)``) reach the modes under it, then the row.
The runner calls back only while some thread has a mode on or a wrapper
subclass instance lives (``_C._set_dispatch_handler``); otherwise a row
call pays one flag test.

A custom op (``minitorch.library``) is seen as its ``.default`` overload:
its kernel runs through ``_dispatch_custom``, below the op's autograd.

Tensor subclasses made by ``Tensor._make_wrapper_subclass`` hold no data
of their own (their memory is zeros, never read by a kernel): once the
modes have had a row call, a call with such an operand goes to its class's
``__torch_dispatch__``, which answers it (usually by running the op on the
tensors it wraps); one that answers NotImplemented gets torch's TypeError,
so a kernel never runs on a wrapper.
"""
import contextlib
import functools
import threading
import weakref

from .. import _C

__all__ = ["TorchDispatchMode", "_get_current_dispatch_mode", "_get_current_dispatch_mode_stack",
           "_push_mode", "_pop_mode", "_pop_mode_temporarily", "_disable_current_modes",
           "_len_torch_dispatch_stack", "is_in_torch_dispatch_mode"]

_local = threading.local()
_lock = threading.Lock()
_threads_with_modes = 0
_live_wrappers = 0  # wrapper subclass instances alive (any thread)


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _dispatch(row, args, kwargs):
    """The runner's handler: hands the call to this thread's top mode, or to
    the class of a wrapper subclass operand."""
    stack = _stack()
    if not stack and not _live_wrappers:
        return NotImplemented
    from .._aten import is_reflected, overload_of_row
    if not stack:
        wrappers = () if row in _metadata_rows() else _wrapper_types(args, kwargs)
        if not wrappers:
            return NotImplemented
    func = overload_of_row(row)
    if is_reflected(row):
        args = (args[1], args[0]) + args[2:]
    if not stack:
        return _subclass_dispatch(func, wrappers, args, kwargs)
    return _call_mode(stack, func, args, kwargs)


def _call_mode(stack, func, args, kwargs):
    """The top mode's __torch_dispatch__, with the mode off the stack."""
    mode = stack.pop()
    _local.handlers = getattr(_local, "handlers", 0) + 1
    try:
        return mode.__torch_dispatch__(func, (), args, kwargs)
    finally:
        _local.handlers -= 1
        stack.append(mode)


def _in_handler():
    """Whether a mode's or a subclass's __torch_dispatch__ runs on this
    thread: an op overload it calls runs below autograd."""
    return getattr(_local, "handlers", 0) > 0


# what a wrapper answers from its own geometry and dtype, as torch's wrappers do
_METADATA = frozenset(("dim", "ndimension", "size", "stride", "numel", "storage_offset",
                       "is_contiguous", "element_size", "is_complex", "is_floating_point",
                       "is_conj", "is_neg", "is_inference", "type"))


@functools.lru_cache(maxsize=1)
def _metadata_rows():
    return frozenset(i for i, r in enumerate(_C._op_rows()) if r[1] in _METADATA)


def _dispatch_custom(func, kernel, args, kwargs):
    """A custom op's call below its autograd: to this thread's top mode (as
    ``func``), else to its wrapper subclass operands' class, else to the
    op's kernel."""
    stack = _stack()
    if stack:
        return _call_mode(stack, func, args, kwargs)
    wrappers = _wrapper_types(args, kwargs) if _live_wrappers else ()
    if wrappers:
        return _subclass_dispatch(func, wrappers, args, kwargs)
    return kernel(*args, **kwargs)


def _wrapper_types(args, kwargs):
    """The wrapper subclasses among the call's operands, in order, once each."""
    from ._pytree import tree_leaves
    found = []
    for leaf in tree_leaves((args, kwargs)):
        cls = type(leaf)
        if getattr(leaf, "_is_wrapper_subclass", False) and cls not in found:
            found.append(cls)
    return found


def _subclass_dispatch(func, types, args, kwargs):
    """torch's order: each wrapper class's __torch_dispatch__ (a subclass
    before its base) until one answers."""
    ordered = [c for c in types if not any(o is not c and issubclass(o, c) for o in types)]
    ordered += [c for c in types if c not in ordered]
    for cls in ordered:
        _local.handlers = getattr(_local, "handlers", 0) + 1
        try:
            out = cls.__torch_dispatch__(func, tuple(types), args, kwargs)
        finally:
            _local.handlers -= 1
        if out is not NotImplemented:
            return out
    names = "".join(f"\n  - tensor subclass {c}" for c in ordered)
    raise TypeError(f"Multiple dispatch failed for 'minitorch._ops.{func}'; all "
                    f"__torch_dispatch__ handlers returned NotImplemented:\n{names}\n\nFor more "
                    f"information, try re-running with TORCH_LOGS=not_implemented")


def _handler_needed():
    return _threads_with_modes > 0 or _live_wrappers > 0


def _wrapper_made(obj):
    """Counts a wrapper subclass instance while it lives: the runner calls
    back while any does."""
    global _live_wrappers
    with _lock:
        _live_wrappers += 1
        if _live_wrappers == 1 and _threads_with_modes == 0:
            _C._set_dispatch_handler(_dispatch)
    weakref.finalize(obj, _wrapper_freed)


def _wrapper_freed():
    global _live_wrappers
    with _lock:
        _live_wrappers -= 1
        if not _handler_needed():
            _C._set_dispatch_handler(None)


def _push_mode(mode):
    global _threads_with_modes
    stack = _stack()
    if not stack:
        with _lock:
            _threads_with_modes += 1
            if _threads_with_modes == 1 and not _live_wrappers:
                _C._set_dispatch_handler(_dispatch)
    stack.append(mode)


def _pop_mode(k=None):
    global _threads_with_modes
    stack = _stack()
    if not stack:
        raise RuntimeError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    if not stack:
        with _lock:
            _threads_with_modes -= 1
            if not _handler_needed():
                _C._set_dispatch_handler(None)
    return mode


class TorchDispatchMode:
    """Intercepts every op below autograd while active (``with Mode():``):
    override ``__torch_dispatch__(func, types, args=(), kwargs=None)``."""

    def __init__(self, _dispatch_key=None):
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError()

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls):
        return False


def _get_current_dispatch_mode():
    stack = _stack()
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack():
    return list(_stack())


def _len_torch_dispatch_stack():
    return len(_stack())


def is_in_torch_dispatch_mode(include_infra_modes=True):
    return bool(_stack())


@contextlib.contextmanager
def _pop_mode_temporarily(k=None):
    mode = _pop_mode(k)
    try:
        yield mode
    finally:
        _push_mode(mode)


@contextlib.contextmanager
def _disable_current_modes():
    popped = []
    while _stack():
        popped.append(_pop_mode())
    try:
        yield popped
    finally:
        for mode in reversed(popped):
            _push_mode(mode)
