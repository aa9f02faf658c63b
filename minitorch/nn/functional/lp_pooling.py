"""The power-average poolings of nn.functional (re-exported by nn.functional):
the p-th root of the window's sum of p-th powers, written over avg_pool (the
window mean times its size) as torch's are, max_pool of |x| at p = +-inf."""
from __future__ import annotations

import math
from typing import Optional, Sequence, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish
from .op_rows import avg_pool2d, max_pool2d, relu
from .pooling1d import avg_pool1d, max_pool1d
from .pooling3d import avg_pool3d, max_pool3d

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[int]]

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _window_size(kernel_size: _Size, n: int) -> int:
    sizes = kernel_size if isinstance(kernel_size, (tuple, list)) else [kernel_size] * n
    return math.prod(sizes)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, avg_pool, max_pool):
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        sign = 1 if norm_type > 0 else -1
        return sign * max_pool(sign * input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is None:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    # sign * relu(|.|) keeps the sign and gives a zero gradient at a zero sum
    total = (minitorch.sign(out) * relu(out.abs())).mul(_window_size(kernel_size, n))
    return total.pow(1.0 / norm_type)


@_overridable
def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last dimension."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d, max_pool1d)


@_overridable
def lp_pool2d(input: Tensor, norm_type: float, kernel_size: _Size,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last two dimensions."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d, max_pool2d)


@_overridable
def lp_pool3d(input: Tensor, norm_type: float, kernel_size: _Size,
              stride: Optional[_Size] = None, ceil_mode: bool = False) -> Tensor:
    """Power-average pooling over the last three dimensions."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d, max_pool3d)


publish(globals())
