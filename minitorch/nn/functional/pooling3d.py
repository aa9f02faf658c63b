"""The 3-D poolings of nn.functional (re-exported by nn.functional). A box
window's maximum is the maximum over depth of the (H, W) maxima, and its sum
and every divisor torch uses (window size, valid count) are products over the
dims, so each runs the 2-D C pooling twice: over (H, W) with depth folded into
the channels, then over depth laid out as the width of a (N * C, oH * oW, D)
tensor. Gradients are those of the two 2-D poolings."""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import minitorch
from ...overrides import overridable as _overridable
from ..._out_param import write_out
from .adaptive_max_pooling import with_default
from .namespace import publish
from .op_rows import adaptive_avg_pool2d, avg_pool2d, max_pool2d

Tensor = minitorch.Tensor
_Size3 = Union[int, Sequence[int]]

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d"]


def _triple(value: _Size3, op: str, what: str) -> Tuple[int, int, int]:
    vals = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(vals) not in (1, 3):
        raise RuntimeError(f"{op}: {what}")
    return (int(vals[0]),) * 3 if len(vals) == 1 else (int(vals[0]), int(vals[1]), int(vals[2]))


def _pooled(size: int, k: int, p: int, s: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling output size along one dim."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _window(input: Tensor, op: str, kernel_size: _Size3, stride: Optional[_Size3],
            padding: _Size3, dilation: _Size3, ceil_mode: bool, check_input_size: bool):
    """Parses and checks a 3-D pooling window in torch's order and words;
    returns (k, s, p, d, output sizes)."""
    k = _triple(kernel_size, op, "kernel_size must either be a single int, or a tuple of three "
                "ints")
    empty = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
    s = k if empty else _triple(stride, op, "stride must either be omitted, a single int, or a "
                                "tuple of three ints")
    p = _triple(padding, op, "padding must either be a single int, or a tuple of three ints")
    d = _triple(dilation, op, "dilation must be either a single int, or a tuple of three ints")
    if min(s) == 0:
        raise RuntimeError("stride should not be zero")
    if min(k) <= 0:
        raise RuntimeError("kernel size should be greater than zero, but got kT: {} kH: {} kW: "
                           "{}".format(*k))
    if min(s) <= 0:
        raise RuntimeError("stride should be greater than zero, but got dT: {} dH: {} dW: "
                           "{}".format(*s))
    if min(d) <= 0:
        raise RuntimeError("dilation should be greater than zero, got dilationT: {} dilationH: "
                           "{} dilationW: {}".format(*d))
    for i in range(3):
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > (d[i] * (k[i] - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p[i]}, kernel_size={k[i]} and dilation={d[i]}")
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if any(n == 0 for n in input.shape[input.dim() - 4:]):
        # torch's message names dimension 0 whichever is empty
        where = "max_pool3d_with_indices_out_cpu_template" if op == "max_pool3d" else op
        raise RuntimeError(f"{where}(): Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(input.shape)} and "
                           "non-batch dimension 0 has length zero!")
    size = input.shape[-3:]
    if check_input_size and any(size[i] < k[i] for i in range(3)):
        raise RuntimeError("input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} "
                           "kH: {} kW: {})".format(*size, *k))
    out = [_pooled(size[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    if min(out) < 1:
        c = input.shape[-4]
        raise RuntimeError("Given input size: ({}x{}x{}x{}). Calculated output size: "
                           "({}x{}x{}x{}). Output size is too small".format(c, *size, c, *out))
    return k, s, p, d, out


def _window_extent(o: int, n: int, k: int, s: int, p: int, include_pad: bool) -> int:
    """How many positions output o's window spans along a dim of n inputs:
    clipped to the padded input, or to the input itself without include_pad."""
    lo, hi = o * s - p, min(o * s - p + k, n + p)
    return hi - lo if include_pad else min(hi, n) - max(lo, 0)


def _planes(input: Tensor) -> Tuple[Tensor, List[int]]:
    """input (N, C, D, H, W) or (C, D, H, W) as (N, C * D, H, W), and its lead sizes."""
    lead = list(input.shape[:-3])
    n = lead[0] if len(lead) == 2 else 1
    c, (d, h, w) = lead[-1], input.shape[-3:]
    return input.reshape(n, c * d, h, w), lead


def _depth_last(t: Tensor, depth: int) -> Tensor:
    """(N, C * D, oH, oW) as (N * C, oH * oW, D): depth becomes the width."""
    n, cd, oh, ow = t.shape
    return t.reshape(n * (cd // depth), depth, oh * ow).transpose(1, 2)


def _restore(t: Tensor, lead: List[int], oh: int, ow: int) -> Tensor:
    """(N * C, oH * oW, oD) back to lead + (oD, oH, oW)."""
    return t.transpose(1, 2).reshape(*lead, t.shape[2], oh, ow)


@_overridable
def max_pool3d(input: Tensor, kernel_size: _Size3, stride: Optional[_Size3] = None,
               padding: _Size3 = 0, dilation: _Size3 = 1, ceil_mode: bool = False,
               return_indices: bool = False):
    """Maximum over sliding (kD, kH, kW) windows of the last three dimensions;
    with return_indices also the flat index d * H * W + h * W + w of each maximum."""
    k, s, p, d, out = _window(input, "max_pool3d", kernel_size, stride, padding, dilation,
                              ceil_mode, False)
    planes, lead = _planes(input)
    depth, (h, w) = input.shape[-3], input.shape[-2:]
    hw, hw_idx = max_pool2d(planes, k[1:], s[1:], p[1:], d[1:], ceil_mode=ceil_mode,
                            return_indices=True)
    val, d_idx = max_pool2d(_depth_last(hw, depth), (1, k[0]), (1, s[0]), (0, p[0]),
                            (1, d[0]), ceil_mode=ceil_mode, return_indices=True)
    result = _restore(val, lead, out[1], out[2])
    if not return_indices:
        return result
    # the (h, w) index at the chosen depth of each window
    # d_idx counts row * D + d in the (oH * oW, D) planes of the second pass
    d_sel = d_idx % depth
    chosen = _depth_last(hw_idx, depth).gather(2, d_sel)
    return result, _restore(d_sel * (h * w) + chosen, lead, out[1], out[2])


@_overridable
def avg_pool3d(input: Tensor, kernel_size: _Size3, stride: Optional[_Size3] = None,
               padding: _Size3 = 0, ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None, *,
               out: Optional[Tensor] = None) -> Tensor:
    """Mean over sliding (kD, kH, kW) windows of the last three dimensions."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    k, s, p, _, size = _window(input, "avg_pool3d", kernel_size, stride, padding, 1, ceil_mode,
                               True)

    def two_passes(x, divisor):
        planes, lead = _planes(x)
        hw = avg_pool2d(planes, k[1:], s[1:], p[1:], ceil_mode, count_include_pad, divisor)
        # with an override the first pass already divided: the second only sums
        val = avg_pool2d(_depth_last(hw, x.shape[-3]), (1, k[0]), (1, s[0]), (0, p[0]),
                         ceil_mode, count_include_pad, None if divisor is None else 1)
        return _restore(val, lead, size[1], size[2])

    if input.is_floating_point():
        return write_out(out, two_passes(input, divisor_override))
    # integers divide once, truncating, as torch's: the window sums over their sizes
    sums = two_passes(input, 1)
    if divisor_override is not None:
        counts = divisor_override
    else:
        counts = minitorch.ones(size, dtype=minitorch.int64)
        for i in range(3):
            along = [_window_extent(o, input.shape[-3 + i], k[i], s[i], p[i], count_include_pad)
                     for o in range(size[i])]
            shape = [1, 1, 1]
            shape[i] = size[i]
            counts = counts * minitorch.tensor(along).reshape(shape)
    return write_out(out, minitorch.div(sums, counts, rounding_mode="trunc"))


@_overridable
def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Mean over output_size nearly equal windows of the last three dimensions
    (None in output_size keeps that input size)."""
    output_size = with_default(input, output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * 3
    if len(sizes) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    sizes = [input.shape[-3 + i] if v is None else int(v) for i, v in enumerate(sizes)]
    for i in range(1, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but input has sizes "
                               f"{list(input.shape)} with dimension {i} being empty")
    if min(sizes) < 0:
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than "
                           "or equal to 0 but received {{{}, {}, {}}}".format(*sizes))
    planes, lead = _planes(input)
    if min(sizes) == 0:
        return planes.new_zeros((*lead, *sizes))
    hw = adaptive_avg_pool2d(planes, sizes[1:])
    val = adaptive_avg_pool2d(_depth_last(hw, input.shape[-3]), (sizes[1] * sizes[2], sizes[0]))
    return _restore(val, lead, sizes[1], sizes[2])


publish(globals())
