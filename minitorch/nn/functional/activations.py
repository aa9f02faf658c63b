"""The activations and similarity measures of nn.functional that are written
in Python with differentiable ops (re-exported by nn.functional).

Where torch's derivative differs from the composite's at a kink (hardtanh
at its bounds, the hard* family at +-3), constants from `where` pin it to
torch's value."""
from __future__ import annotations

from typing import Optional

import minitorch
from ..._out_param import write_out
from ...composites import _UNSIGNED, _no_kernel, _require_real_float
from ...overrides import overridable as _overridable
from .namespace import publish
from .op_rows import softmax, softplus

Tensor = minitorch.Tensor

__all__ = ["elu", "selu", "celu", "relu6", "hardtanh", "hardsigmoid", "hardswish", "mish",
           "logsigmoid", "softsign", "softshrink", "hardshrink", "tanhshrink",
           "glu", "softmin", "normalize", "cosine_similarity", "pairwise_distance"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _out(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    return input.copy_(out) if inplace else out


@_overridable
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    _require_real_float("elu_cpu", input)
    return _out(input, minitorch.where(input > 0, input, alpha * input.expm1()), inplace)


@_overridable
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with the self-normalising constants."""
    _require_real_float("elu_cpu", input)
    out = _SELU_SCALE * minitorch.where(input > 0, input, _SELU_ALPHA * input.expm1())
    return _out(input, out, inplace)


@_overridable
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _require_real_float("elu_cpu", input)
    out = minitorch.where(input > 0, input, alpha * (input / alpha).expm1())
    return _out(input, out, inplace)


@_overridable
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """x clamped to [min_val, max_val]; the gradient is 0 at the bounds, as torch's."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype == minitorch.bool:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if input.is_complex():
        raise NotImplementedError("clamp is not supported for complex types")
    if input.dtype in _UNSIGNED:
        raise _no_kernel("clamp_scalar_cpu", input.dtype)
    if not input.is_floating_point():
        # torch's kernel takes the bounds in the input's type: ints stay ints
        min_val, max_val = int(min_val), int(max_val)
        if input.dtype == minitorch.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    # NaN is inside (torch's gradient passes it through)
    inside = ~((input <= min_val) | (input >= max_val))
    out = minitorch.where(inside, input, input.detach().clamp(min_val, max_val))
    return _out(input, out, inplace)


@_overridable
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


@_overridable
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """0 below -3, 1 above 3, x / 6 + 1 / 2 between."""
    _require_real_float("hardsigmoid_cpu", input)
    out = minitorch.where(input <= -3, 0.0, minitorch.where(input >= 3, 1.0, input / 6 + 0.5))
    return _out(input, out, inplace)


@_overridable
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * hardsigmoid(x)."""
    _require_real_float("hardswish_cpu", input)
    out = minitorch.where(input <= -3, 0.0,
                          minitorch.where(input >= 3, input, input * (input + 3) / 6))
    return _out(input, out, inplace)


@_overridable
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    _require_real_float("mish_cpu", input)
    return _out(input, input * softplus(input).tanh(), inplace)


@_overridable
def logsigmoid(input: Tensor, *, out: Optional[Tensor] = None) -> Tensor:
    """log(sigmoid(x)), as -softplus(-x) so it stays finite."""
    _require_real_float("log_sigmoid_cpu", input)
    return write_out(out, -softplus(-input))


@_overridable
def softsign(input: Tensor) -> Tensor:
    """``x / (1 + abs(x))``."""
    return input / (1 + input.abs())


@_overridable
def softshrink(input: Tensor, lambd: float = 0.5, *, out: Optional[Tensor] = None) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    _require_real_float("softshrink_check", input)
    top = minitorch.finfo(input.dtype).max if input.is_floating_point() else float("inf")
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{input.dtype._scalar_name}, but found "
                           f"{lambd:g}")
    # as torch's kernels: x * 0 keeps -0.0; NaN is outside [-lambd, lambd],
    # stays NaN and passes its gradient
    inside = (input >= -lambd) & (input <= lambd)
    return write_out(out, minitorch.where(
        inside, input * 0, minitorch.where(input > lambd, input - lambd, input + lambd)))


@_overridable
def hardshrink(input: Tensor, lambd: float = 0.5, *, out: Optional[Tensor] = None) -> Tensor:
    """``x`` where ``abs(x) > lambd``, else 0."""
    _require_real_float("hardshrink_cpu", input)
    return write_out(out, minitorch.where((input >= -lambd) & (input <= lambd), 0.0, input))


@_overridable
def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


@_overridable
def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the two halves a, b of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.dim()
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    _require_real_float("glu_cpu", input)
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


@_overridable
def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """softmax(-x) along dim."""
    return softmax(-input, dim, dtype=dtype)


@_overridable
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Optional[Tensor] = None) -> Tensor:
    """``x / max(norm_p(x) along dim, eps)``."""
    norm = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is None:
        return input / norm
    return minitorch.div(input, norm, out=out)


@_overridable
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 along dim (broadcast), each
    norm held at least eps."""
    common = minitorch.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common._scalar_name}")
    x1, x2 = minitorch.broadcast_tensors(x1.to(common), x2.to(common))
    n1 = x1.norm(dim=dim, keepdim=True).clamp(min=eps)
    n2 = x2.norm(dim=dim, keepdim=True).clamp(min=eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@_overridable
def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dim."""
    diff = x1 - x2 + eps
    return diff.norm(p, dim=-1, keepdim=keepdim)


publish(globals())
