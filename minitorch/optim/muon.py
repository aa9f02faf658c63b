"""Muon, as torch.optim.Muon: momentum SGD for 2-D parameters whose update
is orthogonalized by a few Newton-Schulz iterations, run in bfloat16 as
torch's are."""
import math

from .. import _C
from .optimizer import _GroupOptimizer, _check_tensor_lr

_addmm = _C._functions["addmm"]
_zeros_like = _C._functions["zeros_like"]

# the quintic's coefficients, chosen (by Muon's authors) for the steepest slope at zero
_NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def _orthogonalize(grad, ns_coefficients, ns_steps: int, eps: float):
    """grad's nearest semi-orthogonal matrix, approximately (singular values
    pushed into about [0.5, 1.5]), by ns_steps Newton-Schulz iterations."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        x = _addmm(x, _addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    """lr scaled so that the orthogonal update's RMS is alike across shapes."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    return lr * 0.2 * math.sqrt(max(rows, cols))


class Muon(_GroupOptimizer):
    r"""Implements Muon (momentum, orthogonalized by Newton-Schulz, with
    decoupled weight decay) for 2-D parameters, with torch.optim.Muon's
    arguments and update rule."""

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients=_NS_COEFFICIENTS, eps: float = 1e-7, ns_steps: int = 5,
                 adjust_lr_fn=None) -> None:
        _check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in (None, "original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update_group(self, group):
        lr, momentum = group["lr"], group["momentum"]
        self._refuse_complex(group)
        for p, grad in self._params_with_grad(group):
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = _zeros_like(grad)
            if grad.dim() != 2:
                raise ValueError("Param gradient must be a 2D matrix")
            buf = state["momentum_buffer"]
            buf.lerp_(grad, 1 - momentum)
            update = grad.lerp(buf, momentum) if group["nesterov"] else buf
            update = _orthogonalize(update, group["ns_coefficients"], group["ns_steps"],
                                    group["eps"])
            p.mul_(1 - lr * group["weight_decay"])
            p.add_(update, alpha=-float(_adjusted_lr(lr, group["adjust_lr_fn"], p.shape)))
