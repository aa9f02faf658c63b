"""minitorch.testing.make_tensor: random test tensors, as torch.testing's.

Values are drawn uniformly from [low, high): integers with randint, floats
with uniform_. The defaults and the clamping of low and high to what the dtype
holds follow torch's table, so a test written for torch draws from the same
ranges here.
"""
import collections.abc
import math
import warnings

from . import _C
from ._dtype_info import finfo, iinfo

_INTEGRAL = (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64)
_BOOL_OR_INTEGRAL = (_C.bool,) + _INTEGRAL
_FLOATING = (_C.float16, _C.bfloat16, _C.float32, _C.float64)
_COMPLEX = {_C.complex64: _C.float32, _C.complex128: _C.float64}


def _low_high(low, high, dtype, lowest, highest, default_low, default_high):
    """low and high checked, clamped into [lowest, highest] and (for integers)
    rounded up."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and (dtype in _FLOATING or dtype in _COMPLEX):
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex "
                      "types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low = min(max(low, lowest), highest)
    high = min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t, low, high):
    # a range wider than the dtype's largest value would overflow uniform_'s
    # arithmetic: draw half of it and double
    if high - low >= finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """A tensor of the given shape, dtype and device holding values drawn
    uniformly from [low, high).

    Defaults: bool [0, 2), uint8 [0, 10), signed integers [-9, 10), floats
    [-9, 9); low and high outside the dtype's finite range are clamped to it.
    noncontiguous (ignored below two elements) gives a strided view;
    memory_format a clone laid out so; exclude_zero replaces zeros by 1
    (integers, bool) or the dtype's smallest normal number (floats).
    """
    import minitorch as torch

    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, "
                         f"but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is _C.bool:
        low, high = _low_high(low, high, dtype, 0, 2, 0, 2)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        # randint's high is exclusive: int64's cannot go past its max
        highest = info.max + (1 if dtype is not _C.int64 else 0)
        low, high = _low_high(low, high, dtype, info.min, highest, -9, 10)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        info = finfo(dtype)
        low, high = _low_high(low, high, dtype, info.min, info.max, -9, 9)
        result = _uniform_(torch.empty(shape, device=device, dtype=dtype), low, high)
    elif dtype in _COMPLEX:
        # real and imaginary parts each drawn from [low, high), as torch's
        info = finfo(_COMPLEX[dtype])
        low, high = _low_high(low, high, dtype, info.min, info.max, -9, 9)
        result = torch.empty(shape, device=device, dtype=dtype)
        _uniform_(torch.view_as_real(result), low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad = requires_grad
    return result
