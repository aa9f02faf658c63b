"""The margin, embedding and likelihood losses of nn.functional, written with
differentiable ops (re-exported by nn.functional). Reduction and the legacy
size_average/reduce arguments go through the helpers of nn.functional."""
from __future__ import annotations

import math
from typing import Callable, Optional, Union

import minitorch
from ...composites import _UNSIGNED, _no_kernel
from ...overrides import overridable as _overridable
from .activations import logsigmoid, pairwise_distance
from .namespace import publish
from .reduction import _check_reduction, _legacy_reduction, _reduce, _torch_size

Tensor = minitorch.Tensor

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "cosine_embedding_loss", "multi_margin_loss",
           "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "multilabel_margin_loss", "triplet_margin_with_distance_loss"]

# added to the squared norms in cosine_embedding_loss, as torch does
_COSINE_EPS = 1e-12


def _reduce_strict(loss: Tensor, reduction: str) -> Tensor:
    """_reduce for the losses whose torch form rejects a reduction with '... is not valid'."""
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction)


@_overridable
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin): target 1 ranks input1 higher."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not input1.dim() == input2.dim() == target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_torch_size(input1)}, input2: "
                           f"{_torch_size(input2)}, target: {_torch_size(target)} ")
    # margin is a double in torch: an integer input gives a float loss
    return _reduce((-target * (input1 - input2) + float(margin)).clamp(min=0), reduction)


@_overridable
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where target is -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    # a target that is neither 1 nor -1 takes both terms, as in torch; the
    # margin is taken in input's dtype (an integer input keeps an integer loss)
    margin_term = (minitorch.full_like(input, margin) - input).clamp(min=0)
    loss = (minitorch.where(target != 1, margin_term, 0)
            + minitorch.where(target != -1, input, 0))
    return _reduce(loss, reduction)


@_overridable
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """The two-class logistic loss log(1 + exp(-target * input))."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.dtype in _UNSIGNED:
        raise _no_kernel("neg_cpu", input.dtype)
    if input.dtype != minitorch.bool and not input.is_floating_point() and not input.is_complex():
        # torch computes in place in input's dtype: -input * target, then exp
        common = minitorch.promote_types(input.dtype, target.dtype)
        result = common if common.is_floating_point or common.is_complex else \
            minitorch.get_default_dtype()
        raise RuntimeError(f"result type {result._scalar_name} can't be cast to the "
                           f"desired output type {input.dtype._scalar_name}")
    return _reduce((-input * target).exp().log1p(), reduction)


@_overridable
def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                size_average=None, reduce=None,
                                reduction: str = "mean") -> Tensor:
    """Per-class logistic loss averaged over the classes (the last dimension)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    return _reduce_strict(loss.sum(class_dim) / input.shape[class_dim], reduction)


@_overridable
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = target.dim()
    if dim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if not input1.dim() == input2.dim() == dim + 1:
        raise RuntimeError(f"{dim}D target tensor expects {dim + 1}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}.")
    dot = (input1 * input2).sum(dim)
    norms = (((input1 * input1).sum(dim) + _COSINE_EPS)
             * ((input2 * input2).sum(dim) + _COSINE_EPS)).sqrt()
    cos = dot / norms
    loss = (minitorch.where(target == 1, 1 - cos, 0.0)
            + minitorch.where(target == -1, (cos - margin).clamp(min=0), 0.0))
    return _reduce(loss, reduction)


