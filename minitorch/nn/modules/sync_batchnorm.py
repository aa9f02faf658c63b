"""SyncBatchNorm: batch normalization whose training statistics are those of the
whole batch across the ranks of a process group, as torch.nn.SyncBatchNorm.

Each rank reduces its own share to (count, mean, sum of squared deviations)
per channel; an all_gather brings every rank's triple, combined with the
parallel-variance formula (stable where sum and sum of squares would cancel).
Backward all-reduces the two per-channel sums the input gradient needs, so
every rank's input gradient is its part of the whole batch's; the weight and
bias gradients stay local (DistributedDataParallel averages them). In eval
mode, outside an initialized process group, or on one rank, it is BatchNorm.
"""
import minitorch
from ...autograd.function import Function, once_differentiable
from .. import functional as F
from .normalization import _BatchNorm

__all__ = ["SyncBatchNorm"]


def _per_channel(t, ndim: int):
    """A (C,) tensor shaped to broadcast over (N, C, *)."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


def _global_stats(x, eps: float, group, world_size: int):
    """(mean, invstd, var, count) of channel-wise statistics over every rank's `x`."""
    from ... import distributed as dist
    channels = x.shape[1]
    dims = [0] + list(range(2, x.dim()))
    count = x.numel() // channels
    stat_dtype = minitorch.promote_types(x.dtype, minitorch.float32)
    xs = x.to(stat_dtype)
    if count:
        mean = xs.mean(dims)
        m2 = ((xs - _per_channel(mean, x.dim())) ** 2).sum(dims)
    else:
        mean = m2 = minitorch.zeros(channels, dtype=stat_dtype)
    mine = minitorch.cat([minitorch.tensor([float(count)], dtype=stat_dtype), mean, m2])
    parts = [minitorch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(parts, mine, group)
    table = minitorch.stack(parts)
    table = table[table[:, 0] >= 1]
    counts = table[:, :1]
    total = counts.sum()
    mean = (table[:, 1:1 + channels] * counts).sum(0) / total
    m2 = (table[:, 1 + channels:] + counts * (table[:, 1:1 + channels] - mean) ** 2).sum(0)
    var = m2 / total
    return mean, (var + eps).rsqrt(), var, total


class _SyncBatchNormFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group,
                world_size):
        x = input.contiguous()
        mean, invstd, var, total = _global_stats(x, eps, group, world_size)
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.to(running_mean.dtype) * momentum)
            unbiased = var * total / (total - 1)
            running_var.mul_(1 - momentum).add_(unbiased.to(running_var.dtype) * momentum)
        mean, invstd = mean.to(x.dtype), invstd.to(x.dtype)
        out = (x - _per_channel(mean, x.dim())) * _per_channel(invstd, x.dim())
        if weight is not None:
            out = out * _per_channel(weight, x.dim())
        if bias is not None:
            out = out + _per_channel(bias, x.dim())
        ctx.save_for_backward(x, weight, mean, invstd)
        ctx.group, ctx.total = group, total
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        from ... import distributed as dist
        x, weight, mean, invstd = ctx.saved_tensors
        nd = x.dim()
        dims = [0] + list(range(2, nd))
        grad = grad_output.contiguous()
        xmu = x - _per_channel(mean, nd)
        sum_dy = grad.sum(dims)
        sum_dy_xmu = (grad * xmu).sum(dims)
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            sums = minitorch.cat([sum_dy, sum_dy_xmu])
            dist.all_reduce(sums, group=ctx.group)
            channels = x.shape[1]
            total = ctx.total.to(x.dtype)
            mean_dy = sums[:channels] / total
            mean_dy_xmu = sums[channels:] / total
            scale = invstd if weight is None else invstd * weight
            grad_input = (grad - _per_channel(mean_dy, nd)
                          - xmu * _per_channel(invstd * invstd * mean_dy_xmu, nd)) \
                * _per_channel(scale, nd)
        if weight is not None and ctx.needs_input_grad[1]:
            grad_weight = sum_dy_xmu * invstd
        if weight is not None and ctx.needs_input_grad[2]:
            grad_bias = sum_dy
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """Applies Batch Normalization over an N-dimensional input (N >= 2), with the
    statistics of the whole batch across the ranks of ``process_group`` when
    training (default group: the world)."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None,
                 dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def _check_non_zero_input_channels(self, input) -> None:
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        from ... import distributed as dist
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / self.num_batches_tracked.item()
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        running_mean = self.running_mean if use_stats else None
        running_var = self.running_var if use_stats else None
        group, world_size = None, 1
        if bn_training and self.training and dist.is_available() and dist.is_initialized():
            group = self.process_group if self.process_group else dist.group.WORLD
            world_size = dist.get_world_size(group)
        if world_size <= 1:
            return F.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                bn_training, factor, self.eps)
        return _SyncBatchNormFunction.apply(input, self.weight, self.bias, running_mean,
                                            running_var, self.eps, factor, group, world_size)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*D layer in it replaced by a SyncBatchNorm
        sharing its parameters and buffers (a new layer when ``module`` is one)."""
        converted = module
        if isinstance(module, _BatchNorm):
            converted = SyncBatchNorm(module.num_features, module.eps, module.momentum,
                                      module.affine, module.track_running_stats, process_group,
                                      bias=module.bias is not None)
            if module.affine:
                with minitorch.no_grad():
                    converted.weight = module.weight
                    converted.bias = module.bias
            converted.running_mean = module.running_mean
            converted.running_var = module.running_var
            converted.num_batches_tracked = module.num_batches_tracked
            converted.training = module.training
            if hasattr(module, "qconfig"):
                converted.qconfig = module.qconfig
        for name, child in module.named_children():
            converted.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return converted
