"""torch.utils._python_dispatch: dispatch modes.

A TorchDispatchMode entered with ``with`` sees every op-table row the
runner runs below autograd (the forward's rows autograd records, and the
rows the backward's formulas run), not the rows an impl composes inside
its own kernel: its ``__torch_dispatch__(func, types, args, kwargs)`` gets
``func``, the row's OpOverload (``minitorch.ops.aten.<name>.<overload>``),
and the call's arguments, and returns the result in place of the row's.
Modes stack per thread; while one's handler runs it is off the stack, so
the ops it calls (``func(*args)``) reach the modes under it, then the row.
The runner calls back only while some thread has a mode on
(``_C._set_dispatch_handler``); otherwise a row call pays one flag test.
"""
import contextlib
import threading

from .. import _C

__all__ = ["TorchDispatchMode", "_get_current_dispatch_mode", "_get_current_dispatch_mode_stack",
           "_push_mode", "_pop_mode", "_pop_mode_temporarily", "_disable_current_modes",
           "_len_torch_dispatch_stack", "is_in_torch_dispatch_mode"]

_local = threading.local()
_lock = threading.Lock()
_threads_with_modes = 0


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def _dispatch(row, args, kwargs):
    """The runner's handler: hands the call to this thread's top mode."""
    stack = _stack()
    if not stack:
        return NotImplemented
    from .._aten import is_reflected, overload_of_row
    func = overload_of_row(row)
    if is_reflected(row):
        args = (args[1], args[0]) + args[2:]
    mode = stack.pop()
    try:
        return mode.__torch_dispatch__(func, (), args, kwargs)
    finally:
        stack.append(mode)


def _push_mode(mode):
    global _threads_with_modes
    stack = _stack()
    if not stack:
        with _lock:
            _threads_with_modes += 1
            if _threads_with_modes == 1:
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
            if _threads_with_modes == 0:
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
