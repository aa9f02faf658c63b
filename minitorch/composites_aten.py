"""aten ops torch exposes only as ``torch.ops.aten.<name>.<overload>``,
written in Python over public ops and registered as minitorch's overloads of
the same names (``_aten.register_composite``): slice.Tensor,
native_dropout_backward, _batch_norm_with_update,
max_pool2d_with_indices_backward, _upsample_bilinear2d_aa and
_upsample_bicubic2d_aa (default and vec), and the overloads of torch's
public underscore functions minitorch writes in Python
(_safe_softmax.default). Their gradients follow from the ops they are
written with."""
from typing import List, Optional, Sequence, Tuple

import numpy as np

import minitorch

from ._aten import register_composite
from ._resample_weights import aa_weights
from ._tensor import Tensor
from .composites_native_forms import native_batch_norm

register_composite("_safe_softmax")(minitorch._safe_softmax)


@register_composite("slice", "Tensor")
def slice_tensor(input: Tensor, dim: int = 0, start: Optional[int] = None,
                 end: Optional[int] = None, step: int = 1) -> Tensor:
    """The view of input's elements start:end:step along dim (start and end
    clamped into range, as a Python slice's)."""
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if not -input.dim() <= dim < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return input[(slice(None),) * (dim % input.dim()) + (slice(start, end, step),)]


@register_composite("native_dropout_backward")
def native_dropout_backward(grad_output: Tensor, mask: Tensor, scale: float) -> Tensor:
    """The gradient of native_dropout's output: grad_output where mask
    kept the element, times scale."""
    return grad_output * mask * scale


@register_composite("_batch_norm_with_update")
def _batch_norm_with_update(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                            running_mean: Tensor, running_var: Tensor, momentum: float,
                            eps: float) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    """Training batch_norm updating the running statistics: the output, the
    batch's mean and rstd per channel, and an empty reserve (torch's holds
    cuDNN's workspace)."""
    out, mean, rstd = native_batch_norm(input, weight, bias, running_mean, running_var, True,
                                        momentum, eps)
    return out, mean, rstd, input.new_empty(0, dtype=minitorch.uint8)


@register_composite("max_pool2d_with_indices_backward")
def max_pool2d_with_indices_backward(grad_output: Tensor, input: Tensor,
                                     kernel_size: Sequence[int], stride: Sequence[int],
                                     padding: Sequence[int], dilation: Sequence[int],
                                     ceil_mode: bool, indices: Tensor) -> Tensor:
    """The gradient of max_pool2d's input: each output's gradient added at
    the element number (within its plane) its maximum came from."""
    planes = input.shape[:-2]
    flat = grad_output.reshape(*planes, -1)
    # zeros recorded as a function of input, whose gradient (zero) torch's
    # result carries too
    grad = input.masked_fill(input.new_ones((), dtype=minitorch.bool), 0)
    grad = grad.reshape(*planes, -1).to(flat.dtype)
    return grad.scatter_add(-1, indices.reshape(*planes, -1), flat).reshape(input.shape)


def _upsampled_aa(input: Tensor, output_size: Optional[Sequence[int]], align_corners: bool,
                  scales: Sequence[Optional[float]], interp_size: int) -> Tensor:
    """Antialiased resizing of (N, C, H, W) with the filter of support
    interp_size / 2: torch's separable passes, along W and then along H,
    each a product with the dim's weight matrix (whose transpose carries
    the gradient back)."""
    if input.dim() != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {input.dim()}")
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    (h, w), (oh, ow) = input.shape[2:], output_size
    if min(h, w, oh, ow) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(H: {h}, W: {w}) output (H: {oh}, W: {ow})")
    if input.dtype not in (minitorch.float32, minitorch.float64):
        name = input.dtype._scalar_name
        raise NotImplementedError(f"\"compute_index_ranges_weights\" not implemented for "
                                  f"'{name}'")
    kind = np.float64 if input.dtype == minitorch.float64 else np.float32
    rows = aa_weights(h, oh, align_corners, scales[0], kind, interp_size)
    cols = aa_weights(w, ow, align_corners, scales[1], kind, interp_size)
    rows, cols = minitorch.from_numpy(rows), minitorch.from_numpy(cols)
    return rows @ (input @ cols.T)


@register_composite("_upsample_bilinear2d_aa")
def _upsample_bilinear2d_aa(input: Tensor, output_size: Optional[List[int]] = None,
                            align_corners: bool = False, scales_h: Optional[float] = None,
                            scales_w: Optional[float] = None, *,
                            scale_factors: Optional[List[float]] = None) -> Tensor:
    """Antialiased bilinear resizing of (N, C, H, W) to output_size, as
    F.interpolate(mode="bilinear", antialias=True); scale_factors (with no
    output_size) runs the vec overload."""
    if scale_factors is not None or output_size is None:
        return _upsample_bilinear2d_aa_vec(input, output_size, align_corners, scale_factors)
    return _upsampled_aa(input, output_size, align_corners, (scales_h, scales_w), 2)


@register_composite("_upsample_bilinear2d_aa", "vec")
def _upsample_bilinear2d_aa_vec(input: Tensor, output_size: Optional[List[int]],
                                align_corners: bool,
                                scale_factors: Optional[List[float]]) -> Tensor:
    """_upsample_bilinear2d_aa to output_size, or to each size times its
    scale factor (rounded down)."""
    return _upsampled_aa_vec(input, output_size, align_corners, scale_factors, 2)


def _upsampled_aa_vec(input: Tensor, output_size: Optional[List[int]], align_corners: bool,
                      scale_factors: Optional[List[float]], interp_size: int) -> Tensor:
    if (output_size is None) == (scale_factors is None):
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if output_size is not None:
        return _upsampled_aa(input, output_size, align_corners, (None, None), interp_size)
    if input.dim() != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {input.dim()}")
    size = [int(n * f) for n, f in zip(input.shape[2:], scale_factors)]
    return _upsampled_aa(input, size, align_corners, tuple(scale_factors), interp_size)


@register_composite("_upsample_bicubic2d_aa")
def _upsample_bicubic2d_aa(input: Tensor, output_size: Optional[List[int]] = None,
                           align_corners: bool = False, scales_h: Optional[float] = None,
                           scales_w: Optional[float] = None, *,
                           scale_factors: Optional[List[float]] = None) -> Tensor:
    """Antialiased bicubic resizing of (N, C, H, W) to output_size, as
    F.interpolate(mode="bicubic", antialias=True): Keys' cubic (a = -0.5)
    stretched over the pixels an output pixel covers; scale_factors (with
    no output_size) runs the vec overload."""
    if scale_factors is not None or output_size is None:
        return _upsample_bicubic2d_aa_vec(input, output_size, align_corners, scale_factors)
    return _upsampled_aa(input, output_size, align_corners, (scales_h, scales_w), 4)


@register_composite("_upsample_bicubic2d_aa", "vec")
def _upsample_bicubic2d_aa_vec(input: Tensor, output_size: Optional[List[int]],
                               align_corners: bool,
                               scale_factors: Optional[List[float]]) -> Tensor:
    """_upsample_bicubic2d_aa to output_size, or to each size times its
    scale factor (rounded down)."""
    return _upsampled_aa_vec(input, output_size, align_corners, scale_factors, 4)
