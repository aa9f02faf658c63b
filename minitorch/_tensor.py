"""minitorch.Tensor: the Python class over the C TensorBase.

Everything hot lives in C (csrc/); this class adds the few pieces that are
naturally Python: printing, iteration and the NumPy protocol hooks.
"""
from . import _C, _tensor_str

__all__ = ["Tensor"]


class Tensor(_C.TensorBase):
    __module__ = "minitorch"
    # ndarray + Tensor defers to Tensor.__radd__ instead of making an array.
    __array_priority__ = 1000

    def __repr__(self, *, tensor_contents=None):
        name = self.dtype.__repr__()[len("minitorch."):]
        values = (self.float() if name == "bfloat16" else self).detach().numpy()
        suffixes = []
        if self.grad_fn is not None:
            suffixes.append(("grad_fn", "<%s>" % type(self.grad_fn).__name__))
        elif self.requires_grad:
            suffixes.append(("requires_grad", "True"))
        return _tensor_str.format_tensor(
            values, name, default_dtype_name=repr(_C.get_default_dtype())[len("minitorch."):],
            suffixes=suffixes)

    def __format__(self, spec):
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __array__(self, dtype=None, copy=None):
        arr = self.detach().numpy() if self.requires_grad else self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def __contains__(self, element):
        return bool((self == element).any().item())

    def __dir__(self):
        return sorted(set(super().__dir__()))


_C._set_tensor_class(Tensor)
