"""The dropout layers: each calls its nn.functional dropout with the module's
p and inplace, and its training flag."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """Holds p and inplace; subclasses name the function forward calls."""

    _function = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return type(self)._function(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Randomly zeroes elements of the input with probability p during training."""

    _function = F.dropout


class Dropout1d(_DropoutNd):
    """Randomly zeroes whole channels of (N, C, L) or (C, L) during training."""

    _function = F.dropout1d


class Dropout2d(_DropoutNd):
    """Randomly zeroes whole channels of (N, C, H, W) during training."""

    _function = F.dropout2d


class Dropout3d(_DropoutNd):
    """Randomly zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) during training."""

    _function = F.dropout3d


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalising mean and variance."""

    _function = F.alpha_dropout


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout with one draw per channel."""

    _function = F.feature_alpha_dropout
