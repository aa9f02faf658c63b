"""NAdam, as torch.optim.NAdam."""
from .. import _C
from . import differentiable
from .optimizer import (_GroupOptimizer, _check_betas, _check_flags, _check_nonnegative,
                        _check_tensor_lr)

_fused_nadam_step = _C._functions["_fused_nadam_step"]


class NAdam(_GroupOptimizer):
    r"""Implements the NAdam algorithm (Adam with Nesterov momentum), with
    torch.optim.NAdam's arguments and update rule."""

    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_tensor_lr(lr)
        _check_nonnegative(("learning rate", lr), ("epsilon value", eps))
        _check_betas(betas)
        _check_nonnegative(("weight_decay value", weight_decay),
                           ("momentum_decay value", momentum_decay))
        _check_flags("NAdam", capturable, differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update_group(self, group):
        beta1, beta2 = group["betas"]
        momentum_decay = group["momentum_decay"]
        for p, grad in self._params_with_grad(group):
            state = self._stepped_state(p, ("exp_avg", "exp_avg_sq"), (("mu_product", 1.0),))
            step = int(state["step"].item())
            # The running product lives in a float32 tensor, rounded as torch's is.
            state["mu_product"] *= beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
            if group["differentiable"]:
                differentiable.nadam(p, grad, state, group)
                continue
            _fused_nadam_step(p, grad, state["exp_avg"], state["exp_avg_sq"],
                              float(group["lr"]), beta1, beta2, group["eps"],
                              group["weight_decay"], momentum_decay,
                              state["mu_product"].item(), step, group["maximize"],
                              group["decoupled_weight_decay"])
