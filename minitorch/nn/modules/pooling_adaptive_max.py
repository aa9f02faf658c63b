"""AdaptiveMaxPool1d/2d/3d: F.adaptive_max_pool<n>d as modules."""
from .. import functional as F
from .module import Module

__all__ = ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d"]


class _AdaptiveMaxPoolNd(Module):
    """Adaptive max pooling to output_size (None keeps an input size),
    returning the indices of the maxima too when return_indices is set."""

    _n = 2

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return getattr(F, f"adaptive_max_pool{self._n}d")(input, self.output_size,
                                                          self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Applies a 1D adaptive max pooling over an input signal."""

    _n = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Applies a 2D adaptive max pooling over an input signal."""

    _n = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Applies a 3D adaptive max pooling over an input signal."""

    _n = 3
