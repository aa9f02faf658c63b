"""The legacy ``autograd.Variable``: tensors and Variables are one type.

``Variable(t, requires_grad)`` returns a tensor sharing ``t``'s memory with no
history, as torch's; ``isinstance(x, Variable)`` holds for every tensor.
"""
import warnings


def _tensor_type():
    from .._tensor import Tensor
    return Tensor


class VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, _tensor_type())


class Variable(metaclass=VariableMeta):
    """Legacy wrapper: use tensors directly."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        Tensor = _tensor_type()
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "torch.no_grad():` instead.", stacklevel=2)
        if data is None:
            from .. import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (data.dtype.is_floating_point or data.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
