"""nn.Parameter and nn.Buffer: tensors a Module registers as a parameter or a buffer
when assigned as attributes; their uninitialized forms, which lazy modules hold
until their first forward shows the shapes."""
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


class UninitializedTensorMixin:
    """A parameter or buffer whose shape a lazy module learns on its first
    forward: until materialize() gives it data and its final class, only its
    dtype and device may change; any other use raises."""

    # what Module.to/_apply and the lazy load hook call on it (those of torch's
    # list that minitorch's Tensor has)
    _allowed_methods = [
        getattr(Tensor, name) for name in (
            "__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float",
            "double", "char", "short", "int", "long", "cuda", "cpu", "to", "get_device")
        if hasattr(Tensor, name)]

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Gives the tensor uninitialized data of shape (with its own dtype and device
        unless given) and turns it into its cls_to_become."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = _C._functions["empty"](shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in cls._allowed_methods:
            return super().__torch_function__(func, types, args, kwargs or {})
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when "
            "you are using a `LazyModule` or explicitly manipulating "
            f"`minitorch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call "
            "`forward` with a dummy batch to initialize the parameters before calling "
            "minitorch functions")


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (see UninitializedTensorMixin);
    materialize() makes it a Parameter."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = _C._functions["empty"](0, device=device, dtype=dtype)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        return memo[id(self)]


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (see UninitializedTensorMixin);
    materialize() makes it a plain Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = _C._functions["empty"](0, device=device, dtype=dtype)
        ret = Tensor._make_subclass(cls, data, requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret


def is_lazy(param) -> bool:
    """Whether param is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)
