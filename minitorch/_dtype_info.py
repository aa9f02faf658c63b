"""finfo and iinfo: the numeric limits of minitorch's dtypes, with torch's
attributes (bits, eps, max, min, tiny, smallest_normal, resolution, dtype)."""
import math
from typing import Any, Optional

import numpy as np

from . import _C

__all__ = ["finfo", "iinfo"]

# bfloat16 has float32's exponent with 8 significant bits; NumPy has no such type.
_BF16 = {"bits": 16, "eps": 2.0 ** -7, "max": float(np.float32(3.3895313892515355e38)),
         "tiny": float(np.finfo(np.float32).tiny), "mantissa": 7}


def _name(dtype: Any) -> str:
    return str(dtype).rpartition(".")[2]


class finfo:
    """The limits of a floating point dtype (the default dtype when omitted)."""

    __module__ = "minitorch"

    def __init__(self, type: Optional[Any] = None) -> None:
        dtype = _C.get_default_dtype() if type is None else _check(finfo, type)
        # a complex dtype's limits are its parts'
        dtype = dtype.to_real()
        if not dtype.is_floating_point:
            raise TypeError("minitorch.finfo() requires a floating point input type. "
                            "Use minitorch.iinfo to handle 'minitorch.finfo'")
        if dtype == _C.bfloat16:
            bits, eps, top, tiny, mantissa = (_BF16["bits"], _BF16["eps"], _BF16["max"],
                                              _BF16["tiny"], _BF16["mantissa"])
        else:
            info = np.finfo(np.dtype(_name(dtype)))
            bits, eps, top, tiny, mantissa = (info.bits, float(info.eps), float(info.max),
                                              float(info.tiny), int(info.nmant))
        self.bits = bits
        self.eps = eps
        self.max = top
        self.min = -top
        self.tiny = self.smallest_normal = tiny
        self.resolution = 10.0 ** -math.floor(mantissa * math.log10(2))
        self.dtype = _name(dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype."""

    __module__ = "minitorch"

    def __init__(self, type: Any) -> None:
        dtype = _check(iinfo, type)
        if dtype == _C.bool:
            raise TypeError("minitorch.bool is not supported by minitorch.iinfo")
        if dtype.is_floating_point or dtype.is_complex:
            raise TypeError("minitorch.iinfo() requires an integer input type. "
                            "Use minitorch.finfo to handle 'minitorch.iinfo'")
        info = np.iinfo(np.dtype(_name(dtype)))
        self.bits = info.bits
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = _name(dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


def _check(cls: type, type_: Any) -> Any:
    """type_ itself when it is a dtype; torch's TypeError otherwise."""
    if not isinstance(type_, _C.dtype):
        raise TypeError(f"{cls.__name__}(): argument 'type' (position 1) must be "
                        f"minitorch.dtype, not {type(type_).__name__}")
    return type_
