"""nn.init: in-place initialisers for parameters, in torch's formulas. They
draw from the global Generator unless given `generator=`."""
import math
import warnings
from typing import Optional

import minitorch
from ..overrides import handle_torch_function, has_torch_function_variadic

__all__ = [
    "calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
    "eye_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
    "orthogonal_",
]


def calculate_gain(nonlinearity: str, param: Optional[float] = None) -> float:
    """Return the recommended gain value for the given nonlinearity function."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


@minitorch.no_grad()
def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None):
    """Fill the input Tensor with values drawn from the uniform distribution U(a, b)."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(uniform_, (tensor,), tensor=tensor, a=a, b=b,
                                     generator=generator)
    return tensor.uniform_(a, b, generator=generator)


@minitorch.no_grad()
def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None):
    """Fill the input Tensor with values drawn from the normal distribution N(mean, std^2)."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(normal_, (tensor,), tensor=tensor, mean=mean, std=std,
                                     generator=generator)
    return tensor.normal_(mean, std, generator=generator)


def _erfinv_(t):
    """erfinv in place: Giles' single-precision approximation refined by two
    Newton steps on erf (minitorch has erf but no erfinv)."""
    y = t.double()
    w = -((1.0 - y) * (1.0 + y)).log()
    small = w < 5.0
    ws = w - 2.5
    pc = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
          -0.00125372503, -0.00417768164, 0.246640727, 1.50140941]
    p_small = minitorch.full_like(y, pc[0])
    for c in pc[1:]:
        p_small = p_small * ws + c
    wl = w.clamp(min=5.0).sqrt() - 3.0
    lc = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
          -0.0076224613, 0.00943887047, 1.00167406, 2.83297682]
    p_large = minitorch.full_like(y, lc[0])
    for c in lc[1:]:
        p_large = p_large * wl + c
    x = minitorch.where(small, p_small, p_large) * y
    for _ in range(2):
        x = x - (x.erf() - y) / (2.0 / math.sqrt(math.pi) * (-x * x).exp())
    return t.copy_(x)


@minitorch.no_grad()
def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None):
    """Fill the input Tensor with values drawn from a truncated normal distribution."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(trunc_normal_, (tensor,), tensor=tensor, mean=mean,
                                     std=std, a=a, b=b, generator=generator)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    lo = norm_cdf((a - mean) / std)
    hi = norm_cdf((b - mean) / std)
    tensor.uniform_(2 * lo - 1, 2 * hi - 1, generator=generator)
    _erfinv_(tensor)
    tensor.mul_(std * math.sqrt(2.0))
    tensor.add_(mean)
    tensor.clamp_(min=a, max=b)
    return tensor


@minitorch.no_grad()
def constant_(tensor, val: float):
    """Fill the input Tensor with the value val."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(constant_, (tensor,), tensor=tensor, val=val)
    return tensor.fill_(val)


@minitorch.no_grad()
def ones_(tensor):
    """Fill the input Tensor with the scalar value 1."""
    return tensor.fill_(1.0)


@minitorch.no_grad()
def zeros_(tensor):
    """Fill the input Tensor with the scalar value 0."""
    return tensor.zero_()


@minitorch.no_grad()
def eye_(tensor):
    """Fill the 2-dimensional input Tensor with the identity matrix."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return tensor.copy_(minitorch.eye(*tensor.shape, dtype=tensor.dtype))


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


@minitorch.no_grad()
def xavier_uniform_(tensor, gain: float = 1.0, generator=None):
    """Fill the input Tensor using the Xavier (Glorot) uniform initialisation."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return tensor.uniform_(-a, a, generator=generator)


@minitorch.no_grad()
def xavier_normal_(tensor, gain: float = 1.0, generator=None):
    """Fill the input Tensor using the Xavier (Glorot) normal initialisation."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return tensor.normal_(0.0, std, generator=generator)


@minitorch.no_grad()
def kaiming_uniform_(tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator=None):
    """Fill the input Tensor using the Kaiming (He) uniform initialisation."""
    if has_torch_function_variadic(tensor):
        return handle_torch_function(kaiming_uniform_, (tensor,), tensor=tensor, a=a,
                                     mode=mode, nonlinearity=nonlinearity, generator=generator)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return tensor.uniform_(-bound, bound, generator=generator)


@minitorch.no_grad()
def kaiming_normal_(tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator=None):
    """Fill the input Tensor using the Kaiming (He) normal initialisation."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return tensor.normal_(0, std, generator=generator)


def _householder_qr(a):
    """Q (m x n, orthonormal columns) and diag(R) of a float64 m x n matrix, m >= n."""
    m, n = a.shape
    r = a.clone()
    q = minitorch.eye(m, n, dtype=a.dtype)
    vs, diag = [], []
    for k in range(n):
        x = r[k:, k]
        norm = float(x.norm())
        x0 = float(x[0])
        alpha = -norm if x0 >= 0 else norm
        v = x.clone()
        v[0] = x0 - alpha
        vnorm = float(v.norm())
        if vnorm > 0:
            v = v / vnorm
            block = r[k:, k:]
            block -= 2.0 * minitorch.outer(v, v @ block)
        vs.append(v if vnorm > 0 else None)
        diag.append(alpha if vnorm > 0 else x0)
    for k in range(n - 1, -1, -1):
        v = vs[k]
        if v is not None:
            block = q[k:, :]
            block -= 2.0 * minitorch.outer(v, v @ block)
    return q, minitorch.tensor(diag, dtype=a.dtype)


@minitorch.no_grad()
def orthogonal_(tensor, gain: float = 1, generator=None):
    """Fill the input Tensor with a (semi) orthogonal matrix."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = minitorch.empty(rows, cols, dtype=minitorch.float64).normal_(
        0, 1, generator=generator)
    if rows < cols:
        flattened = flattened.t()
    q, d = _householder_qr(flattened)
    q = q * d.sign()
    if rows < cols:
        q = q.t()
    tensor.view(q.shape).copy_(q)
    tensor.mul_(gain)
    return tensor
