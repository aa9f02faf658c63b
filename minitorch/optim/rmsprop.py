"""RMSprop, as torch.optim.RMSprop."""
from .. import _C
from . import differentiable
from .optimizer import _GroupOptimizer, _check_flags, _check_nonnegative, _check_tensor_lr

_fused_rmsprop_step = _C._functions["_fused_rmsprop_step"]


class RMSprop(_GroupOptimizer):
    r"""Implements the RMSprop algorithm, with torch.optim.RMSprop's arguments
    and update rule."""

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("epsilon value", eps),
                           ("momentum value", momentum), ("weight_decay value", weight_decay),
                           ("alpha value", alpha))
        _check_flags("RMSprop", capturable, differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        momentum, centered = group["momentum"], group["centered"]
        for p, grad in self._params_with_grad(group):
            buffers = ("square_avg",) + (("momentum_buffer",) if momentum > 0 else ()) \
                + (("grad_avg",) if centered else ())
            state = self._stepped_state(p, buffers)
            if group["differentiable"]:
                differentiable.rmsprop(p, grad, state, group)
                continue
            _fused_rmsprop_step(p, grad, state["square_avg"], state.get("grad_avg"),
                                state.get("momentum_buffer"), float(group["lr"]),
                                group["alpha"], group["eps"], group["weight_decay"],
                                momentum, centered, group["maximize"])
