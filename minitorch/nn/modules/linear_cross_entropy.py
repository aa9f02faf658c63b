"""LinearCrossEntropyLoss, a Linear layer and cross entropy in one module, and
LinearCrossEntropyOptions, torch's chunking settings for it (validated as
torch validates them; minitorch computes the loss in one piece whatever they
say, see nn.functional.linear_cross_entropy)."""
import dataclasses
import math
from typing import Optional

import minitorch
from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


@dataclasses.dataclass
class LinearCrossEntropyOptions:
    """How torch's chunked linear_cross_entropy splits the batch and accumulates."""

    allow_retain_graph: bool = False
    batch_chunk_size: Optional[int] = None
    chunking_method: Optional[str] = "auto"
    acc_policy: str = "auto"
    acc_dtype: Optional[minitorch.dtype] = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or isinstance(size, int) and size > 0):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        floats = (minitorch.float16, minitorch.bfloat16, minitorch.float32, minitorch.float64)
        if self.acc_dtype is not None and self.acc_dtype not in floats:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of the logits of a Linear(in_features, num_classes *
    prod(out_features)) layer the module holds."""

    def __init__(self, in_features: int, num_classes: int, *, out_features=(),
                 bias: bool = False, device=None, dtype=None, reduction: str = "mean",
                 weight=None, ignore_index: Optional[int] = None, label_smoothing: float = 0.0,
                 options: Optional[LinearCrossEntropyOptions] = None) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight, None, None, reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias.reshape(shape) if self.linear.bias is not None else None
        return F.linear_cross_entropy(
            input, self.linear.weight.reshape(*shape, self.linear.in_features), target,
            linear_bias=bias, weight=self.weight, reduction=self.reduction,
            ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
            options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
