"""rms_norm and instance_norm (re-exported by nn.functional): the normalizations
that are written in terms of the ones in functional.py."""
from __future__ import annotations

from typing import Optional, Sequence

import minitorch
from ..overrides import overridable as _overridable
from .functional import _torch_size, batch_norm

Tensor = minitorch.Tensor

__all__ = ["rms_norm", "instance_norm"]

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
    if eps is None:
        eps = _MACHINE_EPS.get(str(input.dtype).split(".")[-1], _MACHINE_EPS["float32"])
    dims = list(range(input.dim() - k, input.dim()))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


@_overridable
def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None,
                  running_var: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                  bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Applies Instance Normalization: each channel of each sample is normalized on
    its own statistics (or on the running ones when use_input_stats is False)."""
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {_torch_size(input)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.shape[0], input.shape[1]
    # batch norm over a (1, N*C, ...) view normalizes each (sample, channel) alone
    flat = input.reshape(1, n * c, *input.shape[2:])
    tile = (lambda t: None if t is None else t.repeat(n))
    mean_nc, var_nc = tile(running_mean), tile(running_var)
    out = batch_norm(flat, mean_nc, var_nc, tile(weight), tile(bias), use_input_stats,
                     momentum, eps).reshape(input.shape)
    if use_input_stats and running_mean is not None:
        with minitorch.no_grad():
            running_mean.copy_(mean_nc.reshape(n, c).mean(0))
            running_var.copy_(var_nc.reshape(n, c).mean(0))
    return out
