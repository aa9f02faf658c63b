"""RAdam, as torch.optim.RAdam."""
from .. import _C
from . import differentiable
from .optimizer import (_GroupOptimizer, _check_betas, _check_flags, _check_nonnegative,
                        _check_tensor_lr)

_fused_radam_step = _C._functions["_fused_radam_step"]


class RAdam(_GroupOptimizer):
    r"""Implements the RAdam algorithm (Adam with a rectified adaptive lr),
    with torch.optim.RAdam's arguments and update rule."""

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("epsilon value", eps))
        _check_betas(betas)
        _check_nonnegative(("weight_decay value", weight_decay))
        _check_flags("RAdam", capturable, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, ("exp_avg", "exp_avg_sq"))
            if group["differentiable"]:
                differentiable.radam(p, grad, state, group)
                continue
            _fused_radam_step(p, grad, state["exp_avg"], state["exp_avg_sq"],
                              float(group["lr"]), beta1, beta2, group["eps"],
                              group["weight_decay"], int(state["step"].item()),
                              group["maximize"], group["decoupled_weight_decay"])
