"""Padding modules: each holds the padding of one F.pad mode over its last n dimensions."""
from __future__ import annotations

from typing import Sequence, Tuple, Union

from .. import functional as F
from .module import Module

__all__ = ["ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
           "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d",
           "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d",
           "ZeroPad2d", "ZeroPad3d"]


class _PadNd(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding: Union[int, Sequence[int]]) -> None:
        super().__init__()
        self.padding: Tuple[int, ...] = (
            (padding,) * (2 * self.dims) if isinstance(padding, int) else tuple(padding))

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return str(self.padding)


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input):
        # torch's circular modules check the rank themselves, the other modes leave it to F.pad
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input "
                             f"(got {input.dim()}D input)")
        return super().forward(input)


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Union[int, Sequence[int]], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Union[int, Sequence[int]]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return str(self.padding)


def _kind(base, name: str, mode: str, dims: int):
    return type(name, (base,), {"mode": mode, "dims": dims, "__module__": __name__,
                                "__doc__": f"Pads the last {dims} dimension(s) in "
                                           f"{mode} mode."})


ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _kind(_PadNd, f"ReflectionPad{n}d", "reflect", n) for n in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _kind(_PadNd, f"ReplicationPad{n}d", "replicate", n) for n in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (
    _kind(_CircularPadNd, f"CircularPad{n}d", "circular", n) for n in (1, 2, 3))
ConstantPad1d, ConstantPad2d, ConstantPad3d = (
    _kind(_ConstantPadNd, f"ConstantPad{n}d", "constant", n) for n in (1, 2, 3))
ZeroPad1d, ZeroPad2d, ZeroPad3d = (
    _kind(_ZeroPadNd, f"ZeroPad{n}d", "constant", n) for n in (1, 2, 3))
