"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode,
set_multithreading_enabled.

Each is a context manager and a decorator (minitorch._contextlib); the
modes are thread-local and kept in C (csrc/autograd/grad_mode.h), where the
recording runner reads them.
"""
import threading

from .. import _C
from .._contextlib import _DecoratorContextManager, _NoParamDecoratorContextManager

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "set_multithreading_enabled", "is_grad_enabled", "is_inference_mode_enabled",
           "is_multithreading_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class no_grad(_NoParamDecoratorContextManager):
    """Disables gradient recording inside the block: results of operations
    do not require grad, though factories given requires_grad=True still
    make leaves that do. Thread-local; also a decorator (with or without
    parentheses)."""

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Enables gradient recording inside the block (e.g. within no_grad).
    Thread-local; also a decorator (with or without parentheses)."""

    def __enter__(self) -> None:
        self.prev = _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets gradient recording on or off.

    The mode changes as soon as the object is made, so that
    ``torch.set_grad_enabled(False)`` works as a plain call; as a context
    manager the previous mode comes back on exit. Used as a decorator the
    mode is put back at once and each call of the function runs under it.
    """

    def __init__(self, mode: bool) -> None:
        self.mode = mode
        self.prev = _C._set_grad_enabled(mode)

    def __call__(self, orig_func):
        _C._set_grad_enabled(self.prev)
        return super().__call__(orig_func)

    def __enter__(self) -> None:
        _C._set_grad_enabled(self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _C._set_grad_enabled(self.prev)

    def __str__(self) -> str:
        cls = type(self)
        return f"{cls.__module__}.{cls.__qualname__}(mode={self.mode})"

    def __repr__(self) -> str:
        return str(self)

    def clone(self) -> "set_grad_enabled":
        """A new object with the same mode (made for each decorated call)."""
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Turns inference mode on (or, with mode=False, off) inside the block.

    Inside it nothing records, forward AD is off, and tensors made are
    inference tensors: outside inference mode they may not be written in
    place, saved for backward, or made to require grad. ``inference_mode(False)``
    turns grad mode and forward AD back on. Thread-local; also a decorator
    (``@inference_mode``, ``@inference_mode()``, ``@inference_mode(False)``).
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._prev = (_C._set_inference_mode(self.mode), _C._set_grad_enabled(not self.mode),
                      _C._is_fwd_grad_enabled())
        _C._set_fwd_grad_enabled(not self.mode)

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        inference, grad, forward = self._prev
        _C._set_fwd_grad_enabled(forward)
        _C._set_grad_enabled(grad)
        _C._set_inference_mode(inference)

    def clone(self) -> "inference_mode":
        """A new object with the same mode (made for each decorated call)."""
        return self.__class__(self.mode)


# Whether backward may run on worker threads. minitorch's engine always runs
# on the calling thread, so this is only the thread-local setting torch keeps.
_multithreading = threading.local()


def is_multithreading_enabled() -> bool:
    """Whether backward may run on worker threads (set_multithreading_enabled)."""
    return getattr(_multithreading, "enabled", True)


class set_multithreading_enabled(_DecoratorContextManager):
    """Sets whether backward may run on device worker threads (there are none
    here: backward always runs on the calling thread). Takes effect when
    made; as a context manager the previous setting comes back on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = is_multithreading_enabled()
        _multithreading.enabled = bool(mode)
        self.mode = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        _multithreading.enabled = self.prev

    def clone(self) -> "set_multithreading_enabled":
        """A new object with the same mode (made for each decorated call)."""
        return self.__class__(self.mode)
