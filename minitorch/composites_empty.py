"""Uninitialised tensors of a chosen memory layout: empty_strided (given
strides, also behind Tensor.new_empty_strided) and empty_permuted (dense,
its dimensions laid out in a given order). Each is a fresh storage seen
through as_strided_, so the result is no view. Like torch's factories, they do not
dispatch __torch_function__ (overrides lists them as ignored)."""
from typing import Any, Sequence

from . import _C
from ._tensor import Tensor

__all__ = ["empty_strided", "empty_permuted"]

_f = _C._functions


def _strided(size: Sequence[int], stride: Sequence[int], dtype: Any,
             requires_grad: bool) -> Tensor:
    size, stride = [int(s) for s in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {size}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={size} and "
                           f"strides={stride}")
    need = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    out = _f["empty"]([need], dtype=dtype).as_strided_(size, stride)
    return out.requires_grad_(requires_grad) if requires_grad else out


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: Any = None,
                  layout: Any = None, device: Any = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of the given size and strides."""
    return _strided(size, stride, dtype, requires_grad)


def empty_permuted(size: Sequence[int], physical_layout: Sequence[int], *, dtype: Any = None,
                   layout: Any = None, device: Any = None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised dense tensor of the given size whose dimensions lie
    in memory in the order physical_layout gives, outermost first."""
    size, order = list(size), list(physical_layout)
    if len(size) != len(order):
        raise RuntimeError("Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {d} at index {i}).  NB: negative "
                               "dims not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    stride = [0] * len(size)
    step = 1
    for d in reversed(order):
        stride[d] = step
        step *= max(size[d], 1)
    return _strided(size, stride, dtype, requires_grad)
