"""nn.functional's adaptive max poolings over the C row _adaptive_max_pool
(csrc/ops/nn_adaptive_pool.def): None sizes and return_indices are read
here, as torch reads them in Python (the 1-d form takes no None, as
torch's); 1-d pools a height-1 2-d input, as
torch does (so its grad_fn is SqueezeBackward1)."""
from __future__ import annotations

from typing import Optional, Sequence, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[Optional[int]]]

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]


def with_default(input: Tensor, output_size: _Size) -> _Size:
    """output_size as torch's adaptive pools read a sequence in Python (None
    keeps the input's size, and input needs a dim more than the sequence);
    an int as it is."""
    if not isinstance(output_size, (tuple, list)):
        return output_size
    if input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return [input.shape[input.dim() - len(output_size) + i] if v is None else v
            for i, v in enumerate(output_size)]


def _sizes(input: Tensor, output_size: _Size, n: int, op: str) -> list:
    """torch's reading of output_size: an int for every dim, or one per dim
    with None keeping the input's size."""
    sizes = with_default(input, output_size)
    sizes = [int(v) for v in sizes] if isinstance(sizes, list) else [int(sizes)] * n
    if len(sizes) != n:
        raise RuntimeError(f"{op}(): internal error: output_size.size() must be {n}")
    return sizes


def _pooled(input: Tensor, sizes: list, return_indices: bool):
    out, indices = minitorch._adaptive_max_pool(input, sizes)
    return (out, indices) if return_indices else out


@_overridable
def adaptive_max_pool1d(input: Tensor, output_size: _Size, return_indices: bool = False):
    """Maximum over output_size nearly equal windows of the last dimension;
    with return_indices, also the positions of the maxima."""
    if isinstance(output_size, (tuple, list)) and len(output_size) != 1:
        raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one "
                           f"int (got {len(output_size)})")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"adaptive_max_pool1d)")
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    if size is None:  # torch's 1-d form takes ints only
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be "
                        "tuple of ints, but found element of type NoneType at pos 0")
    size = int(size)
    out, indices = minitorch._adaptive_max_pool(input.unsqueeze(-2), [1, size])
    out, indices = out.squeeze(-2), indices.squeeze(-2)
    return (out, indices) if return_indices else out


@_overridable
def adaptive_max_pool2d(input: Tensor, output_size: _Size, return_indices: bool = False):
    """Maximum over output_size nearly equal windows of the last two
    dimensions (None keeps an input size); with return_indices, also the
    flat positions of the maxima within each plane."""
    return _pooled(input, _sizes(input, output_size, 2, "adaptive_max_pool2d"),
                   return_indices)


@_overridable
def adaptive_max_pool3d(input: Tensor, output_size: _Size, return_indices: bool = False):
    """Maximum over output_size nearly equal windows of the last three
    dimensions (None keeps an input size); with return_indices, also the
    flat positions of the maxima within each volume."""
    return _pooled(input, _sizes(input, output_size, 3, "adaptive_max_pool3d"),
                   return_indices)


publish(globals())
