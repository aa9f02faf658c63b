"""nn.functional.prelu and rrelu (re-exported by nn.functional): leaky
rectifiers whose negative slope is a learned weight per channel (prelu) or
drawn uniformly per element in training (rrelu)."""
from __future__ import annotations

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["prelu", "rrelu", "rrelu_"]


@_overridable
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x where x > 0, weight * x elsewhere; weight holds one slope, or one per
    channel (dimension 1 of the input)."""
    if weight.dim() > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if input.dtype != weight.dtype:
        raise RuntimeError("prelu: Type promoting not supported. Got "
                           f"{input.dtype._scalar_name} and "
                           f"{weight.dtype._scalar_name}")
    count = weight.numel()
    if count == 1:
        slope = weight.reshape(())
    else:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() > 1 else 1
        if channels != count:
            raise RuntimeError("Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {count} and channel size = {channels}.")
        slope = weight.reshape((count,) + (1,) * (input.dim() - 2))
    return minitorch.where(input > 0, input, slope * input)


def _rrelu(input: Tensor, lower: float, upper: float, training: bool, inplace: bool) -> Tensor:
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return minitorch.nn.functional.leaky_relu(input, (lower + upper) / 2, inplace)
    # the slopes are drawn outside autograd: the gradient is the slope itself
    with minitorch.no_grad():
        noise = minitorch.empty_like(input).uniform_(lower, upper)
        noise = minitorch.where(input > 0, minitorch.ones_like(input), noise)
    return input.mul_(noise) if inplace else input * noise


@_overridable
def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """x where x > 0, a * x elsewhere: a is drawn from U(lower, upper) for each
    element in training (from the global Generator), (lower + upper) / 2 in eval."""
    return _rrelu(input, lower, upper, training, inplace)


@_overridable
def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """rrelu written into the input."""
    return _rrelu(input, lower, upper, training, True)


publish(globals())
