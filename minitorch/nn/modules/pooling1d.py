"""MaxPool1d, AvgPool1d and AdaptiveAvgPool1d."""
from __future__ import annotations

from .. import functional as F
from .module import Module
from .pooling import AdaptiveAvgPool2d, MaxPool2d

__all__ = ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d"]


def _as_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class MaxPool1d(MaxPool2d):
    """Applies a 1D max pooling over an input signal of several input planes."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class AvgPool1d(Module):
    """Applies a 1D average pooling over an input signal of several input planes."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        # torch keeps these as 1-tuples, which its repr shows
        self.kernel_size = _as_tuple(kernel_size)
        self.stride = _as_tuple(stride if stride is not None else kernel_size)
        self.padding = _as_tuple(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """Applies a 1D adaptive average pooling over an input signal."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)
