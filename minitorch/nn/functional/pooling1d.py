"""The 1-D poolings of nn.functional (re-exported by nn.functional): each runs its
2-D form on the input with a height-1 dimension inserted before the last one."""
from __future__ import annotations

from typing import Optional, Sequence, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish
from .op_rows import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from .pooling3d import _pooled

Tensor = minitorch.Tensor
_Size1 = Union[int, Sequence[int]]

__all__ = ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d"]


def _single(value: _Size1) -> int:
    return value[0] if isinstance(value, (tuple, list)) else value


def _stride(stride: Optional[_Size1], kernel: int) -> int:
    return kernel if stride is None or len(stride if isinstance(stride, (tuple, list)) else
                                            [stride]) == 0 else _single(stride)


def _check_rank(input: Tensor, name: str) -> None:
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")


def _check_window1d(input: Tensor, k: int, s: int, p: int, d: int, ceil_mode: bool) -> None:
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError("max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    width = _pooled(input.shape[-1], k, p, s, d, ceil_mode)
    if width <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {width}")


@_overridable
def max_pool1d(input: Tensor, kernel_size: _Size1, stride: Optional[_Size1] = None,
               padding: _Size1 = 0, dilation: _Size1 = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Maximum over sliding windows of the last dimension."""
    if input.dim() not in (2, 3) or 0 in input.shape[input.dim() - 2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{list(input.shape)}")
    k, p, d = _single(kernel_size), _single(padding), _single(dilation)
    s = _stride(stride, k)
    if not return_indices:
        # torch's 1-d kernel checks the window itself (with indices, the 2-d one does)
        _check_window1d(input, k, s, p, d, ceil_mode)
        if not input.is_floating_point():
            raise NotImplementedError("\"max_pool1d_impl\" not implemented for "
                                      f"'{input.dtype._scalar_name}'")
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode=ceil_mode,
                     return_indices=return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


@_overridable
def avg_pool1d(input: Tensor, kernel_size: _Size1, stride: Optional[_Size1] = None,
               padding: _Size1 = 0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """Mean over sliding windows of the last dimension."""
    _check_rank(input, "avg_pool1d")
    k = _single(kernel_size)
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, _stride(stride, k)),
                      (0, _single(padding)), ceil_mode, count_include_pad).squeeze(-2)


@_overridable
def adaptive_avg_pool1d(input: Tensor, output_size: _Size1) -> Tensor:
    """Mean over output_size nearly equal windows of the last dimension."""
    if isinstance(output_size, (tuple, list)) and len(output_size) != 1:
        raise RuntimeError("adaptive_avg_pool1d() argument 'output_size' should contain one "
                           f"int (got {len(output_size)})")
    _check_rank(input, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


publish(globals())
