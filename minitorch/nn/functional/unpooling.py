"""nn.functional.max_unpool1d/2d/3d (re-exported by nn.functional): the
partial inverse of max pooling. Each value goes to the position its index
names within its (sample, channel) plane of the output, the rest are zero;
a scatter, so the gradient is the gather of the same indices."""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size = Union[int, Sequence[int]]

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _expand(value: _Size, n: int) -> Tuple[int, ...]:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


def _output_size(input: Tensor, kernel: Tuple[int, ...], stride: Tuple[int, ...],
                 padding: Tuple[int, ...], output_size: Optional[Sequence[int]]) -> List[int]:
    """The spatial size to unpool into: max pooling's input size, or the one
    asked for when it pools to the same size."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{low} and {high})")
    return list(output_size)


def _unpool(input: Tensor, indices: Tensor, size: Sequence[int], spatial: int) -> Tensor:
    """The kernel's checks and the scatter, over the last `spatial` dimensions."""
    name = f"max_unpooling{spatial}d"
    if indices.dtype != minitorch.int64:
        raise RuntimeError("elements in indices should be type int64"
                           + (f" but got: {indices.dtype._scalar_name}"
                              if spatial == 2 else ""))
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Input to {name} should be a {spatial + 1}d or {spatial + 2}d Tensor, "
                           f"but got a tensor with {input.dim()} dimensions.")
    if tuple(input.shape) != tuple(indices.shape):
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}_forward_out_cpu(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but got {list(input.shape)} with "
                               f"dimension {d} being empty.")
    if not input.is_floating_point():
        raise NotImplementedError(f'"max_unpool{spatial}d" not implemented for '
                                  f"'{input.dtype._scalar_name}'")
    lead = tuple(input.shape[:-spatial])
    planes, count, volume = math.prod(lead), math.prod(input.shape[-spatial:]), math.prod(size)
    where = indices.reshape(planes, count)
    if where.numel():
        bad = (where < 0) | (where >= volume)
        if bool(bad.any()):
            # torch reports one of them, which one depending on its threads
            raise RuntimeError(f"Found an invalid max index: {int(where[bad][-1])} (output "
                               f"volumes are of size {'x'.join(str(s) for s in size)})")
    out = minitorch.zeros(planes, volume, dtype=input.dtype)
    out = out.scatter(1, where, input.reshape(planes, count))
    return out.reshape(*lead, *size)


def _max_unpool(input: Tensor, indices: Tensor, kernel_size: _Size, stride: Optional[_Size],
                padding: _Size, output_size: Optional[Sequence[int]], n: int) -> Tensor:
    kernel = _expand(kernel_size, n)
    stride = kernel if stride is None else _expand(stride, n)
    size = _output_size(input, kernel, stride, _expand(padding, n), output_size)
    if n == 3 and any(s <= 0 for s in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    return _unpool(input, indices, size, n)


@_overridable
def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Places each value of (N, C, L) or (C, L) at its index in a zero output."""
    kernel = _expand(kernel_size, 1)
    stride = kernel if stride is None else _expand(stride, 1)
    size = _output_size(input, kernel, stride, _expand(padding, 1), output_size)
    # torch unpools a trailing unit dimension in two dimensions
    return _unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1], 2).squeeze(-1)


@_overridable
def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Places each value of (N, C, H, W) or (C, H, W) at its index in a zero output."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


@_overridable
def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: _Size,
                 stride: Optional[_Size] = None, padding: _Size = 0,
                 output_size: Optional[Sequence[int]] = None) -> Tensor:
    """Places each value of (N, C, D, H, W) or (C, D, H, W) at its index in a zero output."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)


publish(globals())
