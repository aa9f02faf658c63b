"""minitorch.nn.functional: the functional forms of layers and losses.

Functions declared in the op table with MT_KIND_NN come from C and dispatch
__torch_function__ there; the Python-level ones below are written with
differentiable minitorch ops and dispatch through overrides.overridable.
"""
from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, List, Optional, Sequence

import minitorch
from .. import _C
from ..overrides import overridable as _overridable

globals().update(_C._nn_functions)
if TYPE_CHECKING:  # the same functions, typed from their rows (tools/gen_stubs.py)
    from ._op_functions import *  # noqa: F401,F403

Tensor = minitorch.Tensor


# ---- linear -----------------------------------------------------------------------

@_overridable
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor,
             bias: Optional[Tensor] = None) -> Tensor:
    """Applies a bilinear transformation: y = x1^T A x2 + b."""
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError("bilinear(): input batch dimensions do not match: got "
                           f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, input1.shape[-1])
    x2 = input2.reshape(-1, input2.shape[-1])
    out = minitorch.einsum("bi,oij,bj->bo", x1, weight, x2)
    if bias is not None:
        out = out + bias
    return out.reshape(*lead, weight.shape[0])


# ---- dropout ----------------------------------------------------------------------

def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


@_overridable
def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Randomly zeroes elements of the input with probability p (from the global
    Generator) and scales the rest by 1/(1-p) during training."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
        return input.copy_(out) if inplace else out
    # the scaled mask is built outside autograd, so forward and backward are one
    # multiply each; dividing by 1 - p rounds as torch's does
    with minitorch.no_grad():
        keep = minitorch.empty_like(input).bernoulli_(1.0 - p).div_(1.0 - p)
    return input.mul_(keep) if inplace else input * keep


# ---- embedding ----------------------------------------------------------------------

class _ScaleGrad(minitorch.autograd.Function):
    """Identity forward; the backward multiplies the gradient by scale."""

    @staticmethod
    def forward(ctx, input: Tensor, scale: Tensor) -> Tensor:
        ctx.save_for_backward(scale)
        return input.clone()

    @staticmethod
    def backward(ctx, grad: Tensor):
        scale, = ctx.saved_tensors
        return grad * scale, None


@_overridable
def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None,
              max_norm: Optional[float] = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Looks up rows of weight at the indices in input."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if input.dtype not in (minitorch.int64, minitorch.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    # index_select checks the indices, with embedding's message
    flat = input.reshape(-1)
    if max_norm is not None:
        _embedding_renorm_(weight, flat, max_norm, norm_type)
    rows = weight.index_select(0, flat)
    if padding_idx is not None:
        # The padding row reads as it is but never receives a gradient.
        rows = minitorch.where((flat == padding_idx).unsqueeze(1), rows.detach(), rows)
    if scale_grad_by_freq and rows.requires_grad:
        # each row's gradient is divided by how often its index occurs in the batch
        ones = minitorch.ones(flat.shape, dtype=weight.dtype)
        counts = minitorch.zeros(weight.size(0), dtype=weight.dtype).index_add_(0, flat, ones)
        counts = counts.index_select(0, flat)
        rows = _ScaleGrad.apply(rows, (1.0 / counts).unsqueeze(1))
    return rows.reshape(*input.shape, weight.size(1))


@minitorch.no_grad()
def _embedding_renorm_(weight: Tensor, indices: Tensor, max_norm: float,
                       norm_type: float) -> None:
    """Rescales in place the rows of weight that indices reference to norm <= max_norm."""
    rows = indices.unique()
    norms = weight.index_select(0, rows).norm(norm_type, 1, keepdim=True)
    scale = minitorch.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    weight[rows] = weight.index_select(0, rows) * scale


# ---- normalization ------------------------------------------------------------------

def _reduce_dims_except(input: Tensor, dim: int) -> List[int]:
    return [d for d in range(input.dim()) if d != dim]


def _channel_view(t: Tensor, ndim: int) -> Tensor:
    """A per-channel vector shaped to broadcast along dim 1 of an ndim tensor."""
    return t.reshape(*([1, t.numel()] + [1] * (ndim - 2)))


_layer_norm_rows = _C._functions["_layer_norm_rows"]
_group_norm_rows = _C._functions["_group_norm_rows"]
_batch_norm_train = _C._functions["_batch_norm_train"]


def _check_norm_dtypes(input: Tensor, kernel: str, *params: Optional[Tensor]) -> None:
    """torch's dtype rules for the normalization kernels: a floating input, and
    parameters of its dtype, or float32 ones beside a float16/bfloat16 input."""
    from ..composites import _SCALAR_NAMES
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_SCALAR_NAMES[str(input.dtype)]}'")
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


def _prod(sizes: Sequence[int]) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


