"""The pointwise, classification and divergence losses of nn.functional:
mse, l1, smooth_l1 and huber; nll and cross_entropy (on their C rows where
they apply); binary cross entropy with and without logits; kl_div."""
from __future__ import annotations

import math
import warnings
from typing import Optional

import minitorch
from ... import _C
from ...composites import _no_kernel, _require_real_float
from ...overrides import overridable as _overridable
from .namespace import publish
from .reduction import _REDUCTIONS, _check_reduction, _legacy_reduction, _reduce, _torch_size

Tensor = minitorch.Tensor

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"]


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({_torch_size(target)}) that is different to the input size "
            f"({_torch_size(input)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _require_float_pair(kernel: str, input: Tensor, target: Tensor) -> None:
    """torch's refusal of input and target whose common dtype its loss
    kernel (dispatched over the floating types) has no entry for."""
    common = minitorch.promote_types(input.dtype, target.dtype)
    if not common.is_floating_point:
        raise _no_kernel(kernel, common)


def _difference_loss(of_diff, input, target, size_average, reduce, reduction, weight,
                     kernel=None):
    """of_diff(input - target), optionally weighted, reduced as asked; kernel
    names torch's, where it refuses integers, bool and complex numbers."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    _check_reduction(reduction)
    if kernel is not None:
        _require_float_pair(kernel, input, target)
    loss = of_diff(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_overridable
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Measures the element-wise mean squared error."""
    return _difference_loss(Tensor.square, input, target, size_average, reduce, reduction,
                            weight, "mse_cpu")


@_overridable
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
            reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Measures the element-wise mean absolute error."""
    return _difference_loss(Tensor.abs, input, target, size_average, reduce, reduction, weight)


@_overridable
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """Squared term below beta, L1 term above it."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta != 0.0:
        # beta 0 is torch's l1_loss, which takes every dtype
        _require_float_pair("smooth_l1_cpu", input, target)
    diff = (input - target).abs()
    if beta == 0.0:
        loss = diff
    else:
        loss = minitorch.where(diff < beta, 0.5 * diff.square() / beta, diff - 0.5 * beta)
    return _reduce(loss, reduction)


@_overridable
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean",
               delta: float = 1.0, weight: Optional[Tensor] = None) -> Tensor:
    """Squared term below delta, delta-scaled L1 term above it."""
    _warn_size(input, target)
    _check_reduction(reduction)
    if weight is not None and weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _require_float_pair("huber_cpu", input, target)
    diff = (input - target).abs()
    loss = minitorch.where(diff < delta, 0.5 * diff.square(), delta * (diff - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


_nll_loss = _C._functions["_nll_loss"]


def _nll(input: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int,
         reduction: str) -> Tensor:
    """nll_loss over (N, C, d...) input and (N, d...) long target, or (C,) and ().

    The shapes are checked here; classes, weights and the picking are C's
    (_nll_loss), which takes 1-, 2- and 4-D inputs. Other ranks go through
    the 4-D form as (N, C, 1, rest), as torch's nll_loss_nd does."""
    _check_reduction(reduction)
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() == 1:
        if target.dim() > 1 or (target.dim() == 1 and target.shape[0] != 1):
            raise ValueError("For 1D input, 1D target must have size 1, but got target "
                             f"size: {target.shape[0] if target.dim() == 1 else target.numel()}")
    elif input.shape[0] != target.shape[0] if target.dim() else True:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.dim() else 0}).")
    if input.dim() == 2 and target.dim() != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, "
                           f"got {list(target.shape)}")
    # torch checks the shapes before its kernel checks the dtype
    if target.is_floating_point() or target.dtype == minitorch.bool:
        name = {minitorch.float32: "Float", minitorch.float64: "Double",
                minitorch.float16: "Half", minitorch.bfloat16: "BFloat16",
                minitorch.bool: "Bool"}[target.dtype]
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if target.dtype != minitorch.int64:
        target = target.long()
    red = _REDUCTIONS[reduction]
    if input.dim() in (1, 2, 4):
        return _nll_loss(input, target, weight, red, ignore_index)
    n, c = input.shape[0], input.shape[1]
    rest = math.prod(input.shape[2:])
    out = _nll_loss(input.reshape(n, c, 1, rest), target.reshape(n, 1, rest), weight, red,
                    ignore_index)
    return out.reshape(target.shape) if reduction == "none" else out


@_overridable
def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
             size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean") -> Tensor:
    """The negative log likelihood loss."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _nll(input, target, weight, ignore_index, reduction)


_cross_entropy = _C._functions["_cross_entropy"]


def _fused_cross_entropy_applies(input: Tensor, target: Tensor,
                                 weight: Optional[Tensor]) -> bool:
    """Whether the fused row (_cross_entropy) takes these operands: float32 or
    float64 logits, int64 class indices of the matching shape, a weight per
    class of the logits' dtype. Everything else, errors included, goes the
    composite way (log_softmax, then _nll), whose checks speak as torch's."""
    if input.dtype not in (minitorch.float32, minitorch.float64) or input.dim() < 1:
        return False
    if target.dtype != minitorch.int64:
        return False
    if input.dim() == 1:
        shape_ok = target.dim() == 0
    else:
        shape_ok = tuple(target.shape) == (input.shape[0],) + tuple(input.shape[2:])
    n_classes = input.shape[0 if input.dim() == 1 else 1]
    return shape_ok and (weight is None or (weight.dtype == input.dtype and weight.dim() == 1
                                            and weight.shape[0] == n_classes
                                            and not weight.requires_grad))


