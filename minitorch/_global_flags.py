"""Process-wide switches scripts set before training: deterministic
algorithms, the default device, float32 matmul precision, and the memory
format names. minitorch's kernels are deterministic and its matmul always
computes in full float32, so the switches are recorded and reported back."""
import builtins
import warnings
from typing import Any, Optional

from ._tensor import device

__all__ = ["layout", "strided", "sparse_coo", "memory_format", "contiguous_format", "channels_last",
           "channels_last_3d", "preserve_format", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_default_device", "get_default_device", "set_float32_matmul_precision",
           "get_float32_matmul_precision"]


class layout:
    """How a tensor's elements are stored: torch's default, ``strided`` (a
    dense array addressed by strides), or ``sparse_coo`` (the coordinates and
    values of the elements present, ``minitorch._sparse_coo``)."""

    __module__ = "minitorch"
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"minitorch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided = layout("strided")
sparse_coo = layout("sparse_coo")


class memory_format:
    """A memory layout name, accepted by memory_format= arguments: the
    strides a new tensor is given (contiguous_format, channels_last,
    channels_last_3d), or preserve_format to keep the input's."""

    __module__ = "minitorch"
    __slots__ = ("_name", "_mt_memory_format_code")

    def __init__(self, name: str, code: int) -> None:
        self._name = name
        # the number csrc/ops/memory_format.h gives this layout
        self._mt_memory_format_code = code

    def __repr__(self) -> str:
        return f"minitorch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


contiguous_format = memory_format("contiguous_format", 0)
preserve_format = memory_format("preserve_format", 1)
channels_last = memory_format("channels_last", 2)
channels_last_3d = memory_format("channels_last_3d", 3)

_state = {"deterministic": False, "warn_only": False, "precision": "highest"}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Records whether deterministic algorithms are required (minitorch's
    kernels always are)."""
    if not isinstance(mode, builtins.bool):
        raise TypeError("_set_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, builtins.bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether use_deterministic_algorithms(True) is in force."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether use_deterministic_algorithms was set with warn_only=True."""
    return _state["warn_only"]


def set_default_device(device_: Optional[Any]) -> None:
    """Sets the device new tensors are made on: only the CPU is available, so
    any other device fails as it would at construction."""
    if device_ is not None and device(device_).type != "cpu":
        import minitorch
        minitorch.empty(0, device=device_)


def get_default_device() -> device:
    """The device new tensors are made on: always the CPU."""
    return device("cpu")


def set_float32_matmul_precision(precision: str) -> None:
    """Records the float32 matmul precision asked for ('highest', 'high' or
    'medium'); minitorch always multiplies at full float32 precision."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["precision"] = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set ('highest' by default)."""
    return _state["precision"]
