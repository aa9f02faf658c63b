"""Tensor memory as MPI buffers, without pickling and, where possible, without copies.

A contiguous tensor is handed to MPI as a NumPy view of its own storage. A
non-contiguous one goes through a contiguous copy, written back into the
caller's tensor (with its strides) when the operation completes. Reductions of
float16 and bfloat16 run in float32, as torch's backends do, and round once on
the way back; everything else moves as raw bytes or in its own type.
"""
from .. import _C

_NARROW_FLOATS = (_C.float16, _C.bfloat16)
_empty = _C._functions["empty"]


class Staged:
    """A contiguous tensor MPI reads or writes in place of `tensor`."""

    def __init__(self, tensor, widen: bool = False, copy_in: bool = True):
        self.target = tensor.detach()
        if widen and self.target.dtype in _NARROW_FLOATS:
            self.tensor = (self.target.to(_C.float32).contiguous() if copy_in
                           else _empty(tuple(self.target.shape), dtype=_C.float32))
        elif not self.target.is_contiguous():
            self.tensor = (self.target.contiguous() if copy_in
                           else _empty(tuple(self.target.shape), dtype=self.target.dtype))
        else:
            self.tensor = self.target
        self.copied = self.tensor is not self.target

    def typed(self):
        """A flat NumPy view in the element type (bfloat16 is never reduced here)."""
        return self.tensor.numpy().reshape(-1)

    def raw(self):
        return raw(self.tensor)

    def write_back(self) -> None:
        if self.copied:
            self.target.copy_(self.tensor)


def raw(tensor):
    """A contiguous tensor's bytes as a flat uint8 NumPy view."""
    if tensor.dtype == _C.bfloat16:
        tensor = tensor.view(_C.int16)
    import numpy as np
    return tensor.numpy().reshape(-1).view(np.uint8)
