"""nn.functional.ctc_loss (re-exported by nn.functional): the connectionist
temporal classification loss, -log of the probability of all alignments of
each target with its input, by the forward (alpha) and backward (beta)
recursions over the blank-extended target in log space.

The recursions run in NumPy (float64) inside an autograd Function whose
backward is torch's: exp(log_probs) - exp(log(alpha * beta) + nll -
log_probs) summed per class, zero past each input's length. Like torch's,
that gradient assumes log_probs are log-softmax outputs (it is the loss's
derivative through the log-softmax), so it matches torch's values exactly."""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

import minitorch
from ...overrides import overridable as _overridable
from .namespace import publish
from .reduction import _check_reduction

Tensor = minitorch.Tensor
_Lengths = Union[Tensor, Sequence[int]]

__all__ = ["ctc_loss"]


def _logaddexp(*xs: np.ndarray) -> np.ndarray:
    out = xs[0]
    for x in xs[1:]:
        out = np.logaddexp(out, x)
    return out


def _shift(a: np.ndarray, k: int) -> np.ndarray:
    """a moved k places along its last axis, -inf coming in."""
    out = np.full_like(a, -np.inf)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def _ctc(lp: np.ndarray, labels: np.ndarray, in_len: np.ndarray, tgt_len: np.ndarray,
         blank: int, want_grad: bool):
    """nll (N,) and, when asked, torch's gradient of each nll w.r.t. lp (T, N, C)."""
    steps, batch, classes = lp.shape
    width = 2 * labels.shape[1] + 1
    ext = np.full((batch, width), blank, dtype=np.int64)
    ext[:, 1::2] = labels
    valid = np.arange(width)[None, :] < (2 * tgt_len + 1)[:, None]
    # a label may follow the one two places back when they differ
    skip = np.zeros((batch, width), dtype=bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    lpe = np.take_along_axis(lp, np.broadcast_to(ext, (steps, batch, width)), 2)
    lpe = np.where(valid, lpe, -np.inf)
    rows = np.arange(batch)
    alpha = np.full((steps, batch, width), -np.inf)
    if steps:
        alpha[0, :, 0] = lpe[0, :, 0]
        if width > 1:
            alpha[0, :, 1] = np.where(tgt_len > 0, lpe[0, :, 1], -np.inf)
    for t in range(1, steps):
        prev = alpha[t - 1]
        came = _logaddexp(prev, _shift(prev, 1), np.where(skip, _shift(prev, 2), -np.inf))
        alpha[t] = lpe[t] + came
    last = np.clip(in_len - 1, 0, None)
    end = 2 * tgt_len
    at_end = alpha[last, rows]
    final = _logaddexp(at_end[rows, end],
                       np.where(tgt_len > 0, at_end[rows, np.maximum(end - 1, 0)], -np.inf))
    nll = np.where(in_len > 0, -final, np.where(tgt_len == 0, 0.0, np.inf))
    if not want_grad:
        return nll, None
    beta = np.full((steps, batch, width), -np.inf)
    skip_next = _shift(skip, -2)
    for t in range(steps - 1, -1, -1):
        start = np.full((batch, width), -np.inf)
        start[rows, end] = lpe[t, rows, end]
        start[rows, np.maximum(end - 1, 0)] = np.where(
            tgt_len > 0, lpe[t, rows, np.maximum(end - 1, 0)], start[rows, np.maximum(end - 1, 0)])
        if t + 1 < steps:
            nxt = beta[t + 1]
            went = _logaddexp(nxt, _shift(nxt, -1), np.where(skip_next, _shift(nxt, -2), -np.inf))
            inner = lpe[t] + went
        else:
            inner = np.full((batch, width), -np.inf)
        here = (t == in_len - 1)[:, None]
        before = (t < in_len - 1)[:, None]
        beta[t] = np.where(here, start, np.where(before, inner, -np.inf))
    both = alpha + beta
    lcab = np.full((steps, batch, classes), -np.inf)
    for s in range(width):
        idx = ext[:, s]
        cur = lcab[:, rows, idx]
        lcab[:, rows, idx] = np.logaddexp(cur, both[:, :, s])
    with np.errstate(invalid="ignore", over="ignore"):
        grad = np.exp(lp) - np.exp(lcab + nll[None, :, None] - lp)
    alive = np.arange(steps)[:, None] < in_len[None, :]
    grad = np.where(alive[:, :, None], grad, 0.0)
    return nll, grad


class _CTCLoss(minitorch.autograd.Function):
    """nll per sample; backward hands out torch's gradient times grad_output."""

    @staticmethod
    def forward(ctx, log_probs, labels, in_len, tgt_len, blank, zero_infinity):
        lp = log_probs.detach().numpy().astype(np.float64)
        nll, grad = _ctc(lp, labels, in_len, tgt_len, blank, log_probs.requires_grad)
        infinite = np.isinf(nll)
        if zero_infinity:
            nll = np.where(infinite, 0.0, nll)
            if grad is not None:
                grad = np.where(infinite[None, :, None], 0.0, grad)
        if grad is not None:
            ctx.save_for_backward(minitorch.tensor(grad, dtype=log_probs.dtype))
        return minitorch.tensor(nll, dtype=log_probs.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        grad, = ctx.saved_tensors
        return grad * grad_output.reshape(1, -1, 1), None, None, None, None, None


def _as_array(lengths: _Lengths) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return lengths.detach().numpy().astype(np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


@_overridable
def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: _Lengths,
             target_lengths: _Lengths, blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """CTC loss of log_probs (T, N, C) or (T, C) against targets, padded (N, S)
    or concatenated (sum of target_lengths); mean divides each loss by its
    target length before averaging over the batch."""
    _check_reduction(reduction)
    batched = log_probs.dim() == 3
    if log_probs.dim() not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2D or 3D, but got "
                           f"{log_probs.dim()}D")
    lp = log_probs if batched else log_probs.unsqueeze(1)
    steps, batch, classes = lp.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    in_len, tgt_len = _as_array(input_lengths), _as_array(target_lengths)
    if in_len.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tgt_len.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if (in_len > steps).any():
        raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                           f"value {int(in_len.max())} (while checking arguments for "
                           "ctc_loss_allocate_outputs)")
    flat = targets.detach().numpy().astype(np.int64)
    longest = int(tgt_len.max()) if tgt_len.size else 0
    labels = np.full((batch, longest), blank, dtype=np.int64)
    if flat.ndim == 1 and batched:  # the targets one after another
        starts = np.concatenate([[0], np.cumsum(tgt_len)[:-1]])
        for n in range(batch):
            labels[n, :tgt_len[n]] = flat[starts[n]:starts[n] + tgt_len[n]]
    else:
        rows = flat.reshape(batch, -1)
        if rows.shape[1] < longest:
            raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension "
                               f"1, but got size {rows.shape[1]} for argument #2 'targets' "
                               "(while checking arguments for ctc_loss_allocate_outputs)")
        for n in range(batch):
            labels[n, :tgt_len[n]] = rows[n, :tgt_len[n]]
    loss = _CTCLoss.apply(lp, labels, in_len, tgt_len, blank, zero_infinity)
    if reduction == "mean":
        lengths = minitorch.tensor(np.maximum(tgt_len, 1), dtype=loss.dtype)
        return (loss / lengths).mean()
    if reduction == "sum":
        return loss.sum()
    return loss if batched else loss.reshape(())


publish(globals())
