"""torch's legacy tensor types (LongTensor, FloatTensor, ...) and Tensor.new.

Each type is a constructor with torch's legacy rules (sizes give an
uninitialised tensor, a sequence gives its data) and an isinstance check by
dtype; none is a Tensor subclass, as in torch."""
import builtins
from typing import Any

import numpy as np

from . import _C
from ._tensor import Tensor, device

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor",
           "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor"]

def _options(dtype: Any) -> str:
    return (f"TensorOptions(dtype={dtype._cpp_name}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _type_name(v: Any) -> str:
    t = type(v)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _signature_error(args: tuple, kwargs: dict) -> TypeError:
    got = ", ".join([_type_name(a) for a in args]
                    + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    return TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (*, torch.device device = None)\n"
        " * (torch.Storage storage)\n"
        " * (Tensor other)\n"
        " * (tuple of ints size, *, torch.device device = None)\n"
        " * (object data, *, torch.device device = None)\n")


def legacy_new(dtype: Any, args: tuple, kwargs: dict) -> Tensor:
    """A tensor of dtype by torch's legacy constructor rules: nothing (empty),
    sizes or a Size (uninitialised), a tensor of that dtype (shared), or data."""
    import minitorch
    if set(kwargs) - {"device"}:
        raise _signature_error(args, kwargs)
    if kwargs.get("device") is not None:
        minitorch.empty(0, device=device(kwargs["device"]))
    if not args:
        return minitorch.empty(0, dtype=dtype)
    if builtins.all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool)
                    for a in args) or (len(args) == 1 and isinstance(args[0], _C.Size)):
        sizes = args[0] if isinstance(args[0], _C.Size) else args
        return minitorch.empty(tuple(sizes), dtype=dtype)
    if len(args) != 1:
        raise _signature_error(args, kwargs)
    data = args[0]
    if isinstance(data, Tensor):
        if data.dtype != dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(data.dtype)})")
        return data.detach()
    if not isinstance(data, (list, tuple, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return minitorch.tensor(data, dtype=dtype)


class _LegacyTensorType(type):
    """The metaclass: calling the type constructs, isinstance checks the dtype."""

    dtype: Any

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'minitorch.{cls.__name__}'>"


def _legacy_type(name: str, dtype: Any) -> type:
    doc = (f"The legacy tensor type of {dtype}: constructs such tensors; isinstance checks "
           "the dtype.")
    return _LegacyTensorType(name, (), {"dtype": dtype, "__doc__": doc, "__module__": "minitorch"})


BoolTensor = _legacy_type("BoolTensor", _C.bool)
ByteTensor = _legacy_type("ByteTensor", _C.uint8)
CharTensor = _legacy_type("CharTensor", _C.int8)
ShortTensor = _legacy_type("ShortTensor", _C.int16)
IntTensor = _legacy_type("IntTensor", _C.int32)
LongTensor = _legacy_type("LongTensor", _C.int64)
HalfTensor = _legacy_type("HalfTensor", _C.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _C.bfloat16)
FloatTensor = _legacy_type("FloatTensor", _C.float32)
DoubleTensor = _legacy_type("DoubleTensor", _C.float64)

