"""aten ops torch exposes only as ``torch.ops.aten.<name>.<overload>``,
written in Python over public ops and registered as minitorch's overloads of
the same names (``_aten.register_composite``): slice.Tensor,
native_dropout_backward, _batch_norm_with_update and
max_pool2d_with_indices_backward, and the overloads of torch's public
underscore functions minitorch writes in Python (_safe_softmax.default).
Their gradients follow from the ops they are written with."""
from typing import Optional, Sequence, Tuple

import minitorch

from ._aten import register_composite
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
