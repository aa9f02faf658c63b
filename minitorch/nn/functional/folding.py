"""nn.functional.unfold (im2col) and fold (col2im) (re-exported by nn.functional).

Both address the zero-padded planes, flattened, through one index vector
listing, for each kernel offset and each block, the pixel it covers: unfold
gathers it (index_select), fold adds into it (index_add), the adjoint. Their
gradients are each other's, which the two index ops already record."""
from __future__ import annotations

from typing import List, Sequence, Tuple, Union

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor
_Size2 = Union[int, Sequence[int]]

__all__ = ["unfold", "fold"]


def _pair(value: _Size2, name: str) -> Tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return value


def _check_window(k, d, p, s) -> None:
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got kernel_height: "
                           f"{k[0]} kernel_width: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError("stride should be greater than zero, but got stride_height: "
                           f"{s[0]} stride_width: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError("dilation should be greater than zero, but got dilation_height: "
                           f"{d[0]} dilation_width: {d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} "
                           f"pad_width: {p[1]}")


def _blocks(size, k, d, p, s) -> List[int]:
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]


def _check_dtype(input: Tensor, kernel: str) -> None:
    # torch's im2col and col2im take bool (col2im's sum is then an or)
    if not input.dtype.is_floating_point and input.dtype != minitorch.bool:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._scalar_name}\'')


def _cover_index(padded: Sequence[int], k, d, s, blocks) -> Tensor:
    """Flat position in the padded plane of each (kernel offset, block), offsets outer."""
    ar = minitorch.arange
    rows = (ar(k[0]) * d[0]).reshape(-1, 1, 1, 1) + (ar(blocks[0]) * s[0]).reshape(1, 1, -1, 1)
    cols = (ar(k[1]) * d[1]).reshape(1, -1, 1, 1) + (ar(blocks[1]) * s[1]).reshape(1, 1, 1, -1)
    return (rows * padded[1] + cols).reshape(-1)


@_overridable
def unfold(input: Tensor, kernel_size: _Size2, dilation: _Size2 = 1, padding: _Size2 = 0,
           stride: _Size2 = 1) -> Tensor:
    """Extracts sliding local blocks of a (N, C, H, W) input into the columns of a
    (N, C * kh * kw, L) tensor."""
    k, d = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    p, s = _pair(padding, "padding"), _pair(stride, "stride")
    _check_window(k, d, p, s)
    if input.dim() < 3:
        raise IndexError("Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {input.dim()})")
    if input.dim() > 4 or any(n == 0 for n in input.shape[input.dim() - 3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    if not input.is_complex():  # im2col gathers complex elements as it does real ones
        _check_dtype(input, "im2col_out_cpu")
    size = list(input.shape[-2:])
    blocks = _blocks(size, k, d, p, s)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), kernel_size="
                           f"({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, "
                           f"{p[1]}), calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), but its components must be at least "
                           "one.")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    n, c = x.shape[0], x.shape[1]
    if p != (0, 0):
        x = minitorch.nn.functional.pad(x, (p[1], p[1], p[0], p[0]))
    padded = (size[0] + 2 * p[0], size[1] + 2 * p[1])
    idx = _cover_index(padded, k, d, s, blocks)
    out = x.reshape(n, c, padded[0] * padded[1]).index_select(2, idx)
    out = out.reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
    return out if input.dim() == 4 else out.squeeze(0)


@_overridable
def fold(input: Tensor, output_size: _Size2, kernel_size: _Size2, dilation: _Size2 = 1,
         padding: _Size2 = 0, stride: _Size2 = 1) -> Tensor:
    """Sums the columns of a (N, C * kh * kw, L) input, each a sliding block, back into a
    (N, C, H, W) tensor of spatial size output_size: the adjoint of unfold."""
    size, k = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    d, p, s = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    _check_window(k, d, p, s)
    if input.dim() not in (2, 3) or any(n == 0 for n in input.shape[input.dim() - 2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    planes, length = input.shape[-2], input.shape[-1]
    if planes % (k[0] * k[1]):
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={planes} and "
                           f"kernel_size=({k[0]}, {k[1]}).")
    blocks = _blocks(size, k, d, p, s)
    where = (f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), "
             f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), ")
    if length != blocks[0] * blocks[1]:
        raise RuntimeError(f"{where}expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"{where}calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), which is too small (non-positive)")
    _check_dtype(input, "col2im_out_cpu")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    n, c = x.shape[0], planes // (k[0] * k[1])
    padded = (size[0] + 2 * p[0], size[1] + 2 * p[1])
    idx = _cover_index(padded, k, d, s, blocks)
    planes_out = minitorch.zeros(n, c, padded[0] * padded[1], dtype=x.dtype)
    out = planes_out.index_add(2, idx, x.reshape(n, c, k[0] * k[1] * length))
    out = out.reshape(n, c, padded[0], padded[1])
    out = out[:, :, p[0]:p[0] + size[0], p[1]:p[1] + size[1]].contiguous()
    return out if input.dim() == 3 else out.squeeze(0)


publish(globals())
