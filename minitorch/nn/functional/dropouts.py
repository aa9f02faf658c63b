"""nn.functional's dropouts: elementwise or per channel (feature), zeroing
(scaled by 1/(1-p)) or SELU-saturating (alpha), the mask drawn from the
global Generator."""
from __future__ import annotations

import math
import warnings
from typing import Tuple

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d",
           "dropout3d"]

# -SELU's negative saturation value, scale * alpha
_ALPHA = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_shape(input: Tensor, batched: bool = True) -> Tuple[int, ...]:
    """One draw per (sample, channel): dimensions after the channel are 1. An
    unbatched input is one sample, as if unsqueezed at dimension 0."""
    lead = 2 if batched else 1
    if input.dim() < lead:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return tuple(input.shape[:lead]) + (1,) * (input.dim() - lead)


def _dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool = False,
             alpha: bool = False, batched: bool = True) -> Tensor:
    _check_p(p)
    if p == 0.0 or not training or input.numel() == 0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    # the mask is built outside autograd, so forward and backward are one
    # multiply (and for alpha one add) each
    with minitorch.no_grad():
        # empty_like: under vmap an elementwise mask is drawn per batch entry
        noise = (minitorch.empty(_feature_shape(input, batched), dtype=input.dtype) if feature
                 else minitorch.empty_like(input)).bernoulli_(1.0 - p)
        if alpha:
            a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1) * (1 - p))
            shift = noise.add(-1).mul_(_ALPHA * a).add_(_ALPHA * a * p)
            noise.mul_(a)
        else:
            noise.div_(1.0 - p)
    if not alpha:
        return input.mul_(noise) if inplace else input * noise
    return input.mul_(noise).add_(shift) if inplace else input * noise + shift


@_overridable
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Randomly zeroes elements of the input with probability p (from the global
    Generator) and scales the rest by 1/(1-p) during training."""
    return _dropout(input, p, training, inplace)


@_overridable
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Sets elements to SELU's saturation value with probability p, then scales
    and shifts so that mean and variance are kept, during training."""
    return _dropout(input, p, training, inplace, alpha=True)


@_overridable
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """alpha_dropout with one draw per channel of each sample."""
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


@_overridable
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, L) or (C, L) with probability p."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _dropout(input, p, training, inplace, feature=True, batched=input.dim() == 3)


# the stack levels name the caller of the public function, past the
# overridable wrapper
def _deprecated_rank(name: str, dim: int, spatial: int, spatial_word: str) -> None:
    warnings.warn(
        f"{name}: Received a {dim}-D input to {name}, which is deprecated and will result in "
        "an error in a future release. To retain the behavior and silence this warning, "
        f"please use dropout instead. Note that {name} exists to provide channel-wise dropout "
        f"on inputs with {spatial_word} spatial dimensions, a channel dimension, and an "
        f"optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=4)


@_overridable
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, H, W) with probability p; a 3-D input
    is taken as (N, C, L), as torch does today."""
    _check_p(p)
    dim = input.dim()
    if dim not in (3, 4):
        _deprecated_rank("dropout2d", dim, 2, "2")
    if dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=3)
    return _dropout(input, p, training, inplace, feature=True)


@_overridable
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) with probability p."""
    _check_p(p)
    dim = input.dim()
    if dim not in (4, 5):
        _deprecated_rank("dropout3d", dim, 3, "3")
    return _dropout(input, p, training, inplace, feature=True, batched=dim != 4)


publish(globals())