@_overridable
def layer_norm(input: Tensor, normalized_shape: Sequence[int], weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Applies Layer Normalization over the last len(normalized_shape) dimensions."""
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        f"of ints, not {type(normalized_shape).__name__}")
    normalized_shape = list(normalized_shape)
    k = len(normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{normalized_shape}")
    if list(input.shape[input.dim() - k:]) != normalized_shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with "
                           f"shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    _check_norm_dtypes(input, "LayerNormKernelImpl", weight, bias)
    out, _ = _layer_norm_rows(input, weight, bias, 1, _prod(normalized_shape), 1, eps, False)
    return out


@_overridable
def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None,
               bias: Optional[Tensor] = None, eps: float = 1e-5) -> Tensor:
    """Applies Group Normalization over groups of channels."""
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    n, c = input.shape[0], input.shape[1]
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
    out, _ = _group_norm_rows(input, weight, bias, num_groups, c, _prod(input.shape[2:]), eps,
                              False)
    return out


# ---- losses -------------------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  f"reduction='{'mean' if size_average and reduce else ('sum' if reduce else 'none')}' instead.",
                  stacklevel=3)
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({_torch_size(target)}) that is different to the input size "
            f"({_torch_size(input)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _torch_size(t: Tensor) -> str:
    return "torch.Size(%s)" % list(t.shape)


def _difference_loss(of_diff, input, target, size_average, reduce, reduction, weight):
    """of_diff(input - target), optionally weighted, reduced as asked."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    _check_reduction(reduction)
    loss = of_diff(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@_overridable
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
             reduction: str = "mean", weight: Optional[Tensor] = None) -> Tensor:
    """Measures the element-wise mean squared error."""
    return _difference_loss(Tensor.square, input, target, size_average, reduce, reduction,
                            weight)


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
    diff = (input - target).abs()
    loss = minitorch.where(diff < delta, 0.5 * diff.square(), delta * (diff - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


_nll_loss = _C._functions["_nll_loss"]
_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _nll(input: Tensor, target: Tensor, weight: Optional[Tensor], ignore_index: int,
         reduction: str) -> Tensor:
    """nll_loss over (N, C, d...) input and (N, d...) long target, or (C,) and ().

    The shapes are checked here; classes, weights and the picking are C's
    (_nll_loss), which takes 1-, 2- and 4-D inputs. Other ranks go through
    the 4-D form as (N, C, 1, rest), as torch's nll_loss_nd does."""
    _check_reduction(reduction)
    if target.is_floating_point() or target.dtype == minitorch.bool:
        name = {minitorch.float32: "Float", minitorch.float64: "Double",
                minitorch.float16: "Half", minitorch.bfloat16: "BFloat16",
                minitorch.bool: "Bool"}[target.dtype]
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
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
        return -(target * input.log().clamp(min=-100)
                 + (1 - target) * (1 - input).log().clamp(min=-100))

    @staticmethod
    def backward(ctx, grad: Tensor):
        input, target = ctx.saved_tensors
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * (input - target) / ((1 - input) * input).clamp(min=1e-12)
        if ctx.needs_input_grad[1]:
            grad_target = grad * ((1 - input).log() - input.log())
        return grad_input, grad_target


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
    if log_target:
        loss = target.exp() * (target - input)
    else:
        xlogy = minitorch.where(target == 0, 0.0, target * target.log())
        loss = minitorch.where(target.isnan(), target, xlogy) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() != 0 else loss.sum()
    return _reduce(loss, reduction)


from .functional_activations import *  # noqa: E402,F401,F403  (Python-level activations)
from .functional_padding import *  # noqa: E402,F401,F403  (pad with every mode)
from .functional_losses import *  # noqa: E402,F401,F403  (margin and likelihood losses)
from .functional_pooling import *  # noqa: E402,F401,F403  (1-D poolings)
from .functional_interpolate import *  # noqa: E402,F401,F403  (interpolate, upsample*)
from .functional_pixel_shuffle import *  # noqa: E402,F401,F403  (pixel_(un)shuffle)
from .functional_fold import *  # noqa: E402,F401,F403  (unfold, fold)
from .functional_grid import *  # noqa: E402,F401,F403  (affine_grid, grid_sample)
from .functional_attention import *  # noqa: E402,F401,F403  (scaled_dot_product_attention)
from .functional_norms import *  # noqa: E402,F401,F403  (rms_norm, instance_norm)
from .functional_pooling3d import *  # noqa: E402,F401,F403  (3-D poolings)
from .functional_adaptive_max import *  # noqa: E402,F401,F403  (adaptive max poolings)
from ..composites_conv import (  # noqa: E402,F401  (torch.conv3d is F.conv3d, and so on)
    conv3d as conv3d, conv_transpose1d as conv_transpose1d,
    conv_transpose2d as conv_transpose2d, conv_transpose3d as conv_transpose3d)
