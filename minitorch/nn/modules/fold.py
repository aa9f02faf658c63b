"""Fold and Unfold: F.fold / F.unfold with stored window arguments."""
from __future__ import annotations

from typing import Sequence, Union

from .. import functional as F
from .module import Module

__all__ = ["Fold", "Unfold"]

_Size2 = Union[int, Sequence[int]]


class Fold(Module):
    """Sums sliding-block columns back into an image of spatial size output_size."""

    def __init__(self, output_size: _Size2, kernel_size: _Size2, dilation: _Size2 = 1,
                 padding: _Size2 = 0, stride: _Size2 = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """Folds input's columns."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        """The window arguments."""
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extracts sliding local blocks of an image as columns."""

    def __init__(self, kernel_size: _Size2, dilation: _Size2 = 1, padding: _Size2 = 0,
                 stride: _Size2 = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        """Unfolds input into columns."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """The window arguments."""
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
