"""Context managers that also decorate functions (torch.utils._contextlib here).

A decorated function runs each call under a fresh copy of the context manager
(made by a factory, since a grad-mode object remembers the mode it replaced).
A decorated generator function holds the mode only while its body runs: the
caller's mode is back at every ``yield``, and ``send``, ``throw`` and
``close`` reach the body under the mode. Anything else (a coroutine function
included) is called under the mode, which covers only making the coroutine,
exactly as in torch.
"""
import functools
import inspect
import warnings
from typing import Any, Callable, Optional, Type, TypeVar, overload

_F = TypeVar("_F", bound=Callable[..., Any])
_CM = TypeVar("_CM", bound="_NoParamDecoratorContextManager")

__all__ = ["context_decorator"]


def _wrap_generator(ctx_factory, func):
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException as thrown:  # noqa: BLE001 - the caller's, passed on
                    with ctx_factory():
                        response = gen.throw(thrown)
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value

    return generator_context


def context_decorator(ctx, func):
    """Wraps func so that each call runs inside a context manager.

    ctx is either a context manager that can be entered many times or a
    callable that makes one per call (it may not be both). Classes are
    refused: whether the constructor or every method was meant is unclear.
    """
    if callable(ctx) and hasattr(ctx, "__enter__"):
        raise AssertionError(
            f"Passed in {ctx} is both callable and also a valid context manager (has "
            "__enter__), making it ambiguous which interface to use.  If you intended to pass a "
            "context manager factory, rewrite your call as context_decorator(lambda: ctx()); if "
            "you intended to pass a context manager directly, rewrite your call as "
            "context_decorator(lambda: ctx)")
    ctx_factory = ctx if callable(ctx) else (lambda: ctx)
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or all "
            "methods should have the context manager applied; additionally, decorating a class "
            "at definition-site will prevent use of the identifier as a conventional type.  To "
            "specify which methods to decorate, decorate each of them individually.")
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(ctx_factory, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with ctx_factory():
            return func(*args, **kwargs)

    return decorate_context


class _DecoratorContextManager:
    """Base of the grad-mode objects: a context manager that also decorates.

    Subclasses taking constructor arguments override clone() so that each
    decorated call gets an equal, fresh object.
    """

    def __call__(self, orig_func: _F) -> _F:
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.", FutureWarning, stacklevel=2)

            def func(*args, **kwargs):
                return orig_func(*args, **kwargs)
        else:
            func = orig_func
        return context_decorator(self.clone, func)

    def __enter__(self):
        raise NotImplementedError

    def __exit__(self, exc_type, exc_value, traceback):
        raise NotImplementedError

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """A decorating context manager usable as ``@cm`` as well as ``@cm()``."""

    @overload
    def __new__(cls: Type[_CM], orig_func: None = None) -> _CM: ...

    @overload
    def __new__(cls: Type[_CM], orig_func: _F) -> _F: ...

    def __new__(cls: Type[_CM], orig_func: Optional[_F] = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)
