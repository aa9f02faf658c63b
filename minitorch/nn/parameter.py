"""nn.Parameter and nn.Buffer: tensors a Module registers as a parameter or a buffer
when assigned as attributes."""
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


class _BufferMeta(type):
    # a Buffer is a plain tensor carrying the _is_buffer flag, so isinstance
    # checks the flag rather than the class
    def __instancecheck__(cls, instance) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer",
                                                                      False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a Module registers as a buffer when assigned as an attribute.

    ``Buffer(data, persistent=True)`` returns ``data`` detached (keeping its
    requires_grad) and marked, so ``module.name = Buffer(t)`` is
    ``module.register_buffer("name", t, persistent)``.
    """

    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C._functions["empty"](0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t
