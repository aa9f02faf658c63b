"""The normalizations of nn.functional: batch_norm (training on its fused C row,
inference as one multiply-add per channel), layer_norm, group_norm and
rms_norm on the row-normalization kernels, instance_norm as group norm with
one channel per group."""
from __future__ import annotations

import math
from typing import Optional, Sequence

import minitorch
from ... import _C
from ...overrides import overridable as _overridable
from .namespace import publish
from .reduction import _torch_size

Tensor = minitorch.Tensor

__all__ = ["batch_norm", "layer_norm", "group_norm", "rms_norm", "instance_norm",
           "local_response_norm"]


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    """A per-channel vector shaped to broadcast along dim 1 of an ndim tensor."""
    return t.reshape(*([1, t.numel()] + [1] * (ndim - 2)))


_layer_norm_rows = _C._functions["_layer_norm_rows"]
_group_norm_rows = _C._functions["_group_norm_rows"]
_batch_norm_train = _C._functions["_batch_norm_train"]
_rms_norm_rows = _C._functions["_rms_norm_rows"]


def _check_norm_dtypes(input: Tensor, kernel: str, *params: Optional[Tensor]) -> None:
    """torch's dtype rules for the normalization kernels: a floating input, and
    parameters of its dtype, or float32 ones beside a float16/bfloat16 input."""
    dtype = input.dtype
    for p in params:
        if p is not None and p.dtype is not dtype:
            break
    else:
        if input.is_floating_point():
            return  # the common case, without building the set below
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{input.dtype._scalar_name}'")
    dtypes = {p.dtype for p in params if p is not None}
    if not dtypes or dtypes == {input.dtype}:
        return
    if input.dtype == minitorch.float64:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    if input.dtype == minitorch.float32 or dtypes != {minitorch.float32}:
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")


def _affine_eval(input: Tensor, mean: Tensor, var: Tensor, weight: Optional[Tensor],
                 bias: Optional[Tensor], eps: float) -> Tensor:
    """input * scale + shift per channel (dim 1), as torch's inference kernel folds
    the statistics and the affine parameters into one multiply-add."""
    scale = (var + eps).rsqrt()
    if weight is not None:
        scale = scale * weight
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias
    return minitorch.addcmul(_channel_view(shift, input.dim()), input,
                             _channel_view(scale, input.dim()))


@_overridable
def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Applies Batch Normalization for each channel across a batch of data."""
    if training:
        size = input.shape
        n = 1
        for i, s in enumerate(size):
            if i != 1:
                n *= s
        if n == 1:
            raise ValueError("Expected more than 1 value per channel when training, got "
                             f"input size {size}")
    _check_norm_dtypes(input, "batch_norm", weight, bias)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    channels = input.shape[1] if input.dim() > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if input.numel() == 0:
        # torch returns the input through the affine map and leaves the running
        # statistics alone
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if training:
        out, _ = _batch_norm_train(input, weight, bias, running_mean, running_var, momentum, eps)
        return out
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is None:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    return _affine_eval(input, running_mean, running_var, weight, bias, eps)


@_overridable
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Applies Layer Normalization over the last len(normalized_shape) dimensions."""
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    # compared with Sizes as they are; the messages' lists only on failure
    shape = tuple(normalized_shape)
    k = len(shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    dims = tuple(input.shape)  # a tuple slices in a tenth of a Size's time
    if len(dims) < k or dims[len(dims) - k:] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with "
                           f"shape [*, {', '.join(map(str, shape))}], but got "
                           f"input of size{list(input.shape)}")
    _check_norm_dtypes(input, "LayerNormKernelImpl", weight, bias)
    out, _ = _layer_norm_rows(input, weight, bias, 1, math.prod(shape), 1, eps, False)
    return out


@_overridable
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Applies Group Normalization over groups of channels."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    c = input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            # torch prints the weight's shape in both messages (an undefined one as [0])
            shown = list(weight.shape) if weight is not None else [0]
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {shown} and input "
                               f"of shape {list(input.shape)}")
    _check_norm_dtypes(input, "GroupNormKernelImpl", weight, bias)
    out, _ = _group_norm_rows(input, weight, bias, num_groups, c, math.prod(input.shape[2:]), eps,
                              False)
    return out


# torch.finfo(dtype).eps: the default eps of rms_norm
_MACHINE_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
                "float64": 2.0 ** -52}


def _rms_norm_complex(input: Tensor, k: int, weight: Optional[Tensor],
                      eps: Optional[float]) -> Tensor:
    """torch's rms_norm of complex values, composed as torch composes it: the
    mean of the squares (x**2, not |x|**2) over the last k dims, eps (by
    default the machine epsilon of the part dtype) added, its rsqrt times x."""
    if eps is None:
        eps = _MACHINE_EPS[str(input.dtype.to_real()).split(".")[-1]]
    dims = list(range(input.dim() - k, input.dim()))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


@_overridable
def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """Applies Root Mean Square Layer Normalization over the last len(normalized_shape)
    dimensions; eps defaults to the machine epsilon of input's dtype."""
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    shape = tuple(normalized_shape)
    normalized_shape = list(shape)
    k = len(shape)
    if not k:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if input.dim() < k or input.shape[input.dim() - k:] != shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with "
                           f"shape [*{', '.join(map(str, normalized_shape))}], but got input "
                           f"of size{list(input.shape)}")
    if weight is not None and weight.shape != shape:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{normalized_shape}")
    if input.is_complex():
        return _rms_norm_complex(input, k, weight, eps)
    _check_norm_dtypes(input, "rms_norm")
    if eps is None:
        eps = _MACHINE_EPS.get(str(input.dtype).split(".")[-1], _MACHINE_EPS["float32"])
    out, _ = _rms_norm_rows(input, weight, None, 1, math.prod(shape), 1, eps, True)
    return out


@_overridable
def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Applies Instance Normalization: each channel of each sample is normalized on
    its own statistics (or on the running ones when use_input_stats is False)."""
    spatial = math.prod(input.shape[2:])
    if use_input_stats:
        if spatial == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {_torch_size(input)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.shape[0], input.shape[1]
    # torch normalizes a (1, N*C, ...) view with every per-channel tensor tiled N times
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {t.numel() * n}")
    if not use_input_stats:
        return _affine_eval(input, running_mean, running_var, weight, bias, eps)
    # group norm with one channel per group: each (sample, channel) on its own
    out, stats = _group_norm_rows(input, weight, bias, c, c, spatial, eps, False)
    if running_mean is not None or running_var is not None:
        with minitorch.no_grad():
            stats = stats.reshape(n, c, 2)
            if running_mean is not None:
                running_mean.lerp_(stats[:, :, 0].mean(0).to(running_mean.dtype), momentum)
            if running_var is not None:
                var = (stats[:, :, 1].pow(-2) - eps) * (spatial / (spatial - 1))
                running_var.lerp_(var.mean(0).to(running_var.dtype), momentum)
    return out


@_overridable
def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of the squares over `size` neighbouring
    channels) ** beta, the window zero-padded at the ends of dimension 1."""
    dim = input.dim()
    if dim < 3:
        # torch's message carries the indentation of its source line
        raise ValueError("Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    squares = minitorch.nn.functional.pad(input * input,
                                          (0, 0) * (dim - 2) + (size // 2, (size - 1) // 2))
    total = squares.unfold(1, size, 1).sum(-1)
    # torch averages with a pooling kernel, which divides integers exactly
    mean = total / size if input.is_floating_point() else total // size
    return input / (mean * alpha + k) ** beta


publish(globals())
