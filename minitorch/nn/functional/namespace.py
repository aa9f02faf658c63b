"""The namespace users call nn.functional's Python functions from."""
from typing import Any, Dict

NAME = "minitorch.nn.functional"


def publish(module_globals: Dict[str, Any]) -> None:
    """Gives the functions a module of this package lists in __all__ the
    __module__ minitorch.nn.functional, as torch's report torch.nn.functional
    and as the op table's rows do: pickle looks a function up by reference
    there, and the docs and stubs name it there, not by the file it lives in."""
    for name in module_globals["__all__"]:
        module_globals[name].__module__ = NAME
