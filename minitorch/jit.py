"""minitorch.jit: TorchScript's entry points, which return their input
unchanged (with a one-time note): minitorch has no compiler."""
from typing import Any, Callable

from ._compile_stubs import note_once

__all__ = ["script", "trace", "ignore", "unused"]


def script(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """Returns obj (function or module) unchanged; usable as a decorator."""
    note_once("minitorch.jit.script")
    return obj


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """Returns func (function or module) unchanged, without running it."""
    note_once("minitorch.jit.trace")
    return func


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """Marks a function for the compiler to leave alone: returns it unchanged."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Callable) -> Callable:
    """Marks a method for the compiler to skip: returns it unchanged."""
    return fn
