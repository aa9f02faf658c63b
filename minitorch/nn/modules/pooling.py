"""MaxPool2d/3d, AvgPool2d/3d and AdaptiveAvgPool2d/3d: one class per kind, the
rank picking the functional form."""
from .. import functional as F
from .module import Module

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool3d", "AvgPool3d",
           "AdaptiveAvgPool3d"]


class _MaxPoolNd(Module):
    """Max pooling with the window of F.max_pool<n>d."""

    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return getattr(F, f"max_pool{self._n}d")(input, self.kernel_size, self.stride,
                                                 self.padding, self.dilation,
                                                 ceil_mode=self.ceil_mode,
                                                 return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}, "
                "dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class _AvgPoolNd(Module):
    """Average pooling with the window of F.avg_pool<n>d."""

    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, f"avg_pool{self._n}d")(input, self.kernel_size, self.stride,
                                                 self.padding, self.ceil_mode,
                                                 self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    """Adaptive average pooling to output_size (None keeps an input size)."""

    _n = 2

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        size = self.output_size
        if isinstance(size, (tuple, list)):
            size = tuple(input.shape[input.dim() - self._n + i] if s is None else s
                         for i, s in enumerate(size))
        return getattr(F, f"adaptive_avg_pool{self._n}d")(input, size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool2d(_MaxPoolNd):
    """Applies a 2D max pooling over an input signal of several input planes."""

    _n = 2


class MaxPool3d(_MaxPoolNd):
    """Applies a 3D max pooling over an input signal of several input planes."""

    _n = 3


class AvgPool2d(_AvgPoolNd):
    """Applies a 2D average pooling over an input signal of several input planes."""

    _n = 2


class AvgPool3d(_AvgPoolNd):
    """Applies a 3D average pooling over an input signal of several input planes."""

    _n = 3


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Applies a 2D adaptive average pooling over an input signal."""

    _n = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Applies a 3D adaptive average pooling over an input signal."""

    _n = 3
