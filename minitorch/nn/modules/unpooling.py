"""MaxUnpool1d/2d/3d: the partial inverses of the max pooling layers."""
from .. import functional as F
from .module import Module

__all__ = ["MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]


class _MaxUnpoolNd(Module):
    """Holds kernel_size, stride (the kernel's by default) and padding as n-tuples."""

    _n = 0
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        n = self._n

        def expand(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
        self.kernel_size = expand(kernel_size)
        self.stride = expand(stride if stride is not None else kernel_size)
        self.padding = expand(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._function(input, indices, self.kernel_size, self.stride,
                                    self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Places the values of MaxPool1d's output back at their indices, zeros elsewhere."""

    _n = 1
    _function = F.max_unpool1d


class MaxUnpool2d(_MaxUnpoolNd):
    """Places the values of MaxPool2d's output back at their indices, zeros elsewhere."""

    _n = 2
    _function = F.max_unpool2d


class MaxUnpool3d(_MaxUnpoolNd):
    """Places the values of MaxPool3d's output back at their indices, zeros elsewhere."""

    _n = 3
    _function = F.max_unpool3d
