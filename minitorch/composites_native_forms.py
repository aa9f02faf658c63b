"""torch's aten-level functions that are another form of a public op:
native_layer_norm, native_group_norm and native_batch_norm (the normalized
output with the mean and reciprocal standard deviation it used; also
_native_batch_norm_legit, its form whose running statistics may be left
out), grid_sampler_2d/3d
(grid_sample with its modes as torch's integer codes). Their gradients
follow from the ops they are written with."""
from typing import Optional, Sequence, Tuple

from ._out_param import write_out_list
from ._tensor import Tensor
from .overrides import composite

__all__ = ["native_layer_norm", "native_group_norm", "native_batch_norm",
           "_native_batch_norm_legit", "grid_sampler_2d", "grid_sampler_3d"]


def _statistics(rows: Tensor, eps: float) -> Tuple[Tensor, Tensor]:
    """The mean and 1 / sqrt(biased variance + eps) of each row (last dim)."""
    mean = rows.mean(-1, keepdim=True)
    var = (rows - mean).square().mean(-1, keepdim=True)
    return mean, (var + eps).rsqrt()


@composite(method=False)
def native_layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor],
                      bias: Optional[Tensor], eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """layer_norm over the last len(normalized_shape) dims, with the mean and
    rstd of each normalized slice (shaped as input with those dims 1)."""
    from .nn import functional as F  # nn is imported after the composites
    if not len(normalized_shape):
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    out = F.layer_norm(input, list(normalized_shape), weight, bias, eps)
    lead = list(input.shape[:input.dim() - len(normalized_shape)])
    mean, rstd = _statistics(input.reshape(lead + [-1]) if lead else input.reshape(1, -1), eps)
    keep = lead + [1] * len(normalized_shape)
    # torch's backward reads only the output's gradient: the statistics pass none
    return out, mean.detach().reshape(keep), rstd.detach().reshape(keep)


@composite(method=False)
def native_group_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor], N: int,
                      C: int, HxW: int, group: int, eps: float) -> Tuple[Tensor, Tensor, Tensor]:
    """group_norm of input ``(N, C, *)`` with `group` groups, with the mean and
    rstd of each (sample, group), shaped (N, group)."""
    from .nn import functional as F  # nn is imported after the composites
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, but got "
                           f"{input.numel()}")
    out = F.group_norm(input, group, weight, bias, eps)
    mean, rstd = _statistics(input.reshape(N, group, C // group * HxW), eps)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


@composite(method=False)
def native_batch_norm(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                      running_mean: Optional[Tensor], running_var: Optional[Tensor],
                      training: bool, momentum: float, eps: float, *,
                      out: Optional[Sequence[Tensor]] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """batch_norm (updating the running statistics in training), with the
    batch's mean and rstd per channel; empty statistics in evaluation."""
    from .nn import functional as F  # nn is imported after the composites
    if not training and (running_mean is None or running_var is None):
        # torch crashes here; its message for a missing running statistic
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    normed = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                          eps)
    if not training:
        results = (normed, input.new_empty(0), input.new_empty(0))
    else:
        channels = input.transpose(0, 1).reshape(input.shape[1], -1) if input.dim() > 1 else \
            input.reshape(1, -1)
        mean, rstd = _statistics(channels.detach(), eps)
        # as torch's, the statistics carry no derivative
        results = (normed, mean.reshape(-1), rstd.reshape(-1))
    if out is None:
        return results
    write_out_list("native_batch_norm", out, results)
    return tuple(out)


@composite(method=False)
def _native_batch_norm_legit(input: Tensor, weight: Optional[Tensor], bias: Optional[Tensor],
                             *args, out: Optional[Sequence[Tensor]] = None
                             ) -> Tuple[Tensor, Tensor, Tensor]:
    """native_batch_norm called as (input, weight, bias, running_mean,
    running_var, training, momentum, eps), or without running statistics as
    (input, weight, bias, training, momentum, eps)."""
    if len(args) == 5:
        running_mean, running_var, training, momentum, eps = args
    elif len(args) == 3:
        running_mean = running_var = None
        training, momentum, eps = args
        if not training:
            # torch crashes here
            raise RuntimeError("_native_batch_norm_legit without running statistics needs "
                               "training=True")
    else:
        raise TypeError(f"_native_batch_norm_legit() takes 6 or 8 positional arguments but "
                        f"{3 + len(args)} were given")
    return native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                             eps, out=out)


_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _sampled(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
             align_corners: bool) -> Tensor:
    from .nn.functional import grid_sample  # nn is imported after the composites
    return grid_sample(input, grid, _MODES[interpolation_mode], _PADDINGS[padding_mode],
                       align_corners)


@composite(method=False)
def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sample of a 4-d input, modes given by torch's codes
    (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
    1 border, 2 reflection)."""
    return _sampled(input, grid, interpolation_mode, padding_mode, align_corners)


@composite(method=False)
def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """grid_sample of a 5-d input, modes given by torch's codes (as
    grid_sampler_2d's)."""
    return _sampled(input, grid, interpolation_mode, padding_mode, align_corners)

