"""Upsampling modules: each holds the arguments of one F.interpolate call."""
from __future__ import annotations

from typing import Optional, Sequence, Union

from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resamples its input to size, or by scale_factor, with F.interpolate's mode."""

    def __init__(self, size: Union[int, Sequence[int], None] = None,
                 scale_factor: Union[float, Sequence[float], None] = None,
                 mode: str = "nearest", align_corners: Optional[bool] = None,
                 recompute_scale_factor: Optional[bool] = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        # torch keeps the factors as floats, which is what the repr shows
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        """Interpolates input with the stored arguments."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        """The scale factor (or size) and the mode."""
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of a 4-D input."""

    def __init__(self, size: Union[int, Sequence[int], None] = None,
                 scale_factor: Union[float, Sequence[float], None] = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling of a 4-D input with align_corners=True."""

    def __init__(self, size: Union[int, Sequence[int], None] = None,
                 scale_factor: Union[float, Sequence[float], None] = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
