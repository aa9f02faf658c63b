"""torch functions that are another form of an op minitorch has: a
functional fill, rsub with its operands swapped, the unary plus, F.pad's
constant mode under its aten name, and the sum that undoes a broadcast.
Their gradients follow from the op each is a form of."""
from typing import Any, Sequence, Union

from . import _C
from ._tensor import Tensor
from .overrides import composite

__all__ = ["positive", "rsub", "fill", "constant_pad_nd"]

_f = _C._functions


@composite()
def positive(input: Tensor) -> Tensor:
    """Returns input itself (the unary plus); refused for bool tensors."""
    return input.__pos__()


@composite(method=False)
def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """Subtracts input, scaled by alpha, from other: other - alpha * input."""
    return _f["sub"](other, input, alpha=alpha)


# as torch's, not overridable (overrides lists it as ignored)
def fill(input: Tensor, value: Any) -> Tensor:
    """A tensor of input's shape, dtype and layout holding value everywhere."""
    return input.clone().fill_(value)


@composite(method=False)
def constant_pad_nd(input: Tensor, pad: Sequence[int], value: Any = 0) -> Tensor:
    """Pads the last len(pad) // 2 dimensions of input with value, the last
    dimension first (negative padding removes elements)."""
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        # torch's message runs the numbers into the words
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)}while the input has "
                           f"{input.dim()}dimensions.")
    pad_fn = _C._nn_functions["pad"]
    integral = not (input.is_floating_point() or input.is_complex() or input.dtype == _C.bool)
    # pad's value is a float, and refuses a negative one for an unsigned dtype
    int_beyond_float = (isinstance(value, int) and not isinstance(value, bool) and integral
                        and (abs(value) > 2 ** 53 or (value < 0 and not input.dtype.is_signed)))
    if (isinstance(value, complex) and input.is_complex()) or int_beyond_float:
        # a complex value, or an int torch converts to the integer dtype
        # exactly (checked, a negative one wrapping into an unsigned dtype),
        # reaches the border by where
        border = value if input.is_complex() else _f["full"]((), value, dtype=input.dtype)
        inside = pad_fn(_f["ones"](input.shape, dtype=_C.bool), pad, "constant", 0.0)
        return _f["where"](inside, pad_fn(input, pad, "constant", 0.0), border)
    if isinstance(value, complex):
        if input.dtype == _C.bool:
            value = value != 0
        else:
            # torch's checked conversion refuses an imaginary part, naming the
            # C type as the C check (and its one table of those names) does
            _f["full"]((), value, dtype=input.dtype)
            value = value.real
    # pad's value is a float, which stands for a bool as it does for an int
    return pad_fn(input, pad, "constant", float(value) if isinstance(value, bool) else value)


@composite(function=False)
def sum_to_size(self, *size: Union[int, Sequence[int]]) -> Tensor:
    """self summed to size, which self must be expandable from: the leading
    dimensions it lacks and its dimensions that size has as 1 are summed."""
    if not size:
        raise TypeError('sum_to_size() missing 1 required positional arguments: "size"')
    if len(size) == 1 and not isinstance(size[0], int):
        size = tuple(size[0])
    shape = list(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{shape}}}.")
    if not size:
        return self.sum()
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not dims:
        return self
    out = self.sum(dims, keepdim=True)
    return out.reshape(list(size)) if lead else out
