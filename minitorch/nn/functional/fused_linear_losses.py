"""nn.functional.linear_cross_entropy (re-exported by nn.functional): the
cross entropy of a linear projection's logits, torch 2.13's fused loss.

torch's `options` choose a chunked path that saves memory; its values and
gradients are the reference path's (up to rounding), which is what runs
here for every options: the loss is the composite linear + cross_entropy,
its autograd and forward-mode AD theirs. Options that torch's chunked path
cannot honour still get torch's warning."""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish

Tensor = minitorch.Tensor

__all__ = ["linear_cross_entropy"]


def _check_shapes(input: Tensor, linear_weight: Tensor, linear_bias: Optional[Tensor]):
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return classes, out_features


@_overridable
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Optional[Tensor] = None, weight: Optional[Tensor] = None,
                         reduction: str = "mean", ignore_index: Optional[int] = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target); a
    linear_weight of shape (C, d_1, ..., d_K, in_features) gives the logits
    (N, C, d_1, ..., d_K) of a K-dimensional loss. ignore_index (None: -100)
    cannot be given with class-probability targets."""
    classes, out_features = _check_shapes(input, linear_weight, linear_bias)
    logits_shape = (*input.shape[:-1], classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or target.dtype != minitorch.int64):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        dtype = str(target.dtype).replace("minitorch.", "torch.")
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction "
                      "in {'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                      f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                      f"{label_smoothing}, target.dtype={dtype}, out_features={out_features}, "
                      f"tracing=False, linear_bias.shape={bias_shape}.", stacklevel=3)
    if out_features:
        rows = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape(rows, input.shape[-1])
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(rows)
    F = minitorch.nn.functional
    logits = F.linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)


publish(globals())
