"""torch.compile: minitorch has no compiler, so compiling returns the function
or module unchanged, with a one-time note."""
import warnings
from typing import Any, Callable, Optional

__all__ = ["compile"]

_noted = set()


def note_once(what: str) -> None:
    """Warns once per process and name that `what` returns its input unchanged."""
    if what not in _noted:
        _noted.add(what)
        warnings.warn(f"minitorch has no compiler: {what} returns the model unchanged",
                      UserWarning, stacklevel=3)


def compile(model: Optional[Callable] = None, *, fullgraph: bool = False, dynamic: Any = None,
            backend: Any = "inductor", mode: Any = None, options: Any = None,
            disable: bool = False) -> Any:
    """Returns model unchanged (with a one-time note); without model, a
    decorator that does so."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    note_once("minitorch.compile")
    return model
