"""rms_norm and instance_norm (re-exported by nn.functional): rms_norm on the
row-normalization kernel, instance_norm as group norm with one channel per group."""
from __future__ import annotations

from typing import Optional, Sequence

import minitorch
from ..overrides import overridable as _overridable
from .. import _C
from .functional import (_affine_eval, _check_norm_dtypes, _group_norm_rows, _prod,
                         _torch_size)

Tensor = minitorch.Tensor

__all__ = ["rms_norm", "instance_norm"]

_rms_norm_rows = _C._functions["_rms_norm_rows"]

# torch.finfo(dtype).eps: the default eps of rms_norm
_MACHINE_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
                "float64": 2.0 ** -52}


@_overridable
def rms_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
             eps: Optional[float] = None) -> Tensor:
    """Applies Root Mean Square Layer Normalization over the last len(normalized_shape)
    dimensions; eps defaults to the machine epsilon of input's dtype."""
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    normalized_shape = list(normalized_shape)
    k = len(normalized_shape)
    if input.dim() < k or list(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with "
                           f"shape [*{', '.join(map(str, normalized_shape))}], but got input "
                           f"of size{list(input.shape)}")
    if weight is not None and list(weight.shape) != normalized_shape:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{normalized_shape}")
    _check_norm_dtypes(input, "rms_norm")
    if eps is None:
        eps = _MACHINE_EPS.get(str(input.dtype).split(".")[-1], _MACHINE_EPS["float32"])
    out, _ = _rms_norm_rows(input, weight, None, 1, _prod(normalized_shape), 1, eps, True)
    return out


@_overridable
def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Applies Instance Normalization: each channel of each sample is normalized on
    its own statistics (or on the running ones when use_input_stats is False)."""
    spatial = _prod(input.shape[2:])
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
