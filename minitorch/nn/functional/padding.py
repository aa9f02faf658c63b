"""nn.functional.pad with every mode (re-exported by nn.functional).

'constant' is C's pad; 'reflect', 'replicate' and 'circular' gather each
padded dimension through one index vector (index_select), so the gradient
of a border element accumulates into the input element it copies."""
from __future__ import annotations

from typing import Optional, Sequence

import minitorch
from ... import _C
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["pad"]

_constant_pad = _C._nn_functions["pad"]


def _source_index(mode: str, n: int, left: int, right: int) -> Tensor:
    """For each output position along a dimension of size n, the input position it copies."""
    if mode == "circular":
        # torch first crops by the negative pads, then wraps around what remains
        start, kept = max(-left, 0), n - max(-left, 0) - max(-right, 0)
        return minitorch.arange(-max(left, 0), kept + max(right, 0)).remainder(kept) + start
    i = minitorch.arange(-left, n + right)
    if mode == "replicate":
        return i.clamp(0, n - 1)
    # reflect about both edges without repeating the edge element
    return (n - 1) - ((n - 1) - i.abs()).abs()


def _check_border(input: Tensor, mode: str, pairs: Sequence[Sequence[int]]) -> None:
    k = len(pairs)
    shape = list(input.shape)
    if mode != "circular":
        # a batched input may have an empty batch, every other dimension must be non-empty
        first = 1 if input.dim() == k + 2 else 0
        if any(s == 0 for s in shape[first:]):
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly "
                               "0 batch size and other non-zero dimensions for input, but got: "
                               f"{shape}")
    for j, (left, right) in enumerate(pairs):
        d = input.dim() - 1 - j
        n = shape[d]
        if mode == "reflect" and (left >= n or right >= n):
            raise RuntimeError(f"Argument #{4 + 2 * j}: Padding size should be less than the "
                               "corresponding input dimension, but got: padding "
                               f"({left}, {right}) at dimension {d} of input {shape}")
        if mode == "circular" and (left > n or right > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")


@_overridable
def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",
        value: Optional[float] = None) -> Tensor:
    """Pads the last len(pad) // 2 dimensions of input, the last dimension first:
    with a constant, or by reflecting, replicating or wrapping the input's borders."""
    if mode == "constant":
        return _constant_pad(input, pad, mode, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.dim():
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.dim()}")
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    pairs = [pad[2 * j:2 * j + 2] for j in range(k)]
    _check_border(input, mode, pairs)
    out = input
    for j, (left, right) in enumerate(pairs):
        d = input.dim() - 1 - j
        out = out.index_select(d, _source_index(mode, input.shape[d], left, right))
    return out


publish(globals())
