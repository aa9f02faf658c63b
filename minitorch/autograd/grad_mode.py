"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

Each is a context manager and a decorator; the state is thread-local (kept in C).
"""
import functools
import inspect

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """Lets a context manager also decorate functions and generators."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen(*args, **kwargs):
                it = func(*args, **kwargs)
                with self.clone():
                    value = next(it)
                while True:
                    try:
                        with self.clone():
                            sent = yield value
                        with self.clone():
                            value = it.send(sent)
                    except StopIteration as e:
                        return e.value
            return gen

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        """Returns a fresh context manager with the same settings (used when it decorates a
        function).
        """
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disables gradient recording inside the block."""

    def __enter__(self):
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enables gradient recording inside the block (e.g. within no_grad)."""

    def __enter__(self):
        self.prev = _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets gradient recording on or off; takes effect immediately, and the
    previous state comes back when used as a context manager."""

    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self.prev = _C._set_grad_enabled(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        """Returns a fresh context manager with the same mode (used when it decorates a function).
        """
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like no_grad, and marks the block as inference-only."""

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # used as @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev_grad = _C._set_grad_enabled(not self.mode and _C.is_grad_enabled())
        self.prev = _C._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _C._set_inference_mode(self.prev)
        _C._set_grad_enabled(self.prev_grad)

    def clone(self):
        """Returns a fresh context manager with the same mode (used when it decorates a function).
        """
        return self.__class__(self.mode)
