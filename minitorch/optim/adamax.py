"""Adamax, as torch.optim.Adamax."""
from .. import _C
from . import differentiable
from .optimizer import (_GroupOptimizer, _check_betas, _check_flags, _check_nonnegative,
                        _check_tensor_lr)

_fused_adamax_step = _C._functions["_fused_adamax_step"]


class Adamax(_GroupOptimizer):
    r"""Implements the Adamax algorithm (Adam with the infinity norm), with
    torch.optim.Adamax's arguments and update rule."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("epsilon value", eps))
        _check_betas(betas)
        _check_nonnegative(("weight_decay value", weight_decay))
        _check_flags("Adamax", capturable, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, ("exp_avg", "exp_inf"))
            if group["differentiable"]:
                differentiable.adamax(p, grad, state, group)
                continue
            _fused_adamax_step(p, grad, state["exp_avg"], state["exp_inf"],
                               float(group["lr"]), beta1, beta2, group["eps"],
                               group["weight_decay"], int(state["step"].item()),
                               group["maximize"])
