"""BatchNorm1d/2d/3d, LayerNorm, GroupNorm and RMSNorm."""
import numbers

import minitorch
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm", "GroupNorm", "RMSNorm"]


def _affine_parameters(module: Module, shape, affine: bool, bias: bool, dtype) -> None:
    """Registers the optional per-feature weight and bias every norm layer has."""
    if affine:
        module.weight = Parameter(minitorch.empty(shape, dtype=dtype))
        if bias:
            module.bias = Parameter(minitorch.empty(shape, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def _shape_eps_affine(module: Module, normalized_shape, eps, elementwise_affine: bool) -> None:
    """The normalized_shape (an int or a sequence), eps and elementwise_affine that
    LayerNorm and RMSNorm keep."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    module.normalized_shape = tuple(normalized_shape)
    module.eps = eps
    module.elementwise_affine = elementwise_affine


def _reset_affine(module: Module, affine: bool) -> None:
    if affine:
        init.ones_(module.weight)
        if module.bias is not None:
            init.zeros_(module.bias)


class _BatchNorm(Module):
    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *,
                 bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        _affine_parameters(self, num_features, affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", minitorch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", minitorch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", minitorch.tensor(0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Resets the running statistics and sets weight to ones and bias to zeros."""
        self.reset_running_stats()
        _reset_affine(self, self.affine)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "bias={use_bias}, track_running_stats={track_running_stats}".format(
                    **self.__dict__, use_bias=self.bias is not None))

    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias,
                            bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Applies Batch Normalization over a 2D or 3D input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Applies Batch Normalization over a 4D input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Applies Batch Normalization over a 5D input."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class LayerNorm(Module):
    """Applies Layer Normalization over a mini-batch of inputs."""

    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device=None, dtype=None) -> None:
        super().__init__()
        _shape_eps_affine(self, normalized_shape, eps, elementwise_affine)
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets weight to ones and bias to zeros."""
        _reset_affine(self, self.elementwise_affine)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(Module):
    """Applies Group Normalization over a mini-batch of inputs."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, num_channels, affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets weight to ones and bias to zeros."""
        _reset_affine(self, self.affine)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """Applies Root Mean Square Layer Normalization over a mini-batch of inputs."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        _shape_eps_affine(self, normalized_shape, eps, elementwise_affine)
        if elementwise_affine:
            self.weight = Parameter(minitorch.empty(self.normalized_shape, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Sets weight to ones."""
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return ("{normalized_shape}, eps={eps}, "
                "elementwise_affine={elementwise_affine}".format(**self.__dict__))
