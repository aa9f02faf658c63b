"""LPPool1d/2d/3d: power-average pooling layers over nn.functional.lp_pool*."""
from .. import functional as F
from .module import Module

__all__ = ["LPPool1d", "LPPool2d", "LPPool3d"]


class _LPPoolNd(Module):
    def __init__(self, norm_type: float, kernel_size, stride=None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return self._pool(input, float(self.norm_type), self.kernel_size, self.stride,
                          self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """Applies a 1D power-average pooling over an input signal."""

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Applies a 2D power-average pooling over an input signal."""

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Applies a 3D power-average pooling over an input signal."""

    _pool = staticmethod(F.lp_pool3d)
