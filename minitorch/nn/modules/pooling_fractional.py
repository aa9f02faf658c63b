"""FractionalMaxPool2d/3d: max pooling at pseudo-random fractional strides."""
from .. import functional as F
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    """Holds the kernel and one of output_size and output_ratio as n-tuples,
    and the optional fixed samples as the buffer _random_samples."""

    _n = 0
    _function = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None,
                 return_indices: bool = False, _random_samples=None) -> None:
        super().__init__()
        n = self._n

        def expand(v):
            return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n
        self.kernel_size = expand(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = expand(output_size) if output_size is not None else None
        self.output_ratio = expand(output_ratio) if output_ratio is not None else None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.output_size, self.output_ratio,
                                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Applies 2-D fractional max pooling over (N, C, H, W) or (C, H, W)."""

    _n = 2
    _function = F.fractional_max_pool2d


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Applies 3-D fractional max pooling over (N, C, T, H, W) or (C, T, H, W)."""

    _n = 3
    _function = F.fractional_max_pool3d
