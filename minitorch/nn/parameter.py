"""nn.Parameter: a Tensor that a Module registers as a parameter."""
from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    """A Tensor that requires grad by default and is registered by Modules.

    Parameters opt out of __torch_function__: operations on them give plain
    Tensors and never block dispatch to other operands."""

    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C._functions["empty"](0)
        # A parameter is a leaf, as in torch, even when made from a computed tensor.
        return Tensor._make_subclass(cls, data.detach(), requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (Parameter, (self.detach(), self.requires_grad))

    def __deepcopy__(self, memo):
        # as torch: the data is copied, .grad is not
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.detach().clone(), self.requires_grad)
        return memo[id(self)]