@_overridable
def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                  size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """Cross entropy between input logits and target class indices or probabilities."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not label_smoothing > 0.0:
        label_smoothing = 0.0  # torch smooths only for a positive value, unchecked otherwise
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    class_dim = 0 if input.dim() == 1 else 1
    n_classes = input.shape[class_dim]
    if target.shape == input.shape and not target.is_floating_point():
        # a target shaped like the input holds class probabilities, never indices
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {target.dtype._scalar_name}")
    if _fused_cross_entropy_applies(input, target, weight):
        x, t = input.contiguous(), target.contiguous()
        flat = input.dim() == 3 or input.dim() > 4
        if flat:
            # the 4-D form, as torch's nll_loss_nd: its node and view names
            x = x.reshape(input.shape[0], n_classes, 1, -1)
            t = t.reshape(input.shape[0], 1, -1)
        out = _cross_entropy(x, t, None if weight is None else weight.contiguous(),
                             _REDUCTIONS[reduction], ignore_index, label_smoothing)[0]
        return out.reshape(target.shape) if flat and reduction == "none" else out
    logp = input.log_softmax(class_dim)
    wshape = [1] * input.dim()
    wshape[class_dim] = n_classes
    if target.is_floating_point() and target.shape == input.shape:
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0.0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -prod.sum(class_dim)
        if reduction == "none":
            return loss
        if reduction == "sum":
            return loss.sum()
        if input.numel() == 0:
            return loss.sum() * float("nan")
        return loss.sum() / (input.numel() // n_classes)
    nll = _nll(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    ignored = target == ignore_index
    if weight is not None:
        smooth = -(logp * weight.reshape(wshape)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target.masked_select(~ignored).reshape(-1)
            smooth = smooth.sum() / weight.gather(0, kept).sum()
        else:
            smooth = smooth.sum() / (~ignored).sum()
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)


class _BinaryCrossEntropy(minitorch.autograd.Function):
    """The elementwise loss with torch's gradients, which stay finite where the
    clamped logarithm saturates (input 0 or 1)."""

    @staticmethod
    def forward(ctx, input: Tensor, target: Tensor) -> Tensor:
        ctx.save_for_backward(input, target)
        ctx.save_for_forward(input, target)
        return -(target * input.log().clamp(min=-100)
                 + (1 - target) * (1 - input).log().clamp(min=-100))

    @staticmethod
    def _input_term(grad: Tensor, input: Tensor, target: Tensor) -> Tensor:
        return grad * (input - target) / ((1 - input) * input).clamp(min=1e-12)

    @staticmethod
    def _target_term(grad: Tensor, input: Tensor) -> Tensor:
        return grad * ((1 - input).log() - input.log())

    @staticmethod
    def backward(ctx, grad: Tensor):
        input, target = ctx.saved_tensors
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = _BinaryCrossEntropy._input_term(grad, input, target)
        if ctx.needs_input_grad[1]:
            grad_target = _BinaryCrossEntropy._target_term(grad, input)
        return grad_input, grad_target

    @staticmethod
    def jvp(ctx, input_t: Optional[Tensor], target_t: Optional[Tensor]) -> Tensor:
        """torch's tangent: the two gradient terms applied to the tangents."""
        input, target = ctx.saved_tensors
        terms = []
        if input_t is not None:
            terms.append(_BinaryCrossEntropy._input_term(input_t, input, target))
        if target_t is not None:
            terms.append(_BinaryCrossEntropy._target_term(target_t, input))
        return sum(terms[1:], terms[0]) if terms else minitorch.zeros_like(input)


@_overridable
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross entropy between probabilities and targets (log clamped at -100)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({_torch_size(target)}) that is different to the "
                         f"input size ({_torch_size(input)}) is deprecated. Please ensure they "
                         "have the same size.")
    _check_reduction(reduction)
    if input.numel() and bool(((input < 0) | (input > 1)).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = _BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_overridable
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Optional[Tensor] = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    """Sigmoid followed by binary cross entropy, in the numerically stable form."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({_torch_size(target)}) must be the same as input size "
                         f"({_torch_size(input)})")
    _check_reduction(reduction)
    _require_real_float("log_sigmoid_cpu", input)
    # log(1 + exp(-x)) computed without overflow: max(-x, 0) + log(exp(-max) + exp(-x - max))
    log_sig_neg = (-input).clamp(min=0) + (-(-input).clamp(min=0)).exp().add(
        (-input - (-input).clamp(min=0)).exp()).log()
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * log_sig_neg
    else:
        loss = (1 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_overridable
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """The Kullback-Leibler divergence loss; input holds log-probabilities."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", stacklevel=2)
    if input.is_complex() or target.is_complex():
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if not (input.is_floating_point() and target.is_floating_point()):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        xlogy = minitorch.where(target == 0, 0.0, target * target.log())
        loss = minitorch.where(target.isnan(), target, xlogy) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


publish(globals())
