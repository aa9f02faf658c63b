"""minitorch.autograd.graph: hooks on what graph nodes save.

``saved_tensors_hooks(pack_hook, unpack_hook)``: inside the context, each
tensor a node saves for backward is passed to ``pack_hook`` and the node keeps
its result instead; backward gets the tensor back from ``unpack_hook``. The
hooks stack; the innermost applies. (The stack lives in the C binding.)
"""
from .. import _C

__all__ = ["saved_tensors_hooks"]


class saved_tensors_hooks:
    """Context manager installing a pack/unpack pair for saved tensors."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args) -> None:
        _C._pop_saved_tensors_hooks()
