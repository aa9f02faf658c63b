"""nn.functional.pixel_shuffle, pixel_unshuffle and channel_shuffle (re-exported
by nn.functional): moving r x r blocks between the channel and the spatial
dimensions, or channels between groups, is a reshape, a permute and a
reshape, so the gradient is the inverse permutation."""
from __future__ import annotations

import minitorch
from ...composites import _UNSIGNED, _no_kernel
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _refuse_unmoved(input: Tensor, name: str) -> None:
    """torch's kernel has no entry for these dtypes, though an empty input
    never reaches it."""
    if input.numel() and (input.dtype in _UNSIGNED or input.dtype == minitorch.complex32):
        raise _no_kernel(name, input.dtype)


def _check(input: Tensor, factor: int, name: str, what: str) -> None:
    if not isinstance(factor, int) or isinstance(factor, bool):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not "
                        f"{type(factor).__name__}")
    if input.dim() < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input "
                           f"with {input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{name} expects a positive {what}, but got {factor}")


@_overridable
def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """Rearranges (*, C * r * r, H, W) into (*, C, H * r, W * r), r = upscale_factor."""
    _check(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    _refuse_unmoved(input, "pixel_shuffle")
    if r == 1:  # a fresh tensor, as torch returns
        return input.clone()
    n = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


@_overridable
def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """Rearranges (*, C, H * r, W * r) into (*, C * r * r, H, W), r = downscale_factor."""
    _check(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    r = downscale_factor
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    _refuse_unmoved(input, "pixel_unshuffle")
    if r == 1:
        return input.clone()
    n = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


@_overridable
def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Splits the C channels of (N, C, ...) into groups and interleaves them:
    channel g * (C / groups) + k moves to k * groups + g."""
    if input.dim() <= 2:
        raise RuntimeError("channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(input.shape)


native_channel_shuffle = channel_shuffle

publish(globals())
