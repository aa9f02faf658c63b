"""nn.functional.max_pool1d/2d/3d_with_indices (re-exported by
nn.functional): torch's names for max pooling that always returns the
element numbers of the maxima with the values."""
from __future__ import annotations

from typing import Optional, Sequence, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[int]]

__all__ = ["max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices"]


@_overridable
def max_pool1d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False):
    """max_pool1d's values and the element numbers of the maxima."""
    return minitorch.nn.functional.max_pool1d(input, kernel_size, stride, padding, dilation,
                                              ceil_mode=ceil_mode, return_indices=True)


@_overridable
def max_pool2d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False):
    """max_pool2d's values and the element numbers of the maxima."""
    return minitorch.nn.functional.max_pool2d(input, kernel_size, stride, padding, dilation,
                                              ceil_mode=ceil_mode, return_indices=True)


@_overridable
def max_pool3d_with_indices(input: Tensor, kernel_size: _Size, stride: Optional[_Size] = None,
                            padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
                            return_indices: bool = False):
    """max_pool3d's values and the element numbers of the maxima."""
    return minitorch.nn.functional.max_pool3d(input, kernel_size, stride, padding, dilation,
                                              ceil_mode=ceil_mode, return_indices=True)


publish(globals())