@_overridable
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Optional[Tensor] = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss: sum over the wrong classes i of
    max(0, margin - input[y] + input[i])^p, divided by the number of classes."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    # a 0-d input is one sample of one class
    if input.dim() > 2 or input.dim() and input.shape[-1] == 0:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    rows = input.reshape(-1, input.shape[-1] if input.dim() else 1)
    n, c = rows.shape
    if target.dim() > 1 or target.numel() != n:
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{n}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and (weight.dim() > 1 or weight.numel() != c):
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    if target.dtype != minitorch.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{target.dtype._scalar_name}")
    labels = target.reshape(n, 1)
    if n and (int(labels.min()) < 0 or int(labels.max()) >= c):
        raise RuntimeError("target out of range")
    hinge = (margin - rows.gather(1, labels) + rows).clamp(min=0)
    if p == 2:
        hinge = hinge.square()
    if weight is not None:
        hinge = hinge * weight.gather(0, labels.reshape(-1)).reshape(n, 1)
    wrong = minitorch.arange(c).reshape(1, c) != labels
    loss = (hinge * wrong).sum(1) / c
    return _reduce(loss if input.dim() == 2 else loss.reshape(target.shape), reduction)


@_overridable
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm distance;
    swap uses the smaller of d(anchor, negative) and d(positive, negative)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.dim()}D, "
                           f"positive {positive.dim()}D, and negative {negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minitorch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


@_overridable
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """Negative log likelihood of target under a Poisson distribution of rate input
    (or exp(input) when log_input); full adds Stirling's term for target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0.0)
    return _reduce(loss, reduction)


@_overridable
def gaussian_nll_loss(input: Tensor, target: Tensor, var: Union[Tensor, float],
                      full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """Negative log likelihood of target under a normal distribution of mean input and
    variance var (clamped below at eps); full adds the constant log(2 pi) / 2."""
    if not isinstance(var, Tensor):
        var = minitorch.full_like(input, var)
    elif var.shape != input.shape:
        if var.shape == input.shape[:-1]:
            # one variance per sample, shared by its last dimension
            var = var.unsqueeze(-1)
        elif var.dim() != input.dim() or sum(
                v for i, v in zip(input.shape, var.shape) if i != v) != 1:
            # torch broadcasts var only where its mismatched sizes add up to one
            raise ValueError("var is of incorrect size")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # the clamp moves the value only: the gradient reaches var unchanged, as in torch
    var = var + (var.detach().clamp(min=eps) - var.detach())
    loss = 0.5 * (var.log() + (input - target).square() / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_strict(loss, reduction)


@_overridable
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: target lists each sample's classes, ended by the
    first -1; the sum over listed j and unlisted i of max(0, 1 - (x[j] - x[i])),
    divided by the number of classes."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    ndim = input.dim()
    if not (ndim == 2 and input.shape[1] != 0 or ndim == 1 and input.shape[0] != 0
            or ndim == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    classes = input.shape[-1] if ndim else 1
    fits = (target.dim() <= 1 and target.numel() == classes if ndim <= 1 else
            target.dim() == 2 and tuple(target.shape) == tuple(input.shape))
    if not fits:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    if target.dtype != minitorch.int64:
        raise RuntimeError("expected scalar type Long but found "
                           f"{target.dtype._scalar_name}")
    rows, labels = input.reshape(-1, classes), target.reshape(-1, classes)
    if labels.numel() and (int(labels.min()) < -1 or int(labels.max()) >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    # a sample's labels are those before its first -1; duplicates count again
    listed = (labels != -1).long().cumprod(1).bool()
    hits = (labels.unsqueeze(2) == minitorch.arange(classes)) & listed.unsqueeze(2)
    is_target = hits.any(1)
    scores = rows.gather(1, labels.clamp(min=0))
    hinge = (1 - scores.unsqueeze(2) + rows.unsqueeze(1)).clamp(min=0)
    pairs = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = (hinge * pairs).sum((1, 2)) / classes
    if reduction != "none" and not loss.numel():
        # torch leaves an empty batch's reduction unwritten memory; 0 here
        return loss.sum()
    return _reduce(loss if ndim == 2 else loss.reshape(()), reduction)


@_overridable
def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable] = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """triplet_margin_loss with any distance (pairwise_distance by default)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.dim()}D, "
                           f"positive {positive.dim()}D, and negative {negative.dim()}D inputs")
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = minitorch.minimum(d_neg, distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp(min=0), reduction)


publish(globals())
